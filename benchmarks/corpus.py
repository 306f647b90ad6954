"""Real abstracts for benchmarks, read in place from ../shared/corpora (never copied)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the clone; a worktree one level deeper (worktrees/X) finds it one level up.
CORPORA = next((d / "shared" / "corpora" for d in (ROOT.parent, ROOT.parent.parent) if (d / "shared" / "corpora").is_dir()),
               ROOT.parent / "shared" / "corpora")
YEARS = (2018, 2023)


def real_abstracts(years=YEARS) -> list[str]:
    import zstandard

    out = []
    for year in years:
        with open(CORPORA / f"neurips{year}" / "papers.jsonl.zst", "rb") as fh:
            text = zstandard.ZstdDecompressor().stream_reader(fh).read().decode("utf-8")
        out.extend(json.loads(line)["abstract"] for line in text.splitlines() if line.strip())
    return out
