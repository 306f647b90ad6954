"""Dumps never change: the rule, in one module.

A dump is immutable once added (its metadata file records its SHA-256) and once published (the
release records each dump's bytes by name, and its facts, its dates and source, by SHA-256). The
build checks each dump once, when the read stage hashes it (``checked_meta``); ``validate`` reports
the same errors one by one and ``add`` takes a new dump's published facts from here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from ..core.ahead import sha256_hex
from ..core.errors import DumpError
from .previous import PreviousRelease, first_difference
from .sidecar import DumpMeta, sidecar_name, unknown_meta


def checked_meta(name: str, data: bytes, meta: DumpMeta | None, previous: PreviousRelease | None,
                 sha256: str | None = None, folder: Path | None = None) -> DumpMeta:
    """The metadata a build uses for dump ``name`` with bytes ``data`` (see ``published_meta``),
    ``meta`` being its metadata file's (None: it has none); DumpError if its bytes changed since it
    was added or since ``previous`` published them (naming the line of the first record that
    differs), or if ``meta`` contradicts the facts published for those bytes. ``sha256``: that of
    ``data`` (``ahead.sha256_hex``), where the caller hashed them already. ``folder``: the one
    holding the dump, for the command that restores it."""
    sha256 = sha256 or sha256_hex(data)
    if (error := published_change(previous, name, sha256, data, folder)) is not None:
        raise error  # first: it names the line that differs
    if meta is not None and meta.sha256 != sha256:
        raise changed_since_added(name, folder)
    return published_meta(name, sha256, meta, previous, folder)


def _restore_hint(name: str, folder: Path | None) -> str:
    """How to get file ``name`` of ``folder`` back as it was: the git command that does, as typed
    where the command runs, where git tracks it (from the last commit: an edit staged is undone
    too; one committed needs the commit before it); else from the copy the user added (an
    unpacked sdist or a downloaded release has no git to ask)."""
    from ..core.clones import checkout_command  # asked only when a dump changed

    command = checkout_command(folder / name, "HEAD") if folder is not None else None
    return f"`{command}`, or from the commit before an edit committed" if command else "from the copy you added"


def changed_while_read(name: str) -> DumpError:
    """The error for a dump whose bytes changed between the build's two reads of it."""
    return DumpError(name, "changed while the build was reading it: build again once nothing writes raw/", code="edited")


def changed_since_added(name: str, folder: Path | None = None):
    """The error for a dump whose bytes no longer match its metadata file (build and validate)."""
    return DumpError(
        name,
        f"bytes no longer match the sha256 recorded in {sidecar_name(name)}: dumps are immutable once added; "
        f"restore it as it was added ({_restore_hint(name, folder)}) and add the new version with "
        "`python build_dataset.py add`",
        code="edited",
    )


def changed_since_published(name: str, version: str, line: int | None, folder: Path | None = None):
    """The error for a published dump whose bytes changed (build and validate)."""
    where = f"; first difference in the record at line {line}" if line else ""
    return DumpError(
        name,
        f"bytes differ from this dump in release {version}, the one this build keeps{where}: dumps are immutable once "
        "built into a release; "
        f"restore it as it was added ({_restore_hint(name, folder)}) and add the new version with "
        "`python build_dataset.py add`",
        line,
        code="edited",
    )


def facts_changed(name: str, version: str, published: DumpMeta, meta: DumpMeta, folder: Path | None = None):
    """The error for a metadata file that contradicts what a release published for its dump
    (same bytes, under any name): dates decide which text is canonical and which record founds a
    paper, so both values are named."""
    differ = [
        f"{what} {new if new is not None else 'null'} (published: {old if old is not None else 'null'})"
        for what, new, old in zip(("added", "crawled_at", "source_url"), meta.facts(), published.facts())
        if new != old
    ]
    return DumpError(
        sidecar_name(name),
        f"{'; '.join(differ)}: release {version}, the one this build keeps, published these bytes "
        f"(sha256 {published.sha256[:16]}…, as {published.file}) with other facts; a dump's facts are fixed once built "
        f"into a release, under any file name: restore the metadata file ({_restore_hint(sidecar_name(name), folder)}) or "
        "delete it",
        code="edited",
    )


def published_meta(name: str, sha256: str, meta: DumpMeta | None, previous, folder: Path | None = None) -> DumpMeta:
    """The metadata a build uses for dump ``name`` with bytes ``sha256``: the facts ``previous``
    published for those bytes (whatever the metadata file ``meta`` says, or if there is none),
    else ``meta``, else ``unknown_meta``. DumpError (``facts_changed``) if ``meta`` contradicts the
    published facts. The one place this rule lives: build, validate and add call it."""
    published = previous.dump_facts.get(sha256) if previous is not None else None
    if published is None:
        return meta or unknown_meta(name, sha256)
    if meta is not None and meta.facts() != published.facts():
        raise facts_changed(name, previous.version, published, meta, folder)
    added, crawled_at, source_url = published.facts()
    return DumpMeta(name, sha256, crawled_at, source_url, added, meta.note if meta else None, published_as=published.file)


def published_change(previous: PreviousRelease | None, name: str, sha256: str | None = None,
                     data: bytes | Callable[[], bytes] | None = None, folder: Path | None = None) -> DumpError | None:
    """The error for dump ``name`` if ``previous`` published other bytes under that name, else
    None. ``sha256``: of its bytes, if known; ``data``: its bytes (or a function reading them),
    read only for a published dump, to name the line of the first record that differs."""
    published = previous.dump_sha256.get(name) if previous is not None else None
    if previous is None or published is None:
        return None

    def read() -> bytes:
        value = data() if callable(data) else data
        assert value is not None  # a caller gives the bytes where it gives no sha256
        return value

    if (sha256 or hashlib.sha256(read()).hexdigest()) == published:
        return None
    line = first_difference(previous.path, name, read()) if data is not None else None
    return changed_since_published(name, previous.version, line, folder)
