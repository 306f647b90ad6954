"""The contracts and write stage: the contracts checked across tables, then every file of the
release written into a folder of the build's own (``core.guard.replace_dir`` swaps it in).
The occurrences table is checked and written row group by row group from the moment it can be
(``write_occurrences``), and the papers table as the plain text is rendered (``write_papers``),
in threads of the build's."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.ahead import run_in_background
from ...core.config import BuildConfig
from ...core.memory import release_free_memory
from ...core.names import MANIFEST
from ...core.resources import dataset_version, hub_repo, maintainers, read_text as read_resource
from ...core.schema import TABLES, arrow_schema
from ...core.sums import sha256_file
from ...ingest.previous import PreviousRelease
from ...release.manifest import build_manifest
from ..stats import compute as compute_stats
from ..tables import dumps_json, sliced_nbytes, write_parquet, write_parquet_batches, write_text
from .assemble import BuildResult

if TYPE_CHECKING:
    import pyarrow as pa

STATS_COLUMNS = ("relation", "similarity", "source_file")  # what ``stats.compute`` reads of occurrences


def _data_file(out: Path, written):
    """What the release says of a table written in ``out`` (``write.Written``)."""
    from ...release import contents

    shards = tuple(contents.Shard(path=rel, size=(out / rel).stat().st_size, sha256=sha256_file(out / rel), rows=rows)
                   for rel, rows in written.shards)
    return contents.DataFile(shards=shards, rows=written.rows, nbytes=written.nbytes)


def _write_table(name: str, table, out: Path, config: BuildConfig):
    return _data_file(out, write_parquet(table, name, out, config))


def write_occurrences(occurrences, out: Path, config: BuildConfig, stop: threading.Event):
    """Check each row group of the occurrences table (``contracts.check_occurrence_rows``) and
    write it; returns what the release says of it (``_data_file``: its shards hashed here too). A row group is checked in a second thread while this one
    writes it (Parquet's encoder runs outside the GIL); the next is written only once that check
    passed. Stops before the next row group once ``stop`` is set."""
    from ..contracts import check_occurrence_rows

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
        written = write_parquet_batches(checked(occurrences.batches(config.parquet_batch_rows), checker),
                                        occurrences.schema, "occurrences", out, config)
    # Read whole: the spool's file (the size of the dumps) is dropped here, in this thread, not
    # at the build's very end (``Build`` still closes it there, on every way out).
    occurrences.spool.close()
    return _data_file(out, written)


def write_papers(rows: Iterable[pa.RecordBatch], out: Path, config: BuildConfig):
    """Write the papers table from its rows as they come (``build.run``'s ``papers_ready``: as the
    plain text is rendered), each row group made one array per column as ``write_parquet`` of the
    whole table writes it: the same bytes. Returns (``Written``, what the release says of it, its
    shards hashed here); its in-memory size is the whole table's (``sliced_nbytes``, in ``write_dist``)."""
    run_in_background()  # its rows come from the plain text, which needs the CPU more
    written = write_parquet_batches(rows, arrow_schema("papers"), "papers", out, config, contiguous=True)
    return written, _data_file(out, written)


def write_dist(result: BuildResult, out: Path, config: BuildConfig, repo_id: str | None,
               previous: PreviousRelease | None, occurrences_written: Future, writer: ThreadPoolExecutor,
               papers_written: Future | None = None) -> None:
    """Check the contracts (see ``contracts.check``; ``previous``: the release ids are anchored
    to) and write the release into ``out``, its documents naming ``repo_id`` (default: the
    project's hub-repo). The occurrences table is being checked and written meanwhile
    (``write_occurrences``: ``occurrences_written`` gives what the release says of it); the other tables
    are written by ``writer`` while this thread checks the contracts across tables, but the papers
    table where it is being written already (``write_papers``: ``papers_written``). A
    ContractError leaves ``out`` half written, for ``replace_dir`` to throw away."""
    from ...release import contents as release, croissant, datapackage, texts
    from ...release.card import card
    from ...release.datasheet import datasheet
    from ..contracts import ContractError, check_tables

    occurrences = result.occurrences
    streamed = {"occurrences"} | ({"papers"} if papers_written is not None else set())
    written = {name: writer.submit(_write_table, name, getattr(result, name), out, config)
               for name in TABLES if name not in streamed}
    if papers_written is not None:
        # The papers table's last row groups first (its writer runs on the CPU time left, and is
        # close to done once the plain text is): what they hold, the plain text's last chunks
        # among it, is freed before the contracts make frames of every table. Its error, if
        # any, is raised after theirs, as when it was written here.
        wait([papers_written])
        release_free_memory()
    try:
        check_tables(result.papers, occurrences, result.stats["records"], result.ids, previous)
    except BaseException as exc:
        for future in written.values():
            future.cancel()  # those not started yet: the release will not be swapped in
        if isinstance(exc, ContractError):
            occurrences_written.result()  # a broken row is reported first, as ``contracts.check`` does
        raise
    data = {name: future.result() for name, future in written.items()}
    data["occurrences"] = occurrences_written.result()
    if papers_written is not None:
        papers, papers_file = papers_written.result()
        data["papers"] = dataclasses.replace(papers_file, nbytes=sliced_nbytes(result.papers, papers.groups))
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
