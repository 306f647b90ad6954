"""What the project has published, as data: each release (``Published``) and the record they
make where a command runs (``Record``). ``published`` builds a record; ``checks`` holds builds to it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.clones import checkout_command
from ..core.names import MANIFEST
from ..core.versions import release_tag, version_key
from .git import manifest_commit

if TYPE_CHECKING:
    from .hub import HubRecord


HUB_PREFIX = "hub:"  # --previous hub:v1.1.0: the release tagged on the Hub repository (hub-repo)


@dataclass(frozen=True)
class Published:
    version: str
    how: str  # how the record knows it: "git tag v1.1.0", "CHANGELOG.md dates version 1.1.0", ...


@dataclass(frozen=True)
class Record:
    """What the project has published, as known where a command runs."""

    clone: Path | None  # the git clone the releases are read from (None: outside any clone)
    published: tuple[Published, ...]  # newest first, one per version
    project: Path | None  # the folder holding raw/ (for its git history's evidence)
    # outside any clone, the clone of the checkout the package runs from (its own record), if any
    package: Path | None = None
    clones: tuple[Path, ...] = ()  # every clone of the project read (the one holding the release written, raw/'s)

    @property
    def newest(self) -> Published | None:
        return self.published[0] if self.published else None

    def find(self, version: str) -> Published | None:
        return next((p for p in self.published if p.version == version), None)

    def versions(self) -> set[str]:
        return {p.version for p in self.published}

    def with_hub(self, hub: HubRecord) -> Record:
        """This record and the release tags of the Hub's repository: one record, newest first, each
        version known the first way it was found (git and CHANGELOG.md before the Hub)."""
        found = {p.version: p for p in self.published}
        for tag in hub.tags:
            found.setdefault(tag[1:], Published(tag[1:], f"tag {tag} of {hub.repo_id} on the Hub"))
        return replace(self, published=tuple(sorted(found.values(), key=lambda p: version_key(p.version), reverse=True)))

    def evidence(self) -> str | None:
        """Why the record says the project has published (None: nothing says so)."""
        if self.newest is not None:
            return self.newest.how
        for clone in self.clones or ((self.clone,) if self.clone is not None else ()):
            if commit := manifest_commit(clone):
                return f"commit {commit} of {clone} holds dist/{MANIFEST}" if len(self.clones) > 1 else \
                    f"commit {commit} holds dist/{MANIFEST}"
        return None

    def restore_advice(self, folder: Path) -> str:
        """How to get a release folder back, in words that work where the command runs."""
        if (command := checkout_command(folder)) is not None:
            return f"restore it ({command})"
        return f"restore it (download the release, or name it with --previous {self._hub_spec})"

    @property
    def _hub_spec(self) -> str:
        """``hub:vX.Y.Z`` as a user types it: the newest release's tag where the record knows one."""
        return f"{HUB_PREFIX}{release_tag(self.newest.version) if self.newest is not None else 'vX.Y.Z'}"

    def ways_out(self, folder: Path) -> str:
        hub = self._hub_spec
        named = ("build with --previous naming one (a folder, a released version or a git revision)"
                 if self.clone is not None else
                 f"build with --previous naming one (a release folder, a released version, or {hub}: the release "
                 "tagged on the Hub)" if self.package is not None else
                 f"build with --previous naming one (a release folder, or {hub}: the release tagged on the Hub)")
        return f"{self.restore_advice(folder)}, {named}, or build with --first-release to start the id history over on purpose"
