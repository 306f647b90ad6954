import importlib
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from neurips_abstracts.build import build, check, diff_dirs
from neurips_abstracts.core.names import data_path

from tests.helpers import ROOT, SEED_DIR, make_dump, run_cli, run_process, seed_counts, seed_files


def read(dist: Path, table: str):
    return pq.read_table(dist / data_path(table))


def test_seeds_build_counts(seeds_dist):
    want = seed_counts()
    assert want["exact_duplicate"] > 0  # the seeds hold copies: the fixture exercises merging
    papers, occ = read(seeds_dist, "papers"), read(seeds_dist, "occurrences")
    assert occ.num_rows == want["records"]
    assert papers.num_rows == want["papers"]
    relations = occ.column("relation").to_pylist()
    assert relations.count("exact_duplicate") == want["exact_duplicate"]
    assert relations.count("canonical") == want["papers"]
    manifest = json.loads((seeds_dist / "build_manifest.json").read_text())
    assert manifest["counts"]["records"] == want["records"] and manifest["counts"]["papers"] == want["papers"]


def test_byte_identical_across_env_folders_and_file_order(tmp_path):
    outs = []
    seeds = seed_files()
    for k, (order, env) in enumerate(
        [
            (seeds, {"PYTHONHASHSEED": "1", "TZ": "UTC", "LC_ALL": "C"}),
            (seeds[::-1], {"PYTHONHASHSEED": "4242", "TZ": "Asia/Kolkata", "LC_ALL": "C.UTF-8"}),
        ]
    ):
        work = tmp_path / f"w{k}" / ("deeper" * k)
        raw = work / "raw"
        raw.mkdir(parents=True)
        for f in order:  # written in a different order: different directory order on disk
            (raw / f.name).write_bytes(f.read_bytes())
        # a first release: fixture dumps outside any clone, where the package's own record counts
        proc = run_process("build", "--raw", str(raw), "--out", str(work / "dist"), "--first-release", env=env)
        assert proc.returncode == 0, proc.stderr
        outs.append(work / "dist")
    assert diff_dirs(outs[0], outs[1]) == []
    for f in outs[0].rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert str(tmp_path).encode() not in data and str(ROOT).encode() not in data


def test_check_names_stale_files_and_exits_1(raw_copy, tmp_path):
    dist = tmp_path / "dist"
    build(raw_copy, dist)
    fresh = run_cli("check", "--raw", str(raw_copy), "--dist", str(dist), "--no-docs")
    assert fresh.returncode == 0 and "up to date" in fresh.stdout, fresh.stderr
    (raw_copy / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["A new abstract on sparse graph streams."]))
    assert "dist/data/papers/train-00000-of-00001.parquet" in check(raw_copy, dist, docs=False)
    (raw_copy / "009_aaaaaaaaaaaaaaaa.txt").unlink()
    (dist / data_path("papers")).write_bytes(b"stale")
    (dist / "extra.txt").write_text("x")
    proc = run_cli("check", "--raw", str(raw_copy), "--dist", str(dist), "--no-docs")
    assert proc.returncode == 1
    assert "data/papers/train-00000-of-00001.parquet" in proc.stderr and "extra.txt" in proc.stderr
    assert "python build_dataset.py build" in proc.stderr


def test_cli_summary_and_help(raw_copy, tmp_path):
    proc = run_cli("--raw", str(raw_copy), "--out", str(tmp_path / "d"))
    assert proc.returncode == 0, proc.stderr
    want = seed_counts()
    assert f"{want['records']} records parsed from {len(seed_files())} dumps -> {want['papers']} papers" in proc.stdout
    assert f"({want['exact_duplicate']} exact duplicates, 0 near duplicates)" in proc.stdout
    for cmd in ("build", "check"):
        help_text = run_cli(cmd, "--help").stdout
        assert "Example:" in help_text and f"python build_dataset.py {cmd}" in help_text


def test_new_dump_of_new_papers_changes_no_existing_row(raw_copy, tmp_path):
    before = tmp_path / "before"
    build(raw_copy, before)
    (raw_copy / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(
        make_dump(["A wholly new abstract about graph sparsification in streams.", "Another new one on bandits."])
    )
    after = tmp_path / "after"
    build(raw_copy, after)
    old = read(before, "papers").to_pylist()
    new = {r["paper_id"]: r for r in read(after, "papers").to_pylist()}
    assert len(new) == len(old) + 2
    for row in old:
        assert new[row["paper_id"]] == row


def test_library_build_without_cli(raw_copy, tmp_path):
    summary = build(raw_copy, tmp_path / "out")
    want = seed_counts()
    assert summary["records"] == want["records"] and summary["papers"] == want["papers"] and summary["seconds"] >= 0


@pytest.mark.parametrize("table", ["papers", "occurrences"])
def test_readers(seeds_dist, table):
    import datasets
    import duckdb
    import pandas as pd
    import polars as pl

    path = seeds_dist / data_path(table)
    expected = read(seeds_dist, table)
    assert pd.read_parquet(path).shape == (expected.num_rows, expected.num_columns)
    assert pl.read_parquet(path).columns == expected.column_names
    con = duckdb.connect()
    assert con.execute(f"select count(*) from read_parquet('{path}')").fetchone()[0] == expected.num_rows
    ds = datasets.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(seeds_dist.parent / "hf"))
    assert ds.num_rows == expected.num_rows and ds.column_names == expected.column_names
    assert ds.features[table == "papers" and "word_count" or "record_index"].dtype == "int64"


def test_progress_bar_only_on_a_terminal(raw_copy, tmp_path):
    import os
    import pty
    import sys

    quiet = run_process("build", "--raw", str(raw_copy), "--out", str(tmp_path / "a"), "--first-release")
    assert quiet.returncode == 0 and quiet.stderr == ""  # redirected: no bar
    out = tmp_path / "b"
    pid, fd = pty.fork()
    if pid == 0:  # child: the CLI on a terminal of 100 columns
        import fcntl
        import struct
        import termios

        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        os.execv(sys.executable, [sys.executable, str(ROOT / "build_dataset.py"), "build", "--raw", str(raw_copy), "--out", str(out),
                                   "--first-release"])
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0
    from neurips_abstracts.core.stages import STAGES

    assert "stage" in text and f"/{len(STAGES)}" in text  # the bar: "<stage name>: n/<stages> stage"


def test_same_bytes_for_any_listing_order_and_spool_chunking(tmp_path, monkeypatch):
    """Dumps listed in reverse, raw texts spooled in pieces of every size: the same release."""
    from neurips_abstracts.build import build
    from neurips_abstracts.build.occurrences import Spool
    from neurips_abstracts.ingest import load

    from tests.helpers import snapshot, synthetic_dumps

    raw = tmp_path / "raw"
    synthetic_dumps(raw)
    build(raw, tmp_path / "one", previous=None)
    alone = snapshot(tmp_path / "one")
    assert alone["build_manifest.json"]

    real_paths, real_append = load.dump_paths, Spool.append
    monkeypatch.setattr(load, "dump_paths", lambda folder: real_paths(folder)[::-1])

    def in_pieces(self, data, start, end):  # a dump's records spooled in batches of 1, 2, 3... rows
        k = step = 0
        while k < len(start):
            step += 1
            real_append(self, data, start[k : k + step], end[k : k + step])
            k += step

    monkeypatch.setattr(Spool, "append", in_pieces)
    build(raw, tmp_path / "two", previous=None)
    assert snapshot(tmp_path / "two") == alone


def test_cli_build_imports_only_what_it_uses(tmp_path):
    """pandas (which pyarrow would load to ask whether its input is a pandas object), pandera's
    pandas and hypothesis parts, the libraries and modules only other commands use (and the
    benchmarks, which make their own docs), huggingface_hub's Hub
    client (the card needs its DatasetCardData alone, see card.render_card) and tqdm when
    output is redirected (no bar to draw) stay out of a build's process, and so does pandera.polars
    (the contracts import their classes from pandera's own modules). The command imports
    its libraries with the garbage collector paused (see cli_release.build)."""
    from neurips_abstracts.core.schema import hidden

    unused = ("pandas", "hypothesis", "pandera.polars", "datasets", "frictionless", "mlcroissant", "huggingface_hub.hf_api",
              "huggingface_hub.repocard", "httpx2", "tqdm", "benchmarks",
              "neurips_abstracts.contribute.add", "neurips_abstracts.hub.plan", "neurips_abstracts.hub.protocol", "neurips_abstracts.hub.staging",
              "neurips_abstracts.ingest.validate", "neurips_abstracts.record.diff", "neurips_abstracts.record.verify")
    heavy = ("neurips_abstracts.build", "numpy", "pyarrow", "polars", "pandera", "jinja2")
    code = (
        "import gc, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'src')!r})\n"
        "from neurips_abstracts.cli import main\n"
        f"sys.argv = ['build_dataset.py', 'build', '--raw', {str(SEED_DIR)!r}, '--out', {str(tmp_path / 'd')!r}, '--first-release']\n"
        "collector_on = {}\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name in {heavy!r}:\n"
        "            collector_on[name] = gc.isenabled()\n"
        "sys.meta_path.insert(0, Watch())\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print(sorted(collector_on.items()))\n"
        f"print(sorted(m for m in {unused!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-2:] == [str([(name, False) for name in sorted(heavy)]), "[]"]
    assert (tmp_path / "d" / "build_manifest.json").is_file()

    import json as before  # a hidden module cannot be imported inside the block, and comes back after it

    with hidden(("json",)):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("json")
    assert sys.modules["json"] is before
