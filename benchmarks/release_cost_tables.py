"""benchmarks/README.md's release-cost block and README's headline, from
benchmarks/results/release_cost.json alone (``benchmarks.release_cost`` writes it)."""

from __future__ import annotations

from .tables import machine_facts

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


def release_cost_block(result: dict | None) -> str:
    if not result or "steps" not in result:
        return "No results yet: run `python -m benchmarks.release_cost`.\n"
    c = result["chunker"]
    lines = [
        f"{result['records']:,} generated records, then one dump of {result['recrawl_records']:,} records per "
        "recrawl mix, each added to the same first release and rebuilt against it. Chunks: "
        f"{c['kind']} (Xet's parameters: {c['target'] // 1024} KiB average, {c['min'] // 1024} KiB minimum, "
        f"{c['max'] // 1024} KiB maximum; its own gear table); `hf_xet` exposes no chunker offline, so the "
        "shares are modelled with Xet's chunking, not observed on Xet storage. Each step is a revision of "
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
    if p := result.get("second_publish"):
        lines += ["", f"The last step's second release published on top of its first, to the tests' Hub on "
                  f"127.0.0.1 with the real `huggingface_hub` client (LFS uploads of whole files, no Xet storage "
                  f"there): it sent {p['sent_bytes']:,} B in all ({100 * p['sent_bytes'] / max(1, p['release_bytes']):.1f}% "
                  f"of the release's {p['release_bytes']:,} B), {p['lfs_uploads']} Parquet file"
                  f"{'s' if p['lfs_uploads'] != 1 else ''} of {p['lfs_bytes']:,} B; the files unchanged since the "
                  "first were not sent. Xet storage would send only the new chunks modelled above."]
    lines += ["", f"Machine: {machine_facts(result['machine'])}."]
    return "\n".join(lines) + "\n"


def release_cost_headline(result: dict) -> str:
    first, last = result["steps"][0], result["steps"][-1]
    rec, rev = last["mixes"]["recrawl"], last["mixes"]["revisions"]
    ratio, query = _worst(result)
    return (
        f"{result['records']:,} records + a 1% recrawl, new chunks (modelled): occurrences {_pct(rec['occurrences'])} "
        f"({_pct(rev['occurrences'])} on the revisions mix), ids {_pct(rec['ids'])}, papers {_pct(rec['papers'])}, "
        f"all tables {_pct(rec['all tables'])} ({_pct(first['mixes']['recrawl']['all tables'])} at "
        f"{_step_name(first)}); slowest read query {ratio:.2f}x {_step_name(first)}'s ({query})"
    )
