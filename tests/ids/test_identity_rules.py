"""The rules of ids.identity one at a time, on a made-up previous release: how an id is derived,
which paper an id stays with, what a build reports as added and merged, and which ids the
registry records as founded by another id's record. Each assertion was missing when the
mutation run (benchmarks/mutation.py) changed the rule and no test failed."""

from __future__ import annotations

import hashlib

import numpy as np

from neurips_abstracts.ids import identity as identity_module
from neurips_abstracts.ids.identity import CURRENT, MERGED, Founding, assign_ids, new_paper_id
from neurips_abstracts.ingest.previous import IdRow, PreviousRelease, record_key

SHA, OTHER = "ab" * 32, "cd" * 32


def _previous(owners: dict, ids: tuple, founded_by: dict | None = None) -> PreviousRelease:
    return PreviousRelease(path="previous", version="1.0.0", owners=owners, dump_sha256={}, ids=ids,
                           founded_by=founded_by or {})


def test_an_id_is_the_sha256_of_its_founding_record_s_place():
    """Published ids are derived so (a change would move every new id); a retry adds its number."""
    assert new_paper_id(SHA, 120) == hashlib.sha256(f"{SHA}:120".encode()).hexdigest()[:16]
    assert new_paper_id(SHA, 120, 2) == hashlib.sha256(f"{SHA}:120:2".encode()).hexdigest()[:16]


def test_an_id_without_its_founding_record_stays_with_the_paper_holding_most_of_its_records():
    """The second rule of the documented order: no cluster holds the founding record (byte 0),
    so the id goes to the cluster holding most of its records, whichever comes first."""
    pid = new_paper_id(SHA, 0)
    keys = [record_key(SHA, start) for start in (100, 200, 300, 400, 500)]
    previous = _previous({k: pid for k in keys}, (IdRow(pid, pid, CURRENT, "1.0.0", None),))
    for cluster, most in (([0, 0, 0, 1, 2], 0), ([0, 1, 1, 1, 2], 1), ([0, 1, 2, 2, 2], 2)):
        founding = {c: Founding(SHA, 100 * (cluster.index(c) + 1), f"{c}" * 64) for c in set(cluster)}
        identity = assign_ids(keys, np.array(cluster), founding, previous, "1.1.0")
        assert [c for c, p in identity.paper_of_cluster.items() if p == pid] == [most], cluster


def test_added_lists_the_ids_current_now_that_were_not_before():
    """A new paper's id is added; its own record founds no other id (founded_by holds only ids
    founded by a record first published under another id)."""
    kept = new_paper_id(SHA, 0)
    keys = [record_key(SHA, 0), record_key(OTHER, 0)]
    previous = _previous({keys[0]: kept}, (IdRow(kept, kept, CURRENT, "1.0.0", None),))
    founding = {0: Founding(SHA, 0, "0" * 64), 1: Founding(OTHER, 0, "1" * 64)}
    identity = assign_ids(keys, np.array([0, 1]), founding, previous, "1.1.0")
    new = identity.paper_of_cluster[1]
    assert identity.paper_of_cluster[0] == kept and new != kept
    assert identity.added == [new]
    assert identity.founded_by == {}


def test_merged_lists_the_ids_merged_in_this_build_only():
    a, b, c = new_paper_id(SHA, 0), new_paper_id(SHA, 100), new_paper_id(SHA, 200)
    keys = [record_key(SHA, s) for s in (0, 100, 200)]
    previous = _previous(dict(zip(keys, (a, b, c))), (
        IdRow(a, a, CURRENT, "1.0.0", None), IdRow(b, b, CURRENT, "1.0.0", None),
        IdRow(c, a, MERGED, "1.0.0", "1.0.1")))  # c was merged into a before
    identity = assign_ids(keys, np.array([0, 0, 0]), {0: Founding(SHA, 0, "0" * 64)}, previous, "1.1.0")
    assert identity.paper_of_cluster == {0: a}
    assert identity.merged == [(b, a)]
    assert identity.removed == []




def test_an_id_taken_before_is_never_given_again(monkeypatch):
    """Two founding records whose first derived ids collide (a SHA-256 prefix collision, made
    here): the second gets the id of its first retry, attempt 1."""
    real = identity_module.new_paper_id

    def colliding(sha: str, start: int, attempt: int = 0) -> str:
        return real(SHA, 0) if attempt == 0 else real(sha, start, attempt)

    monkeypatch.setattr(identity_module, "new_paper_id", colliding)
    founding = {0: Founding(SHA, 0, "0" * 64), 1: Founding(OTHER, 0, "1" * 64)}
    identity = assign_ids([record_key(SHA, 0), record_key(OTHER, 0)], np.array([0, 1]), founding, None, "1.0.0")
    assert identity.paper_of_cluster == {0: real(SHA, 0), 1: real(OTHER, 0, 1)}
