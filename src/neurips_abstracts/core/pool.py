"""The build's process pool: the standard library's executor, with what a build needs of it.

Results pass through files (``_stored``), workers ignore Ctrl-C and end with the build's process
(``_leave_interrupts``), and a failed or interrupted build ends them at once (``_end_workers``).
The stages hand it their per-record work (``Workers.submit`` and ``Workers.map``); it holds no
rule of theirs, so each task's result is a function of its input alone.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, suppress
from pathlib import Path

from .config import MAX_WORKERS, POOL_MIN_BYTES
from .errors import DumpError
from .guard import temporary_folder


class Workers:
    """Worker processes that prepare dumps (``prepare_dump``), then sketch the distinct texts
    for the near-duplicate search and render the papers' plain text (``map``): the standard
    library's executor, started only for a build of at least ``min_bytes`` of dumps, and shut
    down by the build once the plain text is rendered (meanwhile they hold what memory preparing
    the dumps left them: some 100 MB each at a million records). Each task's result is a function
    of its input alone and results are taken in input order, so the output is the same for any
    number of workers. Results come back through files of a temporary folder of ours (see
    ``_stored``), removed when the pool closes; workers ignore Ctrl-C (``_leave_interrupts``).
    ``mp_context`` (default: the platform's start method) lets tests run the pool as spawn does
    on macOS and Windows; ``folder`` (the raw folder) is named if a worker dies."""

    def __init__(self, n: int, mp_context=None, min_bytes: int = POOL_MIN_BYTES, folder: str = "raw"):
        if not 1 <= n <= MAX_WORKERS:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {n}")
        self.n, self.mp_context, self.min_bytes, self.folder, self.pool = n, mp_context, min_bytes, folder, None
        self.results: Path | None = None  # the folder the workers' results pass through
        self._results = ExitStack()

    def start(self, nbytes: int):
        """The pool (started now if need be) for work on a build of ``nbytes`` of dumps, or None
        to do the work in this process."""
        if self.pool is None and self.n > 1 and nbytes >= self.min_bytes:
            from concurrent.futures import ProcessPoolExecutor

            self.results = self._results.enter_context(temporary_folder())
            self.pool = ProcessPoolExecutor(self.n, mp_context=self.mp_context, initializer=_leave_interrupts)
        return self.pool

    def submit(self, fn: Callable, *args):
        """``fn(*args)`` sent to the pool, as a future. A task that cannot be sent (the pool is
        broken: a worker died) is a future holding that error, so it is raised in its turn."""
        try:
            return self.pool.submit(_stored, self.results, fn, *args)
        except Exception as exc:
            return failed(exc)

    def result(self, future, where: str, what: str):
        """The result of a ``submit``ted task. A worker's death is reported as a DumpError naming
        ``where`` (a dump, or the raw folder) and ``what`` the worker was doing, and what to do."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            return _result(future)
        except BrokenProcessPool:
            raise DumpError(where, f"a worker process stopped while {what} (out of memory?): "
                                   "build with fewer --workers") from None

    def map(self, fn: Callable, items: Iterable, what: str) -> Iterator:
        """``fn(item)`` of each item, in order: in the pool if the dumps were prepared in one
        (the next items meanwhile, at most two per worker in flight), else in this process.
        ``what`` (as "rendering the plain text") says what a worker that died was doing."""
        if self.pool is None:
            yield from map(fn, items)
            return
        pending: deque = deque()
        for item in items:
            pending.append(self.submit(fn, item))
            if len(pending) >= 2 * self.n:
                yield self.result(pending.popleft(), self.folder, what)
        while pending:
            yield self.result(pending.popleft(), self.folder, what)

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.close(stop=kind is not None)  # failed or interrupted: the workers are ended at once

    def close(self, stop: bool = False) -> None:
        """Shut the pool down and remove the results never taken: once the tasks running now are
        done, or, with ``stop`` (the build failed or was interrupted), at once, the workers ended
        without waiting for them. Interrupted itself (a second Ctrl-C), it ends the workers, which
        ignore Ctrl-C, before it gives way: else the pool could be left waiting for them."""
        pool, self.pool = self.pool, None
        try:
            if pool is not None:
                if stop:
                    _end_workers(pool)
                pool.shutdown(cancel_futures=True)
        except BaseException:
            if pool is not None:
                _end_workers(pool)
            raise
        finally:
            self._results.close()


def _end_workers(pool) -> None:
    """End the pool's worker processes now; the executor then finds them gone, fails what was
    pending and stops, and ``shutdown`` waits for that. (Python 3.14's ``terminate_workers``
    would shut the pool down without waiting first, so ``shutdown`` would then wait for nothing.)"""
    for process in list((pool._processes or {}).values()):  # None once shut down
        with suppress(OSError, ValueError):  # already ended, or closed
            process.terminate()


def _leave_interrupts() -> None:
    """Run in each worker as it starts: Ctrl-C is for the build's own process, which ends the
    workers (``Workers.close``); a worker interrupted too would die printing its traceback.
    SIGTERM ends a worker at once (forked, it would inherit the build's handler of it). And a
    worker ends itself when the build's process is gone, however it went (``kill -9``, the OOM
    killer): the executor would never end it, and it would live on, holding its memory (and,
    forked, the build's lock: closed here)."""
    import signal
    import threading

    from .lock import close_inherited

    close_inherited()  # forked: the build's lock is the build's alone
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_end_with_parent, name="watch-parent", daemon=True).start()


def _end_with_parent() -> None:
    import multiprocessing
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return
    wait([parent.sentinel])  # ready once the parent's end of the pipe is closed: it is gone
    os._exit(1)


def _stored(folder: Path, fn: Callable, *args) -> str:
    """``fn(*args)``, pickled by the worker process that runs it into a new file of ``folder``;
    the file's name is the task's result (see ``_result``). The executor sends results through
    one pipe shared by every worker: a worker killed while writing a large one (out of memory,
    say) would leave a message half written, which the executor then waits for forever, the
    other workers holding the pipe open. A message holding a file name is sent whole or not at
    all (one write, under the pipe's atomic size), so the executor sees the worker die and
    breaks the pool. (A task that fails still sends its error, traceback included, as it is.)"""
    fd, path = tempfile.mkstemp(dir=folder)
    with open(fd, "wb") as fh:
        pickle.dump(fn(*args), fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def failed(exc: BaseException):
    """A future that has already failed with ``exc``."""
    from concurrent.futures import Future

    future = Future()
    future.set_exception(exc)
    return future


def _result(future) -> object:
    """The result of a ``_stored`` task, read, unpickled and removed here, in the thread that
    uses it. The executor takes results in a thread of its own; unpickled there, the many strings
    of a result would be allocated in that thread's malloc arena, where the memory of those later
    freed is never reused by this thread: a large build held more memory with workers than
    without, for the rest of the build."""
    path = future.result()
    try:
        with open(path, "rb") as fh:
            return pickle.loads(fh.read())
    finally:
        with suppress(OSError):  # held a moment by a virus scanner, say: closing the pool removes it
            os.unlink(path)
