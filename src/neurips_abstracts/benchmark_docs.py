"""The benchmarks' generated blocks: the full tables of benchmarks/README.md and README.md's one
headline per benchmark, each made from its results file in benchmarks/results/ (``docs`` writes
them into the two files and checks them)."""

from __future__ import annotations

import json
from pathlib import Path

from .core.config import POOL_MIN_BYTES
from .core.resources import CHECKOUT_ROOT
from .core.stages import STAGES
from .release_cost_docs import release_cost_block, release_cost_headline

BENCHMARKS_README = "benchmarks/README.md"


def machine_facts(m: dict) -> str:
    versions = ", ".join(f"{name} {v}" for name, v in m["packages"].items() if v)
    memory = f", {m['memory_bytes'] / 2**30:.0f} GiB memory" if m.get("memory_bytes") else ""
    return (
        f"{m['cpu_model']} ({m['usable_cores']} of {m['logical_cores']} cores usable){memory}, {m['os']}, "
        f"{m['python']}; {versions}"
    )


def _contended(result: dict, cores: int) -> bool | None:
    """Whether the machine had more work than ``cores`` at the start or end of a run (None: the
    results file did not record its load)."""
    load = result.get("load_average") or {}
    if not (load.get("start") and load.get("end")):
        return None
    return max(load["start"][0], load["end"][0]) > cores


def load_facts(result: dict, cores: int) -> str:
    """How busy the machine was, as the results file recorded it ("" if it did not)."""
    contended = _contended(result, cores)
    if contended is None:
        return ""
    load = result["load_average"]
    return f"The 1-minute load average was {load['start'][0]:.2f} at the start and {load['end'][0]:.2f} at the end" + (
        f": above {cores} cores, other work competed for the CPU, so these timings are contended." if contended else "."
    )


def machine_sentence(result: dict) -> str:
    """What machine a benchmark ran on and how busy it was, as its results file recorded them."""
    m = result.get("machine")
    if m is None:
        return "The machine this ran on was not recorded."
    return f"Measured by `{result['command']}` on {machine_facts(m)}. {load_facts(result, m['usable_cores'])}".rstrip()


def near_dup_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.near_dup`.\n"
    c = result["config"]
    s = result["summary"]
    lines = [
        f"Run of `python -m benchmarks.near_dup`: {result['distinct_real_papers']} distinct real abstracts "
        f"(NeurIPS 2018 and 2023) as negatives, {result['per_cell']} revisions per cell (seed {result['seed']}), "
        f"word {c['shingle_size']}-grams, threshold {c['threshold']}, {c['bands']} bands x {c['rows']} rows.",
        "",
        "| edit | words touched | ours: precision | ours: recall | datasketch: precision | datasketch: recall |",
        "|---|---|---|---|---|---|",
    ]
    for cell in result["cells"]:
        o, d = cell["ours"], cell["datasketch"]
        lines.append(
            f"| {cell['kind'].replace('_', ' ')} | {cell['rate']:.0%} | {o['precision']:.4f} | {o['recall']:.4f} "
            f"| {d['precision']:.4f} | {d['recall']:.4f} |"
        )
    lines += [
        "",
        f"Realistic revisions (spans up to 10%): recall **{s['ours_realistic_recall']:.4f}** "
        f"(LSH candidates {s['ours_realistic_candidate_recall']:.4f}), "
        f"{s['ours_realistic_false_merges']} distinct papers merged (lowest precision of a cell "
        f"{s['ours_realistic_min_precision']:.4f}); datasketch: recall {s['datasketch_realistic_recall']:.4f}, "
        f"{s['datasketch_realistic_false_merges']} false merges. The baseline is datasketch MinHash and "
        "MinHashLSH at the same threshold with its own choice of bands and rows, merging LSH candidates "
        "without verification, as it is usually used. A cell with no merges at all counts as precision 1.",
        "",
    ]
    if "ours_texts_per_cpu_second" in s:
        lines.append(
            f"Our method clustered {s['ours_texts_per_second']:,.0f} texts/s against {s['datasketch_texts_per_second']:,.0f} "
            f"for datasketch, **{s['speedup_vs_datasketch']:.1f}x** in wall time ({s['cpu_speedup_vs_datasketch']:.1f}x "
            f"in CPU time), each starting from the texts and making its own shingles (datasketch's by plain Python, "
            f"as its documentation shows), in one process with the cyclic garbage collector off while timed, after "
            f"a warm-up on {result['warm_up_texts']} texts, taking turns cell by cell."
        )
        lines += ["", machine_sentence(result)]
    return "\n".join(lines) + "\n"


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def _pr(scores: dict) -> str:
    return f"{scores['precision']:.4f}/{scores['recall']:.4f}"


def _whole_pipeline(r: dict) -> str:
    ref = r["reference"]
    runs = f"median of {r['repeats']} runs each, alternating" if r["repeats"] > 1 else "one run each"
    return (
        f"Whole pipeline: the reference pipeline took **{r['whole_pipeline_ratio']:.1f}x** our build's wall time, "
        f"{ref['seconds']:.1f} s against {r['total_seconds']:.1f} s (CPU time {ref['cpu_seconds']:.1f} s against "
        f"{r['cpu_seconds']:.1f} s; {runs}, each in a fresh process with its imports done and the cyclic garbage "
        f"collector off; ours as by default, with its worker processes where it starts them, the reference in one "
        f"process); peak memory "
        f"{_gib(ref['peak_bytes'])} against {_gib(r['peak_bytes'])}; papers found: reference {ref['papers']:,}, ours "
        f"{r['papers']:,}, made by the generator {r['papers_truth']:,}; precision/recall of the records put "
        f"together, against the generator's labels: reference {_pr(ref['records'])}, ours {_pr(r['records'])}."
    )


def _workers(r: dict) -> str:
    w, one = r["worker_runs"], r["worker_runs"]["one"]
    if r["bytes"] < POOL_MIN_BYTES or w["workers"] == 1:
        why = (f"starts no worker process for fewer than {POOL_MIN_BYTES // 2**20} MiB of dumps" if w["workers"] > 1
               else "ran with one process on this machine (one usable core)")
        return (f"Workers: the build {why}, so `build --workers 1` did the same work: {one['seconds']:.1f} s against "
                f"{r['total_seconds']:.1f} s.")
    return (
        f"Workers: the build above ran as by default, {w['workers']} worker processes preparing the dumps, then "
        f"sketching the distinct texts and rendering the plain text; in one "
        f"process (`build --workers 1`) it took {one['seconds']:.1f} s, so the workers made it **{w['speedup']:.2f}x** "
        f"as fast (CPU time {r['cpu_seconds']:.1f} s against {one['cpu_seconds']:.1f} s, the workers' included), peak "
        f"memory {_gib(r['peak_bytes'])} against {_gib(one['peak_bytes'])} (the build's processes together)."
    )


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
    runs = result["results"]
    lines = [
        "Run of `python -m benchmarks.scale`; dumps generated from the real abstracts with a fixed seed (20% "
        "distinct papers, 10% revisions, the rest noisy exact duplicates). The table times our build stage by "
        "stage as by default, in the build's own process (parse and normalize run dump by dump and are summed over "
        "the dumps; where worker processes prepare the dumps, the parse row is mostly the wait for them and the "
        "normalize row the collecting of their texts); exact duplicates collapse as dumps are normalized; the "
        "near-dup row is the clustering of the distinct "
        "texts (their shingles and signatures made by the workers, where there are any), the paper ids and each "
        "version's similarity to its paper's canonical text. From then on a second thread writes the occurrences "
        "table row group by row group, each checked in a third as it is written, while the plain text (rendered by "
        "the workers, where there are any) and assemble rows run; the last row is what is left: the contracts "
        "across tables while a thread writes the small tables, the documents and the wait for the occurrences. "
        "The reference "
        "pipeline is what a data engineer would write with the same libraries: read the dumps and split them "
        "into records, NFC and white space, exact duplicates by a dict, datasketch MinHash LSH on the distinct "
        "texts, two Parquet tables written with pyarrow; it repairs no mojibake, makes no plain text, checks no "
        "contracts and records no provenance. Peak memory is the proportional set size (PSS) of a run's "
        "processes together, read once a second and as each stage starts: a peak shorter than a second can "
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
        if "worker_runs" in r:
            lines += [_workers(r), ""]
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


def startup_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.startup`.\n"
    return (
        f"The everyday build, `python build_dataset.py build` of {_dumps_in_raw(result)} in a new process, takes "
        f"{result['median_seconds']:.2f} s wall (median of {result['runs']} runs, {result['min_seconds']:.2f}-"
        f"{result['max_seconds']:.2f} s)"
        + (f", {result['median_cpu_seconds']:.2f} s CPU" if "median_cpu_seconds" in result else "")
        + "."
        + _against_sentence(result)
        + f" {machine_sentence(result)}\n"
    )


def _dumps_in_raw(result: dict) -> str:
    n = result.get("dumps")
    return "the dumps in raw/" if n is None else f"the {n} dump{'s' * (n != 1)} in raw/"


def _against_sentence(result: dict) -> str:
    """The earlier revision timed in the same runs, when there was one: machines differ by more
    than the changes measured, so the ratio is what carries from one machine to another."""
    a = result.get("against")
    if not a:
        return ""
    return (
        f" In the same runs, alternately, revision {a['revision']} took {a['median_seconds']:.2f} s "
        f"({a['min_seconds']:.2f}-{a['max_seconds']:.2f} s), so revision {result['revision']} takes "
        f"**{_against_ratio(result):.2f}x** its time."
    )


def _against_ratio(result: dict) -> float:
    return result["median_seconds"] / result["against"]["median_seconds"]


_FIDELITY_CLASSES = (
    ("dropped", "dropped content (source tokens missing)"),
    ("ambiguous_scripts", "ambiguous super/subscripts"),
    ("glued_operators", "glued operator names"),
    ("leftover_markup", "leftover markup (`\\`, `$`, `**`, entities)"),
    ("lost_meaning", "lost meaning (`~` for \"about\" before a number, currency `$`)"),
)


def plain_fidelity_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.plain_fidelity`.\n"
    candidates = result.get("candidates", {})
    names = sorted(candidates)
    lines = [
        f"Run of `python -m benchmarks.plain_fidelity --candidates` on the {result['abstracts']:,} real abstracts "
        f"({result['with_latex']:,} with LaTeX). Counts are occurrences over all abstracts; each alternative "
        "renders the same abstracts (pandoc only those with LaTeX, one process each).",
        "",
        "| damage | `abstract_plain` | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for key, label in _FIDELITY_CLASSES:
        row = [f"{result['counts'][key]:,} in {result['abstracts_with'][key]:,} abstracts"]
        row += [f"{candidates[n]['counts'][key]:,}" if key in candidates[n]["counts"] else "not measured" for n in names]
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    lines.append(
        f"| abstracts per second (one core) | {result['abstracts_per_second']:,.0f} | "
        + " | ".join(f"{candidates[n]['abstracts_per_second']:,.0f}" for n in names)
        + " |"
    )
    remaining = [(key, w) for key, _ in _FIDELITY_CLASSES for w in result["worst"][key]]
    if remaining:
        lines += ["", "Abstracts still counted, and why:", ""]
        for key, w in remaining:
            found = ", ".join(f"`{f}`" for f in w["found"])
            reason = result.get("reasons", {}).get(w["paper"], "")
            lines.append(f"- {w['paper']} ({key.replace('_', ' ')}: {found}): {reason or 'no reason recorded'}")
    lines += ["", machine_sentence(result)]
    return "\n".join(lines) + "\n"


def _repeats(result: dict) -> str:
    counts = [f"{result['repeats'][str(n)]:,}" for n in result["sizes"]]
    if len(set(counts)) == 1:
        return f"{counts[0]} renderings at each size"
    return ", ".join(counts[:-1]) + " and " + counts[-1] + " renderings by size"


def _over(value: float, limit: float) -> str:
    """Said beside a figure that breaks its limit, so that rounding never shows it as met."""
    return ": OVER THE LIMIT" if value > limit else ""


def linearity_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.linearity`.\n"
    small, mid, large = (str(n) for n in result["sizes"])
    kinds = result["kinds"]
    worst_ratio = max(kinds, key=lambda k: kinds[k]["ratio"])
    slowest = max(kinds, key=lambda k: kinds[k][large]["cpu_seconds"])
    lines = [
        f"Run of `{result['command']}`: {len(kinds)} kinds of adversarial record, each rendered at "
        f"{int(small):,}, {int(mid):,} and {int(large):,} characters by the build's per-record function "
        f"(CPU seconds, the least of {_repeats(result)}). Linear work gives time(1 MB) / "
        f"time(100 kB) = 10, quadratic 100; the largest ratio is {result['max_ratio']:.2f} ({worst_ratio}, limit "
        f"{result['ratio_limit']}{_over(result['max_ratio'], result['ratio_limit'])}), that of the whole table "
        f"{result['overall_ratio']:.2f}, and the slowest 1 MB record takes {result['max_1mb_cpu_seconds']:.3f} s "
        f"({slowest}, limit {result['seconds_limit']:.0f} s"
        f"{_over(result['max_1mb_cpu_seconds'], result['seconds_limit'])}; "
        f"{result['max_1mb_wall_seconds']:.2f} s wall on the shared machine).",
        "",
        "| record | 10 kB | 100 kB | 1 MB | 1 MB / 100 kB |",
        "|---|---|---|---|---|",
    ]
    for name, row in kinds.items():
        lines.append(
            f"| {row['what']} | {row[small]['cpu_seconds'] * 1000:.1f} ms | {row[mid]['cpu_seconds'] * 1000:.1f} ms | "
            f"{row[large]['cpu_seconds'] * 1000:.0f} ms | {row['ratio']:.1f} |"
        )
    lines += ["", machine_sentence(result)]
    return "\n".join(lines) + "\n"


def _result(root: Path, name: str) -> dict | None:
    path = root / "benchmarks" / "results" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def benchmark_blocks(root: Path = CHECKOUT_ROOT) -> dict[str, str]:
    """benchmarks/README.md's blocks, made from benchmarks/results/ alone."""
    return {
        "near-dup-benchmark": near_dup_block(_result(root, "near_dup")),
        "scale-benchmark": scale_block(_result(root, "scale")),
        "startup-benchmark": startup_block(_result(root, "startup")),
        "plain-fidelity-benchmark": plain_fidelity_block(_result(root, "plain_fidelity")),
        "linearity-benchmark": linearity_block(_result(root, "linearity")),
        "release-cost-benchmark": release_cost_block(cost := _result(root, "release_cost"),
                                                     machine_facts(cost["machine"]) if cost else ""),
    }


def _busy(result: dict) -> str:
    """" (contended)" when the results file says the machine had more work than cores."""
    m = result.get("machine")
    return " (contended)" if m and _contended(result, m["usable_cores"]) else ""


def _near_dup_headline(r: dict) -> str:
    s = r["summary"]
    return (
        f"realistic revisions rejoin their paper with recall {s['ours_realistic_recall']:.4f}, "
        f"{s['ours_realistic_false_merges']} distinct papers merged; {s['speedup_vs_datasketch']:.1f}x datasketch's speed"
        + _busy(r)
    )


def _plain_fidelity_headline(r: dict) -> str:
    damage = ", ".join(f"{r['counts'][key]:,} {label.split(' (')[0]}" for key, label in _FIDELITY_CLASSES if r["counts"][key])
    best = min(r.get("candidates", {}).items(), key=lambda kv: kv[1]["counts"]["dropped"], default=None)
    alternative = f"; the best alternative, {best[0]}, {best[1]['counts']['dropped']:,} dropped" if best else ""
    return f"{r['abstracts']:,} real abstracts: {damage or 'no damage'}{alternative}"


def _linearity_headline(r: dict) -> str:
    return (
        f"time(1 MB) / time(100 kB) at most {r['max_ratio']:.2f} (limit {r['ratio_limit']}"
        f"{_over(r['max_ratio'], r['ratio_limit'])}) over {len(r['kinds'])} adversarial records "
        f"(linear 10, quadratic 100); slowest 1 MB record {r['max_1mb_cpu_seconds']:.2f} s CPU (limit "
        f"{r['seconds_limit']:.0f} s{_over(r['max_1mb_cpu_seconds'], r['seconds_limit'])})"
    )


def _startup_headline(r: dict) -> str:
    against = r.get("against")
    return (
        f"`python build_dataset.py build` of {_dumps_in_raw(r)} in a new process: {r['median_seconds']:.2f} s wall"
        + (f", {_against_ratio(r):.2f}x the time of revision {against['revision']} "
           "in the same runs" if against else "")
        + _busy(r)
    )


def _scale_headline(result: dict) -> str:
    r = max(result["results"], key=lambda r: r["n"])
    return (
        f"{r['n']:,} raw records: {r['total_seconds']:.1f} s, peak memory {_gib(r['peak_bytes'])}; a plain reference "
        f"pipeline takes {r['whole_pipeline_ratio']:.1f}x that" + _busy(r)
    )


_HEADLINES = (  # results file, section of benchmarks/README.md, what it measures, its headline
    ("near_dup", "near-duplicate-detection", "near-duplicate detection", _near_dup_headline),
    ("plain_fidelity", "plain-text-fidelity", "plain-text damage", _plain_fidelity_headline),
    ("linearity", "linearity", "rendering time against record length", _linearity_headline),
    ("startup", "start-up", "everyday build", _startup_headline),
    ("scale", "scale", "build at scale", _scale_headline),
    ("release_cost", "release-cost", "what a release re-sends", release_cost_headline),
)


def headline_block(root: Path = CHECKOUT_ROOT) -> str:
    """README's benchmark table: one line per benchmark, each from its results file."""
    lines = ["| benchmark | headline | rerun |", "|---|---|---|"]
    for name, anchor, what, headline in _HEADLINES:
        result = _result(root, name)
        text = headline(result) if result and "machine" in result else "no results yet"
        rerun = (result or {}).get("command", f"python -m benchmarks.{name}")  # the command that made the figures
        lines.append(f"| [{what}]({BENCHMARKS_README}#{anchor}) | {text} | `{rerun}` |")
    return "\n".join(lines) + "\n"
