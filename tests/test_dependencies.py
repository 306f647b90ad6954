"""Run-time dependencies are exactly what the package imports, read from its source and from
pyproject.toml: every third-party import is declared, every declared dependency is imported."""

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions as _scan_installed

import pytest

from tests.helpers import ROOT

PACKAGE = ROOT / "src" / "neurips_abstracts"
@functools.cache
def packages_distributions() -> dict[str, list[str]]:
    """Which installed distributions provide each top-level module: one scan of everything
    installed, made once (the environment does not change during a run)."""
    return _scan_installed()


def _name(requirement: str) -> str:
    """The normalized distribution name of a requirement (`pandera[polars]>=0.35` -> `pandera`)."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement)[0]).lower()


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names)


def imports(tree: ast.AST) -> tuple[set[str], list[set[str]], set[str]]:
    """(required, fallbacks, optional) top-level module names imported by a module.

    An import in a ``try`` that catches ImportError is a *fallback* when the handler imports
    another module instead (one of them must be there), and *optional* when it does not.
    """
    required: set[str] = set()
    fallbacks: list[set[str]] = []
    optional: set[str] = set()
    guarded: set[int] = set()

    def names(nodes) -> set[str]:
        out = set()
        for node in nodes:
            for n in ast.walk(node):
                if isinstance(n, ast.Import):
                    out |= {a.name.split(".")[0] for a in n.names}
                    guarded.add(id(n))
                elif isinstance(n, ast.ImportFrom) and n.level == 0:
                    out.add(n.module.split(".")[0])
                    guarded.add(id(n))
        return out

    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            body = names(node.body)
            handled = names([s for h in node.handlers for s in h.body])
            if handled:
                fallbacks.append(body | handled)
            else:
                optional |= body
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            required |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            required.add(node.module.split(".")[0])
    return required, fallbacks, optional


def _third_party(modules: set[str]) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names and m not in ("neurips_abstracts", "__future__")}


def package_imports() -> tuple[set[str], list[set[str]], set[str]]:
    required, fallbacks, optional = set(), [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        r, f, o = imports(ast.parse(path.read_text(encoding="utf-8")))
        required |= _third_party(r)
        fallbacks += [_third_party(x) for x in f if _third_party(x)]
        optional |= _third_party(o)
    return required, fallbacks, optional


def _distributions(module: str) -> set[str]:
    found = packages_distributions().get(module)
    assert found, f"`import {module}`: no installed distribution provides it"
    return {_name(d) for d in found}


@pytest.fixture(scope="module")
def project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_every_third_party_import_is_declared_and_every_dependency_imported(project):
    declared = {_name(r) for r in project["dependencies"]}
    extras = {extra: {_name(r) for r in reqs} for extra, reqs in project["optional-dependencies"].items()}
    required, fallbacks, optional = package_imports()
    assert "yaml" in required and "click" in required  # the reader sees the package's imports
    used = set()
    for module in sorted(required):
        dists = _distributions(module)
        assert dists & declared, f"`import {module}` ({', '.join(sorted(dists))}) is not a declared dependency"
        used |= dists & declared
    for group in fallbacks:  # try one, else the other: at least one is declared
        dists = set().union(*(_distributions(m) for m in group if packages_distributions().get(m)))
        assert dists & declared, f"none of {sorted(group)} is a declared dependency"
        used |= dists & declared
    for module in sorted(optional):  # guarded by ImportError: an extra, never a run-time dependency
        dists = _distributions(module)
        assert not dists & declared, f"optional `import {module}` is declared as a run-time dependency"
        assert any(dists & reqs for extra, reqs in extras.items() if extra not in ("test", "bench")), module
    unused = declared - used
    assert not unused, f"declared but never imported by the package: {sorted(unused)}"


def test_the_checker_sees_what_it_must(tmp_path):
    """The import reader on made-up modules: plain, from, guarded, fallback, relative."""
    code = (
        "import os, yaml\nfrom pyarrow import parquet\nfrom . import cli\n"
        "def f():\n    import polars\n"
        "try:\n    import httpx2 as httpx\nexcept ImportError:\n    import httpx\n"
        "try:\n    import mlcroissant\nexcept ImportError:\n    pass\n"
    )
    required, fallbacks, optional = imports(ast.parse(code))
    assert _third_party(required) == {"yaml", "pyarrow", "polars"}
    assert fallbacks == [{"httpx2", "httpx"}] and optional == {"mlcroissant"}
