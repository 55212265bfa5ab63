"""Robustness metrics: attack success rate (Yin et al., 2020) and consistency on contrast sets (Li et al., 2020)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from robust_bench.perturb.lit.rules import NLI_LABEL_RULES, apply_label_rule
from robust_bench.scoring.parsing import _check_lengths

__all__ = ["attack_success_rate", "NLI_LABEL_RULES", "apply_label_rule", "consistency_details", "consistency_score"]


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
