"""The build as stages over columns, dump by dump: parse, normalize, deduplicate, assemble.

Nothing here reads raw/ or writes dist/: ``ingest/load.py`` reads raw/ at one end, ``release/write.py`` writes
dist/ at the other. Dumps are taken in their added order (see ``sidecar``), whatever order the
files were listed in, so the output does not depend on it.

Memory follows the distinct texts, not the raw records. Each dump is parsed and normalized
alone (with worker processes, the next few meanwhile); its records leave behind a few integers
each (numpy columns) and the index of their distinct normalized text (their *version*), so exact
duplicates collapse as they arrive. Their raw text, the one large per-record column, is spooled
as each dump is done (``Spool``: in memory up to a bound, then to an unnamed temporary file) and
read back a row group at a time when the occurrences table is checked and written.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from .core.config import DEFAULT_WORKERS, MAX_WORKERS, POOL_MIN_BYTES, BuildConfig
from .core.errors import DumpError
from .core.guard import temporary_folder
from .core.schema import arrow_schema
from .dedup.near_duplicates import near_duplicate_clusters
from .dedup.versions import NormalizeMemo, Prepared, Versions, _Grow, prepare_dump
from .ids.identity import Founding, Identity, assign_ids
from .ingest.load import copy_error
from .ingest.parse import Dump
from .ingest.previous import PreviousRelease, published_change, record_key
from .ingest.sidecar import DumpMeta, added_key, changed_since_added, crawl_key, published_meta
from .release.occurrences import POSITIONS, RELATIONS, Occurrences, Spool, dense, occurrence_ids
from .text.render import render_many


@contextmanager
def no_timer(name: str):
    yield


def _check_immutable(name: str, sha256: str, meta: DumpMeta | None, previous: PreviousRelease | None) -> DumpMeta:
    """The metadata of dump ``name`` with bytes ``sha256`` (see ``published_meta``); DumpError if
    its bytes changed since it was added or published."""
    if meta is not None and meta.sha256 != sha256:
        raise changed_since_added(name)
    if (error := published_change(previous, name, sha256)) is not None:
        raise error
    return published_meta(name, sha256, meta, previous)


@dataclass(frozen=True)
class BuildResult:
    papers: pa.Table
    occurrences: Occurrences
    ids: pa.Table
    dumps: tuple[Dump, ...]
    meta: dict[str, DumpMeta]
    identity: Identity
    stats: dict = field(default_factory=dict)


@dataclass
class Parsed:
    """What the dumps leave behind once parsed and normalized, a dump at a time."""

    dumps: list[Dump]  # without their records
    meta: dict[str, DumpMeta]
    dump: np.ndarray
    positions: dict[str, np.ndarray]
    version: np.ndarray
    versions: Versions
    spool: Spool
    nbytes: int = 0  # of the dumps

    def __len__(self) -> int:
        return len(self.version)


def _opened(data) -> bytes:
    return data() if callable(data) else data


class Workers:
    """Worker processes that prepare dumps (``prepare_dump``), then sketch the distinct texts
    for the near-duplicate search and render the papers' plain text (``map``): the standard
    library's executor, started only for a build of at least ``min_bytes`` of dumps, and shut
    down by the build once the plain text is rendered (meanwhile they hold what memory preparing
    the dumps left them: some 100 MB each at a million records). Each task's result is a function
    of its input alone and results are taken in input order, so the output is the same for any
    number of workers. Results come back through files of a temporary folder of ours (see
    ``_stored``), removed when the pool closes; workers ignore Ctrl-C (``_leave_interrupts``).
    ``mp_context`` (default: the platform's start method) lets tests run the pool as spawn does
    on macOS and Windows; ``folder`` (the raw folder) is named if a worker dies."""

    def __init__(self, n: int, mp_context=None, min_bytes: int = POOL_MIN_BYTES, folder: str = "raw"):
        if not 1 <= n <= MAX_WORKERS:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {n}")
        self.n, self.mp_context, self.min_bytes, self.folder, self.pool = n, mp_context, min_bytes, folder, None
        self.results: Path | None = None  # the folder the workers' results pass through
        self._results = ExitStack()

    def start(self, nbytes: int):
        """The pool (started now if need be) for work on a build of ``nbytes`` of dumps, or None
        to do the work in this process."""
        if self.pool is None and self.n > 1 and nbytes >= self.min_bytes:
            from concurrent.futures import ProcessPoolExecutor

            self.results = self._results.enter_context(temporary_folder())
            self.pool = ProcessPoolExecutor(self.n, mp_context=self.mp_context, initializer=_leave_interrupts)
        return self.pool

    def submit(self, fn: Callable, *args):
        """``fn(*args)`` sent to the pool, as a future. A task that cannot be sent (the pool is
        broken: a worker died) is a future holding that error, so it is raised in its turn."""
        try:
            return self.pool.submit(_stored, self.results, fn, *args)
        except Exception as exc:
            return _failed(exc)

    def result(self, future, where: str, what: str):
        """The result of a ``submit``ted task. A worker's death is reported as a DumpError naming
        ``where`` (a dump, or the raw folder) and ``what`` the worker was doing, and what to do."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            return _result(future)
        except BrokenProcessPool:
            raise DumpError(where, f"a worker process stopped while {what} (out of memory?): "
                                   "build with fewer --workers") from None

    def map(self, fn: Callable, items: Iterable, what: str) -> Iterator:
        """``fn(item)`` of each item, in order: in the pool if the dumps were prepared in one
        (the next items meanwhile, at most two per worker in flight), else in this process.
        ``what`` (as "rendering the plain text") says what a worker that died was doing."""
        if self.pool is None:
            yield from map(fn, items)
            return
        pending: deque = deque()
        for item in items:
            pending.append(self.submit(fn, item))
            if len(pending) >= 2 * self.n:
                yield self.result(pending.popleft(), self.folder, what)
        while pending:
            yield self.result(pending.popleft(), self.folder, what)

    def close(self, stop: bool = False) -> None:
        """Shut the pool down and remove the results never taken: once the tasks running now are
        done, or, with ``stop`` (the build failed or was interrupted), at once, the workers ended
        without waiting for them. Interrupted itself (a second Ctrl-C), it ends the workers, which
        ignore Ctrl-C, before it gives way: else the pool could be left waiting for them."""
        pool, self.pool = self.pool, None
        try:
            if pool is not None:
                if stop:
                    _end_workers(pool)
                pool.shutdown(cancel_futures=True)
        except BaseException:
            if pool is not None:
                _end_workers(pool)
            raise
        finally:
            self._results.close()


def _end_workers(pool) -> None:
    """End the pool's worker processes now; the executor then finds them gone, fails what was
    pending and stops, and ``shutdown`` waits for that. (Python 3.14's ``terminate_workers``
    would shut the pool down without waiting first, so ``shutdown`` would then wait for nothing.)"""
    for process in list((pool._processes or {}).values()):  # None once shut down
        with suppress(OSError, ValueError):  # already ended, or closed
            process.terminate()


def _leave_interrupts() -> None:
    """Run in each worker as it starts: Ctrl-C is for the build's own process, which ends the
    workers (``Workers.close``); a worker interrupted too would die printing its traceback.
    SIGTERM ends a worker at once (forked, it would inherit the build's handler of it). And a
    worker ends itself when the build's process is gone, however it went (``kill -9``, the OOM
    killer): the executor would never end it, and it would live on, holding its memory (and,
    forked, the build's lock: closed here)."""
    import signal
    import threading

    from .core.lock import close_inherited

    close_inherited()  # forked: the build's lock is the build's alone
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_end_with_parent, name="watch-parent", daemon=True).start()


def _end_with_parent() -> None:
    import multiprocessing
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return
    wait([parent.sentinel])  # ready once the parent's end of the pipe is closed: it is gone
    os._exit(1)


def _stored(folder: Path, fn: Callable, *args) -> str:
    """``fn(*args)``, pickled by the worker process that runs it into a new file of ``folder``;
    the file's name is the task's result (see ``_result``). The executor sends results through
    one pipe shared by every worker: a worker killed while writing a large one (out of memory,
    say) would leave a message half written, which the executor then waits for forever, the
    other workers holding the pipe open. A message holding a file name is sent whole or not at
    all (one write, under the pipe's atomic size), so the executor sees the worker die and
    breaks the pool. (A task that fails still sends its error, traceback included, as it is.)"""
    fd, path = tempfile.mkstemp(dir=folder)
    with open(fd, "wb") as fh:
        pickle.dump(fn(*args), fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def _failed(exc: BaseException):
    """A future that has already failed with ``exc``."""
    from concurrent.futures import Future

    future = Future()
    future.set_exception(exc)
    return future


def _result(future) -> object:
    """The result of a ``_stored`` task, read, unpickled and removed here, in the thread that
    uses it. The executor takes results in a thread of its own; unpickled there, the many strings
    of a result would be allocated in that thread's malloc arena, where the memory of those later
    freed is never reused by this thread: a large build held more memory with workers than
    without, for the rest of the build."""
    path = future.result()
    try:
        with open(path, "rb") as fh:
            return pickle.loads(fh.read())
    finally:
        with suppress(OSError):  # held a moment by a virus scanner, say: closing the pool removes it
            os.unlink(path)


def _prepared(
    order: list, config: BuildConfig, workers: Workers, nbytes: int, stage: Callable
) -> Iterator[tuple[bytes, Prepared]]:
    """Each dump of ``order`` (``nbytes`` in all) read and prepared (``prepare_dump``), with its
    bytes, in that order. Each is hashed again as it is parsed, so a file changed since the read
    pass is caught. With a pool, the next dumps are prepared meanwhile, at most its workers + 1 in
    flight (so in memory) at once; an error is raised when its dump's turn comes, as without one."""
    args = (config.venue, config.year, POSITIONS)
    pool = workers.start(nbytes)
    if pool is None:
        memo = NormalizeMemo()  # copies of a text are spread over the dumps
        for name, data in order:
            with stage("parse"):
                data = _opened(data)
            yield data, prepare_dump(name, data, *args, stage=stage, memo=memo)
        return
    pending: deque = deque()
    for k, (name, data) in enumerate(order):
        try:
            data = _opened(data)
        except Exception as exc:  # a dump that cannot be read fails in its turn
            future = _failed(exc)
        else:
            future = workers.submit(prepare_dump, name, data, *args)
        pending.append((data, future, name))
        while pending and (len(pending) > workers.n or k == len(order) - 1):
            data, future, name = pending.popleft()
            with stage("parse"):  # and normalize, in the workers: this process waits
                # A broken pool fails every task still awaited: the worker that died may have
                # been preparing a later dump of those in flight.
                prepared = workers.result(future, name, "preparing this dump or one after it")
            yield data, prepared


def parse(
    files: Iterable[tuple[str, object]],
    config: BuildConfig,
    meta: dict[str, DumpMeta | None] | None = None,
    previous: PreviousRelease | None = None,
    stage: Callable = no_timer,
    workers: Workers | None = None,
) -> Parsed:
    """Parse and normalize every dump, in added order. ``files`` holds (name, bytes, or a
    function returning them); ``meta`` each dump's metadata file (None or absent: it has none).
    ``workers`` may prepare dumps in other processes (see ``Workers``); given, they are left
    running for the near-duplicate sketches and the plain text (shut down here only if a dump
    fails), else shut down when all dumps are done."""
    meta = meta or {}
    own = workers is None
    workers = workers or Workers(DEFAULT_WORKERS)
    files = list(files)
    # The order of dumps comes from their facts, and a published dump's facts from the release,
    # by the dump's bytes (whatever its metadata file now says): each dump is hashed first, one
    # at a time, so that no more than one dump's bytes are held.
    known, nbytes = {}, 0
    with stage("read"):
        for name, data in sorted(files, key=lambda f: f[0]):
            data = _opened(data)
            nbytes += len(data)
            known[name] = _check_immutable(name, hashlib.sha256(data).hexdigest(), meta.get(name), previous)
            del data
    order = sorted(files, key=lambda f: (added_key(known[f[0]]), f[0]))
    crawl_rank = {name: k for k, name in enumerate(sorted(known, key=lambda n: crawl_key(known[n])))}
    versions, spool = Versions(), Spool()
    dumps, dump_meta, first_with_sha = [], {}, {}
    dump_col = _Grow(np.int32)
    positions = {name: _Grow(np.int64 if name.startswith("byte") else np.int32) for name in POSITIONS}
    version_col = _Grow(np.int32)
    try:
        for data, prepared in _prepared(order, config, workers, nbytes, stage):
            dump = prepared.dump
            with stage("parse"):
                other = first_with_sha.setdefault(dump.sha256, dump.name)
                if other != dump.name:
                    raise copy_error(dump.name, other)
                dump_meta[dump.name] = _check_immutable(dump.name, dump.sha256, meta.get(dump.name), previous)
                n = len(prepared.local)
                for k, column in enumerate(POSITIONS):
                    positions[column].extend(prepared.positions[:, k])
                dump_col.extend(np.full(n, len(dumps), dtype=np.int32))
                first = positions["byte_start"].n - n
                spool.append(data, positions["byte_start"].array()[first:], positions["byte_end"].array()[first:])
                del data
            with stage("normalize"):
                first = version_col.n
                version_col.extend(versions.add(prepared, first, crawl_rank[dump.name],
                                                positions["record_index"].array()[first:]))
            dumps.append(dump)
    except BaseException:
        spool.close()
        workers.close(stop=True)
        raise
    if own:
        workers.close()
    # The look-ups that collapsed duplicates as they arrived are done with: only the distinct
    # texts and their facts go on.
    versions.index = {}
    return Parsed(dumps, dump_meta, dump_col.array(), {k: v.array() for k, v in positions.items()},
                  version_col.array(), versions, spool, nbytes)


class _RecordKeys:
    """``record_key`` of every record, made as they are read rather than held."""

    def __init__(self, shas: list[str], dump: np.ndarray, byte_start: np.ndarray):
        self.shas, self.dump, self.byte_start = shas, dump, byte_start

    def __len__(self) -> int:
        return len(self.dump)

    def __iter__(self) -> Iterator[str]:
        shas = self.shas
        for d, start in zip(self.dump.tolist(), self.byte_start.tolist()):
            yield record_key(shas[d], start)


def _paper_versions(roots: np.ndarray, newest: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The papers of versions clustered by ``roots`` (each version's cluster, named by its
    smallest version), in order of their root: the root, the canonical version (the largest
    ``newest``, then the smallest version) and the number of versions of each."""
    n = len(roots)
    if not n:
        return roots, roots, roots
    by_paper = np.lexsort((np.arange(n), -newest, roots))  # a paper's canonical version first
    ordered = roots[by_paper]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return ordered[first], by_paper[first], np.diff(np.r_[first, n])


def deduplicate(parsed: Parsed, config: BuildConfig, previous: PreviousRelease | None, version: str,
                workers: Workers | None = None) -> dict:
    """Assign every version (distinct normalized text), and so every record, to a paper and say why.

    Rules (documented in the card):
    * records with equal normalized text are one version (exact duplicates);
    * versions whose shingles are near-duplicates form one paper (see ``dedup``);
    * the paper's *founding* record is its earliest in added order (records arrive in that
      order); its id is kept from the previous release or, for a new paper, derived from the
      founding record's identity (see ``identity``), never from text;
    * the *canonical* text is the version of the paper's record latest in crawl order (the
      newest crawl); the canonical occurrence is the earliest record holding that text.
    """
    versions = parsed.versions
    version_first, version_newest = versions.first.array(), versions.newest.array()
    record_version = parsed.version
    shas = [d.sha256 for d in parsed.dumps]

    workers = workers or Workers(1)
    clusters = near_duplicate_clusters(versions.text, config.near_dup,
                                       lambda fn, items: workers.map(fn, items, "sketching the texts"))
    roots = np.array(clusters.roots, dtype=np.int64)
    n = len(roots)
    # Versions are numbered in added order, so a cluster's root is its founding version.
    paper_root, canonical, n_versions = _paper_versions(roots, version_newest)
    founding_record = version_first[paper_root]
    byte_start = parsed.positions["byte_start"]
    founding = {
        root: Founding(shas[d], start, versions.sha[root])
        for root, d, start in zip(paper_root.tolist(), parsed.dump[founding_record].tolist(),
                                  byte_start[founding_record].tolist())
    }
    keys = _RecordKeys(shas, parsed.dump, byte_start)
    identity = assign_ids(keys, roots[record_version], founding, previous, version)
    paper_id_of_root = identity.paper_of_cluster

    # Per version: its paper, and its similarity to the paper's canonical version.
    paper_of_version = np.zeros(n, dtype=np.int64)
    paper_of_version[paper_root] = np.arange(len(paper_root))
    paper_of_version = paper_of_version[roots]
    paper_ids = np.array([paper_id_of_root[root] for root in paper_root.tolist()], dtype=object)
    version_paper = paper_ids[paper_of_version].tolist()
    n_records = np.bincount(paper_of_version[record_version], minlength=len(paper_root))
    version_similarity = np.ones(n, dtype=np.float64)
    canonical_of_version = canonical[paper_of_version]
    revised = np.flatnonzero(canonical_of_version != np.arange(n))
    if len(revised):
        pairs = np.stack([revised, canonical_of_version[revised]], axis=1)
        version_similarity[revised] = clusters.similarity(pairs)
    is_canonical = np.zeros(n, dtype=bool)
    is_canonical[canonical] = True
    records = np.arange(len(record_version), dtype=np.int64)
    relation = np.where(is_canonical[record_version], np.where(version_first[record_version] == records, 0, 1), 2)
    return {
        "version_paper": version_paper,
        "version_similarity": version_similarity,
        "relation": relation.astype(np.int8),
        "identity": identity,
        # In the order papers were first seen: by founding record, the earliest in added order.
        # A release's new papers come last and a known paper keeps its place, so a new release
        # changes the papers table's Parquet pages near its end and where papers were revised,
        # not everywhere (ids are hashes: id order would scatter new papers through the table).
        "papers": sorted(
            (
                {"root": root, "canonical_version": cv, "founding_record": first, "n_versions": k, "n_records": r}
                for root, cv, first, k, r in zip(paper_root.tolist(), canonical.tolist(), founding_record.tolist(),
                                                 n_versions.tolist(), n_records.tolist())
            ),
            key=lambda p: p["founding_record"],
        ),
        "n_versions": len(versions),
        "n_candidate_pairs": len(clusters.candidates),
        "n_merged_pairs": clusters.merged,
    }


# Abstracts rendered at once: their plain texts are copied into Arrow a chunk at a time, so
# that the Python strings of the whole column are never held together.
RENDER_CHUNK = 2_500
RENDERED = ("abstract", "abstract_plain", "urls", "word_count")  # the papers' columns render_papers makes


def render_papers(abstracts: list[str], workers: Workers | None = None) -> dict[str, list[pa.Array]]:
    """The ``RENDERED`` columns of the papers whose canonical abstracts are ``abstracts`` (in the
    pool of ``workers``, if the dumps were prepared in one), in chunks (``joined`` makes each one
    array). The list is emptied at once, its abstracts split into chunks: where it held the only
    references to them, each chunk's are freed once they are copied into Arrow."""
    schema = arrow_schema("papers")
    parts = deque(abstracts[k : k + RENDER_CHUNK] for k in range(0, len(abstracts), RENDER_CHUNK))
    abstracts.clear()
    sent: deque = deque()

    def handed_out():  # each chunk leaves ``parts`` as it is sent; the results come back in order
        while parts:
            sent.append(parts.popleft())
            yield sent[-1]

    chunks: dict[str, list] = {name: [] for name in RENDERED}
    for results in (workers or Workers(1)).map(render_many, handed_out(), "rendering the plain text"):
        chunk = sent.popleft()
        plain, urls, words = zip(*results)
        for name, values in zip(RENDERED, (chunk, plain, urls, words)):
            chunks[name].append(pa.array(values, schema.field(name).type))
        del chunk, results, plain, urls, words
    return chunks



def joined(chunks: dict[str, list[pa.Array]]) -> dict[str, pa.Array]:
    """Each column of ``render_papers`` as one array. The chunks of a column are freed once it
    is joined (``chunks`` is emptied), so only one column is ever held twice."""
    schema = arrow_schema("papers")
    columns = {}
    for name in list(chunks):
        arrays = chunks.pop(name)
        columns[name] = pa.concat_arrays(arrays) if arrays else pa.array([], schema.field(name).type)
        del arrays
    return columns


def assemble_occurrences(parsed: Parsed, dedup: dict) -> Occurrences:
    """The occurrences table (produced a row group at a time: see ``Occurrences``)."""
    versions = parsed.versions
    return Occurrences(
        schema=arrow_schema("occurrences"),
        files=pa.array([d.name for d in parsed.dumps], pa.string()),
        shas=pa.array([d.sha256 for d in parsed.dumps], pa.string()),
        dump=parsed.dump,
        positions=parsed.positions,
        version=parsed.version,
        relation=dedup["relation"],
        version_paper=pa.array(dedup["version_paper"], pa.string()),
        version_similarity=dedup["version_similarity"],
        version_sha=pa.array(versions.sha, pa.string()),
        spool=parsed.spool,
    )


def assemble(parsed: Parsed, dedup: dict, rendered: dict[str, pa.Array], occurrences: Occurrences
             ) -> tuple[pa.Table, pa.Table]:
    """The papers and ids tables (``rendered``: the ``joined`` columns of ``render_papers``)."""
    versions = parsed.versions
    first = versions.first.array()
    papers_found = dedup["papers"]
    version_paper = occurrences.version_paper
    canonical = np.fromiter((p["canonical_version"] for p in papers_found), np.int64, len(papers_found))
    record = first[canonical]  # each paper's canonical occurrence
    dump = parsed.dump[record]
    founding_dump = parsed.dump[np.fromiter((p["founding_record"] for p in papers_found), np.int64, len(papers_found))]
    cols = {
        "paper_id": version_paper.take(canonical),
        "venue": pa.array([d.venue for d in parsed.dumps]).take(dump),
        "year": pa.array([d.year for d in parsed.dumps]).take(dump),
        **rendered,
        "n_occurrences": np.fromiter((p["n_records"] for p in papers_found), np.int64, len(papers_found)),
        "n_versions": np.fromiter((p["n_versions"] for p in papers_found), np.int64, len(papers_found)),
        "first_source_file": occurrences.files.take(founding_dump),
        "canonical_occurrence_id": occurrence_ids(occurrences.shas.take(dump), parsed.positions["record_index"][record]),
        "abstract_sha256": occurrences.version_sha.take(canonical),
    }
    schema = arrow_schema("papers")
    papers = pa.table({name: dense(pa.array(cols[name], schema.field(name).type) if not isinstance(cols[name], pa.Array)
                                   else cols[name].cast(schema.field(name).type)) for name in schema.names}, schema=schema)
    id_rows = dedup["identity"].ids
    schema = arrow_schema("ids")
    ids = pa.Table.from_pydict({name: [getattr(r, name) for r in id_rows] for name in schema.names}, schema=schema)
    return papers, ids


def run(
    files: Iterable[tuple[str, object]],
    config: BuildConfig,
    stage: Callable = no_timer,
    meta: dict[str, DumpMeta | None] | None = None,
    previous: PreviousRelease | None = None,
    version: str = "0.0.0",
    workers: Workers | None = None,
    occurrences_ready: Callable[[Occurrences], None] = lambda _: None,
) -> BuildResult:
    """raw files (name, bytes or a function returning them) and their metadata in,
    validated-ready tables out; paper ids are anchored to ``previous`` (None: this is the first
    release), and ids first published or retired now are marked with ``version``.

    ``stage(name)`` is a context manager entered around each stage (for timings); "parse" and
    "normalize" are entered, one or more times, for each dump, and "read" also around hashing the
    dumps to order them. ``workers`` (default: ``DEFAULT_WORKERS``) may prepare the dumps, sketch
    the distinct texts and render the plain text in other processes; they are shut down here.
    With fork (Linux up to Python 3.13), the executor starts all its processes at its first task,
    while preparing the dumps, so a thread started by ``occurrences_ready(occurrences)`` is never
    forked (threads libraries run by then are: pyarrow's allocator's, and tqdm's monitor on a
    terminal; Python 3.12 and later warn of fork in a process with threads); with spawn or
    forkserver, processes started later are not forks of this one.
    ``occurrences_ready`` is called as soon as the occurrences table can be produced, before the
    plain text is rendered.
    """
    workers = workers or Workers(DEFAULT_WORKERS)
    try:
        parsed = parse(files, config, meta, previous, stage, workers)
        try:
            with stage("near-dup"):
                dedup = deduplicate(parsed, config, previous, version, workers)
            occurrences = assemble_occurrences(parsed, dedup)
            with stage("plain text"):
                occurrences_ready(occurrences)
                abstracts = [parsed.versions.text[p["canonical_version"]] for p in dedup["papers"]]
                # Nothing from here on needs the distinct texts: those of no paper's canonical
                # version are freed now, the others as they are copied into Arrow.
                parsed.versions.text = []
                rendered = render_papers(abstracts, workers)
                workers.close()  # their work is done, and they hold memory
                rendered = joined(rendered)
            with stage("assemble"):
                papers, ids = assemble(parsed, dedup, rendered, occurrences)
        except BaseException:
            parsed.spool.close()
            workers.close(stop=True)
            raise
    finally:
        workers.close()
    identity = dedup["identity"]
    counts = np.bincount(dedup["relation"], minlength=len(RELATIONS)).tolist()
    stats = {
        "dumps": len(parsed.dumps),
        "records": len(parsed),
        "papers": papers.num_rows,
        "distinct_texts": dedup["n_versions"],
        "near_dup_candidate_pairs": dedup["n_candidate_pairs"],
        "near_dup_merged_pairs": dedup["n_merged_pairs"],
        "relations": dict(zip(RELATIONS, counts)),
        # From the ids table, not from what changed since the previous build: a rebuild on its
        # own release must give the same bytes.
        "ids": {
            **{status: sum(r.status == status for r in identity.ids) for status in ("current", "merged", "removed")},
            "first_published_in_this_version": sum(r.first_release == version for r in identity.ids),
            "retired_in_this_version": sum(r.retired_release == version for r in identity.ids),
        },
    }
    return BuildResult(papers, occurrences, ids, tuple(parsed.dumps), parsed.meta, identity, stats)
