import numpy as np

from robust_bench.experiments.baselines import MajorityBaseline, path_distances, score_baselines
from robust_bench.text.trees import tree_distances


def test_path_distances():
    assert path_distances(3).tolist() == [[0, 1, 2], [1, 0, 1], [2, 1, 0]]


def test_majority_by_hand():
    # length 3: edges 0-1 twice, 1-2 twice, 0-2 once -> the tree 0-1, 1-2 (a chain)
    train = [[2, 0, 2], [0, 1, 2], [3, 3, 0]]
    m = MajorityBaseline().fit(train)
    assert m.trees[3] == [(0, 1), (1, 2)]
    assert np.array_equal(m.predict_distances(3), tree_distances([0, 1, 2]))
    # unseen length and over-long sentences fall back to Path, and are counted
    assert np.array_equal(m.predict_distances(4), path_distances(4))
    m41 = MajorityBaseline().fit([[0] + list(range(1, 41))])
    assert 41 not in m41.trees and m41.n_fallback == 0
    m41.predict_distances(41)
    assert m41.n_fallback == 1


def test_score_baselines_are_word_blind():
    heads = [[2, 0, 2, 3, 4, 2], [0, 1, 1, 3, 3, 5, 1]]
    upos = [["NOUN", "VERB", "NOUN", "ADP", "NOUN", "PUNCT"], ["VERB"] * 6 + ["PUNCT"]]
    res = score_baselines(heads, {"a": (heads, upos, None), "b": (heads, upos, None)})
    assert res["path"]["a"]["details"]["punctuation_rule"] == "upos-punct"
    for name in ("path", "majority"):
        assert res[name]["a"]["uuas"] == res[name]["b"]["uuas"]
        assert 0.0 <= res[name]["a"]["uuas"] <= 1.0
    # Majority trained on the very trees it scores recovers them
    assert res["majority"]["a"]["uuas"] == 1.0 and res["majority"]["a"]["dspr"] == 1.0
