"""validate's checks (ingest/validate.py): each fires on the fault it names and alone, its output
formats (GitHub annotations that a file name cannot forge), and the seeds and the real corpora
pass. What validate and the build say of bad dumps and bad raw folders is in test_bad_dumps.py
and test_bad_raw_folders.py."""

import json
import shutil

import pytest

from neurips_abstracts.core.config import BuildConfig
from neurips_abstracts.ingest.validate import validate

from tests.helpers import ABSTRACT, CORPORA, HEADER, SEED_DIR, require_shared, run_cli, seed_files


def dump(*records: str, header: str = HEADER) -> bytes:
    return (header + "\n\n" + "\n\n".join(records)).encode("utf-8")


# name -> (file name, bytes, expected code, severity, expected line or None)
CASES = {
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
    "labelled authors": ("010_000000000000000e.txt", dump(ABSTRACT, "Authors: Alice Smith, Bob Jones, Carol White"),
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


def test_copy_of_an_existing_dump_and_size_limit(tmp_path, monkeypatch):
    seed = seed_files()[0]
    copy = tmp_path / "010_00000000000000ff.txt"
    copy.write_bytes(seed.read_bytes())
    findings = validate([copy], raw_dir=SEED_DIR)
    assert [(f.code, f.severity) for f in findings] == [("copy", "error")] and seed.name in findings[0].message
    import neurips_abstracts.ingest.load as load

    monkeypatch.setattr(load, "MAX_DUMP_BYTES", 100)
    assert [f.code for f in validate([copy], raw_dir=tmp_path / "none")] == ["size"]


def test_html_entity_warning_is_what_the_build_renders(tmp_path):
    """validate warns about exactly the references the build renders as characters: the longest
    HTML5 name (31 characters) is one; a 32-character name is none (validate used to flag it,
    while the renderer kept it as text)."""
    from neurips_abstracts.text.plain import to_plain

    longest, too_long = "&CounterClockwiseContourIntegral;", "&" + "Abcdefgh" * 4 + ";"
    assert to_plain(f"x {longest} y") == "x \u2233 y" and to_plain(f"x {too_long} y") == f"x {too_long} y"
    found = {}
    for i, entity in enumerate((longest, too_long)):
        name = f"010_00000000000000e{i}.txt"
        (tmp_path / name).write_bytes(dump(ABSTRACT.replace(" and show", f" {entity} and show")))
        found[entity] = [f.message for f in validate([tmp_path / name], raw_dir=SEED_DIR)]
    assert found[longest] == [f"HTML entity {longest} (kept as is: replace it with the character it stands for)"]
    assert found[too_long] == []


@pytest.mark.slow
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


def _runner_parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command read as the Actions runner reads one (ActionCommand.TryParseV2)."""
    assert line.startswith("::")
    end = line.index("::", 2)
    command, _, props = line[2:end].partition(" ")
    unescape = {"%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ",", "%25": "%"}

    def undo(text, keys):
        for k in keys:
            text = text.replace(k, unescape[k])
        return text

    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = undo(value, ["%0D", "%0A", "%3A", "%2C", "%25"])
    return command, properties, undo(line[end + 2 :], ["%0D", "%0A", "%25"])


def test_github_annotations_cannot_be_forged_by_a_file_name():
    from neurips_abstracts.ingest.validate import Finding

    crafted = "raw/x,line=9,title=ok::notice::forged%0A\r\n::error file=y::more.txt"
    message = "100% sure,: a message\nwith ::two:: lines"
    f = Finding(crafted, 3, 7, "warning", "html-entity", message)
    line = f.github()
    assert "\n" not in line and "\r" not in line
    command, props, data = _runner_parse(line)
    assert command == "warning"
    assert props == {"file": crafted, "line": "3", "col": "7", "title": "html-entity"}
    assert data == message


def test_github_annotation_of_a_crafted_file_name_on_disk(tmp_path):
    name = "x,title=ok::notice::forged%25.md"
    try:
        (tmp_path / name).write_bytes(dump(ABSTRACT))
    except OSError:  # a file system that refuses ':' in names cannot carry the attack
        return
    proc = run_cli("validate", "--format", "github", str(tmp_path / name))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and len(lines) == 1
    command, props, data = _runner_parse(lines[0])
    assert (command, props["file"], props["title"]) == ("error", str(tmp_path / name), "not-a-dump")


def test_invisible_line_is_a_separator_and_a_warning(tmp_path):
    other = ABSTRACT.replace("sparse", "dense")
    path = tmp_path / "010_0000000000000001.txt"
    path.write_bytes(f"{HEADER}\n\n{ABSTRACT}\n\u200b\n{other}".encode())
    findings = validate([path], raw_dir=tmp_path / "none")
    assert [(f.code, f.line, f.severity) for f in findings] == [("invisible-line", 4, "warning")]
    assert "U+200B" in findings[0].message
    proc = run_cli("validate", str(path))
    assert proc.returncode == 0 and f"{path}:4: warning: line holding only invisible characters (U+200B)" in proc.stdout




def test_validate_measures_dumps_against_the_release_the_build_anchors_to(tmp_path, monkeypatch):
    """Issue 41 review: validate read the dist/ beside raw/ alone, the build the published record.
    With dist/ checked out from 1.0.0 after 1.1.0 was tagged, a metadata file contradicting the
    facts 1.1.0 published passed validate (0 errors), while the build, anchored to 1.1.0 read from
    git, refused it. validate now measures dumps against the release the build anchors to, and
    says what the build says."""
    from tests.record.test_record import SECOND, git, make_history, one_line_refusal

    history = make_history(tmp_path, monkeypatch, withdraw=False)  # SECOND first published in 1.1.0
    git(history, "checkout", "v1.0.0", "--", "dist")
    meta = history / "raw" / f"{SECOND}.json"
    facts = json.loads(meta.read_text())
    facts["crawled_at"] = "2026-11-01"
    meta.write_text(json.dumps(facts, indent=2) + "\n")
    refusal = one_line_refusal(history, "build")
    said = "crawled_at 2026-11-01 (published: null): release 1.1.0, the one this build keeps, published these bytes"
    assert f"{SECOND}.json" in refusal and said in refusal, refusal
    proc = run_cli("validate", cwd=history)
    errors = [line for line in proc.stdout.splitlines() if ": error: " in line]
    assert proc.returncode == 1 and len(errors) == 1, proc.stdout + proc.stderr
    assert errors[0].startswith(f"raw/{SECOND}.json: error: ") and said in errors[0] and errors[0].endswith("[edited]")
    # where the build refuses the release itself (none, though the project has published), so does validate
    shutil.rmtree(history / "dist")
    refusal = one_line_refusal(history, "build")
    proc = run_cli("validate", "--format", "json", cwd=history)
    found = json.loads(proc.stdout)
    assert proc.returncode == 1 and found["errors"] == 1, proc.stdout
    error = next(f for f in found["findings"] if f["severity"] == "error")
    assert error["code"] == "no-previous" and refusal.endswith(f"{error['file']}: error: {error['message']}"), (refusal, error)
