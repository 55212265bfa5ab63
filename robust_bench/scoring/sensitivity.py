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
1, less. Read it with its interval: the range of a few templates' scores is itself noisy (it grows with the
number of templates and with sampling noise), so the effect's own interval is reported beside it.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from robust_bench.scoring.intervals import BOOTSTRAP_RESAMPLES, Formula, _bootstrap, metric_value

#: the ratio's interval is given when at most this share of the resamples leaves it undefined (a resample on
#: which every template scores alike has no spread)
MAX_UNDEFINED_SHARE = 0.05

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
        0); ``intervals``: the percentile-bootstrap interval of ``effect`` and of ``effect_over_spread`` (the
        latter over the resamples where the range is not 0, None when more than
        :data:`MAX_UNDEFINED_SHARE` of them have none); ``resamples_without_spread``: how many resamples had
        no range; ``n``: the examples.

    Raises
    ------
    ValueError
        Fewer than two templates, or templates over different numbers of examples.
    """
    names = list(columns)
    if len(names) < 2:
        raise ValueError(f"prompt sensitivity needs two templates or more, got {names}")
    sizes = {len(np.asarray(next(iter(c.values()), ()))) for c in columns.values()}
    if len(sizes) != 1:
        raise ValueError(f"the templates' logs hold different numbers of examples: {sorted(sizes)}")
    n = sizes.pop()
    if n == 0:
        raise ValueError("the templates' logs hold no example")
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
        lo, hi = _bootstrap(stat, n, confidence=confidence, n_resamples=n_resamples, seed=seed)[:2]
        return [finite(lo), finite(hi)] if np.isfinite(lo) and np.isfinite(hi) else None

    # the ratio: the same percentile bootstrap, over the resamples on which it is defined
    rng = np.random.default_rng(seed)
    draws = np.array([ratio(rng.integers(0, n, n)) for _ in range(n_resamples)]) if n > 1 else np.array([np.nan])
    undefined = int(np.isnan(draws).sum())
    ratio_ci = None
    if finite(rat) is not None and undefined <= MAX_UNDEFINED_SHARE * len(draws):
        alpha = (1 - confidence) / 2
        lo, hi = np.quantile(draws[~np.isnan(draws)], [alpha, 1 - alpha])
        ratio_ci = [finite(lo), finite(hi)]
    return {"templates": names, "n": n,
            "clean": {t: finite(v) for t, v in zip(names, c)}, "perturbed": {t: finite(v) for t, v in zip(names, p)},
            "clean_spread": {k: finite(v) for k, v in _spread(c).items()},
            "perturbed_spread": {k: finite(v) for k, v in _spread(p).items()},
            "effect": finite(eff), "effect_over_spread": finite(rat),
            "intervals": {"effect": interval(effect), "effect_over_spread": ratio_ci},
            "resamples_without_spread": undefined}
