"""The read stage: the dumps of raw/, each read once, hashed and checked against the rule that
dumps never change (``unchanged.checked_meta``), then put in added order. The parse stage reads
each dump's bytes a second time, one dump at a time, when it reaches it (``DumpFile.read``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ...core.ahead import ahead, read_and_hash
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
    return ordered([(p.name, p.read_bytes) for p in paths], meta, previous)


def ordered(files: Iterable[tuple[str, bytes | Callable[[], bytes]]], meta: dict[str, DumpMeta | None] | None = None,
            previous: PreviousRelease | None = None) -> Dumps:
    """``files`` (name, bytes or a function reading them), each read and checked here, in order
    of name (read and hashed ahead, see ``core.ahead``), then put in added order.
    ``meta``: each dump's metadata file (None or absent: it has none). A published dump's facts
    come from ``previous`` by its bytes, whatever its metadata file says now."""
    meta = meta or {}
    checked, nbytes = [], 0
    listed = [(name, data if callable(data) else (lambda data=data: data)) for name, data in sorted(files, key=lambda f: f[0])]
    # Two dumps are read and hashed at a time in helper threads (outside the GIL), each checked
    # here in order of name: at most three dumps' bytes are held.
    for (name, read), (data, sha256) in zip(listed, ahead(read_and_hash, [r for _, r in listed])):
        nbytes += len(data)
        known = checked_meta(name, data, meta.get(name), previous, sha256)
        checked.append(DumpFile(name, read, known.sha256, known))
        del data
    by_crawl = sorted(checked, key=lambda f: crawl_key(f.meta))
    return Dumps(tuple(sorted(checked, key=lambda f: (added_key(f.meta), f.name))),
                 {f.name: k for k, f in enumerate(by_crawl)}, nbytes)
