"""Corpus metrics from per-example outcomes, their bootstrap confidence intervals, and paired tests.

Every suite metric is a function of *sums* of per-example fields (accuracy = Σcorrect / Σ1, entity
F1 = 2Σtp / (2Σtp + Σfp + Σfn), UUAS = Σcorrect edges / Σgold edges, DSpr = mean over sentence
lengths of Σρ / Σrows). A resample of examples is therefore scored exactly as the full set is, and
two runs on the same examples are compared by resampling the same indices (a paired bootstrap,
Efron & Tibshirani 1993, ch. 13; the intervals of Dror et al., 2018, for NLP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

__all__ = ["Formula", "FORMULAS", "ARITY", "metric_value", "metric_count", "is_proportion", "bootstrap_interval",
           "wilson_interval", "Interval", "metric_interval", "paired_difference", "mcnemar_difference",
           "BOOTSTRAP_RESAMPLES", "WILSON_BELOW"]

#: resamples of every bootstrap; 1,000 gives interval ends stable to about ±0.005 on 500 examples
BOOTSTRAP_RESAMPLES = 1000
#: a proportion over fewer trials than this gets a Wilson score interval instead of a bootstrap (below
#: about 30 trials the percentile bootstrap undercovers, and a resample may hold no trial at all)
WILSON_BELOW = 30


#: fields each kind of formula takes
ARITY = {"ratio": 2, "f1": 3, "dspr": 3, "conll_f1": 12}


@dataclass(frozen=True)
class Formula:
    """How a metric is computed from per-example fields.

    ``kind`` is ``"ratio"`` (fields ``[num, den]``: Σnum / Σden, NaN when Σden = 0), ``"f1"``
    (fields ``[tp, fp, fn]``: 2Σtp / (2Σtp + Σfp + Σfn), 0 when there is no true positive, as seqeval),
    ``"dspr"`` (fields ``[rho_sum, rows, length]``: per length ℓ, Σρ / Σrows over the sentences of
    length ℓ; then the mean over lengths, Hewitt & Manning 2019, §3.1), or ``"conll_f1"`` (fields
    ``[recall numerator, recall denominator, precision numerator, precision denominator]`` of MUC, B³ and
    CEAFe in that order: each metric's F1 from its pooled sums, then their mean, the CoNLL-2012 score of
    Pradhan et al., 2014, as :func:`robust_bench.scoring.coref.coref_scores` pools documents).

    ``over`` (``"mean"`` or ``"sd"``) makes it a statistic over copies: the fields are then the kind's
    fields for copy 1, then for copy 2, ..., the metric is computed per copy and the mean (or population
    standard deviation) of the copies' values is reported (Balasubramanian et al., 2020, Table 3's random
    row: the mean and spread over 10 random-replacement copies).
    """

    kind: str
    fields: tuple[str, ...]
    over: str | None = None

    def __post_init__(self):
        if self.kind not in ARITY:
            raise ValueError(f"unknown formula kind {self.kind!r}; expected one of {sorted(ARITY)}")
        if self.over not in (None, "mean", "sd"):
            raise ValueError(f"over must be None, 'mean' or 'sd', got {self.over!r}")
        need = ARITY[self.kind]
        if (len(self.fields) != need if self.over is None else not self.fields or len(self.fields) % need):
            raise ValueError(f"a {self.kind} formula takes {need} fields{' per copy' if self.over else ''}, "
                             f"got {list(self.fields)}")

    def copies(self) -> list["Formula"]:
        """The per-copy formulas of a formula ``over`` copies (itself otherwise)."""
        if self.over is None:
            return [self]
        n = ARITY[self.kind]
        return [Formula(self.kind, self.fields[i:i + n]) for i in range(0, len(self.fields), n)]


FORMULAS = tuple(ARITY)


def _prf(r_num: float, r_den: float, p_num: float, p_den: float) -> float:
    r = r_num / r_den if r_den else 0.0
    p = p_num / p_den if p_den else 0.0
    return 2 * r * p / (r + p) if r + p else 0.0


def metric_value(formula: Formula, columns: Mapping[str, np.ndarray], idx: np.ndarray | None = None) -> float:
    """The metric over the examples ``idx`` (all when None).

    Parameters
    ----------
    formula : Formula
    columns : mapping of str to ndarray of shape (n_examples,)
        Per-example fields.
    idx : ndarray of int, optional
        Example indices, with repeats (a bootstrap resample).

    Returns
    -------
    float
        NaN when undefined (no denominator).

    Raises
    ------
    KeyError
        If a field is missing.
    """
    if formula.over is not None:
        values = np.asarray([metric_value(f, columns, idx) for f in formula.copies()])
        values = values[np.isfinite(values)]
        if not len(values):
            return float("nan")
        return float(values.mean() if formula.over == "mean" else values.std())
    cols = [np.asarray(columns[f], dtype=np.float64) for f in formula.fields]
    if idx is not None:
        cols = [c[idx] for c in cols]
    if formula.kind == "ratio":
        num, den = cols[0].sum(), cols[1].sum()
        return float(num / den) if den else float("nan")
    if formula.kind == "f1":
        tp, fp, fn = (c.sum() for c in cols)
        return float(2 * tp / (2 * tp + fp + fn)) if tp else 0.0
    if formula.kind == "conll_f1":
        sums = [c.sum() for c in cols]
        return float(np.mean([_prf(*sums[i:i + 4]) for i in range(0, 12, 4)]))
    rho, rows, length = cols
    keep = rows > 0
    if not keep.any():
        return float("nan")
    lengths, inv = np.unique(length[keep].astype(int), return_inverse=True)
    sums = np.bincount(inv, weights=rho[keep])
    counts = np.bincount(inv, weights=rows[keep])
    return float(np.mean(sums / counts))


def _bootstrap(stat: Callable[[np.ndarray], float], n: int, *, confidence: float, n_resamples: int,
               seed: int) -> tuple[float, float]:
    import warnings

    from scipy.stats import bootstrap

    if n < 2:
        return float("nan"), float("nan")
    values = stat(np.arange(n))
    if not np.isfinite(values):
        return float("nan"), float("nan")
    with warnings.catch_warnings():
        # scipy warns of "the BCa confidence interval" whenever the resampled statistics are all equal,
        # whatever the method; with the percentile method the interval is then that one value, which is
        # what the data say, so the warning is not passed on
        warnings.filterwarnings("ignore", message=".*BCa confidence interval cannot be calculated.*")
        res = bootstrap((np.arange(n),), lambda i: stat(np.asarray(i, dtype=int)), vectorized=False, paired=False,
                        n_resamples=n_resamples, confidence_level=confidence, method="percentile",
                        random_state=np.random.default_rng(seed))
    lo, hi = res.confidence_interval
    return float(lo), float(hi)


def bootstrap_interval(formula: Formula, columns: Mapping[str, np.ndarray], *, confidence: float = 0.95,
                       n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of a metric, resampling examples (``scipy.stats.bootstrap``).

    The percentile method is used rather than BCa because many robustness outcomes are 0/1 with
    few changes, where BCa's acceleration is undefined; on such data it reports NaN, the percentile
    interval a (possibly zero-width) interval.

    Parameters
    ----------
    formula : Formula
    columns : mapping of str to ndarray of shape (n_examples,)
    confidence : float in (0, 1)
    n_resamples : int
    seed : int
        Seed of the resampling; the same seed resamples the same indices for every metric of a task.

    Returns
    -------
    (float, float)
        Lower and upper end; NaN when fewer than two examples or the metric is undefined.
    """
    n = len(np.asarray(columns[formula.fields[0]]))
    return _bootstrap(lambda i: metric_value(formula, columns, i), n, confidence=confidence,
                      n_resamples=n_resamples, seed=seed)


def is_proportion(formula: Formula, columns: Mapping[str, np.ndarray]) -> bool:
    """Whether a metric is a proportion of 0/1 trials: a ratio whose per-example denominator is 0 or 1
    and numerator 0 or 1 (and at most the denominator), as accuracy, an attack success rate over the
    attacked examples, or consistency over the counted pairs are."""
    if formula.kind != "ratio":
        return False
    num = np.asarray(columns[formula.fields[0]], dtype=np.float64)
    den = np.asarray(columns[formula.fields[1]], dtype=np.float64)
    return bool(np.isin(den, (0, 1)).all() and np.isin(num, (0, 1)).all() and (num <= den).all())


def metric_count(formula: Formula, columns: Mapping[str, np.ndarray]) -> int:
    """How many examples a metric is over: for a ratio, those with a non-zero denominator (a success rate
    is over the attacked examples only); otherwise every example."""
    if formula.kind == "ratio":
        return int((np.asarray(columns[formula.fields[1]], dtype=np.float64) != 0).sum())
    if formula.kind == "dspr":
        return int((np.asarray(columns[formula.fields[1]], dtype=np.float64) > 0).sum())
    return len(np.asarray(columns[formula.fields[0]]))


def wilson_interval(successes: int, trials: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (Wilson, 1927; Brown, Cai & DasGupta, 2001, who
    recommend it for small samples), by ``statsmodels.stats.proportion.proportion_confint``.

    Parameters
    ----------
    successes, trials : int
        ``0 <= successes <= trials``.
    confidence : float in (0, 1)

    Returns
    -------
    (float, float)
        In [0, 1]; NaN for no trial.
    """
    from statsmodels.stats.proportion import proportion_confint

    if trials <= 0:
        return float("nan"), float("nan")
    lo, hi = proportion_confint(successes, trials, alpha=1 - confidence, method="wilson")
    return float(max(0.0, lo)), float(min(1.0, hi))


@dataclass(frozen=True)
class Interval:
    """A metric's confidence interval, how it was computed and how many examples it is over."""

    low: float
    high: float
    method: str            # "bootstrap-percentile", "wilson", "range" or "none"
    n: int


def metric_interval(formula: Formula, columns: Mapping[str, np.ndarray], *, value_range: tuple[float, float],
                    confidence: float = 0.95, n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> Interval:
    """The interval a record reports for a metric: finite whenever the metric is over at least one example.

    * a proportion (:func:`is_proportion`) over fewer than :data:`WILSON_BELOW` trials: the Wilson score
      interval (:func:`wilson_interval`), which stays finite and honest where a bootstrap resample may
      hold no trial at all (an attack success rate over three attacked examples);
    * any metric over two examples or more: the percentile bootstrap over examples
      (:func:`bootstrap_interval`); where it is not finite (resamples on which the metric is undefined),
      the Wilson interval for a proportion, else the metric's whole range;
    * any other metric over one example: the metric's whole range, since one example says nothing of its
      spread;
    * no example: NaN, method ``none``.

    Parameters
    ----------
    formula : Formula
    columns : mapping of str to ndarray of shape (n_examples,)
    value_range : (float, float)
        The metric's declared range.
    confidence, n_resamples, seed
        As :func:`bootstrap_interval`.

    Returns
    -------
    Interval
    """
    n = metric_count(formula, columns)
    value = metric_value(formula, columns)
    if n == 0 or not np.isfinite(value):
        return Interval(float("nan"), float("nan"), "none", n)
    proportion = is_proportion(formula, columns)

    def wilson() -> Interval:
        k = int(np.asarray(columns[formula.fields[0]], dtype=np.float64).sum())
        return Interval(*wilson_interval(k, n, confidence=confidence), "wilson", n)

    if proportion and n < WILSON_BELOW:
        return wilson()
    if len(np.asarray(columns[formula.fields[0]])) >= 2:
        lo, hi = bootstrap_interval(formula, columns, confidence=confidence, n_resamples=n_resamples, seed=seed)
        if np.isfinite(lo) and np.isfinite(hi):
            return Interval(lo, hi, "bootstrap-percentile", n)
    if proportion:
        return wilson()
    return Interval(float(value_range[0]), float(value_range[1]), "range", n)


def paired_difference(formula: Formula, baseline: Mapping[str, np.ndarray], candidate: Mapping[str, np.ndarray], *,
                      confidence: float = 0.95, n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> dict:
    """Candidate minus baseline on the same examples, with a paired bootstrap interval.

    Parameters
    ----------
    formula : Formula
    baseline, candidate : mapping of str to ndarray of shape (n_examples,)
        Per-example fields of the two runs, aligned (row k is the same example).
    confidence : float in (0, 1)
        ``1 - alpha``.

    Returns
    -------
    dict
        ``baseline``, ``candidate``, ``difference`` and ``interval`` (lower, upper) of the difference.

    Raises
    ------
    ValueError
        If the runs have different numbers of examples.
    """
    n = len(np.asarray(baseline[formula.fields[0]]))
    if len(np.asarray(candidate[formula.fields[0]])) != n:
        raise ValueError("the two runs have different numbers of examples")

    def stat(i):
        return metric_value(formula, candidate, i) - metric_value(formula, baseline, i)

    b, c = metric_value(formula, baseline), metric_value(formula, candidate)
    lo, hi = _bootstrap(stat, n, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return {"baseline": b, "candidate": c, "difference": c - b, "interval": (lo, hi), "test": "paired bootstrap"}


def mcnemar_difference(baseline_correct: Sequence[int], candidate_correct: Sequence[int], *,
                       confidence: float = 0.95) -> dict:
    """Accuracy change between two runs on the same examples: McNemar's test (``statsmodels``,
    exact binomial when fewer than 25 discordant pairs) and the Wald interval of the paired
    difference of proportions, (c - b)/n ± z·sqrt(b + c - (c - b)²/n)/n (Agresti, 2013, §11.1.1).

    Parameters
    ----------
    baseline_correct, candidate_correct : array-like of {0, 1} of shape (n_examples,)

    Returns
    -------
    dict
        ``baseline`` and ``candidate`` accuracy, ``difference``, ``interval``, ``p_value``, ``b``
        (right only in the baseline) and ``c`` (right only in the candidate).

    Raises
    ------
    ValueError
        If lengths differ, the arrays are empty, or values are not 0/1.
    """
    from scipy.stats import norm
    from statsmodels.stats.contingency_tables import mcnemar

    a0, a1 = np.asarray(baseline_correct), np.asarray(candidate_correct)
    if a0.shape != a1.shape or a0.ndim != 1 or not len(a0):
        raise ValueError(f"need two equal-length, non-empty 0/1 vectors, got shapes {a0.shape} and {a1.shape}")
    if not (np.isin(a0, (0, 1)).all() and np.isin(a1, (0, 1)).all()):
        raise ValueError("McNemar's test needs 0/1 outcomes")
    n = len(a0)
    b = int(((a0 == 1) & (a1 == 0)).sum())
    c = int(((a0 == 0) & (a1 == 1)).sum())
    table = [[int(((a0 == 1) & (a1 == 1)).sum()), b], [c, int(((a0 == 0) & (a1 == 0)).sum())]]
    res = mcnemar(table, exact=(b + c) < 25, correction=True)
    diff = (c - b) / n
    z = norm.ppf(0.5 + confidence / 2)
    half = z * np.sqrt(max(b + c - (c - b) ** 2 / n, 0.0)) / n
    return {"baseline": float(a0.mean()), "candidate": float(a1.mean()), "difference": float(diff),
            "interval": (float(diff - half), float(diff + half)), "p_value": float(res.pvalue), "b": b, "c": c,
            "test": "McNemar"}
