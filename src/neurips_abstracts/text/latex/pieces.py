"""Rendered pieces of LaTeX and how they join (:mod:`.render`): the spacing flags, scripts,
operands, accents, and the TeX quotes, dashes and HTML entities of a run of text."""

from __future__ import annotations

import html
import re

from ..entities import ENTITY_RE as _ENTITY_RE
from ..unicode import combining, is_alnum, is_decimal

# Flags of a rendered piece: a word is kept apart from letters, digits and closing brackets
# around it; a script written with ^ or _ from letters and digits after it; a script sticks to
# its base; a piece that starts with a word (a math span: We$\log n$) is kept apart from what is
# before it only.
WORD, SPACED_SCRIPT, ATTACHED, LEADING_WORD = 1, 2, 4, 8
_CLOSE = ")]}⟩"
# The ASCII characters after which a word is kept apart (the others are tested as they come).
_GLUED = frozenset(c for c in map(chr, range(128)) if c.isalnum() or c in _CLOSE)
_TEXT_SPECIALS = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"), ("!`", "\u00a1"), ("?`", "\u00bf"))


def _enclosed(s: str) -> bool:
    """Whether ``s`` is one bracketed whole: "(a)(b)" is not."""
    if len(s) < 2 or s[0] not in "([" or s[-1] != {"(": ")", "[": "]"}[s[0]]:
        return False
    depth = 0
    for k, c in enumerate(s):
        depth += c in "(["
        depth -= c in ")]"
        if depth == 0 and k < len(s) - 1:
            return False
    return True


def _atom(s: str) -> bool:
    """One unit that needs no parentheses: a single character with its accents, a number, a word."""
    s = s.strip()
    if not s:
        return True
    if len(s) == 1 or combining(s[-1]) and all(combining(c) for c in s[1:]):
        return True
    return is_alnum(s) and (is_decimal(s) or len(s) == 1) or _enclosed(s)  # 10³ is no number: x^(10³)


def wrap(s: str) -> str:
    """An operand of / or √: a word or number stays as it is, anything longer is parenthesized."""
    s = s.strip()
    return s if _atom(s) or is_alnum(s) else f"({s})"


_SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# The last character of a script of digits written in Unicode, by marker.
SCRIPT_DIGITS = {"^": frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹"), "_": frozenset("₀₁₂₃₄₅₆₇₈₉")}


def script(marker: str, body: str, again: bool = False) -> tuple[str, int]:
    """A super- or subscript: digits as Unicode digits (n², x₁₀), primes as they are (x′), one
    character after the marker (x_i) and anything longer in parentheses (n^(d+1)). A letter or
    digit after a script written with a marker gets a space (x_i y, log^(1-ε) n). A script of
    digits ``again`` right after one of the same kind (x_1_2 in math, which TeX refuses) keeps its
    marker: x₁_2, not x₁₂, which would be another number."""
    if set(body) <= set("′'"):
        return body, ATTACHED
    if body.isascii() and body.isdigit() and not again:
        return body.translate(_SUPERSCRIPT_DIGITS if marker == "^" else _SUBSCRIPT_DIGITS), ATTACHED
    if _enclosed(body) or _atom(body):
        return marker + body, ATTACHED | SPACED_SCRIPT
    return f"{marker}({body})", ATTACHED | SPACED_SCRIPT


def join(pieces: list) -> str:
    """The text of the pieces, given flat as text, flags, text, flags, .."""
    out: list[str] = []
    append = out.append
    prev, prev_flags = "", 0  # prev_flags is 0 until a piece is out
    it = iter(pieces)
    for text, flags in zip(it, it):
        if not text:
            continue
        if flags:
            if flags & ATTACHED:
                pass
            elif flags & (WORD | LEADING_WORD) and prev and ((last := prev[-1]) in _GLUED or not last.isascii() and (
                    is_alnum(last) or last in _CLOSE or combining(last))):
                append(" ")
            elif prev_flags & (WORD | SPACED_SCRIPT) and is_alnum(text[0]):
                append(" ")
        elif prev_flags & (WORD | SPACED_SCRIPT) and is_alnum(text[0]):
            append(" ")
        append(text)
        prev, prev_flags = text, flags
    return "".join(out)


_TEXT_SPECIAL_RE = re.compile("&|" + "|".join(re.escape(old) for old, _ in _TEXT_SPECIALS))


# Bound once: render() asks it of every run of text before it calls run_text.
has_text_special = _TEXT_SPECIAL_RE.search


def run_text(run: str) -> str:
    """A run of text outside math: TeX quotes and dashes, HTML entities."""
    if len(run) < 2 or not has_text_special(run):  # most runs: nothing to do
        return run
    if "&" in run:
        run = _ENTITY_RE.sub(lambda m: html.unescape(m.group()), run)
    for old, new in _TEXT_SPECIALS:
        if old in run:
            run = run.replace(old, new)
    return run


def accent(body: str, mark: str) -> str:
    body = body.strip()
    if not body:
        return mark.strip() or ""
    if is_alnum(body):
        return "".join(c + mark for c in body)
    return body[0] + mark + body[1:]
