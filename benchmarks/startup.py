"""Wall time of the everyday build: `python build_dataset.py build` on the seeds in raw/, as a
user runs it (a new process, imports included), median of several runs.

    python -m benchmarks.startup     # writes benchmarks/results/startup.json, refreshes README
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time

from .corpus import ROOT
from .harness import command, load_average, machine

RUNS = 7


def main() -> None:
    load_at_start = load_average()
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(RUNS):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "build_dataset.py"), "build", "--out", f"{tmp}/d{k}"],
                           check=True, capture_output=True)
            walls.append(time.perf_counter() - started)
    result = {"runs": RUNS, "median_seconds": statistics.median(walls), "min_seconds": min(walls), "max_seconds": max(walls),
              "machine": machine(), "command": command("benchmarks.startup"),
              "load_average": {"start": load_at_start, "end": load_average()}}
    (ROOT / "benchmarks" / "results" / "startup.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result))
    from neurips_abstracts.docs import refresh_benchmark_blocks

    print("README:", refresh_benchmark_blocks() or "unchanged")


if __name__ == "__main__":
    main()
