"""Command line: a thin layer over the library. Each command's docstring is its --help.

The group is here; its commands are in ``release`` (build, check, verify, diff),
``dumps`` (add, validate) and ``publish`` (publish)."""

from __future__ import annotations

import difflib

import click

from .dumps import add, validate
from .errors import DEBUG_HELP, ReportsErrors
from .output import AsInvokedCommand, help_text, invoked
from .publish import publish
from .release import build, check, diff, verify


class DefaultBuildGroup(ReportsErrors):
    """Runs ``build`` when no command is named (nothing, or build's options), so
    ``python build_dataset.py`` builds; any other word must be a command."""

    command_class = AsInvokedCommand

    def format_help_text(self, ctx, formatter):
        help_text(self, ctx, formatter)

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
    from ..core.resources import dataset_version

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


for command in (add, build, check, diff, publish, validate, verify):
    main.add_command(command)
