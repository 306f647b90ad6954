import os

import pytest

from neurips_abstracts.core.names import data_path

from tests.helpers import HEADER, run_cli

GOOD = f"{HEADER}\n\nA fine abstract.".encode()


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def built(raw_copy, tmp_path):
    dist = tmp_path / "dist"
    proc = run_cli("build", "--raw", str(raw_copy), "--out", str(dist))
    assert proc.returncode == 0, proc.stderr
    return raw_copy, dist, snapshot(dist)


CASES = {
    "invalid_utf8": (f"{HEADER}\n\nGood line.\n\nBad \xff byte".encode("latin-1", "replace").replace(b"?", b""),
                     None),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20, None),
    "empty": (b"", None),
    "header_only": (f"{HEADER}\n\n\n".encode(), None),
    "missing_header": (b"An abstract where the header should be.\n\nAnother.", None),
    "nul_byte": (f"{HEADER}\n\nAn abstract\x00 with a NUL.".encode(), None),
    "utf16": (f"{HEADER}\n\nAn abstract saved as Notepad's 'Unicode'.".encode("utf-16"), None),
    "utf32": (f"{HEADER}\n\nAn abstract saved as UTF-32.".encode("utf-32"), None),
    "utf16le_no_mark": (f"{HEADER}\n\nAn abstract saved as UTF-16LE with no mark.".encode("utf-16-le"), None),
    "utf16be_no_mark": (f"{HEADER}\n\nAn abstract saved as UTF-16BE with no mark.".encode("utf-16-be"), None),
    "control_in_header": ("NeurIPS\x07 2026 论文列表\n\nText.".encode(), None),
    "controls_only_record": (f"{HEADER}\n\nFine.\n\n\x08\x07\n".encode(), None),
}
EXPECT = {
    "invalid_utf8": ("invalid UTF-8", ":5:"),
    "binary": ("binary", None),
    "empty": ("empty file", None),
    "header_only": ("header only", ":1"),
    "missing_header": ("missing header", ":1"),
    "nul_byte": ("NUL byte", ":3:"),
    "utf16": ("UTF-16 text (as Notepad saves 'Unicode'), not UTF-8: save the file as UTF-8", ":1:1"),
    "utf32": ("UTF-32 text (as Notepad saves 'Unicode'), not UTF-8: save the file as UTF-8", ":1:1"),
    "utf16le_no_mark": ("UTF-16LE text without a byte order mark, not UTF-8: save the file as UTF-8", ":1:1"),
    "utf16be_no_mark": ("UTF-16BE text without a byte order mark, not UTF-8: save the file as UTF-8", ":1:1"),
    "control_in_header": ("control character", ":1:"),
    "controls_only_record": ("no visible text", ":5"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_dump_refused_and_dist_untouched(built, case):
    raw, dist, before = built
    data, _ = CASES[case]
    name = f"010_{sorted(CASES).index(case):016x}.txt"
    (raw / name).write_bytes(data)
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode != 0
    message, where = EXPECT[case]
    assert name in proc.stderr and message in proc.stderr, proc.stderr
    if where:
        assert f"{name}{where}" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(dist) == before
    assert not [p for p in dist.parent.iterdir() if p.name.startswith(".dist.")]


def test_invalid_utf8_names_line_and_byte(built):
    raw, dist, before = built
    (raw / "011_000000000000000b.txt").write_bytes(f"{HEADER}\n\nok\n\n".encode() + b"bad \xc3\x28 here")
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1
    assert "011_000000000000000b.txt:5:" in proc.stderr and "invalid UTF-8" in proc.stderr


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


def test_header_of_another_year_refused(built):
    raw, dist, before = built
    (raw / "015_000000000000000f.txt").write_bytes("NeurIPS 2025 论文列表\n\nText.".encode())
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1 and "015_000000000000000f.txt:1" in proc.stderr and "NeurIPS 2025" in proc.stderr
    assert snapshot(dist) == before


def test_stray_file_refused(built):
    raw, dist, before = built
    (raw / "notes.md").write_text("hello")
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1 and "notes.md" in proc.stderr
    assert (dist / data_path("papers")).exists() and snapshot(dist) == before
