"""The worker pool: inherited inputs, results in order, shared-memory outputs."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from neurips_abstracts import parallel


def _lengths(chunk):
    return [len(x) for x in chunk]


def _with_shared(chunk, shared):
    return [shared["offset"] + x for x in chunk]


def _ragged(chunk):
    values = [np.arange(x % 5, dtype=np.uint64) + np.uint64(x) for x in chunk]
    counts = np.array([len(v) for v in values], dtype=np.int64)
    flat = np.concatenate(values) if values else np.zeros(0, dtype=np.uint64)
    twice = np.repeat(np.array(chunk, dtype=np.int32), 2)
    return [(flat, counts), (twice, np.full(len(chunk), 2, dtype=np.int64))]


def _too_many(chunk):
    return [(np.zeros(len(chunk) + 1, dtype=np.uint64), np.ones(len(chunk), dtype=np.int64))]


@pytest.fixture
def two_workers(monkeypatch):
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")


@pytest.mark.parametrize("interleave", [False, True])
def test_results_in_input_order(two_workers, interleave):
    items = ["x" * (i % 17) for i in range(1000)]
    assert parallel.map_chunks(_lengths, items, min_items=10, interleave=interleave) == [i % 17 for i in range(1000)]


def test_shared_object_is_inherited_not_pickled(two_workers):
    # A lock cannot be pickled: it reaches the workers only because they are forked with it.
    shared = {"offset": 1000, "lock": threading.Lock()}
    assert parallel.map_chunks(_with_shared, list(range(500)), min_items=10, shared=shared) == list(range(1000, 1500))


def test_below_min_items_runs_here(monkeypatch):
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")
    calls = []
    assert parallel.map_chunks(lambda chunk: calls.append(len(chunk)) or list(chunk), [1, 2, 3], min_items=10) == [1, 2, 3]
    assert calls == [3]  # a lambda works only in this process: no worker was involved


@pytest.mark.parametrize("chunks_per_worker", [1, 3])
def test_map_into_shared_equals_one_process(monkeypatch, chunks_per_worker):
    items = list(range(2000))
    capacity = [(np.full(len(items), 5), np.uint64), (np.full(len(items), 2), np.int32)]
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "1")
    alone, alone_extra = parallel.map_into_shared(_ragged, items, capacity, min_items=10, on_chunk=lambda out: len(out[0][1]))
    monkeypatch.setenv("NEURIPS_ABSTRACTS_WORKERS", "2")
    seen = []

    def on_chunk(outputs):
        (flat, counts), (twice, _) = outputs
        seen.append((int(twice[0]) // 1, len(counts)))
        assert len(flat) == counts.sum()
        return len(counts)

    both, extra = parallel.map_into_shared(_ragged, items, capacity, min_items=10,
                                           chunks_per_worker=chunks_per_worker, on_chunk=on_chunk)
    for (a_values, a_counts), (b_values, b_counts) in zip(alone, both):
        assert np.array_equal(a_values, b_values) and np.array_equal(a_counts, b_counts)
    assert alone_extra == [2000] and sum(extra) == 2000 and len(extra) == 2 * chunks_per_worker
    # each chunk was handed over once, and extra comes back in chunk order
    assert sorted(first for first, _ in seen) == [sum(extra[:k]) for k in range(len(extra))]


def test_map_into_shared_refuses_a_capacity_that_is_not_a_bound(two_workers):
    with pytest.raises(RuntimeError, match="not an upper bound"):
        parallel.map_into_shared(_too_many, list(range(100)), [(np.ones(100), np.uint64)], min_items=10)
