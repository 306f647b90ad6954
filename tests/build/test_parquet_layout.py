"""The Parquet files as the Hub serves them: row groups bounded in bytes, an offset index on every
column chunk, min/max statistics on all but free text (read back from the written files' own
metadata)."""

from __future__ import annotations

import dataclasses

import pyarrow.parquet as pq
from hypothesis import example, given, settings, strategies as st

from neurips_abstracts import build as build_module
from neurips_abstracts.build.tables import row_group_bounds
from neurips_abstracts.core.config import DEFAULT_CONFIG
from neurips_abstracts.core.names import data_path
from neurips_abstracts.core.schema import distinct_columns, free_text_columns

from tests.helpers import synthetic_dumps

LIMIT = 16 * 1024  # small enough that the fixture's tables make several row groups


def _assert_page_index(rg, table: str) -> None:
    """An offset index on every column chunk; min/max statistics, and so a column index, on
    every column but free text (whose minimum and maximum would be whole texts); a dictionary
    on every column but those whose values are all distinct."""
    free_text, distinct = set(free_text_columns(table)), set(distinct_columns(table))
    for c in range(rg.num_columns):
        col = rg.column(c)
        assert col.has_offset_index, (table, col.path_in_schema)
        stats = col.path_in_schema not in free_text
        assert col.has_column_index == stats and col.is_stats_set == stats, (table, col.path_in_schema)
        # no dictionary for values all distinct; the others have one (a row group's first page of
        # them at least: a column falls back to plain past the dictionary's size limit)
        assert col.has_dictionary_page == (col.path_in_schema not in distinct), (table, col.path_in_schema)


def test_row_groups_bounded_in_bytes_with_page_index(tmp_path):
    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=240)
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=LIMIT, parquet_batch_rows=37)
    build_module.build(raw, tmp_path / "dist", config, previous=None)
    # the assertions below test both kinds of column
    assert all(free_text_columns(t) and distinct_columns(t) for t in ("papers", "occurrences"))
    for table in ("papers", "occurrences", "ids"):
        meta = pq.ParquetFile(tmp_path / "dist" / data_path(table)).metadata
        assert meta.num_row_groups > 2 or table == "ids", table
        for g in range(meta.num_row_groups):
            rg = meta.row_group(g)
            assert rg.total_byte_size <= LIMIT, (table, g, rg.total_byte_size)
            _assert_page_index(rg, table)


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


def test_a_flipped_relation_moves_no_row_group_cut(tmp_path):
    """Row groups are cut by a measure in which a column of listed values (``relation``) counts
    its longest value's bytes: occurrences whose relation flipped in place (their paper's
    canonical text moved) leave every row group with the rows it had, so the groups after it
    keep their bytes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from neurips_abstracts.build.tables import write_parquet

    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=240)
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=LIMIT)
    build_module.build(raw, tmp_path / "dist", config, previous=None)
    occ = pq.read_table(tmp_path / "dist" / data_path("occurrences"))
    relation = occ["relation"]
    flipped = pc.if_else(pc.equal(relation, "canonical"), "exact_duplicate",
                         pc.if_else(pc.equal(relation, "exact_duplicate"), "canonical", relation))
    assert pc.sum(pc.not_equal(relation, flipped)).as_py() > 20  # rows made longer and shorter
    other = occ.set_column(occ.schema.get_field_index("relation"), occ.schema.field("relation"), flipped)

    def groups(table: pa.Table, out) -> list[int]:
        written = write_parquet(table, "occurrences", out, config)
        meta = pq.ParquetFile(out / written.shards[0][0]).metadata
        return [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]

    cuts = groups(occ, tmp_path / "a")
    assert len(cuts) > 2 and groups(other, tmp_path / "b") == cuts


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


SHARD = 48 * 1024  # small enough that the fixture's papers and occurrences make several shards


def _sharded(tmp_path, name="dist", raw=None, previous=None):
    raw = raw or tmp_path / "raw"
    if not raw.exists():
        synthetic_dumps(raw, papers=240)
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=LIMIT, parquet_shard_bytes=SHARD,
                                 parquet_batch_rows=37)
    build_module.build(raw, tmp_path / name, config, previous=previous)
    return tmp_path / name, config


def test_shards_as_the_hub_names_them_and_every_file_says_so(tmp_path):
    """Tables past the shard size are split into train-0000i-of-0000n.parquet files of whole
    row groups, each within the limits and with a page index; the card's data_files and
    dataset_info, the data package's resources and Croissant's file sets name exactly those
    files; the standards' own validators read them (verify); a rebuild gives the same bytes."""
    import json
    import re

    from huggingface_hub import DatasetCard

    from neurips_abstracts.build.tables import row_bytes
    from neurips_abstracts.core.names import release_table_paths
    from neurips_abstracts.core.schema import TABLES
    from neurips_abstracts.record.verify import verify

    dist, config = _sharded(tmp_path)
    shards = {t: release_table_paths(dist, t) for t in TABLES}
    assert len(shards["papers"]) > 1 and len(shards["occurrences"]) > 1
    for table, paths in shards.items():
        n = len(paths)
        assert [re.fullmatch(rf"data/{table}/train-(\d{{5}})-of-{n:05d}\.parquet", p)[1] for p in paths] == \
            [f"{i:05d}" for i in range(n)]
        for rel in paths:
            f = pq.ParquetFile(dist / rel)
            measured = int(row_bytes(f.read()).sum())
            assert measured <= config.parquet_shard_bytes or f.metadata.num_row_groups == 1, (rel, measured)
            for g in range(f.metadata.num_row_groups):
                rg = f.metadata.row_group(g)
                assert rg.total_byte_size <= LIMIT or rg.num_rows == 1
                _assert_page_index(rg, table)
    card = DatasetCard.load(dist / "README.md").data.to_dict()
    for c in card["configs"]:
        path = c["data_files"][0]["path"]
        assert ([path] if isinstance(path, str) else path) == shards[c["config_name"]]
    for info in card["dataset_info"]:
        rows = sum(pq.ParquetFile(dist / rel).metadata.num_rows for rel in shards[info["config_name"]])
        assert info["splits"][0]["num_examples"] == rows
        assert info["download_size"] == sum((dist / rel).stat().st_size for rel in shards[info["config_name"]])
    package = json.loads((dist / "datapackage.json").read_text())
    assert sorted(r["path"] for r in package["resources"]) == sorted(p for ps in shards.values() for p in ps)
    croissant = json.loads((dist / "croissant.json").read_text())
    sets = {d["@id"]: d for d in croissant["distribution"]}
    assert sets["papers-parquet"]["@type"] == "cr:FileSet"
    assert verify(dist) == []  # SHA256SUMS, the metadata, frictionless and mlcroissant
    again, _ = _sharded(tmp_path, "again", raw=tmp_path / "raw")
    assert {rel: (again / rel).read_bytes() for ps in shards.values() for rel in ps} == \
        {rel: (dist / rel).read_bytes() for ps in shards.values() for rel in ps}


def test_sharded_releases_are_read_whole_by_every_reader(tmp_path):
    """The ids of a sharded release are kept by the next build, `diff` and `add` read it, and
    `datasets` loads each table from the card's data_files."""
    from datasets import load_dataset

    from neurips_abstracts.core.names import release_table_paths
    from neurips_abstracts.ingest.previous import read_previous, read_release_table
    from neurips_abstracts.record.diff import compare, load_side

    from tests.helpers import make_dump

    old, _ = _sharded(tmp_path, "old")
    published = read_previous(old)
    assert len(published.ids) == read_release_table(old, "ids").num_rows > 0
    (tmp_path / "raw" / "009_00000000000000ff.txt").write_bytes(
        make_dump(["A new paper on sparse kernels and the graphs whose regret they bound, with care."]))
    new, _ = _sharded(tmp_path, "new", raw=tmp_path / "raw", previous=old)
    kept = {r.id for r in read_previous(new).ids}
    assert {r.id for r in published.ids} <= kept and len(kept) == len(published.ids) + 1
    d = compare(load_side(str(old)), load_side(str(new)))
    assert len(d["added"]) == 1, {k: v for k, v in d.items() if k != "revised"}
    for table in ("papers", "occurrences"):
        files = [str(new / rel) for rel in release_table_paths(new, table)]
        loaded = load_dataset("parquet", data_files=files, split="train")
        assert loaded.num_rows == read_release_table(new, table).num_rows


def test_a_stray_shard_is_named_not_called_no_release(tmp_path):
    """A shard file of another set beside a table's shards breaks the set: the build reading
    that release names the folder and the file, not "not a release"."""
    import shutil

    import pytest

    from neurips_abstracts.core.errors import DumpError
    from neurips_abstracts.core.names import release_table_paths
    from neurips_abstracts.ingest.previous import read_previous

    dist, _ = _sharded(tmp_path)
    first = release_table_paths(dist, "occurrences")[0]
    shutil.copy(dist / first, dist / "data" / "occurrences" / "train-00000-of-00001.parquet")
    with pytest.raises(DumpError, match=r"data/occurrences.*train-00000-of-00001\.parquet"):
        read_previous(dist)


def test_ids_of_a_release_built_on_another_come_after_its_ids(tmp_path):
    """The ids table of a release built on another lists that release's ids first, in its
    order, then the new ones (by id): the table grows at its end. A first release's are by id."""
    from tests.helpers import make_dump

    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=120)
    build_module.build(raw, tmp_path / "old", DEFAULT_CONFIG, previous=None)
    topics = ("sparse kernels", "graph regret", "tensor sketches", "causal bandits", "quantum walks", "spline flows")
    (raw / "009_00000000000000ff.txt").write_bytes(make_dump(
        [f"A new paper on {t}: {' '.join(f'{t.split()[0]}{k}x{n}' for n in range(25))}." for k, t in enumerate(topics)]))
    build_module.build(raw, tmp_path / "new", DEFAULT_CONFIG, previous=tmp_path / "old")
    old = pq.read_table(tmp_path / "old" / data_path("ids"))["id"].to_pylist()
    new = pq.read_table(tmp_path / "new" / data_path("ids"))["id"].to_pylist()
    assert old == sorted(old) and len(new) == len(old) + len(topics)
    assert new[:len(old)] == old and new[len(old):] == sorted(new[len(old):])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=300), st.none() | st.text(max_size=40), st.integers(0, 10**6)), max_size=160),
       st.lists(st.integers(1, 60), min_size=1, max_size=8))
@example([("a" * 300, None, 1)] * 150, [7])
def test_papers_written_as_rendered_are_the_whole_tables_bytes(tmp_path_factory, rows, cuts):
    """Inputs: papers of any text (empty and long among them) and urls, some missing, arriving
    in batches of the sizes drawn, row groups and shards small enough that a table holds several.
    The papers table written from its batches as the plain text is rendered (``write_papers``:
    row groups made contiguous) writes the bytes of ``write_parquet`` of the whole table, and the
    whole table's slices (``sliced_nbytes``) give the size ``write_parquet`` records."""
    import pyarrow as pa

    from neurips_abstracts.build.stages.write import write_papers
    from neurips_abstracts.build.tables import sliced_nbytes, write_parquet
    from neurips_abstracts.core.schema import arrow_schema

    schema = arrow_schema("papers")
    n = len(rows)
    values = {name: [f"{name}-{k}" for k in range(n)] for name in schema.names if pa.types.is_string(schema.field(name).type)}
    values |= {name: list(range(n)) for name in schema.names if pa.types.is_integer(schema.field(name).type)}
    values["abstract"] = values["abstract_plain"] = [text for text, _, _ in rows]
    values["urls"] = [url for _, url, _ in rows]
    values["word_count"] = [words for _, _, words in rows]
    table = pa.table({name: pa.array(values[name], schema.field(name).type) for name in schema.names}, schema=schema)
    config = dataclasses.replace(DEFAULT_CONFIG, parquet_row_group_bytes=2048, parquet_shard_bytes=6144)
    batches, start, k = [], 0, 0
    while start < n:
        batches.append(table.slice(start, cuts[k % len(cuts)]).combine_chunks().to_batches()[0])
        start += cuts[k % len(cuts)]
        k += 1
    out = tmp_path_factory.mktemp("papers")
    whole = write_parquet(table, "papers", out / "whole", config)
    streamed, _ = write_papers(batches, out / "streamed", config)
    assert streamed.shards == whole.shards and streamed.rows == whole.rows == n
    assert sliced_nbytes(table, streamed.groups) == whole.nbytes
    for path, _ in whole.shards:
        assert (out / "whole" / path).read_bytes() == (out / "streamed" / path).read_bytes(), path
