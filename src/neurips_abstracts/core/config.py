"""Frozen configuration of a build: everything that decides the output bytes besides raw/."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NearDupConfig:
    """How revised abstracts are recognised as the same paper.

    Case-folded word 3-gram shingles (``dedup`` explains the choice, ``benchmarks/near_dup.py``
    measures it). Candidates come from MinHash LSH, 32 bands x 4 rows = 128 permutations, which
    makes a pair at similarity 0.6 a candidate with probability 1 - (1 - 0.6^4)^32 = 0.988 and
    one at 0.7 with 0.99995; only candidate pairs whose *exact* Jaccard similarity is at least
    ``threshold`` are merged.
    """

    shingle_size: int = 3
    num_perm: int = 128
    bands: int = 32
    rows: int = 4
    threshold: float = 0.6
    seed: int = 20261129
    library: str = "rensa"
    algorithm: str = "RMinHash"

    def __post_init__(self) -> None:
        if self.bands * self.rows != self.num_perm:
            raise ValueError(f"bands x rows ({self.bands} x {self.rows}) must equal num_perm ({self.num_perm})")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")
        if self.shingle_size < 1:
            raise ValueError("shingle_size must be at least 1")


@dataclass(frozen=True)
class BuildConfig:
    """What a build expects of its input and how it deduplicates.

    ``venue`` and ``year`` are the one place that says which paper list this project holds: a dump
    whose header names another venue or year is refused.
    """

    venue: str = "NeurIPS"
    year: int = 2026
    near_dup: NearDupConfig = field(default_factory=NearDupConfig)
    parquet_compression: str = "zstd"
    parquet_compression_level: int = 3
    # Row groups are cut by bytes, not rows, as the Hub's writers do (`datasets` aims at about
    # 100 MB; the dataset viewer reads at most 300 MB a request): a row group holds as many rows
    # as fit in ``parquet_row_group_bytes`` of uncompressed data, measured row by row
    # (``write.row_group_bounds``), whatever the abstracts' lengths.
    parquet_row_group_bytes: int = 100 * 2**20
    # Tables are sharded as the Hub shards them (`datasets` aims at 500 MB a file): a shard holds
    # as many whole row groups as fit in ``parquet_shard_bytes`` of uncompressed data, so no
    # file passes it, and is named train-0000i-of-0000n.parquet.
    parquet_shard_bytes: int = 500 * 2**20
    # Rows read from the spool at a time while streaming the occurrences table (memory only: the
    # row groups written are cut by bytes).
    parquet_batch_rows: int = 100_000
    # A page index on every column chunk lets readers (the Hub's viewer) read inside a row group.
    parquet_page_index: bool = True
    # Content-defined chunking of data pages (pyarrow's ``use_content_defined_chunking``, as
    # `datasets` writes): page boundaries follow the values, not their positions, so rows
    # inserted or changed move only the pages around them, and Xet storage re-sends only those.
    # The sizes are pyarrow's and `datasets`' defaults (bytes of a column's values per page).
    parquet_cdc_min_chunk_size: int = 256 * 1024
    parquet_cdc_max_chunk_size: int = 1024 * 1024
    parquet_cdc_norm_level: int = 0

    @property
    def header(self) -> str:
        return f"{self.venue} {self.year} 论文列表"

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


DEFAULT_CONFIG = BuildConfig()

# The largest dump a build reads (validate's `size` error): over this, it is no paper list.
MAX_DUMP_BYTES = 64 * 2**20
