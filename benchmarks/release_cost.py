"""What a release costs to send: the share of each table's Parquet bytes in content-defined
chunks the previous release does not hold.

Builds a base release of N records (``generate``: real abstracts of ../shared/corpora, read at
run time), adds one recrawl dump of 1% of N (70% exact copies of records, 20% light revisions,
10% new papers) and rebuilds against the base. Each Parquet file of both releases is cut into
chunks as Xet storage cuts them and the new release's bytes in chunks absent from the base are
counted. ``hf_xet`` exposes no chunker (only whole-file upload and hashing), so this is FastCDC
implemented here with Xet's parameters: a gear rolling hash, a chunk ends where the hash's top 16
bits are zero (64 KiB average), at least 8 KiB and at most 128 KiB.

``--before SRC`` also measures another checkout's ``src`` folder (``git archive <rev>`` of it), to compare.

    python -m benchmarks.release_cost 100000 --before ../base/src --before-revision bf6bb3e
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .generate import HEADER, SEED, _SENTENCE_RE, records, write_dumps
from .near_dup import EDITS

TARGET, MIN_CHUNK, MAX_CHUNK = 64 * 1024, 8 * 1024, 128 * 1024
_MASK = np.uint64((TARGET - 1) << (64 - 16))
_GEAR = np.random.default_rng(SEED).integers(0, 2**64, size=256, dtype=np.uint64)


def chunks(data: bytes) -> list[tuple[int, int]]:
    """FastCDC chunk (start, end) of ``data``. The gear hash after byte i is
    sum_k gear[b[i-k]] << k over the last 64 bytes, computed for every i at once."""
    b = np.frombuffer(data, dtype=np.uint8)
    g = _GEAR[b]
    h = np.zeros(len(b), dtype=np.uint64)
    for k in range(64):
        h[k:] += g[: len(b) - k] << np.uint64(k)
    candidates = np.flatnonzero((h & _MASK) == 0) + 1  # a chunk may end after these bytes
    out, start, c = [], 0, 0
    while start < len(b):
        c = int(np.searchsorted(candidates, start + MIN_CHUNK, side="left"))
        end = int(candidates[c]) if c < len(candidates) else len(b)
        end = min(end, start + MAX_CHUNK, len(b))
        out.append((start, end))
        start = end
    return out


def chunk_hashes(path: Path) -> dict[bytes, int]:
    data = path.read_bytes()
    return {hashlib.sha256(data[s:e]).digest(): e - s for s, e in chunks(data)}


def recrawl(texts: list[str], n: int, seed: int) -> list[str]:
    """1% of ``n`` records: 70% exact copies, 20% light revisions, 10% new papers."""
    rng = random.Random(seed)
    k = max(10, n // 100)
    pool = [s for t in texts[:2000] for s in _SENTENCE_RE.split(t) if len(s.split()) >= 6]
    out = [rng.choice(texts) for _ in range(k * 7 // 10)]
    for _ in range(k * 2 // 10):
        out.append(EDITS["typos_fixed"](rng.choice(texts), 0.02, rng, [rng.choice(texts), rng.choice(texts)]))
    while len(out) < k:
        out.append(" ".join(rng.choice(pool) for _ in range(rng.randint(6, 10))) + f" Recrawl {len(out)}.")
    rng.shuffle(out)
    return out


_BUILD = ("import sys, neurips_abstracts; from neurips_abstracts.build import build; "
          "build(sys.argv[1], sys.argv[2], previous=None if sys.argv[3] == '-' else sys.argv[3]); "
          "print(neurips_abstracts.__file__, file=sys.stderr)")


def _build(raw: Path, out: Path, previous: Path | None, src: str | None) -> None:
    env = dict(os.environ, **({"PYTHONPATH": src} if src else {}))
    run = subprocess.run([sys.executable, "-c", _BUILD, str(raw), str(out), str(previous or "-")], env=env,
                         capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"build of {raw} failed:\n{run.stderr}")


def measure(n: int, src: str | None, work: Path) -> dict:
    texts, _ = records(n)
    raw = work / "raw"
    dumps = write_dumps(texts, raw)
    _build(raw, work / "base", None, src)
    extra = recrawl(texts, n, SEED + 5)
    body = "\n\n".join(extra)
    data = (HEADER + "\n\n" + body + "\n").encode()
    (raw / f"{len(dumps):03d}_{hashlib.sha256(data).hexdigest()[:16]}.txt").write_bytes(data)
    _build(raw, work / "next", work / "base", src)
    result = {}
    for table_dir in sorted((work / "next" / "data").iterdir()):
        old: set[bytes] = set()
        for f in (work / "base" / "data" / table_dir.name).glob("*.parquet"):
            old |= set(chunk_hashes(f))
        total = new = 0
        for f in sorted(table_dir.glob("*.parquet")):
            data = f.read_bytes()
            for s, e in chunks(data):
                total += e - s
                if hashlib.sha256(data[s:e]).digest() not in old:
                    new += e - s
        result[table_dir.name] = {"bytes": total, "new_bytes": new}
    result["all tables"] = {k: sum(v[k] for v in result.values()) for k in ("bytes", "new_bytes")}
    return result


RESULTS = Path(__file__).parent / "results" / "release_cost.json"
TOKEN = "hf_benchmarkTOKEN0123456789"


def publish_cost(base: Path, new: Path) -> dict:
    """What a second publish sends: ``base`` published to the tests' Hub on 127.0.0.1 (the real
    huggingface_hub client, its LFS path: the test Hub has no Xet storage), then ``new`` on top.
    Every byte of the second publish's requests is counted, and the files it uploads."""
    from huggingface_hub import constants

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from neurips_abstracts.hub.publish import PublishConfig, publish
    from tests.hub.hub_server import Hub

    constants.HF_HUB_DISABLE_XET = True
    with Hub({TOKEN: ("bench", [])}) as hub:
        config = PublishConfig(backoff_seconds=0.01)
        publish(base, "bench/abstracts", token=TOKEN, endpoint=hub.endpoint, config=config, log=lambda _: None)
        first = len(hub.requests)
        publish(new, "bench/abstracts", token=TOKEN, endpoint=hub.endpoint, config=config, force_tag=True,
                log=lambda _: None)
        second = hub.requests[first:]
        uploads = [r for r in second if r.method == "PUT" and r.path.startswith("/lfs-upload/")]
        files = [p for p in new.rglob("*") if p.is_file()]
        return {"sent_bytes": sum(len(r.body) for r in second), "lfs_uploads": len(uploads),
                "lfs_bytes": sum(len(r.body) for r in uploads), "release_bytes": sum(p.stat().st_size for p in files),
                "release_files": len(files)}


def main() -> None:
    from .harness import command, machine, write_results

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", type=int, nargs="?", default=100_000)
    ap.add_argument("--before", metavar="SRC", help="also build with this checkout's src folder, the 'before'")
    ap.add_argument("--before-revision", default="", help="the revision --before was taken from (for the docs)")
    args = ap.parse_args()
    runs = {"after": None, **({"before": args.before} if args.before else {})}
    result = {"records": args.records, "recrawl_records": max(10, args.records // 100), "machine": machine(),
              "command": command("benchmarks.release_cost"), "before_revision": args.before_revision,
              "chunker": {"kind": "FastCDC (gear hash), implemented in the benchmark", "target": TARGET,
                          "min": MIN_CHUNK, "max": MAX_CHUNK}}
    for name, src in runs.items():
        with tempfile.TemporaryDirectory(prefix="release-cost-") as tmp:
            result[name] = measure(args.records, src, Path(tmp))
            if name == "after":
                result["second_publish"] = publish_cost(Path(tmp) / "base", Path(tmp) / "next")
                print("second publish:", result["second_publish"])
        for table, r in result[name].items():
            print(f"{name:6s} {table:12s} {r['bytes']:>12,d} B  new {100 * r['new_bytes'] / max(1, r['bytes']):5.1f}%")
    write_results(RESULTS, result)


if __name__ == "__main__":
    main()
