"""One writer at a time: a command that writes a release, or adds to a raw folder, holds that
folder's lock for its whole run, and a second one refuses in one line.

The lock is the operating system's lock on a file (``flock`` on Linux and macOS, ``msvcrt``'s
byte lock on Windows), so a process that dies, however it dies, holds it no longer: no stale
lock is ever left to remove by hand.
The file lives in /tmp, whatever TMPDIR says (on Windows, the user's temporary folder), named by
the folder's resolved path (however the path was typed, one folder has one lock), never in the
project: it is not ours to litter. The holder removes it as it ends, while still holding it;
a process that locked a file so removed (it opened it before the removal) finds the path no
longer names the file it locked, and opens the path again: two never hold one folder, and lock
files do not pile up in /tmp.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import LockHeld
from .guard import MARK

_WINDOWS_OFFSET = 2**20  # the byte locked on Windows, past the process id written at the start
_fds: dict[Path, int] = {}  # the open lock file of each of them
_held: set[Path] = set()  # lock files this process holds: a command's own steps nest (publish
# holds its stage, then builds into it), and the outermost hold releases the lock


def _lock_dir() -> Path:
    # One place for every process of the machine, whatever TMPDIR says (two shells with other
    # TMPDIRs, or macOS's per-user one, would otherwise lock different files): /tmp where there
    # is one; on Windows the temporary folder (per user there: a limit).
    return Path("/tmp") if os.name != "nt" and os.path.isdir("/tmp") else Path(tempfile.gettempdir())


def lock_file(folder: str | Path) -> Path:
    """The lock file of ``folder``."""
    real = os.path.normcase(os.path.abspath(os.path.realpath(folder)))
    if sys.platform == "darwin":  # case-insensitive by default there: Dist and dist are one folder
        real = real.lower()
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:24]
    return _lock_dir() / f"{MARK}-lock-{key}"



def _try_lock(fd: int) -> bool:
    if os.name == "nt":
        import msvcrt

        os.lseek(fd, _WINDOWS_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # Windows only: this branch
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    with contextlib.suppress(OSError):
        if os.name == "nt":
            import msvcrt

            os.lseek(fd, _WINDOWS_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]  # Windows only: this branch
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        os.lseek(fd, 0, os.SEEK_SET)
        pid = int(os.read(fd, 32).split(b"\n")[0])
        return f" (process {pid})"
    return ""


@contextlib.contextmanager
def writing(folder: str | Path) -> Iterator[None]:
    """Hold ``folder``'s lock while the block runs; :class:`Refused` at once, naming the
    process that holds it, if another command does."""
    path = lock_file(folder)
    if path in _held:  # held by this very process already: a step of the command holding it
        yield
        return
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            writable = True
        except PermissionError:  # another user's lock file in a shared temporary folder
            fd, writable = os.open(path, os.O_RDONLY), False
        if not _try_lock(fd):
            holder = _holder(fd)
            os.close(fd)
            raise LockHeld(folder, f"another command{holder} is writing it now: wait for it to end, "
                                  "then run this again")
        if os.name == "nt" or _same_file(fd, path):
            break
        _unlock(fd)  # its holder removed it as it ended: lock the file now at the path
        os.close(fd)
    try:
        try:
            if writable:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
                    os.lseek(fd, 0, os.SEEK_SET)
                    os.write(fd, f"{os.getpid()}\n".encode())
            _held.add(path)
            _fds[path] = fd
            try:
                yield
            finally:
                _held.discard(path)
                _fds.pop(path, None)
                if writable and os.name != "nt":  # removed while held: see the module's note
                    with contextlib.suppress(OSError):
                        os.unlink(path)
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed, nor made anew)."""
    try:
        st, now = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (now.st_dev, now.st_ino)
