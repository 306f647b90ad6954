"""Ctrl-C, SIGTERM and kills: a build of a checkout leaves its dist/ and the docs made from it
all old (non-zero exit) or all new (exit 0), wherever it is stopped. (One writer at a time:
test_lock.py.)"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import HEADER, ROOT, project_copy, snapshot, synthetic_dumps

posix = pytest.mark.skipif(os.name == "nt", reason="signals to a process group are POSIX's")
DOCS = ("README.md", "CONTRIBUTING.md", "DATASHEET.md")  # docs.GENERATED_DOCS


def project_with_dumps(tmp_path: Path, papers: int = 240) -> Path:
    """A checkout of the project (its code, and docs a build regenerates) with dumps of its own."""
    project = project_copy(tmp_path / "project")
    synthetic_dumps(project / "raw", papers=papers)
    return project


def command(project: Path, *args: str) -> list[str]:
    return [sys.executable, str(project / "build_dataset.py"), *args]


def state(project: Path) -> dict[str, bytes]:
    """dist/ and the generated docs, and every file of ours left beside them (litter)."""
    files = {f"dist/{k}": v for k, v in snapshot(project / "dist").items()} if (project / "dist").is_dir() else {}
    files |= {d: (project / d).read_bytes() for d in DOCS if (project / d).is_file()}
    files |= {p.name: b"" for p in project.iterdir() if "neurips-abstracts" in p.name}
    return files


def restore(project: Path, files: dict[str, bytes]) -> None:
    shutil.rmtree(project / "dist", ignore_errors=True)
    for rel, data in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_bytes(data)


@pytest.fixture(scope="module")
def old_and_new(tmp_path_factory):
    """A checkout built once (old), a dump added, and what its next build makes (new)."""
    project = project_with_dumps(tmp_path_factory.mktemp("interrupts"))
    subprocess.run(command(project, "build", "--first-release"), cwd=project, check=True, capture_output=True)
    old = state(project)
    body = "\n\n".join(f"A new paper {k} on sparse attention with a bound that holds for every graph." for k in range(9))
    (project / "raw" / "004_00000000000000ff.txt").write_bytes(f"{HEADER}\n\n{body}\n".encode())
    subprocess.run(command(project, "build"), cwd=project, check=True, capture_output=True)
    new = state(project)
    assert old != new and all(old[d] != new[d] for d in ("README.md", "DATASHEET.md"))  # the docs change too
    return project, old, new


@posix
@pytest.mark.parametrize("point,sig,finished", [
    ("started", "SIGINT", False), ("filling", "SIGINT", False), ("filled", "SIGTERM", False),
    ("moved-aside", "SIGINT", True), ("moved-aside", "SIGTERM", True), ("swapped", "SIGINT", True),
    ("exiting", "SIGINT", True), ("exiting", "SIGTERM", True),
])
def test_a_signal_at_each_step_leaves_all_old_or_all_new(old_and_new, point, sig, finished):
    """Before the commit, a signal stops the build: dist/ and the docs as they were, exit 1. Inside
    it (between the renames) or after, the build finishes: all new, exit 0, and it says so."""
    project, old, new = old_and_new
    restore(project, old)
    proc = subprocess.run(command(project, "build"), cwd=project, capture_output=True, text=True,
                          env={**os.environ, "NEURIPS_ABSTRACTS_KILL_AT": point, "NEURIPS_ABSTRACTS_KILL_WITH": sig})
    assert "Traceback" not in proc.stderr
    if finished:
        assert proc.returncode == 0, proc.stderr
        assert state(project) == new
        assert f"{sig} came after the release was complete" in proc.stderr or point == "exiting"
        assert point == "exiting" or proc.stderr.strip().splitlines()[-1].startswith("interrupted: dist/ is the new release")
    else:
        assert proc.returncode != 0 and state(project) == old, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == "interrupted: dist/ unchanged", proc.stderr  # not "Aborted!"


@posix
@pytest.mark.parametrize("point", ["refreshing", "doc-staged"])
def test_killed_between_the_swap_and_the_docs_leaves_whole_stale_docs_the_next_build_fixes(old_and_new, point):
    """The swap covers dist/ alone; the docs are refreshed after it, each file whole. Killed
    there (before any doc is written, or with a doc's new text beside its old one), dist/ is new
    and every doc is whole and old (never half a file); `check` names them stale with the command
    that fixes them, and the next build refreshes them and removes what the killed one left."""
    project, old, new = old_and_new
    restore(project, old)
    proc = subprocess.run(command(project, "build"), cwd=project, capture_output=True, text=True,
                          env={**os.environ, "NEURIPS_ABSTRACTS_KILL_AT": point, "NEURIPS_ABSTRACTS_KILL_WITH": "SIGKILL"})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    now = state(project)
    assert {k: v for k, v in now.items() if k.startswith("dist/")} == {k: v for k, v in new.items() if k.startswith("dist/")}
    assert all(now[d] == old[d] for d in DOCS)  # whole, and old
    litter = [k for k in now if "neurips-abstracts" in k]
    assert bool(litter) == (point == "doc-staged"), litter
    checked = subprocess.run(command(project, "check"), cwd=project, capture_output=True, text=True)
    assert checked.returncode == 1 and "stale: README.md" in checked.stderr, checked.stderr
    assert "run: " in checked.stderr and " build" in checked.stderr.splitlines()[-1], checked.stderr
    subprocess.run(command(project, "build"), cwd=project, check=True, capture_output=True)
    assert state(project) == new


_SIGNAL_AT_LINE = """
import inspect, json, os, signal, sys
from pathlib import Path
from neurips_abstracts.core import interrupts
from neurips_abstracts.core.guard import replace_dir

line = int(sys.argv[1])
out = Path(sys.argv[2]) / "dist"
fired = []

def fill(tmp):
    (tmp / "build_manifest.json").write_text("{}")

def tracer(frame, event, arg):
    if frame.f_code.co_filename == interrupts.__file__ and event == "line" and frame.f_lineno == line and not fired:
        fired.append(1)
        os.kill(os.getpid(), signal.SIGINT)
    return tracer

status = "finished"
try:
    with interrupts.handled():
        sys.settrace(tracer)
        try:
            replace_dir(out, fill)
        finally:
            sys.settrace(None)
except KeyboardInterrupt:
    status = "stopped"
print(json.dumps([bool(fired), status, out.exists()]))
"""


@posix
def test_a_signal_on_any_line_of_the_commits_bookkeeping_gives_old_and_stopped_or_new_and_finished(tmp_path):
    """SIGINT sent on each line of ``uninterrupted`` in turn, around a real swap: the outcome is
    the new release and a finished command, or the old one (none here) and a stopped one."""
    import inspect

    from neurips_abstracts.core import interrupts

    lines, start = inspect.getsourcelines(interrupts.uninterrupted)
    reached = 0
    for line in range(start, start + len(lines)):
        where = tmp_path / str(line)  # the test's own folder: nothing is left in the system's
        where.mkdir()
        proc = subprocess.run([sys.executable, "-c", _SIGNAL_AT_LINE, str(line), str(where)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        fired, status, new = json.loads(proc.stdout.strip().splitlines()[-1])
        reached += fired
        assert (status, new) in (("finished", True), ("stopped", False)), (line, status, new, proc.stderr)
    assert reached >= 10  # the lines the swap runs through were each hit


def test_a_hold_inside_a_hold_is_refused_and_the_outer_one_still_holds():
    """Holds do not nest (a signal held by an inner one was dropped): one attempted is refused
    with a clear error, and the outer hold still delivers its held signal after its block."""
    from neurips_abstracts.core.interrupts import uninterrupted

    got = []
    saved = signal.signal(signal.SIGINT, lambda s, f: got.append(s))
    try:
        with uninterrupted(final=False):
            with pytest.raises(RuntimeError, match="holds do not nest"):
                with uninterrupted(final=False):
                    pass  # never reached
            signal.raise_signal(signal.SIGINT)
            assert got == []  # held while the outer block runs
        assert got == [signal.SIGINT]  # delivered once it is done
    finally:
        signal.signal(signal.SIGINT, saved)


# Runs build_dataset.py as Python would, but the import named by argv[1] raises KeyboardInterrupt,
# as Ctrl-C would while it runs (before any command starts).
_INTERRUPTED_IMPORT = """
import runpy, sys

module = sys.argv[1]

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == module:
            raise KeyboardInterrupt

sys.meta_path.insert(0, Interrupt())
script = sys.argv[2]
sys.argv = [script, "build"]
if script == "-m":
    runpy.run_module("neurips_abstracts", run_name="__main__", alter_sys=True)
elif script == "neurips-abstracts":  # as the wrapper pip writes for the console script: import its target, call it
    import importlib, tomllib
    with open("pyproject.toml", "rb") as f:
        target = tomllib.load(f)["project"]["scripts"][script]
    target_module, _, attr = target.partition(":")
    sys.exit(getattr(importlib.import_module(target_module), attr)())
else:
    runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize("entry", ["build_dataset.py", "-m", "neurips-abstracts"])
@pytest.mark.parametrize("module", ["neurips_abstracts.cli", "click"])
def test_ctrl_c_while_the_package_loads_gives_the_one_line_and_no_traceback(tmp_path, module, entry):
    """Ctrl-C before the command starts (the package still loading) says what any command stopped
    before it wrote says, with its status, and shows no traceback (once, it showed 9 to 18 lines)."""
    project = project_copy(tmp_path / "project")
    before = snapshot(project)
    script = str(project / entry) if entry.endswith(".py") else entry  # the script, -m, or the console script
    proc = subprocess.run([sys.executable, "-c", _INTERRUPTED_IMPORT, module, script],
                          cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(project / "src")})
    assert (proc.returncode, proc.stderr) == (1, "interrupted: nothing was changed\n"), proc.stderr
    assert snapshot(project) == before
