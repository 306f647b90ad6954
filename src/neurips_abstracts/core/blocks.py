"""The generated blocks of the project's docs: ``<!-- generated:NAME by … -->`` … ``<!-- /generated:NAME -->``,
whose bodies are made from data (a build, benchmark results), never typed; the text around them is
written by hand. The build's docs (``docs``) and the benchmarks' (``benchmarks/docs.py``) both fill
them here."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

_BLOCK_RE = re.compile(r"(<!-- generated:(?P<name>[\w-]+) [^>]*-->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)", re.S)


def fill(text: str, blocks: dict[str, str]) -> str:
    """``text`` with the bodies of its blocks named in ``blocks`` replaced; other blocks kept."""
    def one(m: re.Match) -> str:
        body = blocks.get(m["name"])
        return m.group(0) if body is None else m.group(1) + body + m.group(4)

    return _BLOCK_RE.sub(one, text)


def filled(blocks: dict[Path, dict[str, str]]) -> dict[Path, str | None]:
    """Each file with its generated blocks filled in (None: the file is missing)."""
    return {
        path: fill(path.read_text(encoding="utf-8"), body) if path.is_file() else None
        for path, body in blocks.items()
    }


def differing(expected: dict[Path, str | None]) -> dict[Path, str | None]:
    """Those of ``expected`` whose file differs from the text given (None: a missing file)."""
    return {path: text for path, text in expected.items()
            if text is None or not path.is_file() or path.read_text(encoding="utf-8") != text}


def write_changed(expected: dict[Path, str | None]) -> list[Path]:
    """Write each file of ``expected`` whose text differs (None: a file no one can make, left
    missing); return those written. Each is written whole: to a file of ours beside it, then
    renamed onto it, so a run killed meanwhile leaves the old text (stale, for the next run to
    refresh) and never half a file; what such a run left beside it is removed first."""
    from .guard import kill_point, remove_litter, temporary_file

    changed = []
    for path, text in expected.items():
        remove_litter(path.parent, path.name)
        if text is not None and (not path.is_file() or path.read_text(encoding="utf-8") != text):
            staged = temporary_file(path)
            try:
                staged.write_bytes(text.encode("utf-8"))
                kill_point("doc-staged")  # crash tests: killed with the new text beside the old
                os.replace(staged, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    staged.unlink()
                raise
            changed.append(path)
    return changed
