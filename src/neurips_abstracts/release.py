"""Everything in dist/ besides the Parquet files, rendered from the build.

The dataset card (dist/README.md), DATASHEET.md, datapackage.json (Frictionless v2),
croissant.json (Croissant 1.1 with the RAI fields), LICENSE.md, CHANGELOG.md and SHA256SUMS.
Every number comes from :class:`Release`, which the build fills from its own tables.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import texts
from .config import BuildConfig
from .guard import RELEASE_SUMS as SUMS  # defined where the folders a command replaces are checked
from .resources import CHECKOUT_ROOT
from .schema import TABLES, hf_features_dict, table_schema
from .write import data_path

PROJECT_ROOT = CHECKOUT_ROOT
CARD = "README.md"
DATASHEET = "DATASHEET.md"


def changelog_date(changelog: str, version: str) -> str | None:
    """The date of ``version``'s CHANGELOG entry (``## 1.2.0 (2027-01-31)``): written once, when
    the release is made, so it marks the release and rebuilding never changes it."""
    m = re.search(rf"^## {re.escape(version)} \((\d{{4}}-\d{{2}}-\d{{2}})\)\s*$", changelog, re.M)
    return m[1] if m else None


@dataclass(frozen=True)
class DataFile:
    path: str
    size: int
    sha256: str
    rows: int
    nbytes: int  # in-memory Arrow size: what `datasets` records as a split's num_bytes


@dataclass(frozen=True)
class Release:
    version: str
    config: BuildConfig
    stats: dict
    manifest: dict
    data: dict[str, DataFile]  # table name -> its Parquet file
    changelog: str
    repo_id: str  # the Hub dataset repository every file names
    maintainers: str

    @property
    def date_published(self) -> str | None:
        """The date of this version's CHANGELOG entry."""
        return changelog_date(self.changelog, self.version)

    @property
    def url(self) -> str:
        return f"https://huggingface.co/datasets/{self.repo_id}"

    @property
    def license_url(self) -> str:
        return f"{self.url}/blob/v{self.version}/LICENSE.md"

    def citation(self) -> str:
        return texts.citation(self.version, self.repo_id, self.maintainers)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "1M<n<10M"


def _yaml(data) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)


def column_table(table: str) -> str:
    """Markdown table of a table's columns, straight from schema/."""
    rows = ["| column | type | required | description |", "|---|---|---|---|"]
    for f in table_schema(table)["fields"]:
        required = "yes" if f.get("constraints", {}).get("required") else "no"
        description = f["description"].replace("|", "\\|")
        rows.append(f"| `{f['name']}` | {f['type']} | {required} | {description} |")
    return "\n".join(rows)


def _q(stats: dict, key: str) -> str:
    q = stats[key]
    return (
        f"min {q['min']}, 5th percentile {q['p05']}, median {q['median']}, mean {q['mean']}, "
        f"95th percentile {q['p95']}, max {q['max']}"
    )


def relation_table(stats: dict) -> str:
    rows = ["| relation | occurrences |", "|---|---|"]
    rows += [f"| {r} | {n} |" for r, n in stats["relations"].items()]
    return "\n".join(rows)


def inputs_table(manifest: dict, stats: dict) -> str:
    """The dumps in the order they were added, with what their metadata files say."""
    canonical = {f["file"]: f["canonical"] for f in stats["per_file"]}
    rows = ["| dump | added | crawled | records | canonical records | sha256 |", "|---|---|---|---|---|---|"]
    for f in manifest["inputs"]:
        rows.append(
            f"| `{f['file']}` | {f.get('added') or 'unknown'} | {f.get('crawled_at') or 'unknown'} | {f['records']} "
            f"| {canonical.get(f['file'], 0)} | `{f['sha256']}` |"
        )
    return "\n".join(rows)


def ids_block(stats: dict, version: str) -> str:
    ids = stats["ids"]
    return (
        f"Ids listed in `ids`: {ids['current']} current, {ids['merged']} merged, {ids['removed']} removed; "
        f"{ids['first_published_in_this_version']} first published and {ids['retired_in_this_version']} "
        f"retired in version {version}."
    )


def statistics_block(r: Release) -> str:
    s = r.stats
    near = s["near_duplicate_similarity"]
    lines = [
        f"- Dataset version: {r.version}; build fingerprint `{r.manifest['fingerprint']}`",
        f"- Dumps read: {s['dumps']}; raw records: {s['records']}; papers: {s['papers']}",
        f"- Duplicates: {s['duplicates']} ({s['relations']['exact_duplicate']} exact, "
        f"{s['relations']['near_duplicate']} near); papers with more than one version: {s['papers_with_revisions']}",
        "- Similarity of each near-duplicate occurrence to its paper's canonical text, over the "
        f"{s['relations']['near_duplicate']} near duplicates: "
        + (f"min {near['min']:.3f}, median {near['median']:.3f}" if near else "no near duplicates in this build"),
        f"- Words per paper (`word_count` of the {s['papers']} papers' canonical abstracts): {_q(s, 'word_count')}",
        f"- Characters per paper (the {s['papers']} canonical `abstract` texts): {_q(s, 'abstract_chars')}",
        f"- Papers whose abstract links a URL: {s['papers_with_urls']}",
        "- Venues and years: " + ", ".join(f"{k} ({v} papers)" for k, v in s["venues"].items()),
        "",
        "Percentiles and medians are nearest-rank values (an actual value of the data, never an "
        "average of two); means are rounded to one decimal.",
    ]
    return "\n".join(lines)


def config_block(config: BuildConfig) -> str:
    return "```yaml\n" + _yaml(config.as_dict()) + "```"


def _references(table: str) -> list[str]:
    """``table.col`` references ``other.col`` sentences, from the schema's foreign keys."""
    return [
        f"`{table}.{a}` references `{fk['reference']['resource']}.{b}`"
        for fk in table_schema(table).get("foreignKeys", [])
        for a, b in zip(fk["fields"], fk["reference"]["fields"])
    ]


CARD_TEMPLATE = "templates/dataset_card.md"  # the card's layout, a Jinja template; its paragraphs: texts.PROSE_FILE


def card_data(r: Release):
    """The card's YAML metadata, as huggingface_hub's DatasetCardData."""
    from huggingface_hub.repocard_data import DatasetCardData  # not via repocard: see render_card

    default = TABLES[0]
    return DatasetCardData(
        pretty_name=texts.TITLE,
        license=texts.CARD_LICENSE,
        license_name=texts.CARD_LICENSE_NAME,
        license_link="LICENSE.md",
        language=["en"],
        # No labels, summaries or relevance judgements: a corpus to search, not a supervised task.
        task_categories=["text-retrieval"],
        size_categories=[_size_category(r.stats["papers"])],
        tags=["neurips", "scientific-abstracts", "deduplication", "provenance"],
        configs=[
            {
                "config_name": table,
                "data_files": [{"split": "train", "path": data_path(table)}],
                **({"default": True} if table == default else {}),
            }
            for table in TABLES
        ],
        dataset_info=[
            {
                "config_name": table,
                "features": [{"name": k, "dtype": v["dtype"]} for k, v in hf_features_dict(table).items()],
                "splits": [{"name": "train", "num_bytes": r.data[table].nbytes, "num_examples": r.data[table].rows}],
                "download_size": r.data[table].size,
                "dataset_size": r.data[table].nbytes,
            }
            for table in TABLES
        ],
    )


def render_card(data, template: str, **fields) -> str:
    """``DatasetCard.from_template(data, template_str=template, **fields).content``, made as that
    method makes it: the Jinja template rendered with the card data's YAML as ``card_data``, its
    fields and ``fields``. huggingface_hub's repocard module imports its whole Hub client (hf_api,
    file_download, httpx) to define DatasetCard, a fifth of a seeds build's CPU; the card is made
    of the data class and Jinja alone. tests/test_release.py builds the card with DatasetCard
    itself and compares the bytes."""
    import jinja2

    return jinja2.Template(template).render(card_data=data.to_yaml(), **{**data.to_dict(), **fields})


def card(r: Release) -> str:
    """The dataset card: huggingface_hub's DatasetCard from the template ``CARD_TEMPLATE``
    (rendered by ``render_card``)."""
    from .resources import read_text

    default = TABLES[0]
    config_arg = {t: "" if t == default else f'"{t}", ' for t in TABLES}
    content = render_card(
        card_data(r),
        read_text(CARD_TEMPLATE),
        title=texts.TITLE,
        version=r.version,
        summary=texts.SUMMARY,
        configs="\n".join(
            f"- **`{t}`**{' (default)' if t == default else ''}, {r.data[t].rows} rows: {table_schema(t)['description']}"
            for t in TABLES
        ),
        not_included=texts.NOT_INCLUDED,
        loads="\n".join(
            f'{t} = load_dataset("{r.repo_id}", {config_arg[t]}revision="v{r.version}", split="train")' for t in TABLES
        ),
        default=default,
        hf=f"hf://datasets/{r.repo_id}@v{r.version}",
        paths={t: data_path(t) for t in TABLES},
        columns="\n\n".join(f"### {t}\n\n{column_table(t)}" for t in TABLES),
        references="; ".join(ref for t in TABLES for ref in _references(t)),
        stable_ids=texts.STABLE_IDS,
        ids_counts=ids_block(r.manifest["counts"], r.version),
        statistics=statistics_block(r),
        preprocessing=texts.preprocessing(r.config),
        relations=relation_table(r.stats),
        config=config_block(r.config),
        inputs=inputs_table(r.manifest, r.stats),
        license_text=texts.LICENSE_TEXT,
        intended_uses=texts.INTENDED_USES,
        out_of_scope=texts.OUT_OF_SCOPE,
        limitations=texts.LIMITATIONS,
        biases=texts.BIASES,
        personal_info=texts.PERSONAL_INFO,
        citation=r.citation(),
        changelog=r.changelog.strip().removeprefix("# Changelog").strip(),
    )
    return content.rstrip("\n") + "\n"  # Jinja drops the template's final newline


def datasheet(r: Release) -> str:
    s = r.stats
    return f"""# Datasheet: {texts.TITLE} (version {r.version})

Answers to the questions of *Datasheets for Datasets* (Gebru et al.), for this release.
Generated by the build; every number below comes from the build of version {r.version}
(fingerprint `{r.manifest['fingerprint']}`).

## Motivation

- **For what purpose was the dataset created?** {texts.SUMMARY}
- **Who created it?** The maintainers of this repository, from dumps contributed by pull request.
- **Who funded it?** No one; it is volunteer work.

## Composition

- **What do the instances represent?** A paper of {", ".join(s['venues'])}, by its abstract
  (`papers`), and each raw record of the dumps it was seen in (`occurrences`).
- **How many instances are there?** {s['papers']} papers from {s['records']} raw records in
  {s['dumps']} dumps.
- **Is it a sample?** It holds every abstract present in the dumps; papers absent from all dumps
  are absent here.
- **What data does each instance consist of?** See the column tables in the dataset card; text,
  derived plain text, URLs, counts and provenance. No labels.
- **What is not there?** {texts.NOT_INCLUDED}
- **Is any information missing?** `urls` is null when an abstract links nothing. Abstracts that
  were truncated in a dump stay truncated.
- **Relationships between instances:** occurrences point at their paper; a paper's occurrences
  are its copies and revisions.
- **Recommended splits:** one `train` split; the data has no held-out part.
- **Errors, noise, redundancy:** duplicates are kept as occurrences and counted:

{relation_table(s)}

- **Is it self-contained?** Yes; it links nothing it depends on (see above for joining other metadata).
- **Confidential or offensive data?** No; these are public scientific abstracts.
- **Does it identify people?** {texts.PERSONAL_INFO}

Statistics of this build:

{statistics_block(r)}

## Collection process

- **How was the data acquired?** {texts.COLLECTION}
- **Who was involved?** Contributors who saved the dumps; no crowdworkers.
- **Time frame:** the dumps were saved after NeurIPS 2026 published its paper list.
- **Ethical review:** none was needed for public abstracts without personal data beyond what
  the authors published.

Dumps of this build:

{inputs_table(r.manifest, s)}

## Preprocessing, cleaning, labelling

{texts.preprocessing(r.config)}

The raw text of every record is kept in `occurrences.text_raw`, byte for byte. Configuration:

{config_block(r.config)}

## Uses

- **Intended uses:** {texts.INTENDED_USES}
- **Not suited for:** {texts.OUT_OF_SCOPE}
- **Limitations:** {texts.LIMITATIONS}
- **Biases:** {texts.BIASES}
- **Impact:** {texts.SOCIAL_IMPACT}

## Distribution

- **How is it distributed?** As Parquet files with a dataset card on the Hugging Face Hub
  (`{r.repo_id}`, tag `v{r.version}`, {r.url}), with a Frictionless data package and Croissant
  metadata beside them.
- **Licence and terms:** {texts.LICENSE_TEXT}

## Maintenance

- {texts.MAINTENANCE}
- **Versioning:** semantic versions, set in `pyproject.toml`; the changelog lists every release
  with the ids it added, merged and removed.
- **Will ids stay valid?** {texts.STABLE_IDS}
- {ids_block(r.manifest["counts"], r.version)}
"""


def _frictionless_schema(table: str) -> dict:
    spec = dict(table_schema(table))
    # Parquet holds true nulls, so an empty string is a value, not a missing one.
    spec["missingValues"] = []
    return spec


def _authors_license(r: Release) -> dict:
    return {"path": r.license_url, "title": texts.AUTHORS_TERMS_TITLE}


def _cc0_license() -> dict:
    return {"name": texts.CC0_ID, "path": texts.CC0_URL, "title": texts.CC0_TERMS_TITLE}


def datapackage(r: Release) -> dict:
    """The Frictionless v2 descriptor, as the JSON the standard defines. Kept as a dict rather
    than built with frictionless's Package/Resource: after the build's own imports, importing
    frictionless and building those objects for the seeds took 0.44-0.51 s of CPU (0.15-0.20 s
    of it building), on top of the card's huggingface_hub and Jinja (0.31-0.41 s), and its
    ``to_descriptor()`` adds ``"scheme": "file"`` and drops ``$schema``: nothing it would give
    the bytes. frictionless validates the result instead: `verify` runs its validation
    (profile, types, primary and foreign keys of every row) on every release."""
    return {
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "name": "neurips-2026-abstracts",
        "title": texts.TITLE,
        "description": texts.SUMMARY,
        "version": r.version,
        "homepage": r.url,
        "licenses": [_authors_license(r), _cc0_license()],
        "keywords": ["NeurIPS", "abstracts", "deduplication", "provenance"],
        "resources": [
            {
                "name": table,
                "type": "table",
                "path": r.data[table].path,
                "format": "parquet",
                "mediatype": "application/vnd.apache.parquet",
                # No "bytes": frictionless cannot count the bytes of a Parquet source and reports
                # every such resource invalid. It does not check "hash" either: `verify` does.
                "hash": f"sha256:{r.data[table].sha256}",
                "description": table_schema(table)["description"],
                "schema": _frictionless_schema(table),
                # A table without the authors' text is wholly ours: say so where it differs from the package.
                **({} if texts.authored(f["name"] for f in table_schema(table)["fields"]) else {"licenses": [_cc0_license()]}),
            }
            for table in TABLES
        ],
    }


_CROISSANT_TYPES = {"string": "sc:Text", "integer": "sc:Integer", "number": "sc:Float", "boolean": "sc:Boolean"}


def croissant(r: Release) -> dict:
    context = {
        "@language": "en",
        "@vocab": "https://schema.org/",
        "citeAs": "cr:citeAs",
        "column": "cr:column",
        "conformsTo": "dct:conformsTo",
        "cr": "http://mlcommons.org/croissant/",
        "rai": "http://mlcommons.org/croissant/RAI/",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "dct": "http://purl.org/dc/terms/",
        "equivalentProperty": "cr:equivalentProperty",
        "examples": {"@id": "cr:examples", "@type": "@json"},
        "extract": "cr:extract",
        "field": "cr:field",
        "fileProperty": "cr:fileProperty",
        "fileObject": "cr:fileObject",
        "fileSet": "cr:fileSet",
        "format": "cr:format",
        "includes": "cr:includes",
        "isLiveDataset": "cr:isLiveDataset",
        "jsonPath": "cr:jsonPath",
        "key": "cr:key",
        "md5": "cr:md5",
        "parentField": "cr:parentField",
        "path": "cr:path",
        "recordSet": "cr:recordSet",
        "references": "cr:references",
        "regex": "cr:regex",
        "repeated": "cr:repeated",
        "replace": "cr:replace",
        "samplingRate": "cr:samplingRate",
        "sc": "https://schema.org/",
        "separator": "cr:separator",
        "source": "cr:source",
        "subField": "cr:subField",
        "transform": "cr:transform",
    }
    record_sets = []
    for table in TABLES:
        spec = table_schema(table)
        fk = {
            a: f"{k['reference']['resource']}/{b}"
            for k in spec.get("foreignKeys", [])
            for a, b in zip(k["fields"], k["reference"]["fields"])
        }
        fields = []
        for f in spec["fields"]:
            field = {
                "@type": "cr:Field",
                "@id": f"{table}/{f['name']}",
                "name": f"{table}/{f['name']}",
                "description": f["description"],
                "dataType": _CROISSANT_TYPES[f["type"]],
                "source": {"fileObject": {"@id": f"{table}-parquet"}, "extract": {"column": f["name"]}},
            }
            if f["name"] in fk:
                field["references"] = {"field": {"@id": fk[f["name"]]}}
            fields.append(field)
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": table,
                "name": table,
                "description": spec["description"],
                "key": [{"@id": f"{table}/{k}"} for k in spec["primaryKey"]],
                "field": fields,
            }
        )
    return {
        "@context": context,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.1",
        "name": "neurips-2026-abstracts",
        "description": texts.SUMMARY,
        "version": r.version,
        "license": [
            {"@type": "sc:CreativeWork", "name": texts.AUTHORS_TERMS_TITLE, "url": r.license_url},
            {"@type": "sc:CreativeWork", "name": texts.CC0_TERMS_TITLE, "url": texts.CC0_URL},
        ],
        "url": r.url,
        "citeAs": r.citation(),
        "keywords": ["NeurIPS", "abstracts", "deduplication", "provenance"],
        "creator": {"@type": "sc:Organization", "name": r.maintainers},
        **({"datePublished": r.date_published} if r.date_published else {}),
        "rai:dataCollection": texts.COLLECTION,
        "rai:dataCollectionType": "Web scraping",
        "rai:dataPreprocessingProtocol": texts.preprocessing(r.config),
        "rai:dataLimitations": texts.LIMITATIONS,
        "rai:dataBiases": texts.BIASES,
        "rai:personalSensitiveInformation": texts.PERSONAL_INFO,
        "rai:dataUseCases": texts.INTENDED_USES,
        "rai:dataSocialImpact": texts.SOCIAL_IMPACT,
        "rai:dataReleaseMaintenancePlan": texts.MAINTENANCE,
        "distribution": [
            {
                "@type": "cr:FileObject",
                "@id": f"{table}-parquet",
                "name": f"{table}-parquet",
                "description": f"Parquet file of the {table} table.",
                "contentUrl": r.data[table].path,
                "contentSize": f"{r.data[table].size} B",
                "encodingFormat": "application/x-parquet",
                "sha256": r.data[table].sha256,
            }
            for table in TABLES
        ],
        "recordSet": record_sets,
    }


def sha256sums(folder: Path, known: dict[str, str] | None = None) -> str:
    """``sha256sum``-compatible listing of every file in ``folder`` except SHA256SUMS itself;
    ``known`` gives digests already computed (the Parquet files), so they are not read again."""
    known = known or {}
    lines = []
    # Sorted by the relative path as text: Path objects sort without regard to case on Windows.
    for rel, path in sorted((p.relative_to(folder).as_posix(), p) for p in folder.rglob("*") if p.is_file()):
        if rel != SUMS:
            lines.append(f"{known.get(rel) or sha256_file(path)}  {rel}")
    return "\n".join(lines) + "\n"
