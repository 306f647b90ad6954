import os
import shutil
import subprocess

import pytest

from neurips_abstracts.build import build

from .conftest import make_dump, run_cli, seed_files
from .hub_server import Hub

TOKEN = "hf_testTOKENvalue123456789"
OTHER = "hf_otherUSERtoken987654321"


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@x"})


@pytest.fixture
def project(tmp_path):
    """A committed checkout holding raw/ (the seeds) and its build in dist/."""
    root = tmp_path / "project"
    (root / "raw").mkdir(parents=True)
    for f in seed_files():
        shutil.copy(f, root / "raw" / f.name)
    build(root / "raw", root / "dist")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "release")
    return root


@pytest.fixture
def hub():
    with Hub({TOKEN: ("alice", ["neurips-org"]), OTHER: ("mallory", [])}) as h:
        yield h


def publish(project, hub, *args, token=TOKEN, endpoint=None):
    env = {"HF_ENDPOINT": endpoint or hub.endpoint, "HF_HOME": str(project.parent / "hf-home"), "HF_HUB_DISABLE_TELEMETRY": "1"}
    if token:
        env["HF_TOKEN"] = token
    else:
        env["HF_TOKEN"] = ""
    proc = run_cli("publish", "--dist", str(project / "dist"), "--raw", str(project / "raw"), "--backoff", "0.01", *args,
                   env=env)
    for secret in (TOKEN, OTHER):
        assert secret not in proc.stdout and secret not in proc.stderr
    return proc


def dist_bytes(project):
    dist = project / "dist"
    return {p.relative_to(dist).as_posix(): p.read_bytes() for p in dist.rglob("*") if p.is_file()}


def test_first_release_is_one_commit_with_exactly_dist_and_a_tag(project, hub):
    proc = publish(project, hub, "--repo-id", "neurips-org/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert len(hub.commits_received()) == 1
    files = hub.head_files("neurips-org/abstracts")
    assert {k: v for k, v in files.items() if k != ".gitattributes"} == dist_bytes(project)
    repo = hub.repos["neurips-org/abstracts"]
    assert repo.tags == {"v1.0.0": repo.branches["main"]}
    head = repo.branches["main"]
    assert f"/datasets/neurips-org/abstracts/commit/{head}" in proc.stdout
    assert "/datasets/neurips-org/abstracts/tree/v1.0.0" in proc.stdout
    assert 'load_dataset("neurips-org/abstracts", revision="v1.0.0")' in proc.stdout
    commit = hub.commits_received()[0]
    assert b'"parentCommit"' in commit.body and commit.headers["authorization"] == f"Bearer {TOKEN}"
    assert any(r.path == "/api/validate-yaml" for r in hub.requests)


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
    assert files["README.md"] == (project / "dist" / "README.md").read_bytes()
    assert "delete    stale/old.parquet" in proc.stdout and "update    README.md" in proc.stdout


def test_existing_tag_on_other_content_is_not_moved_without_force(project, hub):
    assert publish(project, hub, "--repo-id", "alice/abstracts").returncode == 0
    tagged = hub.repos["alice/abstracts"].tags["v1.0.0"]
    (project / "raw" / "009_aaaaaaaaaaaaaaaa.txt").write_bytes(make_dump(["Another new abstract about kernel methods."]))
    build(project / "raw", project / "dist")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "new dump, same version")
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 1 and "tag v1.0.0 already exists" in proc.stderr and "--force-tag" in proc.stderr
    assert len(hub.commits_received()) == 1 and hub.repos["alice/abstracts"].tags["v1.0.0"] == tagged
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--force-tag")
    assert proc.returncode == 0, proc.stderr
    repo = hub.repos["alice/abstracts"]
    assert repo.tags["v1.0.0"] == repo.branches["main"] != tagged


def test_republishing_the_same_dist_makes_no_commit(project, hub):
    assert publish(project, hub, "--repo-id", "alice/abstracts").returncode == 0
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0 and "no new commit" in proc.stdout
    assert len(hub.commits_received()) == 1


def test_dry_run_lists_dist_and_contacts_nothing(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert hub.requests == []
    import hashlib

    listed = [line.split() for line in proc.stdout.splitlines() if line.startswith("  add")]
    expected = {name: (str(len(data)), hashlib.sha256(data).hexdigest()) for name, data in dist_bytes(project).items()}
    assert {row[1]: (row[2], row[5]) for row in listed} == expected
    assert "Commit message: Release v1.0.0" in proc.stdout and "Tag: v1.0.0" in proc.stdout


def test_no_token(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", token=None)
    assert proc.returncode == 1 and "no token" in proc.stderr
    assert hub.requests == []


def test_rejected_token(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", token="hf_wrongTOKENwrongTOKEN")
    assert proc.returncode == 1 and "rejected the token (401)" in proc.stderr
    assert "hf_wrongTOKENwrongTOKEN" not in proc.stderr + proc.stdout
    assert hub.commits_received() == []


def test_repository_owned_by_someone_else(project, hub):
    hub.add_repo("alice/abstracts", "alice")
    proc = publish(project, hub, "--repo-id", "alice/abstracts", token=OTHER)
    assert proc.returncode == 1 and "owned by alice" in proc.stderr
    assert hub.commits_received() == []


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


def test_transient_errors_are_retried_with_backoff(project, hub):
    hub.fail("GET", r"/refs$", 503, times=2)
    hub.fail("POST", r"/commit/", 502, times=1)
    proc = publish(project, hub, "--repo-id", "alice/abstracts")
    assert proc.returncode == 0, proc.stderr
    assert "read refs: HTTP 503, retrying" in proc.stdout and "commit: HTTP 502, retrying" in proc.stdout
    assert len(hub.commits_received()) == 2  # the failed try and the good one
    assert "v1.0.0" in hub.repos["alice/abstracts"].tags


def test_persistent_5xx_gives_up_clearly(project, hub):
    hub.fail("GET", r"/refs$", 500, times=10)
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--attempts", "3")
    assert proc.returncode == 1 and "read refs: gave up after 3 attempts (HTTP 500)" in proc.stderr
    assert hub.commits_received() == []


def test_unreachable_hub_gives_up_clearly(project, hub):
    proc = publish(project, hub, "--repo-id", "alice/abstracts", "--attempts", "2", endpoint="http://127.0.0.1:9")
    assert proc.returncode == 1 and "gave up after 2 attempts (ConnectError)" in proc.stderr


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
