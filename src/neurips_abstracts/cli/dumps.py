"""The commands for contributors' dumps: add one to raw/, validate files without building."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.errors import ContractError, DumpError
from ..core.words import plural
from .errors import as_invoked
from .output import AsInvokedCommand, fail


@click.command(cls=AsInvokedCommand, short_help="Add a dump to RAW, with its metadata file.")
@click.argument("path")
@click.option("--crawled-at", default=None, metavar="YYYY-MM-DD", help="Day the page was saved, if known.")
@click.option("--source-url", default=None, metavar="URL", help="Address the dump was saved from.")
@click.option("--raw", "raw_dir", default="raw", metavar="RAW", show_default=True, help="Folder to add the dump to.")
@click.option("--dry-run", is_flag=True, help="Print what the dump would do to the published papers; write nothing.")
def add(path: str, crawled_at: str | None, source_url: str | None, raw_dir: str, dry_run: bool) -> None:
    """Add the dump at PATH to RAW, with its metadata file; nothing else changes.

    Refuses (exit 1, RAW untouched) whatever `validate` calls an error, naming file and line.
    Otherwise prints what the dump will do to the release a build of RAW keeps (the dist/ beside
    RAW, or the newest published release, read from git, where that one is older; new papers;
    records that are exact copies of published papers, with their ids; records that become the
    canonical text of published papers, with ids and similarity to the text they replace), writes
    RAW/NNN_<hex>.txt (the next free number; the first 16 hex digits of its SHA-256) and
    RAW/NNN_<hex>.json (sha256, crawl date, source URL, date added) and prints the warnings.
    With --dry-run it prints the same and writes nothing. Commit both files and open a pull request.

    \b
    Example:
        python build_dataset.py add ~/Downloads/neurips2026.txt --crawled-at 2026-11-28 --dry-run
    """
    from ..contribute.add import AddError, land, planned

    try:
        with planned(path, raw_dir, crawled_at, source_url, hold=not dry_run) as (plan, effect):
            for f in plan.findings:
                click.echo(as_invoked(f.text()), err=True)
            if effect is not None:  # planned compares with the release unless told not to
                click.echo(effect.text())
            if dry_run:
                click.echo(f"dry run: {Path(raw_dir).as_posix()}/ untouched (would add {plan.meta.file})")
                return
            dump, sidecar = land(plan)
    except AddError as exc:
        for f in exc.findings:
            click.echo(as_invoked(f.text()), err=True)
        fail(exc)
    except (DumpError, ContractError) as exc:  # raw/ as it stands does not build
        fail(exc)
    click.echo(f"added {dump.as_posix()} and {sidecar.as_posix()}")
    what = f"a dump crawled on {plan.meta.crawled_at}" if plan.meta.crawled_at else f"dump {plan.meta.file}"
    from ..core.clones import clone_of

    if clone_of(dump.parent) is None:  # git advice only where git works
        click.echo("send both files to the project (raw/ here is in no git clone)")
        return
    click.echo("commit both files, then open a pull request:")
    click.echo(f'next: git add {dump.as_posix()} {sidecar.as_posix()} && git commit -m "Add {what}"')


@click.command(cls=AsInvokedCommand, short_help="Check dump files (default: all of raw/) without building.")
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default=None,
              help="Output: text lines (default), JSON, or GitHub Actions annotations (default under Actions).")
@click.option("--venue", default=None, metavar="VENUE", help="Expected venue in the header (default: the project's).")
@click.option("--year", type=int, default=None, help="Expected year in the header (default: the project's).")
@click.option("--raw", "raw_dir", default="raw", metavar="RAW", show_default=True, help="Existing dumps, to catch copies.")
def validate(paths, fmt, venue, year, raw_dir) -> None:
    """Check dump files (default: everything in raw/) without building.

    The build's own rules, with its messages, and the same content rules as `add`. Errors
    (exit 1): not UTF-8, wrong or missing header, a file in RAW named other than NNN_<16 hex>.txt
    (the name rule is RAW's alone: `add` names the files it copies in), over the size limit, binary content, a record with
    no visible text, a copy of another dump, a dump whose bytes no longer match its metadata
    file or the release that published it (edited), a metadata file that is invalid, has no dump
    or changes published dates, anything else in the folder but .txt dumps and their .json
    metadata files (folders, other files, links out of it, which are never followed), no dump at
    all. Dumps in RAW are measured against the release a build of RAW keeps, found as build finds
    it (the published record: a release newer than dist/ read from git; none where the project
    has published is an error, as for build). Warnings: a dump without a metadata file, control characters, HTML entities, lines of
    only invisible characters (read as blank), records that look cut off, too short, a title, an
    author list or page furniture, and duplicates inside one dump. Each line reads
    `file:line[:column]: error|warning: message [code]`.

    \b
    Example:
        python build_dataset.py validate ~/Downloads/neurips2026.txt
        python build_dataset.py validate --format json
    """
    import dataclasses
    import os

    from ..core.config import DEFAULT_CONFIG
    from ..core.guard import temporary_folder
    from ..ingest.previous import BESIDE_RAW
    from ..ingest.validate import as_json, validate as run_validate
    from ..record.published import anchored_previous

    config = dataclasses.replace(DEFAULT_CONFIG, venue=venue or DEFAULT_CONFIG.venue, year=year or DEFAULT_CONFIG.year)
    with temporary_folder() as fetched:  # a release read from git, kept while the dumps are measured against it
        # The release a build of RAW anchors to, as the build finds it (the published record:
        # a newer release read from git, a missing one refused), writing nothing: so whatever
        # validate passes, the build accepts.
        findings = run_validate(paths or [raw_dir], config, raw_dir=raw_dir,
                                previous=lambda: anchored_previous(raw_dir, BESIDE_RAW, fetched / "previous")[1])
    fmt = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if fmt == "json":
        click.echo(as_json(findings))
    else:
        for f in findings:
            click.echo(as_invoked(f.github() if fmt == "github" else f.text()))
        errors = sum(f.severity == "error" for f in findings)
        click.echo(f"{plural(errors, 'error')}, {plural(len(findings) - errors, 'warning')}", err=True)
    if any(f.severity == "error" for f in findings):
        sys.exit(1)
