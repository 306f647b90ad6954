"""Add a dump to raw/: the one way a contribution enters the dataset.

``add_dump`` refuses exactly what ``validate`` refuses, then writes two new files and touches
nothing else: the dump under its name (the next free number, then the first 16 hex digits of its
SHA-256) and its metadata file (``sidecar``). Two contributors adding dumps from the same main
therefore never edit the same file. Both files appear together or not at all.

Before it lands, ``impact`` says what the dump will do to the release a build keeps (the ``dist/`` beside
raw/, or the newest published release where that one is older): how many papers it adds, which of its records are exact copies of published papers, and
which become the canonical text of a published paper (newest crawl wins), with the similarity to
the text they replace. ``add --dry-run`` prints it and writes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..core.config import DEFAULT_CONFIG, BuildConfig
from ..core.errors import DumpError, ProjectError
from ..core.guard import Refused, check_raw_target, remove_litter, temporary_file, temporary_folder
from ..core.names import DUMP_SUFFIX, dump_number
from ..ingest.sidecar import DumpMeta, check_date, parse_sidecar, sidecar_name
from ..ingest.unchanged import published_meta
from ..ingest.validate import Finding, validate

_URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


class AddError(ProjectError, ValueError):
    """The dump was not added; ``findings`` says why, file:line by file:line."""

    def __init__(self, message: str, findings: Iterable[Finding] = ()):
        super().__init__(message)
        self.findings = list(findings)


def next_number(raw_dir: Path) -> int:
    numbers = [n for p in raw_dir.glob(f"*{DUMP_SUFFIX}") if (n := dump_number(p.name)) is not None]
    return max(numbers, default=-1) + 1


def dump_name(number: int, sha256: str) -> str:
    return f"{number:03d}_{sha256[:16]}{DUMP_SUFFIX}"


@dataclass(frozen=True)
class Plan:
    """A dump ready to be added: its bytes, the name and metadata it gets, validate's warnings."""

    raw: Path
    data: bytes
    meta: DumpMeta
    findings: list[Finding] = field(default_factory=list)


def plan_add(
    path: str | Path,
    raw_dir: str | Path = "raw",
    crawled_at: str | None = None,
    source_url: str | None = None,
    added: str | None = None,
    config: BuildConfig = DEFAULT_CONFIG,
) -> Plan:
    """Everything ``add_dump`` checks, without writing: :class:`AddError` if the dump cannot be
    added. Bytes a release already published (a removed dump added again) keep the facts that
    release holds for them; dates or a URL given that contradict those facts are an error."""
    raw = Path(raw_dir)
    src = Path(path)
    try:
        real_raw = check_raw_target(raw)
    except Refused as exc:
        raise AddError(str(exc)) from None
    explicit_added = added
    added = added or dt.datetime.now(dt.timezone.utc).date().isoformat()
    try:
        check_date(added, "added")
        if crawled_at is not None:
            check_date(crawled_at, "--crawled-at")
            if crawled_at > added:
                raise ValueError(f"--crawled-at {crawled_at} is after the date it is added ({added})")
    except ValueError as exc:  # the option is about the dump: named as every finding is
        raise AddError(f"{src}: error: not added: {exc}") from None
    if source_url is not None and not _URL_RE.match(source_url):
        raise AddError(f"{src}: error: not added: --source-url must be an http(s) URL, got {source_url!r}")

    if src.exists() and not src.is_file():
        raise AddError(f"{src}: error: not added: not a regular file")
    try:  # the file itself, a link maybe, is not followed
        here = src.absolute().parent.resolve()
    except (OSError, RuntimeError):  # Python < 3.13 raises RuntimeError("Symlink loop ...")
        here = None
    if here == real_raw:  # else it would be found a copy of itself
        raise AddError(f"{src}: error: not added: already in {raw_dir}/ (add copies a dump in from elsewhere: "
                       "move it out first)")
    findings = [f for f in validate([src], config, raw_dir=raw) if f.code != "file-name"]
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        if len(errors) == 1:  # the one line says it all
            raise AddError(f"{errors[0].text()}: not added")
        raise AddError(f"{src}: error: not added ({len(errors)} errors)", errors)
    data = src.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    # validate calls a dump in raw/ itself, not a copy; for add, any dump of raw/ is one
    for existing in sorted(raw.glob(f"*{DUMP_SUFFIX}")):
        if existing.is_file() and hashlib.sha256(existing.read_bytes()).hexdigest() == sha:
            raise AddError(f"{src}: error: not added: byte-for-byte copy of {existing.name}, already in {raw_dir}/")
    name = dump_name(next_number(raw), sha)
    with temporary_folder() as fetched:
        previous = _previous(raw, fetched / "previous")
    old = previous.dump_facts.get(sha) if previous else None
    if old is not None:  # what is not given is taken from the release; what is given must agree
        given = DumpMeta(name, sha, crawled_at if crawled_at is not None else old.crawled_at,
                         source_url if source_url is not None else old.source_url, explicit_added or old.added)
    else:
        given = DumpMeta(name, sha, crawled_at, source_url, added)
    try:
        known = published_meta(name, sha, given, previous)
    except DumpError as exc:
        raise AddError(f"{src}: error: not added: {exc.message}") from None
    meta = DumpMeta(name, sha, known.crawled_at, known.source_url, known.added or added, None)
    parse_sidecar(name, meta.to_json())  # what we write must read back
    return Plan(raw, data, meta, findings)


def _previous(raw: Path, into: Path):
    """The release a build of ``raw`` keeps (the one beside it, or the newest published one,
    read into ``into``); refused, naming the ways out, where it is missing although the project
    has published (what a dump changes cannot be told against nothing)."""
    from ..ingest.previous import BESIDE_RAW
    from ..record.published import anchored_previous

    return anchored_previous(raw, BESIDE_RAW, into)[1]


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
    with planned(path, raw_dir, crawled_at, source_url, added=added, config=config, compare=False) as (plan, _):
        return (*land(plan), plan.findings)


@contextmanager
def planned(path: str | Path, raw_dir: str | Path, crawled_at: str | None, source_url: str | None,
            hold: bool = True, added: str | None = None, config: BuildConfig = DEFAULT_CONFIG,
            compare: bool = True) -> Iterator[tuple[Plan, "Impact | None"]]:
    """The plan of adding the dump at ``path`` to ``raw_dir`` and, with ``compare``, what it does
    to the release beside it, with ``raw_dir`` held (``hold``: against every other writer, from
    this reading to the caller's ``land``; a dry run holds nothing). AddError, DumpError or
    ContractError as ``plan_add`` and ``impact`` raise them."""
    from ..core.lock import writing

    with ExitStack() as held:
        if hold:
            held.enter_context(writing(raw_dir))
        plan = plan_add(path, raw_dir, crawled_at, source_url, added, config)
        yield plan, impact(plan, config) if compare else None


def land(plan: Plan) -> tuple[Path, Path]:
    """Write a planned dump and its metadata file into raw/: both or neither, whatever signal
    comes (``interrupts.uninterrupted``)."""
    from ..core.interrupts import uninterrupted, writes

    raw, name = plan.raw, plan.meta.file
    writes(str(raw), f"holds {name}")
    remove_litter(raw)  # temporary files of an add that was killed
    target, sidecar = raw / name, raw / sidecar_name(name)
    tmp_target, tmp_sidecar = temporary_file(target), temporary_file(sidecar)
    try:
        tmp_target.write_bytes(plan.data)
        tmp_sidecar.write_bytes(plan.meta.to_json().encode("utf-8"))
        with uninterrupted():
            os.replace(tmp_sidecar, sidecar)
            os.replace(tmp_target, target)
    except BaseException:
        for p in (tmp_target, tmp_sidecar, sidecar):
            p.unlink(missing_ok=True)
        raise
    return target, sidecar


@dataclass(frozen=True)
class Impact:
    """What a dump does to the published papers (``impact``)."""

    dump: str
    new_papers: int
    copies: list[tuple[int, str]]  # (line in the dump, published id) of records equal to a published text
    canonical: list[tuple[int, str, float]]  # (line, published id, similarity to the text it replaces)
    merged: list[tuple[str, str]]  # (published id, the paper it joins)
    published: bool  # whether there is a release to compare with

    def text(self) -> str:
        if not self.published:
            return (f"{self.dump}: no release in dist/ to compare with: every paper is new; {self.new_papers} of "
                    "them are in no other dump")
        lines = [f"{self.dump} adds {self.new_papers} new paper{'s' * (self.new_papers != 1)}"]
        lines.append(f"{len(self.copies)} record{'s are' if len(self.copies) != 1 else ' is an'} exact "
                     f"cop{'ies' if len(self.copies) != 1 else 'y'} of published papers"
                     + (":" if self.copies else ""))
        lines += [f"  line {line}: {pid}" for line, pid in self.copies]
        lines.append(f"{len(self.canonical)} record{'s' * (len(self.canonical) != 1)} become"
                     f"{'s' * (len(self.canonical) == 1)} the canonical text of published papers"
                     + (" (similarity to the text replaced):" if self.canonical else ""))
        lines += [f"  line {line}: {pid} ({sim:.3f})" for line, pid, sim in self.canonical]
        if self.merged:
            lines.append(f"{len(self.merged)} published id{'s' * (len(self.merged) != 1)} become"
                         f"{'s' * (len(self.merged) == 1)} merged into another paper:")
            lines += [f"  {pid} -> {into}" for pid, into in self.merged]
        return "\n".join(lines)


def impact(plan: Plan, config: BuildConfig = DEFAULT_CONFIG) -> Impact:
    """Build raw/ with the planned dump in memory and compare it with the release beside raw/.

    Raises ``DumpError`` or ``ContractError`` as the build would."""
    from ..build import produce
    from ..core.guard import temporary_folder
    from ..ingest.load import folder_entries
    from ..ingest.previous import read_release_table

    with temporary_folder() as tmp:  # marked as ours: a killed add's copy is removed by the next run
        previous = _previous(plan.raw, tmp / "previous")
        raw = tmp / "raw"
        raw.mkdir()
        for dump in folder_entries(plan.raw, str(plan.raw))[0]:
            shutil.copyfile(dump, raw / dump.name)
            if (side := plan.raw / sidecar_name(dump.name)).is_file():
                shutil.copyfile(side, raw / side.name)
        (raw / plan.meta.file).write_bytes(plan.data)
        (raw / sidecar_name(plan.meta.file)).write_text(plan.meta.to_json(), encoding="utf-8")
        result = produce(raw, config, previous=previous)
        try:
            occ = result.occurrences.to_pylist()
        finally:
            result.occurrences.spool.close()
        old = (read_release_table(previous.path, "papers", columns=["paper_id", "abstract_sha256"]).to_pylist()
               if previous else [])
    published = {r.id for r in previous.ids} if previous else set()
    sha = plan.meta.sha256
    mine = [o for o in occ if o["source_sha256"] == sha]
    # The dump's own new papers: unpublished papers that no other dump of raw/ holds a record of
    # (dumps not yet built are in raw/ too: their papers are not this dump's doing, whatever
    # order the dumps were added in).
    elsewhere = {o["paper_id"] for o in occ if o["source_sha256"] != sha}
    new_papers = len({o["paper_id"] for o in mine} - elsewhere - published)
    if previous is None:
        return Impact(plan.meta.file, new_papers, [], [], [], False)
    old_text = {r["paper_id"]: r["abstract_sha256"] for r in old}
    old_texts = set(old_text.values())
    copies = [(o["line_start"], o["paper_id"]) for o in mine if o["text_sha256"] in old_texts]
    by_id = {o["occurrence_id"]: o for o in mine}
    similarity = {(o["paper_id"], o["text_sha256"]): o["similarity"] for o in occ}
    canonical = []
    for p in result.papers.to_pylist():
        o = by_id.get(p["canonical_occurrence_id"])
        if o is not None and p["paper_id"] in old_text and old_text[p["paper_id"]] != p["abstract_sha256"]:
            canonical.append((o["line_start"], p["paper_id"], similarity.get((p["paper_id"], old_text[p["paper_id"]]), 0.0)))
    return Impact(plan.meta.file, new_papers, sorted(copies), sorted(canonical), list(result.identity.merged), True)
