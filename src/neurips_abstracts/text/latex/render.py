"""LaTeX in abstracts to readable, unambiguous Unicode plain text.

A small renderer of its own rather than pylatexenc's ``latex2text``, which drops unknown macros
with their content (``\\diag(\\bH)`` became "()"), ungroups scripts (``n^{d+1}`` became "n^d+1"),
glues operator names (``\\log\\log m`` became "loglog m") and reads one character at a time.
pylatexenc is still the source of the symbol table (``\\alpha`` -> α), so its pinned version
shapes the output. The rules, each tested:

* nothing an author wrote is dropped: every argument of a macro keeps its text, in one form for
  each family. An unknown macro keeps its name (``\\diag`` -> "diag"), the optional arguments
  written right after it as they are, and its brace arguments: ``\\foo[a]{b}{c}`` is
  "foo[a] b c" in text and ``foo[a](b, c)`` in math. Only formatting and spacing macros vanish,
  and only their markup, and the arguments that are no words but settings: a colour
  (``\\textcolor{red}{x}`` -> "x", ``\\colorbox``, ``\\color``), a label's key (``\\label``) and a
  length (``\\hspace``, ``\\vspace``);
* citations and references (``\\cite``, ``\\citep``, ``\\citet``, ``\\citeauthor``, ``\\ref``,
  ``\\eqref`` and the rest of natbib's, biblatex's and cleveref's, starred or not: tables'
  ``CITES``) are shown as LaTeX prints them, in square brackets: the prenote, the keys as
  written, a comma and the postnote. One optional argument is the postnote, as natbib and
  biblatex read it: ``\\cite[Theorem 2]{smith20}`` -> "[smith20, Theorem 2]",
  ``\\citep[e.g.,][]{a,b}`` -> "[e.g., a,b]", ``\\cite[see][p.~3]{key}`` -> "[see key, p. 3]";
* ``\\item[(a)]`` is its label where LaTeX puts it, in place of the bullet ("(a) convex
  losses"), a bare ``\\item`` is "•"; a note is its text in parentheses, after its mark if it
  has one (``\\footnotetext[1]{x}`` -> "(1: x)");
* an optional argument ends at the first ``]`` outside braces, as in TeX, after any spaces;
* a super- or subscript of digits is written in Unicode digits (``n²``, ``x₁``), one longer than
  one character is parenthesized (``n^(d+1)``), and a letter or digit after a script written
  with ``^``/``_`` gets a space (``x_i y``), so that a script's extent is never in doubt. So
  does one after a root (``\\sqrt{n}d`` -> "√n d") and after a math span or brace group that
  ends in a script or a word (``$x_i$th`` -> "x_i th"), and one before a span or group that
  starts with a word (``We$\\log n$`` -> "We log n"). A second script of digits right after
  one of the same kind keeps its marker (``$x_1_2$`` -> "x₁_2": "x₁₂" would be another number);
* operator names (``\\log``, ``\\max``, ``\\operatorname{..}``) and unknown macro names are
  separated by a space from a letter, digit or closing bracket next to them;
* ``\\frac{a+b}{c}`` -> "(a+b)/c", ``\\sqrt{x+1}`` -> "√(x+1)", accents combine (``\\tilde{O}``
  -> "Õ"), ``\\mathbb``/``\\mathcal``/``\\mathscr``/``\\mathfrak`` letters become their Unicode
  math letters (ℝ, 𝒪), the other font macros keep their content as it is;
* URLs (bare, ``\\url``, ``\\href``) are kept verbatim, ``\\href{url}{text}`` as "text (url)";
* ``%``, ``&`` and ``#`` are characters (an abstract means them), and so is a ``$`` that opens no
  math (no closing one follows);
* HTML entities (``&mdash;``) in text are decoded; ``\\par``, ``\\hfill``, ``\\vfill`` and an
  environment's ``\\begin{..}`` and ``\\end{..}`` part the words around them as a space.

benchmarks/words_kept.py checks the first rule with an oracle of its own, which reads none of
these tables (it has its own spec of them, compared with these by a test): every word of the
source is in the output, in order.

The result depends on the text alone: no state is kept between calls.
"""

from __future__ import annotations

import re

from ..characters import CHAR_NUMBER_RE, char_code, character, code_point
from ..unicode import is_alpha, nfc
from .arguments import Arguments, about, space_before
from .parser import Parser, tokenize
from .pieces import (
    ATTACHED,
    LEADING_WORD,
    SCRIPT_DIGITS,
    SPACED_SCRIPT,
    WORD,
    accent,
    has_text_special,
    join,
    run_text,
    script,
    wrap,
)
from .tables import (
    ACCENTS,
    ALPHABETS,
    BINOMIALS,
    CITES,
    DELIMITER_SIZES,
    DROP_ARGS,
    FORMAT_1,
    FRACTIONS,
    HANDLED,
    MATH_ACCENTS,
    NOTES,
    OPERATOR_NAMES,
    OPERATORS,
    OVERSETS,
    SILENT,
    SPACES,
    TEXT_LETTER_ACCENTS,
    TEXT_SCRIPTS,
    simple_symbols,
    styled,
    symbols,
)

# The first characters of the nodes that are not a run of text (a token of the renderer).
_MARKUP_STARTS = frozenset(["\x00", "^", "_", "\\", "~"])


class _Renderer(Arguments):
    def __init__(self, text_specials: bool) -> None:
        super().__init__()
        # False when the whole text holds no TeX quote, dash or entity (most abstracts): then no
        # run of it does, and no run needs a search for one.
        self.text_specials = text_specials
        self.sym = symbols()
        self.simple = simple_symbols()
        # macro tokens of this text found unknown (\\bH) by _macro, and the piece each is alone
        self.unknown: dict[str, tuple[str, int]] = {}

    # -- rendering -------------------------------------------------------------------------
    def render(self, nodes: list, math: bool) -> str:
        return join(self._pieces(nodes, math))

    def _pieces(self, nodes: list, math: bool) -> list:
        """The rendered pieces of ``nodes``, as join takes them."""
        # text, flags, text, flags, ..: flat, so that a piece costs two slots of one list and
        # no tuple of its own, which at 1 MB of markup no longer fit the processor's caches
        pieces: list = []
        add = pieces.extend  # each call gives (text, flags)
        simple, unknown, specials = self.simple, self.unknown, self.text_specials
        nodes = list(nodes)
        n = len(nodes)  # next_arg may replace a node, never add or remove one
        k = 0
        while k < n:
            node = nodes[k]
            k += 1
            if type(node) is not str:
                if type(node) is tuple:
                    body = node[1]
                    if type(body) is str:  # math of one token ($a$, $10$, $^$)
                        add((body, 0) if body[:1] not in _MARKUP_STARTS else self._group([body], True))
                    elif len(body) == 1 and type(body[0]) is str and body[0][:1] not in _MARKUP_STARTS:
                        add((body[0], 0))  # math of one run of text: as it is
                    else:
                        add(self._group(body, True))
                else:
                    add(self._group(node, math))
                continue
            first = node[:1]
            if first not in _MARKUP_STARTS:  # most nodes: a run of text
                add((node, 0) if math or not specials or not has_text_special(node) else (run_text(node), 0))
            elif first == "\\" and not (math and node == "\\_"):
                symbol = simple.get(node)
                if symbol is not None:  # a symbol: \\alpha
                    add(symbol)
                elif (word := unknown.get(node)) is not None and (k >= n or type(after := nodes[k]) is not list and not (
                        type(after) is str and after[:1] == "[")):
                    add(word)  # \\bH with no argument
                else:
                    k = self._macro(node, nodes, k, math, pieces)
            elif first == "~":  # a tie, or a run of them; one before a number may mean "about"
                add((" " * (len(node) - 1) + ("~" if not math and k < n and about(nodes, k) else " "), 0))
            elif first == "\x00":
                add(self._verbatim(node[1:], nodes, k, math))
                if node.startswith("\x00\\href"):
                    k = self.skip_arg(nodes, k)
            elif math or k < n and type(nodes[k]) is list:  # ^, _ or, in math, \\_
                # In text only a script with a brace group (x^{2k}) is one: snake_case is not.
                # In math, \\_ is a subscript escaped for markdown.
                body, k = self._operand(nodes, k, True)
                if body:
                    again = len(pieces) > 1 and pieces[-1] & ATTACHED and pieces[-2][-1:] in SCRIPT_DIGITS[node[-1]]
                    add(script(node[-1], body, again))
            else:
                add((run_text(node), 0))
        if self.brackets:
            self.brackets.pop(id(nodes), None)
        return pieces

    def _group(self, body: list, math: bool) -> tuple[str, int]:
        """The piece of a brace group or a math span. One that starts with a word or ends in a
        script or a word keeps them apart from a letter or digit next to it as inside it
        (We$\\log n$ is "We log n", $x_i$th is "x_i th", not "Welog n", "x_ith")."""
        pieces = self._pieces(body, math)
        first, last = 1, len(pieces) - 1  # the flags of the first and the last piece with text
        while first < len(pieces) and not pieces[first - 1]:
            first += 2
        while last > 0 and not pieces[last - 1]:
            last -= 2
        first, last = (pieces[first] if first < len(pieces) else 0), (pieces[last] if last > 0 else 0)
        return join(pieces), (LEADING_WORD if first & (WORD | LEADING_WORD) else 0) | (SPACED_SCRIPT if last & (WORD | SPACED_SCRIPT) else 0)

    def _operand(self, nodes: list, k: int, math: bool) -> tuple[str, int]:
        """A script's argument: one character, a group, or a macro with its own arguments
        (x_\\text{max}, d^\\frac{5}{4})."""
        arg, k = self.next_arg(nodes, k)
        if isinstance(arg, str) and arg.startswith("\\") and not arg.startswith("\x00"):
            sub: list = []
            k = self._macro(arg, nodes, k, math, sub)
            return join(sub).strip(), k
        return ("" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math).strip()), k

    def _optional_text(self, nodes: list, k: int, math: bool) -> tuple[str | None, int]:
        arg, k = self.optional(nodes, k)
        return (None if arg is None else self.render(arg, math).strip()), k

    def _verbatim(self, raw: str, nodes: list, k: int, math: bool) -> tuple[str, int]:
        if raw.startswith("\\url{"):
            return raw[5:-1], 0
        if raw.startswith("\\href{"):
            url = raw[6:-1]
            arg, _ = self.next_arg(nodes, k)
            label = "" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math).strip()
            return (f"{label} ({url})" if label and label != url else url), 0
        return raw, 0

    def _arg_text(self, nodes: list, k: int, math: bool) -> tuple[str | None, int]:
        arg, k = self.next_arg(nodes, k)
        if arg is None:
            return None, k
        return self.render(arg if isinstance(arg, list) else [arg], math), k

    def _macro(self, tok: str, nodes: list, k: int, math: bool, pieces: list) -> int:
        name = tok[1:].rstrip("*") or tok[1:] or "\\"  # \* is an escaped *
        sym = self.sym
        if name[0] == "\\":  # a run of line breaks
            pieces.extend((" ", 0))
            return k
        if len(name) > 1 and name not in HANDLED:  # most macros: a symbol, or one we do not know
            if name in sym:
                pieces.extend((sym[name], 0))
                return k
            if tok[-1] != "*":
                self.unknown[tok] = (name, WORD)  # unknown in text and math alike: render() takes it faster next time
            return self._unknown(name, nodes, k, math, pieces)
        if len(name) == 1 and not is_alpha(name):
            if name in ACCENTS and not (math and name in "^_"):
                body, k = self._arg_text(nodes, k, math)
                pieces.extend((accent(body or "", ACCENTS[name]), 0))
            elif name in SPACES:
                pieces.extend((SPACES[name], 0))
            elif name in ("(", ")", "[", "]"):
                pass  # a stray math delimiter
            else:
                pieces.extend((sym.get(name, name), 0))
            return k
        if name in DELIMITER_SIZES:
            j = k
            while j < len(nodes) and isinstance(nodes[j], str) and nodes[j].isspace():
                j += 1
            if j < len(nodes) and isinstance(nodes[j], str) and nodes[j].startswith("."):
                nodes[j] = nodes[j][1:]  # \left. is an invisible delimiter
            return k
        if name in SILENT:
            if k < len(nodes) and isinstance(nodes[k], str) and not nodes[k].startswith(("\\", "\x00")):
                nodes[k] = nodes[k].lstrip()  # a control word ends at the spaces after it ({\bf D}ata)
            return k
        if name == "unicode":
            body, k = self._arg_text(nodes, k, math)
            pieces.extend((code_point(body or "") or f"unicode({body})", 0))
            return k
        if name == "char" and k < len(nodes) and isinstance(nodes[k], str) and (number := CHAR_NUMBER_RE.match(nodes[k])):
            nodes[k] = nodes[k][number.end() :]
            pieces.extend((character(char_code(number)), 0))
            return k
        if name in SPACES:
            pieces.extend((SPACES[name], 0))
            return k
        if name in DROP_ARGS:
            drop, keep = DROP_ARGS[name]
            for _ in range(drop):
                k = self.skip_arg(nodes, k)
            for _ in range(keep):
                body, k = self._arg_text(nodes, k, math)
                pieces.extend((body or "", 0))
            return k
        if name in FORMAT_1:
            body, k = self._arg_text(nodes, k, False if name.startswith(("text", "mbox", "hbox", "emph", "fbox")) else math)
            if body is not None:
                if math and name.startswith(("text", "mbox", "hbox")) and k >= 2 and space_before(nodes, k):
                    body = " " + body
                pieces.extend((body, 0))
            return k
        if name in ALPHABETS:
            body, k = self._arg_text(nodes, k, math)
            body = body or ""
            if body.strip().isascii() and body.strip().isalnum():
                body = "".join(styled(ALPHABETS[name], c) for c in body.strip())
            pieces.extend((body, 0))
            return k
        if name in OPERATOR_NAMES:
            body, k = self._arg_text(nodes, k, math)
            pieces.extend(((body or "").strip(), WORD))
            return k
        if name in OPERATORS:
            pieces.extend((name, WORD))
            return k
        if name in MATH_ACCENTS or (not math and name in TEXT_LETTER_ACCENTS):
            body, k = self._arg_text(nodes, k, math)
            pieces.extend((accent(body or "", MATH_ACCENTS.get(name) or TEXT_LETTER_ACCENTS[name]), 0))
            return k
        if name in FRACTIONS:
            num, k = self._arg_text(nodes, k, math)
            den, k = self._arg_text(nodes, k, math)
            pieces.extend((f"{wrap(num or '')}/{wrap(den or '')}", WORD))
            return k
        if name in BINOMIALS:
            n_, k = self._arg_text(nodes, k, math)
            r_, k = self._arg_text(nodes, k, math)
            pieces.extend((f"({(n_ or '').strip()} choose {(r_ or '').strip()})", 0))
            return k
        if name == "sqrt":
            index, k = self._optional_text(nodes, k, math)
            body, k = self._arg_text(nodes, k, math)
            body = wrap(body or "")
            # as a script: a letter or digit after it is set apart (√n d, not √nd), and one before
            # x^(1/3) too (2 x^(1/3), not 2x^(1/3))
            pieces.extend((f"{body}^(1/{wrap(index)})", LEADING_WORD | SPACED_SCRIPT) if index else (f"√{body}", SPACED_SCRIPT))
            return k
        if name in OVERSETS:
            top, k = self._arg_text(nodes, k, math)
            base, k = self._arg_text(nodes, k, math)
            sign = "_" if name == "underset" else "^"
            pieces.extend((f"{(base or '').strip()}{sign}{wrap(top or '')}", LEADING_WORD | SPACED_SCRIPT))
            return k
        if name in CITES:
            return self._citation(name, nodes, k, math, pieces)
        if name in NOTES:
            mark, k = self._optional_text(nodes, k, False)
            body, k = self._arg_text(nodes, k, False)
            body = (body or "").strip()
            pieces.extend((f" ({mark}: {body})" if mark else f" ({body})", 0))
            return k
        if name in TEXT_SCRIPTS:
            body, k = self._arg_text(nodes, k, False)
            if body and body.strip():
                pieces.extend(script("^" if name == "textsuperscript" else "_", body.strip()))
            return k
        if name == "not":
            arg, k = self.next_arg(nodes, k)
            body = "" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math)
            pieces.extend((body + "\u0338" if len(body) == 1 else "not " + body, 0))
            return k
        if name == "item":  # a label in place of the bullet, as LaTeX prints it
            label, k = self._optional_text(nodes, k, False)
            pieces.extend((" • " if label is None else f" {label} ", 0))
            return k
        if name in sym:
            pieces.extend((sym[name], 0))
            return k
        if tok[-1] != "*" and is_alpha(name) and name not in HANDLED:
            self.unknown[tok] = (name, WORD)  # \\a: unknown in text and math alike
        return self._unknown(name, nodes, k, math, pieces)

    def _citation(self, name: str, nodes: list, k: int, math: bool, pieces: list) -> int:
        """A citation or reference as LaTeX prints it, in square brackets: the prenote, the keys
        as written, a comma and the postnote. One optional argument is the postnote (natbib and
        biblatex read it so), two are the prenote and the postnote; an empty one shows nothing."""
        first, k = self._optional_text(nodes, k, math)
        second, k = self._optional_text(nodes, k, math) if first is not None else (None, k)
        pre, post = (first, second) if second is not None else (None, first)
        keys, k = self._arg_text(nodes, k, math)
        if keys is None and not pre and not post:
            pieces.extend((name, WORD))  # no argument at all: the name is all the author wrote
            return k
        shown = " ".join(part for part in (pre, (keys or "").strip()) if part)
        pieces.extend((f"[{shown}, {post}]" if post else f"[{shown}]", 0))
        return k

    def _unknown(self, name: str, nodes: list, k: int, math: bool, pieces: list) -> int:
        """An unknown macro keeps its name, the optional arguments that follow it directly as
        they are written (``foo[a]``), and the brace groups after them as its arguments."""
        options = ""
        while k < len(nodes) and type(nodes[k]) is str and nodes[k][:1] == "[":
            arg, after = self.optional(nodes, k)
            if arg is None:
                break
            options += f"[{self.render(arg, math).strip()}]"
            k = after
        if k >= len(nodes) or type(nodes[k]) is not list:
            pieces.extend((name + options, WORD))
            return k
        args = []
        while k < len(nodes) and isinstance(nodes[k], list):
            body = self.render(nodes[k], math).strip()
            if body:
                args.append(body)
            k += 1
        if not args:
            pieces.extend((name + options, WORD))
        elif math:
            pieces.extend((f"{name}{options}({', '.join(args)})", WORD))
        else:
            pieces.extend((" ".join([name + options, *args]), WORD))
        return k


def latex_to_text(text: str) -> str:
    """Readable Unicode for an abstract's LaTeX; see the module docstring for the rules."""
    try:
        tokens = tokenize(text)
        nodes, _ = Parser(tokens).parse(0, len(tokens), ())
        out = _Renderer(has_text_special(text) is not None).render(nodes, False)
    except RecursionError:  # braces nested hundreds deep: keep every word, drop the markup
        out = re.sub(r"\\(?=[A-Za-z])|[{}$]", "", text)
    return nfc(out)
