"""What the tests share besides fixtures (those, and the suite's hooks, are in tests/conftest.py):
running the CLI as a user does, the seeds and the corpora, dumps made to order, and the
projects a test builds. Tests import them from here, never from conftest."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPORA = SHARED / "corpora"
# The project's first two dumps, byte for byte (test_parse checks them against ../shared/seeds):
# frozen here so that the fixtures stay the same whatever raw/ grows into.
SEED_DIR = ROOT / "tests" / "data" / "seeds"
HEADER = "NeurIPS 2026 论文列表"
CORPUS_HINT = "python -m pytest -m corpus (needs the real corpora in ../shared)"
# An abstract no check of validate warns about: the good record a test of bad input puts beside
# the bad one, so that only the bad one is reported.
ABSTRACT = (
    "We study the sample complexity of learning sparse linear models under heavy-tailed noise and show "
    "that a simple median-of-means estimator attains the minimax rate up to logarithmic factors, which "
    "we confirm in experiments on synthetic and real data."
)

# Variables the CLI reads while it runs: run_cli sets them for the call. Anything else (the
# hash seed, time zone, locale, huggingface_hub's settings read at import, the kill switch of
# the guard's tests) needs a new process: run_process.
IN_PROCESS_ENV = frozenset({"NEURIPS_ABSTRACTS_DEBUG", "GITHUB_ACTIONS", "HF_TOKEN"})


def run_cli(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CLI as a user would, in this process: the entry point build_dataset.py calls
    (``main`` with its program name and these arguments) in folder ``cwd``, its stdout and
    stderr captured apart, its exit status returned as a process's would be. An exception that
    escapes (a traceback a user would see) is written to stderr with status 1, as Python does.
    What needs a process of its own (the exit as the OS sees it, signals, interpreter shutdown,
    settings read at start-up) uses ``run_process``. Warnings and log records, which pytest
    captures, do not reach this stderr: tests/cli/test_cli.py::test_in_process_runs_show_what_a_user_sees
    compares the two runners on commands that could print them."""
    import traceback

    from click.testing import CliRunner

    from neurips_abstracts.cli import main

    unsupported = set(env or {}) - IN_PROCESS_ENV
    assert not unsupported, f"run_cli cannot set {sorted(unsupported)} in this process: use run_process"
    _pyarrow_pandas_decided()
    with _working_directory(cwd):
        result = CliRunner().invoke(main, list(args), env=env, prog_name="python build_dataset.py")
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess([sys.executable, str(ROOT / "build_dataset.py"), *args],
                                       result.exit_code, result.stdout, stderr)


@contextlib.contextmanager
def _working_directory(path: Path):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _pyarrow_pandas_decided() -> None:
    """pyarrow asks once per process whether pandas can be imported, the first time it makes an
    array; the build command asks it with pandas hidden (see cli.build). Asked here first, so
    that the answer for the rest of the test session does not depend on which test ran first."""
    import pyarrow as pa

    pa.array([0])


def run_process(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CLI in a new Python process on build_dataset.py, exactly as a user does."""
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
    from neurips_abstracts.text.normalize import normalize

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


_WORDS = ("model learning data graph kernel neural sparse bound regret policy gradient estimator prior "
          "convex training network loss sample label robust attention token latent diffusion").split()


def synthetic_dumps(folder, seed: int = 0, papers: int = 240) -> None:
    """Dumps with every kind of record the stages handle: distinct abstracts, revisions, noisy
    exact copies, non-ASCII and mojibake, LaTeX and URLs, spread over four files."""
    rng = random.Random(seed)
    records = []
    for p in range(papers):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(40, 120))]
        if p % 7 == 0:
            words.insert(5, "naïve Schrödinger")
        if p % 11 == 0:
            words.insert(9, r"$\alpha_{t}$ with \emph{care}")
        if p % 13 == 0:
            words.append(f"Code: https://example.org/p{p}.")
        text = f"Paper {p}: " + " ".join(words) + "."
        records.append(text)
        if p % 3 == 0:  # a revision: a few words changed
            revised = text.split()
            for k in rng.sample(range(3, len(revised) - 1), 3):
                revised[k] = rng.choice(_WORDS)
            records.append(" ".join(revised))
        if p % 4 == 0:  # an exact copy as a recrawl gives it: spacing, a hard wrap, mojibake
            noisy = text.replace(" ", "  ", 3)
            cut = len(noisy) // 2
            noisy = noisy[:cut] + "\n" + noisy[cut:]
            if p % 8 == 0:
                noisy = noisy.encode("utf-8").decode("cp1252", errors="replace")
            records.append(noisy)
    rng.shuffle(records)
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(4):
        body = "\n\n".join(records[d::4])
        (folder / f"{d:03d}_{d + 10:016x}.txt").write_bytes(f"{HEADER}\n\n{body}\n".encode())


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a folder, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# Where ../shared comes from, for the message of a corpus test that cannot find it.
SHARED_ORIGIN = ("../shared is the team's folder of real abstracts (corpora/neurips2018 and corpora/neurips2023, "
                 "papers.jsonl.zst and dumps/), kept out of the repository: put it, or a link to it, beside the clone")


def shared_missing(shared: Path = SHARED, years: tuple[int, ...] = (2018, 2023)) -> str | None:
    """What a corpus test lacks in ``shared`` (None: nothing), naming each missing file."""
    missing = [shared / "corpora" / f"neurips{y}" / "papers.jsonl.zst" for y in years]
    missing = [p for p in missing if not p.is_file()]
    if not missing:
        return None
    return f"missing {', '.join(p.as_posix() for p in missing)}: {SHARED_ORIGIN}; then run {CORPUS_HINT.split(' (')[0]}"


def require_shared() -> None:
    """Fail (never skip) where ../shared is absent: only `corpus` tests read it, and those run
    only when asked for."""
    problem = shared_missing()
    if problem:
        pytest.fail(problem, pytrace=False)


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


def shingles(text: str, n: int):
    """Sorted unique 64-bit hashes of the case-folded word n-grams of ``text`` (the package
    hashes them a batch at a time: ``dedup.shingles.shingle_many``)."""
    from neurips_abstracts.dedup.shingles import shingle_many

    return shingle_many(n, [text])[0]


def set_cell(table, column: str, row: int, value):
    """``table`` with one cell changed (a fault for a contract to find)."""
    import pyarrow as pa

    values = table.column(column).to_pylist()
    values[row] = value
    field = table.schema.field(column)
    return table.set_column(table.schema.get_field_index(column), field, pa.array(values, field.type))


def rewrite_table(dist: Path, table: str, fn) -> None:
    """Table ``table`` of the release in ``dist`` replaced by ``fn`` of it (a fault for a check to find)."""
    import pyarrow.parquet as pq

    from neurips_abstracts.core.names import data_path

    path = dist / data_path(table)
    pq.write_table(fn(pq.read_table(path)), path)


def project_copy(project: Path, raw: Path | None = None) -> Path:
    """A checkout of the project in ``project``: its code and the docs a build regenerates, with
    ``raw`` (a folder of dumps) copied in as raw/ if given."""
    for name in ("src", "schema", "templates", "benchmarks/results"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "CHANGELOG.md", "LICENSE", "build_dataset.py", "README.md", "CONTRIBUTING.md",
                 "benchmarks/README.md"):
        shutil.copy(ROOT / name, project / name)
    if raw is not None:
        shutil.copytree(raw, project / "raw")
    return project


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@x"})


def make_project(parent):
    """A committed checkout holding raw/ (the two seed dumps) and its build in dist/."""
    root = parent / "project"
    (root / "raw").mkdir(parents=True)
    from neurips_abstracts.build import build

    for f in seed_files():
        shutil.copy(f, root / "raw" / f.name)
    build(root / "raw", root / "dist")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "release")
    return root

