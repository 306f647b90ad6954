"""The docs run (issue 34): every ```sh, ```bash and ```python block of README.md, CONTRIBUTING.md
and the dataset card runs, in the order a reader meets it, in a fresh copy of the project (a git
clone of this one with the working tree's files on top, so the blocks that read git history or
commit run as in a clone).

A block preceded by ``<!-- skip: reason -->`` is not run; the reasons are few and named here
(``SKIP_REASONS``), and test_every_skipped_block_says_why lists them. What the runner changes, and
why, is limited to:

- ``python -m pip install …`` does nothing: the test's environment already has the package and
  its [test] extra, and installing the copy would repoint the environment's editable install
  (test_the_pip_installs_name_real_extras checks the extras exist);
- ``NNN_<hex>``, the names `add` gives a dump, becomes the name `add` gives the dump at
  ``PATH/TO/DUMP.txt``, a fixture the test writes there (``<`` would be a shell redirection);
- the Hub is switched off (HF_HUB_OFFLINE), so a block that reached for it would fail.

The card's blocks run in the release folder of a fresh build of the copy, as a user runs them in a
downloaded copy of it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT, make_dump, synthetic_abstracts

RUNNABLE = ("sh", "bash", "python")
DOCS = ("README.md", "CONTRIBUTING.md", "dist/README.md")
# Why a block may be left out; each skipped block names one of these.
SKIP_REASONS = (
    "needs the Hub",
    "needs the Hub and a token",
    "runs the whole test suite",
)
_BLOCK_RE = re.compile(r"(?:^<!-- skip: (?P<skip>[^>]*?) -->\n(?:\s*\n)*)?^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
PLACEHOLDER_DUMP = "PATH/TO/DUMP.txt"
GIT_ENV = {"GIT_AUTHOR_NAME": "docs", "GIT_AUTHOR_EMAIL": "docs@example.org",
           "GIT_COMMITTER_NAME": "docs", "GIT_COMMITTER_EMAIL": "docs@example.org"}


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    body: str
    skip: str | None

    @property
    def name(self) -> str:
        return f"{self.doc}:{self.line} ({self.lang})"


def blocks(doc: str, text: str) -> list[Block]:
    return [Block(doc, text.count("\n", 0, m.start("body")), m["lang"], m["body"], m["skip"])
            for m in _BLOCK_RE.finditer(text)]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


def fresh_copy(dest: Path) -> Path:
    """A clone of this repository with the working tree's files (changed, new, deleted) on top,
    committed: what a clone of the project would be with this work merged."""
    shallow = _git(ROOT, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert not shallow, ("this clone is shallow: CONTRIBUTING's release step reads the project's history "
                         "(git fetch --unshallow, or actions/checkout with fetch-depth: 0)")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True, capture_output=True)
    for rel in _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0"):
        if rel and (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, dest / rel)
    for rel in _git(ROOT, "ls-files", "-z", "--deleted").split("\0"):
        if rel:
            (dest / rel).unlink(missing_ok=True)
    _git(dest, "add", "-A")
    if _git(dest, "status", "--porcelain").strip():
        _git(dest, "commit", "-qm", "the working tree under test")
    return dest


def _shims(folder: Path) -> Path:
    """``python`` (the test's interpreter; ``-m pip install`` does nothing) and, where coreutils
    are missing (macOS), ``sha256sum`` as ``shasum -a 256``."""
    folder.mkdir()
    python = folder / "python"
    python.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-m" ] && [ "$2" = "pip" ] && [ "$3" = "install" ]; then\n'
        '  echo "docs test: pip install left out (the environment has the package and its [test] extra)"; exit 0\n'
        "fi\n"
        f'exec "{Path(sys.executable).as_posix()}" "$@"\n')
    python.chmod(0o755)
    if shutil.which("sha256sum") is None and shutil.which("shasum"):
        shim = folder / "sha256sum"
        shim.write_text('#!/bin/sh\nexec shasum -a 256 "$@"\n')
        shim.chmod(0o755)
    return folder


def _env(tmp: Path, copy: Path) -> dict:
    bin_dir = _shims(tmp / "bin")
    return {**os.environ, **GIT_ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(copy / "src"), "HF_HOME": str(tmp / "hf"), "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1", "HF_TOKEN": "", "PYTHONHASHSEED": "0"}


def _placeholders(copy: Path) -> dict[str, str]:
    """Write the dump the docs call PATH/TO/DUMP.txt; the name `add` will give it."""
    from neurips_abstracts.contribute.add import dump_name, next_number

    data = make_dump(synthetic_abstracts(3, seed=34))
    (copy / PLACEHOLDER_DUMP).parent.mkdir(parents=True, exist_ok=True)
    (copy / PLACEHOLDER_DUMP).write_bytes(data)
    return {"NNN_<hex>": dump_name(next_number(copy / "raw"), hashlib.sha256(data).hexdigest()).removesuffix(".txt")}


def run_block(block: Block, cwd: Path, env: dict, subs: dict[str, str]) -> None:
    body = block.body
    for old, new in subs.items():
        body = body.replace(old, new)
    if block.lang == "python":
        cmd = [sys.executable, "-c", body]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", body]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{block.name} failed (exit {proc.returncode}):\n{body}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"


def _run_doc(doc: str, tmp_path: Path) -> list[str]:
    copy = fresh_copy(tmp_path / "project")
    env = _env(tmp_path, copy)
    # The docs as a build makes them (their generated blocks, the card): what is committed once
    # `check` passes, which CI runs; committed, so the blocks that commit start from a clean tree.
    subprocess.run([sys.executable, "build_dataset.py", "build"], cwd=copy, env=env, check=True, capture_output=True)
    _git(copy, "add", "-A")
    if _git(copy, "status", "--porcelain").strip():
        _git(copy, "commit", "-qm", "Rebuild dist/")
    subs = _placeholders(copy)
    cwd = copy
    if doc == "dist/README.md":  # the card runs beside a copy of its folder, named as it says
        from neurips_abstracts.core.resources import hub_repo
        from neurips_abstracts.release.card import local_copy_name

        cwd = tmp_path / "downloads"
        shutil.copytree(copy / "dist", cwd / local_copy_name(hub_repo()))
    ran = []
    for block in blocks(doc, (copy / doc).read_text(encoding="utf-8")):
        if block.lang in RUNNABLE and block.skip is None:
            run_block(block, cwd, env, subs)
            ran.append(block.name)
    return ran


@pytest.mark.skipif(shutil.which("bash") is None, reason="the docs' shell blocks are bash")
@pytest.mark.parametrize("doc", DOCS)
def test_the_blocks_of_the_docs_run(doc, tmp_path):
    ran = _run_doc(doc, tmp_path)
    assert ran, f"{doc} has no block to run"


def test_every_skipped_block_says_why():
    """Each block left out names a reason of SKIP_REASONS, and only blocks that cannot run
    without the Hub or would run the suite from inside it are left out."""
    skipped = []
    for doc in DOCS:
        for block in blocks(doc, (ROOT / doc).read_text(encoding="utf-8")):
            if block.skip is not None:
                assert block.skip.startswith(SKIP_REASONS), f"{block.name}: {block.skip}"
                if block.skip.startswith("needs the Hub"):
                    assert "hf://" in block.body or "load_dataset(\"neurips" in block.body or "publish" in block.body, block.name
                skipped.append(block.name)
            elif block.lang not in RUNNABLE:
                assert block.lang in ("sql", "yaml", "bibtex", ""), f"{block.name}: a {block.lang} block"
    assert len(skipped) < sum(len(blocks(d, (ROOT / d).read_text(encoding="utf-8"))) for d in DOCS) / 2


def test_the_pip_installs_name_real_extras():
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    for doc in DOCS:
        for named in re.findall(r"pip install[^\n]*?-e '?\.\[([\w,]+)\]", (ROOT / doc).read_text(encoding="utf-8")):
            assert set(named.split(",")) <= extras, (doc, named)
