"""Build dist/ from raw/, and check a committed dist/ against a fresh build."""

from __future__ import annotations

import filecmp
import tempfile
import time
from pathlib import Path

from .config import DEFAULT_CONFIG, BuildConfig
from .load import read_raw
from .manifest import build_manifest
from .pipeline import BuildResult, run
from .write import atomic_dir, data_path, dumps_json, write_parquet, write_text

MANIFEST = "build_manifest.json"


def produce(raw_dir: str | Path, config: BuildConfig = DEFAULT_CONFIG) -> BuildResult:
    """Run every stage and the contracts, without writing anything."""
    from .contracts import check

    result = run(read_raw(raw_dir), config)
    check(result.papers, result.occurrences, result.stats["records"])
    return result


def write_dist(result: BuildResult, out: Path, config: BuildConfig) -> None:
    write_parquet(result.papers, "papers", out / data_path("papers"), config)
    write_parquet(result.occurrences, "occurrences", out / data_path("occurrences"), config)
    write_text(out / MANIFEST, dumps_json(build_manifest(result.dumps, config, result.stats)))


def build(raw_dir: str | Path = "raw", out: str | Path = "dist", config: BuildConfig = DEFAULT_CONFIG) -> dict:
    """Build ``out`` from ``raw_dir``; ``out`` is replaced only when everything succeeded.

    Returns the build statistics plus ``seconds``.
    """
    started = time.perf_counter()
    result = produce(raw_dir, config)
    atomic_dir(Path(out), lambda tmp: write_dist(result, tmp, config))
    return {**result.stats, "seconds": round(time.perf_counter() - started, 3)}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def diff_dirs(expected: Path, actual: Path) -> list[str]:
    """Relative paths that differ between two folders: missing, extra, or different bytes."""
    a, b = _files(expected), _files(actual)
    differ = [f for f in sorted(a & b) if not filecmp.cmp(expected / f, actual / f, shallow=False)]
    return sorted(set(differ) | (a ^ b))


def check(raw_dir: str | Path = "raw", dist: str | Path = "dist", config: BuildConfig = DEFAULT_CONFIG) -> list[str]:
    """Rebuild into a temporary folder; return the files of ``dist`` that are stale."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "dist"
        build(raw_dir, fresh, config)
        return diff_dirs(fresh, Path(dist)) if Path(dist).is_dir() else ["(dist folder missing)"]
