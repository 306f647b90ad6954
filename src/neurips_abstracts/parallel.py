"""Map a pure function over many items on every core, keeping the order of the results.

Output bytes never depend on how many processes ran: results come back in input order and each
item's result depends on that item alone. Small inputs stay in this process, where starting
workers would cost more than it saves.

Workers are forked, and they *inherit* their input instead of receiving it: the items (and any
``shared`` object) are set aside in this module just before the fork, and each worker is told
only which slice is its own. Sending a million abstracts through a pipe would cost seconds;
inheriting them costs nothing, since the pages are shared until written. Large numeric results
can likewise be written straight into memory shared with this process (``map_into_shared``).
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
R = TypeVar("R")

_NOTHING = object()
_inherited: tuple = ()  # what the pool being forked inherits: its items and the rest its task needs
_fork_lock = threading.Lock()  # one pool forks at a time, so each inherits its own input


def workers() -> int:
    """Processes to use: NEURIPS_ABSTRACTS_WORKERS if set, else the cores this process may use."""
    env = os.environ.get("NEURIPS_ABSTRACTS_WORKERS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _call(fn: Callable, chunk, shared) -> Any:
    return fn(chunk) if shared is _NOTHING else fn(chunk, shared)


def _apply(fn: Callable, part: slice) -> Any:
    items, shared, _ = _inherited
    return _call(fn, items[part], shared)


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
    inheritance, never through a pipe.
    """
    n = workers()
    if n == 1 or len(items) < min_items:
        return _call(fn, items, shared)
    k = n * chunks_per_worker
    if interleave:
        parts = _run(fn, [slice(i, None, k) for i in range(k)], n, (items, shared, None))
        out: list = [None] * len(items)
        for i, part in enumerate(parts):
            out[i::k] = part
        return out
    size = -(-len(items) // k)
    parts = _run(fn, [slice(i, i + size) for i in range(0, len(items), size)], n, (items, shared, None))
    return [r for part in parts for r in part]


def _run(
    fn: Callable,
    parts: list[slice],
    n: int,
    inherited: tuple,
    task: Callable = _apply,
    args: tuple = (),
    on_result: Callable[[int, Any], None] | None = None,
) -> list:
    """Results of ``task(fn, part, *args)`` for every part, in order; ``on_result(k, result)``
    is called in this process as each part's result arrives, while the others still run."""
    global _inherited
    # fork: the workers need no importable __main__ (a user's script without the
    # `if __name__ == "__main__"` guard still works), start at once and share the parent's memory.
    # They only run pure Python and numpy (ftfy, pylatexenc, hashing), never the threaded
    # libraries of the parent.
    context = multiprocessing.get_context("fork")
    results: list = [None] * len(parts)
    with _fork_lock:
        _inherited = inherited
        try:
            with ProcessPoolExecutor(max_workers=min(n, len(parts)), mp_context=context) as pool:
                # All workers are forked at the first submission, while _inherited is set.
                futures = {pool.submit(task, fn, part, *(a[k] for a in args)): k for k, part in enumerate(parts)}
                for future in as_completed(futures):
                    k = futures[future]
                    results[k] = future.result()
                    if on_result is not None:
                        on_result(k, results[k])
        finally:
            _inherited = ()
    return results


def _apply_into(fn: Callable, part: slice, start: int, room: int) -> tuple[int, np.ndarray]:
    items, dtype, buffer = _inherited
    values, counts = fn(items[part])
    if len(values) > room:
        raise RuntimeError(f"{len(values)} values for a chunk with room for {room}: capacity is not an upper bound")
    np.frombuffer(buffer, dtype=dtype, count=len(values), offset=start * dtype.itemsize)[:] = values
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
    n = workers()
    if n == 1 or len(items) < min_items:
        values, counts = fn(items)
        return values, counts, ([on_chunk(values, counts)] if on_chunk else [])
    k = n * chunks_per_worker
    size = -(-len(items) // k)
    parts = [slice(i, min(i + size, len(items))) for i in range(0, len(items), size)]
    dtype = np.dtype(dtype)
    room = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(np.asarray(capacity, dtype=np.int64), out=room[1:])
    # Anonymous shared memory: inherited by the forked workers, not limited by /dev/shm's size;
    # pages never written are never allocated.
    buffer = mmap.mmap(-1, max(1, int(room[-1]) * dtype.itemsize))
    everything = np.frombuffer(buffer, dtype=dtype, count=int(room[-1]))
    starts = [int(room[p.start]) for p in parts]
    extra: list = [None] * len(parts)

    def arrived(c: int, sent: tuple[int, np.ndarray]) -> None:
        if on_chunk is not None:
            extra[c] = on_chunk(everything[starts[c] : starts[c] + sent[0]], sent[1])

    sent = _run(fn, parts, n, (items, dtype, buffer), task=_apply_into,
                args=(starts, [int(room[p.stop]) - int(room[p.start]) for p in parts]), on_result=arrived)
    end = 0
    for start, (count, _) in zip(starts, sent):
        if start != end:  # close the gap left after the previous chunk
            everything[end : end + count] = everything[start : start + count].copy()
        end += count
    _release(buffer, end * dtype.itemsize)
    return everything[:end], np.concatenate([counts for _, counts in sent]), extra


def _release(buffer: mmap.mmap, keep: int) -> None:
    """Give the pages of ``buffer`` past its first ``keep`` bytes back to the system."""
    page = mmap.PAGESIZE
    start = -(-keep // page) * page
    if start < len(buffer) and hasattr(mmap, "MADV_REMOVE"):
        buffer.madvise(mmap.MADV_REMOVE, start, len(buffer) - start)
