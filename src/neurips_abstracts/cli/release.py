"""The commands that make and read a release: build, check, verify and diff."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.errors import ContractError, DumpError
from ..core.gc_pause import gc_paused
from ..core.words import plural
from .output import AsInvokedCommand, fail, invoked, stage_progress


@click.command(cls=AsInvokedCommand, short_help="Build OUT (dist/) from the dumps in RAW (raw/).")
@click.option("--raw", "raw_dir", default="raw", metavar="RAW", show_default=True, help="Folder of dump files to build from.")
@click.option("--out", "out_dir", default="dist", metavar="OUT", show_default=True, help="Folder to write, replaced whole: new, empty or a release; never raw/, the checkout or a symbolic link (refused, not followed).")
@click.option("--previous", "previous_dir", default=None, metavar="RELEASE",
              help="The release whose paper ids are kept: a folder, a released version (1.1.0) or a git revision "
                   "(read from git history; outside a clone, a version is a release folder at hand, the package's own "
                   "checkout or the Hub's tag), or hub:v1.1.0, the release tagged on the Hub (hub-repo; HF_ENDPOINT "
                   "selects another Hub)  [default: the release OUT holds, else the dist/ folder beside RAW; never one older than "
                   "the newest published release (read from git instead); refused if missing where the project has "
                   "published before].")
@click.option("--first-release", is_flag=True, help="Keep no earlier ids: every paper gets a new id (to start the id history over on purpose).")
# Paused for the whole command, the build's imports included: they make hundreds of thousands of
# objects and no garbage, yet set off some two hundred collections, a tenth of a seeds build's CPU.
@gc_paused()
def build(raw_dir: str, out_dir: str, previous_dir: str | None, first_release: bool) -> None:
    """Build OUT from the dumps in RAW; OUT is untouched if anything fails.

    Every paper id of the previous release is kept (as a paper, merged into one, or removed);
    see the card's "Stable ids".

    \b
    Example:
        python build_dataset.py build --raw raw --out dist
    """
    from ..build import build as run_build
    from ..core.guard import kill_point
    from ..core.interrupts import writes
    from ..core.resources import CHECKOUT_ROOT
    from ..core.schema import hidden
    from ..ingest.previous import BESIDE_RAW
    from ..release.docs import docs_skipped

    if first_release and previous_dir is not None:
        raise click.UsageError("--first-release keeps no earlier ids, --previous names the release whose ids are kept: give one")
    writes(out_dir)  # a Ctrl-C from the start says what it left: OUT unchanged (one wording, early or late)
    kill_point("started")
    try:
        # pyarrow imports pandas the first time it makes an array, to ask whether its input is a
        # pandas object; nothing in a build is, and that import was a third of a small build's
        # start-up. pyarrow then goes on without pandas for the rest of this process.
        with stage_progress() as stage, hidden(("pandas",)):
            previous = None if first_release else (previous_dir or BESIDE_RAW)
            docs = CHECKOUT_ROOT if docs_skipped(out_dir) is None else None  # refreshed once dist/ is swapped in
            s = run_build(raw_dir, out_dir, stage=stage, previous=previous, docs=docs)
    except (DumpError, ContractError) as exc:
        fail(exc)
    for path in s["refreshed"]:
        click.echo(f"refreshed {path.relative_to(CHECKOUT_ROOT).as_posix()}")
    rel = s["relations"]
    click.echo(
        f"built {out_dir.rstrip('/') or out_dir}/: {plural(s['records'], 'record')} parsed from {plural(s['dumps'], 'dump')} -> "
        f"{plural(s['papers'], 'paper')} ({plural(rel['exact_duplicate'], 'exact duplicate')}, "
        f"{plural(rel['near_duplicate'], 'near duplicate')}) in {s['seconds']:.2f} s"
    )
    ids = s["id_changes"]
    since = (f"of {ids['rebuilt']}, a published version rebuilt as released ({ids['since']} is the newest published)"
             if ids["rebuilt"] else
             f"since {ids['since']}, the newest published release" if ids["since"] else
             f"since {ids['anchor']}, the release this build keeps (none is known as published here)" if ids["anchor"]
             else "in this first release (none is published yet)")
    click.echo(f"ids {since}: {ids['added']} new, {ids['merged']} merged into older papers, {ids['removed']} removed")
    if first_release and ids["since"]:  # the restart is on purpose; what it leads to is said where it is made
        from ..core.clones import checkout_command
        from ..record.checks import way_back

        back = way_back(ids["since"], out_dir, raw_dir, invoked())
        restore = checkout_command(out_dir)
        click.echo(f"note: --first-release kept no id of {ids['since']}, the newest published release: `check`, "
                   f"`publish` and the next `build` refuse a release that drops or re-dates one of its ids; to go back, "
                   + (f"restore {out_dir}/ (`{restore}`), or {back}" if restore else back))


@click.command(cls=AsInvokedCommand, short_help="Fail if DIST (dist/) is not a fresh build of RAW (raw/).")
@click.option("--raw", "raw_dir", default="raw", metavar="RAW", show_default=True, help="Folder of dump files.")
@click.option("--dist", "dist_dir", default="dist", metavar="DIST", show_default=True, help="Committed build to check.")
@click.option("--no-docs", is_flag=True, help="Check DIST only, not the project's README.md, CONTRIBUTING.md and DATASHEET.md.")
def check(raw_dir: str, dist_dir: str, no_docs: bool) -> None:
    """Rebuild RAW into a temporary folder and fail if DIST differs from it.

    When DIST is the dist/ of a checkout of the project, its generated DATASHEET.md and the parts of README.md and
    CONTRIBUTING.md a build makes are compared too (unless --no-docs); anywhere else (an installed package, another folder)
    only DIST is, and the message says so. Exits 1 and names every stale file;
    `python build_dataset.py build` fixes them.

    \b
    Example:
        python build_dataset.py check
    """
    from ..build import check as run_check
    from ..release.docs import GENERATED_DOCS, docs_skipped, missing_by_hand

    skipped = f"--no-docs: the project's {GENERATED_DOCS} were not compared" if no_docs else docs_skipped(dist_dir)
    try:
        stale = run_check(raw_dir, dist_dir, docs=skipped is None)
    except (DumpError, ContractError) as exc:
        fail(exc)
    if stale:
        from ..core.clones import checkout_command
        from ..core.names import PACKAGE_ADVICE, is_built_package
        from ..core.resources import CHECKOUT_ROOT

        missing = missing_by_hand(stale)
        packages = [name for name in stale if is_built_package(name)]

        def how(name: str) -> str:  # git advice only where git tracks the file
            return checkout_command(CHECKOUT_ROOT / name) or f"from the project's sources: {name} is in no git clone here"

        for name in stale:
            click.echo(f"missing: {name}: restore it ({how(name)})" if name in missing else
                       f"{name}: {PACKAGE_ADVICE}" if name in packages else f"stale: {name}",
                       err=True)
        if set(missing) | set(packages) == set(stale):
            sys.exit(1)
        click.echo(f"generated files are out of date with {raw_dir}/; run: {invoked()} build --raw {raw_dir} --out {dist_dir}",
                   err=True)
        sys.exit(1)
    if skipped:
        click.echo(f"{dist_dir}/ is up to date with {raw_dir}/; {skipped}")
    else:
        click.echo(f"{dist_dir}/ and {GENERATED_DOCS} are up to date with {raw_dir}/")


def _hub_version(value: str | None) -> str | None:
    from ..record.published import hub_tag

    if value in (None, "newest"):
        return value
    try:
        return hub_tag(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a version (1.1.0, v1.1.0 or hub:v1.1.0); give DIST before --hub, "
                                 "as in: verify dist --hub") from None


@click.command(cls=AsInvokedCommand, short_help="Check DIST (dist/): checksums, data package, Croissant, card.")
@click.argument("dist_dir", default="dist", required=False)
@click.option("--hub", "hub_version", is_flag=False, flag_value="newest", default=None, metavar="[VERSION]",
              callback=lambda ctx, param, value: _hub_version(value),
              help="Also check DIST against the release tag VERSION (1.1.0, v1.1.0 or hub:v1.1.0; default: the "
                   "newest) of the Hub repository and against the project's published record, as publish does before "
                   "its commit.")
@click.option("--repo-id", default=None, metavar="OWNER/NAME", help="The Hub repository for --hub, OWNER/NAME (default: hub-repo in pyproject.toml).")
@click.option("--raw", "raw_dir", default=None, metavar="RAW",
              help="For --hub with another --repo-id than hub-repo: the dumps DIST was built from, to render the "
                   "release for that repository as publish does  [default: the raw/ beside DIST].")
def verify(dist_dir: str, hub_version: str | None, repo_id: str | None, raw_dir: str | None) -> None:
    """Check DIST (default dist/) against its SHA256SUMS, datapackage.json, croissant.json and card.

    Exits 1 and lists every problem: a file changed, missing or unlisted, metadata describing
    other bytes or row counts than the Parquet files hold, or what the standards' own validators
    say: frictionless of the data package and its rows, mlcroissant of the Croissant file (when
    installed: pip install 'neurips-abstracts[croissant]'; otherwise the message says it was not).
    With --hub, also what publish would refuse on the Hub: an id published in the tagged release
    missing from DIST or with another history, a tag moved, commits after the newest tag that
    publish did not make, a newer release published (a Hub tag, or a git tag or dated CHANGELOG
    entry of the project's record), DIST's own version tagged on other files than publish would
    send (for another --repo-id, DIST rendered for it from RAW, as publish renders it).
    HF_ENDPOINT selects another Hub.

    \b
    Example:
        python build_dataset.py verify dist
        python build_dataset.py verify dist --hub        # against the Hub's newest release tag
    """
    from ..record.verify import croissant_validator, verify as run_verify

    problems = run_verify(dist_dir)
    if hub_version is not None and not problems:
        from ..core.errors import ProjectError
        from ..core.guard import temporary_folder
        from ..core.resources import hub_repo
        from ..hub.staging import what_publish_sends
        from ..record.published import check_against_hub

        dist, repo = Path(dist_dir), repo_id or hub_repo()
        try:
            with temporary_folder() as tmp:
                upload = what_publish_sends(Path(raw_dir) if raw_dir else dist.parent / "raw", dist, repo, tmp / "release")
                record, found = check_against_hub(dist, repo, None if hub_version == "newest" else hub_version,
                                                  upload=upload)
        except ProjectError as exc:  # the Hub unread, or the release not rendered for the repository
            fail(exc)
        for line in found:
            click.echo(f"hub: {line}", err=True)
        if found:
            click.echo(f"{dist_dir}/ would be refused by publish to {record.repo_id} ({plural(len(found), 'problem')})", err=True)
            sys.exit(1)
        own = (f"{record.release} holds these very files" if record.release_commit is not None else
               f"{record.release} is not on the Hub yet")
        click.echo(f"hub: {record.repo_id} holds no release tag yet" if record.tag is None else
                   f"hub: {dist_dir}/ keeps every id {record.tag} of {record.repo_id} published, with its history; "
                   f"the tag is where publish put it, no commit after it is one publish did not make, {own}, and no "
                   f"newer release is published")
    for problem in problems:
        click.echo(f"{dist_dir}/{problem}", err=True)
    if problems:
        click.echo(f"{dist_dir}/ does not verify ({plural(len(problems), 'problem')})", err=True)
        sys.exit(1)
    missing = croissant_validator()
    croissant = f"croissant.json was not validated: {missing}" if missing else "mlcroissant validates croissant.json"
    click.echo(f"{dist_dir}/ verifies: every file matches SHA256SUMS and the metadata; frictionless validates "
               f"datapackage.json and its rows; {croissant}; huggingface_hub reads the card, whose row counts match")


@click.command(cls=AsInvokedCommand, short_help="Show what changed from OLD to NEW (default dist/).")
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
    Outside a git clone (an unpacked sdist) a version is, as for build, the release folder at
    hand of that version (./dist, else the dist/ beside a side given as a folder, never that
    side itself), else the package's own checkout's, else the Hub's tag. Each side is
    checked as a build checks the release it keeps (SHA256SUMS, the manifest's counts and ids):
    a damaged one is refused, naming the file. Markdown is ready for a pull-request comment.

    \b
    Example:
        python build_dataset.py diff origin/main dist
        python build_dataset.py diff 1.0.0 dist --write-changelog
    """
    import json

    from ..core.resources import checkout
    from ..record.diff import compare, load_side, local_releases, to_markdown, write_changelog as add_entry
    from ..release.contents import CHANGELOG

    try:
        d = compare(load_side(old, local=local_releases(new)), load_side(new, local=local_releases(old)))
        if write_changelog:
            if (root := checkout()) is None:  # an installed package: its CHANGELOG is a copy inside the wheel
                raise DumpError(CHANGELOG, f"--write-changelog edits the project's {CHANGELOG}: run it from a checkout")
            add_entry(d, root / CHANGELOG)
    except ValueError as exc:
        fail(exc)
    click.echo(json.dumps(d, indent=2, ensure_ascii=False) if fmt == "json" else to_markdown(d))
