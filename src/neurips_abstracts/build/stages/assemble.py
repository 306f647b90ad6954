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


def assemble(parsed: Parsed, papers: Papers, identified: Identified, rendered: Rendered,
             occurrences: Occurrences) -> tuple[pa.Table, pa.Table]:
    """The papers and ids tables."""
    canonical = papers.canonical
    record = parsed.versions.first.array()[canonical]  # each paper's canonical occurrence
    dump = parsed.dump[record]
    cols = {
        "paper_id": occurrences.version_paper.take(canonical),
        "venue": pa.array([d.venue for d in parsed.dumps]).take(dump),
        "year": pa.array([d.year for d in parsed.dumps]).take(dump),
        **rendered.columns(),
        "n_occurrences": papers.n_records,
        "n_versions": papers.n_versions,
        "first_source_file": occurrences.files.take(parsed.dump[papers.founding_record]),
        "canonical_occurrence_id": occurrence_ids(occurrences.shas.take(dump), parsed.positions["record_index"][record]),
        "abstract_sha256": occurrences.version_sha.take(canonical),
    }
    schema = arrow_schema("papers")
    table = pa.table({name: dense(pa.array(cols[name], schema.field(name).type) if not isinstance(cols[name], pa.Array)
                                  else cols[name].cast(schema.field(name).type)) for name in schema.names}, schema=schema)
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
