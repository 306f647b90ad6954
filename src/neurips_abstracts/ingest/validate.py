"""Check dumps without building: what a contributor's pull request gets told, line by line.

Errors fail (the build would refuse the file, or it must not be merged); warnings point at
records that are probably not clean abstracts. Every check is a small function of one record or
one file, so each can be tested on its own and on the real dumps, which must pass without errors.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.config import DEFAULT_CONFIG, BuildConfig
from ..core.errors import NO_RAW_FOLDER, DumpError
from ..core.names import DUMP_SUFFIX, dump_of_sidecar
from ..text.entities import ENTITY_RE
from ..text.normalize import normalize
from .load import copy_error, entry_problem, folder_entries, is_sidecar
from .parse import RawRecord, no_visible_text, parse_dump

if TYPE_CHECKING:
    from .previous import PreviousRelease

    # The release dumps are measured against (see ``validate``), or a function that reads it.
    Anchor = PreviousRelease | Callable[[], PreviousRelease | None] | None

MIN_WORDS = 20
# A record longer than this is not one abstract (real ones stay far below: the longest of the
# thousands in the benchmark corpora has about 2,600 characters): several abstracts run together
# without a blank line between them, or a page pasted whole. The build still takes it.
MAX_RECORD_CHARS = 10_000
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Words an English sentence does not end on: a record ending on one was cut off.
_DANGLING = set(
    "the of a an to that which with and or for in on by as is are was were we our its their this these "
    "from at than whose over either into via be both between under such".split()
)
_FURNITURE_RE = re.compile(
    r"^(?:page \d+(?: of \d+)?|\d{1,4}|download(?: pdf)?|pdf|abstract|bibtex|poster|oral|spotlight|"
    r"previous|next|back to top|show more|show less|read more|reviews?|openreview|paper|supplemental|"
    r"(?:neurips|nips) \d{4}(?: 论文列表)?|论文列表|.*\|.*\|.*)$",
    re.IGNORECASE,
)
_NAME = r"[A-Z][\w'\u00C0-\u024F.-]*(?: (?:von|van|de|der|den|di|da|du|la|le|del|dos|bin) ?)?(?: [A-Z][\w'\u00C0-\u024F.-]*){1,3}"
# A page may label the list ("Authors: …"): the label is read past, as a list without one.
_AUTHORS_RE = re.compile(rf"^(?:(?i:authors?)\s*:\s*)?{_NAME}(?:\s*[,;·•]\s*(?:and )?{_NAME}){{1,}}(?:,? and {_NAME})?\.?$")


@dataclass(frozen=True)
class Finding:
    file: str
    line: int | None
    column: int | None
    severity: str  # "error" or "warning"
    code: str
    message: str

    def text(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "") + (f":{self.column}" if self.column else "")
        return f"{where}: {self.severity}: {self.message} [{self.code}]"

    def github(self) -> str:
        """A GitHub Actions workflow command (an annotation). The file name and message are
        escaped as the runner unescapes them, so a crafted file name cannot end the command
        early and start another one."""
        props = [("file", self.file), ("line", self.line), ("col", self.column), ("title", self.code)]
        shown = ",".join(f"{k}={_escape_property(str(v))}" for k, v in props if v)
        return f"::{self.severity} {shown}::{_escape_data(self.message)}"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _position(record: RawRecord, offset: int) -> tuple[int, int]:
    """Line and column (1-based) of character ``offset`` of a record's raw text."""
    before = record.text_raw[:offset]
    line = record.line_start + before.count("\n")
    column = offset - (before.rfind("\n") + 1) + 1
    return line, column


def record_findings(file: str, record: RawRecord) -> Iterable[Finding]:
    """Warnings about one record."""
    text = record.text
    words = text.split()

    def warn(code: str, message: str, offset: int | None = None):
        line, column = _position(record, offset) if offset is not None else (record.line_start, None)
        return Finding(file, line, column, "warning", code, message)

    if len(text) > MAX_RECORD_CHARS:
        yield warn("long-record", f"{len(text):,} characters, over the {MAX_RECORD_CHARS:,} no abstract needs: several "
                   "abstracts run together (a blank line missing between them) or a whole page pasted")
    control = _CONTROL_RE.search(record.text_raw)
    if control:
        yield warn("control-character", f"control character U+{ord(control.group()):04X} (removed by the build)", control.start())
    entity = ENTITY_RE.search(record.text_raw)
    if entity:
        yield warn("html-entity", f"HTML entity {entity.group()} (kept as is: replace it with the character it stands for)",
                   entity.start())
    if len(words) <= 12 and _FURNITURE_RE.match(text):
        yield warn("page-furniture", f"looks like page furniture, not an abstract: {text[:60]!r}")
    elif _AUTHORS_RE.match(text) and len(words) <= 60:
        yield warn("author-list", f"looks like a list of authors, not an abstract: {text[:60]!r}")
    elif len(words) <= 25 and not re.search(r"[.!?]\s", text + " ") and sum(w[:1].isupper() for w in words) >= 0.6 * len(words) > 1:
        yield warn("title", f"looks like a title, not an abstract: {text[:60]!r}")
    elif len(words) < MIN_WORDS:
        yield warn("too-short", f"only {len(words)} words: too short for an abstract, probably cut off")
    elif (
        words[-1].lower().strip("\"'") in _DANGLING
        or text[-1:] in ",;:^_\\{(=-"
        or (text.count("$") - text.count("\\$")) % 2 == 1 and "$" in text[-12:]
    ):
        yield warn("truncated", f"ends with {text[-30:]!r}: the abstract looks cut off")


def _error(file: str, exc: DumpError) -> Finding:
    return Finding(file, exc.line, exc.column, "error", exc.code, exc.message)


def dump_findings(name: str, data: bytes, config: BuildConfig, others: dict[str, str]) -> list[Finding]:
    """Everything about one dump's content. ``others`` maps sha256 -> name of the other dumps
    (never of this file itself)."""
    out: list[Finding] = []
    sha = hashlib.sha256(data).hexdigest()
    if sha in others:
        out.append(_error(name, copy_error(name, others[sha])))
    try:
        dump = parse_dump(name, data, config.venue, config.year)
    except DumpError as exc:
        out.append(_error(name, exc))
        return out
    for line, chars in dump.invisible_lines:
        shown = " ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(chars) if c not in " \t")
        out.append(Finding(name, line, None, "warning", "invisible-line",
                           f"line holding only invisible characters ({shown}): read as a blank line between records"))
    seen: dict[str, int] = {}
    for record in dump.records:
        norm = normalize(record.text)
        if not norm:
            out.append(_error(name, no_visible_text(name, record.line_start)))
            continue
        out.extend(record_findings(name, record))
        if norm in seen:
            out.append(Finding(name, record.line_start, None, "warning", "duplicate-record",
                               f"same abstract as the record at line {seen[norm]} of this dump"))
        else:
            seen[norm] = record.line_start
    out.sort(key=lambda f: (f.line or 0, f.column or 0))
    return out


def validate(paths: Iterable[str | Path], config: BuildConfig = DEFAULT_CONFIG, raw_dir: str | Path = "raw",
             previous: Anchor = None) -> list[Finding]:
    """Findings for the dump files (or folders of them) in ``paths``, compared with ``raw_dir``.

    Folders and files go through the build's own rules (``load.entry_problem``), so whatever
    validate passes the build accepts; no link out of a folder is followed, and no file that
    breaks a rule is read, except a misnamed dump (its content is checked too). The file-name
    rule is raw/'s alone: a dump anywhere else is named by `add`, so there only its content
    counts, as for `add`.

    The dumps of ``raw_dir`` are measured against ``previous``, the release a build of
    ``raw_dir`` anchors its ids to (see ``metadata_findings``): a release read, None for none (a
    first release), or a function reading it, called once and only when a dump of ``raw_dir`` is
    checked. Which release that is only the published record says (``record.published.
    anchored_previous``, a layer above this one): the ``validate`` command passes it, so that
    what it passes the build accepts; the default measures against no release.
    """
    files: list[Path] = []
    findings: list[Finding] = []
    raw = Path(raw_dir)

    def named_by_raw(e: DumpError, folder: Path) -> bool:
        """Whether a problem counts: the file-name rule only inside ``raw_dir``."""
        return e.code != "file-name" or (raw.is_dir() and folder.resolve() == raw.resolve())

    for p in map(Path, paths):
        if p.is_dir() and not p.is_symlink():
            dumps, problems = folder_entries(p, str(p))
            files.extend(dumps)
            for e in problems:
                if named_by_raw(e, p):
                    findings.append(_error(str(p) if e.code == "empty-folder" else str(p / e.file), e))
                if e.code == "file-name":  # a misnamed dump is still worth checking
                    files.append(p / e.file)
            continue
        if is_sidecar(p) and not p.is_symlink():  # checked with its dump
            files.append(p.parent / dump_of_sidecar(p.name))
            continue
        problem = entry_problem(p, p.parent, str(p.parent))
        if problem is not None and problem.code == "missing" and p == raw:  # no raw/ here at all
            problem = DumpError(str(p), NO_RAW_FOLDER, code="missing")
        if problem is not None and named_by_raw(problem, p.parent):
            findings.append(_error(str(p), problem))
        if problem is None or problem.code == "file-name":
            files.append(p)
    files = list(dict.fromkeys(files))
    # sha256 -> the first dump with those bytes; a file is a copy of another *file*, so the
    # comparison is by path (a link is a file of its own): a dump outside raw/ named like the
    # one it copies is still a copy.
    first_with: dict[str, Path] = {}
    in_raw: dict[str, str] = {}  # dumps of raw_dir checked here -> sha256: their metadata is checked too
    if raw.is_dir():
        for q in folder_entries(raw, str(raw))[0]:
            first_with.setdefault(hashlib.sha256(q.read_bytes()).hexdigest(), q.absolute())
    for f in files:
        data = f.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        first = first_with.setdefault(sha, f.absolute())
        others = {sha: first.name} if first != f.absolute() else {}
        found = dump_findings(f.name, data, config, others)
        findings.extend(Finding(str(f), x.line, x.column, x.severity, x.code, x.message) for x in found)
        if raw.is_dir() and f.parent.resolve() == raw.resolve() and f.suffix == DUMP_SUFFIX:
            in_raw[f.name] = sha
    findings.extend(metadata_findings(raw, in_raw, previous))
    return findings


def metadata_findings(raw_dir: str | Path, shas: dict[str, str], previous: Anchor = None) -> list[Finding]:
    """What the build refuses or warns about in the metadata of the dumps of ``raw_dir`` named in
    ``shas`` (name -> sha256 of its bytes), with the build's own errors, one per dump as the build
    reports it: a metadata file that does not parse, a dump whose bytes no longer match the
    release ``previous`` (the build's anchor, see ``validate``) that published it or its metadata
    file, metadata that contradicts the facts that release published for the same bytes
    (``unchanged.checked_meta``); a dump without one that no release knows (a warning: the build
    accepts it, ordered last). Where the anchor itself is refused (``previous`` raises: a damaged
    release, none where the project has published), that refusal is the one error, as the build
    says it: nothing can be measured against it."""
    from .load import read_meta
    from .sidecar import no_metadata_warning, sidecar_name
    from .unchanged import checked_meta

    raw = Path(raw_dir)
    if not shas:
        return []
    try:
        release = previous() if callable(previous) else previous
    except DumpError as exc:
        return [_error(exc.file, exc)]
    out: list[Finding] = []
    for name in shas:
        where = str(raw / name)
        try:
            meta = read_meta(raw, [name])[name]
        except DumpError as exc:
            out.append(_error(str(raw / sidecar_name(name)), exc))
            continue
        try:  # the build's own check of the rule that dumps never change: its one error, as it says it
            known = checked_meta(name, (raw / name).read_bytes(), meta, release, folder=raw)
        except DumpError as exc:
            out.append(_error(str(raw / exc.file), exc))
            continue
        if known.added is None and meta is None:  # neither a metadata file nor a release knows it
            out.append(Finding(where, None, None, "warning", "no-metadata", no_metadata_warning(name)))
    return out


def as_json(findings: list[Finding]) -> str:
    return json.dumps(
        {
            "errors": sum(f.severity == "error" for f in findings),
            "warnings": sum(f.severity == "warning" for f in findings),
            "findings": [asdict(f) for f in findings],
        },
        indent=2,
        ensure_ascii=False,
    )
