"""The render stage: the papers' plain text, urls and word counts, from their canonical abstracts."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ...core.memory import release_free_memory
from ...core.schema import arrow_schema
from ...text.render import render_many
from .near_dup import Papers
from .parse import Parsed

# Abstracts rendered at once: their plain texts are copied into Arrow a chunk at a time, so
# that the Python strings of the whole column are never held together. A chunk's text column
# (some 50 MB) is larger than the C library's largest threshold for memory of its own mapping
# (32 MiB), so it is given back to the system as soon as it is joined (``concat_releasing``), not
# kept among the heap's free memory (2,500 abstracts a chunk: the peak grew by what was joined).
RENDER_CHUNK = 40_000
# Chunks rendered between two returns of freed memory to the system (``core.memory``).
TRIM_CHUNKS = 1
RENDERED = ("abstract", "abstract_plain", "urls", "word_count")  # the papers' columns this stage makes


@dataclass(frozen=True)
class Rendered:
    """The papers' columns this stage makes (``RENDERED``), one value per paper in ``Papers`` order."""

    abstract: pa.Array
    abstract_plain: pa.Array
    urls: pa.Array
    word_count: pa.Array

    def columns(self) -> dict[str, pa.Array]:
        return {name: getattr(self, name) for name in RENDERED}


def render(parsed: Parsed, papers: Papers, chunk_done: ChunkDone | None = None) -> Rendered:
    """The ``RENDERED`` columns of ``papers``. Nothing after this stage needs the distinct texts:
    those of no paper's canonical version are freed now, the others as they are copied into Arrow.
    ``chunk_done``: see ``render_papers``."""
    abstracts = [parsed.versions.text[v] for v in papers.canonical.tolist()]
    parsed.versions.text = []
    chunks = render_papers(abstracts, chunk_done)
    return Rendered(**joined(chunks))


# Called with the first paper of a chunk and the chunk's ``RENDERED`` columns, as each is rendered.
ChunkDone = Callable[[int, dict[str, pa.Array]], None]


def render_papers(abstracts: list[str], chunk_done: ChunkDone | None = None) -> dict[str, list[pa.Array]]:
    """The ``RENDERED`` columns of the papers whose canonical abstracts are ``abstracts``, in chunks (``joined`` makes each one
    array). The list is emptied at once, its abstracts split into chunks: where it held the only
    references to them, each chunk's are freed once they are copied into Arrow. ``chunk_done(start,
    columns)`` is called as each chunk is rendered (the build writes the papers table meanwhile)."""
    schema = arrow_schema("papers")
    parts = deque(abstracts[k : k + RENDER_CHUNK] for k in range(0, len(abstracts), RENDER_CHUNK))
    abstracts.clear()
    chunks: dict[str, list] = {name: [] for name in RENDERED}
    start = 0
    while parts:  # each chunk leaves ``parts`` as it is rendered
        chunk = parts.popleft()
        results = render_many(chunk)
        plain, urls, words = zip(*results)
        for name, values in zip(RENDERED, (chunk, plain, urls, words)):
            chunks[name].append(pa.array(values, schema.field(name).type))
        if chunk_done is not None:
            chunk_done(start, {name: chunks[name][-1] for name in RENDERED})
        start += len(chunk)
        del chunk, results, plain, urls, words
        if len(parts) % TRIM_CHUNKS == 0:
            # The abstracts copied into Arrow leave holes in the C heap, which Arrow, with an
            # allocator of its own, never fills.
            release_free_memory()
    return chunks


def joined(chunks: dict[str, list[pa.Array]]) -> dict[str, pa.Array]:
    """Each column of ``render_papers`` as one array. The chunks of a column are freed as it is
    joined (``chunks`` is emptied, and ``concat_releasing`` drops each chunk once copied)."""
    schema = arrow_schema("papers")
    columns = {}
    for name in list(chunks):
        arrays = chunks.pop(name)
        columns[name] = concat_releasing(arrays) if arrays else pa.array([], schema.field(name).type)
        del arrays
    release_free_memory()
    return columns


def concat_releasing(arrays: list[pa.Array]) -> pa.Array:
    """``pa.concat_arrays(arrays)``, emptying ``arrays``. Strings without nulls (the abstracts
    and their plain text) are copied one array at a time into the result, each array dropped
    once copied: where the list held the only reference to it, it is freed then, so memory holds
    the result and the arrays not copied yet, not the whole result and every array at the end.
    The result's pages are touched only as they are written. Anything else, and a column past
    2 GiB (whose error is concat_arrays'), is left to concat_arrays."""
    values = [np.frombuffer(a.buffers()[1], np.int32)[a.offset : a.offset + len(a) + 1] if len(a) else None
              for a in arrays]
    total = sum(int(v[-1] - v[0]) for v in values if v is not None)
    if not all(a.type == pa.string() and not a.null_count for a in arrays) or total >= 2**31:
        out = pa.concat_arrays(arrays)
        arrays.clear()
        return out
    n = sum(len(a) for a in arrays)
    offsets = np.empty(n + 1, dtype=np.int32)
    offsets[n] = total
    data = pa.allocate_buffer(total)
    into = np.frombuffer(data, np.uint8)
    row = at = 0
    arrays.reverse()  # popped from the end: each array leaves the list as it is copied
    values.reverse()
    while arrays:
        array, value = arrays.pop(), values.pop()
        if value is not None:
            first, size = int(value[0]), int(value[-1] - value[0])
            offsets[row : row + len(array)] = value[:-1] - first + at
            into[at : at + size] = np.frombuffer(array.buffers()[2], np.uint8, size, first) if size else ()
            row, at = row + len(array), at + size
        del array, value
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), data])
