"""The publish command: a release to the Hugging Face Hub."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.errors import ContractError, DumpError
from .errors import as_invoked
from .output import AsInvokedCommand, fail, invoked


def _repo_id(ctx, param, value: str | None) -> str:
    from ..core.resources import hub_repo
    from ..hub.plan import repo_id_problem

    value = value or hub_repo()
    problem = repo_id_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


@click.command(cls=AsInvokedCommand, short_help="Publish DIST to the Hub as one commit, tagged with its version.")
@click.option("--repo-id", callback=_repo_id, metavar="OWNER/NAME",
              help="Dataset repository on the Hub, OWNER/NAME (default: hub-repo in pyproject.toml).")
@click.option("--dry-run", is_flag=True, help="Print the plan and the reasons to refuse; contact nothing.")
@click.option("--stage", "stage_dir", default=None, metavar="DIR",
              help="Also write the files that would be uploaded into this folder, to read or validate; replaced whole, so new, empty or an earlier stage, never a symbolic link (refused, not followed).")
@click.option("--private", is_flag=True, help="Create the repository as private if it does not exist.")
@click.option("--revision", default="main", metavar="BRANCH", show_default=True, help="Branch to commit to.")
@click.option("--force-tag", is_flag=True, help="Move an existing version tag that points at other content.")
@click.option("--discard-hub-edits", is_flag=True,
              help="Publish over commits made on the Hub's branch since its last release tag (edits in the browser, say), replacing what they changed; refused without it.")
@click.option("--dist", "dist_dir", default="dist", metavar="DIST", show_default=True, help="Build to publish.")
@click.option("--raw", "raw_dir", default="raw", metavar="RAW", show_default=True, help="Dumps the build must match.")
@click.option("--attempts", default=4, show_default=True,
              help="Tries per Hub call on 5xx, 429, timeouts, connection errors and Xet storage failures; a 429 or 503 from the Hub waits its Retry-After, one from the Xet storage --backoff (hf_xet does not report Retry-After).")
@click.option("--backoff", default=1.0, show_default=True, help="Seconds before the first retry; doubles each time.")
@click.option("--timeout", type=float, default=None,
              help="Seconds to wait on any one network operation before it counts as failed, and the longest Retry-After of the Hub waited for  [default: 120].")
def publish(repo_id, dry_run, stage_dir, private, revision, force_tag, discard_hub_edits, dist_dir, raw_dir, attempts,
            backoff, timeout) -> None:
    """Publish DIST to the Hugging Face Hub as one commit tagged v<version>.

    Refuses unless `check` and `verify` pass, DIST's CHANGELOG.md dates its version (the release
    step `diff --write-changelog`), no newer release is published, the git work tree is clean
    and a token is set; a dry run exits 1 for the same reasons. Before its commit it reads the Hub's last release tag
    and refuses if an id published there is missing from DIST or lost its history, if the tag
    was moved, if the branch holds commits made since the tag by anything but publish, or if
    DIST's version is tagged on other content (unless --force-tag) (see `verify --hub`). A publish stopped by a Hub failure says in one line
    what the Hub holds; running it again finishes the release (it tags a commit an earlier run
    made, never committing twice). DIST names the repository in pyproject.toml
    (hub-repo); for another --repo-id the same build is rendered for that repository, and that
    is what is uploaded. The token comes from HF_TOKEN or `hf auth login`; HF_ENDPOINT selects
    another Hub.

    \b
    Example:
        python build_dataset.py publish --repo-id alice/abstracts --dry-run --stage /tmp/staged
        HF_TOKEN=hf_... python build_dataset.py publish --repo-id alice/abstracts
    """
    from ..core import interrupts
    from ..hub.plan import make_plan, render_plan
    from ..hub.protocol import PublishConfig, PublishError, PublishInterrupted, publish as run_publish
    from ..hub.staging import staged

    try:
        with staged(Path(dist_dir), Path(raw_dir), repo_id, Path(stage_dir) if stage_dir else None,
                    f"{invoked()} build") as release:
            if dry_run:
                click.echo(render_plan(make_plan(release.path, repo_id, revision, None), remote_known=False))
                if stage_dir:
                    click.echo(f"staged in {stage_dir}/: exactly the files listed above")
            said = [f"{'would refuse' if dry_run else 'refused'}: {f}" for f in release.failures]
            for line in said:
                click.echo(as_invoked(line), err=True)
            if dry_run or release.failures:
                sys.exit(1 if release.failures else 0)
            try:
                result = run_publish(
                    release.path, repo_id, revision=revision, private=private, force_tag=force_tag,
                    discard_hub_edits=discard_hub_edits,
                    config=PublishConfig(attempts=attempts, backoff_seconds=backoff,
                                         **({} if timeout is None else {"timeout_seconds": timeout})),
                    log=click.echo, record=release.record,
                )
            except PublishInterrupted as exc:  # its one line: what the Hub holds
                click.echo(str(exc), err=True)
                sys.exit(1)
            except PublishError as exc:
                click.echo(f"publish failed: {exc}", err=True)
                sys.exit(1)
            # Tagged: the release is complete on the Hub, and a signal from here on cannot undo it.
            interrupts.made_elsewhere(f"the Hub holds the release complete: {result['tag_url']}")
    except (DumpError, ContractError) as exc:
        fail(exc)
    click.echo(f"commit: {result['commit_url']}")
    click.echo(f"tag:    {result['tag_url']}")
    click.echo(f"load:   from datasets import load_dataset; {result['load']}")
