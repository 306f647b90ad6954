"""How the LaTeX renderer (:mod:`.render`) reads the node list around a macro: its arguments (TeX's
undelimited ones and optional ones in brackets), and what stands before a node."""

from __future__ import annotations

from ..unicode import is_alnum
from .parser import DIGITS


class Arguments:
    """The argument readers of :class:`.render._Renderer`: each takes a node list and an index
    and gives what it read and the index after it; a text node read in part keeps the rest."""

    def __init__(self) -> None:
        # id of a node list being rendered -> [indexes of its text nodes holding "]", how many of
        # them are behind]: where optional arguments end (see optional); the renderer drops a
        # list's entry when it has rendered the list
        self.brackets: dict[int, list] = {}

    @staticmethod
    def next_arg(nodes: list, k: int):
        """(argument, index after it) for the node list at ``k``; argument None when absent.
        A text token gives its first character, the rest stays in place."""
        while k < len(nodes) and isinstance(nodes[k], str) and nodes[k].isspace():
            k += 1
        if k >= len(nodes):
            return None, k
        node = nodes[k]
        if isinstance(node, str) and not node.startswith(("\\", "\x00")) and node not in ("{", "}", "$", "^", "_", "~"):
            node = node.lstrip()
            if len(node) > 1:
                nodes[k] = node[1:]
                return node[0], k
            return node, k + 1
        return node, k + 1

    def optional(self, nodes: list, k: int) -> tuple[list | None, int]:
        """(nodes, index after it) of the optional argument ``[..]`` at ``k``, or (None, ``k``).
        As in TeX it ends at the first ``]`` outside braces, in the same node or a later one;
        the text nodes holding a ``]`` are found once per node list, and each lookup starts where
        the last one ended, so that all the optional arguments of a list cost one pass over it."""
        j = k
        while j < len(nodes) and type(nodes[j]) is str and nodes[j].isspace():
            j += 1
        first = nodes[j] if j < len(nodes) else None
        if type(first) is not str or first[:1] != "[":
            if type(first) is not str or not first[:1].isspace() or first.lstrip()[:1] != "[":
                return None, k
            first = nodes[j] = first.lstrip()  # TeX skips the spaces before an optional argument
        close = first.find("]")
        if close >= 0:  # most optional arguments: [3], [Theorem 2]
            end, node = j, first
        else:
            end = self._bracket_after(nodes, j + 1)
            if end < 0:
                return None, k  # never closed: a bracket, kept as text
            node = nodes[end]
            close = node.find("]")
        arg = [first[1:close] if end == j else first[1:], *nodes[j + 1 : end], *([node[:close]] if end > j else [])]
        rest = node[close + 1 :]
        if rest:
            nodes[end] = rest
            return [a for a in arg if a != ""], end
        return [a for a in arg if a != ""], end + 1

    def _bracket_after(self, nodes: list, start: int) -> int:
        """Index of the first text node at or after ``start`` that holds a ``]``, or -1."""
        found = self.brackets.get(id(nodes))
        if found is None:
            found = self.brackets[id(nodes)] = [[j for j, node in enumerate(nodes) if type(node) is str and "]" in node
                                                  and node[:1] not in MACRO_OR_VERBATIM], 0]
        at, behind = found
        while behind < len(at) and (at[behind] < start or "]" not in nodes[at[behind]]):
            behind += 1  # passed, or its "]" taken as a script's operand: never looked at again
        found[1] = behind
        return at[behind] if behind < len(at) else -1

    def skip_arg(self, nodes: list, k: int) -> int:
        return self.next_arg(nodes, k)[1]


MACRO_OR_VERBATIM = frozenset("\\\x00")
_TIED_AFTER = frozenset(".,;:!?)]}")


def about(nodes: list, k: int) -> bool:
    """Whether the ``~`` before ``k`` means "about" (``~90x``, ``(~50%``, ``2.8%~4.5%``) rather
    than a tie (``Figure~3``, ``et~al.~2022``): it stands before a number, after no letter,
    digit or sentence punctuation."""
    after = nodes[k]
    if type(after) is not str or after[:1] not in DIGITS:
        return False
    if k < 2:
        return True  # at the start of the text: nothing to tie to
    before = nodes[k - 2]
    if type(before) is not str or before[:1] in MACRO_OR_VERBATIM:
        return False
    last = before[-1:]
    return not last or not (is_alnum(last) or last in _TIED_AFTER)


def space_before(nodes: list, k: int) -> bool:
    """Whether the author typed a space before the macro whose argument ends just before ``k``."""
    j = k - 2
    while j >= 0 and not (isinstance(nodes[j], str) and nodes[j].startswith("\\")):
        j -= 1
    return j > 0 and isinstance(nodes[j - 1], str) and nodes[j - 1][-1:].isspace()
