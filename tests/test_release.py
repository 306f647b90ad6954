import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from neurips_abstracts.docs import refresh, stale
from neurips_abstracts.schema import TABLES, field_names, hf_features_dict
from neurips_abstracts.verify import verify
from neurips_abstracts.write import data_path

from .conftest import ROOT, run_cli, seed_counts


@pytest.fixture
def dist_copy(seeds_dist, tmp_path):
    copy = tmp_path / "dist"
    shutil.copytree(seeds_dist, copy)
    return copy


def test_load_dataset_offline_with_declared_features(seeds_dist, tmp_path, monkeypatch):
    import datasets

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    for config in TABLES:
        args = (str(seeds_dist),) if config == "papers" else (str(seeds_dist), config)
        ds = datasets.load_dataset(*args, split="train", cache_dir=str(tmp_path / "cache"))
        rows = pq.ParquetFile(seeds_dist / data_path(config)).metadata.num_rows
        assert ds.num_rows == rows
        assert {k: v.dtype for k, v in ds.features.items()} == {k: v["dtype"] for k, v in hf_features_dict(config).items()}
        assert ds.info.splits["train"].num_examples == rows


def test_card_parses_and_agrees_with_parquet(seeds_dist):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(seeds_dist / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "other" and data["pretty_name"]
    configs = {c["config_name"]: c for c in data["configs"]}
    assert set(configs) == set(TABLES) and configs["papers"].get("default") is True
    for info in data["dataset_info"]:
        table = pq.read_table(seeds_dist / configs[info["config_name"]]["data_files"][0]["path"])
        assert [f["name"] for f in info["features"]] == table.column_names == field_names(info["config_name"])
        split = info["splits"][0]
        assert split["num_examples"] == table.num_rows
        assert split["num_bytes"] == table.nbytes == info["dataset_size"]
        assert info["download_size"] == (seeds_dist / data_path(info["config_name"])).stat().st_size
    text = (seeds_dist / "README.md").read_text()
    version = json.loads((seeds_dist / "build_manifest.json").read_text())["dataset_version"]
    for doc in ("README.md", "DATASHEET.md", "datapackage.json", "croissant.json"):
        assert version in (seeds_dist / doc).read_text(), doc
    for section in ("## Load it", "## Columns", "## Build statistics", "## Deduplication", "## Provenance",
                    "## Terms of use", "## Citation", "## Changelog", "hf://datasets/"):
        assert section in text


def test_datasheet_has_the_seven_sections(seeds_dist):
    text = (seeds_dist / "DATASHEET.md").read_text()
    for section in ("Motivation", "Composition", "Collection process", "Preprocessing", "Uses", "Distribution", "Maintenance"):
        assert f"## {section}" in text


def frictionless(path):
    return subprocess.run(
        [sys.executable, "-m", "frictionless", "validate", "--json", str(path)], capture_output=True, text=True
    )


def _rewrite(dist, table, fn):
    path = dist / data_path(table)
    t = pq.read_table(path)
    pq.write_table(fn(t), path)


def test_frictionless_valid_and_catches_broken_keys(seeds_dist, dist_copy):
    ok = frictionless(seeds_dist / "datapackage.json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["valid"] is True

    def dup_pk(t):
        ids = t.column("paper_id").to_pylist()
        ids[1] = ids[0]
        return t.set_column(0, "paper_id", pa.array(ids))

    _rewrite(dist_copy, "papers", dup_pk)
    bad = frictionless(dist_copy / "datapackage.json")
    assert bad.returncode != 0 and "primary-key" in bad.stdout


def test_frictionless_catches_broken_foreign_key(dist_copy):
    def orphan(t):
        ids = t.column("paper_id").to_pylist()
        ids[0] = "0123456789abcdef"
        return t.set_column(t.schema.get_field_index("paper_id"), "paper_id", pa.array(ids))

    _rewrite(dist_copy, "occurrences", orphan)
    bad = frictionless(dist_copy / "datapackage.json")
    assert bad.returncode != 0 and "foreign-key" in bad.stdout


def test_croissant_validates_and_loads_both_record_sets(seeds_dist):
    cli = str(Path(sys.executable).with_name("mlcroissant"))
    proc = subprocess.run([cli, "validate", "--jsonld", str(seeds_dist / "croissant.json")], capture_output=True, text=True)
    assert proc.returncode == 0 and "Done" in proc.stderr, proc.stderr[-2000:]
    broken = json.loads((seeds_dist / "croissant.json").read_text())
    del broken["recordSet"][0]["field"][0]["dataType"]
    bad = seeds_dist.parent / "broken-croissant.json"
    bad.write_text(json.dumps(broken))
    assert subprocess.run([cli, "validate", "--jsonld", str(bad)], capture_output=True, text=True).returncode != 0
    import mlcroissant as mlc

    ds = mlc.Dataset(jsonld=str(seeds_dist / "croissant.json"))
    meta = json.loads((seeds_dist / "croissant.json").read_text())
    for key in ("rai:dataLimitations", "rai:dataBiases", "rai:personalSensitiveInformation", "rai:dataUseCases",
                "rai:dataSocialImpact", "rai:dataCollection", "rai:dataPreprocessingProtocol"):
        assert len(meta[key]) > 40
    for table in TABLES:
        records = list(ds.records(record_set=table))
        assert len(records) == pq.ParquetFile(seeds_dist / data_path(table)).metadata.num_rows
        assert set(records[0]) == {f"{table}/{name}" for name in field_names(table)}


def test_verify_passes_and_catches_tampering(seeds_dist, dist_copy):
    assert verify(seeds_dist) == []
    proc = run_cli("verify", str(seeds_dist))
    assert proc.returncode == 0, proc.stderr

    croissant = json.loads((dist_copy / "croissant.json").read_text())
    croissant["distribution"][0]["sha256"] = "0" * 64
    (dist_copy / "croissant.json").write_text(json.dumps(croissant))
    (dist_copy / "stray.txt").write_text("x")
    path = dist_copy / data_path("occurrences")
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    problems = verify(dist_copy)
    joined = "\n".join(problems)
    assert "croissant.json: sha256" in joined and "does not match SHA256SUMS" in joined
    assert "stray.txt: present but not listed" in joined and data_path("occurrences") in joined
    proc = run_cli("verify", str(dist_copy))
    assert proc.returncode == 1 and "does not verify" in proc.stderr


def test_check_flags_stale_docs(tmp_path, seeds_dist):
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(ROOT / "README.md", root / "README.md")
    shutil.copytree(ROOT / "benchmarks" / "results", root / "benchmarks" / "results")
    refresh(seeds_dist, root)  # what `build` does to the project's docs
    assert stale(seeds_dist, root) == []
    readme, n = (root / "README.md").read_text(), seed_counts()["papers"]
    (root / "README.md").write_text(readme.replace(f"**{n} papers**", f"**{n - 1} papers**"))
    (root / "DATASHEET.md").write_text("old")
    assert stale(seeds_dist, root) == ["DATASHEET.md", "README.md"]


def test_card_yaml_has_no_absolute_paths_or_times(seeds_dist):
    front = (seeds_dist / "README.md").read_text().split("---")[1]
    assert yaml.safe_load(front)["configs"][0]["data_files"][0]["path"].startswith("data/")
    for f in seeds_dist.rglob("*"):
        if f.is_file() and f.suffix in {".md", ".json", ""}:
            text = f.read_text()
            assert "/tmp" not in text and "/work" not in text and "/home" not in text, f
