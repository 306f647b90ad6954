"""The LaTeX renderer of abstracts (its rules: :mod:`.render`): text to nodes (:mod:`.parser`),
the arguments around a macro (:mod:`.arguments`), rendered pieces and how they join
(:mod:`.pieces`), and the macro tables (:mod:`.tables`)."""

from .parser import URL_RE, is_currency, math_spans, undoubled
from .render import latex_to_text
from .tables import symbols

__all__ = ["URL_RE", "is_currency", "latex_to_text", "math_spans", "symbols", "undoubled"]
