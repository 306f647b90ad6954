"""Where git advice holds: the one rule every message that names a git command follows.

A command may tell a user to ``git add`` only in a git clone (:func:`clone_of`), and to
``git checkout -- <path>`` only where git tracks that path (:func:`checkout_command`): a release
folder built outside the index (a test's dist/, an ignored folder, an unpacked sdist) is not
restored by it. Also the one way the package runs git (:func:`git`, :func:`git_text`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """``git -C repo args`` (bytes out); a failed run where git itself is missing."""
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return subprocess.CompletedProcess(args, 127, b"", str(exc).encode())


def git_text(repo: Path, *args: str) -> str:
    """What ``git`` prints, stripped; "" where it fails."""
    proc = git(repo, *args)
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def clone_of(*folders: str | Path | None) -> Path | None:
    """The git clone holding the first of ``folders`` that is in one (its nearest existing folder
    asked, so a folder not written yet counts), or None: outside any clone."""
    for folder in folders:
        if folder is None:
            continue
        p = Path(folder).absolute()
        existing = next((q for q in (p, *p.parents) if q.is_dir()), None)
        if existing is not None and (top := git_text(existing, "rev-parse", "--show-toplevel")):
            return Path(top)
    return None


def checkout_command(path: str | Path) -> str | None:
    """``git checkout`` of ``path`` as typed where the command runs (its path from the current
    folder inside the clone, else ``git -C <clone>`` and its path in the clone), or None where
    git does not track ``path`` (outside a clone, or a folder the index holds nothing of)."""
    p = Path(path).absolute()
    p = p.parent.resolve() / p.name
    clone = clone_of(p)
    if clone is None:
        return None
    top = clone.resolve()
    try:
        rel = p.relative_to(top).as_posix()
    except ValueError:
        return None
    if not git_text(top, "ls-files", "--", rel or "."):
        return None  # the index holds nothing of it: git checkout cannot restore it
    here = Path.cwd().resolve()
    if here == top or top in here.parents:
        return f"git checkout -- {Path(os.path.relpath(p, here)).as_posix()}"
    return f"git -C {top} checkout -- {rel}"
