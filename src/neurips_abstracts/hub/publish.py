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
* A run can stop at any Hub call (a 5xx, a timeout, a reset connection) and the next run
  finishes the release: a branch head holding exactly this release's files is the commit of an
  earlier run (or the same content), so it is tagged, not committed again. Every failure is one line saying
  whether anything reached the Hub and what to do.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from ..core.names import release_table_paths, table_folder
from ..core.sums import sha256_file
from ..core.guard import replace_dir
from .plan import local_files, make_plan, remote_files, render_plan, same_files


class PublishError(RuntimeError):
    """A refusal or failure, in words fit to print."""


class HubUnavailable(PublishError):
    """The Hub kept failing (5xx, timeouts, connection errors) after every attempt."""


@dataclass(frozen=True)
class PublishConfig:
    attempts: int = 4  # tries for each call on transient errors (5xx, timeouts, connection)
    backoff_seconds: float = 1.0  # first wait; doubles after every failed try
    # Longest wait for any one network operation (connect, send, receive a part of the answer):
    # huggingface_hub's own client waits forever, so a Hub that never answers would hang publish.
    timeout_seconds: float = 120.0


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

    if staged_as_copy(repo_id):
        replace_dir(out, lambda tmp: shutil.copytree(dist, tmp, dirs_exist_ok=True), raw=[raw], keep=[dist])
        return
    build(raw, out, repo_id=repo_id, previous=dist)  # the ids dist kept: a rebuild on itself is a fixpoint
    for table in TABLES:
        staged, built = release_table_paths(out, table), release_table_paths(dist, table)
        if staged != built or any(sha256_file(out / rel) != sha256_file(dist / rel) for rel in staged):
            raise PublishError(f"staged {table_folder(table)}/ differs from {dist}'s: rebuild {dist} first")


def preconditions(raw: Path, dist: Path, docs: bool) -> list[str]:
    """Reasons to refuse: a stale or unverifiable dist/, or uncommitted work."""
    from ..build import check
    from ..release.verify import verify

    failures = []
    stale = check(raw, dist, docs=docs)
    if stale:
        failures.append("check failed: stale " + ", ".join(stale) + " (run: python build_dataset.py build)")
    problems = verify(dist)
    if problems:
        failures.append("verify failed: " + "; ".join(problems[:5]))
    git = subprocess.run(
        ["git", "-C", str(dist.resolve().parent), "status", "--porcelain"], capture_output=True, text=True
    )
    if git.returncode != 0:
        failures.append("not a git work tree: a release must come from a commit")
    elif git.stdout.strip():
        failures.append("git work tree not clean: commit or stash first")
    return failures


class _Hub:
    """The huggingface_hub calls publish makes, each retried on transient errors."""

    def __init__(self, token: str, endpoint: str | None, config: PublishConfig, log: Callable[[str], None]):
        from huggingface_hub import HfApi

        self.api = HfApi(endpoint=endpoint, token=token)
        self.endpoint = self.api.endpoint
        self.token = token
        self.config = config
        self.log = log

    def __enter__(self) -> "_Hub":
        """While publishing, every network operation waits at most ``config.timeout_seconds``.

        huggingface_hub sends every request through one shared client that it makes with a
        factory and no timeout: publish sets a factory (``set_client_factory``, public) whose
        clients have the timeout and the template client's request hooks. hf_xet, which sends
        the files to the Hub's Xet storage, reads its settings from ``HF_XET_*`` environment
        variables when huggingface_hub makes its Xet session (the first upload or download of a
        process): its connect and read timeouts are set to ours, and its own retries off, so
        that publish's attempts are the only retries and a storage that is down, slow or
        failing costs at most ``attempts`` x ``timeout`` (plus backoff)."""
        import os

        import httpx2
        from huggingface_hub import get_session, set_client_factory

        template = get_session()
        hooks, redirects, timeout = template.event_hooks, template.follow_redirects, template.timeout

        def client(seconds):
            return lambda: httpx2.Client(event_hooks=hooks, follow_redirects=redirects, timeout=seconds)

        self._restore_client = client(timeout)
        set_client_factory(client(self.config.timeout_seconds))
        wait = f"{max(1, round(self.config.timeout_seconds * 1000))}ms"
        xet = {"HF_XET_CLIENT_RETRY_MAX_ATTEMPTS": "0", "HF_XET_CLIENT_CONNECT_TIMEOUT": wait,
               "HF_XET_CLIENT_READ_TIMEOUT": wait}
        self._restore_env = {name: os.environ.get(name) for name in xet}
        os.environ.update(xet)
        return self

    def __exit__(self, *exc) -> None:
        import os

        from huggingface_hub import set_client_factory

        set_client_factory(self._restore_client)
        for name, value in self._restore_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def redact(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text

    def call(self, what: str, fn, *args, recover: Callable[[], object] | None = None,
             recover_on: tuple[int, ...] = (409, 412), **kwargs):
        """``fn(*args, **kwargs)``, retried on transient errors: 5xx, 429, timeouts, connection
        errors, and the Xet storage's failures. A 429 or 503 with ``Retry-After`` is retried after
        the wait it asks for, if that is no longer than the timeout. When the Hub answers a status
        of ``recover_on``, ``recover()`` may show that an earlier try went through: its result is
        returned instead."""
        import httpx2  # what huggingface_hub talks through: its network errors are httpx2's
        from huggingface_hub.errors import HfHubHTTPError

        wait = self.config.backoff_seconds
        for attempt in range(1, self.config.attempts + 1):
            pause = wait
            try:
                return fn(*args, **kwargs)
            except HfHubHTTPError as exc:
                status = exc.response.status_code if exc.response is not None else None
                if status in recover_on and recover is not None:
                    recovered = recover()
                    if recovered is not None:
                        self.log(f"{what}: the Hub had already applied an earlier try; nothing more to do")
                        return recovered
                if status is not None and status < 500 and status != 429:
                    raise self._refusal(what, status, exc) from None
                reason = f"HTTP {status}"
                asked = retry_after(exc.response) if status in (429, 503) else None
                if asked is not None:
                    if asked > self.config.timeout_seconds:
                        raise HubUnavailable(
                            f"{what}: the Hub answered {status} and asks to wait {asked:g} s before trying again, "
                            f"longer than the timeout ({self.config.timeout_seconds:g} s)"
                        ) from None
                    pause, reason = asked, f"HTTP {status}, Retry-After {asked:g} s"
            except httpx2.TransportError as exc:  # timeouts, refused or reset connections, broken answers
                reason = type(exc).__name__
            except (ConnectionError, TimeoutError) as exc:  # hf_xet's: the Xet storage failed or never answered
                reason = f"Xet storage: {self.redact(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)}"
            if attempt == self.config.attempts:
                raise HubUnavailable(
                    f"{what}: gave up after {attempt} attempt{'s' if attempt > 1 else ''} ({reason}) talking to "
                    f"{self.endpoint}"
                )
            self.log(f"{what}: {reason}, retrying in {pause:g} s (attempt {attempt + 1} of {self.config.attempts})")
            time.sleep(pause)
            wait *= 2

    def _refusal(self, what: str, status: int, exc) -> PublishError:
        detail = self.redact(str(exc).splitlines()[0] if str(exc) else "")
        if status == 401:
            return PublishError(f"{what}: the Hub rejected the token (401): set a valid HF_TOKEN or log in again")
        if status == 403:
            return PublishError(f"{what}: forbidden (403): the token cannot write to this repository ({detail})")
        if status in (409, 412) and what == "commit":
            return PublishError(
                f"{what}: the branch moved since it was read ({status}); someone else committed meanwhile. "
                "Nothing was published and nothing is retried: run publish again to plan against the new head"
            )
        if status == 404:
            return PublishError(f"{what}: not found (404): {detail}")
        return PublishError(f"{what}: the Hub refused ({status}): {detail}")


def retry_after(response) -> float | None:
    """The seconds an answer's ``Retry-After`` asks to wait (a number or an HTTP date), or None."""
    from email.utils import parsedate_to_datetime

    value = (response.headers.get("retry-after") or "").strip() if response is not None else ""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


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
) -> dict:
    """Publish ``dist`` (already checked) and return the commit and tag URLs. Refused (nothing
    sent) where it would break what the Hub's last release tag promised, or where the branch
    holds commits publish did not make (unless ``discard_hub_edits``): see ``release.hub_record``."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, get_token

    token = token or get_token()
    if not token:
        raise PublishError("no token: set HF_TOKEN or log in with `hf auth login`")
    hub = _Hub(token, endpoint, config, log)
    try:
        with hub:
            return _publish(hub, dist, repo_id, revision, private, force_tag, discard_hub_edits,
                            CommitOperationAdd, CommitOperationDelete)
    except PublishError as exc:
        raise type(exc)(hub.redact(str(exc))) from None


def _check_the_record(hub: _Hub, dist: Path, repo_id: str, revision: str, refs, tag: str, discard_edits: bool,
                      head_is_ours: bool) -> None:
    """Refuse, naming what, unless the release keeps the promises of the Hub's last release tag
    before ``tag`` and the branch holds only publish's commits since it (``release.hub_record``)."""
    from ..core.errors import DumpError
    from ..core.guard import temporary_folder
    from ..release.hub_record import findings, read_record

    with temporary_folder() as fetched:
        try:
            record = read_record(hub.api, repo_id, fetched, branch=revision, before=tag, refs=refs, call=hub.call,
                                 head_is_ours=head_is_ours)
        except DumpError as exc:
            raise PublishError(f"refused: {exc}") from None
        problems = findings(record, dist, tag[1:], discard_edits)
    if problems:
        raise PublishError("refused: " + "; ".join(problems))
    if record.tag is not None:
        hub.log(f"The Hub's {record.tag} ({record.commit[:12]}): every id it published is kept, with its history.")


# What the Hub holds when a publish stops, said at the end of its one line.
NOTHING_SENT = "the Hub holds nothing sent by this run: nothing was published"
FILES_SENT = ("the Hub holds no commit of this release, at most files sent to its storage: nothing was published; "
              "run publish again")
MAYBE_COMMITTED = ("the Hub holds the files sent and perhaps the commit, without its tag: run publish again, it "
                   "tags that commit instead of making a second one")


@contextmanager
def _then(note: str, only: type[PublishError] = PublishError, unless: tuple[type[PublishError], ...] = ()):
    """Add to a failure of type ``only`` (but not ``unless``) what state it left the Hub in and what to do."""
    try:
        yield
    except only as exc:
        if isinstance(exc, unless):
            raise
        raise type(exc)(f"{exc}; {note}") from None


def _publish(hub: _Hub, dist, repo_id, revision, private, force_tag, discard_hub_edits, Add, Delete) -> dict:
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
                          head_is_ours=same_files(local_files(dist), remote_files(tree)))

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

    if plan.empty:
        commit_oid = head
        hub.log("Nothing changed since the last commit: no new commit.")
        if tagged is None or move_tag:
            # An earlier run that stopped after its commit left exactly this: its release, untagged.
            hub.log(f"The branch head {head[:12]} holds this release without its tag (a publish stopped after its "
                    f"commit): tagging it {plan.tag}.")
    else:
        operations = [Add(path_in_repo=f.path, path_or_fileobj=str(dist / f.path)) for f in plan.add + plan.update]
        operations += [Delete(path_in_repo=p) for p in plan.delete]

        def applied_earlier():
            """The branch head, if it is this very commit: on top of ``head``, with our message and files."""
            what = "applied-commit check"
            refs_now = hub.call(what, api.list_repo_refs, repo_id, repo_type="dataset")
            now = next((b.target_commit for b in refs_now.branches if b.name == revision), None)
            if now is None or now == head:
                return None
            commits = hub.call(what, api.list_repo_commits, repo_id, repo_type="dataset", revision=now)
            if len(commits) < 2 or commits[0].title != plan.message or commits[1].commit_id != head:
                return None
            files = hub.call(
                what, lambda: list(api.list_repo_tree(repo_id, repo_type="dataset", revision=now, recursive=True))
            )
            return SimpleNamespace(oid=now) if same_files(local_files(dist), remote_files(files)) else None

        additions = [op for op in operations if isinstance(op, Add)]
        with _then(FILES_SENT):  # the LFS files go to the Hub's storage (Xet) before the commit names them
            hub.call("upload", api.preupload_lfs_files, repo_id, additions, repo_type="dataset", revision=revision,
                     free_memory=False)
        # refused, the commit was not made; unanswered, it may have been
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
                recover=applied_earlier,
            )
        commit_oid = info.oid
        hub.log(f"Committed {commit_oid[:12]}.")

    if tagged is None or move_tag:

        def tagged_earlier():
            """True if the tag already names this commit: an earlier try went through."""
            refs_now = hub.call("tag", api.list_repo_refs, repo_id, repo_type="dataset")
            return True if any(t.name == plan.tag and t.target_commit == commit_oid for t in refs_now.tags) else None

        def untagged_earlier():
            """True if the tag is gone: an earlier try of the deletion went through."""
            refs_now = hub.call("move tag", api.list_repo_refs, repo_id, repo_type="dataset")
            return None if any(t.name == plan.tag for t in refs_now.tags) else True

        with _then(f"the Hub holds commit {commit_oid[:12]}, its tag {plan.tag} may be missing: run publish again "
                   "to tag it"):
            if move_tag:
                hub.call("move tag", api.delete_tag, repo_id, tag=plan.tag, repo_type="dataset",
                         recover=untagged_earlier, recover_on=(404,))
            hub.call("tag", api.create_tag, repo_id, tag=plan.tag, revision=commit_oid, repo_type="dataset",
                     tag_message=plan.message, recover=tagged_earlier)
    hub.log(f"The Hub holds the release complete: commit {commit_oid[:12]} tagged {plan.tag}.")
    base = f"{hub.endpoint}/datasets/{repo_id}"
    result = {
        "commit": commit_oid,
        "commit_url": f"{base}/commit/{commit_oid}",
        "tag_url": f"{base}/tree/{plan.tag}",
        "load": f'load_dataset("{repo_id}", revision="{plan.tag}")',
    }
    return result
