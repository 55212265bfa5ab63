"""Adversarial treebanks (Wang et al., 2021): the ``parser-attack`` evaluation, ``robust-bench
attack-parser``, and the paper's tables and plots.

As a transfer set (``robust-bench run``): a built ``adv_*`` config holds sentences attacked against a
reference parser, with their gold trees unchanged. The model under test parses each original and
each attacked sentence; UAS and LAS are scored against the gold tree (punctuation excluded by the
config's rule), and a sentence counts as a success of the transferred attack when its parse gets
worse.

Live (``robust-bench attack-parser``): the attack (Alg. 1) runs against the user's parser and reports

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
from typing import Callable, Sequence

import numpy as np

from robust_bench.evaluations import (EvalOutput, EvaluationError, Metric, input_sha256, log_entry, ratio,
                                      register_evaluation, unit_ids)
from robust_bench.perturb.treebanks import FILTERS
from robust_bench.attacks.treebanks import ParserAttack, TreeExample, make_attack, result_rows, row_features, summarise
from robust_bench.data.repository import write_derived_config
from robust_bench.io.conllu_io import read_conllu, word_forms, write_conllu
from robust_bench.io.fileio import save_figure
from robust_bench.models.lm import CausalLMScorer, DEFAULT_LM
from robust_bench.models.loader import ModelError
from robust_bench.models.resolve import load_model
from robust_bench.results.records import make_record, model_slug, write_record
from robust_bench.scoring import attachment_errors, attachment_mask

__all__ = ["parser_attack", "attack_parser_command", "filter_ablation", "mean_perplexity", "table6", "table4",
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


def _record_ranges(rules: Sequence[str]) -> dict[str, tuple[float, float]]:
    """The command's record names each Table-6 score by its punctuation rule (``uas_original_ud``);
    each is the declared metric of the same name without the rule."""
    out = {"attack_success_rate": parser_attack.metric("success_rate").range}
    for m in parser_attack.metrics:
        out.update({f"{m.name}_{rule}": m.range for rule in rules})
    return out


def attack_parser_command(parser_spec: str, config: str = "adv_ewt", *, limit: int | None = None,
                          mlm: str | None = None, lm: str | None = None, vectors: str | None = None,
                          generators: str = "auto", filters: str = "auto", ablation: bool = True,
                          treebank: str | None = None, train_vocab: str | None = None,
                          export_training: str | Path | None = None, spacy_model: str | None = None,
                          source: str | None = None, seed: int = 0, device: str = "auto", repo: str | Path,
                          output_dir: str | Path, echo: Callable[[str], None] = print) -> list[Path]:
    """``robust-bench attack-parser``: the parser attack of Wang et al. (2021, Alg. 1) on a user's parser.

    Reads the sentences of ``config`` from its source treebank (the builder's own reader), attacks
    them live, prints Tables 6, 4, 7, 2 (and 5 with ``ablation``), writes the attacked sentences as
    the derived config ``adv_<parser>_<config>`` into ``repo``, a v1 record and figures into
    ``output_dir``, and with ``export_training`` the attacked training treebank as CoNLL-U (§4.4).

    Parameters
    ----------
    parser_spec : str
        A parser's model spec: ``spacy:NAME_OR_PATH``, ``stanza:PATH_OR_LANG``,
        ``callable:MODULE:FUNCTION`` (:func:`robust_bench.models.resolve.resolve_model`).
    config : {"adv_ewt", "adv_ptb"}
    limit : int, optional
        Attack only the first N sentences.
    mlm, lm, vectors, generators, filters, spacy_model, seed, device
        The attack's set-up (:func:`robust_bench.attacks.treebanks.make_attack`).
    ablation : bool
        Also rerun with the filters added one by one (Table 5).
    treebank : str, optional
        ``adv_ptb``: a CoNLL-X PTB instead of NLTK's sample.
    train_vocab : str, optional
        The parser's training treebank, for OOT counts (default: EWT train for ``adv_ewt``).
    export_training : path-like, optional
    source : str, optional
        Local mirror of the source corpora.
    repo, output_dir : path-like
    echo : callable

    Returns
    -------
    list of Path
        The record and figures written (and the exported treebank).

    Raises
    ------
    EvaluationError
        An unknown config, or ``export_training`` without a training treebank.
    ModelError, ConlluError, SourceNotFoundError
        A parser or LM that cannot be loaded, a malformed or missing treebank.
    """
    import datasets

    from robust_bench.builders.treebanks import AdversarialTreebank    # a datasets builder: datasets is heavy

    if config not in CONFIGS:
        raise EvaluationError(f"--config must be one of {', '.join(CONFIGS)}, got {config!r}")
    builder = AdversarialTreebank(config_name=config, source_dir=source, limit=limit, treebank=treebank)
    examples = builder.examples(datasets.DownloadManager(dataset_name="robust-bench"))
    parser = load_model(parser_spec, interface="parser").parser()
    attack, setup = make_attack(parser, vectors=vectors, mlm=mlm, lm=lm, tagger_model=spacy_model,
                                generators=generators, filters=filters, seed=seed, device=device,
                                rule="ud" if config == "adv_ewt" else "ptb", frames=train_vocab or builder.frames_path())
    for what, why in setup["unavailable"].items():
        echo(f"note: {what} not used: {why}")
    echo(f"generators: {', '.join(setup['generators'])}; filters: {', '.join(setup['filters'])}")
    results = attack.attack(examples, progress=True)
    train_path = train_vocab or builder.train_path
    train_words = word_forms(train_path) if train_path else None
    summary = summarise(results, examples, train_vocabulary=train_words)
    scorer = next((f.lm for f in attack.filters if f.name == "perplexity"), None)
    if scorer is None:
        try:
            scorer = CausalLMScorer(lm or DEFAULT_LM, device=device)
        except ModelError as exc:
            if lm:
                raise
            echo(f"note: Table 2 (perplexity) left out: {str(exc).splitlines()[0]}")
    ppl = ((mean_perplexity(scorer, [e.words for e in examples]),
            mean_perplexity(scorer, [r.words for r in results])) if scorer is not None else None)
    pname = model_slug(parser.name)
    echo(f"\n{parser.name} on {config} ({len(examples)} sentences), parser queries {parser.queries:,} "
         f"in {parser.calls:,} calls\n")
    echo("Table 6: attachment scores before and after the attack\n" + table6(summary, parser.name) + "\n")
    echo("Table 4: candidates per generator\n" + table4(summary) + "\n")
    echo("Table 7: out-of-vocabulary (parser embeddings) and out-of-training words\n" + table7(summary) + "\n")
    if ppl is not None:
        echo("Table 2 (automatic): perplexity under " + scorer.model_id + "\n" + table2(*ppl) + "\n")
    abl = []
    if ablation:
        abl = filter_ablation(attack, examples, lm=scorer, progress=True)
        echo("Table 5: filter ablation\n" + table5(abl) + "\n")
    name = f"adv_{pname}_{config.removeprefix('adv_')}"
    dataset = datasets.DatasetDict({"test": datasets.Dataset.from_list(result_rows(results, examples),
                                                                       features=row_features())})
    src = builder.source_info
    meta = write_derived_config(
        repo, name, dataset, family="adversarial_treebanks",
        description=f"{config} attacked live against {parser.name} ({parser.revision}) with the attack of Wang et al. "
                    "(2021); gold trees kept, usable as a transfer set.",
        citation=builder.CITATION, license=builder.LICENSE,
        source={"name": src.name, "version": src.version, "license": src.license, "url": src.url}, seed=seed,
        statistics={"test": summary}, provenance={"attack": setup, "source_config": config, **builder.provenance})
    echo(f"adversarial treebank: config {name!r} in {repo}")
    metrics = {"attack_success_rate": summary["success_rate"]}
    for rule, sc in summary["scores"].items():
        for k, v in sc.items():
            metrics[f"{k}_{rule}"] = v / 100
    details = {"setup": setup, "table4": summary["candidates"], "table7": {"oov": summary["oov"], "oot": summary["oot"]},
               "table2": None if ppl is None else {"original": ppl[0], "adversarial": ppl[1]}, "table5": abl,
               "parser_queries": parser.queries, "parser_calls": parser.calls, "adversarial_config": name}
    rec = make_record(model_id=parser_spec, revision=parser.revision, config=config, split="test",
                      corpus_sha256=meta["files"]["test"]["sha256"], metrics=metrics,
                      ranges=_record_ranges(summary["scores"]), seed=seed, details=details)
    output_dir = Path(output_dir)
    written = [write_record(rec, output_dir, tag="attack-parser")]
    echo(f"record: {written[0]}")
    stem = output_dir / f"{pname}__{config}"
    figs = plot_candidates(summary, f"{stem}__candidates", title=f"Candidates per generator, {config}")
    figs += plot_scores({parser.name: summary}, f"{stem}__scores", title=f"{config}: before and after the attack")
    echo("figures: " + ", ".join(str(p) for p in figs))
    written += figs
    if export_training:
        written.append(_export(attack, train_path, limit, export_training, echo))
    return written


def _export(attack, train_path, limit, out, echo) -> Path:
    """§4.4: attack the training treebank too and write its adversarial sentences as CoNLL-U."""
    if not train_path:
        raise EvaluationError("--export-training needs a training treebank: give --parser-train FILE")
    sents = read_conllu(train_path)[:limit] if limit else read_conllu(train_path)
    exs = [TreeExample.from_sentence(s) for s in sents]
    results = attack.attack(exs, progress=True)
    adv = [s.with_forms(r.words) for s, r in zip(sents, results) if r.edits]
    write_conllu(adv, out)
    echo(f"adversarial training sentences: {len(adv):,} of {len(sents):,} written to {out}")
    return Path(out)
