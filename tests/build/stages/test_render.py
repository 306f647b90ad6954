"""The render stage's join of its chunks (``concat_releasing``) gives what Arrow's own gives."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import example, given, settings, strategies as st

from neurips_abstracts.build.occurrences import dense
from neurips_abstracts.build.stages.render import concat_releasing

_chunks = st.lists(st.tuples(st.lists(st.text(max_size=30), max_size=12), st.integers(0, 4), st.booleans()), max_size=8)


@settings(max_examples=300, deadline=None)
@given(_chunks)
@example([([], 0, False)])
@example([(["", ""], 0, False), ([""], 0, False)])
@example([(["a", None], 0, False)])  # a null: Arrow's own join
def test_join_is_arrows_concat(chunks):
    """Inputs: chunks of any texts (empty texts and empty chunks among them), some sliced from
    a longer array, one with a null now and then. The join equals ``pa.concat_arrays``: the same
    values, type and in-memory size (as the papers table holds it, without a validity buffer),
    and empties the list it was given."""
    arrays = []
    for texts, cut, sliced in chunks:
        array = pa.array(["x" * 5] * cut + texts, pa.string())
        arrays.append(array.slice(cut) if sliced else array)
    expected = pa.concat_arrays(arrays) if arrays else None
    if expected is None:
        return
    given_arrays = list(arrays)
    out = concat_releasing(given_arrays)
    assert given_arrays == []
    assert out.type == expected.type and out.to_pylist() == expected.to_pylist()
    assert dense(out).nbytes == dense(expected).nbytes
    out.validate(full=True)
