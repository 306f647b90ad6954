"""The assemble stage: the occurrences table (produced a row group at a time), the papers and ids
tables, and the build's statistics, from the hand-offs of the stages before."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ...core.schema import arrow_schema
from ...ids.identity import Identity
from ...ingest.parse import Dump
from ...ingest.sidecar import DumpMeta
from ..occurrences import RELATIONS, Occurrences, dense, occurrence_ids
from .identify import Identified
from .near_dup import Papers
from .parse import Parsed
from .render import Rendered


@dataclass(frozen=True)
class BuildResult:
    papers: pa.Table
    occurrences: Occurrences
    ids: pa.Table
    dumps: tuple[Dump, ...]
    meta: dict[str, DumpMeta]
    identity: Identity
    stats: dict = field(default_factory=dict)


def assemble_occurrences(parsed: Parsed, papers: Papers, identified: Identified) -> Occurrences:
    """The occurrences table (produced a row group at a time: see ``Occurrences``)."""
    return Occurrences(
        schema=arrow_schema("occurrences"),
        files=pa.array([d.name for d in parsed.dumps], pa.string()),
        shas=pa.array([d.sha256 for d in parsed.dumps], pa.string()),
        dump=parsed.dump,
        positions=parsed.positions,
        version=parsed.version,
        relation=papers.relation,
        version_paper=identified.version_paper,
        version_similarity=papers.similarity,
        version_sha=pa.array(parsed.versions.sha, pa.string()),
        spool=parsed.spool,
    )


def papers_columns(parsed: Parsed, papers: Papers, identified: Identified, occurrences: Occurrences) -> dict[str, pa.Array]:
    """The papers table's columns but those the render stage makes (``RENDERED``), each one
    array in ``Papers`` order, of its schema type."""
    canonical = papers.canonical
    record = parsed.versions.first.array()[canonical]  # each paper's canonical occurrence
    dump = parsed.dump[record]
    cols = {
        "paper_id": occurrences.version_paper.take(canonical),
        "venue": pa.array([d.venue for d in parsed.dumps]).take(dump),
        "year": pa.array([d.year for d in parsed.dumps]).take(dump),
        "n_occurrences": papers.n_records,
        "n_versions": papers.n_versions,
        "first_source_file": occurrences.files.take(parsed.dump[papers.founding_record]),
        "canonical_occurrence_id": occurrence_ids(occurrences.shas.take(dump), parsed.positions["record_index"][record]),
        "abstract_sha256": occurrences.version_sha.take(canonical),
    }
    return {name: _typed(value, name) for name, value in cols.items()}


def _typed(values, name: str) -> pa.Array:
    """Column ``name`` of the papers table from ``values`` (an array, or numbers), of its schema type."""
    field = arrow_schema("papers").field(name)
    return dense(pa.array(values, field.type) if not isinstance(values, pa.Array) else values.cast(field.type))


def papers_rows(fixed: dict[str, pa.Array], start: int, rendered: dict[str, pa.Array]) -> pa.RecordBatch:
    """The papers table's rows from ``start`` on, as many as ``rendered`` holds (``RENDERED``
    columns of those papers, a chunk of the render stage), the other columns from ``fixed``
    (``papers_columns``): the same values as those rows of ``assemble``'s table."""
    schema = arrow_schema("papers")
    n = len(next(iter(rendered.values())))
    return pa.record_batch([fixed[name].slice(start, n) if name in fixed else _typed(rendered[name], name)
                            for name in schema.names], schema=schema)


def assemble(fixed: dict[str, pa.Array], rendered: Rendered, identified: Identified) -> tuple[pa.Table, pa.Table]:
    """The papers and ids tables; ``fixed``: ``papers_columns``."""
    cols = {**fixed, **{name: _typed(values, name) for name, values in rendered.columns().items()}}
    schema = arrow_schema("papers")
    table = pa.table({name: cols[name] for name in schema.names}, schema=schema)
    id_rows = identified.identity.ids
    schema = arrow_schema("ids")
    ids = pa.Table.from_pydict({name: [getattr(r, name) for r in id_rows] for name in schema.names}, schema=schema)
    return table, ids


def build_stats(parsed: Parsed, papers: Papers, identity: Identity, n_papers: int, version: str) -> dict:
    """The build's statistics (the manifest's ``build``): counts of this build alone. Those of ids
    come from the ids table, not from what changed since the previous build: a rebuild on its own
    release must give the same bytes."""
    counts = np.bincount(papers.relation, minlength=len(RELATIONS)).tolist()
    return {
        "dumps": len(parsed.dumps),
        "records": len(parsed),
        "papers": n_papers,
        "distinct_texts": len(parsed.versions),
        "near_dup_candidate_pairs": papers.n_candidate_pairs,
        "near_dup_merged_pairs": papers.n_merged_pairs,
        "relations": dict(zip(RELATIONS, counts)),
        "ids": {
            **{status: sum(r.status == status for r in identity.ids) for status in ("current", "merged", "removed")},
            "first_published_in_this_version": sum(r.first_release == version for r in identity.ids),
            "retired_in_this_version": sum(r.retired_release == version for r in identity.ids),
        },
    }
