"""Python's cyclic garbage collector, paused where it would only waste time."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector, then restore it as it was.

    A build allocates millions of strings and lists but no reference cycles, and each full
    collection walks all of them: with the collector on, a million-record build spent a large
    share of its time collecting nothing (rensa's signatures alone arrive as one new list per
    text, and collecting during their conversion doubled its time in a large process).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
