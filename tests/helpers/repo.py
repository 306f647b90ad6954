"""Repositories of synthetic abstracts whose similarity is known by construction, as the tests of
paper ids and of `add` make them: raw/ with dumps added by `add`, a first release in dist/. The
expected papers follow from how the texts are made, not from typed counts."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow.parquet as pq

from neurips_abstracts.core.names import data_path

from tests.helpers import make_dump

_VOCAB = (
    "model learning graph network data training loss optimal bound regret policy agent sample kernel "
    "gradient convex sparse robust adaptive estimator inference latent prior posterior variational "
    "transformer attention token language vision reward value function theory analysis empirical method "
    "algorithm dataset benchmark scaling efficient memory linear nonlinear stochastic noise signal causal "
    "feature representation embedding contrastive generative diffusion score flow manifold metric distance"
).split()


def words(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.choice(_VOCAB)}{rng.randrange(1000)}" for _ in range(n)]


def abstract(seed: int, n: int = 60) -> str:
    return " ".join(words(seed, n)) + "."


def revise(text: str, seed: int, k: int = 3) -> str:
    """k words replaced: Jaccard of 3-gram shingles stays well above 0.6 for 60 words."""
    w = text.split()
    rng = random.Random(seed)
    for i in rng.sample(range(len(w) - 1), k):
        w[i] = f"revised{seed}x{i}"
    return " ".join(w)


def ids_table(dist: Path) -> dict[str, dict]:
    return {r["id"]: r for r in pq.read_table(dist / data_path("ids")).to_pylist()}


def papers(dist: Path) -> dict[str, dict]:
    return {r["paper_id"]: r for r in pq.read_table(dist / data_path("papers")).to_pylist()}


def occurrence_papers(dist: Path) -> dict[str, str]:
    t = pq.read_table(dist / data_path("occurrences"), columns=["occurrence_id", "paper_id"])
    return dict(zip(t["occurrence_id"].to_pylist(), t["paper_id"].to_pylist()))


def write_file(path: Path, texts: list[str]) -> Path:
    path.write_bytes(make_dump(texts))
    return path


def make_repo(tmp_path: Path) -> Path:
    """A repository with two dumps added on two days (crawl dates known) and its first release."""
    from neurips_abstracts.build import build
    from neurips_abstracts.contribute.add import add_dump

    root = tmp_path / "repo"
    (root / "raw").mkdir(parents=True)
    first = [abstract(i) for i in range(8)]
    second = [abstract(i) for i in range(5, 12)]  # 5..7 appear in both: exact duplicates
    add_dump(write_file(tmp_path / "a.txt", first), root / "raw", crawled_at="2026-10-01", added="2026-10-02")
    add_dump(write_file(tmp_path / "b.txt", second), root / "raw", crawled_at="2026-10-15", added="2026-10-16")
    build(root / "raw", root / "dist")
    return root
