"""Build dist/ from raw/, and check a committed dist/ (and the docs made from it) against a fresh build.

``build`` reads top to bottom: resolve the previous release (``Build.anchored``), run the stages
and check and write their tables into a temporary folder (``Build.fill``), swap it in for dist/
(``replace_dir``), then refresh the generated docs. One ``Build`` holds what a build knows; ``run``
is its stages (``stages/``), called in order, each handing the next a typed result, in one process.
"""

from __future__ import annotations

import filecmp
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.ahead import Handoff
from ..core.config import DEFAULT_CONFIG, BuildConfig
from ..core.errors import DumpError
from ..core.gc_pause import gc_paused
from ..core.guard import kill_point, replace_dir, resolve, temporary_folder
from ..core.memory import arrow_from_c_allocator
from ..core.names import release_beside
from ..core.resources import dataset_version
from ..core.schema import pandera_schema
from ..core.stages import no_timer
from ..ingest.previous import BESIDE_RAW, PreviousRelease, is_release, read_previous
from ..record.published import Record, anchored_previous, check_build, since_published
from .occurrences import Occurrences
from .stages.assemble import BuildResult, assemble, assemble_occurrences, build_stats, papers_columns, papers_rows
from .stages.identify import identify
from .stages.near_dup import near_dup
from .stages.parse import parse
from .stages.read import Dumps, read
from .stages.render import render
from .stages.write import write_dist, write_occurrences, write_papers

if TYPE_CHECKING:
    import pyarrow as pa


def run(
    dumps: Dumps,
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: PreviousRelease | None = None,
    version: str = "0.0.0",
    occurrences_ready: Callable[[Occurrences], None] = lambda _: None,
    papers_ready: Callable[[Iterable[pa.RecordBatch]], None] | None = None,
) -> BuildResult:
    """The build's stages over ``dumps`` (the read stage's), in order: validated-ready tables out.
    Paper ids are anchored to ``previous`` (None: the first release); ids first published or
    retired now are marked with ``version``.

    ``stage(name)`` is a context manager entered around each stage (for timings); "parse" and
    "normalize" are entered, one or more times, for each dump. ``occurrences_ready(occurrences)``
    is called as soon as the occurrences table can be produced, before the plain text is rendered;
    ``papers_ready(rows)`` then, with the papers table's rows, which come as the plain text is
    rendered, in order (iterating ``rows`` waits for them; a failure of the build stops it).
    On failure the spool of raw texts is closed here; on success it is the result's to close.
    """
    parsed = parse(dumps, config, stage)
    rows: Handoff[pa.RecordBatch] | None = None
    try:
        with stage("near-dup"):
            papers = near_dup(parsed, config)
            identified = identify(parsed, papers, previous, version)
        occurrences = assemble_occurrences(parsed, papers, identified)
        fixed = papers_columns(parsed, papers, identified, occurrences)
        with stage("plain text"):
            occurrences_ready(occurrences)
            chunk_done = None
            if papers_ready is not None:
                rows = Handoff()
                papers_ready(rows)
                chunk_done = partial(_hand_rows, rows, fixed)
            rendered = render(parsed, papers, chunk_done)
            if rows is not None:
                rows.close()
        with stage("assemble"):
            table, ids = assemble(fixed, rendered, identified)
    except BaseException:
        if rows is not None:
            rows.stop()
        parsed.spool.close()
        raise
    stats = build_stats(parsed, papers, identified.identity, table.num_rows, version)
    return BuildResult(table, occurrences, ids, tuple(parsed.dumps), parsed.meta, identified.identity, stats)


def _hand_rows(rows: Handoff[pa.RecordBatch], fixed: dict[str, pa.Array], start: int,
               rendered: dict[str, pa.Array]) -> None:
    rows.put(papers_rows(fixed, start, rendered))


def _run(raw_dir: str | Path, config: BuildConfig, stage: Callable, previous: PreviousRelease | None,
         occurrences_ready: Callable[[Occurrences], None] = lambda _: None,
         papers_ready: Callable[[Iterable[pa.RecordBatch]], None] | None = None) -> BuildResult:
    """The read stage over ``raw_dir``, then ``run``."""
    with stage("read"):
        dumps = read(raw_dir, previous)
    return run(dumps, config, stage, previous, dataset_version(), occurrences_ready, papers_ready)


def produce(
    raw_dir: str | Path,
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: str | Path | PreviousRelease | None = BESIDE_RAW,
) -> BuildResult:
    """Run every stage and the contracts, without writing anything but the build's own spool
    of raw texts (past its bound in memory, an unnamed temporary file: see ``Spool``), and a
    release read from git into a temporary folder removed on return; the caller closes the
    spool (``result.occurrences.spool``).

    Paper ids are anchored to the ``previous`` release: one already read (or None: the first
    release) as given; one named (a folder, a version, ``BESIDE_RAW``) as ``build`` finds it
    (``anchored_previous``: the published record's, refused where ``build`` refuses it). Dumps are
    read one at a time, as the build reaches them."""
    from .contracts import check

    with ExitStack() as held:
        if previous is None or isinstance(previous, PreviousRelease):
            prev = previous
        else:  # a release read from git lives there while the build runs: read again where a dump differs from it
            fetched = held.enter_context(temporary_folder())
            prev = anchored_previous(raw_dir, previous, fetched / "previous")[1]
        result = _run(raw_dir, config, stage, prev)
        try:
            check(result.papers, result.occurrences, result.stats["records"], ids=result.ids, previous=prev)
        except BaseException:
            result.occurrences.spool.close()
            raise
    return result


@dataclass
class Build:
    """One build of ``raw_dir`` into ``out``: its config, the release it is anchored to
    (``previous``, None for a first release) and the published record that anchor was checked
    against, the version it marks, the release folders it read, and, once its stages ran, their
    result, whose spool of raw texts it closes on leaving its ``with`` block (the one place)."""

    raw_dir: str | Path
    out: Path
    config: BuildConfig
    stage: Callable
    previous: PreviousRelease | None
    record: Record
    reads: list[str]  # the release folders read: the guard keeps those the build does not write
    version: str
    repo_id: str | None = None
    final: bool = True
    compared: str | Path | None = None  # the folder ``check`` compares ``out`` with: advice names it
    result: BuildResult | None = None
    # the writer thread's, while ``fill`` runs
    _writer: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _tmp: Path = field(default=Path(), init=False, repr=False)
    _occurrences_written: Future | None = field(default=None, init=False, repr=False)
    _papers_written: Future | None = field(default=None, init=False, repr=False)

    @classmethod
    def anchored(cls, raw_dir: str | Path, out: str | Path, previous, fetched: Path, **options) -> Build:
        """The build of ``raw_dir`` into ``out``, anchored to the ``previous`` release as the
        published record allows (``anchored_previous``: refused in one line where it does not)."""
        version = dataset_version()
        reads, prev, record = anchored_previous(raw_dir, previous, fetched / "previous", writes=out, version=version)
        return cls(raw_dir, Path(out), previous=prev, record=record, reads=list(reads), version=version, **options)

    def way_back(self, version: str) -> str:
        """How to build on release ``version`` again, in the words of the command that ran this
        build: its raw folder, and the folder it writes (or ``check`` compares)."""
        from ..record.checks import way_back

        return way_back(version, self.compared or self.out, self.raw_dir)

    def __enter__(self) -> Build:
        return self

    def __exit__(self, *exc) -> None:
        if self.result is not None:
            self.result.occurrences.spool.close()

    def guarded(self) -> dict:
        """What the guard must refuse to write or keep whole (``replace_dir``), judged before any
        work: raw/ itself, and a release read but not written (publish's dist/)."""
        keep = [p for p in self.reads if resolve(Path(p)) != resolve(self.out)]
        return {"raw": [self.raw_dir], "keep": keep, "releases": self.reads}

    def fill(self, tmp: Path) -> None:
        """Run the stages, check the result against the published record, and write the release
        into ``tmp``. The occurrences table is checked and written in a thread of its own from
        the moment it can be (``write_occurrences_now``), while this thread has the plain text
        rendered and checks the rest; the papers table is written in a second as the plain text
        of its rows is rendered (``write_papers_now``), the ids table there afterwards: their time
        goes to Parquet's encoder, which runs outside the GIL."""
        with ThreadPoolExecutor(2, thread_name_prefix="writer") as writer:
            self._writer, self._tmp = writer, tmp
            try:
                self.result = _run(self.raw_dir, self.config, self.stage, self.previous, self.write_occurrences_now,
                                   self.write_papers_now)
                # The release ``out`` holds is checked only against a build anchored to a previous
                # one (``check_build``): a first release does not read it (seconds at scale).
                replaced = self.replaced() if self.previous is not None else None
                check_build(self.result.identity.ids, self.previous, self.record, self.version, replaced,
                            frozenset(d.sha256 for d in self.result.dumps), self.way_back)
                with self.stage("contracts and write"):
                    assert self._occurrences_written is not None  # run calls write_occurrences_now first
                    write_dist(self.result, tmp, self.config, self.repo_id, self.previous, self._occurrences_written,
                               writer, self._papers_written)
            except BaseException:
                self._stop.set()  # and the executor waits for the writer to see it
                raise

    def write_occurrences_now(self, occurrences: Occurrences) -> None:
        """Start checking and writing the occurrences table in the writer thread."""
        # pandera is imported here, in this thread: its import edits sys.modules (see
        # schema.import_pandera_polars), which must not happen beside the writer thread's imports.
        pandera_schema("occurrences")
        assert self._writer is not None  # called by run, inside ``fill``
        self._occurrences_written = self._writer.submit(write_occurrences, occurrences, self._tmp, self.config, self._stop)

    def write_papers_now(self, rows: Iterable[pa.RecordBatch]) -> None:
        """Start writing the papers table in the writer thread, from its rows as they come."""
        assert self._writer is not None  # called by run, inside ``fill``
        self._papers_written = self._writer.submit(write_papers, rows, self._tmp, self.config)

    def replaced(self) -> PreviousRelease | None:
        """The release ``out`` holds, which the build replaces, if it is not the anchor itself."""
        out, prev = self.out, self.previous
        if not is_release(out) or (prev is not None and resolve(Path(prev.path)) == resolve(out)):
            return None
        try:
            return read_previous(out)
        except (DumpError, ValueError):  # not readable: nothing it holds can be told (the guard judges it)
            return None

    def summary(self, seconds: float, refreshed: list[Path]) -> dict:
        """The build's statistics, the ids it changed since the newest published release, its
        time and the docs it refreshed."""
        assert self.result is not None  # called after a build that succeeded
        events = since_published(self.result.identity.ids, self.record, self.previous, self.version)
        return {**self.result.stats, "id_changes": events, "seconds": round(seconds, 3), "refreshed": refreshed}


def build(
    raw_dir: str | Path = "raw",
    out: str | Path = "dist",
    config: BuildConfig = DEFAULT_CONFIG,
    stage: Callable = no_timer,
    previous: str | Path | PreviousRelease | None = BESIDE_RAW,
    repo_id: str | None = None,
    docs: Path | None = None,
    final: bool = True,
    compared: str | Path | None = None,
) -> dict:
    """Build ``out`` from ``raw_dir``; ``out`` is replaced only when everything succeeded.

    Paper ids are kept from the ``previous`` release: by default the ``dist/`` beside
    ``raw_dir``; None builds a first release. Returns the build statistics plus ``seconds``
    and ``refreshed``. ``stage(name)`` wraps each stage (timings). ``repo_id`` renders the
    documents for another Hub repository than the project's hub-repo. ``docs``: the checkout
    whose generated docs (``docs.expected_docs``) are refreshed from ``out`` once it is swapped
    in, its dist/ (``refreshed``: those that changed). ``final``: False for a build into a folder
    of the caller's own (``check``'s), which Ctrl-C may still stop after its swap; ``compared``:
    the folder that caller compares it with, which its advice names instead. Only one
    command at a time writes ``out`` (``lock.writing``).
    """
    from ..core.lock import writing

    started = time.perf_counter()
    with writing(out), temporary_folder() as fetched:
        one = Build.anchored(raw_dir, out, previous, fetched, config=config, stage=stage, repo_id=repo_id, final=final,
                             compared=compared)
        with gc_paused(), arrow_from_c_allocator(), one:
            replace_dir(one.out, one.fill, final=final, **one.guarded())
        refreshed = _refresh_docs(one.out, docs) if docs is not None else []
        return one.summary(time.perf_counter() - started, refreshed)


def _refresh_docs(dist: Path, root: Path) -> list[Path]:
    """After the swap: the generated docs of ``root`` rewritten from ``dist``, each file whole;
    returns those that changed. Killed before or while this runs, the docs left are whole but
    stale: ``check`` names them and the next build refreshes them."""
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
        build(raw_dir, fresh, config, previous=previous, final=False, compared=dist)
        name = Path(dist).name
        found = [f"{name}/{f}" for f in diff_dirs(fresh, Path(dist))]
        return found + (stale(fresh) if docs else [])
