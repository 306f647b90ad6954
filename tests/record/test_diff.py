import json
import re
import shutil
import subprocess
import sys

import pytest

from neurips_abstracts.build import build
from neurips_abstracts.core.errors import DumpError
from neurips_abstracts.record.diff import (
    compare,
    load_side,
    to_markdown,
    word_excerpt,
    write_changelog,
)
from neurips_abstracts.record.git import release_commit
from neurips_abstracts.text.normalize import normalize

from tests.helpers import SEED_DIR, copy_seeds, make_dump, run_cli, run_process, synthetic_abstracts


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


def _commit_dist(repo, source, version, changelog, message):
    """Commit ``source`` as ``repo``'s dist/, its manifest at ``version``, its changelog
    ``changelog``: an intact release of that version (diff reads each side as a build reads the
    release it keeps), as from before the ids table, whose counts do not depend on the version."""
    import shutil

    from neurips_abstracts.core.names import SUMS
    from neurips_abstracts.release.contents import sha256sums

    env = ["-c", "user.name=t", "-c", "user.email=t@x"]
    shutil.rmtree(repo / "dist", ignore_errors=True)
    shutil.copytree(source, repo / "dist")
    if (repo / "dist" / "data" / "ids").is_dir():
        _as_release_before_the_ids_table(repo / "dist")
    manifest = json.loads((repo / "dist" / "build_manifest.json").read_text())
    manifest["dataset_version"] = version
    (repo / "dist" / "build_manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    (repo / "dist" / "CHANGELOG.md").write_text(changelog)
    (repo / "dist" / SUMS).write_text(sha256sums(repo / "dist"))
    subprocess.run(["git", "-C", str(repo), *env, "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", message], check=True)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def test_versions_resolve_from_history_without_tags(builds, tmp_path):
    """The version in pyproject.toml names the next release, so a version is held by commits
    before its release (no dated entry yet) and after it only until the bump: the release is the
    first commit holding it with its dated changelog entry; older releases without dated entries
    fall back to the first commit holding them with an entry, then to the first holding them."""
    tmp, *_ = builds
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    first = _commit_dist(repo, tmp / "old", "0.9.0", "# Changelog\n", "work towards 0.9.0")
    entry = _commit_dist(repo, tmp / "old", "0.9.0", "# Changelog\n\n## 0.9.0\n", "0.9.0, undated entry")
    _commit_dist(repo, tmp / "old", "1.0.0", "# Changelog\n\n## 0.9.0\n", "bump to 1.0.0")
    released = _commit_dist(repo, tmp / "new", "1.0.0", "# Changelog\n\n## 1.0.0 (2026-12-01)\n\n## 0.9.0\n", "release 1.0.0")
    _commit_dist(repo, tmp / "new", "1.1.0", "# Changelog\n\n## 1.0.0 (2026-12-01)\n\n## 0.9.0\n", "bump to 1.1.0")
    assert subprocess.run(["git", "-C", str(repo), "tag"], capture_output=True, text=True).stdout == ""
    assert release_commit("1.0.0", repo) == released
    assert release_commit("0.9.0", repo) == entry != first
    for spec in ("1.0.0", "v1.0.0"):
        side = load_side(spec, repo=repo)
        assert side.version == "1.0.0" and side.label == f"{spec} ({released[:12]})"
        assert side.tables["papers"].equals(load_side(str(tmp / "new")).tables["papers"])
    assert load_side("0.9.0", repo=repo).tables["papers"].equals(load_side(str(tmp / "old")).tables["papers"])
    with pytest.raises(ValueError, match="no commit of the git history .* at version 2.0.0"):
        load_side("v2.0.0", repo=repo)
    # a version with no entry at all: the first commit holding it
    _commit_dist(repo, tmp / "new", "1.2.0", "# Changelog\n", "work towards 1.2.0")
    _commit_dist(repo, tmp / "old", "1.2.0", "# Changelog\n", "more work towards 1.2.0")
    assert load_side("1.2.0", repo=repo).tables["papers"].equals(load_side(str(tmp / "new")).tables["papers"])


def test_diff_cli_names_a_version_no_commit_held(tmp_path, package_record):
    proc = run_cli("diff", "v999.0.0", "dist", cwd=tmp_path)
    assert proc.returncode == 1 and "v999.0.0: error: no commit of the git history" in proc.stderr and "Traceback" not in proc.stderr
    help_text = run_cli("diff", "--help").stdout
    assert "python build_dataset.py diff 1.0.0 dist" in help_text and "no tag" in help_text


def test_word_excerpt():
    assert word_excerpt("a b c d", "a b X d") == "a b [-c-] {+X+} d"
    assert word_excerpt("a  b", "a b") == "(same words; spacing or case changed)"


def test_word_excerpt_never_shows_a_deleted_word_as_context():
    """Issue 34: the context after a change came from the old text, so a word deleted by a later
    change read as part of the new abstract. Every word outside the markers is now in both texts,
    and the second change is marked where it is."""
    old = "we train the model on old data and report the accuracy of the model on many benchmarks today"
    new = "we train the model on new data and report the loss of the model on many benchmarks today"
    excerpt = word_excerpt(old, new)
    assert excerpt == ("we train the model on [-old-] {+new+} data and report the [-accuracy-] {+loss+} "
                       "of the model on many benchmarks today")
    context = re.sub(r"\[-.*?-\]|\{\+.*?\+\}", " ", excerpt).split()
    assert all(w in new.split() and w in old.split() for w in context)
    far = " ".join(f"w{i}" for i in range(40))
    excerpt = word_excerpt(far, far.replace("w3 ", "x ").replace("w30 ", "y ").replace("w35 ", "z "))
    assert excerpt == "w0 w1 w2 [-w3-] {+x+} w4 w5 w6 w7 w8 w9 w10 w11 … (+2 more changes)"


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
    with pytest.raises(DumpError, match="already has an entry"):
        write_changelog(d, log)



def test_a_version_outside_a_git_clone_says_it_needs_one(tmp_path):
    """An installed package run outside a clone: the version cannot be looked up, and says why."""
    from neurips_abstracts.core.errors import DumpError
    from neurips_abstracts.record.diff import load_side

    with pytest.raises(DumpError, match="not a git clone of the project.*run this in a clone, or give a release folder"):
        load_side("1.0.0", repo=tmp_path)


def _side(relations: dict[str, str]):
    """A release of one paper whose records (occurrence id -> relation) are as given."""
    import pyarrow as pa

    from neurips_abstracts.record.diff import Side

    papers = pa.table({"paper_id": ["p"], "abstract": ["a"], "abstract_sha256": ["h"], "abstract_plain": ["a"]})
    occ = pa.table({"occurrence_id": list(relations), "paper_id": ["p"] * len(relations),
                    "relation": list(relations.values()), "similarity": [1.0] * len(relations),
                    "source_file": ["000_0000000000000000.txt"] * len(relations), "line_start": list(range(len(relations)))})
    ids = pa.table({"id": ["p"], "paper_id": ["p"], "status": ["current"]})
    return Side("x", {"papers": papers, "occurrences": occ, "ids": ids}, "1.0.0")


def test_diff_names_duplicates_that_changed_kind_both_ways():
    """Issue 34: one exact duplicate became near while a near one became exact; the counts stay
    the same, and the summary and the changelog entry say what moved."""
    old = _side({"o1": "canonical", "o2": "exact_duplicate", "o3": "near_duplicate"})
    new = _side({"o1": "canonical", "o2": "near_duplicate", "o3": "exact_duplicate"})
    d = compare(old, new)
    assert d["old"]["counts"] == d["new"]["counts"]
    assert d["relation_moves"] == {"exact_duplicate → near_duplicate": 1, "near_duplicate → exact_duplicate": 1}
    line = "Duplicates whose relation changed: exact duplicate → near duplicate: 1; near duplicate → exact duplicate: 1."
    assert line in to_markdown(d)
    from neurips_abstracts.record.diff import changelog_entry

    assert f"- {line}" in changelog_entry(d, "2026-12-01")
    assert "relation changed" not in to_markdown(compare(old, old))


def test_diff_reads_parquet_without_leaving_python_memory_to_arrow(releases, tmp_path):
    """The cause of an abort at interpreter exit (about one `diff` run in fifteen): pq.read_table
    over Python memory (BytesIO, bytes) let an Arrow worker thread drop the last reference to
    that memory after the call returned, taking the GIL while the interpreter was finalizing.
    ``_read_parquet`` copies the bytes into Arrow's own memory and reads them synchronously, so
    when it returns nothing of Arrow's refers to the Python object: there is nothing left for a
    thread to release, however the exit is timed."""
    import pyarrow as pa

    from neurips_abstracts.build import build
    from neurips_abstracts.core.names import data_path
    from neurips_abstracts.record.diff import _read_parquet

    data = (releases["dist"] / data_path("occurrences")).read_bytes()
    before = sys.getrefcount(data)
    held = pa.py_buffer(data)  # the count sees a reference Arrow keeps
    assert sys.getrefcount(data) == before + 1
    del held
    table = _read_parquet(data)
    assert sys.getrefcount(data) == before and table.num_rows
    # and diff, run as a user runs it, exits cleanly with the right answer
    raw = tmp_path / "raw"
    shutil.copytree(releases["raw"], raw)
    (raw / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["A new abstract on sparse attention for long genomes."]))
    build(raw, tmp_path / "new")
    run = run_process("diff", str(releases["dist"]), str(tmp_path / "new"), "--format", "json")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["added"]) == 1


def _damage(dist, how):
    """``dist`` damaged as a build, check and ``add --dry-run`` refuse it: the ids table deleted
    (its line in SHA256SUMS kept, or removed with it), or a manifest count that disagrees with the
    tables (SHA256SUMS rewritten to match). Returns the file the refusal names and what it says."""
    from neurips_abstracts.core.names import MANIFEST, SUMS, data_path
    from neurips_abstracts.release.contents import sha256sums

    if how.startswith("ids deleted"):
        shutil.rmtree(dist / "data" / "ids")
        if how == "ids deleted":
            return data_path("ids"), f"missing (listed in {SUMS})"
        sums = dist / SUMS
        sums.write_text("".join(line + "\n" for line in sums.read_text().splitlines() if "data/ids/" not in line))
        return data_path("ids"), f"missing, but {MANIFEST} lists the release's ids: the release is damaged"
    manifest = json.loads((dist / MANIFEST).read_text())
    manifest["counts"]["papers"] -= 1
    (dist / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    (dist / SUMS).write_text(sha256sums(dist))
    return MANIFEST, f"counts.papers is {manifest['counts']['papers']}, but the papers table holds"


@pytest.mark.parametrize("side", ["old", "new"])
@pytest.mark.parametrize("how", ["ids deleted", "ids deleted with its sums line", "counts disagree"])
def test_diff_refuses_a_damaged_release_and_writes_no_changelog(builds, tmp_path, monkeypatch, how, side):
    """Issue 41 review: with its ids table deleted, a release read as one from before the ids
    table and diffed, exit 0, and `--write-changelog` wrote an entry from it; its SHA256SUMS and
    manifest were never asked. Each side is now read with the build's own integrity checks."""
    from neurips_abstracts.core import resources

    tmp, *_ = builds
    folders = {"old": tmp_path / "old", "new": tmp_path / "new"}
    for name, folder in folders.items():
        shutil.copytree(tmp / name, folder)
    named, said = _damage(folders[side], how)
    checkout = tmp_path / "checkout"  # --write-changelog edits the checkout's CHANGELOG.md: this one
    checkout.mkdir()
    (checkout / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0 (2026-11-29)\n\n- First release.\n")
    before = (checkout / "CHANGELOG.md").read_bytes()
    monkeypatch.setattr(resources, "checkout", lambda: checkout)
    for extra in ([], ["--write-changelog"]):
        proc = run_cli("diff", str(folders["old"]), str(folders["new"]), *extra, cwd=tmp_path)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1, (proc.returncode, proc.stdout[:300], proc.stderr)
        assert lines[0].startswith(f"{folders[side]}/{named}: error: {said}"), lines[0]
        assert "build with --previous" not in lines[0], lines[0]  # diff's way out, not the build's
        assert proc.stdout == ""
    assert (checkout / "CHANGELOG.md").read_bytes() == before


def _as_release_before_the_ids_table(dist):
    """``dist`` rewritten as the releases from before the ids table were (1.0.0): no ids table,
    no registry of dumps, a manifest that lists no ids and counts none, its SHA256SUMS as it
    listed them. Not damaged: its manifest says what it holds."""
    from neurips_abstracts.core.names import MANIFEST, SUMS
    from neurips_abstracts.release.contents import sha256sums

    shutil.rmtree(dist / "data" / "ids")
    manifest = json.loads((dist / MANIFEST).read_text())
    for key in ("ids", "published_dumps", "unicode_version"):
        manifest.pop(key, None)
    manifest["counts"].pop("ids")
    for item in manifest["inputs"]:
        for key in ("added", "crawled_at", "source_url"):
            item.pop(key, None)
    (dist / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    (dist / SUMS).write_text(sha256sums(dist))


def test_diff_reads_a_release_from_before_the_ids_table_from_git(builds, tmp_path):
    """1.0.0, committed before the ids table existed, still diffs: an older format its manifest
    declares is read (every paper its own id), a damaged release is not."""
    tmp, *_ = builds
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    old = tmp_path / "old"
    shutil.copytree(tmp / "old", old)
    _as_release_before_the_ids_table(old)
    released = _commit_dist(repo, old, "1.0.0", "# Changelog\n\n## 1.0.0 (2026-11-29)\n", "release 1.0.0")
    proc = run_cli("diff", "1.0.0", str(tmp / "new"), "--format", "json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["old"]["version"] == "1.0.0" and d["old"]["label"] == f"1.0.0 ({released[:12]})"
    assert len(d["added"]) == 2 and d["removed"] == [] and d["merged"] == []


def test_diff_names_a_version_by_the_release_at_hand_outside_a_clone(ws, monkeypatch):
    """Issue 41 review: in an unpacked sdist (no git), `build --previous 1.2.0 --out built` read
    ./dist, but `diff 1.2.0 built` said no release folder here is version 1.2.0 and asked the Hub.
    diff now names a version as build does: the release folders at hand, here ./dist (the one
    beside ./raw), and from elsewhere the dist/ beside a side given as a folder."""
    from neurips_abstracts.core.resources import dataset_version
    from neurips_abstracts.record import published

    def no_hub(tag, into):
        raise AssertionError(f"the Hub was asked for {tag}, though a release folder at hand is that version")

    monkeypatch.setattr(published, "_from_hub", no_hub)
    version = dataset_version()
    assert json.loads((ws / "dist" / "build_manifest.json").read_text())["dataset_version"] == version
    (ws / "raw" / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["A new abstract on sparse attention for long genomes."]))
    r = run_cli("build", "--previous", version, "--out", "built", cwd=ws)
    assert r.returncode == 0, r.stderr
    for spec in (version, f"v{version}"):
        proc = run_cli("diff", spec, "built", "--format", "json", cwd=ws)
        assert proc.returncode == 0, proc.stderr
        assert len(json.loads(proc.stdout)["added"]) == 1
    elsewhere = ws / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli("diff", version, str(ws / "built"), "--format", "json", cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["added"]) == 1
