"""What a build was made of: inputs, configuration, the versions that shape the bytes."""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import version

from .config import BuildConfig
from .parse import Dump
from .resources import dataset_version
# Packages whose version can change the bytes of dist/; pinned in pyproject.toml.
SHAPING_PACKAGES = ("pyarrow", "ftfy", "pylatexenc", "rensa")


def shaping_versions() -> dict[str, str]:
    return {name: version(name) for name in SHAPING_PACKAGES}


def build_manifest(dumps: tuple[Dump, ...], config: BuildConfig, stats: dict, statistics: dict) -> dict:
    inputs = [
        {"file": d.name, "sha256": d.sha256, "records": d.n_records, "venue": d.venue, "year": d.year}
        for d in dumps
    ]
    fingerprinted = {
        "config": config.as_dict(),
        "inputs": inputs,
        "packages": shaping_versions(),
        "dataset_version": dataset_version(),
    }
    fingerprint = hashlib.sha256(json.dumps(fingerprinted, sort_keys=True).encode()).hexdigest()
    return {**fingerprinted, "counts": stats, "statistics": statistics, "fingerprint": fingerprint}
