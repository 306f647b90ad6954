"""Published paper ids never change or vanish, whatever arrives (issue: identity across releases).

Each test works in a temporary repository it makes: raw/ with dumps added by `add`, a first
release in dist/, then the event under test. Texts are synthetic abstracts whose similarity is
known by construction, so the expected papers follow from the fixture, not from typed counts.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings, strategies as st

from neurips_abstracts.build import build, check, diff_dirs
from neurips_abstracts.contribute.add import AddError, add_dump
from neurips_abstracts.core.names import data_path
from neurips_abstracts.dedup import versions
from neurips_abstracts.ids.identity import Founding, assign_ids, new_paper_id
from neurips_abstracts.ingest.previous import PreviousRelease, record_key
from neurips_abstracts.record.diff import compare, load_side
from neurips_abstracts.text.normalize import normalize

from tests.helpers import make_dump, run_cli
from tests.helpers.repo import abstract, ids_table, occurrence_papers, papers, revise, words, write_file


def assert_readers_accept(dist: Path) -> None:
    """The real readers accept a release with retired ids (nulls in ids.paper_id)."""
    import subprocess
    import sys

    import datasets

    proc = subprocess.run([sys.executable, "-m", "frictionless", "validate", "--json", str(dist / "datapackage.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["valid"] is True, proc.stdout[-2000:]
    cli = str(Path(sys.executable).with_name("mlcroissant"))
    proc = subprocess.run([cli, "validate", "--jsonld", str(dist / "croissant.json")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = datasets.load_dataset(str(dist), "ids", split="train", cache_dir=str(dist.parent / "hf-cache"))
    assert sorted(loaded["id"]) == sorted(ids_table(dist))


def published(root: Path) -> set[str]:
    return set(ids_table(root / "dist"))


def test_first_release_ids_come_from_founding_records(repo):
    occ = pq.read_table(repo / "dist" / data_path("occurrences")).to_pylist()
    first_of = {}
    for o in occ:  # rows are in added order
        first_of.setdefault(o["paper_id"], o)
    assert len(first_of) == 12
    for pid, o in first_of.items():
        assert pid == new_paper_id(o["source_sha256"], o["byte_start"])
    assert {r["status"] for r in ids_table(repo / "dist").values()} == {"current"}


def test_newer_crawl_keeps_every_id_and_its_revisions_win(repo, tmp_path):
    before = papers(repo / "dist")
    texts = [abstract(i) for i in range(12)]
    revised = {2: revise(texts[2], 1), 9: revise(texts[9], 2), 6: revise(texts[6], 3)}
    newer = [revised.get(i, t) for i, t in enumerate(texts)] + [abstract(100)]
    add_dump(write_file(tmp_path / "c.txt", newer), repo / "raw", crawled_at="2026-11-20", added="2026-11-21")
    build(repo / "raw", repo / "dist")
    after = papers(repo / "dist")
    assert set(before) <= set(after) and len(after) == len(before) + 1
    by_text = {normalize(t): pid for pid, t in ((p, before[p]["abstract"]) for p in before)}
    for i, text in revised.items():
        pid = by_text[normalize(texts[i])]
        assert after[pid]["abstract"] == normalize(text)  # the newest crawl is canonical
        assert after[pid]["n_versions"] == 2
    ids = ids_table(repo / "dist")
    assert all(r["status"] == "current" for r in ids.values()) and len(ids) == len(after)


def test_dump_placed_by_hand_under_a_lower_number_keeps_ids(repo, tmp_path):
    before = published(repo)
    revised = [revise(abstract(i), 10 + i) for i in range(4)]
    hand = repo / "raw" / f"000_{hashlib.sha256(make_dump(revised)).hexdigest()[:16]}.txt"
    hand.write_bytes(make_dump(revised))  # no metadata file: order unknown, so it comes last
    proc = run_cli("validate", "--raw", str(repo / "raw"), str(hand))
    assert proc.returncode == 0 and "no-metadata" in proc.stdout
    proc = run_cli("build", "--raw", str(repo / "raw"), "--out", str(repo / "dist"))
    assert proc.returncode == 0, proc.stderr
    assert before <= set(papers(repo / "dist"))
    assert {r["status"] for r in ids_table(repo / "dist").values()} == {"current"}


def test_old_crawl_added_late_changes_no_id_and_no_canonical_text(repo, tmp_path):
    before = papers(repo / "dist")
    old = [revise(abstract(i), 20 + i) for i in range(12)]
    add_dump(write_file(tmp_path / "old.txt", old), repo / "raw", crawled_at="2026-06-01", added="2026-11-25")
    build(repo / "raw", repo / "dist")
    after = papers(repo / "dist")
    assert set(after) == set(before)
    assert {p: r["abstract"] for p, r in after.items()} == {p: r["abstract"] for p, r in before.items()}
    assert all(r["n_versions"] == 2 for r in after.values())


def test_unknown_crawl_dates_count_as_no_later_than_the_day_added(tmp_path):
    """Dumps like the seeds (crawl date unknown): an old crawl added later does not win."""
    raw = tmp_path / "raw"
    raw.mkdir()
    texts = [abstract(i) for i in range(4)]
    add_dump(write_file(tmp_path / "a.txt", texts), raw, added="2026-11-29")
    add_dump(write_file(tmp_path / "b.txt", [revise(t, 7) for t in texts]), raw, crawled_at="2026-05-01", added="2026-11-30")
    build(raw, tmp_path / "dist")
    assert {r["abstract"] for r in papers(tmp_path / "dist").values()} == {normalize(t) for t in texts}


def test_normalization_change_moves_no_id(repo, monkeypatch):
    before = occurrence_papers(repo / "dist")
    first_release = build(repo / "raw", repo / "alone", previous=None)
    alone = occurrence_papers(repo / "alone")
    original = versions.normalize_many  # where the build normalizes each dump's records
    monkeypatch.setattr(versions, "normalize_many",
                        lambda texts, full=None: [t.replace("model", "Model").upper() for t in original(texts, full)])
    build(repo / "raw", repo / "dist")
    assert occurrence_papers(repo / "dist") == before
    assert any(r["abstract"].isupper() for r in papers(repo / "dist").values())  # the change took effect
    build(repo / "raw", repo / "alone2", previous=None)  # even without a previous release
    assert occurrence_papers(repo / "alone2") == alone == before
    assert first_release["papers"] == len(papers(repo / "alone2"))


@pytest.mark.slow
def test_merge_of_two_published_papers_redirects_and_diff_reports_it(tmp_path):
    root = tmp_path / "repo"
    raw = root / "raw"
    raw.mkdir(parents=True)
    x, y, z = words(101, 20), words(102, 40), words(103, 20)
    a, b = " ".join(x + y), " ".join(y + z)  # Jaccard 38/78 < 0.6: two papers
    others = [abstract(i) for i in range(3)]
    add_dump(write_file(tmp_path / "1.txt", [a, b, *others]), raw, crawled_at="2026-10-01", added="2026-10-01")
    build(raw, root / "dist")
    first = papers(root / "dist")
    assert len(first) == 5
    id_a = next(p for p, r in first.items() if r["abstract"] == a)
    id_b = next(p for p, r in first.items() if r["abstract"] == b)
    shutil.copytree(root / "dist", tmp_path / "v1")

    add_dump(write_file(tmp_path / "2.txt", [" ".join(y)]), raw, crawled_at="2026-11-01", added="2026-11-01")  # ~0.66 to both
    proc = run_cli("build", "--raw", str(raw), "--out", str(root / "dist"))
    assert proc.returncode == 0, proc.stderr
    assert "1 merged" in proc.stdout
    second = papers(root / "dist")
    assert id_a in second and id_b not in second  # A was added first: it keeps its id
    ids = ids_table(root / "dist")
    assert ids[id_b]["status"] == "merged" and ids[id_b]["paper_id"] == id_a and ids[id_b]["retired_release"]
    assert ids[id_a]["status"] == "current"
    assert_readers_accept(root / "dist")

    d = compare(load_side(str(tmp_path / "v1")), load_side(str(root / "dist")))
    assert [(m["paper_id"], m["into"]) for m in d["merged"]] == [(id_b, id_a)] and d["removed"] == []
    proc = run_cli("diff", str(tmp_path / "v1"), str(root / "dist"))
    assert f"`{id_b}` → `{id_a}`" in proc.stdout

    # Rebuilding on top of itself changes nothing: `check` holds.
    assert check(raw, root / "dist", docs=False) == []


@pytest.mark.slow
def test_removed_dump_retires_its_papers_and_they_stay_listed(repo, tmp_path):
    before = papers(repo / "dist")
    shutil.copytree(repo / "dist", tmp_path / "v1")
    last = sorted((repo / "raw").glob("*.txt"))[-1]
    saved = tmp_path / "saved.txt"
    saved.write_bytes(last.read_bytes())
    last.unlink()
    last.with_suffix(".json").unlink()
    build(repo / "raw", repo / "dist")
    after = papers(repo / "dist")
    gone = set(before) - set(after)
    assert len(gone) == 4  # abstracts 8..11 were only in the removed dump
    ids = ids_table(repo / "dist")
    assert set(ids) == set(before)
    assert all(ids[p]["status"] == "removed" and ids[p]["paper_id"] is None for p in gone)
    assert_readers_accept(repo / "dist")
    d = compare(load_side(str(tmp_path / "v1")), load_side(str(repo / "dist")))
    assert sorted(x["paper_id"] for x in d["removed"]) == sorted(gone)

    # The same dump added again: the same records, so the removed ids come back. Its facts are
    # those the first release published for these bytes; other dates are refused, naming both.
    with pytest.raises(AddError, match=r"added 2026-11-30 \(published: 2026-10-16\)"):
        add_dump(saved, repo / "raw", added="2026-11-30")
    _, side, _ = add_dump(saved, repo / "raw")
    meta = json.loads(side.read_text())
    assert (meta["added"], meta["crawled_at"]) == ("2026-10-16", "2026-10-15")
    build(repo / "raw", repo / "dist")
    assert set(papers(repo / "dist")) == set(before)
    assert {r["status"] for r in ids_table(repo / "dist").values()} == {"current"}


def test_rebuild_on_its_own_release_is_a_fixpoint(repo, tmp_path):
    add_dump(write_file(tmp_path / "c.txt", [revise(abstract(3), 5), abstract(200)]), repo / "raw", added="2026-11-21")
    build(repo / "raw", repo / "dist")
    build(repo / "raw", tmp_path / "again", previous=repo / "dist")
    assert diff_dirs(repo / "dist", tmp_path / "again") == []


def test_edited_published_dump_is_refused_by_build_and_validate(repo):
    dump = sorted((repo / "raw").glob("*.txt"))[0]
    lines = dump.read_bytes().decode().split("\n")
    target = 6  # the record on line 7
    lines[target] = lines[target].replace(lines[target].split()[3], "edited", 1)
    dump.write_bytes("\n".join(lines).encode())
    before = {p.relative_to(repo): p.read_bytes() for p in (repo / "dist").rglob("*") if p.is_file()}

    proc = run_cli("build", "--raw", str(repo / "raw"), "--out", str(repo / "dist"))
    assert proc.returncode == 1
    assert dump.name in proc.stderr and f":{target + 1}:" in proc.stderr and "immutable" in proc.stderr
    assert {p.relative_to(repo): p.read_bytes() for p in (repo / "dist").rglob("*") if p.is_file()} == before

    proc = run_cli("validate", "--raw", str(repo / "raw"))
    edited = [line for line in proc.stdout.splitlines() if "[edited]" in line]
    assert proc.returncode == 1 and len(edited) == 1, proc.stdout  # one edit, one error: the build's
    assert dump.name in edited[0] and f":{target + 1}:" in edited[0]


def test_the_advice_for_an_edited_dump_restores_it_when_followed(repo, tmp_path):
    """The refusal of an edited dump names the command that restores it, as typed where the
    command runs (a trial followed "git checkout its path (000_….txt)" from the project's top
    and git found no such path); outside a clone it names the copy the user added. Followed, the
    build passes."""
    import subprocess

    from tests.helpers import git

    dump = sorted((repo / "raw").glob("*.txt"))[0]
    published = dump.read_bytes()
    dump.write_bytes(published.replace(b" ", b"  ", 1))
    line = run_cli("build", cwd=repo).stderr
    assert "(from the copy you added)" in line and "git" not in line, line  # no clone: no git to ask
    dump.write_bytes(published)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "release")
    dump.write_bytes(published.replace(b" ", b"  ", 1))
    git(repo, "add", "-A")  # the edit staged: the index holds it too, so the advice restores from the last commit
    for where, typed in ((repo, f"git checkout HEAD -- raw/{dump.name}"),
                         (repo / "raw", f"git checkout HEAD -- {dump.name}"),
                         (tmp_path, f"git -C {repo.resolve()} checkout HEAD -- raw/{dump.name}")):
        raw = "raw" if where == repo else "." if where == repo / "raw" else str(repo / "raw")
        out = "dist" if where == repo else "../dist" if where == repo / "raw" else str(repo / "dist")
        line = run_cli("build", "--raw", raw, "--out", out, cwd=where).stderr
        assert f"(`{typed}`, or from the commit before an edit committed)" in line, line
    subprocess.run(typed, shell=True, cwd=tmp_path, check=True, capture_output=True)  # followed as printed
    assert dump.read_bytes() == published and run_cli("build", cwd=repo).returncode == 0


def test_edited_dump_not_yet_published_is_refused_by_its_metadata(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    dump, _, _ = add_dump(write_file(tmp_path / "a.txt", [abstract(1), abstract(2)]), raw, added="2026-11-01")
    dump.write_bytes(dump.read_bytes() + b"\n\n" + abstract(3).encode())
    proc = run_cli("build", "--raw", str(raw), "--out", str(tmp_path / "dist"))
    assert proc.returncode == 1 and dump.name in proc.stderr and "sha256 recorded" in proc.stderr
    assert not (tmp_path / "dist").exists()
    proc = run_cli("validate", "--raw", str(raw))
    assert proc.returncode == 1 and "[edited]" in proc.stdout


def test_a_change_in_how_dumps_split_into_records_moves_no_id(tmp_path, monkeypatch):
    """Ids follow where a record's bytes start, not its index: a parser that once glued the
    first two records together (as a line of invisible characters used to) moves no id when
    it splits them."""
    import dataclasses

    from neurips_abstracts.ingest.parse import Records

    raw = tmp_path / "raw"
    raw.mkdir()
    texts = [abstract(i) for i in range(300, 304)]
    add_dump(write_file(tmp_path / "a.txt", texts), raw, added="2026-11-01")
    real_parse = versions.parse_records  # where the build parses each dump

    def glued(name, data, *args):
        dump, r = real_parse(name, data, *args)
        one = Records([r.line_start[0], *r.line_start[2:]], r.line_end[1:], [r.byte_start[0], *r.byte_start[2:]],
                      r.byte_end[1:], [f"{r.text[0]} {r.text[1]}", *r.text[2:]])  # the first two records as one
        return dataclasses.replace(dump, n_records=len(one)), one

    monkeypatch.setattr(versions, "parse_records", glued)
    build(raw, tmp_path / "old", previous=None)
    monkeypatch.undo()
    old = papers(tmp_path / "old")
    build(raw, tmp_path / "new", previous=tmp_path / "old")
    new = papers(tmp_path / "new")
    by_start = lambda ps: {t.split()[0]: p for p, r in ps.items() for t in [r["abstract"]]}  # noqa: E731
    first_words = [t.split()[0] for t in texts]
    assert by_start(new)[first_words[0]] == by_start(old)[first_words[0]]  # the glued record's start keeps it
    for w in first_words[2:]:
        assert by_start(new)[w] == by_start(old)[w]  # later records kept their ids though their index moved
    assert by_start(new)[first_words[1]] not in old  # the record split off is a new paper
    assert set(old) <= set(new)


def test_a_merge_undone_brings_the_merged_id_back(tmp_path):
    root = tmp_path / "repo"
    raw = root / "raw"
    raw.mkdir(parents=True)
    x, y, z = words(201, 20), words(202, 40), words(203, 20)
    a, b = " ".join(x + y), " ".join(y + z)
    add_dump(write_file(tmp_path / "1.txt", [a, b]), raw, added="2026-10-01")
    build(raw, root / "dist")
    first = papers(root / "dist")
    bridge, _, _ = add_dump(write_file(tmp_path / "2.txt", [" ".join(y)]), raw, added="2026-11-01")
    build(raw, root / "dist")
    assert len(papers(root / "dist")) == 1
    bridge.unlink()
    bridge.with_suffix(".json").unlink()
    build(raw, root / "dist")
    again = papers(root / "dist")
    assert set(again) == set(first)
    assert {p: r["abstract"] for p, r in again.items()} == {p: r["abstract"] for p, r in first.items()}
    assert {r["status"] for r in ids_table(root / "dist").values()} == {"current"}


def test_published_metadata_dates_cannot_change(repo):
    """Dates decide which text is canonical: once published they are as fixed as the bytes."""
    side = sorted((repo / "raw").glob("*.json"))[0]
    meta = json.loads(side.read_text())
    meta["crawled_at"] = "2026-09-01"
    side.write_text(json.dumps(meta))
    before = {p.relative_to(repo): p.read_bytes() for p in (repo / "dist").rglob("*") if p.is_file()}
    proc = run_cli("build", "--raw", str(repo / "raw"), "--out", str(repo / "dist"))
    assert proc.returncode == 1 and side.name in proc.stderr and "fixed once built into a release" in proc.stderr
    assert {p.relative_to(repo): p.read_bytes() for p in (repo / "dist").rglob("*") if p.is_file()} == before
    proc = run_cli("validate", "--raw", str(repo / "raw"))
    assert proc.returncode == 1 and "fixed once built into a release" in proc.stdout


def _remove(dump: Path, keep: Path) -> None:
    """Move a dump and its metadata file out of raw/ into ``keep``."""
    keep.mkdir(exist_ok=True)
    for p in (dump, dump.with_suffix(".json")):
        shutil.move(p, keep / p.name)


def _restore(keep: Path, raw: Path) -> None:
    for p in keep.iterdir():
        shutil.move(p, raw / p.name)


def test_a_removed_id_comes_back_when_its_dump_is_restored(tmp_path):
    """Release 1: D1 = [T] founds T with id a. Release 2: D1 removed, a removed. Release 3: D2 =
    [U, T] gives T a new id b. Release 4: D1 restored byte for byte: a is back, b merged into it."""
    raw, dist = tmp_path / "raw", tmp_path / "dist"
    raw.mkdir()
    t, u, other = abstract(301), abstract(302), abstract(303)
    add_dump(write_file(tmp_path / "o.txt", [other]), raw, added="2026-10-01")
    d1, _, _ = add_dump(write_file(tmp_path / "1.txt", [t]), raw, added="2026-10-02")
    build(raw, dist)
    a = next(p for p, r in papers(dist).items() if r["abstract"] == t)
    _remove(d1, tmp_path / "kept")
    build(raw, dist)
    assert ids_table(dist)[a]["status"] == "removed"
    add_dump(write_file(tmp_path / "2.txt", [u, t]), raw, added="2026-10-03")
    build(raw, dist)
    b = next(p for p, r in papers(dist).items() if r["abstract"] == t)
    assert b != a and ids_table(dist)[a]["status"] == "removed"
    _restore(tmp_path / "kept", raw)
    build(raw, dist)
    ids = ids_table(dist)
    assert ids[a]["status"] == "current" and ids[a]["retired_release"] is None
    assert ids[b]["status"] == "merged" and ids[b]["paper_id"] == a
    assert check(raw, dist, docs=False) == []


def test_a_merged_id_redirects_again_when_its_dumps_are_restored(tmp_path):
    """B merges into A through a bridging dump; every dump holding A or B is removed, then all are
    restored exactly: raw/ is what it was when B merged, so B is merged into A again (not a dead
    end with a null paper_id)."""
    raw, dist = tmp_path / "raw", tmp_path / "dist"
    raw.mkdir()
    x, y, z = words(311, 20), words(312, 40), words(313, 20)
    add_dump(write_file(tmp_path / "o.txt", [abstract(314)]), raw, added="2026-09-30")
    da, _, _ = add_dump(write_file(tmp_path / "a.txt", [" ".join(x + y)]), raw, added="2026-10-01")
    db, _, _ = add_dump(write_file(tmp_path / "b.txt", [" ".join(y + z)]), raw, added="2026-10-02")
    build(raw, dist)
    first = {r["abstract"]: p for p, r in papers(dist).items()}
    a, b = first[" ".join(x + y)], first[" ".join(y + z)]
    bridge, _, _ = add_dump(write_file(tmp_path / "bridge.txt", [" ".join(y)]), raw, added="2026-10-03")
    build(raw, dist)
    merged = ids_table(dist)
    assert merged[b]["status"] == "merged" and merged[b]["paper_id"] == a
    shutil.copytree(raw, tmp_path / "raw-when-merged")
    _remove(da, tmp_path / "kept")
    _remove(db, tmp_path / "kept")
    _remove(bridge, tmp_path / "kept")
    build(raw, dist)
    assert {ids_table(dist)[i]["status"] for i in (a, b)} == {"removed"}
    _restore(tmp_path / "kept", raw)
    build(raw, dist)
    ids = ids_table(dist)
    assert {i: (r["status"], r["paper_id"]) for i, r in ids.items()} == {i: (r["status"], r["paper_id"]) for i, r in merged.items()}
    assert check(raw, dist, docs=False) == []


def test_published_dump_facts_survive_a_deleted_metadata_file_and_a_rename(repo):
    """The facts of published bytes come from the release, whatever the metadata file says."""
    raw, dist = repo / "raw", repo / "dist"
    revised = revise(abstract(9), 7)
    # an old crawl contributed late: its revision does not displace the newer text
    add_dump(write_file(repo / "new.txt", [revised]), raw, crawled_at="2026-09-01", added="2026-11-02")
    build(raw, dist)
    before = {p: r["abstract_sha256"] for p, r in papers(dist).items()}
    assert normalize(revised) not in {r["abstract"] for r in papers(dist).values()}
    newest = sorted(raw.glob("*.txt"))[-1]

    newest.with_suffix(".json").unlink()  # deleted metadata file: unknown dates would sort it newest
    build(raw, dist)
    assert {p: r["abstract_sha256"] for p, r in papers(dist).items()} == before

    # Renamed under the lowest number with a back-dated metadata file: refused, naming both values.
    moved = raw / ("000" + newest.name[3:])
    newest.rename(moved)
    meta = {"file": moved.name, "sha256": hashlib.sha256(moved.read_bytes()).hexdigest(), "crawled_at": "2026-08-01",
            "source_url": None, "added": "2026-08-02", "note": None}
    moved.with_suffix(".json").write_text(json.dumps(meta))
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1
    assert "added 2026-08-02 (published: 2026-11-02)" in proc.stderr and "crawled_at 2026-08-01 (published: 2026-09-01)" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("validate", "--raw", str(raw))
    assert proc.returncode == 1 and "(published: 2026-09-01)" in proc.stdout
    moved.with_suffix(".json").unlink()  # renamed, without its metadata file: nothing changes
    build(raw, dist)
    assert {p: r["abstract_sha256"] for p, r in papers(dist).items()} == before
    assert check(raw, dist, docs=False) == []


def test_previous_release_knows_each_dumps_sha256_from_its_records(seeds_dist, tmp_path):
    """A release's dumps are known by file name -> sha256 from its occurrences, so an edited
    published dump is refused even when the manifest lists no inputs (releases that did not)."""
    import hashlib
    import json
    import shutil

    from neurips_abstracts.ingest.previous import read_previous

    from tests.helpers import seed_files

    expected = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in seed_files()}
    assert read_previous(seeds_dist).dump_sha256 == expected
    bare = tmp_path / "dist"
    shutil.copytree(seeds_dist, bare)
    manifest = json.loads((bare / "build_manifest.json").read_text())
    del manifest["inputs"]
    (bare / "build_manifest.json").write_text(json.dumps(manifest))
    from neurips_abstracts.release.contents import sha256sums

    (bare / "SHA256SUMS").write_text(sha256sums(bare))  # as such a release listed its files
    assert read_previous(bare).dump_sha256 == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 2)), min_size=1, max_size=30))
def test_first_release_ids_without_reading_records(records):
    # A first release reads no record (previous=None); an empty previous release walks every
    # record and must come to the same ids. Records: (cluster, dump), in added order.
    shas = [hashlib.sha256(bytes([d])).hexdigest() for d in range(3)]
    cluster = np.array([c for c, _ in records], dtype=np.int64)
    keys = [record_key(shas[d], 10 * k) for k, (_, d) in enumerate(records)]
    founding: dict[int, Founding] = {}
    for k, (c, d) in enumerate(records):
        founding.setdefault(c, Founding(shas[d], 10 * k, hashlib.sha256(str(c).encode()).hexdigest()))
    empty = PreviousRelease("dist", "1.0.0", owners={}, dump_sha256={}, ids=())
    first = assign_ids(iter(()), cluster, founding, None, "1.0.0")
    walked = assign_ids(keys, cluster, founding, empty, "1.0.0")
    assert first == walked and len(first.ids) == len(founding)


def _one_dump_previous(owners: dict, ids: tuple) -> "PreviousRelease":
    from neurips_abstracts.ingest.previous import PreviousRelease

    return PreviousRelease(path="previous", version="1.0.0", owners=owners, dump_sha256={}, ids=ids)


def test_an_id_stays_with_the_paper_holding_its_founding_record_before_the_one_holding_most():
    """The documented order (module docstring of ids.identity): an id claiming several papers stays
    with the one holding the record it was derived from, then the one holding most of its records."""
    import numpy as np

    from neurips_abstracts.ids.identity import CURRENT, Founding, assign_ids, new_paper_id
    from neurips_abstracts.ingest.previous import IdRow, record_key

    sha = "ab" * 32
    pid = new_paper_id(sha, 0)  # derived from the record at byte 0
    keys = [record_key(sha, start) for start in (0, 100, 200)]
    previous = _one_dump_previous({k: pid for k in keys}, (IdRow(pid, pid, CURRENT, "1.0.0", None),))
    # The founding record alone in paper 0; two of the id's records in paper 1.
    founding = {0: Founding(sha, 0, "0" * 64), 1: Founding(sha, 100, "1" * 64)}
    identity = assign_ids(keys, np.array([0, 1, 1]), founding, previous, "1.1.0")
    assert identity.paper_of_cluster[0] == pid
    assert identity.paper_of_cluster[1] != pid


def test_a_retired_id_keeps_the_release_it_was_retired_in():
    """retired_release is "the release in which the id was merged or removed" (schema): a later
    build that leaves the id retired does not move it to its own version."""
    import numpy as np

    from neurips_abstracts.ids.identity import CURRENT, MERGED, REMOVED, Founding, assign_ids, new_paper_id
    from neurips_abstracts.ingest.previous import IdRow, record_key

    sha, gone = "cd" * 32, "ef" * 32
    live = new_paper_id(sha, 0)
    keys = [record_key(sha, 0), record_key(sha, 100)]
    merged, removed = new_paper_id(sha, 100), new_paper_id(gone, 0)
    previous = _one_dump_previous(
        {keys[0]: live, keys[1]: merged, record_key(gone, 0): removed},
        (IdRow(live, live, CURRENT, "1.0.0", None), IdRow(merged, live, MERGED, "1.0.0", "1.0.1"),
         IdRow(removed, None, REMOVED, "1.0.0", "1.0.2")))
    identity = assign_ids(keys, np.array([0, 0]), {0: Founding(sha, 0, "0" * 64)}, previous, "1.1.0")
    rows = {r.id: r for r in identity.ids}
    assert (rows[merged].status, rows[merged].paper_id, rows[merged].retired_release) == (MERGED, live, "1.0.1")
    assert (rows[removed].status, rows[removed].retired_release) == (REMOVED, "1.0.2")
    assert rows[live].retired_release is None
