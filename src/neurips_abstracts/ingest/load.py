"""The rules a raw folder follows, and listing it: which dumps and metadata files it holds.
The bytes of each dump are read by the build's read stage (``stages.read``: hashed and checked, one
dump at a time) and again by its parse stage, one dump at a time as it reaches it.

`validate` and the build apply the same rules through the functions here, so they agree on
what is refused and say it in the same words. Each rule names itself with a code (validate's).
"""

from __future__ import annotations

from pathlib import Path

from ..core.config import MAX_DUMP_BYTES
from ..core.errors import NO_RAW_FOLDER, DumpError
from ..core.names import DUMP_SUFFIX, NAME_RE, NAME_RULE, SIDECAR_SUFFIX, dump_of_sidecar, is_hidden
from .sidecar import DumpMeta, read_sidecars


def is_sidecar(path: Path) -> bool:
    """A dump's metadata file (``sidecar``) beside its dump: read with the dump, not as one."""
    return path.name.endswith(SIDECAR_SUFFIX) and (path.parent / dump_of_sidecar(path.name)).is_file()


def _mib(n: int) -> str:
    return f"{n // 2**20} MiB" if n % 2**20 == 0 else f"{n} bytes"


def entry_problem(path: Path, folder: Path, shown: str = "raw") -> DumpError | None:
    """What is wrong with ``path``, an entry of ``folder`` (named ``shown`` in messages), as a
    dump; None if it may be read as one. Reads no content, and never follows a link out of
    ``folder``.

    A new kind of file allowed beside the dumps (a dump's metadata, say) gets its rule here.
    """
    name = path.name
    if not path.exists() and not path.is_symlink():
        return DumpError(name, "no such file", code="missing")
    if is_hidden(name):
        return DumpError(name, "hidden file: the build skips names starting with '.'; rename it", code="hidden")
    if path.is_symlink():
        try:
            target = path.resolve()
        except (RuntimeError, OSError):  # Python < 3.13 raises RuntimeError("Symlink loop ...")
            return DumpError(name, "symbolic link loop", code="link")
        if not target.is_relative_to(folder.resolve()):
            return DumpError(name, f"link pointing outside {shown}/; copy the dump in instead", code="link")
    if path.is_dir():
        return DumpError(name, f"folder inside {shown}/: dumps are plain {DUMP_SUFFIX} files at its top level", code="folder")
    if name.endswith(SIDECAR_SUFFIX):
        dump = dump_of_sidecar(name)
        if is_sidecar(path):
            return DumpError(name, f"metadata file of {dump}: validate the dump itself", code="metadata")
        return DumpError(name, f"metadata file without its dump {dump}: remove it, or add the dump", code="metadata")
    if not name.endswith(DUMP_SUFFIX):
        return DumpError(name, f"not a dump (in {shown}/): a dump's file name ends in {DUMP_SUFFIX}", code="not-a-dump")
    if not path.exists():
        return DumpError(name, "link to nothing", code="missing")
    if not path.is_file():
        return DumpError(name, "not a regular file", code="not-a-file")
    size = path.stat().st_size
    if size > MAX_DUMP_BYTES:
        return DumpError(name, f"{size} bytes: over the limit of {_mib(MAX_DUMP_BYTES)} a dump may hold; split the dump", code="size")
    if not NAME_RE.match(name):  # the last rule: a misnamed dump can still be read and checked
        return DumpError(name, NAME_RULE, code="file-name")
    return None


def folder_entries(folder: Path, shown: str = "raw") -> tuple[list[Path], list[DumpError]]:
    """The dumps of ``folder`` sorted by name, and the entries that break a rule (hidden
    entries are skipped, not refused: the folder may hold a ``.gitkeep``)."""
    dumps, problems = [], []
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        if is_hidden(path.name) or (is_sidecar(path) and not path.is_symlink()):
            continue
        problem = entry_problem(path, folder, shown)
        if problem is None:
            dumps.append(path)
        else:
            problems.append(problem)
    if not dumps and not problems:
        problems.append(DumpError(str(shown), f"no {DUMP_SUFFIX} dumps found", code="empty-folder"))
    return dumps, problems


def copy_error(name: str, original: str) -> DumpError:
    return DumpError(name, f"byte-for-byte copy of {original}: a copy adds no records; remove it", code="copy")


def dump_paths(raw_dir: str | Path) -> list[Path]:
    """Every dump in ``raw_dir``, sorted by name, unread.

    Anything that breaks a rule of ``entry_problem`` is refused (the first, in name order),
    because a contributor who put it there meant something by it.
    """
    raw = Path(raw_dir)
    if not raw.is_dir():
        what = "not a folder" if raw.exists() else NO_RAW_FOLDER
        raise DumpError(str(raw_dir), what, code="missing")
    dumps, problems = folder_entries(raw, str(raw_dir))
    if problems:
        raise problems[0]
    return dumps


def read_meta(raw_dir: str | Path, names: list[str]) -> dict[str, DumpMeta | None]:
    """Each dump's metadata file (``sidecar``), None where a dump has none."""
    try:
        return read_sidecars(Path(raw_dir), names)
    except ValueError as exc:
        name, _, message = str(exc).partition(": ")
        raise DumpError(name, message, code="metadata") from None


def listing(raw_dir: str | Path) -> tuple[list[Path], dict[str, DumpMeta | None]]:
    """The dumps of ``raw_dir`` (``dump_paths``) and their metadata files (``read_meta``)."""
    paths = dump_paths(raw_dir)
    return paths, read_meta(raw_dir, [p.name for p in paths])
