"""The checks that hold a build to the published record (``record``): an anchor never older
than the newest published release, no id minted or retired under a published version, no id of
a release dropped or re-dated; and what changed since the newest published release."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.clones import Blobs
from ..core.errors import DumpError
from ..core.names import MANIFEST, holds_release
from ..core.resources import version_advice
from ..core.versions import version_key
from ..core.words import plural, some
from .git import committed, release_commit
from .model import Record

if TYPE_CHECKING:
    from ..ingest.previous import PreviousRelease


def rebuilds(previous: PreviousRelease | None, record: Record, version: str) -> bool:
    """Whether a build of ``version`` on ``previous`` is a released version rebuilt on its own
    release (``check`` at its release commit): held to that release, never a new one."""
    return previous is not None and previous.version == version and record.find(version) is not None


def check_anchor(previous: PreviousRelease | None, record: Record, version: str, named: str | None = None) -> None:
    """Refuse an anchor older than the newest published release, naming both: its ids would be
    re-dated, or lost. A released version rebuilt on its own release is no new release."""
    newest = record.newest
    if previous is None or newest is None or version_key(previous.version) >= version_key(newest.version):
        return
    if rebuilds(previous, record, version):
        return
    given = f"--previous {named}" if named else previous.shown
    raise DumpError(given, f"is release {previous.version}, older than {newest.version}, the newest published ({newest.how}): "
                    f"its ids would be re-dated or lost; build on {newest.version} (`python build_dataset.py build "
                    f"--previous {newest.version}`{'' if record.clone is not None else ', or a folder holding it'})",
                    code="older-anchor")


def check_build(ids, previous: PreviousRelease | None, record: Record, version: str,
                replaced: PreviousRelease | None, dumps: frozenset[str] | None = None,
                back: Callable[[str], str] = lambda version: way_back(version, None)) -> None:
    """Refuse a build anchored to ``previous`` that breaks the record, naming the way out:

    * a version below the newest published release, unless it is that version rebuilt on its own
      release (``check`` at a release commit);
    * an id first released or retired after ``version`` (a build on a later version's release,
      pyproject.toml set back);
    * an id minted or retired under a published version, or a published version built from other
      dumps (``dumps``: their sha256) than it was built from (naming the bump: a published
      version never changes);
    * an id of the release it must keep dropped or re-dated: that version's own release where a
      published version is rebuilt, else the newest published release (both read from git); and
      a published version rebuilt holding an id it did not publish, or built from other dumps;
    * an id of the release it replaces (``replaced``) dropped or re-dated, unless put back as the
      release it must keep published it.

    ``back(version)``: how to build on release ``version`` again, in the words of the command the
    user ran (``way_back`` of its folders; asked only when refusing).

    ``previous`` None (``--first-release``) starts the id history over on purpose: none applies."""
    if previous is None:
        return
    newest = record.newest
    published = record.find(version)
    rebuild = rebuilds(previous, record, version)
    before = {r.id: r for r in previous.ids}
    minted = sum(r.id not in before for r in ids)
    retired = sum(r.retired_release == version and (r.id not in before or before[r.id].retired_release != version)
                  for r in ids)
    did = " and ".join(x for x in (f"mint {plural(minted, 'new id')}" if minted else "",
                                   f"retire {retired}" if retired else "") if x)
    if rebuild and not did and dumps is not None:
        was = frozenset(previous.dump_sha256.values())
        if dumps != was:  # same ids, other data: the published version would change all the same
            did = (f"change the data of version {version} ({len(dumps - was)} dump(s) it was not built from, "
                   f"{len(was - dumps)} of its dumps missing)")
    if published and did:
        raise DumpError("pyproject.toml", f"this build would {did} under version {version}, which is published "
                        f"({published.how}): {bump(version, record)}", code="published-version")
    if newest is not None and not rebuild and version_key(version) < version_key(newest.version):
        raise DumpError("pyproject.toml", f"version {version} is below {newest.version}, the newest published "
                        f"({newest.how}): a release after it cannot be an older version; {bump(version, record)}",
                        code="published-version")
    later = sum(version_key(r.first_release) > version_key(version) or
                (r.retired_release is not None and version_key(r.retired_release) > version_key(version)) for r in ids)
    if later:  # built on a release of a later version (pyproject set back): its ids would be dated after it
        then = (f", or build {version} on {newest.version}, the newest published release: "
                f"{back(newest.version)}" if newest is not None and not published else "")
        raise DumpError("pyproject.toml", f"version {version} is below {previous.version}, the version of the release "
                        f"this build keeps ({previous.shown}), and {later} of its ids would be dated after {version}: a "
                        f"release cannot hold ids first released or retired after it; "
                        f"{version_advice('set', f'to {previous.version} or later')}{then}", code="published-version")
    now = {r.id: r.first_release for r in ids}
    kept = published_ids(version if rebuild else (newest.version if newest else None), record)
    if kept is not None:
        lost = sorted(i for i, first in kept[1].items() if now.get(i) != first)
        if lost:
            raise DumpError(previous.shown, f"the build on it would drop or re-date {plural(len(lost), 'id')} "
                            f"that {kept[0]}, {'the version being rebuilt' if rebuild else 'the newest published release'}, "
                            f"holds ({some(lost)}); build on {kept[0]}: {back(kept[0])}",
                            code="drops-ids")
        extra = sorted(set(now) - set(kept[1])) if rebuild else []
        other = rebuild and dumps is not None and kept[2] is not None and dumps != kept[2]
        if extra or other:  # a published version rebuilt is that release, exactly: not a trial carrying its version
            what = f"hold {plural(len(extra), 'id')} it never published ({some(extra)})" if extra else \
                "be built from other dumps than it was"
            raise DumpError(previous.shown, f"the build on it would {what}: version {version} is published "
                            f"({published.how if published else ''}) and a rebuild of it is that release exactly; "
                            f"{bump(version, record)}, or build on {version}: {back(kept[0])}", code="published-version")
    if replaced is not None:
        truth = kept[1] if kept else {}  # an id put back as the release it must keep published it is no loss
        lost = sorted(r.id for r in replaced.ids if now.get(r.id) != r.first_release and now.get(r.id) != truth.get(r.id, ""))
        if lost:
            raise DumpError(replaced.path, f"would be replaced by a release that drops or re-dates {len(lost)} of its ids "
                            f"({some(lost)}); build on it (the default), or pass "
                            "--first-release to start the id history over on purpose", code="drops-ids")


def way_back(version: str, out: str | Path | None, raw: str | Path | None = None,
             prog: str = "python build_dataset.py") -> str:
    """How to build on release ``version`` from ``raw`` into ``out`` (defaults raw/ and dist/)
    again, in a command that works as printed where the command ran: a folder ``out`` that holds
    a release is removed first, since a build replacing it keeps the ids it holds (those a trial
    minted too)."""
    from ..core.guard import resolve

    folder = Path(out) if out is not None else Path("dist")
    shown = str(out).rstrip("/\\") or str(out) if out is not None else "dist"
    options = "" if raw is None or resolve(Path(raw)) == resolve(Path("raw")) else f" --raw {raw}"
    options += "" if resolve(folder) == resolve(Path("dist")) else f" --out {shown}"
    command = f"`{prog} build --previous {version}{options}`"
    return f"remove {shown}/ and run {command}" if holds_release(folder) else f"run {command}"


def bump(version: str, record: Record) -> str:
    """The advice to bump ``version`` past every published one."""
    newest = record.newest
    top = max(version_key(version), version_key(newest.version)) if newest else version_key(version)
    return version_advice("bump", f"(to {top[0]}.{top[1] + 1}.0)", "and build again")


def newer_published(version: str, record: Record) -> str | None:
    """Why a release of ``version`` may not be published on top of ``record`` (None: it may): a
    newer release is published, which it would lower (``publish`` never lowers what a tag holds)."""
    newest = record.newest
    if newest is None or version_key(newest.version) <= version_key(version):
        return None
    build_on = f"and build on it (`python build_dataset.py build --previous {newest.version}`)"
    return (f"a newer release than this one ({version}) is published: {newest.version} ({newest.how}); "
            f"{version_advice('set', f'after {newest.version}', build_on)}")


def published_ids(version: str | None, record: Record) -> tuple[str, dict[str, str], frozenset[str] | None] | None:
    """The published release ``version``'s ids (id -> first_release) and the sha256 of the dumps
    it was built from (None: its manifest does not list them), read from its release commit in
    the record's clone: the ids from the list its manifest keeps, else from its tables (a release
    from before that list, or from before the ids table: its papers). None where it cannot be
    read here (outside a clone, or no commit released it)."""
    from ..core.guard import temporary_folder
    from ..ingest.previous import read_ids
    from .git import release_from_git

    if version is None or record.clone is None:
        return None
    with Blobs(record.clone) as files:
        if (commit := release_commit(version, record.clone, files)) is None:
            return None
        manifest = committed(files, commit, MANIFEST)
        try:
            said = json.loads(manifest) if manifest is not None else {}
            rows = said.get("ids")
            dumps = frozenset(i["sha256"] for i in said["inputs"]) if isinstance(said.get("inputs"), list) else None
        except (ValueError, AttributeError, TypeError, KeyError):
            rows, dumps = None, None
        if isinstance(rows, list):
            try:
                return version, {r[0]: r[3] for r in rows}, dumps
            except (TypeError, IndexError, KeyError):
                pass  # not the list a manifest keeps: the tables say
        with temporary_folder() as tmp:
            try:
                folder = release_from_git(commit, record.clone, tmp / "release", tables=("ids", "papers"), files=files)[0]
                _, ids = read_ids(folder)
            except (DumpError, ValueError):
                return None  # the release commit does not read: its anchor was checked as it was built
            return version, {r.id: r.first_release for r in ids}, dumps


def since_published(ids, record: Record, previous: PreviousRelease | None = None, version: str | None = None) -> dict:
    """What the ids table says changed since the newest published release (``since``): ids first
    released after it, and ids merged or removed after it. Where nothing is known as published
    but the build is anchored to ``previous`` (``anchor``), the changes since that release.
    ``rebuilt``: ``version``, the version built, where it is a published one older than the newest,
    built on its own release (``check_build`` held it to the ids it published; never with
    ``--first-release``, which keeps no release)."""
    newest = record.newest.version if record.newest else None
    rebuilt = version if version is not None and newest not in (None, version) and rebuilds(previous, record, version) \
        else None
    if newest is None and previous is not None:
        before = {r.id: r for r in previous.ids}
        return {"since": None, "anchor": previous.version, "rebuilt": None,
                "added": sum(r.id not in before for r in ids),
                "merged": sum(r.status == "merged" and (r.id not in before or before[r.id].status != "merged") for r in ids),
                "removed": sum(r.status == "removed" and (r.id not in before or before[r.id].status != "removed") for r in ids)}
    versions = record.versions()
    return {"since": newest, "anchor": None, "rebuilt": rebuilt,
            "added": sum(r.first_release not in versions for r in ids),
            "merged": sum(r.status == "merged" and r.retired_release not in versions for r in ids),
            "removed": sum(r.status == "removed" and r.retired_release not in versions for r in ids)}
