"""Bad raw folders: what a raw folder holds besides its dumps (links out of it or into it, copies
of a dump, misnamed dumps, stray files, subfolders, metadata files of other bytes). The build
refuses what it must, naming the entry, with dist/ untouched, and validate reports the same."""

import hashlib
import os

import pytest

from neurips_abstracts.core.names import data_path
from neurips_abstracts.ingest.validate import validate

from tests.helpers import ABSTRACT, HEADER, copy_seeds, make_dump, run_cli, snapshot

GOOD = f"{HEADER}\n\nA fine abstract.".encode()


def symlink(target, link):
    try:
        os.symlink(target, link)
    except OSError as exc:  # Windows without the right to make links
        pytest.skip(f"no symbolic links here: {exc}")


def test_link_outside_raw_refused(built, tmp_path):
    raw, dist, before = built
    outside = tmp_path / "elsewhere.txt"
    outside.write_bytes(GOOD)
    symlink(outside, raw / "012_000000000000000c.txt")
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1
    assert "012_000000000000000c.txt" in proc.stderr and "outside" in proc.stderr
    assert snapshot(dist) == before


def test_link_inside_raw_is_followed(built):
    raw, dist, _ = built
    (raw / ".staging").mkdir()  # hidden: skipped, but a link may lead into it
    (raw / ".staging" / "dump").write_bytes(GOOD)
    symlink(raw / ".staging" / "dump", raw / "014_000000000000000e.txt")
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 0, proc.stderr
    assert "39 records" in proc.stdout


def test_copy_of_a_dump_refused(built):
    raw, dist, before = built
    first = sorted(raw.glob("*.txt"))[0]
    (raw / "016_0000000000000010.txt").write_bytes(first.read_bytes())
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1 and "016_0000000000000010.txt" in proc.stderr and first.name in proc.stderr
    assert snapshot(dist) == before


def test_stray_file_refused(built):
    raw, dist, before = built
    (raw / "notes.md").write_text("hello")
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1 and "notes.md" in proc.stderr
    assert (dist / data_path("papers")).exists() and snapshot(dist) == before


# The build and validate on the same folders: a folder the build refuses gets validate's error
# with the same code and message; a folder it accepts gets no error. Each case adds one entry to
# a folder holding one good dump.
GOOD_NAME = "000_0000000000000001.txt"
SECOND = "001_0000000000000002.txt"


def _sidecar(raw, name, sha256):
    from neurips_abstracts.ingest.sidecar import DumpMeta, sidecar_name

    (raw / sidecar_name(name)).write_text(DumpMeta(name, sha256, None, None, "2026-11-01").to_json())


def _link(raw, name, target):
    os.symlink(target, raw / name)


FOLDERS = {
    "misnamed dump": lambda raw, tmp: (raw / "new-dump.txt").write_bytes(make_dump([ABSTRACT])),
    "not a .txt": lambda raw, tmp: (raw / "notes.md").write_text("notes"),
    "metadata without its dump": lambda raw, tmp: (raw / "000_0000000000000001.json").write_text("{}"),
    "metadata not JSON": lambda raw, tmp: (raw / GOOD_NAME.replace(".txt", ".json")).write_text("{not json"),
    "metadata of other bytes": lambda raw, tmp: _sidecar(raw, GOOD_NAME, "0" * 64),
    "metadata of these bytes": lambda raw, tmp: _sidecar(raw, GOOD_NAME, hashlib.sha256((raw / GOOD_NAME).read_bytes()).hexdigest()),
    "subfolder": lambda raw, tmp: (raw / "more").mkdir(),
    "hidden file": lambda raw, tmp: (raw / ".gitkeep").write_text(""),
    "hidden folder": lambda raw, tmp: (raw / ".cache").mkdir(),
    "link out of raw": lambda raw, tmp: _link(raw, SECOND, tmp / "outside.txt"),
    "link inside raw": lambda raw, tmp: _link(raw, SECOND, raw / GOOD_NAME),  # a copy, through a link
    "copy": lambda raw, tmp: (raw / SECOND).write_bytes((raw / GOOD_NAME).read_bytes()),
    "empty folder": lambda raw, tmp: (raw / GOOD_NAME).unlink() or (raw / ".gitkeep").write_text(""),
    "only controls": lambda raw, tmp: (raw / SECOND).write_bytes(make_dump([ABSTRACT.replace("We", "They"), "\x07\x08"])),
    "invisible line": lambda raw, tmp: (raw / SECOND).write_bytes(
        f"{HEADER}\n\n{ABSTRACT.replace('We', 'They')}\n\ufeff\u2060\u00a0\n{ABSTRACT.replace('We', 'You')}".encode()),
    "invalid UTF-8": lambda raw, tmp: (raw / SECOND).write_bytes(make_dump([ABSTRACT]) + b"\n\nBad \xe9"),
    "wrong header": lambda raw, tmp: (raw / SECOND).write_bytes(make_dump([ABSTRACT], header="ICML 2026 论文列表")),
    "fifo": lambda raw, tmp: os.mkfifo(raw / SECOND),
}


# case -> the code both report (None: both accept the folder)
EXPECTED = {
    "misnamed dump": "file-name", "not a .txt": "not-a-dump", "metadata without its dump": "metadata",
    "metadata not JSON": "metadata", "metadata of other bytes": "edited", "metadata of these bytes": None,
    "subfolder": "folder", "hidden file": None, "hidden folder": None, "link out of raw": "link",
    "link inside raw": "copy", "copy": "copy", "empty folder": "empty-folder", "only controls": "empty-record",
    "invisible line": None, "invalid UTF-8": "parse", "wrong header": "parse", "fifo": "not-a-file",
}


@pytest.mark.parametrize("case", sorted(FOLDERS))
def test_validate_and_build_agree(tmp_path, case):
    from neurips_abstracts.build import produce
    from neurips_abstracts.core.errors import DumpError

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / GOOD_NAME).write_bytes(make_dump([ABSTRACT]))
    (tmp_path / "outside.txt").write_bytes(b"SECRET CONTENT, not a dump")
    try:
        FOLDERS[case](raw, tmp_path)
    except (OSError, AttributeError, NotImplementedError) as exc:  # no links or FIFOs on this system
        pytest.skip(f"{case}: {exc}")
    findings = validate([raw], raw_dir=raw)
    errors = [f for f in findings if f.severity == "error"]
    try:
        produce(raw)
        built = None
    except DumpError as exc:
        built = exc
    assert EXPECTED[case] == (built.code if built else None) == (errors[0].code if errors else None), (built, findings)
    if built:
        assert (built.message, built.line) in {(f.message, f.line) for f in errors if f.code == built.code}
        assert any(f.file == str(raw if built.code == "empty-folder" else raw / built.file) for f in errors)
    assert not any("SECRET" in f.message for f in findings)


def test_validate_does_not_read_through_a_link_out_of_raw(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / GOOD_NAME).write_bytes(make_dump([ABSTRACT]))
    secret = tmp_path / "secret"
    secret.write_text("SECRET CONTENT\nline two")
    try:
        os.symlink(secret, raw / SECOND)
    except OSError as exc:
        pytest.skip(f"no symbolic links here: {exc}")
    for args in (["validate", "--raw", str(raw)], ["validate", str(raw / SECOND)], ["validate", str(raw)]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 1 and "link pointing outside" in proc.stdout, proc.stdout
        assert "SECRET" not in proc.stdout + proc.stderr and "secret" not in proc.stdout + proc.stderr


def test_missing_path_and_misnamed_dump(tmp_path):
    findings = validate([tmp_path / "nowhere.md", tmp_path / "gone"], raw_dir=tmp_path / "none")
    assert [(f.code, f.message) for f in findings] == [("missing", "no such file")] * 2
    misnamed = tmp_path / "my-dump.txt"
    misnamed.write_bytes(make_dump([ABSTRACT, "\x07"]))
    assert [f.code for f in validate([misnamed], raw_dir=tmp_path / "none")] == ["empty-record"]
    assert [f.code for f in validate([misnamed], raw_dir=tmp_path)] == ["file-name", "empty-record", "no-metadata"]


def test_name_rule_is_raws_alone_and_add_agrees(tmp_path):
    """A contributor's own file is judged by its content wherever it is; inside raw/ its name
    must be NNN_<hex>.txt, and `add` (which names files) accepts what validate accepts outside."""
    raw = copy_seeds(tmp_path / "raw")
    mine = tmp_path / "my_crawl.txt"
    mine.write_bytes(make_dump([ABSTRACT]))
    outside = run_cli("validate", "--raw", str(raw), str(mine))
    assert outside.returncode == 0 and "file-name" not in outside.stdout, outside.stdout
    assert outside.stderr.strip() == "0 errors, 0 warnings"
    for folder in (tmp_path / "mine", raw):
        folder.mkdir(exist_ok=True)
        (folder / "my_crawl.txt").write_bytes(make_dump([ABSTRACT.replace("We", "They")]))
    elsewhere = run_cli("validate", "--raw", str(raw), str(tmp_path / "mine"))
    assert elsewhere.returncode == 0, elsewhere.stdout
    inside = run_cli("validate", "--raw", str(raw), str(raw / "my_crawl.txt"))
    assert inside.returncode == 1 and "[file-name]" in inside.stdout
    assert "1 error, " in inside.stderr, inside.stderr
    (raw / "my_crawl.txt").unlink()
    added = run_cli("add", str(mine), "--raw", str(raw))
    assert added.returncode == 0 and f"added {raw.as_posix()}/" in added.stdout, added.stderr
