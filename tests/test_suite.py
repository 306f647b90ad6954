"""The suite's own rules: corpus tests are a separate suite that says so, and fails (never skips)
where ../shared is missing."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

TESTS = '''
import pytest

def test_everywhere():
    pass

@pytest.mark.corpus
def test_on_the_corpora():
    pass
'''


def run_pytest(project, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=project,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_corpus_tests_are_deselected_by_default_and_fail_without_shared(tmp_path):
    project = tmp_path / "clone"  # no tmp_path/shared beside it
    (project / "tests").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "tests" / "__init__.py").write_text("")
    shutil.copy(ROOT / "tests" / "conftest.py", project / "tests" / "conftest.py")
    shutil.copytree(ROOT / "tests" / "helpers", project / "tests" / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "tests" / "test_x.py").write_text(TESTS)

    default = run_pytest(project)
    assert default.returncode == 0, default.stdout
    assert "1 passed, 1 deselected" in default.stdout and "skipped" not in default.stdout
    assert "1 corpus tests not selected; run them with python -m pytest -m corpus" in default.stdout

    corpus = run_pytest(project, "-m", "corpus")
    assert corpus.returncode == 1, corpus.stdout
    assert "missing " in corpus.stdout and "shared/corpora/neurips2018/papers.jsonl.zst" in corpus.stdout, corpus.stdout
    assert "skipped" not in corpus.stdout
    assert "1 deselected" in corpus.stdout and "not selected" not in corpus.stdout


# Folders of tests/ that hold no tests of a source folder: fixtures' data and shared helpers.
NOT_MIRRORS = {"data", "helpers", "__pycache__"}


def imported_modules(path: Path) -> set[str]:
    """The modules a file imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.add(base)
            found.update(f"{base}.{a.name}" if base else a.name for a in node.names)
    return found


def test_the_tests_mirror_the_source_folders():
    source = {p.name for p in (ROOT / "src" / "neurips_abstracts").iterdir() if p.is_dir() and p.name != "__pycache__"}
    tests = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir()} - NOT_MIRRORS
    assert tests == source
    for folder in sorted(tests):  # and each folder tests its source folder
        package = f"neurips_abstracts.{folder}"
        assert any(m == package or m.startswith(package + ".") for f in (ROOT / "tests" / folder).glob("test_*.py")
                   for m in imported_modules(f)), f"tests/{folder}/ imports nothing of {package}"


def test_helpers_come_from_the_helpers_module_and_conftest_holds_fixtures(tmp_path):
    import ast

    def conftest_imports(path: Path) -> bool:
        return any(m.split(".")[-1] == "conftest" for m in imported_modules(path))

    assert [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "tests").rglob("*.py")) if conftest_imports(p)] == []
    for text in ("from tests import conftest\n", "from . import conftest\n", "import tests.conftest\n",
                 "from .conftest import x\n"):
        (tmp_path / "t.py").write_text(text)
        assert conftest_imports(tmp_path / "t.py"), text
    for conftest in sorted((ROOT / "tests").rglob("conftest.py")):
        tree = ast.parse(conftest.read_text(encoding="utf-8"))
        plain = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                 and not node.name.startswith("pytest_")
                 and not any("fixture" in ast.unparse(d) for d in getattr(node, "decorator_list", []))]
        assert plain == [], f"{conftest.relative_to(ROOT)} holds helpers, not fixtures: {plain}"


def test_every_test_file_is_collected():
    """A folder pytest skips by name (its defaults skip any ``build`` folder, and tests/build/
    mirrors the package's build/) would drop its tests without a word: every test file under
    tests/ yields at least one test, in the default, corpus and slow suites together."""
    found = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                            "-p", "no:randomly", "-n", "0", "-m", "slow or corpus or not (slow or corpus)"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    collected = {line.split("::")[0] for line in found.stdout.splitlines() if "::" in line}
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    assert files - collected == set(), found.stdout[-2000:] + found.stderr[-2000:]
