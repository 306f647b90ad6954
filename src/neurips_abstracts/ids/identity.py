"""Paper ids that never change or vanish once published, decided by what raw/ holds now.

An id is not recomputed from text: it is anchored to the registry the previous release keeps
(``previous``). Each raw record is known there by where its bytes start: its dump's SHA-256 and
byte offset, which no change of normalization or of the rules that split a dump into records can
move. Every record ever published belongs for good to the id it was first published under (its
*owner*), even after its dump is removed; a paper new in a build gets an id derived from its
founding record's identity (the SHA-256 of ``<dump sha256>:<byte offset>``), never from its text.

The ids of a build are then a function of the records in raw/ now and that registry, not of the
order in which dumps came and went:

* an id *claims* every paper holding a record it owns or the record it was derived from; an id
  claiming several papers stays with the one holding the record it was derived from, then the one
  holding most of its records, then the one added first;
* a paper claimed by several ids keeps the oldest (first published earlier; then the one whose
  records were added first) and the others become ``merged`` into it;
* a paper claimed by none is new: it gets a new id, never one given before;
* an id owning no record in raw/ is ``removed``; it comes back with any record it owns.

So raw/ as it was at an earlier release gives that release's papers and ids again (a removed dump
restored brings its ids back; a reverted merge redirects again), and rebuilding a release on
itself changes nothing. The ``ids`` table lists every id ever published with its status, so a
user joins their stored ids with it once to find each one's paper in this release. Everything
here is a pure function.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.versions import version_key
from ..ingest.previous import FIRST_IDS, FOUNDED, IdRow, PreviousRelease, record_key

CURRENT, MERGED, REMOVED = "current", "merged", "removed"


def new_paper_id(source_sha256: str, byte_start: int, attempt: int = 0) -> str:
    key = f"{source_sha256}:{byte_start}" + (f":{attempt}" if attempt else "")
    return hashlib.sha256(key.encode("ascii")).hexdigest()[:16]


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
    ids: list[IdRow]  # every id: the previous release's in its order, then the new ones by id
    added: list[str] = field(default_factory=list)  # ids current now that were not before
    merged: list[tuple[str, str]] = field(default_factory=list)  # (id, the paper it joined), retired now
    removed: list[str] = field(default_factory=list)  # ids retired now with no paper left
    # the registry this build publishes: record_key -> owner, for the records whose owner is not
    # the paper holding them in this build, and for every record of a dump not in this build
    first_ids: dict[str, str] = field(default_factory=dict)
    founded_by: dict[str, str] = field(default_factory=dict)  # id -> its founding record, where another id owns it
    published_dumps: dict = field(default_factory=dict)  # sha256 -> DumpMeta: the facts the previous release kept


def assign_ids(
    keys: Iterable[str],
    cluster: np.ndarray,
    founding: dict[int, Founding],
    previous: PreviousRelease | None,
    version: str,
) -> Identity:
    """Ids for the clusters of this build.

    ``keys`` (``record_key``) and ``cluster`` (integers) are per record, records in added order;
    ``founding`` gives each cluster's founding record, and has no other keys. Records are only
    looked at against a previous release: a first release's ids come from founding records alone.
    """
    prev_rows = {r.id: r for r in previous.ids} if previous else {}
    owners = previous.owners if previous else {}
    founded_by = previous.founded_by if previous else {}
    founder_of = {key: pid for pid, key in founded_by.items()}

    # Which clusters each registered id claims: [records it owns there, first position there].
    first_pos: dict[int, int] = {}
    founded_here: dict[str, int] = {}  # id -> the cluster holding the record it was derived from
    claims: dict[str, dict[int, list]] = {}
    owned_here: list[tuple[str, str, int]] = []  # (record, its owner, its cluster now)
    if previous is not None:  # else every look-up below would miss
        for pos, (key, c) in enumerate(zip(keys, cluster.tolist())):
            first_pos.setdefault(c, pos)
            pid = owners.get(key)
            if pid is not None:
                owned_here.append((key, pid, c))
                seen = claims.setdefault(pid, {})
                if c in seen:
                    seen[c][0] += 1
                else:
                    seen[c] = [1, pos]
            if key in founder_of:  # the record an id was derived from, owned by another id
                founded_here[founder_of[key]] = c
                claims.setdefault(founder_of[key], {}).setdefault(c, [0, pos])
        for c, f in founding.items():
            for pid in f.candidate_ids():
                if pid in prev_rows:
                    founded_here[pid] = c
                    claims.setdefault(pid, {}).setdefault(c, [0, first_pos[c]])
    held: dict[int, list[tuple[tuple, str]]] = {}
    for pid, by_cluster in claims.items():
        here = founded_here.get(pid)
        home = min(by_cluster, key=lambda c: (here != c, -by_cluster[c][0], by_cluster[c][1]))
        held.setdefault(home, []).append(((version_key(prev_rows[pid].first_release), by_cluster[home][1], pid), pid))

    paper_of: dict[int, str] = {}
    merged_into: dict[str, str] = {}
    for c, candidates in held.items():
        candidates.sort()
        survivor = candidates[0][1]
        paper_of[c] = survivor
        for _, pid in candidates[1:]:
            merged_into[pid] = survivor

    # New papers, in order of their founding record; an id is never given twice.
    taken = set(prev_rows)
    new_founded: dict[str, str] = {}
    unclaimed = [c for c in founding if c not in paper_of]
    for c in sorted(unclaimed, key=lambda c: (founding[c].source_sha256, founding[c].byte_start)):
        f = founding[c]
        attempt = 0
        pid = new_paper_id(f.source_sha256, f.byte_start)
        while pid in taken:  # 2^-64 per pair, but an id must never be given twice
            attempt += 1
            pid = new_paper_id(f.source_sha256, f.byte_start, attempt)
        taken.add(pid)
        paper_of[c] = pid
        if owners:  # else the registry below keeps none of them
            new_founded[pid] = record_key(f.source_sha256, f.byte_start)

    rows: dict[str, IdRow] = {}
    added: list[str] = []
    for pid in paper_of.values():
        old = prev_rows.get(pid)
        rows[pid] = IdRow(pid, pid, CURRENT, old.first_release if old else version, None)
        if old is None or old.status != CURRENT:
            added.append(pid)
    merged: list[tuple[str, str]] = []
    removed: list[str] = []
    for pid, old in prev_rows.items():
        if pid in rows:
            continue
        status, target = (MERGED, merged_into[pid]) if pid in merged_into else (REMOVED, None)
        retired = old.retired_release if old.status == status else version
        rows[pid] = IdRow(pid, target, status, old.first_release, retired)
        if old.status == CURRENT and status == MERGED:
            merged.append((pid, merged_into[pid]))
        elif old.status == CURRENT:
            removed.append(pid)

    # The registry after this build: records new here belong to the paper holding them.
    kept = {key for key, pid, c in owned_here if paper_of[c] == pid}
    first_ids = {key: pid for key, pid in owners.items() if key not in kept}
    # An id founded by a record first published under another id (a paper split off one whose
    # id stayed with the other part) holds that record too: the registry keeps which it was.
    founded = dict(founded_by)
    founded.update((pid, key) for pid, key in new_founded.items() if owners.get(key, pid) != pid)
    return Identity(
        paper_of_cluster=paper_of,
        # The previous release's ids in its order, then the new ones by id: the ids table grows
        # at its end, so its files change there and where a status changed, not throughout.
        ids=[rows[r.id] for r in previous.ids] + [rows[k] for k in sorted(rows.keys() - prev_rows.keys())]
        if previous else [rows[k] for k in sorted(rows)],
        added=sorted(added),
        merged=sorted(merged),
        removed=sorted(removed),
        first_ids=first_ids,
        founded_by=founded,
        published_dumps=dict(previous.dump_facts) if previous else {},
    )


def registry(dumps: Sequence, meta: dict, identity: Identity) -> list[dict]:
    """What a release keeps for the next build, per dump ever published (sorted by SHA-256): its
    facts (``unchanged.published_meta``) and the records first published under another id than the
    paper holding them now (all of them for a dump no longer in ``raw/``), and the ids founded by
    a record another id owns."""
    facts = dict(identity.published_dumps)
    for d in dumps:
        facts[d.sha256] = meta[d.name]
    owned: dict[str, list] = {}
    for key, pid in identity.first_ids.items():
        sha, _, start = key.partition(":")
        owned.setdefault(sha, []).append([int(start), pid])
    founded: dict[str, list] = {}
    for pid, key in identity.founded_by.items():
        sha, _, start = key.partition(":")
        founded.setdefault(sha, []).append([int(start), pid])
    out = []
    for sha in sorted(facts):
        m = facts[sha]
        entry = {"sha256": sha, "file": m.published_as or m.file, "added": m.added, "crawled_at": m.crawled_at,
                 "source_url": m.source_url}
        if sha in owned:
            entry[FIRST_IDS] = sorted(owned[sha])
        if sha in founded:
            entry[FOUNDED] = sorted(founded[sha])
        out.append(entry)
    return out


def broken_promises(ids: Sequence[IdRow], keys: Iterable[str], paper_ids: Iterable[str],
                    previous: PreviousRelease | None) -> list[tuple[str, list[str]]]:
    """The id invariants a build's ``ids`` table breaks against the registry of ``previous``, given
    every record of the build (``record_key``) and the paper holding it: (what, ids) pairs, none if
    all hold. An id holds the records first published under it and the record it was founded by.
    Checked by the contracts on every build; the card's Stable ids section states them."""
    if previous is None:
        return []
    rows = {r.id: r for r in ids}
    founder_of = {key: pid for pid, key in previous.founded_by.items()}
    holding: dict[str, set[str]] = {}  # id -> papers holding records it holds
    for key, pid in zip(keys, paper_ids):
        for owner in (previous.owners.get(key), founder_of.get(key)):
            if owner is not None:
                holding.setdefault(owner, set()).add(pid)
    published = {r.id for r in previous.ids}
    out = []
    for what, bad in (
        ("published ids missing from ids", [r.id for r in previous.ids if r.id not in rows]),
        ("published ids whose first_release changed",
         [r.id for r in previous.ids if r.id in rows and rows[r.id].first_release != r.first_release]),
        ("ids removed although raw/ holds records first published under them",
         [i for i, r in rows.items() if r.status == REMOVED and i in holding]),
        ("merged ids whose paper holds none of their records",
         [i for i, r in rows.items() if r.status == MERGED and r.paper_id not in holding.get(i, ())]),
        ("ids new in this build that are not current", [i for i, r in rows.items() if r.status != CURRENT and i not in published]),
    ):
        if bad:
            out.append((what, sorted(bad)))
    return out
