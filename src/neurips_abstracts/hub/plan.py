"""What a publish would change on the Hub: the plan of one commit that makes the Hub's files the
release's (compared by content: ``record.files``), and which repository ids the Hub accepts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.names import MANIFEST
from ..core.versions import release_tag
from ..record.files import KEEP_REMOTE, LocalFile, Remote, local_files, same_content


@dataclass(frozen=True)
class Plan:
    repo_id: str
    revision: str
    tag: str
    message: str
    description: str
    add: list[LocalFile]
    update: list[LocalFile]
    delete: list[str]
    unchanged: list[LocalFile] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.add or self.update or self.delete)


# What the Hub accepts for a user, an organisation or a repository name (huggingface_hub's
# validate_repo_id, with the owner required): letters, digits, "-", "_", "."; not starting or
# ending with "-" or "."; no "--" or ".."; at most 96 characters; a name does not end in ".git".
_NAME = r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?"


def repo_id_problem(repo_id: str) -> str | None:
    """Why ``repo_id`` is not a Hub dataset repository id, or None when it is one."""
    if not re.fullmatch(f"{_NAME}/{_NAME}", repo_id):
        return (
            f"{repo_id!r} is not OWNER/NAME: each part 1-96 letters, digits, '-', '_' or '.', "
            "not starting or ending with '-' or '.'"
        )
    if "--" in repo_id or ".." in repo_id:
        return f"{repo_id!r}: the Hub forbids '--' and '..' in repository ids"
    if repo_id.endswith(".git"):
        return f"{repo_id!r}: a repository name cannot end in .git"
    return None


def release_message(dist: Path) -> tuple[str, str, str]:
    """(version, commit message, commit description) from the build manifest."""
    manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    version = manifest["dataset_version"]
    counts = manifest["counts"]
    description = (
        f"Build fingerprint {manifest['fingerprint']}.\n"
        f"{counts['papers']} papers from {counts['records']} raw records in {counts['dumps']} dumps."
    )
    from ..record.hub import PUBLISH_TITLE

    return version, PUBLISH_TITLE.format(tag=release_tag(version)), description


def make_plan(dist: Path, repo_id: str, revision: str, remote: Remote | None) -> Plan:
    """What a publish would do. None for ``remote`` means it is unknown (dry run): every file is
    an addition."""
    version, message, description = release_message(dist)
    add, update, unchanged = [], [], []
    for f in local_files(dist):
        if remote is None or f.path not in remote:
            add.append(f)
        elif same_content(f, remote[f.path]):
            unchanged.append(f)
        else:
            update.append(f)
    local = {f.path for f in add + update + unchanged}
    delete = sorted(p for p in (remote or {}) if p not in local and p not in KEEP_REMOTE)
    return Plan(repo_id, revision, release_tag(version), message, description, add, update, delete, unchanged)


def render_plan(plan: Plan, remote_known: bool) -> str:
    lines = [f"Plan: publish to dataset {plan.repo_id} (branch {plan.revision}) as one commit, tag {plan.tag}"]
    for label, files in (("add", plan.add), ("update", plan.update), ("unchanged", plan.unchanged)):
        for f in files:
            lines.append(f"  {label:9} {f.path}  {f.size} bytes  sha256 {f.sha256}")
    for path in plan.delete:
        lines.append(f"  delete    {path}")
    if not remote_known:
        lines.append("  (dry run: the Hub was not contacted; files it holds that dist/ lacks are deleted at publish time)")
    lines.append(f"Commit message: {plan.message}")
    lines += [f"  {line}" for line in plan.description.splitlines()]
    lines.append(f"Tag: {plan.tag}")
    return "\n".join(lines)
