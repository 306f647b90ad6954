"""Write dist/: deterministic bytes, swapped in only once everything is written."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.config import BuildConfig
from ..core.schema import hf_features_dict


def _parquet_options(config: BuildConfig) -> dict:
    return {
        "compression": config.parquet_compression,
        "compression_level": config.parquet_compression_level,
        "use_dictionary": True,
        "write_statistics": True,
    }


def _with_features(schema: pa.Schema, name: str) -> pa.Schema:
    # The "huggingface" key lets `datasets` load the declared features instead of guessing them.
    hf = {"info": {"features": hf_features_dict(name)}}
    return schema.with_metadata({"huggingface": json.dumps(hf, sort_keys=True)})


def write_parquet(table: pa.Table, name: str, path: Path, config: BuildConfig) -> None:
    table = table.replace_schema_metadata(_with_features(table.schema, name).metadata)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, row_group_size=config.parquet_row_group_size, **_parquet_options(config))


def write_parquet_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema, name: str, path: Path,
                          config: BuildConfig) -> tuple[int, int]:
    """Write a table that arrives a row group at a time (each batch of
    ``config.parquet_row_group_size`` rows, the last shorter): the same bytes as
    ``write_parquet`` of the whole table, without the whole table in memory. Returns (rows,
    in-memory Arrow size)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = nbytes = 0
    with pq.ParquetWriter(path, _with_features(schema, name), **_parquet_options(config)) as writer:
        for batch in batches:
            writer.write_batch(batch, row_group_size=config.parquet_row_group_size)
            rows += batch.num_rows
            nbytes += batch.nbytes
    return rows, nbytes


def dumps_json(data) -> str:
    """The one JSON style of dist/: sorted keys, two-space indent, UTF-8, final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def atomic_dir(out: Path, fill: Callable[[Path], None], **guard) -> None:
    """Call ``fill`` on a fresh folder beside ``out``, then swap it in place of ``out``, through
    the one guard of folders we replace (``guard.replace_dir``; ``guard`` are its arguments)."""
    from ..core.guard import replace_dir

    replace_dir(out, fill, **guard)
