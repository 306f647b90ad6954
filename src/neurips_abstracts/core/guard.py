"""The one rule for every folder a command writes or replaces, and the temporary folders it
writes first.

A command replaces a folder whole (``build --out``, ``publish --stage``) or adds files to one
(``add``'s raw folder). Before it touches anything it asks this module, which refuses, in one
line naming the path and the reason:

* a symbolic link (never followed: replacing a link would swap the link, not the folder it
  names, and a link can point anywhere);
* the current folder or one that holds it, and a repository root (a folder holding
  ``pyproject.toml`` or ``.git``);
* a raw folder, or any folder holding dumps or their metadata files; the release a command
  reads; any folder inside a raw folder or a release, or holding one; the one exception is the
  release a build writes, which it replaces whole;
* an existing folder that holds anything but a release (``build_manifest.json`` and only the
  files its ``SHA256SUMS`` lists): what a command replaces must be new, empty or its own
  earlier output.

Temporary folders carry :data:`MARK` and the id of the process that made them in their names
(``.dist.neurips-abstracts-tmp-<pid>-<random>``), so a later run can tell them from anyone
else's files: it removes those whose process is gone (on Windows, where a process id cannot
be probed safely, those older than :data:`STALE_SECONDS`), and nothing else. A process id is
only known within its PID namespace: in a system temporary folder shared between containers a
live run's folder looked gone to another and was removed under it, so a folder there holds
:data:`OWNER`, locked by its process while it lives, and that lock decides.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .errors import NO_RAW_FOLDER, Refused  # noqa: F401 (Refused: callers import it here)
from .names import (
    DUMP_SUFFIX,
    MANIFEST,
    NAME_RE,
    PACKAGE_ADVICE,
    SIDECAR_SUFFIX,
    SUMS,
    dump_of_sidecar,
    is_built_package,
    is_hidden,
    release_beside,
)

MARK = "neurips-abstracts"
REPOSITORY_MARKERS = ("pyproject.toml", ".git")
STALE_SECONDS = 24 * 3600
# .<target name>.neurips-abstracts-<tmp|old>-<pid>-<random>, or neurips-abstracts-tmp-<pid>-<random>
_OURS_RE = re.compile(rf"^(?:\.(?P<target>.+)\.)?{MARK}-(?P<kind>tmp|old)-(?P<pid>\d+)-[A-Za-z0-9_]+$")
SYMLINK_POLICY = "links are refused, not followed"


def resolve(path: Path) -> Path:
    """``path`` resolved; Refused (one line) where a symbolic link loop is on the way to it."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symbolic link loop (Python < 3.13)
        raise Refused(path, "a symbolic link loop is on the way to it") from None


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _holds_dumps(folder: Path, any_txt: bool = True) -> str | None:
    """The name of a dump or metadata file at the top of ``folder``, if it holds one; with
    ``any_txt``, any .txt file counts as a dump under another name."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return None
    for p in entries:
        name = p.name
        if NAME_RE.match(name) or (name.endswith(SIDECAR_SUFFIX) and NAME_RE.match(dump_of_sidecar(name))):
            return name
        if any_txt and name.endswith(DUMP_SUFFIX) and not is_hidden(name):  # a dump under any name; a release holds none
            return name
    return None


def project_folders() -> tuple[Path, Path, Path]:
    """The checkout's root, raw/ and dist/: never replaced by anything but a build of dist/."""
    from .resources import CHECKOUT_ROOT

    return CHECKOUT_ROOT, CHECKOUT_ROOT / "raw", CHECKOUT_ROOT / "dist"


def check_replaceable(target: str | Path, raw: Iterable[str | Path] = (), keep: Iterable[str | Path] = (),
                      releases: Iterable[str | Path] = ()) -> Path:
    """Refuse (:class:`Refused`) unless ``target`` may be replaced whole by a folder we write.

    ``raw``: the raw folders the command reads (the dist/ beside each is a release too);
    ``keep``: other folders it reads, which must survive whole (a release being published);
    ``releases``: release folders ``target`` may be, but not lie inside or hold. Returns
    ``target`` resolved.
    """
    target = Path(target)
    if target.is_symlink():
        raise Refused(target, f"it is a symbolic link ({SYMLINK_POLICY}): give the folder itself")
    if target.exists() and not target.is_dir():
        raise Refused(target, "it is a file, not a folder")
    real = resolve(target)
    existing = next(p for p in (real, *real.parents) if p.exists())
    if not existing.is_dir():
        raise Refused(target, f"{existing} is a file, not a folder")
    here = Path.cwd().resolve()
    if real == here:
        raise Refused(target, "it is the current folder")
    if real in here.parents:
        raise Refused(target, "it holds the current folder")
    for marker in REPOSITORY_MARKERS:
        if (real / marker).exists():
            raise Refused(target, f"it is a repository root (holds {marker})")
    root, project_raw, project_dist = project_folders()
    raws = [resolve(Path(r)) for r in raw] + [project_raw]
    kept = [resolve(Path(k)) for k in keep]
    dists = [release_beside(r) for r in raws] + [resolve(Path(r)) for r in releases] + [project_dist]
    if real in [root.resolve(), *root.resolve().parents]:
        raise Refused(target, f"it holds the project {root}")
    for folder, what in [*((r, "raw folder") for r in raws), *((k, "input") for k in kept)]:
        if _is_within(real, folder):
            raise Refused(target, f"it is {'' if real == folder else 'inside '}the {what} {folder}, which this command only reads")
    for folder in dists:
        if folder in real.parents:
            raise Refused(target, f"it is inside the release {folder}: give a folder of its own")
    for folder in [*raws, *kept, *dists]:
        if real in folder.parents:
            raise Refused(target, f"it holds {folder}")
    _refuse_inside_ours(target, real)
    if real.is_dir():
        dump = _holds_dumps(real)
        if dump:
            raise Refused(target, f"it holds dumps ({dump}): a raw folder is never replaced")
        try:
            names = {p.name for p in real.iterdir()}
        except OSError as exc:
            raise Refused(target, f"cannot list it ({exc.strerror})") from None
        if names and MANIFEST not in names:
            raise Refused(target, f"it exists and holds no release (no {MANIFEST}); it would be "
                                  "replaced whole: give a new or empty folder")
        if names and (other := _not_of_the_release(real)):
            if is_built_package(other):
                raise Refused(target, f"it holds {other}, {PACKAGE_ADVICE}")
            raise Refused(target, f"it holds {other}, which is not a file of the release it holds (not in "
                                  f"{SUMS}); it would be replaced whole: move it, or give a new or empty folder")
    return real


def _not_of_the_release(folder: Path) -> str | None:
    """The first file or folder under ``folder`` that its release's checksum list does not name
    (the list itself and the folders of listed files excepted), or None: a folder holding
    ``build_manifest.json`` is ours to replace only if nothing else of anyone's is in it."""
    try:
        listed = {line.split("  ", 1)[1] for line in (folder / SUMS).read_text(encoding="utf-8").splitlines()
                  if "  " in line}
    except (OSError, UnicodeDecodeError):
        return MANIFEST + f" without a readable {SUMS}"
    parents = {p.as_posix() for rel in listed for p in Path(rel).parents}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel in listed or rel == SUMS or (path.is_dir() and not path.is_symlink() and rel in parents):
            continue
        return rel
    return None


def check_raw_target(raw: str | Path) -> Path:
    """Refuse (:class:`Refused`) unless ``raw`` is a folder that ``add`` may add dumps to."""
    raw = Path(raw)
    if raw.is_symlink():
        raise Refused(raw, f"it is a symbolic link ({SYMLINK_POLICY}): give the raw folder itself")
    if not raw.exists():
        raise Refused(raw, NO_RAW_FOLDER)
    if not raw.is_dir():
        raise Refused(raw, "it is a file, not a raw folder")
    real = resolve(raw)
    here = Path.cwd().resolve()
    if real in here.parents or (real == here and not _holds_dumps(real, any_txt=False)):
        # the current folder is a raw folder only if it holds dumps already (`cd raw && add … --raw .`)
        raise Refused(raw, "it is the current folder or holds it, not a raw folder")
    for marker in (*REPOSITORY_MARKERS, MANIFEST):
        if (real / marker).exists():
            raise Refused(raw, f"it holds {marker}: not a raw folder")
    _root, _raw, project_dist = project_folders()
    if _is_within(real, project_dist) or real in project_dist.parents:
        raise Refused(raw, f"it is, holds or is inside the release {project_dist}")
    _refuse_inside_ours(raw, real)
    return real


def _refuse_inside_ours(shown: Path, real: Path) -> None:
    """A folder inside a release that no option named is still one. (Only the project's own
    raw folders, named by the command or the checkout's, count as raw folders: a file named like
    a dump in a folder above, a contributor's download kept beside the clone, refuses nothing,
    and no folder above is listed.)"""
    for parent in real.parents:
        if (parent / MANIFEST).exists():
            raise Refused(shown, f"it is inside the release {parent}")


# -- temporary folders ---------------------------------------------------------------------


OWNER = ".owner"  # in a temporary folder of the system's: locked by the process using it


def _owner_alive(path: Path) -> bool | None:
    """Whether the process that made temporary folder ``path`` still holds its :data:`OWNER`
    lock (None: the folder has no such file). The lock, not the id in the name, decides: a
    process id means nothing in another PID namespace (containers sharing /tmp), where a live
    run's folder looked gone and was removed under it."""
    if os.name == "nt":
        return None
    import fcntl

    try:
        fd = os.open(path / OWNER, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _process_gone(pid: int, path: Path) -> bool:
    if pid == os.getpid():
        return False
    if (alive := _owner_alive(path)) is not None:
        return not alive
    if os.name == "nt":  # os.kill would end the process there: judge by age instead
        try:
            return time.time() - path.lstat().st_mtime > STALE_SECONDS
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else
        return False
    return False


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def remove_litter(folder: Path, target: str | None = None) -> list[Path]:
    """Remove what killed runs of ours left in ``folder`` (for ``target`` only, if given).

    A replaced release moved aside (``…-old-…``) while its target is missing is moved back
    first: the run was killed between its two renames, and the old release is the last whole one.
    """
    removed: list[Path] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return removed
    for p in entries:
        m = _OURS_RE.match(p.name)
        if not m or (target is not None and m["target"] != target) or not _process_gone(int(m["pid"]), p):
            continue
        home = folder / m["target"] if m["target"] else None
        if m["kind"] == "old" and home is not None and not home.exists() and not home.is_symlink():
            with contextlib.suppress(OSError):
                p.rename(home)
            continue  # moved back, or left where it is: it may be the only copy
        _remove(p)
        removed.append(p)
    return removed


def moved_aside(target: Path) -> Path | None:
    """The release a killed build moved aside from ``target`` (missing), between its two renames:
    what the next build of ``target`` puts back (``remove_litter``)."""
    if target.exists() or target.is_symlink():
        return None
    try:
        entries = sorted(target.parent.iterdir())
    except OSError:
        return None
    for p in entries:
        m = _OURS_RE.match(p.name)
        if m and m["kind"] == "old" and m["target"] == target.name and _process_gone(int(m["pid"]), p):
            return p
    return None


def _name(target: Path, kind: str) -> str:
    return f".{target.name}.{MARK}-{kind}-{os.getpid()}-"


def kill_point(name: str) -> None:
    """Crash tests set NEURIPS_ABSTRACTS_KILL_AT to a point's name: the process gets a signal
    there (SIGKILL, as if killed, or the one NEURIPS_ABSTRACTS_KILL_WITH names, as SIGINT), so a
    test can stop a build at each step of a swap deterministically."""
    if os.environ.get("NEURIPS_ABSTRACTS_KILL_AT") == name:
        import signal

        default = getattr(signal, "SIGKILL", signal.SIGTERM)
        os.kill(os.getpid(), getattr(signal, os.environ.get("NEURIPS_ABSTRACTS_KILL_WITH", ""), default))


def replace_dir(out: str | Path, fill: Callable[[Path], object], raw: Iterable[str | Path] = (),
                keep: Iterable[str | Path] = (), releases: Iterable[str | Path] = (), final: bool = True) -> None:
    """Call ``fill`` on a fresh folder beside ``out``, then swap it in place of ``out``: the
    commit, which SIGINT and SIGTERM cannot break into (``interrupts.uninterrupted``; ``final``:
    see there). It covers ``out`` alone: what is made from it (the project's docs) is written
    after it, each file whole. ``out`` must pass :func:`check_replaceable` (same arguments). On
    any failure, a failed rename included, ``out`` is as it was, the temporary folder is gone,
    and so are the folders above ``out`` made for it. Litter of killed runs for ``out`` is
    removed first.
    """
    from . import interrupts
    from .interrupts import uninterrupted

    out = Path(out)
    check_replaceable(out, raw, keep, releases)
    if final:
        interrupts.writes(str(out))
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]  # deepest first
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_litter(out.parent, out.name)
    tmp = Path(tempfile.mkdtemp(prefix=_name(out, "tmp"), dir=out.parent))
    try:
        kill_point("filling")
        fill(tmp)
        os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; a release folder is world-readable
        kill_point("filled")
        with uninterrupted(final):
            old = _commit(out, tmp)
    except BaseException:
        _remove(tmp)
        for folder in made:
            with contextlib.suppress(OSError):  # only while empty: nothing of anyone else's
                folder.rmdir()
        raise
    if old is not None:  # after the commit, not inside it: signals are not held while it goes
        _remove(old)


def _commit(out: Path, tmp: Path) -> Path | None:
    """Swap ``tmp`` in for ``out``, undone if the second rename fails. Returns where the
    replaced release was moved aside (None: there was none)."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=_name(out, "old"), dir=out.parent))
        os.rmdir(old)  # a unique free name, taken by the rename below
        out.rename(old)
        kill_point("moved-aside")
        try:
            tmp.rename(out)
        except BaseException:
            old.rename(out)
            raise
    else:
        tmp.rename(out)
    kill_point("swapped")
    return old


@contextlib.contextmanager
def temporary_folder() -> Iterator[Path]:
    """A fresh folder in the system's temporary folder, marked as ours and always removed;
    those of killed runs are removed first."""
    base = Path(tempfile.gettempdir())
    remove_litter(base)
    tmp = Path(tempfile.mkdtemp(prefix=f"{MARK}-tmp-{os.getpid()}-", dir=base))
    owner = None
    try:
        if os.name != "nt":  # held while this process lives (``_owner_alive``)
            import fcntl

            owner = os.open(tmp / OWNER, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(owner, fcntl.LOCK_EX)
        yield tmp
    finally:
        _remove(tmp)
        if owner is not None:
            os.close(owner)


def temporary_file(target: Path) -> Path:
    """A path beside ``target`` to write first and rename onto it, marked as ours."""
    return target.parent / f"{_name(target, 'tmp')}{os.urandom(4).hex()}"
