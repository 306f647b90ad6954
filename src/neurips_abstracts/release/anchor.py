"""What anchors a build's ids when no release lies beside raw/: whether the project has
published before, and a published release read back from git history."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..core.errors import DumpError
from ..core.names import MANIFEST, SUMS, release_beside
from ..ingest.previous import BESIDE_RAW, is_release
from .contents import CHANGELOG, latest_release

HUB_PREFIX = "hub:"  # --previous hub:v1.1.0: the release tagged on the Hub repository (hub-repo)
WAYS_OUT = ("restore it (git checkout -- dist), name one with --previous (a folder, a released version or a "
            "git revision), or pass --first-release to start the id history over on purpose")


def _git(root: Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):  # no git: nothing it could tell
        return ""
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def published_before(root: Path) -> str | None:
    """Evidence that the project in ``root`` (the folder holding raw/) has published a release:
    a dated version in its CHANGELOG.md, a release tag, or a build manifest in its git history."""
    changelog = root / CHANGELOG
    if changelog.is_file():
        version = latest_release(changelog.read_text(encoding="utf-8", errors="replace"))
        if version:
            return f"{CHANGELOG} dates version {version}"
    if not (root / ".git").exists():  # only the project's own history: not that of a folder around it
        return None
    tag = _git(root, "tag", "--list", "v[0-9]*").split()
    if tag:
        return f"git tag {tag[-1]}"
    commit = _git(root, "log", "-1", "--format=%h", "--", f"dist/{MANIFEST}")
    return f"commit {commit} holds dist/{MANIFEST}" if commit else None


def missing_previous(beside: Path, what: str, evidence: str) -> DumpError:
    return DumpError(str(beside), f"{what}, but this project has published before ({evidence}): a build now would "
                     f"give every published paper a new id; {WAYS_OUT}", code="no-previous")


def release_from_git(spec: str, repo: Path, into: Path) -> Path:
    """The committed dist/ of a released version (``1.1.0``, ``v1.1.0``) or a git revision of
    ``repo``, written into ``into`` (its SHA256SUMS and every file it lists) to be read as a folder."""
    from .diff import VERSION_RE, release_commit  # as diff finds a version: one rule

    revision = spec
    if m := VERSION_RE.fullmatch(spec):
        revision = release_commit(m[1], repo)
        if revision is None:
            raise DumpError(spec, f"no release {m[1]} in the git history of {repo.resolve()}; give a dist/ folder or a git revision")

    def show(rel: str) -> bytes:
        proc = subprocess.run(["git", "-C", str(repo), "show", f"{revision}:dist/{rel}"], capture_output=True)
        if proc.returncode != 0:
            raise DumpError(spec, f"neither a folder nor a git revision of {repo.resolve()} with dist/{rel}; give a dist/ folder, "
                            "a released version or a git revision")
        return proc.stdout

    sums = show(SUMS)
    into.mkdir(parents=True, exist_ok=True)
    (into / SUMS).write_bytes(sums)
    for line in sums.decode("utf-8", "replace").splitlines():
        rel = line.partition("  ")[2]
        if rel:
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(show(rel))
    return into


def anchored_previous(raw_dir: str | Path, previous, into: Path):
    """``previous`` as a build reads it: a folder or a release already read as given; a released
    version or git revision read from the project's git history into ``into``. The release beside
    raw/ by default, refused (one line naming the ways out) where it is missing or incomplete
    although the project has published before."""
    if previous == BESIDE_RAW:
        beside = release_beside(raw_dir)
        if not is_release(beside):
            evidence = published_before(beside.parent)
            if evidence:
                what = "incomplete (no occurrences table)" if (beside / MANIFEST).is_file() else "missing"
                raise missing_previous(beside, f"the release beside raw/ is {what}", evidence)
        return previous
    if isinstance(previous, str) and previous.startswith(HUB_PREFIX):  # the published record itself
        from ..core.resources import hub_repo
        from .hub_record import fetch_release

        return str(fetch_release(hub_repo(), previous[len(HUB_PREFIX):], into))
    if isinstance(previous, str) and not Path(previous).exists() and not Path(previous).is_symlink():
        return release_from_git(previous, release_beside(raw_dir).parent, into)
    return previous
