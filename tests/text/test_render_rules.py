"""Rules of the plain-text renderers (text/plain.py, text/latex/) that the mutation run
(benchmarks/mutation.py) could change without a test failing, each pinned by one case."""

from __future__ import annotations

import pytest

from neurips_abstracts.text.plain import to_plain

CASES = {
    # LaTeX (text/latex/)
    "an optional argument that is a whole token": (r"$\sqrt[3]{x}$", "x^(1/3)"),
    "an optional argument then a space": (r"$\sqrt[3] x$", "x^(1/3)"),
    "a TeX dash after a symbol is no word": (r"\alpha--x", "α–x"),
    "TeX quotes after an unknown macro are no word": (r"\foo``x''", "foo“x”"),
    "math of one token is no word": (r"the $n$th term", "the nth term"),
    "a run of math text is no word": (r"$2\alpha$", "2α"),
    "an unknown macro seen before keeps its arguments": (r"$\foo{x} + \foo{y}$", "foo(x) + foo(y)"),
    "a tie before a number after a space means about": (r"a speedup of ~90x", "a speedup of ~90x"),
    "a tie after a word is a space": (r"see Figure~3 and a speedup of ~90x", "see Figure 3 and a speedup of ~90x"),
    "an escaped star": (r"a\*b", "a*b"),
    "a control word ends at the spaces after it": (r"big{\bf D}ata", "bigData"),
    "a character by number": (r"\char65", "A"),
    "a character by number after an unknown use of char": (r"\char x then \char65", "char x then A"),
    "a text accent in text": (r"Fran\c{c}ois", "François"),
    "a note is text": (r"a note\footnote{pages 1--2}.", "a note (pages 1–2)."),
    "not before more than one character": (r"$\not{ab}$", "not ab"),
    "a space typed before text in math is kept": (r"$x \text{and} y$", "x and y"),
    "no space typed before text in math, none added": (r"$x\text{and} y$", "xand y"),
    "an optional argument across tokens": (r"\cite[p.~3]{k}", "[k, p. 3]"),
    "an optional argument ends at its first bracket outside braces": (r"\cite[a {]} b]{k}", "[k, a ] b]"),
    "an unclosed optional argument is text": (r"\cite[a {k}", "[[]a k"),
    "a second optional argument is the postnote": (r"\cite[see][]{k}", "[see k]"),
    "an item's empty label shows nothing": (r"a \item[] b", "a b"),
    "an unknown macro seen before keeps its optional argument": (r"\foo{x} \foo[a]{y}", "foo x foo[a] y"),
    "an indexed root is apart from what is before it": (r"$2\sqrt[3]{x}$", "2 x^(1/3)"),
    "a root is apart from what follows it": (r"$\sqrt{n}d$", "√n d"),
    "an overset is apart from what is around it": (r"$x\overset{a}{b}y$", "x b^a y"),
    "math ending in a script is apart from what follows": (r"$x_i$th", "x_i th"),
    "math starting with a word is apart from what is before": (r"We$\log n$", "We log n"),
    "a group starting with a word is apart from what is before": (r"We{\foo}", "We foo"),
    "a second script of digits keeps its marker": (r"$x_1_2$ and $x^2^3$", "x₁_2 and x²^3"),
    "a paragraph break parts words": (r"end\par next\hfill on", "end next on"),
    # markdown emphasis (text/plain.py)
    "a star between digits is a character": ("5*10*20 and *a*", "5*10*20 and a"),
    "an underscore between digits is a character": ("1_2_ and _a_", "1_2_ and a"),
    "the rule of three does not apply when both runs are multiples of three": ("a***b***c", "abc"),
    "a url in url without a scheme is held out of emphasis": (r"see \url{www.a*b*c.org}", "see www.a*b*c.org"),
    "math is held out of emphasis": (r"$a*b*c$ and *x*", "a*b*c and x"),
}


@pytest.mark.parametrize(("abstract", "plain"), CASES.values(), ids=CASES.keys())
def test_rule(abstract, plain):
    assert to_plain(abstract) == plain
