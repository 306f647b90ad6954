import pyarrow as pa
from hypothesis import given, settings, strategies as st

from neurips_abstracts.build.stats import compute


def test_per_file_counts_are_arrows_group_by_sorted_by_file():
    """Records and canonical records per dump, ordered by file name as Arrow sorts strings: a
    dump holding only duplicates counts 0 canonical, names outside ASCII sort by code point."""
    files = ["b.txt", "a.txt", "é.txt", "b.txt", "Z.txt", "a.txt", "z.txt", "é.txt"]
    relation = ["canonical", "canonical", "exact_duplicate", "near_duplicate", "canonical", "exact_duplicate",
                "exact_duplicate", "near_duplicate"]
    occurrences = pa.table({"source_file": files, "relation": relation,
                            "similarity": [1.0, 1.0, 1.0, 0.9, 1.0, 1.0, 1.0, 0.95]})
    papers = pa.table({"venue": ["NeurIPS"] * 3, "year": [2026] * 3, "urls": pa.array([None, ["u"], None]),
                       "n_versions": [1, 2, 1], "word_count": [10, 20, 30], "abstract": ["a", "bb", "ccc"]})
    expected = (
        pa.table({"file": files, "canonical": [int(r == "canonical") for r in relation]})
        .group_by("file").aggregate([("file", "count"), ("canonical", "sum")]).sort_by("file")
    )
    assert compute(papers, occurrences)["per_file"] == [
        {"file": f, "records": n, "canonical": c}
        for f, n, c in zip(*(expected[k].to_pylist() for k in ("file", "file_count", "canonical_sum")))
    ]
    assert [f["file"] for f in compute(papers, occurrences)["per_file"]] == ["Z.txt", "a.txt", "b.txt", "z.txt", "é.txt"]


def test_quantiles_are_the_values_the_documents_say():
    """The documents say: the q-th quantile of n sorted values is the one at position q × (n − 1),
    rounded to the nearest, a half to the even one (so never an average of two)."""
    from neurips_abstracts.build.stats import _quantiles

    for values in ([7, 1, 4, 9], list(range(10)), list(range(36)), list(range(37)), [5], [3, 3, 1]):
        ordered = sorted(values)
        expected = [ordered[round(q * (len(values) - 1))] for q in (0.05, 0.5, 0.95)]
        got = _quantiles(pa.chunked_array([pa.array(values)]))
        assert [got["p05"], got["median"], got["p95"]] == expected, values



@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["NeurIPS", "ICML", "", " ", "é x", "None"]), st.integers(-3000, 3000)),
                max_size=30), st.integers(1, 4))
def test_venue_counts_are_those_of_a_step_per_paper(pairs, chunks):
    """Inputs: (venue, year) pairs, empty and space venues, the venue "None" and negative years
    among them, as one or several Arrow chunks. Arrow's count gives the per-paper loop's, and
    with a missing venue the loop itself."""
    from neurips_abstracts.build.stats import _venue_counts, _venue_counts_by_paper

    cut = [len(pairs) * k // chunks for k in range(chunks + 1)]
    venue = pa.chunked_array([[v for v, _ in pairs[a:b]] for a, b in zip(cut, cut[1:])], pa.string())
    year = pa.chunked_array([[y for _, y in pairs[a:b]] for a, b in zip(cut, cut[1:])], pa.int64())
    assert _venue_counts(venue, year) == _venue_counts_by_paper(venue, year)
    if pairs:
        with_null = pa.chunked_array([pa.array([None] + [v for v, _ in pairs[1:]], pa.string())])
        assert _venue_counts(with_null, year.combine_chunks()) == _venue_counts_by_paper(with_null, year)
