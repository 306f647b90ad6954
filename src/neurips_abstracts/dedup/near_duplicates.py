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

Speed (``benchmarks/scale.py`` measures it): a million raw records hold some 300,000 distinct
texts and 56 million shingles, so nothing here runs a Python step per word. Words are hashed by
numpy passes over the UTF-8 bytes of a batch of texts, each text's shingle set is sorted as a row
of a padded matrix; rensa computes the signatures from the flat sets on its own threads, LSH
bands are grouped by sorting numpy keys (``lsh``), and the exact Jaccard of all candidate pairs
is counted in rows holding both sets, sorted many at once.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..core.ahead import ahead
from ..core.config import NearDupConfig
from ..core.gc_pause import gc_paused
from .lsh import candidate_pairs
from .shingles import BATCH_CHARS, PAD, ShingleSets, set_offsets, shingle_many, slices


def sketch(texts: Sequence[str], config: NearDupConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shingle sets of ``texts`` (``shingle_many``: flat, and a count per text) and their
    MinHash signatures: what the search needs of each text, a function of that text alone."""
    flat, counts = shingle_many(config.shingle_size, texts)
    return flat, counts, signatures(ShingleSets(flat, set_offsets(counts)), config)


# Characters of texts per ``sketch`` call: a few of shingle_many's batches, so that one call's
# working arrays stay small beside the texts.
_SKETCH_CHARS = 4 * BATCH_CHARS


def shingles_and_signatures(texts: Sequence[str], config: NearDupConfig) -> tuple[ShingleSets, np.ndarray]:
    """Shingle sets and MinHash signatures of all texts, sketched a slice of texts at a time.

    Each slice's values are copied into arrays made for all texts as it is sketched, rather than
    joined at the end: the shingles are a build's largest array (450 MB at a million records),
    and joining them held them twice."""
    counts = np.empty(len(texts), dtype=np.int64)
    sigs = np.empty((len(texts), config.num_perm), dtype=np.uint32)
    flat, used = np.empty(0, dtype=np.uint64), 0
    bounds = slices(texts, _SKETCH_CHARS)
    chars = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    # Two slices are sketched at a time in helper threads (``ahead``: each slice's result is
    # a function of its texts alone, taken in order): most of a sketch is numpy and rensa
    # work outside the GIL, which a second core does beside the first.
    total = int(chars[-1]) if len(chars) else 0
    with closing(ahead(partial(_sketch_slice, texts, config), bounds)) as sketched:
        for (a, b), (part, part_counts, part_sigs) in zip(bounds, sketched):
            counts[a:b], sigs[a:b] = part_counts, part_sigs
            flat, used = _appended(flat, used, part, int(chars[b - 1]) if b else 0, total)
            del part, part_counts, part_sigs
    return ShingleSets(flat[:used], set_offsets(counts)), sigs


def _appended(flat: np.ndarray, used: int, part: np.ndarray, done: int, total: int) -> tuple[np.ndarray, int]:
    """``part`` copied into ``flat`` after its ``used`` values, ``flat`` grown first if it has
    no room: for the rest too, at the values per character so far (``done`` characters of
    ``total`` sketched)."""
    if used + len(part) > len(flat):
        flat = _grown(flat, used, max(used + len(part), -(-(used + len(part)) * total // max(done, 1)) * 51 // 50))
    flat[used : used + len(part)] = part
    return flat, used + len(part)


def _sketch_slice(texts: Sequence[str], config: NearDupConfig, bounds: tuple[int, int]):
    return sketch(texts[bounds[0] : bounds[1]], config)


def _grown(values: np.ndarray, used: int, size: int) -> np.ndarray:
    """``values[:used]`` in a new array of ``size`` values."""
    out = np.empty(size, dtype=values.dtype)
    out[:used] = values[:used]
    return out


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two sorted arrays of unique hashes."""
    if not len(a) and not len(b):
        return 1.0
    if not len(a) or not len(b):
        return 0.0
    # Each element of a found at its sorted place in b, or not.
    inter = int(np.count_nonzero(b[np.minimum(np.searchsorted(b, a), len(b) - 1)] == a))
    return inter / (len(a) + len(b) - inter)


_JACCARD_CELLS = 250_000  # matrix cells per sort in jaccard_many: 2 MB, sorted and compared in cache


def jaccard_many(sets: ShingleSets, pairs: np.ndarray) -> np.ndarray:
    """``jaccard`` of the shingle sets of each pair (i, j), the same floats, for many pairs at once.

    Each pair's smaller set and its larger set are laid side by side in a row of a padded matrix
    (pairs of similar sizes together) and the rows sorted; as each set holds a value once, the
    values in both sets are the equal neighbours among a row's first len(a) + len(b) cells.
    """
    out = np.empty(len(pairs), dtype=np.float64)
    if not len(pairs):
        return out
    offsets = sets.offsets.astype(np.int64)
    first, second = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    first_size, second_size = offsets[first + 1] - offsets[first], offsets[second + 1] - offsets[second]
    swap = first_size > second_size  # the similarity is symmetric
    small_start, large_start = np.where(swap, offsets[second], offsets[first]), np.where(swap, offsets[first], offsets[second])
    small, large = np.minimum(first_size, second_size), np.maximum(first_size, second_size)
    order = np.lexsort((small, large))
    groups = []
    k = 0
    while k < len(order):
        # a row is at most twice its larger set wide
        stop = min(len(order), k + max(1, _JACCARD_CELLS // max(1, 2 * int(large[order[k]]))))
        stop = min(stop, k + max(1, _JACCARD_CELLS // max(1, 2 * int(large[order[stop - 1]]))))
        groups.append(order[k:stop])
        k = stop
    # Two groups of rows at a time in helper threads (``ahead``; each group's values are a
    # function of its pairs alone): their sorts run outside the GIL.
    rows_of = partial(_jaccard_group, sets.flat, small_start, small, large_start, large)
    with closing(ahead(rows_of, groups)) as similarities:
        for rows, similarity in zip(groups, similarities):
            out[rows] = similarity
    return out


def _jaccard_group(flat: np.ndarray, small_start: np.ndarray, small: np.ndarray, large_start: np.ndarray,
                   large: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return _jaccard_rows(flat, small_start[rows], small[rows], large_start[rows], large[rows])


def _jaccard_rows(flat: np.ndarray, a_start: np.ndarray, a_size: np.ndarray, b_start: np.ndarray,
                  b_size: np.ndarray) -> np.ndarray:
    """jaccard_many of pairs of sets ``flat[start:start + size]`` (a, b), a row each."""
    n = len(a_start)
    a_width, b_width = int(a_size.max()), int(b_size.max())
    width = a_width + b_width
    if not width:  # only empty sets
        return np.ones(n, dtype=np.float64)
    matrix = np.empty((n, width), dtype=np.uint64)
    for start, size, cells in ((a_start, a_size, matrix[:, :a_width]), (b_start, b_size, matrix[:, a_width:])):
        w = cells.shape[1]
        if not w:
            continue
        # the w values from each start: a copy of a row of a sliding window per pair, no index
        # per value; a window running past the end of ``flat`` is read value by value
        inside = start <= len(flat) - w
        if inside.all():
            cells[...] = sliding_window_view(flat, w)[start]
        else:
            if inside.any():
                cells[inside] = sliding_window_view(flat, w)[start[inside]]
            cells[~inside] = flat[np.minimum(start[~inside, None] + np.arange(w), len(flat) - 1)]
        np.copyto(cells, PAD, where=np.arange(w) >= size[:, None])  # values past the set's end
    matrix.sort(axis=1)
    equal = np.count_nonzero(matrix[:, 1:] == matrix[:, :-1], axis=1)
    # Padding (the largest value) repeats too: width - size - 1 equal neighbours, and one more
    # where a row's last value is the padding value itself.
    sizes = a_size + b_size
    padded = sizes < width
    last = matrix[np.arange(n), np.maximum(sizes - 1, 0)]
    inter = equal - np.where(padded, width - sizes - 1 + (last == PAD), 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        similarity = inter / (sizes - inter)
    return np.where(sizes == 0, 1.0, similarity)


def _minhash(flat: np.ndarray, offsets: np.ndarray, config: NearDupConfig) -> np.ndarray:
    import rensa

    if len(offsets) <= 1:
        return np.zeros((0, config.num_perm), dtype=np.uint32)
    matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(flat, offsets, config.num_perm, config.seed)
    # rensa exports signatures only as Python lists (the stage's largest single cost at scale,
    # and no other export exists in rensa 0.5); a struct packing a row at a time reads them
    # faster than array.array or numpy do.
    row = struct.Struct(f"<{config.num_perm}I")
    values = b"".join(itertools.starmap(row.pack, matrix.to_rows()))
    return np.frombuffer(values, dtype="<u4").reshape(-1, config.num_perm)


_SIGNATURE_CHUNK = 1_000  # texts per call: rensa's rows arrive as Python lists, 4.5 KB a text, made and read in cache


def signatures(sets: ShingleSets, config: NearDupConfig) -> np.ndarray:
    """rensa's R-MinHash signatures, one row of ``num_perm`` uint32 per text, computed a chunk
    of texts at a time so that the Python lists rensa returns never hold more than one chunk."""
    out = np.zeros((len(sets), config.num_perm), dtype=np.uint32)
    for start in range(0, len(sets), _SIGNATURE_CHUNK):
        stop = min(start + _SIGNATURE_CHUNK, len(sets))
        offsets = sets.offsets[start : stop + 1]
        out[start:stop] = _minhash(sets.flat[int(offsets[0]) : int(offsets[-1])], offsets - offsets[0], config)
    return out


def components(n: int, pairs: np.ndarray) -> np.ndarray:
    """Each of ``n`` nodes' connected component under the edges ``pairs`` (i, j), named by its
    smallest node: a union-find whose root is the smaller one, so it does not depend on the
    order of the edges.

    Edges hook the larger of their two labels onto the smaller, then labels jump to their
    label's label until none moves; rounds repeat until no edge joins two labels. Every label
    stays a node of the component no larger than the node, so the fixed point is its minimum.
    """
    label = np.arange(n, dtype=np.int64)
    if not len(pairs):
        return label
    i, j = np.ascontiguousarray(pairs[:, 0], dtype=np.int64), np.ascontiguousarray(pairs[:, 1], dtype=np.int64)
    while True:
        li, lj = label[i], label[j]
        apart = li != lj
        if not apart.any():
            return label
        li, lj = li[apart], lj[apart]
        np.minimum.at(label, np.maximum(li, lj), np.minimum(li, lj))
        while True:
            jumped = label[label]
            if np.array_equal(jumped, label):
                break
            label = jumped


@dataclass(frozen=True)
class Clusters:
    roots: list[int]  # each text's cluster, named by its smallest index
    shingle_sets: ShingleSets
    candidates: np.ndarray  # LSH candidate pairs (i, j), i < j, sorted
    merged: int  # candidate pairs at or above the threshold
    candidate_similarity: np.ndarray  # jaccard_many of the candidates

    def similarity(self, pairs: np.ndarray) -> np.ndarray:
        """``jaccard_many(self.shingle_sets, pairs)``: the candidates' are known already (most
        revisions of a paper are candidates with its canonical text)."""
        out = np.empty(len(pairs), dtype=np.float64)
        n = max(len(self.roots), 1)
        codes = np.minimum(pairs[:, 0], pairs[:, 1]).astype(np.int64) * n + np.maximum(pairs[:, 0], pairs[:, 1])
        known = self.candidates[:, 0].astype(np.int64) * n + self.candidates[:, 1]
        at = np.minimum(np.searchsorted(known, codes), max(len(known) - 1, 0))
        found = known[at] == codes if len(known) else np.zeros(len(pairs), dtype=bool)
        out[found] = self.candidate_similarity[at[found]]
        out[~found] = jaccard_many(self.shingle_sets, pairs[~found])
        return out


def near_duplicate_clusters(texts: Sequence[str], config: NearDupConfig) -> Clusters:
    """Cluster distinct normalized texts into papers."""
    with gc_paused():
        sets, sigs = shingles_and_signatures(texts, config)
        pairs = candidate_pairs(sigs, config)
        similarity = jaccard_many(sets, pairs)
        similar = pairs[similarity >= config.threshold]
        return Clusters(components(len(texts), similar).tolist(), sets, pairs, len(similar), similarity)
