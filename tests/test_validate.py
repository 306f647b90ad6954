import json

import pytest

from neurips_abstracts.config import BuildConfig
from neurips_abstracts.validate import validate

from .conftest import CORPORA, HEADER, SEED_DIR, require_shared, run_cli, seed_files

ABSTRACT = (
    "We study the sample complexity of learning sparse linear models under heavy-tailed noise and show "
    "that a simple median-of-means estimator attains the minimax rate up to logarithmic factors, which "
    "we confirm in experiments on synthetic and real data."
)


def dump(*records: str, header: str = HEADER) -> bytes:
    return (header + "\n\n" + "\n\n".join(records)).encode("utf-8")


# name -> (file name, bytes, expected code, severity, expected line or None)
CASES = {
    "file-name": ("new-dump.txt", dump(ABSTRACT), "file-name", "error", None),
    "encoding": ("010_0000000000000001.txt", dump(ABSTRACT) + b"\n\nBad \xe9 byte", "parse", "error", 5),
    "header": ("010_0000000000000002.txt", dump(ABSTRACT, header="ICML 2026 论文列表"), "parse", "error", 1),
    "no-header": ("010_0000000000000003.txt", ABSTRACT.encode(), "parse", "error", 1),
    "binary": ("010_0000000000000004.txt", dump(ABSTRACT) + b"\x00\x01", "parse", "error", 3),
    "empty-record": ("010_0000000000000005.txt", dump(ABSTRACT, "\x07\x08"), "empty-record", "error", 5),
    "control": ("010_0000000000000006.txt", dump(ABSTRACT.replace("simple", "sim\x08ple")), "control-character", "warning", 3),
    "entity": ("010_0000000000000007.txt", dump(ABSTRACT.replace(" and show", " &mdash; and show")), "html-entity", "warning", 3),
    "truncated": ("010_0000000000000008.txt", dump(ABSTRACT.rsplit(" ", 9)[0] + " of the"), "truncated", "warning", 3),
    "too-short": ("010_0000000000000009.txt", dump(ABSTRACT, "We study learning."), "too-short", "warning", 5),
    "title": ("010_000000000000000a.txt", dump("Median-of-Means Estimators for Sparse Heavy-Tailed Regression", ABSTRACT),
              "title", "warning", 3),
    "authors": ("010_000000000000000b.txt", dump(ABSTRACT, "Ada Lovelace, Alan Turing, Grace Hopper and John von Neumann"),
                "author-list", "warning", 5),
    "furniture": ("010_000000000000000c.txt", dump(ABSTRACT, "Download PDF"), "page-furniture", "warning", 5),
    "duplicate": ("010_000000000000000d.txt", dump(ABSTRACT, ABSTRACT.replace("  ", " ") + " "), "duplicate-record", "warning", 5),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_check_fires_where_it_should(tmp_path, case):
    name, data, code, severity, line = CASES[case]
    (tmp_path / name).write_bytes(data)
    findings = validate([tmp_path / name], raw_dir=SEED_DIR)
    hits = [f for f in findings if f.code == code]
    assert hits and hits[0].severity == severity, findings
    assert hits[0].line == line
    assert not [f for f in findings if f.code != code], findings  # nothing else fires on the same dump


def test_encoding_error_names_line_and_column(tmp_path):
    path = tmp_path / "010_0000000000000001.txt"
    path.write_bytes(dump(ABSTRACT) + b"\n\nBad \xe9 byte")
    proc = run_cli("validate", str(path))
    assert proc.returncode == 1
    assert f"{path}:5:5: error: invalid UTF-8" in proc.stdout


def test_copy_of_an_existing_dump_and_size_limit(tmp_path, monkeypatch):
    seed = seed_files()[0]
    copy = tmp_path / "010_00000000000000ff.txt"
    copy.write_bytes(seed.read_bytes())
    findings = validate([copy], raw_dir=SEED_DIR)
    assert [(f.code, f.severity) for f in findings] == [("copy", "error")] and seed.name in findings[0].message
    import neurips_abstracts.validate as v

    monkeypatch.setattr(v, "MAX_DUMP_BYTES", 100)
    assert [f.code for f in validate([copy], raw_dir=tmp_path / "none")] == ["size"]


def test_output_formats(tmp_path):
    name, data, *_ = CASES["entity"]
    (tmp_path / name).write_bytes(data)
    text = run_cli("validate", str(tmp_path / name))
    assert text.returncode == 0 and ": warning: HTML entity &mdash;" in text.stdout
    js = run_cli("validate", "--format", "json", str(tmp_path / name))
    parsed = json.loads(js.stdout)
    assert parsed["errors"] == 0 and parsed["warnings"] == 1 and parsed["findings"][0]["code"] == "html-entity"
    gh = run_cli("validate", str(tmp_path / name), env={"GITHUB_ACTIONS": "true"})
    assert gh.stdout.startswith(f"::warning file={tmp_path / name},line=3,col=") and "title=html-entity::" in gh.stdout


def test_seed_dumps_are_clean():
    proc = run_cli("validate", "--raw", str(SEED_DIR))
    assert proc.returncode == 0 and proc.stdout == ""
    assert "0 errors, 0 warnings" in proc.stderr


@pytest.mark.corpus
@pytest.mark.parametrize("year", [2018, 2023])
def test_real_corpora_pass_and_every_warning_is_a_real_problem(year):
    require_shared()
    findings = validate([CORPORA / f"neurips{year}" / "dumps"], BuildConfig(year=year), raw_dir=SEED_DIR)
    assert not [f for f in findings if f.severity == "error"]
    # Each warning was read against the record it names: these are all real problems.
    allowed = {"truncated", "too-short", "duplicate-record", "html-entity", "control-character"}
    assert {f.code for f in findings} <= allowed
    texts = {f.message for f in findings}
    if year == 2023:
        assert sorted(f.code for f in findings) == ["control-character", "html-entity", "html-entity"]
    else:
        assert any("Part of" in m for m in texts) or any(f.code == "too-short" for f in findings)
        assert len(findings) <= 20
