"""Prose shared by the card, the datasheet, the data package and Croissant: said once, here."""

from __future__ import annotations

from .config import BuildConfig

TITLE = "NeurIPS 2026 paper abstracts"
REPO_ID = "neurips-abstracts/neurips-2026-abstracts"  # where `publish` puts it unless told otherwise
SUMMARY = (
    "Abstracts of the papers of NeurIPS 2026, parsed from dumps of a public paper-list site, "
    "normalized, deduplicated (exact and near duplicates) and released with full provenance: every "
    "raw record in the dumps is a row of the occurrences table pointing at its paper."
)

LICENSE_NAME = "other"
LICENSE_TITLE = "Abstracts: copyright of their authors. Structure, ids and provenance columns: CC0-1.0."
LICENSE_TEXT = (
    "The abstracts are the works of the papers' authors, who keep their copyright; they were "
    "published publicly on the conference's paper list, and this dataset redistributes them "
    "unchanged apart from the normalization documented below. No licence over the abstracts is "
    "granted here. Quoting abstracts for research, indexing, search and statistics is the use "
    "this release is made for; before republishing abstracts in bulk, or training a commercial "
    "model on them, check that your use is permitted where you are (for example as fair use or "
    "under a text-and-data-mining exception). Everything the build adds (paper ids, dedup "
    "decisions, provenance, the plain-text rendering and statistics) is dedicated to the public "
    "domain under CC0-1.0."
)
CC0_URL = "https://creativecommons.org/publicdomain/zero/1.0/"

INTENDED_USES = (
    "Bibliometrics and meta-research on NeurIPS 2026; search and retrieval over abstracts; topic "
    "modelling and trend analysis; evaluating summarization or classification on scientific text; "
    "teaching data engineering of deduplicated, provenance-tracked releases."
)
OUT_OF_SCOPE = (
    "Judging the quality of individual papers or authors; attributing texts to people (the dataset "
    "holds no author names); treating the abstracts as the final published versions (they are as "
    "crawled, and revisions may still arrive)."
)
LIMITATIONS = (
    "Coverage is what the dumps hold: papers missing from every dump are missing here, and "
    "truncated or partial abstracts in a dump stay as they are. Near-duplicate merging can, in "
    "principle, join two distinct papers whose abstracts share most of their word 3-grams, or keep "
    "apart two versions of one paper that were rewritten beyond the threshold; the benchmark in the "
    "repository measures both on real abstracts. abstract_plain is a best-effort rendering of "
    "LaTeX and markdown and may differ from how a PDF typesets the text."
)
BIASES = (
    "The abstracts reflect what NeurIPS accepted in 2026: English only, dominated by a few "
    "subfields and by institutions able to publish there. Which papers appear in the dumps depends "
    "on when and how the paper-list site was crawled."
)
PERSONAL_INFO = (
    "No author names, e-mail addresses or affiliations are collected. Abstracts may still name "
    "people, institutions or link to repositories that identify their authors; they are public "
    "scientific texts and are kept as published."
)
SOCIAL_IMPACT = (
    "Makes the scientific record of one conference easier to study and search. Bulk access to "
    "abstracts also makes it easier to train text generators on them; the terms of use above ask "
    "users to respect the authors' rights."
)
COLLECTION = (
    "Dumps are UTF-8 text files saved from a public paper-list site, one abstract per paragraph "
    "after a header line naming the venue and year. They arrive in raw/ by pull request; CI "
    "validates each one, and the build records the SHA-256 of every dump it read."
)
MAINTENANCE = (
    "New dumps arrive by pull request: CI validates them, rebuilds dist/ and shows what changed. "
    "Every release is a tagged commit on the Hugging Face Hub (v<version>), so a version once "
    "published never changes. Errors are reported as issues on the project's repository."
)


def preprocessing(config: BuildConfig) -> str:
    nd = config.near_dup
    return (
        "Parsing: the header gives venue and year; paragraphs separated by blank lines are "
        "records; hard-wrapped lines are joined with one space. Normalization, in this order: "
        "ftfy mojibake repair (without straightening quotes, expanding ligatures or unescaping "
        "HTML), Unicode NFC, control characters removed, white space collapsed; repeated until "
        "stable. Exact duplicates: equal normalized text. Near duplicates: case-folded word "
        f"{nd.shingle_size}-gram shingles, {nd.library} {nd.algorithm} MinHash ({nd.num_perm} "
        f"permutations, seed {nd.seed}), LSH with {nd.bands} bands x {nd.rows} rows, then the exact "
        f"Jaccard similarity of every candidate pair; pairs at or above {nd.threshold} are merged, "
        "and clusters are connected components. A paper's id is the SHA-256 (first 16 hex digits) "
        "of its earliest record's normalized text; its abstract is the version in its latest dump."
    )


def citation(version: str) -> str:
    return (
        "@misc{neurips2026abstracts,\n"
        f"  title        = {{{{{TITLE}}}}},\n"
        f"  version      = {{{version}}},\n"
        "  year         = {2026},\n"
        "  howpublished = {Hugging Face dataset},\n"
        f"  url          = {{https://huggingface.co/datasets/{REPO_ID}}},\n"
        "  note         = {Abstracts are the works of their authors}\n"
        "}"
    )
