"""The checks that hold a build to the published record (``record``): an anchor never older
than the newest published release, no id minted or retired under a published version, no id of
a release dropped or re-dated; and what changed since the newest published release."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..core.clones import Blobs
from ..core.errors import DumpError
from ..core.names import MANIFEST
from ..core.versions import version_key
from .git import committed, release_commit
from .model import Record

if TYPE_CHECKING:
    from ..ingest.previous import PreviousRelease


def check_anchor(previous: PreviousRelease | None, record: Record, version: str, named: str | None = None) -> None:
    """Refuse an anchor older than the newest published release, naming both: its ids would be
    re-dated, or lost. A released version rebuilt on its own release is no new release."""
    newest = record.newest
    if previous is None or newest is None or version_key(previous.version) >= version_key(newest.version):
        return
    if previous.version == version and record.find(version):
        return  # a released version rebuilt from its own release (check at its commit)
    given = f"--previous {named}" if named else previous.path
    raise DumpError(given, f"is release {previous.version}, older than {newest.version}, the newest published ({newest.how}): "
                    f"its ids would be re-dated or lost; build on {newest.version} (--previous {newest.version}"
                    f"{'' if record.clone is not None else ' or a folder holding it'})", code="older-anchor")


def check_build(ids, previous: PreviousRelease | None, record: Record, version: str,
                replaced: PreviousRelease | None, dumps: frozenset[str] | None = None) -> None:
    """Refuse a build that mints or retires an id under a version the record holds, or that
    rebuilds a published version from other dumps (``dumps``: their sha256) than it was built
    from (naming the bump: a published version never changes), or that drops or re-dates an id
    of the release it replaces (``replaced``)."""
    before = {r.id: r for r in previous.ids} if previous else {}
    minted = sum(r.id not in before for r in ids)
    retired = sum(r.retired_release == version and (r.id not in before or before[r.id].retired_release != version)
                  for r in ids)
    published = record.find(version)
    did = " and ".join(x for x in (f"mint {minted} new id{'s' * (minted != 1)}" if minted else "",
                                   f"retire {retired}" if retired else "") if x)
    if published and previous is not None and not did and dumps is not None and previous.version == version:
        was = frozenset(previous.dump_sha256.values())
        if dumps != was:  # same ids, other data: the published version would change all the same
            did = (f"change the data of version {version} ({len(dumps - was)} dump(s) it was not built from, "
                   f"{len(was - dumps)} of its dumps missing)")
    if published and previous is not None and did:  # --first-release: over on purpose
        major, minor, _patch = version_key(version)
        raise DumpError("pyproject.toml", f"this build would {did} under version {version}, which is published "
                        f"({published.how}): bump the version in pyproject.toml (to {major}.{minor + 1}.0) and build again",
                        code="published-version")
    now = {r.id: r.first_release for r in ids}
    kept = None
    if previous is not None and not (published and previous.version == version):  # not a rebuild of a release
        kept = newest_published_ids(record)
        if kept is not None:
            lost = sorted(i for i, first in kept[1].items() if now.get(i) != first)
            if lost:
                raise DumpError(previous.path, f"the build on it would drop or re-date {len(lost)} id{'s' * (len(lost) != 1)} "
                                f"that {kept[0]}, the newest published release, holds ({', '.join(lost[:5])}"
                                f"{' …' if len(lost) > 5 else ''}); build on {kept[0]} (--previous {kept[0]})",
                                code="drops-ids")
    if replaced is not None and previous is not None:
        truth = kept[1] if kept else {}  # an id put back as the newest release published it is no loss
        lost = sorted(r.id for r in replaced.ids if now.get(r.id) != r.first_release and now.get(r.id) != truth.get(r.id, ""))
        if lost:
            raise DumpError(replaced.path, f"would be replaced by a release that drops or re-dates {len(lost)} of its ids "
                            f"({', '.join(lost[:5])}{' …' if len(lost) > 5 else ''}); build on it (the default), or pass "
                            "--first-release to start the id history over on purpose", code="drops-ids")


def newer_published(version: str, record: Record) -> str | None:
    """Why a release of ``version`` may not be published on top of ``record`` (None: it may): a
    newer release is published, which it would lower (``publish`` never lowers what a tag holds)."""
    newest = record.newest
    if newest is None or version_key(newest.version) <= version_key(version):
        return None
    return (f"a newer release than this one ({version}) is published: {newest.version} ({newest.how}); "
            f"build on it (--previous {newest.version}) with a version after it in pyproject.toml")


def newest_published_ids(record: Record) -> tuple[str, dict[str, str]] | None:
    """The newest published release's version and its ids (id -> first_release), as the manifest
    its release commit holds lists them (None: not readable here, outside a clone)."""
    newest = record.newest
    if newest is None or record.clone is None:
        return None
    with Blobs(record.clone) as files:
        if (commit := release_commit(newest.version, record.clone, files)) is None:
            return None
        manifest = committed(files, commit, MANIFEST)
    try:
        rows = json.loads(manifest)["ids"] if manifest is not None else None
        return (newest.version, {r[0]: r[3] for r in rows}) if isinstance(rows, list) else None
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # a release from before the manifest listed its ids: its anchor was checked as it was built


def since_published(ids, record: Record) -> dict:
    """What the ids table says changed since the newest published release: ids first released
    after it, and ids merged or removed after it."""
    versions = record.versions()
    newest = record.newest.version if record.newest else None
    return {"since": newest,
            "added": sum(r.first_release not in versions for r in ids),
            "merged": sum(r.status == "merged" and r.retired_release not in versions for r in ids),
            "removed": sum(r.status == "removed" and r.retired_release not in versions for r in ids)}
