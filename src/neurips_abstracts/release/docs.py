"""The project's own generated docs: DATASHEET.md and the generated blocks of README.md and
CONTRIBUTING.md that a build makes.

They are made from a build (dist/), never typed by hand. ``python build_dataset.py build``
refreshes them; ``check`` fails when any of them is stale. (README.md's benchmark headlines and
benchmarks/README.md are the benchmarks' own: ``python -m benchmarks.docs`` makes them.)
"""

from __future__ import annotations

import json
from pathlib import Path

from ..core.blocks import differing as _differing, filled, write_changed
from ..core.names import MANIFEST
from ..core.resources import CHECKOUT_ROOT, checkout, hub_repo
from ..core.versions import release_tag
from ..core.words import plural
from .contents import CHANGELOG, DATASHEET, latest_release, released_versions

CONTRIBUTING = "CONTRIBUTING.md"


def stats_block(manifest: dict) -> str:
    s = manifest["statistics"]
    rel = s["relations"]
    exact, near = rel["exact_duplicate"], rel["near_duplicate"]
    duplicates = "duplicate" if exact + near == 1 else "duplicates"  # one noun for both counts
    return (
        f"The build of `raw/` (version {manifest['dataset_version']}) holds **{plural(s['papers'], 'paper')}** "
        f"from {plural(s['records'], 'raw record')} in {plural(s['dumps'], 'dump')}: {exact} exact and "
        f"{near} near {duplicates}. Median abstract length: {s['word_count']['median']} "
        f"words. Build fingerprint `{manifest['fingerprint'][:16]}`.\n"
    )


# Marks a block of the docs that tests/test_docs_run.py does not run, with the reason.
NEEDS_HUB = "<!-- skip: needs the Hub -->"


def pinned_load_block(manifest: dict, repo_id: str | None = None, changelog: str = "") -> str:
    """How to load a released version from the configured Hub repository (hub-repo): the
    newest one ``changelog`` dates, since the committed build's may not be released yet (its
    version is the next release's)."""
    repo_id = repo_id or hub_repo()
    newest, version = latest_release(changelog), manifest["dataset_version"]
    tag = release_tag(newest or version)
    hf = f"hf://datasets/{repo_id}@{tag}/data"
    if newest == version:
        said = f"Version {version}, the newest release in CHANGELOG.md, is the build in `dist/` (tag `{tag}`, made by `publish`)."
    else:
        said = ((f"Version {newest} is the newest release in CHANGELOG.md; " if newest else "Nothing is released yet; ")
                + f"the build in `dist/` is version {version}, to be tagged `v{version}` by `publish` when it is released.")
    return f"""{said}

{NEEDS_HUB}
```python
from datasets import load_dataset
papers = load_dataset("{repo_id}", revision="{tag}", split="train")
occurrences = load_dataset("{repo_id}", "occurrences", revision="{tag}", split="train")
```

{NEEDS_HUB}
```python
import pandas as pd
papers = pd.read_parquet("{hf}/papers")  # the table's folder: every shard of it
```

```sql
-- DuckDB
SELECT count(*) FROM '{hf}/occurrences/*.parquet';
```
"""


def release_steps_block(manifest: dict, changelog: str) -> str:
    """CONTRIBUTING's release commands for the build's version: ``diff`` against the newest
    release CHANGELOG.md dates before it (the previous release), then the build that copies the
    new entry into dist/, then the commit."""
    version = manifest["dataset_version"]
    previous = next((v for v in released_versions(changelog) if v != version), None)
    diff = (f"python build_dataset.py diff {previous} dist --write-changelog" if previous
            else "# the first release: CHANGELOG.md gets its entry by hand")
    return f"""```bash
{diff}
python build_dataset.py build
git add CHANGELOG.md dist DATASHEET.md README.md {CONTRIBUTING} && git commit -m "Release {version}"
```
"""


def expected_docs(dist: Path, root: Path = CHECKOUT_ROOT) -> dict[Path, str | None]:
    """What ``root``'s DATASHEET.md, README.md and CONTRIBUTING.md should say for the build in
    ``dist`` (None: a README that is missing)."""
    manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    changelog = (dist / CHANGELOG).read_text(encoding="utf-8")
    blocks = {root / "README.md": {"stats": stats_block(manifest),
                                   "pinned-load": pinned_load_block(manifest, changelog=changelog)},
              root / CONTRIBUTING: {"release-steps": release_steps_block(manifest, changelog)}}
    return {root / DATASHEET: (dist / DATASHEET).read_text(encoding="utf-8"), **filled(blocks)}


# The project's generated docs, as messages name them.
GENERATED_DOCS = "README.md, CONTRIBUTING.md and DATASHEET.md"


def refresh(dist: Path, root: Path = CHECKOUT_ROOT) -> list[Path]:
    """Rewrite the generated docs from ``dist``; return the files that changed."""
    return write_changed(expected_docs(dist, root))


def docs_skipped(dist: str | Path) -> str | None:
    """Why the project's generated docs go with no build of ``dist`` (None: they go with it).
    The generated docs are the checkout's, made from its own dist/ alone: `build` refreshes them
    and `check` compares them only for that folder."""
    root = checkout()
    if root is None:
        return f"no checkout of the project here (an installed package), so the project's {GENERATED_DOCS} were not compared"
    try:
        resolved = Path(dist).resolve()
    except (OSError, RuntimeError):  # a symbolic link loop: not the checkout's dist/ (the build refuses it)
        resolved = None
    if resolved != root / "dist":
        return f"{Path(dist).as_posix()}/ is not the dist/ of the checkout at {root}, so its {GENERATED_DOCS} were not compared"
    return None


def differing(dist: Path, root: Path = CHECKOUT_ROOT) -> dict[Path, str | None]:
    """The generated docs of ``root`` that differ from what ``dist`` makes, with the text they
    should have (None: a README that is missing, which no build can make)."""
    return _differing(expected_docs(dist, root))


def stale(dist: Path, root: Path = CHECKOUT_ROOT) -> list[str]:
    """The generated docs of ``root`` that differ from what ``dist`` makes (a missing one
    included), as paths relative to ``root``."""
    return [path.relative_to(root).as_posix() for path in differing(dist, root)]


def missing_by_hand(names: list[str], root: Path = CHECKOUT_ROOT) -> list[str]:
    """Those of ``names`` (as ``stale`` gives them) that are missing READMEs: only their blocks
    are generated, the rest is written by hand, so no build can make them again."""
    return [n for n in names if n in ("README.md", CONTRIBUTING) and not (root / n).is_file()]
