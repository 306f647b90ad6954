"""The macro tables of the LaTeX renderer (:mod:`.render`): which macros are markup, spacing,
accents, fonts or operators, and the symbols pylatexenc knows (``\\alpha`` -> α), whose pinned
version therefore shapes the output."""

from __future__ import annotations

from functools import cache

from ..unicode import lookup, name as unicode_name

OPERATORS = frozenset(
    "arccos arcsin arctan arg argmax argmin cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim "
    "liminf limsup ln log max min mod Pr sec sin sinh sup tan tanh tr Tr diag rank sgn sign poly polylog".split()
)
# Markup only: these macros render their argument(s) as they are.
FORMAT_1 = frozenset(
    "textbf textit textrm textsf texttt textsc textsl textup textmd textnormal emph text mbox hbox fbox "
    "mathrm mathbf mathit mathsf mathtt mathnormal mathbold boldsymbol bm pmb underline uline ensuremath "
    "mathop mathord mathrel mathbin smash phantom".split()
)
# Vanish with no trace (switches, sizes, spacing, delimiter sizing).
SILENT = frozenset(
    "em it bf rm sf tt sc sl up md normalfont ttfamily rmfamily sffamily bfseries itshape scshape upshape "
    "mdseries tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge left right middle "
    "big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr limits nolimits displaystyle textstyle "
    "scriptstyle noindent xspace centering protect relax nonumber notag allowbreak".split()
)
SPACES = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "!": "", "-": "", "/": "", "@": "", "\\": " ", "\n": " ",
           "quad": " ", "qquad": " ", "enspace": " ", "enskip": " ", "thinspace": " ", "medspace": " ",
           "thickspace": " ", "newline": " ", "linebreak": " ", "par": " ", "hfill": " ", "vfill": " "}
# Arguments that are not content: a colour, a label, a length.
DROP_ARGS = {"textcolor": (1, 1), "colorbox": (1, 1), "color": (1, 0), "label": (1, 0), "hspace": (1, 0), "vspace": (1, 0)}
ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307"}
TEXT_LETTER_ACCENTS = {"c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "r": "\u030a", "k": "\u0328", "b": "\u0331", "d": "\u0323", "t": "\u0361"}
MATH_ACCENTS = {"tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
                 "vec": "\u20d7", "overrightarrow": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c", "breve": "\u0306",
                 "acute": "\u0301", "grave": "\u0300", "mathring": "\u030a"}
MATH_ENVS = frozenset("equation equation* align align* gather gather* multline multline* eqnarray eqnarray* displaymath math".split())
ALPHABETS = {"mathbb": "DOUBLE-STRUCK", "mathcal": "SCRIPT", "mathscr": "SCRIPT", "mathfrak": "FRAKTUR", "Bbb": "DOUBLE-STRUCK"}
# Macros with a rule of their own in latex._Renderer._macro (any other is a symbol or unknown).
DELIMITER_SIZES = frozenset((
    "left", "right", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "big", "Big", "bigg", "Bigg", "middle",
))
FRACTIONS = frozenset(("frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac", "textfrac"))
BINOMIALS = frozenset(("binom", "dbinom", "tbinom", "choose"))
OVERSETS = frozenset(("overset", "stackrel", "underset"))
# Citations and references (natbib's, biblatex's, cleveref's and LaTeX's own), starred or not:
# one form for all of them, latex._Renderer._citation's.
CITES = frozenset((
    "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "citeyearpar", "citenum", "citetext",
    "Citet", "Citep", "Citealp", "Citealt", "Citeauthor", "parencite", "Parencite", "textcite", "Textcite", "autocite",
    "Autocite", "footcite", "smartcite", "supercite", "ref", "eqref", "pageref", "cref", "Cref", "cpageref",
    "labelcref", "autoref", "Autoref", "nameref", "vref", "Vref",
))
NOTES = frozenset(("footnote", "footnotetext", "thanks"))
TEXT_SCRIPTS = frozenset(("textsuperscript", "textsubscript"))
OPERATOR_NAMES = frozenset(("operatorname", "mathop"))
HANDLED = (
    DELIMITER_SIZES | FRACTIONS | BINOMIALS | OVERSETS | CITES | NOTES | TEXT_SCRIPTS | OPERATOR_NAMES | SILENT
    | frozenset(SPACES) | frozenset(DROP_ARGS) | FORMAT_1 | frozenset(ALPHABETS) | OPERATORS | frozenset(MATH_ACCENTS)
    | frozenset(TEXT_LETTER_ACCENTS) | {"unicode", "char", "sqrt", "not", "item"}
)


@cache
def symbols() -> dict[str, str]:
    """Macro -> Unicode for the symbols pylatexenc knows (\\alpha -> α, \\leq -> ≤, \\AA -> Å)."""
    from pylatexenc.latex2text import get_default_latex_context_db

    db = get_default_latex_context_db()
    out: dict[str, str] = {}
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
def simple_symbols() -> dict[str, tuple[str, int]]:
    """Macro token -> its piece, for the symbols with no rule of their own (\\alpha -> α)."""
    return {"\\" + name: (text, 0) for name, text in symbols().items() if len(name) > 1 and name not in HANDLED}


@cache
def styled(alphabet: str, ch: str) -> str:
    """ℝ for \\mathbb{R}, 𝒪 for \\mathcal{O}; the letters that the Mathematical Alphanumeric
    Symbols block lacks (ℝ, ℒ, ℭ) are in Letterlike Symbols, named without "MATHEMATICAL"."""
    if ch.isascii() and ch.isdigit() and alphabet == "DOUBLE-STRUCK":
        name = f"MATHEMATICAL DOUBLE-STRUCK DIGIT {unicode_name(ch).split()[-1]}"
    elif ch.isascii() and ch.isalpha():
        name = f"MATHEMATICAL {alphabet} {'CAPITAL' if ch.isupper() else 'SMALL'} {ch.upper()}"  # ch is ASCII
    else:
        return ch
    for candidate in (name, name.replace("MATHEMATICAL ", "").replace("FRAKTUR", "BLACK-LETTER")):
        try:
            return lookup(candidate)
        except KeyError:
            continue
    return ch


@cache
def known_names() -> frozenset[str]:
    return frozenset(symbols()) | OPERATORS | FORMAT_1 | SILENT | frozenset(ALPHABETS) | frozenset(MATH_ACCENTS) | {
        "frac", "sqrt", "unicode", "operatorname", "text"}
