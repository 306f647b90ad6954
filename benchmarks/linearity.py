"""Plain-text rendering is linear in a record's length, whatever the record holds.

Renders adversarial records of 10 kB, 100 kB and 1 MB with the build's own per-record function
(``render.render_many``: ``abstract_plain``, its URLs, its word count), each kind built to make
a scanning renderer look far ahead or back: unclosed delimiters, runs of one markup character,
markup repeated between words, deep nesting. The figure that matters is time(1 MB) /
time(100 kB): 10 for linear work, 100 for quadratic. Times are CPU seconds of this process
(``time.process_time``; the machine is shared, and CPU time is what rendering costs whoever
else runs), each the least of many renderings, with the garbage collector paused during them as the
build pauses it; wall seconds are kept beside them.

Every size gets the same number of renderings, one a round over ROUNDS rounds, and the least is
kept. The least of many samples sits below the least of a few (by 2-9% here for 70 against 7), so
a size rendered more often than another would look faster than it is and bend the ratio. The
kinds and sizes take turns within a round, so that a spell of a slower host falls on all of them
alike.

    python -m benchmarks.linearity               # writes benchmarks/results/linearity.json
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time

from neurips_abstracts.text.render import render_many

from .corpus import ROOT
from .harness import command, load_average, machine, write_results

RESULTS = ROOT / "benchmarks" / "results" / "linearity.json"
SIZES = (10_000, 100_000, 1_000_000)
RATIO_LIMIT = 12  # time(1 MB) / time(100 kB): linear work gives 10
SECONDS_LIMIT = 1.0  # for a 1 MB record
ROUNDS = 21  # renderings of each kind at each size, one a round


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    body = unit * max(1, (size - len(head) - len(tail)) // len(unit))
    return head + body + tail


# name -> (what it is, a function of the size in characters)
KINDS = {
    "unclosed \\(": ("`\\(` and then words, never closed", lambda n: _fill("a ", n, "\\( ")),
    "unclosed $": ("`$` and then words, never closed", lambda n: _fill("a ", n, "$ ")),
    "unclosed {": ("`{` and then words, never closed", lambda n: _fill("a ", n, "{ ")),
    "unclosed \\begin": ("`\\begin{equation}` and then words", lambda n: _fill("a ", n, "\\begin{equation} ")),
    "unclosed \\url{": ("`\\url{https://` and then one long word", lambda n: _fill("a", n, "\\url{https://")),
    "unclosed [..](": ("`[a](https://` repeated", lambda n: _fill("[a](https://x", n)),
    "run of *": ("`*` alone", lambda n: "*" * n),
    "run of _": ("`_` alone", lambda n: "_" * n),
    "run of $": ("`$` alone", lambda n: "$" * n),
    "run of \\(": ("`\\(` repeated", lambda n: _fill("\\(", n)),
    "run of {": ("`{` alone", lambda n: "{" * n),
    "run of }": ("`}` alone", lambda n: "}" * n),
    "run of \\": ("backslashes alone", lambda n: "\\" * n),
    "run of ~": ("`~` alone", lambda n: "~" * n),
    "run of ^": ("`^` alone", lambda n: "^" * n),
    "*a repeated": ("`*a ` repeated: openers without closers", lambda n: _fill("*a ", n)),
    "**a repeated": ("`**a ` repeated", lambda n: _fill("**a ", n)),
    "_a repeated": ("`_a ` repeated", lambda n: _fill("_a ", n)),
    "a* repeated": ("`a* ` repeated: closers without openers", lambda n: _fill("a* ", n)),
    "a*b* repeated": ("`a*b* ` repeated: emphasis everywhere", lambda n: _fill("a*b* ", n)),
    "$a repeated": ("`$a ` repeated: math everywhere", lambda n: _fill("$a ", n)),
    "$a$ repeated": ("`$a$ ` repeated", lambda n: _fill("$a$ ", n)),
    "$5 repeated": ("`$5 and ` repeated: currency", lambda n: _fill("$5 and ", n)),
    "\\(a repeated": ("`\\(a ` repeated, never closed", lambda n: _fill("\\(a ", n)),
    "\\a repeated": ("`\\a ` repeated: unknown macros", lambda n: _fill("\\a ", n)),
    "\\alpha repeated": ("`\\alpha ` repeated: symbols", lambda n: _fill("\\alpha ", n)),
    "~5 repeated": ("`~5 ` repeated: about-tildes", lambda n: _fill("~5 ", n)),
    "&amp; repeated": ("`&amp; ` repeated: entities", lambda n: _fill("&amp; ", n)),
    "url repeated": ("`https://x.org/a_b* ` repeated", lambda n: _fill("https://x.org/a_b* ", n)),
    "nested {}": ("`{` x n/2, a word, `}` x n/2", lambda n: "{" * (n // 2 - 2) + "deep" + "}" * (n // 2 - 2)),
    "nested {x": ("`{x` repeated: nested, never closed", lambda n: _fill("{x", n)),
    "nested scripts": ("`$x^{` repeated: scripts nested, never closed", lambda n: _fill("x^{", n, "$", "$")),
    "nested \\frac": ("`\\frac{a}{` repeated inside math", lambda n: _fill("\\frac{a}{", n, "$", "$")),
    "nested \\begin": ("`\\begin{equation}` repeated", lambda n: _fill("\\begin{equation} ", n)),
    "nested groups, 200 deep": ("200 nested groups holding words", lambda n: "{" * 200 + _fill("a ", n - 400) + "}" * 200),
}


def _time(texts: dict[str, list[str]]) -> dict[str, list[tuple[float, float]]]:
    """Least CPU and wall seconds of one rendering of each kind's text at each size, over ROUNDS
    rounds of one rendering each. A round takes every kind in turn, so each kind's rounds
    are spread over the whole run: a spell of a slower host (they last seconds to minutes here)
    raises some of a kind's rounds, not all of them, and the least is the unhindered time."""
    best = {name: [(float("inf"), float("inf"))] * len(sizes) for name, sizes in texts.items()}
    for sizes in texts.values():
        render_many(sizes)  # the caches of the symbol tables are filled before any timing
    for _ in range(ROUNDS):
        for name, sizes in texts.items():
            for k, text in enumerate(sizes):
                # One collection before each rendering (one takes longer than a 10 kB rendering),
                # none during it, as the build pauses the collector.
                gc.collect()
                gc.disable()
                try:
                    c0, w0 = time.process_time(), time.perf_counter()
                    render_many([text])
                    c1, w1 = time.process_time(), time.perf_counter()
                finally:
                    gc.enable()
                best[name][k] = (min(best[name][k][0], c1 - c0), min(best[name][k][1], w1 - w0))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--kind", action="append", choices=list(KINDS), help="only this kind (repeatable; print only)")
    args = parser.parse_args()
    load_at_start = load_average()
    render_many(["warm up: $x$ \\alpha **b**"])  # the symbol table is read once per process
    kinds = {}
    texts = {name: [make(size) for size in SIZES] for name, (_, make) in KINDS.items() if not args.kind or name in args.kind}
    times = _time(texts)
    for name in texts:
        row = {"what": KINDS[name][0]}
        for size, text, (cpu, wall) in zip(SIZES, texts[name], times[name]):
            row[str(size)] = {"chars": len(text), "cpu_seconds": cpu, "wall_seconds": wall}
        row["ratio"] = row[str(SIZES[2])]["cpu_seconds"] / max(row[str(SIZES[1])]["cpu_seconds"], 1e-9)
        kinds[name] = row
        print(f"{name:24s} " + " ".join(f"{row[str(s)]['cpu_seconds']:8.4f}" for s in SIZES) + f"  ratio {row['ratio']:5.1f}", flush=True)
    result = {
        "sizes": list(SIZES),
        "ratio_limit": RATIO_LIMIT,
        "seconds_limit": SECONDS_LIMIT,
        "rounds": ROUNDS,
        "repeats": {str(size): ROUNDS for size in SIZES},
        "kinds": kinds,
        "max_ratio": max(r["ratio"] for r in kinds.values()),
        # every kind's 1 MB time over every kind's 100 kB time: the ratio of the whole table
        "overall_ratio": sum(r[str(SIZES[2])]["cpu_seconds"] for r in kinds.values())
        / sum(r[str(SIZES[1])]["cpu_seconds"] for r in kinds.values()),
        "max_1mb_cpu_seconds": max(r[str(SIZES[2])]["cpu_seconds"] for r in kinds.values()),
        "max_1mb_wall_seconds": max(r[str(SIZES[2])]["wall_seconds"] for r in kinds.values()),
        "machine": machine(),
        "command": command("benchmarks.linearity"),
        "load_average": {"start": load_at_start, "end": load_average()},
    }
    print(json.dumps({k: result[k] for k in ("max_ratio", "overall_ratio", "max_1mb_cpu_seconds", "max_1mb_wall_seconds")}))
    if not args.no_write and not args.kind:
        write_results(RESULTS, result)
    # The results are kept either way (they are what was measured); the exit status is the verdict.
    over = [f"largest ratio {result['max_ratio']:.2f} > {RATIO_LIMIT}"] * (result["max_ratio"] > RATIO_LIMIT) + [
        f"slowest 1 MB record {result['max_1mb_cpu_seconds']:.3f} s > {SECONDS_LIMIT} s"] * (
        result["max_1mb_cpu_seconds"] > SECONDS_LIMIT)
    if over:
        sys.exit("over the limit: " + "; ".join(over))


if __name__ == "__main__":
    main()
