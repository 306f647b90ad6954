"""The project's docs made from a release (release/docs.py): the README's pinned load block, and
`check` naming a stale or missing generated doc and the command that fixes it."""

import json
import shutil
import subprocess
import sys
import threading

from neurips_abstracts.release.docs import refresh, stale

from tests.helpers import ROOT, SEED_DIR, project_copy, seed_counts


def test_readme_pin_block_names_the_configured_repository(seeds_dist):
    from neurips_abstracts.core.resources import hub_repo
    from neurips_abstracts.release.docs import pinned_load_block

    manifest = json.loads((seeds_dist / "build_manifest.json").read_text())
    tag = f"v{manifest['dataset_version']}"
    block = pinned_load_block(manifest)
    assert f'load_dataset("{hub_repo()}", revision="{tag}", split="train")' in block
    assert f"hf://datasets/{hub_repo()}@{tag}/data/" in block and "OWNER/NAME" not in block
    assert 'load_dataset("alice/x", revision=' in pinned_load_block(manifest, "alice/x")
    # The build between releases names the next version; the README pins the last one released.
    dated = "# Changelog\n\n## 9.0.0\n\n- next\n\n## 8.1.0 (2026-11-30)\n\n- x\n\n## 8.0.0 (2026-11-29)\n"
    assert '@v8.1.0/data/' in pinned_load_block({"dataset_version": "9.0.0"}, "alice/x", changelog=dated)


def test_check_flags_stale_docs(tmp_path, seeds_dist):
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(ROOT / "README.md", root / "README.md")
    shutil.copy(ROOT / "CONTRIBUTING.md", root / "CONTRIBUTING.md")
    shutil.copytree(ROOT / "benchmarks" / "results", root / "benchmarks" / "results")
    shutil.copy(ROOT / "benchmarks" / "README.md", root / "benchmarks" / "README.md")
    refresh(seeds_dist, root)  # what `build` does to the project's docs
    assert stale(seeds_dist, root) == []
    readme, n = (root / "README.md").read_text(), seed_counts()["papers"]
    (root / "README.md").write_text(readme.replace(f"**{n} papers**", f"**{n - 1} papers**"))
    (root / "DATASHEET.md").write_text("old")
    assert stale(seeds_dist, root) == ["DATASHEET.md", "README.md"]
    refresh(seeds_dist, root)
    # The benchmarks' docs are theirs (python -m benchmarks.docs): new results, a hand-edited
    # headline or table, even a missing benchmarks/README.md, are nothing to a build.
    results = root / "benchmarks" / "results" / "startup.json"
    startup = json.loads(results.read_text())
    results.write_text(json.dumps(startup | {"median_seconds": startup["median_seconds"] + 1}))
    readme = (root / "README.md").read_text()
    (root / "README.md").write_text(readme.replace("| benchmark | headline | rerun |", "| benchmark | figure | rerun |"))
    edited = {p: p.read_bytes() for p in (root / "README.md", root / "benchmarks" / "README.md")}
    assert stale(seeds_dist, root) == [] and refresh(seeds_dist, root) == []
    assert {p: p.read_bytes() for p in edited} == edited
    (root / "benchmarks" / "README.md").unlink()
    assert stale(seeds_dist, root) == []
    (root / "CONTRIBUTING.md").unlink()
    assert stale(seeds_dist, root) == ["CONTRIBUTING.md"]  # missing is stale, and refresh cannot invent it
    assert refresh(seeds_dist, root) == [] and not (root / "CONTRIBUTING.md").exists()


CHECKOUT_CLI = """
import json, sys, traceback
sys.path.insert(0, sys.argv[1])
from click.testing import CliRunner
import neurips_abstracts
from neurips_abstracts.cli import main
print(json.dumps(neurips_abstracts.__file__), flush=True)
for line in sys.stdin:
    result = CliRunner().invoke(main, json.loads(line), prog_name="python build_dataset.py")
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    print(json.dumps([result.exit_code, result.stdout, stderr]), flush=True)
"""


def test_check_names_a_stale_readme_and_the_command_that_fixes_it(tmp_path):
    """`check` in a checkout (a copy of this one, built from the seeds) fails on a hand-edited
    block of README.md that the build makes, names it and the command; that command makes `check`
    pass. A deleted CONTRIBUTING.md is named as missing, with the way to restore it. The
    benchmarks' docs are not the build's: edited, `check` passes and `build` leaves them."""
    project = project_copy(tmp_path / "project", SEED_DIR)

    # One new process runs the copy's CLI (its src/ first on the path, as its build_dataset.py
    # puts it) for each command in turn, as run_cli does in this process.
    driver = subprocess.Popen([sys.executable, "-c", CHECKOUT_CLI, str(project / "src")], cwd=project, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    # a command that hangs ends the driver, so the test fails instead of waiting forever
    watchdog = threading.Timer(600, driver.kill)
    watchdog.daemon = True  # a failed assertion must not keep pytest waiting for it
    watchdog.start()
    assert json.loads(driver.stdout.readline()) == str(project / "src" / "neurips_abstracts" / "__init__.py")

    def run(*args):
        driver.stdin.write(json.dumps(args) + "\n")
        driver.stdin.flush()
        return subprocess.CompletedProcess(args, *json.loads(driver.stdout.readline()))

    built = run("build", "--first-release")
    assert built.returncode == 0, built.stderr[-3000:]
    assert run("check").returncode == 0
    # The benchmarks' docs, edited by hand and against new results: neither check nor build minds.
    table, readme = project / "benchmarks" / "README.md", project / "README.md"
    assert "| read |" in table.read_text()  # the scale table is there to edit
    table.write_text(table.read_text().replace("| read |", "| reading |", 1))
    readme.write_text(readme.read_text().replace("| benchmark | headline | rerun |", "| benchmark | figure | rerun |"))
    results = project / "benchmarks" / "results" / "startup.json"
    results.write_text(json.dumps(json.loads(results.read_text()) | {"median_seconds": 1234.5}))
    edited = {p: p.read_bytes() for p in (table, readme)}
    assert run("check").returncode == 0
    assert run("build").returncode == 0 and {p: p.read_bytes() for p in edited} == edited
    # A block the build makes, edited: check names the file and the command, which fixes it.
    text = readme.read_text()
    n = seed_counts()["papers"]
    assert f"**{n} papers**" in text
    readme.write_text(text.replace(f"**{n} papers**", f"**{n + 1} papers**"))
    proc = run("check")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "stale: README.md"
    assert "run: python build_dataset.py build --raw raw --out dist" in proc.stderr
    assert run("build").returncode == 0 and readme.read_text() == text
    assert run("check").returncode == 0
    # A deleted one cannot be made by a build (only its blocks are generated): check says how to restore it.
    (project / "CONTRIBUTING.md").unlink()
    proc = run("check")
    assert proc.returncode == 1
    # the copy is in no git clone: the advice names no git command (it would not work there)
    assert proc.stderr == "missing: CONTRIBUTING.md: restore it (from the project's sources: CONTRIBUTING.md is in no git clone here)\n"
    driver.stdin.close()
    assert driver.wait(timeout=60) == 0
    watchdog.cancel()
