"""Prompt sensitivity beside the perturbations: is a perturbation's effect bigger than what rephrasing the
prompt does anyway?

An LLM's score moves with the wording of its prompt as well as with the input (Sclar et al., 2024,
"Quantifying Language Models' Sensitivity to Spurious Features in Prompt Design", §3: FormatSpread, the
spread of a metric between the best and the worst of plausible prompt formats; NVIDIA's SCORE runs prompt
paraphrases inside lm-eval). ``run --prompts all`` scores a task under each of its templates
(:func:`robust_bench.models.llm.prompt_variants`) on the same rows; :func:`prompt_sensitivity` sets the
perturbation's effect (the clean metric minus the perturbed one, averaged over the templates) against the
template spread of the clean metric (its range over the templates), with a percentile bootstrap over the
examples, resampled jointly for every template (the same rows are scored under each).

A ratio above 1 says the perturbation moves the metric more than the choice among the templates does; below
1, less.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from robust_bench.scoring.intervals import BOOTSTRAP_RESAMPLES, Formula, _bootstrap, metric_value

__all__ = ["prompt_sensitivity"]


def _spread(values: np.ndarray) -> dict[str, float]:
    return {"min": float(values.min()), "max": float(values.max()), "range": float(values.max() - values.min()),
            "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0}


def prompt_sensitivity(columns: Mapping[str, Mapping[str, np.ndarray]], clean: Formula, perturbed: Formula, *,
                       higher_is_better: bool = True, confidence: float = 0.95,
                       n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> dict:
    """A task's metrics under each prompt template, their spread, and the perturbation effect relative to it.

    Parameters
    ----------
    columns : mapping of str to mapping of str to ndarray of shape (n_examples,)
        Template name -> the per-example outcome fields of its log (:func:`robust_bench.results.runs.log_columns`),
        the examples in the same order for every template.
    clean, perturbed : Formula
        The task's (clean, perturbed) metric pair (:attr:`robust_bench.evaluations.Evaluation.pairs`, the
        first), e.g. ``acc_ori`` and ``acc_ctr``.
    higher_is_better : bool
        The pair's direction: the effect is clean − perturbed when higher is better, perturbed − clean otherwise.
    confidence, n_resamples, seed
        Of the percentile bootstrap over examples (``scipy.stats.bootstrap``).

    Returns
    -------
    dict
        ``templates`` (names, in order); ``clean`` and ``perturbed``: the metric per template; ``clean_spread``
        and ``perturbed_spread``: ``min``, ``max``, ``range`` (max − min, Sclar et al.'s spread) and ``sd``
        (over templates, ddof 1); ``effect``: the mean over templates of the perturbation's effect, in the
        metric's units; ``effect_over_spread``: ``effect`` / ``clean_spread.range`` (None when the range is
        0); ``intervals``: the bootstrap interval of ``effect`` and of ``effect_over_spread`` (NaN-free:
        None where undefined); ``n``: the examples.

    Raises
    ------
    ValueError
        Fewer than two templates, or templates over different numbers of examples.
    """
    names = list(columns)
    if len(names) < 2:
        raise ValueError(f"prompt sensitivity needs two templates or more, got {names}")
    sizes = {len(np.asarray(next(iter(c.values())))) for c in columns.values()}
    if len(sizes) != 1:
        raise ValueError(f"the templates' logs hold different numbers of examples: {sorted(sizes)}")
    n = sizes.pop()
    sign = 1.0 if higher_is_better else -1.0

    def values(idx):
        c = np.array([metric_value(clean, columns[t], idx) for t in names])
        p = np.array([metric_value(perturbed, columns[t], idx) for t in names])
        return c, p

    def effect(idx):
        c, p = values(idx)
        return float(np.mean(sign * (c - p)))

    def ratio(idx):
        c, p = values(idx)
        spread = c.max() - c.min()
        return float(np.mean(sign * (c - p)) / spread) if spread > 0 else float("nan")

    c, p = values(None)
    eff, rat = effect(None), ratio(None)

    def finite(x):
        return round(float(x), 10) if x is not None and np.isfinite(x) else None

    def interval(stat):
        lo, hi = _bootstrap(stat, n, confidence=confidence, n_resamples=n_resamples, seed=seed)
        return [finite(lo), finite(hi)] if np.isfinite(lo) and np.isfinite(hi) else None

    return {"templates": names, "n": n,
            "clean": {t: finite(v) for t, v in zip(names, c)}, "perturbed": {t: finite(v) for t, v in zip(names, p)},
            "clean_spread": {k: finite(v) for k, v in _spread(c).items()},
            "perturbed_spread": {k: finite(v) for k, v in _spread(p).items()},
            "effect": finite(eff), "effect_over_spread": finite(rat),
            "intervals": {"effect": interval(effect), "effect_over_spread": interval(ratio) if finite(rat) is not None else None}}
