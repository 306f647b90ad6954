"""The Frictionless Table Schemas in ``schema/`` are the only list of columns.

Everything else that names columns is derived here: the Arrow schema the Parquet files are
written with, the Pandera models the contracts check, and the Hugging Face features.
"""

from __future__ import annotations

import contextlib
import json
import sys
from functools import lru_cache

import pyarrow as pa

from .resources import read_text

TABLES = ("papers", "occurrences", "ids")

_ARROW_TYPES = {"string": pa.string(), "integer": pa.int64(), "number": pa.float64(), "boolean": pa.bool_()}
_HF_DTYPES = {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"}


@lru_cache(maxsize=None)
def table_schema(table: str) -> dict:
    """The Frictionless Table Schema of ``table`` as a dict."""
    if table not in TABLES:
        raise KeyError(f"unknown table {table!r}; tables are {', '.join(TABLES)}")
    return json.loads(read_text(f"schema/{table}.schema.json"))


def field_names(table: str) -> list[str]:
    return [f["name"] for f in table_schema(table)["fields"]]


def free_text_columns(table: str) -> list[str]:
    """The columns of free text (``"freeText": true`` in the Table Schema): whole abstracts and
    lists of URLs, whose minimum and maximum say nothing a reader could filter on."""
    return [f["name"] for f in table_schema(table)["fields"] if f.get("freeText")]


def distinct_columns(table: str) -> list[str]:
    """The columns whose values are all distinct (``constraints.unique``, which the contracts check)."""
    return [f["name"] for f in table_schema(table)["fields"] if f.get("constraints", {}).get("unique")]


def enum_bytes(table: str) -> dict[str, int]:
    """The string columns whose values the schema lists (``constraints.enum``), each with the
    UTF-8 length of its longest value."""
    return {f["name"]: max(len(v.encode("utf-8")) for v in f["constraints"]["enum"])
            for f in table_schema(table)["fields"] if f["type"] == "string" and "enum" in f.get("constraints", {})}


def arrow_schema(table: str) -> pa.Schema:
    fields = []
    for f in table_schema(table)["fields"]:
        required = f.get("constraints", {}).get("required", False)
        fields.append(
            pa.field(f["name"], _ARROW_TYPES[f["type"]], nullable=not required, metadata={"description": f["description"]})
        )
    return pa.schema(fields)


def hf_features_dict(table: str) -> dict:
    """Features in the JSON form ``datasets`` stores in Parquet metadata and in ``dataset_info``."""
    return {f["name"]: {"dtype": _HF_DTYPES[f["type"]], "_type": "Value"} for f in table_schema(table)["fields"]}


# What pandera's polars API imports without needing it (see ``import_pandera_polars``).
_UNNEEDED_BY_PANDERA_POLARS = ("pandas", "hypothesis")


class _Hide:
    """An import finder that answers "no module named X" for the modules it hides."""

    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


@contextlib.contextmanager
def hidden(names: tuple[str, ...]):
    """Within the block, importing any of ``names`` (or their submodules) raises
    ModuleNotFoundError, as if they were not installed; those already loaded are taken out of
    ``sys.modules`` for its duration, then put back as they were."""
    loaded = {k: sys.modules.pop(k) for k in names if k in sys.modules}
    finder = _Hide(names)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        sys.modules.update(loaded)


def import_pandera_polars():
    """The classes of pandera's polars API the contracts are made of: ``(DataFrameSchema, Column,
    Check)``, those ``pandera.polars`` exports, imported from their own modules without its
    pandas and hypothesis parts.

    pandera's top-level package imports its pandas API whenever pandas is installed (``datasets``
    installs it), and its strategies whenever hypothesis is, though the polars API uses neither:
    those imports were most of a seeds build's start-up. pandera leaves them out when the modules
    are missing, so they are reported missing for that one import (taken out of ``sys.modules``
    for its duration if already loaded, then put back as they were). ``pandera.polars`` itself
    would add what the contracts do not use (its decorators and schema inference: a tenth of
    the time pandera's import and the three schemas take); tests/build/test_contract_imports.py
    checks that the classes are the same and that the contracts report every fault alike
    either way.
    """
    if "pandera" not in sys.modules:
        with hidden(_UNNEEDED_BY_PANDERA_POLARS):
            import pandera.api.polars.container  # noqa: F401  (the first import, without pandas; named below)
            from pandera.backends.polars import builtin_checks, checks  # noqa: F401  (else loaded when validating)
    from pandera.api.checks import Check
    from pandera.api.polars.components import Column
    from pandera.api.polars.container import DataFrameSchema

    return DataFrameSchema, Column, Check


@lru_cache(maxsize=None)
def pandera_schema(table: str):
    """A Pandera (polars) DataFrameModel-equivalent schema built from the Table Schema: made once
    per table (validating does not change it; making one deep-copies every column)."""
    import polars as pl

    DataFrameSchema, Column, Check = import_pandera_polars()

    dtypes = {"string": pl.String, "integer": pl.Int64, "number": pl.Float64, "boolean": pl.Boolean}
    spec = table_schema(table)
    columns = {}
    for f in spec["fields"]:
        c = f.get("constraints", {})
        checks = []
        if "pattern" in c:
            checks.append(Check.str_matches(c["pattern"]))
        if "enum" in c:
            checks.append(Check.isin(c["enum"]))
        if "minimum" in c:
            checks.append(Check.ge(c["minimum"]))
        if "maximum" in c:
            checks.append(Check.le(c["maximum"]))
        if "minLength" in c:
            checks.append(Check.str_length(min_value=c["minLength"]))
        columns[f["name"]] = Column(
            dtypes[f["type"]],
            checks=checks,
            nullable=not c.get("required", False),
            unique=c.get("unique", False),
            description=f["description"],
            title=f.get("title"),
        )
    return DataFrameSchema(
        columns, name=table, strict=True, ordered=True, unique=spec.get("primaryKey"), description=spec.get("description")
    )
