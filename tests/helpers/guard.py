"""What the tests of the guard (tests/core/test_guard*.py) read: a folder's entries, the guard's
own folders in it, and the id of a process that has ended."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from neurips_abstracts.core.guard import MARK


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder``: bytes of files, None for folders, the target of links."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = ("link", os.readlink(p)) if p.is_symlink() else (p.read_bytes() if p.is_file() else None)
    return out


def ours(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if MARK in p.name)


def dead_pid() -> int:
    """The id of a process that has ended (and, this soon, not been reused)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid
