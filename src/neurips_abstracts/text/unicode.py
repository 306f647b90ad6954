"""The one Unicode version every rule that shapes output bytes reads: ``unicodedata2``, pinned.

Why: Python's ``unicodedata``, ``str.isalnum`` and ``re``'s ``\\w`` and ``\\d`` read the tables the
interpreter was built with (Unicode 14.0 in Python 3.11, 15.0 in 3.12, 15.1 in 3.13), so NFC and
every character-class rule gave different bytes for characters new in a later version
(``a\\U0001E08F\\u0323`` composes to ``ạ\\U0001E08F`` from 15.0 on). Everything here reads one
pinned ``unicodedata2`` instead, whatever the interpreter ships; ``UNICODE_VERSION`` is recorded
in the build manifest.

What is left to the interpreter, and why that is safe (tests/text/test_unicode.py checks each claim
against the pinned tables on the running interpreter):

* white space (``str.split``, ``str.isspace``, ``re``'s ``\\s``): the same set in every supported
  Python, equal to the pinned tables' (categories Zs, Zl, Zp and bidirectional classes WS, B, S);
* ``str.isprintable``: used only to skip work whose result is the same either way;
* case mapping (``str.casefold``, ``str.lower``): unicodedata2 has none; the same in every
  supported Python (``requires-python`` stops before 3.14, whose Unicode 16 adds cased scripts;
  .ci/compare_pythons is how a newer Python is admitted).
* ftfy's mojibake test (``badness.BADNESS_RE``) holds one ``\\w``: it can only make a text count
  as bad on one Python and not on another when a letter new in a later Unicode version follows
  an accented letter and a bracket. That decides only whether ftfy tries a repair, and a
  repair re-decodes text in a legacy encoding, which has no such letter. We found no text whose
  output differs; this is reasoning, not a proof.
"""

from __future__ import annotations

import unicodedata2

UNICODE_VERSION: str = unicodedata2.unidata_version

category = unicodedata2.category
combining = unicodedata2.combining
lookup = unicodedata2.lookup
name = unicodedata2.name
_numeric = unicodedata2.numeric
_decimal = unicodedata2.decimal


def nfc(text: str) -> str:
    """``text`` in Normalization Form C of the pinned version."""
    return text if text.isascii() else unicodedata2.normalize("NFC", text)


def is_nfc(text: str) -> bool:
    """Whether ``nfc(text) == text``. unicodedata2 has no ``is_normalized``; its ``normalize``
    runs the same quick check first and returns NFC text itself, so the comparison is by identity."""
    return text.isascii() or unicodedata2.normalize("NFC", text) == text


def is_alpha_char(ch: str) -> bool:
    """``ch.isalpha()`` of the pinned version: a letter (category L*)."""
    return category(ch)[0] == "L"


def is_alnum_char(ch: str) -> bool:
    """``ch.isalnum()`` of the pinned version: a letter or a character with a numeric value
    (what ``str.isalnum`` reads, on any one version: a test checks all of Unicode)."""
    return category(ch)[0] == "L" or _numeric(ch, None) is not None


def is_alpha(s: str) -> bool:
    """``s.isalpha()`` of the pinned version."""
    if s.isascii():
        return s.isalpha()  # ASCII letters are the same in every version
    return bool(s) and all(map(is_alpha_char, s))


def is_alnum(s: str) -> bool:
    """``s.isalnum()`` of the pinned version."""
    if s.isascii():
        return s.isalnum()
    return bool(s) and all(map(is_alnum_char, s))


def is_decimal(s: str) -> bool:
    """``s.isdecimal()`` of the pinned version: decimal digits of any script."""
    if s.isascii():
        return s.isdecimal()
    return bool(s) and all(_decimal(c, None) is not None for c in s)
