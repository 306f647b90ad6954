"""A release's SHA256SUMS: the one reader of it, for verify and for a build that keeps a release's ids."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .names import SUMS


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_sums(folder: Path) -> tuple[dict[str, str], list[str]]:
    """(file -> sha256 listed in ``folder``'s SHA256SUMS, problems with its lines). OSError if
    it cannot be read; a file that is not UTF-8 is one problem."""
    try:
        text = (folder / SUMS).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, [f"{SUMS}: not UTF-8 text (byte {exc.start})"]
    listed, problems = {}, []
    for number, line in enumerate(text.splitlines(), start=1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            problems.append(f"{SUMS}:{number}: malformed line")
            continue
        listed[name] = digest
    return listed, problems
