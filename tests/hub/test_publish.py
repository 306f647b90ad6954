import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from neurips_abstracts.build import build
from neurips_abstracts.core.resources import hub_repo
from neurips_abstracts.hub.plan import repo_id_problem
from neurips_abstracts.hub.staging import stage_release

from tests.helpers import ROOT, git, make_dump, make_project, run_cli
from tests.helpers.hub import OTHER, RELEASED_CLI, TAG, TOKEN, folder_bytes, publish
from tests.hub.hub_server import Hub


def dist_bytes(project):
    return folder_bytes(project / "dist")


def staged_bytes(project, repo_id):
    out = project.parent / f"staged-{repo_id.replace('/', '_')}"
    stage_release(project / "raw", project / "dist", repo_id, out)
    return folder_bytes(out)


PARQUET = re.compile(r"\.parquet$")


@pytest.fixture
def no_xet(monkeypatch):
    """HF_HUB_DISABLE_XET=1 for the client in this process: the LFS batch path is the one under test."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)


def test_release_to_the_project_repo_uploads_exactly_dist(project, hub):
    # a new process, configured by the environment variables alone
    proc = publish(project, hub, process=True)  # --repo-id defaults to hub-repo of pyproject.toml
    assert proc.returncode == 0, proc.stderr
    files = hub.head_files(hub_repo())
    assert {k: v for k, v in files.items() if k != ".gitattributes"} == dist_bytes(project)
    assert hub.repos[hub_repo()].tags == {TAG: hub.repos[hub_repo()].branches["main"]}


def test_first_release_is_one_commit_with_the_staged_files_and_a_tag(project, hub):
    proc = publish(project, hub, "--repo-id", "neurips-org/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert len(hub.commits_received()) == 1
    files = hub.head_files("neurips-org/abstracts")
    staged = staged_bytes(project, "neurips-org/abstracts")
    assert {k: v for k, v in files.items() if k != ".gitattributes"} == staged
    # the same Parquet as dist/; the documents name the repository they are in
    assert {k: v for k, v in staged.items() if PARQUET.search(k)} == {k: v for k, v in dist_bytes(project).items() if PARQUET.search(k)}
    assert b"neurips-org/abstracts" in files["README.md"] and hub_repo().encode() not in files["README.md"]
    repo = hub.repos["neurips-org/abstracts"]
    assert repo.tags == {TAG: repo.branches["main"]}
    head = repo.branches["main"]
    assert f"/datasets/neurips-org/abstracts/commit/{head}" in proc.stdout
    assert f"/datasets/neurips-org/abstracts/tree/{TAG}" in proc.stdout
    assert f'load_dataset("neurips-org/abstracts", revision="{TAG}")' in proc.stdout
    commit = hub.commits_received()[0]
    assert b'"parentCommit"' in commit.body and commit.headers["authorization"] == f"Bearer {TOKEN}"
    assert any(r.path == "/api/validate-yaml" for r in hub.requests)


@pytest.mark.slow
def test_next_release_updates_deletes_and_keeps_gitattributes(project, hub):
    hub.add_repo("alice/abstracts", "alice", {"stale/old.parquet": b"old", "README.md": b"---\n---\nold"})
    (project / "raw" / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["A brand new abstract on spectral graph sparsifiers."]))
    build(project / "raw", project / "dist")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "new dump")
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert len(hub.commits_received()) == 1
    body = hub.commits_received()[0].body.decode()
    assert '"deletedFile"' in body and "stale/old.parquet" in body
    files = hub.head_files("alice/abstracts")
    assert set(files) == set(dist_bytes(project)) | {".gitattributes"}
    assert files["README.md"] == staged_bytes(project, "alice/abstracts")["README.md"]
    assert "delete    stale/old.parquet" in proc.stdout and "update    README.md" in proc.stdout


@pytest.mark.slow
def test_existing_tag_on_other_content_is_not_moved_without_force(project, hub):
    assert publish(project, hub, "--repo-id", "alice/abstracts").returncode == 0
    tagged = hub.repos["alice/abstracts"].tags[TAG]
    (project / "raw" / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["Another new abstract about kernel methods."]))
    build(project / "raw", project / "dist")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "new dump, same version")
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 1 and f"tag {TAG} already exists" in proc.stderr and "--force-tag" in proc.stderr
    assert len(hub.commits_received()) == 1 and hub.repos["alice/abstracts"].tags[TAG] == tagged
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--force-tag")
    assert proc.returncode == 0, proc.stderr
    repo = hub.repos["alice/abstracts"]
    assert repo.tags[TAG] == repo.branches["main"] != tagged


def test_parquet_goes_through_xet_storage_and_reads_back_through_hf_xet(project, hub):
    """The path every user takes: hf_xet uploads the Parquet files to the Hub's Xet storage, the
    commit names them by sha256, and hf_hub_download reads them back from the storage."""
    from huggingface_hub import hf_hub_download

    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    parquet = {k for k in dist_bytes(project) if PARQUET.search(k)}
    assert len(parquet) >= 2 and hub.head_lfs("alice/abstracts") == parquet
    assert hub.head_files("alice/abstracts").items() >= {k: dist_bytes(project)[k] for k in parquet}.items()
    assert not any(r.path.endswith(".git/info/lfs/objects/batch") for r in hub.requests) and not hub.lfs_uploads()
    assert hub.step_requests("Xet token") and hub.step_requests("xorb upload") and hub.step_requests("shard upload")
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in hub.step_requests("Xet token"))
    stored = {hub.storage.file_hash(hashlib.sha256((project / "dist" / p).read_bytes()).hexdigest()) for p in parquet}
    assert None not in stored and len(stored) == len(parquet)
    # the bytes hf_xet sent, rebuilt from its xorbs and shard, are the files
    assert sorted(hub.storage.file_bytes(h) for h in stored) == sorted(dist_bytes(project)[p] for p in parquet)
    assert hub.storage.xorb_bytes_received() > 0
    entries = [json.loads(line) for line in hub.commits_received()[0].body.splitlines() if line.strip()]
    assert {e["value"]["path"] for e in entries if e["key"] == "lfsFile"} == parquet
    path = sorted(parquet)[0]
    before = len(hub.storage.requests)
    got = hf_hub_download("alice/abstracts", path, repo_type="dataset", revision=TAG, endpoint=hub.endpoint,
                          cache_dir=project.parent / "read-back")
    assert Path(got).read_bytes() == dist_bytes(project)[path]
    read = [r.path for r in hub.storage.requests[before:]]
    assert any(p.startswith("/v1/reconstructions/") for p in read) and any(p.startswith("/xorb/") for p in read)


def test_files_the_storage_holds_are_not_sent_again(project, hub):
    """The same Parquet published to a second repository of the Hub from another machine (a new
    process, an empty HF_HOME: no local cache of what was sent): hf_xet asks the storage's global
    dedup route about the files' chunks, learns from the shard it answers that the storage holds
    them, and sends no xorb; the commit still has the files, byte for byte."""
    assert publish(project, hub, "--repo-id", "alice/abstracts").returncode == 0
    first = hub.storage.xorb_bytes_received()
    before = len(hub.storage.requests)
    proc = publish(project, hub, "--repo-id", "alice/copy", process=True, env={"HF_HOME": str(project.parent / "other")})
    assert proc.returncode == 0, proc.stderr
    parquet = {k: v for k, v in dist_bytes(project).items() if PARQUET.search(k)}
    assert first > 0 and hub.storage.xorb_bytes_received() == first
    assert any(r.path.startswith("/v1/chunks/") for r in hub.storage.requests[before:])
    assert hub.head_files("alice/copy").items() >= parquet.items()


def test_without_hf_xet_parquet_goes_through_the_lfs_batch_api(project, hub, no_xet):
    """A user who sets HF_HUB_DISABLE_XET=1 (or has no hf_xet) uploads through git LFS: that path
    stays served and tested."""
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    parquet = {k for k in dist_bytes(project) if PARQUET.search(k)}
    assert len(parquet) >= 2 and hub.head_lfs("alice/abstracts") == parquet
    batch = [r for r in hub.requests if r.path.endswith(".git/info/lfs/objects/batch")]
    assert len(batch) == 1 and batch[0].headers["authorization"] == f"Bearer {TOKEN}"
    sent = {o["oid"] for o in json.loads(batch[0].body)["objects"]}
    assert sent == {hashlib.sha256((project / "dist" / p).read_bytes()).hexdigest() for p in parquet}
    assert {r.path.rsplit("/", 1)[1] for r in hub.lfs_uploads()} == sent
    assert any(r.path.startswith("/lfs-verify/") for r in hub.requests) and hub.storage.requests == []
    entries = [json.loads(line) for line in hub.commits_received()[0].body.splitlines() if line.strip()]
    assert {e["value"]["path"] for e in entries if e["key"] == "lfsFile"} == parquet
    assert not {e["value"]["path"] for e in entries if e["key"] == "file"} & parquet


@pytest.mark.slow
def test_republishing_the_same_dist_makes_no_commit(project, hub):
    assert publish(project, hub, "--repo-id", "alice/abstracts").returncode == 0
    uploads = len(hub.lfs_uploads())
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert "no new commit" in proc.stdout and f"tag {TAG} already exists" not in proc.stderr
    assert len(hub.commits_received()) == 1 and len(hub.lfs_uploads()) == uploads
    assert re.findall(r"^  unchanged .*\.parquet", proc.stdout, re.M)


def test_a_commit_applied_but_unanswered_is_recognised_on_retry(project, hub):
    hub.fail("POST", r"/commit/", 502, after=True)
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert "commit: HTTP 502, retrying" in proc.stdout and "already applied an earlier try" in proc.stdout
    repo = hub.repos["alice/abstracts"]
    head = repo.commits[repo.branches["main"]]
    assert len(hub.commits_received()) == 2 and repo.commits[head.parent].parent is None  # one commit on the initial one
    assert repo.tags == {TAG: head.oid} and f"/commit/{head.oid}" in proc.stdout


@pytest.mark.slow
def test_dry_run_lists_and_stages_the_upload_and_contacts_nothing(project, hub, tmp_path):
    stage = tmp_path / "stage"
    proc = publish(project, hub, "--repo-id", "alice/x", "--dry-run", "--stage", str(stage))
    assert proc.returncode == 0, proc.stderr
    assert hub.requests == []
    listed = [line.split() for line in proc.stdout.splitlines() if line.startswith("  add")]
    expected = {name: (str(len(data)), hashlib.sha256(data).hexdigest()) for name, data in folder_bytes(stage).items()}
    assert {row[1]: (row[2], row[5]) for row in listed} == expected
    assert f"Commit message: Release {TAG}" in proc.stdout and f"Tag: {TAG}" in proc.stdout
    # the staged files are what a real publish uploads
    assert publish(project, hub, "--repo-id", "alice/x").returncode == 0
    assert {k: v for k, v in hub.head_files("alice/x").items() if k != ".gitattributes"} == folder_bytes(stage)


_ID = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
REPO_MENTION = re.compile(rf"""(?:huggingface\.co/datasets/|hf://datasets/|load_dataset\("|`)({_ID}/{_ID}(?<!\.))""")


@pytest.mark.slow
def test_staged_release_names_only_its_repository(project, hub, tmp_path):
    stage = tmp_path / "stage"
    proc = publish(project, hub, "--repo-id", "alice/x", "--dry-run", "--stage", str(stage))
    assert proc.returncode == 0, proc.stderr
    named = {}
    for name, data in folder_bytes(stage).items():
        if not PARQUET.search(name):
            text = data.decode("utf-8")
            named[name] = set(REPO_MENTION.findall(text))
            assert hub_repo() not in text, name
    assert set().union(*named.values()) == {"alice/x"}
    for doc in ("README.md", "DATASHEET.md", "datapackage.json", "croissant.json"):
        assert named[doc] == {"alice/x"}, doc
    assert {k: v for k, v in folder_bytes(stage).items() if PARQUET.search(k)} == {
        k: v for k, v in dist_bytes(project).items() if PARQUET.search(k)}


@pytest.mark.slow
def test_dry_run_exits_non_zero_whenever_publish_would_refuse(project, hub, tmp_path):
    (project / "notes.txt").write_text("uncommitted")
    proc = publish(project, hub, "--repo-id", "alice/x", "--dry-run", "--stage", str(tmp_path / "stage"))
    assert proc.returncode == 1 and "would refuse: git work tree not clean" in proc.stderr
    assert (tmp_path / "stage" / "README.md").is_file()  # still staged, to read
    (project / "notes.txt").unlink()
    proc = publish(project, hub, "--repo-id", "alice/x", "--dry-run", token=None)
    assert proc.returncode == 1 and "would refuse: no token" in proc.stderr
    assert hub.requests == []


@pytest.mark.parametrize("bad", ["bad", "a/b/c", "-alice/x", "alice/x-", "alice/.x", "al--ice/x", "alice/x..y",
                                 "alice/x.git", "alice/x y", "alice/", "/x", "a" * 97 + "/x"])
def test_repo_id_is_validated_as_the_hub_does(bad):
    assert repo_id_problem(bad)


@pytest.mark.parametrize("good", ["alice/x", "neurips-org/neurips_2026.abstracts", "A1/b", "a/" + "b" * 96])
def test_repo_ids_the_hub_accepts(good):
    assert repo_id_problem(good) is None


def test_cli_rejects_a_bad_repo_id(project, hub):
    proc = publish(project, hub, "--repo-id", "bad", "--dry-run")
    assert proc.returncode == 2 and "not OWNER/NAME" in proc.stderr and hub.requests == []


def test_no_token(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", token=None)
    assert proc.returncode == 1 and "no token" in proc.stderr
    assert hub.requests == []


@pytest.mark.slow
def test_rejected_token(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", token="hf_wrongTOKENwrongTOKEN")
    assert proc.returncode == 1 and "rejected the token (401)" in proc.stderr
    assert "hf_wrongTOKENwrongTOKEN" not in proc.stderr + proc.stdout
    assert hub.commits_received() == []


@pytest.mark.slow
def test_repository_owned_by_someone_else(project, hub):
    hub.add_repo("alice/abstracts", "alice")
    proc = publish(project, hub, "--repo-id", "alice/abstracts", token=OTHER)
    assert proc.returncode == 1 and "owned by alice" in proc.stderr
    assert hub.commits_received() == []


@pytest.mark.slow
def test_branch_moved_since_read_is_reported_not_retried(project, hub):
    hub.add_repo("alice/abstracts", "alice")

    def concurrent(h, repo_id):
        repo = h.repos[repo_id]
        c = repo.commit(repo.branches["main"], {**h.head_files(repo_id), "theirs.txt": b"x"}, "someone else")
        repo.branches["main"] = c.oid

    hub.before_commit = concurrent
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 1 and "branch moved since it was read (412)" in proc.stderr
    assert len(hub.commits_received()) == 1
    assert "theirs.txt" in hub.head_files("alice/abstracts") and "README.md" not in hub.head_files("alice/abstracts")
    assert hub.repos["alice/abstracts"].tags == {}


@pytest.mark.slow
def test_transient_errors_are_retried_with_backoff(project, hub):
    hub.fail("GET", r"/refs$", 503, times=2)
    hub.fail("POST", r"/commit/", 502, times=1)
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert "read refs: HTTP 503, retrying" in proc.stdout and "commit: HTTP 502, retrying" in proc.stdout
    assert len(hub.commits_received()) == 2  # the failed try and the good one
    assert TAG in hub.repos["alice/abstracts"].tags


@pytest.mark.slow
def test_persistent_5xx_gives_up_clearly(project, hub):
    hub.fail("GET", r"/refs$", 500, times=10)
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--attempts", "3")
    assert proc.returncode == 1 and "read refs: gave up after 3 attempts (HTTP 500)" in proc.stderr
    assert hub.commits_received() == []


@pytest.mark.slow
def test_unreachable_hub_gives_up_clearly(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--attempts", "2", endpoint="http://127.0.0.1:9")
    assert proc.returncode == 1 and "gave up after 2 attempts (ConnectError)" in proc.stderr


@pytest.mark.slow
def test_refuses_dirty_tree_stale_dist_and_unverifiable_dist(project, hub):
    (project / "notes.txt").write_text("uncommitted")
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 1 and "work tree not clean" in proc.stderr
    (project / "notes.txt").unlink()

    (project / "raw" / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["A dump added without rebuilding dist."]))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "forgot to build")
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 1 and "check failed" in proc.stderr
    (project / "raw" / "009_aaaaaaaaaaaaaaaa.txt").unlink()

    (project / "dist" / "LICENSE.md").write_text("tampered")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "tamper")
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 1 and "verify failed" in proc.stderr and "LICENSE.md" in proc.stderr
    assert hub.requests == []


def test_stage_never_replaces_a_folder_it_would_destroy(project, tmp_path):
    """--stage replaces its folder whole: never raw/, dist/, the checkout or a folder of other files."""
    from neurips_abstracts.hub.staging import stage_problem

    raw, dist = project / "raw", project / "dist"
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    for bad in (raw, dist, project, tmp_path, other):
        assert stage_problem(bad, dist, raw), bad
    assert stage_problem(tmp_path / "new", dist, raw) is None
    stage_release(raw, dist, hub_repo(), tmp_path / "new")
    assert stage_problem(tmp_path / "new", dist, raw) is None  # an earlier stage may be replaced
    before = {p.name: p.read_bytes() for p in raw.iterdir()}
    proc = run_cli("publish", "--dry-run", "--stage", str(raw), "--raw", str(raw), "--dist", str(dist), cwd=project)
    assert proc.returncode == 1 and "refused: it is the raw folder" in proc.stderr
    assert {p.name: p.read_bytes() for p in raw.iterdir()} == before


# --- faults at every Hub call ---------------------------------------------------------------

FAULT_KINDS = ("503", "timeout", "reset")
# The answer is lost after the Hub (or its storage) applied the request.
WRITES = {"create repo", "xorb upload", "shard upload", "LFS upload", "commit", "tag"}
HF_RETRIES = {"pre-upload", "LFS batch", "LFS upload"}  # huggingface_hub retries these itself (http_backoff)
LFS_STEPS = {"LFS batch", "LFS upload"}  # taken only without hf_xet (HF_HUB_DISABLE_XET=1)
# hf_xet's requests. hf_xet reads its settings once per process, when huggingface_hub makes its
# Xet session: these rows run publish in a new process, as a user does, so that publish's own
# settings are the ones under test.
XET_STEPS = {"Xet token", "xorb upload", "shard upload"}
FAULT_TABLE = [(step, kind) for step in ("create repo", "pre-upload", "Xet token", "xorb upload", "shard upload",
                                         "LFS batch", "LFS upload", "commit", "applied-commit check", "tag")
               for kind in FAULT_KINDS]
# The one line a stopped publish ends with: what the Hub holds.
HOLDS = {"create repo": "the Hub holds nothing sent by this run",
         **dict.fromkeys(XET_STEPS, "the Hub holds no commit of this release"),
         "commit": "run publish again, it tags that commit instead",
         "applied-commit check": "run publish again, it tags that commit instead",
         "tag": "run publish again to tag it"}
TIMEOUT = "2"  # seconds the client waits on a "timeout" fault; long enough for any answer of the test Hub


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """One committed project for all the fault cases: publishing never writes to it."""
    return make_project(tmp_path_factory.mktemp("faults"))


def one_release_on_the_hub(hub, repo_id):
    """The repository holds its initial commit and one release commit on it, tagged, and
    nothing else: no second commit, not even one that is not on the branch."""
    repo = hub.repos[repo_id]
    head = repo.commits[repo.branches["main"]]
    assert head.message == f"Release {TAG}" and repo.commits[head.parent].parent is None
    assert len(repo.commits) == 2 and repo.tags == {TAG: head.oid}
    return head


def publish_in_process(project, hub, force_tag=False, **config):
    """The library call the CLI makes once its checks pass: the real client, its output kept."""
    from neurips_abstracts.hub.protocol import PublishConfig, PublishError, publish as run_publish

    lines = []
    try:
        result = run_publish(project / "dist", hub_repo(), token=TOKEN, endpoint=hub.endpoint, force_tag=force_tag,
                             config=PublishConfig(**{"backoff_seconds": 0.01, "timeout_seconds": 5.0, **config}),
                             log=lines.append)
    except PublishError as exc:
        result = exc
    assert not any(TOKEN in line for line in lines) and TOKEN not in str(result)
    return result, lines


@pytest.fixture
def lfs_only(request, monkeypatch):
    """The LFS rows run without hf_xet: only then does the client take the LFS batch path."""
    if request.node.callspec.params["step"] in LFS_STEPS:
        from huggingface_hub import constants

        monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)


# A timeout costs the run its whole --timeout wait: those rows run in the slow suite (CI runs it),
# the 503 and reset rows of every step in the default one.
@pytest.mark.parametrize("step, kind", [
    pytest.param(s, k, id=f"{s}-{k}", marks=[pytest.mark.slow] if k == "timeout" else []) for s, k in FAULT_TABLE])
def test_a_fault_at_any_step_is_reported_and_the_next_run_finishes_the_release(released, hub, lfs_only, step, kind):
    after = step in WRITES
    attempts = "1"  # no retry of ours: the fault shows as the user would see it when retries run out
    if step == "applied-commit check":  # reached when a commit went through but its answer was lost
        hub.fail_step("commit", "502", after=True)
        attempts = "2"
        hub.fail_step(step, kind, times=2)
    else:
        hub.fail_step(step, kind, after=after)
    proc = publish(released, hub, "--attempts", attempts, "--timeout", TIMEOUT, process=step in XET_STEPS)
    assert [fault.kind for fault, _ in hub.injected + hub.storage.injected][-1] == kind
    assert "Traceback" not in proc.stderr
    failed = [line for line in proc.stderr.splitlines() if line.startswith("publish failed:")]
    if step in HF_RETRIES:  # huggingface_hub's own retry absorbed it
        assert proc.returncode == 0 and failed == [], proc.stderr
        assert len(hub.step_requests(step)) >= 2
        assert "The Hub holds the release complete" in proc.stdout
    else:
        assert proc.returncode == 1 and len(failed) == 1, proc.stderr
        assert HOLDS[step] in failed[0] and "gave up after" in failed[0], failed[0]
        if step in XET_STEPS:  # hf_xet's own retries are off: publish's attempts are all there are
            assert "(Xet storage: " in failed[0] and len(hub.step_requests(step)) == int(attempts), failed[0]
            assert kind != "503" or "503" in failed[0]
        else:
            cause = {"503": "(HTTP 503)", "timeout": "Timeout)", "reset": "Error)"}[kind]
            assert cause in failed[0], failed[0]
        if kind == "timeout":  # --timeout, not the Hub, ended the wait
            assert hub.settled() + hub.storage.settled() == [True] * int(attempts)
    commits_before = len(hub.commits_received())

    result, lines = publish_in_process(released, hub)
    assert isinstance(result, dict), result
    head = one_release_on_the_hub(hub, hub_repo())
    assert result["commit"] == head.oid
    said = "\n".join(lines)
    if step in ("commit", "applied-commit check", "tag"):  # the commit reached the Hub: only tagged now
        assert len(hub.commits_received()) == commits_before and "no new commit" in said
    if step in ("commit", "applied-commit check"):  # (a "tag" row's tag was made, its answer lost)
        assert "holds this release without its tag" in said, said
    assert f"The Hub holds the release complete: commit {head.oid[:12]} tagged {TAG}." in said


def test_a_tag_step_that_failed_is_finished_by_the_next_publish_which_says_so(released, hub):
    hub.fail_step("tag", "503", times=2)
    proc = publish(released, hub, "--attempts", "2")
    failed = [line for line in proc.stderr.splitlines() if line.startswith("publish failed:")]
    assert proc.returncode == 1 and len(failed) == 1, proc.stderr
    repo = hub.repos[hub_repo()]
    head = repo.branches["main"]
    assert f"the Hub holds commit {head[:12]}, its tag {TAG} may be missing: run publish again to tag it" in failed[0]
    assert repo.tags == {} and len(hub.commits_received()) == 1

    proc = publish(released, hub)
    assert proc.returncode == 0, proc.stderr
    assert f"The branch head {head[:12]} holds this release without its tag" in proc.stdout
    assert f"tagging it {TAG}" in proc.stdout and f"The Hub holds the release complete: commit {head[:12]}" in proc.stdout
    assert repo.tags == {TAG: head} and len(hub.commits_received()) == 1 and repo.branches["main"] == head


@pytest.mark.slow  # every request in turn: a publish per request
@pytest.mark.parametrize("kind, attempts", [("reset", 1), ("503", 2)])
def test_a_lost_answer_at_the_nth_request_never_makes_a_second_commit(released, hub, kind, attempts):
    """Every request of a publish in turn is applied and its answer lost. With one attempt the run
    stops there and the next run finishes the release; with a retry the run itself recognises
    what went through and finishes. Either way: one tagged release commit."""
    with Hub(hub.users) as clean:
        assert isinstance(publish_in_process(released, clean)[0], dict)
        total = len(clean.requests)
    assert total >= 8  # whoami, create, refs, tree, pre-upload, Xet token, commit, tag: at least
    for n in range(1, total + 1):
        with Hub(hub.users) as h:
            h.fail_nth(n, kind, after=True)
            result, lines = publish_in_process(released, h, attempts=attempts)
            assert [f for f, _ in h.injected], n
            if attempts > 1:
                assert isinstance(result, dict), (n, h.requests[n - 1].path, result)
            else:
                result, lines = publish_in_process(released, h)
                assert isinstance(result, dict), (n, h.requests[n - 1].path, result)
            assert result["commit"] == one_release_on_the_hub(h, hub_repo()).oid


def test_moving_a_tag_survives_a_lost_answer_to_its_deletion(released, hub):
    repo = hub.add_repo(hub_repo(), hub_repo().split("/")[0], {"README.md": b"---\n---\nolder release"})
    older = repo.tags[TAG] = repo.branches["main"]
    hub.fail("DELETE", r"/tag/", 503, after=True)
    result, lines = publish_in_process(released, hub, force_tag=True)
    assert isinstance(result, dict), result
    assert "move tag: the Hub had already applied an earlier try" in "\n".join(lines)
    assert repo.tags == {TAG: repo.branches["main"]} and repo.branches["main"] == result["commit"] != older



def test_force_tag_onto_a_head_holding_the_release_says_it_moves_the_tag(released, hub):
    """The head already holds this release and the tag names other content: --force-tag moves
    it, and says so (no publish stopped after its commit here)."""
    result, _ = publish_in_process(released, hub)
    repo = hub.repos[hub_repo()]
    head = repo.branches["main"]
    repo.tags[TAG] = repo.commits[head].parent  # the tag moved off the release, onto other content
    result, lines = publish_in_process(released, hub, force_tag=True)
    said = "\n".join(lines)
    assert isinstance(result, dict) and result["commit"] == head and repo.tags[TAG] == head, result
    assert f"names other content (commit {repo.commits[head].parent[:12]}): moving {TAG} to {head[:12]}" in said, said
    assert "stopped after its commit" not in said

# --- the storage down, slow or failing; rate limits -----------------------------------------

@pytest.mark.parametrize("fault", ["down", pytest.param("slow", marks=pytest.mark.slow), "erroring"])
def test_a_storage_down_slow_or_failing_ends_publish_within_its_attempts(released, hub, fault):
    """hf_xet's own retries are off while publishing (its settings, HF_XET_CLIENT_*): each of
    publish's attempts makes one try, each try ends within --timeout, and the one line says that
    no commit was made."""
    if fault == "down":
        hub.storage_endpoint = "http://127.0.0.1:9"  # what the write-token route hands out: nothing listens
    else:
        hub.fail_step("xorb upload", "timeout" if fault == "slow" else "500", times=10)
    proc = publish(released, hub, "--attempts", "2", "--timeout", TIMEOUT, process=True)
    failed = [line for line in proc.stderr.splitlines() if line.startswith("publish failed:")]
    assert proc.returncode == 1 and len(failed) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "upload: gave up after 2 attempts (Xet storage: " in failed[0], failed[0]
    assert HOLDS["xorb upload"] in failed[0] and "run publish again" in failed[0]
    assert "upload: Xet storage: " in proc.stdout and "retrying in" in proc.stdout  # the first failure, retried
    tries = hub.step_requests("Xet token") if fault == "down" else hub.step_requests("xorb upload")
    assert len(tries) == 2, [r.path for r in tries]  # one per attempt: nothing retried behind publish's back
    if fault == "slow":  # each try ended by the client's read timeout (--timeout), not by the storage
        assert hub.storage.settled() == [True, True]
    assert hub.commits_received() == [] and hub.repos[hub_repo()].tags == {}


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("step", ["read refs", "commit", "tag"])
def test_429_and_503_wait_for_retry_after_then_retry(released, hub, monkeypatch, step, status):
    slept = []
    sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda s: (slept.append(s), sleep(s / 1000)))
    hub.fail_step(step, str(status), retry_after="3")
    result, lines = publish_in_process(released, hub, attempts=2, backoff_seconds=0.5)
    assert isinstance(result, dict), result
    assert f"{step}: HTTP {status}, Retry-After 3 s, retrying in 3 s (attempt 2 of 2)" in lines, lines
    assert 3.0 in slept and 0.5 not in slept  # the wait the Hub asked for, not publish's own backoff
    assert result["commit"] == one_release_on_the_hub(hub, hub_repo()).oid


def test_a_retry_after_longer_than_the_timeout_is_not_waited_for(released, hub):
    hub.fail_step("read refs", "429", retry_after="600")
    proc = publish(released, hub, "--timeout", "5")
    failed = [line for line in proc.stderr.splitlines() if line.startswith("publish failed:")]
    assert proc.returncode == 1 and len(failed) == 1, proc.stderr
    assert "read refs: the Hub answered 429 and asks to wait 600 s before trying again, longer than the timeout (5 s)" \
        in failed[0] and "the Hub holds nothing sent by this run" in failed[0]
    assert len(hub.step_requests("read refs")) == 1


def test_retry_after_as_an_http_date():
    from email.utils import formatdate

    from neurips_abstracts.hub.client import retry_after

    def answer(value):
        return SimpleNamespace(headers={"retry-after": value} if value is not None else {})

    assert retry_after(answer("7")) == 7.0 and retry_after(answer(" 0 ")) == 0.0
    assert 25 < retry_after(answer(formatdate(time.time() + 30, usegmt=True))) <= 30
    assert retry_after(answer(formatdate(time.time() - 30, usegmt=True))) == 0.0
    assert retry_after(answer(None)) is None and retry_after(answer("soon")) is None and retry_after(None) is None


def test_a_4xx_from_the_xet_side_is_refused_in_one_line_and_not_retried(released, hub):
    hub.fail_step("Xet token", "403", times=3)
    proc = publish(released, hub, "--attempts", "3", process=True)
    failed = [line for line in proc.stderr.splitlines() if line.startswith("publish failed:")]
    assert proc.returncode == 1 and len(failed) == 1, proc.stderr
    assert "upload: the Xet storage refused (403)" in failed[0] and HOLDS["xorb upload"] in failed[0]
    assert len(hub.step_requests("Xet token")) == 1 and "retrying" not in proc.stdout


@pytest.mark.parametrize("status", [400, 422])
def test_another_4xx_is_refused_in_one_line_and_not_retried(released, hub, status):
    hub.fail_step("commit", str(status))
    proc = publish(released, hub)
    failed = [line for line in proc.stderr.splitlines() if line.startswith("publish failed:")]
    assert proc.returncode == 1 and len(failed) == 1, proc.stderr
    assert f"commit: the Hub refused ({status})" in failed[0] and HOLDS["xorb upload"] in failed[0]
    assert len(hub.commits_received()) == 1 and "retrying" not in proc.stdout


# --- Ctrl-C while publish talks to the Hub ---------------------------------------------------------

@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a process is POSIX's")
@pytest.mark.parametrize("step, holds", [  # each row a publish process of its own: one in the default suite
    pytest.param("create repo", "the Hub holds nothing sent by this run", marks=pytest.mark.slow),
    pytest.param("commit", "run publish again, it tags that commit instead", marks=pytest.mark.slow),
    ("tag", "run publish again to tag it"),
])
def test_ctrl_c_while_the_hub_holds_a_request_stops_publish_and_says_what_the_hub_holds(released, hub, step, holds):
    """SIGINT while a request waits on the Hub (a "timeout" fault holds the connection): publish
    stops at once, not after --timeout, exits 1 and prints one line of what the Hub holds; no
    "finished" line and no temporary folder named."""
    hub.fail_step(step, "timeout")
    env = {**os.environ, "HF_ENDPOINT": hub.endpoint, "HF_HOME": str(released.parent / "hf-home"),
           "HF_HUB_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "HF_TOKEN": TOKEN}
    proc = subprocess.Popen(  # as released_process runs it: the package at its release commit
        [sys.executable, str(RELEASED_CLI), "publish", "--dist", str(released / "dist"), "--raw",
         str(released / "raw"), "--backoff", "0.01", "--timeout", "25"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not hub.step_requests(step) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.3)  # the request is on the wire, the Hub holding it
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)  # well within --timeout: the signal, not the Hub, ended it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if re.match(r"(interrupted|publish failed|error)\b", line)]
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and holds in lines[0], err
    assert "neurips-abstracts-tmp" not in err and "came after" not in err and "complete" not in out + err
    assert hub.settled() == [True]  # publish closed the held connection


@pytest.mark.parametrize("status", ["429", pytest.param("503", marks=pytest.mark.slow)])
def test_a_storage_429_or_503_is_retried_on_publishs_backoff_since_hf_xet_hides_retry_after(released, hub, status):
    """hf_xet reports a failed storage request as an error naming its status in words, without the
    answer's headers: the Retry-After the storage sent cannot be read, so publish waits its own
    backoff (and says so) and the next try goes through."""
    hub.fail_step("xorb upload", status, retry_after="7")
    proc = publish(released, hub, "--attempts", "2", "--backoff", "0.25", process=True)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    retried = [line for line in proc.stdout.splitlines() if line.startswith("upload: Xet storage: ")]
    assert len(retried) == 1 and status in retried[0] and retried[0].endswith("retrying in 0.25 s (attempt 2 of 2)"), \
        proc.stdout
    assert "Retry-After" not in proc.stdout
    assert len(hub.step_requests("xorb upload")) == 2
    assert "The Hub holds the release complete" in proc.stdout


def test_a_release_without_its_dated_changelog_entry_is_refused(hub, tmp_path):
    """A release dates itself: outside a clone the published record knows a release by the date
    its own CHANGELOG.md gives it, so publish refuses a build whose CHANGELOG.md has no dated
    entry for its version (in a dry run too), naming the release step; once the step is done
    and the build made again, it publishes."""
    from neurips_abstracts.record.published import published_record

    from tests.helpers.hub import changelog, package_changelog

    between = tmp_path / "between.md"
    between.write_text(changelog(dated=False), encoding="utf-8")
    with package_changelog(between):
        project = make_project(tmp_path)
        proc = publish(project, hub, "--dry-run")
        assert proc.returncode == 1, proc.stderr
        assert f"would refuse: CHANGELOG.md has no dated entry for {TAG[1:]}: write it with" in proc.stderr
        assert "--write-changelog" in proc.stderr
        proc = publish(project, hub)
        assert proc.returncode == 1 and f"refused: CHANGELOG.md has no dated entry for {TAG[1:]}" in proc.stderr
        assert hub.requests == []  # nothing asked of the Hub, nothing sent
        # outside git, a copy of that build would not be known as published
        outside = tmp_path / "copy"
        shutil.copytree(project / "dist", outside / "dist")
        assert published_record(None, outside / "dist").find(TAG[1:]) is None
    build(project / "raw", project / "dist")  # the release step done: the package dates the version
    git(project, "commit", "-qam", "release")
    shutil.rmtree(outside)
    shutil.copytree(project / "dist", outside / "dist")
    assert published_record(None, outside / "dist").find(TAG[1:]) is not None
    proc = publish(project, hub)
    assert proc.returncode == 0, proc.stderr
