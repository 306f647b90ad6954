"""Map a pure function over many items on every core, keeping the order of the results.

Output bytes never depend on how many processes ran: results come back in input order and each
item's result depends on that item alone. Small inputs stay in this process, where starting
workers would cost more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")



def workers() -> int:
    """Processes to use: NEURIPS_ABSTRACTS_WORKERS if set, else the cores this process may use."""
    env = os.environ.get("NEURIPS_ABSTRACTS_WORKERS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _apply(fn: Callable[[Sequence[T]], list[R]], chunk: Sequence[T]) -> list[R]:
    return fn(chunk)


def map_chunks(
    fn: Callable[[Sequence[T]], list[R]],
    items: Sequence[T],
    min_items: int,
    chunks_per_worker: int = 4,
    interleave: bool = False,
) -> list[R]:
    """``fn`` maps a chunk of items to a list of results; returns all results in order.

    Below ``min_items`` items (about a second of work) everything runs in this process. With
    ``interleave``, chunk k takes items k, k + K, k + 2K, ...: cheap and costly items then spread
    evenly over the workers wherever they sit in the input.
    """
    n = workers()
    if n == 1 or len(items) < min_items:
        return fn(items)
    k = n * chunks_per_worker
    if interleave:
        parts = _run(fn, [items[i::k] for i in range(k)], n)
        out: list = [None] * len(items)
        for i, part in enumerate(parts):
            out[i::k] = part
        return out
    size = -(-len(items) // k)
    return [r for part in _run(fn, [items[i : i + size] for i in range(0, len(items), size)], n) for r in part]


def _run(fn, chunks: list, n: int) -> list[list]:
    # fork: the workers need no importable __main__ (a user's script without the
    # `if __name__ == "__main__"` guard still works) and start at once. They only run pure Python
    # and numpy (ftfy, pylatexenc, shingle hashing), never the threaded libraries of the parent.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=n, mp_context=context) as pool:
        return list(pool.map(_apply, [fn] * len(chunks), chunks))
