"""A release as its documents see it: :class:`Release`, which the build fills from its own
tables, and the SHA256SUMS of its files.

Everything in dist/ besides the Parquet files is rendered from it: the dataset card
(``card``, dist/README.md), DATASHEET.md (``datasheet``), datapackage.json (``datapackage``,
Frictionless v2), croissant.json (``croissant``, Croissant 1.1 with the RAI fields), LICENSE.md
and CHANGELOG.md (``texts``, the project's own), and SHA256SUMS (here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.config import BuildConfig
from ..core.names import SUMS
from ..core.sums import sha256_file
from ..core.versions import VERSION_RE, release_tag
from . import texts

CARD = "README.md"
DATASHEET = "DATASHEET.md"
LICENSE = "LICENSE.md"
CHANGELOG = "CHANGELOG.md"  # the project's, copied into the release
DATAPACKAGE = "datapackage.json"
CROISSANT = "croissant.json"


# A version's CHANGELOG heading, the one grammar of it: ``## 1.2.0`` while the release is being
# made, ``## 1.2.0 (2027-01-31)`` once it is released; a hand-typed ``## v1.2.0`` is the same version.
_HEADING_RE = re.compile(rf"^## {VERSION_RE.pattern}(?: \((\d{{4}}-\d{{2}}-\d{{2}})\))?[ \t]*$", re.M)


def _headings(changelog: str) -> list[tuple[str, str | None]]:
    """Each version's heading, newest first: (version, its date or None)."""
    return [(m[1], m[2]) for m in _HEADING_RE.finditer(changelog)]


def has_entry(changelog: str, version: str) -> bool:
    """Whether CHANGELOG.md has an entry for ``version``, dated or not."""
    return any(v == version for v, _ in _headings(changelog))


def changelog_date(changelog: str, version: str) -> str | None:
    """The date of ``version``'s CHANGELOG entry (``## 1.2.0 (2027-01-31)``): written once, when
    the release is made, so it marks the release and rebuilding never changes it."""
    return next((d for v, d in _headings(changelog) if v == version and d), None)


def released_versions(changelog: str) -> list[str]:
    """The versions CHANGELOG.md dates, newest first."""
    return [v for v, d in _headings(changelog) if d]


def latest_release(changelog: str) -> str | None:
    """The newest version with a dated CHANGELOG entry: the last one released (entries are newest first)."""
    return next(iter(released_versions(changelog)), None)


def missing_entry(changelog: str, version: str, in_checkout: bool = True) -> str | None:
    """Why ``version`` may not be published when CHANGELOG.md has no dated entry for it (None: it
    has one), and the release step that writes it: in a git clone of the project's checkout
    (``in_checkout``), the command; elsewhere (an installed package, an unpacked sdist) the
    package's CHANGELOG.md, which its builds copy, is dated only in such a clone. A release dates itself: outside a clone, the published record knows a release by the
    date its own CHANGELOG.md gives it, so one published undated could have ids minted under its
    version by a later build."""
    if changelog_date(changelog, version):
        return None
    why = "a release dates itself: a copy of it outside git is known as published by that date alone"
    if not in_checkout:
        return (f"CHANGELOG.md has no dated entry for {version}, and the package's, which its builds copy, cannot get "
                f"one here (no git clone of the project's checkout): publish from a clone of the project at its release "
                f"commit ({why})")
    previous = latest_release(changelog) or "<previous version>"
    return (f"CHANGELOG.md has no dated entry for {version}: write it with `python build_dataset.py diff {previous} "
            f"dist --write-changelog`, build again and commit ({why})")


@dataclass(frozen=True)
class Shard:
    path: str  # inside the release: data/<table>/train-0000i-of-0000n.parquet
    size: int
    sha256: str
    rows: int


@dataclass(frozen=True)
class DataFile:
    """A table's Parquet files: its shards, in order."""

    shards: tuple[Shard, ...]
    rows: int
    nbytes: int  # in-memory Arrow size: what `datasets` records as a split's num_bytes

    @property
    def size(self) -> int:
        return sum(s.size for s in self.shards)

    @property
    def paths(self) -> list[str]:
        return [s.path for s in self.shards]


@dataclass(frozen=True)
class Release:
    version: str
    config: BuildConfig
    stats: dict
    manifest: dict
    data: dict[str, DataFile]  # table name -> its Parquet files
    changelog: str
    repo_id: str  # the Hub dataset repository every file names
    maintainers: str

    @property
    def date_published(self) -> str | None:
        """The date of this version's CHANGELOG entry, written when it is released. A build
        between releases has none yet: it gives the day its newest dump was added (the data it
        holds is of that day), from the manifest, so the same raw/ gives the same date on any
        day; else the newest release's date (None: no dates at all)."""
        added = [f["added"] for f in self.manifest.get("inputs", []) if f.get("added")]
        newest = latest_release(self.changelog)
        return (changelog_date(self.changelog, self.version) or max(added, default=None)
                or (changelog_date(self.changelog, newest) if newest else None))

    @property
    def url(self) -> str:
        return f"https://huggingface.co/datasets/{self.repo_id}"

    @property
    def tag(self) -> str:
        """The tag ``publish`` gives this release on the Hub."""
        return release_tag(self.version)

    @property
    def released(self) -> bool:
        """Whether this version has its dated CHANGELOG entry: the release step that comes
        right before ``publish`` makes its tag. A build without one names its tag as one still
        to be made, never as one that exists."""
        return changelog_date(self.changelog, self.version) is not None

    def tag_words(self) -> str:
        """How a file names the release's tag: the one place that says whether it exists yet."""
        if self.released:
            return f"tag `{self.tag}`, made by `publish`"
        return f"to be tagged `{self.tag}` by `publish` (version {self.version} is not released yet)"

    def load_note(self) -> str:
        """The card's word on the tag its load examples pin."""
        if self.released:
            return f"Pinned to tag `{self.tag}`, which `publish` makes as it uploads this release."
        newest = latest_release(self.changelog)
        until = f"pin `v{newest}`, the newest release, or load" if newest else "load"
        return (f"Version {self.version} is not released yet: the examples pin `{self.tag}`, to be tagged by "
                f"`publish` when it is; until then, {until} a local copy.")

    @property
    def license_url(self) -> str:
        """The terms, at this release's tag once it has one (else the repository's main branch,
        where the newest release's copy is)."""
        return f"{self.url}/blob/{self.tag if self.released else 'main'}/LICENSE.md"

    def citation(self) -> str:
        return texts.citation(self.version, self.repo_id, self.maintainers)


def sha256sums(folder: Path, known: dict[str, str] | None = None) -> str:
    """``sha256sum``-compatible listing of every file in ``folder`` except SHA256SUMS itself;
    ``known`` gives digests already computed (the Parquet files), so they are not read again."""
    known = known or {}
    lines = []
    # Sorted by the relative path as text: Path objects sort without regard to case on Windows.
    for rel, path in sorted((p.relative_to(folder).as_posix(), p) for p in folder.rglob("*") if p.is_file()):
        if rel != SUMS:
            lines.append(f"{known.get(rel) or sha256_file(path)}  {rel}")
    return "\n".join(lines) + "\n"
