"""Wall time of the everyday build: `python build_dataset.py build` on the seeds in raw/, as a
user runs it (a new process, imports included), median of several runs.

    python -m benchmarks.startup     # writes benchmarks/results/startup.json
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time

from .corpus import ROOT

RUNS = 7


def main() -> None:
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(RUNS):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "build_dataset.py"), "build", "--out", f"{tmp}/d{k}"],
                           check=True, capture_output=True)
            walls.append(time.perf_counter() - started)
    result = {"runs": RUNS, "median_seconds": statistics.median(walls), "min_seconds": min(walls), "max_seconds": max(walls)}
    (ROOT / "benchmarks" / "results" / "startup.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
