"""The baselines, each run the way its own users run it and paying only for its own work.

Nothing here imports or calls the project's package: a baseline's time is its own (a test
checks that with a profiling hook). The parameters are those of the project's frozen config
(word 3-grams, 128 permutations, threshold 0.6, seed), passed in as plain values.

* datasketch: shingles made by plain Python as its documentation shows (lower-cased words,
  n-grams joined by spaces, encoded to bytes), ``MinHash.bulk``, ``MinHashLSH`` with its own
  choice of bands and rows for the threshold, filled in an insertion session, then every text
  queried and its LSH candidates merged without verification, as it is usually used.
* datatrove: its MinHash pipeline (signatures, buckets, clustering) over JSONL shards, one
  task per core for the signatures, one task per bucket (datatrove requires it) on a pool of one
  worker per core, one task for the clustering.
* reference: the whole pipeline a data engineer would write with the same libraries: read and
  split the dumps, NFC and white space, exact duplicates by a dict, datasketch as above on the
  distinct texts, two Parquet tables written with pyarrow.
"""

from __future__ import annotations

import contextlib
import json
import os
import unicodedata
from pathlib import Path


def shingle_set(text: str, n: int) -> set[bytes]:
    words = text.lower().split()
    if len(words) < n:  # a text shorter than n words is one shingle, as in ours
        return {" ".join(words).encode("utf-8")}
    return {" ".join(words[i : i + n]).encode("utf-8") for i in range(len(words) - n + 1)}


def _roots(n: int, pairs) -> list[int]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    return [find(i) for i in range(n)]


def datasketch_clusters(texts: list[str], shingle_size: int, num_perm: int, threshold: float, seed: int):
    """Each text's cluster (named by its smallest index) and the LSH candidate pairs (i < j)."""
    from datasketch import MinHash, MinHashLSH

    sigs = MinHash.bulk((shingle_set(t, shingle_size) for t in texts), num_perm=num_perm, seed=seed)
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    with lsh.insertion_session() as session:
        for i, m in enumerate(sigs):
            session.insert(i, m)
    candidates = {(min(i, j), max(i, j)) for i, m in enumerate(sigs) for j in lsh.query(m) if j != i}
    return _roots(len(texts), candidates), candidates


def datatrove_input(texts: list[str], folder: Path, shards: int) -> None:
    """Write ``texts`` as the JSONL shards datatrove reads (before its timing starts)."""
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(shards):
        with open(folder / f"{k:05d}.jsonl", "w", encoding="utf-8") as fh:
            for i in range(k, len(texts), shards):
                fh.write(json.dumps({"text": texts[i], "id": str(i)}) + "\n")


def datatrove_dedup(input_folder: Path, work: Path, shingle_size: int, bands: int, rows: int, seed: int,
                    cores: int) -> dict:
    """datatrove's MinHash deduplication of the shards in ``input_folder``; how many documents
    it would remove."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup import MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupSignature
    from datatrove.pipeline.dedup.minhash import MinhashConfig
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.utils.hashing import HashConfig

    # datatrove 0.10's default xxhash path hands str to xxhash 4, which refuses it; its sha1 works.
    mh = MinhashConfig(n_grams=shingle_size, num_buckets=bands, hashes_per_bucket=rows, seed=seed,
                       hash_config=HashConfig(hash_fc="sha1", precision=64))
    shards = len(list(input_folder.glob("*.jsonl")))
    LocalPipelineExecutor([JsonlReader(str(input_folder)), MinhashDedupSignature(output_folder=f"{work}/sigs", config=mh)],
                          tasks=shards, workers=min(shards, cores), logging_dir=f"{work}/l1").run()
    LocalPipelineExecutor([MinhashDedupBuckets(input_folder=f"{work}/sigs", output_folder=f"{work}/buckets", config=mh)],
                          tasks=mh.num_buckets, workers=cores, logging_dir=f"{work}/l2").run()
    LocalPipelineExecutor([MinhashDedupCluster(input_folder=f"{work}/buckets", output_folder=f"{work}/ids", config=mh)],
                          tasks=1, logging_dir=f"{work}/l3").run()
    return {"removed": sum(p.stat().st_size for p in Path(work, "ids").glob("*.remove")) // 4}


def parse_dump(data: bytes) -> list[str]:
    """The abstracts of one dump: after the header line, paragraphs separated by blank lines,
    each paragraph's lines stripped and joined with a space."""
    lines = data.decode("utf-8-sig").splitlines()[1:]
    records, para = [], []
    for line in lines:
        line = line.strip()
        if line:
            para.append(line)
        elif para:
            records.append(" ".join(para))
            para = []
    if para:
        records.append(" ".join(para))
    return records


def normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def reference_pipeline(raw_dir: Path, out_dir: Path, shingle_size: int, num_perm: int, threshold: float, seed: int,
                       stage=lambda name: contextlib.nullcontext()) -> dict:
    """Dumps in ``raw_dir`` to papers and occurrences Parquet in ``out_dir``; each record's
    paper, in dump order. ``stage(name)`` wraps each step (the benchmark's timer)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with stage("read"):
        files = [(p.name, p.read_bytes()) for p in sorted(Path(raw_dir).glob("*.txt"))]
    with stage("parse"):
        dumps = [(name, parse_dump(data)) for name, data in files]
        del files
    with stage("normalize"):
        texts = [normalize(t) for _, records in dumps for t in records]
    with stage("near-dup"):
        index: dict[str, int] = {}
        text_id = [index.setdefault(t, len(index)) for t in texts]
        distinct = list(index)
        roots, _ = datasketch_clusters(distinct, shingle_size, num_perm, threshold, seed)
        paper_of_record = [roots[k] for k in text_id]
    with stage("write"):
        os.makedirs(out_dir, exist_ok=True)
        papers = sorted(set(roots))
        counts: dict[int, int] = {}
        for p in paper_of_record:
            counts[p] = counts.get(p, 0) + 1
        pq.write_table(pa.table({"paper_id": papers, "abstract": [distinct[p] for p in papers],
                                 "records": [counts[p] for p in papers]}),
                       Path(out_dir) / "papers.parquet", compression="zstd")
        pq.write_table(pa.table({"dump": [name for name, records in dumps for _ in records],
                                 "record_index": [i for _, records in dumps for i in range(len(records))],
                                 "text": texts, "paper_id": paper_of_record}),
                       Path(out_dir) / "occurrences.parquet", compression="zstd")
    return {"records": len(texts), "distinct_texts": len(distinct), "papers": len(papers),
            "paper_of_record": paper_of_record}
