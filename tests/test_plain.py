import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurips_abstracts.plain import extract_urls, latex_to_text, to_plain


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
    import re

    from neurips_abstracts.plain import to_plain

    expected = re.sub(r"\s+", " ", text).strip()
    assert " ".join(text.split()) == expected
    assert to_plain(text) == " ".join(to_plain(text).split())
