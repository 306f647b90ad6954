"""Prose shared by the card, the datasheet, the data package and Croissant: said once, here."""

from __future__ import annotations

from .config import BuildConfig

TITLE = "NeurIPS 2026 paper abstracts"
SUMMARY = (
    "Abstracts of the papers of NeurIPS 2026, parsed from dumps of a public paper-list site, "
    "normalized, deduplicated (exact and near duplicates) and released with full provenance: every "
    "raw record in the dumps is a row of the occurrences table pointing at its paper."
)

# --- Terms of use: the one source of every licence statement of a release ---------------------
# Columns holding the authors' text or a rendering of it. Every other column, and every file
# besides the Parquet files, is the build's own work.
AUTHORED_COLUMNS = ("abstract", "abstract_plain", "text_raw")
CC0_ID = "CC0-1.0"
CC0_URL = "https://creativecommons.org/publicdomain/zero/1.0/"
CARD_LICENSE = "other"  # the Hub's word for "see license_link": no single licence covers the data
CARD_LICENSE_NAME = "abstracts-by-their-authors-metadata-cc0"
AUTHORS_TERMS_TITLE = "Abstracts: copyright of their authors; no licence over them is granted"
CC0_TERMS_TITLE = "Everything else (ids, deduplication, provenance, counts, metadata): CC0-1.0"
LICENSE_TEXT = (
    "The abstracts (columns " + ", ".join(f"`{c}`" for c in AUTHORED_COLUMNS) + ") are the works "
    "of the papers' authors, who keep their copyright; they were published publicly on the "
    "conference's paper list, and this dataset redistributes them unchanged apart from the "
    "normalization described in the dataset card's Deduplication section. No licence over the "
    "abstracts is granted here. Quoting abstracts for research, indexing, search and statistics is "
    "the use this release is made for; before republishing abstracts in bulk, or training a "
    "commercial model on them, check that your use is permitted where you are (for example as "
    "fair use or under a text-and-data-mining exception). Everything the build adds (paper ids, "
    "dedup decisions, provenance, counts and statistics, and this release's metadata files) is "
    "dedicated to the public domain under CC0-1.0 (" + CC0_URL + ")."
)


def authored(columns) -> list[str]:
    """The columns among ``columns`` that hold the authors' text."""
    return [c for c in columns if c in AUTHORED_COLUMNS]


def license_md() -> str:
    return (
        "# Terms of use\n\n"
        f"- {AUTHORS_TERMS_TITLE} (columns " + ", ".join(f"`{c}`" for c in AUTHORED_COLUMNS) + ").\n"
        f"- {CC0_TERMS_TITLE} ({CC0_URL}).\n\n"
        f"{LICENSE_TEXT}\n"
    )


NOT_INCLUDED = (
    "The release holds abstracts and nothing else about a paper: no titles, no author names or "
    "affiliations, no links to paper pages, PDFs or code, no accept/reject decisions, tracks or "
    "awards, and no external ids (the paper-list dumps carry only abstracts). To join such "
    "metadata from elsewhere (the conference's site, OpenReview, the proceedings), normalize the "
    "abstract of each of their records with `neurips_abstracts.normalize.normalize` and match its "
    "SHA-256 against `occurrences.text_sha256` (every version ever seen, not only the canonical "
    "one); records whose abstract was revised since can be matched with the near-duplicate "
    "settings of the Deduplication section. `paper_id` is this dataset's own id (see Stable ids), "
    "not an external one."
)

STABLE_IDS = (
    "A published `paper_id` never changes and never disappears. Each release keeps a registry in "
    "`build_manifest.json`: every raw record it ever published (dump SHA-256 and the byte offset "
    "where the record starts) with the id it was first published under, and every dump's facts "
    "(crawl date, date added, source) by SHA-256. A build decides ids from the records in `raw/` "
    "and that registry alone, never from text and never from the order in which dumps came and "
    "went: revisions, new dumps under any file name, old crawls contributed late and changes of "
    "normalization or of how dumps are split into records move no id. A "
    "paper new in a release gets the first 16 hex digits of the SHA-256 of "
    "`<dump sha256>:<byte_start>` of its founding record (its earliest record, in the order dumps "
    "were added, when it first appeared). When two published papers turn out to be one, the older "
    "id (first published earlier; then the one whose records were added first) stays and the "
    "other becomes `merged` into it; if they part again, the merged id comes back. A paper whose "
    "every record is gone becomes `removed`, and comes back when one of its records does. The "
    "promises, all tested by a stateful test over random histories of adds, removals, "
    "byte-for-byte restores, renames and metadata edits (the contracts of every build check, "
    "against the previous release, that every published id is listed and resolves, that no paper "
    "holds two current ids and that no `first_release` changed): every id "
    "ever published is in `ids` and resolves (`current`: a paper; `merged`: a current paper "
    "holding records first published under it; `removed`: only while `raw/` holds no record first "
    "published under it); no id is given to a second founding record and no paper holds two "
    "current ids; an id's `first_release` never changes; a `raw/` holding the same dumps as an "
    "earlier release gives that release's papers, ids and statuses again; a rebuild of a release "
    "on itself changes nothing. The `ids` table lists every id that a build of `dist/` ever "
    "held, with its `status`, the paper holding it now (`paper_id`), "
    "`first_release` and `retired_release`: join stored ids with it once, on `ids.id`, and use "
    "its `paper_id`. Published dumps are immutable: a build refuses a dump whose bytes changed, "
    "and a dump's facts are those the release that first held its bytes recorded, whatever its "
    "file name or metadata file says now (a metadata file that contradicts them is refused). "
    "What is not stable: the canonical text of a paper (a newer crawl's revision replaces it), "
    "`abstract_plain` and the counts, which follow the dumps and the normalization of each release."
)

INTENDED_USES = (
    "Bibliometrics and meta-research on NeurIPS 2026; search and retrieval over abstracts; topic "
    "modelling and trend analysis; unsupervised or self-supervised work on scientific text (there "
    "are no labels, summaries or relevance judgements); teaching data engineering of deduplicated, provenance-tracked releases."
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
    "abstracts also makes it easier to train text generators on them; the terms of use (LICENSE.md) "
    "ask users to respect the authors' rights."
)
COLLECTION = (
    "Dumps are UTF-8 text files saved from a public paper-list site, one abstract per paragraph "
    "after a header line naming the venue and year. They arrive in raw/ by pull request; CI "
    "validates each one, and the build records the SHA-256 of every dump it read."
)
MAINTENANCE = (
    "New dumps arrive by pull request, each with its own metadata file: CI validates them, builds "
    "the dataset in a temporary folder and shows what changed; a maintainer then rebuilds dist/. "
    "Every release is a tagged commit on the Hugging Face Hub (v<version>), so a version once "
    "published never changes, and paper ids carry over from release to release (Stable ids). "
    "Errors are reported as issues on the project's repository."
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
        "and clusters are connected components. A paper keeps the id of the previous release (see "
        "Stable ids); its abstract is the version of its newest crawl: the record latest by its "
        "dump's crawl date (where unknown, the day the dump was added, since a page cannot be "
        "crawled after it was added), never by file name."
    )


def citation(version: str, repo_id: str, author: str) -> str:
    return (
        "@misc{neurips2026abstracts,\n"
        f"  author       = {{{{{author}}}}},\n"
        f"  title        = {{{{{TITLE}}}}},\n"
        f"  version      = {{{version}}},\n"
        "  year         = {2026},\n"
        "  howpublished = {Hugging Face dataset},\n"
        f"  url          = {{https://huggingface.co/datasets/{repo_id}}},\n"
        "  note         = {Abstracts are the works of their authors}\n"
        "}"
    )
