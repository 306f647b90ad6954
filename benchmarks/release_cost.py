"""What a release costs to send: the share of each table's Parquet bytes in content-defined
chunks the previous release does not hold, and what readers' queries cost.

Builds a first release of N records (``generate``: real abstracts of ../shared/corpora, read at
run time), then adds one dump of 1% of N per recrawl mix (``MIXES``: the ``recrawl`` of 70% exact
copies, 20% light revisions and 10% new papers; the ``revisions`` of 40% revisions and 40% copies
of old versions, both becoming canonical, and 20% new papers; each in random order, seeded) and
rebuilds against the first. Each Parquet file of both releases is cut into chunks as Xet storage
cuts them and the new release's bytes in chunks absent from the first are counted: a model of
what Xet would send, not a measure of it. ``hf_xet`` exposes no chunker (only whole-file upload
and hashing), so this is FastCDC implemented here with Xet's parameters and a gear table of its
own: a gear rolling hash, a chunk ends where the hash's top 16 bits are zero (64 KiB average), at
least 8 KiB and at most 128 KiB.

``--step REV=LABEL`` also measures revision REV's ``src`` (``git archive``), in the same run and
on the same dumps, before this checkout; the read queries (``QUERIES``, DuckDB and polars) run on
every step's ``recrawl`` release in turn, ``--rounds`` times (the fastest and the median).

Then this checkout's ``recrawl`` release is published on top of its first release through
``hf_xet``, to the tests' Hub and its Xet storage (``publish_cost``), from the same machine and
from a new one, and what hf_xet sent is counted: observed, on the tests' storage, not the Hub's.

    python -m benchmarks.release_cost 100000 --step 97e3d58=before --label after
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .generate import _SENTENCE_RE, HEADER, SEED, records, write_dumps
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


def revisions_recrawl(texts: list[str], labels: list[int], n: int, seed: int) -> list[str]:
    """1% of ``n`` records that move papers' canonical texts, in random order: 40% revisions of a
    paper's canonical text (the newest crawl's text becomes canonical), 40% exact copies of an
    old version (a text of a paper other than its canonical one, which becomes canonical again),
    20% new papers."""
    rng = random.Random(seed)
    k = max(10, n // 100)
    canonical = {label: text for text, label in zip(texts, labels)}  # the last record's text: the newest crawl
    old = [t for t, label in zip(texts, labels) if t != canonical[label]]
    pool = [s for t in texts[:2000] for s in _SENTENCE_RE.split(t) if len(s.split()) >= 6]
    papers = sorted(canonical)
    out = []
    for _ in range(k * 4 // 10):
        text = canonical[rng.choice(papers)]
        out.append(EDITS["typos_fixed"](text, 0.02, rng, [rng.choice(texts), rng.choice(texts)]))
    out += [rng.choice(old) for _ in range(k * 4 // 10)]
    while len(out) < k:
        out.append(" ".join(rng.choice(pool) for _ in range(rng.randint(6, 10))) + f" Revised crawl {len(out)}.")
    rng.shuffle(out)
    return out


# The recrawl mixes, each a dump added to the same first release: name -> (what it is, its records).
MIXES = {
    "recrawl": "70% exact copies of records, 20% light revisions, 10% new papers",
    "revisions": "40% revisions of canonical texts, 40% exact copies of old versions (both become canonical), "
                 "20% new papers",
}


_BUILD = ("import sys, neurips_abstracts; from neurips_abstracts.build import build; "
          "build(sys.argv[1], sys.argv[2], previous=None if sys.argv[3] == '-' else sys.argv[3]); "
          "print(neurips_abstracts.__file__, file=sys.stderr)")


def _build(raw: Path, out: Path, previous: Path | None, src: str | None) -> None:
    env = dict(os.environ, **({"PYTHONPATH": src} if src else {}))
    run = subprocess.run([sys.executable, "-c", _BUILD, str(raw), str(out), str(previous or "-")], env=env,
                         capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"build of {raw} failed:\n{run.stderr}")


def _dump(records_: list[str], index: int) -> tuple[str, bytes]:
    data = (HEADER + "\n\n" + "\n\n".join(records_) + "\n").encode()
    return f"{index:03d}_{hashlib.sha256(data).hexdigest()[:16]}.txt", data


def dumps(n: int, work: Path) -> tuple[Path, dict[str, tuple[str, bytes]]]:
    """The first release's raw folder (``generate``), and each mix's recrawl dump."""
    texts, labels = records(n)
    raw = work / "raw"
    first = write_dumps(texts, raw)
    extra = {"recrawl": recrawl(texts, n, SEED + 5), "revisions": revisions_recrawl(texts, labels, n, SEED + 6)}
    return raw, {mix: _dump(extra[mix], len(first)) for mix in MIXES}


def new_bytes(base: Path, new: Path) -> dict:
    """Per table of release ``new``: its Parquet bytes, and those in chunks release ``base`` lacks."""
    result = {}
    for table_dir in sorted((new / "data").iterdir()):
        old: set[bytes] = set()
        for f in (base / "data" / table_dir.name).glob("*.parquet"):
            old |= set(chunk_hashes(f))
        total = fresh = 0
        for f in sorted(table_dir.glob("*.parquet")):
            data = f.read_bytes()
            for s, e in chunks(data):
                total += e - s
                if hashlib.sha256(data[s:e]).digest() not in old:
                    fresh += e - s
        result[table_dir.name] = {"bytes": total, "new_bytes": fresh}
    result["all tables"] = {k: sum(v[k] for v in result.values()) for k in ("bytes", "new_bytes")}
    return result


def measure(raw: Path, extra: dict[str, tuple[str, bytes]], src: str | None, work: Path) -> dict:
    """Build the first release from ``raw`` with ``src`` (None: this checkout), then per mix the
    release with its dump added, built on the first; the new bytes of each (``new_bytes``)."""
    _build(raw, work / "base", None, src)
    result = {}
    for mix, (name, data) in extra.items():
        (raw / name).write_bytes(data)
        try:
            _build(raw, work / mix, work / "base", src)
        finally:
            (raw / name).unlink()
        result[mix] = new_bytes(work / "base", work / mix)
    return result


# Readers' queries per table, each as DuckDB SQL ({files}: the table's files; {id}: a paper id of
# the release) and as a polars lazy query (of polars, the scan of the table's files, the id).
QUERIES = {
    "papers": {
        "count": ("SELECT count(*) FROM {files}", lambda pl, f, i: f.select(pl.len())),
        "one paper by id": ("SELECT * FROM {files} WHERE paper_id = '{id}'",
                            lambda pl, f, i: f.filter(pl.col("paper_id") == i)),
        "a word in the abstract": ("SELECT count(*) FROM {files} WHERE abstract LIKE '%regret%'",
                                   lambda pl, f, i: f.filter(pl.col("abstract").str.contains("regret", literal=True))
                                   .select(pl.len())),
        "two columns": ("SELECT paper_id, word_count FROM {files}", lambda pl, f, i: f.select("paper_id", "word_count")),
    },
    "occurrences": {
        "count": ("SELECT count(*) FROM {files}", lambda pl, f, i: f.select(pl.len())),
        "one paper by id": ("SELECT * FROM {files} WHERE paper_id = '{id}'",
                            lambda pl, f, i: f.filter(pl.col("paper_id") == i)),
        "a word in the abstract": ("SELECT count(*) FROM {files} WHERE text_raw LIKE '%regret%'",
                                   lambda pl, f, i: f.filter(pl.col("text_raw").str.contains("regret", literal=True))
                                   .select(pl.len())),
        "two columns": ("SELECT paper_id, relation FROM {files}", lambda pl, f, i: f.select("paper_id", "relation")),
    },
    "ids": {
        "count": ("SELECT count(*) FROM {files}", lambda pl, f, i: f.select(pl.len())),
        "one paper by id": ("SELECT * FROM {files} WHERE id = '{id}'", lambda pl, f, i: f.filter(pl.col("id") == i)),
        "two columns": ("SELECT id, status FROM {files}", lambda pl, f, i: f.select("id", "status")),
    },
}


def query_times(releases: dict[str, Path], rounds: int) -> dict:
    """The fastest and the median seconds of each query (``QUERIES``) on each release, DuckDB
    and polars, over ``rounds`` rounds. The rounds take the releases in turn, so that a change of
    the machine's load falls on all of them; the fastest round is the one least disturbed."""
    import statistics
    import time

    import duckdb
    import polars as pl
    import pyarrow.parquet as pq

    first = next(iter(releases.values()))
    paper = pq.read_table(sorted((first / "data" / "papers").glob("*.parquet"))[0], columns=["paper_id"])
    paper_id = paper["paper_id"][paper.num_rows // 2].as_py()  # a paper in the middle of the table
    times: dict = {name: {} for name in releases}
    for _ in range(rounds):
        for name, release in releases.items():
            con = duckdb.connect()
            for table, queries in QUERIES.items():
                files = (release / "data" / table).as_posix() + "/*.parquet"
                for query, (sql, lazy) in queries.items():
                    for engine in ("DuckDB", "polars"):
                        start = time.perf_counter()
                        if engine == "DuckDB":
                            con.sql(sql.format(files=f"read_parquet('{files}')", id=paper_id)).fetchall()
                        else:
                            lazy(pl, pl.scan_parquet(files), paper_id).collect()
                        seconds = time.perf_counter() - start
                        times[name].setdefault(f"{engine}|{table}|{query}", []).append(seconds)
            con.close()
    return {name: {k: {"min": min(v), "median": statistics.median(v)} for k, v in t.items()}
            for name, t in times.items()}


def _head() -> str:
    """This checkout's commit, with ``+`` where its ``src`` differs from it."""
    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "diff", "--quiet", "HEAD", "--", "src"]).returncode
    return head.stdout.strip() + ("+" if dirty else "")


def _source(revision: str, work: Path) -> str:
    """The ``src`` folder of ``revision`` of this repository, unpacked under ``work`` with the
    files the package reads beside it (schema/, templates/, pyproject.toml...)."""
    out = work / f"checkout-{revision}"
    out.mkdir(parents=True)
    root = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(root), "archive", revision], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    return str(out / "src")


RESULTS = Path(__file__).parent / "results" / "release_cost.json"
TOKEN = "hf_benchmarkTOKEN0123456789"


# The machines of the second publish: the one that published the first release (its Xet cache
# kept), and a new one (an empty HF_HOME: only the storage's global dedup answers tell it what
# the storage holds).
MACHINES = {"same machine": "the first publish's HF_HOME and Xet cache kept",
            "new machine": "an empty HF_HOME: only the storage's global dedup answers"}

_PUBLISH = ("import sys; from pathlib import Path; from neurips_abstracts.hub.protocol import PublishConfig, publish; "
            "publish(Path(sys.argv[1]), 'bench/abstracts', endpoint=sys.argv[2], force_tag=sys.argv[3] == 'force', "
            "config=PublishConfig(backoff_seconds=0.01), log=lambda _: None)")


def _publish(release: Path, home: Path, endpoint: str, force_tag: bool) -> None:
    """``release`` published to ``endpoint`` by a new process, as a user's ``publish`` runs: Xet
    on (hf_xet installed), on a machine whose home is ``home``. huggingface_hub and hf_xet read
    their settings and their cache folder (HF_HOME, HF_XET_CACHE) from the environment once per
    process, so each publish is its own process, and every folder either could write in is under
    ``home``: no user's cache is read or touched."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "HF_HOME": str(home / "huggingface"),
            "HF_XET_CACHE": str(home / "huggingface" / "xet"), "HF_TOKEN": TOKEN, "HF_HUB_DISABLE_TELEMETRY": "1",
            "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    run = subprocess.run([sys.executable, "-c", _PUBLISH, str(release), endpoint, "force" if force_tag else "-"],
                         env=env, capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"publish of {release} failed:\n{run.stderr}")


def _table_of(release: Path) -> dict[str, str]:
    """sha256 of each Parquet file of ``release`` -> its table."""
    return {hashlib.sha256(f.read_bytes()).hexdigest(): d.name
            for d in (release / "data").iterdir() for f in d.glob("*.parquet")}


def _second_publish(base: Path, new: Path, work: Path, new_machine: bool) -> dict:
    """``base`` published to a new test Hub, then ``new`` on top, the second on the same machine
    or a new one; what the second publish sent, counted by the Hub and its Xet storage."""
    from tests.hub.hub_server import Hub
    from tests.hub.xet_storage import parse_shard

    with Hub({TOKEN: ("bench", [])}) as hub:
        first = work / "machine-1"
        _publish(base, first, hub.endpoint, force_tag=False)
        hub_mark, mark = len(hub.requests), len(hub.storage.requests)
        _publish(new, work / "machine-2" if new_machine else first, hub.endpoint, force_tag=True)
        storage = hub.storage
        xorbs = storage.uploads("/v1/xorbs/", mark)
        sent = {r.path.rsplit("/", 1)[1] for r in xorbs}
        shards = storage.uploads("/v2/shards", mark) + storage.uploads("/v1/shards", mark)
        table_of = _table_of(new)
        tables = dict.fromkeys(sorted(set(table_of.values())), 0)
        for shard in shards:  # each file's chunks that came in this publish's xorbs
            for entry in parse_shard(shard.body)[0].values():
                if entry.sha256 in table_of:
                    tables[table_of[entry.sha256]] += sum(n for xorb, n, _, _ in entry.segments if xorb in sent)
        to_hub = hub.requests[hub_mark:]
        return {"hub_bytes": sum(len(r.body) for r in to_hub),
                "lfs_uploads": len([r for r in to_hub if r.method == "PUT" and r.path.startswith("/lfs-upload/")]),
                "xorbs": len(xorbs), "xorb_bytes": storage.xorb_bytes_received(mark),
                "xorb_chunk_bytes": sum(len(c) for x in sent for c in storage.chunks[x][0]),
                "shards": len(shards), "shard_bytes": sum(len(r.body) for r in shards),
                "dedup_queries": len([r for r in storage.requests[mark:] if r.path.startswith("/v1/chunks/")]),
                "tables": tables}


def publish_cost(base: Path, new: Path, work: Path) -> dict:
    """What a second publish sends through hf_xet: ``base`` published to the tests' Hub on
    127.0.0.1 and its Xet storage (the real huggingface_hub client and hf_xet, Xet on as users
    publish), then ``new`` on top, once per machine (``MACHINES``), each on a Hub and storage of
    its own. Counted: the request bytes the Hub received, and the xorbs (the chunks hf_xet did
    not dedup, compressed as sent; and their chunks' bytes), shards and dedup queries the storage
    received. The test storage is not the Hub's: it answers a dedup query with the one xorb that
    holds the chunk."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    files = [p for p in new.rglob("*") if p.is_file()]
    result = {"release_bytes": sum(p.stat().st_size for p in files), "release_files": len(files), "machines": {}}
    for i, machine_ in enumerate(MACHINES):
        result["machines"][machine_] = _second_publish(base, new, work / f"publish-{i}", machine_ == "new machine")
    return result


def main() -> None:
    from .harness import command, load_average, machine, write_results

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", type=int, nargs="?", default=100_000)
    ap.add_argument("--step", action="append", default=[], metavar="REV=LABEL",
                    help="also measure revision REV of this repository (its src), named LABEL; in order, before this checkout")
    ap.add_argument("--label", default="this checkout", help="the name of this checkout's step")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of the read queries")
    args = ap.parse_args()
    steps = [tuple(s.split("=", 1)) for s in args.step]
    result = {"records": args.records, "recrawl_records": max(10, args.records // 100), "machine": machine(),
              "command": command("benchmarks.release_cost"), "mixes": MIXES,
              "chunker": {"kind": "FastCDC (gear hash), implemented in the benchmark", "target": TARGET,
                          "min": MIN_CHUNK, "max": MAX_CHUNK},
              "load_average": {"start": load_average()}, "steps": []}
    with tempfile.TemporaryDirectory(prefix="release-cost-") as tmp:
        work = Path(tmp)
        raw, extra = dumps(args.records, work)
        releases = {}
        for revision, label in [*steps, (None, args.label)]:
            src = _source(revision, work) if revision else None
            out = work / (revision or "checkout")
            measured = measure(raw, extra, src, out)
            sizes = {t: r["bytes"] for t, r in measured["recrawl"].items()}
            result["steps"].append({"label": label, "revision": revision or _head(), "mixes": measured, "sizes": sizes})
            releases[label] = out / "recrawl"
            for mix, tables in measured.items():
                for table, r in tables.items():
                    print(f"{label:30s} {mix:10s} {table:12s} {r['bytes']:>12,d} B  "
                          f"new {100 * r['new_bytes'] / max(1, r['bytes']):5.1f}%", flush=True)
        result["load_average"]["queries"] = load_average()
        result["query_rounds"] = args.rounds
        result["query_seconds"] = query_times(releases, args.rounds)
        result["second_publish"] = publish_cost(work / "checkout" / "base", work / "checkout" / "recrawl", work)
        print("second publish:", result["second_publish"])
    result["load_average"]["end"] = load_average()
    write_results(RESULTS, result)


if __name__ == "__main__":
    main()
