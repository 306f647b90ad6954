"""benchmarks/README.md's release-cost block and README's headline, from
benchmarks/results/release_cost.json alone (``benchmarks.release_cost`` writes it)."""

from __future__ import annotations

from .tables import load_facts, machine_facts

# The goals (#32, #42): new chunks of each recrawl mix, as shares of the new release's bytes.
GOALS = {"occurrences": 0.05, "ids": 0.50, "all tables": 0.40}
TABLES = ("papers", "occurrences", "ids", "all tables")


def _share(r: dict) -> float:
    return r["new_bytes"] / max(1, r["bytes"])


def _pct(r: dict) -> str:
    return f"{100 * _share(r):.1f}%"


def _step_name(step: dict) -> str:
    return f"{step['label']} ({step['revision']})" if step["revision"] else step["label"]


def _mix_table(result: dict, mix: str) -> list[str]:
    steps = result["steps"]
    lines = ["| table | " + " | ".join(_step_name(s) for s in steps) + " | goal |", "|---" * (len(steps) + 2) + "|"]
    for table in TABLES:
        cells = " | ".join(f"{_pct(s['mixes'][mix][table])} of {s['mixes'][mix][table]['bytes']:,} B" for s in steps)
        goal = f"≤ {100 * GOALS[table]:.0f}%" if table in GOALS else ""
        lines.append(f"| {table} | {cells} | {goal} |")
    return lines


def _query_table(result: dict) -> list[str]:
    steps, seconds = result["steps"], result["query_seconds"]
    first = steps[0]["label"]
    lines = [f"| engine | table | query | {_step_name(steps[0])}, fastest (median) | "
             + " | ".join(f"{_step_name(s)} / {first}" for s in steps[1:]) + " |",
             "|---" * (len(steps) + 3) + "|"]
    for key, base in seconds[first].items():
        engine, table, query = key.split("|")
        ratios = " | ".join(f"{seconds[s['label']][key]['min'] / base['min']:.2f}" for s in steps[1:])
        lines.append(f"| {engine} | {table} | {query} | {1000 * base['min']:.1f} ms ({1000 * base['median']:.1f} ms) "
                     f"| {ratios} |")
    return lines


def _noise(result: dict) -> float | None:
    """The largest ratio of fastest times between two steps whose files of the queried table are
    the same size in the ``recrawl`` mix (so, in this benchmark, the same bytes): what the
    machine's noise alone makes of a ratio in this run (None: no two steps share a table's files)."""
    steps, seconds = result["steps"], result["query_seconds"]
    worst = None
    for key in seconds[steps[0]["label"]]:
        table = key.split("|")[1]
        for a in steps:
            for b in steps:
                same = a is not b and a["mixes"]["recrawl"][table]["bytes"] == b["mixes"]["recrawl"][table]["bytes"]
                if same:
                    ratio = seconds[a["label"]][key]["min"] / seconds[b["label"]][key]["min"]
                    worst = ratio if worst is None else max(worst, ratio)
    return worst


def _worst(result: dict) -> tuple[float, str]:
    """The last step's largest ratio of fastest times to the first step's, and its query."""
    steps, seconds = result["steps"], result["query_seconds"]
    first, last = steps[0]["label"], steps[-1]["label"]
    return max((seconds[last][k]["min"] / v["min"], k.replace("|", ", ")) for k, v in seconds[first].items())


def _what_changes(result: dict) -> list[str]:
    """Per table, what a recrawl changes and why, with the last step's figures."""
    last = result["steps"][-1]
    rec, rev = last["mixes"]["recrawl"], last["mixes"]["revisions"]

    def both(table: str) -> str:
        return f"{_pct(rec[table])} of its bytes new on the recrawl, {_pct(rev[table])} on the revisions"

    return [
        f"- `papers` ({both('papers')}): a recrawl changes rows in place throughout, not at the end: every "
        "paper a new record joins gets new counts, a paper whose canonical text moves gets a new `abstract`, "
        "`abstract_plain` and `word_count`, and such papers are spread over the table, so nearly every page "
        "of the text columns holds one. Papers new in the release come last.",
        f"- `occurrences` ({both('occurrences')}): the appended records (the new dump's, at the end), plus the "
        "columns that flip in place: `relation` and `similarity` of the records of every paper whose "
        "canonical text moved. Those columns are small, so the flips cost little.",
        f"- `ids` ({both('ids')}): the new ids, appended after the previous release's in its order, plus the "
        "rows whose status changed (merged or removed ids), in place.",
    ]


def _observed(p: dict, model: dict, table: str) -> dict:
    """A machine's second publish as the model's figures: the Parquet bytes of ``table`` and the
    bytes of its chunks in the xorbs hf_xet sent."""
    sent = sum(p["tables"].values()) if table == "all tables" else p["tables"].get(table, 0)
    return {"bytes": model[table]["bytes"], "new_bytes": sent}


def _publish_table(result: dict, p: dict) -> list[str]:
    """The second publish through hf_xet, per machine, beside the model of the same files."""
    last = result["steps"][-1]
    model = last["mixes"]["recrawl"]
    machines = dict(sorted(p["machines"].items(), reverse=True))  # the same machine, then a new one
    lines = ["Observed: the last step's `recrawl` release published on top of its first with the real "
             "`huggingface_hub` client and `hf_xet` (Xet on, as users publish), each publish a process of its own, "
             "to the tests' Hub on 127.0.0.1 and its Xet storage (`tests/hub/xet_storage.py`), on a Hub of its own "
             "per machine: the same machine (the first publish's HF_HOME and Xet cache kept) and a new one (an "
             "empty HF_HOME, so that only the storage's answers to hf_xet's dedup queries tell it what the storage "
             "holds). Share of each table's Parquet bytes in the chunks of the xorbs hf_xet sent, beside the model "
             "of the same files:", "",
             "| table | Parquet bytes | modelled (chunker above) | " + " | ".join(f"sent, {m}" for m in machines) + " |",
             "|---" * (len(machines) + 3) + "|"]
    for table in TABLES:
        cells = " | ".join(f"{_pct(_observed(m, model, table))} ({_observed(m, model, table)['new_bytes']:,} B)"
                           for m in machines.values())
        lines.append(f"| {table} | {model[table]['bytes']:,} B | {_pct(model[table])} | {cells} |")

    def wire(name: str, m: dict) -> str:
        return (f"{name}: {m['xorbs']} xorb{'s' if m['xorbs'] != 1 else ''} of {m['xorb_bytes']:,} B as sent "
                f"(each chunk behind an 8-byte header, raw or compressed as hf_xet chose; {m['xorb_chunk_bytes']:,} B of "
                f"chunks), {m['shards']} "
                f"shard{'s' if m['shards'] != 1 else ''} of {m['shard_bytes']:,} B, {m['dedup_queries']} global "
                f"dedup quer{'ies' if m['dedup_queries'] != 1 else 'y'}, and {m['hub_bytes']:,} B of request bodies to "
                f"the Hub (the commit, with the small files in it, and the pre-upload; {m['lfs_uploads']} LFS uploads)")

    lines += ["", "On the wire, of a release of " f"{p['release_bytes']:,} B in {p['release_files']} files: "
              + "; ".join(wire(name, m) for name, m in machines.items()) + ". Where a table's observed share "
              "differs from the model's, two causes are possible and not told apart here: hf_xet cuts chunks with its "
              "own gear table, so its chunks are not the model's, and it may send again chunks the storage holds "
              "rather than rebuild a file from many short ranges of old xorbs. The tests' storage is not the Hub's: it answers a "
              "dedup query with the one xorb that holds the chunk, where the Hub's storage answers with a shard of "
              "its own choosing, so the new machine's figure is what this storage made hf_xet send, not a measure "
              "of the Hub."]
    return lines


def release_cost_block(result: dict | None) -> str:
    if not result or "steps" not in result:
        return "No results yet: run `python -m benchmarks.release_cost`.\n"
    c = result["chunker"]
    lines = [
        f"{result['records']:,} generated records, then one dump of {result['recrawl_records']:,} records per "
        "recrawl mix, each added to the same first release and rebuilt against it. Chunks: "
        f"{c['kind']} (Xet's parameters: {c['target'] // 1024} KiB average, {c['min'] // 1024} KiB minimum, "
        f"{c['max'] // 1024} KiB maximum; its own gear table); `hf_xet` exposes no chunker offline, so the "
        "shares in the tables below are modelled with Xet's chunk sizes, not observed on Xet storage (what "
        "`hf_xet` sent to the tests' storage is observed at the end). Each step is a revision of "
        "the project built on the same dumps in the same run, each change on top of the one before.",
        "",
        "What a recrawl changes, per table (the last step):",
        "",
        *_what_changes(result),
    ]
    for mix, what in result["mixes"].items():
        lines += ["", f"Share of the new release's Parquet bytes in chunks the first release lacks, `{mix}` mix "
                  f"({what}):", "", *_mix_table(result, mix)]
    load = result.get("load_average", {})
    lines += ["", f"Read queries on each step's `recrawl` release, {result['query_rounds']} rounds, the steps in turn "
              "within each round; the first step's fastest time (and median), then each step's fastest time as a "
              "ratio of the first step's (the fastest round is the one least disturbed by other work; load average "
              f"{load.get('queries', ['?'])[0]} when they began and {load.get('end', ['?'])[0]} at the end, on "
              f"{result['machine'].get('usable_cores')} cores). Steps whose files are the same differ only by noise:",
              "", *_query_table(result)]
    if (noise := _noise(result)) is not None:
        worst, query = _worst(result)
        verdict = ("within that noise, so this run shows no slowdown but cannot show one smaller than the noise"
                   if worst <= noise else "beyond that noise: a slowdown this run shows")
        lines += ["", f"Noise in this run: two steps whose files of a table are the same bytes differ by up to "
                  f"{noise:.2f}x on the same query. The last step's largest ratio, {worst:.2f}x ({query}), is {verdict}."]
    if (p := result.get("second_publish")) and "machines" in p:
        lines += ["", *_publish_table(result, p)]
    lines += ["", f"Machine: {machine_facts(result['machine'])}. "
              f"{load_facts(result, result['machine']['usable_cores'])}".rstrip()]
    return "\n".join(lines) + "\n"


def release_cost_headline(result: dict) -> str:
    first, last = result["steps"][0], result["steps"][-1]
    rec, rev = last["mixes"]["recrawl"], last["mixes"]["revisions"]
    ratio, query = _worst(result)
    observed = ""
    if (p := result.get("second_publish")) and "machines" in p:
        sent = [f"{_pct(_observed(m, rec, 'all tables'))} {name}" for name, m in sorted(p["machines"].items(), reverse=True)]
        observed = f"; hf_xet sent (tests' storage, observed) {', '.join(sent)}"
    return (
        f"{result['records']:,} records + a 1% recrawl, new chunks (modelled): occurrences {_pct(rec['occurrences'])} "
        f"({_pct(rev['occurrences'])} on the revisions mix), ids {_pct(rec['ids'])}, papers {_pct(rec['papers'])}, "
        f"all tables {_pct(rec['all tables'])} ({_pct(first['mixes']['recrawl']['all tables'])} at "
        f"{_step_name(first)}){observed}; slowest read query {ratio:.2f}x {_step_name(first)}'s ({query})"
    )
