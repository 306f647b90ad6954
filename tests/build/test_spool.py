"""The occurrences writer's spool (build/occurrences.py): every span as text, in order, in
memory or spilled to its file, and never locked while its reader holds a chunk."""

import contextlib

import pyarrow as pa
import pytest


@pytest.mark.parametrize("max_memory", [1 << 20, 45, 0])
def test_spool_holds_each_span_as_text_in_order(max_memory):
    """In memory, spilled to its file after the first dump, or in the file from the start."""
    import numpy as np

    from neurips_abstracts.build.occurrences import Spool

    data = "\ufeffhead\nfirst é\r\n\nsecond 中😀\n \nthird".encode()
    spans = [(data.index(t.encode()), data.index(t.encode()) + len(t.encode())) for t in ["first é", "second 中😀", "third", ""]]
    spool = Spool(max_memory)
    try:
        spool.append(data, np.array([s for s, _ in spans[:3]]), np.array([e for _, e in spans[:3]]))
        spool.append(data, np.array([spans[2][0], 0]), np.array([spans[2][1], 0]))
        chunks = list(spool.chunks(2))
        assert [len(c) for c in chunks] == [2, 2, 1] and all(c.type == pa.string() for c in chunks)
        assert sum((c.to_pylist() for c in chunks), []) == ["first é", "second 中😀", "third", "third", ""]
        # 45 bytes: the first dump's spans (39 bytes with their offsets) fit, not the second's (13 more)
        assert (spool._file is None) == (max_memory == 1 << 20)
    finally:
        spool.close()
    with pytest.raises(ValueError, match="closed"):
        list(spool.chunks(2))


@pytest.mark.parametrize("max_memory", [1 << 20, 0])
def test_spool_is_not_locked_while_its_reader_holds_a_chunk(max_memory):
    """The build's writer thread reads the spool a chunk at a time; a close from the build's
    thread (it stops early) must not wait for that reader to finish the whole table."""
    import numpy as np

    from neurips_abstracts.build.occurrences import Spool

    spool = Spool(max_memory)
    spool.append(b"a b c", np.array([0, 2, 4]), np.array([1, 3, 5]))
    spool.append(b"d e", np.array([0, 2]), np.array([1, 3]))
    chunks = spool.chunks(1)
    assert next(chunks).to_pylist() == ["a"]
    assert not spool._lock.locked()
    spool.close()
    with pytest.raises(ValueError, match="closed") if max_memory == 0 else contextlib.nullcontext():
        list(chunks)  # read from the file: refused once closed; in memory, what was held
