"""Git advice only where it works: ``git checkout`` named only for a path git tracks, ``git add``
only in a clone (issue 41: advice named `git checkout -- dist` for a release folder git does not
track, where it restores nothing)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from neurips_abstracts.core.clones import checkout_command, clone_of


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def test_checkout_is_advised_only_for_what_git_tracks(tmp_path, monkeypatch):
    root = tmp_path / "clone"
    (root / "dist").mkdir(parents=True)
    (root / "dist" / "a.txt").write_text("a")
    (root / "built").mkdir()
    (root / "built" / "b.txt").write_text("b")
    _git(root, "init", "-q")
    _git(root, "add", "dist")
    _git(root, "commit", "-qm", "dist only")
    monkeypatch.chdir(root)
    assert checkout_command(root / "dist") == "git checkout -- dist"
    (root / "dist" / "a.txt").unlink()  # deleted, still in the index: checkout restores it
    assert checkout_command(root / "dist" / "a.txt") == "git checkout -- dist/a.txt"
    assert checkout_command(root / "built") is None  # in the clone, but git holds nothing of it
    assert checkout_command(root / "gone") is None
    monkeypatch.chdir(tmp_path)
    assert checkout_command(root / "dist") == f"git -C {root.resolve()} checkout -- dist"
    outside = tmp_path / "outside"
    outside.mkdir()
    assert checkout_command(outside) is None and clone_of(outside) is None
    assert clone_of(root / "built" / "not-yet") == root.resolve()


def _show(root: Path, spec: str) -> bytes | None:
    proc = subprocess.run(["git", "-C", str(root), "show", spec], capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


def test_blobs_read_what_git_show_prints_of_each_file(tmp_path):
    """One ``git cat-file`` process gives every file's bytes as ``git show`` does (binary, CRLF,
    no final newline, a name with spaces, an empty file), None where show fails, and a folder
    as show lists it; after its process broke, the rest are asked of show."""
    from neurips_abstracts.core.clones import Blobs

    root = tmp_path / "clone"
    (root / "dist" / "a folder").mkdir(parents=True)
    files = {"dist/m.json": b'{"dataset_version": "1.0.0"}\n', "dist/crlf.md": b"a\r\nb\r\n", "dist/bin": bytes(range(256)),
             "dist/a folder/no newline.txt": "é".encode() * 5000, "dist/empty": b""}
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    _git(root, "init", "-q")
    _git(root, "add", "dist")
    _git(root, "commit", "-qm", "one")
    (root / "dist" / "m.json").write_bytes(b"{}")
    _git(root, "commit", "-qam", "two")
    specs = [f"HEAD~1:{rel}" for rel in files] + ["HEAD:dist/m.json", "HEAD~1:dist/m.json", "HEAD:dist/missing",
             "nosuchrev:dist/m.json", "HEAD:dist", "HEAD:dist/a folder", "HEAD~5:dist/m.json"]
    with Blobs(root) as blobs:
        got = [blobs.read(spec) for spec in specs]
        assert blobs._proc is not None and blobs._proc.poll() is None  # one process answered them all
        blobs._proc.kill()
        blobs._proc.wait()
        after = [blobs.read(spec) for spec in specs]
    assert got == after == [_show(root, spec) for spec in specs]
    assert got[:len(files)] == list(files.values()) and got[len(files)] == b"{}"
    assert got[-5:-2] == [None, None, _show(root, "HEAD:dist")] and b"m.json" in got[-3] and got[-1] is None


def test_blobs_without_git_read_nothing(tmp_path, monkeypatch):
    from neurips_abstracts.core.clones import Blobs

    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    with Blobs(tmp_path) as blobs:
        assert blobs.read("HEAD:dist/build_manifest.json") is None


@pytest.mark.skipif(os.name == "nt", reason="quoted for a POSIX shell (or PowerShell); cmd.exe reads quotes otherwise")
def test_checkout_advice_is_quoted_for_a_shell_and_works_as_printed(tmp_path, monkeypatch):
    """A clone or a file whose path holds a space gets a command a shell runs as printed (one
    without quotes failed: "cannot change to '…/my'"); ``revision`` takes it from a commit."""
    import shlex

    root = tmp_path / "my proj"
    (root / "raw dumps").mkdir(parents=True)
    dump = root / "raw dumps" / "a b.txt"
    dump.write_text("published")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "published")
    dump.write_text("edited")
    _git(root, "add", "-A")  # staged: only a commit still holds the published bytes
    monkeypatch.chdir(tmp_path)
    command = checkout_command(dump, "HEAD")
    assert command == f"git -C {shlex.quote(str(root.resolve()))} checkout HEAD -- 'raw dumps/a b.txt'"
    subprocess.run(command, shell=True, check=True, capture_output=True, cwd=tmp_path)
    assert dump.read_text() == "published"
    monkeypatch.chdir(root)
    assert checkout_command(dump) == "git checkout -- 'raw dumps/a b.txt'"
