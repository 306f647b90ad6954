"""The package's shape: imports run one way (no module imports, directly or through others, a
module that imports it back; imports inside functions count as much as those at the top: a
circle broken only by a late import is still a circle in the design), each folder imports only
folders of a lower rank, no private name crosses folders nor the files of the LaTeX renderer's
package, the library imports nothing of the benchmarks nor any private module or name of
huggingface_hub, and the raw folder, followed from ``build()``, climbs back up the layers at most
eight times. A module is as long as its one job needs: no count of lines or modules is kept."""

import ast
import sys
import threading
from pathlib import Path

from tests.helpers import ROOT, make_dump

PACKAGE = ROOT / "src" / "neurips_abstracts"
NAME = "neurips_abstracts"

# The order of the stages, folder -> rank: a module may import only from its own folder or from a
# folder of a lower rank. text/ ranks below ingest/: its pure string functions are the rules the
# readers refuse and warn by. The modules on top of the package rank by TOP_RANK below.
STAGE_RANK: dict[str, int] = {"core": 0, "text": 1, "ingest": 2, "dedup": 3, "ids": 4, "release": 5, "record": 6,
                               "build": 7, "hub": 8, "contribute": 8, "cli": 9}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = [NAME, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, modules) -> set[str]:
    """The modules a ``from X import a, b`` imports: ``X.a`` where that is a module (a submodule
    of package X), else X itself."""
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    return {f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the package modules it imports, anywhere in its source."""
    files = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        named: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                named.update(_resolve(module, path.name == "__init__.py", node, files))
        graph[module] = {n for n in named if n in files and n != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def backwards(graph: dict[str, set[str]], rank: dict[str, int]) -> list[str]:
    """Imports from a folder of a higher rank than the importer's (both folders in ``rank``)."""

    def folder(module: str) -> str:  # a folder's __init__ is in its folder
        parts = module.split(".")
        return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in rank) else ""

    wrong = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = folder(module), folder(target)
            if a in rank and b in rank and rank[b] > rank[a]:
                wrong.append(f"{module} imports {target} ({b or 'the top'} comes after {a or 'the top'})")
    return wrong


def test_no_import_circles():
    graph = import_graph()
    assert len(graph) > 20 and sum(map(len, graph.values())) > 50  # the walk found the package
    assert circles(graph) == []


def test_imports_run_with_the_stages():
    assert backwards(import_graph(), STAGE_RANK) == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_circle_through_a_late_import_is_found(tmp_path):
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from .b import x\n",
        "b.py": "def f():\n    from . import c\n",
        "c.py": "import neurips_abstracts.a\n",
        "d.py": "from .a import y\n",
    })
    graph = import_graph(pkg)
    assert graph["neurips_abstracts.b"] == {"neurips_abstracts.c"}
    assert circles(graph) == [["neurips_abstracts.a", "neurips_abstracts.b", "neurips_abstracts.c"]]


def test_a_backwards_import_between_folders_is_found(tmp_path):
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "ingest/__init__.py": "",
        "ingest/load.py": "from ..dedup.near import z\n",
        "dedup/__init__.py": "",
        "dedup/near.py": "from ..ingest import load\nfrom .. import build\n",
        "build.py": "from .dedup import near\n",
    })
    graph = import_graph(pkg)
    assert graph["neurips_abstracts.dedup.near"] == {"neurips_abstracts.ingest.load", "neurips_abstracts.build"}
    assert backwards(graph, {"ingest": 0, "dedup": 1}) == [
        "neurips_abstracts.ingest.load imports neurips_abstracts.dedup.near (dedup comes after ingest)"]
    assert backwards(graph, {"ingest": 1, "dedup": 0}) == [
        "neurips_abstracts.dedup.near imports neurips_abstracts.ingest.load (ingest comes after dedup)"]
    assert backwards(graph, {"ingest": 0, "dedup": 1, "": 2}) == [
        "neurips_abstracts.dedup.near imports neurips_abstracts.build (the top comes after dedup)",
        "neurips_abstracts.ingest.load imports neurips_abstracts.dedup.near (dedup comes after ingest)"]


# The modules on top of the package: the public ``normalize`` over text/ (1), the build over the
# stages (7), which hub/ (publish re-checks a build) and contribute/ (add builds a trial release)
# call, then ``python -m`` (9). A new module on top without a rank fails the test below.
TOP_RANK: dict[str, int] = {"normalize": 1, "__main__": 9}


def place_rank(module: str) -> int | None:
    parts = module.split(".")[1:]
    if not parts:
        return None  # the package's own __init__
    return STAGE_RANK.get(parts[0]) if parts[0] in STAGE_RANK else TOP_RANK.get(parts[0])


def test_every_module_has_a_place_and_imports_only_downwards():
    graph = import_graph()
    assert [m for m in sorted(graph) if m != NAME and place_rank(m) is None] == []
    upward = [f"{m} imports {t}" for m, targets in sorted(graph.items()) for t in sorted(targets)
              if m != NAME and t != NAME and place_rank(t) > place_rank(m)]
    assert upward == []



def benchmark_imports(package: Path = PACKAGE) -> list[str]:
    """Every import of the benchmarks folder (or a module of it) in ``package``'s source."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{module_name(path, package)} imports {n}" for n in names if n.split(".")[0] == "benchmarks"]
    return found


def test_the_library_imports_nothing_of_the_benchmarks(tmp_path):
    """The benchmarks make their own docs (benchmarks/docs.py): no module of the package, the
    wheel's, imports the benchmarks folder or a module of it, anywhere in its source."""
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "def f():\n    from benchmarks.docs import refresh\n",
                              "b.py": "import benchmarks, json\n", "c.py": "from .benchmarks import x\n"})
    assert benchmark_imports(pkg) == ["neurips_abstracts.a imports benchmarks.docs",
                                      "neurips_abstracts.b imports benchmarks"]
    assert benchmark_imports() == []


def hub_private_imports(package: Path = PACKAGE) -> list[str]:
    """Every import, anywhere in ``package``'s source, of a private part of huggingface_hub: a
    module path with a part starting with "_" (``huggingface_hub.utils._http``), a private name
    or module imported from it (``from huggingface_hub.utils import _http``), or such a path given
    to ``importlib.import_module`` or ``__import__``. Any minor release may move them."""
    def private(dotted: str) -> bool:
        parts = dotted.split(".")
        return parts[0] == "huggingface_hub" and any(p.startswith("_") and not p.startswith("__") for p in parts)

    found = []
    for path in sorted(package.rglob("*.py")):
        module = module_name(path, package)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                found += [f"{module} imports {a.name}" for a in node.names if private(a.name)]
            elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "huggingface_hub":
                found += [f"{module} imports {node.module}.{a.name}" for a in node.names
                          if private(f"{node.module}.{a.name}")]
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if called in ("import_module", "__import__") and private(str(node.args[0].value)):
                    found.append(f"{module} imports {node.args[0].value}")
    return found


def test_no_private_module_or_name_of_huggingface_hub_is_imported(tmp_path):
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from huggingface_hub.utils._http import default_client_factory\n",
        "b.py": "from huggingface_hub.utils import _http, get_session\nfrom huggingface_hub import HfApi\n",
        "c.py": "import huggingface_hub._commit_api as c, huggingface_hub.constants\n",
        "d.py": "import importlib\nx = importlib.import_module('huggingface_hub.utils._xet')\n",
        "e.py": "from huggingface_hub import set_client_factory, __version__\nfrom ._private import y\n",
    })
    assert hub_private_imports(pkg) == [
        "neurips_abstracts.a imports huggingface_hub.utils._http.default_client_factory",
        "neurips_abstracts.b imports huggingface_hub.utils._http",
        "neurips_abstracts.c imports huggingface_hub._commit_api",
        "neurips_abstracts.d imports huggingface_hub.utils._xet",
    ]
    assert hub_private_imports() == []


def private_imports(package: Path = PACKAGE) -> list[str]:
    """``from X import _name`` where X is a module of another folder (or the top) than the importer's."""
    files = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    found = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        parts = module.split(".")
        folder = parts[1] if len(parts) > (1 if path.name == "__init__.py" else 2) else ""
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            for target in _resolve(module, path.name == "__init__.py", node, files):
                parts = target.split(".")
                if parts[0] != NAME:
                    continue  # the standard library's or another package's: not ours to keep private
                there = parts[1] if len(parts) > 2 or (len(parts) == 2 and (package / parts[1]).is_dir()) else ""
                names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if names and there != folder:
                    found.append(f"{module} imports {', '.join(names)} from {target}")
    return found


def test_no_private_name_is_imported_across_folders(tmp_path):
    assert private_imports() == []
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a/__init__.py": "", "a/x.py": "_hidden = 1\nshown = 2\n", "a/y.py": "from .x import _hidden\n",
        "b/__init__.py": "", "b/z.py": "from ..a.x import _hidden, shown\n",
    })
    assert private_imports(pkg) == ["neurips_abstracts.b.z imports _hidden from neurips_abstracts.a.x"]


# The build reads as a list of stage calls: followed from ``build()``, the raw folder goes down
# through the layers and climbs back up at most ``MAX_CLIMBS`` times.
#
# Followed: every call into the package handed the raw folder (its path, a path inside it, a
# function reading one, or a list, tuple, dataclass or closure holding one), with the module
# each returns to, for a build of one dump in this process. A climb is a step from a module to
# one of a higher rank (``test_imports``: the build 7, stages 6, ... core 0). Measured at 7895eda,
# before the stages had modules of their own, and now: see the closing note of issue 33.
MAX_CLIMBS = 8


def raw_path(raw: Path, run) -> list[str]:
    """The package modules the raw folder passes through while ``run()`` runs, in order
    (consecutive steps in one module as one)."""
    raw = raw.resolve()

    def refers(v, depth: int = 0) -> bool:
        if depth > 3:
            return False
        if isinstance(v, (str, Path)):
            try:
                p = Path(v).resolve()
            except (OSError, ValueError):
                return False
            return p == raw or raw in p.parents
        if isinstance(v, (list, tuple)):
            return any(refers(x, depth + 1) for x in list(v)[:20])
        if isinstance(getattr(v, "__self__", None), Path):  # a bound method of a path: p.read_bytes
            return refers(v.__self__)
        if callable(v) and getattr(v, "__closure__", None):
            return any(refers(c.cell_contents, depth + 1) for c in v.__closure__ if c.cell_contents is not v)
        if hasattr(v, "__dataclass_fields__") and not isinstance(v, type):
            return any(refers(getattr(v, f, None), depth + 1) for f in v.__dataclass_fields__)
        return False

    steps: list[str] = []
    followed: set[int] = set()

    def profile(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("neurips_abstracts."):
            return
        if event == "call":
            code = frame.f_code
            if any(refers(frame.f_locals.get(n)) for n in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]):
                followed.add(id(frame))
                steps.append(module)
        elif event == "return" and id(frame) in followed:
            followed.discard(id(frame))
            back = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
            if back.startswith("neurips_abstracts."):
                steps.append(back)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return [m for k, m in enumerate(steps) if k == 0 or steps[k - 1] != m]


def climbs(path: list[str]) -> int:
    ranks = [place_rank(m) for m in path]
    return sum(b > a for a, b in zip(ranks, ranks[1:]))


def test_the_raw_folder_goes_down_through_the_stages_and_climbs_back_at_most_eight_times(tmp_path):
    from neurips_abstracts.build import build

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / f"000_{0:016x}.txt").write_bytes(make_dump([f"Paper {k} studies {' '.join(f'w{k}{j}' for j in range(25))}." for k in range(3)]))
    for previous in ({"previous": None}, {}):  # a first release, then one anchored to the release beside raw/
        path = raw_path(raw, lambda: build(raw, tmp_path / "dist", **previous))
        assert path[0] == "neurips_abstracts.build" and "neurips_abstracts.build.stages.read" in path
        assert "neurips_abstracts.build.stages.parse" in path  # followed into the stages, not lost on the way
        assert climbs(path) <= MAX_CLIMBS, path


def test_a_climb_is_a_step_to_a_higher_rank():
    path = ["neurips_abstracts.build", "neurips_abstracts.build.stages.read", "neurips_abstracts.ingest.load",
            "neurips_abstracts.build.stages.read", "neurips_abstracts.core.guard", "neurips_abstracts.build"]
    assert climbs(path) == 2


def private_imports_within(folder: Path, package: Path = PACKAGE) -> list[str]:
    """``from X import _name`` in a module of ``folder`` where X is another module of the package:
    inside one package a name another file uses is public to it."""
    files = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    found = []
    for module, path in files.items():
        if folder not in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                for target in _resolve(module, path.name == "__init__.py", node, files):
                    names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                    if target.split(".")[0] == NAME and target != module and names:
                        found.append(f"{module} imports {', '.join(names)} from {target}")
    return found


def test_the_latex_renderer_imports_no_private_name_across_its_files(tmp_path):
    assert private_imports_within(PACKAGE / "text" / "latex") == []
    pkg = _package(tmp_path, {"__init__.py": "", "t/__init__.py": "", "t/l/__init__.py": "",
                              "t/l/a.py": "_x = 1\ny = 2\n", "t/l/b.py": "from .a import _x, y\n"})
    assert private_imports_within(pkg / "t" / "l", pkg) == ["neurips_abstracts.t.l.b imports _x from neurips_abstracts.t.l.a"]


def test_hub_staging_imports_nothing_of_the_protocol():
    """What runs before anything is sent (staging) stands apart from the commit-and-tag protocol
    that sends it: staging imports nothing of it, and the protocol's steps (read, send, tag) and
    its recovery steps are module functions, none nested in another."""
    graph = import_graph()
    assert "neurips_abstracts.hub.protocol" not in graph["neurips_abstracts.hub.staging"]
    tree = ast.parse((PACKAGE / "hub" / "protocol.py").read_text(encoding="utf-8"))
    nested = [inner.name for outer in ast.walk(tree) if isinstance(outer, ast.FunctionDef)
              for inner in ast.walk(outer) if inner is not outer and isinstance(inner, ast.FunctionDef)]
    assert nested == [] and {"_read", "_send", "_tag", "_applied_earlier", "_tagged_earlier", "_untagged_earlier"} <= {
        n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
