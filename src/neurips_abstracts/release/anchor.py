"""What anchors a build's ids (``anchored_previous``): the release beside raw/, one named by
folder, version, git revision or Hub tag, read back from git history or the Hub, and, where no
release lies beside raw/, whether the project has published before."""

from __future__ import annotations

import subprocess
from contextlib import ExitStack
from pathlib import Path

from ..core.errors import DumpError
from ..core.guard import check_replaceable, remove_litter, resolve
from ..core.lock import writing
from ..core.names import MANIFEST, SUMS, release_beside
from ..ingest.previous import BESIDE_RAW, PreviousRelease, is_release, read_previous, release_at
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


def anchored_previous(raw_dir: str | Path, previous, into: Path, writes: str | Path | None = None
                      ) -> tuple[list[str], PreviousRelease | None]:
    """The release a build anchors its ids to, read: ``previous`` as given (a folder, or a release
    already read), a released version or git revision read from the project's git history into
    ``into``, ``hub:vX.Y.Z`` from the Hub, or by default the release beside raw/, refused (one line
    naming the ways out) where it is missing or incomplete although the project has published
    before; None for a first release. Also returns the folders read (a release read but not
    written must survive the build: see ``guard``).

    ``writes``: the folder a build replaces, whose lock it holds. If the build reads or replaces
    the release beside raw/ and a killed build left it moved aside, it is put back first (under
    its lock), once the guard has agreed to ``writes``: a refused build changes nothing."""
    beside = release_beside(raw_dir)
    if writes is not None and (previous == BESIDE_RAW or resolve(beside) == resolve(Path(writes))):
        check_replaceable(Path(writes), raw=[raw_dir])
        with ExitStack() as held:
            if resolve(beside) != resolve(Path(writes)):
                held.enter_context(writing(beside))
            remove_litter(beside.parent, beside.name)
    if previous is None or isinstance(previous, PreviousRelease):
        return [], previous
    if previous == BESIDE_RAW:
        if is_release(beside):
            return [], read_previous(beside)
        evidence = published_before(beside.parent)
        if evidence:
            what = "incomplete (no occurrences table)" if (beside / MANIFEST).is_file() else "missing"
            raise missing_previous(beside, f"the release beside raw/ is {what}", evidence)
        return [], None
    if isinstance(previous, str) and previous.startswith(HUB_PREFIX):  # the published record itself
        from ..core.resources import hub_repo
        from .hub_record import fetch_release

        previous = str(fetch_release(hub_repo(), previous[len(HUB_PREFIX):], into))
    elif isinstance(previous, str) and not Path(previous).exists() and not Path(previous).is_symlink():
        previous = release_from_git(previous, beside.parent, into)
    return [previous], release_at(previous)
