"""Reports of the parser attack, laid out as the tables of Wang et al. (2021), and their plots.

* Table 6: UAS and LAS of the parser on the original and the adversarial sentences, and the attack
  success rate (lower is more robust), per punctuation rule.
* Table 4: candidates per generator before filtering and after every filter.
* Table 5: the filter ablation: the attack rerun with the filters switched on one by one
  (pos; +embedding; +grammar; +perplexity).
* Table 7: OOV and OOT counts of the replaced words (before) and of their substitutes (after).
* Table 2 (automatic part): the mean causal-LM perplexity of the original and the adversarial sets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from robust_bench.attacks.parser_attack import ParserAttack, TreeExample, summarise
from robust_bench.perturb.parser_substitutes import FILTERS

__all__ = ["filter_ablation", "mean_perplexity", "table6", "table4", "table5", "table7", "table2", "plot_candidates",
           "plot_scores"]


def mean_perplexity(lm, sentences: Sequence[Sequence[str]]) -> float:
    """Mean perplexity of pre-split sentences (joined by spaces) under a :class:`CausalLMScorer` (Table 2)."""
    return float(np.mean(lm.perplexity([" ".join(s) for s in sentences])))


def filter_ablation(attack: ParserAttack, examples: Sequence[TreeExample], *, lm=None,
                    progress: bool = False) -> list[dict]:
    """Table 5: the attack rerun with the filters of :data:`FILTERS` added one at a time.

    The generators, the parser and their caches are shared, so later settings reuse parses.

    Parameters
    ----------
    attack : ParserAttack
        The full attack; its filters are switched on in the paper's order.
    examples : sequence of TreeExample
    lm : CausalLMScorer, optional
        For the adversarial set's mean perplexity per setting.

    Returns
    -------
    list of dict
        One per setting: ``filters`` (names), ``success_rate``, ``scores`` (as :func:`summarise`),
        ``kept`` (candidates after filtering) and, with ``lm``, ``perplexity``.
    """
    by_name = {f.name: f for f in attack.filters}
    rows = []
    names: list[str] = []
    for name in FILTERS:
        if name not in by_name or not getattr(by_name[name], "available", True):
            continue
        names.append(name)
        sub = ParserAttack(attack.parser, attack.generators, [by_name[n] for n in names], rule=attack.rule,
                           lambda_arc=attack.lam, budget_rate=attack.budget_rate, unk_token=attack.unk)
        res = sub.attack(examples, progress=progress)
        s = summarise(res, examples)
        row = {"filters": list(names), "success_rate": s["success_rate"], "scores": s["scores"],
               "kept": sum(c["kept"] for c in s["candidates"].values()), "edits_mean": s["edits_mean"]}
        if lm is not None:
            row["perplexity"] = mean_perplexity(lm, [r.words for r in res])
        rows.append(row)
    return rows


def _md(header: Sequence[str], rows: Sequence[Sequence]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def table6(summary: dict, parser: str) -> str:
    """Markdown of Table 6 (one row per punctuation rule)."""
    rows = []
    for rule, sc in summary["scores"].items():
        las = (f"{sc['las_original']:.2f}", f"{sc['las_adversarial']:.2f}") if "las_original" in sc else ("–", "–")
        rows.append([parser, rule, f"{sc['uas_original']:.2f}", las[0], f"{sc['uas_adversarial']:.2f}", las[1],
                     f"{100 * summary['success_rate']:.2f}"])
    return _md(["parser", "punct. rule", "UAS", "LAS", "UAS (adv.)", "LAS (adv.)", "success rate %"], rows)


def table4(summary: dict) -> str:
    """Markdown of Table 4: candidates per generator before and after filtering."""
    rows = [[g, f"{c['proposed']:,}", f"{c['kept']:,}", f"{c['kept'] / c['proposed']:.1%}" if c["proposed"] else "–"]
            for g, c in summary["candidates"].items()]
    return _md(["generator", "before filtering", "after filtering", "kept"], rows)


def table5(ablation: Sequence[dict]) -> str:
    """Markdown of Table 5: the filter ablation."""
    rows = []
    for k, a in enumerate(ablation):
        label = a["filters"][0] if k == 0 else "+" + a["filters"][-1]
        sc = a["scores"]["ud"]
        rows.append([label, f"{a['kept']:,}", f"{a['edits_mean']:.2f}", f"{sc['uas_adversarial']:.2f}",
                     f"{sc['las_adversarial']:.2f}" if "las_adversarial" in sc else "–",
                     f"{100 * a['success_rate']:.2f}", f"{a['perplexity']:.1f}" if "perplexity" in a else "–"])
    return _md(["filters", "candidates kept", "edits/sent.", "UAS (adv.)", "LAS (adv.)", "success rate %",
                "perplexity (adv.)"], rows)


def table7(summary: dict) -> str:
    """Markdown of Table 7: OOV and OOT counts of the replaced words and their substitutes."""
    def fmt(v):
        return "n/a" if v is None else f"{v:,}"

    return _md(["", "replaced words (before)", "substitutes (after)"],
               [["OOV", fmt(summary["oov"]["before"]), fmt(summary["oov"]["after"])],
                ["OOT", fmt(summary["oot"]["before"]), fmt(summary["oot"]["after"])],
                ["words", f"{summary['substitutions']:,}", f"{summary['substitutions']:,}"]])


def table2(original: float, adversarial: float) -> str:
    """Markdown of Table 2's automatic part: mean perplexity of the two sets."""
    return _md(["set", "mean perplexity"], [["original", f"{original:.1f}"], ["adversarial", f"{adversarial:.1f}"]])


def plot_candidates(summary: dict, out_stem: str | Path, *, title: str) -> list[Path]:
    """Bar chart of candidates per generator before and after filtering (Table 4), PNG and SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robust_bench.io.fileio import save_figure

    gens = list(summary["candidates"])
    before = [summary["candidates"][g]["proposed"] for g in gens]
    after = [summary["candidates"][g]["kept"] for g in gens]
    x = np.arange(len(gens))
    fig, ax = plt.subplots(figsize=(1.6 * len(gens) + 2, 3.4))
    ax.bar(x - 0.2, before, 0.4, label="proposed", color="#9ecae1")
    ax.bar(x + 0.2, after, 0.4, label="kept by every filter", color="#08519c")
    ax.set_xticks(x, gens)
    ax.set_yscale("log")
    ax.set_ylabel("candidates (log scale)")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False)
    fig.tight_layout()
    return save_figure(fig, out_stem)


def plot_scores(summaries: dict[str, dict], out_stem: str | Path, *, title: str, rule: str = "ud") -> list[Path]:
    """UAS and LAS before and after the attack, one group of bars per parser, PNG and SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robust_bench.io.fileio import save_figure

    names = list(summaries)
    metrics = [m for m in ("uas", "las") if all(f"{m}_original" in s["scores"][rule] for s in summaries.values())]
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics) + 0.5, 3.4), squeeze=False)
    for ax, m in zip(axes[0], metrics):
        x = np.arange(len(names))
        orig = [summaries[n]["scores"][rule][f"{m}_original"] for n in names]
        adv = [summaries[n]["scores"][rule][f"{m}_adversarial"] for n in names]
        ax.bar(x - 0.2, orig, 0.4, label="original", color="#bdbdbd")
        ax.bar(x + 0.2, adv, 0.4, label="adversarial", color="#cb181d")
        ax.set_xticks(x, names, rotation=15, fontsize=8)
        ax.set_ylim(0, 100)
        ax.set_title(m.upper())
    axes[0][0].legend(frameon=False, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out_stem)
