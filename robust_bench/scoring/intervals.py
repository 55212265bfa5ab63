"""Corpus metrics from per-example outcomes, their bootstrap confidence intervals, and paired tests.

Every suite metric is a function of *sums* of per-example fields (accuracy = Σcorrect / Σ1, entity
F1 = 2Σtp / (2Σtp + Σfp + Σfn), UUAS = Σcorrect edges / Σgold edges, DSpr = mean over sentence
lengths of Σρ / Σrows). A resample of examples is therefore scored exactly as the full set is, and
two runs on the same examples are compared by resampling the same indices (a paired bootstrap,
Efron & Tibshirani 1993, ch. 13; the intervals of Dror et al., 2018, for NLP).

Rows drawn from one source (the contrast rows of one premise pair, the variants of one sentence, the
windows of one novel) are not independent: an interval that resamples rows understates the variance
(Miller, 2024, "Adding Error Bars to Evals"). Given each row's *cluster*, the bootstrap resamples whole
clusters and scores the drawn clusters' rows from their sums as before (the cluster bootstrap, Davison &
Hinkley 1997, §3.8; Field & Welsh 2007), and :func:`design_effect` gives the clustered variance over the
naive one (Kish, 1965). With one row per cluster every function here gives exactly what it gives without
clusters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

__all__ = ["Formula", "FORMULAS", "ARITY", "metric_value", "metric_count", "is_proportion", "bootstrap_interval",
           "wilson_interval", "Interval", "metric_interval", "paired_difference", "mcnemar_difference",
           "BOOTSTRAP_RESAMPLES", "WILSON_BELOW", "ClusterIndex", "cluster_index", "design_effect",
           "clustered_mcnemar", "minimum_detectable_effect", "POWER", "bootstrap_standard_error"]

#: resamples of every bootstrap; 1,000 gives interval ends stable to about ±0.005 on 500 examples
BOOTSTRAP_RESAMPLES = 1000
#: a proportion over fewer trials than this gets a Wilson score interval instead of a bootstrap (below
#: about 30 trials the percentile bootstrap undercovers, and a resample may hold no trial at all)
WILSON_BELOW = 30


#: fields each kind of formula takes
ARITY = {"ratio": 2, "f1": 3, "dspr": 3, "conll_f1": 12, "f1_drop": 6}


@dataclass(frozen=True)
class Formula:
    """How a metric is computed from per-example fields.

    ``kind`` is ``"ratio"`` (fields ``[num, den]``: Σnum / Σden, NaN when Σden = 0), ``"f1"``
    (fields ``[tp, fp, fn]``: 2Σtp / (2Σtp + Σfp + Σfn), 0 when there is no true positive, as seqeval),
    ``"dspr"`` (fields ``[rho_sum, rows, length]``: per length ℓ, Σρ / Σrows over the sentences of
    length ℓ; then the mean over lengths, Hewitt & Manning 2019, §3.1), or ``"conll_f1"`` (fields
    ``[recall numerator, recall denominator, precision numerator, precision denominator]`` of MUC, B³ and
    CEAFe in that order: each metric's F1 from its pooled sums, then their mean, the CoNLL-2012 score of
    Pradhan et al., 2012, as :func:`robust_bench.scoring.coref.coref_scores` pools documents), or ``"f1_drop"``
    (fields ``[tp, fp, fn]`` of the clean, then of the perturbed text: the F1 of the first minus that of the
    second, Yin et al., 2020's drop of NER F1 under attack).

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
    if formula.kind == "f1_drop":
        return metric_value(Formula("f1", formula.fields[:3]), columns, idx) - metric_value(
            Formula("f1", formula.fields[3:]), columns, idx)
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
               seed: int, clusters: "ClusterIndex | None" = None) -> tuple[float, float, float]:
    """Percentile interval and standard error of ``stat`` over resamples of ``n`` units: rows, or the
    clusters of ``clusters`` (each drawn cluster contributes all its rows)."""
    import warnings

    from scipy.stats import bootstrap

    if clusters is not None and not clusters.trivial:
        rows_stat = stat

        def stat(c):
            return rows_stat(clusters.rows(c))
        n = clusters.n_clusters
    if n < 2:
        return float("nan"), float("nan"), float("nan")
    values = stat(np.arange(n))
    if not np.isfinite(values):
        return float("nan"), float("nan"), float("nan")
    with warnings.catch_warnings():
        # scipy warns of "the BCa confidence interval" whenever the resampled statistics are all equal,
        # whatever the method; with the percentile method the interval is then that one value, which is
        # what the data say, so the warning is not passed on
        warnings.filterwarnings("ignore", message=".*BCa confidence interval cannot be calculated.*")
        res = bootstrap((np.arange(n),), lambda i: stat(np.asarray(i, dtype=int)), vectorized=False, paired=False,
                        n_resamples=n_resamples, confidence_level=confidence, method="percentile",
                        random_state=np.random.default_rng(seed))
    lo, hi = res.confidence_interval
    return float(lo), float(hi), float(res.standard_error)


@dataclass(frozen=True)
class ClusterIndex:
    """Rows grouped by cluster, clusters numbered in order of first appearance.

    Attributes
    ----------
    codes : ndarray of int of shape (n_rows,)
        Each row's cluster number, in [0, n_clusters).
    order : ndarray of int of shape (n_rows,)
        Row indices sorted by cluster (stable: rows keep their order within a cluster).
    starts, sizes : ndarray of int of shape (n_clusters,)
        Where each cluster's rows start in ``order``, and how many there are.
    """

    codes: np.ndarray
    order: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    @property
    def trivial(self) -> bool:
        """One row per cluster: every cluster statistic is then the row statistic."""
        return bool((self.sizes == 1).all())

    def rows(self, drawn: np.ndarray) -> np.ndarray:
        """The row indices of the drawn clusters (with repeats), cluster after cluster.

        Parameters
        ----------
        drawn : ndarray of int of shape (k,)
            Cluster numbers, in [0, n_clusters).

        Returns
        -------
        ndarray of int of shape (sum of the drawn clusters' sizes,)
            With one row per cluster, the rows numbered ``drawn`` themselves.
        """
        drawn = np.asarray(drawn, dtype=int)
        sizes = self.sizes[drawn]
        ends = np.cumsum(sizes)
        offsets = np.repeat(self.starts[drawn] - (ends - sizes), sizes) + np.arange(int(ends[-1]) if len(ends) else 0)
        return self.order[offsets]

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Per-cluster sums of a per-row array, shape (n_clusters,)."""
        return np.bincount(self.codes, weights=np.asarray(values, dtype=np.float64), minlength=self.n_clusters)


def cluster_index(clusters: Sequence) -> ClusterIndex:
    """Group rows by their cluster labels.

    Parameters
    ----------
    clusters : sequence of hashable of length n_rows
        Each row's cluster (the source example, group or document it was drawn from).

    Returns
    -------
    ClusterIndex
        Clusters numbered by first appearance, so that with distinct labels cluster k is row k.
    """
    labels = np.asarray([str(c) for c in clusters], dtype=object)
    if not len(labels):
        empty = np.zeros(0, dtype=int)
        return ClusterIndex(empty, empty, empty, empty)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=int)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    codes = rank[inverse.reshape(-1)]
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    return ClusterIndex(codes, order, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int), sizes)


def bootstrap_interval(formula: Formula, columns: Mapping[str, np.ndarray], *, confidence: float = 0.95,
                       n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                       clusters: ClusterIndex | None = None) -> tuple[float, float]:
    """Percentile bootstrap interval of a metric, resampling examples (``scipy.stats.bootstrap``), or
    whole clusters of examples.

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
    clusters : ClusterIndex, optional
        Each example's cluster (:func:`cluster_index`): the cluster bootstrap draws clusters with
        replacement and scores all rows of the drawn clusters (Davison & Hinkley 1997, §3.8). With one
        row per cluster the interval equals the row bootstrap's, bit for bit.

    Returns
    -------
    (float, float)
        Lower and upper end; NaN when fewer than two examples (clusters) or the metric is undefined.
    """
    n = len(np.asarray(columns[formula.fields[0]]))
    return _bootstrap(lambda i: metric_value(formula, columns, i), n, confidence=confidence,
                      n_resamples=n_resamples, seed=seed, clusters=clusters)[:2]


def bootstrap_standard_error(formula: Formula, columns: Mapping[str, np.ndarray], *,
                             n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                             clusters: ClusterIndex | None = None) -> float:
    """The bootstrap standard error of a metric (the standard deviation of its resampled values),
    resampling examples or clusters as :func:`bootstrap_interval` does.

    Returns
    -------
    float
        >= 0; NaN when fewer than two examples (clusters) or the metric is undefined.
    """
    n = len(np.asarray(columns[formula.fields[0]]))
    return _bootstrap(lambda i: metric_value(formula, columns, i), n, confidence=0.95, n_resamples=n_resamples,
                      seed=seed, clusters=clusters)[2]


def _influence(formula: Formula, columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each example's linearised contribution to the metric's deviation (its empirical influence over
    n): for a ratio Σy/Σx, (y_i - R x_i)/Σx; F1 is the ratio 2Σtp/(2Σtp + Σfp + Σfn); DSpr the mean over
    lengths ℓ of such ratios, (ρ_i - R_ℓ rows_i)/(L Σ_ℓ rows). NaN entries where undefined."""
    if formula.over is not None:      # a mean (sd) over copies: the mean (the sd's derivative) of the copies'
        parts = formula.copies()
        inf = np.asarray([_influence(f, columns) for f in parts])
        if formula.over == "mean":
            return inf.mean(axis=0)
        values = np.asarray([metric_value(f, columns) for f in parts])
        sd = values.std()
        return (values - values.mean()) @ inf / (len(values) * sd) if sd > 0 else np.full(inf.shape[1], np.nan)
    if formula.kind == "f1_drop":
        return _influence(Formula("f1", formula.fields[:3]), columns) - _influence(Formula("f1", formula.fields[3:]),
                                                                                   columns)
    cols = [np.asarray(columns[f], dtype=np.float64) for f in formula.fields]
    if formula.kind == "conll_f1":      # the mean of three F1 = 2RP/(R+P), R = Σa/Σb and P = Σc/Σd
        out = np.zeros(len(cols[0]))
        for a, b, c, d in (cols[i:i + 4] for i in range(0, 12, 4)):
            if not b.sum() or not d.sum():
                return np.full(len(a), np.nan)
            r, pr = a.sum() / b.sum(), c.sum() / d.sum()
            if r + pr == 0:
                return np.full(len(a), np.nan)
            out += (2 * pr ** 2 / (r + pr) ** 2 * (a - r * b) / b.sum() + 2 * r ** 2 / (r + pr) ** 2 * (c - pr * d) / d.sum())
        return out / 3
    if formula.kind in ("ratio", "f1"):
        num, den = (cols[0], cols[1]) if formula.kind == "ratio" else (2 * cols[0], 2 * cols[0] + cols[1] + cols[2])
        total = den.sum()
        if not total:
            return np.full(len(num), np.nan)
        return (num - num.sum() / total * den) / total
    rho, rows, length = cols
    keep = rows > 0
    out = np.zeros(len(rho))
    if not keep.any():
        return np.full(len(rho), np.nan)
    lengths, inv = np.unique(length[keep].astype(int), return_inverse=True)
    sums = np.bincount(inv, weights=rho[keep])
    counts = np.bincount(inv, weights=rows[keep])
    ratio_l = sums / counts
    out[keep] = (rho[keep] - ratio_l[inv] * rows[keep]) / (len(lengths) * counts[inv])
    return out


def design_effect(formula: Formula, columns: Mapping[str, np.ndarray], clusters: ClusterIndex) -> float:
    """The design effect of a metric: its clustered variance over its naive (independent-rows) variance.

    Both variances are the linearisation (delta-method, sandwich) variances of the metric from the same
    per-example influence values e_i (:func:`_influence`): naive Σ_i e_i², clustered Σ_c (Σ_{i in c} e_i)²,
    the cluster-robust variance of Liang & Zeger (1986) (Cameron & Miller, 2015) without a small-sample
    factor, so that with one row per cluster the design effect is exactly 1. For a mean of 0/1 outcomes
    in clusters of equal size m with intra-cluster correlation ρ it estimates Kish's (1965) 1 + (m - 1)ρ.

    Parameters
    ----------
    formula : Formula
    columns : mapping of str to ndarray of shape (n_examples,)
    clusters : ClusterIndex
        Over the same examples.

    Returns
    -------
    float
        >= 0; NaN when the naive variance is 0 or undefined (every outcome alike, no denominator).
    """
    e = _influence(formula, columns)
    if not len(e) or not np.isfinite(e).all():
        return float("nan")
    naive = float(np.sum(e ** 2))
    if naive <= 1e-300:
        return float("nan")
    if clusters.trivial:
        return 1.0
    return float(np.sum(clusters.sums(e) ** 2) / naive)


def is_proportion(formula: Formula, columns: Mapping[str, np.ndarray]) -> bool:
    """Whether a metric is a proportion of 0/1 trials: a ratio whose per-example denominator is 0 or 1
    and numerator 0 or 1 (and at most the denominator), as accuracy, an attack success rate over the
    attacked examples, or consistency over the counted pairs are."""
    if formula.kind != "ratio" or formula.over is not None:     # a statistic over copies is no proportion
        return False
    num = np.asarray(columns[formula.fields[0]], dtype=np.float64)
    den = np.asarray(columns[formula.fields[1]], dtype=np.float64)
    return bool(np.isin(den, (0, 1)).all() and np.isin(num, (0, 1)).all() and (num <= den).all())


def metric_count(formula: Formula, columns: Mapping[str, np.ndarray]) -> int:
    """How many examples a metric is over: for a ratio, those with a non-zero denominator (a success rate
    is over the attacked examples only); otherwise every example."""
    if formula.over is not None:       # a statistic over copies: every example holds each copy's fields
        return len(np.asarray(columns[formula.fields[0]]))
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
    successes, trials : int or float
        ``0 <= successes <= trials``; floats for an effective sample size (trials / design effect).
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
    method: str            # "bootstrap-percentile", "cluster-bootstrap-percentile", "wilson", "wilson-clustered",
                           # "range" or "none"
    n: int


def metric_interval(formula: Formula, columns: Mapping[str, np.ndarray], *, value_range: tuple[float, float],
                    confidence: float = 0.95, n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                    clusters: ClusterIndex | None = None) -> Interval:
    """The interval a record reports for a metric: finite whenever the metric is over at least one example.

    * a proportion (:func:`is_proportion`) over fewer than :data:`WILSON_BELOW` trials (or clusters): the Wilson score
      interval (:func:`wilson_interval`), which stays finite and honest where a bootstrap resample may
      hold no trial at all (an attack success rate over three attacked examples); with clusters of more
      than one row, on the effective sample size n / deff (deff = :func:`design_effect`, at least 1; Kish,
      1965; Korn & Graubard, 1998), method ``wilson-clustered``;
    * any metric over two examples (clusters) or more: the percentile bootstrap over examples
      (:func:`bootstrap_interval`), over clusters when ``clusters`` has a cluster of more than one row
      (method ``cluster-bootstrap-percentile``); where it is not finite (resamples on which the metric is
      undefined), the Wilson interval for a proportion, else the metric's whole range;
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
    clusters : ClusterIndex, optional
        Each example's cluster; None (or one row per cluster) gives the row intervals.

    Returns
    -------
    Interval
    """
    n = metric_count(formula, columns)
    value = metric_value(formula, columns)
    if n == 0 or not np.isfinite(value):
        return Interval(float("nan"), float("nan"), "none", n)
    proportion = is_proportion(formula, columns)
    clustered = clusters is not None and not clusters.trivial

    def wilson() -> Interval:
        k = float(np.asarray(columns[formula.fields[0]], dtype=np.float64).sum())
        if clustered:
            deff = design_effect(formula, columns, clusters)
            scale = max(deff, 1.0) if np.isfinite(deff) else 1.0
            return Interval(*wilson_interval(k / scale, n / scale, confidence=confidence), "wilson-clustered", n)
        return Interval(*wilson_interval(int(k), n, confidence=confidence), "wilson", n)

    # few trials, or few clusters (a percentile bootstrap over a handful of clusters undercovers as badly)
    if proportion and (n < WILSON_BELOW or (clustered and clusters.n_clusters < WILSON_BELOW)):
        return wilson()
    if len(np.asarray(columns[formula.fields[0]])) >= 2:
        lo, hi = bootstrap_interval(formula, columns, confidence=confidence, n_resamples=n_resamples, seed=seed,
                                    clusters=clusters)
        if np.isfinite(lo) and np.isfinite(hi):
            return Interval(lo, hi, "cluster-bootstrap-percentile" if clustered else "bootstrap-percentile", n)
    if proportion:
        return wilson()
    return Interval(float(value_range[0]), float(value_range[1]), "range", n)


def paired_difference(formula: Formula, baseline: Mapping[str, np.ndarray], candidate: Mapping[str, np.ndarray], *,
                      confidence: float = 0.95, n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                      clusters: ClusterIndex | None = None) -> dict:
    """Candidate minus baseline on the same examples, with a paired bootstrap interval: both runs are
    scored on the same resampled examples, or the same resampled clusters (a cluster paired bootstrap:
    Efron & Tibshirani 1993, ch. 13, resampling the independent units, Davison & Hinkley 1997, §3.8).

    Parameters
    ----------
    formula : Formula
    baseline, candidate : mapping of str to ndarray of shape (n_examples,)
        Per-example fields of the two runs, aligned (row k is the same example).
    confidence : float in (0, 1)
        ``1 - alpha``.
    clusters : ClusterIndex, optional
        Each example's cluster; with one row per cluster (or None) the row bootstrap.

    Returns
    -------
    dict
        ``baseline``, ``candidate``, ``difference``, ``interval`` (lower, upper) of the difference, ``se``
        (the bootstrap standard error of the difference), ``test``.

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
    lo, hi, se = _bootstrap(stat, n, confidence=confidence, n_resamples=n_resamples, seed=seed, clusters=clusters)
    clustered = clusters is not None and not clusters.trivial
    return {"baseline": b, "candidate": c, "difference": c - b, "interval": (lo, hi), "se": se,
            "test": "cluster paired bootstrap" if clustered else "paired bootstrap"}


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
        (right only in the baseline), ``c`` (right only in the candidate) and ``se`` (the Wald standard
        error of the difference).

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
            "se": float(half / z), "test": "McNemar"}


def clustered_mcnemar(baseline_correct: Sequence[int], candidate_correct: Sequence[int], clusters: ClusterIndex, *,
                      confidence: float = 0.95) -> dict:
    """Accuracy change between two runs on the same clustered examples: the clustered McNemar test of
    Durkalski, Palesch, Lipsitz & Rust (2003, Statistics in Medicine 22:2417) and the cluster-robust Wald
    interval of the paired difference.

    With D_k = c_k - b_k the cluster's net discordance (right only in the candidate minus right only in
    the baseline) and m_k its size, the statistic is (Σ D_k)² / Σ D_k², chi-squared with one degree of
    freedom; the difference d = Σ D_k / n has the variance Σ_k (D_k - d m_k)² / n² (the sandwich variance
    of a ratio estimator, Obuchowski 1998, Biometrics 54:1), which with one example per cluster is
    Agresti's (2013, §11.1.1) (b + c - (c - b)²/n)/n². With one example per cluster the result is
    :func:`mcnemar_difference`'s (its exact or continuity-corrected p-value).

    Parameters
    ----------
    baseline_correct, candidate_correct : array-like of {0, 1} of shape (n_examples,)
    clusters : ClusterIndex
        Over the same examples.
    confidence : float in (0, 1)

    Returns
    -------
    dict
        As :func:`mcnemar_difference`, with ``test`` ``"clustered McNemar"`` when a cluster has more than one
        example.

    Raises
    ------
    ValueError
        If lengths differ, the arrays are empty, values are not 0/1, or the clusters are over other examples.
    """
    from scipy.stats import chi2, norm

    res = mcnemar_difference(baseline_correct, candidate_correct, confidence=confidence)
    a0, a1 = np.asarray(baseline_correct, dtype=np.float64), np.asarray(candidate_correct, dtype=np.float64)
    if len(clusters.codes) != len(a0):
        raise ValueError(f"{len(clusters.codes)} cluster labels for {len(a0)} examples")
    if clusters.trivial:
        return res
    n = len(a0)
    net = clusters.sums(a1 - a0)
    diff = float(net.sum() / n)
    var = float(np.sum((net - diff * clusters.sizes) ** 2)) / n ** 2
    z = norm.ppf(0.5 + confidence / 2)
    half = z * np.sqrt(var)
    denom = float(np.sum(net ** 2))
    p = float(chi2.sf(net.sum() ** 2 / denom, 1)) if denom > 0 else 1.0
    return {**res, "interval": (diff - half, diff + half), "p_value": p, "se": float(np.sqrt(var)),
            "test": "clustered McNemar"}


#: the power at which :func:`minimum_detectable_effect` states the smallest detectable change
POWER = 0.8


def minimum_detectable_effect(*, alpha: float, tolerance: float, n: int, se: float | None = None,
                              discordance: float | None = None, deff: float = 1.0, power: float = POWER) -> float:
    """The smallest true drop that the gate flags with probability ``power``.

    The gate flags a drop when the upper end of the (1 - alpha) interval of the change is below
    ``-tolerance``; for a true drop δ and a difference estimated with standard error SE, that happens with
    probability ``power`` when δ = tolerance + (z_{1-α/2} + z_{power}) SE (the usual two-sided power
    formula, e.g. Miller 2024, §5; Cohen 1988). Which SE:

    * 0/1 outcomes (``discordance`` given): the SE of a paired difference of proportions under the
      alternative, sqrt(deff (ψ - δ²) / n), where ψ = max(observed discordance, δ) (a drop of δ makes at
      least δ n examples discordant; Connor 1987, Biometrics 43:207) and ``deff`` is the clustered
      inflation (Donner & Klar 2000, ch. 5), so δ is solved for (``scipy.optimize.brentq``);
    * otherwise: ``se`` as given (the cluster paired bootstrap's, floored by the gate at the baseline
      metric's own clustered bootstrap SE).

    Parameters
    ----------
    alpha : float in (0, 1)
    tolerance : float, >= 0
    n : int
        Examples compared.
    se : float, optional
        The standard error of the difference (metrics other than 0/1 outcomes).
    discordance : float in [0, 1], optional
        Share of examples on which the runs disagree (0/1 outcomes).
    deff : float
        Design effect applied to the 0/1 variance (values below 1 are taken as 1).
    power : float in (0, 1)

    Returns
    -------
    float
        In the metric's units, >= tolerance; NaN when no SE is known (n = 0 or ``se`` not finite); for 0/1
        outcomes at most 1 (a drop the examples cannot show is reported as 1).
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    k = float(norm.ppf(1 - alpha / 2) + norm.ppf(power))
    if discordance is None:
        return float(tolerance + k * se) if se is not None and np.isfinite(se) and n > 0 else float("nan")
    if n <= 0:
        return float("nan")
    inflate = max(float(deff), 1.0) if np.isfinite(deff) else 1.0

    def gap(delta: float) -> float:
        psi = max(float(discordance), delta)
        return delta - tolerance - k * np.sqrt(max(inflate * (psi - delta ** 2) / n, 0.0))

    if gap(1.0) < 0:
        return 1.0
    low = 1e-12          # not 0: with no tolerance and no observed discordance, δ = 0 is a root too
    return float(brentq(gap, low, 1.0, xtol=1e-9)) if gap(low) < 0 else float(tolerance)
