import re

from tests.helpers import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)[:2]]


def test_readme_starts_with_build_then_test_command():
    build_cmd, test_cmd = readme_commands()
    assert "pip install" in build_cmd and "build_dataset.py" in build_cmd
    assert "pip install" in test_cmd and "pytest" in test_cmd
    head = (ROOT / "README.md").read_text(encoding="utf-8").split("```bash")[0]
    assert head.count("\n") <= 3  # the commands come first, after the title


def test_ci_runs_the_readme_test_command_then_the_corpus_suite_then_check():
    _, test_cmd = readme_commands()
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    steps = [ci.index(test_cmd)]
    steps += [next(i for i, line in enumerate(ci) if line.startswith(cmd)) for cmd in
              ("python -m pytest -m corpus", "python build_dataset.py check")]
    assert steps == sorted(steps)
    assert "set -euo pipefail" in ci[: steps[0]]  # any failing step fails CI


def test_stats_line_counts_one_in_the_singular():
    """The README's stats line for a build of one dump, one record, one paper and one near duplicate."""
    from neurips_abstracts.release.docs import stats_block

    manifest = {"dataset_version": "9.9.9", "fingerprint": "f" * 64, "statistics": {
        "papers": 1, "records": 1, "dumps": 1, "word_count": {"median": 7},
        "relations": {"exact_duplicate": 0, "near_duplicate": 1}}}
    assert ("holds **1 paper** from 1 raw record in 1 dump: 0 exact and 1 near duplicate. "
            "Median abstract length: 7 words.") in stats_block(manifest)
    manifest["statistics"].update(papers=2, records=3, dumps=2, relations={"exact_duplicate": 1, "near_duplicate": 1})
    assert "holds **2 papers** from 3 raw records in 2 dumps: 1 exact and 1 near duplicates." in stats_block(manifest)
