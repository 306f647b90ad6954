"""Readable plain text and URLs from a normalized abstract.

``abstract`` keeps LaTeX, markdown and HTML entities as published; ``abstract_plain`` is
:func:`to_plain` of it: markdown emphasis removed outside math (``**x**``, ``__x__``, ``*x*``,
``_x_``; ``[text](url)`` becomes "text (url)"), then LaTeX rendered by :mod:`.latex`, then runs of
white space made one space. It is a pure function of the one abstract: nothing is cached or shared
between abstracts, so a paper's plain text cannot depend on the rest of the build.
"""

from __future__ import annotations

import re

from .latex import latex_to_text

__all__ = ["extract_urls", "latex_to_text", "strip_markdown", "to_plain"]

# As in CommonMark, `*` emphasis may open and close inside a word (**VA**lue), `_` may not (snake_case).
_MD_STRONG_RES = (
    re.compile(r"(?<![*\\])\*\*\*(?=[^\s*])(.+?)(?<=[^\s\\])\*\*\*"),
    re.compile(r"(?<![*\\])\*\*(?=[^\s*])(.+?)(?<=[^\s\\])\*\*"),
    re.compile(r"(?<![\w\\])__(?=[^\s_])(.+?)(?<=[^\s\\])__(?!\w)"),
)
_MD_EM_RES = (
    re.compile(r"(?<![*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?!\*)"),
    re.compile(r"(?<![\w\\])_(?=[^\s_])(.+?)(?<=[^\s_\\])_(?!\w)"),
)
_MD_LINK_RE = re.compile(r"\[([^\[\]]+)\]\((https?://[^)\s]+)\)")
_URL_RE = re.compile(r"https?://[^\s<>\"{}|\\^`\[\]]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?]}'\"*_>"
# Text where none of these occur has no LaTeX or entity to render. Plain substring tests:
# one regular expression with these alternatives costs a fifth of the whole rendering.
_TRIGGERS = ("\\", "$", "{", "}", "~", "&", "--", "``", "''", "!`", "?`")


def strip_markdown(text: str) -> str:
    """Remove markdown emphasis and turn ``[text](url)`` links into ``text (url)``."""
    if "](" in text:
        text = _MD_LINK_RE.sub(r"\1 (\2)", text)
    # Most abstracts have no emphasis at all: only run the patterns whose marker occurs.
    patterns = [p for p, marker in zip((*_MD_STRONG_RES, *_MD_EM_RES), "**_*_") if marker in text]
    previous = None
    while patterns and previous != text:  # nested emphasis such as **_x_** needs more than one pass
        previous = text
        for pattern in patterns:
            text = pattern.sub(r"\1", text)
    return text


_MATH_RE = re.compile(r"(\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\])")


_HOLE = "\ue000"  # a private-use character stands for each math span while markdown is removed


def to_plain(abstract: str) -> str:
    """``abstract_plain`` of a normalized abstract."""
    # Markdown first and outside math only, where ``_`` and ``*`` are LaTeX, not emphasis. Math
    # is held out as one character, so that emphasis around it (**N$^2$-GNN**) is still seen.
    if ("$" in abstract or "\\" in abstract) and _HOLE not in abstract:
        maths = _MATH_RE.findall(abstract)
        text = strip_markdown(_MATH_RE.sub(_HOLE, abstract))
        if maths:
            spans = iter(maths)
            text = re.sub(_HOLE, lambda _: next(spans), text)
    else:
        parts = _MATH_RE.split(abstract) if "$" in abstract or "\\" in abstract else [abstract]
        text = "".join(part if i % 2 else strip_markdown(part) for i, part in enumerate(parts))
    if any(t in text for t in _TRIGGERS):
        text = latex_to_text(text)
    return " ".join(text.split())  # runs of white space to one space, ends stripped


def extract_urls(text: str) -> list[str]:
    """http(s) URLs in order of first appearance, without trailing punctuation or braces."""
    seen: dict[str, None] = {}
    if "://" not in text:  # every URL has it; most abstracts have none
        return []
    for match in _URL_RE.finditer(text):
        url = match.group()
        while url:
            if url[-1] in _URL_TRAILING:
                url = url[:-1]
            # A closing parenthesis belongs to the URL only when it closes one opened inside it.
            elif url[-1] == ")" and url.count("(") < url.count(")"):
                url = url[:-1]
            else:
                break
        if len(url) > len("https://"):
            scheme, rest = url.split("://", 1)
            seen.setdefault(f"{scheme.lower()}://{rest}", None)  # "Https://" at a sentence start
    return list(seen)
