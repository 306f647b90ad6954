"""Build dist/ from raw/, and check a committed dist/ (and the docs made from it) against a fresh build."""

from __future__ import annotations

import filecmp
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from pathlib import Path

from .core.config import DEFAULT_CONFIG, DEFAULT_WORKERS, BuildConfig
from .core.errors import DumpError
from .core.gc_pause import gc_paused
from .core.guard import check_replaceable, remove_litter, resolve, temporary_folder
from .core.names import MANIFEST, release_beside
from .core.resources import dataset_version, hub_repo, maintainers, read_text as read_resource
from .core.schema import TABLES, pandera_schema
from .core.sums import sha256_file
from .ingest.load import dump_paths, read_meta
from .ingest.previous import BESIDE_RAW, PreviousRelease, is_release, previous_release, published_change, read_previous
from .pipeline import BuildResult, Workers, no_timer, run
from .release.manifest import build_manifest
from .release.write import atomic_dir, dumps_json, write_parquet, write_parquet_batches, write_text
from .release.stats import compute as compute_stats

HUB_PREFIX = "hub:"  # --previous hub:v1.1.0: the release tagged on the Hub repository (hub-repo)
STATS_COLUMNS = ("relation", "similarity", "source_file")  # what ``stats.compute`` reads of occurrences


def _reader(path: Path, previous: PreviousRelease | None) -> Callable[[], bytes]:
    """A function reading one dump when the build reaches it: DumpError at the first line that
    differs if it is a published dump whose bytes changed."""

    def read() -> bytes:
        data = path.read_bytes()
        if (error := published_change(previous, path.name, data=data)) is not None:
            raise error
        return data

    return read


def _run(
    raw_dir: str | Path, config: BuildConfig, stage: Callable, previous: str | Path | PreviousRelease | None,
    workers: int | None, occurrences_ready: Callable = lambda _: None,
) -> tuple[BuildResult, PreviousRelease | None]:
    prev = previous_release(raw_dir, previous)
    version = dataset_version()
    with stage("read"):
        paths = dump_paths(raw_dir)
        meta = read_meta(raw_dir, [p.name for p in paths])
    result = run([(p.name, _reader(p, prev)) for p in paths], config, stage, meta, prev, version,
                 Workers(DEFAULT_WORKERS if workers is None else workers, folder=str(raw_dir)), occurrences_ready)
    return result, prev


def produce(
    raw_dir: str | Path,
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: str | Path | PreviousRelease | None = BESIDE_RAW,
    workers: int | None = None,
) -> BuildResult:
    """Run every stage and the contracts, without writing anything but the build's own spool
    of raw texts (past its bound in memory, an unnamed temporary file: see ``Spool``).

    Paper ids are anchored to the ``previous`` release (see ``previous_release``). Dumps are
    read one at a time, as the build reaches them. ``workers`` processes (default:
    ``DEFAULT_WORKERS``) share the per-record work of a large build; the output does not depend on it."""
    from .release.contracts import check

    result, prev = _run(raw_dir, config, stage, previous, workers)
    try:
        check(result.papers, result.occurrences, result.stats["records"], ids=result.ids, previous=prev)
    except BaseException:
        result.occurrences.spool.close()
        raise
    return result


def _data_file(out: Path, written) -> "contents.DataFile":
    """What the release says of a table written in ``out`` (``write.Written``)."""
    from .release import contents

    shards = tuple(contents.Shard(path=rel, size=(out / rel).stat().st_size, sha256=sha256_file(out / rel), rows=rows)
                   for rel, rows in written.shards)
    return contents.DataFile(shards=shards, rows=written.rows, nbytes=written.nbytes)


def _write_table(name: str, table, out: Path, config: BuildConfig):
    return _data_file(out, write_parquet(table, name, out, config))


def _write_occurrences(occurrences, out: Path, config: BuildConfig, stop: threading.Event):
    """Check each row group of the occurrences table (``contracts.check_occurrence_rows``) and
    write it (``write.Written``). A row group is checked in a second thread while this one
    writes it (Parquet's encoder runs outside the GIL); the next is written only once that check
    passed. Stops before the next row group once ``stop`` is set."""
    from .release.contracts import check_occurrence_rows

    def checked(batches, checker: ThreadPoolExecutor):
        passed = None
        for batch in batches:
            if passed is not None:
                passed.result()  # a broken row stops the writing at its row group
            if stop.is_set():
                raise CancelledError("the build stopped")
            passed = checker.submit(check_occurrence_rows, batch)
            yield batch
        if passed is not None:
            passed.result()

    with ThreadPoolExecutor(1, thread_name_prefix="occurrence-rows") as checker:
        return write_parquet_batches(checked(occurrences.batches(config.parquet_batch_rows), checker),
                                     occurrences.schema, "occurrences", out, config)


def write_dist(result: BuildResult, out: Path, config: BuildConfig, repo_id: str | None,
               previous: PreviousRelease | None, occurrences_written: Future, writer: ThreadPoolExecutor) -> None:
    """Check the contracts (see ``contracts.check``; ``previous``: the release ids are anchored
    to) and write the release into ``out``, its documents naming ``repo_id`` (default: the
    project's hub-repo). The occurrences table is being checked and written meanwhile
    (``_write_occurrences``: ``occurrences_written`` gives its rows and size); the other tables
    are written by ``writer`` while this thread checks the contracts across tables. A
    ContractError leaves ``out`` half written, for ``atomic_dir`` to throw away."""
    from .release import croissant, datapackage, contents as release, texts
    from .release.card import card
    from .release.contracts import ContractError, check_tables
    from .release.datasheet import datasheet

    occurrences = result.occurrences
    written = {name: writer.submit(_write_table, name, getattr(result, name), out, config)
               for name in TABLES if name != "occurrences"}
    try:
        check_tables(result.papers, occurrences, result.stats["records"], result.ids, previous)
    except BaseException as exc:
        for future in written.values():
            future.cancel()  # those not started yet: the release will not be swapped in
        if isinstance(exc, ContractError):
            occurrences_written.result()  # a broken row is reported first, as ``contracts.check`` does
        raise
    data = {name: future.result() for name, future in written.items()}
    data["occurrences"] = _data_file(out, occurrences_written.result())
    data = {name: data[name] for name in TABLES}
    statistics = compute_stats(result.papers, occurrences.select(STATS_COLUMNS))
    manifest = build_manifest(result.dumps, config, result.stats, statistics, result.meta, result.identity)
    changelog = read_resource(release.CHANGELOG)
    r = release.Release(
        dataset_version(), config, statistics, manifest, data, changelog, repo_id or hub_repo(), maintainers()
    )
    write_text(out / MANIFEST, dumps_json(manifest))
    write_text(out / release.CARD, card(r))
    write_text(out / release.DATASHEET, datasheet(r))
    write_text(out / release.LICENSE, texts.license_md())
    write_text(out / release.CHANGELOG, changelog)
    write_text(out / release.DATAPACKAGE, dumps_json(datapackage.datapackage(r)))
    write_text(out / release.CROISSANT, dumps_json(croissant.croissant(r)))
    write_text(out / release.SUMS, release.sha256sums(out, {s.path: s.sha256 for d in data.values() for s in d.shards}))


def build(
    raw_dir: str | Path = "raw",
    out: str | Path = "dist",
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: str | Path | PreviousRelease | None = BESIDE_RAW,
    repo_id: str | None = None,
    workers: int | None = None,
    docs: Path | None = None,
    final: bool = True,
) -> dict:
    """Build ``out`` from ``raw_dir``; ``out`` is replaced only when everything succeeded.

    Paper ids are kept from the ``previous`` release: by default the ``dist/`` beside
    ``raw_dir``; None builds a first release. Returns the build statistics plus ``seconds``
    and ``refreshed``. ``stage(name)`` wraps each stage (timings). ``repo_id`` renders the
    documents for another Hub repository than the project's hub-repo. ``workers``: see
    ``produce``. ``docs``: the checkout whose generated docs (``docs.expected_docs``) change
    with ``out`` in one commit, its dist/ (``refreshed``: those that changed). ``final``: False
    for a build into a folder of the caller's own (``check``'s), which Ctrl-C may still stop
    after its swap. Only one command at a time writes ``out`` (``lock.writing``).
    """
    from .core.lock import writing

    started = time.perf_counter()
    with writing(out), temporary_folder() as fetched:
        previous = anchored_previous(raw_dir, previous, fetched / "previous")
        return _build(raw_dir, out, config, stage, previous, repo_id, workers, started, docs, final)


def anchored_previous(raw_dir: str | Path, previous, into: Path):
    """``previous`` as a build reads it: a folder or a release already read as given; a released
    version or git revision read from the project's git history into ``into``. The release beside
    raw/ by default, refused (one line naming the ways out) where it is missing or incomplete
    although the project has published before."""
    from .release.anchor import missing_previous, published_before, release_from_git

    if previous == BESIDE_RAW:
        beside = release_beside(raw_dir)
        if not is_release(beside):
            evidence = published_before(beside.parent)
            if evidence:
                what = "incomplete (no occurrences table)" if (beside / MANIFEST).is_file() else "missing"
                raise missing_previous(beside, f"the release beside raw/ is {what}", evidence)
        return previous
    if isinstance(previous, str) and previous.startswith(HUB_PREFIX):  # the published record itself
        from .core.resources import hub_repo
        from .release.hub_record import fetch_release

        return str(fetch_release(hub_repo(), previous[len(HUB_PREFIX):], into))
    if isinstance(previous, str) and not Path(previous).exists() and not Path(previous).is_symlink():
        return release_from_git(previous, release_beside(raw_dir).parent, into)
    return previous


def _build(raw_dir, out, config, stage, previous, repo_id, workers, started, docs, final) -> dict:
    # refused before any work; a release read but not written (publish's dist/) must survive
    reads = [] if previous is None or isinstance(previous, PreviousRelease) or previous == BESIDE_RAW else [previous]
    guard = {"raw": [raw_dir], "keep": [p for p in reads if resolve(Path(p)) != resolve(Path(out))], "releases": reads}
    check_replaceable(out, **guard)
    for folder in {Path(out), release_beside(raw_dir)}:  # a release a killed build moved aside comes back first
        remove_litter(folder.parent, folder.name)
    built: list[BuildResult] = []
    refreshed: list[Path] = []

    def fill(tmp: Path) -> dict[Path, str]:
        # The occurrences table is checked and written in a thread of its own from the moment it
        # can be (see ``pipeline.run``), while this thread has the plain text rendered and checks
        # the rest, and the other tables are written in a second: their time goes to Parquet's
        # encoder, which runs outside the GIL.
        stop = threading.Event()
        writing: list[Future] = []
        with ThreadPoolExecutor(2, thread_name_prefix="writer") as writer:
            try:
                def start_writing(occurrences) -> None:
                    # pandera is imported here, in this thread: its import edits sys.modules (see
                    # schema.import_pandera_polars), which must not happen beside this thread's imports.
                    pandera_schema("occurrences")
                    writing.append(writer.submit(_write_occurrences, occurrences, tmp, config, stop))

                result, prev = _run(raw_dir, config, stage, previous, workers, start_writing)
                built.append(result)
                with stage("contracts and write"):
                    write_dist(result, tmp, config, repo_id, prev, writing[0], writer)
            except BaseException:
                stop.set()  # and the executor waits for the writer to see it
                raise
        changed = _changed_docs(tmp, docs) if docs is not None else {}
        refreshed.extend(changed)
        return changed

    with gc_paused():
        try:
            atomic_dir(Path(out), fill, final=final, **guard)
        finally:
            for result in built:
                result.occurrences.spool.close()
    result = built[0]
    events = {"added": len(result.identity.added), "merged": len(result.identity.merged), "removed": len(result.identity.removed)}
    return {**result.stats, "id_changes": events, "seconds": round(time.perf_counter() - started, 3),
            "refreshed": refreshed}


def _changed_docs(dist: Path, root: Path) -> dict[Path, str]:
    """The generated docs of ``root`` that the release in ``dist`` changes, with their new text."""
    from .release.docs import differing

    return {path: text for path, text in differing(dist, root).items() if text is not None}


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
    DATASHEET.md, README.md, CONTRIBUTING.md and benchmarks/README.md."""
    from .release.docs import stale

    if not Path(dist).exists():
        raise DumpError(str(dist), f"no such folder: nothing to compare; build it first (build --out {dist})")
    if not Path(dist).is_dir():
        raise DumpError(str(dist), "not a folder: give the dist/ folder to compare")
    # a damaged dist/ is refused, naming the file: its ids cannot be kept, so no rebuild can match it
    if not is_release(dist):  # its ids cannot be kept: a build that keeps none is refused where any were published
        anchored_previous(raw_dir, BESIDE_RAW if Path(dist).resolve() == release_beside(raw_dir).resolve() else None, Path())
    previous = read_previous(dist) if is_release(dist) else None
    with temporary_folder() as tmp:
        fresh = tmp / "dist"
        build(raw_dir, fresh, config, previous=previous, final=False)
        name = Path(dist).name
        found = [f"{name}/{f}" for f in diff_dirs(fresh, Path(dist))]
        return found + (stale(fresh) if docs else [])
