"""Write dist/: deterministic bytes, swapped in only once everything is written."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..core.config import BuildConfig
from ..core.names import shard_path, table_folder
from ..core.schema import distinct_columns, enum_bytes, field_names, free_text_columns, hf_features_dict


def _parquet_options(config: BuildConfig, name: str) -> dict:
    free_text, distinct = set(free_text_columns(name)), set(distinct_columns(name))
    return {
        "compression": config.parquet_compression,
        "compression_level": config.parquet_compression_level,
        # A dictionary of values all distinct only adds a page of them all, whose bytes shift
        # wherever a value is added; the values are stored plain.
        "use_dictionary": [f for f in field_names(name) if f not in distinct],
        # No min/max of free text: each page's would be two whole abstracts, in the column index
        # of the footer, which any change of the table rewrites (the offset index stays on every
        # column chunk: readers still find each page).
        "write_statistics": [f for f in field_names(name) if f not in free_text],
        "write_page_index": config.parquet_page_index,
        "use_content_defined_chunking": {
            "min_chunk_size": config.parquet_cdc_min_chunk_size,
            "max_chunk_size": config.parquet_cdc_max_chunk_size,
            "norm_level": config.parquet_cdc_norm_level,
        },
    }


def _with_features(schema: pa.Schema, name: str) -> pa.Schema:
    # The "huggingface" key lets `datasets` load the declared features instead of guessing them.
    hf = {"info": {"features": hf_features_dict(name)}}
    return schema.with_metadata({"huggingface": json.dumps(hf, sort_keys=True)})


def row_bytes(batch: pa.RecordBatch | pa.Table, widest: dict[str, int] | None = None) -> np.ndarray:
    """Each row's uncompressed size in Parquet's plain encoding: a string's bytes plus its
    4-byte length, a fixed-width value's width (dictionary encoding only makes it smaller). A
    column in ``widest`` (its longest value's bytes) counts that in every row: a row whose value
    there changes (a record's relation flipping) keeps its measure, so the row groups' cuts stay."""
    sizes = np.zeros(batch.num_rows, dtype=np.int64)
    widest = widest or {}
    for col, field in zip(batch.columns, batch.schema):
        t = field.type
        if field.name in widest:
            sizes += widest[field.name] + 4
        elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
            sizes += pc.fill_null(pc.binary_length(col), 0).to_numpy(zero_copy_only=False).astype(np.int64) + 4
        elif _fixed(t):
            sizes += max(1, t.bit_width // 8)
        else:  # nested: its share of the column's buffers, evenly
            sizes += -(-col.nbytes // max(1, batch.num_rows))
    return sizes


def _fixed(t: pa.DataType) -> bool:
    try:
        return t.bit_width > 0
    except ValueError:
        return False


def row_group_bounds(sizes: np.ndarray, limit: int) -> list[int]:
    """Where row groups end: each holds as many consecutive rows as fit in ``limit`` bytes (at
    least one row). A function of the rows alone, so rebuilds cut the same groups."""
    cum = np.cumsum(sizes)
    ends, start, base = [], 0, 0
    while start < len(sizes):
        end = max(start + 1, int(np.searchsorted(cum, base + limit, side="right")))
        ends.append(end)
        base, start = int(cum[end - 1]), end
    return ends


def _row_groups(batches: Iterable[pa.RecordBatch], limit: int,
                widest: dict[str, int], contiguous: bool = False) -> Iterator[tuple[pa.Table, int]]:
    """Re-cut a stream of batches into row groups of at most ``limit`` measured bytes
    (``row_bytes``); each with its measured bytes. ``contiguous``: each group's columns made
    one array each (``combine_chunks``), as a group cut from a table of one chunk has them."""
    if contiguous:
        for group, group_bytes in _row_groups(batches, limit, widest):
            yield group.combine_chunks(), group_bytes
        return
    pending: list[pa.RecordBatch] = []
    pending_bytes = 0
    for batch in batches:
        sizes = row_bytes(batch, widest)
        start = 0
        while start < batch.num_rows:
            room = limit - pending_bytes
            cum = np.cumsum(sizes[start:])
            take = int(np.searchsorted(cum, room, side="right"))
            if take == 0 and not pending:
                take = 1  # a single row past the limit is a row group of its own
            if take == 0:
                yield pa.Table.from_batches(pending), pending_bytes
                pending, pending_bytes = [], 0
                continue
            pending.append(batch.slice(start, take))
            pending_bytes += int(cum[take - 1])
            start += take
            if start < batch.num_rows:  # the next row does not fit
                yield pa.Table.from_batches(pending), pending_bytes
                pending, pending_bytes = [], 0
    if pending:
        yield pa.Table.from_batches(pending), pending_bytes


@dataclass(frozen=True)
class Written:
    """A table as written: its shard files (paths inside the release, in order, with their rows)."""

    rows: int
    nbytes: int  # in-memory Arrow size
    shards: tuple[tuple[str, int], ...]
    groups: tuple[int, ...] = ()  # rows of each row group, in order


def sliced_nbytes(table: pa.Table, groups: Iterable[int]) -> int:
    """The in-memory size ``write_parquet`` records for ``table`` written in row groups of
    ``groups`` rows: that of the table's slices. A row group made one array per column from
    smaller batches (``write_parquet_batches(contiguous=True)``) has the same values and writes the
    same bytes, but counts a validity bitmap's bytes from its own start, not from the bit where
    the slice begins: a byte or two apart."""
    nbytes = start = 0
    for rows in groups:
        nbytes += table.slice(start, rows).nbytes
        start += rows
    return nbytes


def write_parquet(table: pa.Table, name: str, out: Path, config: BuildConfig) -> Written:
    """Write ``table`` as table ``name`` of the release in ``out`` (see ``write_parquet_batches``)."""
    return write_parquet_batches(table.to_batches(), table.schema, name, out, config)


def write_parquet_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema, name: str, out: Path,
                          config: BuildConfig, contiguous: bool = False) -> Written:
    """Write a table that arrives a batch at a time into the release folder ``out``, re-cut into
    row groups of at most ``config.parquet_row_group_bytes`` uncompressed bytes, and the row
    groups into shard files of at most ``config.parquet_shard_bytes`` (at least one row group
    each; a file compresses below its measure), named as the Hub names them: the same bytes
    as ``write_parquet`` of the whole table, without the whole table in memory. Cuts are a
    function of the rows alone, so a table that grows at its end changes only its last shard
    and the shard names. An empty table is one shard without rows. ``contiguous``: see ``_row_groups``."""
    folder = out / table_folder(name)
    folder.mkdir(parents=True, exist_ok=True)
    rows = nbytes = 0
    groups: list[int] = []
    schema = _with_features(schema.remove_metadata(), name)
    parts: list[tuple[Path, int]] = []  # written under a temporary name until the count is known
    writer, measured = None, 0
    try:
        for group, group_bytes in _row_groups(batches, config.parquet_row_group_bytes, enum_bytes(name), contiguous):
            if writer is not None and measured + group_bytes > config.parquet_shard_bytes:
                writer.close()
                writer = None
            if writer is None:
                parts.append((folder / f".part-{len(parts)}", 0))
                writer, measured = pq.ParquetWriter(parts[-1][0], schema, **_parquet_options(config, name)), 0
            group = group.replace_schema_metadata(schema.metadata)
            writer.write_table(group, row_group_size=group.num_rows)
            parts[-1] = (parts[-1][0], parts[-1][1] + group.num_rows)
            measured += group_bytes
            rows += group.num_rows
            nbytes += group.nbytes
            groups.append(group.num_rows)
        if writer is None:
            parts.append((folder / ".part-0", 0))
            writer = pq.ParquetWriter(parts[-1][0], schema, **_parquet_options(config, name))
    finally:
        if writer is not None:
            writer.close()
    shards = []
    for i, (part, n_rows) in enumerate(parts):
        path = shard_path(name, i, len(parts))
        part.rename(out / path)
        shards.append((path, n_rows))
    return Written(rows, nbytes, tuple(shards), tuple(groups))


def dumps_json(data) -> str:
    """The one JSON style of dist/: sorted keys, two-space indent, UTF-8, final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
