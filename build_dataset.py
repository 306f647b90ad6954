"""Build the dataset: `python build_dataset.py --help` lists the commands."""

import sys
from pathlib import Path

# Let the build run from a checkout even where the package was not installed.
sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

try:  # Ctrl-C while the imports run: the command had not started; no traceback
    from neurips_abstracts.cli import main  # noqa: E402
except KeyboardInterrupt:
    sys.exit(130)

if __name__ == "__main__":
    main(prog_name="python build_dataset.py")
