"""Build the dataset: `python build_dataset.py --help` lists the commands."""

import sys
from pathlib import Path

# Let the build run from a checkout even where the package was not installed.
sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

from neurips_abstracts.cli import main  # noqa: E402

if __name__ == "__main__":
    main(prog_name="python build_dataset.py")
