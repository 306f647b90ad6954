"""benchmarks/README.md's release-cost block and README's headline, from
benchmarks/results/release_cost.json alone (``benchmarks.release_cost`` writes it)."""

from __future__ import annotations

from .tables import machine_facts

# The goals (#32): new chunks of a 1% recrawl, as shares of the new release's bytes.
GOALS = {"occurrences": 0.05, "all tables": 0.40}


def _share(r: dict) -> float:
    return r["new_bytes"] / max(1, r["bytes"])


def release_cost_block(result: dict | None) -> str:
    if not result:
        return "No results yet: run `python -m benchmarks.release_cost`.\n"
    c = result["chunker"]
    runs = [k for k in ("before", "after") if k in result]
    head = "| table | " + " | ".join(
        f"new chunks, {'revision ' + result['before_revision'] if k == 'before' and result['before_revision'] else k}"
        for k in runs) + " | goal |"
    lines = [
        f"{result['records']:,} generated records, then one recrawl dump of {result['recrawl_records']:,} "
        "(70% exact copies, 20% light revisions, 10% new papers) and a rebuild against the first release. "
        f"Chunks: {c['kind']} (Xet's parameters: {c['target'] // 1024} KiB average, {c['min'] // 1024} KiB "
        f"minimum, {c['max'] // 1024} KiB maximum); `hf_xet` exposes no chunker offline. Share of the new "
        "release's Parquet bytes in chunks the first release lacks:",
        "",
        head,
        "|---" * (len(runs) + 2) + "|",
    ]
    for table in result["after"]:
        cells = " | ".join(f"{100 * _share(result[k][table]):.1f}% of {result[k][table]['bytes']:,} B" for k in runs)
        goal = f"≤ {100 * GOALS[table]:.0f}%" if table in GOALS else ""
        lines.append(f"| {table} | {cells} | {goal} |")
    if p := result.get("second_publish"):
        lines += ["", f"The second release published on top of the first, to the tests' Hub on 127.0.0.1 with the real "
                  f"`huggingface_hub` client (LFS uploads of whole files, no Xet storage there): it sent "
                  f"{p['sent_bytes']:,} B in all ({100 * p['sent_bytes'] / max(1, p['release_bytes']):.1f}% of the "
                  f"release's {p['release_bytes']:,} B), {p['lfs_uploads']} Parquet file"
                  f"{'s' if p['lfs_uploads'] != 1 else ''} of {p['lfs_bytes']:,} B; the files unchanged since the first "
                  "were not sent. Xet storage would send only the new chunks counted above."]
    lines += ["", f"Machine: {machine_facts(result['machine'])}."]
    return "\n".join(lines) + "\n"


def release_cost_headline(result: dict) -> str:
    after = result["after"]
    return (
        f"{result['records']:,} records + a 1% recrawl: new chunks {100 * _share(after['occurrences']):.1f}% of "
        f"occurrences' bytes, {100 * _share(after['all tables']):.1f}% of all tables'"
        + (f" ({100 * _share(result['before']['all tables']):.1f}% before)" if "before" in result else "")
    )
