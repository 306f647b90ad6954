import unicodedata

from hypothesis import example, given, settings, strategies as st

from neurips_abstracts.text.normalize import normalize


@settings(max_examples=500, deadline=None)
@given(st.text())
@example("schÃ¶n Ã©tÃ©")
@example("a\u0301\x08\u200b\ufeff\t\n b")
@example("À\x1fº")
def test_idempotent(text):
    """Inputs: any Unicode text without surrogates (hypothesis' default), and the listed mojibake,
    control and invisible characters. Normalizing twice gives what normalizing once gives."""
    once = normalize(text)
    assert normalize(once) == once


def has_visible_text(text: str) -> bool:
    """True when the text has a character that is not white space, a control character (Cc) or
    one of the invisible characters normalization removes (BOM, zero-width space)."""
    return any(not (c.isspace() or unicodedata.category(c) == "Cc" or c in "\ufeff\u200b") for c in text)


@settings(max_examples=500, deadline=None)
@given(st.text())
@example("¬ç")  # ftfy decodes it to the control character U+008D alone
def test_never_empties_a_record_with_visible_text(text):
    """Inputs: any Unicode text without surrogates; those with a visible character (as
    ``has_visible_text`` says) normalize to a non-empty text."""
    if has_visible_text(text):
        assert normalize(text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_output_is_nfc_single_spaced_without_controls(text):
    """Inputs: any Unicode text without surrogates. The result is NFC, single-spaced, stripped,
    and holds no control character (category Cc)."""
    out = normalize(text)
    assert unicodedata.is_normalized("NFC", out)
    assert "  " not in out and out == out.strip()
    assert not any(unicodedata.category(c) == "Cc" for c in out)


def test_mojibake_is_repaired():
    assert normalize("SchrÃ¶dinger bridges") == "Schrödinger bridges"


def test_ftfy_defaults_that_would_change_the_authors_text_are_off():
    # ftfy's defaults straighten quotes, expand ligatures and unescape HTML: all three kept here.
    text = "the “best” eﬃcient model &mdash; &lt;tag&gt;"
    assert normalize(text) == text


def test_controls_removed_and_whitespace_collapsed():
    assert normalize("  a\x08b\tc\r\n\u00a0 d\u200b  ") == "ab c d"


def test_nfc_composes():
    assert normalize("Gaussian proce\u0301ss") == "Gaussian proc\u00e9ss"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)))
@example("a\r\nb\x0b\x0cc\x7f\x00")
def test_ascii_shortcut_equals_the_full_path(text):
    """Inputs: any ASCII text but those holding ESC (which ftfy reads as a terminal escape and
    the shortcut leaves to the full path). The shortcut gives what the full path gives."""
    from neurips_abstracts.text.normalize import _normalize_full

    if "\x1b" not in text:
        assert normalize(text) == _normalize_full(text)


def test_memo_gives_normalize_and_stays_within_its_bound():
    import sys

    from neurips_abstracts.dedup.versions import NormalizeMemo

    texts = ["fine text", "two  spaces", "cafe\u0301", "SchrÃ¶dinger", "x" * 300, "two  spaces", "fine text", "y" * 300]
    memo = NormalizeMemo(sys.getsizeof("x" * 300) * 2 + 200)
    sizes = []
    for text in texts * 3:
        assert memo(text) == normalize(text)
        assert memo.nbytes <= memo.max_bytes
        assert memo.nbytes == sum(sys.getsizeof(k) + (0 if v is k else sys.getsizeof(v)) for k, v in memo.of.items())
        sizes.append(len(memo.of))
    assert max(sizes) > 1 and min(sizes[1:]) < max(sizes)  # it remembers, and starts again when full
    assert memo("fine text") is memo("fine text")  # a hit returns the remembered text


_awkward = st.sampled_from(["a", "b", "x y", " ", "  ", "\t", "\r", "\n", "\r\n", "\x00", "\x07", "\x1b", "\x1b[31m", "\x1c",
                            "\x1e", "\x7f", "\x85", "\xa0", "\u2009", "\u3000", "\u2028", "\ufeff", "\u200b", "\xff", "é", "e\u0301",
                            "Ã©", "À\x1fº", "¬ç", "中", "😀", "\\", "^"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_awkward, max_size=8).map("".join), max_size=12))
@example(["", " ", "a", "a ", " a", "a  b", "\x1b", "\xff", "a\tb"])
def test_normalize_many_is_normalize_of_each(texts):
    """Inputs: lists of texts made of awkward pieces (controls, ESC, NBSP and other Unicode white
    space, CR, tabs, spaces at the ends, empty texts, 0xFF, which the batch joins ASCII texts
    with, mojibake). The batch gives what ``normalize`` gives each text, with or without a memo."""
    from neurips_abstracts.dedup.versions import NormalizeMemo
    from neurips_abstracts.text.normalize import _normalize_full, normalize_many

    expected = [normalize(t) for t in texts]
    # normalize's ASCII shortcut is the batch's (for one text): checked against the full path here
    assert expected == [_normalize_full(t) if t.isascii() and "\x1b" not in t else e for t, e in zip(texts, expected)]
    assert normalize_many(texts) == expected
    assert normalize_many(texts, NormalizeMemo()) == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_awkward, max_size=8).map("".join) | st.text(), max_size=12))
@example(["caf\u00e9  au  lait", "caf\u00e9 au lait", "Schr\u00c3\u00b6dinger", "Schr\u00f6dinger", "\u00c0\x1f\u00ba"])
def test_memo_of_the_first_pass_gives_normalize(texts):
    """Inputs: lists of awkward texts (and any Unicode text), with white space variants, mojibake
    and its repair. A memo holding the first pass of each text, and each text before it, which
    it looks up after a text's first pass, gives ``normalize`` of each text."""
    from neurips_abstracts.dedup.versions import NormalizeMemo
    from neurips_abstracts.text.normalize import one_pass

    memo = NormalizeMemo()
    for text in texts:
        assert memo(one_pass(text)) == normalize(one_pass(text))
        assert memo(text) == normalize(text)
    assert [memo(t) for t in texts] == [normalize(t) for t in texts]


@settings(max_examples=400, deadline=None)
@given(st.lists(_awkward, max_size=10).map("".join) | st.text())
def test_clean_shortcut_is_the_three_steps(text):
    """Inputs: awkward texts and any Unicode text. ``_clean`` returning a printable,
    single-spaced NFC text as it is gives what its three steps give."""
    from neurips_abstracts.text.normalize import _REMOVE_RE, _clean

    assert _clean(text) == " ".join(_REMOVE_RE.sub("", unicodedata.normalize("NFC", text)).split())
