import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from neurips_abstracts.cli import main

from tests.helpers import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_there_are_pull_request_and_release_workflows():
    triggers = {}
    for wf in WORKFLOWS:
        data = yaml.safe_load(wf.read_text())
        triggers[wf.name] = data.get("on", data.get(True))
    assert any("pull_request" in t for t in triggers.values())
    assert any("push" in t and "tags" in t["push"] for t in triggers.values() if isinstance(t, dict))


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_the_github_schema(workflow):
    cli = Path(sys.executable).with_name("check-jsonschema")
    proc = subprocess.run([str(cli), "--builtin-schema", "vendor.github-workflows", str(workflow)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_schema_check_catches_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-onn: ubuntu-latest\n    steps: 3\n")
    cli = Path(sys.executable).with_name("check-jsonschema")
    assert subprocess.run([str(cli), "--builtin-schema", "vendor.github-workflows", str(bad)], capture_output=True).returncode != 0


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_run_only_commands_that_exist(workflow):
    steps = [s for job in yaml.safe_load(workflow.read_text())["jobs"].values() for s in job["steps"]]
    runs = [line for s in steps if "run" in s for line in s["run"].splitlines()]
    used = 0
    for line in runs:
        for m in re.finditer(r"python build_dataset\.py ([\w-]+)((?: [^|>&;]+)?)", line):
            command = main.commands.get(m.group(1))
            assert command is not None, f"{workflow.name}: no command {m.group(1)!r}"
            options = {o for p in command.params for o in getattr(p, "opts", [])}
            for word in shlex.split(m.group(2)):
                if word.startswith("--"):
                    assert word in options, f"{workflow.name}: {m.group(1)} has no option {word}"
            used += 1
        if line.startswith("python -m pip install"):
            m = re.search(r"-e (?:\.(?:\s|$)|'\.\[([\w,-]+)\]')", line)
            extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
            assert m and (m.group(1) is None or set(m.group(1).split(",")) <= set(extras)), line
    assert used >= 1
    pytest_lines = [r for r in runs if "pytest" in r]
    for r in pytest_lines:
        if workflow.name == "scheduled.yml":  # the suites left out of CI's runs, by their marks
            assert re.fullmatch(r"(?:[A-Z_]+=\S+ )?python -m pytest -m (?:slow|bench|corpus)(?: tests/\S+\.py)?", r.strip()), r
        else:
            assert r.strip() == "python -m pytest"
