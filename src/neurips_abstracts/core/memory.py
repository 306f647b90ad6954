"""Memory the build has freed, handed back to the system where the C allocator keeps it.

Why: a build frees large parts of what it holds at a few points (the memo and the look-ups of
the parse stage, the shingles of the near-dup stage, the abstracts as the plain text copies them
into Arrow). glibc's malloc keeps such freed memory mapped, in holes between the strings still
alive, and new allocations there are few: what the build makes next lives in Arrow's own
allocator. On the million-record benchmark a third of a build's peak memory was such free
memory of glibc's (``mallinfo2``: 0.7 GiB free against 0.25 GiB in use at the end of the plain
text). ``malloc_trim`` returns the whole free pages among them to the system.

Elsewhere (macOS, Windows, a C library without ``malloc_trim``) this does nothing: it changes
how much memory the process keeps, never what it computes.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator


@functools.cache
def _malloc_trim():
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc's; the process's own C library
    except (AttributeError, OSError, TypeError):  # no such function, or no C library to name (Windows)
        return None


def release_free_memory() -> None:
    """Return the pages the C allocator holds free to the system, where it can (glibc)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@contextlib.contextmanager
def arrow_from_c_allocator() -> Iterator[None]:
    """Arrow's buffers from the C library's allocator (Arrow's system pool) inside, as they were
    (the pool in use, by default Arrow's mimalloc) afterwards.

    Why: the build makes Arrow buffers in one thread and frees them in another (the plain text's
    chunks are written and dropped by the writer thread). mimalloc keeps a page freed by another
    thread than its owner's, and memory it freed itself a while, mapped: on the million-record
    benchmark its mappings held 1.74 GiB at the build's peak for 0.79 GiB of live buffers, and
    the build peaked at 2.12 GiB against 1.75 GiB with the C library's, in about the same time.
    The C library unmaps a large buffer as it is freed and returns the rest on
    ``release_free_memory``. Buffers made before or after keep the pool that made them."""
    import pyarrow as pa

    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(before)
