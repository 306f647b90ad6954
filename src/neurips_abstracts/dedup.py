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
from dataclasses import dataclass

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
                h = words[w] = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
            out.append(h)
        return np.array(out, dtype=np.uint64)

    def shingles(self, text: str) -> np.ndarray:
        h = self.word_hashes(text)
        n = self.n
        with np.errstate(over="ignore"):
            if len(h) <= n:  # a text shorter than n words is one shingle
                padded = np.zeros(n, dtype=np.uint64)
                padded[: len(h)] = h
                h, count = padded, 1
            else:
                count = len(h) - n + 1
            acc = np.zeros(count, dtype=np.uint64)
            for k, m in zip(range(n), (_M1, _M2, _M3) * (n // 3 + 1)):
                acc = _mix(acc ^ (h[k : k + count] * m))
        return np.unique(acc)


def shingle_many(n: int, texts: Sequence[str]) -> list[np.ndarray]:
    hasher = ShingleHasher(n)
    return [hasher.shingles(t) for t in texts]


def shingles(text: str, n: int) -> np.ndarray:
    """Sorted unique 64-bit hashes of the case-folded word n-grams of ``text``."""
    return ShingleHasher(n).shingles(text)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    if not len(a) and not len(b):
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


def signatures(shingle_sets: Sequence[np.ndarray], config: NearDupConfig) -> np.ndarray:
    """MinHash signatures, one row of ``num_perm`` uint32 per text."""
    import rensa

    if not shingle_sets:
        return np.zeros((0, config.num_perm), dtype=np.uint32)
    offsets = np.zeros(len(shingle_sets) + 1, dtype=np.uint64)
    np.cumsum([len(s) for s in shingle_sets], out=offsets[1:])
    flat = np.concatenate(shingle_sets)
    matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(flat, offsets, config.num_perm, config.seed)
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
    shingle_sets: list[np.ndarray]
    candidates: np.ndarray  # LSH candidate pairs (i, j), i < j
    merged: int  # candidate pairs at or above the threshold


def near_duplicate_clusters(texts: Sequence[str], config: NearDupConfig) -> Clusters:
    """Cluster distinct normalized texts into papers."""
    sets = map_chunks(functools.partial(shingle_many, config.shingle_size), texts)
    pairs = candidate_pairs(signatures(sets, config), config)
    uf = UnionFind(len(texts))
    merged = 0
    for i, j in pairs.tolist():
        if jaccard(sets[i], sets[j]) >= config.threshold:
            uf.union(i, j)
            merged += 1
    return Clusters([uf.find(i) for i in range(len(texts))], sets, pairs, merged)
