"""The near-dup stage: the papers of the distinct texts (versions), and each record's relation to
its paper. Ids are not given here: ``identify`` gives them, from ids/."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.config import BuildConfig
from ...core.memory import release_free_memory
from ...dedup.near_duplicates import near_duplicate_clusters
from .parse import Parsed


@dataclass(frozen=True)
class Papers:
    """The papers of a build, in the order papers were first seen (by founding record, the
    earliest in added order): a release's new papers come last and a known paper keeps its
    place, so a new release changes the papers table's Parquet pages near its end and where
    papers were revised, not everywhere (ids are hashes: id order would scatter new papers)."""

    roots: np.ndarray  # per version: its cluster, named by its smallest version (its founding version)
    root: np.ndarray  # per paper: its root version
    canonical: np.ndarray  # per paper: its canonical version
    founding_record: np.ndarray  # per paper: its earliest record in added order
    n_versions: np.ndarray  # per paper
    n_records: np.ndarray  # per paper
    paper_of_version: np.ndarray  # per version: its paper (an index of the arrays above)
    similarity: np.ndarray  # per version: to its paper's canonical version
    relation: np.ndarray  # per record: a ``RELATIONS`` index (int8)
    n_candidate_pairs: int
    n_merged_pairs: int

    def __len__(self) -> int:
        return len(self.root)


def _paper_versions(roots: np.ndarray, newest: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The papers of versions clustered by ``roots`` (each version's cluster, named by its
    smallest version), in order of their root: the root, the canonical version (the largest
    ``newest``, then the smallest version) and the number of versions of each."""
    n = len(roots)
    if not n:
        return roots, roots, roots
    by_paper = np.lexsort((np.arange(n), -newest, roots))  # a paper's canonical version first
    ordered = roots[by_paper]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return ordered[first], by_paper[first], np.diff(np.r_[first, n])


def near_dup(parsed: Parsed, config: BuildConfig) -> Papers:
    """Every version (distinct normalized text), and so every record, assigned to a paper, and why.

    Rules (documented in the card):
    * records with equal normalized text are one version (exact duplicates);
    * versions whose shingles are near-duplicates form one paper (see ``dedup``);
    * the paper's *founding* record is its earliest in added order (records arrive in that order);
    * the *canonical* text is the version of the paper's record latest in crawl order (the
      newest crawl); the canonical occurrence is the earliest record holding that text.
    """
    versions = parsed.versions
    version_first, version_newest = versions.first.array(), versions.newest.array()
    record_version = parsed.version
    clusters = near_duplicate_clusters(versions.text, config.near_dup)
    roots = np.array(clusters.roots, dtype=np.int64)
    n = len(roots)
    # Versions are numbered in added order, so a cluster's root is its founding version.
    root, canonical, n_versions = _paper_versions(roots, version_newest)
    founding_record = version_first[root]
    order = np.argsort(founding_record, kind="stable")  # founding records are distinct
    place = np.empty_like(order)
    place[order] = np.arange(len(order))
    paper_of_version = np.zeros(n, dtype=np.int64)
    paper_of_version[root] = place
    paper_of_version = paper_of_version[roots]
    root, canonical, n_versions, founding_record = root[order], canonical[order], n_versions[order], founding_record[order]
    n_records = np.bincount(paper_of_version[record_version], minlength=len(root))

    similarity = np.ones(n, dtype=np.float64)
    canonical_of_version = canonical[paper_of_version]
    revised = np.flatnonzero(canonical_of_version != np.arange(n))
    if len(revised):
        similarity[revised] = clusters.similarity(np.stack([revised, canonical_of_version[revised]], axis=1))
    is_canonical = np.zeros(n, dtype=bool)
    is_canonical[canonical] = True
    records = np.arange(len(record_version), dtype=np.int64)
    relation = np.where(is_canonical[record_version], np.where(version_first[record_version] == records, 0, 1), 2)
    papers = Papers(roots, root, canonical, founding_record, n_versions, n_records, paper_of_version, similarity,
                    relation.astype(np.int8), len(clusters.candidates), clusters.merged)
    del clusters, records, relation
    release_free_memory()  # the shingles and signatures, the largest arrays of a build, are gone
    return papers
