"""The parse stage (build/stages/parse.py): records collapse into versions (distinct normalized texts)
as the dumps arrive, in added order, their raw texts spooled."""

import hashlib

from neurips_abstracts.text.normalize import normalize


def test_records_collapse_into_versions_as_dumps_arrive():
    from neurips_abstracts.build.stages.parse import parse
    from neurips_abstracts.build.stages.read import ordered
    from neurips_abstracts.core.config import DEFAULT_CONFIG

    from tests.helpers import make_dump

    assert [normalize(t) for t in ["fine text", "two  spaces", "caf\u00e9", "cafe\u0301"]] == ["fine text", "two spaces", "caf\u00e9", "caf\u00e9"]
    texts = [f"abstract number {i} is already normalized" for i in range(60)] + ["needs  fixing"]
    first = make_dump(texts)
    second = make_dump(["same  text", "same text", " same\ttext", "needs fixing", "cafe\u0301", "caf\u00e9", "cafe\u0301"])
    parsed = parse(ordered([("001_y.txt", second), ("000_x.txt", first)]), DEFAULT_CONFIG)
    try:
        versions = parsed.versions
        # dumps in added order (here: by name), records in order; equal normalized texts are one version
        assert versions.text == [*texts[:60], "needs fixing", "same text", "caf\u00e9"]
        assert parsed.version.tolist() == [*range(61), 61, 61, 61, 60, 62, 62, 62]
        assert versions.first.array().tolist() == [*range(61), 61, 65]
        assert parsed.spool.rows == len(parsed) == 68  # raw texts are spooled, not held
        assert versions.sha[61] == hashlib.sha256(b"same text").hexdigest()
    finally:
        parsed.spool.close()
