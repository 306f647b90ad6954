"""Scale the real abstracts to N raw records over many dumps, with a fixed seed.

Composition of the N records (the shares are those of the scale benchmark):
* 20% distinct papers: the real NeurIPS 2018/2023 abstracts, then new ones synthesized by
  joining sentences drawn from different real abstracts, so that no two are near duplicates;
* 10% revisions of those papers, with the edits of ``near_dup`` (spans of up to 10% of words);
* the rest exact duplicates carrying the noise real recrawls have: runs of spaces, hard-wrapped
  lines, trailing blanks, Unicode NFD, UTF-8 read as cp1252 (mojibake), and, per dump, CRLF line
  ends, a BOM, runs of blank lines and no final newline.

    python -m benchmarks.generate 100000 /tmp/raw100k
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import unicodedata
from pathlib import Path

from neurips_abstracts.text.characters import bad_character

from .corpus import real_abstracts
from .near_dup import EDITS, SPAN_KINDS

SEED = 20261129
HEADER = "NeurIPS 2026 论文列表"
RECORDS_PER_DUMP = 10_000
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _papers(n: int, rng: random.Random, real: list[str]) -> list[str]:
    papers = list(dict.fromkeys(" ".join(t.split()) for t in real if len(t.split()) >= 30))[:n]
    pool = [s for t in papers for s in _SENTENCE_RE.split(t) if len(s.split()) >= 6]
    while len(papers) < n:
        papers.append(" ".join(rng.choice(pool) for _ in range(rng.randint(6, 10))))
    return papers


def _wrap(text: str, rng: random.Random) -> str:
    width = rng.randint(60, 100)
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + len(word) + 1 > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def _noisy(text: str, rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.25:
        return text
    if kind < 0.45:
        return re.sub(" ", lambda m: " " * rng.choice((1, 1, 1, 2, 3)), text)
    if kind < 0.65:
        return _wrap(text, rng)
    if kind < 0.75:
        return text.replace(". ", ".  \t", 2) + rng.choice(("  ", "\t", " \t "))
    if kind < 0.85 and not text.isascii():
        return unicodedata.normalize("NFD", text)
    if kind < 0.95 and not text.isascii():
        try:
            return text.encode("utf-8").decode("cp1252")
        except UnicodeDecodeError:
            return text
    return "  " + text + "  "


def records(n: int, seed: int = SEED) -> tuple[list[str], list[int]]:
    """N record texts in dump order, and for each the index of the paper it is a copy or revision of."""
    rng = random.Random(seed)
    n_papers, n_revisions = max(1, n // 5), n // 10
    papers = _papers(n_papers, rng, real_abstracts())
    out, labels = list(papers), list(range(n_papers))
    for _ in range(n_revisions):
        k = rng.randrange(n_papers)
        while True:
            donors = [rng.choice(papers) for _ in range(2)]
            revised = EDITS[rng.choice(SPAN_KINDS)](papers[k], rng.choice((0.02, 0.05, 0.1)), rng, donors)
            # A number edited inside an escape (\unicode{x2014} -> \unicode{x304A650}) can make
            # a character no dump may hold: the build would refuse the dump, so draw again.
            if bad_character(revised) is None:
                break
        out.append(revised)
        labels.append(k)
    while len(out) < n:
        k = rng.randrange(n_papers + n_revisions)
        out.append(_noisy(out[k], rng))
        labels.append(labels[k])
    order = list(range(n))
    rng.shuffle(order)
    return [out[i] for i in order], [labels[i] for i in order]


def write_dumps(texts: list[str], out: Path, seed: int = SEED, per_dump: int = RECORDS_PER_DUMP) -> list[Path]:
    rng = random.Random(seed + 1)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, start in enumerate(range(0, len(texts), per_dump)):
        chunk = texts[start : start + per_dump]
        crlf, bom = rng.random() < 0.3, rng.random() < 0.2
        body = "".join(t + "\n" * rng.choice((2, 2, 2, 3)) for t in chunk).rstrip("\n")
        text = HEADER + "\n\n" + body + ("\n" if rng.random() < 0.5 else "")
        if crlf:
            text = text.replace("\n", "\r\n")
        data = (("\ufeff" if bom else "") + text).encode("utf-8")
        path = out / f"{k:03d}_{hashlib.sha256(data).hexdigest()[:16]}.txt"
        path.write_bytes(data)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    texts, _ = records(args.n, args.seed)
    paths = write_dumps(texts, args.out, args.seed)
    print(f"{len(paths)} dumps, {sum(p.stat().st_size for p in paths)} bytes in {args.out}")


if __name__ == "__main__":
    main()
