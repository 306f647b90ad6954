"""LSH banding: the candidate pairs of near-duplicate texts, from their MinHash signatures.

Texts that agree on every row of at least one band are candidates; ``dedup`` then keeps only the
pairs whose exact Jaccard similarity reaches the threshold. Bands are grouped by sorting numpy
keys, not by Python dictionaries: a million raw records hold some 300,000 distinct texts.
"""

from __future__ import annotations

from contextlib import closing
from functools import partial

import numpy as np

from ..core.ahead import ahead
from ..core.config import NearDupConfig

# 2^64 divided by the golden ratio, made odd: a multiplier that spreads bits (shingle hashing uses it too).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _band_words(sigs: np.ndarray, config: NearDupConfig) -> np.ndarray:
    """The signatures as (texts, bands, words) uint64: a band's values two to a word when its
    number of rows is even (one comparison of words compares two values)."""
    n = sigs.shape[0]
    if config.rows % 2 == 0:
        return np.ascontiguousarray(sigs).view(np.uint64).reshape(n, config.bands, config.rows // 2)
    return sigs.astype(np.uint64).reshape(n, config.bands, config.rows)


def band_keys(words: np.ndarray) -> np.ndarray:
    """One uint64 per band and text, shape (bands, texts), from ``_band_words``: texts with equal
    values in a band get equal keys, unequal ones the same key with probability about 2^-64
    (such pairs are dropped afterwards). Signature values are already uniformly spread hashes,
    so packing them two to a uint64 and folding those by a multiply-add spreads keys enough."""
    keys = words[:, :, 0].copy()
    with np.errstate(over="ignore"):
        for c in range(1, words.shape[2]):
            keys *= GOLDEN
            keys += words[:, :, c]
    return np.ascontiguousarray(keys.T)  # a band's keys contiguous


def _unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)``: sorted, without repeats. A sort and a comparison of neighbours, which
    is tens of times faster than numpy 2.4's np.unique (its hash table) on a few 100,000 codes."""
    values = np.sort(values)
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values


def _pairs_within_groups(members: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Every pair of ``members`` with equal keys (``sorted_keys``, in ascending order), as
    (member, member) in no particular order."""
    n = len(members)
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, n])
    # Position p pairs with p + d while both lie in the same group; groups are small (a text
    # and its revisions), so d stays small.
    group = np.repeat(np.arange(len(starts)), sizes)
    active = np.flatnonzero(np.repeat(sizes, sizes) > 1)
    found = []
    d = 1
    while len(active):
        active = active[active + d < n]
        same = active[group[active + d] == group[active]]
        found.append(np.stack([members[same], members[same + d]], axis=1))
        active = same
        d += 1
    return np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)


def _band_pairs(config: NearDupConfig, sigs: np.ndarray) -> np.ndarray:
    """The pairs (i, j), i < j, of texts that agree on at least one band, each coded as
    i * texts + j, sorted, without repeats."""
    n = sigs.shape[0]
    bits = min(22, max(8, n.bit_length() + 1))  # about 2 buckets per text: the filter costs little
    words = _band_words(sigs, config)
    # Bands are searched two at a time in helper threads (``ahead``; the pairs of each band are a
    # function of its keys alone, and sorted together at the end): their sorts run outside the GIL.
    band = partial(_pairs_of_band, words, n, bits)
    with closing(ahead(band, list(enumerate(band_keys(words))))) as bands:
        found = [pairs for pairs in bands if pairs is not None]
    return _unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def _pairs_of_band(words: np.ndarray, n: int, bits: int, band: tuple[int, np.ndarray]) -> np.ndarray | None:
    """The pairs of texts that agree on band ``b`` (``band``: b and its keys), coded as in
    ``_band_pairs``; None where no two texts share its keys."""
    b, keys = band
    # Most texts share no band with any other. Counting keys by their top bits (cheap)
    # leaves only the texts whose bucket is shared, and only those are sorted.
    bucket = (keys >> np.uint64(64 - bits)).astype(np.intp)
    crowded = np.flatnonzero(np.bincount(bucket, minlength=1 << bits)[bucket] > 1)
    order = np.argsort(keys[crowded])  # pairs are sorted at the end: ties may fall in any order
    members, ordered = crowded[order], keys[crowded][order]
    repeats = ordered[1:] == ordered[:-1]
    if not repeats.any():
        return None
    grouped = np.zeros(len(members), dtype=bool)
    grouped[1:] |= repeats
    grouped[:-1] |= repeats
    pairs = _pairs_within_groups(members[grouped], ordered[grouped])
    # keys can collide: keep only pairs whose band values are really equal
    first, second = pairs[:, 0], pairs[:, 1]
    equal = np.ones(len(pairs), dtype=bool)
    for c in range(words.shape[2]):
        column = np.ascontiguousarray(words[:, b, c])  # gathers from a contiguous copy are faster
        equal &= column[first] == column[second]
    pairs = pairs[equal].astype(np.int64)
    return np.minimum(pairs[:, 0], pairs[:, 1]) * n + np.maximum(pairs[:, 0], pairs[:, 1])


def candidate_pairs(sigs: np.ndarray, config: NearDupConfig) -> np.ndarray:
    """Pairs (i, j), i < j, that share at least one LSH band, sorted, without repeats."""
    n = sigs.shape[0]
    codes = _band_pairs(config, sigs)
    return np.stack([codes // max(n, 1), codes % max(n, 1)], axis=1)
