"""The publish command's steps, before anything is sent: the release named, locked, checked
(``preconditions``), staged for the repository and verified, with every reason to refuse
collected, so that a dry run can list them all and a real run sends only a release that passed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import DumpError
from ..core.names import MANIFEST, holds_release
from .publish import PublishError, preconditions, stage_problem, stage_release, staged_as_copy


@dataclass
class Staged:
    """A release ready to send, or the reasons it may not be."""

    path: Path  # the files to upload, exactly
    failures: list[str] = field(default_factory=list)  # each a reason to refuse
    note: str | None = None  # a release step left out that does not refuse it


def changelog_note(dist: Path) -> str | None:
    """The release step left out, if the build's CHANGELOG.md has no dated entry for its version."""
    from ..release.contents import CHANGELOG, missing_entry

    try:
        version = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))["dataset_version"]
        return missing_entry((dist / CHANGELOG).read_text(encoding="utf-8"), version)
    except (OSError, ValueError, KeyError, TypeError):  # verify names a damaged release
        return None


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
        out = Staged(stage_dir or tmp / "release")
        out.failures = preconditions(raw, dist, docs=docs_skipped(dist) is None)
        try:
            stage_release(raw, dist, repo_id, out.path)
            # Staged for the project's own repository, the release is a copy of dist/, which the
            # standards' validators have just read: the copy is checked against its SHA256SUMS.
            out.failures += [f"staged release does not verify: {p}"
                             for p in verify(out.path, standards=not staged_as_copy(repo_id))]
        except PublishError as exc:
            out.failures.append(str(exc))
        if not get_token():
            out.failures.append("no token: set HF_TOKEN or log in with `hf auth login`")
        out.note = changelog_note(dist)
        yield out
