"""Where git advice holds: the one rule every message that names a git command follows.

A command may tell a user to ``git add`` only in a git clone (:func:`clone_of`), and to
``git checkout -- <path>`` only where git tracks that path (:func:`checkout_command`): a release
folder built outside the index (a test's dist/, an ignored folder, an unpacked sdist) is not
restored by it. Also the one way the package runs git (:func:`git`, :func:`git_text`, and
:class:`Blobs` for files of commits)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import threading
from pathlib import Path

GIT_TIMEOUT = 120  # seconds a git command, or one file asked of ``Blobs``, may take before it counts as failed


def git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """``git -C repo args`` (bytes out); a failed run where git itself is missing."""
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        return subprocess.CompletedProcess(args, 127, b"", str(exc).encode())


class Blobs:
    """Files of commits of the clone ``repo``: ``read("<revision>:<path>")`` gives what
    ``git show <revision>:<path>`` prints of a file, or None where that fails (no such revision
    or file, git missing). One ``git cat-file --batch`` process answers them all in turn, asked
    one at a time (so a caller reads no more than it needs): a ``git show`` each cost a process
    of its own, about 4 ms, most of the time a seeds build spent reading the published record.
    What ``cat-file`` does not give as a file (a folder, a submodule), or any trouble with that
    process, is asked of ``git show`` itself. A context manager: leaving it ends the process."""

    def __init__(self, repo: Path):
        self.repo = repo
        self._proc: subprocess.Popen | None = None
        self._failed = False  # the batch process broke: ``git show`` for the rest

    def __enter__(self) -> Blobs:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.communicate(timeout=GIT_TIMEOUT)  # closes its input: cat-file exits
        except (OSError, ValueError, subprocess.SubprocessError):
            proc.kill()
            proc.wait()

    def read(self, spec: str) -> bytes | None:
        if not self._failed and "\n" not in spec:
            try:
                answered, found = self._batch(spec)
            except (OSError, ValueError, subprocess.SubprocessError):
                self._failed = True
                self.close()
            else:
                if answered:
                    return found
        shown = git(self.repo, "show", spec)
        return shown.stdout if shown.returncode == 0 else None

    def _batch(self, spec: str) -> tuple[bool, bytes | None]:
        """(True, the file's bytes or None where there is no such object), or (False, None):
        the object is not a file."""
        if self._proc is None:
            self._proc = subprocess.Popen(["git", "-C", str(self.repo), "cat-file", "--batch"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None  # both piped above
        name = os.fsencode(spec)
        # A git that hangs is ended: the read below then fails, and ``git show`` is asked instead.
        watchdog = threading.Timer(GIT_TIMEOUT, proc.kill)
        watchdog.start()
        try:
            proc.stdin.write(name + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline()
            if header in (name + b" missing\n", name + b" ambiguous\n"):
                return True, None
            fields = header.split()
            if len(fields) != 3 or not fields[2].isdigit():
                raise ValueError(f"git cat-file answered {header!r}")
            size = int(fields[2])
            body = proc.stdout.read(size + 1)  # its bytes and a newline
            if len(body) != size + 1:
                raise ValueError("git cat-file ended early")
        finally:
            watchdog.cancel()
        return (True, body[:-1]) if fields[1] == b"blob" else (False, None)


def git_text(repo: Path, *args: str) -> str:
    """What ``git`` prints, stripped; "" where it fails."""
    proc = git(repo, *args)
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def clone_of(*folders: str | Path | None) -> Path | None:
    """The git clone holding the first of ``folders`` that is in one (its nearest existing folder
    asked, so a folder not written yet counts), or None: outside any clone."""
    for folder in folders:
        if folder is None:
            continue
        p = Path(folder).absolute()
        existing = next((q for q in (p, *p.parents) if q.is_dir()), None)
        if existing is not None and (top := git_text(existing, "rev-parse", "--show-toplevel")):
            return Path(top)
    return None


# What a shell would split or expand inside a path (a "~" only leads one, which these never do); a
# Windows path's backslashes are left as typed.
_SHELL_SPECIAL = re.compile(r"""[\s'"$`&|;<>()*?!#{}\[\]]""")


def _word(path: str) -> str:
    """``path`` as one shell word: quoted where a shell would split or expand it, else as is."""
    return shlex.quote(path) if _SHELL_SPECIAL.search(path) else path


def checkout_command(path: str | Path, revision: str | None = None) -> str | None:
    """``git checkout`` of ``path`` as typed where the command runs (its path from the current
    folder inside the clone, else ``git -C <clone>`` and its path in the clone; quoted for a
    shell), or None where git does not track ``path`` (outside a clone, or a folder the index
    holds nothing of). ``revision``: where to take it from (default the index: a staged edit
    stays)."""
    p = Path(path).absolute()
    p = p.parent.resolve() / p.name
    clone = clone_of(p)
    if clone is None:
        return None
    top = clone.resolve()
    try:
        rel = p.relative_to(top).as_posix()
    except ValueError:
        return None
    if not git_text(top, "ls-files", "--", rel or "."):
        return None  # the index holds nothing of it: git checkout cannot restore it
    here = Path.cwd().resolve()
    source = f"{revision} " if revision else ""
    if here == top or top in here.parents:
        return f"git checkout {source}-- {_word(Path(os.path.relpath(p, here)).as_posix())}"
    return f"git -C {_word(str(top))} checkout {source}-- {_word(rel)}"

