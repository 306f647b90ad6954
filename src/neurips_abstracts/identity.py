"""Paper ids that never change or vanish once published.

An id is not recomputed from text: it is anchored to the previous release. Each raw record is
known there by its occurrence id (dump SHA-256 + record index, which no normalization change can
move), and the build keeps, for every paper, the id its records had:

* a paper keeps its id as long as any of its records survives;
* a paper new in this build gets an id derived from its founding record's identity (the SHA-256
  of ``<dump sha256>:<record index>``), never from its text;
* when records that had two published ids now form one paper, the older id (published in an
  earlier release; then the one whose records were added first) stays, and the other becomes
  ``merged`` into it;
* if a published paper's records split over several papers, the id stays with the one holding
  most of them (then the one added first); the others are new papers;
* a published id none of whose records is left becomes ``removed``.

The ``ids`` table lists every id ever published with its status, so a user joins their stored
ids with it once to find each one's paper in this release. Everything here is a pure function.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from .previous import IdRow, PreviousRelease

CURRENT, MERGED, REMOVED = "current", "merged", "removed"


def new_paper_id(source_sha256: str, record_index: int, attempt: int = 0) -> str:
    key = f"{source_sha256}:{record_index}" + (f":{attempt}" if attempt else "")
    return hashlib.sha256(key.encode("ascii")).hexdigest()[:16]


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in version.replace("-", ".").split("."))


@dataclass(frozen=True)
class Identity:
    paper_of_cluster: dict[int, str]  # cluster (its root) -> paper_id
    ids: list[IdRow]  # every id, sorted by id
    added: list[str] = field(default_factory=list)  # ids new in this release (or brought back)
    merged: list[tuple[str, str]] = field(default_factory=list)  # (id, the paper it joined), retired now
    removed: list[str] = field(default_factory=list)  # ids retired now with no paper left


def assign_ids(
    occurrence_id: Sequence[str],
    cluster: Sequence[int],
    founding: dict[int, tuple[str, int]],
    previous: PreviousRelease | None,
    version: str,
) -> Identity:
    """Ids for the clusters of this build.

    ``occurrence_id`` and ``cluster`` are per record, records in added order; ``founding`` maps
    each cluster to its founding record's (dump sha256, record index).
    """
    prev_rows = {r.id: r for r in previous.ids} if previous else {}
    prev_of = previous.paper_of_occurrence if previous else {}

    # Which clusters hold records of each published paper: count and first position.
    claims: dict[str, dict[int, list[int]]] = {}
    for pos, (occ, c) in enumerate(zip(occurrence_id, cluster)):
        pid = prev_of.get(occ)
        if pid is not None:
            seen = claims.setdefault(pid, {})
            if c in seen:
                seen[c][0] += 1
            else:
                seen[c] = [1, pos]
    held: dict[int, list[tuple[tuple, str]]] = {}
    for pid, by_cluster in claims.items():
        owner = min(by_cluster, key=lambda c: (-by_cluster[c][0], by_cluster[c][1]))
        first_release = prev_rows[pid].first_release if pid in prev_rows else version
        held.setdefault(owner, []).append(((_version_key(first_release), by_cluster[owner][1]), pid))

    paper_of: dict[int, str] = {}
    merged_into: dict[str, str] = {}
    for c, candidates in held.items():
        candidates.sort()
        survivor = candidates[0][1]
        paper_of[c] = survivor
        for _, pid in candidates[1:]:
            merged_into[pid] = survivor

    # New papers, in order of their founding record; retired-as-removed ids may come back.
    taken = set(paper_of.values()) | {i for i, r in prev_rows.items() if r.status != REMOVED}
    added: list[str] = []
    for c in sorted(set(cluster) - set(paper_of), key=lambda c: founding[c]):
        sha, index = founding[c]
        attempt = 0
        pid = new_paper_id(sha, index)
        while pid in taken:  # 2^-64 per pair, but an id must never be given twice
            attempt += 1
            pid = new_paper_id(sha, index, attempt)
        taken.add(pid)
        paper_of[c] = pid
        added.append(pid)

    current = set(paper_of.values())
    rows: dict[str, IdRow] = {}
    for pid in current:
        old = prev_rows.get(pid)
        rows[pid] = IdRow(pid, pid, CURRENT, old.first_release if old else version, None)
    merged: list[tuple[str, str]] = []
    removed: list[str] = []
    for pid, old in prev_rows.items():
        if pid in rows:
            continue
        if old.status == CURRENT:
            if pid in merged_into:
                rows[pid] = IdRow(pid, merged_into[pid], MERGED, old.first_release, version)
                merged.append((pid, merged_into[pid]))
            else:
                rows[pid] = IdRow(pid, None, REMOVED, old.first_release, version)
                removed.append(pid)
    for pid, old in prev_rows.items():
        if pid in rows:
            continue
        # Retired before: its target is re-resolved to where that paper is now.
        target = old.paper_id
        if target is not None and target in rows:
            target = rows[target].paper_id
        elif target is not None:
            target = None
        rows[pid] = IdRow(pid, target, old.status, old.first_release, old.retired_release)
    return Identity(
        paper_of_cluster=paper_of,
        ids=[rows[k] for k in sorted(rows)],
        added=sorted(added),
        merged=sorted(merged),
        removed=sorted(removed),
    )
