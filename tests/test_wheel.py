"""The package as a user installs it: the wheel, with no source tree behind it, runs every command."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, seed_files


@pytest.mark.slow
def test_wheel_installs_and_every_command_works_from_another_folder(releases, tmp_path):
    """`pip install` of the wheel (no source tree behind it): every command, run as
    `neurips-abstracts` or `python -m neurips_abstracts` from a folder holding raw/ and dist/,
    builds the same bytes as the checkout, checks, verifies, validates, adds, diffs (a version
    found in that folder's git history, with no tag) and stages a publish."""
    import sysconfig

    from neurips_abstracts.build import diff_dirs
    from neurips_abstracts.core.resources import dataset_version
    from neurips_abstracts.release.contents import missing_entry

    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", *wheels.glob("*.whl")],
                   check=True, capture_output=True)
    # The dependencies come from this environment's site-packages, added as a plain path: its .pth
    # files (the editable checkout among them) are not processed, so the package is the wheel's.
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(releases["raw"], elsewhere / "raw")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HF_TOKEN")}
    tool = str(venv / "bin" / "neurips-abstracts")

    def run(*args, module=False, extra_env=None):
        cmd = [str(python), "-m", "neurips_abstracts", *args] if module else [tool, *args]
        return subprocess.run(cmd, cwd=elsewhere, env={**env, **(extra_env or {})}, capture_output=True, text=True)

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", *args], cwd=elsewhere, check=True, capture_output=True)

    where = subprocess.run([str(python), "-c", "import neurips_abstracts; print(neurips_abstracts.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(venv)), where
    version = dataset_version()
    for module in (False, True):
        proc = run("--version", module=module)
        assert (proc.returncode, proc.stdout) == (0, f"neurips-abstracts {version}\n"), proc.stderr
    usage = run("frobnicate", module=True)
    assert usage.returncode == 2 and "No such command 'frobnicate'" in usage.stderr
    assert "Try 'python -m neurips_abstracts --help' for help." in usage.stderr
    assert "Did you mean 'build'?" in run("buidl").stderr
    assert "    neurips-abstracts check" in run("check", "--help").stdout
    assert "    python -m neurips_abstracts check" in run("check", "--help", module=True).stdout

    # The package's own CHANGELOG dates its releases: a folder holding only raw/ would give every
    # published paper a new id, so the default build refuses, naming it and no git command.
    proc = run()
    assert proc.returncode == 1 and "the package's CHANGELOG.md dates version" in proc.stderr, proc.stderr[-3000:]
    assert "git" not in proc.stderr and "--first-release" in proc.stderr and not (elsewhere / "dist").exists()
    proc = run("--first-release")  # build, the default command, starting the id history on purpose: raw/ -> dist/
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert diff_dirs(releases["dist"], elsewhere / "dist") == []
    proc = run("build", "--raw", "raw", "--out", "OUT", module=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert diff_dirs(releases["dist"], elsewhere / "OUT") == []

    check = run("check")
    assert check.returncode == 0, check.stderr[-3000:]
    assert check.stdout == "dist/ is up to date with raw/; no checkout of the project here (an installed package), " \
        "so the project's README.md, CONTRIBUTING.md and DATASHEET.md were not compared\n"
    no_docs = run("check", "--no-docs", module=True)
    assert no_docs.returncode == 0 and no_docs.stdout.startswith("dist/ is up to date with raw/; --no-docs:"), no_docs.stderr
    (elsewhere / "dist" / "DATASHEET.md").write_text("edited\n")
    stale = run("check")
    assert stale.returncode == 1 and "stale: dist/DATASHEET.md" in stale.stderr
    assert "run: neurips-abstracts build --raw raw --out dist" in stale.stderr
    shutil.copy(elsewhere / "OUT" / "DATASHEET.md", elsewhere / "dist" / "DATASHEET.md")

    proc = run("verify")
    assert proc.returncode == 0 and "frictionless validates datapackage.json" in proc.stdout, proc.stderr[-3000:]
    proc = run("validate")
    assert proc.returncode == 0 and proc.stderr.endswith("0 errors, 2 warnings\n"), proc.stderr  # no metadata files
    mine = elsewhere / "my_crawl.txt"
    mine.write_bytes((seed_files()[0]).read_bytes().replace(b"We ", b"They ", 1))
    proc = run("validate", "my_crawl.txt", module=True)
    assert proc.returncode == 0 and "file-name" not in proc.stdout, proc.stdout
    shutil.copytree(elsewhere / "raw", tmp_path / "raw2")
    shutil.copytree(elsewhere / "dist", tmp_path / "dist")  # the release beside it, that add compares with
    proc = run("add", "my_crawl.txt", "--raw", str(tmp_path / "raw2"), "--crawled-at", "2026-11-28")
    assert proc.returncode == 0 and "added " in proc.stdout, proc.stderr

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "release")
    for spec in (version, f"v{version}"):
        proc = run("diff", spec, "dist")
        assert proc.returncode == 0 and proc.stdout.startswith(f"## Dataset diff: `{spec} ("), proc.stderr[-3000:]
    proc = run("diff", "dist", "OUT", "--format", "json", module=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["added"] == []

    staged = tmp_path / "staged"
    proc = run("publish", "--dry-run", "--stage", str(staged), extra_env={"HF_TOKEN": "hf_dry_run_only"})
    undated = missing_entry((elsewhere / "dist" / "CHANGELOG.md").read_text(encoding="utf-8"), version, in_checkout=False)
    # between releases the package's CHANGELOG does not date its version yet: the one refusal,
    # naming no command that works only in a checkout
    assert undated is None or "--write-changelog" not in undated
    assert (proc.returncode, proc.stderr) == ((1, f"would refuse: {undated}\n") if undated else (0, "")), proc.stderr[-3000:]
    assert f"staged in {staged}/" in proc.stdout and diff_dirs(elsewhere / "dist", staged) == []
    proc = run("publish", "--dry-run", "--stage", str(staged), module=True)
    assert proc.returncode == 1 and "would refuse: no token" in proc.stderr
