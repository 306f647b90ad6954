"""Scale benchmark: the real build on N generated raw records, stage by stage.

For each N (10k, 100k, 1M by default) it generates the dumps once (``benchmarks/generate.py``,
fixed seed, cached in benchmarks/out/), then runs in a fresh process:

* the floor: read and SHA-256 the same bytes;
* the real build (``neurips_abstracts.build.build``) with, per stage, seconds, records/s, MB/s
  and peak memory (PSS of the build and its workers, sampled every second and at stage ends);
* the same near-duplicate work done with datasketch (MinHash + MinHashLSH over the same distinct
  texts and shingles), and with datatrove's MinHash pipeline on a subset, as time ratios;
* precision and recall of the merges against the generator's labels, for ours and datasketch.

Results go to benchmarks/results/scale.json and scale.png; `python build_dataset.py build`
renders them into README.md.

    python -m benchmarks.scale                 # 10k, 100k, 1M
    python -m benchmarks.scale --sizes 10000   # one size
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

from .corpus import ROOT

OUT = ROOT / "benchmarks" / "out"
RESULTS = ROOT / "benchmarks" / "results"
SIZES = (10_000, 100_000, 1_000_000)
DATATROVE_SUBSET = 20_000


def _rss_tree(pid: int) -> int:
    """Proportional set size (PSS) of ``pid`` and all its descendants: memory shared between a
    parent and its forked workers is counted once, not once per process as RSS would."""
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
    """Peak memory (PSS of the build and its workers) per stage, sampled in a thread."""

    def __init__(self):
        self.current = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        # Reading PSS makes the kernel walk every page of the process: once a second keeps the
        # sampler from slowing the build it measures (every 10 ms cost a million-record build a
        # third of its speed), at the price of missing peaks shorter than a second.
        pid = os.getpid()
        while not self.stop:
            self.current = max(self.current, _rss_tree(pid))
            time.sleep(1.0)

    @contextlib.contextmanager
    def stage(self, name: str, into: dict):
        self.current = _rss_tree(os.getpid())
        started = time.perf_counter()
        yield
        into[name] = {"seconds": time.perf_counter() - started, "peak_bytes": max(self.current, _rss_tree(os.getpid()))}


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


def one(n: int) -> dict:
    """Everything for one size, in this (fresh) process."""
    from neurips_abstracts import pipeline
    from neurips_abstracts.build import build
    from neurips_abstracts.config import DEFAULT_CONFIG
    from neurips_abstracts.load import read_raw

    folder = OUT / f"raw-{n}"  # made by ensure_dumps in the parent, so its memory is not counted here
    files = sorted(p for p in folder.iterdir() if p.suffix == ".txt")
    total_bytes = sum(p.stat().st_size for p in files)
    labels = json.loads((folder / ".labels.json").read_text())

    started = time.perf_counter()
    for p in files:
        hashlib.sha256(p.read_bytes()).hexdigest()
    floor = time.perf_counter() - started

    sampler = Sampler()
    stages: dict = {}
    out = OUT / f"dist-{n}"
    started = time.perf_counter()
    summary = build(folder, out, DEFAULT_CONFIG, stage=lambda name: sampler.stage(name, stages))
    total = time.perf_counter() - started
    sampler.stop = True

    # Quality of the merges, on distinct normalized texts as the near-dup stage sees them.
    import pyarrow.parquet as pq

    occ = pq.read_table(out / "data/occurrences/train-00000-of-00001.parquet", columns=["text_sha256", "paper_id"])
    seen: dict[str, tuple[int, str]] = {}
    for sha, pid, label in zip(occ["text_sha256"].to_pylist(), occ["paper_id"].to_pylist(), labels):
        seen.setdefault(sha, (label, pid))
    ours_quality = pair_scores([v[0] for v in seen.values()], [v[1] for v in seen.values()])

    # The near-duplicate work alone, ours against the baselines, on the distinct normalized
    # texts as the near-dup stage sees them: written to a file and timed in a fresh process, so
    # that every method runs in the same state (no build's heap around it).
    records = pipeline.parse(read_raw(folder), DEFAULT_CONFIG)
    normalized = pipeline.normalize_records(records)
    label_of: dict[str, int] = {}
    for text, label in zip(normalized, labels):
        label_of.setdefault(text, label)
    del records, normalized
    texts_file = OUT / f"distinct-{n}.pkl"
    with open(texts_file, "wb") as fh:
        pickle.dump((list(label_of), list(label_of.values())), fh, protocol=pickle.HIGHEST_PROTOCOL)
    del label_of
    proc = subprocess.run([sys.executable, "-m", "benchmarks.scale", "--near-dup", str(texts_file)], cwd=ROOT,
                          capture_output=True, text=True)
    texts_file.unlink()
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    comparison = json.loads(proc.stdout.strip().splitlines()[-1])

    peak = max(s["peak_bytes"] for s in stages.values())
    return {
        "n": n,
        "dumps": len(files),
        "bytes": total_bytes,
        "papers": summary["papers"],
        "distinct_texts": comparison["texts"],
        "workers": __import__("neurips_abstracts.parallel", fromlist=["workers"]).workers(),
        "total_seconds": total,
        "peak_bytes": peak,
        "floor_seconds": floor,
        "stages": {
            name: {**s, "records_per_second": n / s["seconds"], "mb_per_second": total_bytes / 1e6 / s["seconds"]}
            for name, s in stages.items()
        },
        "near_dup": {**comparison["near_dup"], "ours_build": ours_quality},
        "datatrove": comparison["datatrove"],
    }


def near_dup_comparison(texts_file: Path) -> dict:
    """Ours, datasketch and datatrove on the same distinct texts, in this (fresh) process.

    Python's cyclic garbage collector is paused for ours (the library pauses it itself) and for
    datasketch alike, so neither pays for collections the other skips.
    """
    from neurips_abstracts import dedup
    from neurips_abstracts.config import DEFAULT_CONFIG
    from neurips_abstracts.gc_pause import gc_paused

    with open(texts_file, "rb") as fh:
        distinct, truth = pickle.load(fh)
    config = DEFAULT_CONFIG.near_dup
    started = time.perf_counter()
    clusters = dedup.near_duplicate_clusters(distinct, config)
    ours_seconds = time.perf_counter() - started
    with gc_paused():
        started = time.perf_counter()
        ds_roots = datasketch_clusters(distinct, config)
        ds_seconds = time.perf_counter() - started
    datatrove = datatrove_run(distinct[:DATATROVE_SUBSET], config)
    if datatrove:
        started = time.perf_counter()
        dedup.near_duplicate_clusters(distinct[:DATATROVE_SUBSET], config)
        datatrove["ours_seconds"] = time.perf_counter() - started
        datatrove["ratio"] = datatrove["seconds"] / datatrove["ours_seconds"]
    return {
        "texts": len(distinct),
        "near_dup": {
            "ours_seconds": ours_seconds,
            "datasketch_seconds": ds_seconds,
            "speedup": ds_seconds / ours_seconds,
            "ours": pair_scores(truth, clusters.roots),
            "ours_stage_texts": len(distinct),
            "datasketch": pair_scores(truth, ds_roots),
        },
        "datatrove": datatrove,
    }


def datasketch_clusters(texts: list[str], config) -> list[int]:
    from datasketch import MinHash, MinHashLSH

    from neurips_abstracts.dedup import UnionFind, shingle_sets

    sets = shingle_sets(texts, config.shingle_size)
    sigs = MinHash.bulk([[int(h).to_bytes(8, "little") for h in sets.of(i)] for i in range(len(sets))],
                        num_perm=config.num_perm, seed=config.seed)
    lsh = MinHashLSH(threshold=config.threshold, num_perm=config.num_perm)
    for i, m in enumerate(sigs):
        lsh.insert(i, m)
    uf = UnionFind(len(texts))
    for i, m in enumerate(sigs):
        for j in lsh.query(m):
            uf.union(i, j)
    return [uf.find(i) for i in range(len(texts))]


def datatrove_run(texts: list[str], config) -> dict | None:
    """datatrove's MinHash deduplication (its four stages) on ``texts``; None if not installed."""
    try:
        from datatrove.data import Document
        from datatrove.executor import LocalPipelineExecutor
        from datatrove.pipeline.dedup import MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupSignature
        from datatrove.pipeline.dedup.minhash import MinhashConfig
    except ImportError:
        return None
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        try:
            return _datatrove_stages(tmp, texts, config, Document, LocalPipelineExecutor, MinhashConfig,
                                     MinhashDedupSignature, MinhashDedupBuckets, MinhashDedupCluster)
        except ImportError as exc:  # datatrove asks for optional extras (regex, tokenizers, spacy) only when run
            print(f"datatrove skipped: {exc}", file=sys.stderr)
            return None


def _datatrove_stages(tmp, texts, config, Document, LocalPipelineExecutor, MinhashConfig, Signature, Buckets, Cluster):
    from datatrove.utils.hashing import HashConfig

    # datatrove 0.10's default xxhash path passes str to xxhash 4, which wants bytes: use its sha1.
    mh = MinhashConfig(n_grams=config.shingle_size, num_buckets=config.bands, hashes_per_bucket=config.rows,
                       seed=config.seed, hash_config=HashConfig(hash_fc="sha1", precision=64))
    docs = [Document(text=t, id=str(i)) for i, t in enumerate(texts)]
    started = time.perf_counter()
    LocalPipelineExecutor([docs, Signature(output_folder=f"{tmp}/sigs", config=mh)], tasks=1, logging_dir=f"{tmp}/l1").run()
    LocalPipelineExecutor([Buckets(input_folder=f"{tmp}/sigs", output_folder=f"{tmp}/buckets", config=mh)],
                          tasks=mh.num_buckets, logging_dir=f"{tmp}/l2").run()
    LocalPipelineExecutor([Cluster(input_folder=f"{tmp}/buckets", output_folder=f"{tmp}/ids", config=mh)],
                          tasks=1, logging_dir=f"{tmp}/l3").run()
    return {"texts": len(texts), "seconds": time.perf_counter() - started}


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = [r["n"] for r in results]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    ax.loglog(ns, [r["total_seconds"] for r in results], "o-", label="build, end to end")
    ax.loglog(ns, [r["near_dup"]["datasketch_seconds"] for r in results], "s--", label="datasketch near-dup alone")
    ax.loglog(ns, [r["near_dup"]["ours_seconds"] for r in results], "v-.", label="our near-dup alone")
    ax.loglog(ns, [r["floor_seconds"] for r in results], "^:", label="floor: read + SHA-256")
    ax.set_xlabel("raw records")
    ax.set_ylabel("seconds")
    ax.set_title("Build time against input size (2 cores)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None, "Creation Time": None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--near-dup", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.near_dup:
        print(json.dumps(near_dup_comparison(args.near_dup)))
        return
    if args.one:
        if not (OUT / f"raw-{args.one}" / ".complete").exists():
            sys.exit(f"run `python -m benchmarks.generate_cached {args.one}` first")
        print(json.dumps(one(args.one)))
        return
    results = []
    for n in args.sizes:
        subprocess.run([sys.executable, "-m", "benchmarks.generate_cached", str(n)], cwd=ROOT, check=True)
        proc = subprocess.run([sys.executable, "-m", "benchmarks.scale", "--one", str(n)], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(proc.stderr)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        results.append(r)
        print(f"N={n}: {r['total_seconds']:.1f} s, peak {r['peak_bytes'] / 2**30:.2f} GiB, "
              f"near-dup {r['near_dup']['speedup']:.1f}x datasketch", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps({"results": results}, indent=2, sort_keys=True) + "\n")
    plot(results, RESULTS / "scale.png")


if __name__ == "__main__":
    main()
