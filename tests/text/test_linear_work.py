"""Rendering does linear work in a record's length, checked by counting, not timing: the Python
steps (trace events: calls, lines, returns) of rendering a text of n and of 4n characters.
Linear work gives a ratio of about 4, quadratic about 16; timing is benchmarks/linearity.py's."""

import sys

import pytest

from benchmarks.linearity import KINDS
from neurips_abstracts.text.render import render_many

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
MAKERS = {**{name: make for name, (_, make) in KINDS.items()}, **EMPHASIS}


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
