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


def test_ci_runs_the_readme_test_command():
    _, test_cmd = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_cmd in ci
