"""LaTeX in abstracts to readable, unambiguous Unicode plain text.

A small renderer of its own rather than pylatexenc's ``latex2text``, which drops unknown macros
with their content (``\\diag(\\bH)`` became "()"), ungroups scripts (``n^{d+1}`` became "n^d+1"),
glues operator names (``\\log\\log m`` became "loglog m") and reads one character at a time.
pylatexenc is still the source of the symbol table (``\\alpha`` -> α), so its pinned version
shapes the output. The rules, each tested:

* an unknown macro keeps its name (``\\diag`` -> "diag") and its brace arguments (in math as
  ``name(a, b)``); only formatting and spacing macros vanish, and only their markup;
* a super- or subscript of digits is written in Unicode digits (``n²``, ``x₁``), one longer than
  one character is parenthesized (``n^(d+1)``), and a letter or digit after a script written
  with ``^``/``_`` gets a space (``x_i y``), so that a script's extent is never in doubt;
* operator names (``\\log``, ``\\max``, ``\\operatorname{..}``) and unknown macro names are
  separated by a space from a letter, digit or closing bracket next to them;
* ``\\frac{a+b}{c}`` -> "(a+b)/c", ``\\sqrt{x+1}`` -> "√(x+1)", accents combine (``\\tilde{O}``
  -> "Õ"), ``\\mathbb``/``\\mathcal``/``\\mathscr``/``\\mathfrak`` letters become their Unicode
  math letters (ℝ, 𝒪), the other font macros keep their content as it is;
* URLs (bare, ``\\url``, ``\\href``) are kept verbatim, ``\\href{url}{text}`` as "text (url)";
* ``%``, ``&`` and ``#`` are characters (an abstract means them), and so is a ``$`` that opens no
  math (no closing one follows);
* HTML entities (``&mdash;``) in text are decoded.

The result depends on the text alone: no state is kept between calls.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_left
from functools import cache
from itertools import compress, count

# Verbatim spans: a bare URL, or \url{..}/\href{..} holding one (plain.py holds them out of markdown too).
URL_RE = re.compile(r"(https?://[^\s{}\\$<>\"]+|\\url\{[^{}]*\}|\\href\{[^{}]*\})")
# A run of ties (~~) or of line breaks (\\\\) is one token: each is one space. The run of line
# breaks is possessive: a greedy group repeat keeps a backtracking point per repeat, which made
# a long run of backslashes cost more than linear time in memory traffic.
_TOKEN_RE = re.compile(r"\\[A-Za-z]+\*?|(?:\\\\){2,}+|\\.?|\$\$|~+|[{}$^_]|[^\\{}$^_~]+", re.S)
_ENTITY_RE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_TEXT_SPECIALS = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"), ("!`", "\u00a1"), ("?`", "\u00bf"))

OPERATORS = frozenset(
    "arccos arcsin arctan arg argmax argmin cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim "
    "liminf limsup ln log max min mod Pr sec sin sinh sup tan tanh tr Tr diag rank sgn sign poly polylog".split()
)
# Markup only: these macros render their argument(s) as they are.
_FORMAT_1 = frozenset(
    "textbf textit textrm textsf texttt textsc textsl textup textmd textnormal emph text mbox hbox fbox "
    "mathrm mathbf mathit mathsf mathtt mathnormal mathbold boldsymbol bm pmb underline uline ensuremath "
    "mathop mathord mathrel mathbin smash phantom".split()
)
# Vanish with no trace (switches, sizes, spacing, delimiter sizing).
_SILENT = frozenset(
    "em it bf rm sf tt sc sl up md normalfont ttfamily rmfamily sffamily bfseries itshape scshape upshape "
    "mdseries tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge left right middle "
    "big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr limits nolimits displaystyle textstyle "
    "scriptstyle noindent par xspace centering protect relax nonumber notag allowbreak hfill vfill".split()
)
_SPACES = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "!": "", "-": "", "/": "", "@": "", "\\": " ", "\n": " ",
           "quad": " ", "qquad": " ", "enspace": " ", "enskip": " ", "thinspace": " ", "medspace": " ",
           "thickspace": " ", "newline": " ", "linebreak": " "}
# Arguments that are not content: a colour, a label, a length.
_DROP_ARGS = {"textcolor": (1, 1), "colorbox": (1, 1), "color": (1, 0), "label": (1, 0), "hspace": (1, 0), "vspace": (1, 0)}
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307"}
_TEXT_LETTER_ACCENTS = {"c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "r": "\u030a", "k": "\u0328", "b": "\u0331", "d": "\u0323", "t": "\u0361"}
_MATH_ACCENTS = {"tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
                 "vec": "\u20d7", "overrightarrow": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c", "breve": "\u0306",
                 "acute": "\u0301", "grave": "\u0300", "mathring": "\u030a"}
_MATH_ENVS = frozenset("equation equation* align align* gather gather* multline multline* eqnarray eqnarray* displaymath math".split())
_ALPHABETS = {"mathbb": "DOUBLE-STRUCK", "mathcal": "SCRIPT", "mathscr": "SCRIPT", "mathfrak": "FRAKTUR", "Bbb": "DOUBLE-STRUCK"}
# Macros with a rule of their own in _Renderer._macro (any other is a symbol or unknown).
_DELIMITER_SIZES = frozenset(("left", "right", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "big", "Big", "bigg", "Bigg", "middle"))
_FRACTIONS = frozenset(("frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac", "textfrac"))
_BINOMIALS = frozenset(("binom", "dbinom", "tbinom", "choose"))
_OVERSETS = frozenset(("overset", "stackrel", "underset"))
_CITES = frozenset(("cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "ref", "eqref", "cref", "Cref", "autoref"))
_NOTES = frozenset(("footnote", "footnotetext", "thanks"))
_TEXT_SCRIPTS = frozenset(("textsuperscript", "textsubscript"))
_OPERATOR_NAMES = frozenset(("operatorname", "mathop"))
_HANDLED = (
    _DELIMITER_SIZES | _FRACTIONS | _BINOMIALS | _OVERSETS | _CITES | _NOTES | _TEXT_SCRIPTS | _OPERATOR_NAMES | _SILENT
    | frozenset(_SPACES) | frozenset(_DROP_ARGS) | _FORMAT_1 | frozenset(_ALPHABETS) | OPERATORS | frozenset(_MATH_ACCENTS)
    | frozenset(_TEXT_LETTER_ACCENTS) | {"unicode", "char", "sqrt", "not", "item"}
)
# Flags of a rendered piece: a word is kept apart from letters, digits and closing brackets
# around it; a script written with ^ or _ from letters and digits after it; a script sticks to
# its base.
_WORD, _SPACED_SCRIPT, _ATTACHED = 1, 2, 4
_CLOSE = ")]}⟩"
# The ASCII characters after which a word is kept apart (the others are tested as they come).
_GLUED = frozenset(c for c in map(chr, range(128)) if c.isalnum() or c in _CLOSE)
# The first characters of the nodes that are not a run of text (a token of the renderer).
_MARKUP_STARTS = frozenset(["\x00", "^", "_", "\\", "~"])


@cache
def symbols() -> dict[str, str]:
    """Macro -> Unicode for the symbols pylatexenc knows (\\alpha -> α, \\leq -> ≤, \\AA -> Å)."""
    from pylatexenc.latex2text import get_default_latex_context_db

    db = get_default_latex_context_db()
    out = {}
    for spec in db.iter_macro_specs():
        repl = spec.simplify_repl
        if isinstance(repl, str) and "%" not in repl and "<" not in repl and spec.macroname not in OPERATORS and repl.strip():
            out.setdefault(spec.macroname, repl)
    out.update({"|": "‖", "Vert": "‖", "lVert": "‖", "rVert": "‖", "vert": "|", "lvert": "|", "rvert": "|", "mid": "|",
                "{": "{", "}": "}", "lbrace": "{", "rbrace": "}", "%": "%", "&": "&", "#": "#", "$": "$", "_": "_",
                "prime": "′", "colon": ":", "over": "/", "textbackslash": "\\", "backslash": "\\", "item": "•",
                "LaTeX": "LaTeX", "TeX": "TeX", "textemdash": "—", "textendash": "–"})
    return out


@cache
def _simple_symbols() -> dict[str, tuple[str, int]]:
    """Macro token -> its piece, for the symbols with no rule of their own (\\alpha -> α)."""
    return {"\\" + name: (text, 0) for name, text in symbols().items() if len(name) > 1 and name not in _HANDLED}


@cache
def _styled(alphabet: str, ch: str) -> str:
    """ℝ for \\mathbb{R}, 𝒪 for \\mathcal{O}; the letters that the Mathematical Alphanumeric
    Symbols block lacks (ℝ, ℒ, ℭ) are in Letterlike Symbols, named without "MATHEMATICAL"."""
    if ch.isascii() and ch.isdigit() and alphabet == "DOUBLE-STRUCK":
        name = f"MATHEMATICAL DOUBLE-STRUCK DIGIT {unicodedata.name(ch).split()[-1]}"
    elif ch.isascii() and ch.isalpha():
        name = f"MATHEMATICAL {alphabet} {'CAPITAL' if ch.isupper() else 'SMALL'} {ch.upper()}"
    else:
        return ch
    for candidate in (name, name.replace("MATHEMATICAL ", "").replace("FRAKTUR", "BLACK-LETTER")):
        try:
            return unicodedata.lookup(candidate)
        except KeyError:
            continue
    return ch


_DOUBLED_RE = re.compile(r"\\\\([A-Za-z]+)")


@cache
def _known_names() -> frozenset[str]:
    return frozenset(symbols()) | OPERATORS | _FORMAT_1 | _SILENT | frozenset(_ALPHABETS) | frozenset(_MATH_ACCENTS) | {
        "frac", "sqrt", "unicode", "operatorname", "text"}


def _undouble(m: re.Match) -> str:
    # an over-escaped abstract writes \\textit for \textit; a line break is never followed by a macro name
    return "\\" + m[1] if len(m[1]) > 1 and m[1] in _known_names() else m[0]


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    if "\\\\" in text:
        text = _DOUBLED_RE.sub(_undouble, text)
    # URL_RE can only match where one of these stands: the split is skipped when none does
    could_link = "http" in text or "\\url{" in text or "\\href{" in text
    for i, part in enumerate(URL_RE.split(text) if could_link else [text]):
        if i % 2:
            out.append("\x00" + part)  # verbatim: a URL, or \url{..}/\href{..} holding one
        elif part:
            out.extend(_TOKEN_RE.findall(part))
    return out


_CLOSERS = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}


def is_currency(body: str, after_close: str) -> bool:
    """Whether a ``$`` and the next one are two currency signs, not math, from the ``body``
    between them and what follows the second: the first stands before a number, and either the
    second does too (``$5 and $10``), or the body is prose that ends in a space (``$20. Then
    $x$``). Math may start with a digit ($1-\\delta$, ``$2.2 $\\%``) or stand before one
    (64$\\times$64), but not both."""
    if body[:1] not in _DIGITS:
        return False
    return after_close[:1] in _DIGITS or body[-1:].isspace() and _PROSE_WORD_RE.search(body) is not None


_PROSE_WORD_RE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_DIGITS = frozenset("0123456789")
# The tokens that open or close something (any other token is a node as it is).
_STRUCTURAL = frozenset(["{", "}", "$", "$$", "\\(", "\\)", "\\[", "\\]", "\\begin", "\\end"])
# The first characters of the tokens that may open or close something.
_PARSE_STARTS = frozenset("{}$\\")


class _Parser:
    """Nodes of a token list. Every look-ahead is a binary search in positions found once
    (where each closer occurs, where each environment ends), so that parsing is linear in the
    number of tokens: no opener scans the rest of the text for its closer."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        # Found in C, not token by token: the tokens between two of these are copied as a slice.
        self.marks = list(compress(count(), map(_STRUCTURAL.__contains__, tokens)))
        self._at: dict[str, list[int]] = {}
        self._ends: dict[str, list[int]] | None = None

    def at(self, close: str) -> list[int]:
        """Indexes of the tokens equal to ``close``, found on first use."""
        if close not in self._at:
            tokens = self.tokens
            self._at[close] = [j for j in self.marks if tokens[j] == close]
        return self._at[close]

    def ends(self, name: str) -> list[int]:
        """Indexes of the ``\\end{name}`` of environment ``name``."""
        if self._ends is None:
            tokens, self._ends = self.tokens, {}
            for j in [j for j in self.marks if tokens[j] == "\\end"]:
                if j + 3 < len(tokens) and tokens[j + 1] == "{" and tokens[j + 3] == "}":
                    self._ends.setdefault(tokens[j + 2].strip(), []).append(j)
        return self._ends.get(name, [])

    @staticmethod
    def _next(positions: list[int], i: int, end: int) -> int:
        """The first position at or after ``i`` and before ``end``, or -1."""
        k = bisect_left(positions, i)
        return positions[k] if k < len(positions) and positions[k] < end else -1

    def parse(self, i: int, end: int, closers: tuple[str, ...]) -> tuple[list, int]:
        """Nodes up to one of ``closers`` (consumed) or ``end``. A node is a token string, or a
        list (a brace group), or a tuple ("$", nodes) for math."""
        tokens, marks = self.tokens, self.marks
        n_marks = len(marks)
        nodes: list = []
        while i < end:
            m = bisect_left(marks, i)
            mark = marks[m] if m < n_marks and marks[m] < end else end
            if mark > i:  # most tokens
                nodes += tokens[i:mark]
                i = mark
                if i == end:
                    break
            tok = tokens[i]
            i += 1
            if tok in closers:
                return nodes, i
            if tok == "{":
                group, i = self.parse(i, end, ("}", *[c for c in closers if c != "}"]))
                if i <= end and tokens[i - 1] in closers and tokens[i - 1] != "}":
                    i -= 1  # math closed inside an unclosed group: let the math see its closer
                nodes.append(group)
            elif tok == "}":
                continue  # unbalanced: markup only
            elif tok in _CLOSERS:
                close = _CLOSERS[tok]
                if i + 1 < end and tokens[i + 1] == close and tokens[i][:1] not in _PARSE_STARTS:
                    j = i + 1  # $a$: the closer right after one token, found without a search
                else:
                    positions = self._at.get(close) or self.at(close)
                    # none left (an opener never closed, repeated): no search
                    j = -1 if not positions or positions[-1] < i else self._next(positions, i, end)
                if j < 0 or tok == "$" and tokens[i][:1] in _DIGITS and is_currency("".join(tokens[i:j]), tokens[j + 1] if j + 1 < end else ""):
                    if tok[0] == "$":
                        nodes.append(tok[-1])  # opens no math: a character
                    continue  # a stray \\( or \\[ shows nothing
                if j == i:  # empty math shows nothing
                    i += 1
                    continue
                if j == i + 1 and tokens[i][:1] not in _PARSE_STARTS:  # $a$, $10$: one token
                    nodes.append(("$", [tokens[i]]))
                    i += 2
                    continue
                body, i = self.parse(i, end, (close,))
                nodes.append(("$", body))
            elif tok == "\\begin" and i + 2 < end and tokens[i] == "{" and tokens[i + 2] == "}":
                name = tokens[i + 1].strip()
                i += 3
                if name in _MATH_ENVS:
                    stop = self._next(self.ends(name), i, end - 3)
                    stop = end if stop < 0 else stop
                    body, _ = self.parse(i, stop, ())
                    nodes.append(("$", body))
                    i = stop + 4
            elif tok == "\\end" and i + 2 < end and tokens[i] == "{" and tokens[i + 2] == "}":
                i += 3
            else:
                nodes.append(tok)
        return nodes, i


_DELIMITER_RE = re.compile(r"\\[()\[\]]|\\.|\$\$|\$", re.S)


def math_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each math span of ``text``, delimiters included, paired as the renderer
    pairs them: ``$..$``, ``$$..$$``, ``\\(..\\)``, ``\\[..\\]``; an escaped ``\\$`` is a
    character, and so is an opener without a closer and a currency sign (:func:`is_currency`)."""
    found = [(m.start(), m.end(), m.group()) for m in _DELIMITER_RE.finditer(text)]
    at: dict[str, list[int]] = {close: [] for close in _CLOSERS.values()}
    for j, (_, _, tok) in enumerate(found):
        if tok in at:
            at[tok].append(j)
    spans = []
    k, n = 0, len(found)
    while k < n:
        start, after, tok = found[k]
        k += 1
        close = _CLOSERS.get(tok)
        if close is None:
            continue
        j = _Parser._next(at[close], k, n)
        if j < 0 or tok == "$" and is_currency(text[after : found[j][0]], text[found[j][1] : found[j][1] + 1]):
            continue
        spans.append((start, found[j][1]))
        k = j + 1
    return spans


def _enclosed(s: str) -> bool:
    """Whether ``s`` is one bracketed whole: "(a)(b)" is not."""
    if len(s) < 2 or s[0] not in "([" or s[-1] != {"(": ")", "[": "]"}[s[0]]:
        return False
    depth = 0
    for k, c in enumerate(s):
        depth += c in "(["
        depth -= c in ")]"
        if depth == 0 and k < len(s) - 1:
            return False
    return True


def _atom(s: str) -> bool:
    """One unit that needs no parentheses: a single character with its accents, a number, a word."""
    s = s.strip()
    if not s:
        return True
    if len(s) == 1 or unicodedata.combining(s[-1]) and all(unicodedata.combining(c) for c in s[1:]):
        return True
    return s.isalnum() and (s.isdecimal() or len(s) == 1) or _enclosed(s)  # 10³ is no number: x^(10³)


def _wrap(s: str) -> str:
    """An operand of / or √: a word or number stays as it is, anything longer is parenthesized."""
    s = s.strip()
    return s if _atom(s) or s.isalnum() else f"({s})"


_SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _script(marker: str, body: str) -> tuple[str, int]:
    """A super- or subscript: digits as Unicode digits (n², x₁₀), primes as they are (x′), one
    character after the marker (x_i) and anything longer in parentheses (n^(d+1)). A letter or
    digit after a script written with a marker gets a space (x_i y, log^(1-ε) n)."""
    if set(body) <= set("′'"):
        return body, _ATTACHED
    if body.isascii() and body.isdigit():
        return body.translate(_SUPERSCRIPT_DIGITS if marker == "^" else _SUBSCRIPT_DIGITS), _ATTACHED
    if _enclosed(body) or _atom(body):
        return marker + body, _ATTACHED | _SPACED_SCRIPT
    return f"{marker}({body})", _ATTACHED | _SPACED_SCRIPT


class _Renderer:
    def __init__(self, text_specials: bool = True) -> None:
        # False when the whole text holds no TeX quote, dash or entity (most abstracts): then no
        # run of it does, and no run needs a search for one.
        self.text_specials = text_specials
        self.sym = symbols()
        self.simple = _simple_symbols()
        # macro tokens of this text found unknown (\\bH) by _macro, and the piece each is alone
        self.unknown: dict[str, tuple[str, int]] = {}


    # -- arguments -------------------------------------------------------------------------
    @staticmethod
    def _next_arg(nodes: list, k: int, optional: bool = False):
        """(argument, index after it) for the node list at ``k``; argument None when absent.
        A text token gives its first character, the rest stays in place."""
        while k < len(nodes) and isinstance(nodes[k], str) and nodes[k].isspace():
            k += 1
        if k >= len(nodes):
            return None, k
        node = nodes[k]
        if optional:
            if isinstance(node, str) and node.startswith("["):
                close = node.find("]")
                if close >= 0:
                    rest = node[close + 1 :]
                    if rest:
                        nodes[k] = rest
                        return [node[1:close]], k
                    return [node[1:close]], k + 1
            return None, k
        if isinstance(node, str) and not node.startswith(("\\", "\x00")) and node not in ("{", "}", "$", "^", "_", "~"):
            node = node.lstrip()
            if len(node) > 1:
                nodes[k] = node[1:]
                return node[0], k
            return node, k + 1
        return node, k + 1

    # -- rendering -------------------------------------------------------------------------
    def render(self, nodes: list, math: bool) -> str:
        pieces: list[tuple[str, int]] = []  # (text, flags)
        append = pieces.append
        simple, unknown, specials = self.simple, self.unknown, self.text_specials
        nodes = list(nodes)
        n = len(nodes)  # _next_arg may replace a node, never add or remove one
        k = 0
        while k < n:
            node = nodes[k]
            k += 1
            if type(node) is not str:
                if type(node) is tuple:
                    body = node[1]
                    if len(body) == 1 and type(body[0]) is str and body[0][:1] not in _MARKUP_STARTS:
                        append((body[0], 0))  # math of one run of text ($a$, $10$): as it is
                    else:
                        append((self.render(body, True), 0))
                else:
                    append((self.render(node, math), 0))
                continue
            first = node[:1]
            if first not in _MARKUP_STARTS:  # most nodes: a run of text
                append((node, 0) if math or not specials or not _has_text_special(node) else (_text(node), 0))
            elif first == "\\" and not (math and node == "\\_"):
                symbol = simple.get(node)
                if symbol is not None:  # a symbol: \\alpha
                    append(symbol)
                elif (word := unknown.get(node)) is not None and (k >= n or type(nodes[k]) is not list):
                    append(word)  # \\bH with no argument
                else:
                    k = self._macro(node, nodes, k, math, pieces)
            elif first == "~":  # a tie, or a run of them; one before a number may mean "about"
                append((" " * (len(node) - 1) + ("~" if not math and k < n and _about(nodes, k) else " "), 0))
            elif first == "\x00":
                append(self._verbatim(node[1:], nodes, k, math))
                if node.startswith("\x00\\href"):
                    k = self._skip_arg(nodes, k)
            elif math or k < n and type(nodes[k]) is list:  # ^, _ or, in math, \\_
                # In text only a script with a brace group (x^{2k}) is one: snake_case is not.
                # In math, \\_ is a subscript escaped for markdown.
                body, k = self._operand(nodes, k, True)
                if body:
                    append(_script(node[-1], body))
            else:
                append((_text(node), 0))
        return _join(pieces)

    def _operand(self, nodes: list, k: int, math: bool) -> tuple[str, int]:
        """A script's argument: one character, a group, or a macro with its own arguments
        (x_\\text{max}, d^\\frac{5}{4})."""
        arg, k = self._next_arg(nodes, k)
        if isinstance(arg, str) and arg.startswith("\\") and not arg.startswith("\x00"):
            sub: list[tuple[str, int]] = []
            k = self._macro(arg, nodes, k, math, sub)
            return _join(sub).strip(), k
        return ("" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math).strip()), k

    def _skip_arg(self, nodes: list, k: int) -> int:
        return self._next_arg(nodes, k)[1]

    def _verbatim(self, raw: str, nodes: list, k: int, math: bool) -> tuple[str, int]:
        if raw.startswith("\\url{"):
            return raw[5:-1], 0
        if raw.startswith("\\href{"):
            url = raw[6:-1]
            arg, _ = self._next_arg(nodes, k)
            label = "" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math).strip()
            return (f"{label} ({url})" if label and label != url else url), 0
        return raw, 0

    def _arg_text(self, nodes: list, k: int, math: bool, optional: bool = False) -> tuple[str | None, int]:
        arg, k = self._next_arg(nodes, k, optional)
        if arg is None:
            return None, k
        return self.render(arg if isinstance(arg, list) else [arg], math), k

    def _macro(self, tok: str, nodes: list, k: int, math: bool, pieces: list) -> int:
        name = tok[1:].rstrip("*") or tok[1:] or "\\"  # \* is an escaped *
        sym = self.sym
        if name[0] == "\\":  # a run of line breaks
            pieces.append((" ", 0))
            return k
        if len(name) > 1 and name not in _HANDLED:  # most macros: a symbol, or one we do not know
            if name in sym:
                pieces.append((sym[name], 0))
                return k
            if tok[-1] != "*":
                self.unknown[tok] = (name, _WORD)  # unknown in text and math alike: render() takes it faster next time
            return self._unknown(name, nodes, k, math, pieces)
        if len(name) == 1 and not name.isalpha():
            if name in _ACCENTS and not (math and name in "^_"):
                body, k = self._arg_text(nodes, k, math)
                pieces.append((_accent(body or "", _ACCENTS[name]), 0))
            elif name in _SPACES:
                pieces.append((_SPACES[name], 0))
            elif name in ("(", ")", "[", "]"):
                pass  # a stray math delimiter
            else:
                pieces.append((sym.get(name, name), 0))
            return k
        if name in _DELIMITER_SIZES:
            j = k
            while j < len(nodes) and isinstance(nodes[j], str) and nodes[j].isspace():
                j += 1
            if j < len(nodes) and isinstance(nodes[j], str) and nodes[j].startswith("."):
                nodes[j] = nodes[j][1:]  # \left. is an invisible delimiter
            return k
        if name in _SILENT:
            if k < len(nodes) and isinstance(nodes[k], str) and not nodes[k].startswith(("\\", "\x00")):
                nodes[k] = nodes[k].lstrip()  # a control word ends at the spaces after it ({\bf D}ata)
            return k
        if name == "unicode":
            body, k = self._arg_text(nodes, k, math)
            pieces.append((_code_point(body or "") or f"unicode({body})", 0))
            return k
        if name == "char" and k < len(nodes) and isinstance(nodes[k], str) and (number := _CHAR_NUMBER_RE.match(nodes[k])):
            nodes[k] = nodes[k][number.end() :]
            pieces.append((_character(_char_code(number)), 0))
            return k
        if name in _SPACES:
            pieces.append((_SPACES[name], 0))
            return k
        if name in _DROP_ARGS:
            drop, keep = _DROP_ARGS[name]
            for _ in range(drop):
                k = self._skip_arg(nodes, k)
            for _ in range(keep):
                body, k = self._arg_text(nodes, k, math)
                pieces.append((body or "", 0))
            return k
        if name in _FORMAT_1:
            body, k = self._arg_text(nodes, k, False if name.startswith(("text", "mbox", "hbox", "emph", "fbox")) else math)
            if body is not None:
                if math and name.startswith(("text", "mbox", "hbox")) and k >= 2 and _space_before(nodes, k):
                    body = " " + body
                pieces.append((body, 0))
            return k
        if name in _ALPHABETS:
            body, k = self._arg_text(nodes, k, math)
            body = body or ""
            if body.strip().isascii() and body.strip().isalnum():
                body = "".join(_styled(_ALPHABETS[name], c) for c in body.strip())
            pieces.append((body, 0))
            return k
        if name in _OPERATOR_NAMES:
            body, k = self._arg_text(nodes, k, math)
            pieces.append(((body or "").strip(), _WORD))
            return k
        if name in OPERATORS:
            pieces.append((name, _WORD))
            return k
        if name in _MATH_ACCENTS or (not math and name in _TEXT_LETTER_ACCENTS):
            body, k = self._arg_text(nodes, k, math)
            pieces.append((_accent(body or "", _MATH_ACCENTS.get(name) or _TEXT_LETTER_ACCENTS[name]), 0))
            return k
        if name in _FRACTIONS:
            num, k = self._arg_text(nodes, k, math)
            den, k = self._arg_text(nodes, k, math)
            pieces.append((f"{_wrap(num or '')}/{_wrap(den or '')}", _WORD))
            return k
        if name in _BINOMIALS:
            n_, k = self._arg_text(nodes, k, math)
            r_, k = self._arg_text(nodes, k, math)
            pieces.append((f"({(n_ or '').strip()} choose {(r_ or '').strip()})", 0))
            return k
        if name == "sqrt":
            index, k = self._arg_text(nodes, k, math, optional=True)
            body, k = self._arg_text(nodes, k, math)
            body = _wrap(body or "")
            pieces.append((f"{body}^(1/{index.strip()})" if index else f"√{body}", 0))
            return k
        if name in _OVERSETS:
            top, k = self._arg_text(nodes, k, math)
            base, k = self._arg_text(nodes, k, math)
            mark = "_" if name == "underset" else "^"
            pieces.append((f"{(base or '').strip()}{mark}{_wrap(top or '')}", 0))
            return k
        if name in _CITES:
            self._arg_text(nodes, k, math, optional=True)
            _, k = self._next_arg(nodes, k, optional=True)
            body, k = self._arg_text(nodes, k, math)
            pieces.append((f"[{(body or '').strip()}]", 0))
            return k
        if name in _NOTES:
            body, k = self._arg_text(nodes, k, False)
            pieces.append((f" ({(body or '').strip()})", 0))
            return k
        if name in _TEXT_SCRIPTS:
            body, k = self._arg_text(nodes, k, False)
            if body and body.strip():
                pieces.append(_script("^" if name == "textsuperscript" else "_", body.strip()))
            return k
        if name == "not":
            arg, k = self._next_arg(nodes, k)
            body = "" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math)
            pieces.append((body + "\u0338" if len(body) == 1 else "not " + body, 0))
            return k
        if name == "item":
            _, k = self._next_arg(nodes, k, optional=True)
            pieces.append((" • ", 0))
            return k
        if name in sym:
            pieces.append((sym[name], 0))
            return k
        if tok[-1] != "*" and name.isalpha() and name not in _HANDLED:
            self.unknown[tok] = (name, _WORD)  # \\a: unknown in text and math alike
        return self._unknown(name, nodes, k, math, pieces)

    def _unknown(self, name: str, nodes: list, k: int, math: bool, pieces: list) -> int:
        """An unknown macro keeps its name, and the brace groups that follow it directly as its
        arguments."""
        if k >= len(nodes) or type(nodes[k]) is not list:
            pieces.append((name, _WORD))
            return k
        args = []
        while k < len(nodes) and isinstance(nodes[k], list):
            body = self.render(nodes[k], math).strip()
            if body:
                args.append(body)
            k += 1
        if not args:
            pieces.append((name, _WORD))
        elif math:
            pieces.append((f"{name}({', '.join(args)})", _WORD))
        else:
            pieces.append((" ".join([name, *args]), _WORD))
        return k


def _code_point(body: str) -> str:
    """MathJax's \\unicode{x2014} or \\unicode{8212}: the character (U+FFFD for one that is
    not text, see :func:`bad_code_point`), or "" if the body is not a number."""
    number = _unicode_number(body)
    return "" if number is None else _character(number)


def _unicode_number(body: str) -> int | None:
    body = body.strip()
    try:
        return int(body[1:], 16) if body[:1] in "xX" else int(body)
    except (ValueError, OverflowError):
        return None


# TeX's \char: decimal, 'octal, "hex (\char"41 and \char65 are both "A").
_CHAR_NUMBER_RE = re.compile(r"\s*(?:\"([0-9A-Fa-f]{1,8})|'([0-7]{1,11})|([0-9]{1,10}))")


def _char_code(m: re.Match) -> int:
    return int(m[1], 16) if m[1] else int(m[2], 8) if m[2] else int(m[3])


def _character(number: int) -> str:
    return "\ufffd" if bad_code_point(number) else chr(number)


_NONCHARACTERS = frozenset([*range(0xFDD0, 0xFDF0), *(p * 0x10000 + c for p in range(17) for c in (0xFFFE, 0xFFFF))])


def bad_code_point(number: int) -> str | None:
    """Why a code point cannot stand in an abstract (it is not text that UTF-8 can carry or a
    reader can see), or None for one that can."""
    if not 0 <= number <= 0x10FFFF:
        return "beyond the last Unicode code point"
    if 0xD800 <= number <= 0xDFFF:
        return "a surrogate, which UTF-8 cannot encode"
    if number in _NONCHARACTERS:
        return "a Unicode noncharacter"
    if number < 0x20 or 0x7F <= number < 0xA0:
        return "NUL" if number == 0 else "a control character"
    return None


# Escapes that stand for one character: MathJax's \unicode{..}, TeX's \char and its ^^ notation
# (^^^^^^ and six hex digits, ^^^^ and four, ^^ and two, or ^^ and a character c: c ± 64).
_ESCAPE_RE = re.compile(
    r"\\unicode\s*\{([^{}]*)\}|\\char(?![A-Za-z])" + _CHAR_NUMBER_RE.pattern
    + r"|\^\^\^\^\^\^([0-9a-f]{6})|\^\^\^\^([0-9a-f]{4})|\^\^([0-9a-f]{2})|\^\^([\x00-\x7f])"
)
_BAD_CHARACTER_RE = re.compile(
    "[\ud800-\udfff" + "".join(f"\\U{c:08x}" for c in sorted(_NONCHARACTERS)) + "]"
)


def bad_character(text: str) -> tuple[int, str] | None:
    """The first character of ``text`` that no abstract may hold, written or escaped, as
    (offset, why): a surrogate or noncharacter, or an escape that stands for one, for NUL or a
    control character, or for no character at all (``\\unicode{xD800}``, ``\\char0``, ``^^@``).
    ``validate`` and the build refuse such a record with this one rule."""
    found = []
    if not text.isascii() and (m := _BAD_CHARACTER_RE.search(text)):
        found.append((m.start(), f"character U+{ord(m.group()):04X} is {bad_code_point(ord(m.group()))}: not text"))
    if "\\" in text or "^^" in text:
        for m in _ESCAPE_RE.finditer(text):
            if m[1] is not None:
                number = _unicode_number(m[1])
                if number is None:
                    continue  # not a number: rendered as written
            elif m[2] or m[3] or m[4]:
                number = _char_code(re.match(_CHAR_NUMBER_RE, m.group()[5:]))
            elif m[5] or m[6] or m[7]:
                number = int(m[5] or m[6] or m[7], 16)
            else:
                number = ord(m[8]) + (64 if ord(m[8]) < 64 else -64)
            why = bad_code_point(number)
            if why:
                found.append((m.start(), f"`{m.group()}` stands for U+{number:04X}, {why}: write the intended character instead, or remove the escape"))
                break
    return min(found) if found else None


_MACRO_OR_VERBATIM = frozenset("\\\x00")
_TIED_AFTER = frozenset(".,;:!?)]}")


def _about(nodes: list, k: int) -> bool:
    """Whether the ``~`` before ``k`` means "about" (``~90x``, ``(~50%``, ``2.8%~4.5%``) rather
    than a tie (``Figure~3``, ``et~al.~2022``): it stands before a number, after no letter,
    digit or sentence punctuation."""
    after = nodes[k]
    if type(after) is not str or after[:1] not in _DIGITS:
        return False
    if k < 2:
        return True  # at the start of the text: nothing to tie to
    before = nodes[k - 2]
    if type(before) is not str or before[:1] in _MACRO_OR_VERBATIM:
        return False
    last = before[-1:]
    return not last or not (last.isalnum() or last in _TIED_AFTER)


def _space_before(nodes: list, k: int) -> bool:
    """Whether the author typed a space before the macro whose argument ends just before ``k``."""
    j = k - 2
    while j >= 0 and not (isinstance(nodes[j], str) and nodes[j].startswith("\\")):
        j -= 1
    return j > 0 and isinstance(nodes[j - 1], str) and nodes[j - 1][-1:].isspace()


def _join(pieces: list[tuple[str, int]]) -> str:
    out: list[str] = []
    append = out.append
    prev, prev_flags = "", 0  # prev_flags is 0 until a piece is out
    for text, flags in pieces:
        if not text:
            continue
        if flags:
            if flags & _ATTACHED:
                pass
            elif flags & _WORD and prev and ((last := prev[-1]) in _GLUED or not last.isascii() and (
                    last.isalnum() or last in _CLOSE or unicodedata.combining(last))):
                append(" ")
            elif prev_flags & (_WORD | _SPACED_SCRIPT) and text[0].isalnum():
                append(" ")
        elif prev_flags & (_WORD | _SPACED_SCRIPT) and text[0].isalnum():
            append(" ")
        append(text)
        prev, prev_flags = text, flags
    return "".join(out)


_TEXT_SPECIAL_RE = re.compile("&|" + "|".join(re.escape(old) for old, _ in _TEXT_SPECIALS))


# Bound once: render() asks it of every run of text before it calls _text.
_has_text_special = _TEXT_SPECIAL_RE.search


def _text(run: str) -> str:
    """A run of text outside math: TeX quotes and dashes, HTML entities."""
    if len(run) < 2 or not _has_text_special(run):  # most runs: nothing to do
        return run
    if "&" in run:
        run = _ENTITY_RE.sub(lambda m: html.unescape(m.group()), run)
    for old, new in _TEXT_SPECIALS:
        if old in run:
            run = run.replace(old, new)
    return run


def _accent(body: str, mark: str) -> str:
    body = body.strip()
    if not body:
        return mark.strip() or ""
    if body.isalnum():
        return "".join(c + mark for c in body)
    return body[0] + mark + body[1:]


def latex_to_text(text: str) -> str:
    """Readable Unicode for an abstract's LaTeX; see the module docstring for the rules."""
    try:
        tokens = _tokens(text)
        nodes, _ = _Parser(tokens).parse(0, len(tokens), ())
        out = _Renderer(_has_text_special(text) is not None).render(nodes, False)
    except RecursionError:  # braces nested hundreds deep: keep every word, drop the markup
        out = re.sub(r"\\(?=[A-Za-z])|[{}$]", "", text)
    return out if out.isascii() else unicodedata.normalize("NFC", out)
