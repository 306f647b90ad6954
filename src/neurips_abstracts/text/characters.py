"""The characters an abstract may hold, written or escaped (MathJax's ``\\unicode``, TeX's
``\\char`` and ``^^``): what such an escape stands for, and the one rule that ``validate`` and
the build apply to refuse a record holding a character that is not text."""

from __future__ import annotations

import re


def code_point(body: str) -> str:
    """MathJax's \\unicode{x2014} or \\unicode{8212}: the character (U+FFFD for one that is
    not text, see :func:`bad_code_point`), or "" if the body is not a number."""
    number = _unicode_number(body)
    return "" if number is None else character(number)


def _unicode_number(body: str) -> int | None:
    body = body.strip()
    try:
        return int(body[1:], 16) if body[:1] in "xX" else int(body)
    except (ValueError, OverflowError):
        return None


# TeX's \char: decimal, 'octal, "hex (\char"41 and \char65 are both "A").
CHAR_NUMBER_RE = re.compile(r"\s*(?:\"([0-9A-Fa-f]{1,8})|'([0-7]{1,11})|([0-9]{1,10}))")


def char_code(m: re.Match) -> int:
    return int(m[1], 16) if m[1] else int(m[2], 8) if m[2] else int(m[3])


def character(number: int) -> str:
    return "\ufffd" if bad_code_point(number) else chr(number)


_NONCHARACTERS = frozenset([*range(0xFDD0, 0xFDF0), *(p * 0x10000 + c for p in range(17) for c in (0xFFFE, 0xFFFF))])


def bad_code_point(number: int) -> str | None:
    """Why a code point cannot stand in an abstract (it is not text that UTF-8 can carry or a
    reader can see), or None for one that can."""
    if not 0 <= number <= 0x10FFFF:
        return "beyond the last Unicode code point"
    if 0xD800 <= number <= 0xDFFF:
        return "a surrogate, which UTF-8 cannot encode"
    if number in _NONCHARACTERS:
        return "a Unicode noncharacter"
    if number < 0x20 or 0x7F <= number < 0xA0:
        return "NUL" if number == 0 else "a control character"
    return None


# Escapes that stand for one character: MathJax's \unicode{..}, TeX's \char and its ^^ notation
# (^^^^^^ and six hex digits, ^^^^ and four, ^^ and two, or ^^ and a character c: c ± 64).
_ESCAPE_RE = re.compile(
    r"\\unicode\s*\{([^{}]*)\}|\\char(?![A-Za-z])" + CHAR_NUMBER_RE.pattern
    + r"|\^\^\^\^\^\^([0-9a-f]{6})|\^\^\^\^([0-9a-f]{4})|\^\^([0-9a-f]{2})|\^\^([\x00-\x7f])"
)
_BAD_CHARACTER_RE = re.compile(
    "[\ud800-\udfff" + "".join(f"\\U{c:08x}" for c in sorted(_NONCHARACTERS)) + "]"
)


# Every noncharacter's UTF-8 holds EF B7 (U+FDD0 to U+FDEF) or ends in BF BE or BF BF (U+xFFFE,
# U+xFFFF); a surrogate does not encode.
_NONCHARACTER_UTF8 = (b"\xef\xb7", b"\xbf\xbe", b"\xbf\xbf")
# Every escape ``_ESCAPE_RE`` matches holds one of these (most LaTeX holds none of them).
_ESCAPE_MARKS = ("\\unicode", "\\char", "^^")
# So text whose UTF-8 holds none of these holds no bad character (see ``bad_character_marks``).
_MARKS_UTF8 = (*(mark.encode("ascii") for mark in _ESCAPE_MARKS), *_NONCHARACTER_UTF8)


def _may_hold_bad_character(text: str) -> bool:
    """False only if ``text`` holds no character ``_BAD_CHARACTER_RE`` matches. The expression
    tries a large class at every character; three byte searches of the UTF-8 are a hundred times
    faster."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return any(mark in data for mark in _NONCHARACTER_UTF8)


_MARKS_BY_LEAD = {mark[:1]: tuple(m for m in _MARKS_UTF8 if m[:1] == mark[:1]) for mark in _MARKS_UTF8}


def bad_character_marks(data: bytes) -> list[int]:
    """The offsets in ``data``, UTF-8, of the byte sequences one of which the UTF-8 of every text
    holding a bad character (:func:`bad_character`) holds: a text of ``data`` that holds none of
    them holds no bad character. Spares a :func:`bad_character` call for each record of a dump
    with a backslash or non-ASCII. Found by their first bytes, which are rare (a one-byte search
    runs at memory speed, a search for a longer sequence ten times slower)."""
    found = []
    for lead, marks in _MARKS_BY_LEAD.items():
        at = data.find(lead)
        while at >= 0:
            if data.startswith(marks, at):
                found.append(at)
            at = data.find(lead, at + 1)
    return found


def bad_character(text: str) -> tuple[int, str] | None:
    """The first character of ``text`` that no abstract may hold, written or escaped, as
    (offset, why): a surrogate or noncharacter, or an escape that stands for one, for NUL or a
    control character, or for no character at all (``\\unicode{xD800}``, ``\\char0``, ``^^@``).
    ``validate`` and the build refuse such a record with this one rule."""
    found = []
    if not text.isascii() and _may_hold_bad_character(text) and (m := _BAD_CHARACTER_RE.search(text)):
        found.append((m.start(), f"character U+{ord(m.group()):04X} is {bad_code_point(ord(m.group()))}: not text"))
    if any(mark in text for mark in _ESCAPE_MARKS):
        for m in _ESCAPE_RE.finditer(text):
            if m[1] is not None:
                number = _unicode_number(m[1])
                if number is None:
                    continue  # not a number: rendered as written
            elif m[2] or m[3] or m[4]:
                digits = re.match(CHAR_NUMBER_RE, m.group()[5:])
                assert digits is not None  # m[2], m[3] or m[4] matched that number's form
                number = char_code(digits)
            elif m[5] or m[6] or m[7]:
                number = int(m[5] or m[6] or m[7], 16)
            else:
                number = ord(m[8]) + (64 if ord(m[8]) < 64 else -64)
            why = bad_code_point(number)
            if why:
                found.append((m.start(), f"`{m.group()}` stands for U+{number:04X}, {why}: write the intended character instead, or remove the escape"))
                break
    return min(found) if found else None
