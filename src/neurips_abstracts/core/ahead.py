"""Work done beside the build's own thread, in helper threads: the near-dup stage sketches two
slices of texts, searches two LSH bands, counts two groups of Jaccard similarities at a time
(``ahead``); the build writes the papers table while the plain text is rendered (``Handoff``,
``run_in_background``). numpy's passes, rensa's signatures and Parquet's encoder run largely
outside the GIL, so a second core does them while the build's own thread runs Python code.
(The dumps are read ahead by the read stage itself: ``stages.read.read_ahead``.)

What ``ahead`` computes for each item is a function of that item alone, and results are handed
back in the order of the items, so what runs ahead changes no result, only when it is computed.
An exception is raised where the item's result is taken, as if it had been computed there; the
items not yet taken are then abandoned (those already started finish, their results unread).
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from queue import SimpleQueue
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def ahead(fn: Callable[[T], R], items: Iterable[T], depth: int = 2) -> Generator[R, None, None]:
    """``map(fn, items)``, with up to ``depth`` items computed ahead in ``depth`` threads."""
    pending: deque[Future] = deque()
    source = iter(items)
    with ThreadPoolExecutor(depth, thread_name_prefix="ahead") as pool:
        try:
            for item in source:
                pending.append(pool.submit(fn, item))
                if len(pending) >= depth:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, in hex: the one digest of a dump's bytes."""
    return hashlib.sha256(data).hexdigest()


_END, _STOP = object(), object()


class Handoff(Generic[T]):
    """Items handed by one thread to another, which takes them in order as they are made
    (iterating blocks until the next comes): the build hands the papers table's rows to its
    writer thread as the plain text renders them. ``close`` ends the iteration; ``stop``
    raises CancelledError in it (the maker failed)."""

    def __init__(self) -> None:
        self._queue: SimpleQueue = SimpleQueue()

    def put(self, item: T) -> None:
        self._queue.put(item)

    def close(self) -> None:
        self._queue.put(_END)

    def stop(self) -> None:
        self._queue.put(_STOP)

    def __iter__(self) -> Iterator[T]:
        while (item := self._queue.get()) is not _END:
            if item is _STOP:
                raise CancelledError("the build stopped")
            yield item


# A thread's niceness on Linux: the highest, so that it runs on what CPU time the others leave.
_BACKGROUND_NICENESS = 19


def run_in_background() -> None:
    """Let the calling thread run only on CPU time the process's other threads leave, where the
    system allows a thread to say so (Linux: a thread is a task with a nice value of its own;
    raising it needs no privilege). Elsewhere nothing changes: only when work runs, never what
    it computes. The build's writer of the papers table calls it: the plain text it waits for
    and the occurrences table, written meanwhile, are what the build's end waits for."""
    if sys.platform != "linux" or not hasattr(os, "setpriority"):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _BACKGROUND_NICENESS)
    except OSError:  # a sandbox may refuse it: the thread runs as it did
        pass

