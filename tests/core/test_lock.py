"""One writer at a time (core/lock.py): a second command writing a folder refuses in one line
naming the holder; one folder has one lock however its path is typed; a holder that dies or ends
leaves no lock and no lock file behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from neurips_abstracts.core import lock
from neurips_abstracts.core.lock import lock_file, writing

from tests.helpers import HEADER, ROOT, snapshot, synthetic_dumps


def test_a_second_writer_is_refused_in_one_line_naming_the_holder(tmp_path):
    """While one command holds a release's lock, a build of it refuses at once, naming the
    process, and writes nothing; `add` to a raw folder likewise."""
    from tests.helpers import run_process

    raw = tmp_path / "raw"
    synthetic_dumps(raw, papers=20)
    before = snapshot(tmp_path)
    with writing(tmp_path / "dist"):
        proc = run_process("build", "--raw", str(raw), "--out", str(tmp_path / "dist"), "--first-release")
    assert proc.returncode == 1
    assert proc.stderr == (f"{tmp_path / 'dist'}: error: refused: another command (process {os.getpid()}) is writing "
                           "it now: wait for it to end, then run this again\n")
    assert snapshot(tmp_path) == before
    dump = tmp_path / "new.txt"
    dump.write_bytes(f"{HEADER}\n\nA paper on graphs and the kernels that bound them.\n".encode())
    with writing(raw):
        proc = run_process("add", str(dump), "--raw", str(raw))
    assert proc.returncode == 1 and "another command" in proc.stderr and snapshot(raw) == before_raw(before)


def before_raw(before: dict[str, bytes]) -> dict[str, bytes]:
    return {k[len("raw/"):]: v for k, v in before.items() if k.startswith("raw/")}


def test_one_folder_has_one_lock_however_its_path_is_typed(tmp_path, monkeypatch):
    (tmp_path / "raw").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "raw")
    monkeypatch.chdir(tmp_path / "raw")
    assert lock_file("../dist") == lock_file(tmp_path / "dist") == lock_file(tmp_path / "link" / ".." / "dist")
    assert lock_file(".") == lock_file(tmp_path / "raw") != lock_file(tmp_path / "dist")
    with writing("../dist"), writing(tmp_path / "dist"):  # a command's own steps nest
        pass
    # a link to the folder, and a path through a linked folder above it, are the folder itself
    # (``link/..`` alone is resolved without following any link)
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist-link").symlink_to(tmp_path / "dist", target_is_directory=True)
    (tmp_path / "outer").mkdir()
    (tmp_path / "outer" / "project").symlink_to(tmp_path, target_is_directory=True)
    assert lock_file(tmp_path / "dist-link") == lock_file(tmp_path / "dist") == lock_file(tmp_path / "outer" / "project" / "dist")


def test_a_killed_holder_leaves_no_lock_behind(tmp_path):
    """The operating system drops the lock of a process that dies, however it dies."""
    ready = tmp_path / "ready"
    code = ("import sys, time; from neurips_abstracts.core.lock import writing\n"
            "with writing(sys.argv[1]):\n    open(sys.argv[2], 'w').close(); time.sleep(120)\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "dist"), str(ready)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with pytest.raises(Exception, match=f"process {holder.pid}"), writing(tmp_path / "dist"):
            pass
    finally:
        holder.kill()
        holder.wait()
    with writing(tmp_path / "dist"):  # taken at once: nothing to clean up by hand
        pass




def test_a_lock_file_is_removed_when_its_holder_ends_and_the_folder_can_be_locked_again(tmp_path):
    """Lock files piled up in /tmp (thousands): the holder now removes its own as it ends."""
    path = lock_file(tmp_path / "dist")
    with writing(tmp_path / "dist"):
        assert path.is_file()
    assert not path.exists()
    with writing(tmp_path / "dist"):  # and the folder locks again, for one holder only
        proc = subprocess.run([sys.executable, "-c", "import sys\nfrom neurips_abstracts.core.lock import writing\n"
                               "with writing(sys.argv[1]): pass", str(tmp_path / "dist")],
                              capture_output=True, text=True)
        assert proc.returncode != 0 and "is writing it now" in proc.stderr
    assert not path.exists()


@pytest.mark.skipif(os.name == "nt", reason="the holder removes its lock file on POSIX only (Windows cannot remove an open file)")
@pytest.mark.parametrize("made_anew", [True, False])
def test_a_lock_file_removed_by_its_ending_holder_is_locked_anew_at_its_path(tmp_path, monkeypatch, made_anew):
    """The race the holder's removal opens: a process opened the lock file, its holder ended and
    removed it, and another process made a new one at the path. The first one's lock is then on
    a file no path names; it must lock the file at the path, or two would hold one folder."""
    path = lock_file(tmp_path / "dist")
    tries = []
    real_try = lock._try_lock

    def try_lock(fd):
        if not tries:  # the first file opened is removed (and made anew) before it is locked
            path.unlink()
            if made_anew:
                path.write_text("")
        tries.append(os.fstat(fd).st_ino)
        return real_try(fd)

    monkeypatch.setattr(lock, "_try_lock", try_lock)
    with writing(tmp_path / "dist"):
        held = lock._fds[path]
        assert os.fstat(held).st_ino == os.stat(path).st_ino  # the file the path names is the one held
        assert len(tries) == 2  # (the file made by the second try may reuse the first one's inode number)
    assert not path.exists()


def test_a_nested_hold_by_the_same_process_keeps_the_lock_until_the_outer_one_ends(tmp_path):
    """A command's own steps nest (publish holds its stage, then builds into it): the inner
    block's end does not release or remove the outer one's lock."""
    path = lock_file(tmp_path / "dist")
    other = [sys.executable, "-c", "import sys\nfrom neurips_abstracts.core.lock import writing\n"
             "with writing(sys.argv[1]): pass", str(tmp_path / "dist")]
    with writing(tmp_path / "dist"):
        with writing(tmp_path / "dist"):
            assert path.is_file()
        assert path.is_file()  # still the outer hold's
        proc = subprocess.run(other, capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode != 0 and "is writing it now" in proc.stderr
    assert not path.exists()
    assert subprocess.run(other, capture_output=True, text=True, cwd=ROOT).returncode == 0


@pytest.mark.skipif(os.name == "nt", reason="Windows has no /tmp")
def test_every_process_locks_in_tmp_whatever_its_tmpdir(tmp_path, monkeypatch):
    """Two shells with other TMPDIRs must lock the same file for one folder."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "elsewhere"))
    assert lock_file(tmp_path / "dist").parent == lock._lock_dir() == __import__("pathlib").Path("/tmp")
