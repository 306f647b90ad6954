"""Normalization of abstract text: one pure function, its order explained.

``normalize(text)`` is what decides whether two records are the same paper, so it must be
idempotent and must never empty a record with visible text (property tests check both). The
order:

1. **Mojibake repair** (ftfy) comes first, because it recognises text that was decoded with the
   wrong codec by the exact code points that went wrong; composing or deleting characters first
   would hide them. ftfy is configured not to straighten curly quotes, not to expand ligatures
   and not to unescape HTML entities (its defaults do all three): those are the authors' text, and
   HTML entities are reported by ``validate`` rather than silently rewritten.
2. **NFC** after the repair, so that characters the repair produces are composed too.
3. **Control characters removed** (Unicode category Cc, plus BOM and zero-width space that some
   editors leave behind); TAB and line breaks become spaces instead, so words stay apart.
4. **Whitespace** last, because steps 1-3 can leave runs of spaces: every run of Unicode white
   space becomes one ASCII space, and the ends are stripped.

Steps 3 and 4 can join characters into a new mojibake sequence (``"À\x1fº"`` becomes ``"Àº"``,
which is UTF-8 of ``"˼"`` read as Latin-1), so the four steps repeat until the text stops
changing. Steps 1, 3 and 4 never lengthen the text (a repair turns a mojibake sequence into
fewer characters); NFC can (a character excluded from composition, such as U+0958, becomes two
code points), but it leaves NFC text as it is, so after the first pass it acts only on what a
repair has just made. Real abstracts need one pass, and two confirm it.
"""

from __future__ import annotations

import re
import unicodedata

import ftfy

from . import ftfy_noop

FTFY_CONFIG = ftfy.TextFixerConfig(
    unescape_html=False,
    uncurl_quotes=False,
    fix_latin_ligatures=False,
    # Done by us after the repair (step 2), with the other steps, to make the order explicit.
    normalization=None,
    remove_control_chars=False,
    explain=False,
)

# Most non-ASCII abstracts hold no mojibake; ftfy would return them unchanged after spending
# most of a build's normalize time finding that out. ``ftfy_noop`` tells so exactly, in advance.
_FTFY_UNCHANGED = ftfy_noop.make_unchanged(FTFY_CONFIG)
# The texts that do hold mojibake: ftfy's encoding repair (fix_encoding_and_explain) asks
# ``ftfy_noop.is_bad``, same answers, for this whole process; ftfy.fixes keeps its own is_bad.
ftfy_noop.route_ftfy()

_SPACE_LIKE = {"\t": " ", "\n": " ", "\r": " ", "\x0b": " ", "\x0c": " ", "\x85": " "}
_REMOVED = "".join(chr(c) for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if chr(c) not in _SPACE_LIKE)
_REMOVED_ASCII = "".join(c for c in _REMOVED if c < "\x80").encode("ascii")
# What is removed outright; everything in _SPACE_LIKE is white space to str.split() already.
_REMOVE_RE = re.compile("[" + re.escape(_REMOVED) + "\ufeff\u200b]")


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    # str.split() splits on exactly the characters for which str.isspace() holds: Unicode white space.
    return " ".join(_REMOVE_RE.sub("", text).split())


def normalize(text: str) -> str:
    """Return the normalized form of one abstract (see the module docstring for the order)."""
    if text.isascii() and "\x1b" not in text:
        # With this configuration ftfy changes nothing in ASCII text but terminal escapes (ESC) and
        # line breaks, which step 4 turns into spaces anyway; NFC leaves ASCII alone. Most
        # abstracts are ASCII, and ftfy is the slowest step by far. A property test checks
        # that this shortcut gives what the full path gives.
        if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
            return text  # printable ASCII, single-spaced: nothing to do (most records)
        # The same steps on bytes, several times faster than the regular expression: delete the
        # removed controls, then split on ASCII white space (str.split() splits on \x1c-\x1f
        # too, but those are removed first).
        return b" ".join(text.encode("ascii").translate(None, _REMOVED_ASCII).split()).decode("ascii")
    return _normalize_full(text)


def _normalize_full(text: str, skip_noop_ftfy: bool = True) -> str:
    while True:
        if skip_noop_ftfy and _FTFY_UNCHANGED(text):
            fixed = _clean(text)
        else:
            fixed = _clean(ftfy.fix_text(text, FTFY_CONFIG))
        if not fixed:
            # ftfy can "repair" visible text into control characters alone ("¬ç" read as Mac
            # Roman is the C1 control U+008D), which step 3 then removes: keep the text unrepaired.
            fixed = _clean(text)
        if fixed == text:
            return fixed
        text = fixed
