"""Evaluation on LIT contrast sets (Li et al., 2020, §4.1.3 and Table 3).

Per transformation code, and over all rows of a split:

* **Acc@Ori**: accuracy on the original pairs of the dual instances (against the original labels);
* **Acc@Ctr**: accuracy on the transformed pairs (against the labels the rules give);
* **Consistency**: the share of dual instances on which the prediction on the transformed pair
  equals the label rule applied to the prediction on the original pair
  (:func:`robust_bench.scoring.consistency_details`).

All metrics are fractions in [0, 1], higher is better.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np

from robust_bench.scoring import consistency_details
from robust_bench import RobustBenchError

__all__ = ["LitEvalError", "load_contrast_sets", "contrast_set_scores", "format_table", "plot_scores"]


class LitEvalError(RobustBenchError, ValueError):
    """A config that is not a LIT contrast set."""


def load_contrast_sets(repo: str | Path, config: str, split: str | None = None) -> tuple[dict, dict]:
    """The splits of a built ``lit_*`` config (all of them, or ``split``), and its metadata.

    Returns
    -------
    sets : dict of str to datasets.Dataset
    meta : dict
        The config's ``metadata.json``.

    Raises
    ------
    LitEvalError
        If the config is not a LIT config.
    robust_bench.data.repository.NotBuiltError
        If it is not built in ``repo``, or has no such split.
    """
    import datasets

    from robust_bench.data.repository import built_config

    if not config.startswith("lit_"):
        raise LitEvalError(f"evaluate scores LIT contrast sets (lit_mnli, lit_snli); got {config!r}")
    meta = built_config(repo, config, split)
    splits = [split] if split else list(meta["files"])
    return {sp: datasets.load_dataset(str(repo), config, split=sp) for sp in splits}, meta


def contrast_set_scores(rows, original_predictions: Sequence[int], predictions: Sequence[int]) -> dict:
    """Table-3 scores per transformation code and overall.

    Parameters
    ----------
    rows : datasets.Dataset or sequence of dict
        Contrast-set rows with ``transformation``, ``rule``, ``original_label`` and ``label``.
    original_predictions : array-like of int of shape (n_rows,)
        Predictions on each row's original pair (indices into entailment, neutral, contradiction).
    predictions : array-like of int of shape (n_rows,)
        Predictions on each row's transformed pair.

    Returns
    -------
    dict
        Code (and ``"all"``) -> ``n``, ``acc_ori``, ``acc_ctr``, ``consistency`` (fractions in
        [0, 1]; consistency NaN when no instance counts), ``consistency_excluded``.

    Raises
    ------
    ValueError
        If the lengths differ.
    """
    if not hasattr(rows, "column_names"):
        rows = {k: [r[k] for r in rows] for k in ("transformation", "rule", "original_label", "label")}
    codes, rules = list(rows["transformation"]), list(rows["rule"])
    gold_o, gold_c = np.asarray(rows["original_label"]), np.asarray(rows["label"])
    po, pc = np.asarray(original_predictions), np.asarray(predictions)
    if not (len(codes) == len(po) == len(pc)):
        raise ValueError(f"{len(codes)} rows but {len(po)} original and {len(pc)} transformed predictions")
    from robust_bench.perturb.lit.pairs import CODES

    found: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(codes):
        found[c].append(i)
    order = [c for c in CODES if c in found] + sorted(c for c in found if c not in CODES)
    groups = {c: found[c] for c in order}
    groups["all"] = list(range(len(codes)))
    out = {}
    for code, idx in groups.items():
        idx = np.asarray(idx, dtype=int)
        cons = consistency_details(po[idx], pc[idx], [rules[i] for i in idx])
        out[code] = {"n": int(len(idx)), "acc_ori": float((po[idx] == gold_o[idx]).mean()) if len(idx) else float("nan"),
                     "acc_ctr": float((pc[idx] == gold_c[idx]).mean()) if len(idx) else float("nan"),
                     "consistency": cons["consistency"], "consistency_excluded": cons["excluded"]}
    return out


def format_table(scores: dict, *, title: str = "") -> str:
    """A Table-3-style text table (percentages)."""
    lines = [title] if title else []
    lines.append(f"  {'transformation':<16}{'n':>7}{'Acc@Ori':>10}{'Acc@Ctr':>10}{'Consistency':>13}")
    for code, s in scores.items():
        if code == "all":
            continue
        lines.append(f"  {code:<16}{s['n']:>7}{s['acc_ori'] * 100:>10.1f}{s['acc_ctr'] * 100:>10.1f}"
                     f"{s['consistency'] * 100:>13.1f}")
    s = scores["all"]
    lines.append(f"  {'all':<16}{s['n']:>7}{s['acc_ori'] * 100:>10.1f}{s['acc_ctr'] * 100:>10.1f}"
                 f"{s['consistency'] * 100:>13.1f}")
    return "\n".join(lines)


def plot_scores(scores: dict, out_stem: str | Path, *, title: str = "") -> list[Path]:
    """Grouped bars of Acc@Ori, Acc@Ctr and Consistency per transformation (PNG and SVG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robust_bench.io.fileio import save_figure

    codes = list(scores)
    x = np.arange(len(codes))
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(codes) + 2), 3.6))
    for k, (key, name) in enumerate((("acc_ori", "Acc@Ori"), ("acc_ctr", "Acc@Ctr"), ("consistency", "Consistency"))):
        ax.bar(x + (k - 1) * 0.27, [scores[c][key] * 100 for c in codes], width=0.27, label=name)
    ax.set_xticks(x, codes, rotation=30, ha="right")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.legend(ncol=3, fontsize=8, loc="upper right")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out_stem)
