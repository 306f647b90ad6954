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
    return (np.concatenate(values) if values else np.zeros(0, dtype=np.uint64)), counts


def _too_many(chunk):
    return np.zeros(len(chunk) + 1, dtype=np.uint64), np.ones(len(chunk), dtype=np.int64)


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


def test_map_into_shared_refuses_a_capacity_that_is_not_a_bound(two_workers):
    with pytest.raises(RuntimeError, match="not an upper bound"):
        parallel.map_into_shared(_too_many, list(range(100)), np.ones(100), np.uint64, min_items=10)
