"""Adversarial treebanks (Wang et al., 2021): the ``parser-attack`` and ``parser-attack-live``
evaluations, and the paper's tables and plots.

As a transfer set (``robust-bench run``): a built ``adv_*`` config holds sentences attacked against a
reference parser, with their gold trees unchanged. The model under test parses each original and
each attacked sentence; UAS and LAS are scored against the gold tree (punctuation excluded by the
config's rule), and a sentence counts as a success of the transferred attack when its parse gets
worse.

Live (the ``parser-attack-live`` evaluation): the attack (Alg. 1) runs against the model's own parser, each
sentence one log line with ``parser-attack``'s metrics. ``robust-bench attack-parser``
(:func:`robust_bench.suite.command.attack_parser_command`) runs it as a one-task suite and reports, as views
of the run,

* Table 6: UAS and LAS of the parser on the original and the adversarial sentences, and the attack
  success rate (lower is more robust), per punctuation rule;
* Table 4: candidates per generator before filtering and after every filter;
* Table 5: the filter ablation: the attack rerun with the filters switched on one by one
  (pos; +embedding; +grammar; +perplexity);
* Table 7: OOV and OOT counts of the replaced words (before) and of their substitutes (after);
* Table 2 (automatic part): the mean causal-LM perplexity of the original and the adversarial sets;

and stores the attacked sentences as the derived config ``adv_<parser>_<config>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from robust_bench.evaluations import (EvalOutput, EvaluationError, Metric, input_sha256, log_entry, ratio,
                                      register_evaluation, unit_ids)
from robust_bench.perturb.treebanks import FILTERS
from robust_bench.attacks.treebanks import ParserAttack, TreeExample, make_attack, summarise
from robust_bench.io.fileio import pyplot, save_figure
from robust_bench.scoring import attachment_errors, attachment_mask

__all__ = ["parser_attack", "parser_attack_live", "source_rows", "tree_example", "RULES", "LIVE_OPTIONS", "filter_ablation", "mean_perplexity", "table6", "table4",
           "table5", "table7", "table2", "plot_candidates", "plot_scores", "CONFIGS"]

#: the configs a live attack reads its sentences from
CONFIGS = ("adv_ewt", "adv_ptb")


@register_evaluation(
    name="parser-attack", family="adversarial_treebanks",
    metrics=(Metric("uas_original", ratio("arcs_right_original", "scored")),
             Metric("las_original", ratio("labels_right_original", "scored")),
             Metric("uas_adversarial", ratio("arcs_right_adversarial", "scored")),
             Metric("las_adversarial", ratio("labels_right_adversarial", "scored")),
             Metric("success_rate", ratio("success"), higher_is_better=False)),
    pairs=(("las_original", "las_adversarial"), ("uas_original", "uas_adversarial")),
    robustness=("success_rate",), hub_task_type="dependency-parsing", cluster="sent_id",
    title="Adversarial treebanks (Wang et al., 2021)")
def parser_attack(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of an adversarial treebank: every original and attacked sentence parsed in one call.

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        A dependency parser.
    task
        The suite task: ``options`` ``rule`` (``ud``, the default, or ``ptb``: which tokens are
        punctuation and not scored).
    rows : datasets.Dataset
        ``adv_*`` rows: ``original_tokens``, ``tokens``, gold ``head``, ``deprel``, ``xpos``.
    positions, seed, repo, work
        Unused.

    Returns
    -------
    EvalOutput
        One entry per sentence: scored tokens, right arcs and labels before and after, ``success``.
    """
    parser = model.parser()
    originals = [tuple(t) for t in rows["original_tokens"]]
    attacked = [tuple(t) for t in rows["tokens"]]
    parses = parser.parse(originals + attacked)
    p0, p1 = parses[:len(rows)], parses[len(rows):]
    rule = task.options.get("rule", "ud")
    out = []
    for k, uid in enumerate(unit_ids("parser-attack", rows, task.split)):
        r = rows[k]
        labelled = any(d != "_" for d in r["deprel"]) and p0[k].deprels is not None
        gold_rel = list(r["deprel"]) if labelled else None
        xpos = list(r["xpos"]) if any(x != "_" for x in r["xpos"]) else None
        mask = attachment_mask(len(r["head"]), rule, xpos)
        n, a0, l0 = attachment_errors(r["head"], p0[k].heads, gold_deprels=gold_rel,
                                      pred_deprels=p0[k].deprels if labelled else None, scored=mask)
        _, a1, l1 = attachment_errors(r["head"], p1[k].heads, gold_deprels=gold_rel,
                                      pred_deprels=p1[k].deprels if labelled else None, scored=mask)
        out.append(log_entry(uid, input_sha256(originals[k], attacked[k]),
                             {"original": {"head": list(p0[k].heads), "deprel": list(p0[k].deprels or [])},
                              "adversarial": {"head": list(p1[k].heads), "deprel": list(p1[k].deprels or [])}},
                             {"head": list(r["head"]), "deprel": list(r["deprel"])},
                             {"scored": n, "arcs_right_original": n - a0, "labels_right_original": n - l0,
                              "arcs_right_adversarial": n - a1, "labels_right_adversarial": n - l1,
                              "success": a1 > a0 or (labelled and l1 > l0), "one": 1}))
    return EvalOutput(out, {"rule": rule, "labelled": all(any(d != "_" for d in r) for r in rows["deprel"])})


#: the punctuation rules of Table 6 (:func:`robust_bench.scoring.attachment_mask`)
RULES = ("ud", "ptb")
#: the options of ``parser-attack-live``: the scoring rule, then :func:`make_attack`'s set-up
LIVE_OPTIONS = ("rule", "mlm", "lm", "vectors", "generators", "filters", "spacy_model", "grammar_checker", "frames")


def _rule_metrics(rule: str) -> tuple[Metric, ...]:
    """The attachment scores under ``rule`` when it is not the task's own (Table 6's other row)."""
    return tuple(Metric(f"{m}_{rule}", ratio(f"{f}_{rule}", f"scored_{rule}")) for m, f in (
        ("uas_original", "arcs_right_original"), ("las_original", "labels_right_original"),
        ("uas_adversarial", "arcs_right_adversarial"), ("las_adversarial", "labels_right_adversarial")))


def _counts(gold_heads, gold_rel, xpos, p0, p1, rule: str, suffix: str = "") -> dict:
    """One sentence's scored words and right arcs and labels before (``p0``) and after (``p1``) under ``rule``."""
    mask = attachment_mask(len(gold_heads), rule, xpos)
    n, a0, l0 = attachment_errors(gold_heads, p0.heads, gold_deprels=gold_rel,
                                  pred_deprels=p0.deprels if gold_rel else None, scored=mask)
    _, a1, l1 = attachment_errors(gold_heads, p1.heads, gold_deprels=gold_rel,
                                  pred_deprels=p1.deprels if gold_rel else None, scored=mask)
    return {f"scored{suffix}": n, f"arcs_right_original{suffix}": n - a0, f"labels_right_original{suffix}": n - l0,
            f"arcs_right_adversarial{suffix}": n - a1, f"labels_right_adversarial{suffix}": n - l1,
            f"_errors{suffix}": (a0, l0, a1, l1)}


def _blank_free(values) -> tuple | None:
    return tuple(values) if values and any(v not in ("", "_") for v in values) else None


def tree_example(row) -> TreeExample:
    """The attackable sentence of an ``adv_*`` row (or a :func:`source_rows` row): its original words and
    gold columns; ``multiword`` (when the row has it) protects the parts of multiword tokens."""
    return TreeExample(id=row["sent_id"], words=tuple(row["original_tokens"]), heads=tuple(row["head"]),
                       deprels=_blank_free(row["deprel"]), xpos=_blank_free(row["xpos"]), upos=_blank_free(row["upos"]),
                       lemmas=_blank_free(row.get("lemmas")), feats=_blank_free(row.get("feats")),
                       protected=frozenset(i for i, f in enumerate(row.get("multiword") or ()) if f))


def source_rows(examples: Sequence[TreeExample]):
    """The sentences a live attack reads, unattacked, as a ``datasets.Dataset`` in the ``adv_*`` row shape
    (``id`` ``test-<index>``, ``sent_id``, ``tokens`` = ``original_tokens``, ``lemmas``, ``upos``, ``xpos``,
    ``feats``, gold ``head`` and ``deprel``; ``"_"`` where a column is missing) plus ``multiword`` (bool per
    word: part of a multiword token), so that :func:`tree_example` gives back each example exactly."""
    import datasets

    strings = datasets.List(datasets.Value("string"))
    features = datasets.Features({"id": datasets.Value("string"), "sent_id": datasets.Value("string"),
                                  "tokens": strings, "original_tokens": strings, "lemmas": strings, "upos": strings,
                                  "xpos": strings, "feats": strings, "head": datasets.List(datasets.Value("int32")),
                                  "deprel": strings, "multiword": datasets.List(datasets.Value("bool"))})
    rows = []
    for k, ex in enumerate(examples):
        blank = ["_"] * len(ex.words)
        rows.append({"id": f"test-{k:05d}", "sent_id": ex.id, "tokens": list(ex.words), "original_tokens": list(ex.words),
                     "lemmas": list(ex.lemmas or blank), "upos": list(ex.upos or blank), "xpos": list(ex.xpos or blank),
                     "feats": list(ex.feats or blank), "head": list(ex.heads), "deprel": list(ex.deprels or blank),
                     "multiword": [i in ex.protected for i in range(len(ex.words))]})
    return datasets.Dataset.from_list(rows, features=features)


def _live_options(task) -> tuple[str, dict]:
    """The task's scoring rule and :func:`make_attack`'s keyword arguments; EvaluationError naming a bad option."""
    opts = dict(task.options)
    bad = sorted(set(opts) - set(LIVE_OPTIONS))
    if bad:
        raise EvaluationError(f"task {task.name!r}: unknown option(s) {bad} of parser-attack-live; known: "
                              f"{', '.join(LIVE_OPTIONS)}")
    rule = opts.pop("rule", "ud")
    if rule not in RULES:
        raise EvaluationError(f"task {task.name!r}: option rule must be one of {', '.join(RULES)}, got {rule!r}")
    own = [m.name for m in getattr(task, "metrics", ()) if m.name.endswith(f"_{rule}")]
    if own:
        raise EvaluationError(f"task {task.name!r}: metrics {own} repeat uas_original... under its own rule {rule!r}; "
                              "a task lists the other rule's scores only")
    if "frames" not in opts:
        from robust_bench.builders.treebanks import AdversarialTreebank    # a datasets builder: datasets is heavy

        opts["frames"] = AdversarialTreebank(config_name="adv_ewt").frames_path()
    kw = {"tagger_model": opts.pop("spacy_model", None), **opts}
    return rule, kw


@register_evaluation(
    name="parser-attack-live", family="adversarial_treebanks",
    metrics=(*parser_attack.metrics, *_rule_metrics("ud"), *_rule_metrics("ptb")),
    pairs=parser_attack.pairs, robustness=("success_rate",), hub_task_type="dependency-parsing")
def parser_attack_live(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of the live parser attack (Wang et al., 2021, Alg. 1; ``robust-bench attack-parser``): each
    row's original sentence attacked against the model's own parser, then scored as ``parser-attack`` scores
    a transfer set.

    The metrics are ``parser-attack``'s, with the same fields and formulas: ``uas_original``,
    ``las_original``, ``uas_adversarial``, ``las_adversarial`` (fractions in [0, 1] of the words the task's
    ``rule`` scores) and ``success_rate`` (the share of sentences whose arcs, or labels where labelled, got
    worse; lower is more robust); Table 6's other punctuation rule is declared as ``<metric>_ptb`` (a ``ud``
    task) or ``<metric>_ud`` (a ``ptb`` task), and a task lists the other rule's only (one name per quantity).

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        A dependency parser, the victim.
    task
        The suite task: ``options`` ``rule`` (``ud``, the default, or ``ptb``: which words the unsuffixed
        metrics score; also the attack's objective, as the ``adv_*`` builds use it), and the set-up of
        :func:`robust_bench.attacks.treebanks.make_attack`: ``mlm``, ``lm``, ``vectors``, ``generators``,
        ``filters``, ``spacy_model`` (the POS filter's tagger), ``grammar_checker``, ``frames`` (a gold
        CoNLL-U treebank for the verb frames; default UD English EWT train from the local sources).
    rows : datasets.Dataset
        ``adv_*`` rows (a built config's: its originals are attacked again) or :func:`source_rows`:
        ``sent_id``, ``original_tokens``, gold ``head``, ``deprel``, ``xpos``, ``upos``, ``lemmas``, ``feats``.
    positions, repo, work
        Unused.
    seed : int
        The run's seed: the masked-LM draws.

    Returns
    -------
    EvalOutput
        One entry per sentence: prediction ``tokens`` (the adversarial words), ``edits`` (type, position,
        original, replacement), the ``original`` and ``adversarial`` parses; gold ``head``, ``deprel``;
        outcome the counts of ``parser-attack`` (under ``rule``, and suffixed under the other rule where the
        rows have PTB tags), ``success``, ``edits``, ``budget`` and ``queries``. Details: ``rule``,
        ``labelled``, the attack's ``setup`` and ``summary`` (:func:`summarise`: candidates per generator,
        Table 4; edits and queries per sentence), the parser's ``queries`` and ``calls``. Extras: ``attack``,
        ``examples``, ``results``, ``parser``.

    Raises
    ------
    EvaluationError
        An unknown option, a rule other than ``ud`` or ``ptb``, or metrics under the task's own rule.
    ValueError, SubstituteError, ModelError
        As :func:`make_attack` (an unknown generator or filter, one asked for by name that cannot run).
    """
    rule, kw = _live_options(task)
    parser = model.parser()
    examples = [tree_example(r) for r in rows]
    attack, setup = make_attack(parser, seed=seed, device=model.device, rule=rule, **kw)
    results = attack.attack(examples)
    other = "ptb" if rule == "ud" else "ud"
    has_xpos = all(ex.xpos and all(x not in ("", "_") for x in ex.xpos) for ex in examples)
    out = []
    for k, uid in enumerate(unit_ids("parser-attack-live", rows, task.split)):
        ex, r = examples[k], results[k]
        p0, p1 = r.original_parse, r.adversarial_parse
        labelled = ex.deprels is not None and p0.deprels is not None
        gold_rel = list(ex.deprels) if labelled else None
        outcome = _counts(ex.heads, gold_rel, ex.xpos, p0, p1, rule)
        a0, l0, a1, l1 = outcome.pop("_errors")
        if other == "ud" or has_xpos:
            outcome.update(_counts(ex.heads, gold_rel, ex.xpos, p0, p1, other, f"_{other}"))
            outcome.pop(f"_errors_{other}")
        outcome.update({"success": a1 > a0 or (labelled and l1 > l0), "edits": len(r.edits), "budget": r.budget,
                        "queries": r.queries, "one": 1})
        out.append(log_entry(uid, input_sha256(ex.words, r.words),
                             {"tokens": list(r.words), "edits": [dict(e) for e in r.edits],
                              "original": {"head": list(p0.heads), "deprel": list(p0.deprels or [])},
                              "adversarial": {"head": list(p1.heads), "deprel": list(p1.deprels or [])}},
                             {"head": list(ex.heads), "deprel": list(ex.deprels or [])}, outcome))
    labelled = all(ex.deprels is not None and r.original_parse.deprels is not None for ex, r in zip(examples, results))
    details = {"rule": rule, "labelled": labelled, "setup": setup,
               "summary": summarise(results, examples), "parser_queries": parser.queries, "parser_calls": parser.calls}
    return EvalOutput(out, details, extras={"attack": attack, "examples": examples, "results": results,
                                            "parser": parser})


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
    plt = pyplot()

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
    plt = pyplot()

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
