"""Build dist/ from raw/, and check a committed dist/ (and the docs made from it) against a fresh build."""

from __future__ import annotations

import filecmp
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from . import release
from .config import DEFAULT_CONFIG, BuildConfig
from .gc_pause import gc_paused
from .load import read_raw
from .manifest import build_manifest
from .resources import dataset_version, hub_repo, maintainers
from .resources import read_text as read_resource
from .pipeline import BuildResult, no_timer, run
from .schema import TABLES
from .stats import compute as compute_stats
from .write import atomic_dir, data_path, dumps_json, write_parquet, write_text

MANIFEST = "build_manifest.json"
STAGES = ("read", "parse", "normalize", "near-dup", "plain text", "assemble", "contracts", "write")


def produce(raw_dir: str | Path, config: BuildConfig = DEFAULT_CONFIG, stage: Callable = no_timer) -> BuildResult:
    """Run every stage and the contracts, without writing anything."""
    from .contracts import check

    def read():
        with stage("read"):
            return read_raw(raw_dir)

    # No name here holds the files' bytes, so run() frees them once they are parsed.
    result = run(read(), config, stage)
    with stage("contracts"):
        check(result.papers, result.occurrences, result.stats["records"])
    return result


def write_dist(result: BuildResult, out: Path, config: BuildConfig, repo_id: str | None = None) -> None:
    """Write the release into ``out``, its documents naming ``repo_id`` (default: the project's hub-repo)."""
    tables = {"papers": result.papers, "occurrences": result.occurrences}
    data = {}
    for name in TABLES:
        path = out / data_path(name)
        write_parquet(tables[name], name, path, config)
        data[name] = release.DataFile(
            path=data_path(name),
            size=path.stat().st_size,
            sha256=release.sha256_file(path),
            rows=tables[name].num_rows,
            nbytes=tables[name].nbytes,
        )
    statistics = compute_stats(result.papers, result.occurrences)
    manifest = build_manifest(result.dumps, config, result.stats, statistics)
    changelog = read_resource("CHANGELOG.md")
    r = release.Release(
        dataset_version(), config, statistics, manifest, data, changelog, repo_id or hub_repo(), maintainers()
    )
    write_text(out / MANIFEST, dumps_json(manifest))
    write_text(out / release.CARD, release.card(r))
    write_text(out / release.DATASHEET, release.datasheet(r))
    write_text(out / "LICENSE.md", release.texts.license_md())
    write_text(out / "CHANGELOG.md", changelog)
    write_text(out / "datapackage.json", dumps_json(release.datapackage(r)))
    write_text(out / "croissant.json", dumps_json(release.croissant(r)))
    write_text(out / release.SUMS, release.sha256sums(out, {d.path: d.sha256 for d in data.values()}))


def build(
    raw_dir: str | Path = "raw",
    out: str | Path = "dist",
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    repo_id: str | None = None,
) -> dict:
    """Build ``out`` from ``raw_dir``; ``out`` is replaced only when everything succeeded.

    Returns the build statistics plus ``seconds``. ``stage(name)`` wraps each stage (timings).
    ``repo_id`` renders the documents for another Hub repository than the project's hub-repo.
    """
    started = time.perf_counter()
    with gc_paused():
        result = produce(raw_dir, config, stage)
        with stage("write"):
            atomic_dir(Path(out), lambda tmp: write_dist(result, tmp, config, repo_id))
    return {**result.stats, "seconds": round(time.perf_counter() - started, 3)}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def diff_dirs(expected: Path, actual: Path) -> list[str]:
    """Relative paths that differ between two folders: missing, extra, or different bytes."""
    a, b = _files(expected), _files(actual)
    differ = [f for f in sorted(a & b) if not filecmp.cmp(expected / f, actual / f, shallow=False)]
    return sorted(set(differ) | (a ^ b))


def check(
    raw_dir: str | Path = "raw", dist: str | Path = "dist", config: BuildConfig = DEFAULT_CONFIG, docs: bool = True
) -> list[str]:
    """Rebuild into a temporary folder; return the stale files: those of ``dist`` (as
    ``dist/<path>``) and, with ``docs``, the project's generated DATASHEET.md and README.md."""
    from .docs import stale

    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "dist"
        build(raw_dir, fresh, config)
        name = Path(dist).name
        found = [f"{name}/{f}" for f in diff_dirs(fresh, Path(dist))] if Path(dist).is_dir() else [f"{name}/"]
        return found + (stale(fresh) if docs else [])
