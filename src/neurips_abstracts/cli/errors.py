"""What a user sees when a command fails: one line naming the path, never a traceback.

Expected failures (bad input, a refused folder, a file the system will not read) are shown as
they are; anything else is a bug, said so in one line with the way to see its traceback.
"""

from __future__ import annotations

import os
import sys

import click

from ..core.errors import ProjectError

DEBUG_FLAG = "--debug"
DEBUG_ENV = "NEURIPS_ABSTRACTS_DEBUG"
DEBUG_HELP = f"Show the traceback of an internal error (or set {DEBUG_ENV}=1)."
# How help texts and messages write the command; shown to the user as they invoked it (see
# ``as_invoked``): `python build_dataset.py`, `neurips-abstracts` or `python -m neurips_abstracts`.
DOC_PROG = "python build_dataset.py"
_invoked = [DOC_PROG]  # set once per process by ReportsErrors.main, from the entry point used


def as_invoked(text: str) -> str:
    """``text`` with the command written the way the user invoked it."""
    return text.replace(DOC_PROG, _invoked[0])


def one_line(exc: BaseException) -> str:
    """The line shown for ``exc``."""
    if isinstance(exc, ProjectError):
        text = str(exc)
    elif isinstance(exc, OSError):
        where = ": ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
        text = f"{where}: error: {exc.strerror or exc}" if where else f"error: {exc.strerror or exc}"
    else:
        first = (str(exc).strip().splitlines() or [""])[0]
        text = (f"internal error (a bug; please report it): {type(exc).__name__}: {first} -- run again with "
                f"{DEBUG_FLAG} or {DEBUG_ENV}=1 to see the traceback")
    return " ".join(text.split("\n"))


def tolerant_streams() -> None:
    """A character the console cannot encode (a cp1252 or ASCII console, the header's 论文列表)
    is written as a backslash escape, so a finding is never lost to a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and getattr(stream, "errors", None) == "strict":
            stream.reconfigure(errors="backslashreplace")


class ReportsErrors(click.Group):
    """A group whose commands never show a traceback, unless asked to with ``--debug`` (anywhere
    before ``--``) or NEURIPS_ABSTRACTS_DEBUG=1."""

    def invoke(self, ctx):
        # Ctrl-C before a command's commit: its one line says what it left (click would say
        # "Aborted!", which tells nothing of the folder), and it exits 1.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            from ..core import interrupts

            click.echo(interrupts.stopped_note(), err=True)
            sys.exit(1)

    def main(self, args=None, **kwargs):
        as_process = args is None
        args = list(sys.argv[1:] if args is None else args)
        end = args.index("--") if "--" in args else len(args)
        debug = DEBUG_FLAG in args[:end] or os.environ.get(DEBUG_ENV, "") not in ("", "0")
        args = [a for i, a in enumerate(args) if not (i < end and a == DEBUG_FLAG)]
        _invoked[0] = kwargs.get("prog_name") or os.path.basename(sys.argv[0]) or DOC_PROG
        tolerant_streams()
        from ..core import interrupts
        from . import process

        if as_process:
            process.starting()

        # Ctrl-C or SIGTERM: all old and exit 1, or all new and exit 0. A command run as a process
        # (no ``args``: from sys.argv) ignores signals after its commit until it exits; one
        # called in a process of the caller's (click's test runner) gives the handlers back.
        try:
            with interrupts.handled(keep_after_commit=as_process):
                try:
                    return super().main(args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - the one place every failure becomes a line
                    if debug:
                        raise
                    click.echo(as_invoked(one_line(exc)), err=True)
                    sys.exit(1)
                finally:
                    if (note := interrupts.finish_note()) is not None:
                        click.echo(note, err=True)
        except SystemExit as exc:
            if as_process and exc.code in (None, 0):
                process.finished()
            raise
        finally:
            from ..core.guard import kill_point

            kill_point("exiting")  # crash tests: a signal as the command's process exits
