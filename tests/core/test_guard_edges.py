"""Edges of the guard (core/guard.py) that the mutation run (benchmarks/mutation.py) changed
without a test failing: a release folder not yet holding a release, a symbolic link loop on the
way to a target, the temporary folders of the running process, and what remove_litter reports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from neurips_abstracts.core.guard import MARK, Refused, check_replaceable, remove_litter

from tests.helpers import copy_seeds, run_cli
from tests.helpers.guard import dead_pid, ours, tree


def test_a_folder_inside_the_release_beside_a_raw_folder_is_refused_before_it_holds_one(ws):
    """dist/ beside another raw folder, still empty (no manifest to recognise it by)."""
    raw = copy_seeds(ws / "second" / "raw")
    (ws / "second" / "dist").mkdir()
    with pytest.raises(Refused, match="inside the release .*: give a folder of its own"):
        check_replaceable(ws / "second" / "dist" / "staged", raw=[raw])


def test_a_target_behind_a_symbolic_link_loop_is_refused_without_a_traceback(ws):
    (ws / "loop").symlink_to(ws / "loop2")
    (ws / "loop2").symlink_to(ws / "loop")
    before = tree(ws)
    result = run_cli("build", "--raw", "raw", "--out", "loop/out", cwd=ws)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "loop/out" in result.stderr
    assert tree(ws) == before


def test_the_running_process_s_own_temporary_folders_are_never_litter(ws):
    mine = ws / f".dist.{MARK}-tmp-{os.getpid()}-abc123"
    mine.mkdir()
    assert remove_litter(ws, "dist") == []
    assert mine.is_dir()


def test_a_release_moved_back_is_not_reported_as_removed(ws):
    old = tree(ws / "dist")
    aside = ws / f".dist.{MARK}-old-{dead_pid()}-abc123"
    (ws / "dist").rename(aside)
    assert remove_litter(ws, "dist") == []
    assert tree(ws / "dist") == old and ours(ws) == []


def test_a_folder_that_cannot_be_listed_is_refused(ws, monkeypatch):
    """As root (these tests' user in CI) every folder can be listed: the failure is made here."""
    locked = ws / "locked"
    locked.mkdir()
    real_iterdir = Path.iterdir

    def iterdir(self):
        if self == locked.resolve():
            raise PermissionError(13, "Permission denied")
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    with pytest.raises(Refused, match=r"cannot list it \(Permission denied\)"):
        check_replaceable(locked, raw=[ws / "raw"])
