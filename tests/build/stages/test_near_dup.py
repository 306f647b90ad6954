"""The near-dup stage (build/stages/near_dup.py): the papers of the clustered versions, each with its
canonical version, by the rule as written."""

import numpy as np
from hypothesis import given, settings, strategies as st

from neurips_abstracts.build.stages import near_dup as near_dup_stage


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-1, 3)), max_size=40))
def test_paper_versions_follow_the_plain_rule(versions_drawn):
    # roots as clustering gives them (each version's root no larger than it and its own root),
    # then the rule as written: a paper per root in order, its newest crawl, the first on ties
    roots, newest = [], []
    for v, (back, crawl) in enumerate(versions_drawn):
        target = max(0, v - back)
        roots.append(roots[target] if target < v else v)
        newest.append(crawl)
    members: dict[int, list[int]] = {}
    for v, root in enumerate(roots):
        members.setdefault(root, []).append(v)
    got = near_dup_stage._paper_versions(np.array(roots, dtype=np.int64), np.array(newest, dtype=np.int64))
    assert [a.tolist() for a in got] == [
        list(members), [max(vs, key=newest.__getitem__) for vs in members.values()], [len(vs) for vs in members.values()]]
