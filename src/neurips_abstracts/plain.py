"""Readable plain text and URLs from a normalized abstract.

``abstract`` keeps LaTeX and markdown as published; ``abstract_plain`` renders them with
pylatexenc, working around its known flaws (each has a test):

* ``\\mbox{..}`` and ``\\texttt{..}`` lose their content by default: we keep it;
* ``\\href{url}{text}`` raises (IndexError, or KeyError without arguments): we keep the text;
* ``\\url{..}`` renders as ``<url>``: we keep the bare URL;
* a bare ``%`` starts a LaTeX comment and silently drops the rest of the abstract ("improves by
  5% over ..."), and a bare ``&`` is an alignment tab that becomes spaces ("Q&A" -> "Q   A"):
  we escape both first, since abstracts mean the characters;
* pylatexenc reads text one character at a time (about 4 ms for a typical abstract), so only the
  LaTeX "islands" (math, macros with their arguments, brace groups) go through it, joined into
  one call; the plain text between them gets the few replacements pylatexenc would make there
  (TeX quotes and dashes). The real corpora render identically both ways (a test checks);
* anything pylatexenc still cannot parse falls back to the text with markup characters removed,
  so one odd abstract never stops a build.

Markdown emphasis (``**x**``, ``__x__``, ``*x*``, ``_x_``) is removed outside math, and ``~``
(a LaTeX non-breaking space) becomes a space.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SPECIAL_RE = re.compile(r"[%&]")
# Text where none of these occur is left as it is by pylatexenc.
_TRIGGER_RE = re.compile(r"[\\{}$~%&]|``|''|--|[!?]`")
_PLAIN_SPECIALS = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"), ("!`", "\u00a1"), ("?`", "\u00bf"), ("~", "\u00a0"))
_ISLAND_START_RE = re.compile(r"[\\{}$]")
_ACCENTS = "'`^\"~=."
_LETTER_ACCENTS = {"c", "v", "u", "H", "r", "k", "b", "d", "t"}
# Islands repeat across abstracts ($n$, $\epsilon$, \emph{...}): each is converted once.
_ISLAND_CACHE: dict[str, str] = {}
_ISLAND_CACHE_SIZE = 200_000
_SENTINEL = "\ue000"  # a private-use character: plain text to pylatexenc, absent from abstracts
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


def _convert(latex: str) -> str:
    latexwalker, parse_db, l2t = _converter()
    walker = latexwalker.LatexWalker(latex, latex_context=parse_db, tolerant_parsing=True)
    nodes, _, _ = walker.get_latex_nodes()
    return l2t.nodelist_to_text(nodes)


def _closing_brace(text: str, start: int) -> int:
    """Index just past the brace group opening at ``start`` (the end of text if unbalanced)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _island_end(text: str, i: int) -> int:
    """End of the LaTeX island starting at ``text[i]`` (one of backslash, brace, dollar)."""
    n = len(text)
    c = text[i]
    if c == "$":
        if text.startswith("$$", i):
            j = text.find("$$", i + 2)
            return n if j < 0 else j + 2
        j = i + 1
        while True:
            j = text.find("$", j)
            if j < 0:
                return n
            if text[j - 1] != "\\":
                return j + 1
            j += 1
    if c == "{":
        return _closing_brace(text, i)
    if c == "}":
        return i + 1
    # a backslash
    if i + 1 >= n:
        return n
    nxt = text[i + 1]
    if nxt in "([":
        j = text.find("\\" + (")" if nxt == "(" else "]"), i + 2)
        return n if j < 0 else j + 2
    if nxt in _ACCENTS:  # \'e, \"{o}: the accented letter belongs to the island
        j = i + 2
        if j < n and text[j] == "{":
            return _closing_brace(text, j)
        return min(n, j + 1)
    if not nxt.isascii() or not nxt.isalpha():
        return i + 2
    j = i + 1
    while j < n and text[j].isascii() and text[j].isalpha():
        j += 1
    if j < n and text[j] == "*":
        j += 1
    args = False
    while True:
        k = j
        while k < n and text[k] in " \t":
            k += 1
        if k < n and text[k] == "{":
            j, args = _closing_brace(text, k), True
        elif k < n and text[k] == "[" and not args:
            close = text.find("]", k)
            if close < 0:
                return n
            j = close + 1
        else:
            break
    if not args:  # LaTeX eats the spaces after a control word
        while j < n and text[j] in " \t":
            j += 1
        if text[i + 1 : j].strip() in _LETTER_ACCENTS and j < n and text[j].isalpha():
            j += 1  # \c c, \v s: an accent macro takes the next letter
    return j


def escape_bare_specials(text: str) -> str:
    """A backslash before every ``%`` and ``&`` that is not escaped already (that is, preceded
    by an even number of backslashes, none included): abstracts mean the characters."""
    out, last = [], 0
    for m in _SPECIAL_RE.finditer(text):
        i = j = m.start()
        while j and text[j - 1] == "\\":
            j -= 1
        if (i - j) % 2 == 0:
            out += (text[last:i], "\\")
            last = i
    return "".join(out) + text[last:]


def _plain_specials(text: str) -> str:
    for old, new in _PLAIN_SPECIALS:
        text = text.replace(old, new)
    return text


def latex_to_text(text: str) -> str:
    """LaTeX to readable Unicode, with the workarounds listed in the module docstring."""
    if not _TRIGGER_RE.search(text):
        return text
    escaped = escape_bare_specials(text) if ("%" in text or "&" in text) else text
    plain, islands, i, start = [], [], 0, 0
    while True:
        m = _ISLAND_START_RE.search(escaped, i)
        if m is None:
            break
        end = _island_end(escaped, m.start())
        plain.append(escaped[start : m.start()])
        islands.append(escaped[m.start() : end])
        i = start = end
    plain.append(escaped[start:])
    try:
        if not islands:
            return _plain_specials(escaped)
        todo = list(dict.fromkeys(i for i in islands if i not in _ISLAND_CACHE))
        if todo:
            done = _convert(_SENTINEL.join(todo)).split(_SENTINEL)
            if len(done) != len(todo):  # a sentinel was swallowed: convert the whole text
                return _convert(escaped)
            if len(_ISLAND_CACHE) > _ISLAND_CACHE_SIZE:
                _ISLAND_CACHE.clear()
            _ISLAND_CACHE.update(zip(todo, done))
        converted = [_ISLAND_CACHE[i] for i in islands]
        return "".join(_plain_specials(p) + c for p, c in zip(plain, converted)) + _plain_specials(plain[-1])
    except Exception:  # pylatexenc raises assorted errors on malformed input; see module docstring
        return re.sub(r"\\([A-Za-z]+)\s*", "", text).replace("{", "").replace("}", "").replace("$", "")


def latex_to_text_whole(text: str) -> str:
    """Reference rendering: the whole text through pylatexenc in one piece (slow; for tests)."""
    return _convert(escape_bare_specials(text))


def strip_markdown(text: str) -> str:
    """Remove markdown emphasis and turn ``[text](url)`` links into ``text (url)``."""
    if "](" in text:
        text = _MD_LINK_RE.sub(r"\1 (\2)", text)
    # Most abstracts have no emphasis at all: only run the patterns whose marker occurs.
    patterns = [p for p, marker in zip((*_MD_STRONG_RES, *_MD_EM_RES), "*_*_") if marker in text]
    previous = None
    while patterns and previous != text:  # nested emphasis such as **_x_** needs more than one pass
        previous = text
        for pattern in patterns:
            text = pattern.sub(r"\1", text)
    return text


_MATH_RE = re.compile(r"(\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\])")


def to_plain(abstract: str) -> str:
    """``abstract_plain`` of a normalized abstract."""
    # Markdown first and outside math only, where ``_`` and ``*`` are LaTeX, not emphasis.
    parts = _MATH_RE.split(abstract) if "$" in abstract or "\\" in abstract else [abstract]
    text = "".join(part if i % 2 else strip_markdown(part) for i, part in enumerate(parts))
    text = latex_to_text(text).replace("~", " ")
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
