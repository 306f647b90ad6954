"""`add`, the one way a dump enters raw/: it names the dump and writes its metadata, refuses bad
input, copies and folders changing nothing, and says before the dump lands which papers it adds
and which published papers it copies or revises."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from neurips_abstracts.build import build
from neurips_abstracts.contribute.add import AddError, add_dump
from neurips_abstracts.text.normalize import normalize

from tests.helpers import HEADER, make_dump, run_cli
from tests.helpers.repo import abstract, papers, revise, write_file


def _snapshot(raw: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in raw.iterdir()}


@pytest.mark.parametrize(
    "content, expected",
    [
        ((HEADER + "\n\nWe study caf\xe9 networks.\n").encode("latin-1", "replace"), r"not UTF-8|:3"),
        ("NeurIPS 2025 论文列表\n\nSome abstract text here about models.\n".encode(), r":1:.*2025"),
        (b"", "empty"),
    ],
    ids=["not-utf8", "wrong-header", "empty"],
)
def test_add_refuses_bad_input_and_changes_nothing(repo, tmp_path, content, expected):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    before = _snapshot(repo / "raw")
    proc = run_cli("add", str(bad), "--raw", str(repo / "raw"))
    assert proc.returncode == 1
    assert "bad.txt" in proc.stderr
    assert re.search(expected, proc.stderr), proc.stderr
    assert _snapshot(repo / "raw") == before


def test_add_refuses_a_copy_a_missing_file_and_bad_metadata(repo, tmp_path):
    before = _snapshot(repo / "raw")
    existing = sorted((repo / "raw").glob("*.txt"))[0]
    copy = tmp_path / "copy.txt"
    copy.write_bytes(existing.read_bytes())
    for args, message in (
        ([str(copy)], "copy of"),
        ([str(tmp_path / "absent.txt")], "no such file"),
        ([str(copy), "--crawled-at", "2026-13-01"], "YYYY-MM-DD|real date"),
        ([str(copy), "--source-url", "javascript:alert(1)"], "http"),
    ):
        proc = run_cli("add", *args, "--raw", str(repo / "raw"))
        assert proc.returncode == 1, args
        assert any(m in proc.stderr for m in message.split("|")), proc.stderr
    assert _snapshot(repo / "raw") == before
    with pytest.raises(AddError, match="after the date"):
        add_dump(copy, repo / "raw", crawled_at="2026-12-01", added="2026-11-01")


def test_add_names_and_describes_the_dump(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    dump, sidecar, _ = add_dump(write_file(tmp_path / "x.txt", [abstract(1)]), raw, crawled_at="2026-11-02",
                                source_url="https://example.org/list", added="2026-11-03")
    data = dump.read_bytes()
    assert dump.name == f"000_{hashlib.sha256(data).hexdigest()[:16]}.txt"
    meta = json.loads(sidecar.read_text())
    assert meta == {"file": dump.name, "sha256": hashlib.sha256(data).hexdigest(), "crawled_at": "2026-11-02",
                    "source_url": "https://example.org/list", "added": "2026-11-03", "note": None}
    second, _, _ = add_dump(write_file(tmp_path / "y.txt", [abstract(2)]), raw, added="2026-11-04")
    assert second.name.startswith("001_")
    manifest_inputs = None
    build(raw, tmp_path / "dist")
    manifest_inputs = json.loads((tmp_path / "dist" / "build_manifest.json").read_text())["inputs"]
    assert [i["file"] for i in manifest_inputs] == [dump.name, second.name]
    assert manifest_inputs[0]["crawled_at"] == "2026-11-02" and manifest_inputs[1]["crawled_at"] is None


def test_add_refuses_a_dump_of_raw_itself_a_copy_and_a_folder(repo, tmp_path):
    """A dump already in raw/ (added, or copied in by hand) is not added again, and is not
    called a copy of itself; a copy from elsewhere and a folder are refused too."""
    existing = sorted((repo / "raw").glob("*.txt"))[0]
    by_hand = write_file(repo / "raw" / "mine.txt", [abstract(7)])
    outside = tmp_path / "copy.txt"
    outside.write_bytes(existing.read_bytes())
    before = _snapshot(repo / "raw")
    in_raw = f"not added: already in {repo / 'raw'}/ (add copies a dump in from elsewhere: move it out first)"
    for target, message in ((existing, in_raw), (by_hand, in_raw), (outside, f"byte-for-byte copy of {existing.name}"),
                            (repo / "raw", "not a regular file")):
        proc = run_cli("add", str(target), "--raw", str(repo / "raw"))
        assert proc.returncode == 1 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert _snapshot(repo / "raw") == before


def test_numbers_go_past_999(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    first, _, _ = add_dump(write_file(tmp_path / "a.txt", [abstract(1)]), raw, added="2026-11-01")
    first.rename(raw / first.name.replace("000_", "999_"))
    first.with_suffix(".json").unlink()
    dump, _, _ = add_dump(write_file(tmp_path / "b.txt", [abstract(2)]), raw, added="2026-11-02")
    assert dump.name.startswith("1000_")
    assert run_cli("validate", "--raw", str(raw)).returncode == 0


def test_add_shows_copies_and_new_canonical_texts_before_the_dump_lands(repo, tmp_path):
    raw = repo / "raw"
    published = {r["abstract"]: p for p, r in papers(repo / "dist").items()}
    copy, edited = abstract(2), revise(abstract(4), 11)
    src = write_file(tmp_path / "contribution.txt", [abstract(500), copy, edited])
    before = _snapshot(raw)
    proc = run_cli("add", str(src), "--raw", str(raw), "--crawled-at", "2026-11-20", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert _snapshot(raw) == before  # a dry run writes nothing
    out = proc.stdout
    assert "adds 1 new paper\n" in out
    assert f"1 record is an exact copy of published papers:\n  line 5: {published[normalize(copy)]}" in out
    line = f"  line 7: {published[normalize(abstract(4))]} (0."
    assert "1 record becomes the canonical text of published papers" in out and line in out
    proc = run_cli("add", str(src), "--raw", str(raw), "--crawled-at", "2026-11-20")
    assert proc.returncode == 0 and line in proc.stdout and _snapshot(raw) != before
    # A second dump before any rebuild: its own new paper only, not the first dump's too.
    second = write_file(tmp_path / "second.txt", [abstract(501), copy])
    proc = run_cli("add", str(second), "--raw", str(raw), "--crawled-at", "2026-11-21", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "adds 1 new paper\n" in proc.stdout


def test_add_with_no_release_counts_the_papers_its_dump_founds(tmp_path):
    """With no release beside raw/ every paper is new; add still says how many are this dump's
    alone, not how many the whole folder holds."""
    raw = tmp_path / "raw"
    raw.mkdir()
    add_dump(write_file(tmp_path / "a.txt", [abstract(k) for k in range(4)]), raw, crawled_at="2026-10-01",
             added="2026-10-02")
    second = write_file(tmp_path / "b.txt", [abstract(1), abstract(600), abstract(601)])
    proc = run_cli("add", str(second), "--raw", str(raw), "--crawled-at", "2026-10-15", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "no release in dist/ to compare with: every paper is new; 2 of them are in no other dump" in proc.stdout


def test_add_counts_no_paper_another_dump_in_raw_holds(repo, tmp_path):
    """A dump copied into raw/ by hand (no metadata file: it sorts after every dump that has one)
    and one added but not built yet: a paper they hold is not the new dump's, whatever the order."""
    raw = repo / "raw"
    data = make_dump([abstract(700)])
    (raw / f"009_{hashlib.sha256(data).hexdigest()[:16]}.txt").write_bytes(data)
    add_dump(write_file(tmp_path / "d.txt", [abstract(900)]), raw, crawled_at="2026-11-01", added="2026-11-02")
    src = write_file(tmp_path / "n.txt", [abstract(700), revise(abstract(900), 5), abstract(901)])
    proc = run_cli("add", str(src), "--raw", str(raw), "--crawled-at", "2026-11-20", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "adds 1 new paper\n" in proc.stdout
