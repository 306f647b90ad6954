"""What a build was made of: inputs, configuration, the versions that shape the bytes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from importlib.metadata import version
from operator import attrgetter

from ..core.config import BuildConfig
from ..core.resources import dataset_version
from ..ids.identity import Identity, registry
from ..ingest.parse import Dump
from ..ingest.previous import PUBLISHED_DUMPS, IdRow
from ..ingest.sidecar import DumpMeta
from ..text.unicode import UNICODE_VERSION

# Packages whose version can change the bytes of dist/; pinned in pyproject.toml.
SHAPING_PACKAGES = ("pyarrow", "ftfy", "pylatexenc", "rensa", "unicodedata2")


def shaping_versions() -> dict[str, str]:
    return {name: version(name) for name in SHAPING_PACKAGES}


def build_manifest(
    dumps: tuple[Dump, ...], config: BuildConfig, stats: dict, statistics: dict, meta: dict[str, DumpMeta],
    identity: Identity | None = None,
) -> dict:
    """Inputs in added order, each with what its metadata file says, and the registry the next
    build anchors its ids and dump facts to (``identity.registry``)."""
    inputs = [
        {
            "file": d.name,
            "sha256": d.sha256,
            "records": d.n_records,
            "venue": d.venue,
            "year": d.year,
            "added": meta[d.name].added,
            "crawled_at": meta[d.name].crawled_at,
            "source_url": meta[d.name].source_url,
        }
        for d in dumps
    ]
    fingerprinted = {
        "config": config.as_dict(),
        "inputs": inputs,
        "packages": shaping_versions(),
        # the Unicode tables of normalization and every character rule (text/unicode.py): the
        # pinned unicodedata2's, never the interpreter's
        "unicode_version": UNICODE_VERSION,
        "dataset_version": dataset_version(),
    }
    if identity is not None:
        fingerprinted[PUBLISHED_DUMPS] = registry(dumps, meta, identity)
        # the ids table comes from the previous release as much as from raw/: two builds of one
        # raw/ with different id histories differ in bytes, so in fingerprint too
        # (an id row's fields are strings or None: what dataclasses.astuple gives, without its
        # deep copy of each field, seconds at a million records)
        row = attrgetter(*(f.name for f in fields(IdRow)))
        fingerprinted["ids"] = [list(row(r)) for r in identity.ids]
    fingerprint = hashlib.sha256(json.dumps(fingerprinted, sort_keys=True).encode()).hexdigest()
    return {**fingerprinted, "counts": stats, "statistics": statistics, "fingerprint": fingerprint}
