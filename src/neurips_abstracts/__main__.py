"""`python -m neurips_abstracts COMMAND`: the same commands as `neurips-abstracts`."""

import sys

try:  # Ctrl-C while the imports run: the command had not started; one line, no traceback
    from .cli import main
except KeyboardInterrupt:
    sys.stderr.write("interrupted: nothing was changed\n")  # as build_dataset.py: a command stopped before it wrote
    sys.exit(1)


def run() -> None:
    """The `neurips-abstracts` command (pyproject's [project.scripts]): the wrapper pip writes
    imports this module, whose import above handles Ctrl-C while the package loads."""
    main()


if __name__ == "__main__":
    main(prog_name="python -m neurips_abstracts")
