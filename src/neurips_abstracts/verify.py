"""Check a dist/ folder against its own SHA256SUMS, data package, Croissant file and card.

frictionless and mlcroissant validate structure but do not check that the Parquet files are
the ones described: this does, so a user can trust a download.
"""

from __future__ import annotations

import json
from pathlib import Path

from .release import CARD, SUMS, sha256_file
from .schema import TABLES
from .write import data_path


def verify(dist: str | Path) -> list[str]:
    """Problems found in ``dist``; an empty list means it verifies."""
    import pyarrow.parquet as pq
    from huggingface_hub import DatasetCard

    dist = Path(dist)
    sums_path = dist / SUMS
    if not dist.is_dir() or not (sums_path.exists() or (dist / "build_manifest.json").exists()):
        from .errors import DumpError

        what = "no release here (no SHA256SUMS)" if dist.is_dir() else "not a folder" if dist.exists() else "no such folder"
        raise DumpError(str(dist), what)
    if not sums_path.is_file():
        return [f"{SUMS}: {'not a file' if sums_path.exists() else 'missing'}"]
    problems = []
    listed = {}
    for number, line in enumerate(sums_path.read_text(encoding="utf-8").splitlines(), start=1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            problems.append(f"{SUMS}:{number}: malformed line")
            continue
        listed[name] = digest
    present = {p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file()} - {SUMS}
    for name in sorted(set(listed) - present):
        problems.append(f"{name}: listed in {SUMS} but missing")
    for name in sorted(present - set(listed)):
        problems.append(f"{name}: present but not listed in {SUMS}")
    actual = {name: sha256_file(dist / name) for name in sorted(present & set(listed))}
    for name, digest in actual.items():
        if digest != listed[name]:
            problems.append(f"{name}: sha256 {digest} does not match {SUMS} ({listed[name]})")

    def described(label: str, path: str, digest: str) -> None:
        if path in actual and actual[path] != digest:
            problems.append(f"{label}: sha256 of {path} is {actual[path]}, it says {digest}")

    try:
        package = json.loads((dist / "datapackage.json").read_text(encoding="utf-8"))
        for res in package["resources"]:
            described("datapackage.json", res["path"], res["hash"].removeprefix("sha256:"))
        croissant = json.loads((dist / "croissant.json").read_text(encoding="utf-8"))
        for obj in croissant["distribution"]:
            described("croissant.json", obj["contentUrl"], obj["sha256"])
        card = DatasetCard.load(dist / CARD).data.to_dict()
        for info in card["dataset_info"]:
            path = dist / data_path(info["config_name"])
            rows = pq.ParquetFile(path).metadata.num_rows if path.is_file() else None
            if info["splits"][0]["num_examples"] != rows:
                problems.append(f"{CARD}: {info['config_name']} declares {info['splits'][0]['num_examples']} rows, file has {rows}")
    except (OSError, KeyError, ValueError) as exc:
        problems.append(f"metadata unreadable: {exc}")
    missing_tables = [t for t in TABLES if not (dist / data_path(t)).is_file()]
    problems += [f"{data_path(t)}: missing" for t in missing_tables if data_path(t) not in listed]
    return problems
