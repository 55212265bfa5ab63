"""Syntactic probes: the structural probe and the perceptron probe.

Both share one parameterisation (Hewitt & Manning, 2019, §2): a matrix ``B`` of shape
(rank, hidden) and the predicted squared distance

    d_B(h_i, h_j) = || B (h_i - h_j) ||^2 .

* **Structural probe** (Hewitt & Manning, 2019, Eq. 3 and §3): trained with the L1 loss
  between predicted distances and gold tree distances over all word pairs, normalised by the
  squared sentence length. Scored with DSpr and with UUAS of the minimum spanning tree.
* **Perceptron probe** (Hall Maudslay et al., 2020, "A Tale of a Probe and a Parser", §3;
  McDonald et al., 2005): trained with a structured hinge loss so that the gold tree is the
  minimum spanning tree of the predicted distances by a margin of the Hamming cost:

      loss = sum_{e in gold} d(e) - min_T [ sum_{e in T} (d(e) - [e not in gold]) ] >= 0,

  the minimum over spanning trees T found by a cost-augmented minimum spanning tree.
  Normalised by the number of edges. Scored with UUAS.

Training follows Hall Maudslay & Cotterell (2021, App. B): Adam, batches of 64 sentences, at
most 20 epochs, early stopping on the development loss, and a random search of 10 trials
over learning rate (log-uniform in [5e-5, 5e-3]), rank (uniform in [1, d]) and dropout
(uniform in [0.1, 0.8]). Everything is seeded; on the CPU runs are bit-for-bit repeatable.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from robust_bench.text.trees import heads_to_edges, minimum_spanning_edges, tree_distances

__all__ = ["PROBES", "TrialConfig", "TrainedProbe", "sample_trials", "train_probe", "predict_distances",
           "random_search"]

PROBES = ("structural", "perceptron")


@dataclass(frozen=True)
class TrialConfig:
    """Hyperparameters of one random-search trial (App. B)."""

    lr: float
    rank: int
    dropout: float


def sample_trials(n_trials: int, dim: int, *, seed: int = 0) -> list[TrialConfig]:
    """Draw ``n_trials`` hyperparameter settings: lr log-uniform in [5e-5, 5e-3], rank uniform
    in [1, dim], dropout uniform in [0.1, 0.8] (Hall Maudslay & Cotterell, 2021, App. B)."""
    rng = random.Random(f"probe-trials/{seed}")
    out = []
    for _ in range(n_trials):
        lr = math.exp(rng.uniform(math.log(5e-5), math.log(5e-3)))
        out.append(TrialConfig(lr=lr, rank=rng.randint(1, dim), dropout=rng.uniform(0.1, 0.8)))
    return out


@dataclass
class TrainedProbe:
    """A trained probe and its training record.

    Attributes
    ----------
    kind : {"structural", "perceptron"}
    trial : TrialConfig
    proj : ndarray of float32 of shape (rank, hidden)
        The matrix ``B``.
    dev_loss : float
        Best development loss (the selection criterion).
    epochs : int
        Epochs run before early stopping.
    history : list of (float, float)
        (train loss, dev loss) per epoch.
    """

    kind: str
    trial: TrialConfig
    proj: np.ndarray
    dev_loss: float
    epochs: int
    history: list[tuple[float, float]] = field(default_factory=list)


def _module(dim: int, rank: int, dropout: float):
    import torch
    from torch import nn

    class DistanceProbe(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Parameter(torch.empty(rank, dim))
            nn.init.uniform_(self.proj, -0.05, 0.05)  # as in Hewitt & Manning's code
            self.dropout = nn.Dropout(dropout)

        def forward(self, h):  # h: (batch, length, dim) -> (batch, length, length)
            t = self.dropout(h) @ self.proj.T
            sq = (t * t).sum(-1)
            d = sq[:, :, None] + sq[:, None, :] - 2.0 * (t @ t.transpose(1, 2))
            return d.clamp_min(0.0)

    return DistanceProbe()


def _batch(reps: Sequence[np.ndarray], golds: Sequence[np.ndarray], idx: Sequence[int], device):
    import torch

    n = max(len(reps[i]) for i in idx)
    dim = reps[idx[0]].shape[1]
    h = np.zeros((len(idx), n, dim), dtype=np.float32)
    g = np.zeros((len(idx), n, n), dtype=np.float32)
    lengths = np.zeros(len(idx), dtype=np.int64)
    for b, i in enumerate(idx):
        m = len(reps[i])
        h[b, :m] = reps[i]
        g[b, :m, :m] = golds[i]
        lengths[b] = m
    return (torch.from_numpy(h).to(device), torch.from_numpy(g).to(device), torch.from_numpy(lengths).to(device))


def _structural_loss(pred, gold, lengths):
    """L1 over word pairs, normalised by squared length, averaged over sentences (H&M Eq. 3)."""
    import torch

    n = pred.shape[1]
    ar = torch.arange(n, device=pred.device)
    mask = (ar[None, :] < lengths[:, None]).float()
    pair = mask[:, :, None] * mask[:, None, :]
    per_sent = ((pred - gold).abs() * pair).sum(dim=(1, 2)) / (lengths.float() ** 2)
    return per_sent.mean()


def _perceptron_loss(pred, gold_edges: list[set[tuple[int, int]]], lengths):
    """Structured hinge with Hamming cost and a cost-augmented MST, averaged over sentences."""
    import torch

    losses = []
    dist = pred.detach().cpu().numpy()
    for b, edges in enumerate(gold_edges):
        m = int(lengths[b])
        if m < 2:
            continue
        aug = dist[b, :m, :m] - 1.0
        for i, j in edges:
            aug[i, j] += 1.0
            aug[j, i] += 1.0
        best = minimum_spanning_edges(aug)
        gi = torch.tensor([e for e in edges], device=pred.device)
        bi = torch.tensor(sorted(best), device=pred.device)
        cost = float(len(best - edges))
        loss = pred[b, gi[:, 0], gi[:, 1]].sum() - pred[b, bi[:, 0], bi[:, 1]].sum() + cost
        losses.append(loss / (m - 1))
    if not losses:
        return pred.sum() * 0.0
    return torch.stack(losses).mean()


def _loss(kind, probe, h, g, lengths, edges):
    pred = probe(h)
    if kind == "structural":
        return _structural_loss(pred, g, lengths)
    return _perceptron_loss(pred, edges, lengths)


def train_probe(kind: str, train_reps: Sequence[np.ndarray], train_heads: Sequence[Sequence[int]],
                dev_reps: Sequence[np.ndarray], dev_heads: Sequence[Sequence[int]], trial: TrialConfig, *,
                epochs: int = 20, batch_size: int = 64, patience: int = 2, seed: int = 0,
                device: str = "cpu") -> TrainedProbe:
    """Train one probe with Adam and early stopping on the development loss.

    Parameters
    ----------
    kind : {"structural", "perceptron"}
    train_reps, dev_reps : sequence of ndarray, each of shape (n_words, hidden)
        Word vectors per sentence.
    train_heads, dev_heads : sequence of array-like of int, each of shape (n_words,)
        1-based gold heads.
    trial : TrialConfig
    epochs : int
        At most this many passes over the training data (20 in App. B).
    batch_size : int
        Sentences per step (64 in App. B).
    patience : int
        Epochs without a better development loss before stopping; the best epoch's
        parameters are kept.
    seed : int
    device : str

    Returns
    -------
    TrainedProbe

    Raises
    ------
    ValueError
        On an unknown probe kind, empty data or mismatched lengths.
    """
    import torch

    if kind not in PROBES:
        raise ValueError(f"unknown probe {kind!r}; expected one of {PROBES}")
    if not train_reps or not dev_reps:
        raise ValueError("probe training needs non-empty train and development sets")
    for reps, heads, name in ((train_reps, train_heads, "train"), (dev_reps, dev_heads, "dev")):
        if len(reps) != len(heads):
            raise ValueError(f"{name}: {len(reps)} representations but {len(heads)} trees")
        for k, (r, h) in enumerate(zip(reps, heads)):
            if len(r) != len(h):
                raise ValueError(f"{name} sentence {k}: {len(r)} vectors for {len(h)} words")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    dim = train_reps[0].shape[1]
    probe = _module(dim, trial.rank, trial.dropout).to(device)
    opt = torch.optim.Adam(probe.parameters(), lr=trial.lr)
    golds_tr = [tree_distances(h) for h in train_heads]
    golds_dev = [tree_distances(h) for h in dev_heads]
    edges_tr = [set(heads_to_edges(h)) for h in train_heads]
    edges_dev = [set(heads_to_edges(h)) for h in dev_heads]
    # batch development sentences by length to limit padding
    dev_order = sorted(range(len(dev_reps)), key=lambda i: len(dev_reps[i]))
    dev_batches = [dev_order[i:i + batch_size] for i in range(0, len(dev_order), batch_size)]

    def dev_loss() -> float:
        probe.eval()
        total = 0.0
        with torch.no_grad():
            for idx in dev_batches:
                h, g, lengths = _batch(dev_reps, golds_dev, idx, device)
                total += float(_loss(kind, probe, h, g, lengths, [edges_dev[i] for i in idx])) * len(idx)
        return total / len(dev_reps)

    best, best_state, bad, history, ran = math.inf, None, 0, [], 0
    for _epoch in range(epochs):
        probe.train()
        perm = torch.randperm(len(train_reps), generator=gen).tolist()
        running = 0.0
        for s in range(0, len(perm), batch_size):
            idx = perm[s:s + batch_size]
            h, g, lengths = _batch(train_reps, golds_tr, idx, device)
            loss = _loss(kind, probe, h, g, lengths, [edges_tr[i] for i in idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += float(loss.detach()) * len(idx)
        ran += 1
        dl = dev_loss()
        history.append((running / len(train_reps), dl))
        if dl < best - 1e-7:
            best, best_state, bad = dl, copy.deepcopy(probe.state_dict()), 0
        else:
            bad += 1
            if bad >= patience:
                break
    probe.load_state_dict(best_state)
    return TrainedProbe(kind=kind, trial=trial, proj=probe.proj.detach().cpu().numpy().copy(),
                        dev_loss=best, epochs=ran, history=history)


def predict_distances(proj: np.ndarray, reps: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Predicted squared distances ``||B(h_i - h_j)||^2`` per sentence, each (n_words, n_words)."""
    out = []
    for r in reps:
        t = np.asarray(r, dtype=np.float64) @ proj.T.astype(np.float64)
        diff = t[:, None, :] - t[None, :, :]
        out.append((diff * diff).sum(-1))
    return out


def random_search(kind: str, train_reps, train_heads, dev_reps, dev_heads, trials: Sequence[TrialConfig], *,
                  epochs: int = 20, batch_size: int = 64, patience: int = 2, seed: int = 0,
                  device: str = "cpu", progress: bool = False) -> tuple[TrainedProbe, list[TrainedProbe]]:
    """Train one probe per trial and keep the one with the lowest development loss.

    Returns
    -------
    best : TrainedProbe
    all_trials : list of TrainedProbe
    """
    results = []
    it = list(enumerate(trials))
    if progress:
        from tqdm.auto import tqdm
        it = tqdm(it, desc=f"{kind} probe trials", unit="trial")
    for k, trial in it:
        results.append(train_probe(kind, train_reps, train_heads, dev_reps, dev_heads, trial, epochs=epochs,
                                   batch_size=batch_size, patience=patience, seed=seed * 1000 + k, device=device))
    best = min(results, key=lambda p: p.dev_loss)
    return best, results
