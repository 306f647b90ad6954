"""Fixtures every test builds from. Tests never read the live raw/ or dist/: a contributor adds
dumps there, and the suite must pass unchanged (whether the committed dist/ and docs match raw/
is `python build_dataset.py check`'s job). Real abstracts come from the seeds' frozen copy in
tests/data/seeds; the large corpora in ../shared are read only by tests marked `corpus`, which
the default run deselects (run them with `python -m pytest -m corpus`)."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

# Property tests are derandomized in every run, CI's and a developer's alike: each run tries the
# same examples (a fixed seed per test, no example database), so the suite cannot pass or fail by
# luck. `HYPOTHESIS_PROFILE=explore python -m pytest` searches afresh with random examples; every
# failure it finds is kept in its test as an explicit @example.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derandomized"))
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPORA = SHARED / "corpora"
# The project's first two dumps, byte for byte (test_parse checks them against ../shared/seeds):
# frozen here so that the fixtures stay the same whatever raw/ grows into.
SEED_DIR = Path(__file__).resolve().parent / "data" / "seeds"
HEADER = "NeurIPS 2026 论文列表"
CORPUS_HINT = "python -m pytest -m corpus (needs the real corpora in ../shared)"


def run_cli(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CLI as a user would: a new Python process on build_dataset.py."""
    return subprocess.run(
        [sys.executable, str(ROOT / "build_dataset.py"), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def make_dump(abstracts: list[str], header: str = HEADER) -> bytes:
    return (header + "\n\n" + "\n\n".join(abstracts)).encode("utf-8")


def seed_files() -> list[Path]:
    return sorted(SEED_DIR.glob("*.txt"))


def copy_seeds(raw: Path) -> Path:
    """The seed dumps with their metadata files, as `add` leaves them."""
    raw.mkdir(parents=True, exist_ok=True)
    for f in seed_files():
        (raw / f.name).write_bytes(f.read_bytes())
        (raw / f.with_suffix(".json").name).write_bytes(f.with_suffix(".json").read_bytes())
    return raw


def seed_abstracts() -> list[str]:
    """The seeds' records in file order, split the plain way (the seeds are tidy: one paragraph
    per abstract, single blank lines, no hard wraps), as an oracle independent of the parser."""
    return [t for f in seed_files() for t in f.read_text(encoding="utf-8").split("\n\n")[1:] if t.strip()]


def seed_counts() -> dict[str, int]:
    """What a build of the seeds must report, derived from the seeds themselves: every record is
    an occurrence; texts equal after normalization are one paper (no two seeds are revisions of
    one another, so there are no near duplicates)."""
    from neurips_abstracts.normalize import normalize

    texts = seed_abstracts()
    papers = len({normalize(t) for t in texts})
    return {"records": len(texts), "papers": papers, "exact_duplicate": len(texts) - papers, "near_duplicate": 0}


def synthetic_abstracts(n: int, seed: int = 0, words: tuple[int, int] = (150, 260)) -> list[str]:
    """``n`` abstract-like texts of sentences drawn from the seeds' vocabulary: the word
    distribution of real prose, but no two texts share more than a chance 3-word shingle."""
    vocab = sorted({w for t in seed_abstracts() for w in re.findall(r"[a-z]{2,}", t)})
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        target, sentences = rng.randint(*words), []
        while sum(len(s.split()) for s in sentences) < target:
            body = rng.choices(vocab, k=rng.randint(12, 24))
            sentences.append(" ".join([body[0].capitalize(), *body[1:]]) + ".")
        out.append(" ".join(sentences))
    return out


def require_shared() -> None:
    """Fail (never skip) where ../shared is absent: only `corpus` tests read it, and those run
    only when asked for."""
    if not CORPORA.is_dir():
        pytest.fail(f"{CORPORA} is missing: corpus tests need the real corpora beside the clone", pytrace=False)


def corpus_abstracts(year: int) -> list[str]:
    """Real abstracts of one corpus, read in place from ../shared (never copied)."""
    import zstandard

    require_shared()
    path = CORPORA / f"neurips{year}" / "papers.jsonl.zst"
    with open(path, "rb") as fh:
        text = zstandard.ZstdDecompressor().stream_reader(fh).read().decode("utf-8")
    return [json.loads(line)["abstract"] for line in text.splitlines() if line.strip()]


def real_texts(source: str | int) -> list[str]:
    """Real abstracts: the seeds' (source "seeds") or a corpus year's."""
    return seed_abstracts() if source == "seeds" else corpus_abstracts(source)


# Tests on real text run on the seeds everywhere, and on the corpora in the corpus suite.
REAL_SOURCES = ["seeds", pytest.param(2018, marks=pytest.mark.corpus), pytest.param(2023, marks=pytest.mark.corpus)]

_DESELECTED = pytest.StashKey[int]()


def pytest_configure(config):
    config.addinivalue_line("markers", f"corpus: reads the real corpora in ../shared; run with {CORPUS_HINT}")


def pytest_collection_modifyitems(config, items):
    # With -m the user chose; without, the corpus tests stay out so that a clone without
    # ../shared runs everything else and skips nothing.
    # The slow suite (long stateful runs) is chosen the same way: python -m pytest -m slow.
    if config.option.markexpr:
        return
    corpus = [item for item in items if item.get_closest_marker("corpus")]
    slow = [item for item in items if item.get_closest_marker("slow")]
    if corpus or slow:
        items[:] = [item for item in items if not item.get_closest_marker("corpus") and not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=corpus + slow)
    config.stash[_DESELECTED] = len(corpus)


def pytest_runtest_setup(item):
    if item.get_closest_marker("corpus"):
        require_shared()


def pytest_terminal_summary(terminalreporter, config):
    n = config.stash.get(_DESELECTED, 0)
    if n:
        terminalreporter.write_line(f"{n} corpus tests not selected; run them with {CORPUS_HINT}")


@pytest.fixture(scope="session")
def seeds_dist(tmp_path_factory) -> Path:
    """A build of the seeds (not of raw/)."""
    from neurips_abstracts.build import build

    out = tmp_path_factory.mktemp("seeds") / "dist"
    build(SEED_DIR, out, previous=None)
    return out


@pytest.fixture
def raw_copy(tmp_path) -> Path:
    """A writable raw folder holding the seeds, to add or break dumps in."""
    return copy_seeds(tmp_path / "raw")
