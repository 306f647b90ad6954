"""A release's files and a Hub commit's, compared by content: what tells whether the Hub holds a
release already (a tag naming these very files, a branch head holding them) for ``publish``,
which sends only what differs, and for the record (``record.hub``), which finds a release's tag
naming other files. An LFS file is known by the sha256 the Hub records for it, a regular file by
its git blob id."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

KEEP_REMOTE = {".gitattributes"}  # the Hub's LFS settings for the repository: never deleted, never a release's


@dataclass(frozen=True)
class LocalFile:
    path: str
    size: int
    sha256: str
    git_oid: str  # what the Hub reports as a regular file's oid


def _local_file(dist: Path, path: Path) -> LocalFile:
    """The file's sha256 and git blob id, both in one read of it, a block at a time."""
    size = path.stat().st_size
    sha256, blob = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % size)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            sha256.update(block)
            blob.update(block)
    return LocalFile(path.relative_to(dist).as_posix(), size, sha256.hexdigest(), blob.hexdigest())


def local_files(dist: Path) -> list[LocalFile]:
    return [_local_file(dist, p) for p in sorted(dist.rglob("*")) if p.is_file()]


Remote = dict[str, tuple[str, str | None]]  # path -> (git blob id, LFS sha256 or None)


def remote_files(tree) -> Remote:
    """The files of a ``list_repo_tree`` answer, without the repository's own settings."""
    return {
        f.path: (f.blob_id, f.lfs.sha256 if f.lfs else None)
        for f in tree
        if hasattr(f, "blob_id") and f.path not in KEEP_REMOTE
    }


def same_content(local: LocalFile, remote: tuple[str, str | None]) -> bool:
    """For an LFS file the Hub's blob id is that of the pointer, so the sha256 is what identifies it."""
    blob_id, lfs_sha256 = remote
    return local.sha256 == lfs_sha256 if lfs_sha256 else local.git_oid == blob_id


def same_files(local: list[LocalFile], remote: Remote) -> bool:
    return {f.path for f in local} == set(remote) and all(same_content(f, remote[f.path]) for f in local)
