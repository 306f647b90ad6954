"""Normalization of abstract text: one pure function, its order explained.

``normalize(text)`` is what decides whether two records are the same paper, so it must be
idempotent and must never empty a record with visible text (property tests check both). The
order:

1. **Mojibake repair** (ftfy) comes first, because it recognises text that was decoded with the
   wrong codec by the exact code points that went wrong; composing or deleting characters first
   would hide them. ftfy is configured not to straighten curly quotes, not to expand ligatures
   and not to unescape HTML entities (its defaults do all three): those are the authors' text, and
   HTML entities are reported by ``validate`` rather than silently rewritten.
2. **NFC** after the repair, so that characters the repair produces are composed too; NFC of the
   pinned Unicode version (:mod:`.unicode`), whatever the interpreter's.
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
from itertools import compress

import ftfy
import numpy as np

from . import ftfy_noop
from .unicode import is_nfc, nfc

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
_REMOVED_SPACE = "".join(c for c in _REMOVED if c.isspace())  # \x1c-\x1f


def _single_spaced_printable(text: str) -> bool:
    """True when steps 3 and 4 leave ``text`` as it is: every character they remove or turn into
    a space (a control, BOM, zero-width space, white space other than a space) is one that
    str.isprintable() refuses, and no space is doubled or at an end."""
    return text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " "


def _clean(text: str) -> str:
    if _single_spaced_printable(text) and is_nfc(text):
        return text  # most abstracts: one scan of each kind instead of a rewrite
    text = nfc(text)
    # str.split() splits on exactly the characters for which str.isspace() holds: Unicode white space.
    spaced = " ".join(text.split())
    # Nothing to remove (usually: the text only had extra white space) if what is left is
    # printable, for no removed character is; white space aside, which is why \x1c-\x1f, both
    # removed and white space, are looked for in the text (each a search at memchr speed).
    if spaced.isprintable() and not any(c in text for c in _REMOVED_SPACE):
        return spaced
    return " ".join(_REMOVE_RE.sub("", text).split())


def normalize(text: str) -> str:
    """Return the normalized form of one abstract (see the module docstring for the order)."""
    if text.isascii() and "\x1b" not in text:
        # With this configuration ftfy changes nothing in ASCII text but terminal escapes (ESC) and
        # line breaks, which step 4 turns into spaces anyway; NFC leaves ASCII alone. Most
        # abstracts are ASCII, and ftfy is the slowest step by far. A property test checks
        # that this shortcut gives what the full path gives.
        if _single_spaced_printable(text):
            return text  # nothing to do (most records)
        return _normalize_ascii([text])[0]
    return _normalize_full(text)


# Every character bytes.split() splits on, as a space (the separator 0xFF stays).
_ASCII_WHITE_TO_SPACE = bytes.maketrans(b"\t\n\x0b\x0c\r", b"     ")


def _normalize_ascii(texts: list[str]) -> list[str]:
    """``normalize`` of each ASCII text without ESC, all at once (joined by 0xFF, which ASCII
    text does not hold): delete the removed controls, make all white space spaces (what
    bytes.split() splits on; str.split() splits on \x1c-\x1f too, but those are removed first),
    then drop every space after a space and every space next to a separator. A split and join of
    each text made a bytes object per word, several times slower."""
    # The separators at the ends joined in, not added to the joined string: each + copied it whole.
    joined = "\xff".join(["", *texts, ""]).encode("latin-1")
    a = np.frombuffer(joined.translate(_ASCII_WHITE_TO_SPACE, _REMOVED_ASCII), np.uint8)  # deletes, then maps
    space = a == 0x20
    keep = np.ones(len(a), bool)
    np.logical_not(space[1:] & space[:-1], out=keep[1:])
    a = a[keep]
    separator = a == 0xFF
    keep = np.ones(len(a), bool)
    keep[1:-1] = ~((a[1:-1] == 0x20) & (separator[:-2] | separator[2:]))
    return a[keep].tobytes()[1:-1].decode("latin-1").split("\xff")


# What ``normalize_many`` reads of each byte of its joined ASCII texts: 0 a printable character
# other than space (a text of only these is its own normalized text), 1 a space or the separator
# (0xFF, never in ASCII text), 2 anything else. Two neighbours summing to 2 or more mark a text
# ``normalize`` would change: a control, DEL or ESC, or a space next to a space or an end.
_ASCII_CLASS = bytes(0 if 0x21 <= b <= 0x7E else 1 if b in (0x20, 0xFF) else 2 for b in range(256))


def normalize_many(texts: list[str], full=None) -> list[str]:
    """``[normalize(t) for t in texts]``, with one scan of all the ASCII texts together in place
    of a Python step per text: most abstracts are printable, single-spaced ASCII, their own
    normalized text. ``full(text)``, for the texts outside the ASCII shortcut, must give
    ``normalize(text)`` (a memo of it; default ``normalize``). A property test compares the two."""
    full = full or normalize
    out = list(texts)
    is_ascii = np.fromiter(map(str.isascii, texts), bool, len(texts))
    for k in np.flatnonzero(~is_ascii).tolist():
        out[k] = full(texts[k])
    ascii_at = np.flatnonzero(is_ascii)
    if not len(ascii_at):
        return out
    ascii_texts = list(compress(texts, is_ascii.tolist())) if len(ascii_at) < len(texts) else texts
    # Latin-1 of ASCII text and 0xFF is the joined string's own storage: encoding copies it.
    # (The separators at the ends joined in, as in _normalize_ascii.)
    cls = np.frombuffer("\xff".join(["", *ascii_texts, ""]).encode("latin-1").translate(_ASCII_CLASS), np.uint8)
    # Text j starts at starts[j] in the joined bytes: the neighbours (i, i + 1) from its
    # separator before it to its last character are its own.
    lengths = np.fromiter(map(len, ascii_texts), np.int64, len(ascii_texts))
    starts = np.cumsum(lengths + 1) - lengths
    changed = np.flatnonzero(np.maximum.reduceat(cls[:-1] + cls[1:], starts - 1) >= 2)
    if not len(changed):
        return out
    ks = ascii_at[changed].tolist()
    plain = [k for k in ks if "\x1b" not in texts[k]]  # ftfy reads ESC as a terminal escape
    for k, fixed in zip(plain, _normalize_ascii([texts[k] for k in plain])):
        out[k] = fixed
    if len(plain) < len(ks):
        for k in ks:
            if "\x1b" in texts[k]:
                out[k] = full(texts[k])
    return out


def _normalize_full(text: str, skip_noop_ftfy: bool = True) -> str:
    while True:
        fixed = one_pass(text, skip_noop_ftfy)
        if fixed == text:
            return fixed
        text = fixed


def one_pass(text: str, skip_noop_ftfy: bool = True) -> str:
    """The four steps once. ``normalize`` repeats them until the text stops changing, so
    ``normalize(text)`` is ``text`` where ``one_pass(text) == text``, and ``normalize(one_pass(text))``
    otherwise (a memo of ``normalize`` may look the second up: see ``versions.NormalizeMemo``)."""
    if skip_noop_ftfy and _FTFY_UNCHANGED(text):
        fixed = _clean(text)
    else:
        fixed = _clean(ftfy.fix_text(text, FTFY_CONFIG))
    if not fixed:
        # ftfy can "repair" visible text into control characters alone ("¬ç" read as Mac
        # Roman is the C1 control U+008D), which step 3 then removes: keep the text unrepaired.
        fixed = _clean(text)
    return fixed
