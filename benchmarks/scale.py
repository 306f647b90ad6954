"""Scale benchmark: the real build on N generated raw records, stage by stage, against a plain
reference pipeline and, for the near-duplicate work alone, against datasketch and datatrove.

For each N (10k, 100k, 1M by default) it generates the dumps once (``benchmarks/generate.py``,
fixed seed, cached in benchmarks/out/), then, each part in a fresh process:

* the whole pipeline, ours (one process) and the reference (``baselines.reference_pipeline``:
  parse, NFC, datasketch MinHash LSH, Parquet with pyarrow), alternating: seconds, CPU seconds,
  peak memory (PSS of the process, sampled each second) and seconds per stage,
  papers found and precision/recall of the records put together, against the generator's labels;
* the floor: read and SHA-256 the same bytes;
* the near-duplicate work alone on the distinct normalized texts: ours against datasketch
  (interleaved, after a warm-up), and, at 100k records only, against datatrove's MinHash
  pipeline (one task per core) on the first 20,000 of them.

Every method runs with the cyclic garbage collector off while timed (``harness.timed``; our
build pauses it itself) and with its imports done beforehand. The results file records, for each
size, the machine, read from it at run time, the command, and the load average at start and end. Results go to
benchmarks/results/scale.json and scale.png, and its blocks of README.md and benchmarks/README.md are
rewritten (``docs``).

    python -m benchmarks.scale                 # 10k, 100k, 1M
    python -m benchmarks.scale --sizes 10000   # one size (the others stay if measured on this machine)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

from .baselines import (
    datasketch_clusters,
    datatrove_dedup,
    datatrove_input,
    reference_pipeline,
)
from .corpus import ROOT
from .harness import command, load_average, machine, refresh_docs, timed, usable_cores

OUT = ROOT / "benchmarks" / "out"
RESULTS = ROOT / "benchmarks" / "results"
SIZES = (10_000, 100_000, 1_000_000)
DATATROVE_SUBSET = 20_000
# datatrove is compared at this size only: its signatures take minutes on 20,000 texts, and one
# comparison tells as much as three on the same kind of texts.
DATATROVE_AT = 100_000
WARM_UP = 1_000  # texts each near-dup method runs once before anything is timed


def _rss_tree(pid: int) -> int:
    """Proportional set size (PSS) of ``pid`` and all its descendants: memory shared between a
    parent and any child processes is counted once, not once per process as RSS would."""
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    stack.extend(int(c) for c in fh.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


class Sampler:
    """Peak memory (PSS of the build) per stage, sampled in a thread. A stage entered many
    times (the build parses and normalizes dump by dump) adds up its seconds."""

    def __init__(self):
        self.peak = 0
        self.active: tuple[str, dict] | None = None
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _note(self, pss: int) -> None:
        self.peak = max(self.peak, pss)
        if self.active:
            name, into = self.active
            into[name]["peak_bytes"] = max(into[name]["peak_bytes"], pss)

    def _run(self):
        # Reading PSS makes the kernel walk every page of the process: once a second keeps the
        # sampler from slowing the build it measures (every 10 ms cost a million-record build a
        # third of its speed), at the price of missing peaks shorter than a second.
        pid = os.getpid()
        while not self.stop:
            self._note(_rss_tree(pid))
            time.sleep(1.0)

    @contextlib.contextmanager
    def stage(self, name: str, into: dict):
        first = name not in into
        into.setdefault(name, {"seconds": 0.0, "cpu_seconds": 0.0, "peak_bytes": 0, "entered": 0})
        self.active = (name, into)
        if first:  # a stage shorter than the sampling interval still gets a reading
            self._note(_rss_tree(os.getpid()))
        started, cpu_started = time.perf_counter(), time.process_time()
        yield
        into[name]["seconds"] += time.perf_counter() - started
        # On a shared machine CPU seconds say more than wall seconds (they leave out waiting for
        # the cores); the process's own CPU, threads included, child processes not.
        into[name]["cpu_seconds"] += time.process_time() - cpu_started
        into[name]["entered"] += 1
        if first:
            self._note(_rss_tree(os.getpid()))
        self.active = None


def ensure_dumps(n: int) -> Path:
    from .generate import SEED, records, write_dumps

    folder = OUT / f"raw-{n}"
    done = folder / ".complete"
    if not done.exists():
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        texts, labels = records(n, SEED)
        write_dumps(texts, folder, SEED)
        (folder / ".labels.json").write_text(json.dumps(labels))
        done.write_text("ok")
    return folder


def pair_scores(truth: list[int], predicted: list[str]) -> dict:
    """Precision and recall of the pairs of items put together, from the contingency table."""
    from collections import Counter

    def pairs(counter):
        return sum(c * (c - 1) // 2 for c in counter.values())

    tp = pairs(Counter(zip(truth, predicted)))
    merged, true = pairs(Counter(predicted)), pairs(Counter(truth))
    return {"precision": tp / merged if merged else 1.0, "recall": tp / true if true else 1.0}


def _files(n: int | str) -> tuple[Path, list[Path], list[int]]:
    folder = OUT / f"raw-{n}"  # made by ensure_dumps in the parent, so its memory is not counted here
    return folder, sorted(p for p in folder.iterdir() if p.suffix == ".txt"), json.loads((folder / ".labels.json").read_text())


def _whole(n: int, run, papers_of_records) -> dict:
    """One whole-pipeline run (``run(stage)``) in this fresh process: seconds, peak memory and
    stages, and the papers it found against the generator's labels, counted on records."""
    _, files, labels = _files(n)
    total_bytes = sum(p.stat().st_size for p in files)
    n = len(labels)
    sampler = Sampler()
    stages: dict = {}
    outcome, seconds, cpu_seconds = timed(run, lambda name: sampler.stage(name, stages))
    sampler.stop = True
    found = papers_of_records(outcome)
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_bytes": max(sampler.peak, *(s["peak_bytes"] for s in stages.values())),
        "stages": {
            name: {**s, "records_per_second": n / s["seconds"], "mb_per_second": total_bytes / 1e6 / s["seconds"]}
            for name, s in stages.items()
        },
        "papers": len(set(found)),
        "records": pair_scores(labels, found),
    }


def ensure_duplicated(n: int) -> Path:
    """The dumps of size ``n`` and as many records again, each an exact copy of a record of them
    (its raw text, in new dumps): what a build holds should not grow with such copies."""
    import random
    import shutil

    from .generate import SEED, write_dumps

    folder = OUT / f"raw-dup-{n}"
    done = folder / ".complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        source = ensure_dumps(n)
        folder.mkdir(parents=True)
        texts, labels = records_of(source), json.loads((source / ".labels.json").read_text())
        for p in sorted(source.glob("*.txt")):
            shutil.copyfile(p, folder / p.name)
        rng = random.Random(SEED + 2)
        picked = [rng.randrange(len(texts)) for _ in range(n)]
        extra = write_dumps([texts[k] for k in picked], folder / "extra", SEED + 3)
        for k, p in enumerate(extra):  # numbered after the originals
            p.rename(folder / f"{len(list(source.glob('*.txt'))) + k:03d}_{p.name.split('_', 1)[1]}")
        (folder / "extra").rmdir()
        (folder / ".labels.json").write_text(json.dumps(labels + [labels[k] for k in picked]))
        done.write_text("ok")
    return folder


def records_of(folder: Path) -> list[str]:
    """The raw text of every record of the dumps in ``folder``, in dump order."""
    from neurips_abstracts.ingest.parse import parse_dump

    return [r.text_raw for p in sorted(folder.glob("*.txt")) for r in parse_dump(p.name, p.read_bytes()).records]


def ours_whole(n: int | str) -> dict:
    """The real build (``neurips_abstracts.build.build``), one process, imports done beforehand
    as for the reference."""
    import pandera.polars  # noqa: F401  (imported by the build's first use; not part of its work)
    import pyarrow.parquet  # noqa: F401  (imported beforehand, as for the reference)
    import pylatexenc.latex2text  # noqa: F401

    from neurips_abstracts.build import build
    from neurips_abstracts.core.config import DEFAULT_CONFIG
    from neurips_abstracts.ingest.previous import read_release_table

    folder, _, _ = _files(n)
    out = OUT / f"dist-{n}"

    def papers_of_records(_):
        occ = read_release_table(out, "occurrences", columns=["paper_id"])  # every shard
        return occ["paper_id"].to_pylist()  # in dump order, as the labels

    return _whole(n, lambda stage: build(folder, out, DEFAULT_CONFIG, stage=stage, previous=None),
                  papers_of_records)


def reference_whole(n: int) -> dict:
    """The plain reference pipeline (``baselines.reference_pipeline``), imports done beforehand."""
    import datasketch  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from neurips_abstracts.core.config import DEFAULT_CONFIG

    folder, _, _ = _files(n)
    c = DEFAULT_CONFIG.near_dup
    params = (c.shingle_size, c.num_perm, c.threshold, c.seed)
    return _whole(n, lambda stage: reference_pipeline(folder, OUT / f"reference-{n}", *params, stage=stage),
                  lambda outcome: outcome["paper_of_record"])


def floor(n: int) -> float:
    """Read and SHA-256 the bytes of the dumps: what no build can beat."""
    _, files, _ = _files(n)
    started = time.perf_counter()
    for p in files:
        hashlib.sha256(p.read_bytes()).hexdigest()
    return time.perf_counter() - started


def prepare_distinct(n: int) -> Path:
    """The distinct normalized texts as the build's near-dup stage sees them, with a label each,
    written to a file, so that the near-dup comparison runs in a fresh process holding only them."""
    from neurips_abstracts.build.stages.parse import parse
    from neurips_abstracts.build.stages.read import read
    from neurips_abstracts.core.config import DEFAULT_CONFIG

    folder, _, labels = _files(n)
    parsed = parse(read(folder, None), DEFAULT_CONFIG)
    parsed.spool.close()
    texts = parsed.versions.text
    label_of: dict[str, int] = {}
    for v, label in zip(parsed.version.tolist(), labels):
        label_of.setdefault(texts[v], label)
    path = OUT / f"distinct-{n}.pkl"
    with open(path, "wb") as fh:
        pickle.dump((list(label_of), list(label_of.values())), fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def near_dup_comparison(texts_file: Path, with_datatrove: bool) -> dict:
    """Ours, datasketch and datatrove on the same distinct texts, in this (fresh) process: each
    method warmed up on the first texts, then timed in turn (the first method alternating from
    one repeat to the next), under ``harness.timed``'s conditions."""
    import statistics

    from neurips_abstracts.core.config import DEFAULT_CONFIG
    from neurips_abstracts.dedup import near_duplicates as dedup

    with open(texts_file, "rb") as fh:
        distinct, truth = pickle.load(fh)
    c = DEFAULT_CONFIG.near_dup
    methods = {
        "ours": lambda texts: dedup.near_duplicate_clusters(texts, c).roots,
        "datasketch": lambda texts: datasketch_clusters(texts, c.shingle_size, c.num_perm, c.threshold, c.seed)[0],
    }
    for method in methods.values():
        timed(method, distinct[:WARM_UP])
    repeats = 3 if len(distinct) <= 50_000 else 1
    seconds: dict[str, list[float]] = {name: [] for name in methods}
    cpu: dict[str, list[float]] = {name: [] for name in methods}
    scores = {}
    for r in range(repeats):
        for name in list(methods)[:: 1 if r % 2 == 0 else -1]:
            roots, wall, used = timed(methods[name], distinct)
            seconds[name].append(wall)
            cpu[name].append(used)
            scores[name] = pair_scores(truth, roots)
    out = {"texts": len(distinct), "repeats": repeats}
    for name in methods:
        out[name] = {**scores[name], "seconds": statistics.median(seconds[name]), "all_seconds": seconds[name],
                     "cpu_seconds": statistics.median(cpu[name])}
    out["speedup"] = out["datasketch"]["seconds"] / out["ours"]["seconds"]
    out["cpu_speedup"] = out["datasketch"]["cpu_seconds"] / out["ours"]["cpu_seconds"]
    datatrove = datatrove_comparison(distinct[:DATATROVE_SUBSET], methods["ours"]) if with_datatrove else None
    if datatrove:
        datatrove["truth_removed"] = datatrove["texts"] - len(set(truth[:DATATROVE_SUBSET]))
    return {"near_dup": out, "datatrove": datatrove}


def datatrove_comparison(texts: list[str], ours) -> dict | None:
    """datatrove's MinHash pipeline against ours on ``texts``; None if datatrove is not installed."""
    import importlib.util
    import tempfile

    if not all(importlib.util.find_spec(m) for m in ("datatrove", "spacy")):
        return None
    from neurips_abstracts.core.config import DEFAULT_CONFIG

    c = DEFAULT_CONFIG.near_dup
    cores = usable_cores()
    with tempfile.TemporaryDirectory() as tmp:
        datatrove_input(texts, Path(tmp) / "input", shards=cores)
        roots, ours_seconds, _ = timed(ours, texts)
        outcome, seconds, _ = timed(datatrove_dedup, Path(tmp) / "input", Path(tmp) / "work", c.shingle_size,
                                    c.bands, c.rows, c.seed, cores)
    return {"texts": len(texts), "seconds": seconds, "ours_seconds": ours_seconds, "ratio": seconds / ours_seconds,
            "tasks": cores, "removed": outcome["removed"], "ours_removed": len(texts) - len(set(roots))}


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = result["results"]
    ns = [r["n"] for r in runs]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    ax.loglog(ns, [r["total_seconds"] for r in runs], "o-", label="our build, end to end")
    ax.loglog(ns, [r["reference"]["seconds"] for r in runs], "D-", label="reference pipeline, end to end")
    ax.loglog(ns, [r["near_dup"]["datasketch"]["seconds"] for r in runs], "s--", label="datasketch near-dup alone")
    ax.loglog(ns, [r["near_dup"]["ours"]["seconds"] for r in runs], "v-.", label="our near-dup alone")
    ax.loglog(ns, [r["floor_seconds"] for r in runs], "^:", label="floor: read + SHA-256")
    ax.set_xlabel("raw records")
    ax.set_ylabel("seconds")
    m = result["machine"]
    ax.set_title(f"Time against input size ({m['usable_cores']} cores, {m['cpu_model']})", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None, "Creation Time": None})


def _child(*args) -> dict:
    """Run ``python -m benchmarks.scale ARGS`` in a fresh process; its last line of output, as JSON."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.scale", *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def size(n: int, repeats: int, datatrove_at: int) -> dict:
    """Everything for one size, each part in a fresh process; our build and the reference
    alternate, the first of them alternating from one repeat to the next."""

    load_at_start = load_average()
    subprocess.run([sys.executable, "-m", "benchmarks.generate_cached", str(n)], cwd=ROOT, check=True)
    _, files, labels = _files(n)
    sides = {"ours": ("--ours", n), "reference": ("--reference", n)}
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    for r in range(repeats):
        for name in list(runs)[:: 1 if r % 2 == 0 else -1]:
            runs[name].append(_child(*sides[name]))
    ours, reference = (sorted(runs[k], key=lambda x: x["seconds"])[len(runs[k]) // 2] for k in runs)  # medians
    texts_file = _child("--prepare", n)["path"]
    comparison = _child("--near-dup", texts_file, *(["--datatrove"] if n == datatrove_at else []))
    Path(texts_file).unlink()
    return {
        "n": n,
        "dumps": len(files),
        "bytes": sum(p.stat().st_size for p in files),
        "papers_truth": len(set(labels)),
        "floor_seconds": _child("--floor", n)["seconds"],
        "repeats": repeats,
        "total_seconds": ours["seconds"],
        "all_seconds": [x["seconds"] for x in runs["ours"]],
        "cpu_seconds": ours["cpu_seconds"],
        "peak_bytes": ours["peak_bytes"],
        "stages": ours["stages"],
        "papers": ours["papers"],
        "records": ours["records"],
        "reference": {**reference, "all_seconds": [x["seconds"] for x in runs["reference"]]},
        "whole_pipeline_ratio": reference["seconds"] / ours["seconds"],
        # issue 44's goal is stated this way round: our build's time as a share of the reference's
        "time_ratio": ours["seconds"] / reference["seconds"],
        "distinct_texts": comparison["near_dup"]["texts"],
        "near_dup": comparison["near_dup"],
        "datatrove": comparison["datatrove"],
        "machine": machine(),
        "command": command("benchmarks.scale"),
        "load_average": {"start": load_at_start, "end": load_average()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=None,
                        help="whole-pipeline runs of each side per size (default: 3 up to 100k records, then 1)")
    parser.add_argument("--datatrove-at", type=int, default=DATATROVE_AT,
                        help=f"the one size at which datatrove is compared too (default {DATATROVE_AT})")
    parser.add_argument("--duplicates", type=int, default=1_000_000,
                        help="N of the duplicates row: N records, then N more exact copies of them (0: none)")
    parser.add_argument("--no-write", action="store_true", help="print only; do not update results/ or README")
    parser.add_argument("--ours-dup", type=int, help=argparse.SUPPRESS)
    for hidden in ("--ours", "--reference", "--floor", "--prepare"):
        parser.add_argument(hidden, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--near-dup", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--datatrove", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for flag, fn in ((args.ours, ours_whole), (args.ours_dup, lambda n: ours_whole(f"dup-{n}")),
                     (args.reference, reference_whole),
                     (args.floor, lambda n: {"seconds": floor(n)}), (args.prepare, lambda n: {"path": str(prepare_distinct(n))}),
                     (args.near_dup, lambda path: near_dup_comparison(path, args.datatrove))):
        if flag:
            print(json.dumps(fn(flag)))
            return
    results = []
    for n in args.sizes:
        r = size(n, args.repeats or (3 if n <= 100_000 else 1), args.datatrove_at)
        results.append(r)
        print(f"N={n}: build {r['total_seconds']:.1f} s (peak {r['peak_bytes'] / 2**30:.2f} GiB), reference "
              f"{r['reference']['seconds']:.1f} s ({r['whole_pipeline_ratio']:.1f}x), papers {r['papers']} / reference "
              f"{r['reference']['papers']} / truth {r['papers_truth']}; {r['time_ratio']:.2f}x the reference's time; near-dup alone {r['near_dup']['speedup']:.1f}x "
              f"datasketch; load {r['load_average']}", flush=True)
    duplicates = None
    if args.duplicates:
        n = args.duplicates
        subprocess.run([sys.executable, "-c", f"from benchmarks.scale import ensure_duplicated; ensure_duplicated({n})"],
                       cwd=ROOT, check=True)
        single = next((r for r in results if r["n"] == n), None) or {"peak_bytes": _child("--ours", n)["peak_bytes"]}
        double = _child("--ours-dup", n)
        duplicates = {"n": n, "records": 2 * n, "peak_bytes_n": single["peak_bytes"], "peak_bytes_2n": double["peak_bytes"],
                      "ratio": double["peak_bytes"] / single["peak_bytes"], "seconds_2n": double["seconds"],
                      "papers_2n": double["papers"], "command": command("benchmarks.scale"), "machine": machine()}
        print(f"duplicates: peak {single['peak_bytes'] / 2**30:.2f} GiB at N={n}, {double['peak_bytes'] / 2**30:.2f} GiB "
              f"with N exact copies more ({duplicates['ratio']:.2f}x)", flush=True)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / "scale.json"
        # Sizes not rerun stay, if they were measured on this same machine with the same packages:
        # figures from two machines never mix in one file.
        here = machine()
        kept = [r for r in (json.loads(path.read_text())["results"] if path.is_file() else [])
                if r["n"] not in args.sizes and r.get("machine") == here]
        old = json.loads(path.read_text()) if path.is_file() else {}
        if duplicates is None and old.get("duplicates", {}).get("machine") == here:
            duplicates = old["duplicates"]
        result = {"results": sorted(kept + results, key=lambda r: r["n"]), "machine": here, "duplicates": duplicates}
        path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
        plot(result, RESULTS / "scale.png")
        refresh_docs()  # imports the docs code only now: not in the timed processes' memory


if __name__ == "__main__":
    main()
