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

import re

from .characters import _CHAR_NUMBER_RE, _char_code, _character, _code_point
from .latex_parser import _DIGITS, _Parser, _tokens
from .latex_pieces import _WORD, _accent, _has_text_special, _join, _script, _text, _wrap
from .latex_symbols import (
    _ACCENTS,
    _ALPHABETS,
    _BINOMIALS,
    _CITES,
    _DELIMITER_SIZES,
    _DROP_ARGS,
    _FORMAT_1,
    _FRACTIONS,
    _HANDLED,
    _MATH_ACCENTS,
    _NOTES,
    _OPERATOR_NAMES,
    _OVERSETS,
    _SILENT,
    _SPACES,
    _TEXT_LETTER_ACCENTS,
    _TEXT_SCRIPTS,
    OPERATORS,
    _simple_symbols,
    _styled,
    symbols,
)
from .unicode import is_alnum, is_alpha, nfc

# The first characters of the nodes that are not a run of text (a token of the renderer).
_MARKUP_STARTS = frozenset(["\x00", "^", "_", "\\", "~"])


class _Renderer:
    def __init__(self, text_specials: bool) -> None:
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
        # text, flags, text, flags, ..: flat, so that a piece costs two slots of one list and
        # no tuple of its own, which at 1 MB of markup no longer fit the processor's caches
        pieces: list = []
        add = pieces.extend  # each call gives (text, flags)
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
                    if type(body) is str:  # math of one token ($a$, $10$, $^$)
                        add((body, 0) if body[:1] not in _MARKUP_STARTS else (self.render([body], True), 0))
                    elif len(body) == 1 and type(body[0]) is str and body[0][:1] not in _MARKUP_STARTS:
                        add((body[0], 0))  # math of one run of text: as it is
                    else:
                        add((self.render(body, True), 0))
                else:
                    add((self.render(node, math), 0))
                continue
            first = node[:1]
            if first not in _MARKUP_STARTS:  # most nodes: a run of text
                add((node, 0) if math or not specials or not _has_text_special(node) else (_text(node), 0))
            elif first == "\\" and not (math and node == "\\_"):
                symbol = simple.get(node)
                if symbol is not None:  # a symbol: \\alpha
                    add(symbol)
                elif (word := unknown.get(node)) is not None and (k >= n or type(nodes[k]) is not list):
                    add(word)  # \\bH with no argument
                else:
                    k = self._macro(node, nodes, k, math, pieces)
            elif first == "~":  # a tie, or a run of them; one before a number may mean "about"
                add((" " * (len(node) - 1) + ("~" if not math and k < n and _about(nodes, k) else " "), 0))
            elif first == "\x00":
                add(self._verbatim(node[1:], nodes, k, math))
                if node.startswith("\x00\\href"):
                    k = self._skip_arg(nodes, k)
            elif math or k < n and type(nodes[k]) is list:  # ^, _ or, in math, \\_
                # In text only a script with a brace group (x^{2k}) is one: snake_case is not.
                # In math, \\_ is a subscript escaped for markdown.
                body, k = self._operand(nodes, k, True)
                if body:
                    add(_script(node[-1], body))
            else:
                add((_text(node), 0))
        return _join(pieces)

    def _operand(self, nodes: list, k: int, math: bool) -> tuple[str, int]:
        """A script's argument: one character, a group, or a macro with its own arguments
        (x_\\text{max}, d^\\frac{5}{4})."""
        arg, k = self._next_arg(nodes, k)
        if isinstance(arg, str) and arg.startswith("\\") and not arg.startswith("\x00"):
            sub: list = []
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
            pieces.extend((" ", 0))
            return k
        if len(name) > 1 and name not in _HANDLED:  # most macros: a symbol, or one we do not know
            if name in sym:
                pieces.extend((sym[name], 0))
                return k
            if tok[-1] != "*":
                self.unknown[tok] = (name, _WORD)  # unknown in text and math alike: render() takes it faster next time
            return self._unknown(name, nodes, k, math, pieces)
        if len(name) == 1 and not is_alpha(name):
            if name in _ACCENTS and not (math and name in "^_"):
                body, k = self._arg_text(nodes, k, math)
                pieces.extend((_accent(body or "", _ACCENTS[name]), 0))
            elif name in _SPACES:
                pieces.extend((_SPACES[name], 0))
            elif name in ("(", ")", "[", "]"):
                pass  # a stray math delimiter
            else:
                pieces.extend((sym.get(name, name), 0))
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
            pieces.extend((_code_point(body or "") or f"unicode({body})", 0))
            return k
        if name == "char" and k < len(nodes) and isinstance(nodes[k], str) and (number := _CHAR_NUMBER_RE.match(nodes[k])):
            nodes[k] = nodes[k][number.end() :]
            pieces.extend((_character(_char_code(number)), 0))
            return k
        if name in _SPACES:
            pieces.extend((_SPACES[name], 0))
            return k
        if name in _DROP_ARGS:
            drop, keep = _DROP_ARGS[name]
            for _ in range(drop):
                k = self._skip_arg(nodes, k)
            for _ in range(keep):
                body, k = self._arg_text(nodes, k, math)
                pieces.extend((body or "", 0))
            return k
        if name in _FORMAT_1:
            body, k = self._arg_text(nodes, k, False if name.startswith(("text", "mbox", "hbox", "emph", "fbox")) else math)
            if body is not None:
                if math and name.startswith(("text", "mbox", "hbox")) and k >= 2 and _space_before(nodes, k):
                    body = " " + body
                pieces.extend((body, 0))
            return k
        if name in _ALPHABETS:
            body, k = self._arg_text(nodes, k, math)
            body = body or ""
            if body.strip().isascii() and body.strip().isalnum():
                body = "".join(_styled(_ALPHABETS[name], c) for c in body.strip())
            pieces.extend((body, 0))
            return k
        if name in _OPERATOR_NAMES:
            body, k = self._arg_text(nodes, k, math)
            pieces.extend(((body or "").strip(), _WORD))
            return k
        if name in OPERATORS:
            pieces.extend((name, _WORD))
            return k
        if name in _MATH_ACCENTS or (not math and name in _TEXT_LETTER_ACCENTS):
            body, k = self._arg_text(nodes, k, math)
            pieces.extend((_accent(body or "", _MATH_ACCENTS.get(name) or _TEXT_LETTER_ACCENTS[name]), 0))
            return k
        if name in _FRACTIONS:
            num, k = self._arg_text(nodes, k, math)
            den, k = self._arg_text(nodes, k, math)
            pieces.extend((f"{_wrap(num or '')}/{_wrap(den or '')}", _WORD))
            return k
        if name in _BINOMIALS:
            n_, k = self._arg_text(nodes, k, math)
            r_, k = self._arg_text(nodes, k, math)
            pieces.extend((f"({(n_ or '').strip()} choose {(r_ or '').strip()})", 0))
            return k
        if name == "sqrt":
            index, k = self._arg_text(nodes, k, math, optional=True)
            body, k = self._arg_text(nodes, k, math)
            body = _wrap(body or "")
            pieces.extend((f"{body}^(1/{index.strip()})" if index else f"√{body}", 0))
            return k
        if name in _OVERSETS:
            top, k = self._arg_text(nodes, k, math)
            base, k = self._arg_text(nodes, k, math)
            mark = "_" if name == "underset" else "^"
            pieces.extend((f"{(base or '').strip()}{mark}{_wrap(top or '')}", 0))
            return k
        if name in _CITES:
            self._arg_text(nodes, k, math, optional=True)
            _, k = self._next_arg(nodes, k, optional=True)
            body, k = self._arg_text(nodes, k, math)
            pieces.extend((f"[{(body or '').strip()}]", 0))
            return k
        if name in _NOTES:
            body, k = self._arg_text(nodes, k, False)
            pieces.extend((f" ({(body or '').strip()})", 0))
            return k
        if name in _TEXT_SCRIPTS:
            body, k = self._arg_text(nodes, k, False)
            if body and body.strip():
                pieces.extend(_script("^" if name == "textsuperscript" else "_", body.strip()))
            return k
        if name == "not":
            arg, k = self._next_arg(nodes, k)
            body = "" if arg is None else self.render(arg if isinstance(arg, list) else [arg], math)
            pieces.extend((body + "\u0338" if len(body) == 1 else "not " + body, 0))
            return k
        if name == "item":
            _, k = self._next_arg(nodes, k, optional=True)
            pieces.extend((" • ", 0))
            return k
        if name in sym:
            pieces.extend((sym[name], 0))
            return k
        if tok[-1] != "*" and is_alpha(name) and name not in _HANDLED:
            self.unknown[tok] = (name, _WORD)  # \\a: unknown in text and math alike
        return self._unknown(name, nodes, k, math, pieces)

    def _unknown(self, name: str, nodes: list, k: int, math: bool, pieces: list) -> int:
        """An unknown macro keeps its name, and the brace groups that follow it directly as its
        arguments."""
        if k >= len(nodes) or type(nodes[k]) is not list:
            pieces.extend((name, _WORD))
            return k
        args = []
        while k < len(nodes) and isinstance(nodes[k], list):
            body = self.render(nodes[k], math).strip()
            if body:
                args.append(body)
            k += 1
        if not args:
            pieces.extend((name, _WORD))
        elif math:
            pieces.extend((f"{name}({', '.join(args)})", _WORD))
        else:
            pieces.extend((" ".join([name, *args]), _WORD))
        return k


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
    return not last or not (is_alnum(last) or last in _TIED_AFTER)


def _space_before(nodes: list, k: int) -> bool:
    """Whether the author typed a space before the macro whose argument ends just before ``k``."""
    j = k - 2
    while j >= 0 and not (isinstance(nodes[j], str) and nodes[j].startswith("\\")):
        j -= 1
    return j > 0 and isinstance(nodes[j - 1], str) and nodes[j - 1][-1:].isspace()


def latex_to_text(text: str) -> str:
    """Readable Unicode for an abstract's LaTeX; see the module docstring for the rules."""
    try:
        tokens = _tokens(text)
        nodes, _ = _Parser(tokens).parse(0, len(tokens), ())
        out = _Renderer(_has_text_special(text) is not None).render(nodes, False)
    except RecursionError:  # braces nested hundreds deep: keep every word, drop the markup
        out = re.sub(r"\\(?=[A-Za-z])|[{}$]", "", text)
    return nfc(out)
