"""The dataset card and the datasheet: what huggingface_hub makes of them, what they say, and
that they say it the same in a release staged for another repository."""

import json
import re

import pyarrow.parquet as pq
import pytest
import yaml

from neurips_abstracts.core.names import data_path
from neurips_abstracts.core.schema import TABLES, field_names

from tests.helpers import ROOT, SEED_DIR


def test_card_is_what_huggingface_hubs_dataset_card_makes(seeds_dist, tmp_path, monkeypatch):
    """The build renders the card without importing huggingface_hub's repocard module (see
    card.render_card): a build whose card is made by DatasetCard.from_template itself writes
    the same bytes."""
    from huggingface_hub import DatasetCard

    from neurips_abstracts.build import build
    from neurips_abstracts.release import card

    made = []

    def by_the_library(data, template, **fields):
        made.append(DatasetCard.from_template(data, template_str=template, **fields).content)
        return made[-1]

    monkeypatch.setattr(card, "render_card", by_the_library)
    build(SEED_DIR, tmp_path / "dist", previous=None)
    assert len(made) == 1 and (tmp_path / "dist" / "README.md").read_bytes() == (seeds_dist / "README.md").read_bytes()


def test_card_parses_and_agrees_with_parquet(seeds_dist):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(seeds_dist / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "other" and data["pretty_name"]
    configs = {c["config_name"]: c for c in data["configs"]}
    assert set(configs) == set(TABLES) and configs["papers"].get("default") is True
    for info in data["dataset_info"]:
        table = pq.read_table(seeds_dist / configs[info["config_name"]]["data_files"][0]["path"])
        assert [f["name"] for f in info["features"]] == table.column_names == field_names(info["config_name"])
        split = info["splits"][0]
        assert split["num_examples"] == table.num_rows
        assert split["num_bytes"] == table.nbytes == info["dataset_size"]
        assert info["download_size"] == (seeds_dist / data_path(info["config_name"])).stat().st_size
    text = (seeds_dist / "README.md").read_text()
    version = json.loads((seeds_dist / "build_manifest.json").read_text())["dataset_version"]
    for doc in ("README.md", "DATASHEET.md", "datapackage.json", "croissant.json"):
        assert version in (seeds_dist / doc).read_text(), doc
    for section in ("## Load it", "## Columns", "## Build statistics", "## Deduplication", "## Provenance",
                    "## Terms of use", "## Citation", "## Changelog", "hf://datasets/"):
        assert section in text


def test_the_cards_file_layout_names_what_the_files_hold(seeds_dist):
    """The columns the card says have no min/max statistics, and no dictionary, are those the
    Parquet files of the release were written without; the card says the release cost is modelled,
    and that what hf_xet sends is observed on a test storage, not on the Hub's."""
    text = " ".join((seeds_dist / "README.md").read_text(encoding="utf-8").split())
    without = {}
    for what, pattern in (("stats", r"on every column but free text \(([^:]*):"),
                          ("dictionary", r"no dictionary for the columns the schema declares unique \(([^:]*):")):
        without[what] = set(re.findall(r"`(\w+\.\w+)`", re.search(pattern, text)[1]))
    written = {"stats": set(), "dictionary": set()}
    for table in TABLES:
        rg = pq.ParquetFile(seeds_dist / data_path(table)).metadata.row_group(0)
        for c in range(rg.num_columns):
            col = rg.column(c)
            if not col.is_stats_set:
                written["stats"].add(f"{table}.{col.path_in_schema}")
            if not col.has_dictionary_page:
                written["dictionary"].add(f"{table}.{col.path_in_schema}")
    assert without == written and all(written.values())
    assert "modelled by the project's release-cost benchmark" in text
    assert "observed on the project's test storage, which stands in for the Hub's Xet storage but is not it" in text


def test_datasheet_has_the_seven_sections(seeds_dist):
    text = (seeds_dist / "DATASHEET.md").read_text()
    for section in ("Motivation", "Composition", "Collection process", "Preprocessing", "Uses", "Distribution", "Maintenance"):
        assert f"## {section}" in text


def test_card_yaml_has_no_absolute_paths_or_times(seeds_dist):
    front = (seeds_dist / "README.md").read_text().split("---")[1]
    assert yaml.safe_load(front)["configs"][0]["data_files"][0]["path"].startswith("data/")
    for f in seeds_dist.rglob("*"):
        if f.is_file() and f.suffix in {".md", ".json", ""}:
            text = f.read_text()
            assert "/tmp" not in text and "/work" not in text and "/home" not in text, f



def test_card_and_datasheet_say_what_they_hold(releases):
    folder = releases["dist"]
    card = (folder / "README.md").read_text()
    sheet = (folder / "DATASHEET.md").read_text()
    front = yaml.safe_load(card.split("---")[1])
    assert front["task_categories"] == ["text-retrieval"]  # no labels: nothing to classify or summarize
    for doc in (card, sheet):
        assert "no titles, no author names" in doc and "accept/reject decisions" in doc and "text_sha256" in doc
        assert "documented below" not in doc and "terms of use above" not in doc
        for section in re.findall(r"card's (\w+) section|the (\w+) section", doc):
            assert f"## {''.join(section)}" in card, section
    assert re.search(r"author\s+= \{\{.+\}\}", card)
    assert "median" in card and "q × (n − 1)" in card and "Words per paper" in card


def test_release_prose_comes_from_the_prose_file_and_all_of_it_is_used(seeds_dist, tmp_path, monkeypatch):
    """Maintainers edit the documents' prose in templates/prose.yaml: each paragraph of it reaches
    a release document, and an edit to the file (no Python touched) reaches the card."""
    from neurips_abstracts.build import build
    from neurips_abstracts.core import resources
    from neurips_abstracts.release import contents as release, texts

    prose = yaml.safe_load((ROOT / texts.PROSE_FILE).read_text(encoding="utf-8"))
    documents = "".join((seeds_dist / name).read_text(encoding="utf-8")
                        for name in (release.CARD, release.DATASHEET, "croissant.json", "datapackage.json"))
    documents = documents.replace("\\n", " ").replace('\\"', '"')
    unused = [key for key, text in prose.items() if text not in documents and json.dumps(text)[1:-1] not in documents]
    assert not unused, unused

    edited = {**prose, "summary": "An edited summary of the release."}
    (tmp_path / "templates").mkdir()
    (tmp_path / texts.PROSE_FILE).write_text(yaml.safe_dump(edited, allow_unicode=True), encoding="utf-8")
    real = resources.read_text
    monkeypatch.setattr(texts, "read_text", lambda rel: (tmp_path / rel).read_text(encoding="utf-8")
                        if rel == texts.PROSE_FILE else real(rel))
    monkeypatch.setattr(texts, "SUMMARY", texts._prose()["summary"])
    build(SEED_DIR, tmp_path / "dist", previous=None)
    assert "An edited summary of the release." in (tmp_path / "dist" / release.CARD).read_text(encoding="utf-8")


def test_the_cards_normalize_path_matches_every_text_sha256(seeds_dist):
    """The card tells users which function to normalize an abstract with before matching its
    SHA-256 against occurrences.text_sha256: that path imports, and it reproduces every hash."""
    import hashlib
    import importlib

    card = (seeds_dist / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"`(neurips_abstracts(?:\.\w+)+)\.(\w+)` and match its SHA-256", card)
    assert len(named) == 1
    module, name = named[0]
    normalize = getattr(importlib.import_module(module), name)
    table = pq.read_table(seeds_dist / data_path("occurrences"), columns=["text_raw", "text_sha256"]).to_pylist()
    assert table and all(
        hashlib.sha256(normalize(r["text_raw"]).encode("utf-8")).hexdigest() == r["text_sha256"] for r in table)


@pytest.mark.parametrize("template", ["\n---\n{{ card_data }}\n---\nx", "---\n{{ card_data }}\n---\n{{ cr }}", "# x\n"])
def test_a_card_template_without_its_metadata_block_first_is_refused(template):
    """render_card stands in for DatasetCard.from_template, which parses what it renders: a
    template whose output would not open with the card's metadata block is an error."""
    from huggingface_hub.repocard_data import DatasetCardData

    from neurips_abstracts.release.card import render_card

    data = DatasetCardData(license="other", pretty_name="x")
    assert render_card(data, "---\n{{ card_data }}\n---\nx").startswith("---\nlicense: other\n")
    with pytest.raises(ValueError, match="metadata block"):
        render_card(data, template, cr="a\rb")




def test_the_near_duplicate_similarity_line_gives_min_median_and_max_of_the_table(tmp_path):
    """The card's similarity line states the spread of the near duplicates' similarity as the
    other statistics lines do, min to max (a new-user trial found it stop at the median), each
    read back from the occurrences table."""
    import pyarrow.compute as pc

    from neurips_abstracts.build import build

    from tests.helpers.repo import abstract, revise, write_file

    raw = tmp_path / "raw"
    raw.mkdir()
    originals = [abstract(k, 90) for k in range(6)]
    write_file(raw / "000_0000000000000001.txt", originals)
    write_file(raw / "001_0000000000000002.txt", [revise(t, seed, k) for seed, (t, k) in
                                                   enumerate(zip(originals, (1, 2, 3, 4, 5, 6)))])
    build(raw, tmp_path / "dist")
    table = pq.read_table(sorted((tmp_path / "dist" / "data" / "occurrences").glob("*.parquet")))
    near = table.filter(pc.equal(table["relation"], "near_duplicate"))["similarity"].to_pylist()
    assert len(near) >= 3, near  # revisions of a few words rejoin their paper
    card = (tmp_path / "dist" / "README.md").read_text(encoding="utf-8")
    line = next(line for line in card.splitlines() if line.startswith("- Similarity of each near-duplicate"))
    middle = sorted(near)[round((len(near) - 1) / 2)]  # the card's median: a value of the data
    assert line.endswith(f"min {min(near):.3f}, median {middle:.3f}, max {max(near):.3f}"), line
