"""Shingles: each distinct text's set of hashed, case-folded word n-grams, made by numpy passes
over the UTF-8 bytes of a batch of texts (nothing here runs a Python step per word), each set
sorted as a row of a padded matrix. ``near_duplicates`` sketches and compares them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .lsh import GOLDEN

_M1, _M2, _M3 = GOLDEN, np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9)
_POSITION = (_M1, _M2, _M3, np.uint64(0xD6E8FEB86659FD93))


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: spreads the bits of each uint64 (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))  # a new array: the rest is done in place, in it
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        return x


# What separates words, as str.split() sees it among ASCII characters. Normalized text has only
# single ASCII spaces; non-ASCII white space (never in normalized text) would stay inside words.
_SEPARATOR = np.zeros(256, dtype=bool)
_SEPARATOR[[0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
# _LOW_BYTES[k] keeps the first k bytes of a little-endian uint64 (k = 8: all of them).
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
BATCH_CHARS = 1_000_000  # characters per numpy pass: bounds the temporary arrays (smaller ones stay in cache)


def _word_hashes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of the case-folded words of ``texts``, flat, and the number of words of each text.

    A word's hash chains splitmix64 over its UTF-8 bytes read 8 at a time, then mixes in its
    length: a function of the word alone, computed for all words of a batch with a few numpy
    passes instead of one Python step per word.
    """
    encoded = [(t.lower() if t.isascii() else t.casefold()).encode("utf-8", "surrogatepass") for t in texts]
    sizes = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    # 16 spaces after the last text (the 8-byte reads below run past it), joined in the same copy
    encoded.append(b" " * (15 if encoded else 16))
    padded = b" ".join(encoded)
    del encoded
    n = len(padded) - 16
    data = np.frombuffer(padded, dtype=np.uint8, count=n + 1)
    # separator[k + 1] says whether byte k separates words; separator[0] stands before the text
    separator = np.empty(n + 2, dtype=bool)
    separator[0] = True
    np.less_equal(data, 0x20, out=separator[1:])
    if n and data[:n].min() < 0x20:  # control bytes (normalized text has none)
        control = np.flatnonzero(data < 0x20)
        separator[control[~_SEPARATOR[data[control]]] + 1] = False  # those str.split() keeps inside words
    # Words start and end where that changes, in turn: the text is framed by separators.
    change = np.flatnonzero(separator[1:] != separator[:-1])
    start = change[0::2]
    length = change[1::2] - start
    # The 8 bytes at every byte offset, as one unaligned little-endian uint64 view.
    window = np.ndarray(shape=(n + 1,), dtype="<u8", buffer=padded, strides=(1,))
    with np.errstate(over="ignore"):
        hashes = _mix(window[start] & _LOW_BYTES[np.minimum(length, 8)])
        longer = np.flatnonzero(length > 8)
        j = 1
        while len(longer):  # words longer than 8j bytes: their next 8 bytes
            rest = length[longer] - 8 * j
            block = window[start[longer] + 8 * j] & _LOW_BYTES[np.minimum(rest, 8)]
            hashes[longer] = _mix(hashes[longer] ^ _mix(block + np.uint64(j)))
            longer = longer[rest > 8]
            j += 1
        hashes = _mix(hashes ^ (length.astype(np.uint64) * _M2))
    text_start = np.zeros(len(sizes), dtype=np.int64)
    if len(sizes) > 1:
        np.cumsum(sizes[:-1] + 1, out=text_start[1:])
    # the first word of each text (texts are separated by a space, so no word straddles two)
    first_word = np.searchsorted(start, text_start)
    counts = np.diff(np.append(first_word, len(start)))
    return hashes, counts


def _ngram_hashes(hashes: np.ndarray, first: np.ndarray, n: int) -> np.ndarray:
    """Hash of the n words starting at each position in ``first`` of the word hashes."""
    # Word hashes are already well mixed: a different odd multiplier per position and one
    # final mix make the n-gram's hash (order matters: "a b c" and "b a c" differ).
    with np.errstate(over="ignore"):
        acc = hashes[first] * _M1
        for k in range(1, n):
            acc += hashes[first + k] * _POSITION[k % len(_POSITION)]
            if k % len(_POSITION) == len(_POSITION) - 1:
                acc = _mix(acc)
    return _mix(acc)


def _shingle_batch(n: int, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    hashes, lengths = _word_hashes(texts)
    starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    short = np.flatnonzero(lengths < n)
    counts = np.where(lengths >= n, lengths - n + 1, 0)
    # the position in ``hashes`` where each n-gram of each text starts
    first = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    acc = _ngram_hashes(hashes, first, n)
    if len(short):  # a text shorter than n words is one shingle, its words padded with zeros
        padded = np.zeros((len(short), n), dtype=np.uint64)
        for row, i in enumerate(short):
            padded[row, : lengths[i]] = hashes[starts[i] : starts[i] + lengths[i]]
        one = _ngram_hashes(padded.ravel(), np.arange(len(short)) * n, n)
        acc = np.insert(acc, np.cumsum(counts)[short] - counts[short], one)
        counts[short] = 1
    return _as_sets(acc, counts)


PAD = np.uint64(2**64 - 1)


def _as_sets(values: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each text's values sorted and without repeats (every text has at least one value).

    The exact Jaccard needs sets. Texts are sorted many at once as the rows of a padded matrix,
    which numpy sorts many times faster than one small array at a time; texts of very different
    lengths go to different matrices, so that padding never costs more than the values.
    """
    if not len(counts):
        return values, counts
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    if int(counts.max()) * len(counts) <= 4 * len(values):  # one matrix (the usual batch)
        groups = [np.arange(len(counts))]
    else:  # rows of similar width together: widths within a factor of two
        width_class = np.ceil(np.log2(counts)).astype(np.int64)
        groups = [np.flatnonzero(width_class == k) for k in np.unique(width_class)]
    ordered = np.empty_like(values)
    for rows in groups:
        sizes = counts[rows]
        width = int(sizes.max())
        before = np.cumsum(sizes) - sizes
        step = np.arange(int(sizes.sum()), dtype=np.int64)
        cells = np.repeat(np.arange(len(rows), dtype=np.int64) * width - before, sizes) + step
        matrix = np.full((len(rows), width), PAD, dtype=np.uint64)
        if len(rows) == len(counts):  # every text, in order: the values are in their order already
            matrix.ravel()[cells] = values
            matrix.sort(axis=1)
            ordered = matrix.ravel()[cells]
        else:
            source = np.repeat(starts[rows] - before, sizes) + step
            matrix.ravel()[cells] = values[source]
            matrix.sort(axis=1)
            ordered[source] = matrix.ravel()[cells]
    # Repeats are rare (a text saying the same three words twice): found, then dropped.
    repeat = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
    text = np.searchsorted(starts, repeat, side="right") - 1
    inside = starts[text] != repeat  # equal to the last value of the text before: not a repeat
    repeat, text = repeat[inside], text[inside]
    if not len(repeat):
        return ordered, counts
    keep = np.ones(len(ordered), dtype=bool)
    keep[repeat] = False
    return ordered[keep], counts - np.bincount(text, minlength=len(counts))


@dataclass
class ShingleSets:
    """The shingle sets of many texts: text i's are ``flat[offsets[i]:offsets[i + 1]]``,
    sorted and without repeats."""

    flat: np.ndarray
    offsets: np.ndarray
    _bounds: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def of(self, i: int) -> np.ndarray:
        if not self._bounds:
            self._bounds.extend(self.offsets.tolist())
        return self.flat[self._bounds[i] : self._bounds[i + 1]]


def slices(texts: Sequence[str], chars: int) -> list[tuple[int, int]]:
    """Consecutive (start, stop) of ``texts``, each ending with the text that brings it to
    ``chars`` characters (at least one slice, if empty)."""
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(texts) or not out:
        stop = min(len(texts), int(np.searchsorted(ends, (ends[start - 1] if start else 0) + chars)) + 1)
        out.append((start, stop))
        start = stop
    return out


def shingle_many(n: int, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The word n-gram hashes of all ``texts`` as one flat array and a count per text, computed
    with numpy a batch of texts at a time.

    Words are what ``str.split()`` gives on the case-folded text (for normalized text, which
    holds no white space but single ASCII spaces); an n-gram's hash mixes its words' hashes, and
    each value depends on its words alone, so it does not depend on how texts are batched or on
    what else is in the build: adding a dump cannot change the shingles of texts already there.
    Two distinct shingles collide with probability about 2^-64.
    """
    parts = [_shingle_batch(n, texts[start:stop]) for start, stop in slices(texts, BATCH_CHARS)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]).astype(np.int64)


def set_offsets(counts: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(counts) + 1, dtype=np.uint64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def shingle_sets(texts: Sequence[str], n: int) -> ShingleSets:
    """The shingle sets of all texts."""
    flat, counts = shingle_many(n, texts)
    return ShingleSets(flat, set_offsets(counts))
