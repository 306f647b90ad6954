"""The worker pool: results in order, shared-memory outputs, the same bytes whichever way the
workers start (fork, spawn) and however many there are."""

from __future__ import annotations

import multiprocessing
import random
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from neurips_abstracts import parallel
from neurips_abstracts.build import build

from .conftest import HEADER, ROOT

METHODS = [m for m in parallel.START_METHODS if m in multiprocessing.get_all_start_methods()]


def _lengths(chunk):
    return [len(x) for x in chunk]


def _with_shared(chunk, shared):
    return [shared["offset"] + x for x in chunk]


def _lookup(chunk, table):
    return [int(table[x]) for x in chunk]


def _ragged(chunk):
    values = [np.arange(x % 5, dtype=np.uint64) + np.uint64(x) for x in chunk]
    counts = np.array([len(v) for v in values], dtype=np.int64)
    return (np.concatenate(values) if values else np.zeros(0, dtype=np.uint64)), counts


def _too_many(chunk):
    return np.zeros(len(chunk) + 1, dtype=np.uint64), np.ones(len(chunk), dtype=np.int64)


@pytest.fixture(params=METHODS)
def method(request, monkeypatch):
    """Two workers, started each way this system offers."""
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")
    monkeypatch.setenv("NEURIPS_ABSTRACTS_START_METHOD", request.param)
    return request.param


def test_spawn_is_available_everywhere_and_the_default_off_linux(monkeypatch):
    monkeypatch.delenv("NEURIPS_ABSTRACTS_START_METHOD", raising=False)
    assert "spawn" in METHODS
    assert parallel.start_method() == ("fork" if sys.platform.startswith("linux") else "spawn")
    monkeypatch.setenv("NEURIPS_ABSTRACTS_START_METHOD", "threads")
    with pytest.raises(ValueError, match="threads"):
        parallel.start_method()


@pytest.mark.parametrize("interleave", [False, True])
def test_results_in_input_order(method, interleave):
    items = ["x" * (i % 17) for i in range(1000)]
    assert parallel.map_chunks(_lengths, items, min_items=10, interleave=interleave) == [i % 17 for i in range(1000)]


def test_shared_object_reaches_every_worker(method):
    shared = {"offset": 1000}
    assert parallel.map_chunks(_with_shared, list(range(500)), min_items=10, shared=shared) == list(range(1000, 1500))


def test_large_shared_array_reaches_spawned_workers_through_shared_memory(monkeypatch):
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")
    monkeypatch.setenv("NEURIPS_ABSTRACTS_START_METHOD", "spawn")
    table = np.arange(1_000_000, dtype=np.int64)[::-2]  # 4 MB, and not contiguous in memory
    packed = []
    real_pack = parallel._Blocks.pack
    monkeypatch.setattr(parallel._Blocks, "pack", lambda self, obj: packed.append(real_pack(self, obj)) or packed[-1])
    items = list(range(0, 500_000, 7))
    assert parallel.map_chunks(_lookup, items, min_items=10, shared=table) == [int(table[x]) for x in items]
    assert len(packed[0]) < 10_000  # the array went by name, not through the pipe


@pytest.mark.skipif("fork" not in METHODS, reason="inheritance is what fork offers")
def test_forked_workers_inherit_what_cannot_be_pickled(monkeypatch):
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")
    monkeypatch.setenv("NEURIPS_ABSTRACTS_START_METHOD", "fork")
    shared = {"offset": 1000, "lock": threading.Lock()}
    assert parallel.map_chunks(_with_shared, list(range(500)), min_items=10, shared=shared) == list(range(1000, 1500))


def test_below_min_items_runs_here(method):
    calls = []
    assert parallel.map_chunks(lambda chunk: calls.append(len(chunk)) or list(chunk), [1, 2, 3], min_items=10) == [1, 2, 3]
    assert calls == [3]  # a lambda works only in this process: no worker was involved


@pytest.mark.parametrize("chunks_per_worker", [1, 3])
def test_map_into_shared_equals_one_process(method, monkeypatch, chunks_per_worker):
    items = list(range(2000))
    capacity = np.full(len(items), 5)
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "1")
    alone, alone_counts, alone_extra = parallel.map_into_shared(_ragged, items, capacity, np.uint64, min_items=10,
                                                                on_chunk=lambda values, counts: len(counts))
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")
    seen = []

    def on_chunk(values, counts):
        assert len(values) == counts.sum()
        seen.append(len(counts))
        return values.copy()  # a copy: the array itself is moved once all chunks are in

    both, both_counts, extra = parallel.map_into_shared(_ragged, items, capacity, np.uint64, min_items=10,
                                                        chunks_per_worker=chunks_per_worker, on_chunk=on_chunk)
    assert np.array_equal(alone, both) and np.array_equal(alone_counts, both_counts)
    assert alone_extra == [2000] and sum(seen) == 2000 and len(extra) == 2 * chunks_per_worker
    # each chunk was handed over once, with its own values, and extra comes back in chunk order
    assert np.array_equal(np.concatenate(extra), both)


def test_map_into_shared_refuses_a_capacity_that_is_not_a_bound(method):
    with pytest.raises(RuntimeError, match="not an upper bound"):
        parallel.map_into_shared(_too_many, list(range(100)), np.ones(100), np.uint64, min_items=10)


def test_spawned_workers_do_not_rerun_a_script_without_main_guard(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT / "src")!r})
        from neurips_abstracts import parallel
        print("script ran", flush=True)
        print(len(parallel.map_chunks(sorted, [str(i) for i in range(1000)], min_items=10)))
        """
    ))
    env = {"NEURIPS_ABSTRACTS_WORKERS": "2", "NEURIPS_ABSTRACTS_START_METHOD": "spawn"}
    out = subprocess.run([sys.executable, str(script)], env={**_base_env(), **env}, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n") == ["script ran", "1000", ""]


def _base_env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("NEURIPS_ABSTRACTS_")}


_WORDS = ("model learning data graph kernel neural sparse bound regret policy gradient estimator prior "
          "convex training network loss sample label robust attention token latent diffusion").split()


def synthetic_dumps(folder, seed: int = 0, papers: int = 240) -> None:
    """Dumps with every kind of record the stages handle: distinct abstracts, revisions, noisy
    exact copies, non-ASCII and mojibake, LaTeX and URLs, spread over four files."""
    rng = random.Random(seed)
    records = []
    for p in range(papers):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(40, 120))]
        if p % 7 == 0:
            words.insert(5, "naïve Schrödinger")
        if p % 11 == 0:
            words.insert(9, r"$\alpha_{t}$ with \emph{care}")
        if p % 13 == 0:
            words.append(f"Code: https://example.org/p{p}.")
        text = f"Paper {p}: " + " ".join(words) + "."
        records.append(text)
        if p % 3 == 0:  # a revision: a few words changed
            revised = text.split()
            for k in rng.sample(range(3, len(revised) - 1), 3):
                revised[k] = rng.choice(_WORDS)
            records.append(" ".join(revised))
        if p % 4 == 0:  # an exact copy as a recrawl gives it: spacing, a hard wrap, mojibake
            noisy = text.replace(" ", "  ", 3)
            cut = len(noisy) // 2
            noisy = noisy[:cut] + "\n" + noisy[cut:]
            if p % 8 == 0:
                noisy = noisy.encode("utf-8").decode("cp1252", errors="replace")
            records.append(noisy)
    rng.shuffle(records)
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(4):
        body = "\n\n".join(records[d::4])
        (folder / f"{d:03d}_{d + 10:016x}.txt").write_bytes(f"{HEADER}\n\n{body}\n".encode())


def _snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_gives_the_same_bytes_with_fork_spawn_and_one_worker(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    monkeypatch.setenv("NEURIPS_ABSTRACTS_PARALLEL_FROM", "2")  # every stage goes to the workers
    stages = []
    real_run = parallel._run
    monkeypatch.setattr(parallel, "_run", lambda fn, *a, **k: stages.append(getattr(fn, "func", fn).__name__) or real_run(fn, *a, **k))
    outputs = {}
    for workers, method in [("1", "spawn")] + [("2", m) for m in METHODS]:
        monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", workers)
        monkeypatch.setenv("NEURIPS_ABSTRACTS_START_METHOD", method)
        stages.clear()
        build(raw, tmp_path / f"dist-{workers}-{method}")
        outputs[workers, method] = _snapshot(tmp_path / f"dist-{workers}-{method}")
        if workers == "2":  # every parallel stage ran in workers
            assert set(stages) >= {"normalize_many", "shingle_many", "_band_pairs", "_jaccard_chunk", "render_many"}
    alone = outputs.pop(("1", "spawn"))
    assert "build_manifest.json" in alone
    for key, files in outputs.items():
        assert files == alone, key


def test_cli_build_with_spawned_workers(tmp_path):
    # build_dataset.py puts src/ on sys.path itself; the spawned workers must find the package
    # there too, without PYTHONPATH.
    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=60)
    env = {**_base_env(), "NEURIPS_ABSTRACTS_WORKERS": "2", "NEURIPS_ABSTRACTS_PARALLEL_FROM": "2"}
    env.pop("PYTHONPATH", None)
    dists = {}
    for method in METHODS:
        dist = tmp_path / f"dist-{method}"
        proc = subprocess.run([sys.executable, str(ROOT / "build_dataset.py"), "build", "--raw", str(raw), "--out", str(dist)],
                              env={**env, "NEURIPS_ABSTRACTS_START_METHOD": method}, cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        dists[method] = _snapshot(dist)
    assert all(d == dists["spawn"] for d in dists.values())
