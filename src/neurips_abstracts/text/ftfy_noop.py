"""Which texts ftfy would leave unchanged, decided exactly and about fifty times faster.

Why: ftfy decides whether a text holds mojibake with ``ftfy.badness.is_bad``, one regular
expression of some forty alternatives tried at every position of the text. On an abstract that is
about 0.3 ms, most of a large build's normalize time, although almost no abstract holds mojibake.

How, exactly: every alternative of that expression needs at least one character from a small set
of non-ASCII characters (its *anchors*: accented letters, dashes, Greek, box drawing...) and no
match is longer than ``WIDTH`` characters. So a match lies within ``WIDTH - 1`` characters of an
anchor, and searching the windows around the anchors gives the same answer as searching the whole
text: a window never creates a match (the expression has no look-ahead, look-behind, ``$`` or
``\\b``, and ``^`` matches only at the real start of the text), and every match lies inside the
window of one of its anchors. Anchors and width are read from ftfy's own expression at import,
so a new ftfy version is analysed, not assumed; if its expression ever lost that shape, ``EXACT``
turns False and every non-ASCII text goes to ftfy as before (slower, same output).

ftfy changes a text only through mojibake repair (which starts only when ``is_bad``) and through
fixers that act on specific characters (C1 controls, full/half-width forms, line separators,
surrogates, terminal escapes), so a text with none of those characters and no mojibake match is
returned unchanged. ``tests/text/test_ftfy_noop.py`` checks both claims against ftfy itself, on real
abstracts, their mojibake and random text.
"""

from __future__ import annotations

import re

import ftfy
from ftfy import badness, chardata, fixes

try:  # Python 3.11+ keeps the regular-expression parser here
    from re import _constants as _sre, _parser as _sre_parse  # type: ignore[attr-defined]  # private: typeshed omits them
except ImportError:  # pragma: no cover - older layouts
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

# The options of ftfy.TextFixerConfig this module knows the effect of, with the characters each
# fixer acts on. An option not listed here must be off (or None) for the shortcut to apply.
_FIXER_CHARACTERS = {
    "fix_c1_controls": "\x80-\x9f",
    "fix_character_width": "".join(re.escape(chr(c)) for c in sorted(chardata.WIDTH_MAP)),
    "fix_line_breaks": "\r\n\u2028\u2029\x85",
    "fix_surrogates": "\ud800-\udfff",
    "remove_terminal_escapes": "\x1b",
}
# Sub-steps of mojibake repair: they run only on text that ``is_bad``.
_ENCODING_STEPS = {"fix_encoding", "restore_byte_a0", "replace_lossy_sequences", "decode_inconsistent_utf8"}
_NOT_FIXERS = {"explain", "max_decode_length"}


def _class_chars(item) -> set[int] | None:
    """The characters a LITERAL or non-negated character-class item matches; None otherwise."""
    op, arg = item
    if op is _sre.LITERAL:
        return {arg}
    if op is _sre.IN:
        chars: set[int] = set()
        for sub_op, sub_arg in arg:
            if sub_op is _sre.LITERAL:
                chars.add(sub_arg)
            elif sub_op is _sre.RANGE:
                chars.update(range(sub_arg[0], sub_arg[1] + 1))
            else:  # NEGATE, CATEGORY (\s, \w): too broad to anchor on
                return None
        return chars
    return None


def _analyse(pattern: re.Pattern) -> tuple[frozenset[int], int] | None:
    """(anchors, width) of ``pattern`` if every alternative has a required non-ASCII character
    item and matches are bounded; None if the pattern does not have that shape."""
    if pattern.flags & (re.IGNORECASE | re.MULTILINE):
        return None
    tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    width = tree.getwidth()[1]
    if width > 64:
        return None
    items = list(tree)
    if len(items) == 1 and items[0][0] is _sre.BRANCH:
        alternatives = items[0][1][1]
    else:
        alternatives = [tree]
    anchors: set[int] = set()
    for alternative in alternatives:
        best = None
        for item in alternative:  # items of an alternative are required, in sequence
            chars = _class_chars(item)
            if chars and min(chars) >= 0x80 and (best is None or len(chars) < len(best)):
                best = chars
        if best is None:
            return None
        anchors |= best
    return frozenset(anchors), width


def _char_class(codepoints) -> str:
    return "[" + "".join(re.escape(chr(c)) for c in sorted(codepoints)) + "]"


def _shape() -> tuple[frozenset[int], int] | None:
    try:
        return _analyse(badness.BADNESS_RE)
    except Exception:  # the parser is private to Python: if it ever changes, fall back to ftfy
        return None


_SHAPE = _shape()
EXACT = _SHAPE is not None
ANCHORS, WIDTH = _SHAPE if _SHAPE else (frozenset(), 0)
_ANCHOR_RE = re.compile(_char_class(ANCHORS)) if EXACT else None
_BADNESS_SEARCH = badness.BADNESS_RE.search


def is_bad(text: str) -> bool:
    """Same answer as ``ftfy.badness.is_bad(text)``: search only the windows around anchors."""
    if not EXACT:
        return badness.is_bad(text)
    n = len(text)
    assert _ANCHOR_RE is not None  # set where EXACT
    start, end = 0, None
    for m in _ANCHOR_RE.finditer(text):
        lo, hi = max(0, m.start() - WIDTH + 1), min(n, m.start() + WIDTH)
        if end is not None and lo <= end:  # touches the current window: extend it
            end = hi
            continue
        if end is not None and _BADNESS_SEARCH(text, start, end):
            return True
        start, end = lo, hi
    return end is not None and _BADNESS_SEARCH(text, start, end) is not None


# The characters ftfy's width fixer maps (full- and half-width forms, the ideographic space).
_WIDTH_RE = re.compile(_char_class(chardata.WIDTH_MAP))


def fix_character_width(text: str) -> str:
    """``ftfy.fixes.fix_character_width(text)``: its per-character translation, a dictionary
    look-up for every character, only where a search in C finds a character it maps (the text
    otherwise comes back as it is, as the translation would give it)."""
    return fixes.fix_character_width(text) if _WIDTH_RE.search(text) else text


def route_ftfy() -> bool:
    """Make ftfy's mojibake repair ask ``is_bad`` here: it asks about three times per text it
    repairs (before, after, and again to confirm), each a scan of the whole text. The answers
    are the same (``EXACT``), so only the time changes. Its width fixer, run twice on each text
    it repairs, goes through ``fix_character_width`` here, same results. Returns whether ftfy
    asks here now: False if ftfy no longer looks ``is_bad`` up where this expects (then it keeps
    its own, and so for the width fixer)."""
    if getattr(ftfy, "is_bad", None) is badness.is_bad:
        ftfy.is_bad = is_bad
    fixers = getattr(ftfy, "FIXERS", {})
    if fixers.get("fix_character_width") is fixes.fix_character_width:
        fixers["fix_character_width"] = fix_character_width
    return getattr(ftfy, "is_bad", None) is is_bad


def make_unchanged(config: ftfy.TextFixerConfig):
    """A predicate: True only when ``ftfy.fix_text(text, config)`` is certainly ``text``.

    Raises ValueError if ``config`` turns on a step this module does not know the effect of.
    """
    on = {name for name in config._fields if name not in _NOT_FIXERS and getattr(config, name) not in (False, None)}
    unknown = on - set(_FIXER_CHARACTERS) - _ENCODING_STEPS
    if unknown:
        raise ValueError(f"ftfy options whose effect is not analysed: {sorted(unknown)}")
    acting = "".join(chars for name, chars in _FIXER_CHARACTERS.items() if name in on)
    # A line break also splits the text into segments that ftfy fixes one by one; such text goes
    # to ftfy whatever the configuration says about line breaks.
    acting_re = re.compile("[" + acting + "\n" + "]")
    limit = config.max_decode_length
    check_encoding = "fix_encoding" in on

    def unchanged(text: str) -> bool:
        if len(text) > limit or acting_re.search(text):
            return False
        return not (check_encoding and not text.isascii() and is_bad(text))

    return unchanged
