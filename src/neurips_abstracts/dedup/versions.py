"""The distinct normalized texts of a build, collected dump by dump.

Each record leaves behind the index of its distinct normalized text (its *version*), so exact
duplicates collapse as they arrive and memory follows the distinct texts, not the raw records.
"""

from __future__ import annotations

import hashlib
import sys
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from ..core.arrays import GrowingColumn
from ..ingest.parse import Dump, no_visible_text, parse_records
from ..text.normalize import normalize, normalize_many, one_pass


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Prepared:
    """One dump parsed and normalized on its own: what the build
    keeps of it. Its records' raw texts stay in the bytes of the dump, where the spool takes them."""

    dump: Dump  # without its records
    positions: np.ndarray  # (records, columns) int64, the columns asked for
    texts: list[str]  # the dump's distinct normalized texts, in order of first appearance
    first: np.ndarray  # the record (index in the dump) where each first appears
    local: np.ndarray  # per record, its text's index in ``texts``


def prepare_dump(name: str, data: bytes, venue: str, year: int, columns: tuple[str, ...], stage=None,
                 memo: NormalizeMemo | None = None, sha256: str | None = None) -> Prepared:
    """Parse and normalize one dump: a function of its bytes and the config alone, so dumps can
    be prepared in any process, in any order, and give the same result. ``stage(name)`` times
    "parse" and "normalize" (in this process); ``memo`` may be one build's, shared by its dumps;
    ``sha256``: that of ``data``, where the caller hashed them already."""
    stage = stage or (lambda _: nullcontext())
    with stage("parse"):
        dump, records = parse_records(name, data, venue, year, sha256)
        positions = np.array([np.arange(len(records)) if c == "record_index" else getattr(records, c) for c in columns],
                             dtype=np.int64).T.reshape(-1, len(columns))
    with stage("normalize"):
        texts, first, local = _distinct(name, records.text, records.line_start, memo or NormalizeMemo())
    return Prepared(dump, positions, texts, np.array(first, dtype=np.int64), local)


class NormalizeMemo:
    """``normalize`` remembered, up to ``max_bytes`` of texts (then it starts again, empty).

    Copies of an abstract are spread over the dumps, so one memo serves all the dumps a build
    normalizes in its own process: about half of the records of a build are copies of a text met
    before. ``normalize`` is pure, so a memo cannot change a result. The build asks it only about
    the texts ``normalize_many`` does not settle at once (those not ASCII, or with ESC), the
    slow ones. A build whose such texts exceed the default bound, 256 MiB, fills it and starts
    again, and then meets fewer copies in it."""

    def __init__(self, max_bytes: int = 256 << 20):
        self.max_bytes = max_bytes
        self.of: dict[str, str] = {}
        self.nbytes = 0

    def __call__(self, raw: str) -> str:
        fixed = self.of.get(raw)
        if fixed is None:
            # normalize repeats one pass until the text stops changing: after the first pass,
            # the rest is normalize of what it made, often a text met before (the copies of an
            # abstract with other white space, other Unicode forms or mojibake all pass to the
            # abstract itself), which the memo may hold.
            once = one_pass(raw)
            fixed = raw if once == raw else self.of.get(once) or normalize(once)
            # Printable, single-spaced ASCII is its own normalized text: one string, counted once.
            size = sys.getsizeof(raw) + (0 if fixed is raw else sys.getsizeof(fixed))
            if self.nbytes + size > self.max_bytes:
                self.of.clear()
                self.nbytes = 0
            self.of[raw] = fixed
            self.nbytes += size
        return fixed


def _distinct(
    name: str, records: list[str], line_start: list[int], normalized: NormalizeMemo
) -> tuple[list[str], list[int], np.ndarray]:
    """The distinct normalized texts of a dump's records, the record where each first appears,
    and each record's text (index). Dictionaries built from iterators do the per-record steps
    (a dictionary keeps its keys in first-insertion order)."""
    fixed = normalize_many(records, normalized)
    if "" in fixed:  # the first record normalized to nothing
        raise no_visible_text(name, line_start[fixed.index("")])
    texts = list(dict.fromkeys(fixed))
    index = dict(zip(texts, range(len(texts))))
    local = np.fromiter(map(index.__getitem__, fixed), np.int32, len(fixed))
    # Each text's first record: the texts are numbered in order of first appearance.
    first = np.unique(local, return_index=True)[1].tolist()
    return texts, first, local


class Versions:
    """The distinct normalized texts met so far, numbered in order of first appearance (which
    is added order), with what the dedup rules need of each: its first record and its newest
    (crawl rank of the dump, record index)."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.text: list[str] = []
        self.sha: list[str] = []
        self.first = GrowingColumn(np.int64)
        self.newest = GrowingColumn(np.int64)

    def __len__(self) -> int:
        return len(self.sha)  # the texts themselves are released for the plain text (see ``stages.render``)

    def add(self, prepared: Prepared, first_record: int, crawl_rank: int, record_index: np.ndarray) -> np.ndarray:
        """The version of each record of a prepared dump, its records numbered from ``first_record``."""
        index, texts = self.index, self.text
        # Dictionary and map steps in place of a Python step per text; a dump's texts are
        # distinct, so its new ones are numbered in their order, after those met before.
        # (A look-up compares the texts themselves, in memory far apart: one look-up per text.)
        version_of = np.fromiter(map(index.get, prepared.texts, repeat(-1)), np.int32, len(prepared.texts))
        new_at = np.flatnonzero(version_of < 0)
        new = [prepared.texts[t] for t in new_at.tolist()]
        version_of[new_at] = np.arange(len(texts), len(texts) + len(new))
        index.update(zip(new, range(len(texts), len(texts) + len(new))))
        texts += new
        self.sha += map(_sha256, new)
        new_first = first_record + prepared.first[new_at]
        out = version_of[prepared.local]
        self.first.extend(new_first)
        key = (np.int64(crawl_rank) << np.int64(32)) | record_index.astype(np.int64)
        if len(self.newest.array()) < len(texts):
            self.newest.extend(np.full(len(texts) - self.newest.n, -1, dtype=np.int64))
        np.maximum.at(self.newest.data, out, key)
        return out
