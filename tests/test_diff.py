import json
import re
import subprocess

import pytest

from neurips_abstracts.build import build
from neurips_abstracts.diff import compare, load_side, to_markdown, word_excerpt, write_changelog
from neurips_abstracts.normalize import normalize

from .conftest import SEED_DIR, copy_seeds, make_dump, run_cli, synthetic_abstracts


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """A build of the seeds and a build with one more dump: 2 new papers, a revision, a copy."""
    tmp = tmp_path_factory.mktemp("diff")
    raw = copy_seeds(tmp / "raw")
    build(raw, tmp / "old")
    seeds = [normalize(t) for t in (SEED_DIR / "000_400c640f3220c26d.txt").read_text().split("\n\n")[1:]]
    revised_from, copied = seeds[0], seeds[1]
    sentences = re.split(r"(?<=\.) ", revised_from)
    sentences[2] = "In addition, we release a benchmark of eleven thousand annotated proposals."
    revised = " ".join(sentences)
    new = synthetic_abstracts(2)
    (raw / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(new + [revised, copied]))
    build(raw, tmp / "new")
    return tmp, revised_from, revised, copied, new


def test_diff_reports_each_change(builds):
    tmp, revised_from, revised, copied, new = builds
    d = compare(load_side(str(tmp / "old")), load_side(str(tmp / "new")))
    assert {x["abstract"][:40] for x in d["added"]} == {normalize(t)[:40] for t in new}
    assert d["removed"] == []
    assert len(d["changed"]) == 1
    assert "{+In addition, we release a benchmark" in d["changed"][0]["excerpt"]
    merged = {(m["relation"], m["source_file"]) for m in d["newly_merged"]}
    # the copy arrives as an exact duplicate; the old text of the revised paper stops being canonical
    assert ("exact_duplicate", "009_aaaaaaaaaaaaaaaa.txt") in merged
    assert ("near_duplicate", "000_400c640f3220c26d.txt") in merged
    assert len(d["newly_merged"]) == 2
    o, n = d["old"]["counts"], d["new"]["counts"]
    assert (n["papers"] - o["papers"], n["occurrences"] - o["occurrences"]) == (2, 4)
    assert (n["near_duplicate"] - o["near_duplicate"], n["exact_duplicate"] - o["exact_duplicate"]) == (1, 1)
    md = to_markdown(d)
    assert "### Papers added (new ids) (2)" in md and "### Papers changed (1)" in md
    assert f"| papers | {o['papers']} | {o['papers'] + 2} | +2 |" in md


def test_diff_cli_markdown_and_json(builds):
    tmp, *_ = builds
    proc = run_cli("diff", str(tmp / "old"), str(tmp / "new"), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["added"]) == 2, proc.stdout[:2000]
    md = run_cli("diff", str(tmp / "old"), str(tmp / "new"))
    assert md.stdout.startswith("## Dataset diff:"), (md.returncode, md.stdout[:500], md.stderr[-2000:])


def test_diff_reads_git_revisions(builds, tmp_path):
    tmp, *_ = builds
    repo = tmp_path / "repo"
    repo.mkdir()
    env = ["-c", "user.name=t", "-c", "user.email=t@x"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["cp", "-r", str(tmp / "old"), str(repo / "dist")], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", "old"], check=True)
    old = load_side("HEAD", repo=repo)
    assert old.tables["papers"].equals(load_side(str(tmp / "old")).tables["papers"])
    with pytest.raises(ValueError, match="neither a dist/ folder nor a git revision"):
        load_side("no-such-rev", repo=repo)


def test_word_excerpt():
    assert word_excerpt("a b c d", "a b X d") == "a b [-c-] {+X+} d"
    assert word_excerpt("a  b", "a b") == "(same words; spacing or case changed)"


def test_changelog_entry_written_once(builds, tmp_path):
    tmp, *_ = builds
    d = compare(load_side(str(tmp / "old")), load_side(str(tmp / "new")))
    d["new"]["version"] = "1.1.0"
    log = tmp_path / "CHANGELOG.md"
    log.write_text("# Changelog\n\n## 1.0.0\n\n- First release.\n")
    write_changelog(d, log, day="2026-12-01")
    text = log.read_text()
    assert text.index("## 1.1.0 (2026-12-01)\n") < text.index("## 1.0.0")
    n = d["old"]["counts"]["papers"]
    assert f"Papers: {n} → {n + 2} (2 added, 0 merged into older papers, 0 removed, 1 with a revised abstract)." in text
    with pytest.raises(ValueError, match="already has an entry"):
        write_changelog(d, log)

