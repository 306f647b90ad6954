"""What the tests of publish share (their fixtures are in tests/hub/conftest.py): the tokens the
test Hub knows, `publish` run against it as a user runs it, and folders read as bytes."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neurips_abstracts.core.resources import dataset_version

from tests.helpers import ROOT, run_cli

TAG = f"v{dataset_version()}"  # the tag publish gives the release: the version in pyproject.toml
TOKEN = "hf_testTOKENvalue123456789"
OTHER = "hf_otherUSERtoken987654321"


def folder_digest(*folders):
    """A digest of the folders' files: relative paths and bytes."""
    h = hashlib.sha256()
    for folder in folders:
        h.update(b"\0folder\0")
        for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
            data = path.read_bytes()
            h.update(f"{path.relative_to(folder).as_posix()}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


TEST_CHANGELOG = "NEURIPS_ABSTRACTS_TEST_CHANGELOG"  # read by tests/helpers/released_cli.py
DATED = "2026-12-05"  # the day the tests' releases are dated


def changelog(dated: bool) -> str:
    """The package's CHANGELOG.md with the entry of its version dated, as the release step leaves
    it (``diff --write-changelog``), or with that entry undated, as between releases."""
    import re

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    version = dataset_version()
    text = re.sub(rf"^## {re.escape(version)}\b.*?(?=^## |\Z)", "", text, flags=re.M | re.S)  # its entry, if any
    head, sep, rest = text.partition("\n## ")
    entry = f"## {version} ({DATED})" if dated else f"## {version}"
    return f"{head}\n{entry}\n\n- The tests' release.\n{sep}{rest}" if sep else f"{text}\n{entry}\n\n- The tests' release.\n"


@contextlib.contextmanager
def package_changelog(path: Path):
    """The package reads its CHANGELOG.md from ``path`` (written by the caller) in this process,
    and ``released_process`` in a new one: the package as it is at a release commit, or between."""
    from neurips_abstracts.core import resources
    from neurips_abstracts.release.contents import CHANGELOG

    real = resources.resource
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(resources, "resource", lambda rel: path if rel == CHANGELOG else real(rel))
        mp.setenv(TEST_CHANGELOG, str(path))
        yield


def released_process(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """``run_process`` with the package's CHANGELOG.md as ``package_changelog`` set it (the
    variable it sets is inherited), through tests/helpers/released_cli.py."""
    return subprocess.run([sys.executable, str(RELEASED_CLI), *args], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=600)


RELEASED_CLI = Path(__file__).with_name("released_cli.py")


def publish(project, hub, *args, token=TOKEN, endpoint=None, process=False, env=None):
    """`publish` run as a user runs it against the test Hub, with HF_ENDPOINT, HF_HOME and
    HF_TOKEN set (and ``env``). huggingface_hub reads the first two once, when it is imported:
    ``process=True`` runs a new process with the variables themselves; otherwise the command runs
    in this process with huggingface_hub's settings made as those variables make them. Files go
    through hf_xet to the test Hub's Xet storage, as they do for every user. hf_xet reads its
    HF_XET_* settings once per process: a test of them runs a new process."""
    hf_home = project.parent / "hf-home"
    env = {"HF_ENDPOINT": endpoint or hub.endpoint, "HF_HOME": str(hf_home), "HF_HUB_DISABLE_TELEMETRY": "1",
           "HF_TOKEN": token or "", **(env or {})}
    args = ("publish", "--dist", str(project / "dist"), "--raw", str(project / "raw"), "--backoff", "0.01", *args)
    if process:
        proc = released_process(*args, env=env)
    else:
        from huggingface_hub import constants

        sleep = time.sleep
        with pytest.MonkeyPatch.context() as mp:
            # huggingface_hub's own retries wait 1 s, then 2 s..., and publish waits what Retry-After
            # asks: a hundredth of that here (how long they wait is checked where it matters)
            mp.setattr(time, "sleep", lambda s: sleep(s / 100))
            mp.setattr(constants, "ENDPOINT", env["HF_ENDPOINT"])
            mp.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", env["HF_ENDPOINT"] + "/{repo_id}/resolve/{revision}/{filename}")
            mp.setattr(constants, "HF_HOME", str(hf_home))
            mp.setattr(constants, "HF_TOKEN_PATH", str(hf_home / "token"))
            mp.setattr(constants, "HF_STORED_TOKENS_PATH", str(hf_home / "stored_tokens"))
            mp.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
            proc = run_cli(*args, env={"HF_TOKEN": env["HF_TOKEN"]})
    for secret in (TOKEN, OTHER):
        assert secret not in proc.stdout and secret not in proc.stderr
    return proc


def folder_bytes(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
