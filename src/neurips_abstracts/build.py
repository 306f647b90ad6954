"""Build dist/ from raw/, and check a committed dist/ (and the docs made from it) against a fresh build."""

from __future__ import annotations

import filecmp
import time
from collections.abc import Callable
from pathlib import Path

from . import release
from .config import DEFAULT_CONFIG, BuildConfig
from .gc_pause import gc_paused
from .guard import check_replaceable, remove_litter, temporary_folder
from .errors import DumpError
from .load import read_meta, read_raw
from .manifest import build_manifest
from .resources import dataset_version, hub_repo, maintainers
from .resources import read_text as read_resource
from .pipeline import BuildResult, no_timer, run
from .previous import PreviousRelease, first_difference, is_release, read_previous
from .sidecar import changed_since_published
from .schema import TABLES
from .stats import compute as compute_stats
from .write import atomic_dir, data_path, dumps_json, write_parquet, write_text

MANIFEST = "build_manifest.json"
STAGES = ("read", "parse", "normalize", "near-dup", "plain text", "assemble", "contracts", "write")


BESIDE_RAW = "beside-raw"  # the default previous release: the dist/ folder next to raw/


def previous_release(
    raw_dir: str | Path, previous: str | Path | PreviousRelease | None = BESIDE_RAW
) -> PreviousRelease | None:
    """The release whose ids a build keeps: ``previous`` itself (a folder, or one already read),
    or by default the ``dist/`` beside ``raw_dir`` if it holds one; None means this build is the
    first release."""
    if previous is None or isinstance(previous, PreviousRelease):
        return previous
    if previous == BESIDE_RAW:
        beside = Path(raw_dir).parent / "dist"
        return read_previous(beside) if is_release(beside) else None
    try:
        return read_previous(previous)
    except DumpError:
        raise
    except ValueError as exc:
        raise DumpError(str(previous), str(exc).partition(": ")[2] or str(exc)) from None


def _refuse_edited(files: list[tuple[str, bytes]], previous: PreviousRelease | None) -> None:
    """A published dump whose bytes changed: DumpError at the first line that differs."""
    import hashlib

    for name, data in files:
        published = previous.dump_sha256.get(name) if previous else None
        if published is not None and hashlib.sha256(data).hexdigest() != published:
            raise changed_since_published(name, previous.version, first_difference(previous.path, name, data))


def produce(
    raw_dir: str | Path,
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: str | Path | PreviousRelease | None = BESIDE_RAW,
) -> BuildResult:
    """Run every stage and the contracts, without writing anything.

    Paper ids are anchored to the ``previous`` release (see ``previous_release``)."""
    from .contracts import check

    prev = previous_release(raw_dir, previous)
    version = dataset_version()

    def inputs() -> dict:
        with stage("read"):
            files = read_raw(raw_dir)
            _refuse_edited(files, prev)
            return {"files": files, "meta": read_meta(raw_dir, [name for name, _ in files])}

    # No name here holds the files' bytes, so run() frees them once they are parsed.
    result = run(config=config, stage=stage, previous=prev, version=version, **inputs())
    with stage("contracts"):
        check(result.papers, result.occurrences, result.stats["records"], ids=result.ids, previous=prev)
    return result


def write_dist(result: BuildResult, out: Path, config: BuildConfig, repo_id: str | None = None) -> None:
    """Write the release into ``out``, its documents naming ``repo_id`` (default: the project's hub-repo)."""
    tables = {"papers": result.papers, "occurrences": result.occurrences, "ids": result.ids}
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
    manifest = build_manifest(result.dumps, config, result.stats, statistics, result.meta, result.identity)
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
    previous: str | Path | PreviousRelease | None = BESIDE_RAW,
    repo_id: str | None = None,
) -> dict:
    """Build ``out`` from ``raw_dir``; ``out`` is replaced only when everything succeeded.

    Paper ids are kept from the ``previous`` release: by default the ``dist/`` beside
    ``raw_dir``; None builds a first release. Returns the build statistics plus ``seconds``.
    ``stage(name)`` wraps each stage (timings). ``repo_id`` renders the documents for another
    Hub repository than the project's hub-repo.
    """
    started = time.perf_counter()
    # refused before any work; a release read but not written (publish's dist/) must survive
    reads = [] if previous is None or isinstance(previous, PreviousRelease) or previous == BESIDE_RAW else [previous]
    guard = {"raw": [raw_dir], "keep": [p for p in reads if Path(p).resolve() != Path(out).resolve()], "releases": reads}
    check_replaceable(out, **guard)
    for folder in {Path(out), Path(raw_dir).parent / "dist"}:  # a release a killed build moved aside comes back first
        remove_litter(folder.parent, folder.name)
    with gc_paused():
        result = produce(raw_dir, config, stage, previous)
        with stage("write"):
            atomic_dir(Path(out), lambda tmp: write_dist(result, tmp, config, repo_id), **guard)
    events = {"added": len(result.identity.added), "merged": len(result.identity.merged), "removed": len(result.identity.removed)}
    return {**result.stats, "id_changes": events, "seconds": round(time.perf_counter() - started, 3)}


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
    """Rebuild into a temporary folder, keeping the ids of ``dist`` itself; return the stale
    files: those of ``dist`` (as ``dist/<path>``) and, with ``docs``, the project's generated
    DATASHEET.md and README.md."""
    from .docs import stale

    # a damaged dist/ is refused, naming the file: its ids cannot be kept, so no rebuild can match it
    previous = read_previous(dist) if is_release(dist) else None
    with temporary_folder() as tmp:
        fresh = tmp / "dist"
        build(raw_dir, fresh, config, previous=previous)
        name = Path(dist).name
        found = [f"{name}/{f}" for f in diff_dirs(fresh, Path(dist))] if Path(dist).is_dir() else [f"{name}/"]
        return found + (stale(fresh) if docs else [])
