"""Command line: a thin layer over the library. Each command's docstring is its --help."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from .contracts import ContractError
from .errors import DumpError


class DefaultBuildGroup(click.Group):
    """Runs ``build`` when no command is named, so ``python build_dataset.py`` builds."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["build", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultBuildGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Build the NeurIPS 2026 abstracts dataset from raw dumps.

    \b
    Example:
        python build_dataset.py            # same as: build --raw raw --out dist
        python build_dataset.py add FILE   # add a dump to raw/, with its metadata file
        python build_dataset.py check      # is the committed dist/ up to date?
    """


@contextlib.contextmanager
def stage_progress():
    """A progress bar over the build's stages on a terminal; nothing when output is redirected."""
    from tqdm import tqdm

    from .build import STAGES

    with tqdm(total=len(STAGES), unit="stage", disable=None, file=sys.stderr, leave=False) as bar:
        done: set[str] = set()

        @contextlib.contextmanager
        def stage(name: str):
            # parse and normalize are entered once per dump: the bar counts each stage once
            bar.set_description(name)
            yield
            if name not in done:
                done.add(name)
                bar.update(1)

        yield stage


def _fail(exc: Exception) -> None:
    click.echo(str(exc), err=True)
    sys.exit(1)


@main.command()
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Folder of dump files to build from.")
@click.option("--out", "out_dir", default="dist", show_default=True, help="Folder to write (replaced whole).")
@click.option("--previous", "previous_dir", default=None,
              help="The release whose paper ids are kept  [default: the dist/ folder beside RAW, if it holds one].")
@click.option("--first-release", is_flag=True, help="Keep no earlier ids: every paper gets a new id.")
def build(raw_dir: str, out_dir: str, previous_dir: str | None, first_release: bool) -> None:
    """Build OUT from the dumps in RAW; OUT is untouched if anything fails.

    Every paper id of the previous release is kept (as a paper, merged into one, or removed);
    see the card's "Stable ids".

    \b
    Example:
        python build_dataset.py build --raw raw --out dist
    """
    from .build import BESIDE_RAW
    from .build import build as run_build

    from .docs import refresh
    from .release import PROJECT_ROOT

    from .schema import hidden

    try:
        # pyarrow imports pandas the first time it makes an array, to ask whether its input is a
        # pandas object; nothing in a build is, and that import was a third of a small build's
        # start-up. pyarrow then goes on without pandas for the rest of this process.
        with stage_progress() as stage, hidden(("pandas",)):
            previous = None if first_release else (previous_dir or BESIDE_RAW)
            s = run_build(raw_dir, out_dir, stage=stage, previous=previous)
    except (DumpError, ContractError) as exc:
        _fail(exc)
    if Path(out_dir).resolve() == PROJECT_ROOT / "dist":
        for path in refresh(PROJECT_ROOT / "dist"):
            click.echo(f"refreshed {path.relative_to(PROJECT_ROOT)}")
    rel = s["relations"]
    click.echo(
        f"built {out_dir}/: {s['records']} records parsed from {s['dumps']} dumps -> {s['papers']} papers "
        f"({rel['exact_duplicate']} exact duplicates, {rel['near_duplicate']} near duplicates) in {s['seconds']:.2f} s"
    )
    ids = s["id_changes"]
    click.echo(f"ids since the previous release: {ids['added']} new, {ids['merged']} merged into older papers, {ids['removed']} removed")


@main.command()
@click.argument("path")
@click.option("--crawled-at", default=None, metavar="YYYY-MM-DD", help="Day the page was saved, if known.")
@click.option("--source-url", default=None, metavar="URL", help="Address the dump was saved from.")
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Folder to add the dump to.")
def add(path: str, crawled_at: str | None, source_url: str | None, raw_dir: str) -> None:
    """Add the dump at PATH to RAW, with its metadata file; nothing else changes.

    Refuses (exit 1, RAW untouched) whatever `validate` calls an error, naming file and line.
    Otherwise writes RAW/NNN_<hex>.txt (the next free number; the first 16 hex digits of its
    SHA-256) and RAW/NNN_<hex>.json (sha256, crawl date, source URL, date added) and prints the
    warnings. Commit both files and open a pull request.

    \b
    Example:
        python build_dataset.py add ~/Downloads/neurips2026.txt --crawled-at 2026-11-28
    """
    from .add import AddError, add_dump

    try:
        dump, sidecar, findings = add_dump(path, raw_dir, crawled_at=crawled_at, source_url=source_url)
    except AddError as exc:
        for f in exc.findings:
            click.echo(f.text(), err=True)
        _fail(exc)
    for f in findings:
        click.echo(f.text(), err=True)
    click.echo(f"added {dump.as_posix()} and {sidecar.as_posix()}")
    click.echo(f"next: git add {dump.as_posix()} {sidecar.as_posix()} && git commit, then open a pull request")


@main.command()
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Folder of dump files.")
@click.option("--dist", "dist_dir", default="dist", show_default=True, help="Committed build to check.")
@click.option("--no-docs", is_flag=True, help="Check DIST only, not the project's DATASHEET.md and README.md.")
def check(raw_dir: str, dist_dir: str, no_docs: bool) -> None:
    """Rebuild into a temporary folder and fail if DIST, DATASHEET.md or README.md differ from it.

    Exits 1 and names every stale file; `python build_dataset.py build` fixes them.

    \b
    Example:
        python build_dataset.py check
    """
    from .build import check as run_check

    try:
        stale = run_check(raw_dir, dist_dir, docs=not no_docs)
    except (DumpError, ContractError) as exc:
        _fail(exc)
    if stale:
        for name in stale:
            click.echo(f"stale: {name}", err=True)
        click.echo(f"generated files are out of date with {raw_dir}/; run: python build_dataset.py build", err=True)
        sys.exit(1)
    click.echo(f"{dist_dir}/ and the generated docs are up to date with {raw_dir}/")


@main.command()
@click.argument("dist_dir", default="dist", required=False)
def verify(dist_dir: str) -> None:
    """Check DIST (default dist/) against its SHA256SUMS, datapackage.json, croissant.json and card.

    Exits 1 and lists every problem: a file changed, missing or unlisted, or metadata describing
    other bytes or row counts than the Parquet files hold.

    \b
    Example:
        python build_dataset.py verify dist
    """
    from .verify import verify as run_verify

    problems = run_verify(dist_dir)
    for problem in problems:
        click.echo(f"{dist_dir}/{problem}", err=True)
    if problems:
        click.echo(f"{dist_dir}/ does not verify ({len(problems)} problems)", err=True)
        sys.exit(1)
    click.echo(f"{dist_dir}/ verifies: every file matches SHA256SUMS and the metadata")


def _repo_id(ctx, param, value: str | None) -> str:
    from .publish import repo_id_problem
    from .resources import hub_repo

    value = value or hub_repo()
    problem = repo_id_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


@main.command()
@click.option("--repo-id", callback=_repo_id,
              help="Dataset repository on the Hub, OWNER/NAME (default: hub-repo in pyproject.toml).")
@click.option("--dry-run", is_flag=True, help="Print the plan and the reasons to refuse; contact nothing.")
@click.option("--stage", "stage_dir", default=None,
              help="Also write the files that would be uploaded into this folder (replaced whole), to read or validate.")
@click.option("--private", is_flag=True, help="Create the repository as private if it does not exist.")
@click.option("--revision", default="main", show_default=True, help="Branch to commit to.")
@click.option("--force-tag", is_flag=True, help="Move an existing version tag that points at other content.")
@click.option("--dist", "dist_dir", default="dist", show_default=True, help="Build to publish.")
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Dumps the build must match.")
@click.option("--attempts", default=4, show_default=True, help="Tries per Hub call on 5xx, timeouts and connection errors.")
@click.option("--backoff", default=1.0, show_default=True, help="Seconds before the first retry; doubles each time.")
def publish(repo_id, dry_run, stage_dir, private, revision, force_tag, dist_dir, raw_dir, attempts, backoff) -> None:
    """Publish DIST to the Hugging Face Hub as one commit tagged v<version>.

    Refuses unless `check` and `verify` pass, the git work tree is clean and a token is set; a
    dry run exits 1 for the same reasons. DIST names the repository in pyproject.toml
    (hub-repo); for another --repo-id the same build is rendered for that repository, and that
    is what is uploaded. The token comes from HF_TOKEN or `hf auth login`; HF_ENDPOINT selects
    another Hub.

    \b
    Example:
        python build_dataset.py publish --repo-id alice/abstracts --dry-run --stage /tmp/staged
        HF_TOKEN=hf_... python build_dataset.py publish --repo-id alice/abstracts
    """
    import tempfile

    from huggingface_hub import get_token

    from .publish import PublishConfig, PublishError, make_plan, preconditions, render_plan, stage_problem, stage_release
    from .publish import publish as run_publish
    from .release import PROJECT_ROOT
    from .verify import verify as run_verify

    dist, raw = Path(dist_dir), Path(raw_dir)
    if not (dist / "build_manifest.json").is_file():
        _fail(DumpError(dist_dir, "no build here: run `python build_dataset.py build` first"))
    is_project = dist.resolve() == PROJECT_ROOT / "dist"
    if stage_dir and (problem := stage_problem(Path(stage_dir), dist, raw)):
        _fail(DumpError(stage_dir, problem))
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(stage_dir) if stage_dir else Path(tmp) / "release"
        try:
            failures = preconditions(raw, dist, docs=is_project)
        except (DumpError, ContractError) as exc:
            _fail(exc)
        try:
            stage_release(raw, dist, repo_id, staged)
            failures += [f"staged release does not verify: {p}" for p in run_verify(staged)]
        except PublishError as exc:
            failures.append(str(exc))
        if not get_token():
            failures.append("no token: set HF_TOKEN or log in with `hf auth login`")
        if dry_run:
            click.echo(render_plan(make_plan(staged, repo_id, revision, None), remote_known=False))
            if stage_dir:
                click.echo(f"staged in {stage_dir}/: exactly the files listed above")
            for failure in failures:
                click.echo(f"would refuse: {failure}", err=True)
            sys.exit(1 if failures else 0)
        if failures:
            for failure in failures:
                click.echo(f"refused: {failure}", err=True)
            sys.exit(1)
        try:
            result = run_publish(
                staged, repo_id, revision=revision, private=private, force_tag=force_tag,
                config=PublishConfig(attempts=attempts, backoff_seconds=backoff), log=click.echo,
            )
        except PublishError as exc:
            click.echo(f"publish failed: {exc}", err=True)
            sys.exit(1)
    click.echo(f"commit: {result['commit_url']}")
    click.echo(f"tag:    {result['tag_url']}")
    click.echo(f"load:   from datasets import load_dataset; {result['load']}")


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default=None,
              help="Output: text lines (default), JSON, or GitHub Actions annotations (default under Actions).")
@click.option("--venue", default=None, help="Expected venue in the header (default: the project's).")
@click.option("--year", type=int, default=None, help="Expected year in the header (default: the project's).")
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Existing dumps, to catch copies.")
def validate(paths, fmt, venue, year, raw_dir) -> None:
    """Check dump files (default: everything in raw/) without building.

    The build's own rules, with its messages. Errors (exit 1): not UTF-8, wrong or missing
    header, file name not NNN_<16 hex>.txt, over the size limit, binary content, a record with
    no visible text, a copy of another dump, a dump whose bytes no longer match its metadata
    file or the release that published it (edited), a metadata file that is invalid, has no dump
    or changes published dates, anything else in the folder but .txt dumps and their .json
    metadata files (folders, other files, links out of it, which are never followed), no dump at
    all. Warnings: a dump without a metadata file, control characters, HTML entities, lines of
    only invisible characters (read as blank), records that look cut off, too short, a title, an
    author list or page furniture, and duplicates inside one dump. Each line reads
    `file:line[:column]: error|warning: message [code]`.

    \b
    Example:
        python build_dataset.py validate raw/004_0123456789abcdef.txt
        python build_dataset.py validate --format json
    """
    import dataclasses
    import os

    from .config import DEFAULT_CONFIG
    from .validate import as_json
    from .validate import validate as run_validate

    config = dataclasses.replace(DEFAULT_CONFIG, venue=venue or DEFAULT_CONFIG.venue, year=year or DEFAULT_CONFIG.year)
    findings = run_validate(paths or [raw_dir], config, raw_dir=raw_dir)
    fmt = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if fmt == "json":
        click.echo(as_json(findings))
    else:
        for f in findings:
            click.echo(f.github() if fmt == "github" else f.text())
        errors = sum(f.severity == "error" for f in findings)
        click.echo(f"{errors} errors, {len(findings) - errors} warnings", err=True)
    if any(f.severity == "error" for f in findings):
        sys.exit(1)


@main.command()
@click.argument("old")
@click.argument("new", default="dist", required=False)
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@click.option("--write-changelog", is_flag=True, help="Also add NEW's version entry to CHANGELOG.md.")
def diff(old, new, fmt, write_changelog) -> None:
    """Show what changed from OLD to NEW: papers added, removed and revised, new duplicates, counts.

    Each side is a dist/ folder or a git revision of this repository (its committed dist/).
    Markdown is ready for a pull-request comment.

    \b
    Example:
        python build_dataset.py diff origin/main dist
        python build_dataset.py diff v1.0.0 dist --write-changelog
    """
    import json

    from .diff import compare, load_side, to_markdown
    from .diff import write_changelog as add_entry
    from .release import CHANGELOG

    try:
        d = compare(load_side(old), load_side(new))
        if write_changelog:
            add_entry(d, CHANGELOG)
    except ValueError as exc:
        _fail(exc)
    click.echo(json.dumps(d, indent=2, ensure_ascii=False) if fmt == "json" else to_markdown(d))
