"""Add a dump to raw/: the one way a contribution enters the dataset.

``add_dump`` refuses exactly what ``validate`` refuses, then writes two new files and touches
nothing else: the dump under its name (the next free number, then the first 16 hex digits of its
SHA-256) and its metadata file (``sidecar``). Two contributors adding dumps from the same main
therefore never edit the same file. Both files appear together or not at all.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from pathlib import Path

from .config import DEFAULT_CONFIG, BuildConfig
from .guard import Refused, check_raw_target, remove_litter, temporary_file
from .sidecar import DumpMeta, check_date, parse_sidecar, sidecar_name
from .validate import Finding, validate

_NUMBER_RE = re.compile(r"^(\d{3,})_[0-9a-f]{16}\.txt$")
_URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


class AddError(ValueError):
    """The dump was not added; ``findings`` says why, file:line by file:line."""

    def __init__(self, message: str, findings: list[Finding] = ()):
        super().__init__(message)
        self.findings = list(findings)


def next_number(raw_dir: Path) -> int:
    numbers = [int(m.group(1)) for p in raw_dir.glob("*.txt") if (m := _NUMBER_RE.match(p.name))]
    return max(numbers, default=-1) + 1


def dump_name(number: int, sha256: str) -> str:
    return f"{number:03d}_{sha256[:16]}.txt"


def add_dump(
    path: str | Path,
    raw_dir: str | Path = "raw",
    crawled_at: str | None = None,
    source_url: str | None = None,
    added: str | None = None,
    config: BuildConfig = DEFAULT_CONFIG,
) -> tuple[Path, Path, list[Finding]]:
    """Copy the dump at ``path`` into ``raw_dir`` with its metadata file.

    Returns the two paths written and the warnings ``validate`` had. Raises :class:`AddError`
    (nothing written) on any error ``validate`` reports, on a bad date or URL, and if the dump is
    already in ``raw_dir``. ``added`` defaults to today's date (UTC).
    """
    raw = Path(raw_dir)
    src = Path(path)
    try:
        check_raw_target(raw)
    except Refused as exc:
        raise AddError(str(exc)) from None
    remove_litter(raw)  # temporary files of an add that was killed
    added = added or dt.datetime.now(dt.timezone.utc).date().isoformat()
    try:
        check_date(added, "added")
        if crawled_at is not None:
            check_date(crawled_at, "--crawled-at")
            if crawled_at > added:
                raise ValueError(f"--crawled-at {crawled_at} is after the date it is added ({added})")
    except ValueError as exc:
        raise AddError(str(exc)) from None
    if source_url is not None and not _URL_RE.match(source_url):
        raise AddError(f"--source-url must be an http(s) URL, got {source_url!r}")

    if src.exists() and not src.is_file():
        raise AddError(f"{src}: error: not added: not a regular file")
    findings = [f for f in validate([src], config, raw_dir=raw) if f.code != "file-name"]
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        if len(errors) == 1:  # the one line says it all
            raise AddError(f"{errors[0].text()}: not added")
        raise AddError(f"{src}: error: not added ({len(errors)} errors)", errors)
    data = src.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    # validate calls a dump in raw/ itself, not a copy; for add, any dump of raw/ is one
    for existing in sorted(raw.glob("*.txt")):
        if existing.is_file() and hashlib.sha256(existing.read_bytes()).hexdigest() == sha:
            raise AddError(f"{src}: error: not added: byte-for-byte copy of {existing.name}, already in {raw_dir}/")
    name = dump_name(next_number(raw), sha)
    meta = DumpMeta(name, sha, crawled_at, source_url, added, None)
    parse_sidecar(name, meta.to_json())  # what we write must read back

    target, sidecar = raw / name, raw / sidecar_name(name)
    tmp_target, tmp_sidecar = temporary_file(target), temporary_file(sidecar)
    try:
        tmp_target.write_bytes(data)
        tmp_sidecar.write_bytes(meta.to_json().encode("utf-8"))
        os.replace(tmp_sidecar, sidecar)
        os.replace(tmp_target, target)
    except BaseException:
        for p in (tmp_target, tmp_sidecar, sidecar):
            p.unlink(missing_ok=True)
        raise
    return target, sidecar, findings
