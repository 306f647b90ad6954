"""What a command run as its own process (``python build_dataset.py``, ``neurips-abstracts``,
``python -m neurips_abstracts``) sets up before its work and does once it has finished: settings
of the process, not of the command, so a command called in a process of the caller's (click's
test runner, a test) leaves that process as it was. ``cli.errors.ReportsErrors.main`` calls both."""

from __future__ import annotations

import gc
import os

# Settings of the libraries, read from the environment when they load: set before any import of
# them, and a value the user set is kept.
ENVIRONMENT = {
    # numpy's wheels for Linux and Windows bring OpenBLAS, which starts a thread per core the
    # moment numpy is imported, and those threads spin while they wait for work: over a tenth of
    # a seeds build's CPU, taken from the build's own threads. No command does linear algebra
    # (numpy sorts, compares and counts here): one BLAS thread is all a command can use.
    "OPENBLAS_NUM_THREADS": "1",
}


def starting() -> None:
    """Before the command's imports."""
    for name, value in ENVIRONMENT.items():
        os.environ.setdefault(name, value)


def finished() -> None:
    """After the command finished (exit status 0), right before the interpreter exits: every
    object is frozen (``gc.freeze``), so the collections Python runs at exit walk none of the
    hundreds of thousands the imports made (the build pauses the collector while it runs, see
    ``core.gc_pause``, so none was collected before): at exit they were over a tenth of a seeds
    build's CPU, and found no garbage that matters (the command has closed its files and
    removed its temporary folders)."""
    gc.freeze()
