"""What a first-time user runs into (issue 34): a dump saved with blank lines before its header,
a mistyped --crawled-at, a command run where there is no raw/ folder, the corpus suite run
without ../shared."""

import pytest

from neurips_abstracts.ingest.parse import parse_records

from tests.helpers import HEADER, make_dump, run_cli, shared_missing, synthetic_abstracts


def test_blank_lines_before_the_header_are_skipped():
    """A copy that began a line early still reads: the same records, their lines and byte spans
    counted from the file's start."""
    plain = make_dump(synthetic_abstracts(3))
    for lead in (b"\n", b"\r\n  \n\t\n"):
        dump, records = parse_records("x.txt", lead + plain, "NeurIPS", 2026)
        _, expected = parse_records("x.txt", plain, "NeurIPS", 2026)
        assert records.text == expected.text
        assert records.line_start == [n + lead.count(b"\n") for n in expected.line_start]
        assert records.byte_start == [n + len(lead) for n in expected.byte_start]
        assert all((lead + plain)[a:b] == plain[a - len(lead):b - len(lead)]
                   for a, b in zip(records.byte_start, records.byte_end))
    with pytest.raises(ValueError, match=r"^x.txt:3: error: not the header: line 3 should be"):
        parse_records("x.txt", b"\n\nNot a header\n\n" + plain, "NeurIPS", 2026)


def test_validate_and_add_accept_a_blank_line_before_the_header(tmp_path):
    (tmp_path / "raw").mkdir()
    path = tmp_path / "dump.txt"
    path.write_bytes(b"\n" + make_dump(synthetic_abstracts(2)))
    proc = run_cli("validate", str(path), cwd=tmp_path)
    assert proc.returncode == 0 and "0 errors" in proc.stderr, proc.stdout + proc.stderr
    assert run_cli("add", str(path), "--dry-run", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("value, says", [
    ("2026-13-01", "--crawled-at is not a real date: '2026-13-01'"),
    ("30/11/2026", "--crawled-at must be a date written YYYY-MM-DD, got '30/11/2026'"),
    ("2999-01-01", "--crawled-at 2999-01-01 is after the date it is added"),
])
def test_crawled_at_errors_name_the_dump_as_every_error_does(tmp_path, value, says):
    (tmp_path / "raw").mkdir()
    (tmp_path / "dump.txt").write_bytes(make_dump(synthetic_abstracts(2)))
    proc = run_cli("add", "dump.txt", "--crawled-at", value, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"dump.txt: error: not added: {says}"), proc.stderr
    assert list((tmp_path / "raw").iterdir()) == []


def test_source_url_error_names_the_dump(tmp_path):
    (tmp_path / "raw").mkdir()
    (tmp_path / "dump.txt").write_bytes(make_dump(synthetic_abstracts(2)))
    proc = run_cli("add", "dump.txt", "--source-url", "example.org", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("dump.txt: error: not added: --source-url"), proc.stderr


@pytest.mark.parametrize("command", [["build"], ["validate"], ["add", "dump.txt"]])
def test_a_folder_without_raw_says_where_the_dumps_live(tmp_path, command):
    (tmp_path / "dump.txt").write_text(f"{HEADER}\n\nan abstract\n", encoding="utf-8")
    proc = run_cli(*command, cwd=tmp_path)
    assert proc.returncode == 1
    line = next(line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("raw: error:"))
    assert "no such folder" in line and "holding raw/ and dist/" in line and "--raw" in line, line
    assert "Traceback" not in proc.stderr and not (tmp_path / "dist").exists()


def test_the_corpus_suite_names_what_is_missing_and_where_it_comes_from(tmp_path):
    message = shared_missing(tmp_path / "shared")
    for year in (2018, 2023):
        assert f"{(tmp_path / 'shared').as_posix()}/corpora/neurips{year}/papers.jsonl.zst" in message
    assert "kept out of the repository" in message and "beside the clone" in message
    (tmp_path / "shared" / "corpora" / "neurips2018").mkdir(parents=True)
    (tmp_path / "shared" / "corpora" / "neurips2018" / "papers.jsonl.zst").write_bytes(b"")
    assert "neurips2018/papers" not in shared_missing(tmp_path / "shared")


def test_publish_dry_run_refuses_a_release_the_changelog_does_not_date(tmp_path):
    """The release steps write the version's dated CHANGELOG entry before publishing; a dry run
    of a build without it refuses, naming the command that writes it (tests/hub/test_publish.py
    publishes once it is there)."""
    import json

    from neurips_abstracts.release.contents import missing_entry

    from tests.helpers import make_project

    root = make_project(tmp_path)
    version = json.loads((root / "dist" / "build_manifest.json").read_text())["dataset_version"]
    changelog = (root / "dist" / "CHANGELOG.md").read_text(encoding="utf-8")
    proc = run_cli("publish", "--dry-run", cwd=root)
    refusals = [line for line in proc.stderr.splitlines() if "CHANGELOG.md" in line]
    if missing_entry(changelog, version) is None:  # the checkout's CHANGELOG is at a release
        assert refusals == [], proc.stderr
        changelog = changelog.replace(f"## {version} (", f"## {version}-unreleased (")
    else:
        assert proc.returncode == 1 and refusals == [f"would refuse: {missing_entry(changelog, version)}"], proc.stderr
        assert f"CHANGELOG.md has no dated entry for {version}" in refusals[0] and "--write-changelog" in refusals[0]
    assert missing_entry(changelog, version).startswith(f"CHANGELOG.md has no dated entry for {version}")
    assert missing_entry(f"# Changelog\n\n## {version} (2026-12-01)\n", version) is None
