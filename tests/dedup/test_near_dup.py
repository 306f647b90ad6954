import dataclasses
import functools
import json
import re

import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, settings, strategies as st

from neurips_abstracts import build as build_module
from neurips_abstracts.build import build, diff_dirs
from neurips_abstracts.build.contracts import check
from neurips_abstracts.build.stages.read import ordered
from neurips_abstracts.core.config import DEFAULT_CONFIG, BuildConfig
from neurips_abstracts.core.names import data_path
from neurips_abstracts.dedup.near_duplicates import jaccard
from neurips_abstracts.ids.identity import new_paper_id
from neurips_abstracts.text.normalize import normalize

from tests.helpers import make_dump, seed_abstracts, shingles, synthetic_abstracts


def run(files, config):
    """The build's stages over in-memory dumps (name, bytes), without writing anything."""
    return build_module.run(ordered(files), config)


N = DEFAULT_CONFIG.near_dup.shingle_size
THRESHOLD = DEFAULT_CONFIG.near_dup.threshold


@functools.lru_cache(maxsize=1)
def long_abstracts() -> tuple[str, ...]:
    """40 normalized texts of at least 150 words, no two near duplicates: the seeds' distinct
    abstracts first (real prose), then synthetic ones."""
    seeds = [t for t in dict.fromkeys(normalize(a) for a in seed_abstracts()) if len(t.split()) >= 150]
    return tuple(seeds + synthetic_abstracts(40 - len(seeds)))[:40]


@pytest.fixture(scope="module")
def real():
    return long_abstracts()


def sim(a: str, b: str) -> float:
    return jaccard(shingles(normalize(a), N), shingles(normalize(b), N))


def tables(dist):
    papers = pq.read_table(dist / data_path("papers")).to_pylist()
    occ = pq.read_table(dist / data_path("occurrences")).to_pylist()
    return {p["paper_id"]: p for p in papers}, occ


def revise(text: str) -> str:
    """A realistic revision: one sentence rewritten, a number updated."""
    sentences = re.split(r"(?<=\.) ", text)
    sentences[1] = "We further show that the method scales to much larger problems than before."
    return " ".join(sentences) + " Code is released."


def test_revision_in_a_new_dump_joins_its_paper_and_keeps_its_id(real, tmp_path):
    original, other = real[0], real[1]
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "000_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump([original, other]))
    build(raw, tmp_path / "before")
    before, _ = tables(tmp_path / "before")
    (raw / "001_bbbbbbbbbbbbbbbb.txt").write_bytes(make_dump([revise(original)]))
    build(raw, tmp_path / "after")
    after, occ = tables(tmp_path / "after")

    assert set(after) == set(before)  # same two paper ids: the revision kept its paper's id
    pid = next(p for p, row in before.items() if row["abstract"] == original)
    assert after[pid]["abstract"] == normalize(revise(original))  # the latest dump's version is canonical
    assert after[pid]["n_versions"] == 2 and after[pid]["n_occurrences"] == 2
    assert after[pid]["first_source_file"] == "000_aaaaaaaaaaaaaaaa.txt"
    rows = {o["source_file"]: o for o in occ if o["paper_id"] == pid}
    assert rows["001_bbbbbbbbbbbbbbbb.txt"]["relation"] == "canonical"
    old = rows["000_aaaaaaaaaaaaaaaa.txt"]
    assert old["relation"] == "near_duplicate"
    assert old["similarity"] == pytest.approx(sim(original, revise(original)))
    assert THRESHOLD <= old["similarity"] < 1
    manifest = json.loads((tmp_path / "after" / "build_manifest.json").read_text())
    assert manifest["config"]["near_dup"] == dataclasses.asdict(DEFAULT_CONFIG.near_dup)
    assert manifest["counts"]["relations"] == {"canonical": 2, "exact_duplicate": 0, "near_duplicate": 1}


def test_papers_sharing_their_first_two_sentences_stay_apart(real):
    a, b = real[2], real[3]
    shared = " ".join(re.split(r"(?<=\.) ", a)[:2])
    b2 = shared + " " + " ".join(re.split(r"(?<=\.) ", b)[2:])
    assert b2.startswith(shared) and a.startswith(shared)
    result = run([("000_x.txt", make_dump([a, b2]))], DEFAULT_CONFIG)
    assert result.papers.num_rows == 2
    assert set(result.occurrences.column("relation").to_pylist()) == {"canonical"}


def test_chain_follows_union_find_rule(real):
    words = real[4].split()
    w = len(words)

    def chain(k):  # B: first k words rewritten; C: B with the last k words rewritten too
        b = [f"new{i}" for i in range(k)] + words[k:]
        c = b[: w - k] + [f"later{i}" for i in range(k)]
        return " ".join(words), " ".join(b), " ".join(c)

    A, B, C = next(
        (a, b, c)
        for a, b, c in map(chain, range(1, w // 2))
        if sim(a, b) >= THRESHOLD and sim(b, c) >= THRESHOLD and sim(a, c) < THRESHOLD
    )
    result = run(
        [("000_a.txt", make_dump([A])), ("001_b.txt", make_dump([B])), ("002_c.txt", make_dump([C]))], DEFAULT_CONFIG
    )
    assert result.papers.num_rows == 1  # A~B and B~C: one paper, though A is not similar to C
    paper = result.papers.to_pylist()[0]
    assert paper["abstract"] == normalize(C)  # canonical: the version in the latest dump
    occ = {o["source_file"]: o for o in result.occurrences.to_pylist()}
    assert occ["002_c.txt"]["relation"] == "canonical"
    assert occ["000_a.txt"]["relation"] == "near_duplicate"
    assert occ["000_a.txt"]["similarity"] == pytest.approx(sim(A, C)) and occ["000_a.txt"]["similarity"] < THRESHOLD
    # the id is the founding occurrence's (A's), so it did not move when B and C arrived
    assert paper["paper_id"] == new_paper_id(occ["000_a.txt"]["source_sha256"], occ["000_a.txt"]["byte_start"])


def test_rebuild_same_clusters_same_bytes_any_order(real, tmp_path):
    dumps = {
        "000_aaaaaaaaaaaaaaaa.txt": make_dump([real[5], real[6], real[7]]),
        "001_bbbbbbbbbbbbbbbb.txt": make_dump([revise(real[5]), real[6], revise(real[7])]),
        "002_cccccccccccccccc.txt": make_dump([real[8], revise(real[6])]),
    }
    outs = []
    for k, order in enumerate((sorted(dumps), sorted(dumps, reverse=True))):
        raw = tmp_path / f"raw{k}"
        raw.mkdir()
        for name in order:
            (raw / name).write_bytes(dumps[name])
        build(raw, tmp_path / f"dist{k}")
        outs.append(tmp_path / f"dist{k}")
    assert diff_dirs(*outs) == []
    papers, occ = tables(outs[0])
    assert len(papers) == 4 and len(occ) == 8


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_nothing_lost_under_random_dumps(data):
    pool = long_abstracts()[10:40]
    n_dumps = data.draw(st.integers(1, 4))
    files = []
    for d in range(n_dumps):
        picks = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=8))
        texts = [pool[i] if data.draw(st.booleans()) else revise(pool[i]) for i in picks]
        files.append((f"{d:03d}_{d:016x}.txt", make_dump(texts)))
    assume(len({f[1] for f in files}) == len(files))  # a byte-for-byte copy of a dump is refused
    result = run(files, BuildConfig())
    n_records = sum(len(raw.split(b"\n\n")) - 1 for _, raw in files)
    assert result.occurrences.num_rows == n_records == result.stats["records"]
    check(result.papers, result.occurrences, n_records, result.ids)
    # every distinct base text picked is exactly one paper, whether or not its revision came too
    picked = {t for _, raw in files for t in raw.decode().split("\n\n")[1:]}
    bases = {t if t in pool else next(p for p in pool if revise(p) == t) for t in picked}
    assert result.papers.num_rows == len(bases)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 200), st.integers(1, 4), st.booleans())
def test_candidate_pairs_are_exactly_the_pairs_sharing_a_band(seed, n, alphabet, colliding_keys):
    import numpy as np

    from neurips_abstracts.dedup import lsh
    from neurips_abstracts.dedup.near_duplicates import candidate_pairs

    config = DEFAULT_CONFIG.near_dup
    sigs = np.random.default_rng(seed).integers(0, alphabet, size=(n, config.num_perm), dtype=np.uint32)
    expected = set()
    for b in range(config.bands):
        band = sigs[:, b * config.rows : (b + 1) * config.rows]
        _, inverse = np.unique(band, axis=0, return_inverse=True)
        for i in range(n):
            for j in range(i + 1, n):
                if inverse[i] == inverse[j]:
                    expected.add((i, j))
    with pytest.MonkeyPatch.context() as patch:
        if colliding_keys:  # a band's key is then its last word alone: keys of unequal bands collide
            patch.setattr(lsh, "GOLDEN", np.uint64(0))
        pairs = candidate_pairs(sigs, config)
    assert set(map(tuple, pairs.tolist())) == expected
    assert (np.diff(pairs[:, 0] * n + pairs[:, 1]) > 0).all()  # sorted, without repeats


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(0, 5), max_size=50))
def test_unique_is_numpys(values):
    import numpy as np

    from neurips_abstracts.dedup.lsh import _unique

    codes = np.array(values, dtype=np.int64)
    assert np.array_equal(_unique(codes), np.unique(codes))
