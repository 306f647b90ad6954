"""Build dist/ from raw/, and check a committed dist/ (and the docs made from it) against a fresh build.

``run`` is the build: its stages (``stages/``), called in order, each handing the next a typed
result. raw/ is read by the read stage (``stages.read``) and, a dump at a time, by the parse stage.
"""

from __future__ import annotations

import filecmp
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ..core.config import DEFAULT_CONFIG, DEFAULT_WORKERS, BuildConfig
from ..core.errors import DumpError
from ..core.gc_pause import gc_paused
from ..core.guard import replace_dir, resolve, temporary_folder
from ..core.names import release_beside
from ..core.pool import Workers
from ..core.resources import dataset_version
from ..core.schema import pandera_schema
from ..core.stages import no_timer
from ..ingest.previous import BESIDE_RAW, PreviousRelease, is_release, previous_release, read_previous
from ..record.published import Record, anchored_previous, check_build, since_published
from .occurrences import Occurrences
from .stages.assemble import BuildResult, assemble, assemble_occurrences, build_stats
from .stages.identify import identify
from .stages.near_dup import near_dup
from .stages.parse import parse
from .stages.read import Dumps, read
from .stages.render import render
from .stages.write import write_dist, write_occurrences


def run(
    dumps: Dumps,
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: PreviousRelease | None = None,
    version: str = "0.0.0",
    workers: Workers | None = None,
    occurrences_ready: Callable[[Occurrences], None] = lambda _: None,
) -> BuildResult:
    """The build's stages over ``dumps`` (the read stage's), in order: validated-ready tables out.
    Paper ids are anchored to ``previous`` (None: the first release); ids first published or
    retired now are marked with ``version``.

    ``stage(name)`` is a context manager entered around each stage (for timings); "parse" and
    "normalize" are entered, one or more times, for each dump. ``workers`` (default:
    ``DEFAULT_WORKERS``) may prepare the dumps, sketch the distinct texts and render the plain
    text in other processes; they are shut down here. ``occurrences_ready(occurrences)`` is called
    as soon as the occurrences table can be produced, before the plain text is rendered. With
    fork (Linux up to Python 3.13), the executor starts all its processes at its first task,
    while the dumps are parsed, so a thread ``occurrences_ready`` starts is never forked
    (threads libraries run by then are: pyarrow's allocator's, and tqdm's monitor on a
    terminal); with spawn or forkserver, processes started later are not forks of this one.
    """
    with workers or Workers(DEFAULT_WORKERS) as pool:
        parsed = parse(dumps, config, pool, stage)
        try:
            with stage("near-dup"):
                papers = near_dup(parsed, config, pool)
                identified = identify(parsed, papers, previous, version)
            occurrences = assemble_occurrences(parsed, papers, identified)
            with stage("plain text"):
                occurrences_ready(occurrences)
                rendered = render(parsed, papers, pool)
            with stage("assemble"):
                table, ids = assemble(parsed, papers, identified, rendered, occurrences)
        except BaseException:
            parsed.spool.close()
            raise
    stats = build_stats(parsed, papers, identified.identity, table.num_rows, version)
    return BuildResult(table, occurrences, ids, tuple(parsed.dumps), parsed.meta, identified.identity, stats)


def _run(
    raw_dir: str | Path, config: BuildConfig, stage: Callable, previous: PreviousRelease | None,
    workers: int | None, occurrences_ready: Callable = lambda _: None,
) -> BuildResult:
    pool = Workers(DEFAULT_WORKERS if workers is None else workers, folder=str(raw_dir))  # a bad number, before any work
    with stage("read"):
        dumps = read(raw_dir, previous)
    return run(dumps, config, stage, previous, dataset_version(), pool, occurrences_ready)


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
    from .contracts import check

    prev = previous_release(raw_dir, previous)
    result = _run(raw_dir, config, stage, prev, workers)
    try:
        check(result.papers, result.occurrences, result.stats["records"], ids=result.ids, previous=prev)
    except BaseException:
        result.occurrences.spool.close()
        raise
    return result


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
    ``produce``. ``docs``: the checkout whose generated docs (``docs.expected_docs``) are
    refreshed from ``out`` once it is swapped in, its dist/ (``refreshed``: those that changed). ``final``: False
    for a build into a folder of the caller's own (``check``'s), which Ctrl-C may still stop
    after its swap. Only one command at a time writes ``out`` (``lock.writing``).
    """
    from ..core.lock import writing

    started = time.perf_counter()
    with writing(out), temporary_folder() as fetched:
        reads, prev, record = anchored_previous(raw_dir, previous, fetched / "previous", writes=out,
                                                version=dataset_version())
        return _build(raw_dir, out, config, stage, reads, prev, repo_id, workers, started, docs, final, record)


def _replaced(out: Path, prev: PreviousRelease | None) -> PreviousRelease | None:
    """The release ``out`` holds, which the build replaces, if it is not the anchor itself."""
    if not is_release(out) or (prev is not None and resolve(Path(prev.path)) == resolve(out)):
        return None
    try:
        return read_previous(out)
    except (DumpError, ValueError):  # not readable: nothing it holds can be told (the guard judges it)
        return None


def _build(raw_dir, out, config, stage, reads, prev, repo_id, workers, started, docs, final, record: Record) -> dict:
    # refused by the guard before any work (``replace_dir``); a release read but not written
    # (publish's dist/) must survive
    guard = {"raw": [raw_dir], "keep": [p for p in reads if resolve(Path(p)) != resolve(Path(out))], "releases": reads}
    built: list[BuildResult] = []

    def fill(tmp: Path) -> None:
        # The occurrences table is checked and written in a thread of its own from the moment it
        # can be (see ``run``), while this thread has the plain text rendered and checks
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
                    writing.append(writer.submit(write_occurrences, occurrences, tmp, config, stop))

                result = _run(raw_dir, config, stage, prev, workers, start_writing)
                built.append(result)
                check_build(result.identity.ids, prev, record, dataset_version(), _replaced(Path(out), prev),
                            frozenset(d.sha256 for d in result.dumps))
                with stage("contracts and write"):
                    write_dist(result, tmp, config, repo_id, prev, writing[0], writer)
            except BaseException:
                stop.set()  # and the executor waits for the writer to see it
                raise

    with gc_paused():
        try:
            replace_dir(Path(out), fill, final=final, **guard)
        finally:
            for result in built:
                result.occurrences.spool.close()
    result = built[0]
    refreshed = _refresh_docs(Path(out), docs) if docs is not None else []
    events = since_published(result.identity.ids, record)
    return {**result.stats, "id_changes": events, "seconds": round(time.perf_counter() - started, 3),
            "refreshed": refreshed}


def _refresh_docs(dist: Path, root: Path) -> list[Path]:
    """After the swap: the generated docs of ``root`` rewritten from ``dist``, each file whole;
    returns those that changed. Killed before or while this runs, the docs left are whole but
    stale: ``check`` names them and the next build refreshes them."""
    from ..core.guard import kill_point
    from ..release.docs import refresh

    kill_point("refreshing")
    return refresh(dist, root)


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
    DATASHEET.md and the blocks of README.md and CONTRIBUTING.md a build makes."""
    from ..release.docs import stale

    beside = Path(dist).resolve() == release_beside(raw_dir).resolve()
    if not Path(dist).exists():
        if beside:  # where the project has published, refused with the ways out a build names
            anchored_previous(raw_dir, BESIDE_RAW, Path())
        from ..record.published import killed_build_left

        raise DumpError(str(dist), killed_build_left(dist) or f"no such folder: nothing to compare; build it first (build --out {dist})")
    if not Path(dist).is_dir():
        raise DumpError(str(dist), "not a folder: give the dist/ folder to compare")
    # a damaged dist/ is refused, naming the file: its ids cannot be kept, so no rebuild can match it
    if not is_release(dist):  # its ids cannot be kept: a build that keeps none is refused where any were published
        anchored_previous(raw_dir, BESIDE_RAW if beside else None, Path())
    previous = read_previous(dist) if is_release(dist) else None
    with temporary_folder() as tmp:
        fresh = tmp / "dist"
        build(raw_dir, fresh, config, previous=previous, final=False)
        name = Path(dist).name
        found = [f"{name}/{f}" for f in diff_dirs(fresh, Path(dist))]
        return found + (stale(fresh) if docs else [])
