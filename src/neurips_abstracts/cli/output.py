"""What the commands print besides their results: help with the command written as the user
invoked it, counts, the build's progress bar, and the one line of a failure."""

from __future__ import annotations

import contextlib
import inspect
import sys

import click

from .errors import DOC_PROG, as_invoked, one_line


def invoked(ctx: click.Context | None = None) -> str:
    """The command as the user typed it: `python build_dataset.py`, `neurips-abstracts` or
    `python -m neurips_abstracts` (each entry point passes its name as ``prog_name``)."""
    ctx = ctx or click.get_current_context(silent=True)
    return (ctx.find_root().info_name if ctx else None) or DOC_PROG


class AsInvokedCommand(click.Command):
    """A command whose help shows its examples with the command the user invoked."""

    def format_help_text(self, ctx, formatter):
        help_text(self, ctx, formatter)


def help_text(cmd: click.Command, ctx: click.Context, formatter) -> None:
    text = inspect.cleandoc(cmd.help or "").partition("\f")[0].replace(DOC_PROG, invoked(ctx))
    if text:
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(text)


@contextlib.contextmanager
def stage_progress():
    """A progress bar over the build's stages on a terminal; nothing when output is redirected."""
    if not sys.stderr.isatty():  # no bar to draw: tqdm is not even imported
        yield lambda name: contextlib.nullcontext()
        return
    from tqdm import tqdm

    from ..core.stages import STAGES

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


def fail(exc: Exception) -> None:
    click.echo(as_invoked(one_line(exc)), err=True)
    sys.exit(1)
