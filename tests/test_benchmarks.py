"""The benchmark inputs are what the README says they are (no timing is asserted here)."""

import hashlib
import os

import pytest

from neurips_abstracts.build import build

from tests.helpers import make_dump, require_shared


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


# --- each baseline's timed region pays only for its own work -----------------------------------

PAPER = ("We study the problem of learning sparse representations from few examples and show that a simple "
         "convex relaxation recovers the support with high probability under mild assumptions on the design. "
         "Experiments on three benchmarks confirm the theory and improve accuracy by four points.")
REVISION = PAPER.replace("four points", "five points").replace("three benchmarks", "three public benchmarks")
OTHER = ("Graph neural networks fail to distinguish regular graphs of equal degree; we propose a random "
         "feature augmentation that provably separates them and costs one extra pass over the edges, and we "
         "evaluate it on molecular property prediction where it halves the error of message passing.")
PARAMS = {"shingle_size": 3, "num_perm": 128, "threshold": 0.6, "seed": 20261129}


def calls_into_package(fn, *args, **kwargs) -> tuple[object, list[str]]:
    """``fn``'s result, and every function of the neurips_abstracts package it called, found by
    a profiling hook on this thread and any thread it starts."""
    import sys
    import threading

    seen = []

    def hook(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        if event == "call" and (module == "neurips_abstracts" or module.startswith("neurips_abstracts.")):
            seen.append(f"{module}.{frame.f_code.co_name}")

    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return result, seen


def test_the_hook_sees_a_call_into_the_package():
    from neurips_abstracts.dedup.shingles import shingle_many

    _, seen = calls_into_package(shingle_many, 3, [PAPER])
    assert "neurips_abstracts.dedup.shingles.shingle_many" in seen


def test_datasketch_baseline_calls_nothing_of_ours():
    from neurips_abstracts.core.config import NearDupConfig

    from benchmarks import near_dup
    from benchmarks.baselines import datasketch_clusters

    (roots, candidates), seen = calls_into_package(datasketch_clusters, [PAPER, OTHER, REVISION], **PARAMS)
    assert seen == []
    assert roots == [0, 1, 0] and candidates == {(0, 2)}
    # the function near_dup times, as it calls it
    (roots, _), seen = calls_into_package(near_dup.METHODS["datasketch"], [PAPER, OTHER, REVISION], NearDupConfig())
    assert seen == [] and roots == [0, 1, 0]


def test_reference_pipeline_calls_nothing_of_ours(tmp_path):
    import pyarrow.parquet as pq

    from benchmarks.baselines import reference_pipeline
    from tests.helpers import make_dump

    raw = tmp_path / "raw"
    raw.mkdir()
    # a BOM, CRLF, a hard wrap and an NFD copy: what the reference must undo to match the copies
    (raw / "a.txt").write_bytes(b"\xef\xbb\xbf" + make_dump([PAPER, "Caf\u00e9 " + OTHER]).replace(b"\n", b"\r\n"))
    wrapped = PAPER.replace(" ", "\n", 1)
    (raw / "b.txt").write_bytes(make_dump([wrapped, REVISION, "Cafe\u0301 " + OTHER]))
    out, seen = calls_into_package(reference_pipeline, raw, tmp_path / "out", **PARAMS)
    assert seen == []
    assert out["records"] == 5 and out["distinct_texts"] == 3
    assert out["paper_of_record"] == [0, 1, 0, 0, 1] and out["papers"] == 2
    assert pq.read_table(tmp_path / "out" / "occurrences.parquet").num_rows == 5
    assert pq.read_table(tmp_path / "out" / "papers.parquet")["records"].to_pylist() == [3, 2]


@pytest.mark.bench  # left out of the default run and of -m slow: it needs the [bench] extra
def test_datatrove_baseline_calls_nothing_of_ours(tmp_path):
    from benchmarks.baselines import datatrove_dedup, datatrove_input

    datatrove_input([PAPER, OTHER, REVISION], tmp_path / "in", shards=1)
    # one core: datatrove then runs its tasks in this process, where the hook sees them
    out, seen = calls_into_package(datatrove_dedup, tmp_path / "in", tmp_path / "work", shingle_size=3, bands=32,
                                   rows=4, seed=20261129, cores=1)
    assert seen == []
    assert out == {"removed": 1}  # the revision


def benchmark_checkout(root):
    """A checkout's benchmark docs made here: README.md and benchmarks/README.md holding each
    generated block (with stale bodies) between hand-written lines, and a copy of the results files
    (the figures each test needs it sets itself)."""
    import shutil

    from benchmarks.docs import BENCHMARKS, COMMAND
    from tests.helpers import ROOT

    def block(name: str) -> str:
        return f"<!-- generated:{name} by `{COMMAND}`; do not edit -->\nstale\n<!-- /generated:{name} -->\n"

    (root / "benchmarks").mkdir(parents=True)
    (root / "README.md").write_text("# Hand-written\n\n" + block("benchmark-headlines") + block("stats") + "The end.\n")
    (root / "benchmarks" / "README.md").write_text(
        "# Benchmarks\n\n" + "".join(f"## {name}\n\n" + block(b) for name, b, *_ in BENCHMARKS))
    shutil.copytree(ROOT / "benchmarks" / "results", root / "benchmarks" / "results")
    return root


def test_readme_benchmark_blocks_are_rendered_from_the_results_files(tmp_path):
    """Machine facts and ratios in benchmarks/README.md, and the headlines in README.md, come from
    the results files: change the file, the text follows; the rest of each file stays as written."""
    import json

    from benchmarks.docs import refresh

    benchmark_checkout(tmp_path)
    results = tmp_path / "benchmarks" / "results"
    machine = {"cpu_model": "Imaginary CPU 7", "logical_cores": 96, "usable_cores": 48, "memory_bytes": 3 * 2**40,
               "os": "Plan 9", "python": "CPython 3.99.0", "packages": {"datasketch": "9.9.9"}}
    names = ("near_dup", "scale", "startup", "plain_fidelity", "linearity", "release_cost")
    for name in names:
        data = json.loads((results / f"{name}.json").read_text())
        data |= {"machine": machine, "command": f"python -m benchmarks.{name}",
                 "load_average": {"start": [60.0, 1, 1], "end": [0.5, 1, 1]}}
        if name == "scale":
            for r in data["results"]:
                r |= {"machine": machine, "command": "python -m benchmarks.scale",
                      "load_average": {"start": [60.0, 1, 1], "end": [0.5, 1, 1]}}
            r = data["results"][0]
            r["reference"]["seconds"], r["total_seconds"] = 30.0, 2.0
            r["whole_pipeline_ratio"] = 15.0
            r.pop("worker_runs", None)  # a results file of the one-process build (older ones hold a pool's run too)
        if name == "linearity":
            data["max_ratio"], data["max_1mb_cpu_seconds"] = 10.4, 0.75
        if name == "near_dup":
            data["summary"]["speedup_vs_datasketch"] = 77.7
        (results / f"{name}.json").write_text(json.dumps(data))
    assert refresh(tmp_path) == [tmp_path / "README.md", tmp_path / "benchmarks" / "README.md"]
    headlines = (tmp_path / "README.md").read_text()
    assert "time(1 MB) / time(100 kB) at most 10.4" in headlines and "slowest 1 MB record 0.75 s CPU" in headlines
    assert "77.7x datasketch's speed (contended)" in headlines  # load 60 on 48 cores
    assert "Imaginary CPU" not in headlines  # the machine is told in benchmarks/README.md
    assert headlines.startswith("# Hand-written\n\n") and headlines.endswith("stale\n<!-- /generated:stats -->\nThe end.\n")
    text = (tmp_path / "benchmarks" / "README.md").read_text()
    assert text.count(" Imaginary CPU 7 (48 of 96 cores usable), 3072 GiB memory, Plan 9, CPython 3.99.0; datasketch 9.9.9.") == len(names)
    assert "load average was 60.00 at the start and 0.50 at the end: above 48 cores" in text
    assert "our build took **0.07x** the reference pipeline's wall time (the reference 15.0x ours), 2.0 s against 30.0 s" in text
    assert "the largest ratio is 10.4" in text and "the slowest 1 MB record takes 0.750 s" in text
    assert "AMD EPYC" not in text and "\nstale\n" not in text
    assert refresh(tmp_path) == []  # idempotent
    (results / "linearity.json").unlink()
    assert refresh(tmp_path) == [tmp_path / "README.md", tmp_path / "benchmarks" / "README.md"]
    assert "No results yet: run `python -m benchmarks.linearity`." in (tmp_path / "benchmarks" / "README.md").read_text()
    assert "| [rendering time against record length](benchmarks/README.md#linearity) | no results yet | " \
        "`python -m benchmarks.linearity` |" in (tmp_path / "README.md").read_text()


def test_the_command_rewrites_the_benchmark_docs_or_names_each_stale_one(tmp_path, capsys):
    """`python -m benchmarks.docs --check` writes nothing and names each stale file and the
    command that fixes it; the command fixes them; a missing README is named with how to restore it."""
    from benchmarks.docs import COMMAND, main

    benchmark_checkout(tmp_path)
    table = tmp_path / "benchmarks" / "README.md"
    before = table.read_text()
    assert main(["--check"], root=tmp_path) == 1
    assert capsys.readouterr().err == ("stale: README.md\nstale: benchmarks/README.md\n"
                                       f"the benchmark blocks are out of date with benchmarks/results/; run: {COMMAND}\n")
    assert table.read_text() == before
    assert main([], root=tmp_path) == 0
    assert capsys.readouterr().out == "rewrote README.md, benchmarks/README.md\n"
    assert main(["--check"], root=tmp_path) == 0 and main([], root=tmp_path) == 0
    assert capsys.readouterr().out == "unchanged\n"
    fresh = table.read_text()
    table.write_text(fresh.replace("| read |", "| reading |", 1))
    assert main(["--check"], root=tmp_path) == 1 and "stale: benchmarks/README.md\n" in capsys.readouterr().err
    table.unlink()
    assert main([], root=tmp_path) == 1 and not table.exists()
    assert capsys.readouterr().err == "missing: benchmarks/README.md: restore it (git checkout -- benchmarks/README.md)\n"


def test_the_committed_benchmark_docs_are_fresh():
    """benchmarks/README.md and README.md's benchmark headlines are what the committed results
    files make, and each of their blocks names the command that makes it."""
    import re

    from benchmarks.docs import BENCHMARKS, BENCHMARKS_README, COMMAND, stale
    from tests.helpers import ROOT

    assert stale(ROOT) == [], f"stale benchmark docs: {stale(ROOT)}; run: {COMMAND}"
    blocks = {name: line for doc in ("README.md", BENCHMARKS_README)
              for line in (ROOT / doc).read_text(encoding="utf-8").splitlines()
              if (name := (re.match(r"<!-- generated:([\w-]+) ", line) or [None, None])[1])}
    ours = ["benchmark-headlines", *(block for _, block, *_ in BENCHMARKS)]
    assert all(f"by `{COMMAND}` from benchmarks/results/" in blocks[name] for name in ours), blocks


def test_startup_block_gives_the_earlier_revision_timed_in_the_same_runs():
    """With `--against`, the block names the other revision, its times and the ratio of the
    medians (the figure that carries from one machine to another); without it, none of that."""
    from benchmarks.tables import startup_block, startup_headline

    result = {"runs": 7, "median_seconds": 2.0, "min_seconds": 1.9, "max_seconds": 2.3, "median_cpu_seconds": 2.1}
    alone = startup_block(result)
    assert "takes 2.00 s wall (median of 7 runs, 1.90-2.30 s), 2.10 s CPU." in alone and "revision" not in alone
    assert "build` of the dumps in raw/ in a new process" in alone  # a results file from before the count
    assert "build` of the 1 dump in raw/ in" in startup_block(result | {"dumps": 1})
    result["dumps"] = 3
    assert "build` of the 3 dumps in raw/ in a new process" in startup_block(result)
    result |= {"revision": "abc1234", "against": {"revision": "0ld0000", "median_seconds": 3.2, "min_seconds": 3.0,
                                                  "max_seconds": 3.5, "median_cpu_seconds": 3.3}}
    assert ("In the same runs, taking turns, revision 0ld0000 took 3.20 s (3.00-3.50 s), so revision abc1234 takes "
            "**0.62x** its time.") in startup_block(result)
    assert startup_headline(result).endswith(
        "of the 3 dumps in raw/ in a new process: 2.00 s wall, 0.62x the time of revision 0ld0000 in the same runs")
    assert startup_headline({k: v for k, v in result.items() if k != "against"}).endswith("new process: 2.00 s wall")


def test_startup_block_splits_the_build_into_its_imports_and_its_own_work():
    """The imports of the modules the build loads and the build with them loaded, each timed in
    one new process, and the interpreter's start alone; a module that could not be imported on
    its own is named as left out; an older results file has no such sentence."""
    from benchmarks.tables import startup_block

    def spread(median: float) -> dict:
        return {"median_seconds": median, "min_seconds": median - 0.1, "max_seconds": median + 0.2}

    result = {"runs": 7, "median_seconds": 2.0, "min_seconds": 1.9, "max_seconds": 2.3, "median_cpu_seconds": 2.1,
              "split": {"modules": 700, "not_importable_alone": 0, "imports": spread(1.5), "build": spread(0.4),
                        "interpreter": spread(0.12)}}
    block = startup_block(result)
    assert ("In the same runs, a new process that first imports the modules the build loads (700, the standard "
            "library's included, the package's own left out; pandera's polars API as the build imports it) spends "
            "1.50 s (1.40-1.70 s) on them, then imports its own modules and builds in 0.40 s (0.30-0.60 s); the "
            "interpreter's own start (`python -c pass`) takes 120 ms (20-320 ms).") in block
    result["split"]["not_importable_alone"] = 2
    assert "; 2 could not be imported on their own and were left out)" in startup_block(result)
    assert "first imports" not in startup_block({k: v for k, v in result.items() if k != "split"})


# Runs of benchmarks.startup read their children's CPU time with ``resource`` and link folders:
# POSIX's, as the benchmarks are run.
posix_run = pytest.mark.skipif(os.name == "nt", reason="a run of benchmarks.startup is POSIX's (resource, links)")


def test_startup_order_is_balanced_over_its_rounds():
    """Over the rounds a run makes, each job goes first equally often and each pair of jobs runs
    in either order equally often, with two trees or one."""
    from itertools import combinations

    from benchmarks.startup import RUNS, _order, _rounds

    for jobs in (["this", "against", "split", "interpreter"], ["this", "split", "interpreter"]):
        rounds = _rounds(jobs)
        orders = _order(jobs, rounds)
        assert rounds >= RUNS and len(orders) == rounds and all(sorted(o) == sorted(jobs) for o in orders)
        assert {o[0]: sum(p[0] == o[0] for p in orders) for o in orders} == dict.fromkeys(jobs, rounds // len(jobs))
        for a, b in combinations(jobs, 2):
            assert sum(o.index(a) < o.index(b) for o in orders) * 2 == rounds, (a, b)


def startup_tree(tmp_path):
    """A committed project holding the seed dumps and its build, with the code a build runs: src/
    a link to this checkout's, whose files (templates, schema) the package finds through it."""
    import shutil

    from tests.helpers import ROOT, make_project

    project = make_project(tmp_path)
    shutil.copy(ROOT / "build_dataset.py", project / "build_dataset.py")
    (project / "src").symlink_to(ROOT / "src", target_is_directory=True)
    return project


@posix_run
def test_startup_lists_the_modules_a_build_loads_and_imports_them_before_building(tmp_path):
    """The list is what a real build leaves in ``sys.modules``, none of the package's own and no
    pandas (pandera's polars API as the build imports it); the second process imports what the
    list names, counts a module it cannot import, then builds."""
    import json

    from benchmarks.startup import _IMPORTS_THEN_BUILD, _child, _libraries

    project = startup_tree(tmp_path)
    listed = _libraries(project, str(tmp_path))
    names = json.loads(listed.read_text())
    assert {"pyarrow", "polars", "ftfy"} <= set(names), names
    assert not [n for n in names if n.partition(".")[0] in ("neurips_abstracts", "pandas")], names
    assert (tmp_path / "libraries-dist" / "build_manifest.json").is_file()  # the build ran, into the folder given
    listed.write_text(json.dumps(["colorsys", "no_such_module_here"]))  # nothing else loads colorsys
    script = _IMPORTS_THEN_BUILD.replace("imported = ", "print('colorsys' in sys.modules)\nimported = ")
    printed = _child("split", ["-c", "import sys; print('colorsys' in sys.modules)\n" + script, str(listed),
                               str(project / "raw"), str(tmp_path / "split")], project)
    lines = printed.strip().splitlines()
    parts = json.loads(lines[-1])
    assert lines[:2] == ["False", "True"] and parts["failed"] == 1 and parts["imports"] > 0 and parts["build"] > 0
    assert (tmp_path / "split" / "build_manifest.json").is_file()


@posix_run
def test_startup_runs_every_job_and_writes_each_figure(tmp_path, monkeypatch, capsys):
    """The fewest rounds of the benchmark on a project of the test's own (``--no-write``): the build,
    the split and the interpreter each timed, and the result holds every figure the block reads."""
    import json
    import sys

    import benchmarks.startup
    from benchmarks.tables import startup_block

    monkeypatch.setattr(benchmarks.startup, "ROOT", startup_tree(tmp_path))
    monkeypatch.setattr(benchmarks.startup, "RUNS", 1)
    monkeypatch.setattr(sys, "argv", ["startup", "--no-write"])
    benchmarks.startup.main()
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["runs"] == 6 and result["dumps"] == 2 and result["median_seconds"] > 0  # 3 jobs, each order twice
    split = result["split"]
    assert split["modules"] > 100 and split["not_importable_alone"] == 0
    assert all(split[part]["median_seconds"] > 0 for part in ("imports", "build", "interpreter"))
    assert "and builds in" in startup_block(result)


@posix_run
def test_startup_refuses_a_checkout_without_a_build_or_with_other_dumps(tmp_path):
    """`--against` a folder that is no checkout, or one whose raw/ holds other dumps, stops
    before any run, naming the folder."""
    import subprocess
    import sys

    from tests.helpers import ROOT

    def refusal() -> str:
        done = subprocess.run([sys.executable, "-m", "benchmarks.startup", "--no-write", "--against", str(tmp_path)],
                              cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 2
        return done.stderr

    assert f"{tmp_path.resolve()} holds no build_dataset.py" in refusal()
    (tmp_path / "build_dataset.py").write_text("")
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "000_0000000000000001.txt").write_bytes(make_dump(["An abstract of another raw folder."]))
    assert f"{tmp_path.resolve()}/raw holds other files than raw/: the two builds would do different work" in refusal()


def test_benchmarks_refresh_the_readmes_of_their_own_checkout(tmp_path, monkeypatch):
    """A benchmark run from a second clone (sharing a virtual environment whose package is
    installed from another checkout) rewrites that clone's READMEs, not the installed checkout's."""
    import json

    import benchmarks.corpus
    import benchmarks.docs
    from benchmarks.harness import write_results

    benchmark_checkout(tmp_path)
    real = benchmarks.docs.write_changed

    def write(expected):  # anything else than the second clone's READMEs must not be written
        assert sorted(expected) == [tmp_path / "README.md", tmp_path / "benchmarks" / "README.md"], expected
        return real(expected)

    monkeypatch.setattr(benchmarks.docs, "write_changed", write)
    monkeypatch.setattr(benchmarks.corpus, "ROOT", tmp_path)
    results = tmp_path / "benchmarks" / "results" / "startup.json"
    write_results(results, json.loads(results.read_text()) | {"median_seconds": 1234.5})
    assert "1234.50 s wall" in (tmp_path / "README.md").read_text()
    assert "1234.50 s wall" in (tmp_path / "benchmarks" / "README.md").read_text()


def test_release_cost_chunker_is_content_defined():
    """The benchmark's FastCDC: chunks within Xet's bounds, covering the data, and bytes inserted
    at the front change only the chunks near them."""
    import random as _random

    from benchmarks.release_cost import MAX_CHUNK, MIN_CHUNK, chunks

    data = _random.Random(7).randbytes(2_000_000)
    cut = chunks(data)
    assert cut[0][0] == 0 and cut[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(cut, cut[1:]))
    assert all(MIN_CHUNK <= e - s <= MAX_CHUNK for s, e in cut[:-1])
    shifted = chunks(b"inserted" * 100 + data)
    old = {data[s:e] for s, e in cut}
    new = [(b"inserted" * 100 + data)[s:e] for s, e in shifted]
    assert sum(len(c) for c in new if c not in old) < 4 * MAX_CHUNK


def test_release_cost_revisions_mix_is_what_it_says():
    """The second recrawl mix: 40% revisions of papers' canonical texts (new texts), 40% exact
    copies of old versions (a paper's text other than its newest), 20% new papers, shuffled,
    the same for the same seed."""
    from benchmarks.release_cost import revisions_recrawl

    words = "we study graphs kernels bandits regret bounds under noise and show that the rate is optimal".split()
    base = [" ".join(words[i:] + words[:i]) + f". Model {i} learns fast." for i in range(60)]
    texts, labels = [], []
    for i, text in enumerate(base):  # each paper: an old version, then its newest (canonical)
        texts += [text + " An early draft.", text]
        labels += [i, i]
    out = revisions_recrawl(texts, labels, 2000, seed=3)
    assert out == revisions_recrawl(texts, labels, 2000, seed=3) and len(out) == 20
    old = set(texts[0::2])
    assert sum(t in old for t in out) == 8 and not any(t in base for t in out)
    assert sum("Revised crawl" in t for t in out) == 4
    kinds = ["old" if t in old else "new" if "Revised crawl" in t else "revision" for t in out]
    assert kinds != sorted(kinds, key=("revision", "old", "new").index)  # in random order


@pytest.mark.slow  # four publishes, each a process of its own
def test_release_cost_publishes_through_hf_xet_in_a_home_of_its_own(tmp_path, monkeypatch):
    """The benchmark's second publish goes through hf_xet to the tests' Xet storage (no LFS
    upload), is counted per machine and per table, and every folder huggingface_hub and hf_xet
    write is under the benchmark's work folder: the user's home, HF_HOME and Xet cache are
    neither read nor written."""
    from benchmarks.release_cost import MACHINES, publish_cost
    from tests.helpers import copy_seeds

    user = tmp_path / "user"
    for name, folder in (("HOME", "home"), ("HF_HOME", "hf"), ("HF_XET_CACHE", "xet"), ("XDG_CACHE_HOME", "cache"),
                         ("HF_HUB_DISABLE_XET", None)):
        monkeypatch.setenv(name, "1" if folder is None else str(user / folder))
    raw = copy_seeds(tmp_path / "raw")
    build(raw, tmp_path / "base")
    (raw / "009_0000000000000009.txt").write_bytes(make_dump([PAPER, OTHER]))
    build(raw, tmp_path / "new", previous=tmp_path / "base")
    work = tmp_path / "work"
    result = publish_cost(tmp_path / "base", tmp_path / "new", work)
    assert list(result["machines"]) == list(MACHINES)
    parquet = {d.name: sum(f.stat().st_size for f in d.glob("*.parquet")) for d in (tmp_path / "new" / "data").iterdir()}
    for sent in result["machines"].values():
        assert sent["lfs_uploads"] == 0 and sent["xorbs"] >= 1 and sent["shards"] >= 1
        assert 0 < sent["xorb_chunk_bytes"] <= sum(parquet.values()) and sent["xorb_bytes"] > 0
        assert set(sent["tables"]) == set(parquet) and all(sent["tables"][t] <= parquet[t] for t in parquet)
        assert sum(sent["tables"].values()) == sent["xorb_chunk_bytes"]
    assert not user.exists()  # nothing of the user's was made, let alone written
    caches = sorted(p.relative_to(work).as_posix() for p in work.glob("publish-*/machine-*/huggingface/xet"))
    assert caches == ["publish-0/machine-1/huggingface/xet", "publish-1/machine-1/huggingface/xet",
                      "publish-1/machine-2/huggingface/xet"]


def test_scale_block_shows_one_process_of_a_results_file_with_a_pool_run():
    """The build is one process: a results file written while it had a worker pool renders the
    one-process run it holds (``worker_runs.one``), and no workers row."""
    import copy
    import json

    from benchmarks.scale_tables import scale_block
    from tests.helpers import ROOT

    result = json.loads((ROOT / "benchmarks" / "results" / "scale.json").read_text())
    r = result["results"][0]
    r.pop("worker_runs", None)
    r["total_seconds"], r["cpu_seconds"], r["peak_bytes"], r["reference"]["seconds"] = 6.25, 14.0, 2**31, 50.0
    one = {**copy.deepcopy({k: r[k] for k in ("stages", "papers", "records")}), "seconds": 10.0,
           "all_seconds": [10.0], "cpu_seconds": 9.0, "peak_bytes": 2**30}
    assert "**0.12x** the reference pipeline's wall time" in scale_block(result)  # 6.25 / 50
    r["worker_runs"] = {"workers": 2, "speedup": 1.6, "cpu_ratio": 14.0 / 9.0, "one": one}
    block = scale_block(result)
    assert "**0.20x** the reference pipeline's wall time (the reference 5.0x ours), 10.0 s against 50.0 s" in block
    assert "CPU time 9.0 s against" in block and "peak memory 1.00 GiB against" in block
    assert "Workers:" not in block and "worker process" not in block


def test_the_readme_s_pool_figure_is_the_results_file_s():
    """The build runs in one process since the pool's measured gain fell under 1.3x: README's
    figure is the median of benchmarks/results/pool.json's pairs, and the file's decision says so."""
    import json
    import statistics

    from tests.helpers import ROOT

    result = json.loads((ROOT / "benchmarks" / "results" / "pool.json").read_text(encoding="utf-8"))
    ratios = [p["one_seconds"] / p["pool_seconds"] for p in result["pairs"]]
    median = statistics.median(ratios)
    assert median < 1.3 and result["decision"].startswith("removed")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"only {median:.2f}x as fast (the median of {['no', 'one', 'two', 'three', 'four', 'five'][len(ratios)]} alternating pairs" in readme
