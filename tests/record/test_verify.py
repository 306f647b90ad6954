"""`verify`: a release passes, and tampering, a truncated table or what the standards' validators
find is reported, naming the file."""

import json

import pyarrow as pa

from neurips_abstracts.core.names import data_path
from neurips_abstracts.record.verify import verify

from tests.helpers import rewrite_table, run_cli


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
    papers = dist_copy / data_path("papers")
    papers.write_bytes(papers.read_bytes()[:100])  # truncated: no Parquet footer
    assert f"{data_path('papers')}: unreadable Parquet" in "\n".join(verify(dist_copy))


def test_verify_runs_the_standards_validators(seeds_dist, dist_copy):
    from neurips_abstracts.record.verify import croissant_problems, frictionless_problems

    assert frictionless_problems(seeds_dist) == [] and croissant_problems(seeds_dist) == []

    def dup_pk(t):
        ids = t.column("paper_id").to_pylist()
        ids[1] = ids[0]
        return t.set_column(0, "paper_id", pa.array(ids))

    rewrite_table(dist_copy, "papers", dup_pk)
    found = frictionless_problems(dist_copy)
    assert found and all(p.startswith("datapackage.json: frictionless: ") for p in found)
    assert any("primary key" in p.lower() for p in found), found
    broken = json.loads((dist_copy / "croissant.json").read_text())
    del broken["recordSet"][0]["field"][0]["dataType"]
    (dist_copy / "croissant.json").write_text(json.dumps(broken))
    found = croissant_problems(dist_copy)
    assert found and all(p.startswith("croissant.json: mlcroissant: ") for p in found)
