"""Statistics of a build, computed from its tables, for the documents that describe it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .pipeline import RELATIONS


def _quantiles(values: pa.ChunkedArray) -> dict:
    if len(values) == 0:
        return {k: 0 for k in ("min", "p05", "median", "p95", "max", "mean")}
    qs = pc.quantile(values, q=[0.05, 0.5, 0.95], interpolation="nearest").to_pylist()
    return {
        "min": pc.min(values).as_py(),
        "p05": qs[0],
        "median": qs[1],
        "p95": qs[2],
        "max": pc.max(values).as_py(),
        "mean": round(pc.mean(values).as_py(), 1),
    }


def compute(papers: pa.Table, occurrences: pa.Table) -> dict:
    relation = occurrences.column("relation")
    per_relation = {r: pc.sum(pc.equal(relation, r)).as_py() or 0 for r in RELATIONS}
    near = occurrences.filter(pc.equal(relation, "near_duplicate")).column("similarity")
    grouped = (
        pa.table({"file": occurrences.column("source_file"), "canonical": pc.equal(relation, "canonical").cast(pa.int64())})
        .group_by("file")
        .aggregate([("file", "count"), ("canonical", "sum")])
        .sort_by("file")
    )
    per_file = [
        {"file": f, "records": n, "canonical": c}
        for f, n, c in zip(grouped["file"].to_pylist(), grouped["file_count"].to_pylist(), grouped["canonical_sum"].to_pylist())
    ]
    files = [f["file"] for f in per_file]
    venues = {}
    for venue, year in zip(papers.column("venue").to_pylist(), papers.column("year").to_pylist()):
        venues[f"{venue} {year}"] = venues.get(f"{venue} {year}", 0) + 1
    with_urls = papers.num_rows - papers.column("urls").null_count
    return {
        "papers": papers.num_rows,
        "records": occurrences.num_rows,
        "dumps": len(files),
        "relations": per_relation,
        "duplicates": per_relation["exact_duplicate"] + per_relation["near_duplicate"],
        "papers_with_revisions": pc.sum(pc.greater(papers.column("n_versions"), 1)).as_py() or 0,
        "near_duplicate_similarity": _quantiles(near) if len(near) else None,
        "word_count": _quantiles(papers.column("word_count")),
        "abstract_chars": _quantiles(pc.utf8_length(papers.column("abstract"))),
        "papers_with_urls": with_urls,
        "venues": dict(sorted(venues.items())),
        "per_file": per_file,
    }
