"""Wall time of the everyday build: `python build_dataset.py build` of the dumps in raw/ (the
seeds, in this repository), as a user runs it (a new process, imports included), median of
several runs.

    python -m benchmarks.startup     # writes benchmarks/results/startup.json, rewrites the READMEs' blocks
    python -m benchmarks.startup --no-write    # print only
    git worktree add ../old REVISION && python -m benchmarks.startup --against ../old

Machines differ by more than the changes measured here, so `--against` times a checkout of
another revision (made as above) in the same minutes, in turns (each first as often as the other), each building
its own raw/, which must hold the same files; the README block then gives the ratio of the two
medians.
In the same rounds it splits the build's time: a new process first imports the modules the
build imports now (those a build of this tree leaves in ``sys.modules``, the package's own left
out, the standard library's included; pandera's polars API imported as the build imports it),
timing that, then builds with all of them loaded, timing that; and the interpreter's own start
(``python -c pass``) is timed alone.
Both trees' modules are compiled to bytecode first, as `pip install` does, so that neither run
pays for compiling its sources (an environment with PYTHONDONTWRITEBYTECODE set would otherwise
compile an editable checkout on every run).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .corpus import ROOT
from .harness import command, load_average, machine, write_results

RUNS = 7  # rounds at least: made a whole number of balanced cycles (``_order``)


def _order(jobs: list[str], rounds: int) -> list[list[str]]:
    """The order of ``jobs`` in each of ``rounds`` rounds: each job first in its turn, and every
    second cycle reversed, so that over a whole number of cycles (``rounds`` a multiple of twice
    the jobs) each job goes first equally often and each pair of jobs runs in either order equally
    often: neither tree gains from running before the other."""
    n = len(jobs)
    orders = []
    for k in range(rounds):
        order = jobs[k % n:] + jobs[:k % n]
        orders.append(order[::-1] if (k // n) % 2 else order)
    return orders


def _rounds(jobs: list[str]) -> int:
    cycle = 2 * len(jobs)
    return -(-RUNS // cycle) * cycle


def _children_cpu() -> float:
    import resource  # POSIX's: this module is imported on any system, a run is POSIX's

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _revision(tree: Path) -> str:
    """The tree's commit, marked "-dirty" if its files differ from it."""
    done = subprocess.run(["git", "-C", str(tree), "describe", "--always", "--dirty", "--abbrev=7", "--exclude=*"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def _dumps(tree: Path) -> dict[str, bytes]:
    """The files of the tree's raw/: its dumps and their metadata files."""
    return {p.name: p.read_bytes() for p in sorted((tree / "raw").iterdir()) if p.is_file()}


def _build(tree: Path, out: str) -> None:
    done = subprocess.run([sys.executable, str(tree / "build_dataset.py"), "build", "--raw", str(tree / "raw"),
                           "--out", out], capture_output=True, text=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree / "src")})
    if done.returncode != 0:
        sys.exit(f"the build of {tree} failed (exit {done.returncode}):\n{done.stderr}")


# The build run in-process by the scripts below, from the tree (their working folder), into
# the folder named by ``sys.argv[{out}]``, from raw/ named by ``sys.argv[{raw}]``.
_BUILD_IN_PROCESS = """
sys.argv = ["build_dataset.py", "build", "--raw", sys.argv[{raw}], "--out", sys.argv[{out}]]
try:
    runpy.run_path("build_dataset.py", run_name="__main__")
except SystemExit as stop:
    if stop.code:
        raise
"""

# Run in a new process at the tree: the build in-process, then the names of the modules it
# loaded that are not the package's, in the order they were loaded (a module after its package).
_LOADED = """
import sys
before = set(sys.modules)
import json, runpy
""" + _BUILD_IN_PROCESS.format(raw=1, out=2) + """
print(json.dumps([m for m in sys.modules if m not in before and m.partition(".")[0] != "neurips_abstracts"]))
"""

# Imports the modules named in the file ``sys.argv[1]`` (pandera's polars API first, as the
# build imports it: ``import_pandera_polars``, which also loads the package's module holding it),
# then imports the package's other modules and builds raw/ (``sys.argv[2]``) into ``sys.argv[3]``;
# prints the seconds of each part and how many modules could not be imported on their own (tried,
# and left out of the count).
_IMPORTS_THEN_BUILD = """
import sys, time
started = time.perf_counter()
import importlib, json, runpy
from neurips_abstracts.core.schema import import_pandera_polars
import_pandera_polars()
with open(sys.argv[1]) as listed:
    names = json.load(listed)
failed = 0
for name in names:
    if name not in sys.modules:
        try:
            importlib.import_module(name)
        except Exception:
            failed += 1
imported = time.perf_counter()
""" + _BUILD_IN_PROCESS.format(raw=2, out=3) + """
print(json.dumps({"failed": failed, "imports": imported - started, "build": time.perf_counter() - imported}))
"""


def _libraries(tree: Path, tmp: str) -> Path:
    """A file listing the modules a build of ``tree`` loads that are not the package's."""
    done = subprocess.run([sys.executable, "-c", _LOADED, str(tree / "raw"), f"{tmp}/libraries-dist"],
                          capture_output=True, text=True, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree / "src")})
    if done.returncode != 0:
        sys.exit(f"the build of {tree} in-process failed (exit {done.returncode}):\n{done.stderr}")
    listed = Path(tmp) / "libraries.json"
    listed.write_text(done.stdout.strip().splitlines()[-1])
    return listed


def _child(name: str, args: list[str], tree: Path) -> str:
    """The standard output of a new Python process at ``tree`` (its ``name`` says which, if it fails)."""
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree / "src")})
    if done.returncode != 0:
        sys.exit(f"{name} failed (exit {done.returncode}):\n{done.stderr}")
    return done.stdout


def _range(seconds: list[float]) -> dict:
    return {"median_seconds": statistics.median(seconds), "min_seconds": min(seconds), "max_seconds": max(seconds)}


def _summary(walls: list[float], cpus: list[float]) -> dict:
    return {**_range(walls), "median_cpu_seconds": statistics.median(cpus)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-write", action="store_true", help="print only; do not update results/ or the READMEs")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="a checkout of another revision to time in the same runs, taking turns")
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    for tree in trees.values():
        if not (tree / "build_dataset.py").is_file():
            parser.error(f"{tree} holds no build_dataset.py")
    if args.against and _dumps(trees["against"]) != _dumps(ROOT):
        parser.error(f"{trees['against']}/raw holds other files than raw/: the two builds would do different work")
    for tree in trees.values():
        if not compileall.compile_dir(tree / "src", quiet=1):
            sys.exit(f"{tree / 'src'} does not compile")
    load_at_start = load_average()
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in trees}
    split: dict[str, list[float]] = {"imports": [], "build": [], "interpreter": []}
    with tempfile.TemporaryDirectory() as tmp:
        libraries = _libraries(ROOT, tmp)
        modules = len(json.loads(libraries.read_text()))
        jobs = [*trees, "split", "interpreter"]
        rounds = _rounds(jobs)
        not_importable = set()
        for k, order in enumerate(_order(jobs, rounds)):
            for name in order:
                if name == "interpreter":
                    started = time.perf_counter()
                    _child(name, ["-c", "pass"], ROOT)
                    split["interpreter"].append(time.perf_counter() - started)
                elif name == "split":
                    printed = _child("the imports, then the build", ["-c", _IMPORTS_THEN_BUILD, str(libraries),
                                                                   str(ROOT / "raw"), f"{tmp}/split{k}"], ROOT)
                    parts = json.loads(printed.strip().splitlines()[-1])
                    split["imports"].append(parts["imports"])
                    split["build"].append(parts["build"])
                    not_importable.add(parts["failed"])
                else:
                    started, cpu_before = time.perf_counter(), _children_cpu()
                    _build(trees[name], f"{tmp}/{name}{k}")
                    times[name][0].append(time.perf_counter() - started)
                    times[name][1].append(_children_cpu() - cpu_before)
    result = {"runs": rounds, "dumps": len(list((ROOT / "raw").glob("*.txt"))), **_summary(*times["this"]),
              "machine": machine(), "command": command("benchmarks.startup"),
              "load_average": {"start": load_at_start, "end": load_average()},
              "split": {"modules": modules, "not_importable_alone": max(not_importable),
                        **{name: _range(seconds) for name, seconds in split.items()}}}
    if args.against:
        result["against"] = {"revision": _revision(trees["against"]), **_summary(*times["against"])}
        result["revision"] = _revision(ROOT)
    print(json.dumps(result))
    if args.no_write:
        return
    write_results(ROOT / "benchmarks" / "results" / "startup.json", result)


if __name__ == "__main__":
    main()
