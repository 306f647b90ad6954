"""The identify stage: each paper's id, assigned by ``ids.identity.assign_ids`` and anchored to
the previous release; kept from it, or for a new paper derived from its founding record's
identity (never from text)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ...ids.identity import Founding, Identity, assign_ids
from ...ingest.previous import PreviousRelease, record_key
from .near_dup import Papers
from .parse import Parsed


@dataclass(frozen=True)
class Identified:
    identity: Identity
    version_paper: pa.Array  # per version: its paper's id


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


def identify(parsed: Parsed, papers: Papers, previous: PreviousRelease | None, version: str) -> Identified:
    """The ids of ``papers``; ids first published or retired now are marked with ``version``."""
    shas = [d.sha256 for d in parsed.dumps]
    byte_start = parsed.positions["byte_start"]
    by_root = np.argsort(papers.root, kind="stable")  # the founding records, in order of their root
    root, first = papers.root[by_root], papers.founding_record[by_root]
    founding = {
        r: Founding(shas[d], start, parsed.versions.sha[r])
        for r, d, start in zip(root.tolist(), parsed.dump[first].tolist(), byte_start[first].tolist())
    }
    identity = assign_ids(_RecordKeys(shas, parsed.dump, byte_start), papers.roots[parsed.version], founding,
                          previous, version)
    paper_ids = np.array([identity.paper_of_cluster[r] for r in papers.root.tolist()], dtype=object)
    return Identified(identity, pa.array(paper_ids[papers.paper_of_version].tolist(), pa.string()))
