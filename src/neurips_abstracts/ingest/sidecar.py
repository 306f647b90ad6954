"""Each dump's own metadata file, and the two orders that metadata gives the dumps.

A dump ``raw/NNN_<hex>.txt`` is immutable once added; beside it ``raw/NNN_<hex>.json`` says what
is known about it: its SHA-256, when it was crawled (if known), where from, and when it was added.
One small file per dump, so two contributions never touch the same file.

Two orders follow from it, and neither is the order of file names:

* **added order** (``added`` date, then the number in the name, then the name): which dump came
  into ``raw/`` first. A paper's *founding* occurrence is its earliest record in this order, and
  when two published papers merge, the one founded first keeps its id.
* **crawl order** (``crawled_at``, or where unknown the ``added`` date, since a page cannot be
  crawled after it was added; then added order): which text is newest. A paper's canonical text
  is the one of its record latest in this order, so an old crawl contributed late does not
  displace newer text.

A dump without a metadata file (copied in by hand) still builds: it comes after every dump that
has one, in both orders, by name, and ``validate`` warns about it.

Once a release holds a dump, its facts (crawl date, date added, source, and the name it was
published under, which breaks ties in both orders) belong to its bytes: each release records them
per SHA-256 and every later build takes them from there (``unchanged.published_meta``), so deleting the
metadata file or renaming the dump changes nothing, and a metadata file that says otherwise is an
error.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.names import DUMP_SUFFIX, SIDECAR_SUFFIX, dump_number

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
# Sorts after every real date: dumps without a metadata file come last.
_UNKNOWN = "9999-12-31"
FIELDS = ("file", "sha256", "crawled_at", "source_url", "added", "note")


@dataclass(frozen=True)
class DumpMeta:
    file: str
    sha256: str
    crawled_at: str | None  # YYYY-MM-DD; None when the crawl date is not known
    source_url: str | None
    added: str | None  # YYYY-MM-DD the dump entered raw/; None only without a metadata file
    note: str | None = None
    # the name a release first published the dump under: it, not the name now, breaks ties in
    # both orders, so a renamed dump moves nothing (None: not published yet)
    published_as: str | None = field(default=None, compare=False)

    def to_json(self) -> str:
        return json.dumps({k: getattr(self, k) for k in FIELDS}, indent=2, ensure_ascii=False) + "\n"

    def facts(self) -> tuple[str | None, str | None, str | None]:
        """What a release fixes of a dump: (added, crawled_at, source_url)."""
        return self.added, self.crawled_at, self.source_url


def sidecar_name(dump_name: str) -> str:
    stem = dump_name[: -len(DUMP_SUFFIX)] if dump_name.endswith(DUMP_SUFFIX) else dump_name
    return stem + SIDECAR_SUFFIX


def check_date(value: str, what: str) -> str:
    """``value`` if it is a real YYYY-MM-DD date, else ValueError naming ``what``."""
    if not _DATE_RE.match(value):
        raise ValueError(f"{what} must be a date written YYYY-MM-DD, got {value!r}")
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{what} is not a real date: {value!r}") from None
    return value


def parse_sidecar(name: str, text: str) -> DumpMeta:
    """The metadata in a sidecar's text; ValueError saying what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError("must hold a JSON object")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown fields {', '.join(unknown)}; allowed: {', '.join(FIELDS)}")
    for key in ("file", "sha256", "added"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"field {key!r} is required and must be a string")
    for key in ("crawled_at", "source_url", "note"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ValueError(f"field {key!r} must be a string or null")
    if data["file"] != name:
        raise ValueError(f"describes {data['file']!r}, not the dump beside it ({name!r})")
    if not _SHA_RE.match(data["sha256"]):
        raise ValueError("sha256 must be 64 lowercase hex digits")
    check_date(data["added"], "added")
    if data.get("crawled_at") is not None:
        check_date(data["crawled_at"], "crawled_at")
        if data["crawled_at"] > data["added"]:
            raise ValueError(f"crawled_at {data['crawled_at']} is after added {data['added']}: a page is saved before it is added")
    return DumpMeta(**{k: data.get(k) for k in FIELDS})  # type: ignore[arg-type]  # each field checked above


def no_metadata_warning(name: str) -> str:
    return (f"no metadata file {sidecar_name(name)}: crawl date and order unknown, so the build puts this dump "
            "after all others; add dumps with `python build_dataset.py add`")


def unknown_meta(name: str, sha256: str) -> DumpMeta:
    """What is known of a dump that has no metadata file."""
    return DumpMeta(name, sha256, None, None, None, "no metadata file: crawl date and order of addition unknown")


def _number(name: str) -> int:
    number = dump_number(name)
    return -1 if number is None else number


def added_key(meta: DumpMeta) -> tuple:
    name = meta.published_as or meta.file
    return (meta.added or _UNKNOWN, _number(name), name)


def crawl_key(meta: DumpMeta) -> tuple:
    return (meta.crawled_at or meta.added or _UNKNOWN, *added_key(meta))


def read_sidecars(raw_dir: Path, names: list[str]) -> dict[str, DumpMeta | None]:
    """The parsed metadata of each dump name (None where the dump has no metadata file);
    ValueError names the sidecar that does not parse."""
    out: dict[str, DumpMeta | None] = {}
    for name in names:
        path = raw_dir / sidecar_name(name)
        if not path.is_file():
            out[name] = None
            continue
        try:
            out[name] = parse_sidecar(name, path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path.name}: {exc}") from None
    return out
