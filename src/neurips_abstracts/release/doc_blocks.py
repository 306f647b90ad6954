"""Markdown blocks of a release's numbers and settings that both the dataset card and the
datasheet show, so that both say the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from ..core.config import BuildConfig
from ..core.schema import table_schema
from ..core.words import plural

if TYPE_CHECKING:
    from .contents import Release


def _yaml(data) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)


def column_table(table: str) -> str:
    """Markdown table of a table's columns, straight from schema/."""
    rows = ["| column | type | required | description |", "|---|---|---|---|"]
    for f in table_schema(table)["fields"]:
        required = "yes" if f.get("constraints", {}).get("required") else "no"
        description = f["description"].replace("|", "\\|")
        rows.append(f"| `{f['name']}` | {f['type']} | {required} | {description} |")
    return "\n".join(rows)


def _q(stats: dict, key: str) -> str:
    q = stats[key]
    return (
        f"min {q['min']}, 5th percentile {q['p05']}, median {q['median']}, mean {q['mean']}, "
        f"95th percentile {q['p95']}, max {q['max']}"
    )


def relation_table(stats: dict) -> str:
    rows = ["| relation | occurrences |", "|---|---|"]
    rows += [f"| {r} | {n} |" for r, n in stats["relations"].items()]
    return "\n".join(rows)


def inputs_table(manifest: dict, stats: dict) -> str:
    """The dumps in the order they were added, with what their metadata files say."""
    canonical = {f["file"]: f["canonical"] for f in stats["per_file"]}
    rows = ["| dump | added | crawled | records | canonical records | sha256 |", "|---|---|---|---|---|---|"]
    for f in manifest["inputs"]:
        rows.append(
            f"| `{f['file']}` | {f.get('added') or 'unknown'} | {f.get('crawled_at') or 'unknown'} | {f['records']} "
            f"| {canonical.get(f['file'], 0)} | `{f['sha256']}` |"
        )
    return "\n".join(rows)


def ids_block(stats: dict, version: str) -> str:
    ids = stats["ids"]
    return (
        f"Ids listed in `ids`: {ids['current']} current, {ids['merged']} merged, {ids['removed']} removed; "
        f"{ids['first_published_in_this_version']} first published and {ids['retired_in_this_version']} "
        f"retired in version {version}."
    )


def statistics_block(r: Release) -> str:
    s = r.stats
    near = s["near_duplicate_similarity"]
    lines = [
        f"- Dataset version: {r.version}; build fingerprint `{r.manifest['fingerprint']}`",
        f"- Dumps read: {s['dumps']}; raw records: {s['records']}; papers: {s['papers']}",
        f"- Duplicates: {s['duplicates']} ({s['relations']['exact_duplicate']} exact, "
        f"{s['relations']['near_duplicate']} near); papers with more than one version: {s['papers_with_revisions']}",
        "- Similarity of each near-duplicate occurrence to its paper's canonical text, over the "
        f"{plural(s['relations']['near_duplicate'], 'near duplicate')}: "
        + (f"min {near['min']:.3f}, median {near['median']:.3f}, max {near['max']:.3f}" if near else "no near duplicates in this build"),
        f"- Words per paper (`word_count` of the {s['papers']} papers' canonical abstracts): {_q(s, 'word_count')}",
        f"- Characters per paper (the {s['papers']} canonical `abstract` texts): {_q(s, 'abstract_chars')}",
        f"- Papers whose abstract links a URL: {s['papers_with_urls']}",
        "- Venues and years: " + ", ".join(f"{k} ({v} papers)" for k, v in s["venues"].items()),
        "",
        "Percentiles and medians are values of the data, never an average of two: the q-th quantile of n "
        "sorted values is the one at position q × (n − 1), counting from 0, rounded to the nearest whole "
        "position and a half to the even one (pyarrow's `nearest` quantile); means are rounded to one decimal.",
    ]
    return "\n".join(lines)


def config_block(config: BuildConfig) -> str:
    return "```yaml\n" + _yaml(config.as_dict()) + "```"
