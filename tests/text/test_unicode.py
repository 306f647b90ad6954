"""One pinned Unicode version (text/unicode.py) decides every character rule that shapes output
bytes, whatever the interpreter's ``unicodedata.unidata_version``: the expected values below
come from the pinned ``unicodedata2``, never from the interpreter."""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
import unicodedata
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import unicodedata2

from neurips_abstracts.build import build
from neurips_abstracts.core.errors import DumpError
from neurips_abstracts.core.names import data_path
from neurips_abstracts.ingest.parse import parse_header
from neurips_abstracts.text.normalize import normalize
from neurips_abstracts.text.plain import to_plain
from neurips_abstracts.text.unicode import UNICODE_VERSION, is_alnum_char, is_alpha_char

from tests.helpers import HEADER, ROOT

UNICODE_FIXTURE = ROOT / "tests" / "data" / "unicode"
PACKAGE = ROOT / "src" / "neurips_abstracts"
# The modules whose rules shape the bytes of dist/ (validate's warnings do not).
SHAPING_MODULES = sorted(
    [*(PACKAGE / "text").glob("*.py"), *(PACKAGE / "dedup").glob("*.py"), PACKAGE / "ingest" / "parse.py",
     PACKAGE / "core" / "names.py"])
ALL_CHARS = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]

NEW_SYMBOL = "\U0001FAE8"  # So from Unicode 15.0; unassigned (Cn) in Python 3.11's 14.0
NEW_MARK = "\U0001E08F"  # Mn, combining class 230, from 15.0
NEW_DIGITS = "\U00011F52\U00011F50"  # Kawi digits two and zero (Nd), from 15.0
NEW_LETTER = "\U00011F05"  # a Kawi letter (Lo), from 15.0


def test_the_pinned_version_knows_the_characters_of_the_fixture():
    # the fixture means something only if the pinned version is 15.0 or later
    assert tuple(map(int, UNICODE_VERSION.split("."))) >= (15, 0, 0)
    assert UNICODE_VERSION == unicodedata2.unidata_version
    assert [unicodedata2.category(c) for c in (NEW_SYMBOL, NEW_MARK, NEW_LETTER)] == ["So", "Mn", "Lo"]
    assert [unicodedata2.decimal(c) for c in NEW_DIGITS] == [2, 0]


def test_nfc_is_the_pinned_version_s():
    text = "a" + NEW_MARK + "\u0323"
    assert normalize(text) == unicodedata2.normalize("NFC", text) == "\u1ea1" + NEW_MARK
    # wherever the interpreter's tables say otherwise (Python 3.11), ours still win
    assert normalize("Ac" + text) == "Ac\u1ea1" + NEW_MARK


def test_emphasis_flanking_reads_the_pinned_categories():
    # U+1FAE8 is a symbol (punctuation for CommonMark's flanking rules) in the pinned version: a
    # "*" between a letter and a symbol can close only, one between a symbol and a letter open only
    assert unicodedata2.category(NEW_SYMBOL)[0] in "PS"
    assert to_plain(normalize(f"a*{NEW_SYMBOL}*b")) == f"a*{NEW_SYMBOL}*b"
    assert to_plain(f"x *{NEW_SYMBOL}* y") == f"x {NEW_SYMBOL} y"


def test_latex_rules_read_the_pinned_letters_and_digits():
    # decimal digits make an atom (no parentheses); a letter after an operator name is kept apart
    assert to_plain(f"$x^{{{NEW_DIGITS}}}$") == f"x^{NEW_DIGITS}"
    assert to_plain(f"$\\sin{NEW_LETTER}$") == f"sin {NEW_LETTER}"


def test_the_pinned_predicates_are_what_str_methods_read():
    """is_alnum_char and is_alpha_char are str.isalnum and str.isalpha defined on the tables of
    unicodedata: checked on the interpreter's own tables, where str reads the same ones."""
    ud = unicodedata
    for c in ALL_CHARS:
        letter = ud.category(c)[0] == "L"
        assert c.isalpha() == letter, hex(ord(c))
        assert c.isalnum() == (letter or ud.numeric(c, None) is not None), hex(ord(c))
        assert c.isdecimal() == (ud.decimal(c, None) is not None), hex(ord(c))
    assert is_alnum_char(NEW_DIGITS[0]) and is_alpha_char(NEW_LETTER) and not is_alnum_char(NEW_SYMBOL)


def test_white_space_is_the_same_in_the_interpreter_and_in_the_pinned_tables():
    """What text/unicode.py leaves to the interpreter: str.split, str.isspace and re's \\s read
    white space (categories Zs, Zl, Zp and bidirectional classes WS, B, S), the same set in every
    supported Python; a Python whose set differed from the pinned one fails here."""
    pinned = {c for c in ALL_CHARS if unicodedata2.category(c) in ("Zs", "Zl", "Zp")
              or unicodedata2.bidirectional(c) in ("WS", "B", "S")}
    assert {c for c in ALL_CHARS if c.isspace()} == pinned
    space = re.compile(r"\s")
    assert {c for c in ALL_CHARS if space.match(c)} == pinned


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_unicode_tables_are_read_in_one_place():
    readers = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if _imports(p) & {"unicodedata", "unicodedata2"}}
    assert readers == {"text/unicode.py"}


_NON_ASCII_PREDICATE_RE = re.compile(r"\.is(?:alnum|alpha|decimal|digit|numeric|upper|lower|title|identifier|printable)\(")


@pytest.mark.parametrize("path", SHAPING_MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_shaping_modules_read_no_interpreter_character_class(path):
    """A str predicate that reads the interpreter's tables is used only on ASCII (the line tests
    it, or its comment says so) or as a shortcut named here; no regular expression uses \\w, \\d or \\b without
    re.ASCII."""
    shortcuts = {"text/normalize.py", "text/plain.py"}  # isprintable: a shortcut, same output either way
    module = importlib.import_module("neurips_abstracts." + path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", "."))
    for name, value in vars(module).items():
        if isinstance(value, re.Pattern) and isinstance(value.pattern, str) and not value.flags & re.ASCII:
            assert not re.search(r"(?<!\\)(?:\\\\)*\\[dDwWbB]", value.pattern), f"{path.name}: {name} reads the interpreter's tables"
    if path.name == "unicode.py":
        return
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("#")[0]
        for m in _NON_ASCII_PREDICATE_RE.finditer(code):
            if m.group() == ".isprintable(" and path.relative_to(PACKAGE).as_posix() in shortcuts:
                continue
            assert "isascii()" in code or "range(128)" in code or "ASCII" in line[len(code):], f"{path.name}:{k}: {line.strip()}"


def test_a_header_year_is_ascii_digits():
    assert parse_header("001_x.txt", HEADER, None, None)[1] == 2026
    with pytest.raises(DumpError, match="not the header"):
        parse_header("001_x.txt", HEADER.replace("2026", "\U00011F52\U00011F50\U00011F52\U00011F56"), None, None)


def test_the_fixture_dump_builds_to_the_pinned_version_s_bytes(tmp_path):
    """The committed fixture of characters new in Unicode 15 (.ci/compare_pythons builds it on
    the oldest and the newest supported Python and compares every byte)."""
    out = tmp_path / "dist"
    build(UNICODE_FIXTURE, out, previous=None)
    papers = pq.read_table(out / data_path("papers")).to_pylist()
    abstracts = {r["abstract"]: r["abstract_plain"] for r in papers}
    records = [t for f in sorted(UNICODE_FIXTURE.glob("*.txt")) for t in f.read_text(encoding="utf-8").split("\n\n")[1:]]
    assert sorted(abstracts) == sorted(unicodedata2.normalize("NFC", t.strip()) for t in records)
    assert any(("\u1ea1" + NEW_MARK) in a for a in abstracts)
    assert any(f"a*{NEW_SYMBOL}*b" in p for p in abstracts.values())
    assert any(f"x^{NEW_DIGITS}" in p for p in abstracts.values())
    manifest = json.loads((out / "build_manifest.json").read_text(encoding="utf-8"))
    assert manifest["unicode_version"] == unicodedata2.unidata_version
    assert manifest["packages"]["unicodedata2"] == importlib.metadata.version("unicodedata2")
    if sys.version_info >= (3, 12):
        return
    # on Python 3.11 the interpreter's NFC disagrees with the bytes written
    assert unicodedata.normalize("NFC", "a" + NEW_MARK + "\u0323") != "\u1ea1" + NEW_MARK


def test_ci_compares_the_ends_of_the_supported_range():
    """The oldest and the newest Python of requires-python are the ones the pull-request tests,
    .ci/compare_pythons and the scheduled workflow run."""
    import tomllib

    import yaml

    spec = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    low = re.fullmatch(r">=3\.(\d+),<3\.(\d+)", spec)
    assert low, spec
    oldest, newest = f"3.{low[1]}", f"3.{int(low[2]) - 1}"
    workflows = ROOT / ".github" / "workflows"
    matrix = yaml.safe_load((workflows / "pull-request.yml").read_text())["jobs"]["tests"]["strategy"]["matrix"]
    assert matrix["python"] == [oldest, newest]
    scheduled = yaml.safe_load((workflows / "scheduled.yml").read_text())["jobs"]["same-bytes"]["steps"]
    assert scheduled[1]["with"]["python-version"].split() == [oldest, newest]
    assert f".ci/compare_pythons python{oldest} python{newest}" in [s.get("run") for s in scheduled]
    assert f'"${{1:-python{oldest}}}" "${{2:-python{newest}}}"' in (ROOT / ".ci" / "compare_pythons").read_text()
