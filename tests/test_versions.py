"""One source for versions (issue 34): the build's version is pyproject.toml's, a release is a
version CHANGELOG.md dates, and no file names a tag as made before its release step."""

import json
import re

import pytest

from neurips_abstracts.release.contents import latest_release

from tests.helpers import ROOT, SEED_DIR


def _build(tmp_path, monkeypatch, changelog: str, version: str = "9.9.0"):
    from neurips_abstracts import build as build_module
    from neurips_abstracts.build import build
    from neurips_abstracts.build.stages import write as write_stage
    from neurips_abstracts.core import resources
    from neurips_abstracts.release import manifest as manifest_module

    real = resources.read_text
    monkeypatch.setattr(write_stage, "read_resource", lambda rel: changelog if rel == "CHANGELOG.md" else real(rel))
    monkeypatch.setattr(build_module, "dataset_version", lambda: version)
    monkeypatch.setattr(write_stage, "dataset_version", lambda: version)
    monkeypatch.setattr(manifest_module, "dataset_version", lambda: version)
    build(SEED_DIR, tmp_path / "dist", previous=None)
    dist = tmp_path / "dist"
    return ((dist / "README.md").read_text(), (dist / "DATASHEET.md").read_text(),
            json.loads((dist / "croissant.json").read_text()))


def test_an_unreleased_build_names_its_tag_as_one_still_to_be_made(tmp_path, monkeypatch):
    card, sheet, croissant = _build(tmp_path, monkeypatch, "# Changelog\n\n## 9.8.0 (2027-01-01)\n\n- Before.\n")
    to_be = "to be tagged `v9.9.0` by `publish`"
    assert f"{to_be} (version 9.9.0 is not released yet)" in sheet
    assert "tag `v9.9.0`" not in sheet
    assert "Version 9.9.0 is not released yet: the examples pin `v9.9.0`, to be tagged by `publish` when it is; " \
           "until then, pin `v9.8.0`, the newest release, or load a local copy." in card
    licence = [lic["url"] for lic in croissant["license"] if "huggingface.co" in lic["url"]]
    assert licence and all("/blob/main/" in url for url in licence), licence
    assert "v9.9.0" not in json.dumps(croissant)


def test_a_released_build_names_its_tag(tmp_path, monkeypatch):
    card, sheet, croissant = _build(tmp_path, monkeypatch, "# Changelog\n\n## 9.9.0 (2027-02-01)\n\n- Now.\n")
    assert "tag `v9.9.0`, made by `publish`" in sheet and "to be tagged" not in sheet
    assert "Pinned to tag `v9.9.0`, which `publish` makes as it uploads this release." in card
    assert "to be tagged" not in card
    assert any(lic["url"].endswith("/blob/v9.9.0/LICENSE.md") for lic in croissant["license"])


@pytest.mark.parametrize("changelog, version, pinned, says", [
    ("# Changelog\n\n## 1.1.0 (2026-11-30)\n", "1.2.0", "v1.1.0",
     "Version 1.1.0 is the newest release in CHANGELOG.md; the build in `dist/` is version 1.2.0, to be tagged `v1.2.0` by `publish` when it is released."),
    ("# Changelog\n\n## 1.2.0 (2026-12-30)\n\n## 1.1.0 (2026-11-30)\n", "1.2.0", "v1.2.0",
     "Version 1.2.0, the newest release in CHANGELOG.md, is the build in `dist/` (tag `v1.2.0`, made by `publish`)."),
])
def test_readme_pins_the_newest_release_and_says_what_dist_is(changelog, version, pinned, says):
    from neurips_abstracts.release.docs import pinned_load_block

    block = pinned_load_block({"dataset_version": version}, "o/n", changelog)
    assert block.startswith(says + "\n")
    assert set(re.findall(r"v\d+\.\d+\.\d+", block.split("\n", 1)[1])) == {pinned}


def test_the_committed_readme_pins_the_newest_release_of_the_changelog():
    """The committed README (a generated block) and CHANGELOG.md agree: the pinned tag is the
    newest dated entry's, whatever version pyproject.toml is at."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- generated:pinned-load")[1].split("<!-- /generated:pinned-load")[0]
    newest = latest_release((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    code = block.split("```", 1)[1]
    assert set(re.findall(r"(?:revision=\"|@)(v\d+\.\d+\.\d+)", code)) == {f"v{newest}"}
