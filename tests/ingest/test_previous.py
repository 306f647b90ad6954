"""Reading the release a build keeps (ingest/previous.py): what it reads of an intact release, and
every way a damaged one is refused before a single id is taken from it, naming the file. The
commands that read releases are tested in tests/record; these are the reader's own rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neurips_abstracts.core.errors import DumpError
from neurips_abstracts.core.names import MANIFEST, SUMS, data_path
from neurips_abstracts.ingest.previous import (
    BUILD_WAY_OUT,
    IdRow,
    damaged,
    first_difference,
    read_ids,
    read_previous,
    record_key,
    release_at,
    table_counts,
)
from neurips_abstracts.release.contents import sha256sums

from tests.helpers import rewrite_table, set_cell

IDS, OCC, PAPERS = data_path("ids"), data_path("occurrences"), data_path("papers")


def resum(dist: Path) -> None:
    """SHA256SUMS rewritten to match the files: damage that the sums alone cannot show."""
    (dist / SUMS).write_text(sha256sums(dist))


def edit_manifest(dist: Path, fn) -> None:
    manifest = json.loads((dist / MANIFEST).read_text())
    fn(manifest)
    (dist / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def refusal(path: Path, reader=read_previous) -> DumpError:
    with pytest.raises(DumpError) as caught:
        reader(path)
    return caught.value


def test_an_intact_release_gives_its_version_ids_owners_and_dumps(dist_copy):
    release = read_previous(dist_copy)
    manifest = json.loads((dist_copy / MANIFEST).read_text())
    occ = pq.read_table(dist_copy / OCC).to_pylist()
    ids = pq.read_table(dist_copy / IDS).to_pylist()
    assert release.version == manifest["dataset_version"]
    assert sorted(release.ids, key=lambda r: r.id) == sorted((IdRow(**r) for r in ids), key=lambda r: r.id)
    assert release.owners == {record_key(r["source_sha256"], r["byte_start"]): r["paper_id"] for r in occ}
    assert release.dump_sha256 == {r["source_file"]: r["source_sha256"] for r in occ}
    assert set(release.dump_facts) == {i["sha256"] for i in manifest["inputs"]}
    assert read_ids(dist_copy) == (release.version, release.ids)
    assert record_key("ab", 7) == "ab:7"


@pytest.mark.parametrize("rel", [MANIFEST, OCC, IDS])
def test_a_file_read_that_changed_since_its_sums_is_refused_by_name(dist_copy, rel):
    """Same size, one byte changed, SHA256SUMS left alone: refused by the SHA-256 comparison."""
    path = dist_copy / rel
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    error = refusal(dist_copy)
    assert error.file == str(path) and error.code == "damaged"
    assert f"changed since the release was written (sha256 differs from {SUMS})" in error.message
    assert error.message.endswith(BUILD_WAY_OUT)


def test_read_ids_checks_the_ids_and_manifest_but_not_the_occurrences(dist_copy):
    """A published release's ids are read without its occurrences: a change to those is for
    `verify` to find, a change to the ids table is refused."""
    occ = dist_copy / OCC
    occ.write_bytes(occ.read_bytes()[:-1] + bytes([occ.read_bytes()[-1] ^ 1]))
    version, ids = read_ids(dist_copy)
    assert len(ids) == pq.read_metadata(dist_copy / IDS).num_rows
    rewrite_table(dist_copy, "ids", lambda t: set_cell(t, "first_release", 0, "0.0.1"))
    assert "sha256 differs" in refusal(dist_copy, read_ids).message


def test_a_file_read_but_not_listed_in_the_sums_is_refused(dist_copy):
    sums = dist_copy / SUMS
    sums.write_text("".join(line for line in sums.read_text().splitlines(keepends=True) if not line.endswith(f"  {OCC}\n")))
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / OCC) and f"not listed in {SUMS}" in error.message


def test_missing_sums_and_malformed_sums_are_refused(dist_copy):
    sums = dist_copy / SUMS
    text = sums.read_text()
    sums.write_text(text + "not a line of sha256sum\n")
    error = refusal(dist_copy)
    assert error.file == str(sums) and error.code == "damaged"
    sums.unlink()
    error = refusal(dist_copy)
    assert error.file == str(sums) and "missing: a release lists its files there" in error.message


def test_an_ids_table_deleted_with_its_sums_line_is_damage_not_an_older_release(dist_copy):
    """The manifest lists the release's ids: without the table, the release is damaged, never
    read as one from before the ids table (whose every id would be re-dated)."""
    (dist_copy / IDS).unlink()
    shutil.rmtree((dist_copy / IDS).parent)
    resum(dist_copy)
    for reader in (read_previous, read_ids):
        error = refusal(dist_copy, reader)
        assert error.file == str(dist_copy / IDS) and "missing, but" in error.message and "damaged" in error.message


@pytest.mark.parametrize("promise", ["ids", "counts.ids"])
def test_either_promise_of_ids_in_the_manifest_makes_a_missing_ids_table_damage(dist_copy, promise):
    """The manifest's id list or its id counts, either alone, says the release had an ids table."""
    shutil.rmtree((dist_copy / IDS).parent)
    edit_manifest(dist_copy, lambda m: m.pop("counts") if promise == "ids" else m.pop("ids"))
    resum(dist_copy)
    error = refusal(dist_copy, read_ids)
    assert error.file == str(dist_copy / IDS) and "missing, but" in error.message


def test_a_broken_set_of_shards_in_the_sums_is_refused_naming_the_sums(dist_copy):
    """SHA256SUMS listing a shard of a set that is not whole (one of two) names SHA256SUMS."""
    sums = dist_copy / SUMS
    sums.write_text(sums.read_text() + f"{'0' * 64}  data/ids/train-00001-of-00002.parquet\n")
    error = refusal(dist_copy)
    assert error.file == str(sums) and error.code == "damaged" and "data/ids/: the set of 2 shards" in error.message


def test_an_ids_table_listed_in_the_sums_but_gone_is_refused(dist_copy):
    (dist_copy / IDS).unlink()
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / IDS) and f"missing (listed in {SUMS})" in error.message


def test_an_ids_table_present_but_not_in_the_sums_is_refused(dist_copy):
    sums = dist_copy / SUMS
    sums.write_text("".join(line for line in sums.read_text().splitlines(keepends=True) if "data/ids/" not in line))
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / IDS) and f"not listed in {SUMS}" in error.message


def test_a_table_arrow_cannot_read_is_named_even_with_sums_to_match(dist_copy):
    (dist_copy / IDS).write_bytes(b"not parquet at all")
    resum(dist_copy)
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / IDS) and error.message.startswith("damaged release file (")


def test_a_release_from_before_the_ids_table_publishes_its_papers_under_its_version(dist_copy):
    """1.0.0 had no ids table and its manifest no ids: each paper is an id that version published."""
    papers = pq.read_table(dist_copy / PAPERS, columns=["paper_id"])["paper_id"].to_pylist()
    shutil.rmtree((dist_copy / IDS).parent)

    def older(m):
        del m["ids"]
        m["counts"].pop("ids")
        m["dataset_version"] = "1.0.0"

    edit_manifest(dist_copy, older)
    resum(dist_copy)
    release = read_previous(dist_copy)
    assert release.version == "1.0.0"
    assert sorted(release.ids, key=lambda r: r.id) == sorted((IdRow(p, p, "current", "1.0.0", None) for p in papers), key=lambda r: r.id)
    assert read_ids(dist_copy) == ("1.0.0", release.ids)


def test_ids_the_manifest_lists_otherwise_than_the_table_are_refused(dist_copy):
    edit_manifest(dist_copy, lambda m: m["ids"].__setitem__(0, [*m["ids"][0][:3], "0.0.1", None]))
    resum(dist_copy)
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / IDS) and f"disagrees with the ids {MANIFEST} lists" in error.message


def test_an_owner_missing_from_the_ids_table_is_refused(dist_copy):
    """A record whose paper id is no row of the ids table: the registry is incomplete."""
    rewrite_table(dist_copy, "occurrences", lambda t: set_cell(t, "paper_id", 0, "ffffffffffffffff"))
    resum(dist_copy)
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / IDS) and "missing from its ids table: ffffffffffffffff" in error.message


@pytest.mark.parametrize("count", ["papers", "records", "dumps", "relations.exact_duplicate", "ids.current",
                                   "ids.first_published_in_this_version"])
def test_every_count_the_manifest_states_is_what_the_tables_hold(dist_copy, count):
    where, _, key = count.rpartition(".")
    edit_manifest(dist_copy, lambda m: (m["counts"][where] if where else m["counts"]).__setitem__(
        key, (m["counts"][where] if where else m["counts"])[key] + 1))
    resum(dist_copy)
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / MANIFEST) and f"counts.{count} is " in error.message and "damaged" in error.message


def test_table_counts_count_the_tables(dist_copy):
    release = read_previous(dist_copy)
    occ = pq.read_table(dist_copy / OCC).to_pylist()
    found = table_counts(dist_copy, release)
    assert found["records"] == len(occ) and found["papers"] == pq.read_metadata(dist_copy / PAPERS).num_rows
    assert found["dumps"] == len({r["source_file"] for r in occ})
    assert found["relations.canonical"] == sum(r["relation"] == "canonical" for r in occ)
    assert found["ids.current"] == sum(r.status == "current" for r in release.ids)
    assert found["ids.first_published_in_this_version"] == sum(r.first_release == release.version for r in release.ids)


def test_an_ids_table_with_a_column_the_reader_does_not_know_is_refused(dist_copy):
    rewrite_table(dist_copy, "ids", lambda t: t.append_column("note", pa.array([""] * t.num_rows)))
    resum(dist_copy)
    for reader in (read_previous, read_ids):
        error = refusal(dist_copy, reader)
        assert error.file == str(dist_copy / IDS) and "unknown columns note" in error.message


def test_not_a_release_is_a_value_error_naming_what_is_missing(tmp_path, dist_copy):
    with pytest.raises(ValueError, match="no such release folder"):
        read_previous(tmp_path / "none")
    with pytest.raises(ValueError, match="not a release"):
        read_previous(tmp_path)
    manifest_only = tmp_path / "manifest-only"
    manifest_only.mkdir()
    shutil.copy(dist_copy / MANIFEST, manifest_only / MANIFEST)  # a manifest, but no occurrences table
    with pytest.raises(ValueError, match="not a release"):
        read_previous(manifest_only)
    with pytest.raises(DumpError, match="not a release"):
        release_at(tmp_path, way_out="or name another")


def test_release_at_names_a_file_as_the_command_does_and_gives_its_own_way_out(dist_copy):
    (dist_copy / IDS).write_bytes(b"not parquet")
    with pytest.raises(DumpError) as direct:
        read_previous(dist_copy)
    with pytest.raises(DumpError) as caught:
        release_at(dist_copy)  # a build's own words, unchanged
    assert (caught.value.file, caught.value.message) == (direct.value.file, direct.value.message)
    with pytest.raises(DumpError) as caught:
        release_at(dist_copy, named=lambda rel: f"v1.1.0:dist/{rel}", way_out="or diff against another release")
    assert caught.value.file == f"v1.1.0:dist/{IDS}"
    assert caught.value.message.endswith("or diff against another release") and BUILD_WAY_OUT not in caught.value.message


def test_damaged_tells_an_unreadable_file_from_a_damaged_one(tmp_path):
    unreadable = damaged(tmp_path / "x", PermissionError(13, "Permission denied"))
    assert unreadable.code == "unreadable" and unreadable.message == "Permission denied"
    missing = damaged(tmp_path / "x", KeyError("dataset_version"))
    assert missing.code == "damaged" and missing.message.startswith("damaged release file (missing 'dataset_version')")
    assert missing.message.endswith(BUILD_WAY_OUT)
    assert "download the release again" in missing.message  # no release folder, no git: no checkout offered
    assert damaged(tmp_path / "x", ValueError()).message.startswith("damaged release file (ValueError)")


def test_a_manifest_of_the_wrong_shape_is_damaged(dist_copy):
    edit_manifest(dist_copy, lambda m: m.__setitem__("dataset_version", 12))
    resum(dist_copy)
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / MANIFEST) and "damaged release file" in error.message


def test_first_difference_names_the_line_where_a_dump_stops_matching_its_records(dist_copy):
    occ = pq.read_table(dist_copy / OCC).to_pylist()
    name = occ[0]["source_file"]
    rows = sorted((r for r in occ if r["source_file"] == name), key=lambda r: r["record_index"])
    data = bytearray(max(r["byte_end"] for r in rows))
    for r in rows:
        data[r["byte_start"]:r["byte_end"]] = r["text_raw"].encode()
    assert first_difference(dist_copy, name, bytes(data)) == rows[-1]["line_end"] + 1  # intact: added after
    second = rows[1]
    changed = bytearray(data)
    changed[second["byte_start"]] ^= 1
    assert first_difference(dist_copy, name, bytes(changed)) == second["line_start"]
    assert first_difference(dist_copy, "999_0000000000000000.txt", bytes(data)) is None


def test_a_release_read_elsewhere_is_shown_by_the_name_a_command_gives_it(dist_copy):
    from dataclasses import replace

    release = read_previous(dist_copy)
    assert release.shown == str(dist_copy)
    assert replace(release, named="--previous HEAD").shown == "--previous HEAD"


def test_a_broken_set_of_occurrence_shards_is_no_release(dist_copy):
    from neurips_abstracts.ingest.previous import is_release

    assert is_release(dist_copy)
    shutil.copy(dist_copy / OCC, dist_copy / "data" / "occurrences" / "train-00001-of-00002.parquet")
    assert not is_release(dist_copy)


def test_a_table_the_counts_cannot_read_is_named_as_damaged(dist_copy):
    """An occurrences table without its relation column (SHA256SUMS rewritten): the ids are read,
    the counts cannot be, and the table is named."""
    rewrite_table(dist_copy, "occurrences", lambda t: t.drop_columns(["relation"]))
    resum(dist_copy)
    error = refusal(dist_copy)
    assert error.file == str(dist_copy / OCC) and error.message.startswith("damaged release file (missing 'relation')")
