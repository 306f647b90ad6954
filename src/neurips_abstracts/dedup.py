"""Which distinct normalized texts are the same paper.

Exact duplicates need no code here: records with the same normalized text share a
``text_sha256`` and are grouped by it. This module finds *near* duplicates among the distinct
texts: revisions of one abstract (a typo fixed, a sentence added, a number updated).

Method: case-folded word n-gram shingles (n = ``NearDupConfig.shingle_size``), rensa R-MinHash
signatures, LSH banding to propose candidate pairs, then the **exact** Jaccard similarity of every
candidate pair on the same shingles, so only pairs at or above the threshold merge; clusters are
the connected components (union-find) of the merged pairs.

Why n = 3 words and a threshold of 0.6, measured on the ~4,200 real NeurIPS 2018 and 2023
abstracts: two distinct papers never share more than 5.3% of their word 3-grams (9.2% for
2-grams, 3.5% for 4-grams, 2.8% for 5-grams), so 0.6 keeps a margin of more than ten to one
against merging distinct papers. A revision that rewrites a span of E words out of W destroys
about E + n - 1 shingles and creates as many, so its similarity is about (W - E - n + 1) /
(W + E + n - 1): with 5-grams, rewriting 10% of a 200-word abstract in two spans already falls
to 0.75, below a 0.8 threshold (the benchmark lost most 10% rewrites that way); with 3-grams and
0.6 every realistic revision of up to 10% of the words stays above the threshold.

Chains: if A~B and B~C but A is not similar to C, union-find still puts A, B and C in one paper
(a revision history can drift), and each record's similarity to the canonical text is recorded,
so the drift stays visible in the data.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .config import NearDupConfig
from .parallel import map_chunks


_M1, _M2, _M3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: spreads the bits of each uint64 (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")


class ShingleHasher:
    """Case-folded word n-gram shingles as sorted unique 64-bit hashes.

    A word's hash is the first 8 bytes of its BLAKE2b digest and an n-gram's hash mixes its
    words' hashes, so every value depends on the text alone, never on what else is in the build:
    adding a dump cannot change the shingles (or the signatures) of the texts already there. Two
    distinct shingles collide with probability about 2^-64 per pair, so the Jaccard similarity of
    the hash sets is that of the shingle sets.
    """

    def __init__(self, n: int):
        self.n = n
        self.words: dict[str, int] = {}

    def word_hashes(self, text: str) -> np.ndarray:
        words = self.words
        out = []
        for w in text.casefold().split():
            h = words.get(w)
            if h is None:
                h = words[w] = _word_hash(w)
            out.append(h)
        return np.array(out, dtype=np.uint64)

    def shingles(self, text: str) -> np.ndarray:
        h = self.word_hashes(text)
        n = self.n
        if len(h) <= n:  # a text shorter than n words is one shingle
            h = np.concatenate([h, np.zeros(n - len(h), dtype=np.uint64)])
        return np.unique(_ngram_hashes(h, np.arange(len(h) - n + 1), n))


def _ngram_hashes(hashes: np.ndarray, first: np.ndarray, n: int) -> np.ndarray:
    """Hash of the n words starting at each position in ``first`` of the word hashes."""
    with np.errstate(over="ignore"):
        acc = np.zeros(len(first), dtype=np.uint64)
        for k, m in zip(range(n), (_M1, _M2, _M3) * (n // 3 + 1)):
            acc = _mix(acc ^ (hashes[first + k] * m))
    return acc


@dataclass
class ShingleSets:
    """The shingle hashes of many texts: text i's are ``flat[offsets[i]:offsets[i + 1]]``, in
    text order and possibly repeated (MinHash does not mind); ``unique(i)`` sorts and dedupes
    them for the exact Jaccard, only for texts that are in a candidate pair."""

    flat: np.ndarray
    offsets: np.ndarray
    _unique: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def unique(self, i: int) -> np.ndarray:
        u = self._unique.get(i)
        if u is None:
            u = self._unique[i] = np.unique(self.flat[self.offsets[i] : self.offsets[i + 1]])
        return u

    @classmethod
    def concat(cls, parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> "ShingleSets":
        flat = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.uint64)
        counts = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(len(counts) + 1, dtype=np.uint64)
        np.cumsum(counts, out=offsets[1:])
        return cls(flat, offsets)


def shingle_many(n: int, texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The shingle hashes of all ``texts`` as one flat array and a count per text (one-element
    list, for ``map_chunks``). Same values as ``ShingleHasher(n).shingles``, computed with numpy
    for all texts at once: only the word look-up runs per word in Python."""
    hasher = ShingleHasher(n)
    cache = hasher.words
    flat: list[int] = []
    lengths = []
    lookup = cache.__getitem__
    for text in texts:
        words = text.casefold().split()
        mark = len(flat)
        try:
            flat.extend(map(lookup, words))
        except KeyError:  # a word not seen yet in this chunk: hash the new ones, then look up again
            del flat[mark:]
            for w in words:
                if w not in cache:
                    cache[w] = _word_hash(w)
            flat.extend(map(lookup, words))
        lengths.append(len(words))
    hashes = np.array(flat, dtype=np.uint64)
    lengths_a = np.array(lengths, dtype=np.int64)
    starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(lengths_a[:-1], out=starts[1:])
    counts = np.where(lengths_a >= n, lengths_a - n + 1, 0)
    # the position in ``hashes`` where each n-gram of each text starts
    first = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    acc = _ngram_hashes(hashes, first, n)
    short = np.flatnonzero(lengths_a < n)
    if len(short):  # a text shorter than n words is one shingle: insert it at the text's place
        at = np.cumsum(counts)[short] - counts[short]
        acc = np.insert(acc, at, [hasher.shingles(texts[i])[0] for i in short])
        counts[short] = 1
    return [(acc, counts)]


def shingle_sets(texts: Sequence[str], n: int) -> ShingleSets:
    return ShingleSets.concat(map_chunks(functools.partial(shingle_many, n), texts, min_items=20_000, chunks_per_worker=1))


def shingles(text: str, n: int) -> np.ndarray:
    """Sorted unique 64-bit hashes of the case-folded word n-grams of ``text``."""
    return ShingleHasher(n).shingles(text)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two sorted arrays of unique hashes."""
    if not len(a) and not len(b):
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


def signatures(sets: ShingleSets, config: NearDupConfig) -> np.ndarray:
    """MinHash signatures, one row of ``num_perm`` uint32 per text."""
    import rensa

    if not len(sets):
        return np.zeros((0, config.num_perm), dtype=np.uint32)
    matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(sets.flat, sets.offsets, config.num_perm, config.seed)
    return np.array(matrix.to_rows(), dtype=np.uint32)


def candidate_pairs(sigs: np.ndarray, config: NearDupConfig) -> np.ndarray:
    """Pairs (i, j), i < j, that share at least one LSH band, sorted, without repeats."""
    n = sigs.shape[0]
    found: list[np.ndarray] = []
    for b in range(config.bands):
        band = np.ascontiguousarray(sigs[:, b * config.rows : (b + 1) * config.rows])
        keys = band.view(np.dtype((np.void, band.dtype.itemsize * config.rows))).ravel()
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        sizes = np.diff(np.r_[starts, n])
        # Every pair inside every bucket, vectorized: position p pairs with p + d while both lie
        # in the same bucket; buckets are small (a text and its revisions), so d stays small.
        group = np.repeat(np.arange(len(starts)), sizes)
        active = np.flatnonzero(np.repeat(sizes, sizes) > 1)
        d = 1
        while len(active):
            active = active[active + d < n]
            same = active[group[active + d] == group[active]]
            found.append(np.stack([order[same], order[same + d]], axis=1))
            active = same
            d += 1
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(found).astype(np.int64)
    pairs.sort(axis=1)
    return np.unique(pairs, axis=0)


class UnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # The smaller index becomes the root, so roots do not depend on the order of unions.
            self.parent[max(ra, rb)] = min(ra, rb)


@dataclass(frozen=True)
class Clusters:
    roots: list[int]  # each text's cluster, named by its smallest index
    shingle_sets: ShingleSets
    candidates: np.ndarray  # LSH candidate pairs (i, j), i < j
    merged: int  # candidate pairs at or above the threshold


def near_duplicate_clusters(texts: Sequence[str], config: NearDupConfig) -> Clusters:
    """Cluster distinct normalized texts into papers."""
    sets = shingle_sets(texts, config.shingle_size)
    pairs = candidate_pairs(signatures(sets, config), config)
    uf = UnionFind(len(texts))
    merged = 0
    for i, j in pairs.tolist():
        if jaccard(sets.unique(i), sets.unique(j)) >= config.threshold:
            uf.union(i, j)
            merged += 1
    return Clusters([uf.find(i) for i in range(len(texts))], sets, pairs, merged)
