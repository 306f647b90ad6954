"""Paper ids that never change or vanish once published.

An id is not recomputed from text: it is anchored to the previous release. Each raw record is
known there by where its bytes start: its dump's SHA-256 and byte offset, which no change of
normalization or of the rules that split a dump into records can move. The build keeps, for
every paper, the id its records had:

* a paper keeps its id as long as any of its records survives;
* a paper new in this build gets an id derived from its founding record's identity (the SHA-256
  of ``<dump sha256>:<byte offset>``), never from its text;
* when records that had two published ids now form one paper, the older id (published in an
  earlier release; then the one whose records were added first) stays, and the other becomes
  ``merged`` into it;
* if a published paper's records split over several papers, the id stays with the one holding
  its founding record (then the one holding most of its records, then the one added first);
* a merged or removed id whose founding record founds a paper again comes back as that paper's
  id (a reverted merge, a dump added again);
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


def new_paper_id(source_sha256: str, byte_start: int, attempt: int = 0) -> str:
    key = f"{source_sha256}:{byte_start}" + (f":{attempt}" if attempt else "")
    return hashlib.sha256(key.encode("ascii")).hexdigest()[:16]


def record_key(source_sha256: str, byte_start: int) -> str:
    """A raw record's identity across releases: its dump and where its bytes start."""
    return f"{source_sha256}:{byte_start}"


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in version.replace("-", ".").split("."))


@dataclass(frozen=True)
class Founding:
    """A paper's founding record, and the ids it would found: the one this release derives
    (``new_paper_id``) and the one release 1.0.0 derived from its normalized text."""

    source_sha256: str
    byte_start: int
    text_sha256: str

    def candidate_ids(self) -> tuple[str, str]:
        return new_paper_id(self.source_sha256, self.byte_start), self.text_sha256[:16]


@dataclass(frozen=True)
class Identity:
    paper_of_cluster: dict[int, str]  # cluster (its root) -> paper_id
    ids: list[IdRow]  # every id, sorted by id
    added: list[str] = field(default_factory=list)  # ids new in this release (or brought back)
    merged: list[tuple[str, str]] = field(default_factory=list)  # (id, the paper it joined), retired now
    removed: list[str] = field(default_factory=list)  # ids retired now with no paper left


def assign_ids(
    keys: Sequence[str],
    cluster: Sequence[int],
    founding: dict[int, Founding],
    previous: PreviousRelease | None,
    version: str,
) -> Identity:
    """Ids for the clusters of this build.

    ``keys`` (``record_key``) and ``cluster`` are per record, records in added order;
    ``founding`` gives each cluster's founding record.
    """
    prev_rows = {r.id: r for r in previous.ids} if previous else {}
    prev_of = previous.paper_of_record if previous else {}

    # Which clusters hold records of each published paper: count and first position.
    claims: dict[str, dict[int, list[int]]] = {}
    for pos, (key, c) in enumerate(zip(keys, cluster)):
        pid = prev_of.get(key)
        if pid is not None:
            seen = claims.setdefault(pid, {})
            if c in seen:
                seen[c][0] += 1
            else:
                seen[c] = [1, pos]
    founds = {c: f.candidate_ids() for c, f in founding.items()}
    held: dict[int, list[tuple[tuple, str]]] = {}
    for pid, by_cluster in claims.items():
        owner = min(by_cluster, key=lambda c: (pid not in founds[c], -by_cluster[c][0], by_cluster[c][1]))
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

    # New papers, in order of their founding record. A retired id founded by the same record
    # comes back; otherwise an id is never given twice.
    retired = {i for i, r in prev_rows.items() if r.status != CURRENT} - set(paper_of.values())
    taken = set(paper_of.values()) | set(prev_rows)
    added: list[str] = []
    for c in sorted(set(cluster) - set(paper_of), key=lambda c: (founding[c].source_sha256, founding[c].byte_start)):
        back = [pid for pid in founds[c] if pid in retired]
        if back:
            pid = back[0]
            retired.discard(pid)
        else:
            f = founding[c]
            attempt = 0
            pid = new_paper_id(f.source_sha256, f.byte_start)
            while pid in taken:  # 2^-64 per pair, but an id must never be given twice
                attempt += 1
                pid = new_paper_id(f.source_sha256, f.byte_start, attempt)
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
