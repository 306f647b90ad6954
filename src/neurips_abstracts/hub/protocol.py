"""Publish dist/ to the Hugging Face Hub as one atomic commit with a version tag.

Real ``huggingface_hub`` code throughout; the tests run it against a Hub on 127.0.0.1.

* One ``create_commit`` with ``parent_commit`` set to the head that was read, adding what changed
  and deleting what ``dist/`` no longer has (``upload_folder`` may split a large upload into
  several commits, so it is not used). If the branch moved meanwhile the Hub answers 409/412 and
  the publish stops: nothing is retried blindly.
* The tag ``v<version>`` is created on that commit; an existing tag pointing at other content is
  never moved without ``force_tag``.
* The token comes only from ``HF_TOKEN`` or the standard login and is removed from every message.
* What is uploaded is a staged release: ``dist/`` itself for the project's hub-repo, or the same
  build rendered for another repository, so no file points users at a repository it is not in.
* Files are compared by content: an LFS file by the sha256 the Hub records for it, a regular file
  by its git blob id. Republishing the same release is a no-op, and a commit that the Hub applied
  although its answer was lost is recognised as ours when the retry is refused.
* The LFS files (the Parquet) are sent first (``preupload_lfs_files``: through hf_xet to the
  Hub's Xet storage, or git LFS without hf_xet), then the commit names them.
* Transient answers are retried as the Hub means them: 5xx, timeouts, reset connections and the
  storage's failures after a backoff; the Hub's 429 and 503 after the wait ``Retry-After`` asks
  (refused at once if that is longer than the timeout), the storage's after the backoff (hf_xet
  does not report ``Retry-After``); other 4xx refuse at once.
* A run can stop at any Hub call and the next run finishes the release: a branch head holding
  exactly this release's files is the commit of an earlier run (or the same content), so it is
  tagged, not committed again. Every failure is one line saying what the Hub holds (nothing sent,
  no commit, a commit without its tag) and what to do; a finished run says the release is complete.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from .client import HubClient, HubUnavailable, PublishConfig, PublishError  # noqa: F401 (callers import them here)
from .plan import Plan, local_files, make_plan, remote_files, render_plan, same_files

if TYPE_CHECKING:
    from ..record.model import Record


def publish(
    dist: Path,
    repo_id: str,
    *,
    revision: str = "main",
    private: bool = False,
    force_tag: bool = False,
    discard_hub_edits: bool = False,
    token: str | None = None,
    endpoint: str | None = None,
    config: PublishConfig = PublishConfig(),
    log: Callable[[str], None] = print,
    record: Record | None = None,
) -> dict:
    """Publish ``dist`` (already checked) and return the commit and tag URLs. Refused (nothing
    sent) where it would break what the Hub's last release tag promised, where ``record`` (the
    project's published record, ``record.published``) and the Hub's tags hold a newer release,
    or where the branch holds commits publish did not make (unless ``discard_hub_edits``): see
    ``record.published.against_hub``. Three steps: ``_read`` (nothing sent), ``_send`` (the
    files, then the commit) and ``_tag``."""
    from huggingface_hub import get_token

    from ..record.model import Record

    token = token or get_token()
    if not token:
        raise PublishError("no token: set HF_TOKEN or log in with `hf auth login`")
    hub = HubClient(token, endpoint, config, log)
    holds = Holds()
    try:
        with hub:
            state = _read(hub, dist, repo_id, revision, private, force_tag, discard_hub_edits,
                          record or Record(None, (), None))
            commit = _send(hub, dist, repo_id, revision, state, holds)
            _tag(hub, repo_id, state, commit, holds)
    except PublishError as exc:
        raise type(exc)(hub.redact(str(exc))) from None
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (core.interrupts): stopped where it was
        raise PublishInterrupted(f"interrupted: {hub.redact(holds.now)}") from None
    base = f"{hub.endpoint}/datasets/{repo_id}"
    return {
        "commit": commit,
        "commit_url": f"{base}/commit/{commit}",
        "tag_url": f"{base}/tree/{state.plan.tag}",
        "load": f'load_dataset("{repo_id}", revision="{state.plan.tag}")',
    }


class PublishInterrupted(PublishError):
    """A signal stopped publish; its message is the one line saying what the Hub holds."""


# What the Hub holds when a publish stops, said at the end of its one line.
NOTHING_SENT = "the Hub holds nothing sent by this run: nothing was published"
FILES_SENT = ("the Hub holds no commit of this release, at most files sent to its storage: nothing was published; "
              "run publish again")
MAYBE_COMMITTED = ("the Hub holds the files sent and perhaps the commit, without its tag: run publish again, it "
                   "tags that commit instead of making a second one")


@dataclass
class Holds:
    """What the Hub holds if publish stops now: each step updates it before a request that can change it."""

    now: str = NOTHING_SENT


@dataclass(frozen=True)
class HubState:
    """What ``_read`` found: the branch head, the plan against it, and the release tag's state."""

    head: str
    plan: Plan
    tagged: str | None  # the commit the release's tag names now (None: no such tag)
    move_tag: bool  # --force-tag, and the tag names other content


@contextmanager
def _then(note: str, only: type[PublishError] = PublishError, unless: tuple[type[PublishError], ...] = ()):
    """Add to a failure of type ``only`` (but not ``unless``) what state it left the Hub in and what to do."""
    try:
        yield
    except only as exc:
        if isinstance(exc, unless):
            raise
        raise type(exc)(f"{exc}; {note}") from None


def _read(hub: HubClient, dist: Path, repo_id: str, revision: str, private: bool, force_tag: bool,
          discard_hub_edits: bool, record: Record) -> HubState:
    """Everything publish reads before it sends anything: who you are, the repository (made if
    missing), its head and files, the plan against them, the record checked (``_check_the_record``)
    and the release tag's state. Refuses, naming why, with nothing sent."""
    api = hub.api
    with _then(NOTHING_SENT, only=HubUnavailable):
        me = hub.call("whoami", api.whoami)
        owner = repo_id.split("/")[0]
        mine = {me["name"], *(o["name"] for o in me.get("orgs", []))}
        if owner not in mine:
            raise PublishError(
                f"repository {repo_id} is owned by {owner}, not by you ({me['name']}) or your organisations"
            )
        hub.call("create repository", api.create_repo, repo_id, repo_type="dataset", private=private, exist_ok=True)
        refs = hub.call("read refs", api.list_repo_refs, repo_id, repo_type="dataset")
        head = next((b.target_commit for b in refs.branches if b.name == revision), None)
        if head is None:
            raise PublishError(f"branch {revision} does not exist in {repo_id}")
        tree = hub.call(
            "read files",
            lambda: list(api.list_repo_tree(repo_id, repo_type="dataset", revision=head, recursive=True)),
        )
        plan = make_plan(dist, repo_id, revision, remote_files(tree))
        hub.log(render_plan(plan, remote_known=True))
        _check_the_record(hub, dist, repo_id, revision, refs, plan.tag, discard_hub_edits,
                          same_files(local_files(dist), remote_files(tree)), record)
        tagged = next((t.target_commit for t in refs.tags if t.name == plan.tag), None)
        move_tag = False
        if tagged is not None:
            tag_tree = tree if tagged == head else hub.call(
                "read tagged files",
                lambda: list(api.list_repo_tree(repo_id, repo_type="dataset", revision=tagged, recursive=True)),
            )
            if not same_files(local_files(dist), remote_files(tag_tree)):
                if not force_tag:
                    raise PublishError(
                        f"tag {plan.tag} already exists on commit {tagged[:12]} with other content; bump the version "
                        "in pyproject.toml, or pass --force-tag to move it"
                    )
                move_tag = True
    return HubState(head, plan, tagged, move_tag)


def _check_the_record(hub: HubClient, dist: Path, repo_id: str, revision: str, refs, tag: str, discard_edits: bool,
                      head_is_ours: bool, record: Record) -> None:
    """Refuse, naming what, unless the release keeps the promises of the Hub's release tag it is
    measured against (``tag`` itself where it holds a release, so a ``--force-tag`` is checked
    against what the tag points at now; else the newest tag before it), no newer release is
    published in ``record`` or on the Hub, and the branch holds only publish's commits since the
    tag (``record.published.against_hub``)."""
    from ..core.errors import DumpError
    from ..core.guard import temporary_folder
    from ..record.hub import read_record
    from ..record.published import against_hub

    with temporary_folder() as fetched:
        try:
            found = read_record(hub.api, repo_id, fetched, branch=revision, before=tag, refs=refs, call=hub.call,
                                head_is_ours=head_is_ours)
        except DumpError as exc:
            raise PublishError(f"refused: {exc}") from None
        problems = against_hub(found, record, dist, tag[1:], discard_edits)[1]
    if problems:
        raise PublishError("refused: " + "; ".join(problems))
    if found.tag is not None:
        hub.log(f"The Hub's {found.tag} ({(found.commit or '')[:12]}): every id it published is kept, with its history.")


def _send(hub: HubClient, dist: Path, repo_id: str, revision: str, state: HubState, holds: Holds) -> str:
    """The release's commit: the files sent to the Hub's storage, then one commit naming them on
    top of the head that was read; the head itself where it already holds this release."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    plan, head, api = state.plan, state.head, hub.api
    if plan.empty:
        hub.log("Nothing changed since the last commit: no new commit.")
        if state.move_tag:  # --force-tag: the tag names other content, the head this release
            hub.log(f"The branch head {head[:12]} holds this release and {plan.tag} names other content "
                    f"(commit {(state.tagged or '')[:12]}): moving {plan.tag} to {head[:12]} (--force-tag).")
        elif state.tagged is None:
            # An earlier run that stopped after its commit left exactly this: its release, untagged.
            hub.log(f"The branch head {head[:12]} holds this release without its tag (a publish stopped after its "
                    f"commit): tagging it {plan.tag}.")
        return head
    additions = [CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(dist / f.path))
                 for f in plan.add + plan.update]
    operations = [*additions, *(CommitOperationDelete(path_in_repo=p) for p in plan.delete)]
    holds.now = FILES_SENT
    with _then(FILES_SENT):  # the LFS files go to the Hub's storage (Xet) before the commit names them
        hub.call("upload", api.preupload_lfs_files, repo_id, additions, repo_type="dataset", revision=revision,
                 free_memory=False)
    # refused, the commit was not made; unanswered, it may have been
    holds.now = MAYBE_COMMITTED
    with _then(FILES_SENT, unless=(HubUnavailable,)), _then(MAYBE_COMMITTED, only=HubUnavailable):
        info = hub.call(
            "commit",
            api.create_commit,
            repo_id,
            operations,
            repo_type="dataset",
            revision=revision,
            parent_commit=head,
            commit_message=plan.message,
            commit_description=plan.description,
            recover=partial(_applied_earlier, hub, repo_id, revision, head, plan.message, dist),
        )
    hub.log(f"Committed {info.oid[:12]}.")
    return info.oid


def _tag(hub: HubClient, repo_id: str, state: HubState, commit: str, holds: Holds) -> None:
    """The release tag on ``commit``: made, or moved there (``--force-tag``), unless it names it already."""
    tag, api = state.plan.tag, hub.api
    if state.tagged is None or state.move_tag:
        holds.now = f"the Hub holds commit {commit[:12]}, its tag {tag} may be missing: run publish again to tag it"
        with _then(holds.now):
            if state.move_tag:
                hub.call("move tag", api.delete_tag, repo_id, tag=tag, repo_type="dataset",
                         recover=partial(_untagged_earlier, hub, repo_id, tag), recover_on=(404,))
            hub.call("tag", api.create_tag, repo_id, tag=tag, revision=commit, repo_type="dataset",
                     tag_message=state.plan.message, recover=partial(_tagged_earlier, hub, repo_id, tag, commit))
    holds.now = f"the Hub holds the release complete: commit {commit[:12]} tagged {tag}"
    hub.log(f"The Hub holds the release complete: commit {commit[:12]} tagged {tag}.")


# The recovery steps: asked, after a request whose answer was lost, whether it went through.

def _applied_earlier(hub: HubClient, repo_id: str, revision: str, head: str, message: str, dist: Path):
    """The branch head, if it is this very commit: on top of ``head``, with our message and files."""
    api, what = hub.api, "applied-commit check"
    refs_now = hub.call(what, api.list_repo_refs, repo_id, repo_type="dataset")
    now = next((b.target_commit for b in refs_now.branches if b.name == revision), None)
    if now is None or now == head:
        return None
    commits = hub.call(what, api.list_repo_commits, repo_id, repo_type="dataset", revision=now)
    if len(commits) < 2 or commits[0].title != message or commits[1].commit_id != head:
        return None
    files = hub.call(what, lambda: list(api.list_repo_tree(repo_id, repo_type="dataset", revision=now, recursive=True)))
    return SimpleNamespace(oid=now) if same_files(local_files(dist), remote_files(files)) else None


def _tagged_earlier(hub: HubClient, repo_id: str, tag: str, commit_oid: str):
    """True if the tag already names this commit: an earlier try went through."""
    refs_now = hub.call("tag", hub.api.list_repo_refs, repo_id, repo_type="dataset")
    return True if any(t.name == tag and t.target_commit == commit_oid for t in refs_now.tags) else None


def _untagged_earlier(hub: HubClient, repo_id: str, tag: str):
    """True if the tag is gone: an earlier try of the deletion went through."""
    refs_now = hub.call("move tag", hub.api.list_repo_refs, repo_id, repo_type="dataset")
    return None if any(t.name == tag for t in refs_now.tags) else True
