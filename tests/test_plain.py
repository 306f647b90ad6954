import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurips_abstracts.plain import extract_urls, latex_to_text, to_plain


@pytest.mark.parametrize(
    ("latex", "plain"),
    [
        # pylatexenc drops \mbox and \texttt content by default
        (r"we \mbox{Design} a \texttt{foo()} tool", "we Design a foo() tool"),
        # pylatexenc raises IndexError on \href with arguments and KeyError without
        (r"see \href{https://x.org/a}{our code} now", "see our code now"),
        (r"a bare \href", "a bare"),
        # pylatexenc renders \url as <...>
        (r"code: \url{https://x.org/a}.", "code: https://x.org/a."),
        # a bare % is a LaTeX comment to pylatexenc and would drop the rest of the abstract
        (r"improves by 5% over 92\% of baselines", "improves by 5% over 92% of baselines"),
        # space before a text macro inside math is kept (pylatexenc drops it)
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


@pytest.mark.corpus
def test_island_rendering_matches_whole_text_pylatexenc_on_real_abstracts():
    """Rendering only the LaTeX islands gives what pylatexenc gives on the whole text, up to
    white space (where pylatexenc sometimes drops the spaces the author typed around math)."""
    from neurips_abstracts.normalize import normalize
    from neurips_abstracts.plain import latex_to_text_whole

    from .conftest import corpus_abstracts

    texts = [normalize(t) for year in (2018, 2023) for t in corpus_abstracts(year)]
    mismatched = [t for t in texts if "".join(latex_to_text(t).split()) != "".join(latex_to_text_whole(t).split())]
    assert mismatched == []
    assert sum(latex_to_text(t) != t for t in texts) > 500  # the comparison covered real LaTeX


def test_bare_ampersand_is_a_character():
    # pylatexenc turns a bare & (an alignment tab) into spaces
    assert to_plain("Q&A and R&D") == "Q&A and R&D"


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("\\%&ab {}$"))))
def test_bare_specials_escaped_as_the_regular_expression_would(text):
    import re

    from neurips_abstracts.plain import escape_bare_specials

    # the definition: an even run of backslashes (maybe none) not preceded by a backslash
    assert escape_bare_specials(text) == re.sub(r"(?<!\\)((?:\\\\)*)([%&])", r"\1\\\2", text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u3000ab$\\"))))
def test_plain_text_white_space_collapsed_as_the_regular_expression_would(text):
    import re

    from neurips_abstracts.plain import to_plain

    expected = re.sub(r"\s+", " ", text).strip()
    assert " ".join(text.split()) == expected
    assert to_plain(text) == " ".join(to_plain(text).split())
