"""Readable plain text and URLs from a normalized abstract.

``abstract`` keeps LaTeX, markdown and HTML entities as published; ``abstract_plain`` is
:func:`to_plain` of it: markdown links become "text (url)" and markdown emphasis is removed where
CommonMark reads emphasis (``**x**``, ``__x__``, ``*x*``, ``_x_``, ``a *b* c``); then LaTeX is
rendered by :mod:`.latex`, then runs of white space become one space. An ``_`` or ``*`` that
CommonMark reads as a character (``snake_case``, ``x̃_t``, ``a * b``, one with no partner)
stays. It is a pure function of the one abstract: nothing is cached or shared between
abstracts, so a paper's plain text cannot depend on the rest of the build.

Where the project departs from CommonMark's emphasis, on purpose (meaning before markup; the
oracle test against markdown-it-py applies exactly these, by rule):

1. Math spans and URLs are held out of markdown, each read as one character: CommonMark knows
   no math, and an ``_`` or ``*`` in ``$a_i * b_i$`` or in an address is LaTeX or part of the
   address (emphasis around them, ``**N$^2$-GNN**``, is still seen). A bare URL ends before
   trailing punctuation, as GitHub's autolinks do (``*https://x.org/a*.``).
2. A run of ``*`` or of ``_`` inside a word (neither white space nor punctuation on either
   side) with a decimal digit on at least one side is a character, never emphasis:
   ``5*10*20``, ``2*3*4 = 24``, ``x*2*y``, ``cost 5*x*2`` and ``x_1_2`` stay as written. In
   an abstract such a ``*`` is multiplication, and CommonMark's reading (``5``, an emphasized
   ``10``, ``20``) silently changes a number into another (``51020``) or joins a product's
   factors into one word (``x2y``). With letters on both sides (``a*b*c``) CommonMark's
   emphasis stays: the text alone cannot tell a product of letters from emphasis inside a word
   (``un*believ*able``), and an author writes a product of variables in math, which is held
   out. For ``_`` CommonMark agrees already (an intraword ``_`` never opens or closes).

Every step is one pass over the text, or a bounded number of them: the cost of a record is
linear in its length, whatever it holds (benchmarks/linearity.py measures it).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable

from .latex import URL_RE as _VERBATIM_RE, latex_to_text, math_spans
from .unicode import category, is_decimal

__all__ = ["extract_urls", "latex_to_text", "strip_emphasis", "strip_markdown", "to_plain"]

# A URL holds no ``[`` or ``]`` (as in _URL_RE), so that every attempt ends at the next bracket.
_MD_LINK_RE = re.compile(r"\[([^\[\]]+)\]\((https?://[^)\s\[\]]+)\)")
_URL_RE = re.compile(r"https?://[^\s<>\"{}|\\^`\[\]]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?]}'\"*_>"
_AUTOLINK_TRAILING = ".,;:!?'\"*_~"
# Text where none of these occur has no LaTeX or entity to render. Plain substring tests:
# one regular expression with these alternatives costs a fifth of the whole rendering.
_TRIGGERS = ("\\", "$", "{", "}", "~", "&", "--", "``", "''", "!`", "?`")
# Those with a backtick are looked for only where one stands (a search for one character is many
# times faster than for two, and few abstracts hold a backtick).
_TICKED = tuple(t for t in _TRIGGERS if "`" in t)
_UNTICKED = tuple(t for t in _TRIGGERS if "`" not in t)
_HOLE = "\ue000"  # a private-use character stands for each math span and URL while markdown is removed
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# CommonMark's Unicode whitespace (Zs, tab, line feed, form feed, carriage return) and the line
# tabulation markdown-it counts too; the start and the end of the text count as white space.
_SPACE_CATEGORIES = ("Zs",)
# White space that to_plain's last step changes in a text with no space at either end: any but
# a single space between two words.
_UNEVEN_SPACE_RE = re.compile(r"[^\S ]|  ")


def _even_spaces(text: str) -> bool:
    """Whether _UNEVEN_SPACE_RE finds nothing in ``text``. Every white space character but the
    space is unprintable (a test checks all of Unicode), and str.isprintable reads a text five
    times faster than the search: the search is left for a text that holds some unprintable
    character (most hold none)."""
    return "  " not in text and (_printable(text) or not _UNEVEN_SPACE_RE.search(text))


# The ASCII characters str.isprintable refuses: the C0 controls and DEL.
_ASCII_UNPRINTABLE = bytes([*range(0x20), 0x7F])


def _printable(text: str) -> bool:
    """``text.isprintable()``. An ASCII text (most abstracts; a flag of the string, no scan) is
    printable when it holds none of _ASCII_UNPRINTABLE: found by deleting them from its bytes,
    twice as fast as str.isprintable, which looks every character up in the Unicode tables."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_UNPRINTABLE)) == len(data)
    return text.isprintable()


_EMPHASIS_RUN_RE = re.compile(r"\\.|\*+|_+", re.S)
_RUN_RE = re.compile(r"\*+|_+")
# Up to this many delimiters and backslashes (a real abstract has a few), runs are found by
# str.find: regular expressions through the whole text, some 40 ns a character, cost more than a
# step per run. A text of many backslashes would take a Python step for each escape.
_FEW_DELIMITERS = 64
# Where this finds nothing, every delimiter run starts the text or follows ASCII white space, so
# none can close and there is no emphasis: a search in C instead of a pass over every run.
_MAYBE_CLOSER_RE = re.compile(r"[^\t\n\x0b\x0c\r *_][*_]|\*_|_\*")
# A run can open only where something other than ASCII white space or the text's end follows it:
# where this finds nothing, or no possible closer follows the first it finds, there is no
# emphasis either (``a* b*``).
_MAYBE_OPENER_RE = re.compile(r"[*_][^\t\n\x0b\x0c\r *_]|\*_|_\*")
# A delimiter run's flags (its character and what it can do), bits of one small int.
_UNDERSCORE, _CAN_OPEN, _CAN_CLOSE = 4, 2, 1
_CAN_EITHER = _CAN_OPEN | _CAN_CLOSE
_UNDERSCORE_OR_OPEN = _UNDERSCORE | _CAN_OPEN


def _kind(ch: str) -> int:
    """0: white space (or the text's edge), 1: punctuation (Unicode P or S), 2: anything else;
    categories of the pinned Unicode version (a character unassigned in an older one is no
    punctuation there)."""
    if not ch or ch in "\t\n\x0b\x0c\r" or category(ch) in _SPACE_CATEGORIES:
        return 0
    if ch in _ASCII_PUNCT or category(ch)[0] in "PS":
        return 1
    return 2


_ASCII_KIND = {chr(c): _kind(chr(c)) for c in range(128)}


def _is_digit(ch: str) -> bool:
    """A decimal digit of any script (``re``'s ``\\d``, category Nd), of the pinned version."""
    return "0" <= ch <= "9" or not ch.isascii() and is_decimal(ch)


def strip_emphasis(text: str) -> str:
    """``text`` without the ``*`` and ``_`` that CommonMark reads as emphasis markers.

    CommonMark's own algorithm (spec 0.31.2, "Emphasis and strong emphasis", and its "process
    emphasis" procedure): delimiter runs, left- and right-flanking from the characters around
    them, the rule of three, the opener bottoms that keep it linear. A backslash escapes the
    character after it, and a run inside a word by a digit is a character (the module's
    second departure). What the algorithm leaves is kept as written.
    """
    runs: Iterable[tuple[int, int]]
    if text.count("*") + text.count("_") + text.count("\\") <= _FEW_DELIMITERS:  # a step per escape too
        runs = _runs_found(text)
    else:
        # The closers first: through a run of one delimiter, their search fails at the first character.
        first_closer = _MAYBE_CLOSER_RE.search(text)
        first_opener = first_closer and _MAYBE_OPENER_RE.search(text)
        if first_closer is None or first_opener is None or first_opener.start() > first_closer.start() and not (
                _MAYBE_CLOSER_RE.search(text, first_opener.start())):
            return text
        runs = map(re.Match.span, _EMPHASIS_RUN_RE.finditer(text))  # escapes too: skipped below
    # Delimiter runs as three columns (start, length, flags: _UNDERSCORE, _CAN_OPEN, _CAN_CLOSE),
    # not a tuple per run: a long text of runs makes hundreds of thousands, and the fewer objects
    # they take, the more of them stay in the processor's caches. Flags and most lengths are small
    # ints, of which Python keeps one object each.
    starts = array("q")  # read once, to rebuild the text: no int object kept per run
    lengths: list[int] = []
    flags: list[int] = []
    n = len(text)
    for start, end in runs:
        if text[start] == "\\":
            continue
        ch = text[start - 1] if start else ""
        before = _ASCII_KIND.get(ch)
        if before is None:
            before = _kind(ch)
        following = text[end] if end < n else ""
        after = _ASCII_KIND.get(following)
        if after is None:
            after = _kind(following)
        if before == 2 and after == 2 and (_is_digit(ch) or _is_digit(following)):
            continue  # 5*10*20, x*2*y, x_1_2: inside a word, by a digit: a character (the second departure)
        left = after != 0 and (after != 1 or before != 2)
        right = before != 0 and (before != 1 or after != 2)
        if text[start] == "*":
            flag = left * _CAN_OPEN | right * _CAN_CLOSE
        else:
            flag = _UNDERSCORE | (left and (not right or before == 1)) * _CAN_OPEN | (
                right and (not left or after == 1)) * _CAN_CLOSE
        if flag & _CAN_EITHER:
            starts.append(start)
            lengths.append(end - start)
            flags.append(flag)
    if not any(f & _CAN_CLOSE for f in flags):
        return text
    remaining = lengths[:]  # each run's characters not yet matched
    count = len(flags)
    # Links to the previous and the next run still in play; the two lists share one int object
    # per index.
    links = list(range(-1, count + 1))
    prev, nxt = links[:count], links[2:]
    del links
    # The lowest opener worth looking at, by closer character, whether the closer can open too,
    # and its length mod 3: what makes the search linear (as in the reference implementation).
    bottom: dict[int, int] = {}
    closer = 0
    while closer < count:
        flag = flags[closer]
        if not flag & _CAN_CLOSE or remaining[closer] == 0:
            closer = nxt[closer]
            continue
        length = lengths[closer]
        can_open = flag & _CAN_OPEN
        key = (flag & _UNDERSCORE_OR_OPEN) * 3 + length % 3
        floor = bottom.get(key, -1)
        underscore = flag & _UNDERSCORE
        opener = prev[closer]
        found = False
        while opener > floor:
            o = flags[opener]
            if o & _UNDERSCORE == underscore and o & _CAN_OPEN and remaining[opener] > 0:
                o_length = lengths[opener]
                odd = (can_open or o & _CAN_CLOSE) and (o_length + length) % 3 == 0 and not (
                    o_length % 3 == 0 and length % 3 == 0)
                if not odd:
                    found = True
                    break
            opener = prev[opener]
        if not found:
            bottom[key] = prev[closer]
            if not can_open:  # a closer that found nothing and cannot open is a character
                p, q = prev[closer], nxt[closer]
                if p >= 0:
                    nxt[p] = q
                if q < count:
                    prev[q] = p
            closer = nxt[closer]
            continue
        use = 2 if remaining[closer] >= 2 and remaining[opener] >= 2 else 1
        remaining[opener] -= use
        remaining[closer] -= use
        # Delimiters between the two are characters now: unlink them.
        nxt[opener] = closer
        prev[closer] = opener
        if remaining[opener] == 0:
            p = prev[opener]
            if p >= 0:
                nxt[p] = closer
            prev[closer] = p
        if remaining[closer] == 0:
            p, q = prev[closer], nxt[closer]
            if p >= 0:
                nxt[p] = q
            if q < count:
                prev[q] = p
            closer = q
    del prev, nxt, bottom  # freed before the text is rebuilt
    out: list[str] = []
    pos = 0
    for start, length, kept, bits in zip(starts, lengths, remaining, flags):
        if kept != length:
            out.append(text[pos:start])
            out.append(("_" if bits & _UNDERSCORE else "*") * kept)
            pos = start + length
    out.append(text[pos:])
    return "".join(out)


def _runs_found(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of ``*`` or of ``_`` that no backslash escapes, in order: the
    runs _EMPHASIS_RUN_RE.finditer gives, found by str.find from one to the next."""
    n = len(text)
    find, run = text.find, _RUN_RE.match

    def after(ch: str, i: int) -> int:
        found = find(ch, i)
        return n if found < 0 else found

    runs: list[tuple[int, int]] = []
    star, underscore, escape = after("*", 0), after("_", 0), after("\\", 0)
    while True:
        start = min(star, underscore, escape)
        if start == n:
            return runs
        if start == escape:
            end = start + 2  # a backslash and the character it escapes
        else:
            found = run(text, start)
            assert found is not None  # a run starts where its character was found
            end = found.end()
            runs.append((start, end))
        if star < end:
            star = after("*", end)
        if underscore < end:
            underscore = after("_", end)
        if escape < end:
            escape = after("\\", end)


def strip_markdown(text: str) -> str:
    """Turn ``[text](url)`` links into ``text (url)`` and remove markdown emphasis."""
    if "](" in text:
        text = _MD_LINK_RE.sub(r"\1 (\2)", text)
    if "*" in text or "_" in text:  # most abstracts have no emphasis at all
        text = strip_emphasis(text)
    return text


def _hold_out(text: str) -> tuple[str, list[str]]:
    """``text`` with each math span, URL and _HOLE replaced by _HOLE, and those spans in order."""
    spans = math_spans(text) if "$" in text or "\\" in text else []
    if "://" in text or "\\url" in text or "\\href" in text:
        # As GitHub's autolinks: trailing punctuation (*https://x.org/a*.) is not part of a bare URL.
        urls = [(m.start(), m.start() + len(m.group().rstrip(_AUTOLINK_TRAILING) if m.group()[0] == "h" else m.group()))
                for m in _VERBATIM_RE.finditer(text)]
        spans = _merge(spans, urls)
    if _HOLE in text:
        # A _HOLE already in the text is held out as itself, so no character collides with the marker.
        spans = _merge(spans, [(m.start(), m.end()) for m in re.finditer(_HOLE, text)])
    if not spans:
        return text, []
    pieces, held, pos = [], [], 0
    for start, end in spans:
        pieces.append(text[pos:start])
        pieces.append(_HOLE)
        held.append(text[start:end])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces), held


def _merge(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of ``a`` and those of ``b`` that overlap none of ``a``, in order."""
    out, k = [], 0
    for start, end in b:
        while k < len(a) and a[k][1] <= start:
            out.append(a[k])
            k += 1
        if k < len(a) and a[k][0] < end:
            continue  # inside (or across) a math span: the math decides
        out.append((start, end))
    out.extend(a[k:])
    return out


def _may_hold_latex(text: str) -> bool:
    """Whether one of _TRIGGERS is in ``text``."""
    return any(t in text for t in _UNTICKED) or "`" in text and any(t in text for t in _TICKED)


def to_plain(abstract: str) -> str:
    """``abstract_plain`` of a normalized abstract."""
    # Markdown first and outside math and URLs only, where ``_`` and ``*`` are LaTeX or part of
    # an address. Each is held out as one character, so that emphasis around math
    # (**N$^2$-GNN**) is still seen.
    if "*" in abstract or "_" in abstract or "](" in abstract:
        if "[" in abstract and "](" in abstract:
            abstract = _MD_LINK_RE.sub(r"\1 (\2)", abstract)
        held_text, held = _hold_out(abstract)
        text = strip_emphasis(held_text) if "*" in held_text or "_" in held_text else held_text
        if held:
            spans = iter(held)
            text = re.sub(_HOLE, lambda _: next(spans), text)
    else:
        text = abstract
    if _may_hold_latex(text):
        text = latex_to_text(text)
    text = text.strip(" ")
    if _even_spaces(text):
        return text  # one space between words already: no list of every word
    return " ".join(text.split())  # runs of white space to one space, ends stripped


def extract_urls(text: str) -> list[str]:
    """http(s) URLs in order of first appearance, without trailing punctuation or braces."""
    seen: dict[str, None] = {}
    if "://" not in text:  # every URL has it; most abstracts have none
        return []
    for match in _URL_RE.finditer(text):
        url = match.group()
        opened, closed = url.count("("), url.count(")")
        end = len(url)
        while end:
            last = url[end - 1]
            if last in _URL_TRAILING:
                end -= 1
            # A closing parenthesis belongs to the URL only when it closes one opened inside it.
            elif last == ")" and opened < closed:
                end -= 1
                closed -= 1
            else:
                break
        url = url[:end]
        if len(url) > len("https://"):
            scheme, rest = url.split("://", 1)
            seen.setdefault(f"{scheme.lower()}://{rest}", None)  # "Https://" at a sentence start
    return list(seen)
