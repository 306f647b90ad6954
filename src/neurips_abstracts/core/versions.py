"""The one grammar of a release's version: ``X.Y.Z`` in pyproject.toml, the manifest and the
CHANGELOG, ``vX.Y.Z`` as a release tag (in git and on the Hub), either as a user types it."""

from __future__ import annotations

import re

VERSION_RE = re.compile(r"v?(\d+\.\d+\.\d+)")  # a released version as typed: 1.1.0 or v1.1.0
TAG_RE = re.compile(r"v(\d+\.\d+\.\d+)")  # a release tag, in git and on the Hub


def version_key(version: str) -> tuple[int, ...]:
    """The order of versions (``1.10.0`` after ``1.9.0``), from ``X.Y.Z`` or ``vX.Y.Z``."""
    m = VERSION_RE.fullmatch(version)
    if m is None:
        raise ValueError(f"not a release version: {version}")
    return tuple(int(g) for g in m[1].split("."))


def release_tag(version: str) -> str:
    """The tag of a release (``v1.1.0``), from ``1.1.0`` or ``v1.1.0``."""
    m = VERSION_RE.fullmatch(version)
    if m is None:
        raise ValueError(f"not a release version: {version}")
    return f"v{m[1]}"
