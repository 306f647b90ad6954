"""Files the package reads at run time, and the project settings kept in pyproject.toml.

``schema/*.json``, ``templates/``, ``CHANGELOG.md`` and ``pyproject.toml`` live at the top of the
repository, their only copies. A wheel carries them inside the package (``neurips_abstracts/_resources``, put there
by hatch's force-include), read with importlib.resources; a checkout (editable install or
``PYTHONPATH=src``) has no such folder and reads them where they live.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

CHECKOUT_ROOT = Path(__file__).resolve().parents[3]


def checkout() -> Path | None:
    """The checkout the package runs from (editable install, ``PYTHONPATH=src``,
    build_dataset.py), or None for an installed wheel, which has no project folder behind it."""
    is_checkout = (CHECKOUT_ROOT / "pyproject.toml").is_file() and (CHECKOUT_ROOT / "src" / __package__.rpartition(".")[0]).is_dir()
    return CHECKOUT_ROOT if is_checkout else None


def resource(rel: str) -> Traversable:
    """The run-time file ``rel`` (a path relative to the repository root, like ``schema/papers.schema.json``)."""
    packaged = resources.files(__package__.rpartition(".")[0]).joinpath("_resources", *rel.split("/"))
    if packaged.is_file():
        return packaged
    path = CHECKOUT_ROOT / rel
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: neither shipped in the package nor found in a checkout at {CHECKOUT_ROOT}")
    return path


def read_text(rel: str) -> str:
    return resource(rel).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def pyproject() -> dict:
    return tomllib.loads(read_text("pyproject.toml"))


def dataset_version() -> str:
    """The dataset's version: the ``version`` in pyproject.toml, the one place it is set."""
    return pyproject()["project"]["version"]


def version_advice(verb: str, to: str = "", then: str = "") -> str:
    """The advice to change the dataset's version (``verb`` it ``to``, ``then`` do what follows):
    in pyproject.toml, in a checkout. An installed package builds the version it was made with;
    its bundled pyproject.toml is no file to edit, so the advice sends its user to a clone."""
    advice = f"{verb} the version in pyproject.toml{' ' * bool(to)}{to}"
    if checkout() is not None:
        return advice + (f" {then}" if then else "")
    return (f"an installed package builds its own version only: in a clone of the project, {advice}"
            + (f" {then} there, with the clone's `python build_dataset.py`" if then else ""))


def settings() -> dict:
    """``[tool.neurips-abstracts]`` of pyproject.toml."""
    return pyproject()["tool"]["neurips-abstracts"]


def hub_repo() -> str:
    """The Hugging Face dataset repository the release is made for (``hub-repo``)."""
    return settings()["hub-repo"]


def maintainers() -> str:
    """Who publishes the dataset: the authors in pyproject.toml, for citations and Croissant."""
    return " and ".join(a["name"] for a in pyproject()["project"]["authors"])
