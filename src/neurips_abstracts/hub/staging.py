"""Staging: the publish command's steps before anything is sent (the commit-and-tag protocol
that sends it is ``protocol``): the release named, locked, checked
(``preconditions``), staged for the repository and verified, with every reason to refuse
collected, so that a dry run can list them all and a real run sends only a release that passed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..core.clones import git
from ..core.errors import DumpError
from ..core.guard import replace_dir
from ..core.names import holds_release, release_table_paths, release_version, table_folder
from ..core.sums import sha256_file
from ..record.published import Record, newer_published, published_record
from .client import PublishError


def stage_problem(stage: Path, dist: Path, raw: Path) -> str | None:
    """Why ``stage`` may not be replaced by a staged release (None: it may): the guard of every
    folder we replace, with ``dist`` and ``raw`` kept whole."""
    from ..core.guard import Refused, check_replaceable

    try:
        check_replaceable(stage, raw=[raw], keep=[dist])
    except Refused as exc:
        return exc.message
    return None


def staged_as_copy(repo_id: str) -> bool:
    """Whether a release for ``repo_id`` is staged as a byte copy of dist/ (the project's own
    repository), not rendered again for another one."""
    from ..core.resources import hub_repo

    return repo_id == hub_repo()


def stage_release(raw: Path, dist: Path, repo_id: str, out: Path) -> None:
    """Write into ``out`` the files a publish to ``repo_id`` uploads: a copy of ``dist`` when it was
    built for ``repo_id``, else the same build rendered for ``repo_id``. Its Parquet files must be
    ``dist``'s, byte for byte: only the documents may name another repository."""
    from ..build import build
    from ..core.schema import TABLES

    # Not ``final``: the stage is not what publish was asked to make, the Hub's release is, so a
    # signal once it is staged still stops publish (which says what the Hub holds).
    if staged_as_copy(repo_id):
        replace_dir(out, lambda tmp: shutil.copytree(dist, tmp, dirs_exist_ok=True), raw=[raw], keep=[dist],
                    final=False)
        return
    build(raw, out, repo_id=repo_id, previous=dist, final=False)  # the ids dist kept: a rebuild on itself is a fixpoint
    for table in TABLES:
        staged, built = release_table_paths(out, table), release_table_paths(dist, table)
        if staged != built or any(sha256_file(out / rel) != sha256_file(dist / rel) for rel in staged):
            raise PublishError(f"staged {table_folder(table)}/ differs from {dist}'s: rebuild {dist} first")


def what_publish_sends(raw: Path, dist: Path, repo_id: str, into: Path) -> Path:
    """The folder holding the files a publish of ``dist`` to ``repo_id`` would send, for
    ``verify --hub`` to compare with the Hub's: ``dist`` itself for the project's own repository
    (``publish`` stages a byte copy of it), else the release rendered for ``repo_id`` from ``raw``
    into ``into`` (``stage_release``, as ``publish`` stages it)."""
    if staged_as_copy(repo_id):
        return dist
    stage_release(raw, dist, repo_id, into)
    return into


def preconditions(raw: Path, dist: Path, docs: bool) -> list[str]:
    """Reasons to refuse: a stale or unverifiable dist/, or uncommitted work."""
    from ..build import check
    from ..record.verify import verify

    failures = []
    stale = check(raw, dist, docs=docs)
    if stale:
        failures.append("check failed: stale " + ", ".join(stale) + " (run: python build_dataset.py build)")
    problems = verify(dist)
    if problems:
        failures.append("verify failed: " + "; ".join(problems[:5]))
    status = git(dist.resolve().parent, "status", "--porcelain")
    if status.returncode != 0:
        failures.append("not a git work tree: a release must come from a commit")
    elif status.stdout.strip():
        failures.append("git work tree not clean: commit or stash first")
    return failures


@dataclass
class Staged:
    """A release ready to send, or the reasons it may not be."""

    path: Path  # the files to upload, exactly
    record: Record  # what the project has published, as known where publish runs (the Hub's tags come later)
    failures: list[str] = field(default_factory=list)  # each a reason to refuse


def undated(dist: Path) -> str | None:
    """The release step left out, if the build's CHANGELOG.md has no dated entry for its version."""
    from ..core.clones import clone_of
    from ..core.resources import checkout
    from ..release.contents import CHANGELOG, missing_entry

    version = release_version(dist)
    try:
        text = (dist / CHANGELOG).read_text(encoding="utf-8")
    except OSError:  # verify names a damaged release
        return None
    # the release step edits the checkout's CHANGELOG.md and commits it: a checkout in a git clone
    root = checkout()
    return missing_entry(text, version, in_checkout=root is not None and clone_of(root) is not None) if version else None


@contextmanager
def staged(dist: Path, raw: Path, repo_id: str, stage_dir: Path | None, build_command: str) -> Iterator[Staged]:
    """``dist`` staged for ``repo_id`` (into ``stage_dir``, else a temporary folder removed on
    exit), held against every other writer of ``dist`` and of the stage while the caller sends it.
    DumpError or ContractError where there is nothing to publish or ``raw`` fails the build's
    checks; every other reason to refuse is in ``Staged.failures``."""
    from huggingface_hub import get_token

    from ..core.guard import temporary_folder
    from ..core.lock import writing
    from ..record.verify import verify
    from ..release.docs import docs_skipped

    if not holds_release(dist):
        raise DumpError(str(dist), f"no build here: run `{build_command}` first")
    if stage_dir and (problem := stage_problem(stage_dir, dist, raw)):
        raise DumpError(str(stage_dir), problem)
    with ExitStack() as held, temporary_folder() as tmp:
        for folder in (dist, *([stage_dir] if stage_dir else [])):  # no build replaces them while read and sent
            held.enter_context(writing(folder))
        out = Staged(stage_dir or tmp / "release", published_record(raw, dist))
        out.failures = preconditions(raw, dist, docs=docs_skipped(dist) is None)
        if newer := newer_published(release_version(dist) or "0.0.0", out.record):  # the Hub's tags are read by publish
            out.failures.append(newer)
        try:
            stage_release(raw, dist, repo_id, out.path)
            # Staged for the project's own repository, the release is a copy of dist/, which the
            # standards' validators have just read: the copy is checked against its SHA256SUMS.
            out.failures += [f"staged release does not verify: {p}"
                             for p in verify(out.path, standards=not staged_as_copy(repo_id))]
        except PublishError as exc:
            out.failures.append(str(exc))
        if step := undated(dist):
            out.failures.append(step)
        if not get_token():
            out.failures.append("no token: set HF_TOKEN or log in with `hf auth login`")
        yield out
