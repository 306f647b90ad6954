"""The Hub's record anchors publish: a release that drops an id the Hub's last release tag
published, a tag moved, or commits on the Hub after the tag that publish did not make are
refused before anything is sent; `verify --hub` reports the same; `build --previous hub:vX`
keeps the ids the Hub published. Real huggingface_hub client, test Hub on 127.0.0.1."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neurips_abstracts.build import build
from neurips_abstracts.core.resources import hub_repo

from tests.helpers import make_dump, run_process
from tests.helpers.hub import TAG, TOKEN, folder_bytes, publish

OLDER = "v1.1.0"  # a release tag before this version's
EXTRA = "A paper published before and gone since: sparse kernels that bound the regret of bandits."


def put_release(hub, files: dict[str, bytes], tag: str = OLDER, title: str | None = None, on_main: bool = True):
    """A commit holding ``files`` (a release's), tagged ``tag``, on main or beside it."""
    repo_id = hub_repo()
    repo = hub.repos.get(repo_id) or hub.add_repo(repo_id, repo_id.split("/")[0])
    head = repo.branches["main"]
    commit = repo.commit(head, {**repo.commits[head].files, **files}, title or f"Release {tag}",
                         lfs={p for p in files if p.endswith(".parquet")})
    if on_main:
        repo.branches["main"] = commit.oid
    repo.tags[tag] = commit.oid
    return commit


def edit_on_the_hub(hub, path: str, data: bytes, title: str):
    """What the Hub's browser editor (Data Studio) does: one commit on main."""
    repo = hub.repos[hub_repo()]
    head = repo.branches["main"]
    commit = repo.commit(head, {**repo.commits[head].files, path: data}, title, lfs=repo.commits[head].lfs)
    repo.branches["main"] = commit.oid
    return commit


@pytest.fixture(scope="module")
def older_release(built_project, tmp_path_factory):
    """A release with one paper more than the project's (published, then its dump withdrawn)."""
    work = tmp_path_factory.mktemp("older")
    shutil.copytree(built_project / "raw", work / "raw")
    (work / "raw" / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump([EXTRA]))
    build(work / "raw", work / "dist", previous=None)
    ids = pq.read_table(work / "dist" / "data" / "ids").to_pylist()
    occurrences = pq.read_table(work / "dist" / "data" / "occurrences").to_pylist()
    extra = next(o["paper_id"] for o in occurrences if o["source_file"] == "009_aaaaaaaaaaaaaaaa.txt")
    assert extra in {r["id"] for r in ids}
    return folder_bytes(work / "dist"), extra


def hub_env(hub, project):
    return {"HF_ENDPOINT": hub.endpoint, "HF_HOME": str(project.parent / "hf-home"),
            "HF_HUB_DISABLE_TELEMETRY": "1", "HF_TOKEN": TOKEN}


def test_publish_keeps_the_promises_of_the_hubs_last_release(project, hub):
    """The Hub's last release before this version holds the same ids: publish reads them and goes on."""
    put_release(hub, folder_bytes(project / "dist"))
    proc = publish(project, hub)
    assert proc.returncode == 0, proc.stderr
    assert f"The Hub's {OLDER} (" in proc.stdout and "every id it published is kept" in proc.stdout
    assert hub.repos[hub_repo()].tags[TAG] == hub.repos[hub_repo()].branches["main"]


def test_publish_refuses_a_release_that_drops_an_id_the_hub_published(project, hub, older_release):
    files, extra = older_release
    put_release(hub, files)
    before = dict(hub.repos[hub_repo()].branches)
    proc = publish(project, hub)
    assert proc.returncode == 1
    assert f"published ids missing from ids (against {OLDER} on the Hub): {extra}" in proc.stderr
    assert hub.commits_received() == [] and hub.repos[hub_repo()].branches == before and TAG not in hub.repos[hub_repo()].tags
    # the same, reported without publishing
    proc = run_process("verify", str(project / "dist"), "--hub", env=hub_env(hub, project))
    assert proc.returncode == 1 and f"hub: published ids missing from ids (against {OLDER} on the Hub): {extra}" in proc.stderr


def test_publish_refuses_commits_made_on_the_hub_after_the_tag(project, hub):
    put_release(hub, folder_bytes(project / "dist"))
    edit = edit_on_the_hub(hub, "README.md", b"---\n---\nedited in the browser", "Update README.md")
    proc = publish(project, hub)
    assert proc.returncode == 1 and hub.commits_received() == []
    assert f"holds 1 commit after {OLDER} that publish did not make: {edit.oid[:12]} ('Update README.md')" in proc.stderr
    assert "--discard-hub-edits" in proc.stderr
    proc = run_process("verify", str(project / "dist"), "--hub", OLDER[1:], env=hub_env(hub, project))
    assert proc.returncode == 1 and edit.oid[:12] in proc.stderr, proc.stderr
    proc = publish(project, hub, "--discard-hub-edits")
    assert proc.returncode == 0, proc.stderr
    assert hub.head_files(hub_repo())["README.md"] == (project / "dist" / "README.md").read_bytes()


@pytest.mark.parametrize("how", ["off main", "on another commit"])
def test_publish_refuses_a_moved_tag(project, hub, how):
    files = folder_bytes(project / "dist")
    if how == "off main":
        commit = put_release(hub, files, on_main=False)
        expected = f"tag {OLDER} points at commit {commit.oid[:12]}, which is not on main"
    else:
        put_release(hub, files)
        repo = hub.repos[hub_repo()]
        first = next(c for c in repo.commits.values() if c.parent is None)
        repo.tags[OLDER] = first.oid  # deleted and made again on another commit
        expected = f"tag {OLDER} points at commit {first.oid[:12]} ('initial commit'), not at the commit publish made"
    proc = publish(project, hub)
    assert proc.returncode == 1 and expected in proc.stderr, proc.stderr
    assert hub.commits_received() == []


def test_publish_refuses_when_the_hub_holds_a_newer_release(project, hub):
    put_release(hub, folder_bytes(project / "dist"), tag="v99.0.0")
    proc = publish(project, hub)
    assert proc.returncode == 1, proc.stderr
    assert f"a newer release than this one ({TAG[1:]}) is published: 99.0.0 (tag v99.0.0 of {hub_repo()} on the Hub)" in proc.stderr
    assert hub.commits_received() == []
    proc = run_process("verify", str(project / "dist"), "--hub", env=hub_env(hub, project))
    assert proc.returncode == 1 and "hub: a newer release than this one" in proc.stderr, proc.stderr


def test_publish_and_verify_hub_ask_the_projects_record_too(project, hub):
    """A newer release in the project's own record (a git tag of the clone dist/ is in) refuses
    publish and verify --hub, though the Hub holds none: one record, the Hub's tags added to it.
    (publish's `check` refuses first here: its rebuild would anchor on a release older than the
    newest published.)"""
    from tests.helpers import git

    put_release(hub, folder_bytes(project / "dist"))
    git(project, "tag", "v99.0.0")
    proc = publish(project, hub)
    assert proc.returncode == 1 and "older than 99.0.0, the newest published (git tag v99.0.0)" in proc.stderr, proc.stderr
    assert hub.commits_received() == [] and TAG not in hub.repos[hub_repo()].tags
    expected = f"a newer release than this one ({TAG[1:]}) is published: 99.0.0 (git tag v99.0.0)"
    proc = run_process("verify", str(project / "dist"), "--hub", f"hub:{OLDER}", env=hub_env(hub, project))
    assert proc.returncode == 1 and f"hub: {expected}" in proc.stderr, proc.stderr
    git(project, "tag", "-d", "v99.0.0")
    proc = run_process("verify", str(project / "dist"), "--hub", f"hub:{OLDER}", env=hub_env(hub, project))
    assert proc.returncode == 0 and "no newer release is published" in proc.stdout, proc.stderr


def test_verify_hub_passes_and_names_what_it_checked(project, hub):
    proc = run_process("verify", str(project / "dist"), "--hub", env=hub_env(hub, project))
    assert proc.returncode == 1 and "Repository not found" not in proc.stdout  # no repository yet: one line
    assert proc.stderr.count("\n") == 1 and "answered 404" in proc.stderr, proc.stderr
    put_release(hub, folder_bytes(project / "dist"))
    proc = run_process("verify", str(project / "dist"), "--hub", env=hub_env(hub, project))
    assert proc.returncode == 0, proc.stderr
    assert f"keeps every id {OLDER} of {hub_repo()} published" in proc.stdout
    proc = run_process("verify", str(project / "dist"), "--hub", "7.0.0", env=hub_env(hub, project))
    assert proc.returncode == 1 and f"no release tag v7.0.0 on the Hub (tags: {OLDER})" in proc.stderr


def test_build_previous_from_the_hub_keeps_every_id_it_published(project, hub, older_release):
    """A clone without dist/ builds with the ids of the release tagged on the Hub."""
    files, extra = older_release
    put_release(hub, files)
    shutil.rmtree(project / "dist")
    proc = run_process("build", "--raw", str(project / "raw"), "--out", str(project / "dist"), "--previous",
                       f"hub:{OLDER}", env=hub_env(hub, project))
    assert proc.returncode == 0, proc.stderr
    ids = {r["id"]: r for r in pq.read_table(project / "dist" / "data" / "ids").to_pylist()}
    published = {r["id"] for r in pq.read_table(pa.BufferReader(files["data/ids/train-00000-of-00001.parquet"])).to_pylist()}
    assert published <= set(ids) and ids[extra]["status"] == "removed"
    manifest = json.loads((project / "dist" / "build_manifest.json").read_text())
    assert manifest["dataset_version"]
    proc = run_process("build", "--raw", str(project / "raw"), "--out", str(project / "dist"), "--previous",
                       "hub:v7.0.0", env=hub_env(hub, project))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "no release tag v7.0.0" in proc.stderr


def test_publish_refuses_a_release_that_rewrites_the_history_of_an_id(project, hub, tmp_path):
    """The Hub's release dated an id's first release earlier than this one says: its history
    would change, and publish refuses, naming the id."""
    from neurips_abstracts.core.names import SUMS
    from neurips_abstracts.release.contents import sha256sums

    older = tmp_path / "older"
    shutil.copytree(project / "dist", older)
    ids_file = older / "data" / "ids" / "train-00000-of-00001.parquet"
    table = pq.read_table(ids_file)
    rows = table.to_pylist()
    rows[0]["first_release"] = "1.0.0"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), ids_file)
    manifest = json.loads((older / "build_manifest.json").read_text())  # a release that says so itself
    manifest["ids"] = [[*r[:3], "1.0.0", r[4]] if r[0] == rows[0]["id"] else r for r in manifest["ids"]]
    was = next(r[3] for r in json.loads((older / "build_manifest.json").read_text())["ids"] if r[0] == rows[0]["id"])
    manifest["counts"]["ids"]["first_published_in_this_version"] -= was == manifest["dataset_version"]  # its counts too
    (older / "build_manifest.json").write_text(json.dumps(manifest))
    (older / SUMS).write_text(sha256sums(older))
    put_release(hub, folder_bytes(older))
    proc = publish(project, hub)
    assert proc.returncode == 1 and hub.commits_received() == []
    assert f"published ids whose first_release changed (against {OLDER} on the Hub): {rows[0]['id']}" in proc.stderr


def test_a_hub_edit_titled_like_a_release_is_still_not_publishs(project, hub):
    """A title proves nothing (anyone types one in the Hub's editor): an untagged commit titled
    "Release v1.1.1" after the tag is named, and publish refuses."""
    put_release(hub, folder_bytes(project / "dist"))
    edit = edit_on_the_hub(hub, "README.md", b"---\n---\nedited", "Release v1.1.1")
    proc = publish(project, hub)
    assert proc.returncode == 1 and hub.commits_received() == []
    assert f"{edit.oid[:12]} ('Release v1.1.1')" in proc.stderr


def test_verify_hub_refuses_a_folder_taken_for_a_version(project):
    proc = run_process("verify", "--hub", str(project / "dist"))
    assert proc.returncode == 2 and "is not a version" in proc.stderr and "verify dist --hub" in proc.stderr


def test_publish_force_tag_is_checked_against_the_release_the_tag_points_at_now(project, hub, older_release):
    """--force-tag over this version's tag checked the tag before it: the ids the moved tag
    published could vanish from the Hub, exit 0."""
    files, extra = older_release
    put_release(hub, files, tag=TAG)
    before = dict(hub.repos[hub_repo()].tags)
    proc = publish(project, hub, "--force-tag")
    assert proc.returncode == 1, proc.stderr
    assert f"published ids missing from ids (against {TAG} on the Hub): {extra}" in proc.stderr
    assert hub.commits_received() == [] and hub.repos[hub_repo()].tags == before


def test_a_released_version_is_not_published_again_over_a_newer_one(project, hub):
    """At the commit of a release (its tag), `check` passes: a released version rebuilt on its
    own release. Once a newer release is tagged, publishing the old one again would lower what
    the record holds: refused from the record alone, in a dry run too, with nothing sent."""
    from neurips_abstracts.core.versions import version_key

    from tests.helpers import git

    major, minor, _ = version_key(TAG)
    newer = f"v{major}.{minor + 1}.0"
    git(project, "tag", TAG)
    git(project, "commit", "-q", "--allow-empty", "-m", "the next release")
    git(project, "tag", newer)
    expected = f"a newer release than this one ({TAG[1:]}) is published: {newer[1:]} (git tag {newer})"
    proc = publish(project, hub, "--dry-run")
    assert proc.returncode == 1 and f"would refuse: {expected}" in proc.stderr, proc.stderr
    proc = publish(project, hub)
    assert proc.returncode == 1 and f"refused: {expected}" in proc.stderr, proc.stderr
    assert hub.commits_received() == [] and hub_repo() not in hub.repos


def test_the_record_with_the_hubs_tags_is_one_record_newest_first():
    from pathlib import Path

    from neurips_abstracts.record.hub import HubRecord
    from neurips_abstracts.record.model import Published, Record
    from neurips_abstracts.record.published import hub_tag, newer_published

    record = Record(Path("clone"), (Published("1.1.0", "git tag v1.1.0"), Published("1.0.0", "git tag v1.0.0")), None)
    whole = record.with_hub(HubRecord("o/n", None, None, ("v1.10.0", "v1.1.0")))
    assert [(p.version, p.how) for p in whole.published] == [
        ("1.10.0", "tag v1.10.0 of o/n on the Hub"), ("1.1.0", "git tag v1.1.0"), ("1.0.0", "git tag v1.0.0")]
    assert newer_published("1.2.0", record) is None and newer_published("1.1.0", whole) is not None
    assert newer_published("1.10.0", whole) is None and newer_published("2.0.0", whole) is None
    assert hub_tag("hub:v1.1.0") == hub_tag("v1.1.0") == hub_tag("1.1.0") == "v1.1.0"
    for bad in ("hub:latest", "1.1", "hub:", "v1.1.0-rc1"):
        with pytest.raises(ValueError):
            hub_tag(bad)
