"""The command line as a user meets it: unknown commands, help, version, what messages claim."""

import shutil

import pytest

from neurips_abstracts.core.resources import dataset_version

from tests.helpers import copy_seeds, run_cli, run_process


@pytest.mark.parametrize("word, hint", [
    ("buidl", "Did you mean 'build'?"),
    ("verfy", "Did you mean 'verify'?"),
    ("help", "Did you mean 'python build_dataset.py --help'?"),
    ("frobnicate", "Commands: add, build, check, diff, publish, validate, verify."),
])
def test_an_unknown_command_is_named_with_the_nearest_one(word, hint, tmp_path):
    proc = run_cli(word, "--raw", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2 and f"No such command '{word}'. {hint}" in proc.stderr, proc.stderr
    assert "unexpected extra argument" not in proc.stderr and not list(tmp_path.iterdir())


def test_build_is_the_command_only_when_none_is_named(tmp_path):
    raw = copy_seeds(tmp_path / "raw")
    proc = run_cli("--raw", str(raw), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 0 and (tmp_path / "out" / "build_manifest.json").is_file(), proc.stderr
    assert run_cli("--help").stdout.startswith("Usage: python build_dataset.py [OPTIONS] COMMAND")


def test_version_and_help_examples_as_invoked():
    proc = run_cli("--version")
    assert (proc.returncode, proc.stdout) == (0, f"neurips-abstracts {dataset_version()}\n")
    text = run_cli("diff", "--help").stdout
    assert "Usage: python build_dataset.py diff" in text and "    python build_dataset.py diff 1.0.0 dist" in text


def test_check_says_only_what_it_checked(tmp_path):
    raw = copy_seeds(tmp_path / "raw")
    assert run_cli("build", "--raw", str(raw), "--out", str(tmp_path / "dist"), cwd=tmp_path).returncode == 0
    args = ("check", "--raw", str(raw), "--dist", str(tmp_path / "dist"))
    other = run_cli(*args, cwd=tmp_path)
    assert other.returncode == 0, other.stderr
    assert "is not the dist/ of the checkout" in other.stdout and "README.md, CONTRIBUTING.md and DATASHEET.md were not compared" in other.stdout
    no_docs = run_cli(*args, "--no-docs", cwd=tmp_path)
    assert no_docs.returncode == 0 and "--no-docs: the project's README.md, CONTRIBUTING.md and DATASHEET.md were not compared" in no_docs.stdout
    assert "generated docs are up to date" not in other.stdout + no_docs.stdout
    shutil.rmtree(tmp_path / "dist" / "data")
    stale = run_cli(*args, cwd=tmp_path)
    assert stale.returncode == 1 and f"run: python build_dataset.py build --raw {raw} --out {tmp_path / 'dist'}" in stale.stderr
    (tmp_path / "afile").write_text("x")
    afile = run_cli("check", "--raw", str(raw), "--dist", str(tmp_path / "afile"), cwd=tmp_path)
    assert afile.returncode == 1 and afile.stderr == f"{tmp_path / 'afile'}: error: not a folder: give the dist/ folder to compare\n"


def test_counts_agree_in_number(tmp_path):
    from tests.helpers import HEADER

    one = tmp_path / "one.txt"
    one.write_bytes(HEADER.encode() + b"\n\nWe study things.\n\n\x07")
    proc = run_cli("validate", str(one), "--raw", str(tmp_path / "none"), cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.strip() == "1 error, 1 warning", proc.stdout + proc.stderr


def test_messages_name_the_command_as_invoked(tmp_path):
    """A message that tells the user what to run (here validate's warning for a dump without a
    metadata file) writes the command the way the user typed it."""
    import os
    import subprocess
    import sys

    from neurips_abstracts.build import build

    from tests.helpers import ROOT, make_dump

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "000_0123456789abcdef.txt").write_bytes(make_dump(["An abstract about sparse attention for long genomes."]))
    # its release beside it: the package run in a process of its own is this checkout, whose
    # record has published, so without one validate (as build) refuses the missing release first
    build(raw, tmp_path / "dist", previous=None)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    module = subprocess.run([sys.executable, "-m", "neurips_abstracts", "validate", "--raw", str(raw)],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert "`python -m neurips_abstracts add`" in module.stdout and "build_dataset.py" not in module.stdout, module.stdout
    script = run_cli("validate", "--raw", str(raw), cwd=tmp_path)
    assert "`python build_dataset.py add`" in script.stdout, script.stdout


@pytest.mark.parametrize("args", [
    ("--version",),
    ("validate",),
    ("verify", "dist"),
    ("publish", "--dry-run", "--stage", "staged"),
    ("diff", "nope", "dist"),
    ("biuld",),
], ids=" ".join)
def test_in_process_runs_show_what_a_user_sees(args, seeds_dist, tmp_path, package_record):
    """run_cli, which most tests use, against a new process on the same command: the same exit
    status, stdout and stderr. A library that writes to stderr by warnings or logging (which the
    test process captures) would show here as a difference."""
    copy_seeds(tmp_path / "raw")
    shutil.copytree(seeds_dist, tmp_path / "dist")
    env = {"HF_TOKEN": ""}
    inside, outside = run_cli(*args, cwd=tmp_path, env=env), run_process(*args, cwd=tmp_path, env=env)
    shutil.rmtree(tmp_path / "staged", ignore_errors=True)
    assert (inside.returncode, inside.stdout, inside.stderr) == (outside.returncode, outside.stdout, outside.stderr)
