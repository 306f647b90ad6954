"""Plain text, URLs and word count of the papers' canonical abstracts: each abstract's result
depends on it alone (``stages.render.render_papers`` renders them a chunk at a time)."""

from __future__ import annotations

from collections.abc import Iterable

from .plain import extract_urls, to_plain


def render_many(abstracts: Iterable[str]) -> list[tuple[str, str | None, int]]:
    """(abstract_plain, urls, word count of abstract_plain) of each abstract."""
    out = []
    for abstract in abstracts:
        plain = to_plain(abstract)
        # to_plain's words are parted by one space each: counted without a list of them
        words = plain.count(" ") + 1 if plain else len(abstract.split())
        plain = plain or abstract
        out.append((plain, " ".join(extract_urls(abstract)) or None, words))
    return out
