"""Map a pure function over many items on every core, keeping the order of the results.

Output bytes never depend on how many processes ran, nor on how they were started: results come
back in input order and each item's result depends on that item alone. Small inputs stay in this
process, where starting workers would cost more than it saves.

Two ways to start the workers (``start_method``), giving the same bytes:

* **fork** (the default on Linux): the workers *inherit* their input instead of receiving it.
  The items (and any ``shared`` object) are set aside in this module just before the fork, and
  each worker is told only which slice is its own: sending a million abstracts through a pipe
  would cost seconds, inheriting them costs nothing. Large numeric results are written straight
  into anonymous memory shared with this process (``map_into_shared``).
* **spawn** (the default elsewhere: Windows has no fork, and macOS's system libraries do not
  survive one): each worker is a new interpreter that imports this package. It receives its
  chunk of items pickled, the ``shared`` object once, with its large numpy arrays placed in named
  shared memory (``multiprocessing.shared_memory``) instead of being copied through the pipe, and
  writes ``map_into_shared``'s results into another such block. The workers never import the
  caller's ``__main__`` script, so a script without the ``if __name__ == "__main__"`` guard works
  (the functions mapped must therefore live in an importable module, as all of this package's do).

NEURIPS_ABSTRACTS_START_METHOD=fork|spawn overrides the default (the tests force spawn on Linux).
NEURIPS_ABSTRACTS_PARALLEL_FROM=N sends every stage to the workers from N items on, whatever
the stage's own threshold (the tests reach every parallel path with a small input that way).
"""

from __future__ import annotations

import io
import mmap
import multiprocessing
import multiprocessing.context
import os
import pickle
import sys
import threading
import types
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import shared_memory
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
R = TypeVar("R")

START_METHODS = ("fork", "spawn")


class _Nothing:
    def __reduce__(self):  # unpickles as the one _NOTHING of the worker's module
        return "_NOTHING"


_NOTHING = _Nothing()
# What the workers of the running pool read their input from: (items, context), where context
# is ``shared`` for map_chunks and the output array for map_into_shared. Set just before the
# fork in the parent, or by the initializer in a spawned worker (items None: chunks are sent).
_inherited: tuple = ()
_fork_lock = threading.Lock()  # one pool forks at a time, so each inherits its own input
_SEND_BY_NAME = 1 << 20  # numpy arrays from this many bytes reach spawned workers in shared memory
_attached: list[shared_memory.SharedMemory] = []  # blocks a spawned worker keeps open for its life


def workers() -> int:
    """Processes to use: NEURIPS_ABSTRACTS_WORKERS if set, else the cores this process may use."""
    env = os.environ.get("NEURIPS_ABSTRACTS_WORKERS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def start_method() -> str:
    """NEURIPS_ABSTRACTS_START_METHOD if set, else fork on Linux (faster: nothing is copied, and
    the workers start without importing anything) and spawn elsewhere."""
    method = os.environ.get("NEURIPS_ABSTRACTS_START_METHOD") or ("fork" if sys.platform.startswith("linux") else "spawn")
    if method not in START_METHODS or method not in multiprocessing.get_all_start_methods():
        available = [m for m in START_METHODS if m in multiprocessing.get_all_start_methods()]
        raise ValueError(f"NEURIPS_ABSTRACTS_START_METHOD={method!r}: this system offers {', '.join(available)}")
    return method


def _parallel(n_items: int, min_items: int) -> bool:
    env = os.environ.get("NEURIPS_ABSTRACTS_PARALLEL_FROM")
    return workers() > 1 and n_items >= (int(env) if env else min_items)


def _call(fn: Callable, chunk, shared) -> Any:
    return fn(chunk) if shared is _NOTHING else fn(chunk, shared)


def _chunk(part) -> Any:
    """A worker's items: its slice of the inherited items (fork), or the chunk it was sent (spawn)."""
    return _inherited[0][part] if isinstance(part, slice) else part


def _apply(fn: Callable, part) -> Any:
    return _call(fn, _chunk(part), _inherited[1])


def map_chunks(
    fn: Callable[..., list[R]],
    items: Sequence[T],
    min_items: int,
    chunks_per_worker: int = 4,
    interleave: bool = False,
    shared: Any = _NOTHING,
) -> list[R]:
    """``fn(chunk)`` (or ``fn(chunk, shared)``) maps a chunk of items to a list of results;
    returns all results in order.

    Below ``min_items`` items (about a second of work) everything runs in this process. With
    ``interleave``, chunk k takes items k, k + K, k + 2K, ...: cheap and costly items then spread
    evenly over the workers wherever they sit in the input. ``shared`` reaches the workers by
    inheritance (fork) or once per worker (spawn), never once per chunk.
    """
    if not _parallel(len(items), min_items):
        return _call(fn, items, shared)
    n = workers()
    k = n * chunks_per_worker
    if interleave:
        parts = _run(fn, items, [slice(i, None, k) for i in range(k)], n, shared)
        out: list = [None] * len(items)
        for i, part in enumerate(parts):
            out[i::k] = part
        return out
    size = -(-len(items) // k)
    parts = _run(fn, items, [slice(i, i + size) for i in range(0, len(items), size)], n, shared)
    return [r for part in parts for r in part]


class _SpawnProcess(multiprocessing.context.SpawnProcess):
    @staticmethod
    def _Popen(process_obj):
        # multiprocessing makes a spawned child import the parent's __main__ script, which
        # would run a caller's unguarded script again in every worker. The workers need only
        # this package, so the child is told of no main module at all.
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            return multiprocessing.context.SpawnProcess._Popen(process_obj)
        finally:
            sys.modules["__main__"] = main


class _SpawnContext(multiprocessing.context.SpawnContext):
    Process = _SpawnProcess


def _open_block(name: str) -> shared_memory.SharedMemory:
    if sys.version_info >= (3, 13):  # only the creator tracks (and removes) the block
        return shared_memory.SharedMemory(name=name, track=False)
    return shared_memory.SharedMemory(name=name)


def _attach(name: str, shape: tuple, dtype: np.dtype) -> np.ndarray:
    block = _open_block(name)
    _attached.append(block)
    return np.ndarray(shape, dtype, buffer=block.buf)


class _Blocks:
    """Named shared memory blocks made by this process for one pool, removed when it is done."""

    def __init__(self):
        self.blocks: list[shared_memory.SharedMemory] = []
        self.arrays: list[np.ndarray] = []  # kept alive, so that no other array takes their id
        self.named: dict[int, tuple] = {}  # id of an array backed by a block -> how to attach it

    def array(self, count: int, dtype: np.dtype) -> np.ndarray:
        block = shared_memory.SharedMemory(create=True, size=max(1, count * dtype.itemsize))
        self.blocks.append(block)
        array = np.ndarray((count,), dtype, buffer=block.buf)
        self.arrays.append(array)
        self.named[id(array)] = (block.name, array.shape, array.dtype)
        return array

    def pack(self, obj) -> bytes:
        """``obj`` pickled, its large numpy arrays copied into blocks and pickled by name."""
        blocks = self

        class Pickler(pickle.Pickler):
            def reducer_override(self, o):
                if type(o) is not np.ndarray or o.dtype.hasobject:
                    return NotImplemented
                if id(o) in blocks.named:
                    return _attach, blocks.named[id(o)]
                if o.nbytes < _SEND_BY_NAME:
                    return NotImplemented
                copy = blocks.array(o.size, o.dtype)
                copy[:] = o.reshape(-1)
                return _attach, (blocks.named[id(copy)][0], o.shape, o.dtype)

        out = io.BytesIO()
        Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
        return out.getvalue()

    def close(self) -> None:
        self.named.clear()
        self.arrays.clear()
        for block in self.blocks:
            try:
                block.close()
            except BufferError:  # a caller still holds a view: the mapping goes with it
                pass
            block.unlink()
        self.blocks.clear()


def _receive(payload: bytes) -> None:
    global _inherited
    _inherited = (None, pickle.loads(payload))


def _run(
    fn: Callable,
    items: Sequence,
    parts: list[slice],
    n: int,
    context: Any,
    task: Callable = _apply,
    args: tuple = (),
    on_result: Callable[[int, Any], None] | None = None,
    blocks: _Blocks | None = None,
) -> list:
    """Results of ``task(fn, part, *args)`` for every part, in order; ``on_result(k, result)``
    is called in this process as each part's result arrives, while the others still run.
    ``context`` is what the task reads besides its items; ``blocks`` holds the shared memory
    already made for it (spawn)."""
    global _inherited
    results: list = [None] * len(parts)
    method = start_method()
    own = blocks is None  # blocks made here are removed here; the caller removes its own
    blocks = blocks or _Blocks()
    with _fork_lock:
        try:
            if method == "fork":
                # The workers need no importable __main__, start at once and share the parent's
                # memory. They only run pure Python and numpy (ftfy, pylatexenc, hashing), never
                # the threaded libraries of the parent.
                pool_args = {"mp_context": multiprocessing.get_context("fork")}
                sent = parts
                _inherited = (items, context)
            else:
                pool_args = {"mp_context": _SpawnContext(), "initializer": _receive, "initargs": (blocks.pack(context),)}
                sent = [items[p] for p in parts]
            with ProcessPoolExecutor(max_workers=min(n, len(parts)), **pool_args) as pool:
                # With fork, all workers are forked at the first submission, while _inherited is set.
                futures = {pool.submit(task, fn, part, *(a[k] for a in args)): k for k, part in enumerate(sent)}
                for future in as_completed(futures):
                    k = futures[future]
                    results[k] = future.result()
                    if on_result is not None:
                        on_result(k, results[k])
        finally:
            _inherited = ()
            if own:
                blocks.close()
    return results


def _apply_into(fn: Callable, part, start: int, room: int) -> tuple[int, np.ndarray]:
    values, counts = fn(_chunk(part))
    if len(values) > room:
        raise RuntimeError(f"{len(values)} values for a chunk with room for {room}: capacity is not an upper bound")
    _inherited[1][start : start + len(values)] = values
    return len(values), counts


def map_into_shared(
    fn: Callable[[Sequence[T]], tuple[np.ndarray, np.ndarray]],
    items: Sequence[T],
    capacity: np.ndarray,
    dtype: np.dtype,
    min_items: int,
    chunks_per_worker: int = 1,
    on_chunk: Callable[[np.ndarray, np.ndarray], R] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[R]]:
    """``fn(chunk)`` returns (values, counts): a flat array and how many of its values belong to
    each item. Returns the same for all items, in order, and the result of ``on_chunk(values,
    counts)`` for each chunk, in order.

    ``capacity`` is the most values an item can have. Each worker writes its values straight
    into memory shared with this process, at the start of its chunk's room; the chunks are then
    moved together in place. Nothing but the counts is copied through a pipe. ``on_chunk`` runs
    here on each chunk's output as soon as it is written, while the workers go on with the next
    chunks (it must not keep the arrays it is given).
    """
    if not _parallel(len(items), min_items):
        values, counts = fn(items)
        return values, counts, ([on_chunk(values, counts)] if on_chunk else [])
    n = workers()
    k = n * chunks_per_worker
    size = -(-len(items) // k)
    parts = [slice(i, min(i + size, len(items))) for i in range(0, len(items), size)]
    dtype = np.dtype(dtype)
    room = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(np.asarray(capacity, dtype=np.int64), out=room[1:])
    total = int(room[-1])
    blocks = _Blocks()
    if start_method() == "fork":
        # Anonymous shared memory: inherited by the forked workers, not limited by /dev/shm's
        # size; pages never written are never allocated.
        buffer = mmap.mmap(-1, max(1, total * dtype.itemsize))
        everything = np.frombuffer(buffer, dtype=dtype, count=total)
    else:
        buffer = None
        everything = blocks.array(total, dtype)
    starts = [int(room[p.start]) for p in parts]
    extra: list = [None] * len(parts)
    sent: list = [None] * len(parts)

    def arrived(c: int, result: tuple[int, np.ndarray]) -> None:
        sent[c] = result
        if on_chunk is not None:
            extra[c] = on_chunk(everything[starts[c] : starts[c] + result[0]], result[1])

    try:
        _run(fn, items, parts, n, everything, task=_apply_into,
             args=(starts, [int(room[p.stop]) - int(room[p.start]) for p in parts]), on_result=arrived, blocks=blocks)
        end = 0
        for start, (count, _) in zip(starts, sent):
            if start != end:  # close the gap left after the previous chunk
                everything[end : end + count] = everything[start : start + count].copy()
            end += count
        if buffer is not None:
            _release(buffer, end * dtype.itemsize)
            values = everything[:end]
        else:
            values = everything[:end].copy()  # the block is removed below
    finally:
        del everything
        blocks.close()
    return values, np.concatenate([counts for _, counts in sent]), extra


def _release(buffer: mmap.mmap, keep: int) -> None:
    """Give the pages of ``buffer`` past its first ``keep`` bytes back to the system."""
    page = mmap.PAGESIZE
    start = -(-keep // page) * page
    if start < len(buffer) and hasattr(mmap, "MADV_REMOVE"):
        buffer.madvise(mmap.MADV_REMOVE, start, len(buffer) - start)
