import re

from .conftest import ROOT


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
