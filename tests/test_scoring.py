"""UUAS and DSpr: hand-computed values, and parity with an independent re-statement of
Hewitt & Manning's (2019) reporter.py."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from robust_bench.scoring import (PTB_PUNCTUATION_XPOS, dspr_details, dspr_score, punctuation_mask, punctuation_masks,
                                  uuas_counts, uuas_score)
from robust_bench.text.trees import (heads_to_edges, minimum_spanning_edges, prim_maximum_spanning_tree,
                                tree_distances)

H_AND_M_PUNCT = ["''", ",", ".", ":", "``", "-LRB-", "-RRB-"]


# --- an independent re-statement of structural-probes/reporter.py -------------------------------
class _UnionFind:
    def __init__(self, n):
        self.parents = list(range(n))

    def union(self, i, j):
        if self.find(i) != self.find(j):
            self.parents[self.find(i)] = self.find(j)

    def find(self, i):
        while self.parents[i] != i:
            i = self.parents[i]
        return i


def _hm_prims_matrix_to_edges(matrix, poses):
    pairs = {}
    uf = _UnionFind(len(matrix))
    for i, line in enumerate(matrix):
        for j, dist in enumerate(line):
            if poses[i] in H_AND_M_PUNCT or poses[j] in H_AND_M_PUNCT:
                continue
            pairs[(i, j)] = dist
    edges = []
    for (i, j), _ in sorted(pairs.items(), key=lambda x: x[1]):
        if uf.find(i) != uf.find(j):
            uf.union(i, j)
            edges.append((i, j))
    return edges


def _hm_uuas(golds, preds, poses):
    correct = total = 0
    for gold, pred, pos in zip(golds, preds, poses):
        g = {tuple(sorted(e)) for e in _hm_prims_matrix_to_edges(gold, pos)}
        p = {tuple(sorted(e)) for e in _hm_prims_matrix_to_edges(pred, pos)}
        correct += len(g & p)
        total += len(g)
    return correct / total


def _hm_dspr(golds, preds):
    by_len = {}
    for gold, pred in zip(golds, preds):
        n = len(gold)
        by_len.setdefault(n, []).extend(spearmanr(p, g).correlation for p, g in zip(pred, gold))
    means = {n: np.mean(v) for n, v in by_len.items()}
    return float(np.mean([means[n] for n in range(5, 51) if n in means]))


def _bfs_distances(heads):
    n = len(heads)
    adj = {i: set() for i in range(n)}
    for c, h in enumerate(heads):
        if h:
            adj[c].add(h - 1)
            adj[h - 1].add(c)
    d = np.zeros((n, n))
    for s in range(n):
        seen, frontier, k = {s}, [s], 0
        while frontier:
            k += 1
            nxt = [v for u in frontier for v in adj[u] if v not in seen]
            for v in nxt:
                seen.add(v)
                d[s, v] = k
            frontier = nxt
    return d


def _random_tree(rng, n):
    # attach word k to a random earlier word, then relabel with a random permutation
    parent = [-1] + [int(rng.integers(0, k)) for k in range(1, n)]
    perm = rng.permutation(n)
    heads = [0] * n
    for k in range(n):
        heads[perm[k]] = 0 if parent[k] < 0 else int(perm[parent[k]]) + 1
    return heads


# --- trees ---------------------------------------------------------------------------------------
def test_tree_distances_by_hand():
    # 1 <- 2 -> 3 -> 4
    d = tree_distances([2, 0, 2, 3])
    assert d.tolist() == [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]]
    assert heads_to_edges([2, 0, 2, 3]) == [(0, 1), (1, 2), (2, 3)]


def test_tree_distances_match_bfs_on_random_trees():
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 17, 40):
        heads = _random_tree(rng, n)
        assert np.array_equal(tree_distances(heads), _bfs_distances(heads))


def test_minimum_spanning_edges_breaks_ties_like_kruskal_in_pair_order():
    # all distances equal: Kruskal in (i, j) order links word 0 to everything
    d = np.ones((4, 4)) - np.eye(4)
    assert minimum_spanning_edges(d) == {(0, 1), (0, 2), (0, 3)}
    # zero distances between distinct words still count as edges
    d = np.zeros((3, 3))
    assert minimum_spanning_edges(d) == {(0, 1), (0, 2)}
    # kept words only, original indices returned
    d = np.abs(np.subtract.outer(np.arange(5), np.arange(5))).astype(float)
    assert minimum_spanning_edges(d, keep=[True, False, True, True, False]) == {(0, 2), (2, 3)}


def test_prim_maximum_spanning_tree_by_hand():
    w = np.array([[0, 5, 1, 0], [5, 0, 2, 4], [1, 2, 0, 3], [0, 4, 3, 0]], dtype=float)
    # from 0: take 0-1 (5), then 1-3 (4), then 3-2 (3)
    assert prim_maximum_spanning_tree(w) == [(0, 1), (1, 3), (2, 3)]


# --- UUAS ----------------------------------------------------------------------------------------
def test_uuas_by_hand_with_punctuation():
    gold = [[2, 0, 2, 2]]                      # edges 0-1, 1-2, 1-3; word 3 is punctuation
    upos = [["NOUN", "VERB", "NOUN", "PUNCT"]]
    pred = [[3, 0, 2, 1]]                      # edges 0-2, 1-2, 0-3
    r = uuas_counts(gold, pred, punctuation=[punctuation_mask(u) for u in upos])
    assert (r.correct, r.total, r.n_sentences) == (1, 2, 1)
    assert uuas_score(gold, pred) == pytest.approx(1 / 3)   # no exclusion: 1 of 3 edges


def test_uuas_distance_input_and_skips():
    gold = [[2, 0, 2], [0], [0, 1]]
    dists = [np.array([[0, 1, 5], [1, 0, 1], [5, 1, 0]], float), np.zeros((1, 1)), np.array([[0, 1], [1, 0]], float)]
    r = uuas_counts(gold, dists)
    assert (r.correct, r.total, r.n_sentences, r.n_skipped) == (3, 3, 2, 1)


def test_uuas_errors():
    with pytest.raises(ValueError, match="expected 1 sentences"):
        uuas_score([[0]], [])
    with pytest.raises(ValueError, match="no sentence has a gold edge"):
        uuas_score([[0]], [[0]])
    with pytest.raises(ValueError, match=r"shape \(2, 2\), expected \(3, 3\)"):
        uuas_score([[2, 0, 2]], [np.zeros((2, 2))])
    with pytest.raises(ValueError, match="NaN"):
        uuas_score([[2, 0]], [np.full((2, 2), np.nan)])


def test_uuas_parity_with_hewitt_manning_reporter():
    rng = np.random.default_rng(1)
    golds, preds, poses, heads_list, masks = [], [], [], [], []
    for _ in range(60):
        n = int(rng.integers(2, 30))
        heads = _random_tree(rng, n)
        pos = ["NN" if rng.random() > 0.15 else "," for _ in range(n)]
        pred = rng.random((n, n))
        pred = pred + pred.T
        if rng.random() < 0.3:                                   # integer distances: many ties
            pred = np.round(pred * 2)
        golds.append(_bfs_distances(heads))
        preds.append(pred)
        poses.append(pos)
        heads_list.append(heads)
        masks.append(np.array([p == "," for p in pos]))
    ref = _hm_uuas(golds, preds, poses)
    assert uuas_score(heads_list, preds, punctuation=masks) == pytest.approx(ref, abs=1e-12)


def test_punctuation_rule_is_hewitt_manning_ptb_set_where_xpos_exists():
    assert PTB_PUNCTUATION_XPOS == set(H_AND_M_PUNCT)
    upos = [["NOUN", "PUNCT", "NOUN", "PUNCT", "PUNCT"]]
    xpos = [["NN", "HYPH", "NN", "NFP", "."]]           # EWT: hyphen and emoticon are PUNCT but not PTB punctuation
    masks, rule = punctuation_masks(upos, xpos)
    assert rule == "xpos-ptb" and masks[0].tolist() == [False, False, False, False, True]
    masks, rule = punctuation_masks(upos)
    assert rule == "upos-punct" and masks[0].tolist() == [False, True, False, True, True]
    # one word without an XPOS anywhere in the corpus: the UPOS rule for the whole corpus
    masks, rule = punctuation_masks(upos + [["NOUN"]], xpos + [["_"]])
    assert rule == "upos-punct"
    with pytest.raises(ValueError, match="xpos has 1 sentences, upos 2"):
        punctuation_masks(upos + upos, xpos)
    with pytest.raises(ValueError, match="xpos has 2 tags, upos 5"):
        punctuation_mask(upos[0], ["NN", "NN"])


def test_uuas_on_real_ewt_matches_reporter_with_xpos(sources):
    """Real EWT test trees with noisy distances: our UUAS under the XPOS rule equals the
    reporter's, and differs from the UPOS rule where HYPH/NFP tokens occur."""
    from robust_bench.io.conllu_io import read_conllu

    sents = [s for s in read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-test.conllu")
             if len(s.heads) > 1][:400]
    rng = np.random.default_rng(0)
    heads = [list(s.heads) for s in sents]
    golds = [tree_distances(h) for h in heads]
    preds = [g + rng.normal(0, 1.0, g.shape) for g in golds]
    preds = [(p + p.T) / 2 for p in preds]
    xpos = [list(s.xpos) for s in sents]
    masks, rule = punctuation_masks([s.upos for s in sents], xpos)
    assert rule == "xpos-ptb"
    ours = uuas_score(heads, preds, punctuation=masks)
    assert ours == pytest.approx(_hm_uuas(golds, preds, xpos), abs=1e-12)
    upos_masks, _ = punctuation_masks([s.upos for s in sents])
    n_differ = sum(int((a != b).sum()) for a, b in zip(masks, upos_masks))
    assert n_differ > 0 and uuas_score(heads, preds, punctuation=upos_masks) != ours


# --- DSpr ----------------------------------------------------------------------------------------
def test_dspr_by_hand():
    heads = [0, 1, 2, 3, 4]                    # a chain: gold distance |i - j|
    perfect = tree_distances(heads) ** 2
    assert dspr_score([heads], [perfect]) == 1.0
    # reversing word order within each row is perfectly anti-correlated
    assert dspr_score([heads], [-perfect]) == -1.0
    # too-short sentences are excluded and counted
    r = dspr_details([heads, [0, 1]], [perfect, np.zeros((2, 2))])
    assert (r.n_sentences, r.n_excluded, r.score) == (1, 1, 1.0)


def test_dspr_per_length_average_then_mean():
    # length 5: one sentence scoring 1.0; length 6: two sentences scoring 1.0 and -1.0 -> 0.0
    h5, h6 = [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5]
    d5, d6 = tree_distances(h5), tree_distances(h6)
    r = dspr_details([h5, h6, h6], [d5, d6, -d6])
    assert r.per_length == {5: 1.0, 6: 0.0}
    assert r.score == 0.5


def test_dspr_constant_rows_count_as_zero_without_nan():
    heads = [0, 1, 2, 3, 4]
    r = dspr_details([heads], [np.ones((5, 5))])
    assert r.score == 0.0 and r.n_constant_rows == 5 and not np.isnan(r.score)
    with pytest.raises(ValueError, match="no sentence has between 5 and 50 words"):
        dspr_score([[0, 1]], [np.zeros((2, 2))])


def test_dspr_parity_with_hewitt_manning_reporter():
    rng = np.random.default_rng(2)
    golds, preds, heads_list = [], [], []
    for _ in range(80):
        n = int(rng.integers(3, 56))
        heads = _random_tree(rng, n)
        gold = _bfs_distances(heads)
        pred = gold + rng.normal(0, 1.5, size=(n, n))
        pred = (pred + pred.T) / 2
        golds.append(gold)
        preds.append(pred)
        heads_list.append(heads)
    assert dspr_score(heads_list, preds) == pytest.approx(_hm_dspr(golds, preds), abs=1e-10)


def test_minimum_spanning_edges_equals_scipy_on_distinct_weights():
    from scipy.sparse.csgraph import minimum_spanning_tree

    rng = np.random.default_rng(5)
    for n in (2, 3, 10, 40):
        d = rng.random((n, n))
        d = d + d.T
        t = minimum_spanning_tree(np.triu(d, 1)).tocoo()
        assert minimum_spanning_edges(d) == {(min(a, b), max(a, b)) for a, b in zip(t.row, t.col)}


def test_edges_to_heads_and_cycles():
    from robust_bench.text.trees import edges_to_heads

    assert edges_to_heads(3, [(1, 2), (0, 1)]) == [0, 1, 2]
    with pytest.raises(ValueError, match="do not connect"):
        edges_to_heads(4, [(0, 1), (0, 1), (2, 3)])
    with pytest.raises(ValueError, match="cycle"):
        tree_distances([2, 1])


def test_intervals_are_finite_for_every_metric_over_one_example_or_more():
    """Issue 49: a success rate over a few attacked examples gets a Wilson interval (a bootstrap resample
    may hold no attacked example, and its interval was null); a proportion over many trials keeps the
    percentile bootstrap; a metric that is not a proportion, over one example, spans its range."""
    import warnings

    from statsmodels.stats.proportion import proportion_confint

    from robust_bench.scoring.intervals import Formula, metric_interval

    rate = Formula("ratio", ("success", "attacked"))
    for attacked, success in ((1, 0), (1, 1), (3, 1), (5, 0)):
        cols = {"attacked": np.array([1] * attacked + [0] * 20), "success": np.array([1] * success + [0] * (attacked + 20 - success))}
        with warnings.catch_warnings():
            warnings.simplefilter("error")           # no scipy warning that names a method we do not use
            ci = metric_interval(rate, cols, value_range=(0.0, 1.0), seed=0)
        want = proportion_confint(success, attacked, method="wilson")
        assert ci.method == "wilson" and ci.n == attacked and np.allclose((ci.low, ci.high), want)
        assert ci.low <= success / attacked <= ci.high
    acc = Formula("ratio", ("correct", "one"))
    many = {"correct": np.arange(200) % 3 == 0, "one": np.ones(200)}
    ci = metric_interval(acc, many, value_range=(0.0, 1.0), seed=0)
    assert ci.method == "bootstrap-percentile" and ci.n == 200 and ci.low < 1 / 3 < ci.high
    same = {"correct": np.ones(200), "one": np.ones(200)}          # every resample equal: no warning, [1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = metric_interval(acc, same, value_range=(0.0, 1.0), seed=0)
    assert (ci.low, ci.high) == (1.0, 1.0)
    f1 = Formula("f1", ("tp", "fp", "fn"))
    ci = metric_interval(f1, {"tp": np.array([2]), "fp": np.array([1]), "fn": np.array([0])}, value_range=(0.0, 1.0))
    assert (ci.low, ci.high, ci.method, ci.n) == (0.0, 1.0, "range", 1)
    none = metric_interval(rate, {"attacked": np.zeros(5), "success": np.zeros(5)}, value_range=(0.0, 1.0))
    assert none.method == "none" and none.n == 0 and np.isnan(none.low)


def test_prompt_sensitivity_hand_computed():
    """Three templates over a hundred examples: the perturbation's effect (clean - perturbed, mean over the
    templates) against the range of the clean metric over the templates (Sclar et al. 2024's spread)."""
    from robust_bench.scoring.intervals import Formula
    from robust_bench.scoring.sensitivity import prompt_sensitivity

    def cols(clean, pert):      # four examples' outcomes, 25 times over (so that resamples have a spread)
        return {"c": np.tile(np.array(clean, float), 25), "p": np.tile(np.array(pert, float), 25), "one": np.ones(100)}

    columns = {"lm_eval": cols([1, 1, 1, 0], [1, 0, 1, 0]), "a": cols([1, 1, 0, 0], [1, 0, 0, 0]),
               "b": cols([1, 1, 1, 1], [1, 1, 1, 0])}
    s = prompt_sensitivity(columns, Formula("ratio", ("c", "one")), Formula("ratio", ("p", "one")), seed=0)
    assert s["templates"] == ["lm_eval", "a", "b"] and s["n"] == 100
    assert s["clean"] == {"lm_eval": 0.75, "a": 0.5, "b": 1.0} and s["perturbed"] == {"lm_eval": 0.5, "a": 0.25, "b": 0.75}
    assert s["clean_spread"] == {"min": 0.5, "max": 1.0, "range": 0.5, "sd": 0.25}
    assert s["effect"] == 0.25 and s["effect_over_spread"] == 0.5
    lo, hi = s["intervals"]["effect"]
    assert lo <= 0.25 <= hi
    # the same seed, the same intervals; a lower-is-better pair counts the effect the other way
    assert prompt_sensitivity(columns, Formula("ratio", ("c", "one")), Formula("ratio", ("p", "one")), seed=0) == s
    flipped = prompt_sensitivity(columns, Formula("ratio", ("c", "one")), Formula("ratio", ("p", "one")),
                                 higher_is_better=False)
    assert flipped["effect"] == -0.25
    lo, hi = s["intervals"]["effect_over_spread"]
    assert lo <= 0.5 <= hi and s["resamples_without_spread"] <= 50
    # templates that all score alike have no spread: no ratio, no interval, the effect still reported
    alike = {"lm_eval": columns["a"], "x": cols([1, 1, 0, 0], [0, 0, 0, 0])}
    flat = prompt_sensitivity(alike, Formula("ratio", ("c", "one")), Formula("ratio", ("p", "one")))
    assert flat["effect_over_spread"] is None and flat["intervals"]["effect_over_spread"] is None
    assert flat["effect"] == 0.375
    # one template is no spread; templates over other rows, or over none, are refused
    with pytest.raises(ValueError, match="two templates"):
        prompt_sensitivity({"lm_eval": columns["a"]}, Formula("ratio", ("c", "one")), Formula("ratio", ("p", "one")))
    short = {"c": np.ones(3), "p": np.ones(3), "one": np.ones(3)}
    with pytest.raises(ValueError, match="different numbers"):
        prompt_sensitivity({"lm_eval": columns["a"], "x": short}, Formula("ratio", ("c", "one")),
                           Formula("ratio", ("p", "one")))
    empty = {"c": np.ones(0), "p": np.ones(0), "one": np.ones(0)}
    with pytest.raises(ValueError, match="no example"):
        prompt_sensitivity({"lm_eval": empty, "x": empty}, Formula("ratio", ("c", "one")), Formula("ratio", ("p", "one")))


def test_formulas_over_copies_and_the_conll_f1_by_hand():
    """Table 3's random row is the F1 of each copy, then their mean and population sd; the CoNLL F1 is the mean
    of the MUC, B3 and CEAFe F1 from pooled counts (as robust_bench.scoring.coref pools documents)."""
    from robust_bench.scoring.coref import coref_counts, coref_scores
    from robust_bench.scoring.intervals import Formula, metric_value

    cols = {"tp_1": np.array([1, 1]), "fp_1": np.array([0, 1]), "fn_1": np.array([1, 0]),     # F1 = 4/6
            "tp_2": np.array([0, 2]), "fp_2": np.array([0, 0]), "fn_2": np.array([0, 0])}     # F1 = 1
    fields = ("tp_1", "fp_1", "fn_1", "tp_2", "fp_2", "fn_2")
    assert metric_value(Formula("f1", fields, over="mean"), cols) == pytest.approx((2 / 3 + 1) / 2)
    assert metric_value(Formula("f1", fields, over="sd"), cols) == pytest.approx(np.std([2 / 3, 1.0]))
    assert metric_value(Formula("f1", fields, over="mean"), cols, np.array([0, 0])) == pytest.approx((2 / 3 + 0) / 2)
    with pytest.raises(ValueError, match="3 fields per copy"):
        Formula("f1", fields[:4], over="mean")
    with pytest.raises(ValueError, match="over must be"):
        Formula("f1", fields[:3], over="median")
    docs = [([["a"], ["b", "c"], ["d", "e", "f"]], [["a"], ["d", "e"]]), ([["x", "y"]], [["x", "y", "z"]])]
    per_doc = [coref_counts(k, r) for k, r in docs]
    names = [f"{m}_{k}" for m in ("muc", "bcub", "ceafe") for k in ("rn", "rd", "pn", "pd")]
    cols = {n: np.array([getattr(c[n.split("_")[0]], {"rn": "r_num", "rd": "r_den", "pn": "p_num", "pd": "p_den"}[
        n.split("_")[1]]) for c in per_doc]) for n in names}
    assert metric_value(Formula("conll_f1", tuple(names)), cols) == pytest.approx(coref_scores(docs)["conll_f1"])
    drop = {"tp_c": np.array([2, 1, 0]), "fp_c": np.array([0, 1, 0]), "fn_c": np.array([0, 0, 1]),     # F1 6/8
            "tp_a": np.array([1, 0, 0]), "fp_a": np.array([1, 1, 0]), "fn_a": np.array([1, 1, 1])}     # F1 2/7
    assert metric_value(Formula("f1_drop", ("tp_c", "fp_c", "fn_c", "tp_a", "fp_a", "fn_a")), drop) == pytest.approx(
        6 / 8 - 2 / 7)


def _beta_binomial_clusters(n_clusters: int, m: int, p: float, rho: float, seed: int = 0):
    """0/1 outcomes in ``n_clusters`` clusters of ``m`` rows whose success probabilities are drawn from a
    Beta with mean ``p`` and intra-cluster correlation ``rho`` = 1 / (a + b + 1)."""
    rng = np.random.default_rng(seed)
    s = 1 / rho - 1
    probs = rng.beta(p * s, (1 - p) * s, size=n_clusters)
    y = (rng.random((n_clusters, m)) < probs[:, None]).astype(float).ravel()
    labels = np.repeat([f"c{k:05d}" for k in range(n_clusters)], m)
    perm = rng.permutation(len(y))       # rows of one cluster need not be adjacent
    return y[perm], labels[perm]


def test_clustered_interval_matches_the_analytic_width_and_equals_the_row_interval_for_singletons():
    """For a mean of 0/1 outcomes in clusters of m rows with intra-cluster correlation ρ the variance is
    p(1-p)/n (1 + (m-1)ρ) (Kish, 1965): the cluster bootstrap's 95% width is within 10% of that, the
    design effect near 1 + (m-1)ρ; with one row per cluster the interval is the row interval, bit for bit."""
    from scipy.stats import norm

    from robust_bench.scoring.intervals import (Formula, bootstrap_interval, cluster_index, design_effect,
                                                metric_interval)

    m, p, rho = 5, 0.6, 0.3
    y, labels = _beta_binomial_clusters(1500, m, p, rho)
    cols = {"correct": y, "one": np.ones_like(y)}
    acc = Formula("ratio", ("correct", "one"))
    clusters = cluster_index(labels)
    assert clusters.n_clusters == 1500 and not clusters.trivial
    lo, hi = bootstrap_interval(acc, cols, seed=0, clusters=clusters)
    deff_true = 1 + (m - 1) * rho
    analytic = 2 * norm.ppf(0.975) * np.sqrt(p * (1 - p) / len(y) * deff_true)
    assert abs((hi - lo) / analytic - 1) < 0.10, (hi - lo, analytic)
    assert abs(design_effect(acc, cols, clusters) / deff_true - 1) < 0.15
    naive_lo, naive_hi = bootstrap_interval(acc, cols, seed=0)
    assert (hi - lo) / (naive_hi - naive_lo) > 1.3           # rows as if independent understate the spread
    ci = metric_interval(acc, cols, value_range=(0, 1), clusters=clusters)
    assert ci.method == "cluster-bootstrap-percentile" and (ci.low, ci.high) == (lo, hi)
    # one row per cluster: exactly today's interval and method, design effect 1
    own = cluster_index([f"r{k}" for k in range(len(y))])
    assert own.trivial and design_effect(acc, cols, own) == 1.0
    assert bootstrap_interval(acc, cols, seed=3, clusters=own) == bootstrap_interval(acc, cols, seed=3)
    assert metric_interval(acc, cols, value_range=(0, 1), clusters=own) == metric_interval(acc, cols, value_range=(0, 1))
    # deterministic: same seed, same numbers
    assert bootstrap_interval(acc, cols, seed=0, clusters=cluster_index(labels)) == (lo, hi)


def test_cluster_index_rows_and_small_clustered_proportions():
    from robust_bench.scoring.intervals import Formula, cluster_index, metric_interval, wilson_interval

    idx = cluster_index(["b", "a", "b", "c", "a"])
    assert idx.codes.tolist() == [0, 1, 0, 2, 1] and idx.sizes.tolist() == [2, 2, 1]
    assert idx.rows(np.array([1, 1, 2])).tolist() == [1, 4, 1, 4, 3]
    # a proportion over few trials in clusters: the Wilson interval on the effective sample size is wider
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0], dtype=float)
    cols = {"c": y, "one": np.ones_like(y)}
    labels = ["a", "a", "a", "a", "b", "b", "b", "b", "c", "c", "d", "d"]
    ci = metric_interval(Formula("ratio", ("c", "one")), cols, value_range=(0, 1), clusters=cluster_index(labels))
    plain = wilson_interval(6, 12)
    assert ci.method == "wilson-clustered" and ci.low < plain[0] and ci.high > plain[1]


def test_design_effect_of_f1_and_dspr_is_one_for_singletons_and_grows_with_shared_clusters():
    from robust_bench.scoring.intervals import Formula, cluster_index, design_effect

    rng = np.random.default_rng(1)
    n = 200
    base = rng.integers(0, 4, size=n // 4).repeat(4)          # four rows per cluster share their counts
    f1cols = {"tp": base.astype(float), "fp": (3 - base).astype(float), "fn": rng.integers(0, 2, n).astype(float)}
    f1 = Formula("f1", ("tp", "fp", "fn"))
    labels = np.arange(n) // 4
    assert design_effect(f1, f1cols, cluster_index(range(n))) == 1.0
    assert design_effect(f1, f1cols, cluster_index(labels)) > 2
    dspr = Formula("dspr", ("rho", "rows", "length"))
    dcols = {"rho": base * 0.2 + rng.random(n) * 0.1, "rows": np.full(n, 1.0), "length": rng.integers(5, 8, n)}
    assert design_effect(dspr, dcols, cluster_index(range(n))) == 1.0
    assert design_effect(dspr, dcols, cluster_index(labels)) > 2


def test_clustered_mcnemar_reduces_to_mcnemar_and_widens_with_clustered_discordance():
    from robust_bench.scoring.intervals import (cluster_index, clustered_mcnemar, mcnemar_difference,
                                                minimum_detectable_effect)

    rng = np.random.default_rng(2)
    a0 = (rng.random(300) < 0.7).astype(int)
    a1 = a0.copy()
    a1[rng.choice(300, 30, replace=False)] ^= 1
    own = cluster_index(range(300))
    assert clustered_mcnemar(a0, a1, own) == mcnemar_difference(a0, a1)
    # the same discordance, whole clusters at a time: the interval is wider, the p-value larger
    b0 = np.repeat((rng.random(60) < 0.7).astype(int), 5)
    b1 = b0.copy()
    flip = np.repeat(rng.random(60) < 0.1, 5)
    b1[flip & (b0 == 1)] = 0
    grouped = clustered_mcnemar(b0, b1, cluster_index(np.arange(300) // 5))
    plain = mcnemar_difference(b0, b1)
    assert grouped["test"] == "clustered McNemar" and grouped["difference"] == plain["difference"]
    width = grouped["interval"][1] - grouped["interval"][0]
    assert width > 1.8 * (plain["interval"][1] - plain["interval"][0]) and grouped["p_value"] >= plain["p_value"]
    # Durkalski et al.'s statistic by hand: (Σ D_k)² / Σ D_k²
    net = (b1 - b0).reshape(60, 5).sum(1)
    from scipy.stats import chi2
    assert grouped["p_value"] == pytest.approx(chi2.sf(net.sum() ** 2 / (net ** 2).sum(), 1))
    # the minimum detectable effect: tolerance + (z_.975 + z_.8) SE at the drop itself; larger with clusters
    mde = minimum_detectable_effect(alpha=0.05, tolerance=0.0, n=300, discordance=0.0)
    assert mde == pytest.approx(2.8016 * np.sqrt((mde - mde ** 2) / 300), rel=1e-4)
    assert minimum_detectable_effect(alpha=0.05, tolerance=0.0, n=300, discordance=0.0, deff=3.0) > 1.5 * mde
    assert minimum_detectable_effect(alpha=0.05, tolerance=0.01, n=300, se=0.02) == pytest.approx(0.01 + 2.8016 * 0.02,
                                                                                                 rel=1e-4)


def test_the_linearised_influence_is_the_derivative_of_the_metric():
    """The design effect rests on each row's linearised influence (_influence): for the CoNLL F1, statistics over
    copies (mean, sd) and the F1 drop it must equal the numeric derivative of the metric in the row's weight."""
    from robust_bench.scoring.intervals import Formula, _influence, metric_value

    rng = np.random.default_rng(0)
    n = 30

    def check(formula, cols):
        base = metric_value(formula, cols)
        for i in range(0, n, 7):
            w = np.ones(n)
            w[i] += 1e-6
            numeric = (metric_value(formula, {k: v * w for k, v in cols.items()}) - base) / 1e-6
            assert numeric == pytest.approx(_influence(formula, cols)[i], abs=1e-6), (formula.kind, formula.over, i)

    names = [f"{m}_{k}" for m in ("muc", "bcub", "ceafe") for k in ("rn", "rd", "pn", "pd")]
    coref = {}
    for m in ("muc", "bcub", "ceafe"):
        coref[f"{m}_rd"], coref[f"{m}_pd"] = rng.integers(1, 10, n).astype(float), rng.integers(1, 10, n).astype(float)
        coref[f"{m}_rn"] = np.floor(coref[f"{m}_rd"] * rng.random(n))
        coref[f"{m}_pn"] = np.floor(coref[f"{m}_pd"] * rng.random(n))
    check(Formula("conll_f1", tuple(names)), coref)
    copies = {f"{f}_{c}": rng.integers(0, 4, n).astype(float) for c in range(1, 6) for f in ("tp", "fp", "fn")}
    fields = tuple(f"{f}_{c}" for c in range(1, 6) for f in ("tp", "fp", "fn"))
    for over in ("mean", "sd"):
        check(Formula("f1", fields, over=over), copies)
    check(Formula("f1_drop", fields[:6]), copies)
