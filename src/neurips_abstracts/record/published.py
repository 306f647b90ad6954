"""What this project has published: the record every command measures paper ids and versions
against (``build``, ``check``, ``add``, ``validate``, ``diff``, ``verify --hub``, ``publish``), and the one way
every command names a release (:func:`locate_release`, :func:`hub_tag`).

A promise already published (an id, its ``first_release``, a version) is checked against what
was released, never inferred from where folders stand. What was released is known from:

* the releases tagged ``v*`` in the git history of the project's clones (``project_clones``:
  raw/'s, and the one holding the release being written if it holds a raw/ too, wherever the
  command runs), and the versions their committed CHANGELOG.md dates;
* outside any clone: the CHANGELOG.md of the folder holding raw/ (an unpacked sdist), the
  package's own record (run from a checkout: that clone's tags and CHANGELOG.md; an installed
  package: the CHANGELOG.md it carries), and what a release
  folder's manifest says of itself (its version, where its CHANGELOG dates it);
* the Hub's release tags (``hub:vX.Y.Z``), read when a command names them (``publish``,
  ``verify --hub``, ``--previous hub:…``): the Hub is never asked behind a build's back.

:func:`published_record` gathers them (:class:`Record`: each version with how it is known, the
newest; ``Record.with_hub`` adds the Hub's tags once a command has read them); :func:`resolve_release`
turns every way a user names a release (a folder, a version, a git revision, ``hub:vX.Y.Z``, or by
default the release being replaced or the one beside raw/) into one read :class:`PreviousRelease`;
:func:`check_anchor` and :func:`check_build` hold a build to the record, and :func:`against_hub`
holds a release about to be published (``publish``, ``verify --hub``) to the record and the Hub's
tags together:

* the anchor is never older than the newest published release (it is read from git instead, or
  the build is refused naming both);
* a build never mints or retires an id under a version the record holds, nor builds such a
  version from other dumps than it was built from, nor a version whose ids would be dated after
  it (built on a later version's release) (refused, naming the bump), while rebuilding a released version from its own release stays allowed;
* no build replaces a release folder by one that drops or re-dates an id it holds, unless
  ``--first-release`` says so;
* no release is published on top of a newer one (a git tag, a dated CHANGELOG entry or a Hub
  tag), and none that drops or re-dates an id of the Hub's tag it is measured against (the tag
  itself where ``--force-tag`` would move it), nor one whose own version the Hub tags on other
  files (moved only by ``--force-tag``).
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.clones import clone_of
from ..core.errors import DumpError
from ..core.guard import check_replaceable, moved_aside, remove_litter, resolve
from ..core.lock import writing
from ..core.names import MANIFEST, release_beside, release_version
from ..core.versions import VERSION_RE, release_tag, version_key
from ..ingest.previous import (
    BESIDE_RAW,
    PreviousRelease,
    is_release,
    read_previous,
    release_at,
)
from ..release.contents import CHANGELOG, changelog_date, released_versions
from .checks import (  # noqa: F401 - the record's API
    check_anchor,
    check_build,
    newer_published,
    published_ids,
    since_published,
)
from .git import (
    dated_versions,
    release_commit,
    release_from_git,
    release_tags,
)
from .model import HUB_PREFIX, Published, Record  # noqa: F401 - the record's API

if TYPE_CHECKING:
    from .hub import HubRecord



def raw_clone(raw: str | Path) -> Path | None:
    """The clone whose raw/ ``raw`` is (resolved: raw/ reached through a link is the project's),
    or None: a folder of dumps elsewhere in a clone (a test's fixtures) is not the project's raw/."""
    real = Path(raw).resolve()
    clone = clone_of(real)
    return clone if clone is not None and real.parent == clone.resolve() else None


def project_clones(raws: Path | None, out: str | Path | None) -> tuple[Path, ...]:
    """The clones of the project a command works on: ``raws`` (raw/'s, from :func:`raw_clone`)
    and the one holding the release being written, which is the project's only if it holds raw/
    (the project's dumps) or is raw's own: a release written into another repository (a web
    site's, say) is measured against the project's record, never that repository's tags."""
    found = [raws] if raws is not None else []
    if (clone := clone_of(out)) is not None and (clone in found or (clone / "raw").is_dir()):
        found.insert(0, clone)
    return tuple(dict.fromkeys(found))


def _package_changelog() -> str | None:
    """The CHANGELOG.md an installed package carries (None when running from a checkout, whose
    record is read from its clone instead: see ``_package_clone``)."""
    from ..core.resources import checkout, read_text

    if checkout() is not None:
        return None
    try:
        return read_text(CHANGELOG)
    except OSError:
        return None


def _package_clone() -> Path | None:
    """The clone of the checkout the package runs from (None: an installed package, or a checkout
    outside git). Its tags and CHANGELOG are the package's own record, as an installed package's
    bundled CHANGELOG is: they count wherever the folders are when no clone holds them."""
    from ..core.resources import checkout

    root = checkout()
    return clone_of(root) if root is not None else None


def published_record(raw: str | Path | None = None, out: str | Path | None = None,
                     beside: Path | None = None) -> Record:
    """The record as known from the release being written (``out``), ``raw`` and the release
    folders at hand (``out`` and ``beside``, the one beside raw/: each says what its manifest
    says of itself)."""
    raws = raw_clone(raw) if raw is not None else None
    clones = project_clones(raws, out)
    if beside is None and raw is not None:
        beside = release_beside(raw)
    releases = tuple(f for f in (out, beside) if f is not None)
    found: dict[str, tuple[str, Path | None]] = {}  # version -> how it is known, and the clone that knows it

    def add(version: str, how: str, clone: Path | None = None) -> None:
        if VERSION_RE.fullmatch(version):
            found.setdefault(version, (how, clone))

    def add_clone(repo: Path, of: str = "", name: str = CHANGELOG) -> None:
        for tag in release_tags(repo):
            add(tag[1:], f"git tag {tag}{of}", repo)
        for v in dated_versions(repo):  # committed: a date in the work tree alone is not a release yet
            add(v, f"{name} dates version {v}", repo)

    def add_dated(path: Path, name: str) -> None:
        if path.is_file():
            for v in released_versions(path.read_text(encoding="utf-8", errors="replace")):
                add(v, f"{name} dates version {v}")

    project = Path(raw).absolute().parent if raw is not None else None
    for clone in clones:
        add_clone(clone)
    # outside a clone of the project (raw/ in none; with no raw/, no clone at all): the record at hand
    outside = raws is None if raw is not None else not clones
    if outside:  # the project folders at hand, those in no clone: the one holding the release written, raw/'s
        homes = [Path(out).absolute().parent] if out is not None else []
        homes += [Path(raw).absolute().parent, Path(raw).resolve().parent] if raw is not None else []  # project
        for home in dict.fromkeys(homes):
            if clone_of(home) is None:
                add_dated(home / CHANGELOG, CHANGELOG)
    package = _package_clone() if outside else None
    if package is not None:  # running from a checkout: its tags and CHANGELOG are the package's own record
        add_clone(package, f" of the package's checkout {package}", f"the package's {CHANGELOG} ({package / CHANGELOG})")
    if outside:
        if (bundled := _package_changelog()) is not None:
            for v in released_versions(bundled):
                add(v, f"the package's {CHANGELOG} dates version {v}")
        for folder in releases:
            dated = _dated_version(Path(folder))
            if dated:
                add(dated, f"{folder}/{CHANGELOG} dates version {dated}, the release's own")
    ordered = sorted(found.items(), key=lambda kv: version_key(kv[0]), reverse=True)
    # releases are read from the clone that knows the newest one (the project's, when a release
    # is written into another repository), else the first
    reading = next((clone for _, (_, clone) in ordered if clone is not None and clone in clones), None)
    return Record(reading or (clones[0] if clones else None), tuple(Published(v, how) for v, (how, _) in ordered),
                  project, package, clones)


def _dated_version(folder: Path) -> str | None:
    """The version of the release in ``folder`` if its own CHANGELOG dates it: a released one."""
    v = release_version(folder)
    try:
        return v if v and changelog_date((folder / CHANGELOG).read_text(encoding="utf-8"), v) else None
    except OSError:
        return None


def killed_build_left(folder: str | Path) -> str | None:
    """What every command says of a release folder a build killed between its renames moved
    aside (``guard.moved_aside``), or None: it is not missing that way."""
    litter = moved_aside(Path(folder))
    if litter is None:
        return None
    out = "" if resolve(Path(folder)) == resolve(Path("dist")) else f" --out {folder}"  # a build writing it restores it
    return (f"missing: a build killed between its renames left it moved aside as {litter.name}; "
            f"the next `python build_dataset.py build{out}` restores it")


def locate_release(spec: str, record: Record, into: Path, local: tuple[Path, ...] | list[Path] = ()) -> tuple[Path, str | None]:
    """The folder holding the release ``spec`` names, unread, and the commit it was read from
    (None: a folder; ``"hub"``: the Hub's tag). ``spec`` is a folder, ``hub:vX.Y.Z``, a released
    version or a git revision of the record's clone; outside any clone, a version is a release
    folder at hand (``local``) of that version, else the package's own checkout's, else the
    Hub's tag; a revision is the package's checkout's. Every command names releases this way."""
    spec = str(spec)
    if spec.startswith(HUB_PREFIX):
        return _from_hub(hub_tag(spec), into), "hub"
    if Path(spec).exists() or Path(spec).is_symlink():
        return Path(spec), None
    if (said := killed_build_left(spec)) is not None:
        raise DumpError(spec, said)
    if record.clone is not None:
        return release_from_git(spec, record.clone, into)
    if m := VERSION_RE.fullmatch(spec):
        for folder in local:
            if release_version(folder) == m[1]:
                return folder, None
        if record.package is not None:  # the package's own checkout holds its releases
            return release_from_git(spec, record.package, into)
        try:  # outside a clone, the Hub is where a version named is published
            return _from_hub(release_tag(m[1]), into), "hub"
        except DumpError as exc:
            raise DumpError(spec, f"no release folder here is version {m[1]} and there is no git clone to read it from; "
                            f"the Hub's tag {release_tag(m[1])} could not be read either ({exc.file}: {exc.message}); give a "
                            "release folder (a downloaded release)") from None
    if record.package is not None:
        return release_from_git(spec, record.package, into)
    raise DumpError(spec, "not a folder, and there is no git clone here to read a revision from; give a release "
                    "folder, a released version or hub:vX.Y.Z")


def record_here(repo: Path | None = None) -> Record:
    """The record as known from the current folder (``repo``: the clone to read instead), for
    a command that names releases without building one (``diff``)."""
    clone = clone_of(repo) if repo is not None else clone_of(Path.cwd())
    return Record(clone, (), None, None if clone is not None or repo is not None else _package_clone())


def resolve_release(spec, record: Record, into: Path, beside: Path, out: str | Path | None = None,
                    version: str | None = None) -> tuple[list[str], PreviousRelease | None]:
    """The release named by ``spec``, read: a :class:`PreviousRelease` as given; a release named
    as :func:`locate_release` reads it; or ``BESIDE_RAW``, the default: the release ``out`` holds
    (the one being replaced), else the one beside raw/ (refused, naming the ways out, where
    missing although the project has published). None for a first release. Also returns the
    folders read that must survive a build (see ``guard``)."""
    if spec is None or isinstance(spec, PreviousRelease):
        return [], spec
    if spec == BESIDE_RAW:
        return [], _default(record, beside, out, into, version)
    folder, commit = locate_release(str(spec), record, into, _local_releases(beside, out))
    if commit is None:
        return [str(folder)], release_at(folder)
    # read into a temporary folder: its files and itself named as the user named it
    where = (lambda rel: f"{spec}/{rel}") if commit == "hub" else (lambda rel: f"{spec}:dist/{rel}")
    return [], replace(release_at(folder, where), named=f"--previous {spec}")


def hub_tag(spec: str) -> str:
    """The Hub's release tag a user names: ``hub:v1.1.0``, ``v1.1.0`` or ``1.1.0`` -> ``v1.1.0``
    (ValueError for anything else)."""
    return release_tag(spec[len(HUB_PREFIX):] if spec.startswith(HUB_PREFIX) else spec)


def _from_hub(tag: str, into: Path) -> Path:
    from ..core.resources import hub_repo
    from .hub import fetch_release

    try:
        return fetch_release(hub_repo(), tag, into)
    except ValueError as exc:
        raise DumpError(f"{HUB_PREFIX}{tag}", str(exc)) from None


def against_hub(hub: HubRecord, record: Record, dist: Path, version: str, discard_edits: bool = False,
                force_tag: bool = False) -> tuple[Record, list[str]]:
    """The record with the Hub's tags (``Record.with_hub``), and everything that keeps the release
    in ``dist`` (``version``; the files publish sends) from being published on top of it, each in
    one line (empty: nothing does): a newer release published anywhere in the record, and what
    the Hub's repository holds against it (``record.hub.findings``: a moved tag, commits publish
    did not make, promises of the tagged release broken, this version tagged on other files
    unless ``force_tag``). ``publish`` refuses on these; ``verify --hub`` reports them."""
    from .hub import findings

    whole = record.with_hub(hub)
    newer = newer_published(version, whole)
    return whole, ([newer] if newer else []) + findings(hub, dist, discard_edits, force_tag)


def check_against_hub(dist: Path, repo_id: str, version: str | None = None, endpoint: str | None = None,
                      token: str | None = None, upload: Path | None = None) -> tuple[HubRecord, list[str]]:
    """``verify --hub``: the Hub's record of ``repo_id`` (the tag of ``version``, named as
    :func:`hub_tag` reads it, else its newest release tag, and the tag of ``dist``'s own version)
    and what keeps the release in ``dist`` from being published on top of it and of this
    project's record (:func:`against_hub`). ``upload``: the files publish would send to
    ``repo_id`` (``dist`` itself, the default, for the project's own repository; for another, the
    release rendered for it). DumpError in one line if the Hub cannot be read."""

    from ..core.guard import temporary_folder
    from .hub import read_record, reader

    api, call = reader(repo_id, endpoint, token)
    dist_version = release_version(dist)
    if dist_version is None:
        raise DumpError(str(Path(dist) / MANIFEST), "does not say the release's version: the release is damaged (verify names it)")
    with temporary_folder() as fetched:
        hub = read_record(api, repo_id, fetched, version=None if version is None else hub_tag(version), call=call,
                          release=release_tag(dist_version))  # the tag publish gives it (hub.plan.release_message)
        return hub, against_hub(hub, published_record(None, dist), upload or Path(dist), dist_version)[1]


def _local_releases(beside: Path, out) -> list[Path]:
    """The release folders at hand: the one being replaced, then the one beside raw/."""
    seen, out_list = set(), []
    for folder in ([Path(out)] if out is not None else []) + [beside]:
        key = resolve(folder)
        if key not in seen:
            seen.add(key)
            out_list.append(folder)
    return out_list


def _default(record: Record, beside: Path, out, into: Path, version: str | None = None) -> PreviousRelease | None:
    """The release a build keeps by default: the one it replaces, else the one beside raw/, never
    one older than the newest published release (that one is read from git instead), but where it
    is the published ``version`` being built: a released version rebuilt on its own release (a
    checkout of an older release's commit), which ``check_build`` holds to the ids it published."""
    local = None
    for folder in _local_releases(beside, out):
        if is_release(folder):
            local = read_previous(folder)
            break
    if local is None:
        if (said := killed_build_left(beside)) is not None:
            raise DumpError(str(beside), said)
        evidence = record.evidence()
        if evidence:
            what = "incomplete (no occurrences table)" if (beside / MANIFEST).is_file() else "missing"
            raise DumpError(str(beside), f"the release beside raw/ is {what}, but this project has published before "
                            f"({evidence}): a build now would give every published paper a new id; "
                            f"{record.ways_out(beside)}", code="no-previous")
        return None
    newest = record.newest
    if local.version == version and record.find(version) is not None:
        return local
    if newest is not None and version_key(local.version) < version_key(newest.version) and record.clone is not None:
        commit = release_commit(newest.version, record.clone)
        if commit is not None:  # the newest release, read from git: the folder is an older one
            return replace(release_at(release_from_git(commit, record.clone, into)[0], lambda rel: f"{commit[:12]}:dist/{rel}"),
                           named=f"release {newest.version} (read from git, commit {commit[:12]})")
    return local


def anchored_previous(raw_dir: str | Path, previous, into: Path, writes: str | Path | None = None,
                      version: str | None = None) -> tuple[list[str], PreviousRelease | None, Record]:
    """The release a build anchors its ids to (``resolve_release``), checked against the record
    (``check_anchor``). ``writes``: the folder a build replaces, whose lock it holds. If a killed
    build left the release it replaces or the one beside raw/ moved aside, it is put back first
    (under its lock), once the guard has agreed to ``writes``: a refused build changes nothing."""
    from ..core.resources import dataset_version

    beside = release_beside(raw_dir)
    if writes is not None:
        check_replaceable(Path(writes), raw=[raw_dir])
        put_back = [Path(writes)] + ([beside] if previous == BESIDE_RAW and resolve(beside) != resolve(Path(writes)) else [])
        for folder in put_back:
            with ExitStack() as held:
                if folder is beside:
                    held.enter_context(writing(folder))
                remove_litter(folder.parent, folder.name)
    record = published_record(raw_dir, writes, beside)
    version = version or dataset_version()
    reads, release = resolve_release(previous, record, into, beside, writes, version)
    named = previous if isinstance(previous, str) and previous != BESIDE_RAW else None
    check_anchor(release, record, version, named)
    return reads, release, record
