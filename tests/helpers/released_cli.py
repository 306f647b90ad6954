"""The CLI in a new process, as build_dataset.py runs it, with the package's CHANGELOG.md read
from the file $NEURIPS_ABSTRACTS_TEST_CHANGELOG where it is set: the package at a release commit,
whose entry for its version is dated (``tests.helpers.hub.package_changelog``). The tests of publish run a
release's process through it; nothing else in the package differs."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from neurips_abstracts.cli import main  # noqa: E402
from neurips_abstracts.core import resources  # noqa: E402
from neurips_abstracts.release.contents import CHANGELOG  # noqa: E402

_real = resources.resource
if _path := os.environ.get("NEURIPS_ABSTRACTS_TEST_CHANGELOG"):  # unset: the package's own, as build_dataset.py reads it
    _dated = Path(_path)
    resources.resource = lambda rel: _dated if rel == CHANGELOG else _real(rel)  # type: ignore[assignment]

if __name__ == "__main__":
    main(prog_name="python build_dataset.py")
