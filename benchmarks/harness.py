"""What every benchmark shares: the same process conditions for every method, and the facts of
the machine a run used, read from the machine at run time (benchmarks/README.md renders them from the
results files; nothing about the machine is typed anywhere)."""

from __future__ import annotations

import gc
import json
import os
import platform
import shlex
import sys
import time
from importlib import metadata


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# The packages whose versions decide the figures: ours, the libraries it runs on, the baselines.
PACKAGES = ("neurips-abstracts", "rensa", "numpy", "pyarrow", "ftfy", "datasketch", "datatrove", "spacy")


def _cpu() -> float:
    # This process's threads and its reaped children (a finished worker pool's processes).
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(fn, *args, **kwargs):
    """(result, wall seconds, CPU seconds) of one call, under the conditions every method gets
    alike: a collection beforehand, so that no method pays for the garbage of the one before,
    and the cyclic collector off during the call, as our build runs (it pauses it itself), so
    that no method pays for collections another skips. CPU seconds count every thread of this
    process and the worker processes it has reaped by the end of the call."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        cpu, started = _cpu(), time.perf_counter()
        result = fn(*args, **kwargs)
        return result, time.perf_counter() - started, _cpu() - cpu
    finally:
        if was_enabled:
            gc.enable()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _os_name() -> str:
    try:
        with open("/etc/os-release", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("PRETTY_NAME="):
                    return f"{line.split('=', 1)[1].strip().strip(chr(34))} ({platform.system()} {platform.release()})"
    except OSError:
        pass
    return platform.platform()


def _version(name: str) -> str | None:
    if name == "neurips-abstracts":  # the tree that ran, not whatever install metadata says
        import tomllib

        from .corpus import ROOT

        return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def load_average() -> list[float] | None:
    """1, 5 and 15 minute load averages: how contended the machine was."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine() -> dict:
    return {
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "memory_bytes": _memory_bytes(),
        "os": _os_name(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": {name: _version(name) for name in PACKAGES},
    }


def command(module: str) -> str:
    """The command line that made a results file, as a reader would type it to rerun it."""
    return " ".join(["python -m", module, *map(shlex.quote, sys.argv[1:])])  # quoted as a shell reads them


def write_results(path, result: dict) -> None:
    """Write a benchmark's results file, then rewrite the benchmark blocks of README.md and
    benchmarks/README.md from the results files (``docs``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    refresh_docs()


def refresh_docs() -> None:
    """Rewrite the benchmark blocks of this checkout's README.md and benchmarks/README.md (the
    checkout these benchmarks are in, not the one the package may be installed from)."""
    from .docs import refresh

    print("README:", refresh() or "unchanged")
