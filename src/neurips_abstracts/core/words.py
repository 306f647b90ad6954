"""How the release's documents and the commands write a count."""


def plural(n: int, word: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def some(names: list[str], shown: int = 5) -> str:
    """The first ``shown`` of ``names``, comma-separated, then `` …`` if there are more."""
    return ", ".join(names[:shown]) + (" …" if len(names) > shown else "")
