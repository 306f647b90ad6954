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

MIN_PARALLEL_ITEMS = 20_000


def workers() -> int:
    """Processes to use: NEURIPS_ABSTRACTS_WORKERS if set, else the cores this process may use."""
    env = os.environ.get("NEURIPS_ABSTRACTS_WORKERS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _apply(fn: Callable[[Sequence[T]], list[R]], chunk: Sequence[T]) -> list[R]:
    return fn(chunk)


def map_chunks(fn: Callable[[Sequence[T]], list[R]], items: Sequence[T], chunk_size: int = 5_000) -> list[R]:
    """``fn`` maps a chunk of items to a list of results; returns all results in order."""
    n = workers()
    if n == 1 or len(items) < MIN_PARALLEL_ITEMS:
        return fn(items)
    chunks = [items[i : i + chunk_size] for i in range(0, len(items), chunk_size)]
    # forkserver: workers start from a clean process, not a fork of one running library threads.
    context = multiprocessing.get_context("forkserver")
    out: list[R] = []
    with ProcessPoolExecutor(max_workers=n, mp_context=context) as pool:
        for part in pool.map(_apply, [fn] * len(chunks), chunks):
            out.extend(part)
    return out
