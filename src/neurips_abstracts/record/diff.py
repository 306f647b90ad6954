"""What changed between two builds: for pull-request comments and changelog entries.

Each side is a dist/ folder, a released version (``1.0.0`` or ``v1.0.0``: its tag, else found in
git history) or a git revision of this repository (its committed dist/), read as ``record`` reads
every release.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.errors import DumpError
from ..core.names import MANIFEST, data_path, holds_release, release_beside, release_table_paths
from ..core.resources import version_advice
from ..core.versions import VERSION_RE
from ..ingest.previous import damaged, release_at

EXCERPT_WORDS = 8  # words of context either side of a change


@dataclass(frozen=True)
class Side:
    label: str
    tables: dict[str, pa.Table]
    version: str


_OTHER_RELEASE = "or compare another release (a folder, a released version or a git revision)"


def _read_parquet(data: bytes) -> pa.Table:
    """Read Parquet bytes with no Python object left for Arrow's threads to release.

    pq.read_table goes through the dataset scanner, whose last references to the source can be
    dropped on an Arrow worker thread after the call returned. When the source wraps Python
    memory (BytesIO, bytes), that release takes the GIL; if the interpreter is finalizing by then,
    Python ends the thread with pthread_exit, whose unwinding hits a noexcept C++ destructor:
    std::terminate, "terminate called without an active exception", exit 134 (core dump seen in
    arrow::py::PyBuffer::~PyBuffer). So the bytes are copied into Arrow-owned memory and read with
    the synchronous ParquetFile reader, which keeps no background work past the call.
    """
    sink = pa.BufferOutputStream()
    sink.write(data)
    return pq.ParquetFile(pa.BufferReader(sink.getvalue())).read()


def load_side(spec: str, repo: Path | None = None, local: tuple[Path, ...] | list[Path] = ()) -> Side:
    """A release as every command names one (``record.locate_release``): a dist/ folder,
    ``hub:vX.Y.Z``, a released version (``1.0.0``, ``v1.0.0``) or a git revision, the last two
    read from the history of the clone around the current folder (``repo``: that clone), else
    of the checkout the package runs from; outside any clone a version is first a release folder
    at hand of that version (``local``: see :func:`local_releases`). Read with the build's own
    integrity checks (``ingest.previous.release_at``): a damaged release is refused, naming the
    file, never read as an older format."""
    from ..core.guard import temporary_folder
    from .published import locate_release, record_here

    path = Path(spec)
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise DumpError(spec, "not a folder: give a dist/ folder, a released version or a git revision")
    record = record_here(repo)
    if repo is not None and record.clone is None:
        raise DumpError(spec, f"not a folder, and {repo} is not a git clone of the project: a released version or "
                        "git revision is read from its git history; run this in a clone, or give a release folder")
    with temporary_folder() as tmp:
        folder, commit = locate_release(spec, record, tmp / "side", local)
        if commit is None:
            if not holds_release(folder):
                raise DumpError(spec, f"no release here (no {MANIFEST}): give a dist/ folder or a git revision")
            return _read_side(folder, spec, lambda rel: f"{spec}/{rel}")
        label = f"{spec} ({commit[:12]})" if VERSION_RE.fullmatch(spec) else spec
        return _read_side(folder, label, lambda rel: f"{spec}:dist/{rel}")


def local_releases(*sides: str) -> list[Path]:
    """The release folders at hand that a version names outside a clone (``locate_release``'s
    ``local``), as a user of ``diff`` expects them, in this order: the dist/ of the current
    folder (the one beside ./raw, which ``build`` keeps by default: in an unpacked sdist, the
    release it ships), then the dist/ beside each side given as a folder (``diff 1.2.0
    ../project/built`` finds ../project/dist, as ``build --out ../project/built`` would). A side
    given as a folder is never one: a version named beside it means another release than that
    folder (``diff 1.2.0 dist`` compares ./dist with the published 1.2.0, not with itself)."""
    given = [Path(s) for s in sides if Path(s).is_dir()]
    seen = {folder.resolve() for folder in given}
    found: list[Path] = []
    for folder in [release_beside("raw"), *map(release_beside, given)]:
        if folder.resolve() not in seen:
            seen.add(folder.resolve())
            found.append(folder)
    return found


def _read_side(folder: Path, label: str, where: Callable[[str], str]) -> Side:
    """The tables of the release in ``folder`` (``where(rel)``: how a file of it is named), once
    ``release_at`` found it intact: its files as SHA256SUMS lists them, its manifest's counts and
    ids those of its tables. Its ids are the ones the build reads (``PreviousRelease.ids``): for a
    release from before the ids table, which its manifest declares, every paper its own id."""
    release = release_at(folder, where, _OTHER_RELEASE)
    tables = {}
    for t in ("papers", "occurrences"):
        paths = release_table_paths(folder, t) or [data_path(t)]  # a broken set: release_at refused it
        try:
            data = [(folder / rel).read_bytes() for rel in paths]
        except OSError:
            raise DumpError(where(paths[0]), "missing from the release") from None
        try:
            tables[t] = pa.concat_tables([_read_parquet(d) for d in data])
        except Exception as exc:  # noqa: BLE001 - Arrow fails in many ways on damaged bytes
            raise damaged(where(paths[0]), exc, _OTHER_RELEASE) from None
    ids = release.ids
    tables["ids"] = pa.table({"id": [r.id for r in ids], "paper_id": [r.paper_id for r in ids],
                              "status": [r.status for r in ids]})
    return Side(label, tables, release.version)


def word_excerpt(old: str, new: str) -> str:
    """The first change between two texts, word by word: `… context [-old-] {+new+} context …`.

    Every word shown is either in both texts (context), deleted (``[-…-]``) or inserted
    (``{+…+}``): changes within the context after the first one are marked too, so a deleted
    word never reads as part of the new abstract."""
    a, b = old.split(), new.split()
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    first = next((k for k, op in enumerate(ops) if op[0] != "equal"), None)
    if first is None:
        return "(same words; spacing or case changed)"
    i1 = ops[first][1]
    parts = (["…"] if i1 > EXCERPT_WORDS else []) + a[max(0, i1 - EXCERPT_WORDS) : i1]
    k = first
    while k < len(ops):
        tag, i1, i2, j1, j2 = ops[k]
        k += 1
        if tag != "equal":
            if i2 > i1:
                parts.append("[-" + " ".join(a[i1:i2]) + "-]")
            if j2 > j1:
                parts.append("{+" + " ".join(b[j1:j2]) + "+}")
            continue
        if i2 - i1 > EXCERPT_WORDS or k == len(ops):  # a long stretch of context ends the excerpt
            parts += a[i1 : i1 + EXCERPT_WORDS] + (["…"] if i2 - i1 > EXCERPT_WORDS else [])
            break
        parts += a[i1:i2]
    rest = sum(1 for op in ops[k:] if op[0] != "equal")
    return " ".join(parts) + (f" (+{rest} more changes)" if rest > 1 else " (+1 more change)" if rest else "")


def compare(old: Side, new: Side) -> dict:
    columns = ["paper_id", "abstract", "abstract_sha256", "abstract_plain"]
    op = {r["paper_id"]: r for r in old.tables["papers"].select(columns).to_pylist()}
    np_ = {r["paper_id"]: r for r in new.tables["papers"].select(columns).to_pylist()}
    added = sorted(set(np_) - set(op))
    new_ids = {r["id"]: r for r in new.tables["ids"].select(["id", "paper_id", "status"]).to_pylist()}
    gone = sorted(set(op) - set(np_))
    merged_ids = [p for p in gone if new_ids.get(p, {}).get("status") == "merged"]
    removed = [p for p in gone if p not in merged_ids]
    changed = sorted(p for p in set(op) & set(np_) if op[p]["abstract_sha256"] != np_[p]["abstract_sha256"])
    old_rel = dict(zip(old.tables["occurrences"]["occurrence_id"].to_pylist(), old.tables["occurrences"]["relation"].to_pylist()))
    merged = [
        r for r in new.tables["occurrences"].select(["occurrence_id", "paper_id", "relation", "similarity", "source_file", "line_start"]).to_pylist()
        if r["relation"] != "canonical" and old_rel.get(r["occurrence_id"], "canonical") == "canonical"
    ]

    # A record already a duplicate that changed its kind (exact <-> near, or back to canonical):
    # the counts can stay the same while records move both ways, so each move is listed.
    new_rel = dict(zip(new.tables["occurrences"]["occurrence_id"].to_pylist(), new.tables["occurrences"]["relation"].to_pylist()))
    moves: dict[str, int] = {}
    for occ, rel in old_rel.items():
        if rel != "canonical" and occ in new_rel and new_rel[occ] != rel:
            key = f"{rel} → {new_rel[occ]}"
            moves[key] = moves.get(key, 0) + 1

    def counts(side: Side) -> dict:
        occ = side.tables["occurrences"]["relation"].to_pylist()
        return {
            "papers": side.tables["papers"].num_rows,
            "occurrences": side.tables["occurrences"].num_rows,
            **{r: occ.count(r) for r in ("canonical", "exact_duplicate", "near_duplicate")},
        }

    def short(text: str) -> str:
        return text if len(text) <= 160 else text[:157] + "…"

    return {
        "old": {"label": old.label, "version": old.version, "counts": counts(old)},
        "new": {"label": new.label, "version": new.version, "counts": counts(new)},
        "added": [{"paper_id": p, "abstract": short(np_[p]["abstract"])} for p in added],
        "merged": [
            {"paper_id": p, "into": new_ids[p]["paper_id"], "abstract": short(op[p]["abstract"])} for p in merged_ids
        ],
        "removed": [
            {"paper_id": p, "abstract": short(op[p]["abstract"]), "listed_in_ids": p in new_ids} for p in removed
        ],
        "changed": [{"paper_id": p, "excerpt": word_excerpt(op[p]["abstract"], np_[p]["abstract"])} for p in changed],
        # Same abstract, other plain text: the rendering changed (a new release of the renderer).
        "plain_rerendered": sorted(
            p for p in set(op) & set(np_) if p not in changed and op[p]["abstract_plain"] != np_[p]["abstract_plain"]
        ),
        "newly_merged": merged,
        "relation_moves": dict(sorted(moves.items())),
    }


def to_markdown(d: dict, limit: int = 50) -> str:
    o, n = d["old"]["counts"], d["new"]["counts"]
    lines = [
        f"## Dataset diff: `{d['old']['label']}` (v{d['old']['version']}) → `{d['new']['label']}` (v{d['new']['version']})",
        "",
        "| | before | after | change |",
        "|---|---|---|---|",
    ]
    for key in o:
        lines.append(f"| {key.replace('_', ' ')} | {o[key]} | {n[key]} | {n[key] - o[key]:+d} |")
    lines.append("")
    if d["relation_moves"]:
        lines += ["Duplicates whose relation changed: " + "; ".join(
            f"{k.replace('_', ' ')}: {v}" for k, v in d["relation_moves"].items()) + ".", ""]
    sections = (
        ("Papers added (new ids)", d["added"], lambda x: f"- `{x['paper_id']}`: {x['abstract']}"),
        ("Papers merged into an older paper (the id now resolves to it)", d["merged"],
         lambda x: f"- `{x['paper_id']}` → `{x['into']}`: {x['abstract']}"),
        ("Papers removed (every dump holding them is gone)", d["removed"],
         lambda x: f"- `{x['paper_id']}`: {x['abstract']}" + ("" if x["listed_in_ids"] else " **(missing from ids: a broken promise)**")),
        ("Papers changed", d["changed"], lambda x: f"- `{x['paper_id']}`: {x['excerpt']}"),
        ("Same abstract, abstract_plain rendered differently", d["plain_rerendered"], lambda p: f"- `{p}`"),
        ("Records newly merged as duplicates", d["newly_merged"],
         lambda x: f"- `{x['source_file']}` line {x['line_start']} → paper `{x['paper_id']}` ({x['relation'].replace('_', ' ')}, similarity {x['similarity']:.3f})"),
    )
    for title, items, fmt in sections:
        lines.append(f"### {title} ({len(items)})")
        lines.append("")
        lines += [fmt(x) for x in items[:limit]] or ["None."]
        if len(items) > limit:
            lines.append(f"- … and {len(items) - limit} more")
        lines.append("")
    return "\n".join(lines)


CHANGELOG_LIST_LIMIT = 50  # longer lists of new ids point at the ids table instead


def _id_lines(d: dict) -> list[str]:
    v = d["new"]["version"]
    added = ", ".join(f"`{x['paper_id']}`" for x in d["added"])
    lines = []
    if d["added"] and len(d["added"]) <= CHANGELOG_LIST_LIMIT:
        lines.append(f"- New ids: {added}.")
    elif d["added"]:
        lines.append(f"- New ids: {len(d['added'])}, the rows of the `ids` table with `first_release` = {v}.")
    for x in d["merged"]:
        lines.append(f"- Merged: `{x['paper_id']}` → `{x['into']}` (the id resolves through the `ids` table).")
    for x in d["removed"]:
        lines.append(f"- Removed: `{x['paper_id']}` (no dump holding it is left; listed in `ids` as removed).")
    return lines


def changelog_entry(d: dict, day: str | None = None) -> str:
    """The entry for the new version, dated ``day`` (YYYY-MM-DD; default today, UTC): the date
    the release's metadata gives as its publication date."""
    import datetime as dt

    day = day or dt.datetime.now(dt.timezone.utc).date().isoformat()
    o, n = d["old"]["counts"], d["new"]["counts"]
    return "\n".join(
        [
            f"## {d['new']['version']} ({day})",
            "",
            f"- Papers: {o['papers']} → {n['papers']} ({len(d['added'])} added, {len(d['merged'])} merged into "
            f"older papers, {len(d['removed'])} removed, {len(d['changed'])} with a revised abstract).",
            f"- `abstract_plain` rendered differently for {len(d['plain_rerendered'])} papers whose abstract did not change.",
            *_id_lines(d),
            f"- Raw records: {o['occurrences']} → {n['occurrences']}; exact duplicates {o['exact_duplicate']} → "
            f"{n['exact_duplicate']}; near duplicates {o['near_duplicate']} → {n['near_duplicate']}.",
            *(["- Duplicates whose relation changed: " + "; ".join(
                f"{k.replace('_', ' ')}: {v}" for k, v in d["relation_moves"].items()) + "."] if d.get("relation_moves") else []),
            f"- Compared with v{d['old']['version']}.",
            "",
        ]
    )


def write_changelog(d: dict, path: Path, day: str | None = None) -> None:
    """Insert the entry for the new version after the title of CHANGELOG.md (once)."""

    text = path.read_text(encoding="utf-8") if path.is_file() else "# Changelog\n"
    if re.search(rf"^## {re.escape(d['new']['version'])}( \(|$)", text, re.M):
        raise DumpError(path.name, f"already has an entry for {d['new']['version']}: the release steps are done for "
                                   f"it; {version_advice('bump', then='for the next one')}")
    title, _, rest = text.partition("\n\n")
    path.write_text(f"{title}\n\n{changelog_entry(d, day)}\n{rest}", encoding="utf-8", newline="\n")
