"""The read stage (build/stages/read.py) and the parse stage's second read: each dump read and
checked once, in added order; a dump that changes between the two reads is refused."""

import pytest

from neurips_abstracts.core.errors import DumpError

from tests.helpers import HEADER


def test_a_dump_whose_bytes_change_between_the_build_s_two_reads_is_refused():
    """The build reads each dump twice (to order the dumps by their facts, then to parse it); a file
    changed in between must not be published with the first read's digest."""
    import hashlib

    from neurips_abstracts.build.stages.parse import parse
    from neurips_abstracts.build.stages.read import ordered
    from neurips_abstracts.core.config import BuildConfig
    from neurips_abstracts.ingest.sidecar import DumpMeta

    first = (HEADER + "\n\nFirst abstract text here.\n").encode()
    second = (HEADER + "\n\nA different abstract entirely.\n").encode()
    reads = []

    def read():
        reads.append(1)
        return first if len(reads) == 1 else second

    meta = {"d.txt": DumpMeta("d.txt", hashlib.sha256(first).hexdigest(), "2026-01-01", None, "2026-01-02")}
    with pytest.raises(DumpError, match="changed while the build was reading it"):
        parse(ordered([("d.txt", read)], meta), BuildConfig())
    assert len(reads) == 2


def test_dumps_come_in_added_order_and_rank_by_crawl_whatever_order_they_are_listed_in():
    import hashlib

    from neurips_abstracts.build.stages.read import ordered
    from neurips_abstracts.ingest.sidecar import DumpMeta

    data = {name: (HEADER + f"\n\nAbstract of {name}.\n").encode() for name in ("a.txt", "b.txt", "c.txt", "d.txt")}

    def meta(name, crawled, added):
        return DumpMeta(name, hashlib.sha256(data[name]).hexdigest(), crawled, None, added)

    known = {"a.txt": meta("a.txt", "2026-10-05", "2026-11-03"), "b.txt": meta("b.txt", "2026-10-01", "2026-11-01"),
             "c.txt": meta("c.txt", None, "2026-11-02")}  # d.txt has no metadata file: last in both orders
    for listed in (sorted(data), sorted(data, reverse=True)):
        dumps = ordered([(name, data[name]) for name in listed], known)
        assert [f.name for f in dumps.files] == ["b.txt", "c.txt", "a.txt", "d.txt"]
        # crawl order: b (10-01), a (10-05), c (crawled unknown: its added day, 11-02), then d
        assert dumps.crawl_rank == {"b.txt": 0, "a.txt": 1, "c.txt": 2, "d.txt": 3}
        assert dumps.nbytes == sum(map(len, data.values()))
        assert [f.read() for f in dumps.files] == [data[f.name] for f in dumps.files]
