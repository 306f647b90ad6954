"""The benchmarks' full tables (benchmarks/README.md) and headlines (README.md), each made from its
results file alone: what every benchmark's block says of its machine and load, and the blocks of
near_dup, startup, plain_fidelity and linearity (scale's are in ``scale_tables``, release_cost's in
``release_cost_tables``; ``docs`` writes them all into the two files)."""

from __future__ import annotations


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


def busy(result: dict) -> str:
    """" (contended)" when the results file says the machine had more work than cores."""
    m = result.get("machine")
    return " (contended)" if m and _contended(result, m["usable_cores"]) else ""


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


def startup_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.startup`.\n"
    return (
        f"The everyday build, `python build_dataset.py build` of {_dumps_in_raw(result)} in a new process, takes "
        f"{result['median_seconds']:.2f} s wall (median of {result['runs']} runs, {result['min_seconds']:.2f}-"
        f"{result['max_seconds']:.2f} s)"
        + (f", {result['median_cpu_seconds']:.2f} s CPU" if "median_cpu_seconds" in result else "")
        + "."
        + _split_sentence(result)
        + _against_sentence(result)
        + f" {machine_sentence(result)}\n"
    )


def _split_sentence(result: dict) -> str:
    """Where the build's time goes: the imports of the modules it loads, then its own work with
    all of them loaded, each timed inside one new process; and the interpreter's start alone."""
    split = result.get("split")
    if not split:
        return ""
    unimported = split["not_importable_alone"]

    def seconds(part: str) -> str:
        s = split[part]
        return f"{s['median_seconds']:.2f} s ({s['min_seconds']:.2f}-{s['max_seconds']:.2f} s)"

    def milliseconds(part: str) -> str:
        s = {k: round(v * 1000) for k, v in split[part].items()}
        return f"{s['median_seconds']} ms ({s['min_seconds']}-{s['max_seconds']} ms)"

    return (
        f" In the same runs, a new process that first imports the modules the build loads ({split['modules']}, "
        "the standard library's included, the package's own left out; pandera's polars API as the build imports it"
        + (f"; {unimported} could not be imported on their own and were left out" if unimported else "")
        + f") spends {seconds('imports')} on them, then imports its own modules and builds in {seconds('build')}; "
        f"the interpreter's own start (`python -c pass`) takes {milliseconds('interpreter')}."
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
        f" In the same runs, taking turns, revision {a['revision']} took {a['median_seconds']:.2f} s "
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
    ("words_lost", "words lost or out of order (the words-kept oracle)"),
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


def near_dup_headline(r: dict) -> str:
    s = r["summary"]
    return (
        f"realistic revisions rejoin their paper with recall {s['ours_realistic_recall']:.4f}, "
        f"{s['ours_realistic_false_merges']} distinct papers merged; {s['speedup_vs_datasketch']:.1f}x datasketch's speed"
        + busy(r)
    )


def plain_fidelity_headline(r: dict) -> str:
    damage = ", ".join(f"{r['counts'][key]:,} {label.split(' (')[0]}" for key, label in _FIDELITY_CLASSES if r["counts"][key])
    best = min(r.get("candidates", {}).items(), key=lambda kv: kv[1]["counts"]["dropped"], default=None)
    alternative = f"; the best alternative, {best[0]}, {best[1]['counts']['dropped']:,} dropped" if best else ""
    return f"{r['abstracts']:,} real abstracts: {damage or 'no damage'}{alternative}"


def linearity_headline(r: dict) -> str:
    return (
        f"time(1 MB) / time(100 kB) at most {r['max_ratio']:.2f} (limit {r['ratio_limit']}"
        f"{_over(r['max_ratio'], r['ratio_limit'])}) over {len(r['kinds'])} adversarial records "
        f"(linear 10, quadratic 100); slowest 1 MB record {r['max_1mb_cpu_seconds']:.2f} s CPU (limit "
        f"{r['seconds_limit']:.0f} s{_over(r['max_1mb_cpu_seconds'], r['seconds_limit'])})"
    )


def startup_headline(r: dict) -> str:
    against = r.get("against")
    return (
        f"`python build_dataset.py build` of {_dumps_in_raw(r)} in a new process: {r['median_seconds']:.2f} s wall"
        + (f", {_against_ratio(r):.2f}x the time of revision {against['revision']} "
           "in the same runs" if against else "")
        + busy(r)
    )


