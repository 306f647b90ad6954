"""The one reader of a release committed to git: the dist/ of a released version (its tag, else
the commit that released it) or of a git revision, written into a folder to be read as one.
``record`` resolves every release a user names through it; ``diff`` reads its sides with it."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from ..core.clones import Blobs, git, git_text as text
from ..core.errors import GitError
from ..core.names import MANIFEST, SUMS, data_path
from ..core.versions import TAG_RE, VERSION_RE, release_tag
from ..release.contents import CHANGELOG, changelog_date, has_entry, released_versions


def release_tags(repo: Path) -> list[str]:
    """The release tags (``v1.1.0``, ...) of ``repo``; none where git fails."""
    return [t for t in text(repo, "tag", "--list", "v[0-9]*").split() if TAG_RE.fullmatch(t)]


def dated_versions(repo: Path) -> list[str]:
    """The versions the CHANGELOG.md committed at ``repo``'s HEAD dates, newest first: a date in
    the work tree alone (the release step's ``diff --write-changelog``, before its build and
    commit) is not yet a release."""
    proc = git(repo, "show", f"HEAD:{CHANGELOG}")
    return released_versions(proc.stdout.decode("utf-8", "replace")) if proc.returncode == 0 else []


def manifest_commit(repo: Path) -> str | None:
    """The short id of the newest commit of ``repo`` that changed dist/'s manifest (None: none
    did): evidence that the project released from this clone, tags or not."""
    return text(repo, "log", "-1", "--format=%h", "--", f"dist/{MANIFEST}") or None


def release_commit(version: str, repo: Path, files: Blobs | None = None) -> str | None:
    """The commit of ``repo``'s history that released ``version``: its tag ``vX.Y.Z`` where the
    clone has one on a commit whose dist/ holds that version; else, read from dist/ alone, the first commit whose build manifest holds that
    version and whose CHANGELOG has a dated entry for it (the release step writes that entry,
    while pyproject.toml already names the next release between releases, so the first commit
    holding a version is usually not its release). For releases from before dated entries: the
    first commit holding the version with an entry for it, else the first holding it at all.
    None if no commit held it. ``files``: the caller's reader of ``repo``'s commits, if it has one."""
    tagged = text(repo, "rev-parse", "--verify", "--quiet", f"refs/tags/{release_tag(version)}^{{commit}}")
    with contextlib.ExitStack() as stack:
        files = files or stack.enter_context(Blobs(repo))
        if tagged and _held_version(files, tagged) == version:
            return tagged  # a tag moved onto another release's commit is no guide to this one's
        log = git(repo, "log", "--reverse", "--format=%H", "--", f"dist/{MANIFEST}", f"dist/{CHANGELOG}")
        if log.returncode != 0:
            return None
        with_entry = first_held = None
        for commit in log.stdout.decode().split():
            if _held_version(files, commit) == version:
                changelog = (committed(files, commit, CHANGELOG) or b"").decode("utf-8", "replace")
                if changelog_date(changelog, version):
                    return commit
                first_held = first_held or commit
                with_entry = with_entry or (commit if has_entry(changelog, version) else None)
    return with_entry or first_held


def _held_version(files: Blobs, commit: str) -> str | None:
    """The version of the release dist/ holds at ``commit`` (None: none reads there)."""
    manifest = committed(files, commit, MANIFEST)
    try:
        held = json.loads(manifest).get("dataset_version") if manifest is not None else None
    except (ValueError, AttributeError):
        return None
    return held if isinstance(held, str) else None


def committed(files: Blobs, revision: str, rel: str) -> bytes | None:
    """The file ``dist/<rel>`` as committed at ``revision`` (None: not there)."""
    return files.read(f"{revision}:dist/{rel}")


def release_from_git(spec: str, repo: Path, into: Path, tables: tuple[str, ...] | None = None,
                     files: Blobs | None = None) -> tuple[Path, str]:
    """The committed dist/ of a released version (``1.1.0``, ``v1.1.0``) or a git revision of
    ``repo``, written into ``into`` (its SHA256SUMS and every file it lists; for a release from
    before SHA256SUMS, its manifest and tables) to be read as a folder; with the commit read.
    ``tables``: only the files of these tables, besides SHA256SUMS and the manifest (what
    ``read_ids`` reads). ``files``: the caller's reader of ``repo``'s commits, if it has one.
    The one reader of a committed dist/."""
    with contextlib.ExitStack() as stack:
        return _written(spec, repo, into, files or stack.enter_context(Blobs(repo)), tables)


def _written(spec: str, repo: Path, into: Path, files: Blobs, tables: tuple[str, ...] | None) -> tuple[Path, str]:
    """``release_from_git``, its files read with ``files``."""
    from ..core.names import table_folder
    from ..core.schema import TABLES

    revision: str | None = spec
    if m := VERSION_RE.fullmatch(spec):
        revision = release_commit(m[1], repo, files)
        if revision is None:
            raise GitError(spec, f"no commit of the git history of {repo} has dist/{MANIFEST} at version {m[1]}; give "
                            "a release folder or a git revision")
    commit = text(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if not commit or committed(files, commit, MANIFEST) is None:
        raise GitError(spec, f"neither a dist/ folder nor a git revision of {repo} with dist/{MANIFEST}; give a release "
                        "folder, a released version or a git revision")
    sums = committed(files, commit, SUMS)
    listed = ([line.partition("  ")[2] for line in sums.decode("utf-8", "replace").splitlines() if "  " in line]
              if sums is not None else [MANIFEST, *(data_path(t) for t in TABLES)])
    into.mkdir(parents=True, exist_ok=True)
    if sums is not None:
        (into / SUMS).write_bytes(sums)
    if tables is not None:
        folders = tuple(f"{table_folder(t)}/" for t in tables)
        listed = [rel for rel in listed if rel == MANIFEST or rel.startswith(folders)]
    for rel in listed:
        parts = rel.replace("\\", "/").split("/")
        if rel.startswith("/") or ".." in parts or (parts[0][1:2] == ":" and parts[0][:1].isalpha()):
            raise GitError(f"{spec}:dist/{SUMS}", f"lists {rel!r}, a path outside the release: the commit is damaged; "
                            "give another release")
        data = committed(files, commit, rel)
        if data is None:
            if sums is None:
                continue  # a table a release of before SHA256SUMS did not have
            raise GitError(f"{spec}:dist/{rel}", f"listed in {SUMS} but missing from commit {commit[:12]}")
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return into, commit
