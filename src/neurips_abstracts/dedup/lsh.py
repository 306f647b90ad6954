"""LSH banding: the candidate pairs of near-duplicate texts, from their MinHash signatures.

Texts that agree on every row of at least one band are candidates; ``dedup`` then keeps only the
pairs whose exact Jaccard similarity reaches the threshold. Bands are grouped by sorting numpy
keys, not by Python dictionaries: a million raw records hold some 300,000 distinct texts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.config import NearDupConfig

# 2^64 divided by the golden ratio, made odd: a multiplier that spreads bits (shingle hashing uses it too).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def band_keys(sigs: np.ndarray, config: NearDupConfig, bands: Sequence[int]) -> np.ndarray:
    """One uint64 per band of ``bands`` and text, shape (len(bands), texts): texts with equal
    values in a band get equal keys, unequal ones the same key with probability about 2^-64
    (such pairs are dropped afterwards). Signature values are already uniformly spread hashes,
    so packing them two to a uint64 and folding those by a multiply-add spreads keys enough."""
    n = sigs.shape[0]
    if config.rows % 2 == 0:
        words = np.ascontiguousarray(sigs).view(np.uint64).reshape(n, config.bands, config.rows // 2)
    else:
        words = sigs.astype(np.uint64).reshape(n, config.bands, config.rows)
    words = words[:, list(bands)].transpose(1, 2, 0)  # (bands, words per band, texts)
    keys = words[:, 0].copy()
    with np.errstate(over="ignore"):
        for c in range(1, words.shape[1]):
            keys *= GOLDEN
            keys += words[:, c]
    return keys


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


def _band_pairs(config: NearDupConfig, bands: Sequence[int], sigs: np.ndarray) -> list[np.ndarray]:
    """The pairs (i, j), i < j, of texts that agree on at least one band of ``bands``, each
    coded as i * texts + j, sorted, without repeats (a one-element list)."""
    n = sigs.shape[0]
    bits = min(22, max(8, n.bit_length() + 3))  # about 8 buckets per text: few shared by chance
    found = []
    for b, keys in zip(bands, band_keys(sigs, config, bands)):
        # Most texts share no band with any other. Counting keys by their top bits (cheap)
        # leaves only the texts whose bucket is shared, and only those are sorted.
        bucket = (keys >> np.uint64(64 - bits)).astype(np.intp)
        crowded = np.flatnonzero(np.bincount(bucket, minlength=1 << bits)[bucket] > 1)
        order = np.argsort(keys[crowded])  # pairs are sorted at the end: ties may fall in any order
        members, ordered = crowded[order], keys[crowded][order]
        repeats = ordered[1:] == ordered[:-1]
        if not repeats.any():
            continue
        grouped = np.zeros(len(members), dtype=bool)
        grouped[1:] |= repeats
        grouped[:-1] |= repeats
        pairs = _pairs_within_groups(members[grouped], ordered[grouped])
        # keys can collide: keep only pairs whose band values are really equal
        band = sigs[:, b * config.rows : (b + 1) * config.rows]
        pairs = pairs[(band[pairs[:, 0]] == band[pairs[:, 1]]).all(axis=1)].astype(np.int64)
        found.append(np.minimum(pairs[:, 0], pairs[:, 1]) * n + np.maximum(pairs[:, 0], pairs[:, 1]))
    return [_unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)]


def candidate_pairs(sigs: np.ndarray, config: NearDupConfig) -> np.ndarray:
    """Pairs (i, j), i < j, that share at least one LSH band, sorted, without repeats."""
    n = sigs.shape[0]
    found = _band_pairs(config, range(config.bands), sigs)
    codes = _unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    return np.stack([codes // max(n, 1), codes % max(n, 1)], axis=1)
