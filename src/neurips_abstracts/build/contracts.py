"""Contracts every build must pass before its release replaces anything (the build checks the
occurrences row group by row group as it writes them into its temporary folder).

Column types, patterns, ranges, uniqueness and primary keys come from the Pandera schemas
derived from ``schema/``; the checks across tables and against the input are here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..core.errors import ContractError

if TYPE_CHECKING:  # the CLI imports ContractError at start-up: keep pyarrow out of that path
    import polars as pl
    import pyarrow as pa

    from ..ingest.previous import PreviousRelease



def _frame(table) -> pl.DataFrame:
    """A polars frame of an Arrow table or batch (``pl.from_arrow`` gives a Series only for an array)."""
    import polars as pl

    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _fail(message: str, examples) -> None:
    shown = ", ".join(map(str, list(examples)[:5]))
    raise ContractError(f"{message}: {shown}")


# Rows of occurrences checked at once by ``check``: text_raw is most of a row.
OCCURRENCE_BATCH = 1 << 16


def check(
    papers: pa.Table,
    occurrences: pa.Table,
    records_parsed: int,
    ids: pa.Table,
    previous: PreviousRelease | None = None,
) -> None:
    """Raise :class:`ContractError` naming the first broken contract. Occurrences are in the
    added order of their dumps (see ``sidecar``)."""
    # An ``occurrences.Occurrences`` is produced a row group at a time. The rows first, then the
    # checks across tables: the order in which a build reports them too.
    for batch in occurrences.batches(OCCURRENCE_BATCH) if hasattr(occurrences, "batches") else [occurrences]:
        check_occurrence_rows(batch)
    check_tables(papers, occurrences, records_parsed, ids, previous)


def _validate(name: str, frame) -> None:
    from ..core.schema import import_pandera_polars, pandera_schema

    import_pandera_polars()  # before pandera.errors: see there why
    import pandera.errors

    try:
        pandera_schema(name).validate(frame, lazy=True)
    except (pandera.errors.SchemaError, pandera.errors.SchemaErrors) as exc:
        raise ContractError(f"{name} breaks its schema:\n{exc}") from None


def check_occurrence_rows(batch: pa.RecordBatch | pa.Table) -> None:
    """The occurrences schema on some of its rows: what holds row by row (the checks across rows
    are ``check_tables``'s)."""

    _validate("occurrences", _frame(batch))


def check_tables(
    papers: pa.Table,
    occurrences,
    records_parsed: int,
    ids: pa.Table,
    previous: PreviousRelease | None = None,
) -> None:
    """Every contract but the occurrences schema row by row: the papers and ids schemas, and
    what holds across rows and tables. ``occurrences`` is a table or an ``Occurrences`` (whose
    text_raw is not read here)."""
    import polars as pl

    from ..core.schema import pandera_schema

    p = _frame(papers)
    i = _frame(ids)
    _validate("papers", p)
    _validate("ids", i)
    if hasattr(occurrences, "select"):
        # The columns the checks read (record_index none; source_sha256 only against a previous
        # release, in _check_ids): each is made for every record, 70 MB of the largest at 1M.
        unread = {"text_raw", "record_index"} | ({"source_sha256"} if previous is None else set())
        o = _frame(occurrences.select(n for n in occurrences.schema.names if n not in unread))
        _check_unique_across(o, pandera_schema("occurrences"))
    else:
        o = _frame(occurrences)
    o = o.with_row_index("_added_order")

    # Nothing is lost: one occurrence row per raw record parsed.
    if o.height != records_parsed:
        raise ContractError(f"occurrences has {o.height} rows but {records_parsed} raw records were parsed")

    orphans = o.join(p, on="paper_id", how="anti")
    if orphans.height:
        _fail("occurrences point at papers that do not exist", orphans["occurrence_id"])

    per_paper = o.group_by("paper_id").agg(
        n=pl.len(),
        n_canonical=(pl.col("relation") == "canonical").sum(),
        canonical_id=pl.col("occurrence_id").filter(pl.col("relation") == "canonical").first(),
        canonical_sha=pl.col("text_sha256").filter(pl.col("relation") == "canonical").first(),
        n_versions=pl.col("text_sha256").n_unique(),
        first_file=pl.col("source_file").sort_by("_added_order").first(),
    )
    joined = p.join(per_paper, on="paper_id", how="left")
    if joined["n"].null_count():
        _fail("papers without any occurrence", joined.filter(pl.col("n").is_null())["paper_id"])
    bad = joined.filter(pl.col("n_canonical") != 1)
    if bad.height:
        _fail("papers without exactly one canonical occurrence", bad["paper_id"])
    for column, expected in (
        ("n_occurrences", "n"),
        ("n_versions", "n_versions"),
        ("canonical_occurrence_id", "canonical_id"),
        ("abstract_sha256", "canonical_sha"),
        ("first_source_file", "first_file"),
    ):
        bad = joined.filter(pl.col(column) != pl.col(expected))
        if bad.height:
            _fail(f"papers.{column} disagrees with occurrences", bad["paper_id"])
    _check_ids(p, i, previous, o)

    # The abstract hashes to abstract_sha256 (the paper id does not come from the text: see identity).
    mismatched = [
        pid
        for pid, digest, sha in zip(papers.column("paper_id").to_pylist(), _utf8_sha256(papers.column("abstract")),
                                    papers.column("abstract_sha256").to_pylist())
        if digest != sha
    ]
    if mismatched:
        _fail("abstract does not hash to abstract_sha256", mismatched)

    canon = o.filter(pl.col("relation") == "canonical").select("paper_id", canon_sha="text_sha256")
    rel = o.join(canon, on="paper_id")
    bad = rel.filter((pl.col("relation") == "exact_duplicate") & (pl.col("text_sha256") != pl.col("canon_sha")))
    if bad.height:
        _fail("exact duplicates whose text differs from the canonical text", bad["occurrence_id"])
    bad = rel.filter((pl.col("relation") == "near_duplicate") & (pl.col("text_sha256") == pl.col("canon_sha")))
    if bad.height:
        _fail("near duplicates whose text equals the canonical text", bad["occurrence_id"])
    bad = rel.filter((pl.col("relation") != "near_duplicate") & (pl.col("similarity") != 1.0))
    if bad.height:
        _fail("canonical or exact-duplicate occurrences with similarity below 1", bad["occurrence_id"])
    bad = o.filter(pl.col("byte_end") <= pl.col("byte_start"))
    if bad.height or o.filter(pl.col("line_end") < pl.col("line_start")).height:
        _fail("occurrences with an empty or inverted span", bad["occurrence_id"])


def _utf8_sha256(column) -> Iterator[str]:
    """The SHA-256 (hex) of each value's UTF-8 bytes, read from the Arrow buffers of
    ``column`` (string or large_string) rather than made into a Python string and encoded again."""
    import numpy as np
    import pyarrow as pa

    for chunk in getattr(column, "chunks", [column]):
        if chunk.null_count:  # as before: a null has no text, and fails here
            yield from (hashlib.sha256(text.encode("utf-8")).hexdigest() for text in chunk.to_pylist())
            continue
        _, offsets, data = chunk.buffers()
        wide = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        at = np.frombuffer(offsets, wide)[chunk.offset : chunk.offset + len(chunk) + 1].tolist() if len(chunk) else []
        view = memoryview(data if data is not None else b"")
        yield from (hashlib.sha256(view[a:b]).hexdigest() for a, b in zip(at, at[1:]))


def _check_unique_across(frame, schema) -> None:
    """The schema's unique columns and primary key, over the whole table."""
    keys = [[name] for name, column in schema.columns.items() if column.unique and name in frame.columns]
    keys += [list(schema.unique)] if schema.unique else []
    for key in keys:
        dup = frame.select(key).is_duplicated()
        if dup.any():
            _fail(f"occurrences breaks its schema: {', '.join(key)} not unique", frame.filter(dup)[key[0]])


def _check_ids(p, i, previous: PreviousRelease | None, o) -> None:
    """Published ids never change or vanish: each is a paper now, merged into one, or removed."""
    import polars as pl

    current = i.filter(pl.col("status") == "current")
    bad = current.filter(pl.col("paper_id") != pl.col("id"))
    if bad.height:
        _fail("current ids that do not name themselves as their paper", bad["id"])
    missing = p.join(current, left_on="paper_id", right_on="id", how="anti")
    if missing.height:
        _fail("papers whose id is not listed as current in ids", missing["paper_id"])
    extra = current.join(p, left_on="id", right_on="paper_id", how="anti")
    if extra.height:
        _fail("ids listed as current without a paper", extra["id"])
    retired = i.filter(pl.col("status") != "current")
    bad = retired.filter(pl.col("paper_id").is_not_null()).join(p, on="paper_id", how="anti")
    if bad.height:
        _fail("retired ids pointing at papers that do not exist", bad["id"])
    bad = retired.filter((pl.col("status") == "removed") & pl.col("paper_id").is_not_null())
    if bad.height:
        _fail("removed ids that still name a paper", bad["id"])
    bad = i.filter((pl.col("status") == "current") != pl.col("retired_release").is_null())
    if bad.height:
        _fail("retired_release must be set exactly for merged and removed ids", bad["id"])
    from ..ids.identity import broken_promises
    from ..ingest.previous import IdRow, record_key

    # Made only against a previous release: a first release has no registry to break (broken_promises).
    rows = [IdRow(*r) for r in i.select(list(IdRow.__dataclass_fields__)).iter_rows()] if previous is not None else []
    # Made as read: a first release (no previous) reads none of them (nor has the column).
    keys = (record_key(sha, start) for sha, start in zip(o["source_sha256"], o["byte_start"])) if previous is not None else iter(())
    against = previous.version if previous is not None else "none"
    for what, bad in broken_promises(rows, keys, iter(o["paper_id"]), previous):
        _fail(f"{what} (against release {against})", bad)
