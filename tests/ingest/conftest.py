"""Fixtures of the tests of bad input to the build."""

import pytest

from tests.helpers import run_cli, snapshot


@pytest.fixture
def built(raw_copy, tmp_path):
    dist = tmp_path / "dist"
    proc = run_cli("build", "--raw", str(raw_copy), "--out", str(dist))
    assert proc.returncode == 0, proc.stderr
    return raw_copy, dist, snapshot(dist)
