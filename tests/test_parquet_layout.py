"""The Parquet files as the Hub serves them: row groups bounded in bytes, a page index on every
column chunk (read back from the written files' own metadata)."""

from __future__ import annotations

import dataclasses

import pyarrow.parquet as pq

from neurips_abstracts import build as build_module
from neurips_abstracts.core.config import DEFAULT_CONFIG
from neurips_abstracts.core.names import data_path
from neurips_abstracts.release.write import row_group_bounds
from tests.conftest import synthetic_dumps

LIMIT = 16 * 1024  # small enough that the fixture's tables make several row groups


def test_row_groups_bounded_in_bytes_with_page_index(tmp_path):
    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=240)
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=LIMIT, parquet_batch_rows=37)
    build_module.build(raw, tmp_path / "dist", config, previous=None)
    for table in ("papers", "occurrences"):
        meta = pq.ParquetFile(tmp_path / "dist" / data_path(table)).metadata
        assert meta.num_row_groups > 2, table
        for g in range(meta.num_row_groups):
            rg = meta.row_group(g)
            assert rg.total_byte_size <= LIMIT, (table, g, rg.total_byte_size)
            for c in range(rg.num_columns):
                col = rg.column(c)
                assert col.has_offset_index and col.has_column_index, (table, g, col.path_in_schema)


def test_rebuild_is_byte_identical_with_small_row_groups(tmp_path):
    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=120)
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=LIMIT, parquet_batch_rows=29)
    other = dataclasses.replace(config, parquet_batch_rows=1000)  # batching changes no byte
    build_module.build(raw, tmp_path / "a", config, previous=None)
    build_module.build(raw, tmp_path / "b", other, previous=None)
    for table in ("papers", "occurrences", "ids"):
        assert (tmp_path / "a" / data_path(table)).read_bytes() == (tmp_path / "b" / data_path(table)).read_bytes()


def test_row_group_bounds_cut_by_bytes():
    import numpy as np

    sizes = np.array([5, 5, 5, 20, 1, 1, 9])
    ends = row_group_bounds(sizes, 10)
    assert ends == [2, 3, 4, 6, 7]  # 10, 5, 20 (one row past the limit alone), 2, 9


def test_rows_in_added_order_and_readers_agree(tmp_path):
    """Papers in first-seen order (by their first dump, then record), occurrences in added
    order; pandas, polars, DuckDB and `datasets` read the same rows."""
    import duckdb
    import pandas as pd
    import polars as pl
    from datasets import load_dataset

    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=120)
    dist = tmp_path / "dist"
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=LIMIT)
    build_module.build(raw, dist, config, previous=None)
    occ = pq.read_table(dist / data_path("occurrences")).to_pylist()
    positions = [(o["source_file"], o["record_index"]) for o in occ]
    dumps = sorted({f for f, _ in positions})  # the fixture's dumps are added in name order
    assert positions == sorted(positions, key=lambda p: (dumps.index(p[0]), p[1]))
    first_seen = {}
    for o in occ:
        first_seen.setdefault(o["paper_id"], len(first_seen))
    papers = pq.read_table(dist / data_path("papers"))
    assert papers["paper_id"].to_pylist() == sorted(first_seen, key=first_seen.get)
    ids = papers["paper_id"].to_pylist()
    assert pd.read_parquet(dist / data_path("papers"))["paper_id"].tolist() == ids
    assert pl.read_parquet(dist / data_path("papers"))["paper_id"].to_list() == ids
    joined = duckdb.sql(f"SELECT count(*) FROM '{dist / data_path('papers')}' p "
                        f"JOIN '{dist / data_path('occurrences')}' o USING (paper_id)").fetchall()[0][0]
    assert joined == len(occ)
    assert load_dataset(str(dist), "papers", split="train")["paper_id"] == ids
