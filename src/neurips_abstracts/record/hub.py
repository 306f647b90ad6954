"""The published record on the Hub: what a release tag there promised, and whether the
repository still holds what publish put in it.

The Hub, not a local copy, is where a release was published: ``publish`` reads the release tag
it builds on from there before it commits, and ``verify --hub`` reports the same findings
without publishing. Four things are checked:

* every id the tagged release published is in the new release, with its history (the build's
  own id contracts, ``identity.broken_promises``, against the Hub's ids and registry);
* the tag is where publish put it: on a commit of the branch's history made by publish for that
  version (a tag deleted and made again elsewhere is "moved");
* the branch holds no commit after the tag that publish did not make (the Hub's Data Studio
  commits every cell edited in the browser; a publish would silently undo it);
* the tag of the release's own version, if the Hub holds it, names the very files publish would
  send (compared by content: ``record.files``); on other files it is moved only by
  ``--force-tag``, so a version once tagged keeps meaning one release.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.names import MANIFEST, SUMS, data_path, table_paths
from ..core.resources import version_advice
from ..core.versions import TAG_RE, release_tag, version_key
from ..core.words import some
from .files import Remote, local_files, remote_files, same_files

if TYPE_CHECKING:
    from ..ingest.previous import PreviousRelease

PUBLISH_TITLE = "Release {tag}"  # the title of the commit publish makes for a release (hub/plan.py)


@dataclass
class HubRecord:
    """What the Hub holds of the releases of ``repo_id``."""

    repo_id: str
    tag: str | None  # the release tag checked against (None: the repository holds none)
    commit: str | None
    tags: tuple[str, ...]  # every release tag the repository holds, newest first
    previous: PreviousRelease | None = None  # read from the tag
    foreign: list[tuple[str, str]] = field(default_factory=list)  # (commit, title) after the tag, not publish's
    moved: str | None = None  # why the tag is not where publish put it
    release: str | None = None  # the tag of the release about to be published (v<its version>), if asked
    release_commit: str | None = None  # the commit that tag names on the Hub (None: no such tag yet)
    release_files: Remote = field(default_factory=dict)  # that commit's files

    @property
    def newest(self) -> str | None:
        """The newest release tag of any version."""
        return self.tags[0] if self.tags else None

    def tags_other_files(self, upload: Path) -> bool:
        """Whether the release's own tag is on the Hub naming other files than ``upload`` (what
        publish would send): publish refuses to move it, unless ``--force-tag``."""
        return self.release_commit is not None and not same_files(local_files(upload), self.release_files)


def _direct(what: str, fn, *args, **kwargs):
    return fn(*args, **kwargs)


def read_record(api, repo_id: str, into: Path, *, branch: str = "main", version: str | None = None,
                before: str | None = None, refs=None, call: Callable = _direct, head_is_ours: bool = False,
                release: str | None = None, trees: dict[str, list] | None = None) -> HubRecord:
    """Read the release tag of ``repo_id`` named by ``version``, else ``before`` (a tag) itself
    where it exists and holds a release, else the newest one older than ``before``, else the
    newest; download the files of it that hold the ids into ``into`` and read them. ``call(what, fn, *args)`` makes each Hub call (publish's retries).
    ``release``: the tag of the release about to be published, whose files on the Hub, if it is
    there, are listed (``HubRecord.tags_other_files``). ``trees``: the listings of commits
    already read (commit -> ``list_repo_tree`` answer), not asked again.

    A commit after the tag is publish's own only if it is a release publish tagged (titled
    ``Release vX`` and tagged ``vX``), or, with ``head_is_ours``, the branch's head (it holds the
    very files being published: a publish stopped before its tag); a title alone proves nothing,
    as anyone can type one in the Hub's editor."""
    from ..core.errors import DumpError
    from ..ingest.previous import read_previous

    refs = refs or call("reading its branches and tags", api.list_repo_refs, repo_id, repo_type="dataset")
    tags = {t.name: t.target_commit for t in refs.tags if TAG_RE.fullmatch(t.name)}
    if version is not None:
        tag: str | None = release_tag(version)
        if tag not in tags:
            raise DumpError(repo_id, f"no release tag {tag} on the Hub (tags: {', '.join(sorted(tags, key=version_key)) or 'none'})")
    else:
        older = [t for t in tags if before is None or version_key(t) < version_key(before)]
        tag = max(older, key=version_key, default=None)
        at = None if before is None else release_tag(before)
        if at in tags and _holds_release(api, repo_id, tags[at], call):
            # the tag a publish would move (--force-tag) is checked against the release it
            # points at now: its ids must not vanish from the Hub
            tag = at
    record = HubRecord(repo_id, tag, tags.get(tag), tuple(sorted(tags, key=version_key, reverse=True)))
    listed = dict(trees or {})

    def tree_of(commit: str, what: str) -> list:
        if commit not in listed:
            listed[commit] = call(what, lambda: list(api.list_repo_tree(repo_id, repo_type="dataset", revision=commit,
                                                                        recursive=True)))
        return listed[commit]

    if release is not None:
        record.release, record.release_commit = release, tags.get(release)
        if record.release_commit is not None:
            record.release_files = remote_files(tree_of(record.release_commit, f"listing the files of tag {release}"))
    if tag is None:
        return record
    commit = tags[tag]
    history = call("reading its commit history", api.list_repo_commits, repo_id, repo_type="dataset", revision=branch)
    in_history = [c.commit_id for c in history]
    if commit not in in_history:
        record.moved = f"tag {tag} points at commit {commit[:12]}, which is not on {branch}"
    else:
        tagged = history[in_history.index(commit)]
        if tagged.title != PUBLISH_TITLE.format(tag=tag):
            record.moved = (f"tag {tag} points at commit {commit[:12]} ({tagged.title!r}), not at the commit "
                            f"publish made for it ({PUBLISH_TITLE.format(tag=tag)!r})")
        after = history[: in_history.index(commit)]
        released = {(PUBLISH_TITLE.format(tag=t), oid) for t, oid in tags.items()}
        record.foreign = [(c.commit_id, c.title) for k, c in enumerate(after)
                          if (c.title, c.commit_id) not in released and not (k == 0 and head_is_ours)]
    tree = {f.path for f in tree_of(commit, "listing the tagged release's files") if hasattr(f, "size")}
    try:
        ids = table_paths("ids", tree)
        wanted = [MANIFEST, SUMS, *(table_paths("occurrences", tree) or [data_path("occurrences")]),
                  *(ids or table_paths("papers", tree) or [data_path("papers")])]
    except ValueError as exc:
        raise DumpError(f"{repo_id}@{tag}", f"the tagged release's files: {exc}") from None
    if record.moved and not set(wanted) <= set(tree):
        return record  # a moved tag on a commit that holds no release: the move is the finding
    for path in wanted:
        if path not in tree:
            raise DumpError(f"{repo_id}@{tag}", f"the tagged release has no {path}: it is not a release publish made")
        call(f"download {path}", api.hf_hub_download, repo_id, path, repo_type="dataset", revision=commit,
             local_dir=into)
    try:
        record.previous = read_previous(into)
    except (DumpError, ValueError) as exc:
        raise DumpError(f"{repo_id}@{tag}", f"the release tagged on the Hub does not read: {exc}") from None
    return record


def _holds_release(api, repo_id: str, commit: str, call: Callable) -> bool:
    """Whether the Hub's ``commit`` holds a release (its manifest)."""
    files = call("listing a tagged commit's files", lambda: [f.path for f in api.list_repo_tree(
        repo_id, repo_type="dataset", revision=commit) if hasattr(f, "size")])
    return MANIFEST in files


def broken(record: HubRecord, dist: Path) -> list[str]:
    """The promises of the Hub's tagged release that the release in ``dist`` breaks."""
    from ..ids.identity import broken_promises
    from ..ingest.previous import IdRow, read_release_table, record_key

    if record.previous is None:
        return []
    table = read_release_table(dist, "ids", columns=list(IdRow.__dataclass_fields__))
    rows = [IdRow(**r) for r in table.to_pylist()]
    occ = read_release_table(dist, "occurrences", columns=["source_sha256", "byte_start", "paper_id"])
    keys = (record_key(s, b) for s, b in zip(occ["source_sha256"].to_pylist(), occ["byte_start"].to_pylist()))
    found = broken_promises(rows, keys, iter(occ["paper_id"].to_pylist()), record.previous)
    return [f"{what} (against {record.tag} on the Hub): {some(ids)}"
            for what, ids in found]


def tag_taken(record: HubRecord, upload: Path) -> str | None:
    """Why the release in ``upload`` (the files publish sends) may not take its version's tag,
    which the Hub holds on other files, or None: it is free, or names these very files."""
    if not record.tags_other_files(upload):
        return None
    return (f"tag {record.release} already exists on commit {(record.release_commit or '')[:12]} with other content; "
            f"{version_advice('bump')}, or pass --force-tag to move it")


def findings(record: HubRecord, dist: Path, discard_edits: bool = False, force_tag: bool = False) -> list[str]:
    """What the Hub's repository itself keeps the release in ``dist`` (the files publish sends)
    from being published on top of, each in one line (a newer release anywhere in the record is
    ``checks.newer_published``'s): a moved tag, commits after it that publish did not make,
    promises of the tagged release broken, and the release's own version tagged on other files
    (``tag_taken``, where ``read_record`` was asked for its ``release``). ``discard_edits``:
    commits after the tag are not counted (publish --discard-hub-edits replaces what they
    changed); ``force_tag``: that tag is moved (publish --force-tag)."""
    out = []
    if record.moved:
        out.append(record.moved)
    if record.foreign and not discard_edits:
        named = ", ".join(f"{c[:12]} ({t!r})" for c, t in record.foreign[:5])
        out.append(f"the Hub's branch holds {len(record.foreign)} commit{'s' if len(record.foreign) > 1 else ''} "
                   f"after {record.tag} that publish did not make: {named}; fold their changes into raw/ or the build, or pass "
                   "--discard-hub-edits to replace them with this release")
    out += broken(record, dist)
    if not force_tag and (taken := tag_taken(record, dist)):
        out.append(taken)
    return out


def reader(repo_id: str, endpoint: str | None = None, token: str | None = None):
    """A client of the Hub and a ``call`` for ``read_record`` that turns any failure to read the
    Hub into one line (DumpError) naming the repository and what was read."""
    from huggingface_hub import HfApi

    from ..core.errors import HubReadError

    api = HfApi(endpoint=endpoint, token=token)

    def call(what: str, fn, *args, **kwargs):
        import httpx2
        from huggingface_hub.errors import HfHubHTTPError

        try:
            return fn(*args, **kwargs)
        except HfHubHTTPError as exc:
            status = exc.response.status_code if exc.response is not None else "no answer"
            raise HubReadError(repo_id, f"{what}: the Hub at {api.endpoint} answered {status}") from None
        except (httpx2.TransportError, OSError) as exc:
            raise HubReadError(repo_id, f"{what}: cannot reach the Hub at {api.endpoint} ({type(exc).__name__}): check "
                                     "the network, or set HF_ENDPOINT to the Hub to use") from None

    return api, call


def fetch_release(repo_id: str, version: str, into: Path, endpoint: str | None = None,
                  token: str | None = None) -> Path:
    """``build --previous hub:vX.Y.Z``: the files of the release tagged ``version`` on the Hub
    that hold its ids, downloaded into ``into`` (a release folder a build reads its ids from)."""
    api, call = reader(repo_id, endpoint, token)
    from ..core.errors import DumpError

    into.mkdir(parents=True, exist_ok=True)
    record = read_record(api, repo_id, into, version=version, call=call)
    if record.previous is None:
        raise DumpError(f"{repo_id}@{record.tag}", f"{record.moved}: no release to read there")
    return into
