"""A build keeps every published id however dist/ goes missing or is damaged: it refuses in one
line naming the ways out, or reads the published release from git history (--previous)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neurips_abstracts.core.names import MANIFEST, SUMS, data_path
from neurips_abstracts.core.resources import dataset_version

from tests.helpers import copy_seeds, run_cli, snapshot

IDS, OCC = data_path("ids"), data_path("occurrences")
VERSION = dataset_version()  # what the project's builds are: the version the fixture dates


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


@pytest.fixture
def project(tmp_path) -> Path:
    """A project that has published: raw/, its dist/ built, a dated CHANGELOG entry, all committed."""
    root = tmp_path / "project"
    copy_seeds(root / "raw")
    assert run_cli("build", "--first-release", cwd=root).returncode == 0
    (root / "CHANGELOG.md").write_text(f"# Changelog\n\n## {VERSION} (2026-11-29)\n\n- First release.\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "release")
    return root


def ids_of(dist: Path) -> list[dict]:
    return pq.read_table(dist / IDS).to_pylist()


def reseal(dist: Path) -> None:
    """SHA256SUMS rewritten to match what the folder holds now: a damage SHA256SUMS cannot see."""
    from neurips_abstracts.release.contents import sha256sums

    (dist / SUMS).write_text(sha256sums(dist))


def refused(root: Path, *args: str, names: str) -> str:
    before = snapshot(root)
    r = run_cli(*args, cwd=root)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert "internal error" not in r.stderr and names in lines[0], r.stderr
    assert snapshot(root) == before  # nothing written
    return lines[0]


def test_a_deleted_dist_is_refused_with_the_ways_out(project):
    shutil.rmtree(project / "dist")
    line = refused(project, "build", names="dist")
    for way in ("git checkout -- dist", "--previous", "--first-release", f"CHANGELOG.md dates version {VERSION}"):
        assert way in line
    assert refused(project, "check", names="dist") == line  # check names the same ways out, not "build it first"


@pytest.mark.parametrize("gone", [IDS, OCC, MANIFEST])
def test_a_table_deleted_from_dist_is_refused_naming_it(project, gone):
    (project / "dist" / gone).unlink()
    refused(project, "build", names="dist" if gone != IDS else IDS)


def test_a_git_history_alone_is_evidence_of_a_release(project):
    (project / "CHANGELOG.md").unlink()
    git(project, "commit", "-qam", "no CHANGELOG.md: the record reads what is committed")
    shutil.rmtree(project / "dist")
    assert "holds dist/build_manifest.json" in refused(project, "build", names="dist")


def test_first_release_starts_over_on_purpose(project):
    published = {r["id"] for r in ids_of(project / "dist")}
    shutil.rmtree(project / "dist")
    assert run_cli("build", "--first-release", cwd=project).returncode == 0
    assert {r["id"] for r in ids_of(project / "dist")} == published  # the same raw/ founds the same ids


def bumped(monkeypatch, version: str = "9.0.0") -> None:
    """The version in pyproject.toml bumped past the published one (for builds run in this process)."""
    from neurips_abstracts import build as build_module
    from neurips_abstracts.release import manifest as manifest_module

    for module in (build_module, manifest_module):
        monkeypatch.setattr(module, "dataset_version", lambda: version)


@pytest.mark.parametrize("spec", [VERSION, f"v{VERSION}", "HEAD"])
def test_previous_from_git_history_keeps_every_published_id(project, spec, monkeypatch):
    """A clone without dist/ (or an unpacked sdist beside a clone) builds with every id."""
    published = ids_of(project / "dist")
    shutil.rmtree(project / "dist")
    (project / "raw" / "000_400c640f3220c26d.txt").rename(project / "gone.txt")  # its papers' ids are retired, not lost
    (project / "raw" / "000_400c640f3220c26d.json").unlink()
    bumped(monkeypatch)  # ids are retired under a version no release has
    r = run_cli("build", "--previous", spec, cwd=project)
    assert r.returncode == 0, r.stderr
    now = {row["id"]: row for row in ids_of(project / "dist")}
    assert {row["id"] for row in published} <= set(now)
    assert all(now[row["id"]]["first_release"] == row["first_release"] for row in published)
    assert any(row["status"] == "removed" for row in now.values())


def test_previous_names_an_unknown_version_or_revision(project):
    refused(project, "build", "--previous", "9.9.9", "--out", "elsewhere", names="9.9.9")
    refused(project, "build", "--previous", "no-such-rev", "--out", "elsewhere", names="no-such-rev")


def test_the_release_beside_raw_is_found_however_raw_is_typed(project):
    published = ids_of(project / "dist")
    raw = project / "raw"
    assert run_cli("build", "--raw", ".", "--out", "../dist", cwd=raw).returncode == 0
    assert ids_of(project / "dist") == published
    shutil.rmtree(project / "dist")
    refused(raw, "build", "--raw", ".", "--out", "../dist", names="dist")


def test_add_from_inside_raw_compares_with_the_release_beside_it(project, tmp_path):
    """`add --raw .` typed inside raw/ reads the release in ../dist: a copy of a published
    record is named with its published id, not taken for a new paper."""
    from tests.helpers import seed_abstracts

    published = {row["id"] for row in ids_of(project / "dist")}
    copy = tmp_path / "copy.txt"
    copy.write_bytes(("NeurIPS 2026 论文列表\n\n" + seed_abstracts()[0] + "\n").encode())
    r = run_cli("add", str(copy), "--raw", ".", "--dry-run", cwd=project / "raw")
    assert r.returncode == 0, r.stderr
    assert "1 record is an exact copy of published papers" in r.stdout, r.stdout
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("  line ")]
    assert line.rsplit(": ", 1)[1] in published


def test_an_emptied_ids_table_is_refused_even_with_its_sums_rewritten(project):
    dist = project / "dist"
    table = pq.read_table(dist / IDS)
    pq.write_table(table.slice(0, 0), dist / IDS)
    refused(project, "build", names=IDS)  # SHA256SUMS no longer matches
    reseal(dist)
    assert "36 rows there, 0 here" in refused(project, "build", names=IDS)  # fewer ids than the manifest lists


def test_unknown_ids_columns_are_refused(project):
    dist = project / "dist"
    table = pq.read_table(dist / IDS)
    pq.write_table(table.append_column("extra", pa.array(["x"] * table.num_rows)), dist / IDS)
    reseal(dist)
    assert "unknown columns extra" in refused(project, "build", names=IDS)


def test_an_id_the_registry_names_missing_from_the_ids_table_is_refused(project):
    dist = project / "dist"
    manifest = json.loads((dist / MANIFEST).read_text())
    manifest["published_dumps"][0]["first_ids"] = [[0, "feedfacefeedface"]]
    (dist / MANIFEST).write_text(json.dumps(manifest))
    reseal(dist)
    assert "feedfacefeedface" in refused(project, "build", names=IDS)


def test_the_fingerprint_names_the_previous_releases_ids(project, tmp_path, monkeypatch):
    """The same raw/ built on a release of an earlier version (its ids first released then) and
    as a first release: same registry, different ids tables, so different fingerprints."""
    from neurips_abstracts import build as build_module
    from neurips_abstracts.release import manifest as manifest_module

    raw, first = tmp_path / "raw", tmp_path / "first"  # outside the clone, whose record dates VERSION
    shutil.copytree(project / "raw", raw)
    with monkeypatch.context() as m:
        for module in (build_module, manifest_module):
            m.setattr(module, "dataset_version", lambda: "0.9.0")
        assert run_cli("build", "--raw", str(raw), "--out", str(first), "--first-release").returncode == 0
    kept, fresh = tmp_path / "kept", tmp_path / "fresh"
    assert run_cli("build", "--raw", str(raw), "--out", str(kept), "--previous", str(first)).returncode == 0
    assert run_cli("build", "--raw", str(raw), "--out", str(fresh), "--first-release").returncode == 0
    assert ids_of(kept) != ids_of(fresh)
    fingerprint = lambda d: json.loads((d / MANIFEST).read_text())["fingerprint"]  # noqa: E731
    assert fingerprint(kept) != fingerprint(fresh)


@pytest.mark.parametrize("damage", ["sums not UTF-8", "resources null"])
def test_verify_names_a_damaged_file(project, damage):
    dist = project / "dist"
    if damage == "sums not UTF-8":
        (dist / SUMS).write_bytes(b"\xff\xfe" + (dist / SUMS).read_bytes())
        named = SUMS
    else:
        package = json.loads((dist / "datapackage.json").read_text())
        package["resources"] = None
        (dist / "datapackage.json").write_text(json.dumps(package))
        named = "datapackage.json"
    r = run_cli("verify", "dist", cwd=project)
    assert r.returncode == 1 and "internal error" not in r.stdout + r.stderr, r
    assert any(line.startswith(f"dist/{named}") for line in (r.stdout + r.stderr).splitlines()), r.stdout + r.stderr


def test_packages_built_into_dist_are_named_as_not_part_of_the_release(project):
    """`python -m build` writes its sdist and wheel into dist/ by default."""
    dist = project / "dist"
    for name in ("neurips_abstracts-1.2.0.tar.gz", "neurips_abstracts-1.2.0-py3-none-any.whl"):
        (dist / name).write_bytes(b"PK")
    assert "--outdir" in refused(project, "build", names=".whl")
    for command in (["check", "--no-docs"], ["verify", "dist"]):
        r = run_cli(*command, cwd=project)
        said = r.stdout + r.stderr
        assert r.returncode == 1 and "internal error" not in said, said
        assert said.count("not part of the release") == 2 and "python -m build --outdir wheels" in said, said
        assert "run: python build_dataset.py build" not in said, said  # a refused command is not advised


def test_a_release_a_killed_build_moved_aside_is_restored_before_it_is_read(project):
    """Killed between its two renames, a build leaves the replaced release moved aside: the next
    build restores it before it looks for the release beside raw/, so it keeps its ids rather
    than refusing the release as missing."""
    before = ids_of(project / "dist")
    (project / "dist").rename(project / ".dist.neurips-abstracts-old-4194302-abc123")  # a pid no process has
    r = run_cli("build", cwd=project)
    assert r.returncode == 0, r.stderr
    assert ids_of(project / "dist") == before
    assert sorted(p.name for p in project.iterdir() if "neurips-abstracts" in p.name) == []


def test_a_refused_build_leaves_a_killed_build_s_litter_where_it_is(project):
    """The litter is put back only by a build that replaces the release beside raw/ (and holds
    its lock); a build refused by the guard (here: into raw/ itself) changes nothing."""
    litter = project / ".dist.neurips-abstracts-old-4194302-abc123"
    (project / "dist").rename(litter)
    before = snapshot(project)
    r = run_cli("build", "--out", "raw", cwd=project)
    assert r.returncode == 1 and "internal error" not in r.stderr
    assert snapshot(project) == before and litter.is_dir() and not (project / "dist").exists()


def test_add_refuses_to_compare_with_a_deleted_dist(project, tmp_path):
    """add tells what a dump does to the published papers: with dist/ deleted where the project
    has published, it is refused with the ways out, not told that every paper is new."""
    dump = tmp_path / "new.txt"
    dump.write_text("NeurIPS 2026 论文列表\n\nA new abstract about sparse regret bounds for bandits with graphs.\n",
                    encoding="utf-8")
    shutil.rmtree(project / "dist")
    line = refused(project, "add", str(dump), "--dry-run", names="dist")
    assert "git checkout -- dist" in line and "every paper is new" not in line


def test_a_deleted_dist_git_does_not_track_is_not_restored_by_git_checkout(project):
    """The ways out name `git checkout -- dist` only where git tracks dist/ (issue 41): here the
    clone ignores it, so the advice is to download the release, and no git command is named."""
    git(project, "rm", "-rq", "--cached", "dist")
    (project / ".gitignore").write_text("dist/\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "-qm", "dist/ is not tracked")
    shutil.rmtree(project / "dist")
    line = refused(project, "build", names="dist")
    assert "git checkout" not in line and "restore it (download the release" in line, line
    assert "--previous" in line and "--first-release" in line, line


def test_a_damaged_table_git_does_not_track_names_no_git_checkout(project):
    """A damaged release file is restored by `git checkout` only where git tracks its folder."""
    git(project, "rm", "-rq", "--cached", "dist")
    (project / ".gitignore").write_text("dist/\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "-qm", "dist/ is not tracked")
    (project / "dist" / IDS).write_bytes(b"not parquet")
    line = refused(project, "build", names="dist")
    assert "git checkout" not in line and "restore it (download the release again)" in line, line
