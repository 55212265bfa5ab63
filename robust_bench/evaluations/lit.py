"""LIT contrast sets (Li et al., 2020, §4.1.3 and Table 3): the ``contrast-set`` evaluation, and
the views of ``robust-bench evaluate --config lit_*``.

Per row, the model classifies the original pair and the transformed pair; the log line records both
predictions and both gold labels. Over any set of rows (all of a split, or one transformation code):

* **Acc@Ori**: accuracy on the original pairs of the dual instances (against the original labels);
* **Acc@Ctr**: accuracy on the transformed pairs (against the labels the rules give);
* **Consistency**: the share of dual instances on which the prediction on the transformed pair
  equals the label rule applied to the prediction on the original pair
  (:func:`robust_bench.scoring.consistency_details`); rows whose rule gives no label for the
  original prediction are not counted.

All metrics are fractions in [0, 1], higher is better. ``robust-bench run`` logs one line per row;
``robust-bench evaluate`` is the same run (:func:`robust_bench.suite.command.evaluate_contrast_sets`) and
reports its lines per transformation code (Table 3, :func:`table3`), with the same formulas.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np

from robust_bench import RobustBenchError
from robust_bench.evaluations import (EvalOutput, Metric, input_sha256, llm_traces, log_entry, ratio,
                                      register_evaluation, task_classifier, unit_ids)
from robust_bench.io.fileio import pyplot, save_figure
from robust_bench.perturb.lit.pairs import CODES
from robust_bench.results.runs import log_columns
from robust_bench.scoring import consistency_details
from robust_bench.scoring.intervals import metric_value

__all__ = ["contrast_set", "check_outcome", "table3", "contrast_set_scores", "format_table",
           "plot_scores", "LitEvalError"]


class LitEvalError(RobustBenchError, ValueError):
    """A config that is not a LIT contrast set."""


def check_outcome(entry: dict) -> list[tuple[str, int]]:
    """What a contrast-set log line's outcome must say given its own predictions and gold labels."""
    pred, gold = entry.get("prediction"), entry.get("gold")
    if not (isinstance(pred, dict) and isinstance(gold, dict) and "ori_correct" in entry["outcome"]):
        return []
    ori = int(pred.get("original") == gold.get("original"))
    ctr = int(pred.get("contrast") == gold.get("contrast"))
    return [("ori_correct", ori), ("ctr_correct", ctr), ("both_correct", ori * ctr)]


def _outcome(po: int, pc: int, go: int, gc: int, rule: str) -> dict:
    """The outcome fields of one dual instance: predictions ``po``/``pc`` on the original and the
    transformed pair, their gold labels ``go``/``gc``, the pair's label rule."""
    c = consistency_details([int(po)], [int(pc)], [rule])
    return {"ori_correct": po == go, "ctr_correct": pc == gc, "both_correct": po == go and pc == gc, "one": 1,
            "consistent": c["instances"] == 1 and c["consistency"] == 1.0, "counted": c["instances"]}


@register_evaluation(
    name="contrast-set", family="lit",
    metrics=(Metric("acc_ori", ratio("ori_correct")), Metric("acc_ctr", ratio("ctr_correct")),
             Metric("consistency", ratio("consistent", "counted")),
             Metric("contrast_consistency", ratio("both_correct"))),
    pairs=(("acc_ori", "acc_ctr"),), robustness=("consistency", "contrast_consistency"), check_outcome=check_outcome,
    cluster="source_id",
    title="LIT contrast sets (Li et al., 2020)")
def contrast_set(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of a LIT contrast set: both pairs of every row classified in one batched call.

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        A sequence classifier over the rows' labels (``task.options["label_map"]`` maps the
        model's label names onto them where they differ).
    task
        The suite task (its ``split`` names the ids).
    rows : datasets.Dataset
        ``lit_*`` rows: ``original_premise``, ``original_hypothesis``, ``premise``, ``hypothesis``,
        ``original_label``, ``label``, ``rule``.
    seed, repo
        A causal LM's k-shot demonstrations are drawn with ``seed`` from another split of the config in
        ``repo`` (:func:`~robust_bench.evaluations.task_classifier`); other models do not use them.
    positions, work
        Unused: one forward pass per input.

    Returns
    -------
    EvalOutput
        One entry per row; outcome ``ori_correct``, ``ctr_correct``, ``both_correct``, ``consistent``,
        ``counted``, ``one``. The metrics: Acc@Ori and Acc@Ctr, LIT's consistency (Li et al. 2020, §4.1:
        the share of the counted dual instances whose two predictions follow the pair's label rule,
        "whether correct or not", so a constant model scores 1), and **contrast consistency** (Gardner
        et al. 2020, "Evaluating Models' Local Decision Boundaries via Contrast Sets": the share of contrast
        sets on which every prediction is correct; here each row, an original pair and its contrast pair, is
        a set of two), the metric that ranks models.
    """
    labels = list(rows.features["label"].names)
    clf = task_classifier(model, labels, task, repo, seed, task.options.get("label_map"))
    ori = list(zip(rows["original_premise"], rows["original_hypothesis"]))
    ctr = list(zip(rows["premise"], rows["hypothesis"]))
    preds = clf.predict(ori + ctr)
    po, pc = preds[:len(ori)], preds[len(ori):]
    gold_o, gold_c, rules = list(rows["original_label"]), list(rows["label"]), list(rows["rule"])
    out = []
    for k, uid in enumerate(unit_ids("contrast-set", rows, task.split)):
        go, gc = int(gold_o[k]), int(gold_c[k])
        out.append(log_entry(uid, input_sha256(ori[k], ctr[k]),
                             {"original": labels[po[k]], "contrast": labels[pc[k]]},
                             {"original": labels[go], "contrast": labels[gc]},
                             _outcome(po[k], pc[k], go, gc, rules[k]), llm_traces(clf, (ori[k], ctr[k]))))
    per_code = table3(list(rows["transformation"]), out) if out else {}        # an empty shard has no table
    return EvalOutput(out, {"rows": len(rows), "consistency_excluded": sum(1 - e["outcome"]["counted"] for e in out),
                            "per_transformation": {k: {m: (None if isinstance(x, float) and x != x else x)
                                                       for m, x in v.items()}            # NaN: undefined
                                                   for k, v in per_code.items() if k != "all"}},
                      extras={"classifier": clf, "table3": per_code})


def table3(codes: Sequence[str], entries: Sequence[dict]) -> dict:
    """Table-3 scores per transformation code and overall, from contrast-set log lines, with the
    evaluation's own formulas (:data:`contrast_set`'s metrics).

    Parameters
    ----------
    codes : sequence of str of shape (n_rows,)
        Each row's transformation code.
    entries : sequence of dict of shape (n_rows,)
        Its log line (or just ``{"outcome": ...}``).

    Returns
    -------
    dict
        Code (in the order of :data:`robust_bench.perturb.lit.pairs.CODES`, others after it, then
        ``"all"``) -> ``n``, ``acc_ori``, ``acc_ctr``, ``consistency`` (fractions in [0, 1];
        consistency NaN when no instance counts), ``consistency_excluded``.
    """
    cols = log_columns(entries)
    found: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(codes):
        found[c].append(i)
    order = [c for c in CODES if c in found] + sorted(c for c in found if c not in CODES)
    groups = {c: found[c] for c in order}
    groups["all"] = list(range(len(codes)))
    out = {}
    for code, idx in groups.items():
        idx = np.asarray(idx, dtype=int)
        scores = {m.name: metric_value(m.formula, cols, idx) for m in contrast_set.metrics}
        out[code] = {"n": int(len(idx)), **scores, "consistency_excluded": int(len(idx) - cols["counted"][idx].sum())}
    return out


def contrast_set_scores(rows, original_predictions: Sequence[int], predictions: Sequence[int]) -> dict:
    """Table-3 scores per transformation code and overall, from predictions (:func:`table3`).

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
        As :func:`table3`.

    Raises
    ------
    ValueError
        If the lengths differ.
    """
    if not hasattr(rows, "column_names"):
        rows = {k: [r[k] for r in rows] for k in ("transformation", "rule", "original_label", "label")}
    codes, rules = list(rows["transformation"]), list(rows["rule"])
    gold_o, gold_c = list(rows["original_label"]), list(rows["label"])
    po, pc = np.asarray(original_predictions), np.asarray(predictions)
    if not (len(codes) == len(po) == len(pc)):
        raise ValueError(f"{len(codes)} rows but {len(po)} original and {len(pc)} transformed predictions")
    return table3(codes, [{"outcome": _outcome(int(po[i]), int(pc[i]), int(gold_o[i]), int(gold_c[i]), rules[i])}
                          for i in range(len(codes))])


def format_table(scores: dict, *, title: str = "") -> str:
    """A Table-3-style text table (percentages)."""
    lines = [title] if title else []
    lines.append(f"  {'transformation':<16}{'n':>7}{'Acc@Ori':>10}{'Acc@Ctr':>10}{'Consistency':>13}")
    for code in [c for c in scores if c != "all"] + ["all"]:
        s = scores[code]
        lines.append(f"  {code:<16}{s['n']:>7}{s['acc_ori'] * 100:>10.1f}{s['acc_ctr'] * 100:>10.1f}"
                     f"{s['consistency'] * 100:>13.1f}")
    return "\n".join(lines)


def plot_scores(scores: dict, out_stem: str | Path, *, title: str = "") -> list[Path]:
    """Grouped bars of Acc@Ori, Acc@Ctr and Consistency per transformation (PNG and SVG)."""
    plt = pyplot()

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
