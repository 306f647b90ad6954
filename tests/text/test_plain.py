import re
import unicodedata

import pytest
from hypothesis import example, given, settings, strategies as st

from neurips_abstracts.text.plain import extract_urls, latex_to_text, to_plain

from tests.helpers import REAL_SOURCES, ROOT, real_texts


@pytest.mark.parametrize(
    ("latex", "plain"),
    [
        # \mbox and \texttt keep their content
        (r"we \mbox{Design} a \texttt{foo()} tool", "we Design a foo() tool"),
        # \href keeps its text and its URL; a bare one is its name
        (r"see \href{https://x.org/a}{our code} now", "see our code (https://x.org/a) now"),
        (r"a bare \href", "a bare href"),
        # \url is its URL
        (r"code: \url{https://x.org/a}.", "code: https://x.org/a."),
        # a bare % would be a LaTeX comment, dropping the rest of the abstract: it is a character
        (r"improves by 5% over 92\% of baselines", "improves by 5% over 92% of baselines"),
        # space before a text macro inside math is kept
        (r"we $\mbox{propose} \textbf{FuncFormer}$, a", "we propose FuncFormer, a"),
        (r"$\alpha$-divergence on $\mathbb{R}^n$", "α-divergence on ℝ^n"),
        (r"``quoted'' a~b", "“quoted” a b"),
    ],
)
def test_latex_to_plain(latex, plain):
    assert to_plain(latex) == plain


@pytest.mark.parametrize(
    ("md", "plain"),
    [
        ("via **VA**lue **ST**itching_ (**_VAST_**)", "via VAlue STitching_ (VAST)"),
        ("_Horizon Adaptive_ and *em* and __strong__", "Horizon Adaptive and em and strong"),
        ("snake_case_name stays", "snake_case_name stays"),
        (r"math $a_i * b_i$ is left alone", "math a_i * b_i is left alone"),
        ("see [the code](https://github.com/a/b)", "see the code (https://github.com/a/b)"),
        # between two digits a * or _ is a character: a product, an index, never emphasis
        ("We use a 5*10*20 grid", "We use a 5*10*20 grid"),
        ("2*3*4 = 24", "2*3*4 = 24"),
        ("x_1_2 and *word* and a *b* c", "x_1_2 and word and a b c"),
        # inside a word with a digit on one side, * is a product too; between letters, emphasis
        ("x*2*y and cost 5*x*2", "x*2*y and cost 5*x*2"),
        ("a*b*c and a *2* b", "abc and a 2 b"),
    ],
)
def test_markdown_emphasis_removed(md, plain):
    assert to_plain(md) == plain


def test_unparseable_latex_never_raises():
    for text in [r"\begin{x", "}{}{", r"$$ \frac{", r"\href{", "\\"]:
        assert isinstance(latex_to_text(text), str)


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        (r"\url{https://anonymous.4open.science/r/RPEval-E4B0}.", ["https://anonymous.4open.science/r/RPEval-E4B0"]),
        ("at https://x.org/a.", ["https://x.org/a"]),
        ("(see https://x.org/a_(b)).", ["https://x.org/a_(b)"]),
        ("(https://x.org/y), and https://x.org/y again", ["https://x.org/y"]),
        ("[code](https://github.com/u/r) and <http://a.b/c>;", ["https://github.com/u/r", "http://a.b/c"]),
        ("no link here http:// nor ftp://x.y", []),
    ],
)
def test_extract_urls(text, urls):
    assert extract_urls(text) == urls


def test_bare_ampersand_is_a_character():
    # a bare & is a character, not an alignment tab
    assert to_plain("Q&A and R&D") == "Q&A and R&D"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u3000ab$\\"))))
def test_plain_text_white_space_collapsed_as_the_regular_expression_would(text):
    """Inputs: any text of Unicode white space (ASCII, NEL, NBSP, en quad, ideographic space),
    ``a``, ``b``, ``$`` and backslash. ``str.split`` splits where ``\\s+`` does, and the
    rendering is single-spaced."""
    import re

    from neurips_abstracts.text.plain import to_plain

    expected = re.sub(r"\s+", " ", text).strip()
    assert " ".join(text.split()) == expected
    assert to_plain(text) == " ".join(to_plain(text).split())


# -- markdown emphasis: exactly where CommonMark reads it -------------------------------------


@pytest.mark.parametrize(
    ("md", "plain"),
    [
        ("x̃_t then y_.", "x̃_t then y_."),  # after a combining mark: intraword, no emphasis
        ("x\u0303_t then y_.", "x\u0303_t then y_."),  # the same, decomposed
        ("a_b_c and _d", "a_b_c and _d"),  # intraword, and an opener with no partner
        ("2 * 3 and a*", "2 * 3 and a*"),  # surrounded by spaces; no partner
        ("**bold** and __strong__ and *em* and _em_", "bold and strong and em and em"),
        ("***both*** and **_nested_**", "both and nested"),
        ("*a **b** c*", "a b c"),
        ("**a*", "*a"),  # one * pairs; the other stays
        ("*foo**bar*", "foo**bar"),  # rule of three: the ** between can both open and close, so pairs with neither
        (r"\*not\* emphasis", "*not* emphasis"),  # escaped (then \* renders as *)
        ("__init__.py and *https://x.org/a_b_*.", "init.py and https://x.org/a_b_."),
        ("see *https://github.com/ML-GSAI/DPT*.", "see https://github.com/ML-GSAI/DPT."),
        ("_$x$_ and **N$^2$-GNN**", "x and N²-GNN"),
    ],
)
def test_emphasis_is_removed_exactly_where_commonmark_reads_it(md, plain):
    assert to_plain(md) == plain


_EMPHASIS_ALPHABET = st.sampled_from(["*", "_", "a", "b", " ", ".", ",", "(", ")", "-", "é", "\u0303", "\u00a0", "中", "—",
                                      "1", "2", "٣"])
# The project's one departure from CommonMark inside strip_emphasis (plain.py's rules, the
# second): a run of * or of _ inside a word (neither white space nor punctuation on either side)
# with a decimal digit on at least one side is a character. The oracle gets each such run
# escaped, which is how CommonMark writes a character.
_RUN_RE = re.compile(r"\*+|_+")


def _in_word(ch: str) -> bool:
    """Neither the text's edge, nor white space, nor punctuation (Unicode P or S), as CommonMark
    tells the flanking of a delimiter run."""
    return bool(ch) and not ch.isspace() and unicodedata.category(ch)[0] not in "PSZ"


def as_commonmark_reads(text: str) -> str:
    """``text`` for a CommonMark parser, with the departure applied: each ``*`` or ``_`` of a
    run inside a word with a digit on one side at least escaped."""

    def escaped(m: re.Match) -> str:
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        if _in_word(before) and _in_word(after) and (before.isdecimal() or after.isdecimal()):
            return "".join("\\" + c for c in m.group())
        return m.group()

    return _RUN_RE.sub(escaped, text)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=_EMPHASIS_ALPHABET, max_size=16))
@example("x\u0303_t then y_.")  # the case that was read as emphasis
@example("*foo**bar*")
@example("_(_a_)_")
@example("a* b* c_ d")  # closers only: no run can open
@example("b* *a*")  # a possible closer before the first possible opener, and a pair after it
@example("We use a 5*10*20 grid")  # the departure: a product stays
@example("2*3*4 = 24 and *word* and a *b* c")
@example("x_1_2 and 1**2**3 and *1*")  # runs of two between digits; emphasis of a digit alone
@example("*10*_10_")  # a * run and a _ run between two digits are two runs, neither between digits
@example("٣*٤*٥")  # Arabic-Indic digits are decimal digits too
@example("x*2*y and cost 5*x*2")  # a digit on one side: a product, no emphasis
@example("a*b*c and *word* and a *b* c and a *2* b")  # letters, or a space beside: emphasis
@example("é*2*中 and a\u0303*1*")  # a letter of any script or a mark beside a digit
def test_strip_emphasis_agrees_with_a_commonmark_parser(text):
    """Inputs: any text of up to 16 characters of ``*``, ``_``, letters, an accented and a CJK
    letter, a combining tilde, ASCII space and no-break space, punctuation (``. , ( ) -`` and
    an em dash), and digits (ASCII and Arabic-Indic): no backslash, bracket, backtick, ``<`` or
    ``&``, which CommonMark gives other meanings (escapes, links, code spans, HTML, entities)
    that abstracts do not use. What remains is what markdown-it-py, a CommonMark parser, shows
    as text, once the project's departure is applied (:func:`as_commonmark_reads`)."""
    from markdown_it import MarkdownIt

    from neurips_abstracts.text.plain import strip_emphasis

    md = MarkdownIt("zero").enable(["emphasis", "escape"])
    children = md.parseInline(as_commonmark_reads(text))[0].children or []
    assert strip_emphasis(text) == "".join(t.content for t in children if t.type == "text")


_RUN_ALPHABET = st.sampled_from(["*", "_", "\\", "\\*", "\\\\", "a", " ", ".", "\n", "é", "**", "__"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(_RUN_ALPHABET, max_size=40).map("".join))
@example("\\")
@example("a\\")
@example("\\\\*a*")  # an escaped backslash, then a run
@example("\\**a*")  # an escaped *, then a run of one
def test_runs_found_by_find_are_the_regular_expressions(text):
    """Inputs: strings of up to 40 pieces of ``*``, ``_``, backslashes (alone, doubled, before
    ``*``), letters, space, a line feed: the runs found by str.find are the runs
    _EMPHASIS_RUN_RE finds, escapes left out; and strip_emphasis gives the same text whichever
    way it finds them (the regular expressions serve a text of many delimiters)."""
    from unittest import mock

    from neurips_abstracts.text import plain

    expected = [m.span() for m in plain._EMPHASIS_RUN_RE.finditer(text) if text[m.start()] != "\\"]
    assert plain._runs_found(text) == expected
    with mock.patch.object(plain, "_FEW_DELIMITERS", -1):
        by_regular_expressions = plain.strip_emphasis(text)
    assert plain.strip_emphasis(text) == by_regular_expressions


@pytest.mark.parametrize("source", REAL_SOURCES)
def test_runs_found_by_find_on_real_abstracts(source):
    from unittest import mock

    from neurips_abstracts.text import plain

    texts = [t for t in real_texts(source) if "*" in t or "_" in t]
    assert texts
    for text in texts:
        assert plain._runs_found(text) == [m.span() for m in plain._EMPHASIS_RUN_RE.finditer(text) if text[m.start()] != "\\"]
    with mock.patch.object(plain, "_FEW_DELIMITERS", -1):
        by_regular_expressions = [plain.to_plain(t) for t in texts]
    assert [plain.to_plain(t) for t in texts] == by_regular_expressions


# -- meaning kept: "about" and currency ------------------------------------------------------


@pytest.mark.parametrize(
    ("latex", "plain"),
    [
        ("achieves ~90x compression", "achieves ~90x compression"),
        ("~90x compression at the start", "~90x compression at the start"),
        ("scales (~10M examples) and ~15% more", "scales (~10M examples) and ~15% more"),
        ("by 2.8%~4.5% on nuScenes", "by 2.8%~4.5% on nuScenes"),  # a range
        (r"accuracy of ~75\% here", "accuracy of ~75% here"),
        ("see Figure~3 and Xu~et~al.~2022 for dimension~1", "see Figure 3 and Xu et al. 2022 for dimension 1"),  # ties
        ("a~b and ~ 5", "a b and 5"),
        ("costs $5 and $10 to train", "costs $5 and $10 to train"),
        ("roughly $20. Then $x$ is", "roughly $20. Then x is"),
        ("from $1-\\delta$ to $2$", "from 1-δ to 2"),  # math starting with a digit
        ("on 64$\\times$64 images", "on 64×64 images"),  # math followed by a digit
        ("[KLL$^+$23] and $3$-WL", "[KLL^+ 23] and 3-WL"),  # the script apart from what follows the math, as inside it
    ],
)
def test_about_and_currency_survive(latex, plain):
    assert to_plain(latex) == plain


def test_fidelity_checks_count_lost_about_and_currency():
    from benchmarks.plain_fidelity import lost_meaning

    assert lost_meaning("achieves ~90x and (~10M) in 2.8%~4.5%", "achieves 90x and ( 10M) in 2.8% 4.5%") == [
        "~90", "~10", "~4"]
    assert lost_meaning("costs $5 and $10", "costs 5 and 10") == ["$5", "$10"]
    assert lost_meaning("Figure~3 and $x$ and \\$5", "Figure 3 and x and $5") == []
    assert lost_meaning("sequences (e.g., $>$16K tokens) and $3\\times$ faster", "sequences (e.g., >16K tokens) and 3× faster") == []
    assert lost_meaning("costs $5 and $10", to_plain("costs $5 and $10")) == []


# -- total: every input renders to text UTF-8 can carry, or is refused -----------------------


@pytest.mark.parametrize(
    ("source", "offset", "words"),
    [
        (r"a \unicode{xD800} b", 2, "U+D800, a surrogate"),
        (r"a \unicode{55296} b", 2, "U+D800, a surrogate"),
        (r"\unicode{x110000}", 0, "beyond the last Unicode code point"),
        (r"\unicode{xFFFE}", 0, "noncharacter"),
        (r"x \char0", 2, "U+0000, NUL"),
        (r"x \char'0", 2, "NUL"),
        ('x \\char"DFFF', 2, "surrogate"),
        ("x ^^@ y", 2, "U+0000, NUL"),
        ("x ^^00", 2, "NUL"),
        ("x ^^^^d800", 2, "surrogate"),
        ("x ^^^^^^10ffff", 2, "noncharacter"),
        ("x ^^? y", 2, "U+007F, a control character"),
        ("a \ufdd0 b", 2, "U+FDD0 is a Unicode noncharacter"),
        ("a \U0001fffe", 2, "U+1FFFE"),
    ],
)
def test_bad_characters_are_found_where_they_are(source, offset, words):
    from neurips_abstracts.text.characters import bad_character

    found = bad_character(source)
    assert found is not None and found[0] == offset and words in found[1]


@pytest.mark.parametrize(
    "source", [r"\unicode{x2014}", r"\unicode{8212}", r"\unicode{abc}", r"\char65", '\\char"41', r"\chart", "x^^2", "a^{b}", "€ 中 é"]
)
def test_good_characters_are_not_refused(source):
    from neurips_abstracts.text.characters import bad_character

    assert bad_character(source) is None


def test_escapes_render_to_their_character():
    assert to_plain(r"a \unicode{x2014} b \char65 \char" + '"42' + r" c \unicode{8212}") == "a — b A B c —"
    assert to_plain(r"\unicode{xD800} \char0") == "\ufffd \ufffd"  # never a surrogate or NUL


_NOT_TEXT = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff\\ufdd0-\\ufdef\\ufffe\\uffff]")


@settings(max_examples=1000, deadline=None)
@given(st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from([r"\unicode{", r"\char", "^^", "x", "D800", "0", '"', "'", "}", "{", "$", "&#", ";", "\\", " "]),
             max_size=12).map("".join),
))
@example(r"\unicode{xD800}")
@example(r"\char0 and \char" + '"FFFE')
@example("&#xD800; &#0; &#xFFFE;")
def test_every_text_renders_to_text_or_is_refused(text):
    """Inputs: any Unicode text of up to 40 characters without surrogates (hypothesis' default
    alphabet), and strings of up to 12 pieces of escape syntax (``\\\\unicode{``, ``\\\\char``,
    ``^^``, hex digits, quotes, braces, ``&#``). The rendering encodes as UTF-8; and unless the
    refusal rule flags the text, or the text itself holds a control character (removed by
    normalization before any rendering), it holds no control character, surrogate or
    noncharacter."""
    from neurips_abstracts.text.characters import bad_character

    plain = to_plain(text)
    plain.encode("utf-8")
    if bad_character(text) is None and not re.search("[\\x00-\\x1f\\x7f-\\x9f]", text):
        assert not _NOT_TEXT.search(plain), plain


# -- math spans -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("a $x$ b $$y$$ \\(z\\) \\[w\\]", ["$x$", "$$y$$", "\\(z\\)", "\\[w\\]"]),
        ("costs $5 and $10, then $x$", ["$x$"]),
        ("\\$5 and $x$", ["$x$"]),
        ("unclosed \\( and $", []),
        ("$a \\(b$ c\\)", ["$a \\(b$"]),
    ],
)
def test_math_spans(text, spans):
    from neurips_abstracts.text.latex import math_spans

    assert [text[a:b] for a, b in math_spans(text)] == spans


def test_long_record_limit_is_the_one_contributing_states(tmp_path):
    from neurips_abstracts.ingest.validate import MAX_RECORD_CHARS, validate

    row = next(line for line in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| `long-record`"))
    assert f"over {MAX_RECORD_CHARS:,} characters" in row
    dump = tmp_path / "001_0123456789abcdef.txt"
    words = "word " * (MAX_RECORD_CHARS // 5)
    dump.write_text("NeurIPS 2026 论文列表\n\n" + words + "end.\n\nA short one.\n", encoding="utf-8")
    codes = [(f.line, f.code) for f in validate([dump], raw_dir=tmp_path / "none")]
    assert (3, "long-record") in codes and (5, "long-record") not in codes


def test_bad_character_is_refused_by_validate_and_build_with_one_message(tmp_path):
    from tests.helpers import run_cli

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "001_0123456789abcdef.txt").write_text(
        "NeurIPS 2026 论文列表\n\nA fine abstract.\n\nWe write\n  the dash as \\unicode{xD800} here.\n", encoding="utf-8")
    checked = run_cli("validate", str(raw))
    built = run_cli("build", "--raw", str(raw), "--out", str(tmp_path / "dist"), "--first-release")
    message = "001_0123456789abcdef.txt:6:15: error: `\\unicode{xD800}` stands for U+D800, a surrogate"
    assert checked.returncode == 1 and message in checked.stdout + checked.stderr
    assert built.returncode != 0 and message in built.stdout + built.stderr and "Traceback" not in built.stderr
    assert not (tmp_path / "dist").exists()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["\\", "$", "{", "}", "a", " ", "~", "^", "_", "(", "ab"]), max_size=60).map("".join),
       st.integers(1, 8))
@example("$$$a$$", 1)
@example("\\\\{a\\$b", 1)
@example("\\$$$$$a$$$$$\\\\$$$$", 3)  # runs of "$$" found as one match, given back pair by pair
def test_a_long_text_is_tokenized_in_pieces_as_at_once(text, piece):
    """Inputs: strings of up to 60 pieces of the characters that end a token or escape one,
    tokenized in pieces of 1 to 8 characters (a long text's pieces are 16 kB): the tokens are
    those of the whole text at once, wherever the pieces are cut, and in a piece holding
    ``$$$$`` (where runs of pairs are found as one match) too."""
    from neurips_abstracts.text.latex.parser import _TOKEN_RE, _findall

    assert _findall(text, piece) == _TOKEN_RE.findall(text)


def test_every_white_space_character_but_the_space_is_unprintable():
    """to_plain's last step reads str.isprintable in place of a search for white space: that
    holds only while no white space character but the space is printable."""
    import sys

    others = [c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace() and c != " "]
    assert len(others) > 20 and not [c for c in others if c.isprintable()]


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u3000\xad\u200b\ue000ab."))))
@example("a b")
@example("a  b")
@example("a\tb")
@example("a\u00a0b")
@example("a\u00adb c")  # unprintable but no white space: the search decides
@example("a\u00adb\u2003c")
def test_even_spaces_agrees_with_the_search(text):
    """Inputs: any text of ASCII and Unicode white space, unprintable characters that are not
    white space (soft hyphen, zero-width space, private use) and ``a``, ``b``, ``.``: the fast
    test finds uneven white space exactly where the regular expression does."""
    from neurips_abstracts.text.plain import _UNEVEN_SPACE_RE, _even_spaces

    assert _even_spaces(text) == (_UNEVEN_SPACE_RE.search(text) is None)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)) | st.text())
@example("")
@example("a\x7fb")
@example("\x00")
@example("~ ~")
def test_printable_is_isprintable(text):
    """Inputs: any ASCII text (every C0 control, DEL and space among them) and any Unicode
    text. The ASCII shortcut answers as str.isprintable does."""
    from neurips_abstracts.text.plain import _printable

    assert _printable(text) == text.isprintable()


@pytest.mark.parametrize("source", REAL_SOURCES)
def test_even_spaces_agrees_with_the_search_on_real_abstracts(source):
    """On real abstracts and on their plain text (where rendering may leave uneven space)."""
    from neurips_abstracts.text.latex import latex_to_text
    from neurips_abstracts.text.plain import _UNEVEN_SPACE_RE, _even_spaces

    texts = real_texts(source)
    texts += [latex_to_text(t) for t in texts]
    assert [_even_spaces(t) for t in texts] == [_UNEVEN_SPACE_RE.search(t) is None for t in texts]


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("\\${}~&-`'!?a "))))
def test_may_hold_latex_is_any_trigger(text):
    """Inputs: any text of the triggers' characters, a letter and a space."""
    from neurips_abstracts.text.plain import _TRIGGERS, _may_hold_latex

    assert _may_hold_latex(text) == any(t in text for t in _TRIGGERS)


def test_a_private_use_character_is_kept_not_replaced():
    # U+E000 is the marker to_plain holds math spans and URLs out with; the text's own stays itself.
    assert to_plain("Icon \ue000 marks the *best* result.") == "Icon \ue000 marks the best result."
    assert to_plain("\ue000 $x_1$ and \\url{https://a.org} \ue000 *b*") == "\ue000 x₁ and https://a.org \ue000 b"


_PRIVATE_AND_NONCHARACTERS = st.one_of(
    st.characters(min_codepoint=0xE000, max_codepoint=0xF8FF),
    st.sampled_from([chr(c) for c in range(0xFDD0, 0xFDF0)] + ["\ufffe", "\uffff", "\U000f0000", "\U0010fffd",
                                                               "\U0010fffe", "\U0001fffe"]),
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.one_of(_PRIVATE_AND_NONCHARACTERS, st.sampled_from(["a", "b ", " ", "*", "_", "**", "$x_1$",
                                                                          "https://a.org/x"])),
                max_size=30).map("".join))
@example("Icon \ue000 marks the *best* result.")
def test_private_use_and_noncharacters_pass_through_to_plain(text):
    """Each private-use or noncharacter code point of the input is in the output, as often, in
    order: none is taken for a marker of to_plain's own."""
    plain = to_plain(text)
    kept = [c for c in text if 0xE000 <= ord(c) <= 0xF8FF or ord(c) >= 0xF0000 or 0xFDD0 <= ord(c) <= 0xFDEF
            or ord(c) & 0xFFFE == 0xFFFE]
    assert [c for c in plain if c in kept] == kept
    assert "\ufffd" not in plain
