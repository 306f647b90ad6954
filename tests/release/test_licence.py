"""The terms a release states: no file of dist/ or of a release staged for another repository puts
the abstracts under CC0."""

import json
import re

import pytest
import yaml


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;])\s+|\n", text) if s.strip()]


@pytest.mark.parametrize("which", ["dist", "staged"])
def test_no_file_claims_cc0_over_the_abstracts(releases, which):
    from neurips_abstracts.release import texts

    folder = releases[which]
    package = json.loads((folder / "datapackage.json").read_text())
    titles = [lic.get("title") for lic in package["licenses"]]
    assert texts.AUTHORS_TERMS_TITLE in titles and texts.CC0_TERMS_TITLE in titles
    for res in package["resources"]:
        own = res.get("licenses")
        holds_abstracts = texts.authored(f["name"] for f in res["schema"]["fields"])
        assert own is None if holds_abstracts else own == [lic for lic in package["licenses"] if lic.get("name") == "CC0-1.0"]
    croissant = json.loads((folder / "croissant.json").read_text())
    assert {lic["name"] for lic in croissant["license"]} == {texts.AUTHORS_TERMS_TITLE, texts.CC0_TERMS_TITLE}
    front = yaml.safe_load((folder / "README.md").read_text().split("---")[1])
    assert front["license"] == "other" and front["license_link"] == "LICENSE.md"
    assert "No licence over the abstracts is granted" in (folder / "LICENSE.md").read_text()
    # No sentence of any file puts the abstracts under CC0.
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix != ".parquet":
            for sentence in _sentences(path.read_text()):
                if "CC0" in sentence:
                    assert "abstract" not in sentence.lower(), (path.name, sentence)
