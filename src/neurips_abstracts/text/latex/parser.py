"""LaTeX text to nodes for the renderer (:mod:`.render`): tokens, brace groups and math, paired in
time linear in the text, and the math spans that plain.py holds out of markdown."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from itertools import compress, count

from .tables import MATH_ENVS, known_names

# Verbatim spans: a bare URL, or \url{..}/\href{..} holding one (plain.py holds them out of markdown too).
URL_RE = re.compile(r"(https?://[^\s{}\\$<>\"]+|\\url\{[^{}]*\}|\\href\{[^{}]*\})")
# A run of ties (~~) or of line breaks (\\\\) is one token: each is one space. The run of line
# breaks is possessive: a greedy group repeat keeps a backtracking point per repeat, which made
# a long run of backslashes cost more than linear time in memory traffic.
_TOKEN_RE = re.compile(r"\\[A-Za-z]+\*?|(?:\\\\){2,}+|\\.?|\$\$|~+|[{}$^_]|[^\\{}$^_~]+", re.S)
_DOUBLED_RE = re.compile(r"\\\\([A-Za-z]+)")
# _TOKEN_RE with a run of "$$" tokens as one match, which _findall gives back as that many "$$":
# one object for a run of dollars, not one per pair. Equal to _TOKEN_RE's tokens, as a "$$" token
# can only be followed by the next one or by a lone "$" (a test checks it).
_PAIRS_TOKEN_RE = re.compile(_TOKEN_RE.pattern.replace(r"|\$\$|", r"|(?:\$\$)++|"), re.S)


def _undouble(m: re.Match) -> str:
    return "\\" + m[1] if len(m[1]) > 1 and m[1] in known_names() else m[0]


def undoubled(text: str) -> str:
    """``text`` with each doubled backslash before a known macro's name single: an over-escaped
    abstract writes ``\\\\textit`` for ``\\textit``, and a line break is never followed by a
    macro name (``\\\\x`` stays a line break and an x). How the source is read, before any
    rendering: the words-kept oracle reads it so too."""
    return _DOUBLED_RE.sub(_undouble, text) if "\\\\" in text else text


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    text = undoubled(text)
    # URL_RE can only match where one of these stands: the split is skipped when none does
    could_link = "http" in text or "\\url{" in text or "\\href{" in text
    if not could_link:
        return _findall(text)
    for i, part in enumerate(URL_RE.split(text)):
        if i % 2:
            out.append("\x00" + part)  # verbatim: a URL, or \url{..}/\href{..} holding one
        elif part:
            out.extend(_findall(part))
    return out


# Where a token starts whatever stands before it: every token stops before "{", "}", "$" and
# "\\", save one that a "\\" before it escapes or a "$" before it pairs with ("$$").
# The class comes first, so that the search skips to it in C: a look-behind first is tried at every
# character, 5 times slower through a text that has no cut (pieces start after the text's start).
_CUT_RE = re.compile(r"[{}$\\](?<=[^\\$].)", re.S)
# Small enough that a piece's new objects stay in the processor's caches; every real abstract is
# shorter, and is tokenized at once.
_PIECE = 16_384


def _findall(text: str, piece: int = _PIECE) -> list[str]:
    """_TOKEN_RE's tokens of ``text``. A long text is tokenized a piece at a time, cut where a
    token starts, keeping one string object for equal tokens: a text of markup repeats a few
    tokens hundreds of thousands of times, and a new object for each would no longer fit the
    processor's caches at 1 MB. A piece's own objects are freed before the next one is made."""
    if len(text) <= piece:
        return _TOKEN_RE.findall(text)  # most texts: the list as findall makes it
    out: list[str] = []
    first: dict[str, str] = {}
    start = 0
    while start < len(text):
        cut = _CUT_RE.search(text, start + piece)
        stop = cut.start() if cut else len(text)
        if text.find("$$$$", start, stop) < 0:
            tokens = _TOKEN_RE.findall(text, start, stop)
            out += map(first.setdefault, tokens, tokens)
        else:  # a run of dollars is never cut: found as runs of pairs, not a string per pair
            for token in _PAIRS_TOKEN_RE.findall(text, start, stop):
                if token.startswith("$$$$"):
                    out += [first.setdefault("$$", "$$")] * (len(token) // 2)
                else:
                    out.append(first.setdefault(token, token))
        start = stop
    return out


_CLOSERS = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}


def is_currency(body: str, after_close: str) -> bool:
    """Whether a ``$`` and the next one are two currency signs, not math, from the ``body``
    between them and what follows the second: the first stands before a number, and either the
    second does too (``$5 and $10``), or the body is prose that ends in a space (``$20. Then
    $x$``). Math may start with a digit ($1-\\delta$, ``$2.2 $\\%``) or stand before one
    (64$\\times$64), but not both."""
    if body[:1] not in DIGITS:
        return False
    return after_close[:1] in DIGITS or body[-1:].isspace() and _PROSE_WORD_RE.search(body) is not None


_PROSE_WORD_RE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
DIGITS = frozenset("0123456789")
# The tokens that open or close something (any other token is a node as it is).
_STRUCTURAL = frozenset(["{", "}", "$", "$$", "\\(", "\\)", "\\[", "\\]", "\\begin", "\\end"])
# The first characters of the tokens that may open or close something.
_PARSE_STARTS = frozenset("{}$\\")


class Parser:
    """Nodes of a token list. Every look-ahead is a binary search in positions found once
    (where each closer occurs, where each environment ends), so that parsing is linear in the
    number of tokens: no opener scans the rest of the text for its closer."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        # Found in C, not token by token: the tokens between two of these are copied as a slice.
        # Kept as machine integers: a list would hold an int object per mark, and a text of
        # markup alone has one per token, which at 1 MB no longer fits the processor's caches.
        self.marks = array("q", compress(count(), map(_STRUCTURAL.__contains__, tokens)))
        self._at: dict[str, array] = {}
        self._ends: dict[str, list[int]] | None = None

    def at(self, close: str) -> array:
        """Indexes of the tokens equal to ``close``, found on first use."""
        if close not in self._at:
            tokens = self.tokens
            self._at[close] = array("q", [j for j in self.marks if tokens[j] == close])
        return self._at[close]

    def ends(self, name: str) -> list[int]:
        """Indexes of the ``\\end{name}`` of environment ``name``."""
        if self._ends is None:
            tokens, self._ends = self.tokens, {}
            for j in [j for j in self.marks if tokens[j] == "\\end"]:
                if j + 3 < len(tokens) and tokens[j + 1] == "{" and tokens[j + 3] == "}":
                    self._ends.setdefault(tokens[j + 2].strip(), []).append(j)
        return self._ends.get(name, [])

    @staticmethod
    def _next(positions, i: int, end: int) -> int:
        """The first position at or after ``i`` and before ``end``, or -1."""
        k = bisect_left(positions, i)
        return positions[k] if k < len(positions) and positions[k] < end else -1

    def parse(self, i: int, end: int, closers: tuple[str, ...]) -> tuple[list, int]:
        """Nodes up to one of ``closers`` (consumed) or ``end``. A node is a token string, or a
        list (a brace group), or a tuple ("$", nodes) for math, ("$", token) for math of one
        token ($a$: no list of one for each)."""
        tokens, marks = self.tokens, self.marks
        n_marks = len(marks)
        nodes: list = []
        while i < end:
            tok = tokens[i]
            if tok not in _STRUCTURAL:  # most tokens
                if i + 1 == end or tokens[i + 1] in _STRUCTURAL:  # one alone (a \\( b \\( ..): no search
                    nodes.append(tok)
                    i += 1
                    continue
                m = bisect_left(marks, i)
                mark = marks[m] if m < n_marks and marks[m] < end else end
                nodes += tokens[i:mark]
                i = mark
                continue
            i += 1
            if tok in closers:
                return nodes, i
            if tok == "{":
                group, i = self.parse(i, end, ("}", *[c for c in closers if c != "}"]))
                if i <= end and tokens[i - 1] in closers and tokens[i - 1] != "}":
                    i -= 1  # math closed inside an unclosed group: let the math see its closer
                nodes.append(group)
            elif tok == "}":
                continue  # unbalanced: markup only
            elif tok in _CLOSERS:
                close = _CLOSERS[tok]
                # The closer right after the opener or after one token is found without a search.
                if i < end and tokens[i] == close:  # empty math ($$$$, \\(\\)) shows nothing
                    i += 1
                    continue
                if i + 1 < end and tokens[i + 1] == close and (first := tokens[i][:1]) not in _PARSE_STARTS:
                    if tok == "$" and first in DIGITS and is_currency(tokens[i], tokens[i + 2] if i + 2 < end else ""):
                        nodes.append("$")  # a currency sign opens no math: a character
                        continue
                    nodes.append(("$", tokens[i]))  # $a$, $10$: math of one token
                    i += 2
                    continue
                positions = self._at.get(close)
                if positions is None:
                    positions = self.at(close)
                # none left (an opener never closed, repeated): no search
                j = -1 if not positions or positions[-1] < i else self._next(positions, i, end)
                if j < 0 or tok == "$" and tokens[i][:1] in DIGITS and is_currency("".join(tokens[i:j]), tokens[j + 1] if j + 1 < end else ""):
                    if tok[0] == "$":
                        nodes.append(tok[-1])  # opens no math: a character
                    continue  # a stray \\( or \\[ shows nothing
                body, i = self.parse(i, end, (close,))
                nodes.append(("$", body))
            elif tok == "\\begin" and i + 2 < end and tokens[i] == "{" and tokens[i + 2] == "}":
                # an environment stands apart from the words around it, as a paragraph of its own
                name = tokens[i + 1].strip()
                i += 3
                nodes.append(" ")
                if name in MATH_ENVS:
                    stop = self._next(self.ends(name), i, end - 3)
                    stop = end if stop < 0 else stop
                    body, _ = self.parse(i, stop, ())
                    nodes += [("$", body), " "]
                    i = stop + 4
            elif tok == "\\end" and i + 2 < end and tokens[i] == "{" and tokens[i + 2] == "}":
                nodes.append(" ")
                i += 3
            else:
                nodes.append(tok)
        return nodes, i


_DELIMITER_RE = re.compile(r"\\[()\[\]]|\\.|\$\$|\$", re.S)


def math_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each math span of ``text``, delimiters included, paired as the renderer
    pairs them: ``$..$``, ``$$..$$``, ``\\(..\\)``, ``\\[..\\]``; an escaped ``\\$`` is a
    character, and so is an opener without a closer and a currency sign (:func:`is_currency`)."""
    found = [(m.start(), m.end(), m.group()) for m in _DELIMITER_RE.finditer(text)]
    at: dict[str, list[int]] = {close: [] for close in _CLOSERS.values()}
    for j, (_, _, tok) in enumerate(found):
        if tok in at:
            at[tok].append(j)
    spans = []
    k, n = 0, len(found)
    while k < n:
        start, after, tok = found[k]
        k += 1
        close = _CLOSERS.get(tok)
        if close is None:
            continue
        j = Parser._next(at[close], k, n)
        if j < 0 or tok == "$" and is_currency(text[after : found[j][0]], text[found[j][1] : found[j][1] + 1]):
            continue
        spans.append((start, found[j][1]))
        k = j + 1
    return spans
