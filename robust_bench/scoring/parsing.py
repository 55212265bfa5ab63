"""Parsing metrics: UUAS and DSpr (Hewitt & Manning, 2019), with the punctuation rule they name."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy.stats import rankdata

from robust_bench.text.trees import minimum_spanning_edges, tree_distances

__all__ = ["UUASResult", "DSprResult", "uuas_counts", "uuas_score", "dspr_details", "dspr_score",
           "punctuation_mask", "punctuation_masks", "PTB_PUNCTUATION_XPOS", "PUNCTUATION_RULES"]

PUNCT_UPOS = "PUNCT"

#: PTB tags that Hewitt & Manning (2019) exclude from UUAS: ``prims_matrix_to_edges`` in the
#: ``reporter.py`` of github.com/john-hewitt/structural-probes (the same set as Chen & Manning's
#: parser evaluation). On UD English EWT this keeps HYPH, NFP, ``$`` and ``#`` in the tree.
PTB_PUNCTUATION_XPOS = frozenset({"''", ",", ".", ":", "``", "-LRB-", "-RRB-"})

#: The punctuation rules a record can name, with what each excludes.
PUNCTUATION_RULES = {
    "xpos-ptb": "XPOS in {'' , . : `` -LRB- -RRB-} (Hewitt & Manning 2019, reporter.py)",
    "upos-punct": "UPOS PUNCT (the corpus has no PTB XPOS tags)",
}


def punctuation_mask(upos: Sequence[str], xpos: Sequence[str] | None = None) -> np.ndarray:
    """Boolean mask of the punctuation words of one sentence, shape (n_words,).

    With ``xpos`` (PTB tags), a word is punctuation when its XPOS is in
    :data:`PTB_PUNCTUATION_XPOS`, the rule of Hewitt & Manning (2019, ``reporter.py``).
    Without it, UPOS ``PUNCT`` stands in. See :func:`punctuation_masks` for choosing the rule
    for a whole corpus.

    Raises
    ------
    ValueError
        If ``xpos`` and ``upos`` differ in length.
    """
    if xpos is None:
        return np.asarray([u == PUNCT_UPOS for u in upos], dtype=bool)
    if len(xpos) != len(upos):
        raise ValueError(f"xpos has {len(xpos)} tags, upos {len(upos)}")
    return np.asarray([x in PTB_PUNCTUATION_XPOS for x in xpos], dtype=bool)


def _has_ptb_xpos(xpos: Sequence[Sequence[str]] | None) -> bool:
    if xpos is None:
        return False
    tags = [t for sent in xpos for t in sent]
    return bool(tags) and all(t not in ("", "_", None) for t in tags)


def punctuation_masks(upos: Sequence[Sequence[str]], xpos: Sequence[Sequence[str]] | None = None
                      ) -> tuple[list[np.ndarray], str]:
    """Punctuation masks for a corpus, and the name of the rule used.

    The XPOS (PTB) rule of Hewitt & Manning (2019) is used when every word of the corpus carries
    an XPOS tag; otherwise the UPOS ``PUNCT`` rule. One rule for the whole corpus, so scores of
    its sentences are comparable.

    Parameters
    ----------
    upos : sequence of sequence of str
        UPOS tags per sentence, shape (n_sentences, n_words).
    xpos : sequence of sequence of str, optional
        PTB tags per sentence, same shape; ``"_"`` marks a missing tag.

    Returns
    -------
    masks : list of ndarray of bool, each of shape (n_words,)
    rule : str
        A key of :data:`PUNCTUATION_RULES`: ``"xpos-ptb"`` or ``"upos-punct"``.

    Raises
    ------
    ValueError
        If ``xpos`` has a different number of sentences or words from ``upos``.
    """
    if xpos is not None and len(xpos) != len(upos):
        raise ValueError(f"xpos has {len(xpos)} sentences, upos {len(upos)}")
    if _has_ptb_xpos(xpos):
        return [punctuation_mask(u, x) for u, x in zip(upos, xpos)], "xpos-ptb"
    return [punctuation_mask(u) for u in upos], "upos-punct"


@dataclass(frozen=True)
class UUASResult:
    """Counts behind a UUAS value.

    Attributes
    ----------
    correct : int
        Gold undirected edges found in the predicted tree.
    total : int
        Gold undirected edges scored.
    n_sentences : int
        Sentences scored (those with at least one scored gold edge).
    n_skipped : int
        Sentences with fewer than two non-punctuation words (no edge to score).
    """

    correct: int
    total: int
    n_sentences: int
    n_skipped: int

    @property
    def score(self) -> float:
        """UUAS, a fraction in [0, 1]; 1 is best."""
        if self.total == 0:
            raise ValueError("UUAS is undefined: no sentence has a gold edge to score")
        return self.correct / self.total


def _check_lengths(name: str, a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name}: expected {len(a)} sentences, got {len(b)}")


def _prediction_distances(pred, n: int, k: int) -> np.ndarray:
    arr = np.asarray(pred)
    if arr.ndim == 1:
        if arr.shape != (n,):
            raise ValueError(f"sentence {k}: predicted heads have shape {arr.shape}, expected ({n},)")
        if (arr < 0).any() or (arr > n).any():
            raise ValueError(f"sentence {k}: predicted heads must lie in [0, {n}]")
        return tree_distances(arr.astype(int))
    if arr.ndim == 2:
        if arr.shape != (n, n):
            raise ValueError(f"sentence {k}: predicted distances have shape {arr.shape}, expected ({n}, {n})")
        return arr.astype(np.float64)
    raise ValueError(f"sentence {k}: a prediction must be heads (n,) or distances (n, n), got ndim {arr.ndim}")


def uuas_counts(gold_heads: Sequence[Sequence[int]], predictions: Sequence, *,
                punctuation: Sequence[Sequence[bool]] | None = None) -> UUASResult:
    """Count the gold undirected edges recovered by predicted trees.

    Follows Hewitt & Manning (2019, §3.1 and their ``reporter.py``): punctuation words are
    removed, the gold edges are the minimum spanning tree of the gold tree distances over
    the remaining words, the predicted edges the minimum spanning tree of the predicted
    distances over the same words, and UUAS is the corpus-level fraction of gold edges that
    are predicted (micro-average over edges).

    Parameters
    ----------
    gold_heads : sequence of array-like of int, each of shape (n_words,)
        1-based gold heads, 0 for the root.
    predictions : sequence of array-like
        Per sentence, either predicted distances of shape (n_words, n_words), decoded with
        a minimum spanning tree, or a predicted tree as 1-based heads of shape (n_words,).
    punctuation : sequence of array-like of bool, each of shape (n_words,), optional
        Words to exclude. ``None`` excludes nothing; see :func:`punctuation_mask`.

    Returns
    -------
    UUASResult

    Raises
    ------
    ValueError
        On mismatched numbers of sentences or shapes, heads out of range, or NaN distances.
    """
    _check_lengths("predictions", gold_heads, predictions)
    if punctuation is not None:
        _check_lengths("punctuation", gold_heads, punctuation)
    correct = total = used = skipped = 0
    for k, (gold, pred) in enumerate(zip(gold_heads, predictions)):
        gold = np.asarray(gold, dtype=int)
        n = len(gold)
        keep = np.ones(n, dtype=bool)
        if punctuation is not None:
            p = np.asarray(punctuation[k], dtype=bool)
            if p.shape != (n,):
                raise ValueError(f"sentence {k}: punctuation mask has shape {p.shape}, expected ({n},)")
            keep = ~p
        if keep.sum() < 2:
            skipped += 1
            continue
        pred_d = _prediction_distances(pred, n, k)
        gold_edges = minimum_spanning_edges(tree_distances(gold), keep)
        pred_edges = minimum_spanning_edges(pred_d, keep)
        correct += len(gold_edges & pred_edges)
        total += len(gold_edges)
        used += 1
    return UUASResult(correct=correct, total=total, n_sentences=used, n_skipped=skipped)


def uuas_score(gold_heads: Sequence[Sequence[int]], predictions: Sequence, *,
               punctuation: Sequence[Sequence[bool]] | None = None) -> float:
    """Undirected unlabelled attachment score (UUAS).

    The fraction of gold undirected edges that the predicted tree recovers (Hewitt &
    Manning, 2019, §3.1). See :func:`uuas_counts` for the parameters.

    Returns
    -------
    float
        Fraction in [0, 1]; 1 is best.

    Raises
    ------
    ValueError
        As :func:`uuas_counts`, and when no sentence has a gold edge to score.

    Examples
    --------
    >>> gold = [[2, 0, 2]]                 # edges 1-2 and 2-3
    >>> uuas_score(gold, [[3, 0, 2]])     # predicted edges 1-3 and 2-3
    0.5
    """
    return uuas_counts(gold_heads, predictions, punctuation=punctuation).score


@dataclass(frozen=True)
class DSprResult:
    """Details behind a DSpr value.

    Attributes
    ----------
    score : float
        DSpr in [-1, 1]; 1 is best.
    per_length : dict of int to float
        Mean Spearman correlation for each sentence length in range.
    n_sentences : int
        Sentences whose length lies in ``[min_length, max_length]``.
    n_excluded : int
        Sentences outside that range (too short for a stable correlation, or too long).
    n_constant_rows : int
        Predicted rows with no variation; their correlation is undefined and counted as 0.
    """

    score: float
    per_length: dict[int, float] = field(default_factory=dict)
    n_sentences: int = 0
    n_excluded: int = 0
    n_constant_rows: int = 0


def _row_spearman(pred: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, int]:
    """Spearman correlation of each row of ``pred`` with the same row of ``gold``.

    Ties get average ranks, as in :func:`scipy.stats.spearmanr`. Rows with no variation
    get 0 and are counted.
    """
    rp = rankdata(pred, axis=1)
    rg = rankdata(gold, axis=1)
    rp -= rp.mean(axis=1, keepdims=True)
    rg -= rg.mean(axis=1, keepdims=True)
    num = (rp * rg).sum(axis=1)
    den = np.sqrt((rp * rp).sum(axis=1) * (rg * rg).sum(axis=1))
    constant = den <= 1e-12
    rho = np.zeros(len(num))
    rho[~constant] = num[~constant] / den[~constant]
    return np.clip(rho, -1.0, 1.0), int(constant.sum())


def dspr_details(gold: Sequence, predicted_distances: Sequence[np.ndarray], *,
                 min_length: int = 5, max_length: int = 50) -> DSprResult:
    """Distance Spearman (DSpr) with its per-length breakdown.

    Hewitt & Manning (2019, §3.1): for every word of a sentence, the Spearman correlation
    between its row of predicted distances and its row of gold tree distances; these are
    averaged over all sentences of the same length, and the per-length means are averaged
    over lengths ``min_length..max_length`` (5–50 in the paper). As in their
    ``reporter.py``, every word takes part, punctuation included.

    Parameters
    ----------
    gold : sequence of array-like
        Per sentence, gold heads of shape (n_words,) (1-based, 0 = root) or gold tree
        distances of shape (n_words, n_words).
    predicted_distances : sequence of array-like, each of shape (n_words, n_words)
    min_length, max_length : int, keyword-only
        Inclusive range of sentence lengths (in words) that are scored.

    Returns
    -------
    DSprResult

    Raises
    ------
    ValueError
        On mismatched numbers of sentences or shapes, NaN distances, or when no sentence
        has a length in range.
    """
    _check_lengths("predicted_distances", gold, predicted_distances)
    by_length: dict[int, list[np.ndarray]] = defaultdict(list)
    excluded = constant = 0
    for k, (g, p) in enumerate(zip(gold, predicted_distances)):
        g = np.asarray(g)
        gd = tree_distances(g.astype(int)) if g.ndim == 1 else g.astype(np.float64)
        n = gd.shape[0]
        p = np.asarray(p, dtype=np.float64)
        if p.shape != (n, n):
            raise ValueError(f"sentence {k}: predicted distances have shape {p.shape}, expected ({n}, {n})")
        if not (min_length <= n <= max_length):
            excluded += 1
            continue
        if np.isnan(p).any():
            raise ValueError(f"sentence {k}: predicted distances contain NaN")
        rho, c = _row_spearman(p, gd)
        constant += c
        by_length[n].append(rho)
    if not by_length:
        raise ValueError(f"DSpr is undefined: no sentence has between {min_length} and {max_length} words")
    per_length = {n: float(np.mean(np.concatenate(v))) for n, v in sorted(by_length.items())}
    score = float(np.mean(list(per_length.values())))
    n_sent = sum(len(v) for v in by_length.values())
    return DSprResult(score=score, per_length=per_length, n_sentences=n_sent,
                      n_excluded=excluded, n_constant_rows=constant)


def dspr_score(gold: Sequence, predicted_distances: Sequence[np.ndarray], *,
               min_length: int = 5, max_length: int = 50) -> float:
    """Distance Spearman (DSpr), a value in [-1, 1]; 1 is best.

    See :func:`dspr_details` for the definition, parameters and errors.

    Examples
    --------
    >>> import numpy as np
    >>> heads = [2, 0, 2, 3, 4]                 # a 5-word tree
    >>> from robust_bench.text.trees import tree_distances
    >>> dspr_score([heads], [tree_distances(heads)])
    1.0
    """
    return dspr_details(gold, predicted_distances, min_length=min_length, max_length=max_length).score
