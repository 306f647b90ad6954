"""The occurrences table of a build, one row per raw record, produced a row group at a time.

The raw text of every record, the one large per-record column, is spooled as each dump is done
(in memory up to a bound, then to an unnamed temporary file) and read back a row group at a time
when the table is checked and written; every other column is derived from a few integers per
record.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

RELATIONS = ("canonical", "exact_duplicate", "near_duplicate")
# Per-record columns kept in memory (a few bytes a record); text_raw goes to the spool.
POSITIONS = ("record_index", "line_start", "line_end", "byte_start", "byte_end")


class Spool:
    """The raw text of every record, a dump at a time, read back in order: the one per-record
    column too large to keep in memory. Held in memory up to ``max_memory`` bytes (a build of
    a few dumps writes and reads no file); past it, all of it goes to an unnamed temporary file
    (Arrow IPC). Not compressed: LZ4 took three times as long to write as the plain bytes and was
    slower to read back, for a file that lives no longer than the build (about the size of the
    dumps)."""

    def __init__(self, max_memory: int = 256 << 20):
        self.max_memory = max_memory
        self._held: list[pa.Array] | None = []  # None once spilled to the file
        self._nbytes = 0
        # Any: pyarrow ships no types; both are set together when the spool spills to its file
        self._file: Any = None
        self._writer: Any = None
        self._helper: ThreadPoolExecutor | None = None  # writes to the file, once spilled
        self._pending: Future | None = None  # the write in the helper thread
        self._schema = pa.schema([("text_raw", pa.string())])
        self.rows = 0
        self.closed = False
        # The build reads the spool in a thread of its own, and closes it in another when it
        # stops early: a read and the close never overlap.
        self._lock = threading.Lock()

    def _spill(self) -> None:
        self._file = tempfile.TemporaryFile()
        self._writer = pa.ipc.new_file(pa.PythonFile(self._file, mode="w"), self._schema)
        held, self._held = self._held or [], None
        for texts in held:  # spilled once, from memory
            self._write(texts)

    def _write(self, texts: pa.Array) -> None:
        """Write ``texts`` to the file in a helper thread: the file's write runs outside the GIL
        while the build parses the next dump. One write at a time, in order: the one before is
        waited for first, and its error raised here."""
        self._wait()
        if self._helper is None:
            self._helper = ThreadPoolExecutor(1, thread_name_prefix="spool")
        self._pending = self._helper.submit(self._writer.write_batch, pa.record_batch([texts], schema=self._schema))

    def _wait(self) -> None:
        """Wait for the write in the helper thread, if any; its error is raised here."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def append(self, data: bytes, start: np.ndarray, end: np.ndarray) -> None:
        """Spool the raw texts ``data[start[k]:end[k]]`` of one dump (increasing, disjoint
        spans of valid UTF-8) as one string array: the spans' bytes joined (a copy per span, no
        Python string) and their offsets (Arrow's take over records and gaps cost four times more)."""
        n = len(start)
        body = b"".join(map(memoryview(data).__getitem__, map(slice, start.tolist(), end.tolist())))
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(end - start, out=offsets[1:])
        if offsets[-1] < 2**31:  # the spool's type, string, has 32-bit offsets
            texts = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(body)])
        else:  # the cast fails loudly
            texts = pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(body)]).cast(pa.string())
        self.rows += n
        if self._held is not None:
            self._nbytes += texts.nbytes
            self._held.append(texts)
            if self._nbytes > self.max_memory:
                self._spill()
        else:
            self._write(texts)

    def finish(self, failed: bool = False) -> None:
        """Finish the file: the last write waited for (its error raised, unless the build
        ``failed`` already: then that error is the one to report), the file's footer written."""
        try:
            self._wait()
        except Exception:
            if not failed:
                raise
        finally:
            if self._helper is not None:
                self._helper.shutdown()
                self._helper = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _batches(self) -> Iterator[pa.Array]:
        with self._lock:  # never held while the caller has a batch (a close must not wait for it)
            self.finish()
            held = None if self._held is None else list(self._held)
            if held is None:
                self._file.seek(0)
                reader = pa.ipc.open_file(pa.PythonFile(self._file, mode="r"))
        if held is not None:
            yield from held
            return
        for i in range(reader.num_record_batches):
            with self._lock:
                if self.closed:
                    raise ValueError("the spool was closed while read")
                column = reader.get_batch(i).column(0)
            yield column

    def chunks(self, size: int) -> Iterator[pa.Array]:
        """text_raw in consecutive slices of ``size`` rows (the last may be shorter)."""
        if self.closed:
            raise ValueError("the spool is closed")
        pending: list[pa.Array] = []
        held = 0
        for column in self._batches():
            pending.append(column)
            held += len(column)
            while held >= size:
                joined = pa.concat_arrays(pending)
                rest, held = joined.slice(size), held - size
                # Rows left for the next chunk, fewer than one, are copied: a slice would keep all
                # of ``joined`` alive once its reader is done with the chunk yielded.
                pending = [rest if held >= size else pa.concat_arrays([rest])]
                chunk = joined.slice(0, size)
                del joined, rest
                yield chunk
                del chunk
        if held:
            yield pa.concat_arrays(pending)

    def close(self) -> None:
        with self._lock:
            # Closed once the spool was read (``_batches`` finished it and raised any write's
            # error) or once the build failed: a write's error then is not the one to report.
            self.finish(failed=True)
            if self._file is not None:
                self._file.close()
            self._held = [] if self._held is not None else None
            self.closed = True


def occurrence_ids(shas: pa.Array, record_index: np.ndarray) -> pa.Array:
    """``<first 16 hex digits of the dump's SHA-256>-<record index>``, one per row."""
    return pc.binary_join_element_wise(pc.utf8_slice_codeunits(shas, 0, 16), pc.cast(pa.array(record_index), pa.string()), "-")


def dense(array: pa.Array) -> pa.Array:
    """``array`` without a validity buffer when it has no nulls (``take`` allocates one): the
    in-memory size recorded in the card is that of the arrays a table of Python values makes."""
    if array.null_count or array.buffers()[0] is None:
        return array
    return pa.Array.from_buffers(array.type, len(array), [None, *array.buffers()[1:]], 0, array.offset)


@dataclass
class Occurrences:
    """The occurrences table, produced a row group at a time: the positions and versions of
    every record are in memory, their raw texts in the spool, and every other column is
    derived from the versions (their paper, relation, similarity and text hash)."""

    schema: pa.Schema
    files: pa.Array  # dump names, in added order
    shas: pa.Array  # their sha256
    dump: np.ndarray  # per record: index into files
    positions: dict[str, np.ndarray]
    version: np.ndarray
    relation: np.ndarray  # per record: index into RELATIONS
    version_paper: pa.Array
    version_similarity: np.ndarray
    version_sha: pa.Array
    spool: Spool
    _table: pa.Table | None = field(default=None, repr=False)

    @property
    def num_rows(self) -> int:
        return len(self.version)

    def _columns(self, start: int, stop: int, text_raw: pa.Array | None,
                 names: Iterable[str] | None = None) -> dict[str, pa.Array]:
        """The columns ``names`` (default: all) of rows ``start:stop``, each made only if asked for."""
        dump = pa.array(self.dump[start:stop])
        v = pa.array(self.version[start:stop])
        sha = None

        def source_sha256() -> pa.Array:
            nonlocal sha
            if sha is None:
                sha = self.shas.take(dump)
            return sha

        make: dict[str, Callable[[], pa.Array]] = {
            "occurrence_id": lambda: occurrence_ids(source_sha256(), self.positions["record_index"][start:stop]),
            "paper_id": lambda: self.version_paper.take(v),
            "relation": lambda: pa.array(RELATIONS, pa.string()).take(pa.array(self.relation[start:stop])),
            "similarity": lambda: pa.array(self.version_similarity[self.version[start:stop]]),
            "source_file": lambda: self.files.take(dump),
            "source_sha256": source_sha256,
            **{name: partial(self._position, name, start, stop) for name in POSITIONS},
            "text_raw": lambda: text_raw,
            "text_sha256": lambda: self.version_sha.take(v),
        }
        return {name: make[name]() for name in (make if names is None else names)}

    def _position(self, name: str, start: int, stop: int) -> pa.Array:
        return pa.array(self.positions[name][start:stop])

    def select(self, names: Iterable[str]) -> pa.Table:
        """The named columns of every row, text_raw excepted (it stays in the spool)."""
        names = list(names)
        cols = self._columns(0, self.num_rows, None, names)
        return pa.table({n: cols[n] for n in names}, schema=pa.schema([self.schema.field(n) for n in names]))

    def batches(self, size: int) -> Iterator[pa.RecordBatch]:
        """Every column, ``size`` rows at a time, in added order."""
        start = 0
        for text_raw in self.spool.chunks(size):
            stop = start + len(text_raw)
            cols = self._columns(start, stop, text_raw)
            yield pa.record_batch([dense(cols[n].cast(self.schema.field(n).type)) for n in self.schema.names],
                                  schema=self.schema)
            start = stop

    def to_table(self) -> pa.Table:
        """The whole table in memory (small builds and tests)."""
        if self._table is None:
            self._table = pa.Table.from_batches(list(self.batches(1 << 20)), schema=self.schema).combine_chunks()
        return self._table

    def column(self, name: str):
        return self.to_table().column(name)

    def to_pylist(self) -> list[dict]:
        return self.to_table().to_pylist()
