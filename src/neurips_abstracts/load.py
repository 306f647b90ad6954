"""Read raw/: the one place the build touches its input."""

from __future__ import annotations

from pathlib import Path

from .errors import DumpError
from .sidecar import SUFFIX as SIDECAR_SUFFIX
from .sidecar import DumpMeta, read_sidecars

DUMP_SUFFIX = ".txt"


def read_raw(raw_dir: str | Path) -> list[tuple[str, bytes]]:
    """(file name, bytes) of every dump in ``raw_dir``, sorted by name.

    Hidden files (``.gitkeep``) are skipped; anything else that is not a ``.txt`` file, a
    folder, or a link that leads outside ``raw_dir`` is refused, because a contributor who put it
    there meant something by it.
    """
    raw = Path(raw_dir)
    if not raw.is_dir():
        raise DumpError(str(raw_dir), "raw folder not found")
    root = raw.resolve()
    files = []
    for path in sorted(raw.iterdir(), key=lambda p: p.name):
        name = path.name
        if name.startswith("."):
            continue
        if name.endswith(SIDECAR_SUFFIX) and not path.is_symlink() and path.is_file():
            if not (raw / (name[: -len(SIDECAR_SUFFIX)] + DUMP_SUFFIX)).is_file():
                raise DumpError(name, f"metadata file without its dump {name[: -len(SIDECAR_SUFFIX)]}{DUMP_SUFFIX}")
            continue  # a dump's metadata: read by read_meta
        if path.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(root):
                raise DumpError(name, f"link pointing outside {raw_dir}/ (to {target}); copy the dump in instead")
        if path.is_dir():
            raise DumpError(name, f"folder inside {raw_dir}/: dumps are plain {DUMP_SUFFIX} files at its top level")
        if not name.endswith(DUMP_SUFFIX):
            raise DumpError(name, f"not a dump: files in {raw_dir}/ must end in {DUMP_SUFFIX}")
        if not path.is_file():
            raise DumpError(name, "not a regular file")
        files.append((name, path.read_bytes()))
    if not files:
        raise DumpError(str(raw_dir), f"no {DUMP_SUFFIX} dumps found")
    return files


def read_meta(raw_dir: str | Path, names: list[str]) -> dict[str, DumpMeta | None]:
    """Each dump's metadata file (``sidecar``), None where a dump has none."""
    try:
        return read_sidecars(Path(raw_dir), names)
    except ValueError as exc:
        name, _, message = str(exc).partition(": ")
        raise DumpError(name, message) from None
