"""How the release's documents and the commands write a count."""


def plural(n: int, word: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{n} {word}{'' if n == 1 else 's'}"
