"""The words-kept oracle: every word of an abstract's source is in its ``abstract_plain``, in order.

A word is a maximal run of letters or digits of the source outside macro names, math delimiters,
URL syntax and HTML entity names. :func:`words_lost` reads the source with a tokenizer and a
reader of its own (not the renderer's), maps the changes the rendering rules allow, and checks
that the source's words are a subsequence of the plain text's, so that what the rendering adds
(an operator's name, ``choose``) costs nothing; where they are not, it lists the source words
a diff of the two leaves unmatched. Both sides are folded first (NFKD without combining marks,
Unicode super- and subscripts apart from what they follow: ℝ is R, é is e, n² is "n 2"). It
reads every text it is given: there is no input it skips.

Which macros style, part, drop or reorder their arguments is the oracle's own spec (``STYLES``,
``NOT_WORDS``, ``CITATIONS`` and the rest below), written from LaTeX's meaning and the rules of
text/latex/, not read from the renderer's tables: a bug in a table of the renderer is a lost
word here (tests/text/test_words_kept.py compares the two, each deliberate difference listed,
and shows that a broken table is caught). From the renderer's package it takes only what
writing again would be absurd or would make two readings of one source: pylatexenc's symbol
table (``\\alpha`` -> α, some 800 macros: data, not a rule of what is a word), the HTML
entity pattern, and the two readings of the source itself, which ``$`` opens math
(``is_currency``) and which doubled backslash is an over-escaped macro (``undoubled``).

What is mapped before the comparison, each a rule of text/plain.py or text/latex/:

* a ``$`` opens math where a ``$`` closes it and the two are no currency signs
  (``latex.parser.is_currency``, the renderer's one rule: ``$5 and $10``);
* a markdown link ``[text](url)`` to "text (url)";
* markdown emphasis, where CommonMark reads it (markdown-it-py, with the project's departures:
  math and URLs are held out, a ``*`` or ``_`` run inside a word with a digit on one side at
  least is a character: ``x*2*y`` is one word and a product);
* symbol macros to their character (``\\alpha`` -> α: pylatexenc's table), ``\\unicode{x2014}``
  and ``\\char65`` to theirs, HTML entities outside math decoded;
* markup that only styles its content (fonts, accents, font switches and sizes, braces, ``$``)
  joins what is around it (``{\\bf D}ata`` is "Data"); any other macro parts the words around
  it, and its arguments are words of their own;
* a script (``^``/``_`` in math, or before a brace group in text) is apart from its base and
  from what follows (``x_iy`` is x, i, y);
* arguments that are not content are left out (a colour, a label, a length, an environment's
  name), a link whose text is its URL shows the URL once; spacing macros (``\\quad``,
  ``\\par``) and environments part words;
* the orders the rules give: ``\\href{url}{text}`` is text then url, a citation is prenote,
  keys, postnote (``\\cite[Theorem 2]{smith20}`` is smith20, Theorem, 2), ``\\sqrt[n]{x}`` is
  x then n, ``\\overset{a}{b}`` is b then a.
"""

from __future__ import annotations

import html
import re
import unicodedata
from difflib import SequenceMatcher

from neurips_abstracts.text.entities import ENTITY_RE
from neurips_abstracts.text.latex import is_currency, symbols, undoubled

# -- the oracle's own spec of the macros -------------------------------------------------------
# Written here from what LaTeX does with each macro and from the rules of text/latex/'s
# docstring, never read from the renderer's tables: a table of the renderer that drops or moves
# an argument then shows as a lost word. tests/text/test_words_kept.py compares each with the
# renderer's table and lists every deliberate difference, so that drift on either side fails.

# Markup that styles what it holds (fonts, math alphabets, accents over math): its name and
# braces join the text around it (\textbf{V}ideo is "Video").
STYLES = frozenset("""
    textbf textit textrm textsf texttt textsc textsl textup textmd textnormal emph text mbox hbox fbox
    mathrm mathbf mathit mathsf mathtt mathnormal mathbold boldsymbol bm pmb underline uline ensuremath
    mathop mathord mathrel mathbin smash phantom mathbb mathcal mathscr mathfrak Bbb
    tilde widetilde hat widehat bar overline vec overrightarrow dot ddot check breve acute grave mathring
""".split())
# Switches (TeX's control words that change the font, size or spacing of what follows) and markup
# that shows nothing: they end at the spaces after them ({\bf D}ata, co\allowbreak operate).
SWITCHES = frozenset("""
    em it bf rm sf tt sc sl up md normalfont ttfamily rmfamily sffamily bfseries itshape scshape upshape
    mdseries tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge limits nolimits
    displaystyle textstyle scriptstyle protect relax nonumber notag noindent centering allowbreak
""".split())
# Arguments that are not words: macro -> (arguments left out, arguments kept after them). A colour
# (\textcolor{red}{x} is x), a label's key, a length.
NOT_WORDS = {"textcolor": (1, 1), "colorbox": (1, 1), "color": (1, 0), "label": (1, 0), "hspace": (1, 0),
             "vspace": (1, 0)}
# Citations and references, starred or not: prenote, keys, postnote (\cite[Theorem 2]{smith20}
# is smith20, Theorem, 2; one optional argument is the postnote, as natbib and biblatex read it).
CITATIONS = frozenset("""
    cite citep citet citealp citealt citeauthor citeyear citeyearpar citenum citetext Citet Citep Citealp
    Citealt Citeauthor parencite Parencite textcite Textcite autocite Autocite footcite smartcite supercite
    ref eqref pageref cref Cref cpageref labelcref autoref Autoref nameref vref Vref
""".split())
NOTES = frozenset(("footnote", "footnotetext", "thanks"))  # a mark, then the note's text
TEXT_SCRIPTS = frozenset(("textsuperscript", "textsubscript"))
OPERATOR_NAMES = frozenset(("operatorname", "mathop"))
FRACTIONS = frozenset(("frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac", "textfrac", "binom", "dbinom", "tbinom",
                       "choose"))  # two arguments, apart: numerator then denominator
OVERSETS = frozenset(("overset", "stackrel", "underset"))  # the base, then what is set over or under it
DELIMITER_SIZES = frozenset("left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr".split())
MATH_ENVIRONMENTS = frozenset(
    "equation equation* align align* gather gather* multline multline* eqnarray eqnarray* displaymath math".split())
# A text accent over a letter joins it to the word (\c{c}a, G\"odel): LaTeX's letter accents.
TEXT_ACCENTS = frozenset("cvuHrkbdt")
# Spacing: a space, or nothing where TeX joins the two sides (\- a hyphenation point, \! a negative
# thin space, \/ an italic correction, \@ a sentence end's marker).
SPACING = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "!": "", "-": "", "/": "", "@": "", "\\": " ",
           "\n": " ", "quad": " ", "qquad": " ", "enspace": " ", "enskip": " ", "thinspace": " ", "medspace": " ",
           "thickspace": " ", "newline": " ", "linebreak": " ", "par": " ", "hfill": " ", "vfill": " "}

SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᐟ"
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ"
_SCRIPT_RUN_RE = re.compile(f"[{SUPERSCRIPTS}]+|[{SUBSCRIPTS}]+")
_WORD_RE = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """NFKD without combining marks, a script apart from what precedes it: ℝ -> R, é -> e,
    10⁸ -> 10 8."""
    if not text.isascii():
        text = _SCRIPT_RUN_RE.sub(r" \g<0> ", text)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The words of a plain text, folded."""
    return _WORD_RE.findall(fold(text))


# -- markdown emphasis -----------------------------------------------------------------------

_URL = r"https?://[^\s{}\\$<>\"]+|\\url\{[^{}]*\}|\\href\{[^{}]*\}"
_HELD_RE = re.compile(_URL + r"|\\[()\[\]]|\\.|\$\$|\$", re.DOTALL)
_MATH_CLOSERS = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
# What an autolink leaves out at a bare URL's end (GitHub's rule): *https://x.org*. is emphasis.
_AUTOLINK_TRAILING = ".,;:!?'\"*_~"
# A run of * or of _ that is no delimiter: inside a word with a digit on one side at least
# (5*10*20, x*2*y, cost 5*x*2, x_1_2), a product or an index (text/plain.py's second departure).
_BY_A_DIGIT_RE = re.compile(r"(?<=\d)(?:\*+|_+)(?=[^\s\W_])|(?<=[^\s\W_])(?:\*+|_+)(?=\d)")


def _held_out(text: str) -> str:
    """``text`` with each URL and math span a run of letters as long (CommonMark knows neither:
    the renderer holds them out of emphasis), each escape (``\\*``, ``\\\\``) and each
    ``*``/``_`` run inside a word by a digit punctuation that is no delimiter, and white space a space."""
    chars = list(text)
    found = list(_HELD_RE.finditer(text))
    k = 0
    while k < len(found):
        m, k = found[k], k + 1
        tok = m.group()
        close = _MATH_CLOSERS.get(tok)
        if close is not None:
            j = next((j for j in range(k, len(found)) if found[j].group() == close), None)
            if j is None or tok == "$" and is_currency(text[m.end() : found[j].start()], text[found[j].end() :]):
                continue
            chars[m.start() : found[j].end()] = "a" * (found[j].end() - m.start())
            k = j + 1
        elif tok[0] == "\\" and len(tok) == 2:
            if tok[1] in "*_\\":
                chars[m.start() : m.end()] = "!!"
        elif tok[0] != "\\" or tok[1] in "uh":
            length = len(tok.rstrip(_AUTOLINK_TRAILING) if tok[0] == "h" else tok)
            chars[m.start() : m.start() + length] = "a" * length
    held = "".join(chars)
    held = _BY_A_DIGIT_RE.sub(lambda m: "!" * len(m.group()), held)
    return re.sub(r"\s", " ", held)


def without_emphasis(text: str) -> str:
    """``text`` without the ``*`` and ``_`` that CommonMark (markdown-it-py) reads as emphasis,
    math and URLs held out, runs inside a word by a digit kept."""
    if "*" not in text and "_" not in text:
        return text
    from markdown_it import MarkdownIt

    held = _held_out(text)
    shown = "".join(t.content for t in MarkdownIt("zero").enable(["emphasis"]).parseInline(held)[0].children or []
                    if t.type == "text")
    out, j = [], 0
    for ch, h in zip(text, held):
        if j < len(shown) and shown[j] == h:
            out.append(ch)
            j += 1
        elif h not in "*_":
            raise AssertionError(f"markdown-it changed more than emphasis: {held!r} -> {shown!r}")
    return "".join(out)


# -- LaTeX -----------------------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"\\\\(?=[A-Za-z])|\\[A-Za-z]+\*?|\\.|\$\$|" + ENTITY_RE.pattern + r"|\s+|[^\\{}$^_~&\[\]\s]+|.", re.DOTALL)
_ACCENT_SIGNS = frozenset("'`^\"~=.")
_TEXT_ARGUMENT = ("text", "mbox", "hbox", "emph", "fbox")
_OPENERS = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
_URL_RE = re.compile(f"({_URL})")
_CHAR_RE = re.compile(r"\s*(?:\"([0-9A-Fa-f]{1,8})|'([0-7]{1,11})|([0-9]{1,10}))")


def _character(number: int | None) -> str:
    if number is None or not 0 < number <= 0x10FFFF or 0xD800 <= number <= 0xDFFF:
        return " "
    return chr(number)


class _Reader:
    """The words of LaTeX tokens, as a reader sees them: text with separators."""

    def __init__(self, toks: list[str]) -> None:
        self.toks = toks
        self.i = 0
        self.stops: tuple = ()  # what ends the group or math being read
        self.sym = symbols()

    @classmethod
    def of(cls, text: str) -> _Reader:
        """A reader of ``text``: a URL is one token wherever it starts (Wehttps://..), marked
        as the renderer marks its verbatim spans."""
        toks = []
        for k, part in enumerate(_URL_RE.split(text)):
            toks += ["\x00" + part] if k % 2 else _TOKEN_RE.findall(part)
        kept, depth = [], 0
        for tok in toks:  # a "}" that closes no group is markup only: no macro's argument ends there
            depth += (tok == "{") - (tok == "}")
            if depth < 0:
                depth = 0
                continue
            kept.append(tok)
        return cls(kept)

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def seq(self, math: bool, stops: tuple = ()) -> str:
        """Tokens up to one of ``stops`` or the end; the first of ``stops`` is consumed, the
        others (an outer group's or math's) are left to it (math closed in an unclosed group)."""
        out, outer, self.stops = [], self.stops, stops
        while self.i < len(self.toks):
            tok = self.toks[self.i]
            if tok in stops:
                self.i += tok == stops[0]
                break
            self.i += 1
            out.append(self.token(tok, math, stops))
        self.stops = outer
        return "".join(out)

    def _closed(self, close: str) -> bool:
        return close in self.toks[self.i :]

    def _currency(self) -> bool:
        """Whether the ``$`` before the next token and the next ``$`` are currency signs."""
        j = self.toks.index("$", self.i)
        return is_currency("".join(self.toks[self.i : j]), "".join(self.toks[j + 1 : j + 2]))

    def token(self, tok: str, math: bool, stops: tuple) -> str:
        if not tok:
            return ""  # the rest of a token an argument was read from
        if tok == "{":
            return self.seq(math, ("}", *[s for s in stops if s != "}"]))
        if tok == "}":
            return ""
        if tok in _OPENERS and self._closed(_OPENERS[tok]) and not (tok == "$" and self._currency()):
            return self.seq(True, (_OPENERS[tok],))
        if tok in ("$", "$$"):
            return tok
        if tok[0] in "^_" or math and tok == "\\_":
            if math or self.peek() == "{":
                body = self.arg(True)  # a script is math, in text too
                return f" {body} " if body else ""
            return tok
        if tok == "~" or tok.isspace():
            return " "
        if tok[0] == "&":
            return " " if math else html.unescape(tok)
        if tok[0] == "\x00":
            return self.link(tok[1:], math)
        if tok[0] != "\\":
            return tok
        if tok == "\\\\":
            return " "
        return self.macro(tok, math)

    def link(self, tok: str, math: bool) -> str:
        if tok.startswith("\\url"):
            return tok[5:-1]
        if tok.startswith("\\href"):
            url = tok[6:-1]
            label = self.arg(math)
            return f"{label} ({url})" if label.strip() != url else url
        return tok

    def arg(self, math: bool) -> str:
        """A TeX argument: a group, a macro with its own arguments, or one character."""
        while self.peek() is not None and self.peek().isspace():
            self.i += 1
        tok = self.peek()
        if tok is None or tok in self.stops:
            return ""  # nothing before the group or the math ends
        self.i += 1
        if tok in ("^", "_"):
            return ""  # x__i: a script of a script, which shows nothing
        if tok == "{":
            return self.seq(math, ("}",))
        if tok[0] in "\\\x00" or len(tok) == 1:
            return self.token(tok, math, ())
        self.toks[self.i - 1] = tok[1:]
        self.i -= 1
        return tok[0]

    def optional(self, math: bool, spaces: bool = True) -> str | None:
        """An optional argument ``[..]`` (up to the first ``]`` outside braces), or None."""
        j = self.i
        while spaces and j < len(self.toks) and self.toks[j].isspace():
            j += 1
        if j >= len(self.toks) or self.toks[j] != "[":
            return None
        depth = 0
        for end in range(j + 1, len(self.toks)):
            t = self.toks[end]
            depth += (t == "{") - (t == "}")
            if depth < 0:
                return None
            if t == "]" and depth == 0:
                break
        else:
            return None
        self.i = end + 1
        return _Reader(self.toks[j + 1 : end]).seq(math)  # as in TeX, what it holds ends at its "]"

    def macro(self, tok: str, math: bool) -> str:
        name = tok[1:].rstrip("*") or tok[1:]
        if name in SWITCHES:
            while self.peek() is not None and self.peek().isspace():
                self.i += 1
            return ""
        if name in CITATIONS:
            first = self.optional(math)
            second = self.optional(math) if first is not None else None
            pre, post = (first, second) if second is not None else ("", first or "")
            return f" {pre} {self.arg(math)} {post} "
        if name == "item":
            return f" {self.optional(False) or ''} "
        if name in NOTES:
            mark = self.optional(False) or ""
            return f" {mark} {self.arg(False)} "
        if name == "sqrt":
            index = self.optional(math) or ""
            return f" {self.arg(math)} {index} "
        if name in OVERSETS:
            top = self.arg(math)
            return f" {self.arg(math)} {top} "
        if name in NOT_WORDS:
            drop, keep = NOT_WORDS[name]
            for _ in range(drop):
                self.arg(math)
            return "".join(self.arg(math) for _ in range(keep))
        if name in ("begin", "end") and self.peek() == "{":
            env = self.arg(math)
            if name == "begin" and env.strip() in MATH_ENVIRONMENTS:
                body = self.seq(True, ("\\end",))
                self.arg(math)  # the environment's name again
                return f" {body} "
            return " "
        if name == "unicode":
            body = self.arg(math).strip()
            try:
                return _character(int(body[1:], 16) if body[:1] in "xX" else int(body))
            except ValueError:
                return f" {body} "
        if name == "char" and self.peek() is not None and (number := _CHAR_RE.match(self.peek())):
            self.toks[self.i] = self.toks[self.i][number.end() :]
            return _character(int(number[1], 16) if number[1] else int(number[2], 8) if number[2] else int(number[3]))
        if name in DELIMITER_SIZES:
            return ""  # \\left( : the delimiter follows
        if name in STYLES or not math and name in TEXT_ACCENTS or name in _ACCENT_SIGNS and not (
                math and name in "^_"):
            return self.arg(False if name.startswith(_TEXT_ARGUMENT) else math)
        if name in OPERATOR_NAMES or name in TEXT_SCRIPTS or name == "not" or name in FRACTIONS:
            count = 2 if name in FRACTIONS else 1
            return " " + " ".join(self.arg(math and name not in TEXT_SCRIPTS) for _ in range(count)) + " "
        if name in SPACING:
            return SPACING[name]
        if name in self.sym and (len(name) > 1 or name.isalpha()):
            return self.sym[name]
        if len(name) == 1 and not name.isalpha():
            return "" if name in "()[]" else self.sym.get(name, name)  # \\( without its \\): nothing
        return self.unknown(math)

    def unknown(self, math: bool) -> str:
        """Any other macro parts the words around it; its optional arguments written right after
        it and the brace groups after those are words of their own."""
        parts = []
        while (option := self.optional(math, spaces=False)) is not None:
            parts.append(option)
        while self.peek() == "{":
            self.i += 1
            parts.append(self.seq(math, ("}",)))
        return " " + " ".join(parts) + " "


# A markdown link is its text, then its URL in parentheses: the link's brackets are no word's end.
_MD_LINK_RE = re.compile(r"\[([^\[\]]+)\]\((https?://[^)\s\[\]]+)\)")


def source_words(source: str) -> list[str]:
    """The words of an abstract's source, folded, with the changes the rendering rules allow
    mapped (see the module docstring)."""
    text = without_emphasis(_MD_LINK_RE.sub(r"\1 (\2)", source) if "](" in source else source)
    # Which doubled backslash is an over-escaped macro is how the source is read, not a rendering
    # rule: the renderer's one reading is shared (as is_currency is), so the two agree on the source.
    text = undoubled(text)
    return words(_Reader.of(text).seq(False))


def words_lost(source: str, plain: str) -> list[str]:
    """The words of ``source`` that ``plain`` does not hold in the same order: none where the
    source's words are a subsequence of the plain text's; else those a diff of the two word
    lists (difflib) leaves unmatched, so that one word lost counts once, not with every word
    after it."""
    src, out = source_words(source), words(plain)
    rest = iter(out)
    if all(w in rest for w in src):  # each found after the one before it
        return []
    matched = set()
    for a, _, size in SequenceMatcher(None, src, out, autojunk=False).get_matching_blocks():
        matched.update(range(a, a + size))
    return [w for k, w in enumerate(src) if k not in matched]


__all__ = ["SUBSCRIPTS", "SUPERSCRIPTS", "fold", "source_words", "without_emphasis", "words", "words_lost"]
