"""Model-free baselines of Hall Maudslay & Cotterell (2021, §5.1).

Both baselines ignore the words, so they score the same on plain and Jabberwocky text;
``robust-bench baselines`` checks that as a guard that the Jabberwocky trees equal their source.
As models they are ``baseline:path`` and ``baseline:majority``
(:mod:`robust_bench.models.resolve`), scored by the ``baseline`` evaluation
(:mod:`robust_bench.evaluations.jabberwocky`).

* **Path** links each word to the next: predicted distance ``|i - j|``.
* **Majority** predicts, for a sentence of length ``n``, the maximum spanning tree (Prim's
  algorithm) over the counts of undirected edges ``(i, j)`` in the training trees of length
  ``n``. Lengths over 40, and lengths no training tree has, fall back to Path.

Each baseline yields a predicted distance matrix per sentence (the tree distance of its
tree), so UUAS and DSpr are computed exactly as for a probe.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from robust_bench.models.resolve import BASELINES
from robust_bench.text.trees import edges_to_distances, heads_to_edges, prim_maximum_spanning_tree
from robust_bench import RobustBenchError

__all__ = ["path_distances", "MajorityBaseline", "MAJORITY_MAX_LENGTH", "BASELINES", "score_baselines", "source_trees",
           "BaselineCheckError"]

#: Longest sentence for which Majority uses training counts (the paper's cut-off).
MAJORITY_MAX_LENGTH = 40


def path_distances(n: int) -> np.ndarray:
    """Distances of the Path baseline, ``|i - j|``, shape (n, n)."""
    idx = np.arange(n)
    return np.abs(idx[:, None] - idx[None, :]).astype(np.float64)


@dataclass
class MajorityBaseline:
    """The Majority baseline: one maximum spanning tree of edge counts per sentence length.

    Attributes
    ----------
    max_length : int
        Lengths above this fall back to Path (40 in the paper).
    trees : dict of int to list of (int, int)
        The fitted tree for each length seen in training.
    n_fallback : int
        Sentences predicted with Path so far, because they were too long or their length
        was not seen in training.
    """

    max_length: int = MAJORITY_MAX_LENGTH
    trees: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    n_fallback: int = 0

    def fit(self, train_heads: Iterable[Sequence[int]]) -> "MajorityBaseline":
        """Count undirected edges per sentence length and take Prim's maximum spanning tree.

        Parameters
        ----------
        train_heads : iterable of array-like of int, each of shape (n_words,)
            1-based heads of the training trees.

        Returns
        -------
        self
        """
        counts: dict[int, np.ndarray] = {}
        for heads in train_heads:
            n = len(heads)
            if n > self.max_length or n < 2:
                continue
            c = counts.setdefault(n, np.zeros((n, n)))
            for i, j in heads_to_edges(heads):
                c[i, j] += 1
                c[j, i] += 1
        self.trees = {n: prim_maximum_spanning_tree(c) for n, c in sorted(counts.items())}
        return self

    def predict_distances(self, n: int) -> np.ndarray:
        """Predicted distances for a sentence of ``n`` words, shape (n, n)."""
        if n in self.trees:
            return edges_to_distances(n, self.trees[n])
        if n >= 2:
            self.n_fallback += 1
        return path_distances(n)


def score_baselines(train_heads: Iterable[Sequence[int]],
                    eval_sets: dict[str, tuple[Sequence[Sequence[int]], Sequence[Sequence[str]],
                                               Sequence[Sequence[str]] | None]],
                    *, max_length: int = MAJORITY_MAX_LENGTH) -> dict[str, dict[str, dict]]:
    """UUAS and DSpr of Path and Majority on one or more evaluation sets.

    Parameters
    ----------
    train_heads : iterable of array-like of int
        Training trees for Majority.
    eval_sets : dict of str to (heads, upos, xpos)
        Per variant (for example ``"plain"``, ``"jabberwocky"``): the gold heads, UPOS tags and
        XPOS tags (or ``None``) of each sentence. Punctuation is excluded from UUAS by the rule
        :func:`robust_bench.scoring.punctuation_masks` picks; ``details`` names it.
    max_length : int
        Majority's length cut-off.

    Returns
    -------
    dict
        ``result[baseline][variant] = {"uuas": float, "dspr": float, "details": {...}}`` with
        baselines ``"path"`` and ``"majority"``.
    """
    from robust_bench.scoring import dspr_details, punctuation_masks, uuas_counts

    majority = MajorityBaseline(max_length=max_length).fit(train_heads)
    out: dict[str, dict[str, dict]] = {"path": {}, "majority": {}}
    for variant, (heads, upos, xpos) in eval_sets.items():
        punct, rule = punctuation_masks(upos, xpos)
        majority.n_fallback = 0
        preds = {"path": [path_distances(len(h)) for h in heads],
                 "majority": [majority.predict_distances(len(h)) for h in heads]}
        fallback = majority.n_fallback
        for name, dists in preds.items():
            u = uuas_counts(heads, dists, punctuation=punct)
            d = dspr_details(heads, dists)
            details = {"uuas_correct": u.correct, "uuas_total": u.total, "uuas_sentences": u.n_sentences,
                       "uuas_skipped": u.n_skipped, "punctuation_rule": rule, "dspr_sentences": d.n_sentences,
                       "dspr_excluded": d.n_excluded, "dspr_constant_rows": d.n_constant_rows}
            if name == "majority":
                details["path_fallback_sentences"] = fallback
                details["max_length"] = max_length
            out[name][variant] = {"uuas": u.score, "dspr": d.score, "details": details}
    return out


class BaselineCheckError(RobustBenchError, RuntimeError):
    """Plain and Jabberwocky baselines differ: the Jabberwocky trees do not equal their source, or
    the built config cannot be scored."""


def source_trees(config: str, sent_ids: Sequence[str], *, split: str = "test",
                 source: str | os.PathLike | None = None) -> dict[str, Any]:
    """The source treebank of a Jabberwocky config, as the baselines read it: its training trees (Majority)
    and the plain sentences of ``sent_ids`` (the built rows' ids), so that plain and Jabberwocky text are
    scored on the same sentences and their identical scores check that the Jabberwocky trees equal their source.

    Parameters
    ----------
    config : str
        A Jabberwocky config (``jabberwocky_ewt``).
    sent_ids : sequence of str
        The ``sent_id`` of each scored row, in order.
    split : str
        The split the rows are of.
    source : path-like, optional
        Local mirror of the source treebank (default: ``$ROBUST_BENCH_SOURCES``, else a download).

    Returns
    -------
    dict
        ``train_heads`` (list of list of int, 1-based), ``plain`` (the source
        :class:`~robust_bench.io.conllu_io.Sentence` of each id, in order), ``path`` and ``sha256`` of the
        source file of ``split``.

    Raises
    ------
    BaselineCheckError
        If the config is not a Jabberwocky config, or an id is not in the source.
    ConlluError, SourceNotFoundError
        A malformed or missing source treebank.
    """
    import tempfile

    import datasets

    from robust_bench.data.registry import get_config
    from robust_bench.io.sources import sha256_file

    entry = get_config(config)
    if entry.family != "jabberwocky":
        raise BaselineCheckError(f"the Path and Majority baselines are defined for Jabberwocky configs, not {config!r}")
    with tempfile.TemporaryDirectory() as cache:
        builder = entry.builder(config_name=config, cache_dir=cache,
                                source_dir=None if source is None else str(source))
        dl = datasets.DownloadManager(dataset_name=config, download_config=datasets.DownloadConfig())
        treebank, paths = builder.read_treebank(dl)
    # the source sentences of the built rows, by id (a build with --set limit=N holds the first N)
    by_id = {s.sent_id: s for s in treebank[split]}
    missing = [i for i in sent_ids if i not in by_id]
    if missing:
        raise BaselineCheckError(f"sentence {missing[0]!r} of {config}/{split} is not in the source {paths[split]} "
                                 f"({len(missing)} missing); rebuild {config!r} from this source")
    return {"train_heads": [s.heads for s in treebank["train"]], "plain": [by_id[i] for i in sent_ids],
            "path": str(paths[split]), "sha256": sha256_file(paths[split])}
