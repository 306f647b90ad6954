"""The release published before this build: the registry that paper ids are anchored to.

The committed ``dist/`` is that registry. A build reads from it every id it ever published
(``ids`` table), the id each raw record ever published was first published under, even for dumps
removed since, and the facts of every dump ever published (``published_dumps`` in
``build_manifest.json``), and keeps them all: see ``identity`` and ``sidecar``. This module only
reads; it is the build's other input besides ``raw/``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import DumpError
from ..core.names import MANIFEST, SUMS, data_path, holds_release, release_table_paths, table_folder, table_paths
from .sidecar import DumpMeta

PUBLISHED_DUMPS, FIRST_IDS, FOUNDED = "published_dumps", "first_ids", "founded"  # the registry's keys in the manifest


def record_key(source_sha256: str, byte_start: int) -> str:
    """A raw record's identity across releases: its dump and where its bytes start."""
    return f"{source_sha256}:{byte_start}"


@dataclass(frozen=True)
class IdRow:
    id: str
    paper_id: str | None
    status: str
    first_release: str
    retired_release: str | None


@dataclass(frozen=True)
class PreviousRelease:
    """What a build must keep of the release before it."""

    path: str
    version: str
    # record_key (dump sha256 and byte offset) -> the id the record was first published
    # under, for every record ever published (dumps removed since included)
    owners: dict[str, str]
    dump_sha256: dict[str, str]  # dump file name -> sha256, for every dump the release was built from
    ids: tuple[IdRow, ...]  # every id the release published or had retired
    # dump sha256 -> its published facts (``file`` is the name it was first published under), for
    # every dump ever published; empty for releases before metadata files
    dump_facts: dict[str, DumpMeta] = field(default_factory=dict)
    # id -> the record (record_key) it was founded by, where another id owns that record
    founded_by: dict[str, str] = field(default_factory=dict)
    # how a command names the release to its user where ``path`` is a temporary folder it was read
    # into (``--previous HEAD~3``; the newest release read from git); empty: ``path`` itself
    named: str = ""

    @property
    def shown(self) -> str:
        return self.named or self.path


def is_release(path: str | Path) -> bool:
    p = Path(path)
    try:
        return holds_release(p) and bool(release_table_paths(p, "occurrences"))
    except ValueError:  # a broken set of shards: not a whole release
        return False


def read_release_table(folder: str | Path, table: str, columns: list[str] | None = None):
    """Table ``table`` of the release in ``folder``, all its shards read as one Arrow table.
    FileNotFoundError if it has none; ValueError if its set of shards is broken."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = Path(folder)
    paths = release_table_paths(p, table)
    if not paths:
        raise FileNotFoundError(str(p / data_path(table)))
    parts = [_table(p / rel, pq, columns) for rel in paths]
    return parts[0] if len(parts) == 1 else pa.concat_tables(parts)


# What else a build can do with a damaged release than restore it: every refusal of
# ``read_previous`` ends on it (``_restore``, ``damaged``), so that another command reading a
# release (``release_at``'s ``way_out``: diff) says its own instead.
BUILD_WAY_OUT = "or build with --previous naming an intact release"


def damaged(file: str | Path, exc: BaseException, way_out: str = BUILD_WAY_OUT) -> DumpError:
    """The error for a release file that cannot be read: it names the file and the way out
    (``way_out``: what else the command that read it can do)."""
    if isinstance(exc, OSError) and exc.strerror:  # unreadable, not damaged
        return DumpError(str(file), exc.strerror, code="unreadable")
    reason = f"missing {exc}" if isinstance(exc, KeyError) else " ".join(str(exc).split()) or type(exc).__name__
    return DumpError(str(file), f"damaged release file ({reason}); {_restore_it(file)} {way_out}", code="damaged")


def _restore_it(file: str | Path) -> str:
    """How to restore a release file, in words that work where it is: ``git checkout`` only
    where git tracks the release folder (``core.clones``; asked only when something is damaged)."""
    from ..core.clones import checkout_command

    p = Path(file).absolute()
    release = next((q for q in (p, *p.parents) if (q / MANIFEST).is_file()), None)
    command = checkout_command(release) if release is not None else None
    return f"restore it ({command})" if command else "restore it (download the release again)"


def read_previous(path: str | Path) -> PreviousRelease:
    """Read the release in ``path`` (a dist/ folder). ValueError if it is not one, DumpError
    naming the file if one of its files cannot be read."""
    p = Path(path)
    if holds_release(p):
        for table in ("occurrences", "ids", "papers"):
            try:
                release_table_paths(p, table)
            except ValueError as exc:  # a shard too many or missing: name it, not "not a release"
                raise DumpError(str(p / table_folder(table)), f"{exc}; {_restore(p)}", code="damaged") from None
    if not is_release(p):
        what = f"not a release (no {MANIFEST} and occurrences table)" if p.is_dir() else "no such release folder"
        raise ValueError(f"{path}: {what}")
    file = p / MANIFEST
    _check_intact(p)
    try:
        release = _read_previous(p, path)
    except DumpError:
        raise
    except Exception as exc:  # noqa: BLE001 - Arrow, JSON and a manifest of the wrong shape fail in many ways
        raise damaged(getattr(exc, "release_file", file), exc) from exc
    _check_registry(p, release)
    return release


def _restore(p: Path) -> str:
    return f"{_restore_it(p)} {BUILD_WAY_OUT}"


def _check_intact(p: Path, occurrences: bool = True) -> None:
    """Every file a build reads of the release ``p`` (manifest, occurrences and ids; papers
    for a release from before the ids table) is as its SHA256SUMS lists it, before a single id
    is taken from it: a file missing or changed since it was written (a table deleted, an ids
    table emptied) would otherwise give every paper a new id. ``occurrences``: False where only
    the ids are read (``read_ids``)."""
    from ..core.sums import read_sums, sha256_file

    try:
        listed, problems = read_sums(p)
    except OSError:
        raise DumpError(str(p / SUMS), f"missing: a release lists its files there; {_restore(p)}", code="damaged") from None
    if problems:
        raise DumpError(str(p / SUMS), f"{problems[0].partition(': ')[2]}; {_restore(p)}", code="damaged")
    try:
        manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
        promised = isinstance(manifest, dict) and ("ids" in manifest or isinstance(manifest.get("counts", {}).get("ids"), dict))
    except (OSError, ValueError, AttributeError):
        promised = False  # named below: its sha256 or its contents
    try:
        has_ids = bool(table_paths("ids", listed)) or bool(release_table_paths(p, "ids"))
        if promised and not has_ids:  # a damaged release, never one from before the ids table
            raise DumpError(str(p / data_path("ids")), f"missing, but {MANIFEST} lists the release's ids: the release "
                            f"is damaged (a table deleted with its line in {SUMS}); {_restore(p)}", code="damaged")
        kept = "ids" if has_ids else "papers"
        read = [MANIFEST, *((table_paths("occurrences", listed) or [data_path("occurrences")]) if occurrences else []),
                *(table_paths(kept, listed) or [data_path(kept)])]
    except DumpError:  # a ValueError too, already naming its file and the way out
        raise
    except ValueError as exc:
        raise DumpError(str(p / SUMS), f"{exc}; {_restore(p)}", code="damaged") from None
    for rel in read:
        file = p / rel
        if rel not in listed:
            raise DumpError(str(file), f"not listed in {SUMS}; {_restore(p)}", code="damaged")
        if not file.is_file():
            raise DumpError(str(file), f"missing (listed in {SUMS}); {_restore(p)}", code="damaged")
        if sha256_file(file) != listed[rel]:
            raise DumpError(str(file), f"changed since the release was written (sha256 differs from {SUMS}); {_restore(p)}",
                            code="damaged")


def table_counts(p: Path, release: PreviousRelease) -> dict[str, int]:
    """What the tables of the release in ``p`` count, by the name of the manifest's count
    (``counts``) that states it: ``papers``, ``records``, ``dumps``, ``relations.<relation>``,
    ``ids.<status>``, ``ids.first_published_in_this_version``, ``ids.retired_in_this_version``.
    (``distinct_texts`` and the near-duplicate pair counts are facts of the build's work, not of
    a table.)"""
    occ = read_release_table(p, "occurrences", columns=["relation", "source_file"])
    relations = occ["relation"].to_pylist()
    found = {"records": occ.num_rows, "dumps": len(set(occ["source_file"].to_pylist())),
             **{f"relations.{r}": relations.count(r) for r in set(relations)}}
    try:
        found["papers"] = read_release_table(p, "papers", columns=["paper_id"]).num_rows
    except Exception:  # noqa: BLE001 - missing or unreadable: a build reads no id from it, verify names it
        pass
    if release_table_paths(p, "ids"):
        for status in ("current", "merged", "removed"):
            found[f"ids.{status}"] = sum(r.status == status for r in release.ids)
        found["ids.first_published_in_this_version"] = sum(r.first_release == release.version for r in release.ids)
        found["ids.retired_in_this_version"] = sum(r.retired_release == release.version for r in release.ids)
    return found


def _check_counts(p: Path, release: PreviousRelease, manifest: dict) -> None:
    """Every count the manifest states of the tables is what the tables hold: a release whose
    counts disagree with its tables is damaged, whatever its SHA256SUMS says."""
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        return  # a release from before the manifest stated counts
    stated = {k: v for k, v in counts.items() if not isinstance(v, dict)}
    stated.update((f"{k}.{sub}", v) for k, d in counts.items() if isinstance(d, dict) for sub, v in d.items())
    try:
        found = table_counts(p, release)
    except Exception as exc:  # noqa: BLE001 - a table Arrow cannot read: named as damaged
        raise damaged(getattr(exc, "release_file", p / MANIFEST), exc) from exc
    dumps_listed = len(manifest.get("inputs", []))  # a dump with no record is listed, not in occurrences
    for name, value in sorted(stated.items()):
        if name == "dumps":
            held = dumps_listed if isinstance(manifest.get("inputs"), list) else found["dumps"]
        elif name.startswith("relations."):
            held = found.get(name, 0)
        elif name in found:
            held = found[name]
        else:
            continue
        if value != held:
            table = {"papers": "papers", "ids": "ids"}.get(name.partition(".")[0], "occurrences")
            raise DumpError(str(p / MANIFEST), f"counts.{name} is {value}, but the {table} table holds {held}: the release "
                            f"is damaged; {_restore(p)}", code="damaged")


def _check_registry(p: Path, release: PreviousRelease) -> None:
    """The manifest's counts and ids agree with the tables, and every id the registry names
    (records' owners, founding records) is a row of the ids table."""
    ids_file = p / data_path("ids")
    manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
    listed = manifest.get("ids")
    if isinstance(listed, list) and sorted(tuple(r) for r in listed) != sorted(
            (r.id, r.paper_id, r.status, r.first_release, r.retired_release) for r in release.ids):
        raise DumpError(str(ids_file), f"disagrees with the ids {MANIFEST} lists ({len(listed)} rows there, "
                        f"{len(release.ids)} here); {_restore(p)}", code="damaged")
    known = {r.id for r in release.ids}
    unknown = sorted({*release.owners.values(), *release.founded_by} - known)
    if unknown:
        where = p / (data_path("ids") if release_table_paths(p, "ids") else MANIFEST)
        raise DumpError(str(where), f"ids named by the release but missing from its ids table: {', '.join(unknown[:5])}; "
                        f"{_restore(p)}", code="damaged")
    _check_counts(p, release, manifest)


def _read_previous(p: Path, path: str | Path) -> PreviousRelease:
    manifest = json.loads((p / MANIFEST).read_text(encoding="utf-8"))
    version = manifest["dataset_version"]
    if not isinstance(version, str) or not isinstance(manifest.get("inputs", []), list):
        raise ValueError("dataset_version or inputs of the wrong type")
    occ = read_release_table(p, "occurrences", columns=["paper_id", "source_file", "source_sha256", "byte_start"])
    shas = occ["source_sha256"].to_pylist()
    owners = {record_key(sha, start): pid for sha, start, pid in zip(shas, occ["byte_start"].to_pylist(), occ["paper_id"].to_pylist())}
    # each dump's sha256 from its records (without Table.group_by, which would import Arrow's
    # query engine and its dataset module into every build)
    dump_sha = dict(zip(occ["source_file"].to_pylist(), shas))
    for item in manifest.get("inputs", []):  # a dump with no record still counts as published
        dump_sha.setdefault(item["file"], item["sha256"])
    ids = _ids(p, version)
    facts = {i["sha256"]: DumpMeta(i["file"], i["sha256"], i["crawled_at"], i.get("source_url"), i["added"])
             for i in manifest.get("inputs", []) if "added" in i}
    founded: dict[str, str] = {}
    for d in manifest.get(PUBLISHED_DUMPS, []):  # releases that keep a registry of every dump
        facts[d["sha256"]] = DumpMeta(d["file"], d["sha256"], d["crawled_at"], d["source_url"], d["added"])
        # occurrences give each record its paper now; listed here are the records first
        # published under another id, and every record of a dump no longer in the release
        owners.update((record_key(d["sha256"], start), pid) for start, pid in d.get(FIRST_IDS, []))
        founded.update((pid, record_key(d["sha256"], start)) for start, pid in d.get(FOUNDED, []))
    return PreviousRelease(str(path), version, owners, dump_sha, ids, facts, founded)


def _ids(p: Path, version: str) -> tuple[IdRow, ...]:
    """The ids the release ``p`` (``version``) published or had retired: its ids table, or for a
    release from before it (1.0.0), its papers, each published by that version."""
    if release_table_paths(p, "ids"):
        table = read_release_table(p, "ids")
        unknown = sorted(set(table.schema.names) - set(IdRow.__dataclass_fields__))
        if unknown:
            raise DumpError(str(p / data_path("ids")), f"unknown columns {', '.join(unknown)}; {_restore(p)}", code="damaged")
        return tuple(IdRow(**{k: r[k] for k in IdRow.__dataclass_fields__}) for r in table.to_pylist())
    papers = read_release_table(p, "papers", columns=["paper_id"])["paper_id"].to_pylist()
    return tuple(IdRow(pid, pid, "current", version, None) for pid in papers)


def read_ids(path: str | Path) -> tuple[str, tuple[IdRow, ...]]:
    """The version and ids of the release in ``path``: what a build must keep of a published
    release, read without its occurrences, from the files that hold them (manifest, and ids or,
    before that table, papers) once they are checked against its SHA256SUMS."""
    p = Path(path)
    _check_intact(p, occurrences=False)
    try:
        version = json.loads((p / MANIFEST).read_text(encoding="utf-8"))["dataset_version"]
        if not isinstance(version, str):
            raise ValueError("dataset_version of the wrong type")
        return version, _ids(p, version)
    except DumpError:
        raise
    except Exception as exc:  # noqa: BLE001 - Arrow, JSON and a manifest of the wrong shape fail in many ways
        raise damaged(getattr(exc, "release_file", p / MANIFEST), exc) from exc


def _table(path: Path, pq, columns: list[str] | None = None):
    try:  # one file: the file reader, not read_table's dataset scanner (whose import a build need not pay)
        with pq.ParquetFile(path) as f:
            if missing := [c for c in columns or () if c not in f.schema_arrow.names]:
                raise KeyError(", ".join(missing))  # a column the reader needs: the table is damaged
            return f.read(columns=columns, use_threads=False)
    except Exception as exc:  # noqa: BLE001 - tagged with the file it came from
        exc.release_file = path  # type: ignore[attr-defined]  # read back with getattr by the caller
        raise


BESIDE_RAW = "beside-raw"  # the default previous release: the dist/ folder next to raw/


def release_at(folder: str | Path, named: Callable[[str], str] | None = None,
               way_out: str = BUILD_WAY_OUT) -> PreviousRelease:
    """The release in ``folder``, read with every check of ``read_previous``; DumpError naming it
    if it is none. ``named(rel)``: how the command names file ``rel`` of it (a release read from
    git into a temporary folder: ``v1.1.0:dist/<rel>``); ``way_out``: what else the command can
    do with a damaged release than restore it."""
    try:
        return read_previous(folder)
    except DumpError as exc:
        file, message = exc.file, exc.message
        if named is not None and Path(file).is_relative_to(folder):
            file = named(Path(file).relative_to(folder).as_posix())
        if message.endswith(BUILD_WAY_OUT):
            message = message[: -len(BUILD_WAY_OUT)] + way_out
        raise DumpError(file, message, exc.line, exc.column, exc.code) from None
    except ValueError as exc:
        raise DumpError(str(folder), str(exc).partition(": ")[2]) from None  # read_previous's "<path>: <what>"


def first_difference(path: str | Path, name: str, data: bytes) -> int | None:
    """Line of ``data`` where dump ``name`` first differs from the records the release in
    ``path`` holds of it (each record's bytes at its published byte span), or None if none does."""
    import pyarrow.compute as pc

    occ = read_release_table(path, "occurrences", columns=["source_file", "record_index", "line_start", "line_end", "byte_start", "byte_end", "text_raw"])
    rows = sorted(occ.filter(pc.equal(occ["source_file"], name)).to_pylist(), key=lambda r: r["record_index"])
    for r in rows:
        if data[r["byte_start"] : r["byte_end"]] != r["text_raw"].encode("utf-8"):
            return r["line_start"]
    if rows:
        return rows[-1]["line_end"] + 1  # the records are intact: something was added after them
    return None
