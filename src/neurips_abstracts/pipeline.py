"""The build as pure stages, table in, table out: parse, normalize, deduplicate, assemble.

Nothing here reads or writes files: ``load.py`` reads raw/ at one end, ``write.py`` writes dist/
at the other. Every stage sorts what it receives, so the output does not depend on the order in
which files were listed.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .config import BuildConfig
from .dedup import jaccard_many, near_duplicate_clusters
from .errors import DumpError
from .identity import Founding, Identity, assign_ids, record_key
from .normalize import normalize
from .parallel import map_chunks
from .load import copy_error
from .parse import Dump, no_visible_text, parse_dump
from .plain import extract_urls, to_plain
from .previous import PreviousRelease
from .schema import arrow_schema
from .sidecar import (
    DumpMeta,
    added_key,
    changed_since_added,
    changed_since_published,
    crawl_key,
    published_meta,
)

RELATIONS = ("canonical", "exact_duplicate", "near_duplicate")


@contextmanager
def no_timer(name: str):
    yield


@dataclass(frozen=True)
class Records:
    """All raw records of all dumps, as columns, in added order of their dumps (see
    ``sidecar``), then record_index."""

    dumps: tuple[Dump, ...]
    meta: dict[str, DumpMeta]  # each dump's metadata (``unknown_meta`` where it has none)
    source_file: list[str]
    source_sha256: list[str]
    record_index: list[int]
    line_start: list[int]
    line_end: list[int]
    byte_start: list[int]
    byte_end: list[int]
    text_raw: list[str]
    text: list[str]

    def __len__(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class BuildResult:
    papers: pa.Table
    occurrences: pa.Table
    ids: pa.Table
    dumps: tuple[Dump, ...]
    meta: dict[str, DumpMeta]
    identity: Identity
    stats: dict = field(default_factory=dict)


def _check_immutable(dump: Dump, meta: DumpMeta | None, previous: PreviousRelease | None) -> DumpMeta:
    """The dump's metadata; DumpError if its bytes changed since it was added or published."""
    if meta is not None and meta.sha256 != dump.sha256:
        raise changed_since_added(dump.name)
    published = previous.dump_sha256.get(dump.name) if previous else None
    if published is not None and published != dump.sha256:
        raise changed_since_published(dump.name, previous.version, None)
    return published_meta(dump.name, dump.sha256, meta, previous)


def parse(
    files: Iterable[tuple[str, bytes]],
    config: BuildConfig,
    meta: dict[str, DumpMeta | None] | None = None,
    previous: PreviousRelease | None = None,
) -> Records:
    """Parse every dump; ``meta`` holds each dump's metadata file (None or absent: it has none)."""
    meta = meta or {}
    dumps = [parse_dump(name, data, config.venue, config.year) for name, data in sorted(files)]
    first_with_sha: dict[str, str] = {}
    for dump in dumps:
        other = first_with_sha.setdefault(dump.sha256, dump.name)
        if other != dump.name:
            raise copy_error(dump.name, other)
    known = {d.name: _check_immutable(d, meta.get(d.name), previous) for d in dumps}
    dumps.sort(key=lambda d: added_key(known[d.name]))
    cols: dict[str, list] = {k: [] for k in Records.__dataclass_fields__ if k not in ("dumps", "meta")}
    kept = []
    for dump in dumps:
        kept.append(dataclasses.replace(dump, records=()))  # the columns below hold what is needed
        for r in dump.records:
            cols["source_file"].append(dump.name)
            cols["source_sha256"].append(dump.sha256)
            cols["record_index"].append(r.record_index)
            cols["line_start"].append(r.line_start)
            cols["line_end"].append(r.line_end)
            cols["byte_start"].append(r.byte_start)
            cols["byte_end"].append(r.byte_end)
            cols["text_raw"].append(r.text_raw)
            cols["text"].append(r.text)
    return Records(dumps=tuple(kept), meta=known, **cols)


def normalize_many(texts: Sequence[str]) -> list[str | None]:
    """Normalized texts; None where a text is already normalized, so that the caller keeps the
    text it has instead of receiving an equal copy (from a worker, through a pipe)."""
    out: list[str | None] = []
    for text in texts:
        fixed = normalize(text)
        out.append(None if fixed == text else fixed)
    return out


def normalize_records(records: Records) -> list[str]:
    """Normalized text of every record; each distinct text is normalized once, on every core.

    Chunks are interleaved because the cost is uneven: ASCII texts take normalize's shortcut,
    the others cost ten times more, and the few with mojibake need ftfy, a hundred times more.
    """
    distinct = list(dict.fromkeys(records.text))
    fixed = map_chunks(normalize_many, distinct, min_items=5_000, interleave=True)
    # Raw texts that normalize alike (a recrawl's spacing or encoding noise) share one string:
    # less memory, and later look-ups by text find the same object instead of comparing copies.
    one: dict[str, str] = {}
    cache = {text: one.setdefault(new, new) if new is not None else one.setdefault(text, text)
             for text, new in zip(distinct, fixed)}
    out = [cache[t] for t in records.text]
    if "" in cache.values():
        i = out.index("")
        raise no_visible_text(records.source_file[i], records.line_start[i])
    return out


def render_many(abstracts: Sequence[str]) -> list[tuple[str, str | None, int]]:
    """(abstract_plain, urls, word count of abstract_plain) of each abstract."""
    out = []
    for abstract in abstracts:
        plain = to_plain(abstract) or abstract
        out.append((plain, " ".join(extract_urls(abstract)) or None, len(plain.split())))
    return out


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def deduplicate(
    records: Records, normalized: list[str], config: BuildConfig, previous: PreviousRelease | None, version: str
) -> dict:
    """Assign every record to a paper and say why.

    Rules (documented in the card):
    * records with equal normalized text are one version (exact duplicates);
    * versions whose shingles are near-duplicates form one paper (see ``dedup``);
    * the paper's *founding* record is its earliest in added order (records arrive in that
      order); its id is kept from the previous release or, for a new paper, derived from the
      founding record's identity (see ``identity``), never from text;
    * the *canonical* text is the version of the paper's record latest in crawl order (the
      newest crawl); the canonical occurrence is the earliest record holding that text.
    """
    sha_of: dict[str, str] = {}  # each distinct text is hashed once
    text_sha = [sha_of.get(t) or sha_of.setdefault(t, _sha256(t)) for t in normalized]
    crawl_rank = {name: k for k, name in enumerate(sorted(records.meta, key=lambda n: crawl_key(records.meta[n])))}
    version_of: dict[str, int] = {}
    version_text: list[str] = []
    version_first: list[int] = []
    version_newest: list[tuple[int, int]] = []  # (crawl rank of the dump, record index) of its newest record
    for i, sha in enumerate(text_sha):  # records are in added order
        newest = (crawl_rank[records.source_file[i]], records.record_index[i])
        v = version_of.get(sha)
        if v is None:
            v = version_of[sha] = len(version_text)
            version_text.append(normalized[i])
            version_first.append(i)
            version_newest.append(newest)
        elif newest > version_newest[v]:
            version_newest[v] = newest
    record_version = [version_of[s] for s in text_sha]

    clusters = near_duplicate_clusters(version_text, config.near_dup)
    roots, shingle_sets = clusters.roots, clusters.shingle_sets
    # Versions are numbered in added order, so a cluster's root is its founding version.
    members: dict[int, list[int]] = {}
    for v, root in enumerate(roots):
        members.setdefault(root, []).append(v)
    canonical_version = {root: max(vs, key=lambda v: version_newest[v]) for root, vs in members.items()}
    occurrence_id = [f"{sha[:16]}-{idx}" for sha, idx in zip(records.source_sha256, records.record_index)]
    founding = {
        root: Founding(records.source_sha256[i], records.byte_start[i], text_sha[i])
        for root in members
        for i in (version_first[root],)
    }
    keys = [record_key(sha, start) for sha, start in zip(records.source_sha256, records.byte_start)]
    identity = assign_ids(keys, [roots[v] for v in record_version], founding, previous, version)
    paper_id_of_root = identity.paper_of_cluster

    # Per version: its paper, and its similarity to the paper's canonical version.
    version_paper = [paper_id_of_root[root] for root in roots]
    version_similarity = [1.0] * len(roots)
    revised = [(v, canonical_version[root]) for v, root in enumerate(roots) if v != canonical_version[root]]
    if revised:
        pairs = np.array(revised, dtype=np.int64)
        for (v, _), s in zip(revised, jaccard_many(shingle_sets, pairs).tolist()):
            version_similarity[v] = s
    paper_id = [version_paper[v] for v in record_version]
    similarity = [version_similarity[v] for v in record_version]
    relation = [
        ("canonical" if version_first[v] == i else "exact_duplicate")
        if v == canonical_version[roots[v]]
        else "near_duplicate"
        for i, v in enumerate(record_version)
    ]
    return {
        "occurrence_id": occurrence_id,
        "text_sha256": text_sha,
        "paper_id": paper_id,
        "relation": relation,
        "similarity": similarity,
        "identity": identity,
        "papers": [
            {
                "root": root,
                "canonical_record": version_first[canonical_version[root]],
                "founding_record": version_first[root],
                "n_versions": len(vs),
            }
            for root, vs in members.items()
        ],
        "n_versions": len(version_text),
        "n_candidate_pairs": len(clusters.candidates),
        "n_merged_pairs": clusters.merged,
    }


def render_papers(normalized: list[str], dedup: dict) -> list[tuple[str, str | None, int]]:
    """Plain text, URLs and word count of every paper's canonical abstract, in the order of
    dedup["papers"]."""
    return map_chunks(render_many, [normalized[p["canonical_record"]] for p in dedup["papers"]], min_items=5_000)


def assemble(
    records: Records, normalized: list[str], dedup: dict, rendered: list[tuple[str, str | None, int]]
) -> tuple[pa.Table, pa.Table, pa.Table]:
    occurrence_id = dedup["occurrence_id"]
    occurrences = pa.Table.from_pydict(
        {
            "occurrence_id": occurrence_id,
            "paper_id": dedup["paper_id"],
            "relation": dedup["relation"],
            "similarity": dedup["similarity"],
            "source_file": records.source_file,
            "source_sha256": records.source_sha256,
            "record_index": records.record_index,
            "line_start": records.line_start,
            "line_end": records.line_end,
            "byte_start": records.byte_start,
            "byte_end": records.byte_end,
            "text_raw": records.text_raw,
            "text_sha256": dedup["text_sha256"],
        },
        schema=arrow_schema("occurrences"),
    )

    n_occ: dict[str, int] = {}
    for pid in dedup["paper_id"]:
        n_occ[pid] = n_occ.get(pid, 0) + 1
    dump_by_name = {d.name: d for d in records.dumps}
    rows = []
    for p, (plain, urls, words) in zip(dedup["papers"], rendered):
        c = p["canonical_record"]
        abstract = normalized[c]
        dump = dump_by_name[records.source_file[c]]
        rows.append(
            {
                "paper_id": dedup["paper_id"][c],
                "venue": dump.venue,
                "year": dump.year,
                "abstract": abstract,
                "abstract_plain": plain,
                "urls": urls,
                "word_count": words,
                "n_occurrences": n_occ[dedup["paper_id"][c]],
                "n_versions": p["n_versions"],
                "first_source_file": records.source_file[p["founding_record"]],
                "canonical_occurrence_id": occurrence_id[c],
                "abstract_sha256": dedup["text_sha256"][c],
            }
        )
    rows.sort(key=lambda r: r["paper_id"])
    schema = arrow_schema("papers")
    papers = pa.Table.from_pydict({name: [r[name] for r in rows] for name in schema.names}, schema=schema)
    id_rows = dedup["identity"].ids
    schema = arrow_schema("ids")
    ids = pa.Table.from_pydict({name: [getattr(r, name) for r in id_rows] for name in schema.names}, schema=schema)
    return papers, occurrences, ids


def run(
    files: Iterable[tuple[str, bytes]],
    config: BuildConfig,
    stage: Callable = no_timer,
    meta: dict[str, DumpMeta | None] | None = None,
    previous: PreviousRelease | None = None,
    version: str = "0.0.0",
) -> BuildResult:
    """raw files (name, bytes) and their metadata in, validated-ready tables out; paper ids are
    anchored to ``previous`` (None: this is the first release), and ids first published or
    retired now are marked with ``version``.

    ``stage(name)`` is a context manager entered around each stage (for timings).
    """
    with stage("parse"):
        records = parse(files, config, meta, previous)
    del files  # the raw bytes (as large as the input) are not needed past parsing
    with stage("normalize"):
        normalized = normalize_records(records)
    with stage("near-dup"):
        dedup = deduplicate(records, normalized, config, previous, version)
    with stage("plain text"):
        rendered = render_papers(normalized, dedup)
    with stage("assemble"):
        papers, occurrences, ids = assemble(records, normalized, dedup, rendered)
    identity = dedup["identity"]
    relations = {r: 0 for r in RELATIONS}
    for r in dedup["relation"]:
        relations[r] += 1
    stats = {
        "dumps": len(records.dumps),
        "records": len(records),
        "papers": papers.num_rows,
        "distinct_texts": dedup["n_versions"],
        "near_dup_candidate_pairs": dedup["n_candidate_pairs"],
        "near_dup_merged_pairs": dedup["n_merged_pairs"],
        "relations": relations,
        # From the ids table, not from what changed since the previous build: a rebuild on its
        # own release must give the same bytes.
        "ids": {
            **{status: sum(r.status == status for r in identity.ids) for status in ("current", "merged", "removed")},
            "first_published_in_this_version": sum(r.first_release == version for r in identity.ids),
            "retired_in_this_version": sum(r.retired_release == version for r in identity.ids),
        },
    }
    return BuildResult(papers, occurrences, ids, records.dumps, records.meta, identity, stats)
