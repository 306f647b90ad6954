"""Wall time of the everyday build: `python build_dataset.py build` on the seeds in raw/, as a
user runs it (a new process, imports included), median of several runs.

    python -m benchmarks.startup     # writes benchmarks/results/startup.json, refreshes README
    python -m benchmarks.startup --no-write    # print only
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from .corpus import ROOT
from .harness import command, load_average, machine

RUNS = 7


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-write", action="store_true", help="print only; do not update results/ or the READMEs")
    args = parser.parse_args()
    load_at_start = load_average()
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(RUNS):
            started, cpu_before = time.perf_counter(), _children_cpu()
            subprocess.run([sys.executable, str(ROOT / "build_dataset.py"), "build", "--out", f"{tmp}/d{k}"],
                           check=True, capture_output=True)
            walls.append(time.perf_counter() - started)
            cpus.append(_children_cpu() - cpu_before)
    result = {"runs": RUNS, "median_seconds": statistics.median(walls), "min_seconds": min(walls), "max_seconds": max(walls),
              "median_cpu_seconds": statistics.median(cpus),
              "machine": machine(), "command": command("benchmarks.startup"),
              "load_average": {"start": load_at_start, "end": load_average()}}
    print(json.dumps(result))
    if args.no_write:
        return
    (ROOT / "benchmarks" / "results" / "startup.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    from neurips_abstracts.docs import refresh_benchmark_blocks

    print("README:", refresh_benchmark_blocks() or "unchanged")


if __name__ == "__main__":
    main()
