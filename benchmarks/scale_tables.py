"""The scale benchmark's full table (benchmarks/README.md) and headline (README.md), from
benchmarks/results/scale.json alone (``benchmarks.scale`` writes it)."""

from __future__ import annotations

from neurips_abstracts.core.stages import STAGES

from .tables import busy, load_facts, machine_facts


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def _pr(scores: dict) -> str:
    return f"{scores['precision']:.4f}/{scores['recall']:.4f}"


def _whole_pipeline(r: dict) -> str:
    ref = r["reference"]
    runs = f"median of {r['repeats']} runs each, alternating" if r["repeats"] > 1 else "one run each"
    return (
        f"Whole pipeline: our build took **{_time_ratio(r):.2f}x** the reference pipeline's wall time (the "
        f"reference {r['whole_pipeline_ratio']:.1f}x ours), {r['total_seconds']:.1f} s against {ref['seconds']:.1f} s "
        f"(CPU time {r['cpu_seconds']:.1f} s against {ref['cpu_seconds']:.1f} s; {runs}, each in a fresh process "
        f"with its imports done and the cyclic garbage collector off; both in one process); peak memory "
        f"{_gib(r['peak_bytes'])} against {_gib(ref['peak_bytes'])}; papers found: reference {ref['papers']:,}, ours "
        f"{r['papers']:,}, made by the generator {r['papers_truth']:,}; precision/recall of the records put "
        f"together, against the generator's labels: reference {_pr(ref['records'])}, ours {_pr(r['records'])}."
    )


def one_process(r: dict) -> dict:
    """A size's results as one process's: a results file written while the build had a worker
    pool holds its one-process run under ``worker_runs``, which is then the figures shown."""
    if "worker_runs" not in r:
        return r
    one = r["worker_runs"]["one"]
    r = {k: v for k, v in r.items() if k != "worker_runs"}
    r.update(total_seconds=one["seconds"], all_seconds=one["all_seconds"], cpu_seconds=one["cpu_seconds"],
             peak_bytes=one["peak_bytes"], stages=one["stages"], papers=one["papers"], records=one["records"],
             whole_pipeline_ratio=r["reference"]["seconds"] / one["seconds"])
    return r


def _time_ratio(r: dict) -> float:
    return r["total_seconds"] / r["reference"]["seconds"]


def _near_dup_alone(r: dict) -> str:
    nd = r["near_dup"]
    runs = f"median of {nd['repeats']} interleaved runs" if nd["repeats"] > 1 else "one run each"
    text = (
        f"Near-duplicate work alone on the {nd['texts']:,} distinct normalized texts: datasketch took "
        f"**{nd['speedup']:.1f}x** our wall time, {nd['datasketch']['seconds']:.2f} s against {nd['ours']['seconds']:.2f} s "
        f"({nd['cpu_speedup']:.1f}x in CPU time; {runs} in one fresh process holding only the texts, after a "
        f"warm-up, cyclic garbage collector off, each making its own shingles from the texts); precision/recall "
        f"of merged pairs: datasketch {_pr(nd['datasketch'])}, ours {_pr(nd['ours'])}."
    )
    dt = r.get("datatrove")
    if dt:
        text += (
            f" datatrove's MinHash pipeline took **{dt['ratio']:.1f}x** our wall time on the first {dt['texts']:,} of "
            f"those texts, {dt['seconds']:.2f} s against {dt['ours_seconds']:.2f} s, both started from the same "
            f"process (signatures on {dt['tasks']} tasks, one task per bucket on a pool of {dt['tasks']} workers as "
            f"datatrove requires, clustering in one task, its input read from JSONL shards written beforehand); it "
            f"marked {dt['removed']:,} texts as duplicates, ours {dt['ours_removed']:,}"
            + (f", the generator's labels {dt['truth_removed']:,}." if "truth_removed" in dt else ".")
        )
    return text


def scale_block(result: dict | None) -> str:
    if result is None or "machine" not in result:
        return "No results yet: run `python -m benchmarks.scale`.\n"
    runs = [one_process(r) for r in result["results"]]
    lines = [
        "Run of `python -m benchmarks.scale`; dumps generated from the real abstracts with a fixed seed (20% "
        "distinct papers, 10% revisions, the rest noisy exact duplicates). The table times our build stage by "
        "stage, in its one process (parse and normalize run dump by dump and are summed over the dumps), where "
        "helper threads do the work that runs outside the GIL: they read and hash the dumps ahead of the stage "
        "that reaches them and spool each dump's raw texts; exact duplicates collapse as dumps are normalized; the "
        "near-dup row is the shingles, signatures and clustering of the distinct texts (two threads at a time "
        "sketch them, search the LSH bands and count the similarities), the paper ids and each version's "
        "similarity to its paper's canonical text. From then on a thread writes the occurrences table row group "
        "by row group, each checked in another as it is written, and a third, at the lowest priority the system "
        "allows, writes the "
        "papers table as the plain text of its rows is rendered, while the plain text and assemble rows run; the "
        "last row is what is left: the papers table's last row groups, the contracts across tables while a thread "
        "writes the ids table, the documents and the wait for the occurrences table. "
        "The reference "
        "pipeline is what a data engineer would write with the same libraries: read the dumps and split them "
        "into records, NFC and white space, exact duplicates by a dict, datasketch MinHash LSH on the distinct "
        "texts, two Parquet tables written with pyarrow; it repairs no mojibake, makes no plain text, checks no "
        "contracts and records no provenance. Peak memory is the proportional set size (PSS) of a run's "
        "process, read once a second and as each stage starts: a peak shorter than a second can "
        "be missed.",
        "",
        f"Measured on {machine_facts(result['machine'])}.",
        "",
    ]
    for r in runs:
        lines += [
            f"**N = {r['n']:,} raw records** ({r['bytes'] / 1e6:,.0f} MB in {r['dumps']} dump{'s' if r['dumps'] != 1 else ''}, "
            f"{r['papers_truth']:,} papers made by the generator): our build {r['total_seconds']:.1f} s end to end, peak "
            f"memory {_gib(r['peak_bytes'])}; floor (read and SHA-256 the bytes) {r['floor_seconds']:.2f} s. "
            f"Run by `{r['command']}`. {load_facts(r, r['machine']['usable_cores'])}".rstrip(),
            "",
            "| stage | seconds | records/s | MB/s | peak memory |",
            "|---|---|---|---|---|",
        ]
        # The build's stages in the order it runs them (results files keep their keys sorted).
        for name in sorted(r["stages"], key=lambda s: (STAGES.index(s) if s in STAGES else len(STAGES), s)):
            st = r["stages"][name]
            lines.append(
                f"| {name} | {st['seconds']:.2f} | {st['records_per_second']:,.0f} | {st['mb_per_second']:,.1f} | {_gib(st['peak_bytes'])} |"
            )
        lines += ["", _whole_pipeline(r), ""]
        lines += [_near_dup_alone(r), ""]
    by_n = {r["n"]: r for r in runs}
    if 100_000 in by_n and 1_000_000 in by_n:
        lines.append(
            f"time(1M) / time(100k) = {by_n[1_000_000]['total_seconds'] / by_n[100_000]['total_seconds']:.1f} for our build, "
            f"{by_n[1_000_000]['reference']['seconds'] / by_n[100_000]['reference']['seconds']:.1f} for the reference."
        )
        lines.append("")
    dup = result.get("duplicates")
    if dup:
        lines += [
            f"Memory follows distinct texts: {dup['n']:,} records, then the same dumps with {dup['n']:,} more records, "
            f"each an exact copy of one of them (raw text and all, in new dumps): peak memory {_gib(dup['peak_bytes_n'])} "
            f"against {_gib(dup['peak_bytes_2n'])}, **{dup['ratio']:.2f}x** for twice the records "
            f"({dup['seconds_2n']:.1f} s for the {dup['records']:,}).",
            "",
        ]
    lines.append("![Build time against N](results/scale.png)")  # relative to benchmarks/README.md
    return "\n".join(lines) + "\n"


def scale_headline(result: dict) -> str:
    r = one_process(max(result["results"], key=lambda r: r["n"]))
    return (
        f"{r['n']:,} raw records in one process: {r['total_seconds']:.1f} s ({_time_ratio(r):.2f}x a plain reference "
        f"pipeline's time), peak memory {_gib(r['peak_bytes'])}" + busy(r)
    )
