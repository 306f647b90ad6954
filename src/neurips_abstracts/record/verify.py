"""Check a dist/ folder against its own SHA256SUMS, data package, Croissant file and card.

The standards' own libraries validate their files as a user would run them: frictionless the
data package (its profile, the types, primary and foreign keys of every row), mlcroissant the
Croissant file. Neither checks that the Parquet files are the ones described: this does, so a
user can trust a download. mlcroissant is an optional extra (``pip install
'neurips-abstracts[croissant]'``): it pulls in scipy, networkx, rdflib and pandas, which nothing
else here needs; without it `verify` says the Croissant file was not validated.
"""

from __future__ import annotations

import fnmatch
import json
import logging
from pathlib import Path

from ..core.names import PACKAGE_ADVICE, SUMS, data_path, holds_release, is_built_package, release_version, table_paths
from ..core.schema import TABLES
from ..core.sums import read_sums, sha256_file
from ..release.contents import CARD, CHANGELOG, CROISSANT, DATAPACKAGE

MAX_SHOWN = 20  # problems listed per validator; the rest are counted


def _capped(prefix: str, messages: list[str]) -> list[str]:
    shown = [f"{prefix}{m}" for m in messages[:MAX_SHOWN]]
    return shown + ([f"{prefix}... and {len(messages) - MAX_SHOWN} more"] if len(messages) > MAX_SHOWN else [])


def frictionless_problems(dist: Path) -> list[str]:
    """What frictionless's own validation says of ``dist``'s data package and its data."""
    from frictionless import validate

    report = validate(str(dist / DATAPACKAGE))
    messages = [e.message for e in report.errors] + [e.message for task in report.tasks for e in task.errors]
    return _capped("datapackage.json: frictionless: ", messages)


def croissant_validator() -> str | None:
    """Why croissant.json cannot be validated here (None: mlcroissant is installed)."""
    import importlib.util

    if importlib.util.find_spec("mlcroissant") is None:
        return "mlcroissant is not installed (pip install 'neurips-abstracts[croissant]')"
    return None


def croissant_problems(dist: Path) -> list[str]:
    """What mlcroissant says of ``dist``'s Croissant file, warnings included ([] without mlcroissant)."""
    try:
        import mlcroissant as mlc
    except ImportError:
        return []
    # mlcroissant also logs its warnings (through absl's logger) as it finds them: they are
    # reported below, once, from its issues, and the one a build between releases may have is not.
    absl = logging.getLogger("absl")
    level = absl.level
    absl.setLevel(logging.ERROR)
    try:
        issues = mlc.Dataset(jsonld=str(dist / CROISSANT)).metadata.ctx.issues
    except mlc.ValidationError as exc:
        return _capped("croissant.json: mlcroissant: ", [line for line in str(exc).splitlines() if line.strip()])
    finally:
        absl.setLevel(level)
    warnings = sorted(issues.warnings)
    if _unreleased(dist):  # a build between releases has no date of publication yet: its CHANGELOG
        # entry is dated at release time, so mlcroissant's wish for one is no problem of the build
        warnings = [w for w in warnings if "datePublished" not in w]
    return _capped("croissant.json: mlcroissant warning: ", warnings)


def _unreleased(dist: Path) -> bool:
    """Whether ``dist`` is a build of a version its CHANGELOG has no dated entry for."""
    from ..release.contents import changelog_date

    version = release_version(dist)
    try:
        return version is not None and changelog_date((dist / CHANGELOG).read_text(encoding="utf-8"), version) is None
    except OSError:
        return False


def verify(dist: str | Path, standards: bool = True) -> list[str]:
    """Problems found in ``dist``; an empty list means it verifies. ``standards``: also run
    the standards' validators (frictionless, and mlcroissant where installed)."""
    import pyarrow.parquet as pq
    from huggingface_hub import DatasetCard

    dist = Path(dist)
    sums_path = dist / SUMS
    if not dist.is_dir() or not (sums_path.exists() or holds_release(dist)):
        from ..core.errors import DumpError
        from .published import killed_build_left

        what = (f"no release here (no {SUMS})" if dist.is_dir() else "not a folder" if dist.exists() else
                killed_build_left(dist) or "no such folder")
        raise DumpError(str(dist), what)
    if not sums_path.is_file():
        return [f"{SUMS}: {'not a file' if sums_path.exists() else 'missing'}"]
    listed, problems = read_sums(dist)
    present = {p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file()} - {SUMS}
    for name in sorted(set(listed) - present):
        problems.append(f"{name}: listed in {SUMS} but missing")
    for name in sorted(present - set(listed)):
        problems.append(f"{name}: {PACKAGE_ADVICE}" if is_built_package(name) else f"{name}: present but not listed in {SUMS}")
    actual = {name: sha256_file(dist / name) for name in sorted(present & set(listed))}
    shards: dict[str, list[str]] = {}  # table -> its shards, as SHA256SUMS lists them
    for t in TABLES:
        try:
            shards[t] = table_paths(t, listed)
        except ValueError as exc:
            problems.append(f"{SUMS}: {exc}")
    for name, digest in actual.items():
        if digest != listed[name]:
            problems.append(f"{name}: sha256 {digest} does not match {SUMS} ({listed[name]})")

    def described(label: str, path: str, digest: str) -> None:
        if path in actual and actual[path] != digest:
            problems.append(f"{label}: sha256 of {path} is {actual[path]}, it says {digest}")

    file = DATAPACKAGE  # the file being read, named if it cannot be
    try:
        package = json.loads((dist / DATAPACKAGE).read_text(encoding="utf-8"))
        for res in package["resources"]:
            described(DATAPACKAGE, res["path"], res["hash"].removeprefix("sha256:"))
        file = CROISSANT
        croissant = json.loads((dist / CROISSANT).read_text(encoding="utf-8"))
        for obj in croissant["distribution"]:
            if obj["@type"] == "cr:FileSet":  # a sharded table: its pattern matches exactly its shards
                table = obj["@id"].removesuffix("-parquet")
                matched = sorted(p for p in listed if fnmatch.fnmatchcase(p, obj["includes"]))
                if matched != shards.get(table):
                    problems.append(f"{CROISSANT}: {obj['@id']} includes {matched}, not the shards of {table}")
            else:
                described(CROISSANT, obj["contentUrl"], obj["sha256"])
        file = CARD
        card = DatasetCard.load(dist / CARD).data.to_dict()
        for config in card["configs"]:
            declared = config["data_files"][0]["path"]
            declared = [declared] if isinstance(declared, str) else declared
            if declared != shards.get(config["config_name"]):
                problems.append(f"{CARD}: {config['config_name']} names the files {declared}, not its shards")
        for info in card["dataset_info"]:
            rows: int | None = 0
            for rel in shards.get(info["config_name"]) or []:
                if rel not in present:  # named above as listed but missing
                    rows = None
                    break
                try:
                    rows = (rows or 0) + pq.ParquetFile(dist / rel).metadata.num_rows
                except Exception as exc:  # noqa: BLE001 - Arrow fails in many ways on damaged bytes
                    problems.append(f"{rel}: unreadable Parquet ({' '.join(str(exc).split())})")
                    rows = None
                    break
            if rows is not None and info["splits"][0]["num_examples"] != rows:
                problems.append(f"{CARD}: {info['config_name']} declares {info['splits'][0]['num_examples']} rows, "
                                f"its files have {rows}")
    except (OSError, KeyError, ValueError, TypeError) as exc:
        problems.append(f"{file}: unreadable or of the wrong shape ({type(exc).__name__}: {' '.join(str(exc).split())})")
    problems += [f"{data_path(t)}: missing" for t in TABLES if shards.get(t) == []]  # not even listed
    if standards and not problems:  # the validators read the data: only bytes SHA256SUMS vouches for
        problems += frictionless_problems(dist) + croissant_problems(dist)
    return problems
