"""Parsing metrics: UUAS and DSpr (Hewitt & Manning, 2019), UAS and LAS, each with the punctuation rule it names."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from robust_bench.text.trees import minimum_spanning_edges, tree_distances

__all__ = ["UUASResult", "DSprResult", "uuas_counts", "uuas_score", "dspr_details", "dspr_score",
           "punctuation_mask", "punctuation_masks", "PTB_PUNCTUATION_XPOS", "PUNCTUATION_RULES",
           "AttachmentResult", "attachment_scores", "attachment_errors", "attachment_mask", "ATTACHMENT_RULES",
           "PTB_ATTACHMENT_PUNCTUATION"]

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
    from scipy.stats import rankdata  # (scipy.stats takes a second to import: only where DSpr is computed)

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


def dspr_sentence_sums(gold, predicted_distances: np.ndarray) -> tuple[float, int]:
    """One sentence's share of DSpr: the sum of its words' Spearman correlations and the number of
    words (rows), so that DSpr over any set of sentences is, per length, Σ sums / Σ rows, then the
    mean over lengths (as :func:`dspr_details`, which this reproduces exactly).

    Parameters
    ----------
    gold : array-like of shape (n_words,) (1-based heads) or (n_words, n_words) (tree distances)
    predicted_distances : array-like of shape (n_words, n_words)

    Returns
    -------
    (float, int)

    Raises
    ------
    ValueError
        On a shape mismatch or NaN distances.
    """
    g = np.asarray(gold)
    gd = tree_distances(g.astype(int)) if g.ndim == 1 else g.astype(np.float64)
    p = np.asarray(predicted_distances, dtype=np.float64)
    if p.shape != gd.shape:
        raise ValueError(f"predicted distances have shape {p.shape}, expected {gd.shape}")
    if np.isnan(p).any():
        raise ValueError("predicted distances contain NaN")
    rho, _ = _row_spearman(p, gd)
    return float(rho.sum()), int(len(rho))


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


# --- Attachment scores (UAS, LAS) -------------------------------------------------------------------

#: Gold PTB tags whose tokens are not scored under the ``ptb`` rule: the ``--punctuation`` list
#: of Wang et al.'s (2021) released code (DepAttacker), the rule of Chen & Manning (2014) and of
#: most PTB parsing papers. (The UUAS rule above also drops brackets; attachment scores keep them.)
PTB_ATTACHMENT_PUNCTUATION = frozenset({"``", "''", ",", ".", ":"})

#: The rules an attachment score can name.
ATTACHMENT_RULES = {
    "ptb": "tokens whose gold PTB POS is one of `` '' , . : are not scored (Wang et al. 2021, DepAttacker)",
    "ud": "every token is scored, relations compared without subtypes (CoNLL 2018 shared task scorer)",
}


def attachment_mask(n_words: int, rule: str, xpos: Sequence[str] | None = None) -> np.ndarray:
    """Which words of one sentence an attachment score counts, shape (n_words,).

    Parameters
    ----------
    n_words : int
    rule : {"ptb", "ud"}
        See :data:`ATTACHMENT_RULES`.
    xpos : sequence of str of shape (n_words,), optional
        Gold PTB tags; required by ``ptb``.

    Raises
    ------
    ValueError
        For an unknown rule, or ``ptb`` without tags of the right length.
    """
    if rule == "ud":
        return np.ones(n_words, dtype=bool)
    if rule != "ptb":
        raise ValueError(f"unknown attachment rule {rule!r}; use one of {', '.join(ATTACHMENT_RULES)}")
    if xpos is None or len(xpos) != n_words:
        raise ValueError(f"the ptb rule needs the gold PTB tag of each of the {n_words} words")
    return np.asarray([x not in PTB_ATTACHMENT_PUNCTUATION for x in xpos], dtype=bool)


def _universal(rel: str) -> str:
    return rel.split(":", 1)[0].lower()


def attachment_errors(gold_heads: Sequence[int], pred_heads: Sequence[int], *,
                      gold_deprels: Sequence[str] | None = None, pred_deprels: Sequence[str] | None = None,
                      scored: Sequence[bool] | None = None) -> tuple[int, int, int]:
    """Errors of one predicted tree against the gold tree.

    Parameters
    ----------
    gold_heads, pred_heads : sequence of int of shape (n_words,)
        1-based heads, 0 for the root.
    gold_deprels, pred_deprels : sequence of str of shape (n_words,), optional
        Relations; compared without subtypes (``nsubj:pass`` is ``nsubj``), case-insensitively.
        Without either, a label error is an arc error (an unlabelled corpus or parser).
    scored : sequence of bool of shape (n_words,), optional
        Words that count (:func:`attachment_mask`); default all.

    Returns
    -------
    (n_scored, arc_errors, label_errors) : tuple of int
        ``label_errors`` counts words whose head *or* relation is wrong, so LAS errors >= UAS
        errors (Wang et al. 2021 code: "if the arc is wrong, the rel must be wrong").

    Raises
    ------
    ValueError
        On mismatched lengths.
    """
    n = len(gold_heads)
    if len(pred_heads) != n:
        raise ValueError(f"predicted {len(pred_heads)} heads for {n} gold words")
    keep = np.ones(n, dtype=bool) if scored is None else np.asarray(scored, dtype=bool)
    if keep.shape != (n,):
        raise ValueError(f"scored mask has shape {keep.shape}, expected ({n},)")
    arc = np.asarray(gold_heads) != np.asarray(pred_heads)
    if gold_deprels is None or pred_deprels is None:
        lab = arc
    else:
        if len(gold_deprels) != n or len(pred_deprels) != n:
            raise ValueError(f"relations must have {n} entries each")
        lab = arc | np.asarray([_universal(g) != _universal(p) for g, p in zip(gold_deprels, pred_deprels)])
    return int(keep.sum()), int((arc & keep).sum()), int((lab & keep).sum())


@dataclass(frozen=True)
class AttachmentResult:
    """Corpus-level attachment counts.

    Attributes
    ----------
    total : int
        Scored words.
    head_correct : int
        Scored words with the gold head.
    label_correct : int
        Scored words with the gold head and relation (equals ``head_correct`` when unlabelled).
    rule : str
        The punctuation rule (a key of :data:`ATTACHMENT_RULES`).
    labelled : bool
        Whether relations were compared (LAS is meaningful).
    """

    total: int
    head_correct: int
    label_correct: int
    rule: str
    labelled: bool

    @property
    def uas(self) -> float:
        """Unlabelled attachment score, a fraction in [0, 1]; 1 is best."""
        if not self.total:
            raise ValueError("UAS is undefined: no word is scored")
        return self.head_correct / self.total

    @property
    def las(self) -> float:
        """Labelled attachment score, a fraction in [0, 1]; 1 is best.

        Raises
        ------
        ValueError
            When no word is scored or the corpus or parser is unlabelled.
        """
        if not self.labelled:
            raise ValueError("LAS is undefined: the corpus or the parser has no relation labels")
        if not self.total:
            raise ValueError("LAS is undefined: no word is scored")
        return self.label_correct / self.total


def attachment_scores(gold_heads: Sequence[Sequence[int]], pred_heads: Sequence[Sequence[int]], *,
                      gold_deprels: Sequence[Sequence[str]] | None = None,
                      pred_deprels: Sequence[Sequence[str]] | None = None,
                      xpos: Sequence[Sequence[str]] | None = None, rule: str = "ud") -> AttachmentResult:
    """UAS and LAS of predicted trees, micro-averaged over the scored words of a corpus.

    Parameters
    ----------
    gold_heads, pred_heads : sequence of sequence of int, shape (n_sentences, n_words)
    gold_deprels, pred_deprels : sequence of sequence of str, optional
        Same shape; without both, only UAS is defined.
    xpos : sequence of sequence of str, optional
        Gold PTB tags, needed by the ``ptb`` rule.
    rule : {"ud", "ptb"}
        Punctuation rule, see :data:`ATTACHMENT_RULES`. On a corpus with PTB tags (UD English
        EWT, the WSJ) both apply; report both.

    Returns
    -------
    AttachmentResult

    Raises
    ------
    ValueError
        On mismatched numbers of sentences or words, or an unknown rule.

    Examples
    --------
    >>> r = attachment_scores([[2, 0, 2]], [[2, 0, 1]], gold_deprels=[["det", "root", "obj"]],
    ...                       pred_deprels=[["det", "root", "obj"]])
    >>> round(r.uas, 4), round(r.las, 4)
    (0.6667, 0.6667)
    """
    _check_lengths("pred_heads", gold_heads, pred_heads)
    labelled = gold_deprels is not None and pred_deprels is not None
    if labelled:
        _check_lengths("gold_deprels", gold_heads, gold_deprels)
        _check_lengths("pred_deprels", gold_heads, pred_deprels)
    if xpos is not None:
        _check_lengths("xpos", gold_heads, xpos)
    total = head = label = 0
    for k, (g, p) in enumerate(zip(gold_heads, pred_heads)):
        try:
            mask = attachment_mask(len(g), rule, None if xpos is None else xpos[k])
            n, arc, lab = attachment_errors(g, p, gold_deprels=gold_deprels[k] if labelled else None,
                                            pred_deprels=pred_deprels[k] if labelled else None, scored=mask)
        except ValueError as exc:
            raise ValueError(f"sentence {k}: {exc}") from None
        total += n
        head += n - arc
        label += n - lab
    return AttachmentResult(total=total, head_correct=head, label_correct=label, rule=rule, labelled=labelled)
