"""The read stage: the dumps of raw/, each read once, hashed and checked against the rule that
dumps never change (``unchanged.checked_meta``), then put in added order. The parse stage reads
each dump's bytes a second time, one dump at a time, when it reaches it (``DumpFile.read``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...core.ahead import sha256_hex
from ...ingest.load import listing
from ...ingest.previous import PreviousRelease
from ...ingest.sidecar import DumpMeta, added_key, crawl_key
from ...ingest.unchanged import checked_meta


@dataclass(frozen=True)
class DumpFile:
    name: str
    read: Callable[[], bytes]  # its bytes, read again when the parse stage reaches it
    sha256: str  # of the bytes checked here
    meta: DumpMeta  # checked: see ``unchanged.checked_meta``


@dataclass(frozen=True)
class Dumps:
    """Every dump of a build, checked, in added order (see ``sidecar``)."""

    files: tuple[DumpFile, ...]
    crawl_rank: dict[str, int]  # name -> place in crawl order
    nbytes: int

    @property
    def meta(self) -> dict[str, DumpMeta]:
        return {f.name: f.meta for f in self.files}


def read(raw_dir: str | Path, previous: PreviousRelease | None) -> Dumps:
    """The dumps of ``raw_dir`` and their metadata files; see ``ordered``."""
    paths, meta = listing(raw_dir)
    return ordered([(p.name, p.read_bytes) for p in paths], meta, previous, Path(raw_dir))


def ordered(files: Iterable[tuple[str, bytes | Callable[[], bytes]]], meta: dict[str, DumpMeta | None] | None = None,
            previous: PreviousRelease | None = None, folder: Path | None = None) -> Dumps:
    """``files`` (name, bytes or a function reading them), each read and checked here, in order
    of name (read and hashed ahead: ``read_ahead``), then put in added order.
    ``meta``: each dump's metadata file (None or absent: it has none). A published dump's facts
    come from ``previous`` by its bytes, whatever its metadata file says now. ``folder``: the
    one holding the files, named in the advice of an error."""
    meta = meta or {}
    checked, nbytes = [], 0
    listed = [(name, data if callable(data) else (lambda data=data: data)) for name, data in sorted(files, key=lambda f: f[0])]
    # Two dumps are read and hashed at a time in helper threads (outside the GIL), each checked
    # here in order of name: at most three dumps' bytes are held.
    for (name, read), (data, sha256) in zip(listed, read_ahead([r for _, r in listed])):
        nbytes += len(data)
        known = checked_meta(name, data, meta.get(name), previous, sha256, folder)
        checked.append(DumpFile(name, read, known.sha256, known))
        del data
    by_crawl = sorted(checked, key=lambda f: crawl_key(f.meta))
    return Dumps(tuple(sorted(checked, key=lambda f: (added_key(f.meta), f.name))),
                 {f.name: k for k, f in enumerate(by_crawl)}, nbytes)


# Dumps read and hashed ahead of the one the stage is at.
READ_AHEAD = 2


def read_ahead(readers: Sequence[Callable[[], bytes]]) -> Generator[tuple[bytes, str], None, None]:
    """Each reader's bytes and their SHA-256 (hex), in order, the next ``READ_AHEAD`` read and
    hashed in helper threads meanwhile: reading a file and hashing its bytes run outside the GIL,
    on a second core. At most ``READ_AHEAD + 1`` dumps' bytes are held. An error is raised where
    its dump's turn comes, as if read then; the dumps after it are not waited for.

    ``core.ahead.ahead`` does this for the build's work in memory; the raw folder's readers stay
    here, in the stages that read raw/ (tests/test_imports follows raw/ through the layers)."""
    with ThreadPoolExecutor(READ_AHEAD, thread_name_prefix="read-ahead") as pool:
        pending: deque[Future] = deque()
        try:
            for read in readers:
                pending.append(pool.submit(_read_and_hash, read))
                if len(pending) >= READ_AHEAD:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def _read_and_hash(read: Callable[[], bytes]) -> tuple[bytes, str]:
    data = read()
    return data, sha256_hex(data)

