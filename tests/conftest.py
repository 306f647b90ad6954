"""Fixtures every test builds from. Tests never read the live raw/ or dist/: a contributor adds
dumps there, and the suite must pass unchanged (whether the committed dist/ and docs match raw/
is `python build_dataset.py check`'s job). Real abstracts come from the seeds' frozen copy in
tests/data/seeds; the large corpora in ../shared are read only by tests marked `corpus`, which
the default run deselects (run them with `python -m pytest -m corpus`). This file holds the
fixtures and the suite's hooks alone; what tests share besides is in tests/helpers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import CORPUS_HINT, SEED_DIR, copy_seeds, require_shared, seed_files
from tests.helpers.repo import make_repo

# Property tests are derandomized in every run, CI's and a developer's alike: each run tries the
# same examples (a fixed seed per test, no example database), so the suite cannot pass or fail by
# luck. `HYPOTHESIS_PROFILE=explore python -m pytest` searches afresh with random examples; every
# failure it finds is kept in its test as an explicit @example.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derandomized"))

_DESELECTED = pytest.StashKey[dict]()
SLOW_HINT = "python -m pytest -m slow"
# Marks the default run leaves out, and how to run them: the corpus suite needs ../shared; slow
# tests (many processes, large inputs, probabilistic checks) run in CI's second pass.
BENCH_HINT = "pip install -e '.[test,bench]' && python -m pytest -m bench"
# bench: tests of the benchmarks' baselines, which need the [bench] extra (datatrove, spaCy):
# the scheduled workflow runs them.
_SEPARATE = {"corpus": CORPUS_HINT, "slow": SLOW_HINT, "bench": BENCH_HINT}


def pytest_configure(config):
    # Ctrl-C as from a terminal: a shell that starts pytest in the background (a CI script's `&`,
    # without job control) hands it SIGINT ignored, which Python keeps and every process a test
    # starts inherits, so the tests of Ctrl-C would test nothing.
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # hf_xet reads its cache folder from the environment (HF_HOME) once per process, whatever
    # huggingface_hub's settings say: the tests' in-process uploads keep their chunks in a folder
    # of this process's own, removed at the end, never in the user's cache (a test's own process
    # is given an HF_HOME of its own).
    import tempfile

    hf_home = tempfile.mkdtemp(prefix="neurips-tests-hf-home-")
    os.environ["HF_HOME"] = hf_home
    config.add_cleanup(lambda: shutil.rmtree(hf_home, ignore_errors=True))
    config.addinivalue_line("markers", f"corpus: reads the real corpora in ../shared; run with {CORPUS_HINT}")
    config.addinivalue_line("markers", f"bench: tests of the benchmarks' baselines, which need the [bench] extra; run with {BENCH_HINT}")
    config.addinivalue_line("markers", "slow: left out of the default run: long runs (the first 30 of the id-history state machine's "
                            "200 sequences of 30 steps, timeouts waited out, a wheel installed, the release-cost benchmark's publishes) "
                            "and timing-dependent "
                            f"ones; run with {SLOW_HINT}")


def pytest_collection_modifyitems(config, items):
    # With -m the user chose; without, the corpus and slow tests stay out so that a clone
    # without ../shared runs everything else and skips nothing, in little time.
    if config.option.markexpr:
        return
    left_out = {}
    for mark in _SEPARATE:
        marked = [item for item in items if item.get_closest_marker(mark)]
        if marked:
            items[:] = [item for item in items if not item.get_closest_marker(mark)]
            config.hook.pytest_deselected(items=marked)
            left_out[mark] = len(marked)
    config.stash[_DESELECTED] = left_out


def pytest_runtest_setup(item):
    if item.get_closest_marker("corpus"):
        require_shared()


def pytest_terminal_summary(terminalreporter, config):
    for mark, n in config.stash.get(_DESELECTED, {}).items():
        terminalreporter.write_line(f"{n} {mark} tests not selected; run them with {_SEPARATE[mark]}")


@pytest.fixture(scope="session")
def seeds_dist(tmp_path_factory) -> Path:
    """A build of the seeds (not of raw/)."""
    from neurips_abstracts.build import build

    out = tmp_path_factory.mktemp("seeds") / "dist"
    build(SEED_DIR, out, previous=None)
    return out


@pytest.fixture
def raw_copy(tmp_path) -> Path:
    """A writable raw folder holding the seeds, to add or break dumps in."""
    return copy_seeds(tmp_path / "raw")


@pytest.fixture
def seed_tables(seeds_dist):
    """The seeds release's papers, occurrences and ids tables, read."""
    import pyarrow.parquet as pq

    from neurips_abstracts.core.names import data_path

    return tuple(pq.read_table(seeds_dist / data_path(t)) for t in ("papers", "occurrences", "ids"))


@pytest.fixture
def ws(tmp_path, monkeypatch):
    """A workspace: raw/ with the seeds, a release dist/ beside it, and the current folder in it."""
    from neurips_abstracts.build import build

    raw = copy_seeds(tmp_path / "raw")
    build(raw, tmp_path / "dist", previous=None)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def dist_copy(seeds_dist, tmp_path):
    """A copy of the seeds' release, to damage."""
    copy = tmp_path / "dist"
    shutil.copytree(seeds_dist, copy)
    return copy


@pytest.fixture(scope="session")
def releases(tmp_path_factory):
    """What a release says, checked on dist/ and on a release staged for another repository: the
    two seed dumps built as dist/ (the project's hub-repo) and staged for alice/x."""
    from neurips_abstracts.build import build

    tmp = tmp_path_factory.mktemp("releases")
    raw = tmp / "raw"
    raw.mkdir()
    for f in seed_files():
        shutil.copy(f, raw / f.name)
    build(raw, tmp / "dist")
    build(raw, tmp / "staged", repo_id="alice/x")
    return {"dist": tmp / "dist", "staged": tmp / "staged", "raw": raw}


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repository with two dumps added on two days (crawl dates known) and its first release."""
    return make_repo(tmp_path)


@pytest.fixture(autouse=True)
def _signal_handlers_kept():
    """Every test leaves this process's SIGINT and SIGTERM handlers as it found them: one left
    ignored would be inherited by every process a later test starts, and Ctrl-C tests would fail
    far from the cause."""
    import signal

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    after = {s: signal.getsignal(s) for s in before}
    for s, handler in before.items():
        signal.signal(s, handler)
    assert after == before, f"the test changed the signal handlers: {after}"


@pytest.fixture(scope="session", autouse=True)
def _package_published_nothing(request):
    """Outside any clone the checkout the package runs from is the package's own record, and this
    checkout's is the project's real history. Tests build projects of their own (fixtures they
    make), so the package runs in this process as one that has published nothing, unless a test
    asks for ``package_record``."""
    from neurips_abstracts.record import published as record

    request.config.stash[PACKAGE_CLONE] = record._package_clone
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record, "_package_clone", lambda: None)
        yield


PACKAGE_CLONE = pytest.StashKey()


@pytest.fixture
def package_record(request, monkeypatch):
    """The package's own record as the product reads it (``record._package_clone``: the clone of
    the checkout it runs from); a test asking for this fixture may set that checkout itself."""
    from neurips_abstracts.record import published as record

    monkeypatch.setattr(record, "_package_clone", request.config.stash[PACKAGE_CLONE])
