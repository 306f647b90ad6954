"""The build reads as a list of stage calls: followed from ``build()``, the raw folder goes down
through the layers and climbs back up at most ``MAX_CLIMBS`` times.

Followed: every call into the package handed the raw folder (its path, a path inside it, a
function reading one, or a list, tuple, dataclass or closure holding one), with the module
each returns to, for a build of one dump in this process. A climb is a step from a module to
one of a higher rank (``test_imports``: the build 7, stages 6, ... core 0). Measured at 7895eda,
before the stages had modules of their own, and now: see the closing note of issue 33."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from .conftest import make_dump
from .test_imports import place_rank

MAX_CLIMBS = 8


def raw_path(raw: Path, run) -> list[str]:
    """The package modules the raw folder passes through while ``run()`` runs, in order
    (consecutive steps in one module as one)."""
    raw = raw.resolve()

    def refers(v, depth: int = 0) -> bool:
        if depth > 3:
            return False
        if isinstance(v, (str, Path)):
            try:
                p = Path(v).resolve()
            except (OSError, ValueError):
                return False
            return p == raw or raw in p.parents
        if isinstance(v, (list, tuple)):
            return any(refers(x, depth + 1) for x in list(v)[:20])
        if isinstance(getattr(v, "__self__", None), Path):  # a bound method of a path: p.read_bytes
            return refers(v.__self__)
        if callable(v) and getattr(v, "__closure__", None):
            return any(refers(c.cell_contents, depth + 1) for c in v.__closure__ if c.cell_contents is not v)
        if hasattr(v, "__dataclass_fields__") and not isinstance(v, type):
            return any(refers(getattr(v, f, None), depth + 1) for f in v.__dataclass_fields__)
        return False

    steps: list[str] = []
    followed: set[int] = set()

    def profile(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("neurips_abstracts."):
            return
        if event == "call":
            code = frame.f_code
            if any(refers(frame.f_locals.get(n)) for n in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]):
                followed.add(id(frame))
                steps.append(module)
        elif event == "return" and id(frame) in followed:
            followed.discard(id(frame))
            back = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
            if back.startswith("neurips_abstracts."):
                steps.append(back)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return [m for k, m in enumerate(steps) if k == 0 or steps[k - 1] != m]


def climbs(path: list[str]) -> int:
    ranks = [place_rank(m) for m in path]
    return sum(b > a for a, b in zip(ranks, ranks[1:]))


def test_the_raw_folder_goes_down_through_the_stages_and_climbs_back_at_most_eight_times(tmp_path):
    from neurips_abstracts.build import build

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / f"000_{0:016x}.txt").write_bytes(make_dump([f"Paper {k} studies {' '.join(f'w{k}{j}' for j in range(25))}." for k in range(3)]))
    path = raw_path(raw, lambda: build(raw, tmp_path / "dist", previous=None, workers=1))
    assert path[0] == "neurips_abstracts.build" and "neurips_abstracts.stages.read" in path
    assert "neurips_abstracts.stages.parse" in path  # followed into the stages, not lost on the way
    assert climbs(path) <= MAX_CLIMBS, path


def test_a_climb_is_a_step_to_a_higher_rank():
    path = ["neurips_abstracts.build", "neurips_abstracts.stages.read", "neurips_abstracts.ingest.load",
            "neurips_abstracts.stages.read", "neurips_abstracts.core.pool", "neurips_abstracts.build"]
    assert climbs(path) == 2
