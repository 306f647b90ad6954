from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPORA = SHARED / "corpora"
HEADER = "NeurIPS 2026 论文列表"


def run_cli(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CLI as a user would: a new Python process on build_dataset.py."""
    return subprocess.run(
        [sys.executable, str(ROOT / "build_dataset.py"), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def make_dump(abstracts: list[str], header: str = HEADER) -> bytes:
    return (header + "\n\n" + "\n\n".join(abstracts)).encode("utf-8")


def require_shared() -> None:
    """Skip where ../shared is absent (a contributor's fork on GitHub); .ci/run sets
    REQUIRE_SHARED=1 so that there a missing ../shared fails instead of skipping."""
    if not CORPORA.is_dir():
        if os.environ.get("REQUIRE_SHARED") == "1":
            pytest.fail(f"{CORPORA} is missing but REQUIRE_SHARED=1")
        pytest.skip(f"{CORPORA} not present")


def corpus_abstracts(year: int) -> list[str]:
    """Real abstracts of one corpus, read in place from ../shared (never copied)."""
    import zstandard

    require_shared()
    path = CORPORA / f"neurips{year}" / "papers.jsonl.zst"
    with open(path, "rb") as fh:
        text = zstandard.ZstdDecompressor().stream_reader(fh).read().decode("utf-8")
    return [json.loads(line)["abstract"] for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def seeds_dist(tmp_path_factory) -> Path:
    from neurips_abstracts.build import build

    out = tmp_path_factory.mktemp("seeds") / "dist"
    build(ROOT / "raw", out)
    return out


@pytest.fixture
def raw_copy(tmp_path) -> Path:
    """A writable copy of raw/ (the seeds) to add or break dumps in."""
    raw = tmp_path / "raw"
    raw.mkdir()
    for f in sorted((ROOT / "raw").glob("*.txt")):
        (raw / f.name).write_bytes(f.read_bytes())
    return raw
