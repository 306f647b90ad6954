"""The parse stage: every dump parsed and normalized, a dump at a time, in added order.

Memory follows the distinct texts, not the raw records. Each dump is parsed and normalized
alone (with worker processes, the next few meanwhile); its records leave behind a few integers
each (numpy columns) and the index of their distinct normalized text (their *version*), so exact
duplicates collapse as they arrive. Their raw text, the one large per-record column, is spooled
as each dump is done (``Spool``: in memory up to a bound, then to an unnamed temporary file) and
read back a row group at a time when the occurrences table is checked and written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass

import numpy as np

from ...core.arrays import GrowingColumn
from ...core.config import BuildConfig
from ...core.memory import release_free_memory
from ...core.stages import no_timer
from ...dedup.versions import NormalizeMemo, Prepared, Versions, prepare_dump
from ...ingest.load import copy_error
from ...ingest.parse import Dump
from ...ingest.sidecar import DumpMeta
from ...ingest.unchanged import changed_while_read
from ..occurrences import POSITIONS, Spool
from .read import DumpFile, Dumps, read_ahead


@dataclass
class Parsed:
    """What the dumps leave behind once parsed and normalized, a dump at a time."""

    dumps: list[Dump]  # without their records
    meta: dict[str, DumpMeta]
    dump: np.ndarray  # per record: its dump
    positions: dict[str, np.ndarray]  # per record: the ``POSITIONS`` columns
    version: np.ndarray  # per record: its distinct normalized text
    versions: Versions
    spool: Spool  # the records' raw texts
    nbytes: int = 0  # of the dumps

    def __len__(self) -> int:
        return len(self.version)


def _prepared(files: tuple[DumpFile, ...], config: BuildConfig, stage: Callable) -> Iterator[tuple[bytes, Prepared]]:
    """Each dump read and prepared (``prepare_dump``), with its bytes, in order. The next dump is
    read and hashed in a helper thread (``read.read_ahead``) while this one is parsed."""
    args = (config.venue, config.year, POSITIONS)
    memo = NormalizeMemo()  # copies of a text are spread over the dumps
    with closing(read_ahead([file.read for file in files])) as read:
        for file in files:
            with stage("parse"):
                data, sha256 = next(read)
            yield data, prepare_dump(file.name, data, *args, stage=stage, memo=memo, sha256=sha256)


def parse(dumps: Dumps, config: BuildConfig, stage: Callable = no_timer) -> Parsed:
    """Parse and normalize every dump of ``dumps``, in their (added) order. Each dump is hashed
    again as it is parsed: one changed since the read stage checked it is refused."""
    versions, spool = Versions(), Spool()
    parsed: list[Dump] = []
    first_with_sha: dict[str, str] = {}
    dump_col = GrowingColumn(np.int32)
    positions = {name: GrowingColumn(np.int64 if name.startswith("byte") else np.int32) for name in POSITIONS}
    version_col = GrowingColumn(np.int32)
    try:
        for file, (data, prepared) in zip(dumps.files, _prepared(dumps.files, config, stage)):
            dump = prepared.dump
            with stage("parse"):
                if dump.sha256 != file.sha256:
                    raise changed_while_read(dump.name)
                other = first_with_sha.setdefault(dump.sha256, dump.name)
                if other != dump.name:
                    raise copy_error(dump.name, other)
                n = len(prepared.local)
                for k, column in enumerate(POSITIONS):
                    positions[column].extend(prepared.positions[:, k])
                dump_col.extend(np.full(n, len(parsed), dtype=np.int32))
                first = positions["byte_start"].n - n
                spool.append(data, positions["byte_start"].array()[first:], positions["byte_end"].array()[first:])
                del data
            with stage("normalize"):
                first = version_col.n
                version_col.extend(versions.add(prepared, first, dumps.crawl_rank[dump.name],
                                                positions["record_index"].array()[first:]))
            parsed.append(dump)
    except BaseException:
        spool.close()
        raise
    # The look-ups that collapsed duplicates as they arrived are done with: only the distinct
    # texts and their facts go on.
    versions.index = {}
    release_free_memory()  # those look-ups, the memo and each dump's texts: holes between the texts kept
    return Parsed(parsed, dumps.meta, dump_col.array(), {k: v.array() for k, v in positions.items()},
                  version_col.array(), versions, spool, dumps.nbytes)
