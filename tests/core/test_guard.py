"""The one guard of folders we write: what it refuses, and that a swap leaves the target whole
(old or new) and no litter, whether it fails or the process is killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from neurips_abstracts.build import build
from neurips_abstracts.core import guard
from neurips_abstracts.core.guard import MARK, Refused, check_raw_target, check_replaceable, remove_litter, replace_dir

from tests.helpers import ROOT, SEED_DIR, copy_seeds, run_cli, run_process
from tests.helpers.guard import dead_pid, ours, tree


def refusal_cases(ws: Path) -> dict[str, tuple[Path, str]]:
    (ws / "notes").mkdir()
    (ws / "notes" / "todo.md").write_text("mine")
    (ws / "dumps").mkdir()
    (ws / "dumps" / "draft.txt").write_text("a dump under another name")
    (ws / "project").mkdir()
    (ws / "project" / "pyproject.toml").write_text("[project]\n")
    (ws / "link").symlink_to(ws / "dist")
    (ws / "loop").symlink_to(ws / "loop")
    (ws / "a-file").write_text("x")
    (ws / "posing" / "src").mkdir(parents=True)  # a manifest is not enough to make a folder a release
    (ws / "posing" / "build_manifest.json").write_text("{}")
    (ws / "posing" / "src" / "thesis.tex").write_text("mine")
    shutil.copytree(ws / "dist", ws / "old-release")  # a release with someone's file added to it
    (ws / "old-release" / "notes.md").write_text("mine")
    return {
        "raw/": (ws / "raw", "raw folder"),
        "inside raw/": (ws / "raw" / "out", "inside the raw folder"),
        "inside dist/": (ws / "dist" / "staged", "inside the release"),
        "current folder": (Path("."), "current folder"),
        "ancestor of raw/ and dist/": (ws.parent, "holds the current folder"),
        "repository root": (ws / "project", "repository root"),
        "the checkout": (ROOT, "repository root"),
        "symbolic link": (ws / "link", "symbolic link"),
        "symbolic link loop": (ws / "loop", "symbolic link"),
        "folder of other files": (ws / "notes", "holds no release"),
        "folder holding a dump": (ws / "dumps", "holds dumps (draft.txt)"),
        "a file": (ws / "a-file", "is a file"),
        "a manifest beside other files": (ws / "posing", "not a file of the release"),
        "a release with another file": (ws / "old-release", "holds notes.md, which is not a file of the release"),
        "below a file": (ws / "a-file" / "out", "is a file"),
    }


def test_guard_refuses_every_folder_it_must_not_replace(ws):
    cases = refusal_cases(ws)
    before = tree(ws)
    for case, (target, reason) in cases.items():
        with pytest.raises(Refused) as info:
            check_replaceable(target, raw=[ws / "raw"])
        line = str(info.value)
        assert "\n" not in line and line.startswith(f"{target}: error: refused: ") and reason in line, (case, line)
        with pytest.raises(Refused):  # the swap asks the same guard before it writes anything
            replace_dir(target, lambda tmp: (tmp / "x").write_text("x"), raw=[ws / "raw"])
    assert tree(ws) == before


def test_guard_allows_new_empty_and_release_folders(ws):
    (ws / "empty").mkdir()
    for ok in (ws / "dist", ws / "new", ws / "empty", ws / "deep" / "new"):
        assert check_replaceable(ok, raw=[ws / "raw"]) == ok.resolve()
    # a release read but not written (publish's dist/) is kept whole
    with pytest.raises(Refused, match="is the input"):
        check_replaceable(ws / "dist", raw=[ws / "raw"], keep=[ws / "dist"])


def test_add_target_must_be_a_raw_folder(ws):
    (ws / "project").mkdir()
    (ws / "project" / "pyproject.toml").write_text("[project]\n")
    (ws / "link").symlink_to(ws / "raw")
    for bad, reason in [(ws / "dist", "build_manifest.json"), (ws / "dist" / "data", "inside the release"),
                        (ws / "project", "pyproject.toml"), (Path("."), "current folder"), (ws / "link", "symbolic link"),
                        (ws / "missing", "no such folder"), (ws / "raw" / "000_400c640f3220c26d.txt", "is a file")]:
        with pytest.raises(Refused, match=reason):
            check_raw_target(bad)
    assert check_raw_target(ws / "raw") == (ws / "raw").resolve()


def test_cli_refusals_are_one_line_and_change_nothing(ws):
    refusal_cases(ws)
    before = tree(ws)
    runs = [
        ("build", "--raw", "raw", "--out", "raw"),
        ("build", "--raw", "raw", "--out", "."),
        ("build", "--raw", "raw", "--out", "link"),
        ("build", "--raw", "raw", "--out", "dist/staged"),
        ("publish", "--dry-run", "--stage", "dist/staged", "--raw", "raw", "--dist", "dist"),
        ("publish", "--dry-run", "--stage", "link", "--raw", "raw", "--dist", "dist"),
        ("add", str(SEED_DIR / "000_400c640f3220c26d.txt"), "--raw", "dist"),
    ]
    for args in runs:
        proc = run_cli(*args, cwd=ws)
        lines = proc.stderr.splitlines()
        assert proc.returncode == 1 and len(lines) == 1 and "refused" in lines[0], (args, proc.stderr)
        assert "Traceback" not in proc.stderr + proc.stdout
    assert tree(ws) == before


def test_failed_rename_restores_the_target_and_removes_the_temporary_folder(ws, monkeypatch):
    before = tree(ws / "dist")
    real_rename = Path.rename

    def rename(self, target):
        if MARK in self.name and "-tmp-" in self.name:  # the new release moving into place
            raise OSError(16, "Device or resource busy", str(target))
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError):
        replace_dir(ws / "dist", lambda tmp: (tmp / "build_manifest.json").write_text("{}"), raw=[ws / "raw"])
    assert tree(ws / "dist") == before
    assert ours(ws) == []


def test_failed_fill_leaves_no_temporary_folder(ws):
    before = tree(ws)

    def fill(tmp):
        (tmp / "half").write_text("written")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        replace_dir(ws / "dist", fill, raw=[ws / "raw"])
    assert tree(ws) == before


def test_failed_fill_removes_the_folders_made_for_the_target_and_only_those(ws):
    """A build now fills its folder from its first stage on: one refused there (bad input) must
    leave no folder behind, not even the parents made for a new ``--out``."""
    (ws / "new").mkdir()
    (ws / "new" / "keep").write_text("someone's")
    before = tree(ws)

    def fill(tmp):
        raise RuntimeError("bad dump")

    for out in (ws / "made" / "deep" / "dist", ws / "new" / "deep" / "dist"):
        with pytest.raises(RuntimeError):
            replace_dir(out, fill, raw=[ws / "raw"])
        assert tree(ws) == before  # made/ gone; new/ (not made by us) stays, with what it held


def test_litter_of_ended_runs_is_removed_and_only_that(ws):
    gone, alive = dead_pid(), os.getppid()
    stale = [ws / f".dist.{MARK}-tmp-{gone}-abc123", ws / f".dist.{MARK}-old-{gone}-def456"]
    running = ws / f".dist.{MARK}-tmp-{alive}-ghi789"  # another build, still writing
    other_target = ws / f".out.{MARK}-tmp-{gone}-jkl012"
    not_ours = [ws / ".dist.tmp-abc", ws / f".dist.{MARK}-tmp-notapid-x", ws / "dist.neurips-abstracts-tmp"]
    for p in [*stale, running, other_target, *not_ours]:
        p.mkdir()
        (p / "f").write_text("x")
    removed = remove_litter(ws, "dist")
    assert sorted(removed) == sorted(stale)
    assert all(p.exists() for p in [running, other_target, *not_ours])
    assert (ws / "dist" / "build_manifest.json").is_file()


def test_release_moved_aside_by_a_killed_swap_is_moved_back(ws):
    old = tree(ws / "dist")
    aside = ws / f".dist.{MARK}-old-{dead_pid()}-abc123"
    (ws / "dist").rename(aside)
    remove_litter(ws, "dist")
    assert tree(ws / "dist") == old and ours(ws) == []


def test_build_first_moves_back_the_release_it_reads(ws):
    """The release beside raw/ is the registry of ids: a build finding it moved aside by a killed
    build reads it back before anything else, even when it then fails on its input."""
    from neurips_abstracts.core.errors import DumpError

    old = tree(ws / "dist")
    (ws / "dist").rename(ws / f".dist.{MARK}-old-{dead_pid()}-abc123")
    (ws / "raw" / "010_aaaaaaaaaaaaaaaa.txt").write_bytes(b"no header")
    with pytest.raises(DumpError):
        build(ws / "raw", ws / "elsewhere")
    assert tree(ws / "dist") == old and ours(ws) == []


def test_temporary_folders_of_killed_checks_are_removed(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / f"{MARK}-tmp-{dead_pid()}-abc123"
    stale.mkdir()
    mine = None
    with guard.temporary_folder() as tmp:
        mine = tmp
        assert not stale.exists() and tmp.is_dir() and MARK in tmp.name
    assert not mine.exists()


KILL_POINTS = ["filling", "filled", "moved-aside", "swapped"]
posix_kill = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX; Windows has no such signal")


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """raw/ with one seed dump and its release (old), and the release of both seeds (new)."""
    base = tmp_path_factory.mktemp("kill")
    full = copy_seeds(base / "full")
    one = base / "one"
    one.mkdir()
    first = sorted(full.glob("*.txt"))[0]
    for f in (first, first.with_suffix(".json")):
        (one / f.name).write_bytes(f.read_bytes())
    build(one, base / "old", previous=None)
    build(full, base / "new", previous=base / "old")
    return full, tree(base / "old"), tree(base / "new"), base / "old"


def killed_workspace(tmp_path, releases) -> Path:
    import shutil

    full, _old, _new, old_dir = releases
    shutil.copytree(full, tmp_path / "raw")
    shutil.copytree(old_dir, tmp_path / "dist")
    return tmp_path


def assert_old_or_new_after_recovery(ws: Path, releases) -> None:
    """What a killed build leaves is the old release or the new one; a release it had moved
    aside is moved back by the next run's clean-up; the next build removes all litter."""
    _full, old, new, _ = releases
    if (ws / "dist").exists():
        assert tree(ws / "dist") in (old, new)
    else:  # killed between its two renames: the old release is whole, beside it
        (aside,) = [ws / name for name in ours(ws) if "-old-" in name]
        assert tree(aside) == old
    assert tree(ws / "raw") == tree(releases[0])
    build(ws / "raw", ws / "dist")  # the next build: it keeps the ids of the release moved back
    assert ours(ws) == [] and tree(ws / "dist") == new


@posix_kill
@pytest.mark.parametrize("point", KILL_POINTS)
def test_build_killed_at_each_step_leaves_old_or_new(tmp_path, releases, point):
    ws = killed_workspace(tmp_path, releases)
    proc = run_process("build", "--raw", str(ws / "raw"), "--out", str(ws / "dist"), env={"NEURIPS_ABSTRACTS_KILL_AT": point})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    if point in ("filling", "filled", "moved-aside"):
        assert ours(ws), "a killed swap leaves litter for the next run"
    expected = {"filling": 1, "filled": 1, "moved-aside": None, "swapped": 2}[point]
    if expected is not None:
        assert tree(ws / "dist") == releases[expected]
    assert_old_or_new_after_recovery(ws, releases)


@posix_kill
@pytest.mark.slow  # where the kill lands depends on the machine's speed: a probabilistic test
@pytest.mark.parametrize("delay", [0.5, 1.5, 3.0])
def test_build_killed_at_a_time_leaves_old_or_new(tmp_path, releases, delay):
    """Kills land wherever the build is after ``delay`` seconds (start-up, reading, writing or
    after it ended): whatever the point, the invariant holds. Each step a kill can land on is
    killed for certain by test_build_killed_at_each_step_leaves_old_or_new."""
    ws = killed_workspace(tmp_path, releases)
    proc = subprocess.Popen([sys.executable, str(ROOT / "build_dataset.py"), "build", "--raw", str(ws / "raw"),
                             "--out", str(ws / "dist")], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert_old_or_new_after_recovery(ws, releases)


_LIVE_ELSEWHERE = """
import os, sys, tempfile
tempfile.tempdir = sys.argv[1]
os.getpid = lambda: int(sys.argv[2])  # its id as another PID namespace sees it: no process there
from neurips_abstracts.core import guard
with guard.temporary_folder() as tmp:
    print(tmp, flush=True)
    sys.stdin.readline()
    print(tmp.is_dir(), flush=True)
"""


def test_a_live_run_s_temporary_folder_is_not_litter_where_its_process_id_means_nothing(tmp_path):
    """The cause of a check's folder deleted under it: litter removal judged a folder by the process
    id in its name, which in a /tmp shared across PID namespaces names no process, or another one.
    A run's own lock on its folder decides now."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _LIVE_ELSEWHERE, str(tmp_path), str(dead_pid())],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        live = Path(proc.stdout.readline().strip())
        assert live.is_dir()
        assert remove_litter(tmp_path) == [] and live.is_dir()  # another run's litter removal
        out, _ = proc.communicate("\n", timeout=60)
        assert out.strip() == "True" and proc.returncode == 0
    finally:
        proc.kill()
    assert not live.exists()
