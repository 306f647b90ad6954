"""A release read by the standards' own tools: the datasets library loads every table with its
declared features, frictionless validates the data package and catches broken keys, mlcroissant
validates and loads the Croissant description."""

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neurips_abstracts.core.names import data_path
from neurips_abstracts.core.schema import TABLES, field_names, hf_features_dict
from neurips_abstracts.record.verify import verify

from tests.helpers import SEED_DIR, rewrite_table


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


def frictionless(path):
    return subprocess.run(
        [sys.executable, "-m", "frictionless", "validate", "--json", str(path)], capture_output=True, text=True
    )


@pytest.mark.slow
def test_frictionless_valid_and_catches_broken_keys(seeds_dist, dist_copy):
    ok = frictionless(seeds_dist / "datapackage.json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["valid"] is True

    def dup_pk(t):
        ids = t.column("paper_id").to_pylist()
        ids[1] = ids[0]
        return t.set_column(0, "paper_id", pa.array(ids))

    rewrite_table(dist_copy, "papers", dup_pk)
    bad = frictionless(dist_copy / "datapackage.json")
    assert bad.returncode != 0 and "primary-key" in bad.stdout


def test_frictionless_catches_broken_foreign_key(dist_copy):
    def orphan(t):
        ids = t.column("paper_id").to_pylist()
        ids[0] = "0123456789abcdef"
        return t.set_column(t.schema.get_field_index("paper_id"), "paper_id", pa.array(ids))

    rewrite_table(dist_copy, "occurrences", orphan)
    bad = frictionless(dist_copy / "datapackage.json")
    assert bad.returncode != 0 and "foreign-key" in bad.stdout


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("which", ["dist", "staged"])
def test_release_validates_with_the_real_tools(releases, which, tmp_path, monkeypatch):
    import datasets

    folder = releases[which]
    ok = frictionless(folder / "datapackage.json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["valid"] is True, ok.stdout[-2000:]
    cli = str(Path(sys.executable).with_name("mlcroissant"))
    proc = subprocess.run([cli, "validate", "--jsonld", str(folder / "croissant.json")], capture_output=True, text=True)
    assert proc.returncode == 0 and "Done" in proc.stderr, proc.stderr[-2000:]
    # No warning at all, a build between releases included: it carries a datePublished too
    # (test_date_published_comes_from_the_changelog)
    lines = proc.stderr.splitlines()
    warned = [line for line in lines if line.lstrip().startswith("-  [")]
    assert warned == [] and not any("warning" in line.lower() for line in lines), proc.stderr[-2000:]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    for config in TABLES:
        ds = datasets.load_dataset(str(folder), config, split="train", cache_dir=str(tmp_path / "cache"))
        assert ds.num_rows == pq.ParquetFile(folder / data_path(config)).metadata.num_rows
    assert verify(folder) == []


@pytest.mark.parametrize("dated", [True, False])
def test_date_published_comes_from_the_changelog(seeds_dist, tmp_path, monkeypatch, dated):
    """A version whose CHANGELOG entry is dated (released) carries that date as Croissant's
    datePublished; a build between releases (no dated entry yet) carries the day its newest dump
    was added, from the manifest, never the day it was built; mlcroissant has nothing to warn of."""
    from neurips_abstracts import build as build_module
    from neurips_abstracts.build import build
    from neurips_abstracts.build.stages import write as write_stage
    from neurips_abstracts.core import resources

    changelog = "# Changelog\n\n## 9.9.0" + (" (2027-01-31)" if dated else "") + "\n\n- Something.\n"
    real = resources.read_text
    monkeypatch.setattr(write_stage, "read_resource", lambda rel: changelog if rel == "CHANGELOG.md" else real(rel))
    from neurips_abstracts.release import manifest as manifest_module

    monkeypatch.setattr(build_module, "dataset_version", lambda: "9.9.0")
    monkeypatch.setattr(write_stage, "dataset_version", lambda: "9.9.0")
    monkeypatch.setattr(manifest_module, "dataset_version", lambda: "9.9.0")
    build(SEED_DIR, tmp_path / "dist", previous=None)
    croissant = json.loads((tmp_path / "dist" / "croissant.json").read_text())
    assert croissant["version"] == "9.9.0"
    added = max(f["added"] for f in json.loads((tmp_path / "dist" / "build_manifest.json").read_text())["inputs"])
    assert croissant["datePublished"] == ("2027-01-31" if dated else added)
    assert verify(tmp_path / "dist") == []
    import mlcroissant as mlc

    from neurips_abstracts.record.verify import croissant_problems

    issues = mlc.Dataset(jsonld=str(tmp_path / "dist" / "croissant.json")).metadata.ctx.issues
    assert not [w for w in issues.warnings if "datePublished" in w] and croissant_problems(tmp_path / "dist") == []
