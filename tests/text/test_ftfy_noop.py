"""The ftfy shortcut gives ftfy's own answers: checked against ftfy on random and real text (the
seeds; the corpora in the corpus suite)."""

from __future__ import annotations

import re
import string

import ftfy
import pytest
from ftfy import badness, chardata, fixes
from hypothesis import example, given, settings, strategies as st

from neurips_abstracts.text import ftfy_noop
from neurips_abstracts.text.normalize import FTFY_CONFIG, _normalize_full, normalize

from tests.helpers import REAL_SOURCES, real_texts

UNCHANGED = ftfy_noop.make_unchanged(FTFY_CONFIG)

# Text made mostly of the characters that matter: anchors of ftfy's mojibake expression, ASCII
# letters, white space and punctuation around them, the characters ftfy's fixers act on, and
# any other character now and then.
_ANCHORS = sorted(chr(c) for c in ftfy_noop.ANCHORS)
_FIXED_BY_FTFY = ["\x80", "\x9d", "\r", "\n", "\u2028", "\x85", "\x1b", "\x1b[31m", "\ufe64", "\uff21", "\u3000", "\ud83d"]
_pieces = st.one_of(
    st.sampled_from(_ANCHORS),
    st.sampled_from(list(string.ascii_letters + " .,?!\t")),
    st.sampled_from(["Ã", "Â", "â€", "Ã©", "Ð", "Ø", "вЂ", "×²", "√±", "Ã ", " Â "]),
    st.sampled_from(_FIXED_BY_FTFY),
    st.characters(),
)
mixed_text = st.lists(_pieces, max_size=30).map("".join)


def _mojibake(text: str) -> list[str]:
    """The text as a wrong codec would show it (what a recrawl's encoding noise looks like)."""
    out = []
    for codec in ("cp1252", "latin-1", "mac_roman", "cp1251"):
        out.append(text.encode("utf-8").decode(codec, errors="replace"))
    return out


def test_ftfy_expression_has_the_shape_the_shortcut_needs():
    # If a new ftfy changed its expression, EXACT would turn False: the build would still be
    # right but slow, and this test says why.
    assert ftfy_noop.EXACT
    assert 1 <= ftfy_noop.WIDTH <= 16
    assert len(ftfy_noop.ANCHORS) > 100 and min(ftfy_noop.ANCHORS) >= 0x80


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(mixed_text)
@example("Ã ")
@example("a Ã ")
@example("xÃ\xa0")
@example("é€" + "x" * 20 + "é€")
@example("x" * 6 + "é€")
def test_is_bad_equals_ftfy(text):
    assert ftfy_noop.is_bad(text) == badness.is_bad(text)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(mixed_text)
@example("é\x1b[0m€")
@example("a\r\nÃ ")
@example("\uffe0x")
def test_unchanged_means_ftfy_changes_nothing(text):
    if UNCHANGED(text):
        assert ftfy.fix_text(text, FTFY_CONFIG) == text


@pytest.mark.parametrize("text", ["a\nb", "x\x80y", "full\uff41width", "line\u2028sep", "esc\x1b[1mape", "Ã©t\u00e9"])
def test_text_ftfy_acts_on_is_never_called_unchanged(text):
    assert not UNCHANGED(text)


@pytest.mark.parametrize("source", REAL_SOURCES)
def test_real_abstracts_and_their_mojibake(source):
    non_ascii = [t for t in real_texts(source) if not t.isascii()]
    assert len(non_ascii) >= 5  # enough real text for the comparison to mean something
    skipped = 0
    for text in non_ascii:
        for variant in [text, *_mojibake(text)]:
            assert ftfy_noop.is_bad(variant) == badness.is_bad(variant), variant
            if UNCHANGED(variant):
                assert ftfy.fix_text(variant, FTFY_CONFIG) == variant, variant
        skipped += UNCHANGED(text)
    # The point of the shortcut: most real non-ASCII abstracts need no ftfy at all.
    assert skipped > 0.6 * len(non_ascii)


@pytest.mark.parametrize("source", REAL_SOURCES)
def test_normalize_is_unchanged_by_the_shortcut_on_real_text(source):
    for text in real_texts(source):
        if not text.isascii():
            for variant in [text, *_mojibake(text)]:
                assert _normalize_full(variant) == _normalize_full(variant, skip_noop_ftfy=False)


@settings(max_examples=1000, deadline=None)
@given(mixed_text)
def test_normalize_is_unchanged_by_the_shortcut(text):
    assert normalize(text) == _normalize_full(text, skip_noop_ftfy=False)


def test_an_option_with_unknown_effect_is_refused():
    with pytest.raises(ValueError, match="uncurl_quotes"):
        ftfy_noop.make_unchanged(FTFY_CONFIG._replace(uncurl_quotes=True))
    # Turning a fixer off only makes fewer characters matter.
    lenient = ftfy_noop.make_unchanged(FTFY_CONFIG._replace(fix_character_width=False))
    assert lenient("full\uff41width") and not UNCHANGED("full\uff41width")


@pytest.mark.parametrize(
    "pattern",
    [
        re.compile("[é€]|ab"),  # an alternative without a non-ASCII anchor
        re.compile("é+x"),  # unbounded width
        re.compile("é", re.IGNORECASE),
        re.compile("[^a]é|\\s"),
    ],
)
def test_patterns_without_the_shape_are_not_analysed(pattern):
    assert ftfy_noop._analyse(pattern) is None


def test_analysis_of_a_pattern_with_the_shape():
    anchors, width = ftfy_noop._analyse(re.compile("[a-z][éè]x|ß[^a]|\\sµ?€"))
    assert anchors == {ord("é"), ord("è"), ord("ß"), ord("€")} and width == 3


def test_without_the_shape_is_bad_falls_back_to_ftfy(monkeypatch):
    monkeypatch.setattr(ftfy_noop, "EXACT", False)
    calls = []
    monkeypatch.setattr(badness, "is_bad", lambda text: calls.append(text) or True)
    assert ftfy_noop.is_bad("plain") and calls == ["plain"]


def test_width_map_characters_are_all_fixer_characters():
    # fix_character_width acts on exactly the keys of ftfy's width map: all of them count.
    for c in list(chardata.WIDTH_MAP)[:: max(1, len(chardata.WIDTH_MAP) // 50)]:
        assert not UNCHANGED("a" + chr(c) + "b")


def test_a_parser_that_fails_means_no_shortcut(monkeypatch):
    # re._parser is private to Python; if a future version changes it, the build must still work.
    def broken(*args, **kwargs):
        raise AttributeError("changed")

    monkeypatch.setattr(ftfy_noop._sre_parse, "parse", broken)
    assert ftfy_noop._shape() is None


def test_ftfy_asks_the_shortcut_whether_text_is_bad():
    # normalize routes ftfy's mojibake test here; if ftfy moved its look-up, this says so.
    assert ftfy.is_bad is ftfy_noop.is_bad and ftfy_noop.route_ftfy()
    assert ftfy.FIXERS["fix_character_width"] is ftfy_noop.fix_character_width


_WIDTH = [chr(c) for c in sorted(chardata.WIDTH_MAP)]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_WIDTH), st.sampled_from(_ANCHORS), st.characters()), max_size=30).map("".join))
@example("")
@example("\u3000")
@example("ＬＯＵＤ　ＮＯＩＳＥＳ")
def test_width_fixer_equals_ftfy(text):
    """Inputs: any characters, with every character of ftfy's width map and its anchors
    often among them. The routed width fixer gives what ftfy's own gives."""
    assert ftfy_noop.fix_character_width(text) == fixes.fix_character_width(text)


def test_width_fixer_knows_every_character_ftfy_maps():
    for c in chardata.WIDTH_MAP:
        assert ftfy_noop.fix_character_width(f"a{chr(c)}b") == fixes.fix_character_width(f"a{chr(c)}b")


@pytest.mark.parametrize("source", REAL_SOURCES)
def test_routed_ftfy_repairs_as_ftfy_itself(source, monkeypatch):
    variants = [v for text in real_texts(source) if not text.isascii() for v in [text, *_mojibake(text)]]
    routed = [ftfy.fix_text(v, FTFY_CONFIG) for v in variants]
    monkeypatch.setattr(ftfy, "is_bad", badness.is_bad)
    monkeypatch.setitem(ftfy.FIXERS, "fix_character_width", fixes.fix_character_width)
    assert routed == [ftfy.fix_text(v, FTFY_CONFIG) for v in variants]
    assert sum(r != v for r, v in zip(routed, variants)) > 0  # some mojibake was repaired


def test_route_leaves_an_unexpected_ftfy_alone(monkeypatch):
    other = lambda text: False  # noqa: E731
    monkeypatch.setattr(ftfy, "is_bad", other)
    assert not ftfy_noop.route_ftfy() and ftfy.is_bad is other
