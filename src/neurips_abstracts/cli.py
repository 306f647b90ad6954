"""Command line: a thin layer over the library. Each command's docstring is its --help."""

from __future__ import annotations

import contextlib
import difflib
import inspect
import sys
from pathlib import Path

import click

from .cli_errors import DEBUG_HELP, DOC_PROG, ReportsErrors, as_invoked, one_line
from .contracts import ContractError
from .errors import DumpError




def invoked(ctx: click.Context | None = None) -> str:
    """The command as the user typed it: `python build_dataset.py`, `neurips-abstracts` or
    `python -m neurips_abstracts` (each entry point passes its name as ``prog_name``)."""
    ctx = ctx or click.get_current_context(silent=True)
    return ctx.find_root().info_name if ctx and ctx.find_root().info_name else DOC_PROG


def plural(n: int, word: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


class AsInvokedCommand(click.Command):
    """A command whose help shows its examples with the command the user invoked."""

    def format_help_text(self, ctx, formatter):
        _help_text(self, ctx, formatter)


def _help_text(cmd: click.Command, ctx: click.Context, formatter) -> None:
    text = inspect.cleandoc(cmd.help or "").partition("\f")[0].replace(DOC_PROG, invoked(ctx))
    if text:
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(text)


class DefaultBuildGroup(ReportsErrors):
    """Runs ``build`` when no command is named (nothing, or build's options), so
    ``python build_dataset.py`` builds; any other word must be a command."""

    command_class = AsInvokedCommand

    def format_help_text(self, ctx, formatter):
        _help_text(self, ctx, formatter)

    def parse_args(self, ctx, args):
        # The group's own flags (--help, --version, ...) stay in front; build is inserted after them.
        own = {opt for p in self.get_params(ctx) if isinstance(p, click.Option) and p.is_flag for opt in p.opts}
        i = 0
        while i < len(args) and args[i] in own:
            i += 1
        if i == len(args) or args[i].startswith("-"):
            args = [*args[:i], "build", *args[i:]]
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx, args):
        name = args[0]
        if not name.startswith("-") and self.get_command(ctx, name) is None and not ctx.resilient_parsing:
            commands = self.list_commands(ctx)
            near = difflib.get_close_matches(name, commands, n=1, cutoff=0.5)
            if near:
                hint = f"Did you mean '{near[0]}'?"
            elif name == "help":
                hint = f"Did you mean '{invoked(ctx)} --help'?"
            else:
                hint = "Commands: " + ", ".join(commands) + "."
            raise click.UsageError(f"No such command '{name}'. {hint}", ctx)
        return super().resolve_command(ctx, args)


def _print_version(ctx: click.Context, param, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from .resources import dataset_version

    click.echo(f"neurips-abstracts {dataset_version()}")
    ctx.exit()


@click.group(cls=DefaultBuildGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, expose_value=False, help=DEBUG_HELP)  # read by ReportsErrors
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the version and exit.")
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
    if not sys.stderr.isatty():  # no bar to draw: tqdm is not even imported
        yield lambda name: contextlib.nullcontext()
        return
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
    click.echo(as_invoked(one_line(exc)), err=True)
    sys.exit(1)


@main.command()
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Folder of dump files to build from.")
@click.option("--out", "out_dir", default="dist", show_default=True, help="Folder to write, replaced whole: new, empty or a release; never raw/, the checkout or a symbolic link (refused, not followed).")
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

    from .docs import docs_skipped, refresh
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
    if docs_skipped(out_dir) is None:
        for path in refresh(PROJECT_ROOT / "dist"):
            click.echo(f"refreshed {path.relative_to(PROJECT_ROOT)}")
    rel = s["relations"]
    click.echo(
        f"built {out_dir}/: {s['records']} records parsed from {s['dumps']} dumps -> {s['papers']} papers "
        f"({rel['exact_duplicate']} exact duplicates, {rel['near_duplicate']} near duplicates) in {s['seconds']:.2f} s"
    )
    ids = s["id_changes"]
    click.echo(f"ids since the previous release: {ids['added']} current that were not (new, or back with their records), "
               f"{ids['merged']} merged into older papers, {ids['removed']} removed")


@main.command()
@click.argument("path")
@click.option("--crawled-at", default=None, metavar="YYYY-MM-DD", help="Day the page was saved, if known.")
@click.option("--source-url", default=None, metavar="URL", help="Address the dump was saved from.")
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Folder to add the dump to.")
@click.option("--dry-run", is_flag=True, help="Print what the dump would do to the published papers; write nothing.")
def add(path: str, crawled_at: str | None, source_url: str | None, raw_dir: str, dry_run: bool) -> None:
    """Add the dump at PATH to RAW, with its metadata file; nothing else changes.

    Refuses (exit 1, RAW untouched) whatever `validate` calls an error, naming file and line.
    Otherwise prints what the dump will do to the release in the dist/ beside RAW (new papers;
    records that are exact copies of published papers, with their ids; records that become the
    canonical text of published papers, with ids and similarity to the text they replace), writes
    RAW/NNN_<hex>.txt (the next free number; the first 16 hex digits of its SHA-256) and
    RAW/NNN_<hex>.json (sha256, crawl date, source URL, date added) and prints the warnings.
    With --dry-run it prints the same and writes nothing. Commit both files and open a pull request.

    \b
    Example:
        python build_dataset.py add ~/Downloads/neurips2026.txt --crawled-at 2026-11-28 --dry-run
    """
    from .add import AddError, impact, land, plan_add

    try:
        plan = plan_add(path, raw_dir, crawled_at=crawled_at, source_url=source_url)
        effect = impact(plan)
    except AddError as exc:
        for f in exc.findings:
            click.echo(as_invoked(f.text()), err=True)
        _fail(exc)
    except (DumpError, ContractError) as exc:  # raw/ as it stands does not build
        _fail(exc)
    for f in plan.findings:
        click.echo(as_invoked(f.text()), err=True)
    click.echo(effect.text())
    if dry_run:
        click.echo(f"dry run: {Path(raw_dir).as_posix()}/ untouched (would add {plan.meta.file})")
        return
    dump, sidecar = land(plan)
    click.echo(f"added {dump.as_posix()} and {sidecar.as_posix()}")
    click.echo(f"next: git add {dump.as_posix()} {sidecar.as_posix()} && git commit, then open a pull request")


@main.command()
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Folder of dump files.")
@click.option("--dist", "dist_dir", default="dist", show_default=True, help="Committed build to check.")
@click.option("--no-docs", is_flag=True, help="Check DIST only, not the project's DATASHEET.md and README.md.")
def check(raw_dir: str, dist_dir: str, no_docs: bool) -> None:
    """Rebuild RAW into a temporary folder and fail if DIST differs from it.

    When DIST is the dist/ of a checkout of the project, its generated DATASHEET.md and README.md
    are compared too (unless --no-docs); anywhere else (an installed package, another folder)
    only DIST is, and the message says so. Exits 1 and names every stale file;
    `python build_dataset.py build` fixes them.

    \b
    Example:
        python build_dataset.py check
    """
    from .build import check as run_check
    from .docs import docs_skipped

    skipped = "--no-docs: the project's README.md and DATASHEET.md were not compared" if no_docs else docs_skipped(dist_dir)
    try:
        stale = run_check(raw_dir, dist_dir, docs=skipped is None)
    except (DumpError, ContractError) as exc:
        _fail(exc)
    if stale:
        for name in stale:
            click.echo(f"stale: {name}", err=True)
        click.echo(f"generated files are out of date with {raw_dir}/; run: {invoked()} build --raw {raw_dir} --out {dist_dir}",
                   err=True)
        sys.exit(1)
    if skipped:
        click.echo(f"{dist_dir}/ is up to date with {raw_dir}/; {skipped}")
    else:
        click.echo(f"{dist_dir}/, DATASHEET.md and README.md are up to date with {raw_dir}/")


@main.command()
@click.argument("dist_dir", default="dist", required=False)
def verify(dist_dir: str) -> None:
    """Check DIST (default dist/) against its SHA256SUMS, datapackage.json, croissant.json and card.

    Exits 1 and lists every problem: a file changed, missing or unlisted, metadata describing
    other bytes or row counts than the Parquet files hold, or what the standards' own validators
    say: frictionless of the data package and its rows, mlcroissant of the Croissant file (when
    installed: pip install 'neurips-abstracts[croissant]'; otherwise the message says it was not).

    \b
    Example:
        python build_dataset.py verify dist
    """
    from .verify import croissant_validator
    from .verify import verify as run_verify

    problems = run_verify(dist_dir)
    for problem in problems:
        click.echo(f"{dist_dir}/{problem}", err=True)
    if problems:
        click.echo(f"{dist_dir}/ does not verify ({plural(len(problems), 'problem')})", err=True)
        sys.exit(1)
    missing = croissant_validator()
    croissant = f"croissant.json was not validated: {missing}" if missing else "mlcroissant validates croissant.json"
    click.echo(f"{dist_dir}/ verifies: every file matches SHA256SUMS and the metadata; frictionless validates "
               f"datapackage.json and its rows; {croissant}")


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
              help="Also write the files that would be uploaded into this folder, to read or validate; replaced whole, so new, empty or an earlier stage, never a symbolic link (refused, not followed).")
@click.option("--private", is_flag=True, help="Create the repository as private if it does not exist.")
@click.option("--revision", default="main", show_default=True, help="Branch to commit to.")
@click.option("--force-tag", is_flag=True, help="Move an existing version tag that points at other content.")
@click.option("--dist", "dist_dir", default="dist", show_default=True, help="Build to publish.")
@click.option("--raw", "raw_dir", default="raw", show_default=True, help="Dumps the build must match.")
@click.option("--attempts", default=4, show_default=True, help="Tries per Hub call on 5xx, timeouts and connection errors.")
@click.option("--backoff", default=1.0, show_default=True, help="Seconds before the first retry; doubles each time.")
@click.option("--timeout", type=float, default=None,
              help="Seconds to wait on any one network operation before it counts as failed (default: 120).")
def publish(repo_id, dry_run, stage_dir, private, revision, force_tag, dist_dir, raw_dir, attempts, backoff,
            timeout) -> None:
    """Publish DIST to the Hugging Face Hub as one commit tagged v<version>.

    Refuses unless `check` and `verify` pass, the git work tree is clean and a token is set; a
    dry run exits 1 for the same reasons. A publish stopped by a Hub failure says in one line
    what reached the Hub; running it again finishes the release (it tags a commit an earlier run
    made, never committing twice). DIST names the repository in pyproject.toml
    (hub-repo); for another --repo-id the same build is rendered for that repository, and that
    is what is uploaded. The token comes from HF_TOKEN or `hf auth login`; HF_ENDPOINT selects
    another Hub.

    \b
    Example:
        python build_dataset.py publish --repo-id alice/abstracts --dry-run --stage /tmp/staged
        HF_TOKEN=hf_... python build_dataset.py publish --repo-id alice/abstracts
    """
    from huggingface_hub import get_token

    from .guard import temporary_folder

    from .publish import PublishConfig, PublishError, make_plan, preconditions, render_plan, stage_problem, stage_release
    from .publish import publish as run_publish
    from .docs import docs_skipped
    from .verify import verify as run_verify

    dist, raw = Path(dist_dir), Path(raw_dir)
    if not (dist / "build_manifest.json").is_file():
        _fail(DumpError(dist_dir, f"no build here: run `{invoked()} build` first"))
    is_project = docs_skipped(dist) is None
    if stage_dir and (problem := stage_problem(Path(stage_dir), dist, raw)):
        _fail(DumpError(stage_dir, problem))
    with temporary_folder() as tmp:
        staged = Path(stage_dir) if stage_dir else tmp / "release"
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
                click.echo(as_invoked(f"would refuse: {failure}"), err=True)
            sys.exit(1 if failures else 0)
        if failures:
            for failure in failures:
                click.echo(as_invoked(f"refused: {failure}"), err=True)
            sys.exit(1)
        try:
            result = run_publish(
                staged, repo_id, revision=revision, private=private, force_tag=force_tag,
                config=PublishConfig(attempts=attempts, backoff_seconds=backoff,
                                     **({} if timeout is None else {"timeout_seconds": timeout})),
                log=click.echo,
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

    The build's own rules, with its messages, and the same content rules as `add`. Errors
    (exit 1): not UTF-8, wrong or missing header, a file in RAW named other than NNN_<16 hex>.txt
    (the name rule is RAW's alone: `add` names the files it copies in), over the size limit, binary content, a record with
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
        python build_dataset.py validate ~/Downloads/neurips2026.txt
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
            click.echo(as_invoked(f.github() if fmt == "github" else f.text()))
        errors = sum(f.severity == "error" for f in findings)
        click.echo(f"{plural(errors, 'error')}, {plural(len(findings) - errors, 'warning')}", err=True)
    if any(f.severity == "error" for f in findings):
        sys.exit(1)


@main.command()
@click.argument("old")
@click.argument("new", default="dist", required=False)
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@click.option("--write-changelog", is_flag=True, help="Also add NEW's version entry to CHANGELOG.md.")
def diff(old, new, fmt, write_changelog) -> None:
    """Show what changed from OLD to NEW: papers added, removed and revised, new duplicates, counts.

    Each side is a dist/ folder, a released version or a git revision of this repository (its
    committed dist/). A version (1.0.0 or v1.0.0) needs no tag: it is the first commit in git
    history whose dist/build_manifest.json holds it with a dated CHANGELOG entry for it (the
    release commit; for a release from before dated entries, the first commit holding it).
    Markdown is ready for a pull-request comment.

    \b
    Example:
        python build_dataset.py diff origin/main dist
        python build_dataset.py diff 1.0.0 dist --write-changelog
    """
    import json

    from .diff import compare, load_side, to_markdown
    from .diff import write_changelog as add_entry
    from .resources import checkout

    try:
        d = compare(load_side(old), load_side(new))
        if write_changelog:
            if checkout() is None:  # an installed package: its CHANGELOG is a copy inside the wheel
                raise DumpError("CHANGELOG.md", "--write-changelog edits the project's CHANGELOG.md: run it from a checkout")
            add_entry(d, checkout() / "CHANGELOG.md")
    except ValueError as exc:
        _fail(exc)
    click.echo(json.dumps(d, indent=2, ensure_ascii=False) if fmt == "json" else to_markdown(d))
