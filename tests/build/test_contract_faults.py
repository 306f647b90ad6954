"""Each check of the contracts fires on the fault it names, alone: tables of a real build with one
fault made in them (and, where another check would see it first, the columns that check reads
made to agree). The mutation run (benchmarks/mutation.py) found checks that no test broke."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from neurips_abstracts.build.contracts import ContractError, check, check_tables

from tests.helpers import set_cell


def _row(table: pa.Table, column: str, value) -> int:
    return pc.index(table.column(column), value).as_py()


def _paper_row(papers: pa.Table, paper_id: str) -> int:
    return _row(papers, "paper_id", paper_id)


def test_the_seed_tables_pass(seed_tables):
    papers, occ, ids = seed_tables
    check(papers, occ, occ.num_rows, ids)


def test_an_abstract_that_is_not_its_canonical_text_is_caught(seed_tables):
    # a consistent abstract and hash, but not the canonical occurrence's text
    papers, occ, ids = seed_tables
    text = "A different abstract, hashed as it should be."
    papers = set_cell(set_cell(papers, "abstract", 0, text), "abstract_sha256", 0, hashlib.sha256(text.encode()).hexdigest())
    with pytest.raises(ContractError, match="papers.abstract_sha256 disagrees with occurrences"):
        check(papers, occ, occ.num_rows, ids)


def test_an_exact_duplicate_of_another_text_is_caught(seed_tables):
    papers, occ, ids = seed_tables
    row = _row(occ, "relation", "exact_duplicate")
    occ = set_cell(occ, "text_sha256", row, "0" * 64)
    p = _paper_row(papers, occ.column("paper_id")[row].as_py())
    papers = set_cell(papers, "n_versions", p, papers.column("n_versions")[p].as_py() + 1)  # as the counts would say
    with pytest.raises(ContractError, match="exact duplicates whose text differs from the canonical text"):
        check(papers, occ, occ.num_rows, ids)


def test_a_near_duplicate_with_the_canonical_text_is_caught(seed_tables):
    papers, occ, ids = seed_tables
    row = _row(occ, "relation", "exact_duplicate")
    occ = set_cell(set_cell(occ, "relation", row, "near_duplicate"), "similarity", row, 0.9)
    with pytest.raises(ContractError, match="near duplicates whose text equals the canonical text"):
        check(papers, occ, occ.num_rows, ids)


@pytest.mark.parametrize("relation", ["canonical", "exact_duplicate"])
def test_a_similarity_below_one_outside_near_duplicates_is_caught(seed_tables, relation):
    papers, occ, ids = seed_tables
    occ = set_cell(occ, "similarity", _row(occ, "relation", relation), 0.9)
    with pytest.raises(ContractError, match="similarity below 1"):
        check(papers, occ, occ.num_rows, ids)


@pytest.mark.parametrize("span", ["bytes", "lines"])
def test_an_empty_or_inverted_span_is_caught(seed_tables, span):
    papers, occ, ids = seed_tables
    if span == "bytes":
        occ = set_cell(occ, "byte_end", 0, occ.column("byte_start")[0].as_py())
    else:  # the byte span intact, the lines inverted
        occ = set_cell(occ, "line_start", 0, occ.column("line_end")[0].as_py() + 1)
    with pytest.raises(ContractError, match="empty or inverted span"):
        check(papers, occ, occ.num_rows, ids)


def test_a_duplicate_across_row_groups_is_caught(seed_tables):
    """Row groups are checked one at a time; uniqueness over the whole table is check_tables'."""
    papers, occ, ids = seed_tables
    occ = set_cell(occ, "occurrence_id", 1, occ.column("occurrence_id")[0].as_py())
    with pytest.raises(ContractError, match="occurrence_id not unique"):
        check_tables(papers, occ, occ.num_rows, ids)


def test_a_current_id_naming_another_paper_is_caught(seed_tables):
    papers, occ, ids = seed_tables
    other = papers.column("paper_id")[1].as_py()
    row = _row(ids, "id", papers.column("paper_id")[0].as_py())
    with pytest.raises(ContractError, match="current ids that do not name themselves"):
        check(papers, occ, occ.num_rows, set_cell(ids, "paper_id", row, other))


def test_a_removed_id_naming_a_paper_is_caught(seed_tables):
    papers, occ, ids = seed_tables
    gone = "f" * 16
    extra = pa.Table.from_pylist([{"id": gone, "paper_id": papers.column("paper_id")[0].as_py(), "status": "removed",
                                   "first_release": ids.column("first_release")[0].as_py(), "retired_release": "1.0.1"}],
                                 schema=ids.schema)
    with pytest.raises(ContractError, match="removed ids that still name a paper"):
        check(papers, occ, occ.num_rows, pa.concat_tables([ids, extra]))
