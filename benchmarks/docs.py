"""The benchmarks' own docs: the generated blocks of benchmarks/README.md (the full tables) and
README.md's benchmark headlines (one line per benchmark), made from benchmarks/results/*.json alone.

Every benchmark rewrites them when it writes its results file (``harness.write_results``); the
command rewrites them from the committed results, or with ``--check`` names the stale files
(``tests/test_benchmarks.py`` keeps the committed ones fresh). The dataset's build neither
makes nor checks them.

Example:
    python -m benchmarks.docs            # rewrite the blocks from benchmarks/results/
    python -m benchmarks.docs --check    # exit 1 naming each stale file
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from neurips_abstracts.core.blocks import differing, filled, write_changed

from .release_cost_tables import release_cost_block, release_cost_headline
from .scale_tables import scale_block, scale_headline
from .tables import (
    linearity_block,
    linearity_headline,
    near_dup_block,
    near_dup_headline,
    plain_fidelity_block,
    plain_fidelity_headline,
    startup_block,
    startup_headline,
)

COMMAND = "python -m benchmarks.docs"  # the command that fixes a stale block, as messages name it
BENCHMARKS_README = "benchmarks/README.md"

# In README.md's order: results file, block of benchmarks/README.md, its section there, what the
# benchmark measures, its full table, its headline.
BENCHMARKS = (
    ("near_dup", "near-dup-benchmark", "near-duplicate-detection", "near-duplicate detection",
     near_dup_block, near_dup_headline),
    ("plain_fidelity", "plain-fidelity-benchmark", "plain-text-fidelity", "plain-text damage",
     plain_fidelity_block, plain_fidelity_headline),
    ("linearity", "linearity-benchmark", "linearity", "rendering time against record length",
     linearity_block, linearity_headline),
    ("startup", "startup-benchmark", "start-up", "everyday build", startup_block, startup_headline),
    ("scale", "scale-benchmark", "scale", "build at scale", scale_block, scale_headline),
    ("release_cost", "release-cost-benchmark", "release-cost", "what a release re-sends",
     release_cost_block, release_cost_headline),
)


def _checkout(root: Path | None) -> Path:
    """``root``, or the checkout these benchmarks are in (not the one the package may be installed
    from), read when called so that a run from a second clone writes that clone's docs."""
    from . import corpus

    return corpus.ROOT if root is None else root


def _result(root: Path, name: str) -> dict | None:
    path = root / "benchmarks" / "results" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def benchmark_blocks(root: Path | None = None) -> dict[str, str]:
    """benchmarks/README.md's blocks, made from benchmarks/results/ alone."""
    root = _checkout(root)
    return {block: table(_result(root, name)) for name, block, _, _, table, _ in BENCHMARKS}


def headline_block(root: Path | None = None) -> str:
    """README's benchmark table: one line per benchmark, each from its results file."""
    root = _checkout(root)
    lines = ["| benchmark | headline | rerun |", "|---|---|---|"]
    for name, _, anchor, what, _, headline in BENCHMARKS:
        result = _result(root, name)
        text = headline(result) if result and "machine" in result else "no results yet"
        rerun = (result or {}).get("command", f"python -m benchmarks.{name}")  # the command that made the figures
        lines.append(f"| [{what}]({BENCHMARKS_README}#{anchor}) | {text} | `{rerun}` |")
    return "\n".join(lines) + "\n"


def expected(root: Path | None = None) -> dict[Path, str | None]:
    """README.md and benchmarks/README.md of ``root`` with their benchmark blocks made from its
    results files (None: a README that is missing, which only git can restore)."""
    root = _checkout(root)
    return filled({root / "README.md": {"benchmark-headlines": headline_block(root)},
                   root / BENCHMARKS_README: benchmark_blocks(root)})


def refresh(root: Path | None = None) -> list[Path]:
    """Rewrite the benchmark blocks of README.md and benchmarks/README.md from the results files;
    return the files that changed."""
    return write_changed(expected(root))


def stale(root: Path | None = None) -> list[str]:
    """The files whose benchmark blocks differ from the results files (a missing one included), as
    paths relative to ``root``."""
    root = _checkout(root)
    return [path.relative_to(root).as_posix() for path in differing(expected(root))]


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__[__doc__.index("Example:"):])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale file")
    args = parser.parse_args(argv)
    root = _checkout(root)
    if not args.check:
        changed = refresh(root)
        print("rewrote " + ", ".join(p.relative_to(root).as_posix() for p in changed) if changed else "unchanged")
    found = stale(root)  # after a refresh: only a missing README, which no run can make
    for name in found:
        print(f"missing: {name}: restore it (git checkout -- {name})" if not (root / name).is_file()
              else f"stale: {name}", file=sys.stderr)
    if any((root / name).is_file() for name in found):
        print(f"the benchmark blocks are out of date with benchmarks/results/; run: {COMMAND}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
