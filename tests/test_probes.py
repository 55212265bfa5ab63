"""Structural and perceptron probes: losses by hand, determinism, and the learnability check."""

import numpy as np
import pytest
import torch

from robust_bench.experiments.probes import (TrialConfig, _perceptron_loss, _structural_loss, predict_distances, random_search,
                                 sample_trials, train_probe)
from robust_bench.scoring import dspr_score, punctuation_mask, uuas_score
from robust_bench.text.trees import tree_distances


def mds(heads, dim):
    """A synthetic 'model' that encodes the gold tree exactly: classical multidimensional scaling
    of the tree distances, so that ||x_i - x_j||^2 = d_T(i, j) (tree metrics are of negative type,
    so the Gram matrix is positive semi-definite)."""
    d = tree_distances(heads)
    n = len(d)
    j = np.eye(n) - 1.0 / n
    w, v = np.linalg.eigh(-0.5 * j @ d @ j)
    x = (v * np.sqrt(np.clip(w, 0, None)))[:, ::-1]
    out = np.zeros((n, dim), dtype=np.float32)
    out[:, :min(n, dim)] = x[:, :dim]
    return out


@pytest.fixture(scope="module")
def splits(ewt_train):
    sents = [s for s in ewt_train if 2 <= len(s) <= 40]
    order = np.random.default_rng(0).permutation(len(sents))
    pick = lambda a, b: [sents[i] for i in order[a:b]]  # noqa: E731
    return {"train": pick(0, 1500), "dev": pick(1500, 1800), "test": pick(1800, 2100)}


def test_mds_representations_encode_the_tree_exactly(splits):
    for s in splits["train"][:20]:
        x = mds(s.heads, 40).astype(np.float64)
        np.testing.assert_allclose(((x[:, None] - x[None]) ** 2).sum(-1), tree_distances(s.heads), atol=1e-4)


@pytest.mark.parametrize("kind", ["structural", "perceptron"])
def test_learnability_both_probes_recover_an_encoded_tree(splits, kind):
    """A probe that cannot learn trees from representations that encode them exactly is broken."""
    rep = lambda ss: [mds(s.heads, 40) for s in ss]  # noqa: E731
    heads = lambda ss: [s.heads for s in ss]  # noqa: E731
    probe = train_probe(kind, rep(splits["train"]), heads(splits["train"]), rep(splits["dev"]), heads(splits["dev"]),
                        TrialConfig(lr=3e-3, rank=40, dropout=0.1), epochs=20, seed=0)
    test = splits["test"]
    dists = predict_distances(probe.proj, rep(test))
    uuas = uuas_score(heads(test), dists, punctuation=[punctuation_mask(s.upos) for s in test])
    dspr = dspr_score(heads(test), dists)
    print(f"{kind}: UUAS {uuas:.4f} DSpr {dspr:.4f} after {probe.epochs} epochs")
    assert uuas > 0.95 and dspr > 0.9


def test_structural_loss_by_hand():
    pred = torch.tensor([[[0.0, 2.0], [2.0, 0.0]]])
    gold = torch.tensor([[[0.0, 1.0], [1.0, 0.0]]])
    # |2-1| twice over 2^2 pairs
    assert float(_structural_loss(pred, gold, torch.tensor([2]))) == pytest.approx(0.5)
    padded = torch.zeros(1, 3, 3)
    padded[0, :2, :2] = pred[0]
    gpad = torch.zeros(1, 3, 3)
    gpad[0, :2, :2] = gold[0]
    gpad[0, 2, :] = 99.0                       # padding never counts
    assert float(_structural_loss(padded, gpad, torch.tensor([2]))) == pytest.approx(0.5)


def test_perceptron_loss_by_hand():
    heads = [2, 0, 2]                          # gold edges 0-1, 1-2
    edges = torch.tensor(tree_distances(heads))[None]
    good = torch.tensor([[[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [5.0, 1.0, 0.0]]])
    assert float(_perceptron_loss(good, edges, torch.tensor([3]))) == 0.0
    # gold edges cost 1 + 1; the cost-augmented best tree takes 0-2 (1.5 - 1) and 0-1 (1):
    # loss = 2 - (1 + 1.5) + 1 (one wrong edge) = 0.5, over 2 edges = 0.25
    bad = torch.tensor([[[0.0, 1.0, 1.5], [1.0, 0.0, 1.0], [1.5, 1.0, 0.0]]], requires_grad=True)
    loss = _perceptron_loss(bad, edges, torch.tensor([3]))
    assert float(loss.detach()) == pytest.approx(0.25)
    loss.backward()
    assert bad.grad[0, 0, 2] < 0 and bad.grad[0, 1, 2] > 0


def test_trials_follow_app_b():
    trials = sample_trials(200, 768, seed=3)
    assert trials == sample_trials(200, 768, seed=3) and trials != sample_trials(200, 768, seed=4)
    assert all(5e-5 <= t.lr <= 5e-3 and 1 <= t.rank <= 768 and 0.1 <= t.dropout <= 0.8 for t in trials)
    assert min(t.rank for t in trials) < 100 and max(t.rank for t in trials) > 650


def test_training_is_deterministic_and_search_picks_lowest_dev_loss(splits):
    rng = np.random.default_rng(0)
    tr = splits["train"][:200]
    dv = splits["dev"][:50]
    reps = lambda ss: [rng.normal(size=(len(s), 16)).astype(np.float32) for s in ss]  # noqa: E731
    xtr, xdv = reps(tr), reps(dv)
    trials = sample_trials(3, 16, seed=1)
    a, all_a = random_search("structural", xtr, [s.heads for s in tr], xdv, [s.heads for s in dv], trials, epochs=3)
    b, _ = random_search("structural", xtr, [s.heads for s in tr], xdv, [s.heads for s in dv], trials, epochs=3)
    np.testing.assert_array_equal(a.proj, b.proj)
    assert a.dev_loss == min(p.dev_loss for p in all_a)
    with pytest.raises(ValueError, match="unknown probe"):
        train_probe("linear", xtr, [s.heads for s in tr], xdv, [s.heads for s in dv], trials[0])
    with pytest.raises(ValueError, match="vectors for"):
        train_probe("structural", xtr, [s.heads for s in dv] * 4, xdv, [s.heads for s in dv], trials[0])


def test_batched_prim_gives_minimum_spanning_trees():
    """The vectorised Prim of the perceptron loss against scipy's minimum spanning tree."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    from robust_bench.experiments.probes import _prim_parents

    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 12, size=40)
    n = int(lengths.max())
    cost = np.zeros((40, n, n))
    for b, m in enumerate(lengths):
        w = rng.random((m, m)) + 0.01
        cost[b, :m, :m] = w + w.T
    parent = _prim_parents(torch.tensor(cost), torch.tensor(lengths)).numpy()
    for b, m in enumerate(lengths):
        ours = sum(cost[b, j, parent[b, j]] for j in range(1, m))
        ref = minimum_spanning_tree(np.triu(cost[b, :m, :m])).sum()
        assert ours == pytest.approx(ref)
        assert len({(min(j, parent[b, j]), max(j, parent[b, j])) for j in range(1, m)}) == m - 1


@pytest.mark.parametrize("kind", ["structural", "perceptron"])
def test_trials_trained_together_equal_trials_trained_alone(splits, kind):
    """One pass over the data for all trials gives each trial what training it alone gives (without
    dropout, whose draws are shared out in another order)."""
    from robust_bench.experiments.probes import prepare_search_data, train_trials

    rng = np.random.default_rng(1)
    tr, dv = splits["train"][:120], splits["dev"][:40]
    reps = lambda ss: [rng.normal(size=(len(s), 12)).astype(np.float32) for s in ss]  # noqa: E731
    data = prepare_search_data(reps(tr), [s.heads for s in tr], reps(dv), [s.heads for s in dv])
    trials = [TrialConfig(lr=3e-3, rank=5, dropout=0.0), TrialConfig(lr=1e-3, rank=12, dropout=0.0),
              TrialConfig(lr=5e-4, rank=2, dropout=0.0)]
    together = train_trials(kind, *data, trials, epochs=4, patience=1, seed=3)
    for t, got in zip(trials, together):
        alone = train_trials(kind, *data, [t], epochs=4, patience=1, seed=3)[0]
        np.testing.assert_allclose(got.proj, alone.proj, rtol=1e-5, atol=1e-6)
        assert got.epochs == alone.epochs and got.dev_loss == pytest.approx(alone.dev_loss, rel=1e-6)


def test_scaled_initialisation_starts_at_the_gold_scale(splits):
    """The paper's draw on large-norm features starts with distances far above the tree
    distances; the scaled draw starts at their mean (first-epoch train loss near 1)."""
    from robust_bench.experiments.probes import prepare_search_data, train_trials

    rng = np.random.default_rng(2)
    tr, dv = splits["train"][:200], splits["dev"][:40]
    reps = lambda ss: [3.0 * rng.normal(size=(len(s), 64)).astype(np.float32) for s in ss]  # noqa: E731
    data = prepare_search_data(reps(tr), [s.heads for s in tr], reps(dv), [s.heads for s in dv])
    trial = [TrialConfig(lr=1e-4, rank=64, dropout=0.1)]
    paper = train_trials("structural", *data, trial, epochs=1, init="paper")[0]
    scaled = train_trials("structural", *data, trial, epochs=1, init="scaled")[0]
    assert paper.history[0][0] > 5 * scaled.history[0][0]
