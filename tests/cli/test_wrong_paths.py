"""Every command against a table of wrong inputs: each gets one line naming the path, a
non-zero exit, no traceback, and nothing written.

Most rows call the CLI in-process (click's runner: same code path as a user's process, much
faster); the rows in SUBPROCESS run it as a new process. `python -m tests.cli.test_wrong_paths`
prints the table of the messages each row gives, as markdown.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import ROOT, copy_seeds, make_dump

DUMP = "000_400c640f3220c26d.txt"
OCC = "dist/data/occurrences/train-00000-of-00001.parquet"
INPUTS = [
    "missing path", "file for a folder", "folder for a file", "unreadable file", "symbolic link loop",
    "empty folder", "damaged Parquet", "damaged JSON", "damaged manifest", "no such git revision",
    "another project's folder",
]
COMMANDS = ["build", "add", "check", "verify", "validate", "diff", "publish --dry-run"]


def make_unreadable(path: Path, monkeypatch) -> None:
    """Mode 0o000. Root reads such a file all the same, so as root the refusal the kernel gives
    everyone else (EACCES) is given by ``open`` itself for this one path (in-process rows only)."""
    path.chmod(0)
    if getattr(os, "geteuid", lambda: -1)() == 0:
        real_open, target = io.open, str(path.resolve())

        def refusing_open(file, *args, **kwargs):
            if isinstance(file, (str, os.PathLike)) and os.path.abspath(file) == target:
                raise PermissionError(13, "Permission denied", os.fspath(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(io, "open", refusing_open)
        monkeypatch.setattr(builtins, "open", refusing_open)


def loop(path: Path) -> None:
    path.symlink_to(path.name)


Setup = Callable[[Path, object], list[str]]
# (input, command) -> (setup returning the arguments, the path the message must name)
CASES: dict[tuple[str, str], tuple[Setup, str]] = {
    ("missing path", "build"): (lambda ws, mp: ["build", "--raw", "nope"], "nope"),
    ("missing path", "add"): (lambda ws, mp: ["add", "nope.txt"], "nope.txt"),
    ("missing path", "check"): (lambda ws, mp: ["check", "--raw", "nope", "--no-docs"], "nope"),
    ("missing path", "check --dist"): (lambda ws, mp: ["check", "--dist", "nope", "--no-docs"], "nope"),
    ("missing path", "verify"): (lambda ws, mp: ["verify", "nope"], "nope"),
    ("missing path", "validate"): (lambda ws, mp: ["validate", "nope.txt"], "nope.txt"),
    ("missing path", "diff"): (lambda ws, mp: ["diff", "nope", "dist"], "nope"),
    ("missing path", "publish --dry-run"): (lambda ws, mp: ["publish", "--dry-run", "--dist", "nope"], "nope"),

    ("file for a folder", "build"): (lambda ws, mp: ["build", "--raw", "notes.txt"], "notes.txt"),
    ("file for a folder", "add"): (lambda ws, mp: ["add", "good.txt", "--raw", "notes.txt"], "notes.txt"),
    ("file for a folder", "check"): (lambda ws, mp: ["check", "--raw", "notes.txt", "--no-docs"], "notes.txt"),
    ("file for a folder", "verify"): (lambda ws, mp: ["verify", "notes.txt"], "notes.txt"),
    ("file for a folder", "validate"): (lambda ws, mp: ["validate", "--raw", "notes.txt"], "notes.txt"),
    ("file for a folder", "diff"): (lambda ws, mp: ["diff", "notes.txt", "dist"], "notes.txt"),
    ("file for a folder", "publish --dry-run"): (lambda ws, mp: ["publish", "--dry-run", "--stage", "notes.txt"], "notes.txt"),

    ("folder for a file", "build"): (lambda ws, mp: [(ws / "raw/010_aaaaaaaaaaaaaaaa.txt").mkdir(), "build"][1:],
                                     "010_aaaaaaaaaaaaaaaa.txt"),
    ("folder for a file", "add"): (lambda ws, mp: ["add", "folder.txt"], "folder.txt"),
    ("folder for a file", "check"): (lambda ws, mp: [(ws / "raw/010_aaaaaaaaaaaaaaaa.txt").mkdir(), "check", "--no-docs"][1:],
                                     "010_aaaaaaaaaaaaaaaa.txt"),
    ("folder for a file", "verify"): (lambda ws, mp: [(ws / "dist/SHA256SUMS").unlink(), (ws / "dist/SHA256SUMS").mkdir(),
                                                      "verify", "dist"][2:], "dist/SHA256SUMS"),
    ("folder for a file", "validate"): (lambda ws, mp: ["validate", "folder.txt"], "folder.txt"),
    ("folder for a file", "diff"): (lambda ws, mp: [(ws / "dist/build_manifest.json").unlink(),
                                                    (ws / "dist/build_manifest.json").mkdir(), "diff", "dist", "dist"][2:],
                                    "dist"),
    ("folder for a file", "publish --dry-run"): (lambda ws, mp: [(ws / "raw/010_aaaaaaaaaaaaaaaa.txt").mkdir(),
                                                                 "publish", "--dry-run"][1:], "010_aaaaaaaaaaaaaaaa.txt"),

    ("unreadable file", "build"): (lambda ws, mp: [make_unreadable(ws / "raw" / DUMP, mp), "build"][1:], DUMP),
    ("unreadable file", "add"): (lambda ws, mp: [make_unreadable(ws / "good.txt", mp), "add", "good.txt"][1:], "good.txt"),
    ("unreadable file", "check"): (lambda ws, mp: [make_unreadable(ws / "raw" / DUMP, mp), "check", "--no-docs"][1:], DUMP),
    ("unreadable file", "verify"): (lambda ws, mp: [make_unreadable(ws / "dist/SHA256SUMS", mp), "verify", "dist"][1:],
                                    "dist/SHA256SUMS"),
    ("unreadable file", "validate"): (lambda ws, mp: [make_unreadable(ws / "raw" / DUMP, mp), "validate"][1:], DUMP),
    ("unreadable file", "diff"): (lambda ws, mp: [make_unreadable(ws / "dist/build_manifest.json", mp), "diff", "dist"][1:],
                                  "dist/build_manifest.json"),
    ("unreadable file", "publish --dry-run"): (lambda ws, mp: [make_unreadable(ws / "raw" / DUMP, mp),
                                                               "publish", "--dry-run"][1:], DUMP),

    ("symbolic link loop", "build"): (lambda ws, mp: [loop(ws / "raw/010_aaaaaaaaaaaaaaaa.txt"), "build"][1:],
                                      "010_aaaaaaaaaaaaaaaa.txt"),
    ("symbolic link loop", "add"): (lambda ws, mp: [loop(ws / "loop.txt"), "add", "loop.txt"][1:], "loop.txt"),
    ("symbolic link loop", "check"): (lambda ws, mp: [loop(ws / "raw/010_aaaaaaaaaaaaaaaa.txt"), "check", "--no-docs"][1:],
                                      "010_aaaaaaaaaaaaaaaa.txt"),
    ("symbolic link loop", "verify"): (lambda ws, mp: [loop(ws / "loop"), "verify", "loop"][1:], "loop"),
    ("symbolic link loop", "validate"): (lambda ws, mp: [loop(ws / "raw/010_aaaaaaaaaaaaaaaa.txt"), "validate"][1:],
                                         "raw/010_aaaaaaaaaaaaaaaa.txt"),
    ("symbolic link loop", "diff"): (lambda ws, mp: [loop(ws / "loop"), "diff", "loop", "dist"][1:], "loop"),
    ("symbolic link loop", "publish --dry-run"): (lambda ws, mp: [loop(ws / "loop"), "publish", "--dry-run", "--stage", "loop"][1:],
                                                  "loop"),

    ("empty folder", "build"): (lambda ws, mp: ["build", "--raw", "empty"], "empty"),
    ("empty folder", "add"): (lambda ws, mp: ["add", "empty"], "empty"),
    ("empty folder", "check"): (lambda ws, mp: ["check", "--raw", "empty", "--no-docs"], "empty"),
    ("empty folder", "verify"): (lambda ws, mp: ["verify", "empty"], "empty"),
    ("empty folder", "validate"): (lambda ws, mp: ["validate", "empty"], "empty"),
    ("empty folder", "diff"): (lambda ws, mp: ["diff", "empty", "dist"], "empty"),
    ("empty folder", "publish --dry-run"): (lambda ws, mp: ["publish", "--dry-run", "--dist", "empty"], "empty"),

    ("no such git revision", "build"): (lambda ws, mp: ["build", "--previous", "v9.9.9"], "v9.9.9"),
    ("no such git revision", "diff"): (lambda ws, mp: ["diff", "v9.9.9", "dist"], "v9.9.9"),

    ("another project's folder", "build"): (lambda ws, mp: ["build", "--out", "other"], "other"),
    ("another project's folder", "add"): (lambda ws, mp: ["add", "good.txt", "--raw", "other"], "other"),
    ("another project's folder", "check"): (lambda ws, mp: ["check", "--raw", "other", "--no-docs"], "other"),
    ("another project's folder", "verify"): (lambda ws, mp: ["verify", "other"], "other"),
    ("another project's folder", "validate"): (lambda ws, mp: ["validate", "other"], "other"),
    ("another project's folder", "diff"): (lambda ws, mp: ["diff", "other", "dist"], "other"),
    ("another project's folder", "publish --dry-run"): (lambda ws, mp: ["publish", "--dry-run", "--stage", "other"], "other"),
}

DAMAGE = {
    "damaged Parquet": (lambda ws: (ws / OCC).write_bytes(b"PAR1 not really parquet PAR1"), OCC),
    "damaged JSON": (lambda ws: (ws / "dist/build_manifest.json").write_text("{not json"), "dist/build_manifest.json"),
    "damaged manifest": (lambda ws: (ws / "dist/build_manifest.json").write_text('{"inputs": []}'), "dist/build_manifest.json"),
}
DAMAGED_ARGS = {
    "build": ["build"], "add": ["add", "good.txt"], "check": ["check", "--no-docs"], "verify": ["verify", "dist"],
    "validate": ["validate"], "diff": ["diff", "dist", "dist"], "publish --dry-run": ["publish", "--dry-run"],
}
for _kind, (_damage, _path) in DAMAGE.items():
    for _command, _args in DAMAGED_ARGS.items():
        CASES[(_kind, _command)] = ((lambda d, a: lambda ws, mp: [d(ws), *a][1:])(_damage, _args), _path)

# run as a new process, exactly as a user would (the rest go through click's runner in-process)
SUBPROCESS = {("missing path", "add"), ("damaged Parquet", "build"), ("symbolic link loop", "validate"),
              ("no such git revision", "diff"), ("another project's folder", "publish --dry-run"),
              ("damaged JSON", "diff")}
# commands whose work is listing problems: a summary line may follow the first
LISTS = {"validate", "verify"}


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    from neurips_abstracts.build import build

    base = tmp_path_factory.mktemp("wrong-inputs")
    raw = copy_seeds(base / "raw")
    build(raw, base / "dist", previous=None)
    return base


def workspace(template: Path, where: Path) -> Path:
    ws = where / "ws"
    shutil.copytree(template, ws, symlinks=True)
    (ws / "notes.txt").write_text("a note, not a folder\n")
    (ws / "folder.txt").mkdir()
    (ws / "empty").mkdir()
    (ws / "good.txt").write_bytes(make_dump(["An abstract nobody has added yet, long enough to be one."]))
    other = ws / "other"
    (other / "src" / "other").mkdir(parents=True)
    (other / "pyproject.toml").write_text('[project]\nname = "other"\n')
    (other / "README.md").write_text("# other\n")
    (other / "src" / "other" / "__init__.py").write_text("")
    return ws


def snapshot(folder: Path) -> dict:
    """Every entry's kind, mode, size and modification time (readable or not)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        out[p.relative_to(folder).as_posix()] = (st.st_mode, st.st_size, st.st_mtime_ns,
                                                 os.readlink(p) if p.is_symlink() else None)
    return out


# Consoles a command must not die on: a Windows pipe on Python 3.11 is cp1252; LANG=C gives ASCII.
ENCODINGS = ("utf-8", "cp1252", "ascii")


def run(args: list[str], ws: Path, subprocess_run: bool, encoding: str = "utf-8") -> tuple[int, str, str]:
    if subprocess_run:
        proc = subprocess.run([sys.executable, str(ROOT / "build_dataset.py"), *args], cwd=ws, capture_output=True,
                              timeout=600, env={**os.environ, "NEURIPS_ABSTRACTS_DEBUG": "", "PYTHONIOENCODING": encoding})
        # click writes UTF-8 where a stream says ASCII (it takes that for a misconfigured locale)
        return proc.returncode, proc.stdout.decode(encoding, "replace"), proc.stderr.decode(encoding, "replace")
    from click.testing import CliRunner

    from neurips_abstracts.cli import main

    # The runner's stdout encodes strictly in ``charset``, as a console's does.
    result = CliRunner(charset=encoding).invoke(main, args, env={"NEURIPS_ABSTRACTS_DEBUG": ""})
    return result.exit_code, result.stdout, result.stderr


def run_case(case: tuple[str, str], template: Path, where: Path, monkeypatch, encoding: str = "utf-8") -> dict:
    setup, path = CASES[case]
    ws = workspace(template, where)
    monkeypatch.chdir(ws)
    args = setup(ws, monkeypatch)
    before = snapshot(ws)
    code, out, err = run(args, ws, case in SUBPROCESS, encoding)
    after = snapshot(ws)
    for p in ws.rglob("*"):  # let the tmp folder be removed
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)
    shown = out if case[1] == "validate" and out.strip() else err  # validate's findings go to stdout
    lines = [line for line in shown.splitlines() if line.strip()]
    return {"args": args, "code": code, "out": out, "err": err, "lines": lines, "path": path,
            "written": sorted(set(before.items()) ^ set(after.items()))}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: f"{c[1]}-{c[0]}".replace(" ", "_"))
def test_wrong_input_gets_one_line_naming_the_path(case, encoding, template, tmp_path, monkeypatch):
    r = run_case(case, template, tmp_path, monkeypatch, encoding)
    assert r["code"] not in (0, None), r
    assert "Traceback" not in r["out"] + r["err"] and "internal error" not in r["out"] + r["err"], r
    first = r["lines"][0] if r["lines"] else ""
    assert r["path"] in first, r
    if case[1] not in LISTS:  # verify and validate list every problem, then sum up
        assert len(r["lines"]) == 1 and "error" in first, r
    assert r["written"] == [], r


def test_every_command_meets_every_input_it_takes():
    """The table is complete: every command against every input (a git revision is an input of
    only the commands that take one)."""
    for command in COMMANDS:
        for kind in INPUTS:
            if kind == "no such git revision" and command not in ("build", "diff"):
                continue
            assert (kind, command) in CASES, (kind, command)


def test_internal_error_is_one_line_saying_how_to_see_the_traceback(template, tmp_path, monkeypatch):
    """A bug (here: a stage that raises what no code expects) is one line, and --debug or the
    environment variable shows the traceback."""
    from click.testing import CliRunner

    from neurips_abstracts import build as build_module
    from neurips_abstracts.cli import main

    ws = workspace(template, tmp_path)
    monkeypatch.chdir(ws)

    def broken(*args, **kwargs):
        raise KeyError("papers")

    monkeypatch.setattr(build_module, "_run", broken)
    before = snapshot(ws)
    result = CliRunner().invoke(main, ["build"], env={"NEURIPS_ABSTRACTS_DEBUG": ""})
    lines = result.stderr.splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert "internal error" in lines[0] and "--debug" in lines[0] and "NEURIPS_ABSTRACTS_DEBUG=1" in lines[0]
    for args, env in ((["--debug", "build"], {}), (["build", "--debug"], {}), (["build"], {"NEURIPS_ABSTRACTS_DEBUG": "1"})):
        result = CliRunner().invoke(main, args, env=env)
        assert isinstance(result.exception, KeyError), (args, env, result.output)
    assert snapshot(ws) == before


def markdown_table() -> str:
    """The message each command gives for each wrong input, as a markdown table."""
    import tempfile

    root = getattr(os, "geteuid", lambda: -1)() == 0
    rows = [
        "Each command run in a fresh copy of a workspace (raw/ with two dumps, dist/ built from them, "
        "notes.txt, folder.txt/, empty/, good.txt, other/ holding pyproject.toml); every row exits "
        "non-zero, shows no traceback and writes nothing (tests/cli/test_wrong_paths.py). Rows marked "
        "(subprocess) ran as a new process, the others through click's runner in-process."
        + (" Run as root: an unreadable file is mode 0o000 and open() refuses it as the kernel does "
           "for other users (root reads such files)." if root else ""),
        "",
        "| wrong input | command | exit | message |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        from neurips_abstracts.build import build

        template = Path(tmp) / "template"
        build(copy_seeds(template / "raw"), template / "dist", previous=None)
        for kind in INPUTS:
            for command in COMMANDS:
                if (kind, command) not in CASES:
                    continue
                where = Path(tempfile.mkdtemp(dir=tmp))
                with pytest.MonkeyPatch.context() as case_mp:
                    r = run_case((kind, command), template, where, case_mp)
                args = " ".join(r["args"])
                message = (r["lines"][0] if r["lines"] else "(nothing)").replace("|", "\\|")
                how = " (subprocess)" if (kind, command) in SUBPROCESS else ""
                rows.append(f"| {kind} | `{args}`{how} | {r['code']} | {message} |")
        del mp
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_a_console_that_cannot_encode_a_character_still_gets_the_finding(encoding, tmp_path):
    """Findings and diffs that hold characters the console has no code for (the header's 论文列表,
    an abstract's 𝔼) are written with backslash escapes, in a new process as a user runs them."""
    from neurips_abstracts.build import build

    wrong_year = tmp_path / "wrong.txt"
    wrong_year.write_bytes(make_dump(["An abstract long enough to be one, whatever its year says."],
                                     header="NeurIPS 2025 论文列表"))
    code, out, err = run(["validate", str(wrong_year)], tmp_path, True, encoding)
    assert code == 1 and "Traceback" not in out + err and "internal error" not in out + err, (out, err)
    assert "wrong.txt:1: error: header names NeurIPS 2025" in out, out
    assert "\\u8bba" in out or encoding == "ascii", out

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / f"000_{0:016x}.txt").write_bytes(make_dump(["We bound the risk 𝔼[L] of learning sparse models from few samples."]))
    build(raw, tmp_path / "old", previous=None)
    (raw / f"001_{1:016x}.txt").write_bytes(make_dump(["A new paper on 论文 graphs, with 𝔼 estimates for every node."]))
    build(raw, tmp_path / "new", previous=tmp_path / "old")
    code, out, err = run(["diff", str(tmp_path / "old"), str(tmp_path / "new")], tmp_path, True, encoding)
    assert code == 0 and "Traceback" not in out + err and "internal error" not in out + err, (out, err)
    assert "graphs, with" in out, out
    assert "\\u8bba\\u6587" in out and "\\U0001d53c" in out or encoding == "ascii", out
