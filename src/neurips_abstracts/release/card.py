"""The dataset card (dist/README.md): huggingface_hub's DatasetCard, its YAML metadata and its
text from the template and paragraphs in templates/."""

from __future__ import annotations

import re

from ..core.names import table_folder
from ..core.schema import TABLES, distinct_columns, free_text_columns, hf_features_dict, table_schema
from . import texts
from .contents import LICENSE, Release
from .doc_blocks import column_table, config_block, ids_block, inputs_table, relation_table, statistics_block


def _size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "1M<n<10M"


def _references(table: str) -> list[str]:
    """``table.col`` references ``other.col`` sentences, from the schema's foreign keys."""
    return [
        f"`{table}.{a}` references `{fk['reference']['resource']}.{b}`"
        for fk in table_schema(table).get("foreignKeys", [])
        for a, b in zip(fk["fields"], fk["reference"]["fields"])
    ]


def local_copy_name(repo_id: str) -> str:
    """The folder the card's local examples name: the repository's name, as `hf download
    --local-dir` would be given it."""
    return repo_id.rpartition("/")[2]


CARD_TEMPLATE = "templates/dataset_card.md"  # the card's layout, a Jinja template; its paragraphs: texts.PROSE_FILE


def card_data(r: Release):
    """The card's YAML metadata, as huggingface_hub's DatasetCardData."""
    from huggingface_hub.repocard_data import DatasetCardData  # not via repocard: see render_card

    default = TABLES[0]
    return DatasetCardData(
        pretty_name=texts.TITLE,
        license=texts.CARD_LICENSE,
        license_name=texts.CARD_LICENSE_NAME,
        license_link=LICENSE,
        language=["en"],
        # No labels, summaries or relevance judgements: a corpus to search, not a supervised task.
        task_categories=["text-retrieval"],
        size_categories=[_size_category(r.stats["papers"])],
        tags=["neurips", "scientific-abstracts", "deduplication", "provenance"],
        configs=[
            {
                "config_name": table,
                "data_files": [{"split": "train", "path": _one_or_list(r.data[table].paths)}],
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


def _one_or_list(paths: list[str]) -> str | list[str]:
    return paths[0] if len(paths) == 1 else paths


def render_card(data, template: str, **fields) -> str:
    """``DatasetCard.from_template(data, template_str=template, **fields).content``, made as that
    method makes it: the Jinja template rendered with the card data's YAML as ``card_data``, its
    fields and ``fields``. huggingface_hub's repocard module imports its whole Hub client (hf_api,
    file_download, httpx) to define DatasetCard, a fifth of a seeds build's CPU; the card is made
    of the data class and Jinja alone. tests/release/test_card.py builds the card with DatasetCard
    itself and compares the bytes, and `verify` reads every built card with DatasetCard.load.

    DatasetCard would also parse the result (and fail on a bad metadata block) at build time; in
    its place the card must open with its data's YAML, exactly, between ``---`` lines, which is
    what DatasetCard.load reads back as the same data."""
    import jinja2

    metadata_yaml = data.to_yaml()  # a YAML dump of the whole metadata: made once
    content = jinja2.Template(template).render(card_data=metadata_yaml, **{**data.to_dict(), **fields})
    if not content.startswith(f"---\n{metadata_yaml}\n---\n") or "\r" in content:
        raise ValueError("the dataset card must open with its metadata block and hold no carriage return: "
                         "check templates/dataset_card.md")
    return content


def card(r: Release) -> str:
    """The dataset card: huggingface_hub's DatasetCard from the template ``CARD_TEMPLATE``
    (rendered by ``render_card``)."""
    from ..core.resources import read_text

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
        local_loads="\n".join(
            [f'{t} = load_dataset(local_copy, {config_arg[t]}split="train")  # config "{t}"' for t in TABLES]
            + [f'{t}_again = load_dataset("parquet", data_files=f"{{local_copy}}/data/{t}/*.parquet", split="train")  # the same, from its files'
               for t in TABLES[-1:]]),
        load_note=r.load_note(),
        local_copy=local_copy_name(r.repo_id),
        repo_id=r.repo_id,
        hf=f"hf://datasets/{r.repo_id}@v{r.version}",
        # a table of one file is read by its name; one of several shards by its folder's glob
        paths={t: r.data[t].paths[0] if len(r.data[t].shards) == 1 else f"{table_folder(t)}/*.parquet" for t in TABLES},
        columns="\n\n".join(f"### {t}\n\n{column_table(t)}" for t in TABLES),
        references="; ".join(ref for t in TABLES for ref in _references(t)),
        stable_ids=texts.STABLE_IDS,
        ids_counts=ids_block(r.manifest["counts"], r.version),
        statistics=statistics_block(r),
        preprocessing=texts.preprocessing(r.config),
        relations=relation_table(r.stats),
        config=config_block(r.config),
        row_group_mib=r.config.parquet_row_group_bytes // 2**20,
        shard_mib=r.config.parquet_shard_bytes // 2**20,
        free_text=", ".join(f"`{t}.{c}`" for t in TABLES for c in free_text_columns(t)),
        distinct=", ".join(f"`{t}.{c}`" for t in TABLES for c in distinct_columns(t)),
        inputs=inputs_table(r.manifest, r.stats),
        license_text=texts.LICENSE_TEXT,
        intended_uses=texts.INTENDED_USES,
        out_of_scope=texts.OUT_OF_SCOPE,
        limitations=texts.LIMITATIONS,
        biases=texts.BIASES,
        personal_info=texts.PERSONAL_INFO,
        citation=r.citation(),
        # under the card's own "## Changelog": each version's heading one level down
        changelog=re.sub(r"^## ", "### ", r.changelog.strip().removeprefix("# Changelog").strip(), flags=re.M),
    )
    return content.rstrip("\n") + "\n"  # Jinja drops the template's final newline
