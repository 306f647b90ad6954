"""Build the dataset: `python build_dataset.py --help` lists the commands."""

import sys

try:  # Ctrl-C while the imports run: the command had not started; one line, no traceback
    from pathlib import Path

    # Let the build run from a checkout even where the package was not installed.
    sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
    from neurips_abstracts.cli import main
except KeyboardInterrupt:
    sys.stderr.write("interrupted: nothing was changed\n")  # the line and status of a command stopped before it wrote
    sys.exit(1)

if __name__ == "__main__":
    main(prog_name="python build_dataset.py")
