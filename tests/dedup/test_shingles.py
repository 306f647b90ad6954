"""Shingle hashing, shingle sets, Jaccard and candidate pairs: the vectorized code against plain
Python on random and real text (the seeds; the corpora in the corpus suite)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from neurips_abstracts.core.config import DEFAULT_CONFIG
from neurips_abstracts.dedup import near_duplicates as dedup, shingles as shingling
from neurips_abstracts.text.normalize import normalize

from tests.helpers import REAL_SOURCES, real_texts, seed_abstracts, shingles, synthetic_abstracts

N = DEFAULT_CONFIG.near_dup.shingle_size

words = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Zs", "Zl", "Zp", "Cc"]), min_size=1, max_size=30)
texts = st.lists(words, max_size=40).map(" ".join)


def ngrams(text: str, n: int = N) -> set[tuple[str, ...]]:
    w = text.casefold().split()
    if len(w) < n:
        return {tuple(w)}
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def split_flat(flat: np.ndarray, counts: np.ndarray) -> list[np.ndarray]:
    return np.split(flat, np.cumsum(counts)[:-1]) if len(counts) else []


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=12))
@example(["", "a", "a b", "ß straße STRASSE", "x" * 40 + " " + "y" * 17])
def test_one_shingle_per_distinct_word_ngram_and_batching_changes_nothing(batch):
    flat, counts = shingling.shingle_many(N, batch)
    assert len(counts) == len(batch)
    for text, got in zip(batch, split_flat(flat, counts)):
        assert np.array_equal(got, np.unique(got))  # a set: sorted, no repeats
        assert len(got) == len(ngrams(text))  # no two distinct n-grams collide
        assert np.array_equal(got, shingles(text, N))  # the same alone as in a batch


@settings(max_examples=200, deadline=None)
@given(texts, st.sampled_from(["\t", "\n", "  ", " \r\n ", "\x1f", "\x0b"]))
def test_words_are_what_str_split_gives_among_ascii_white_space(text, gap):
    assert np.array_equal(shingles(text, N), shingles(gap + text.replace(" ", gap) + gap, N))


def test_a_word_hashes_the_same_wherever_it_stands():
    h1, _ = shingling._word_hashes(["alpha beta", "x " * 5000 + "beta"])
    h2, _ = shingling._word_hashes(["beta"])
    assert h1[1] == h1[-1] == h2[0]
    # words that differ only past the first 8 or 16 bytes, or by case
    long, _ = shingling._word_hashes(["abcdefghij abcdefghik abcdefghijklmnopq abcdefghijklmnopr ABCDEFGHIJ"])
    assert len(set(long.tolist())) == 4 and long[0] == long[4]


@pytest.mark.parametrize("source", REAL_SOURCES)
def test_real_abstracts_every_ngram_its_own_hash(source):
    abstracts = [normalize(a) for a in real_texts(source)]
    flat, counts = shingling.shingle_many(N, abstracts)
    assert [len(s) for s in split_flat(flat, counts)] == [len(ngrams(a)) for a in abstracts]
    # and texts sharing an n-gram share its hash: the overall number of distinct hashes is the
    # number of distinct n-grams of the whole corpus
    assert len(np.unique(flat)) == len(set().union(*map(ngrams, abstracts)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**64 - 1) | st.sampled_from([0, 7, 2**64 - 1]), min_size=1, max_size=20),
                max_size=10))
@pytest.mark.slow
def test_as_sets_is_a_sorted_unique_per_text(rows):
    values = np.array([v for r in rows for v in r], dtype=np.uint64)
    counts = np.array([len(r) for r in rows], dtype=np.int64)
    flat, sizes = shingling._as_sets(values, counts)
    expected = [np.unique(np.array(r, dtype=np.uint64)) for r in rows]
    assert sizes.tolist() == [len(e) for e in expected]
    assert all(np.array_equal(a, b) for a, b in zip(split_flat(flat, sizes), expected))


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 60)), st.sets(st.integers(0, 60)))
def test_jaccard_is_the_set_jaccard(a, b):
    sa, sb = (np.array(sorted(x), dtype=np.uint64) for x in (a, b))
    expected = len(a & b) / len(a | b) if a | b else 1.0
    assert dedup.jaccard(sa, sb) == pytest.approx(expected)


def test_jaccard_many_equals_one_by_one():
    rng = np.random.default_rng(1)
    texts = [" ".join(f"w{x}" for x in rng.integers(0, 400, size=rng.integers(3, 60))) for _ in range(600)]
    sets = shingling.shingle_sets(texts, N)
    pairs = rng.integers(0, len(texts), size=(30_000, 2))
    expected = [dedup.jaccard(sets.of(i), sets.of(j)) for i, j in pairs.tolist()]
    assert dedup.jaccard_many(sets, pairs).tolist() == expected


def test_shingles_and_signatures_do_not_depend_on_batching(monkeypatch):
    # Real text with a few near copies each (candidate pairs to find), then generated text of
    # varied length: hashed in one batch, then in many small ones (signatures too), sketched in
    # one slice, then in many.
    seeds = [f"{normalize(a)} variant {k}" for k in range(5) for a in seed_abstracts()]
    many = seeds + synthetic_abstracts(3_000 - len(seeds), words=(20, 300))
    config = DEFAULT_CONFIG.near_dup
    monkeypatch.setattr(shingling, "BATCH_CHARS", 10**12)
    monkeypatch.setattr(dedup, "_SKETCH_CHARS", 10**12)
    sliced, real = [], dedup.sketch
    monkeypatch.setattr(dedup, "sketch", lambda texts, config: sliced.append(len(texts)) or real(texts, config))
    sets1, sigs1 = dedup.shingles_and_signatures(many, config)
    monkeypatch.setattr(shingling, "BATCH_CHARS", 5_000)
    monkeypatch.setattr(dedup, "_SKETCH_CHARS", 20_000)
    monkeypatch.setattr(dedup, "_SIGNATURE_CHUNK", 7)
    sets2, sigs2 = dedup.shingles_and_signatures(many, config)
    assert sliced[0] == len(many) and len(sliced) > 20  # one slice, then many
    assert np.array_equal(sets1.flat, sets2.flat) and np.array_equal(sets1.offsets, sets2.offsets)
    assert np.array_equal(sigs1, sigs2) and sigs1.shape == (len(many), config.num_perm)
    pairs = dedup.candidate_pairs(sigs1, config)
    assert len(pairs) and np.array_equal(pairs, dedup.candidate_pairs(sigs2, config))


def test_as_sets_groups_texts_of_very_different_lengths():
    # One long text among many short ones: one padded matrix would be mostly padding, so the
    # texts are sorted in groups of similar width; the sets are the same.
    rng = np.random.default_rng(0)
    counts = np.array([5000] + [3] * 2000 + [40] * 100, dtype=np.int64)
    values = rng.integers(0, 50, size=counts.sum()).astype(np.uint64)
    flat, sizes = shingling._as_sets(values, counts)
    expected = [np.unique(v) for v in split_flat(values, counts)]
    assert sizes.tolist() == [len(e) for e in expected]
    assert np.array_equal(flat, np.concatenate(expected))


_PAD = 2**64 - 1  # jaccard_many pads rows with the largest value: a real shingle may be it too
shingle_values = st.integers(0, 40) | st.just(_PAD)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sets(shingle_values, max_size=30), min_size=1, max_size=8), st.data(),
       st.sampled_from([1, 7, 64, 10**6]))
def test_jaccard_many_is_jaccard_of_each_pair(groups, data, cells):
    # Every pair, in any order, with itself and with empty sets, chunked every few cells or not
    # at all: the same floats as the plain rule, one pair at a time.
    sets = shingling.ShingleSets(np.array([v for g in groups for v in sorted(g)], dtype=np.uint64),
                             np.cumsum([0] + [len(g) for g in groups]).astype(np.uint64))
    index = st.integers(0, len(groups) - 1)
    pairs = np.array(data.draw(st.lists(st.tuples(index, index), max_size=30)), dtype=np.int64).reshape(-1, 2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dedup, "_JACCARD_CELLS", cells)
        got = dedup.jaccard_many(sets, pairs).tolist()
    assert got == [dedup.jaccard(sets.of(i), sets.of(j)) for i, j in pairs.tolist()]


def plain_roots(n: int, pairs) -> list[int]:
    """Each node's connected component named by its smallest node, with Python sets."""
    component = {i: {i} for i in range(n)}
    for i, j in pairs:
        if component[i] is not component[j]:
            merged = component[i] | component[j]
            for k in merged:
                component[k] = merged
    return [min(component[i]) for i in range(n)]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))))
def test_components_are_the_union_find_roots(graph):
    n, edges = graph
    pairs = np.array(edges, dtype=np.int64).reshape(-1, 2)
    assert dedup.components(n, pairs).tolist() == plain_roots(n, edges)


def test_components_of_long_chains_in_any_order():
    # a path whose edges come shuffled, and a star whose centre is its largest node
    rng = np.random.default_rng(3)
    path = np.stack([np.arange(2_000), np.arange(1, 2_001)], axis=1)[rng.permutation(2_000)]
    star = np.stack([np.full(500, 2_500), np.arange(2_001, 2_501)], axis=1)
    pairs = np.concatenate([path, star])
    assert dedup.components(3_000, pairs).tolist() == plain_roots(3_000, pairs.tolist())


def test_similarity_reuses_the_candidates_and_computes_the_rest():
    # revisions of a few seeds (candidate pairs) among unrelated texts; asked for candidates in
    # either order and for pairs that are not candidates: jaccard_many of each
    seeds = [normalize(a) for a in seed_abstracts()[:30]]
    texts = seeds + [f"{t} revised {k}" for k in range(2) for t in seeds] + synthetic_abstracts(200, words=(20, 80))
    clusters = dedup.near_duplicate_clusters(texts, DEFAULT_CONFIG.near_dup)
    rng = np.random.default_rng(2)
    candidates = clusters.candidates
    assert len(candidates)
    pairs = np.concatenate([candidates, candidates[:, ::-1], rng.integers(0, len(texts), size=(300, 2))])
    expected = dedup.jaccard_many(clusters.shingle_sets, pairs)
    assert np.array_equal(clusters.similarity(pairs), expected)
    assert np.array_equal(clusters.candidate_similarity, expected[: len(candidates)])
