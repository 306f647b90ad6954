"""Parse the dump format into raw records, keeping exact provenance.

A dump is UTF-8 text: line 1 is the header (``NeurIPS 2026 论文列表``), then abstracts, one per
paragraph, separated by one or more blank lines. Real files carry a BOM, CRLF line ends,
trailing spaces and tabs, runs of blank lines, no final newline, and abstracts hard-wrapped over
several lines. Everything here is a pure function of (file name, bytes).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, replace
from itertools import compress, repeat
from operator import not_

import numpy as np

from ..core.ahead import sha256_hex
from ..core.errors import DumpError
from ..text.characters import bad_character, bad_character_marks

BOM = b"\xef\xbb\xbf"
# The year in ASCII digits: ``\d`` would read the interpreter's Unicode tables (new digits in each version).
HEADER_RE = re.compile(r"^(?P<venue>\S.*?)\s+(?P<year>[0-9]{4})\s*论文列表$")
# Control characters that may not appear in a header line (TAB is tolerated as whitespace).
_HEADER_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A file with at least this many C0 control bytes (other than TAB/LF/CR), making up more than
# this share of its bytes, is binary. A stray control in real text (a backspace pasted from a
# PDF) is not: normalization removes it and `validate` warns about it.
_BINARY_CONTROL_MIN = 16
_BINARY_CONTROL_SHARE = 0.01
_C0_CONTROLS = bytes(c for c in range(32) if c not in (9, 10, 13))
# Characters that show nothing: Unicode format characters (zero-width spaces and joiners,
# U+FEFF, word joiners, bidirectional marks, invisible operators, tags), fillers drawn as blanks
# and variation selectors. A line of only these and white space (str.strip() removes U+00A0 and
# the other spaces) looks blank to whoever reads the dump, so it separates records like a blank
# line. The prepended number signs of Arabic and other scripts are format characters that show.
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_INVISIBLE_LINE_RE = re.compile(f"[\\s{INVISIBLE}]+")


@dataclass(frozen=True)
class RawRecord:
    record_index: int
    line_start: int
    line_end: int
    byte_start: int
    byte_end: int
    text_raw: str
    text: str  # lines stripped and joined with one space: hard wraps undone, nothing else touched


@dataclass(frozen=True)
class Dump:
    name: str
    sha256: str
    venue: str
    year: int
    records: tuple[RawRecord, ...]
    n_records: int
    invisible_lines: tuple[tuple[int, str], ...] = ()  # (line, its characters): lines taken as blank


def bad_character_error(name: str, raw: str, line_start: int) -> DumpError | None:
    """The error, at its line and column, for the record ``raw`` text, from line ``line_start``,
    if it holds a character no abstract may hold, written or escaped
    (:func:`.characters.bad_character`); None for a record without one."""
    found = bad_character(raw)
    if found is None:
        return None
    offset, why = found
    before = raw[:offset]
    line = line_start + before.count("\n")
    return DumpError(name, why, line, offset - before.rfind("\n"), code="bad-character")


def no_visible_text(name: str, line: int) -> DumpError:
    return DumpError(name, "record has no visible text (only control or invisible characters)", line, code="empty-record")


def _locate(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and byte column of ``offset``."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def _decode(name: str, data: bytes, start: int = 0, end: int | None = None) -> str:
    """``data[start:end]`` decoded; DumpError at the first bad byte. Every bad byte is reported
    as a decoding of the whole file reports it, as long as the piece ends at a line end (a
    newline is never part of a UTF-8 sequence) or at the file's end."""
    try:
        return data[start:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = start + exc.start
        line, column = _locate(data, at)
        bad = data[at : start + exc.end].hex(" ")
        raise DumpError(
            name, f"invalid UTF-8 ({exc.reason}) at byte {at} (0x{bad}); save the file as UTF-8", line, column
        ) from None


def _binary_controls(controls: int, size: int) -> bool:
    return controls >= _BINARY_CONTROL_MIN and controls / size > _BINARY_CONTROL_SHARE


# UTF-32's marks first: little-endian UTF-32's begins with little-endian UTF-16's.
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                     (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def _utf16_without_mark(data: bytes) -> str | None:
    """"UTF-16LE" or "UTF-16BE" for text saved so with no mark: the header's ASCII start puts a NUL
    at every second byte of its first characters, and the whole decodes."""
    head = data[:32]
    if len(data) % 2 or len(head) < 8:
        return None
    for encoding, zeros, letters in (("UTF-16LE", head[1::2], head[::2]), ("UTF-16BE", head[::2], head[1::2])):
        if zeros.count(0) >= len(zeros) * 3 // 4 and letters.count(0) == 0:
            try:
                data.decode(encoding.lower())
            except UnicodeDecodeError:
                return None
            return encoding
    return None


_BLOCK = 1 << 20


def _bytes_below_space(data: bytes, block: int = _BLOCK) -> int:
    """How many bytes of ``data`` are below 0x20, counted a block at a time: a comparison of
    the whole dump at once made a temporary array as large as the dump, for which the system
    handed out (and zeroed) new memory for every dump of a build."""
    values = np.frombuffer(data, np.uint8)
    return sum(int(np.count_nonzero(values[k : k + block] < 0x20)) for k in range(0, len(values), block))


def _newlines(data: bytes, block: int = _BLOCK) -> np.ndarray:
    """The offsets of every newline of ``data``, in order, found a block at a time (see
    ``_bytes_below_space``)."""
    values = np.frombuffer(data, np.uint8)
    found = [np.flatnonzero(values[k : k + block] == 10) + k for k in range(0, len(values), block)]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _check_binary(name: str, data: bytes) -> None:
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            raise DumpError(name, f"{encoding} text (as Notepad saves 'Unicode'), not UTF-8: save the file as UTF-8", 1, 1)
    nul = data.find(b"\x00")
    if nul >= 0:
        unmarked = _utf16_without_mark(data)
        if unmarked:
            raise DumpError(name, f"{unmarked} text without a byte order mark, not UTF-8: save the file as UTF-8", 1, 1)
        line, column = _locate(data, nul)
        raise DumpError(name, "NUL byte: this is a binary file, not a text dump", line, column)
    # Bytes below 0x20, TAB, LF and CR too, bound the controls from above: most dumps are
    # cleared by that one fast count, without counting exactly.
    if not _binary_controls(_bytes_below_space(data), len(data)):
        return
    controls = len(data) - len(data.translate(None, _C0_CONTROLS))
    if _binary_controls(controls, len(data)):
        raise DumpError(name, f"{controls} control bytes in {len(data)}: this looks like a binary file, not a text dump")


_LEADING_BLANK_LINES_RE = re.compile(rb"(?:[ \t\r]*\n)*")


def parse_header(name: str, line: str, expected_venue: str | None, expected_year: int | None, at: int = 1) -> tuple[str, int]:
    """The venue and year of the header ``line``, line ``at`` of the dump."""
    header = line.strip()
    bad = _HEADER_CONTROL_RE.search(header)
    if bad:
        raise DumpError(name, f"control character U+{ord(bad.group()):04X} in the header line", at, bad.start() + 1)
    match = HEADER_RE.match(header)
    expected = f"{expected_venue or '<venue>'} {expected_year or '<year>'} 论文列表"
    if not match:
        shown = header if len(header) <= 80 else header[:77] + "..."
        raise DumpError(name, f"not the header: line {at} should be {expected!r}, found {shown!r}", at)
    venue, year = match["venue"], int(match["year"])
    if (expected_venue is not None and venue != expected_venue) or (expected_year is not None and year != expected_year):
        raise DumpError(name, f"header names {venue} {year}, but this project's dumps start with {expected!r}", at)
    return venue, year


# A record: a run of lines each holding a character that is neither white space nor invisible
# (the lines ``str.strip()`` and the invisible rule above leave non-blank), found by one scan of the
# decoded text instead of a Python step per line. ``^`` pins every attempt to a line start, so the
# scan stays linear however long a blank line is.
_RECORD_RE = re.compile(f"^(?:[^\\n]*[^\\n\\s{INVISIBLE}][^\\n]*(?:\\n|\\Z))+", re.MULTILINE)


def _invisible_lines(text: str, gaps: list[tuple[int, int]], first_line: int = 1) -> list[tuple[int, str]]:
    """(line, its characters) of each line in the spans ``gaps`` of ``text`` (whole lines
    between records; ``text`` starts at line ``first_line``) that holds only invisible
    characters and white space, one of them invisible."""
    found = []
    for start, end in gaps:
        for number, line in enumerate(text[start:end].split("\n"), start=text.count("\n", 0, start) + first_line):
            stripped = line.strip()
            if stripped and not stripped.isascii() and _INVISIBLE_LINE_RE.fullmatch(stripped):
                found.append((number, stripped))
    return found


# The record rule read on the bytes: a run of blank lines, from the line end before it, where a
# blank line holds only ASCII white space (as \s reads it). A line holding other bytes than those
# is a record line, or, if it holds non-ASCII bytes, may be one: the record rule above, on the
# decoded text, settles those. Starting with a newline, the expression is tried at line ends only.
_ASCII_BLANK = bytes(c for c in range(128) if c != 10 and _INVISIBLE_LINE_RE.fullmatch(chr(c)))
_GAP_RE = re.compile(rb"\n(?:[" + re.escape(_ASCII_BLANK) + rb"]*(?:\n|\Z))+")
_IS_BLANK = np.zeros(256, bool)
_IS_BLANK[list(_ASCII_BLANK)] = True
_NOT_BLANK_RE = re.compile(rb"[^" + re.escape(_ASCII_BLANK) + rb"]")
_SHORT_LINE = 4


def _gaps(data: bytes, newlines: np.ndarray, pos: int) -> tuple[np.ndarray, np.ndarray]:
    """The spans (starts, ends) of ``_GAP_RE.finditer(data, pos)``, ``newlines`` the offsets of
    every newline of ``data``: read from the lines rather than by a scan of every byte. A gap
    is a maximal run of blank lines, from the newline before the first to the newline after the
    last (or the end of ``data``)."""
    newlines = newlines[np.searchsorted(newlines, pos):]
    if not len(newlines):
        return newlines, newlines
    d = np.frombuffer(data, np.uint8)
    line_start = newlines + 1  # the line after each newline
    line_end = np.append(newlines[1:], len(data))
    size = line_end - line_start
    blank = size == 0
    # A line is blank if its bytes all are: looked at by position for short lines (blank lines
    # are: "", "\r", " "), by a search for the longer ones that start with a blank byte.
    maybe = np.flatnonzero(~blank & _IS_BLANK[d[np.minimum(line_start, len(d) - 1)]])
    short = maybe[size[maybe] <= _SHORT_LINE]
    all_blank = np.ones(len(short), bool)
    for at in range(1, _SHORT_LINE):
        all_blank &= (size[short] <= at) | _IS_BLANK[d[np.minimum(line_start[short] + at, len(d) - 1)]]
    blank[short[all_blank]] = True
    for k in maybe[size[maybe] > _SHORT_LINE].tolist():
        blank[k] = _NOT_BLANK_RE.search(data, int(line_start[k]), int(line_end[k])) is None
    follows_blank = np.concatenate([[False], blank[:-1]])
    precedes_blank = np.concatenate([blank[1:], [False]])
    first, last = np.flatnonzero(blank & ~follows_blank), np.flatnonzero(blank & ~precedes_blank)
    ends = np.where(last + 1 < len(newlines), newlines[np.minimum(last + 1, len(newlines) - 1)] + 1, len(data))
    return newlines[first], ends


@dataclass(frozen=True)
class Records:
    """A dump's records as columns, record k at index k: what a build keeps of them (their raw
    text stays in the dump's bytes, ``data[byte_start[k]:byte_end[k]]``)."""

    line_start: list[int]
    line_end: list[int]
    byte_start: list[int]
    byte_end: list[int]
    text: list[str]  # as RawRecord.text

    def __len__(self) -> int:
        return len(self.text)


def parse_records(
    name: str, data: bytes, expected_venue: str | None = None, expected_year: int | None = None,
    sha256: str | None = None,
) -> tuple[Dump, Records]:
    """Parse one dump into its facts (a :class:`Dump` without records) and its records as
    columns. Raises :class:`DumpError` naming the file and line for bad input. ``sha256``: that
    of ``data`` (``ahead.sha256_hex``), where the caller hashed them already."""
    if not data or data.isspace():  # bytes.isspace() tests the white space bytes.strip() removes
        raise DumpError(name, "empty file: a dump starts with a header line and holds at least one abstract")
    _check_binary(name, data)
    start = len(BOM) if data.startswith(BOM) else 0
    # Blank lines before the header (a copy that began a line early) are skipped: the header is
    # the first line holding anything; record lines and byte spans still count from the file's start.
    start = _LEADING_BLANK_LINES_RE.match(data, start).end()  # type: ignore[union-attr]  # matches the empty string
    header_line = data.count(b"\n", 0, start) + 1
    newline = data.find(b"\n", start)
    header = _decode(name, data, start, None if newline < 0 else newline + 1).rstrip("\n")
    body_start = len(data) if newline < 0 else newline + 1
    # The file is decoded a run of record lines at a time, in order, so its first bad byte is
    # found first; a bad header or a bad character is reported only once the whole file decodes.
    newlines = _newlines(data)
    gap_starts, gap_ends = _gaps(data, newlines, max(body_start - 1, start))
    # The runs of record lines: from the body's start or a gap's end to the next gap or the end.
    starts = np.concatenate([[body_start], gap_ends])
    ends = np.concatenate([gap_starts, [len(data)]])
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    out = _Records(name, data)
    if not out.add_all(starts, ends, newlines):
        out = _Records(name, data)
        lines = np.searchsorted(newlines, starts) + 1
        for pos, end, line in zip(starts.tolist(), ends.tolist(), lines.tolist()):
            out.add(pos, end, line)
    venue, year = parse_header(name, header[:-1] if header.endswith("\r") else header, expected_venue, expected_year,
                               header_line)
    if out.bad is not None:
        raise out.bad
    if not out.text:
        raise DumpError(name, "header only: the dump holds no abstracts", header_line)
    dump = Dump(
        name=name, sha256=sha256 or sha256_hex(data), venue=venue, year=year, records=(),
        n_records=len(out.text), invisible_lines=tuple(out.invisible),
    )
    return dump, Records(out.line_start, out.line_end, out.byte_start, out.byte_end, out.text)


def _unwrapped(raw: str) -> str:
    """The text of a record of several lines (one line is only stripped): lines stripped and
    joined with one space, hard wraps undone, nothing else touched."""
    return " ".join([line.strip() for line in raw.split("\n")])


class _Records:
    """The columns of a dump's records as its runs of record lines are added, in order."""

    def __init__(self, name: str, data: bytes):
        self.name, self.data = name, data
        self.line_start: list[int] = []
        self.line_end: list[int] = []
        self.byte_start: list[int] = []
        self.byte_end: list[int] = []
        self.text: list[str] = []
        self.invisible: list[tuple[int, str]] = []
        self.bad: DumpError | None = None  # the first record's bad character

    def add_all(self, starts: np.ndarray, ends: np.ndarray, newlines: np.ndarray) -> bool:
        """Add the runs of lines ``data[starts[k]:ends[k]]`` (in order; ``newlines``: the offsets
        of the dump's newlines) as ``add`` would, each step done for all the runs at once; False,
        adding nothing, if a run does not decode or is not one record (``add`` finds why)."""
        data = self.data
        stops = ends - (np.frombuffer(data, np.uint8)[ends - 1] == 13)  # "\r"
        try:
            view = memoryview(data)  # decoded from the dump's bytes, not from a copy of each run
            raws = list(map(str, map(view.__getitem__, map(slice, starts.tolist(), stops.tolist())), repeat("utf-8")))
        except UnicodeDecodeError:
            return False
        line_start = np.searchsorted(newlines, starts) + 1
        line_end = np.searchsorted(newlines, stops) + 1
        texts = list(map(str.strip, raws))
        for k in np.flatnonzero(line_end > line_start).tolist():
            texts[k] = _unwrapped(raws[k])
        # An ASCII run is one record (every line holds a byte that is not white space); another
        # is if every line holds a character that is neither white space nor invisible.
        for k in compress(range(len(raws)), map(not_, map(str.isascii, raws))):
            lines = [line.strip() for line in raws[k].split("\n")]
            if not all(lines) or any(map(_INVISIBLE_LINE_RE.fullmatch, lines)):
                return False
        self.line_start, self.line_end = line_start.tolist(), line_end.tolist()
        self.byte_start, self.byte_end = starts.tolist(), stops.tolist()
        self.text = texts
        # The first record holding a bad character: only those holding a mark of one may.
        # (A mark is never split by a gap: the marks' bytes are not white space.)
        marks = np.array(bad_character_marks(data) if len(starts) else [], dtype=np.int64)
        at = np.searchsorted(starts, marks, side="right") - 1
        for k in np.unique(at[(at >= 0) & (marks < stops[np.maximum(at, 0)])]).tolist():
            self.bad = bad_character_error(self.name, raws[k], self.line_start[k])
            if self.bad is not None:
                break
        return True

    def add(self, start: int, end: int, line: int) -> int:
        """Add the lines ``data[start:end]`` (``end`` at a line end or the file's end), from line
        ``line``; the line ``end`` is on."""
        data = self.data
        stop = end - 1 if data[end - 1] == 13 else end  # "\r"
        try:
            raw = data[start:stop].decode("utf-8")
        except UnicodeDecodeError:  # reported where a decoding of the whole file reports it
            _decode(self.name, data, start, end + 1)
            raise
        if raw.isascii():  # one record: every line holds a byte that is not white space
            return self._record(raw, start, stop, line)
        whole = _RECORD_RE.match(raw)
        if whole and whole.end() == len(raw):
            return self._record(raw, start, stop, line)
        # Some lines hold only invisible characters: records and blank lines as the rule says.
        at, byte_at, line_at, gaps = 0, start, line, []
        for m in _RECORD_RE.finditer(raw):
            s, e = m.span()
            gaps.append((at, s))
            byte_at += len(raw[at:s].encode("utf-8"))
            line_at += raw.count("\n", at, s)
            if raw[e - 1 : e] == "\n":  # a run's last line came without its CR (see above)
                e -= 1
                if raw[e - 1 : e] == "\r":
                    e -= 1
            size = len(raw[s:e].encode("utf-8"))
            line_at = self._record(raw[s:e], byte_at, byte_at + size, line_at)
            at, byte_at = e, byte_at + size
        gaps.append((at, len(raw)))
        self.invisible += _invisible_lines(raw, gaps, line)
        return line + raw.count("\n")

    def _record(self, raw: str, byte_start: int, byte_end: int, line: int) -> int:
        if self.bad is None:  # bad_character looks for its marks first (see bad_character_marks)
            self.bad = bad_character_error(self.name, raw, line)
        self.line_start.append(line)
        self.byte_start.append(byte_start)
        self.byte_end.append(byte_end)
        if raw.find("\n") < 0:  # find, unlike count, has a fast search for one character
            self.text.append(raw.strip())
        else:
            self.text.append(_unwrapped(raw))
            line += raw.count("\n")
        self.line_end.append(line)
        return line


def parse_dump(
    name: str, data: bytes, expected_venue: str | None = None, expected_year: int | None = None
) -> Dump:
    """Parse one dump, its records as :class:`RawRecord` objects (see ``parse_records``)."""
    dump, records = parse_records(name, data, expected_venue, expected_year)
    spans = zip(records.line_start, records.line_end, records.byte_start, records.byte_end, records.text)
    return replace(dump, records=tuple(
        RawRecord(k, line_start, line_end, byte_start, byte_end, data[byte_start:byte_end].decode("utf-8"), text)
        for k, (line_start, line_end, byte_start, byte_end, text) in enumerate(spans)
    ))
