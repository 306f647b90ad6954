"""Readable plain text and URLs from a normalized abstract.

``abstract`` keeps LaTeX and markdown as published; ``abstract_plain`` renders them with
pylatexenc, working around its known flaws (each has a test):

* ``\\mbox{..}`` and ``\\texttt{..}`` lose their content by default: we keep it;
* ``\\href{url}{text}`` raises (IndexError, or KeyError without arguments): we keep the text;
* ``\\url{..}`` renders as ``<url>``: we keep the bare URL;
* a bare ``%`` starts a LaTeX comment and silently drops the rest of the abstract ("improves by
  5% over ..."): we escape it first, since abstracts mean a percent sign;
* anything pylatexenc still cannot parse falls back to the text with markup characters removed,
  so one odd abstract never stops a build.

Markdown emphasis (``**x**``, ``__x__``, ``*x*``, ``_x_``) is removed outside math, and ``~``
(a LaTeX non-breaking space) becomes a space.
"""

from __future__ import annotations

import re
from functools import lru_cache

_BARE_PERCENT_RE = re.compile(r"(?<!\\)((?:\\\\)*)%")
# As in CommonMark, `*` emphasis may open and close inside a word (**VA**lue), `_` may not (snake_case).
_MD_STRONG_RES = (
    re.compile(r"(?<![*\\])\*\*(?=[^\s*])(.+?)(?<=[^\s\\])\*\*"),
    re.compile(r"(?<![\w\\])__(?=[^\s_])(.+?)(?<=[^\s\\])__(?!\w)"),
)
_MD_EM_RES = (
    re.compile(r"(?<![*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?!\*)"),
    re.compile(r"(?<![\w\\])_(?=[^\s_])(.+?)(?<=[^\s_\\])_(?!\w)"),
)
_MD_LINK_RE = re.compile(r"\[([^\[\]]+)\]\((https?://[^)\s]+)\)")
_WHITESPACE_RE = re.compile(r"\s+")
_URL_RE = re.compile(r"https?://[^\s<>\"{}|\\^`\[\]]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?]}'\"*_>"


def _arg_text(node, l2t, index: int) -> str:
    args = node.nodeargd.argnlist if node.nodeargd is not None else []
    if index < len(args) and args[index] is not None:
        return l2t.nodelist_to_text([args[index]])
    return ""


def _text_macro(node, l2tobj) -> str:
    """Content of a text-mode macro. In math, pylatexenc drops the space the author typed before
    it (``$\\mbox{we} \\textbf{propose}$`` became "wepropose"): keep it."""
    text = _arg_text(node, l2tobj, 0)
    state = node.parsing_state
    if state.in_math_mode and node.pos > 0 and state.s[node.pos - 1].isspace():
        text = " " + text
    return text


@lru_cache(maxsize=1)
def _converter():
    from pylatexenc import latexwalker, macrospec
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    parse_db = latexwalker.get_default_latex_context_db()
    parse_db.add_context_category(
        "release-fixes",
        prepend=True,
        macros=[
            macrospec.MacroSpec("href", "{{"),
            macrospec.MacroSpec("url", "{"),
            macrospec.MacroSpec("mbox", "{"),
            macrospec.MacroSpec("texttt", "{"),
            macrospec.MacroSpec("text", "{"),
        ],
    )
    text_db = get_default_latex_context_db()
    text_db.add_context_category(
        "release-fixes",
        prepend=True,
        macros=[
            *(
                MacroTextSpec(name, simplify_repl=_text_macro)
                for name in ("mbox", "text", "textbf", "textit", "textrm", "textsf", "texttt", "emph", "textsc")
            ),
            MacroTextSpec("url", simplify_repl=lambda n, l2tobj: _arg_text(n, l2tobj, 0)),
            MacroTextSpec("href", simplify_repl=lambda n, l2tobj: _arg_text(n, l2tobj, 1) or _arg_text(n, l2tobj, 0)),
        ],
    )
    l2t = LatexNodes2Text(math_mode="text", latex_context=text_db, strict_latex_spaces=False)
    return latexwalker, parse_db, l2t


def latex_to_text(text: str) -> str:
    """LaTeX to readable Unicode, with the workarounds listed in the module docstring."""
    latexwalker, parse_db, l2t = _converter()
    escaped = _BARE_PERCENT_RE.sub(r"\1\\%", text)
    try:
        walker = latexwalker.LatexWalker(escaped, latex_context=parse_db, tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes()
        return l2t.nodelist_to_text(nodes)
    except Exception:  # pylatexenc raises assorted errors on malformed input; see module docstring
        return re.sub(r"\\([A-Za-z]+)\s*", "", text).replace("{", "").replace("}", "").replace("$", "")


def strip_markdown(text: str) -> str:
    """Remove markdown emphasis and turn ``[text](url)`` links into ``text (url)``."""
    text = _MD_LINK_RE.sub(r"\1 (\2)", text)
    previous = None
    while previous != text:  # nested emphasis such as **_x_** needs more than one pass
        previous = text
        for pattern in (*_MD_STRONG_RES, *_MD_EM_RES):
            text = pattern.sub(r"\1", text)
    return text


_MATH_RE = re.compile(r"(\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\])")


def to_plain(abstract: str) -> str:
    """``abstract_plain`` of a normalized abstract."""
    # Markdown first and outside math only, where ``_`` and ``*`` are LaTeX, not emphasis.
    parts = _MATH_RE.split(abstract)
    text = "".join(part if i % 2 else strip_markdown(part) for i, part in enumerate(parts))
    text = latex_to_text(text).replace("~", " ")
    return _WHITESPACE_RE.sub(" ", text).strip()


def extract_urls(text: str) -> list[str]:
    """http(s) URLs in order of first appearance, without trailing punctuation or braces."""
    seen: dict[str, None] = {}
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
            seen.setdefault(url, None)
    return list(seen)
