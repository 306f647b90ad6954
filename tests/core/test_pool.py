"""Worker processes (``core.pool.Workers``): the same release for any number of them, under spawn
(the start method of macOS and Windows), and a bad dump prepared in a worker reported as without one."""

import functools
import multiprocessing
import os
import threading

import pytest

from neurips_abstracts import build as build_module
from neurips_abstracts.build import build
from neurips_abstracts.build.stages import parse as parse_stage, read as read_stage, render as render_stage
from neurips_abstracts.core import pool as pool_module
from neurips_abstracts.core.config import MAX_WORKERS, POOL_MIN_BYTES
from neurips_abstracts.core.errors import DumpError
from neurips_abstracts.core.stages import no_timer

from tests.helpers import make_dump, snapshot, synthetic_dumps


@pytest.fixture
def spawned(monkeypatch):
    """Builds whose workers are spawned, for builds of any size; the list of the pools started."""
    started = []
    real_start = pool_module.Workers.start

    def start(self, nbytes):
        pool = real_start(self, nbytes)
        if pool is not None and pool not in started:
            started.append(pool)
        return pool

    monkeypatch.setattr(pool_module.Workers, "start", start)
    monkeypatch.setattr(build_module, "Workers", functools.partial(
        pool_module.Workers, mp_context=multiprocessing.get_context("spawn"), min_bytes=0))
    return started


def test_same_bytes_for_one_and_two_workers_and_any_listing_order(tmp_path, monkeypatch, spawned):
    from neurips_abstracts.dedup import near_duplicates

    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    # Many small sketching and rendering tasks, so that results taken out of order would show.
    monkeypatch.setattr(render_stage, "RENDER_CHUNK", 7)
    monkeypatch.setattr(near_duplicates, "_SKETCH_CHARS", 2_000)
    build(raw, tmp_path / "one", previous=None, workers=1)
    assert spawned == []  # one worker: all in this process
    alone = snapshot(tmp_path / "one")
    from neurips_abstracts.ingest import load

    real_paths = load.dump_paths
    for k, listed in enumerate((real_paths, lambda folder: real_paths(folder)[::-1])):
        monkeypatch.setattr(load, "dump_paths", listed)
        build(raw, tmp_path / f"two{k}", previous=None, workers=2)
        assert len(spawned) == k + 1  # a pool prepared the dumps
        assert snapshot(tmp_path / f"two{k}") == alone


def test_cli_workers_option(tmp_path, spawned):
    """``build --workers 2`` runs a pool and writes what one process writes; 0 is refused."""
    from tests.helpers import run_cli

    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    for workers in ("1", "2"):
        proc = run_cli("build", "--raw", str(raw), "--out", str(tmp_path / workers), "--first-release", "--workers", workers)
        assert proc.returncode == 0, proc.stderr
    assert len(spawned) == 1  # the build with two workers ran a pool
    assert snapshot(tmp_path / "1") == snapshot(tmp_path / "2")
    refused = run_cli("build", "--raw", str(raw), "--out", str(tmp_path / "0"), "--workers", "0")
    assert refused.returncode == 2 and "--workers" in refused.stderr and not (tmp_path / "0").exists()


def test_small_builds_start_no_pool(tmp_path, monkeypatch):
    workers = pool_module.Workers(2)
    assert workers.start(POOL_MIN_BYTES - 1) is None
    assert pool_module.Workers(1).start(POOL_MIN_BYTES) is None
    try:
        assert workers.start(POOL_MIN_BYTES) is not None  # the executor starts its processes on first use
    finally:
        workers.close()
    for n in (0, MAX_WORKERS + 1):
        with pytest.raises(ValueError, match="workers must be from 1"):
            pool_module.Workers(n)
    started = []
    real_start = pool_module.Workers.start
    monkeypatch.setattr(pool_module.Workers, "start", lambda self, nbytes: started.append(nbytes) or real_start(self, nbytes))
    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", None)  # a pool started here would fail
    build(raw, tmp_path / "dist", previous=None, workers=2)
    assert started and max(started) < POOL_MIN_BYTES


def _die(*args, **kwargs):
    os._exit(1)  # as a worker killed by the system would


def test_a_worker_that_dies_is_reported_with_its_dump(tmp_path, monkeypatch, spawned):
    """A worker killed (out of memory, say) breaks the pool: the user is told which dump and what
    to do, in one line, not an internal error."""
    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    monkeypatch.setattr(parse_stage, "prepare_dump", _die)
    with pytest.raises(DumpError, match="a worker process stopped while preparing this dump or one after it") as caught:
        build(raw, tmp_path / "dist", previous=None, workers=2)
    assert caught.value.file == sorted(p.name for p in raw.glob("*.txt"))[0]
    assert "--workers" in str(caught.value) and not (tmp_path / "dist").exists()


def _die_in_a_worker(*args, **kwargs):
    if multiprocessing.parent_process() is None:  # in the build's own process: the work was not sent out
        raise AssertionError("this work should run in a worker process")
    os._exit(1)


@pytest.mark.parametrize("module, function, doing", [
    ("render", "render_many", "rendering the plain text"),
    ("near_duplicates", "sketch", "sketching the texts"),
])
def test_the_pool_sketches_and_renders_and_a_death_there_is_reported(tmp_path, monkeypatch, spawned, module,
                                                                    function, doing):
    """After the dumps, the same workers sketch the distinct texts for the near-duplicate search
    and render the plain text: a worker that dies there is reported in one line naming the raw
    folder and what to do."""
    from neurips_abstracts.dedup import near_duplicates

    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    monkeypatch.setattr({"render": render_stage, "near_duplicates": near_duplicates}[module], function, _die_in_a_worker)
    with pytest.raises(DumpError, match=f"a worker process stopped while {doing} .*--workers") as caught:
        build(raw, tmp_path / "dist", previous=None, workers=2)
    assert caught.value.file == str(raw) and not (tmp_path / "dist").exists()


def _square(x: int) -> int:
    return x * x


def _pid(_) -> int:
    return os.getpid()


def _die_on_five(x: int) -> int:
    if x == 5:
        os._exit(1)
    return x


def test_a_death_while_tasks_are_still_sent_is_reported_in_one_line():
    """A worker dies while this process is busy with an earlier result: sending the next task
    fails, and that is reported in its turn as the same one line, after the results before it."""
    import time

    workers = pool_module.Workers(2, mp_context=multiprocessing.get_context("spawn"), min_bytes=0, folder="the-raw")
    got = []
    try:
        workers.start(0)
        with pytest.raises(DumpError, match="a worker process stopped while counting .*--workers") as caught:
            for x in workers.map(_die_on_five, range(40), "counting"):
                got.append(x)
                time.sleep(0.2)  # the pool breaks meanwhile
    finally:
        workers.close()
    assert caught.value.file == "the-raw" and got == list(range(len(got))) and len(got) <= 5


def test_map_gives_results_in_order_from_the_pool_or_this_process():
    items = list(range(11))  # more than the tasks kept in flight
    assert list(pool_module.Workers(2).map(_square, items, "squaring")) == [x * x for x in items]  # no pool started
    workers = pool_module.Workers(2, mp_context=multiprocessing.get_context("spawn"), min_bytes=0)
    try:
        workers.start(0)
        assert list(workers.map(_square, items, "squaring")) == [x * x for x in items]
        assert os.getpid() not in set(workers.map(_pid, items, "asking"))
    finally:
        workers.close()


def test_the_first_bad_dump_in_added_order_is_reported_from_a_worker(tmp_path, spawned):
    """Dumps are prepared ahead in the workers; the error raised is the one a single process
    meets first, naming its file and line, and the release is not written."""
    raw = tmp_path / "raw"
    raw.mkdir()
    good = [f"Abstract {k} about learning with enough words to be one." for k in range(20)]
    names = [f"{k:03d}_{k + 10:016x}.txt" for k in range(4)]
    (raw / names[0]).write_bytes(make_dump(good))
    (raw / names[1]).write_bytes(make_dump(good[:3] + ["\x08\x07"] + good[3:]))  # no visible text, line 9
    (raw / names[2]).write_bytes(make_dump(good[:1]) + b"\n\nbad \xff byte")  # prepared meanwhile
    (raw / names[3]).write_bytes(make_dump(good[5:]))
    errors = []
    for workers in (1, 2):
        with pytest.raises(DumpError) as caught:
            build(raw, tmp_path / "dist", previous=None, workers=workers)
        errors.append((caught.value.file, caught.value.line, caught.value.code, str(caught.value)))
    assert errors[0] == errors[1], errors
    assert len(spawned) == 1
    assert errors[0][:2] == (names[1], 9) and "no visible text" in errors[0][3]
    assert not (tmp_path / "dist").exists()


class _Made:
    """A result that notes, when unpickled, whether that happens in the main thread."""

    in_main_thread: list[bool] = []

    def __reduce__(self):
        return (_made, ())


def _made():
    _Made.in_main_thread.append(threading.current_thread() is threading.main_thread())
    return _Made()


def _prepare_made(*args):
    return _Made()


def test_results_from_workers_are_unpickled_in_the_main_thread(monkeypatch):
    """The executor reads results in a thread of its own: strings unpickled there stay in that
    thread's malloc arena, which this thread never reuses. The pool must hand its results to
    the main thread as bytes; the plain executor, as a control, does not."""

    from neurips_abstracts.core.config import DEFAULT_CONFIG

    workers = pool_module.Workers(2, mp_context=multiprocessing.get_context("spawn"), min_bytes=0)
    try:
        pool = workers.start(0)
        monkeypatch.setattr(_Made, "in_main_thread", [])
        pool.submit(_prepare_made).result()
        assert _Made.in_main_thread == [False]  # the control: the executor's thread

        monkeypatch.setattr(_Made, "in_main_thread", [])
        monkeypatch.setattr(parse_stage, "prepare_dump", _prepare_made)
        prepared = list(parse_stage._prepared(read_stage.ordered([("a.txt", b"x"), ("b.txt", b"y")]).files,
                                              DEFAULT_CONFIG, workers, 0, no_timer))
        assert [type(p) for _, p in prepared] == [_Made, _Made] and _Made.in_main_thread == [True, True]
    finally:
        workers.close()


def _interrupt_handler(_) -> object:
    import signal

    return signal.getsignal(signal.SIGINT)


def test_workers_leave_ctrl_c_to_the_build():
    """Ctrl-C reaches every process of the group; only the build's own handles it (and stops
    the pool). The workers ignore it, under either start method; this process keeps its own."""
    import signal

    for context in (None, multiprocessing.get_context("spawn")):
        workers = pool_module.Workers(2, mp_context=context, min_bytes=0)
        try:
            workers.start(0)
            assert set(workers.map(_interrupt_handler, range(6), "asking")) == {signal.SIG_IGN}
        finally:
            workers.close()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


_INTERRUPTED = """
import sys, time
from neurips_abstracts.core.pool import Workers
from tests.helpers import pid_after_a_moment
workers = Workers(2, min_bytes=0)
workers.start(0)
try:
    pids = set()
    while len(pids) < 2:
        pids |= set(workers.map(pid_after_a_moment, range(4), "asking"))
    open(sys.argv[1], "w").close()
    time.sleep(120)
except KeyboardInterrupt:
    print("interrupted", flush=True)
finally:
    workers.close()
"""


@pytest.mark.skipif(os.name == "nt", reason="Ctrl-C to a process group is POSIX's")
def test_ctrl_c_stops_the_build_without_a_worker_traceback(tmp_path):
    """Ctrl-C in a terminal interrupts every process of the group. Once both workers have
    worked and wait for more, the group is interrupted: the build's process stops the pool, and
    no worker dies printing a traceback of its own."""
    import signal
    import subprocess
    import sys
    import time

    from tests.helpers import ROOT

    ready = tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-c", _INTERRUPTED, str(ready)], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120  # a guard against hanging, not a measure
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert out == "interrupted\n" and "Traceback" not in err and child.returncode == 0, err


def _large(n: int) -> list[str]:
    return [f"{k:07d}" * 16 for k in range(n)]


def test_results_cross_the_executor_as_short_file_names():
    """A worker's result travels as the name of a file it wrote: a message short enough for one
    atomic pipe write, so a worker killed while sending cannot leave the executor waiting for
    the rest. The result read back is whole, its file is removed when taken, and the results
    never taken are removed when the pool closes."""
    import pickle

    workers = pool_module.Workers(2, min_bytes=0)
    try:
        workers.start(0)
        folder = workers.results
        future = workers.submit(_large, 40_000)  # some 4.5 MB pickled
        sent = future.result()
        assert isinstance(sent, str) and len(pickle.dumps(sent)) < 512  # POSIX's least atomic pipe write
        assert pool_module._result(future) == _large(40_000) and not os.path.exists(sent)
        untaken = [workers.submit(_large, 10) for _ in range(3)]
        from neurips_abstracts.core.guard import OWNER  # the folder's own lock of its owner (guard.temporary_folder)

        assert len({f.result() for f in untaken}) == 3 and len(set(os.listdir(folder)) - {OWNER}) == 3
    finally:
        workers.close()
    assert not folder.exists()


def _started_then_done(folder) -> None:
    import time

    (folder / "started").touch()
    time.sleep(1)
    (folder / "done").touch()


def _busy_workers(tmp_path):
    """A pool whose worker has started a task that takes a second; the pool and that task."""
    import time

    workers = pool_module.Workers(2, min_bytes=0)
    workers.start(0)
    future = workers.submit(_started_then_done, tmp_path)
    deadline = time.monotonic() + 120  # a guard against hanging, not a measure
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return workers, future


def _ended_unfinished(tmp_path, future) -> bool:
    """Whether the task was ended before it finished: it never finishes, even given its time."""
    import time

    if (tmp_path / "done").exists():
        return False
    time.sleep(1.5)
    return not (tmp_path / "done").exists() and future.done()


def test_a_failed_build_ends_its_workers_without_waiting(tmp_path):
    """``close(stop=True)`` (a build that failed or was interrupted) ends the workers at once,
    not after their tasks, and removes the results folder."""
    workers, future = _busy_workers(tmp_path)
    folder = workers.results
    workers.close(stop=True)
    assert _ended_unfinished(tmp_path, future) and not folder.exists()


def test_an_interrupted_close_ends_the_workers(tmp_path, monkeypatch):
    """A second Ctrl-C while the pool is shutting down: the workers, which ignore Ctrl-C, are
    ended before the interrupt goes on, so nothing is left waiting for them."""
    workers, future = _busy_workers(tmp_path)
    folder, pool = workers.results, workers.pool
    real_shutdown = pool.shutdown

    def interrupted(*args, wait=True, **kwargs):
        if wait:  # the interrupt comes while close waits
            raise KeyboardInterrupt
        return real_shutdown(*args, wait=wait, **kwargs)

    monkeypatch.setattr(pool, "shutdown", interrupted)
    with pytest.raises(KeyboardInterrupt):
        workers.close()
    assert _ended_unfinished(tmp_path, future) and not folder.exists()
    real_shutdown()
