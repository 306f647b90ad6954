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

import ctypes
import functools


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
