"""Plain text, URLs and word count of the papers' canonical abstracts, optionally on several
processes (the standard library's executor: rendering LaTeX is Python code, which threads would
not run at once). Each abstract's result depends on it alone, so the output is the same for any
number of workers; the workers are started by spawn everywhere and import only this module's
dependencies."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence

from .plain import extract_urls, to_plain

# Below this many abstracts, starting processes costs more than it saves.
MIN_PER_WORKER = 20_000
CHUNK = 2_000


def render_many(abstracts: Iterable[str]) -> list[tuple[str, str | None, int]]:
    """(abstract_plain, urls, word count of abstract_plain) of each abstract."""
    out = []
    for abstract in abstracts:
        plain = to_plain(abstract) or abstract
        out.append((plain, " ".join(extract_urls(abstract)) or None, len(plain.split())))
    return out


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def render_all(abstracts: Sequence[str], workers: int | None = None) -> list[tuple[str, str | None, int]]:
    """``render_many`` of all abstracts, on up to ``workers`` processes (None: every usable core)."""
    workers = min(workers or usable_cores(), len(abstracts) // MIN_PER_WORKER)
    if workers <= 1:
        return render_many(abstracts)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [abstracts[i : i + CHUNK] for i in range(0, len(abstracts), CHUNK)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(itertools.chain.from_iterable(pool.map(render_many, chunks)))
