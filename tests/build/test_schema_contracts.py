import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings, strategies as st

from neurips_abstracts.build.contracts import ContractError, check
from neurips_abstracts.core.names import data_path
from neurips_abstracts.core.schema import (
    TABLES,
    arrow_schema,
    field_names,
    hf_features_dict,
    pandera_schema,
    table_schema,
)

from tests.helpers import set_cell


@pytest.fixture(scope="module")
def retiring_dist(tmp_path_factory):
    """A second release from which one dump was removed: the ids of its papers are retired,
    so every column of ``ids`` holds values."""
    from neurips_abstracts.build import build

    from tests.helpers import make_dump

    root = tmp_path_factory.mktemp("retiring")
    raw = root / "raw"
    raw.mkdir()
    topics = ("graph neural networks", "bandit algorithms", "diffusion models", "causal discovery")
    for k, topic in enumerate(topics[:2]):
        abstracts = [f"We study {t} in setting {k}: {' '.join(f'w{k}{j}{n}' for n in range(30))}." for j, t in enumerate(topics)]
        (raw / f"00{k}_{k:016x}.txt").write_bytes(make_dump(abstracts))
    build(raw, root / "first", previous=None)
    (raw / f"001_{1:016x}.txt").unlink()
    build(raw, root / "second", previous=root / "first")
    return root / "second"


@pytest.mark.parametrize("table", TABLES)
def test_every_field_described_and_produced(seeds_dist, retiring_dist, table):
    spec = table_schema(table)
    assert spec["description"]
    for f in spec["fields"]:
        assert len(f.get("description", "")) > 20, f["name"]
        assert f["type"] in {"string", "integer", "number", "boolean"}
    written = pq.read_table((retiring_dist if table == "ids" else seeds_dist) / data_path(table))
    assert written.schema.names == field_names(table)
    assert written.schema.remove_metadata().equals(arrow_schema(table).remove_metadata())
    for name in field_names(table):  # produced: not an all-null placeholder
        assert written.column(name).null_count < written.num_rows
    assert list(pandera_schema(table).columns) == field_names(table)
    assert list(hf_features_dict(table)) == field_names(table)


def test_foreign_key_declared():
    fk = table_schema("occurrences")["foreignKeys"][0]
    assert fk["fields"] == ["paper_id"] and fk["reference"] == {"resource": "papers", "fields": ["paper_id"]}




def test_seed_tables_pass(seed_tables):
    papers, occ, ids = seed_tables
    check(papers, occ, occ.num_rows, ids)


def test_lost_record_caught(seed_tables):
    papers, occ, ids = seed_tables
    with pytest.raises(ContractError, match="raw records were parsed"):
        check(papers, occ, occ.num_rows + 1, ids)


def test_orphan_occurrence_caught(seed_tables):
    papers, occ, ids = seed_tables
    with pytest.raises(ContractError, match="do not exist"):
        check(papers, set_cell(occ, "paper_id", 0, "0" * 16), occ.num_rows, ids)


def test_duplicate_primary_key_caught(seed_tables):
    papers, occ, ids = seed_tables
    with pytest.raises(ContractError, match="schema"):
        check(set_cell(papers, "paper_id", 1, papers.column("paper_id")[0].as_py()), occ, occ.num_rows, ids)


def test_pattern_and_enum_caught(seed_tables):
    papers, occ, ids = seed_tables
    with pytest.raises(ContractError, match="schema"):
        check(papers, set_cell(occ, "relation", 0, "cousin"), occ.num_rows, ids)
    with pytest.raises(ContractError, match="schema"):
        check(set_cell(papers, "abstract_sha256", 0, "XYZ"), occ, occ.num_rows, ids)


def test_two_canonical_caught(seed_tables):
    papers, occ, ids = seed_tables
    row = pc.index(occ.column("relation"), "exact_duplicate").as_py()
    with pytest.raises(ContractError, match="exactly one canonical"):
        check(papers, set_cell(occ, "relation", row, "canonical"), occ.num_rows, ids)


def test_abstract_not_matching_its_hash_caught(seed_tables):
    papers, occ, ids = seed_tables
    with pytest.raises(ContractError, match="hash"):
        check(set_cell(papers, "abstract", 0, "tampered"), occ, occ.num_rows, ids)


def test_count_disagreement_caught(seed_tables):
    papers, occ, ids = seed_tables
    with pytest.raises(ContractError, match="n_occurrences"):
        check(set_cell(papers, "n_occurrences", 0, 7), occ, occ.num_rows, ids)


@pytest.mark.parametrize("broken", ["row", "across", "both", "crash"])
def test_a_build_breaking_a_contract_leaves_dist_as_it_was(tmp_path, monkeypatch, broken):
    """The build checks the contracts while it writes (occurrences row group by row group in one
    thread, the rest in another): a contract broken in either, or a failure after the
    occurrences began to be written, leaves dist/ untouched."""
    import dataclasses

    from neurips_abstracts import build as build_module

    from tests.helpers import make_dump

    raw, dist = tmp_path / "raw", tmp_path / "dist"
    raw.mkdir()
    (raw / f"000_{0:016x}.txt").write_bytes(make_dump([f"Paper {k} studies {' '.join(f'w{k}{j}' for j in range(25))}." for k in range(3)]))
    build_module.build(raw, dist, previous=None)
    before = {p.relative_to(dist): p.read_bytes() for p in dist.rglob("*") if p.is_file()}
    if broken in ("row", "both"):  # the schema's minimum or maximum, checked on each row group as written
        real_occurrences = build_module.assemble_occurrences

        def tampered_occurrences(*args):
            occurrences = real_occurrences(*args)
            if broken == "row":
                occurrences.positions["line_start"][:] = 1  # the header's line: checked by the schema alone
            else:  # checked across tables too (similarity below 1 for a canonical): a row is reported first
                occurrences.version_similarity[:] = 2.0
            return occurrences

        monkeypatch.setattr(build_module, "assemble_occurrences", tampered_occurrences)
    elif broken == "crash":  # once the occurrences table is being written
        def crash(*args):
            raise RuntimeError("boom")

        monkeypatch.setattr(build_module, "assemble", crash)
    else:  # checked across tables
        real = build_module._run

        def tampered(*args, **kwargs):
            result = real(*args, **kwargs)
            return dataclasses.replace(result, papers=set_cell(result.papers, "n_occurrences", 0, 7))

        monkeypatch.setattr(build_module, "_run", tampered)
    error, message = {"row": (ContractError, "schema"), "across": (ContractError, "n_occurrences"),
                      "both": (ContractError, "occurrences breaks its schema"), "crash": (RuntimeError, "boom")}[broken]
    with pytest.raises(error, match=message):
        build_module.build(raw, dist, previous=None)
    assert {p.relative_to(dist): p.read_bytes() for p in dist.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist", "raw"]  # nothing half written left behind


def test_a_broken_row_group_stops_the_occurrences_writer(tmp_path, monkeypatch):
    """Each row group is checked while it is written; the writing stops at the first whose
    check fails, and the build reports that row."""
    import dataclasses

    from neurips_abstracts import build as build_module
    from neurips_abstracts.build.stages import write as write_stage
    from neurips_abstracts.core.config import DEFAULT_CONFIG

    from tests.helpers import make_dump

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / f"000_{0:016x}.txt").write_bytes(make_dump([f"Paper {k} studies {' '.join(f'w{k}{j}' for j in range(25))}." for k in range(6)]))
    real_occurrences, real_write = build_module.assemble_occurrences, write_stage.write_parquet_batches

    def tampered_occurrences(*args):
        occurrences = real_occurrences(*args)
        occurrences.positions["line_start"][1] = 1  # the header's line, in the second row group only
        return occurrences

    written = []

    def counting_write(batches, *args):
        return real_write((written.append(b.num_rows) or b for b in batches), *args)

    monkeypatch.setattr(build_module, "assemble_occurrences", tampered_occurrences)
    monkeypatch.setattr(write_stage, "write_parquet_batches", counting_write)
    with pytest.raises(ContractError, match="occurrences breaks its schema(.|\n)*line_start"):
        build_module.build(raw, tmp_path / "dist", dataclasses.replace(DEFAULT_CONFIG, parquet_batch_rows=1), previous=None)
    assert written == [1, 1]  # the broken row group was written while checked; none after it
    assert not (tmp_path / "dist").exists()


def test_the_contracts_check_the_promises_of_the_previous_release(retiring_dist):
    """A build's ids table that changes a published id's first_release or drops a published id
    breaks the contracts: the id promises are checked on every build (DATASHEET)."""
    from neurips_abstracts.ingest.previous import read_previous

    previous = read_previous(retiring_dist.parent / "first")
    papers, occ, ids = (pq.read_table(retiring_dist / data_path(t)) for t in ("papers", "occurrences", "ids"))
    check(papers, occ, occ.num_rows, ids, previous)  # as built: every promise kept
    with pytest.raises(ContractError, match="first_release changed"):
        check(papers, occ, occ.num_rows, set_cell(ids, "first_release", 0, "0.9.0"), previous)
    retired = pc.index(ids["status"], "removed").as_py()
    with pytest.raises(ContractError, match="published ids missing from ids"):
        check(papers, occ, occ.num_rows, pa.concat_tables([ids.slice(0, retired), ids.slice(retired + 1)]), previous)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(), max_size=12), st.integers(0, 3), st.booleans())
def test_abstract_hashes_from_arrow_buffers_are_those_of_the_strings(texts, cut, wide):
    """Inputs: any Unicode texts (empty ones among them), as string or large_string, in two
    chunks, the second sliced. The hashes read from the Arrow buffers are hashlib's of each
    text's UTF-8."""
    import hashlib

    from neurips_abstracts.build.contracts import _utf8_sha256

    kind = pa.large_string() if wide else pa.string()
    head, tail = texts[: len(texts) // 2], texts[len(texts) // 2 :]
    column = pa.chunked_array([pa.array(head, kind), pa.array(["dropped"] * cut + tail, kind).slice(cut)], kind)
    assert list(_utf8_sha256(column)) == [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
    assert list(_utf8_sha256(pa.array(texts, kind))) == [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
