"""Robustness metrics: attack success rate (Yin et al., 2020), consistency on contrast sets (Li et al., 2020),
and stability and worst/best-case selection under named-entity swaps (Balasubramanian et al., 2020)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from robust_bench.perturb.lit.rules import NLI_LABEL_RULES, apply_label_rule
from robust_bench.scoring.parsing import _check_lengths

__all__ = ["attack_success_rate", "NLI_LABEL_RULES", "apply_label_rule", "consistency_details", "consistency_score",
           "group_stability", "stability_details", "stability_score", "worst_best_rows"]


def attack_success_rate(success: Sequence[bool] | None = None, *, predictions: Sequence[int] | None = None,
                        references: Sequence[int] | None = None) -> float:
    """Attack success rate (Yin et al., 2020, §3.3): successful attacks / attacked examples.

    Unlike other ``*_rate`` scores, **lower means more robust**. Only examples the model
    predicted correctly before the attack count as attacked.

    Parameters
    ----------
    success : array-like of bool of shape (n_attacked,), optional
        Per attacked example, whether the attack changed the prediction.
    predictions, references : array-like of int of shape (n_attacked,), optional
        Alternatively, the prediction after the attack and the gold label of each attacked
        example; an attack succeeded where they differ.

    Returns
    -------
    float
        Fraction in [0, 1]; 0 is best (no attack succeeded).

    Raises
    ------
    ValueError
        If neither or both input forms are given, lengths differ, or nothing was attacked.

    Examples
    --------
    >>> attack_success_rate([True, False, False, True])
    0.5
    >>> attack_success_rate(predictions=[0, 2, 1], references=[0, 1, 1])
    0.3333333333333333
    """
    if (success is None) == (predictions is None):
        raise ValueError("give either success flags or predictions and references")
    if success is None:
        if references is None or len(predictions) != len(references):
            raise ValueError("predictions and references must have the same length")
        flags = np.asarray(predictions) != np.asarray(references)
    else:
        flags = np.asarray(success, dtype=bool)
    if flags.size == 0:
        raise ValueError("attack success rate is undefined: no example was attacked")
    return float(flags.mean())


def consistency_details(original_predictions: Sequence[int], predictions: Sequence[int],
                        rules: Sequence[str]) -> dict:
    """Consistency of a model on dual instances (Li et al., 2020, §4.1.3).

    A model is consistent on a dual instance (original pair, transformed pair) when its
    prediction on the transformed pair equals the label rule applied to its own prediction on the
    original pair; for label-preserving rules, the same prediction. Instances whose original
    prediction the rule does not map (``negation`` of contradiction) are excluded and counted.

    Parameters
    ----------
    original_predictions : array-like of int of shape (n_instances,)
        Predictions on the original pairs, indices into (entailment, neutral, contradiction).
    predictions : array-like of int of shape (n_instances,)
        Predictions on the transformed pairs.
    rules : array-like of str of shape (n_instances,)
        The label rule of each instance (:data:`NLI_LABEL_RULES`).

    Returns
    -------
    dict
        ``consistency`` (fraction in [0, 1], higher is better; NaN when no instance counts),
        ``instances`` (counted) and ``excluded``.

    Raises
    ------
    ValueError
        If lengths differ, or a rule or label is unknown.
    """
    _check_lengths("predictions", original_predictions, predictions)
    _check_lengths("rules", original_predictions, rules)
    hits = counted = excluded = 0
    for o, p, r in zip(original_predictions, predictions, rules):
        want = apply_label_rule(r, o)
        if want is None:
            excluded += 1
            continue
        if int(p) not in (0, 1, 2):
            raise ValueError(f"prediction {p} is not an NLI label index")
        counted += 1
        hits += int(int(p) == want)
    return {"consistency": hits / counted if counted else float("nan"), "instances": counted, "excluded": excluded}


def consistency_score(original_predictions: Sequence[int], predictions: Sequence[int], rules: Sequence[str]) -> float:
    """Consistency (Li et al., 2020, §4.1.3), a fraction in [0, 1]; see :func:`consistency_details`.

    Raises
    ------
    ValueError
        If lengths differ, a rule or label is unknown, or no instance counts.

    Examples
    --------
    >>> consistency_score([0, 0, 1, 2], [1, 0, 1, 1], ["to_neutral", "to_neutral", "preserve", "preserve"])
    0.5
    """
    d = consistency_details(original_predictions, predictions, rules)
    if not d["instances"]:
        raise ValueError("consistency is undefined: no dual instance counts")
    return float(d["consistency"])


def _groups(group_ids: Sequence, variants: Sequence[int]) -> dict:
    _check_lengths("variants", group_ids, variants)
    groups: dict = {}
    for i, (g, v) in enumerate(zip(group_ids, variants)):
        groups.setdefault(g, {})
        if int(v) in groups[g]:
            raise ValueError(f"group {g!r} has variant {int(v)} twice")
        groups[g][int(v)] = i
    return groups


def group_stability(predictions: Sequence, group_ids: Sequence, variants: Sequence[int]) -> dict:
    """Per group, whether its prediction is the same for the original (variant 0) and every swapped
    variant (Balasubramanian et al., 2020, §3): the one place stability is decided, used by
    :func:`stability_details` and by the suite's per-example log.

    Parameters
    ----------
    predictions, group_ids, variants : array-like of shape (n_rows,)
        As for :func:`stability_details`.

    Returns
    -------
    dict
        ``{group_id: bool}`` for every group with an original and at least one swapped variant;
        groups without one of them are left out (not counted).

    Raises
    ------
    ValueError
        If lengths differ or a group repeats a variant.
    """
    _check_lengths("predictions", predictions, group_ids)
    out = {}
    for g, rows in _groups(group_ids, variants).items():
        others = [i for v, i in rows.items() if v != 0]
        if 0 in rows and others:
            out[g] = all(predictions[i] == predictions[rows[0]] for i in others)
    return out


def stability_details(predictions: Sequence, group_ids: Sequence, variants: Sequence[int]) -> dict:
    """Stability under named-entity swaps (Balasubramanian et al., 2020, §3): the share of groups
    whose prediction is the same for the original (variant 0) and every swapped variant.

    Parameters
    ----------
    predictions : array-like of shape (n_rows,)
        One hashable prediction per row: a label index, or a canonical form of a structured
        prediction (entity spans or clusters mapped to the original's coordinates).
    group_ids : array-like of shape (n_rows,)
        The group (source example) of each row.
    variants : array-like of int of shape (n_rows,)
        0 for the original, 1..B for the swapped variants.

    Returns
    -------
    dict
        ``stability`` (fraction in [0, 1], higher is more robust), ``groups`` (counted),
        ``stable`` and ``without_original`` (groups lacking variant 0, not counted).

    Raises
    ------
    ValueError
        If lengths differ, a group repeats a variant, or no group has an original and a variant.
    """
    per_group = group_stability(predictions, group_ids, variants)
    missing = sum(0 not in rows for rows in _groups(group_ids, variants).values())
    counted, stable = len(per_group), sum(per_group.values())
    if not counted:
        raise ValueError("stability is undefined: no group has an original and a swapped variant")
    return {"stability": stable / counted, "groups": counted, "stable": stable, "without_original": missing}


def stability_score(predictions: Sequence, group_ids: Sequence, variants: Sequence[int]) -> float:
    """Stability, a fraction in [0, 1] (higher is more robust); see :func:`stability_details`.

    Examples
    --------
    >>> stability_score([1, 1, 1, 0, 0, 1], ["a", "a", "a", "b", "b", "b"], [0, 1, 2, 0, 1, 2])
    0.5
    """
    return float(stability_details(predictions, group_ids, variants)["stability"])


def worst_best_rows(scores: Sequence[float], group_ids: Sequence, variants: Sequence[int]) -> tuple[list, list]:
    """The rows forming D_worst and D_best (Balasubramanian et al., 2020, Alg. 1): per group, the
    swapped variant (1..B) with the lowest and with the highest per-example score; ties go to the
    lowest variant number.

    Parameters
    ----------
    scores : array-like of float of shape (n_rows,)
        Per-row score (1/0 correctness for a classifier, sentence entity F1, document CoNLL F1).
    group_ids, variants : array-like of shape (n_rows,)

    Returns
    -------
    worst, best : list of int
        Row indices, one per group with at least one swapped variant, in order of first appearance.
    """
    _check_lengths("scores", scores, group_ids)
    worst, best = [], []
    for rows in _groups(group_ids, variants).values():
        cand = sorted((v, i) for v, i in rows.items() if v != 0)
        if not cand:
            continue
        worst.append(min(cand, key=lambda vi: (float(scores[vi[1]]), vi[0]))[1])
        best.append(min(cand, key=lambda vi: (-float(scores[vi[1]]), vi[0]))[1])
    return worst, best
