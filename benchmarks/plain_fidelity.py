"""Fidelity of ``abstract_plain`` on the real NeurIPS 2018 and 2023 abstracts, and its speed.

Each abstract is normalized as the build does, rendered with ``to_plain`` and checked for four
kinds of damage, counted over all abstracts:

(a) dropped: identifier-like tokens of the source missing from the plain text. The tokens are
    the names of macros outside a list of known formatting and symbol macros (``\\diag``,
    ``\\bH``, ``\\log``), and the words and numbers inside math and inside braces. A token must
    occur in the plain text at least as often as in those places and the prose together.
    Both sides are compared after NFKD with accents removed, so ℝ counts as R and é as e;
    colours, labels, lengths and environment names are not content.
(b) ambiguous scripts: multi-character ``^{..}``/``_{..}`` groups of the source that the plain
    text does not show grouped (``^(..)`` or Unicode super/subscripts), plus script markers in
    the plain text followed by two or more letters or digits that are not one number
    (``x_iy``), outside words the source itself spells so (snake_case, URLs).
(c) glued operators: words of the plain text that contain an operator name the source typed as
    a macro (``\\log``, ``\\max``) without being that name or a word of the source
    ("loglog", "kmin").
(d) leftover markup: backslashes, ``$``, ``**`` and HTML entities in the plain text beyond
    the ones the source asks for as characters (``\\$``, ``\\textbackslash``).
(e) lost meaning: characters that carry meaning and are missing from the plain text: a ``~``
    before a number that means "about" (``~90x``, ``(~10M``, ``2.8%~4.5%``: after no letter,
    digit or sentence punctuation, outside math and URLs, where it is not a tie as in
    ``Figure~3``), and currency dollars: an unescaped ``$`` before a number whose next
    ``$`` stands before a number too (``$5 and $10``), or the only ``$`` of the abstract
    (``costs $60``), each after a space, an opening bracket or nothing (in ``$>$16K`` the
    ``$`` closes math). The plain text must hold ``~90`` or ``$5`` as often as the source.
(f) words lost: the words-kept oracle (benchmarks/words_kept.py): every word of the source,
    read by a tokenizer of its own with the changes the rules allow mapped, must be in the
    plain text's words in the same order; a source that fails counts the words a diff of the
    two leaves unmatched.

Throughput is abstracts per second of ``to_plain`` in this process, best of three passes.
With ``--candidates`` the same counts are taken for the alternatives considered: pylatexenc's
``latex2text`` on the whole abstract, and flatlatex, unicodeit and pandoc where installed.

    python -m benchmarks.plain_fidelity              # writes benchmarks/results/plain_fidelity.json
    python -m benchmarks.plain_fidelity --candidates  # also measures the alternatives
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from functools import cache

from neurips_abstracts.text.normalize import normalize
from neurips_abstracts.text.plain import to_plain

from .corpus import CORPORA, ROOT, YEARS
from .harness import command, load_average, machine, write_results
from .words_kept import SUBSCRIPTS, SUPERSCRIPTS, fold, words_lost

RESULTS = ROOT / "benchmarks" / "results" / "plain_fidelity.json"
CLASSES = ("dropped", "ambiguous_scripts", "glued_operators", "leftover_markup", "lost_meaning", "words_lost")
WORST = 10
# Why each abstract still counted cannot be rendered better: its source is broken there.
REASONS = {
    "2023/sW8yGZ4uVJ": "`textcolor{blue}{First}` lost its backslash, so its braces are plain groups",
    "2018/11826": "the abstract is cut inside math, so its last `$` opens nothing",
    "2018/11305": "a `$` is missing, so the dollars pair up wrongly from there on",
}

OPERATORS = frozenset(
    "arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim liminf limsup ln "
    "log max min Pr sec sin sinh sup tan tanh".split()
)
# Macros whose name is markup, not content. Style macros only change the look of what they hold
# (\\textbf{V}ideo reads "Video"); the others stand between the words around them.
STYLE = frozenset(
    "textbf textit textrm textsf texttt textsc textsl textup textmd textnormal emph text mbox hbox fbox mathrm "
    "mathbf mathit mathsf mathtt mathnormal boldsymbol bm pmb underline uline ensuremath mathop operatorname "
    "mathbb mathcal mathscr mathfrak em it bf rm sf tt sc sl ttfamily bfseries itshape small tiny large Large "
    "footnotesize normalsize left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr limits "
    "nolimits displaystyle textstyle scriptstyle noindent xspace textcolor color colorbox tilde widetilde hat "
    "widehat bar overline vec dot ddot check breve acute grave mathring c v u H r k b d t".split()
)
FORMATTING = STYLE | frozenset(
    "par quad qquad hspace vspace label begin end item url href cite citep citet citealp ref eqref cref "
    "autoref footnote footnotetext frac dfrac tfrac cfrac nicefrac sfrac binom sqrt overset underset stackrel "
    "not over textsuperscript textsubscript unicode i j".split()
)
_MACRO_RE = re.compile(r"\\([A-Za-z]+)")


@cache
def known_macros() -> frozenset[str]:
    """FORMATTING and the symbols of pylatexenc's table (\\alpha, \\leq): their names need not show."""
    from pylatexenc.latex2text import get_default_latex_context_db

    symbols = {s.macroname for s in get_default_latex_context_db().iter_macro_specs() if isinstance(s.simplify_repl, str)}
    return FORMATTING | (symbols - OPERATORS)


_WORD_RE = re.compile(r"[A-Za-z]+|[0-9]+")
_ACCENTED_RE = re.compile(r"\\(?:['`^\"~=.]|[cvuHrkbdt](?![A-Za-z]))\s*\{?\s*([A-Za-z])\}?")
_NOT_CONTENT_RE = re.compile(r"\\(?:(?:label|hspace|vspace|begin|end|unicode)\*?\s*\{[^{}]*\}|(textcolor|colorbox|color)\s*\{[^{}]*\})")
_MATH_RE = re.compile(r"\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\]", re.S)
_SCRIPT_GROUP_RE = re.compile(r"[\^_]\s*\{")
_OUT_SCRIPT_RE = re.compile(r"[\^_]\(")
_UNICODE_SCRIPTS = SUPERSCRIPTS + SUBSCRIPTS
_UNICODE_RUN_RE = re.compile(f"[{_UNICODE_SCRIPTS}]{{2,}}")
_GLUED_SCRIPT_RE = re.compile(r"(?<=\S)[\^_](?!\()([^\W_]{2,})")
_ENTITY_RE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def load_corpora() -> list[tuple[str, str]]:
    """(paper id, abstract) of every real abstract, normalized as the build normalizes."""
    import zstandard

    out = []
    for year in YEARS:
        with open(CORPORA / f"neurips{year}" / "papers.jsonl.zst", "rb") as fh:
            text = zstandard.ZstdDecompressor().stream_reader(fh).read().decode("utf-8")
        for line in text.splitlines():
            if line.strip():
                row = json.loads(line)
                out.append((f"{year}/{row['id']}", normalize(row["abstract"])))
    return out


_SOURCE_TOKEN_RE = re.compile(r"\\([A-Za-z]+)\s*|\\.|\}\s*\{|\$\$|[{}$]|[\^_]\s*(?:[A-Za-z0-9]|\{\s*[A-Za-z0-9]\s*\})|[^\\{}$^_]+|[\^_]", re.S)
_DOUBLED_RE = re.compile(r"\\\\(?=([A-Za-z]+))")
_HREF_TWICE_RE = re.compile(r"\\href\{([^{}]*)\}\{\1\}")


def _source_words(source: str) -> tuple[Counter, Counter]:
    """Tokens of the source as a reader sees them (markup removed, so that \\textbf{V}ideo is
    "Video"): those touching math or a brace group, and the others."""
    text = fold(_HREF_TWICE_RE.sub(r"\\url{\1}", source))  # a link whose text is its URL shows it once
    # an over-escaped abstract writes \\\\textit for \\textit; a line break is never followed by a macro name
    text = _DOUBLED_RE.sub(lambda m: "\\" if m[1] in known_macros() and len(m[1]) > 1 else m[0], text)
    text = _NOT_CONTENT_RE.sub(lambda m: f"\\{m[1]}" if m[1] else " ", _ACCENTED_RE.sub(r"\1", text))
    chars: list[str] = []
    inner: list[bool] = []
    depth, math = 0, ""
    # whether each open group is the argument of a macro that stands apart (\\sqrt{n}d is n, d),
    # and whether the token before was one
    parts: list[bool] = []
    apart = False
    for m in _SOURCE_TOKEN_RE.finditer(text):
        tok, name = m.group(), m[1]
        piece, deep = "", bool(depth or math)
        after_macro, apart = apart, False
        if name is not None:
            if name in STYLE:
                piece = ""
            elif name in known_macros():
                piece, apart = " ", True
            else:
                piece, deep = f" {name} ", True
        elif tok in ("$", "$$"):
            math = "" if math == tok else (math or tok)
        elif tok in ("\\(", "\\["):
            math = tok
        elif tok in ("\\)", "\\]"):
            math = ""
        elif tok == "{":
            depth += 1
            parts.append(after_macro)
        elif tok == "}":
            depth = max(0, depth - 1)
            piece = " " if parts and parts.pop() else ""
        elif tok[0] in "^_" and len(tok) > 1 and math:
            piece = f" {tok.rstrip('} ')[-1]} "  # a script is one character: x_ij is x_i j
        elif tok[0] == "}":
            piece = " "  # between two arguments: \\frac{a}{b}
        elif tok[0] == "\\":
            piece = " "
        else:
            piece = tok
        chars.append(piece)
        inner += [deep] * len(piece)
    joined = "".join(chars)
    touching, prose = Counter(), Counter()
    for w in _WORD_RE.finditer(joined):
        (touching if any(inner[w.start() : w.end()]) else prose)[w.group()] += 1
    return touching, prose


def dropped(source: str, plain: str) -> list[str]:
    """Tokens of the source (a) that the plain text lacks, one entry per missing occurrence."""
    required, in_prose = _source_words(source)
    have = Counter(_WORD_RE.findall(fold(plain)))
    missing = []
    for token, n in sorted(required.items()):
        missing += [token] * max(0, min(n, n + in_prose[token] - have[token]))
    return missing


def ambiguous_scripts(source: str, plain: str) -> list[str]:
    """(b): multi-character script groups left ungrouped, and scripts glued to what follows."""
    out = []
    enclosed = len(re.findall(r"[\^_]\s*\(", source))  # x^(t): written grouped
    multi = 0
    for m in _SCRIPT_GROUP_RE.finditer(source):
        depth, j = 0, m.end() - 1
        while j < len(source):
            depth += source[j] == "{"
            depth -= source[j] == "}"
            if depth == 0:
                break
            j += 1
        body = re.sub(r"\\([A-Za-z]+)\s*", lambda b: "" if b[1] in STYLE else "x", source[m.end() : j])
        body = body.replace(" ", "").replace("{", "").replace("}", "")
        if len(body) > 1 and not body.isdigit():
            if body[0] == "(" and body[-1] == ")" and body.count("(") == 1:
                enclosed += 1
            else:
                multi += 1
    shown = len(_OUT_SCRIPT_RE.findall(plain)) + len(_UNICODE_RUN_RE.findall(plain)) - enclosed
    out += ["ungrouped multi-character script"] * max(0, multi - max(0, shown))
    words = set(source.split())
    for m in _GLUED_SCRIPT_RE.finditer(plain):
        token = plain[plain.rfind(" ", 0, m.start()) + 1 : (plain.find(" ", m.end()) + 1 or len(plain) + 1) - 1]
        arg = m[1].rstrip(_UNICODE_SCRIPTS)
        if len(arg) < 2 or arg.isdigit() or "://" in token or token in words or token.strip(".,;:()[]") in source:
            continue
        out.append(token)
    return out


def glued_operators(source: str, plain: str) -> list[str]:
    """(c): words holding an operator the source typed as a macro, that the source does not spell."""
    ops = {name for name in _MACRO_RE.findall(source) if name in OPERATORS}
    if not ops:
        return []
    source_words = set(_WORD_RE.findall(_MACRO_RE.sub(r" \1 ", source)))
    return [w for w in _WORD_RE.findall(fold(plain)) if w not in ops and w not in source_words and any(op in w for op in ops)]


def leftover_markup(source: str, plain: str) -> list[str]:
    """(d): markup characters in the plain text that the source does not ask for as characters."""
    out = []
    backslashes = plain.count("\\") - len(re.findall(r"\\(?:textbackslash|backslash)\b", source))
    dollars = len(re.findall(r"\$(?![0-9])", plain)) - source.count("\\$")  # $60 is a price
    out += ["\\"] * max(0, backslashes) + ["$"] * max(0, dollars) + ["**"] * plain.count("**")
    out += _ENTITY_RE.findall(plain)
    return out


_ABOUT_RE = re.compile(r"(?<![\w.,;:!?)\]}\\])~(\d+)")
_AMOUNT_RE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_DOLLAR_RE = re.compile(r"(?<!\\)\$")
_LINK_RE = re.compile(r"https?://\S+|\\url\{[^{}]*\}")


def lost_meaning(source: str, plain: str) -> list[str]:
    """(e): each "about" tilde (``~90``) and currency amount (``$5``) of the source that the
    plain text does not show, in the order of the source."""
    prose = _LINK_RE.sub(" ", _MATH_RE.sub(lambda m: " " * len(m.group()), source))
    wanted = ["~" + m[1] for m in _ABOUT_RE.finditer(prose)]
    dollars = [m.start() for m in _DOLLAR_RE.finditer(source)]
    # a currency sign follows a space, an opening bracket or nothing ($>$16K closes math)
    amounts = [_AMOUNT_RE.match(source, p + 1) if p == 0 or source[p - 1] in " ([" else None for p in dollars]
    currency = set()
    if len(dollars) == 1 and amounts[0]:
        currency.add(0)
    for k in range(len(dollars) - 1):
        if amounts[k] and amounts[k + 1]:
            currency |= {k, k + 1}
    wanted += ["$" + amounts[k].group() for k in sorted(currency)]
    have = Counter(re.findall(r"~\d+", plain)) + Counter("$" + m.group() for m in re.finditer(r"(?<=\$)\d[\d,]*(?:\.\d+)?", plain))
    out = []
    for token in wanted:
        if have[token] > 0:
            have[token] -= 1
        else:
            out.append(token)
    return out


CHECKS = {"dropped": dropped, "ambiguous_scripts": ambiguous_scripts, "glued_operators": glued_operators, "leftover_markup": leftover_markup,
          "lost_meaning": lost_meaning, "words_lost": words_lost}


def evaluate(papers: list[tuple[str, str]], plains: list[str]) -> dict:
    counts = dict.fromkeys(CLASSES, 0)
    abstracts = dict.fromkeys(CLASSES, 0)
    worst: dict[str, list] = {c: [] for c in CLASSES}
    for (paper, source), plain in zip(papers, plains):
        for name, check in CHECKS.items():
            found = check(source, plain)
            if found:
                counts[name] += len(found)
                abstracts[name] += 1
                worst[name].append({"paper": paper, "count": len(found), "found": sorted(set(found))[:12],
                                    "plain": plain[:300]})
    for name in CLASSES:
        worst[name] = sorted(worst[name], key=lambda w: (-w["count"], w["paper"]))[:WORST]
    return {"counts": counts, "abstracts_with": abstracts, "worst": worst}


def throughput(render, texts: list[str], passes: int = 3) -> float:
    best = float("inf")
    for _ in range(passes):
        started = time.perf_counter()
        for text in texts:
            render(text)
        best = min(best, time.perf_counter() - started)
    return len(texts) / best


def candidates() -> dict:
    """Whole-abstract renderers to compare against, those that are installed."""
    from neurips_abstracts.text.plain import strip_markdown

    out = {}

    def pylatexenc_whole(text: str) -> str:
        from pylatexenc.latex2text import LatexNodes2Text

        escaped = re.sub(r"(?<!\\)([%&])", r"\\\1", strip_markdown(text))
        return " ".join(LatexNodes2Text(math_mode="text", strict_latex_spaces=False).latex_to_text(escaped).split())

    out["pylatexenc latex2text"] = pylatexenc_whole

    def math_only(convert):
        # the candidate converts each math span; the text around it gets the project's rendering
        def render(text: str) -> str:
            parts = _MATH_RE.split(text)
            maths = [m.group() for m in _MATH_RE.finditer(text)]
            pieces = []
            for k, part in enumerate(parts):
                pieces.append(to_plain(part))
                if k < len(maths):
                    body = maths[k].strip("$")
                    if body.startswith(("\\(", "\\[")):
                        body = body[2:-2]
                    try:
                        pieces.append(convert(body))
                    except Exception:
                        pieces.append(body)
            return " ".join(" ".join(pieces).split())

        return render

    try:
        import flatlatex

        out["flatlatex (math) + ours (text)"] = math_only(flatlatex.converter().convert)
    except ImportError:
        pass
    try:
        import unicodeit

        out["unicodeit (math) + ours (text)"] = math_only(unicodeit.replace)
    except ImportError:
        pass
    try:
        import pypandoc

        def pandoc(text: str) -> str:
            return " ".join(pypandoc.convert_text(text, "plain", format="latex", extra_args=["--wrap=none"]).split())

        out["pandoc (one process per abstract)"] = pandoc
    except ImportError:
        pass
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", action="store_true", help="also measure the alternative renderers")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    load_at_start = load_average()
    papers = load_corpora()
    texts = [text for _, text in papers]
    plains = [to_plain(text) for text in texts]
    result = {
        "abstracts": len(papers),
        "with_latex": sum(bool(re.search(r"[\\$]", t)) for t in texts),
        "renderer": "neurips_abstracts.text.plain.to_plain",
        "reasons": REASONS,
        "abstracts_per_second": throughput(to_plain, texts),
        **evaluate(papers, plains),
    }
    if args.candidates:
        result["candidates"] = {}
        for name, render in candidates().items():
            sample = texts if "pandoc" not in name else [t for t in texts if re.search(r"[\\$]", t)]
            started = time.perf_counter()
            outs = []
            for text in sample:
                try:
                    outs.append(render(text))
                except Exception:
                    outs.append(text)
            seconds = time.perf_counter() - started
            rows = [p for p in papers if p[1] in set(sample)] if sample is not texts else papers
            result["candidates"][name] = {"abstracts": len(sample), "abstracts_per_second": len(sample) / seconds,
                                          "counts": evaluate(rows, outs)["counts"]}
            print(name, result["candidates"][name])
    result |= {"machine": machine(), "command": command("benchmarks.plain_fidelity"),
               "load_average": {"start": load_at_start, "end": load_average()}}
    print(json.dumps({k: result[k] for k in ("abstracts", "abstracts_per_second", "counts", "abstracts_with")}, indent=2))
    if not args.no_write:
        write_results(RESULTS, result)


if __name__ == "__main__":
    main()
