"""Bad dumps: bytes that are not a dump (another encoding, binary, empty, no header or another
year's, NUL and control characters, no visible text) are refused by the build in one line naming
the file and line, with dist/ untouched; validate names line and column too."""

import pytest

from tests.helpers import ABSTRACT, HEADER, make_dump, run_cli, snapshot

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
    "missing_header": ("not the header", ":1"),
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


def test_header_of_another_year_refused(built):
    raw, dist, before = built
    (raw / "015_000000000000000f.txt").write_bytes("NeurIPS 2025 论文列表\n\nText.".encode())
    proc = run_cli("build", "--raw", str(raw), "--out", str(dist))
    assert proc.returncode == 1 and "015_000000000000000f.txt:1" in proc.stderr and "NeurIPS 2025" in proc.stderr
    assert "header names NeurIPS 2025, but this project's dumps start with 'NeurIPS 2026 论文列表'" in proc.stderr
    assert snapshot(dist) == before


def test_encoding_error_names_line_and_column(tmp_path):
    path = tmp_path / "010_0000000000000001.txt"
    path.write_bytes(make_dump([ABSTRACT]) + b"\n\nBad \xe9 byte")
    proc = run_cli("validate", str(path))
    assert proc.returncode == 1
    assert f"{path}:5:5: error: invalid UTF-8" in proc.stdout
