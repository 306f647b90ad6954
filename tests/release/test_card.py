import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from neurips_abstracts.core.names import data_path
from neurips_abstracts.core.schema import TABLES, field_names, hf_features_dict
from neurips_abstracts.docs import refresh, stale
from neurips_abstracts.release.verify import verify

from tests.helpers import ROOT, SEED_DIR, project_copy, run_cli, run_process, seed_counts, seed_files


@pytest.fixture
def dist_copy(seeds_dist, tmp_path):
    copy = tmp_path / "dist"
    shutil.copytree(seeds_dist, copy)
    return copy


def test_load_dataset_offline_with_declared_features(seeds_dist, tmp_path, monkeypatch):
    import datasets

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    for config in TABLES:
        args = (str(seeds_dist),) if config == "papers" else (str(seeds_dist), config)
        ds = datasets.load_dataset(*args, split="train", cache_dir=str(tmp_path / "cache"))
        rows = pq.ParquetFile(seeds_dist / data_path(config)).metadata.num_rows
        assert ds.num_rows == rows
        assert {k: v.dtype for k, v in ds.features.items()} == {k: v["dtype"] for k, v in hf_features_dict(config).items()}
        assert ds.info.splits["train"].num_examples == rows


def test_card_is_what_huggingface_hubs_dataset_card_makes(seeds_dist, tmp_path, monkeypatch):
    """The build renders the card without importing huggingface_hub's repocard module (see
    card.render_card): a build whose card is made by DatasetCard.from_template itself writes
    the same bytes."""
    from huggingface_hub import DatasetCard

    from neurips_abstracts.build import build
    from neurips_abstracts.release import card

    made = []

    def by_the_library(data, template, **fields):
        made.append(DatasetCard.from_template(data, template_str=template, **fields).content)
        return made[-1]

    monkeypatch.setattr(card, "render_card", by_the_library)
    build(SEED_DIR, tmp_path / "dist", previous=None)
    assert len(made) == 1 and (tmp_path / "dist" / "README.md").read_bytes() == (seeds_dist / "README.md").read_bytes()


def test_card_parses_and_agrees_with_parquet(seeds_dist):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(seeds_dist / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "other" and data["pretty_name"]
    configs = {c["config_name"]: c for c in data["configs"]}
    assert set(configs) == set(TABLES) and configs["papers"].get("default") is True
    for info in data["dataset_info"]:
        table = pq.read_table(seeds_dist / configs[info["config_name"]]["data_files"][0]["path"])
        assert [f["name"] for f in info["features"]] == table.column_names == field_names(info["config_name"])
        split = info["splits"][0]
        assert split["num_examples"] == table.num_rows
        assert split["num_bytes"] == table.nbytes == info["dataset_size"]
        assert info["download_size"] == (seeds_dist / data_path(info["config_name"])).stat().st_size
    text = (seeds_dist / "README.md").read_text()
    version = json.loads((seeds_dist / "build_manifest.json").read_text())["dataset_version"]
    for doc in ("README.md", "DATASHEET.md", "datapackage.json", "croissant.json"):
        assert version in (seeds_dist / doc).read_text(), doc
    for section in ("## Load it", "## Columns", "## Build statistics", "## Deduplication", "## Provenance",
                    "## Terms of use", "## Citation", "## Changelog", "hf://datasets/"):
        assert section in text


def test_datasheet_has_the_seven_sections(seeds_dist):
    text = (seeds_dist / "DATASHEET.md").read_text()
    for section in ("Motivation", "Composition", "Collection process", "Preprocessing", "Uses", "Distribution", "Maintenance"):
        assert f"## {section}" in text


def frictionless(path):
    return subprocess.run(
        [sys.executable, "-m", "frictionless", "validate", "--json", str(path)], capture_output=True, text=True
    )


def _rewrite(dist, table, fn):
    path = dist / data_path(table)
    t = pq.read_table(path)
    pq.write_table(fn(t), path)


@pytest.mark.slow
def test_frictionless_valid_and_catches_broken_keys(seeds_dist, dist_copy):
    ok = frictionless(seeds_dist / "datapackage.json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["valid"] is True

    def dup_pk(t):
        ids = t.column("paper_id").to_pylist()
        ids[1] = ids[0]
        return t.set_column(0, "paper_id", pa.array(ids))

    _rewrite(dist_copy, "papers", dup_pk)
    bad = frictionless(dist_copy / "datapackage.json")
    assert bad.returncode != 0 and "primary-key" in bad.stdout


def test_frictionless_catches_broken_foreign_key(dist_copy):
    def orphan(t):
        ids = t.column("paper_id").to_pylist()
        ids[0] = "0123456789abcdef"
        return t.set_column(t.schema.get_field_index("paper_id"), "paper_id", pa.array(ids))

    _rewrite(dist_copy, "occurrences", orphan)
    bad = frictionless(dist_copy / "datapackage.json")
    assert bad.returncode != 0 and "foreign-key" in bad.stdout


@pytest.mark.slow
def test_croissant_validates_and_loads_both_record_sets(seeds_dist):
    cli = str(Path(sys.executable).with_name("mlcroissant"))
    proc = subprocess.run([cli, "validate", "--jsonld", str(seeds_dist / "croissant.json")], capture_output=True, text=True)
    assert proc.returncode == 0 and "Done" in proc.stderr, proc.stderr[-2000:]
    broken = json.loads((seeds_dist / "croissant.json").read_text())
    del broken["recordSet"][0]["field"][0]["dataType"]
    bad = seeds_dist.parent / "broken-croissant.json"
    bad.write_text(json.dumps(broken))
    assert subprocess.run([cli, "validate", "--jsonld", str(bad)], capture_output=True, text=True).returncode != 0
    import mlcroissant as mlc

    ds = mlc.Dataset(jsonld=str(seeds_dist / "croissant.json"))
    meta = json.loads((seeds_dist / "croissant.json").read_text())
    for key in ("rai:dataLimitations", "rai:dataBiases", "rai:personalSensitiveInformation", "rai:dataUseCases",
                "rai:dataSocialImpact", "rai:dataCollection", "rai:dataPreprocessingProtocol"):
        assert len(meta[key]) > 40
    for table in TABLES:
        records = list(ds.records(record_set=table))
        assert len(records) == pq.ParquetFile(seeds_dist / data_path(table)).metadata.num_rows
        assert set(records[0]) == {f"{table}/{name}" for name in field_names(table)}


def test_verify_passes_and_catches_tampering(seeds_dist, dist_copy):
    assert verify(seeds_dist) == []
    proc = run_cli("verify", str(seeds_dist))
    assert proc.returncode == 0, proc.stderr

    croissant = json.loads((dist_copy / "croissant.json").read_text())
    croissant["distribution"][0]["sha256"] = "0" * 64
    (dist_copy / "croissant.json").write_text(json.dumps(croissant))
    (dist_copy / "stray.txt").write_text("x")
    path = dist_copy / data_path("occurrences")
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    problems = verify(dist_copy)
    joined = "\n".join(problems)
    assert "croissant.json: sha256" in joined and "does not match SHA256SUMS" in joined
    assert "stray.txt: present but not listed" in joined and data_path("occurrences") in joined
    proc = run_cli("verify", str(dist_copy))
    assert proc.returncode == 1 and "does not verify" in proc.stderr
    papers = dist_copy / data_path("papers")
    papers.write_bytes(papers.read_bytes()[:100])  # truncated: no Parquet footer
    assert f"{data_path('papers')}: unreadable Parquet" in "\n".join(verify(dist_copy))


def test_verify_runs_the_standards_validators(seeds_dist, dist_copy):
    from neurips_abstracts.release.verify import croissant_problems, frictionless_problems

    assert frictionless_problems(seeds_dist) == [] and croissant_problems(seeds_dist) == []

    def dup_pk(t):
        ids = t.column("paper_id").to_pylist()
        ids[1] = ids[0]
        return t.set_column(0, "paper_id", pa.array(ids))

    _rewrite(dist_copy, "papers", dup_pk)
    found = frictionless_problems(dist_copy)
    assert found and all(p.startswith("datapackage.json: frictionless: ") for p in found)
    assert any("primary key" in p.lower() for p in found), found
    broken = json.loads((dist_copy / "croissant.json").read_text())
    del broken["recordSet"][0]["field"][0]["dataType"]
    (dist_copy / "croissant.json").write_text(json.dumps(broken))
    found = croissant_problems(dist_copy)
    assert found and all(p.startswith("croissant.json: mlcroissant: ") for p in found)


def test_readme_pin_block_names_the_configured_repository(seeds_dist):
    from neurips_abstracts.core.resources import hub_repo
    from neurips_abstracts.docs import pinned_load_block

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
    results = root / "benchmarks" / "results" / "startup.json"
    startup = json.loads(results.read_text())
    results.write_text(json.dumps(startup | {"median_seconds": startup["median_seconds"] + 1}))
    assert stale(seeds_dist, root) == ["README.md", "benchmarks/README.md"]  # the headline and the full table
    refresh(seeds_dist, root)
    assert stale(seeds_dist, root) == []
    (root / "benchmarks" / "README.md").unlink()
    assert stale(seeds_dist, root) == ["benchmarks/README.md"]  # missing is stale, and refresh cannot invent it


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


def test_check_names_a_stale_benchmarks_readme_and_the_command_that_fixes_it(tmp_path):
    """`check` in a checkout (a copy of this one, built from the seeds) fails on a hand-edited
    benchmarks/README.md, names it and the command; that command makes `check` pass. A deleted
    one is named as missing, with the way to restore it."""
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
    table = project / "benchmarks" / "README.md"
    text = table.read_text()
    assert "| read |" in text  # the scale table is there to edit
    table.write_text(text.replace("| read |", "| reading |", 1))
    proc = run("check")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "stale: benchmarks/README.md"
    assert "run: python build_dataset.py build --raw raw --out dist" in proc.stderr
    assert run("build").returncode == 0 and table.read_text() == text
    assert run("check").returncode == 0
    # A deleted one cannot be made by a build (only its blocks are generated): check says how to restore it.
    table.unlink()
    proc = run("check")
    assert proc.returncode == 1
    assert proc.stderr == "missing: benchmarks/README.md: restore it (git checkout -- benchmarks/README.md)\n"
    driver.stdin.close()
    assert driver.wait(timeout=60) == 0
    watchdog.cancel()


def test_card_yaml_has_no_absolute_paths_or_times(seeds_dist):
    front = (seeds_dist / "README.md").read_text().split("---")[1]
    assert yaml.safe_load(front)["configs"][0]["data_files"][0]["path"].startswith("data/")
    for f in seeds_dist.rglob("*"):
        if f.is_file() and f.suffix in {".md", ".json", ""}:
            text = f.read_text()
            assert "/tmp" not in text and "/work" not in text and "/home" not in text, f


# --- what a release says, checked on dist/ and on a release staged for another repository ----

@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """The two seed dumps built as dist/ (the project's hub-repo) and staged for alice/x."""
    from neurips_abstracts.build import build

    tmp = tmp_path_factory.mktemp("releases")
    raw = tmp / "raw"
    raw.mkdir()
    for f in seed_files():
        shutil.copy(f, raw / f.name)
    build(raw, tmp / "dist")
    build(raw, tmp / "staged", repo_id="alice/x")
    return {"dist": tmp / "dist", "staged": tmp / "staged", "raw": raw}


@pytest.mark.slow
@pytest.mark.parametrize("which", ["dist", "staged"])
def test_release_validates_with_the_real_tools(releases, which, tmp_path, monkeypatch):
    import datasets

    folder = releases[which]
    ok = frictionless(folder / "datapackage.json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["valid"] is True, ok.stdout[-2000:]
    cli = str(Path(sys.executable).with_name("mlcroissant"))
    proc = subprocess.run([cli, "validate", "--jsonld", str(folder / "croissant.json")], capture_output=True, text=True)
    assert proc.returncode == 0 and "Done" in proc.stderr, proc.stderr[-2000:]
    # No warning at all, a build between releases included: it carries a datePublished too
    # (test_date_published_comes_from_the_changelog)
    lines = proc.stderr.splitlines()
    warned = [line for line in lines if line.lstrip().startswith("-  [")]
    assert warned == [] and not any("warning" in line.lower() for line in lines), proc.stderr[-2000:]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    for config in TABLES:
        ds = datasets.load_dataset(str(folder), config, split="train", cache_dir=str(tmp_path / "cache"))
        assert ds.num_rows == pq.ParquetFile(folder / data_path(config)).metadata.num_rows
    assert verify(folder) == []


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;])\s+|\n", text) if s.strip()]


@pytest.mark.parametrize("which", ["dist", "staged"])
def test_no_file_claims_cc0_over_the_abstracts(releases, which):
    from neurips_abstracts.release import texts

    folder = releases[which]
    package = json.loads((folder / "datapackage.json").read_text())
    titles = [lic.get("title") for lic in package["licenses"]]
    assert texts.AUTHORS_TERMS_TITLE in titles and texts.CC0_TERMS_TITLE in titles
    for res in package["resources"]:
        own = res.get("licenses")
        holds_abstracts = texts.authored(f["name"] for f in res["schema"]["fields"])
        assert own is None if holds_abstracts else own == [lic for lic in package["licenses"] if lic.get("name") == "CC0-1.0"]
    croissant = json.loads((folder / "croissant.json").read_text())
    assert {lic["name"] for lic in croissant["license"]} == {texts.AUTHORS_TERMS_TITLE, texts.CC0_TERMS_TITLE}
    front = yaml.safe_load((folder / "README.md").read_text().split("---")[1])
    assert front["license"] == "other" and front["license_link"] == "LICENSE.md"
    assert "No licence over the abstracts is granted" in (folder / "LICENSE.md").read_text()
    # No sentence of any file puts the abstracts under CC0.
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix != ".parquet":
            for sentence in _sentences(path.read_text()):
                if "CC0" in sentence:
                    assert "abstract" not in sentence.lower(), (path.name, sentence)


def test_card_and_datasheet_say_what_they_hold(releases):
    folder = releases["dist"]
    card = (folder / "README.md").read_text()
    sheet = (folder / "DATASHEET.md").read_text()
    front = yaml.safe_load(card.split("---")[1])
    assert front["task_categories"] == ["text-retrieval"]  # no labels: nothing to classify or summarize
    for doc in (card, sheet):
        assert "no titles, no author names" in doc and "accept/reject decisions" in doc and "text_sha256" in doc
        assert "documented below" not in doc and "terms of use above" not in doc
        for section in re.findall(r"card's (\w+) section|the (\w+) section", doc):
            assert f"## {''.join(section)}" in card, section
    assert re.search(r"author\s+= \{\{.+\}\}", card)
    assert "median" in card and "q × (n − 1)" in card and "Words per paper" in card


@pytest.mark.parametrize("dated", [True, False])
def test_date_published_comes_from_the_changelog(seeds_dist, tmp_path, monkeypatch, dated):
    """A version whose CHANGELOG entry is dated (released) carries that date as Croissant's
    datePublished; a build between releases (no dated entry yet) carries the day its newest dump
    was added, from the manifest, never the day it was built; mlcroissant has nothing to warn of."""
    from neurips_abstracts import build as build_module
    from neurips_abstracts.build import build
    from neurips_abstracts.core import resources

    changelog = "# Changelog\n\n## 9.9.0" + (" (2027-01-31)" if dated else "") + "\n\n- Something.\n"
    real = resources.read_text
    monkeypatch.setattr(build_module, "read_resource", lambda rel: changelog if rel == "CHANGELOG.md" else real(rel))
    from neurips_abstracts.release import manifest as manifest_module

    monkeypatch.setattr(build_module, "dataset_version", lambda: "9.9.0")
    monkeypatch.setattr(manifest_module, "dataset_version", lambda: "9.9.0")
    build(SEED_DIR, tmp_path / "dist", previous=None)
    croissant = json.loads((tmp_path / "dist" / "croissant.json").read_text())
    assert croissant["version"] == "9.9.0"
    added = max(f["added"] for f in json.loads((tmp_path / "dist" / "build_manifest.json").read_text())["inputs"])
    assert croissant["datePublished"] == ("2027-01-31" if dated else added)
    assert verify(tmp_path / "dist") == []
    from neurips_abstracts.release.verify import croissant_problems

    import mlcroissant as mlc

    issues = mlc.Dataset(jsonld=str(tmp_path / "dist" / "croissant.json")).metadata.ctx.issues
    assert not [w for w in issues.warnings if "datePublished" in w] and croissant_problems(tmp_path / "dist") == []


def test_diff_reads_parquet_without_leaving_python_memory_to_arrow(releases, tmp_path):
    """The cause of an abort at interpreter exit (about one `diff` run in fifteen): pq.read_table
    over Python memory (BytesIO, bytes) let an Arrow worker thread drop the last reference to
    that memory after the call returned, taking the GIL while the interpreter was finalizing.
    ``_read_parquet`` copies the bytes into Arrow's own memory and reads them synchronously, so
    when it returns nothing of Arrow's refers to the Python object: there is nothing left for a
    thread to release, however the exit is timed."""
    import pyarrow as pa

    from neurips_abstracts.build import build
    from neurips_abstracts.core.names import data_path
    from neurips_abstracts.release.diff import _read_parquet

    from tests.helpers import make_dump

    data = (releases["dist"] / data_path("occurrences")).read_bytes()
    before = sys.getrefcount(data)
    held = pa.py_buffer(data)  # the count sees a reference Arrow keeps
    assert sys.getrefcount(data) == before + 1
    del held
    table = _read_parquet(data)
    assert sys.getrefcount(data) == before and table.num_rows
    # and diff, run as a user runs it, exits cleanly with the right answer
    raw = tmp_path / "raw"
    shutil.copytree(releases["raw"], raw)
    (raw / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["A new abstract on sparse attention for long genomes."]))
    build(raw, tmp_path / "new")
    run = run_process("diff", str(releases["dist"]), str(tmp_path / "new"), "--format", "json")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["added"]) == 1


@pytest.mark.slow
def test_wheel_installs_and_every_command_works_from_another_folder(releases, tmp_path):
    """`pip install` of the wheel (no source tree behind it): every command, run as
    `neurips-abstracts` or `python -m neurips_abstracts` from a folder holding raw/ and dist/,
    builds the same bytes as the checkout, checks, verifies, validates, adds, diffs (a version
    found in that folder's git history, with no tag) and stages a publish."""
    import sysconfig

    from neurips_abstracts.build import diff_dirs
    from neurips_abstracts.core.resources import dataset_version

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

    proc = run()  # build, the default command: raw/ -> dist/
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert diff_dirs(releases["dist"], elsewhere / "dist") == []
    proc = run("build", "--raw", "raw", "--out", "OUT", module=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert diff_dirs(releases["dist"], elsewhere / "OUT") == []

    check = run("check")
    assert check.returncode == 0, check.stderr[-3000:]
    assert check.stdout == "dist/ is up to date with raw/; no checkout of the project here (an installed package), " \
        "so the project's README.md, CONTRIBUTING.md, DATASHEET.md and benchmarks/README.md were not compared\n"
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
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"staged in {staged}/" in proc.stdout and diff_dirs(elsewhere / "dist", staged) == []
    proc = run("publish", "--dry-run", "--stage", str(staged), module=True)
    assert proc.returncode == 1 and "would refuse: no token" in proc.stderr


def test_release_prose_comes_from_the_prose_file_and_all_of_it_is_used(seeds_dist, tmp_path, monkeypatch):
    """Maintainers edit the documents' prose in templates/prose.yaml: each paragraph of it reaches
    a release document, and an edit to the file (no Python touched) reaches the card."""
    from neurips_abstracts.build import build
    from neurips_abstracts.core import resources
    from neurips_abstracts.release import contents as release, texts

    prose = yaml.safe_load((ROOT / texts.PROSE_FILE).read_text(encoding="utf-8"))
    documents = "".join((seeds_dist / name).read_text(encoding="utf-8")
                        for name in (release.CARD, release.DATASHEET, "croissant.json", "datapackage.json"))
    documents = documents.replace("\\n", " ").replace('\\"', '"')
    unused = [key for key, text in prose.items() if text not in documents and json.dumps(text)[1:-1] not in documents]
    assert not unused, unused

    edited = {**prose, "summary": "An edited summary of the release."}
    (tmp_path / "templates").mkdir()
    (tmp_path / texts.PROSE_FILE).write_text(yaml.safe_dump(edited, allow_unicode=True), encoding="utf-8")
    real = resources.read_text
    monkeypatch.setattr(texts, "read_text", lambda rel: (tmp_path / rel).read_text(encoding="utf-8")
                        if rel == texts.PROSE_FILE else real(rel))
    monkeypatch.setattr(texts, "SUMMARY", texts._prose()["summary"])
    build(SEED_DIR, tmp_path / "dist", previous=None)
    assert "An edited summary of the release." in (tmp_path / "dist" / release.CARD).read_text(encoding="utf-8")


def test_the_cards_normalize_path_matches_every_text_sha256(seeds_dist):
    """The card tells users which function to normalize an abstract with before matching its
    SHA-256 against occurrences.text_sha256: that path imports, and it reproduces every hash."""
    import hashlib
    import importlib

    card = (seeds_dist / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"`(neurips_abstracts(?:\.\w+)+)\.(\w+)` and match its SHA-256", card)
    assert len(named) == 1
    module, name = named[0]
    normalize = getattr(importlib.import_module(module), name)
    table = pq.read_table(seeds_dist / data_path("occurrences"), columns=["text_raw", "text_sha256"]).to_pylist()
    assert table and all(
        hashlib.sha256(normalize(r["text_raw"]).encode("utf-8")).hexdigest() == r["text_sha256"] for r in table)


@pytest.mark.parametrize("template", ["\n---\n{{ card_data }}\n---\nx", "---\n{{ card_data }}\n---\n{{ cr }}", "# x\n"])
def test_a_card_template_without_its_metadata_block_first_is_refused(template):
    """render_card stands in for DatasetCard.from_template, which parses what it renders: a
    template whose output would not open with the card's metadata block is an error."""
    from huggingface_hub.repocard_data import DatasetCardData

    from neurips_abstracts.release.card import render_card

    data = DatasetCardData(license="other", pretty_name="x")
    assert render_card(data, "---\n{{ card_data }}\n---\nx").startswith("---\nlicense: other\n")
    with pytest.raises(ValueError, match="metadata block"):
        render_card(data, template, cr="a\rb")


@pytest.mark.parametrize("max_memory", [1 << 20, 45, 0])
def test_spool_holds_each_span_as_text_in_order(max_memory):
    """In memory, spilled to its file after the first dump, or in the file from the start."""
    import numpy as np

    from neurips_abstracts.release.occurrences import Spool

    data = "\ufeffhead\nfirst é\r\n\nsecond 中😀\n \nthird".encode()
    spans = [(data.index(t.encode()), data.index(t.encode()) + len(t.encode())) for t in ["first é", "second 中😀", "third", ""]]
    spool = Spool(max_memory)
    try:
        spool.append(data, np.array([s for s, _ in spans[:3]]), np.array([e for _, e in spans[:3]]))
        spool.append(data, np.array([spans[2][0], 0]), np.array([spans[2][1], 0]))
        chunks = list(spool.chunks(2))
        assert [len(c) for c in chunks] == [2, 2, 1] and all(c.type == pa.string() for c in chunks)
        assert sum((c.to_pylist() for c in chunks), []) == ["first é", "second 中😀", "third", "third", ""]
        # 45 bytes: the first dump's spans (39 bytes with their offsets) fit, not the second's (13 more)
        assert (spool._file is None) == (max_memory == 1 << 20)
    finally:
        spool.close()
    with pytest.raises(ValueError, match="closed"):
        list(spool.chunks(2))


@pytest.mark.parametrize("max_memory", [1 << 20, 0])
def test_spool_is_not_locked_while_its_reader_holds_a_chunk(max_memory):
    """The build's writer thread reads the spool a chunk at a time; a close from the build's
    thread (it stops early) must not wait for that reader to finish the whole table."""
    import numpy as np

    from neurips_abstracts.release.occurrences import Spool

    spool = Spool(max_memory)
    spool.append(b"a b c", np.array([0, 2, 4]), np.array([1, 3, 5]))
    spool.append(b"d e", np.array([0, 2]), np.array([1, 3]))
    chunks = spool.chunks(1)
    assert next(chunks).to_pylist() == ["a"]
    assert not spool._lock.locked()
    spool.close()
    with pytest.raises(ValueError, match="closed") if max_memory == 0 else contextlib.nullcontext():
        list(chunks)  # read from the file: refused once closed; in memory, what was held
