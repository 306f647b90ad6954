"""The distinct normalized texts of a build, collected dump by dump.

Each record leaves behind the index of its distinct normalized text (its *version*), so exact
duplicates collapse as they arrive and memory follows the distinct texts, not the raw records.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..ingest.parse import Dump, no_visible_text
from ..text.normalize import normalize


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Grow:
    """A numpy column appended to in blocks (amortized doubling)."""

    def __init__(self, dtype):
        self.data = np.zeros(1024, dtype=dtype)
        self.n = 0

    def extend(self, values: np.ndarray) -> None:
        end = self.n + len(values)
        if end > len(self.data):
            self.data = np.resize(self.data, max(end, 2 * len(self.data)))
        self.data[self.n : end] = values
        self.n = end

    def array(self) -> np.ndarray:
        return self.data[: self.n]


class Versions:
    """The distinct normalized texts met so far, numbered in order of first appearance (which
    is added order), with what the dedup rules need of each: its first record and its newest
    (crawl rank of the dump, record index)."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.text: list[str] = []
        self.sha: list[str] = []
        self.first = _Grow(np.int64)
        self.newest = _Grow(np.int64)
        # Raw texts that need ftfy and Unicode work map straight to their version: recrawls repeat
        # the same mojibake or decomposed text, and normalizing it again costs a hundred times more
        # than the look-up. Printable ASCII takes normalize's shortcut and needs no memory here.
        self.of_raw: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.text)

    def add_dump(self, dump: Dump, first_record: int, crawl_rank: int, record_index: np.ndarray) -> np.ndarray:
        """The version of each record of ``dump``, its records numbered from ``first_record``."""
        index, of_raw, texts = self.index, self.of_raw, self.text
        out = np.empty(len(dump.records), dtype=np.int32)
        new_first: list[int] = []
        for k, r in enumerate(dump.records):
            raw = r.text
            ascii_only = raw.isascii()
            v = None if ascii_only else of_raw.get(raw)
            if v is None:
                fixed = normalize(raw)
                if not fixed:
                    raise no_visible_text(dump.name, r.line_start)
                v = index.get(fixed)
                if v is None:
                    v = index[fixed] = len(texts)
                    texts.append(fixed)
                    self.sha.append(_sha256(fixed))
                    new_first.append(first_record + k)
                if not ascii_only:
                    of_raw[raw] = v
            out[k] = v
        self.first.extend(np.array(new_first, dtype=np.int64))
        key = (np.int64(crawl_rank) << np.int64(32)) | record_index.astype(np.int64)
        if len(self.newest.array()) < len(texts):
            self.newest.extend(np.full(len(texts) - self.newest.n, -1, dtype=np.int64))
        np.maximum.at(self.newest.data, out, key)
        return out
