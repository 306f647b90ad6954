"""The names of the files the project reads and writes: a dump and its metadata file in raw/,
and the two files that make a folder a release."""

from __future__ import annotations

import re
from pathlib import Path

DUMP_SUFFIX = ".txt"
SIDECAR_SUFFIX = ".json"  # a dump's metadata file: the dump's name with this suffix instead
NAME_RE = re.compile(rf"^(?P<number>[0-9]{{3,}})_[0-9a-f]{{16}}{re.escape(DUMP_SUFFIX)}$")  # 1000_… follows 999_…
NAME_RULE = (f"file name must be NNN_<16 lowercase hex>{DUMP_SUFFIX} (three or more digits), "
             f"e.g. 004_0123456789abcdef{DUMP_SUFFIX}")
MANIFEST = "build_manifest.json"  # a folder holding it is a release: ours to replace
SUMS = "SHA256SUMS"  # ... if every file in it is one this list names


def dump_number(name: str) -> int | None:
    """The number a dump's name starts with (its place in the order dumps were added), None
    for a name that breaks ``NAME_RULE``."""
    m = NAME_RE.match(name)
    return int(m["number"]) if m else None


def holds_release(folder: str | Path) -> bool:
    """Whether ``folder`` holds a release: its manifest, as a file. (``guard``, refusing to
    replace a folder, takes anything by that name as the mark of one.)"""
    return (Path(folder) / MANIFEST).is_file()


def release_version(folder: str | Path) -> str | None:
    """The version the release in ``folder`` says it is (its manifest's ``dataset_version``, a
    release version), None where that does not read (no manifest, or a damaged one: the
    commands that read the release name what is wrong)."""
    import json

    from .versions import VERSION_RE

    try:
        version = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8")).get("dataset_version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) and VERSION_RE.fullmatch(version) and not version.startswith("v") else None


def release_beside(raw_dir: str | Path) -> Path:
    """The release next to a raw folder (``raw/`` -> ``dist/``): the one a build of it keeps
    the ids of, unless told otherwise."""
    typed = Path(raw_dir)
    if typed.name in ("", ".", ".."):  # `.` or `..` as typed: its parent as typed is not raw/'s
        return typed.resolve().parent / "dist"
    return typed.parent / "dist"


def dump_of_sidecar(name: str) -> str:
    """The name of the dump whose metadata file is named ``name``."""
    return name[: -len(SIDECAR_SUFFIX)] + DUMP_SUFFIX


SHARD_RE = re.compile(r"train-(?P<i>[0-9]{5})-of-(?P<n>[0-9]{5})\.parquet")  # the Hub's shard names


def table_folder(table: str) -> str:
    """The folder of a table's Parquet shards inside dist/, in the Hugging Face layout."""
    return f"data/{table}"


def shard_path(table: str, i: int, n: int) -> str:
    """Path of shard ``i`` of ``n`` of a table inside dist/ (``data/papers/train-00000-of-00002.parquet``)."""
    return f"{table_folder(table)}/train-{i:05d}-of-{n:05d}.parquet"


def data_path(table: str) -> str:
    """Path of the first shard of a table: the path a table of one shard has, and a table's
    mark that it is there at all (see ``table_paths`` for them all)."""
    return shard_path(table, 0, 1)


def table_paths(table: str, listing) -> list[str]:
    """The shard paths of ``table`` among ``listing`` (paths inside a release, as SHA256SUMS or
    a Hub tree lists them), in order: all of one ``-of-N`` set, or [] if the table has no shard
    there. ValueError naming what is wrong when the set is incomplete or mixed."""
    prefix = table_folder(table) + "/"
    found = sorted(p for p in listing if p.startswith(prefix) and "/" not in p[len(prefix):]
                   and SHARD_RE.fullmatch(p[len(prefix):]))
    if not found:
        return []
    counts = [int(m["n"]) for p in found if (m := SHARD_RE.fullmatch(p[len(prefix):]))]  # each of found matches
    n = max(set(counts), key=lambda c: (counts.count(c), c))  # the set most shards belong to
    expected = [shard_path(table, i, n) for i in range(n)]
    if found != expected:
        extra, missing = sorted(set(found) - set(expected)), sorted(set(expected) - set(found))
        raise ValueError(f"{prefix}: the set of {n} shards"
                         + (f" has files of no set: {', '.join(extra[:3])}" if extra else "")
                         + (" and" if extra and missing else "")
                         + (f" lacks {', '.join(missing[:3])}" if missing else ""))
    return found


def release_table_paths(folder: str | Path, table: str) -> list[str]:
    """The shard paths of ``table`` in the release folder ``folder`` (see ``table_paths``)."""
    base = Path(folder) / table_folder(table)
    try:
        names = [f"{table_folder(table)}/{p.name}" for p in base.iterdir() if p.is_file()]
    except OSError:
        return []
    return table_paths(table, names)


def is_hidden(name: str) -> bool:
    """Hidden entries (``.gitkeep``, an editor's swap file) are no one's contribution: skipped."""
    return name.startswith(".")


# The files `python -m build` writes into dist/ by default: the project's own sdist and wheel.
PACKAGE_SUFFIXES = (".whl", ".tar.gz")
PACKAGE_ADVICE = ("a package from `python -m build`, not part of the release: move it out of dist/ "
                  "(build packages with `python -m build --outdir wheels`)")


def is_built_package(name: str) -> bool:
    return name.endswith(PACKAGE_SUFFIXES)
