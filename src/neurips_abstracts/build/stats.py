"""Statistics of a build, computed from its tables, for the documents that describe it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .occurrences import RELATIONS


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


def _counts(values: pa.ChunkedArray) -> dict:
    counted = pc.value_counts(values)
    return dict(zip(counted.field("values").to_pylist(), counted.field("counts").to_pylist()))


def _venue_counts_by_paper(venue, year) -> dict[str, int]:
    """Papers per "<venue> <year>", a Python step per paper: ``_venue_counts``' reference."""
    venues: dict[str, int] = {}
    for v, y in zip(venue.to_pylist(), year.to_pylist()):
        venues[f"{v} {y}"] = venues.get(f"{v} {y}", 0) + 1
    return venues


def _venue_counts(venue, year) -> dict[str, int]:
    """Papers per "<venue> <year>" (unsorted), counted by Arrow's hash kernel on the joined
    strings; where a value is missing, by ``_venue_counts_by_paper`` (its f-string names it "None",
    Arrow's join drops the row)."""
    if venue.null_count or year.null_count:
        return _venue_counts_by_paper(venue, year)
    return _counts(pc.binary_join_element_wise(venue, pc.cast(year, pa.string()), " "))


def compute(papers: pa.Table, occurrences: pa.Table) -> dict:
    relation = occurrences.column("relation")
    per_relation = {r: pc.sum(pc.equal(relation, r)).as_py() or 0 for r in RELATIONS}
    near = occurrences.filter(pc.equal(relation, "near_duplicate")).column("similarity")
    # counted with hash kernels, not Table.group_by, which imports Arrow's query engine (and its
    # dataset module) into every build; sorted by code point, which is UTF-8 byte order as Arrow sorts
    source = occurrences.column("source_file")
    records, canonical = (_counts(source), _counts(source.filter(pc.equal(relation, "canonical"))))
    per_file = [{"file": f, "records": records[f], "canonical": canonical.get(f, 0)} for f in sorted(records)]
    files = [f["file"] for f in per_file]
    venues = _venue_counts(papers.column("venue"), papers.column("year"))
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
