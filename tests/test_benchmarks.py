"""The benchmark inputs are what the README says they are (no timing is asserted here)."""

import hashlib

import pytest

from neurips_abstracts.build import build

from .conftest import require_shared


@pytest.mark.corpus
def test_generator_is_deterministic_and_has_the_stated_composition(tmp_path):
    require_shared()
    from benchmarks.generate import records, write_dumps

    texts, labels = records(3000)
    again, labels_again = records(3000)
    assert texts == again and labels == labels_again
    assert len(texts) == 3000 and len(set(labels)) == 600  # 20% distinct papers
    a = write_dumps(texts, tmp_path / "a", per_dump=1000)
    b = write_dumps(texts, tmp_path / "b", per_dump=1000)
    assert [p.name for p in a] == [p.name for p in b] and len(a) == 3
    assert all(p.name[4:20] == hashlib.sha256(p.read_bytes()).hexdigest()[:16] for p in a)
    summary = build(tmp_path / "a", tmp_path / "dist")
    assert summary["records"] == 3000
    # noise is undone by normalization: the build finds about one paper per label
    assert 590 <= summary["papers"] <= 620
    rel = summary["relations"]
    assert rel["exact_duplicate"] > 1200 and rel["near_duplicate"] > 300  # ~70% copies, ~10% revisions (+ noisy copies of them)


def test_pair_scores():
    from benchmarks.scale import pair_scores

    assert pair_scores([1, 1, 2, 2], ["a", "a", "b", "b"]) == {"precision": 1.0, "recall": 1.0}
    assert pair_scores([1, 1, 2, 2], ["a", "a", "a", "a"]) == {"precision": 2 / 6, "recall": 1.0}
    assert pair_scores([1, 1, 2, 2], ["a", "b", "c", "d"]) == {"precision": 1.0, "recall": 0.0}
