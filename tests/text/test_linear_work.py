"""Rendering does linear work in a record's length, checked by counting, not timing: the Python
steps (trace events: calls, lines, returns) of rendering a text of n and of 4n characters.
Linear work gives a ratio of about 4, quadratic about 16; timing is benchmarks/linearity.py's."""

import sys

import pytest

from neurips_abstracts.text.render import render_many

from benchmarks.linearity import KINDS

SMALL, FACTOR = 2000, 4
RATIO_LIMIT = 5.5  # linear work: 4 and a little; a quadratic step at these sizes: 15 and more


def _fill(unit: str, size: int) -> str:
    return unit * (size // len(unit))


# Beyond the benchmark's kinds: closers that search back past openers of the other character,
# which CommonMark's opener bottoms keep linear.
EMPHASIS = {
    "_a then a*": lambda n: _fill("_a ", n // 2) + _fill("a* ", n // 2),
    "*a then a_": lambda n: _fill("*a ", n // 2) + _fill("a_ ", n // 2),
    "**a then a*": lambda n: _fill("**a ", n // 2) + _fill("a* ", n // 2),
}
# The rules of the words-kept issue: optional arguments (found by a search for their "]" that
# must not start again at each macro), a star by a digit, the pieces of spans and groups.
ARGUMENTS = {
    "\\cite[ unclosed, repeated": lambda n: _fill("\\cite[a ", n),
    "\\cite[ repeated, one ] at the end": lambda n: _fill("\\cite[a ", n) + "]{k}",
    "\\cite[a][b]{c} repeated": lambda n: _fill("\\cite[a][b]{c} ", n),
    "\\item[ unclosed, repeated": lambda n: _fill("\\item[a ", n),
    "\\foo[a]{b} repeated": lambda n: _fill("\\foo[a]{b} ", n),
    "\\cite[ then groups, unclosed": lambda n: "\\cite[" + _fill("{a}b", n),
    "\\cite[{a}] repeated": lambda n: _fill("\\cite[{a}]{b}", n),
    "5*10 repeated": lambda n: _fill("5*10*", n),
    "x*2*y then *a* repeated": lambda n: _fill("x*2*y *a* ", n),  # a star by one digit, beside emphasis
    "x_1 repeated in math": lambda n: "$" + _fill("x_1", n) + "$",
    "{\\foo} repeated": lambda n: _fill("a{\\foo}", n),
    "$\\log$ repeated": lambda n: _fill("a$\\log$", n),
    "\\sqrt{n}d repeated": lambda n: "$" + _fill("\\sqrt{n}d", n) + "$",
}
MAKERS = {**{name: make for name, (_, make) in KINDS.items()}, **EMPHASIS, **ARGUMENTS}


def steps(text: str) -> int:
    """Trace events of rendering ``text``, once the caches (symbol tables) are filled."""
    render_many([text])
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer

    sys.settrace(tracer)
    try:
        render_many([text])
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("kind", MAKERS)
def test_rendering_work_grows_linearly(kind):
    make = MAKERS[kind]
    small, large = steps(make(SMALL)), steps(make(SMALL * FACTOR))
    assert large <= RATIO_LIMIT * max(small, 1), f"{kind}: {small} steps at {SMALL} characters, {large} at {SMALL * FACTOR}"
