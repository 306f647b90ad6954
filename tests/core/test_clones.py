"""Git advice only where it works: ``git checkout`` named only for a path git tracks, ``git add``
only in a clone (issue 41: advice named `git checkout -- dist` for a release folder git does not
track, where it restores nothing)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from neurips_abstracts.core.clones import checkout_command, clone_of


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def test_checkout_is_advised_only_for_what_git_tracks(tmp_path, monkeypatch):
    root = tmp_path / "clone"
    (root / "dist").mkdir(parents=True)
    (root / "dist" / "a.txt").write_text("a")
    (root / "built").mkdir()
    (root / "built" / "b.txt").write_text("b")
    _git(root, "init", "-q")
    _git(root, "add", "dist")
    _git(root, "commit", "-qm", "dist only")
    monkeypatch.chdir(root)
    assert checkout_command(root / "dist") == "git checkout -- dist"
    (root / "dist" / "a.txt").unlink()  # deleted, still in the index: checkout restores it
    assert checkout_command(root / "dist" / "a.txt") == "git checkout -- dist/a.txt"
    assert checkout_command(root / "built") is None  # in the clone, but git holds nothing of it
    assert checkout_command(root / "gone") is None
    monkeypatch.chdir(tmp_path)
    assert checkout_command(root / "dist") == f"git -C {root.resolve()} checkout -- dist"
    outside = tmp_path / "outside"
    outside.mkdir()
    assert checkout_command(outside) is None and clone_of(outside) is None
    assert clone_of(root / "built" / "not-yet") == root.resolve()
