"""Prose shared by the card, the datasheet, the data package and Croissant: said once, here."""

from __future__ import annotations

from ..core.config import BuildConfig
from ..core.resources import read_text
from ..text.unicode import UNICODE_VERSION

PROSE_FILE = "templates/prose.yaml"  # the paragraphs maintainers edit, without touching Python


def _prose() -> dict[str, str]:
    import yaml

    # libyaml's safe loader where PyYAML has it: the same data, a twentieth of the pure-Python time
    return yaml.load(read_text(PROSE_FILE), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


_PROSE = _prose()
SUMMARY = _PROSE["summary"]
NOT_INCLUDED = _PROSE["not_included"]
STABLE_IDS = _PROSE["stable_ids"]
INTENDED_USES = _PROSE["intended_uses"]
OUT_OF_SCOPE = _PROSE["out_of_scope"]
LIMITATIONS = _PROSE["limitations"]
BIASES = _PROSE["biases"]
PERSONAL_INFO = _PROSE["personal_info"]
SOCIAL_IMPACT = _PROSE["social_impact"]
COLLECTION = _PROSE["collection"]
MAINTENANCE = _PROSE["maintenance"]

TITLE = "NeurIPS 2026 paper abstracts"

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
    "normalization described in the dataset card's Deduplication section (`text_raw` keeps "
    "each record's exact text) and, in `abstract_plain`, their rendering as plain text. No licence over the "
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






def preprocessing(config: BuildConfig) -> str:
    nd = config.near_dup
    return (
        "Parsing: the header gives venue and year; paragraphs separated by blank lines are "
        "records; hard-wrapped lines are joined with one space. Normalization, in this order: "
        "ftfy mojibake repair (without straightening quotes, expanding ligatures or unescaping "
        f"HTML), NFC of Unicode {UNICODE_VERSION} (pinned, whatever the Python), control characters removed, white space collapsed; repeated until "
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
