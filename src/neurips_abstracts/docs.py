"""The project's own generated docs: DATASHEET.md and the generated blocks of README.md.

Both are made from a build (dist/) and from benchmark results (benchmarks/results/), never typed
by hand. ``python build_dataset.py build`` refreshes them; ``check`` fails when they are stale.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .build import STAGES
from .release import DATASHEET, PROJECT_ROOT

_BLOCK_RE = re.compile(r"(<!-- generated:(?P<name>[\w-]+) [^>]*-->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)", re.S)


def stats_block(manifest: dict) -> str:
    s = manifest["statistics"]
    rel = s["relations"]
    return (
        f"The committed build (version {manifest['dataset_version']}) holds **{s['papers']} papers** "
        f"from {s['records']} raw records in {s['dumps']} dumps: {rel['exact_duplicate']} exact and "
        f"{rel['near_duplicate']} near duplicates. Median abstract length: {s['word_count']['median']} "
        f"words. Build fingerprint `{manifest['fingerprint'][:16]}`.\n"
    )


def pinned_load_block(manifest: dict) -> str:
    tag = f"v{manifest['dataset_version']}"
    hf = f"hf://datasets/OWNER/NAME@{tag}/data"
    return f"""```python
from datasets import load_dataset
papers = load_dataset("OWNER/NAME", revision="{tag}", split="train")
occurrences = load_dataset("OWNER/NAME", "occurrences", revision="{tag}", split="train")
```

```python
import pandas as pd
papers = pd.read_parquet("{hf}/papers/train-00000-of-00001.parquet")
```

```sql
-- DuckDB
SELECT count(*) FROM '{hf}/occurrences/train-00000-of-00001.parquet';
```
"""


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
        f"{s['datasketch_realistic_false_merges']} false merges. Throughput: {s['ours_texts_per_second']:,.0f} "
        f"texts/s against {s['datasketch_texts_per_second']:,.0f} for datasketch "
        f"({s['speedup_vs_datasketch']:.1f}x), shingling included. The baseline is datasketch MinHash and "
        "MinHashLSH at the same threshold with its own choice of bands and rows, merging LSH candidates "
        "without verification, as it is usually used. A cell with no merges at all counts as precision 1.",
    ]
    return "\n".join(lines) + "\n"


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def scale_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.scale`.\n"
    runs = result["results"]
    lines = [
        f"Run of `python -m benchmarks.scale` on this 2-core, 24 GiB machine ({runs[0]['workers']} worker processes); "
        "dumps generated from the real abstracts with a fixed seed (20% distinct papers, 10% revisions, the rest "
        "noisy exact duplicates). The near-dup row of each table is the whole stage of the build: exact duplicates "
        "grouped, SHA-256 of every record's text, near-duplicate clustering, each version's similarity to its "
        "paper's canonical text, all inside a process holding the whole build; the line under each table times the "
        "clustering alone against the baselines.",
        "",
    ]
    for r in runs:
        lines += [
            f"**N = {r['n']:,} raw records** ({r['bytes'] / 1e6:,.0f} MB in {r['dumps']} dump{'s' if r['dumps'] != 1 else ''}, {r['papers']:,} papers): "
            f"{r['total_seconds']:.1f} s end to end, peak memory {_gib(r['peak_bytes'])}; floor (read and SHA-256 the "
            f"bytes) {r['floor_seconds']:.2f} s.",
            "",
            "| stage | seconds | records/s | MB/s | peak memory |",
            "|---|---|---|---|---|",
        ]
        for name in STAGES:
            st = r["stages"][name]
            lines.append(
                f"| {name} | {st['seconds']:.2f} | {st['records_per_second']:,.0f} | {st['mb_per_second']:,.1f} | {_gib(st['peak_bytes'])} |"
            )
        nd = r["near_dup"]
        lines += [
            "",
            f"Near-duplicate work alone on the {nd['ours_stage_texts']:,} distinct texts (in a fresh process holding "
            f"only them, cyclic garbage collector paused for both): ours {nd['ours_seconds']:.2f} s, "
            f"datasketch {nd['datasketch_seconds']:.2f} s (**{nd['speedup']:.1f}x**); precision/recall of merged pairs "
            f"against the generator's labels: ours {nd['ours']['precision']:.4f}/{nd['ours']['recall']:.4f}, "
            f"datasketch {nd['datasketch']['precision']:.4f}/{nd['datasketch']['recall']:.4f}."
            + (
                f" datatrove's MinHash pipeline on the first {r['datatrove']['texts']:,} texts: {r['datatrove']['seconds']:.2f} s, "
                f"{r['datatrove']['ratio']:.1f}x ours on the same texts."
                if r.get("datatrove")
                else ""
            ),
            "",
        ]
    by_n = {r["n"]: r for r in runs}
    if 100_000 in by_n and 1_000_000 in by_n:
        lines.append(
            f"time(1M) / time(100k) = {by_n[1_000_000]['total_seconds'] / by_n[100_000]['total_seconds']:.1f}."
        )
        lines.append("")
    lines.append("![Build time against N](benchmarks/results/scale.png)")
    return "\n".join(lines) + "\n"


def startup_block(result: dict | None) -> str:
    if result is None:
        return "No results yet: run `python -m benchmarks.startup`.\n"
    return (
        f"The everyday build of the seeds, `python build_dataset.py build` in a new process, takes "
        f"{result['median_seconds']:.2f} s wall (median of {result['runs']} runs, {result['min_seconds']:.2f}-"
        f"{result['max_seconds']:.2f} s; `python -m benchmarks.startup`).\n"
    )


_FIDELITY_CLASSES = (
    ("dropped", "dropped content (source tokens missing)"),
    ("ambiguous_scripts", "ambiguous super/subscripts"),
    ("glued_operators", "glued operator names"),
    ("leftover_markup", "leftover markup (`\\`, `$`, `**`, entities)"),
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
        row += [f"{candidates[n]['counts'][key]:,}" for n in names]
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
    return "\n".join(lines) + "\n"


def _result(root: Path, name: str) -> dict | None:
    path = root / "benchmarks" / "results" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def render_readme(text: str, manifest: dict, root: Path = PROJECT_ROOT) -> str:
    blocks = {
        "stats": stats_block(manifest),
        "pinned-load": pinned_load_block(manifest),
        "near-dup-benchmark": near_dup_block(_result(root, "near_dup")),
        "scale-benchmark": scale_block(_result(root, "scale")),
        "startup-benchmark": startup_block(_result(root, "startup")),
        "plain-fidelity-benchmark": plain_fidelity_block(_result(root, "plain_fidelity")),
    }

    def fill(m: re.Match) -> str:
        body = blocks.get(m["name"])
        return m.group(0) if body is None else m.group(1) + body + m.group(4)

    return _BLOCK_RE.sub(fill, text)


def expected_docs(dist: Path, root: Path = PROJECT_ROOT) -> dict[Path, str]:
    """What ``root``'s DATASHEET.md and README.md should say for the build in ``dist``."""
    manifest = json.loads((dist / "build_manifest.json").read_text(encoding="utf-8"))
    readme = root / "README.md"
    return {
        root / DATASHEET: (dist / DATASHEET).read_text(encoding="utf-8"),
        readme: render_readme(readme.read_text(encoding="utf-8"), manifest, root),
    }


def refresh(dist: Path, root: Path = PROJECT_ROOT) -> list[Path]:
    """Rewrite the generated docs from ``dist``; return the files that changed."""
    changed = []
    for path, text in expected_docs(dist, root).items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            changed.append(path)
    return changed


def stale(dist: Path, root: Path = PROJECT_ROOT) -> list[str]:
    return [
        path.relative_to(root).as_posix()
        for path, text in expected_docs(dist, root).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
