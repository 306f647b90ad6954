"""Near-duplicate benchmark: precision and recall of merged pairs on real abstracts.

Positives are revisions made from the ~4,200 real NeurIPS 2018 and 2023 abstracts in
../shared/corpora with the edits real revisions make, in contiguous spans touching up to 10% of
the words (a few words fixed, a sentence added, dropped or rewritten, numbers updated, and a mix),
plus scattered random word edits at 1-20% to draw the curve. Negatives are all distinct real
papers: any merge of two of them is a false positive.

Each cell (edit kind x rate) is one run over all distinct real abstracts plus one revision of
each of ``--per-cell`` sampled papers, so revisions never chain through each other.
The project's method (``neurips_abstracts.dedup.near_duplicates``) runs beside a datasketch baseline
(``baselines.datasketch_clusters``: shingles by plain Python as datasketch's documentation shows,
MinHash + MinHashLSH at the same threshold, datasketch's own band choice, LSH candidates merged
without verification, which is how it is usually used). Both start from the texts, so each pays
for its own shingling; both run once on a few hundred texts before anything is timed, with the
cyclic garbage collector off while timed, in the same process, the order alternating by cell.

    python -m benchmarks.near_dup            # writes benchmarks/results/near_dup.json, rewrites the READMEs' blocks
"""

from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import asdict

from neurips_abstracts.core.config import NearDupConfig
from neurips_abstracts.dedup.near_duplicates import near_duplicate_clusters
from neurips_abstracts.text.normalize import normalize

from .baselines import datasketch_clusters
from .corpus import ROOT, real_abstracts
from .harness import command, load_average, machine, refresh_docs, timed

RESULTS = ROOT / "benchmarks" / "results" / "near_dup.json"
SEED = 20261129
SPAN_KINDS = ("typos_fixed", "sentence_added", "sentence_dropped", "sentence_rewritten", "numbers_updated", "mixed")
SPAN_RATES = (0.02, 0.05, 0.10)
SCATTER_RATES = (0.01, 0.02, 0.05, 0.10, 0.15, 0.20)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\])")
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_RE.split(text) if s]


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 3:
        return word + rng.choice("aes")
    i = rng.randrange(len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def _budget(words: list[str], rate: float) -> int:
    return max(1, int(len(words) * rate))


def typos_fixed(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    words = text.split()
    span = _budget(words, rate)
    start = rng.randrange(max(1, len(words) - span))
    for i in range(start, min(len(words), start + span)):
        words[i] = _typo(words[i], rng)
    return " ".join(words)


def _donor_words(donors: list[str], n: int, rng: random.Random) -> list[str]:
    donor = rng.choice(donors).split()
    start = rng.randrange(max(1, len(donor) - n))
    return donor[start : start + n]


def sentence_added(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    sents = sentences(text)
    new = " ".join(_donor_words(donors, _budget(text.split(), rate), rng)).rstrip(".") + "."
    sents.insert(rng.randrange(len(sents) + 1), new[0].upper() + new[1:])
    return " ".join(sents)


def sentence_dropped(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    sents = sentences(text)
    budget = _budget(text.split(), rate)
    fitting = [i for i, s in enumerate(sents) if len(s.split()) <= budget]
    if len(sents) > 1 and fitting:
        del sents[rng.choice(fitting)]
        return " ".join(sents)
    # no whole sentence is short enough: drop a clause-sized span instead
    words = text.split()
    start = rng.randrange(max(1, len(words) - budget))
    return " ".join(words[:start] + words[start + budget :])


def sentence_rewritten(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    words = text.split()
    span = _budget(words, rate)
    start = rng.randrange(max(1, len(words) - span))
    return " ".join(words[:start] + _donor_words(donors, span, rng) + words[start + span :])


def numbers_updated(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    budget = _budget(text.split(), rate)
    matches = list(_NUMBER_RE.finditer(text))
    if not matches:  # an abstract without numbers gets a result sentence with new ones
        return text + f" We improve accuracy by {rng.randint(2, 30)}.{rng.randint(0, 9)}%."
    chosen = sorted(rng.sample(matches, min(budget, len(matches))), key=lambda m: m.start(), reverse=True)
    for m in chosen:
        text = text[: m.start()] + str(rng.randint(1, 999)) + text[m.end() :]
    return text


def mixed(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    edits = rng.sample([typos_fixed, sentence_added, sentence_dropped, sentence_rewritten, numbers_updated], 2)
    for edit in edits:
        text = edit(text, rate / 2, rng, donors)
    return text


def scattered(text: str, rate: float, rng: random.Random, donors: list[str]) -> str:
    words = text.split()
    vocab = rng.choice(donors).split()
    for i in sorted(rng.sample(range(len(words)), _budget(words, rate)), reverse=True):
        op = rng.random()
        if op < 0.5:
            words[i] = rng.choice(vocab)
        elif op < 0.75:
            words.insert(i, rng.choice(vocab))
        elif len(words) > 1:
            del words[i]
    return " ".join(words)


EDITS = {name: globals()[name] for name in SPAN_KINDS} | {"scattered": scattered}


def merged_pairs(roots: list[int]) -> set[tuple[int, int]]:
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(roots):
        groups.setdefault(r, []).append(i)
    return {(a, b) for g in groups.values() for k, a in enumerate(g) for b in g[k + 1 :]}


def ours(texts: list[str], config: NearDupConfig) -> tuple[list[int], set[tuple[int, int]]]:
    clusters = near_duplicate_clusters(texts, config)
    return clusters.roots, set(map(tuple, clusters.candidates.tolist()))


def datasketch(texts: list[str], config: NearDupConfig) -> tuple[list[int], set[tuple[int, int]]]:
    return datasketch_clusters(texts, config.shingle_size, config.num_perm, config.threshold, config.seed)


METHODS = {"ours": ours, "datasketch": datasketch}


def evaluate(method, base: list[str], revisions: list[tuple[int, str]], config: NearDupConfig) -> dict:
    texts = base + [r for _, r in revisions]
    (roots, candidates), seconds, cpu_seconds = timed(method, texts, config)
    truth = {(orig, len(base) + k) for k, (orig, _) in enumerate(revisions)}
    merged = merged_pairs(roots)
    tp = len(merged & truth)
    return {
        "precision": tp / len(merged) if merged else 1.0,
        "recall": tp / len(truth),
        "candidate_recall": len(candidates & truth) / len(truth),
        "candidate_pairs": len(candidates),
        "false_merges": len(merged) - tp,
        "texts": len(texts),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
    }


# Records this short are not abstracts but truncated junk ("Part of", "The notion of" in the
# 2018 corpus): they stay in as negatives, but are not revised, since a one-word edit of a
# two-word text is not a revision of anything.
MIN_WORDS = 30
WARM_UP = 500  # texts each method runs once before anything is timed


def run(per_cell: int, config: NearDupConfig) -> dict:
    base = list(dict.fromkeys(normalize(t) for t in real_abstracts()))
    revisable = [i for i, t in enumerate(base) if len(t.split()) >= MIN_WORDS]
    for method in METHODS.values():  # warm-up: imports, first allocations, rensa's thread pool
        timed(method, base[:WARM_UP], config)
    rng = random.Random(SEED)
    cells = [(k, r) for k in SPAN_KINDS for r in SPAN_RATES] + [("scattered", r) for r in SCATTER_RATES]
    rows = []
    for kind, rate in cells:
        picks = rng.sample(revisable, per_cell)
        revisions = []
        for i in picks:
            donors = [base[rng.randrange(len(base))] for _ in range(3)]
            rev = normalize(EDITS[kind](base[i], rate, rng, donors))
            if rev != base[i]:
                revisions.append((i, rev))
        row = {"kind": kind, "rate": rate, "revisions": len(revisions)}
        # Interleaved: the method that goes first alternates from cell to cell.
        order = list(METHODS) if len(rows) % 2 == 0 else list(METHODS)[::-1]
        for name in order:
            row[name] = evaluate(METHODS[name], base, revisions, config)
        rows.append(row)
        o, d = row["ours"], row["datasketch"]
        print(f"{kind:>18} {rate:5.0%}  ours P={o['precision']:.4f} R={o['recall']:.4f} C={o['candidate_recall']:.4f} {o['seconds']:.2f}s"
              f"  datasketch P={d['precision']:.4f} R={d['recall']:.4f} {d['seconds']:.2f}s", flush=True)
    return {
        "config": asdict(config),
        "distinct_real_papers": len(base),
        "revisable_papers": len(revisable),
        "min_words": MIN_WORDS,
        "per_cell": per_cell,
        "seed": SEED,
        "warm_up_texts": WARM_UP,
        "cells": rows,
    }


def summarize(result: dict) -> dict:
    """Headline numbers: the realistic cells (spans up to 10%) and everything, per method."""
    out = {}
    for method in ("ours", "datasketch"):
        for label, cells in (
            ("realistic", [c for c in result["cells"] if c["kind"] != "scattered"]),
            ("all", result["cells"]),
        ):
            total = sum(c["revisions"] for c in cells)
            found = sum(c[method]["recall"] * c["revisions"] for c in cells)
            out[f"{method}_{label}_recall"] = found / total
            out[f"{method}_{label}_candidate_recall"] = (
                sum(c[method]["candidate_recall"] * c["revisions"] for c in cells) / total
            )
            out[f"{method}_{label}_false_merges"] = sum(c[method]["false_merges"] for c in cells)
            out[f"{method}_{label}_min_precision"] = min(c[method]["precision"] for c in cells)
        texts = sum(c[method]["texts"] for c in result["cells"])
        out[f"{method}_texts_per_second"] = texts / sum(c[method]["seconds"] for c in result["cells"])
        out[f"{method}_texts_per_cpu_second"] = texts / sum(c[method]["cpu_seconds"] for c in result["cells"])
    out["speedup_vs_datasketch"] = out["ours_texts_per_second"] / out["datasketch_texts_per_second"]
    out["cpu_speedup_vs_datasketch"] = out["ours_texts_per_cpu_second"] / out["datasketch_texts_per_cpu_second"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-cell", type=int, default=400, help="revisions per (kind, rate) cell")
    parser.add_argument("--shingle-size", type=int, default=None)
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--bands", type=int, default=None)
    parser.add_argument("--num-perm", type=int, default=None)
    parser.add_argument("--no-write", action="store_true", help="print only; do not update results/")
    args = parser.parse_args()
    config = NearDupConfig()
    overrides = {k: v for k, v in (("shingle_size", args.shingle_size), ("threshold", args.threshold)) if v is not None}
    num_perm = args.num_perm or config.num_perm
    if args.bands or args.num_perm:
        bands = args.bands or config.bands
        overrides |= {"num_perm": num_perm, "bands": bands, "rows": num_perm // bands}
    config = NearDupConfig(**(asdict(config) | overrides))
    load_at_start = load_average()
    result = run(args.per_cell, config)
    result["summary"] = summarize(result)
    result |= {"machine": machine(), "command": command("benchmarks.near_dup"),
               "load_average": {"start": load_at_start, "end": load_average()}}
    print(json.dumps(result["summary"], indent=2))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        refresh_docs()


if __name__ == "__main__":
    main()
