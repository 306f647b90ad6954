"""Mutation run over the modules that hold the release's guarantees (issue 35).

    python benchmarks/mutation.py [--per-module N] [--module NAME ...] [--out benchmarks/results/mutation.json]

(the scheduled workflow runs it weekly; how long a run took is in its results file)

Why a runner of our own: mutmut 3 copies the sources into a mutants/ folder and rewrites every
function into a trampoline, which this src layout with an editable install and a suite that
builds through subprocesses does not follow. This one is small and deterministic:

* **mutants**: one simple change at a time, made on the source text at an AST node's span (the
  rest of the file unchanged): a comparison flipped (``<`` to ``>=``, ``==`` to ``!=``, ``in`` to
  ``not in``, ``is`` to ``is not``), ``and``/``or`` swapped, ``not`` dropped, an int constant plus
  one, ``True``/``False`` swapped, ``+``/``-`` swapped, and a ``continue``, ``break`` or ``raise``
  deleted (made ``pass``). Only inside the functions listed for each module.
* **sample**: every candidate is listed in source order; at most a module's cap (``TARGETS``, or
  ``--per-module``) of them are run, spread evenly over the list (the same ones on every run), so the whole run stays within its time.
* **verdict**: the module's targeted test files run with ``-x -q -p no:randomly -n 0`` on the
  mutated file; a failing (or timed-out, or no longer importable) run kills the mutant. The file
  is restored after each mutant, and on any exit.

The results (score, and each survivor with its place and change) go to a JSON file; the
survivors and why each is kept are written up in benchmarks/MUTATION.md.
"""

from __future__ import annotations

import argparse
import ast
import atexit
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "neurips_abstracts"

# module -> (functions to mutate, or () for every function; the test files that guard it; how
# many of its mutants a run tries: the caps keep a weekly run short; what a run took is
# written by the run into its results file, not here)
TARGETS: dict[str, tuple[tuple[str, ...], tuple[str, ...], int]] = {
    "build/contracts.py": (("check_tables", "_check_unique_across", "_check_ids"),
                             ("tests/build/test_schema_contracts.py", "tests/build/test_contract_faults.py"), 29),
    "ids/identity.py": ((), ("tests/ids/test_identity.py", "tests/ids/test_identity_rules.py", "tests/build/test_schema_contracts.py"), 25),
    "text/plain.py": (("_kind", "strip_emphasis", "_runs_found", "_hold_out", "_merge"),
                      ("tests/text/test_plain.py", "tests/text/test_linear_work.py", "tests/text/test_render_rules.py", "tests/text/test_unicode.py"), 25),
    "text/latex/render.py": ((), ("tests/text/test_plain_render.py", "tests/text/test_render_rules.py", "tests/text/test_plain.py"), 50),
    "core/guard.py": ((), ("tests/core/test_guard.py", "tests/core/test_guard_edges.py"), 25),
    "core/lock.py": ((), ("tests/core/test_lock.py",), 20),
    "ingest/previous.py": ((), ("tests/ingest/test_previous.py",), 30),
}

_FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


@dataclass(frozen=True)
class Mutant:
    module: str
    function: str
    line: int
    change: str  # what was changed, for the report
    start: tuple[int, int]  # (line, column) of the span replaced, 1-based line
    end: tuple[int, int]
    replacement: str


def _functions(tree: ast.Module, names: tuple[str, ...]):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (not names or node.name in names):
            yield node


def _in_fstring(func: ast.AST) -> set[int]:
    inside = set()
    for node in ast.walk(func):
        if isinstance(node, ast.JoinedStr):
            inside.update(id(n) for n in ast.walk(node))
    return inside


def _mutants(module: str, source: str, names: tuple[str, ...]) -> list[Mutant]:
    tree = ast.parse(source)
    found: dict[tuple, Mutant] = {}

    def add(func, node, change, replacement, statement=False):
        text = replacement if statement else f"({replacement})"
        m = Mutant(module, func.name, node.lineno, change, (node.lineno, node.col_offset),
                   (node.end_lineno, node.end_col_offset), text)
        found.setdefault((m.start, m.end, m.replacement), m)

    for func in _functions(tree, names):
        skip = _in_fstring(func)
        for node in ast.walk(func):
            if id(node) in skip or node is func:
                continue
            original = ast.get_source_segment(source, node)
            if isinstance(node, ast.Compare):
                for k, op in enumerate(node.ops):
                    if type(op) in _FLIP:
                        ops = list(node.ops)
                        ops[k] = _FLIP[type(op)]()
                        new = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
                        add(func, node, f"{type(op).__name__} -> {type(ops[k]).__name__}", ast.unparse(new))
            elif isinstance(node, ast.BoolOp):
                other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
                add(func, node, f"{type(node.op).__name__} -> {type(other).__name__}",
                    ast.unparse(ast.BoolOp(op=other, values=node.values)))
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                add(func, node, "not dropped", ast.unparse(node.operand))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
                other = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
                add(func, node, f"{type(node.op).__name__} -> {type(other).__name__}",
                    ast.unparse(ast.BinOp(left=node.left, op=other, right=node.right)))
            elif isinstance(node, ast.Constant) and type(node.value) is bool:
                add(func, node, f"{node.value} -> {not node.value}", repr(not node.value))
            elif isinstance(node, ast.Constant) and type(node.value) is int and original == repr(node.value):
                add(func, node, f"{node.value} -> {node.value + 1}", repr(node.value + 1))
            elif isinstance(node, (ast.Continue, ast.Break, ast.Raise)):
                add(func, node, f"{type(node).__name__.lower()} deleted", "pass", statement=True)
    return sorted(found.values(), key=lambda m: (m.start, m.end, m.change))


def _apply(source: str, m: Mutant) -> str:
    lines = source.splitlines(keepends=True)
    # AST columns are UTF-8 byte offsets
    (l0, c0), (l1, c1) = m.start, m.end
    head = lines[l0 - 1].encode()[:c0].decode()
    tail = lines[l1 - 1].encode()[c1:].decode()
    return "".join(lines[: l0 - 1]) + head + m.replacement + tail + "".join(lines[l1:])


def _spread(items: list, n: int) -> list:
    if len(items) <= n:
        return items
    return [items[(k * len(items)) // n] for k in range(n)]


def _run_tests(tests: tuple[str, ...], timeout: float) -> tuple[bool, float, str]:
    """(killed, seconds, how) for one run of ``tests``."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                               "-n", "0", *tests], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, time.monotonic() - start, "timeout"
    seconds = time.monotonic() - start
    if proc.returncode == 0:
        return False, seconds, "survived"
    return True, seconds, "failed" if proc.returncode == 1 else f"pytest exit {proc.returncode}"


class _Restore:
    """Puts the original text (and modification time, so that its cached bytecode stays valid)
    back on any exit."""

    def __init__(self):
        self.saved: dict[Path, tuple[str, int]] = {}
        atexit.register(self.restore)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def save(self, path: Path) -> None:
        self.saved.setdefault(path, (path.read_text(encoding="utf-8"), path.stat().st_mtime_ns))

    def restore(self) -> None:
        for path, (text, mtime) in self.saved.items():
            if path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            os.utime(path, ns=(mtime, mtime))


REPORT = Path(__file__).resolve().parent / "MUTATION.md"


def survivor_key(r: dict) -> str:
    """How MUTATION.md names a survivor: stable while unrelated lines move."""
    return f"{r['module']} {r['function']}: {r['change']} `{r['mutated']}` at column {r.get('column')}"


def _compare(results: Path) -> int:
    report = REPORT.read_text(encoding="utf-8")
    new = [survivor_key(r) for r in json.loads(results.read_text(encoding="utf-8"))["results"]
           if not r["killed"] and survivor_key(r) not in report]
    for key in new:
        print(f"survivor not accounted for in {REPORT.name}: {key}", file=sys.stderr)
    return 1 if new else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-module", type=int, help="mutants run per module at most (default: each module's in TARGETS)")
    parser.add_argument("--module", action="append", choices=sorted(TARGETS), help="only these modules")
    parser.add_argument("--out", default="benchmarks/results/mutation.json")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--resume", metavar="RESULTS",
                        help="take the mutants RESULTS has as killed from it, run the others; modules not run keep RESULTS' results")
    parser.add_argument("--compare", metavar="RESULTS", help="exit 1 if a survivor of RESULTS is not in MUTATION.md")
    args = parser.parse_args(argv)
    if args.compare:
        return _compare(Path(args.compare))
    restore = _Restore()
    results = []
    # tests are only ever added to a module's list: a mutant killed once stays killed
    done = {}
    if args.resume:
        done = {(r["module"], r["function"], r["change"], r["mutated"], r["line"]): r
                for r in json.loads((ROOT / args.resume).read_text(encoding="utf-8"))["results"] if r["killed"]}
    for module in args.module or sorted(TARGETS):
        names, tests, cap = TARGETS[module]
        path = PACKAGE / module
        source = path.read_text(encoding="utf-8")
        candidates = _mutants(module, source, names)
        chosen = _spread(candidates, args.per_module or cap)
        if args.list:
            for m in chosen:
                print(f"{module}:{m.line} {m.function}: {m.change}")
            continue
        restore.save(path)
        killed, base_seconds, _ = _run_tests(tests, timeout=1800)
        if killed:
            print(f"{module}: the tests fail without a mutant; fix them first", file=sys.stderr)
            return 2
        timeout = max(60.0, 3 * base_seconds)
        mtime = path.stat().st_mtime_ns
        for k, m in enumerate(chosen):
            if (earlier := done.get((module, m.function, m.change, m.replacement, m.line))) is not None:
                results.append(earlier)
                continue
            mutated = _apply(source, m)
            compile(mutated, str(path), "exec")  # a mutant must be valid Python
            path.write_text(mutated, encoding="utf-8")
            # a modification time of its own: no cached bytecode of another version is taken for it
            os.utime(path, ns=(mtime + (k + 1) * 10**9, mtime + (k + 1) * 10**9))
            try:
                dead, seconds, how = _run_tests(tests, timeout)
            finally:
                restore.restore()
            results.append({"module": module, "function": m.function, "line": m.line, "column": m.start[1], "change": m.change,
                            "mutated": m.replacement, "killed": dead, "how": how, "seconds": round(seconds, 1)})
            print(f"{'killed ' if dead else 'SURVIVED'} {module}:{m.line} {m.function}: {m.change} ({how}, {seconds:.0f} s)",
                  flush=True)
        print(f"{module}: {len(chosen)} of {len(candidates)} candidates run", flush=True)
    if args.list:
        return 0
    if args.resume:  # the modules not run this time keep their results
        ran = set(args.module or TARGETS)
        results += [r for r in json.loads((ROOT / args.resume).read_text(encoding="utf-8"))["results"] if r["module"] not in ran]
    killed = sum(r["killed"] for r in results)
    summary = {"mutants": len(results), "killed": killed, "survived": len(results) - killed,
               "score": round(killed / len(results), 3) if results else None, "per_module": args.per_module,
               "results": results}
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"score {killed}/{len(results)}; results in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
