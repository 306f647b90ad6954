"""The sentences of README.md, CONTRIBUTING.md and the card that name what a command prints or a
number of the code (issue 34), checked against the command's output and the constants."""

import re
import subprocess
import sys

from neurips_abstracts.core.config import MAX_DUMP_BYTES
from neurips_abstracts.core.resources import dataset_version
from neurips_abstracts.release.contents import released_versions

from tests.helpers import ROOT, copy_seeds, make_dump, run_cli, synthetic_abstracts

README = (ROOT / "README.md").read_text(encoding="utf-8")
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
NAME_RE = re.compile(r"\d{3}_[0-9a-f]{16}")


def _shell_lines(text: str) -> list[str]:
    return [line for block in re.findall(r"```(?:bash|sh)\n(.*?)```", text, re.S) for line in block.splitlines()]


def test_the_docs_commit_a_dump_with_the_git_add_that_add_prints(tmp_path):
    raw = copy_seeds(tmp_path / "raw")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # a contributor's clone: add names git there only
    (tmp_path / "dump.txt").write_bytes(make_dump(synthetic_abstracts(2, seed=7)))
    proc = run_cli("add", "dump.txt", "--crawled-at", "2026-11-30", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.strip().splitlines()[-1]
    m = re.fullmatch(r'next: (git add (\S+) (\S+) && git commit -m "Add a dump crawled on 2026-11-30")', printed)
    assert m, printed
    txt, meta = m[2], m[3]
    assert (tmp_path / txt).is_file() and (tmp_path / meta).is_file() and sorted(p.name for p in raw.iterdir() if NAME_RE.match(p.name) and txt.endswith(p.name) or meta.endswith(p.name))
    as_documented = NAME_RE.sub("NNN_<hex>", m[1])
    assert as_documented == 'git add raw/NNN_<hex>.txt raw/NNN_<hex>.json && git commit -m "Add a dump crawled on 2026-11-30"'
    for doc, text in (("README.md", README), ("CONTRIBUTING.md", CONTRIBUTING)):
        adds = [line for line in _shell_lines(text) if line.startswith("git add raw")]
        assert adds and all(line == as_documented for line in adds), (doc, adds)  # word for word: paste it


def test_the_command_table_says_the_name_add_gives_a_dump():
    row = next(line for line in README.splitlines() if line.startswith("| `add PATH` |"))
    assert "raw/NNN_<hex>.txt" in row and "raw/NNN_<hex>.json" in row and "under its name" not in row
    assert "`git add`" in row


def test_the_size_limit_is_the_code_s(tmp_path):
    """CONTRIBUTING's `size` row gives the limit the code refuses a dump over."""
    limit = f"{MAX_DUMP_BYTES // 2**20} MiB"
    row = next(line for line in CONTRIBUTING.splitlines() if line.startswith("| `size` |"))
    assert f"size limit of {limit}" in row
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:  # sparse: the size rule reads no content
        fh.truncate(MAX_DUMP_BYTES + 1)
    proc = run_cli("validate", str(big), cwd=tmp_path)
    assert proc.returncode == 1 and f"over the limit of {limit} a dump may hold" in proc.stdout, proc.stdout


def test_the_layout_table_names_every_top_level_entry_and_module():
    layout = README.split("## Layout", 1)[1].split("\n## ", 1)[0]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    top = {p.split("/")[0] + ("/" if "/" in p else "") for p in tracked}
    missing = [t for t in sorted(top) if f"`{t}" not in layout]
    assert not missing, f"README's Layout table does not name {missing}"
    package = ROOT / "src" / "neurips_abstracts"
    row = next(line for line in layout.splitlines() if line.startswith("| `src/neurips_abstracts/` |"))
    entries = [p.name + "/" if p.is_dir() else p.name for p in package.iterdir() if p.name != "__pycache__"]
    missing = [e for e in sorted(entries) if f"`{e}`" not in row and e != "_resources/"]
    assert not missing, f"README's Layout row of the library does not name {missing}"


def test_the_card_says_what_sha256sums_lists(seeds_dist):
    listed = {line.split("  ", 1)[1] for line in (seeds_dist / "SHA256SUMS").read_text().splitlines()}
    files = {p.relative_to(seeds_dist).as_posix() for p in seeds_dist.rglob("*") if p.is_file()}
    assert listed == files - {"SHA256SUMS"}
    card = " ".join((seeds_dist / "README.md").read_text(encoding="utf-8").split())
    assert "`SHA256SUMS` lists the SHA-256 of every other file of this folder (not of itself)" in card
    assert "covers every file" not in card


def test_the_commands_that_need_git_are_named_and_say_so(tmp_path):
    said = " ".join(README.split())
    assert ("except where git is needed: `diff` of a released version or git revision reads the history of a git "
            "clone of the project (`diff` of two release folders works anywhere, and outside a clone a released "
            "version is the `dist/` at hand of that version, as for `build`), and `publish` releases a commit, "
            "so it runs in a git work tree.") in said
    import pytest

    from neurips_abstracts.core.errors import DumpError
    from neurips_abstracts.record.diff import load_side

    with pytest.raises(DumpError, match="is not a git clone of the project"):
        load_side("1.0.0", repo=tmp_path)  # as an installed package finds no clone around it
    from neurips_abstracts.build import build
    from neurips_abstracts.hub.staging import preconditions

    raw = copy_seeds(tmp_path / "p" / "raw")
    build(raw, tmp_path / "p" / "dist")
    assert "not a git work tree: a release must come from a commit" in preconditions(raw, tmp_path / "p" / "dist", docs=False)


def test_the_release_steps_diff_against_the_previous_release():
    """CONTRIBUTING's generated release step names the newest release CHANGELOG.md dates before
    the version in pyproject.toml (1.1.0 before 1.2.0), never an older one."""
    from neurips_abstracts.release.docs import release_steps_block

    changelog = "# Changelog\n\n## 1.1.0 (2026-11-30)\n\n## 1.0.0 (2026-11-29)\n"
    assert "diff 1.1.0 dist --write-changelog" in release_steps_block({"dataset_version": "1.2.0"}, changelog)
    dated = "# Changelog\n\n## 1.2.0 (2026-12-30)\n" + changelog.removeprefix("# Changelog\n")
    block = release_steps_block({"dataset_version": "1.2.0"}, dated)
    assert "diff 1.1.0 dist --write-changelog" in block and 'git commit -m "Release 1.2.0"' in block
    committed = CONTRIBUTING.split("<!-- generated:release-steps", 1)[1].split("<!-- /generated:release-steps")[0]
    previous = next(v for v in released_versions((ROOT / "CHANGELOG.md").read_text(encoding="utf-8")) if v != dataset_version())
    assert f"python build_dataset.py diff {previous} dist --write-changelog" in committed
    assert not re.search(r"diff \d+\.\d+\.\d+ dist", CONTRIBUTING.replace(committed, ""))  # no other, older example


def test_the_readme_says_where_the_corpus_suite_reads_from():
    said = " ".join(README.split())
    assert "`python -m pytest -m corpus` (the real abstracts of NeurIPS 2018 and 2023 in `../shared/corpora/`" in said
    assert "kept out of the repository" in said and "a run without it fails naming each missing file" in said
    _ = sys  # the corpus message itself: test_first_use.py::test_the_corpus_suite_names_what_is_missing_and_where_it_comes_from


def test_a_reader_given_every_table_at_once_fails_as_the_docs_say(seeds_dist, tmp_path, monkeypatch):
    """README and the card say why they load one table at a time: the forms that read all three
    tables' files together fail on their schemas. (The per-table forms run in test_docs_run.)"""
    import datasets
    import polars as pl
    import pytest

    for doc in (README, (seeds_dist / "README.md").read_text(encoding="utf-8")):
        assert 'load_dataset("parquet", data_dir=' in doc and 'pl.read_parquet(' in doc and "fails on their schemas" in doc
    with pytest.raises(Exception, match="(?i)schema|column"):
        pl.read_parquet(str(seeds_dist / "data" / "*" / "*.parquet"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(Exception) as caught:
        datasets.load_dataset("parquet", data_dir=str(seeds_dist), cache_dir=str(tmp_path / "cache"))
    chain, exc = [], caught.value
    while exc is not None:
        chain.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    assert any(re.search(r"(?i)schema|column", text) for text in chain), chain


def test_the_command_table_names_every_generated_doc():
    """`build` refreshes and `check` compares every file of GENERATED_DOCS, and nothing of the
    benchmarks' (``python -m benchmarks.docs`` makes those); their rows say so."""
    from neurips_abstracts.release.docs import GENERATED_DOCS

    names = re.split(r", | and ", GENERATED_DOCS)
    assert names and "CONTRIBUTING.md" in names and not any("benchmarks" in n for n in names)
    for command in ("build", "check"):
        row = next(line for line in README.splitlines() if line.startswith(f"| `{command}` |"))
        assert all(f"`{n}`" in row or (n == "README.md" and "this README" in row) for n in names), (command, row)
        assert "`benchmarks/README.md`" not in row, (command, row)
