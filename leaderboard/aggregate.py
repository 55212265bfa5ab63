"""Aggregation of submissions: a robustness score per task, per family and overall, with 95% intervals.

Each task's primary metric is put on one scale, the **robustness score** in [0, 1], higher is more
robust: ``(v - a) / (b - a)`` for a metric to maximise over its range ``[a, b]``, ``(b - v) / (b - a)``
for one to minimise. Since default v9 every primary requires being right, so that no constant model
can top the table: adversarial accuracy (entity F1 after the attack for CoNLL-2003) for the
grammatical-error attacks, contrast consistency (Gardner et al., 2020: original and contrast pair both
right) for the LIT contrast sets, worst-case F1 for the name swaps, LAS (UAS) on attacked sentences for
the adversarial treebanks, UUAS on Jabberwocky sentences for the probes; the papers' own metrics (attack
success rate, LIT's consistency, stability) stay in every record and report. Its interval is the
record's 95% interval on the same scale (a percentile bootstrap over examples, or a Wilson interval for a
proportion over few trials).

A family's score is the mean of its scored tasks' scores, and the overall score the mean of the
scored families' (each family weighs the same, however many tasks it has). The tasks are scored
on disjoint data, so their estimates are independent: a task's standard error is read off its
interval as ``(hi - lo) / (2 z)`` with ``z = Φ⁻¹(0.975)``, the mean's as ``sqrt(Σ se²) / k``, and the
mean's interval is ``mean ± z se``, clipped to [0, 1] (a normal approximation over tasks, exact
bootstrap within each). Scores over different coverage are not comparable, so every aggregate
carries how many of the suite's tasks or families it covers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

from robust_bench.benchmarks import Suite, Task

__all__ = ["Score", "task_score", "mean_score", "aggregate"]

_Z = float(norm.ppf(0.975))


@dataclass(frozen=True)
class Score:
    """A robustness score in [0, 1] with its 95% interval; ``covered`` of ``of`` parts scored."""

    value: float | None
    low: float | None
    high: float | None
    covered: int = 1
    of: int = 1

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "covered": self.covered, "of": self.of}


def task_score(record: dict, task: Task) -> Score:
    """The robustness score of ``task``'s primary metric in ``record`` (a v2 record).

    Returns
    -------
    Score
        ``value`` None when the primary metric is undefined on the examples.
    """
    spec = task.metric(task.primary)
    a, b = spec.range
    v = record["metrics"].get(task.primary)
    lo, hi = record["intervals"].get(task.primary, [None, None])

    def scale(x):
        if x is None:
            return None
        s = (x - a) / (b - a) if spec.higher_is_better else (b - x) / (b - a)
        return min(1.0, max(0.0, s))

    if v is None:
        return Score(None, None, None)
    low, high = sorted((scale(lo), scale(hi))) if lo is not None and hi is not None else (None, None)
    return Score(scale(v), low, high)


def mean_score(scores: list[Score], of: int) -> Score:
    """The mean of independent scores with its normal-approximation 95% interval (module docstring).

    Parameters
    ----------
    scores : list of Score
        The parts; those without a value are not counted.
    of : int
        How many parts there are in all (for the coverage).
    """
    parts = [s for s in scores if s.value is not None]
    if not parts:
        return Score(None, None, None, 0, of)
    k = len(parts)
    mean = sum(s.value for s in parts) / k
    if any(s.low is None for s in parts):
        return Score(mean, None, None, k, of)
    se = math.sqrt(sum(((s.high - s.low) / (2 * _Z)) ** 2 for s in parts)) / k
    return Score(mean, max(0.0, mean - _Z * se), min(1.0, mean + _Z * se), k, of)


def aggregate(records: dict[str, dict], suite: Suite) -> dict:
    """Task, family and overall robustness scores of one submission.

    Parameters
    ----------
    records : dict of str to dict
        Task name -> v2 record (the submission's scored tasks).
    suite : Suite

    Returns
    -------
    dict
        ``{"tasks": {task: Score dict + metric, raw value and interval}, "families": {family: Score
        dict}, "overall": Score dict}``; families in the suite's order.
    """
    families: dict[str, list[Task]] = {}
    for t in suite.tasks:
        families.setdefault(t.family, []).append(t)
    tasks, fam_scores = {}, {}
    for fam, members in families.items():
        scores = []
        for t in members:
            if t.name not in records:
                continue
            s = task_score(records[t.name], t)
            rec = records[t.name]
            tasks[t.name] = {**s.as_dict(), "metric": t.primary, "raw": rec["metrics"].get(t.primary),
                             "raw_interval": rec["intervals"].get(t.primary), "n_examples": rec["n_examples"],
                             "higher_is_better": t.metric(t.primary).higher_is_better}
            scores.append(s)
        fam_scores[fam] = mean_score(scores, len(members))
    overall = mean_score(list(fam_scores.values()), len(families))
    return {"tasks": tasks, "families": {f: s.as_dict() for f, s in fam_scores.items()}, "overall": overall.as_dict()}
