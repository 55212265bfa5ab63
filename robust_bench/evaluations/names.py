"""Named-entity swaps (Balasubramanian et al., 2020, Alg. 1 and Table 3): the ``name-swaps`` and
``coref-name-swaps`` evaluations (which ``robust-bench run`` and ``robust-bench evaluate --config names_*``
run, :func:`robust_bench.suite.command.names_command`), the RESEMBLE defence (§4, Eq. 2) and Table 3's views.

A group is a source example and its B swapped variants (variant 0 is the original); the group is one
example of the log. Every row of a split is predicted once, in one batched call (no input is scored
twice), and reported as the paper does, each quantity a declared metric over the log:

* **original** (``original_f1``): the task F1 on the variant-0 rows;
* **worst / best** (``worst_f1``, ``best_f1``): per group, the swapped variant with the lowest / highest
  per-example score (:func:`robust_bench.scoring.worst_best_rows`), scored as a set (D_worst, D_best);
* **random** (``random_mean_f1``, ``random_sd_f1``, with the task option ``random``): the mean and standard
  deviation of the F1 over the 10 copies of the ``random`` split;
* **stability**: the share of groups whose prediction is the same for the original and all variants.

The task metric is the F1 of the positive class for MRPC (as the paper) and entity F1 (seqeval's
entities) for NER, both 2Σtp / (2Σtp + Σfp + Σfn) over the log's counts; for coreference
(``names_coref``, ``coref-name-swaps``) it is the CoNLL F1 (``original_conll_f1``...; mean of MUC, B³
and CEAFe F1 from their pooled counts, :mod:`robust_bench.scoring.coref`) over the gold clusters of the
swapped entities (§2.3), LEA and the other metrics of the originals in the run's details.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from robust_bench import RobustBenchError
from robust_bench.evaluations import (EvalOutput, EvaluationError, Metric, f1, input_sha256, llm_traces, log_entry,
                                      pair_or_tagger_task_type, ratio, register_evaluation, task_classifier)
from robust_bench.scoring import entity_counts, group_stability, stability_details, worst_best_rows
from robust_bench.data.registry import UnknownConfigError, get_config
from robust_bench.data.repository import built_config
from robust_bench.io.fileio import pyplot, save_figure
from robust_bench.perturb.names import RANDOM_COPIES, mentions_from_tags, span_map_from_edits
from robust_bench.perturb.organisations import SECTORS
from robust_bench.scoring.coref import coref_counts, coref_scores, restrict_to_clusters
from robust_bench.scoring.intervals import Formula, metric_value
from robust_bench.text.nlp import load_spacy, map_entity_label, ner_model_name

__all__ = ["name_swaps", "coref_name_swaps", "conll", "table3_extras", "NameEvalError", "load_name_sets", "score_classifier", "score_tagger", "score_coref",
           "format_table", "Resemble", "resemble_mixture", "canonical_candidates", "choose_canonical_names",
           "entity_kind", "plot_frequency", "plot_spread", "canonical_entities"]


class NameEvalError(RobustBenchError, ValueError):
    """The config is not a built ``names_*`` config, or lacks a split."""


#: the log's field stems of an F1 and of a CoNLL F1 (MUC, B³, CEAFe: recall and precision numerators and
#: denominators, the order of :class:`~robust_bench.scoring.intervals.Formula`'s ``conll_f1``)
_F1_FIELDS = ("tp", "fp", "fn")
_COREF_FIELDS = tuple(f"{m}_{k}" for m in ("muc", "bcub", "ceafe") for k in ("rn", "rd", "pn", "pd"))


def _positive(labels: Sequence[str]) -> int:
    """The positive class of a sentence-pair task, whose F1 is reported (``equivalent`` for MRPC)."""
    return labels.index("equivalent") if "equivalent" in labels else len(labels) - 1


def _rows_scored(rows, preds, *, positive: int | None = None) -> dict[str, list]:
    """Per row of a ``names_*`` split and its predictions: the task metric's (tp, fp, fn) (``fields``
    names them), the per-example score that picks D_worst and D_best (correct for a classifier, the
    sentence's entity F1 for a tagger, 1.0 with no entity on either side), the canonical prediction that
    stability compares, and the prediction and gold label as the log shows them."""
    if "sentence1" in rows.column_names:
        labels = list(rows.features["label"].names)
        positive = _positive(labels) if positive is None else positive
        gold = np.asarray(rows["label"])
        counts = [(int(p == positive and g == positive), int(p == positive and g != positive),
                   int(g == positive and p != positive)) for p, g in zip(preds, gold)]
        return {"fields": _F1_FIELDS, "counts": counts, "score": (np.asarray(preds) == gold).astype(float).tolist(),
                "canon": [int(p) for p in preds], "shown": [labels[p] for p in preds], "gold": [labels[g] for g in gold]}
    names = list(rows.features["ner_tags"].feature.names)
    gold = [[names[t] for t in r] for r in rows["ner_tags"]]
    counts = [entity_counts(g, p) for g, p in zip(gold, preds)]
    n_orig = [len(t) for t in rows["original_tokens"]]
    return {"fields": _F1_FIELDS, "counts": counts,
            "score": [2 * tp / (2 * tp + fp + fn) if (tp + fp + fn) else 1.0 for tp, fp, fn in counts],
            "canon": [canonical_entities(p, e, n) for p, e, n in zip(preds, rows["edits"], n_orig)],
            "shown": list(preds), "gold": gold}


def _members(groups: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        out.setdefault(g, []).append(i)
    return out


def _group_entries(rows, inputs, scored: dict[str, list], clf=None, random: dict | None = None) -> list[dict]:
    """One log line per group: the task metric's counts (``scored["fields"]``) of the original, the worst
    and the best variant, whether the group is stable and counted for stability, and its number of swapped
    variants; with ``random`` (the group's rows of the ``random`` split, :func:`_random_rows`), the counts of
    each random copy c as ``<field>_random_<c>``. For a causal LM ``clf``, each variant's trace in row order."""
    groups, variants = list(rows["group_id"]), list(rows["variant"])
    counts, stems = scored["counts"], scored["fields"]
    worst, best = worst_best_rows(scored["score"], groups, variants)
    stability = group_stability(scored["canon"], groups, variants)
    worst_of = {groups[i]: i for i in worst}
    best_of = {groups[i]: i for i in best}
    out = []
    for g, idx in _members(groups).items():
        orig = next((i for i in idx if variants[i] == 0), None)
        outcome = {}
        for name, i in (("original", orig), ("worst", worst_of.get(g)), ("best", best_of.get(g))):
            outcome.update(zip((f"{f}_{name}" for f in stems), counts[i] if i is not None else (0,) * len(stems)))
        outcome.update({"stable": stability.get(g, False), "counted": g in stability,
                        "variants": sum(variants[i] != 0 for i in idx)})
        seen = [inputs[i] for i in idx]
        if random is not None:
            mine = random["members"].get(g, [])
            for c in range(1, RANDOM_COPIES + 1):
                total = np.zeros(len(stems))
                for j in mine:
                    if random["copies"][j] == c:
                        total += np.asarray(random["scored"]["counts"][j], dtype=np.float64)
                outcome.update({f"{f}_random_{c}": (int(v) if float(v).is_integer() else float(v))
                                for f, v in zip(stems, total)})
            seen += [random["inputs"][j] for j in mine]
        out.append(log_entry(str(g), input_sha256(seen),
                             {"original": scored["shown"][orig] if orig is not None else None,
                              "worst": scored["shown"][worst_of[g]] if g in worst_of else None,
                              "worst_variant": variants[worst_of[g]] if g in worst_of else None},
                             scored["gold"][orig] if orig is not None else None, outcome,
                             llm_traces(clf, [inputs[i] for i in idx]) if clf is not None else None))
    return out


def _inputs(rows) -> list:
    if "sentence1" in rows.column_names:
        return list(zip(rows["sentence1"], rows["sentence2"]))
    if "sentence_starts" in rows.column_names:
        return [(tuple(t), tuple(s)) for t, s in zip(rows["tokens"], rows["sentence_starts"])]
    return [tuple(t) for t in rows["tokens"]]


def _split(repo, config: str, split: str):
    import datasets

    return datasets.load_dataset(str(repo), config, split=split)


def _random_rows(task, rows, repo) -> tuple[Any, dict]:
    """The rows of the config's ``random`` split whose group is one of ``rows``' (the same groups, copies
    1..RANDOM_COPIES), read from ``repo``, and a partial :func:`_group_entries` ``random`` argument.

    Raises
    ------
    EvaluationError
        If the config in ``repo`` has no ``random`` split.
    """
    files = built_config(repo, task.config)["files"]
    if "random" not in files:
        raise EvaluationError(f"task {task.name!r}: option random needs the config's random split; "
                              f"{task.config!r} in {repo} has {sorted(files)}")
    wanted = set(rows["group_id"])
    full = _split(repo, task.config, "random")
    keep = [i for i, g in enumerate(full["group_id"]) if g in wanted]
    sub = full.select(keep)
    return sub, {"members": _members(list(sub["group_id"])), "copies": list(sub["variant"]),
                 "inputs": _inputs(sub), "sha256": files["random"]["sha256"]}


def _predicted(predict, score, task, rows, inputs, repo, details: dict):
    """Predict the task's rows and, with the option ``random``, the random copies of their groups, in one batched
    call; score each (``score(rows, predictions)``). Returns the rows' scores, the :func:`_group_entries` ``random``
    argument (None without the option) and all predictions (the rows' first); ``details`` gains ``random_sha256``."""
    random, extra = None, []
    if task.options.get("random"):
        rrows, random = _random_rows(task, rows, repo)
        extra = random["inputs"]
        details["random_sha256"] = random["sha256"]
    preds = predict(inputs + extra)
    if random is not None:
        random["scored"] = score(rrows, preds[len(inputs):])
    return score(rows, preds[:len(inputs)]), random, preds


def _f1_random(stat: str) -> Formula:
    """The task F1 of each random copy, and their mean or population standard deviation (Table 3)."""
    fields = tuple(f"{f}_random_{c}" for c in range(1, RANDOM_COPIES + 1) for f in _F1_FIELDS)
    return Formula("f1", fields, over=stat)


@register_evaluation(
    name="name-swaps", family="named_entity_swaps",
    metrics=(Metric("original_f1", f1("original")), Metric("worst_f1", f1("worst")), Metric("best_f1", f1("best")),
             Metric("stability", ratio("stable", "counted")),
             Metric("random_mean_f1", _f1_random("mean"), option="random"),
             Metric("random_sd_f1", _f1_random("sd"), higher_is_better=False, range=(0.0, 0.5), option="random")),
    pairs=(("original_f1", "worst_f1"),), robustness=("worst_f1", "best_f1", "stability"),
    hub_task_type=pair_or_tagger_task_type, unit_column="group_id",
    # the swaps of one source example form one group; groups share a cluster where they share a document
    # (a CoNLL-2003 document; MRPC pairs have none: each group its own cluster)
    cluster=lambda rows: ([str(d) for d in rows["document"]] if "document" in rows.column_names
                          else [str(g) for g in rows["group_id"]]),
    title="Named-entity swaps (Balasubramanian et al., 2020)")
def name_swaps(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of a name-swap config, one per group: every row predicted once, in one batched call.

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        A sequence classifier (``names_mrpc``) or a token classifier (``names_conll2003``).
    task
        The suite task. ``options``: ``random`` (also score the config's ``random`` split, the 10
        random-replacement copies of the selected groups, for ``random_mean_f1`` and ``random_sd_f1``:
        Table 3's random row); ``resemble`` (``names_mrpc``: wrap the classifier in RESEMBLE with the M best
        canonical names by validation accuracy, §4), with ``temperature`` (T of Eq. 2, default 2),
        ``annotator_confidence`` (c for an annotator without probabilities, default 0.9) and ``annotator``
        (the spaCy pipeline whose NER types the entities; default :func:`robust_bench.text.nlp.ner_model_name`);
        ``label_map`` (model label -> dataset label).
    rows
        The task's rows (every variant of the selected groups).
    seed, repo
        A causal LM's k-shot demonstrations are drawn with ``seed`` from another split of the config in
        ``repo`` (:func:`~robust_bench.evaluations.task_classifier`); the random copies and RESEMBLE's
        validation pairs are read from ``repo``.
    positions, work
        Unused.

    Returns
    -------
    EvalOutput
        One entry per group: tp/fp/fn of the original, the worst and the best variant, ``stable``,
        ``counted``, ``variants`` (and, with ``random``, ``tp_random_<c>``...). Details: ``rows``, ``groups``
        (and ``random_sha256``, RESEMBLE's ``canonical`` names with their validation accuracies). Extras:
        ``table3`` (:func:`table3_extras`: scores per kind of name, Fig. 1's points) and ``adapter``.

    Raises
    ------
    EvaluationError
        If the rows are neither sentence pairs nor NER rows, RESEMBLE is asked of a tagger, or random
        metrics without the option.
    """
    o = task.options
    details: dict[str, Any] = {}
    if "sentence1" in rows.column_names:
        adapter = task_classifier(model, list(rows.features["label"].names), task, repo, seed, o.get("label_map"))
        if o.get("resemble"):
            adapter, details["resemble"] = _resemble(adapter, task, repo)
    elif "ner_tags" in rows.column_names:
        if o.get("resemble"):
            raise EvaluationError(f"task {task.name!r}: RESEMBLE wraps a sentence-pair classifier (names_mrpc)")
        adapter = model.tagger(list(rows.features["ner_tags"].feature.names), o.get("label_map"))
    else:
        raise EvaluationError(f"task {task.name!r}: name swaps score sentence pairs (names_mrpc) or NER "
                              f"(names_conll2003); {task.config!r} has neither")
    inputs = _inputs(rows)
    scored, random, _ = _predicted(adapter.predict, _rows_scored, task, rows, inputs, repo, details)
    entries = _group_entries(rows, inputs, scored, adapter, random)
    return EvalOutput(entries, {"rows": len(rows), "groups": len(entries), **details},
                      extras={"table3": table3_extras(scored, rows), "adapter": adapter})


def _resemble(adapter, task, repo):
    """RESEMBLE (§4) around ``adapter``: the M = ``options.resemble`` best canonical names by accuracy on the
    config's validation originals, among the replacements its test split uses (:func:`canonical_candidates`)."""
    o = task.options
    m = int(o["resemble"])
    if m < 1:
        raise EvaluationError(f"task {task.name!r}: option resemble must be a positive number of canonical names")
    nlp = load_spacy(ner_model_name(o.get("annotator")), require=("ner",))
    test, validation = _split(repo, task.config, task.split), _split(repo, task.config, "validation")
    ranking = choose_canonical_names(adapter, validation, canonical_candidates(test), nlp, m=m)
    names = [r["name"] for r in ranking[:m]]
    wrapped = Resemble(adapter, names, nlp, temperature=float(o.get("temperature", 2.0)),
                       confidence=float(o.get("annotator_confidence", 0.9)))
    return wrapped, {"m": m, "canonical": names, "ranking": ranking[:max(5, m)],
                     "annotator": f"{nlp.meta.get('name')} {nlp.meta.get('version')}",
                     "temperature": wrapped.temperature, "annotator_confidence": wrapped.confidence}


def table3_extras(scored: dict[str, list], rows) -> dict:
    """What Table 3's view needs beyond the log's metrics: the scores per kind of swapped name (original,
    D_worst, D_best and groups per :func:`entity_kind`) and the (training frequency, score) points of Fig. 1."""
    groups, variants, edits = list(rows["group_id"]), list(rows["variant"]), list(rows["edits"])
    metric = _metric_of(scored)
    return {"by_kind": _by_kind(metric, scored["score"], groups, variants, edits),
            "frequency_points": _frequency_points(scored["score"], variants, edits)}


def conll(prefix: str) -> Formula:
    """The CoNLL F1 over the fields ``muc_rn_<prefix>`` ... ``ceafe_pd_<prefix>`` (pooled sums)."""
    return Formula("conll_f1", tuple(f"{f}_{prefix}" for f in _COREF_FIELDS))


def _conll_random(stat: str) -> Formula:
    fields = tuple(f"{f}_random_{c}" for c in range(1, RANDOM_COPIES + 1) for f in _COREF_FIELDS)
    return Formula("conll_f1", fields, over=stat)


def _scored_clusters(rows) -> list[list[int]]:
    """Per row, the gold clusters it is scored on: a variant's swapped clusters; for an original (which swaps
    nothing), those its group's variants swap, so that the original and its variants are scored on the same
    entities (the swaps keep cluster indices)."""
    groups, variants, swapped = list(rows["group_id"]), list(rows["variant"]), list(rows["swapped_clusters"])
    of_group: dict = defaultdict(set)
    for g, v, keep in zip(groups, variants, swapped):
        if v:
            of_group[g].update(keep)
    return [sorted(of_group[g]) if v == 0 else list(keep) for g, v, keep in zip(groups, variants, swapped)]


def _coref_scored(rows, preds) -> dict[str, list]:
    """As :func:`_rows_scored` for ``names_coref``: per row the MUC, B³ and CEAFe counts over the gold
    clusters of the swapped entities (:func:`robust_bench.scoring.coref.restrict_to_clusters`), the row's
    CoNLL F1 as its score, and as canonical prediction whether the original's clusters, mapped forward
    through the variant's edits, are the variant's."""
    counts, shown, gold = [], [], []
    clusters = list(rows["clusters"])
    for key, resp, keep in zip(clusters, preds, _scored_clusters(rows)):
        k, r = restrict_to_clusters([[tuple(m) for m in c] for c in key], [[tuple(m) for m in c] for c in resp], keep)
        c = coref_counts(k, r)
        counts.append(tuple(float(getattr(c[m], a)) for m in ("muc", "bcub", "ceafe")
                            for a in ("r_num", "r_den", "p_num", "p_den")))
        shown.append([[list(m) for m in cl] for cl in r])
        gold.append([[list(m) for m in cl] for cl in k])
    groups, variants, edits = list(rows["group_id"]), list(rows["variant"]), list(rows["edits"])
    tokens = list(rows["tokens"])
    originals = {g: i for i, (g, v) in enumerate(zip(groups, variants)) if v == 0}
    canon = []
    for i, (g, v) in enumerate(zip(groups, variants)):
        o = originals.get(g)
        if v == 0 or o is None:
            canon.append("ref" if v == 0 else "no original")
            continue
        smap = span_map_from_edits(len(tokens[o]), edits[i])
        moved = sorted(sorted(smap.span(a, b) for a, b in c) for c in preds[o])
        canon.append("ref" if moved == sorted(sorted(tuple(m) for m in c) for c in preds[i]) else f"changed {i}")
    score = [metric_value(conll("x"), {f"{f}_x": np.asarray([c[j]]) for j, f in enumerate(_COREF_FIELDS)})
             for c in counts]
    return {"fields": _COREF_FIELDS, "counts": counts, "score": score, "canon": canon, "shown": shown, "gold": gold}


def _original_metrics(rows, preds) -> dict:
    """MUC, B³, CEAFe, LEA and CoNLL F1 of the originals (variant 0), over the clusters their variants swap."""
    keep, key = _scored_clusters(rows), list(rows["clusters"])
    return coref_scores(restrict_to_clusters([[tuple(m) for m in c] for c in key[i]],
                                             [[tuple(m) for m in c] for c in preds[i]], keep[i])
                        for i, v in enumerate(rows["variant"]) if v == 0)


@register_evaluation(
    name="coref-name-swaps", family="named_entity_swaps",
    metrics=(Metric("original_conll_f1", conll("original")), Metric("worst_conll_f1", conll("worst")),
             Metric("best_conll_f1", conll("best")), Metric("stability", ratio("stable", "counted")),
             Metric("random_mean_conll_f1", _conll_random("mean"), option="random"),
             Metric("random_sd_conll_f1", _conll_random("sd"), higher_is_better=False, range=(0.0, 0.5),
                    option="random")),
    pairs=(("original_conll_f1", "worst_conll_f1"),), robustness=("worst_conll_f1", "best_conll_f1", "stability"),
    hub_task_type="token-classification", unit_column="group_id",
    # a group is a window of a LitBank novel (<novel>/<window>): the windows of one novel are one cluster
    cluster=lambda rows: [str(g).split("/")[0] for g in rows["group_id"]],
    title="Named-entity swaps, coreference (Balasubramanian et al., 2020, §2.3)")
def coref_name_swaps(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of ``names_coref``, one per group (a LitBank document and its swapped variants): every
    document resolved once, scored by the CoNLL F1 (mean of MUC, B³ and CEAFe F1, Pradhan et al., 2012) over
    the gold clusters of the swapped entities (§2.3), pooled over documents.

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        A coreference predictor (``rule-based``, ``fastcoref[:MODEL]`` or system output in CoNLL-2012).
    task
        The suite task; ``options``: ``random`` (as :data:`name_swaps`).
    rows
        ``names_coref`` rows: ``tokens``, ``sentence_starts``, gold ``clusters``, ``swapped_clusters``.
    repo
        The random copies are read from it.
    positions, seed, work
        Unused.

    Returns
    -------
    EvalOutput
        One entry per group: the MUC, B³ and CEAFe counts of the original, the worst and the best variant
        (``muc_rn_original``...), ``stable``, ``counted``, ``variants`` (and per random copy). Details: ``rows``,
        ``groups``, ``original_metrics`` (MUC, B³, CEAFe, LEA and CoNLL F1 of the originals). Extras: ``table3``.

    Raises
    ------
    EvaluationError
        Rows without coreference clusters, or random metrics without the option.
    """
    if "clusters" not in rows.column_names:
        raise EvaluationError(f"task {task.name!r}: coreference name swaps score names_coref rows; {task.config!r} "
                              "has no clusters")
    predictor = model.coref()
    inputs, details = _inputs(rows), {}
    scored, random, preds = _predicted(predictor.predict, _coref_scored, task, rows, inputs, repo, details)
    if any(v == 0 for v in rows["variant"]):
        details["original_metrics"] = _original_metrics(rows, preds)
    entries = _group_entries(rows, inputs, scored, None, random)
    return EvalOutput(entries, {"rows": len(rows), "groups": len(entries), **details},
                      extras={"table3": table3_extras(scored, rows), "adapter": predictor})


def load_name_sets(repo: str | Path, config: str) -> tuple[dict, dict]:
    """The splits of a built ``names_*`` config, and its metadata.

    Raises
    ------
    NameEvalError
        If the config is not a ``names_*`` config.
    robust_bench.data.repository.NotBuiltError
        If it is not built in ``repo``.
    """
    try:
        family = get_config(config).family
    except UnknownConfigError:
        family = None
    if family != "named_entity_swaps":
        raise NameEvalError(f"expected a names_* config (names_mrpc, names_conll2003, names_coref); got {config!r}")
    meta = built_config(repo, config)
    return {sp: _split(repo, config, sp) for sp in meta["files"]}, meta


def _summary(metric, scores_per_row, preds_canon, groups, variants, rows=None) -> dict:
    """Table 3 from per-row scores: ``metric(rows)`` over the originals, D_worst and D_best
    (:func:`robust_bench.scoring.worst_best_rows`), stability
    (:func:`robust_bench.scoring.stability_details`), and with ``rows`` the scores per kind of
    swapped name and the (frequency, score) points of Fig. 1."""
    # a datasets column is lazy (each index reads the Arrow table): read each column once
    groups, variants = list(groups), list(variants)
    worst, best = worst_best_rows(scores_per_row, groups, variants)
    original = [i for i, v in enumerate(variants) if v == 0]
    out = {"original": metric(original), "worst": metric(worst), "best": metric(best),
           "random_mean": float("nan"), "random_std": float("nan")}
    st = stability_details(preds_canon, groups, variants)
    out.update({"stability": st["stability"], "groups": st["groups"], "variants": len(variants) - len(original)})
    if rows is not None:
        edits = list(rows["edits"])
        out["by_kind"] = _by_kind(metric, scores_per_row, groups, variants, edits)
        out["frequency_points"] = _frequency_points(scores_per_row, variants, edits)
    return out


def entity_kind(edits) -> str | None:
    """The kind of name a variant swaps: its entity type, split for ORG into ``ORG company`` (a company
    of any sector or industry: the roles of :data:`robust_bench.perturb.organisations.SECTORS` and
    ``industry:<group>``), ``ORG <institution kind>`` (``ORG court``, ``ORG university``...) and ``ORG
    mixed``; ``None`` without an edit."""
    kinds = set()
    for e in edits:
        if e["role"] in ("possessive", "article"):
            continue
        company = e["role"] in SECTORS or e["role"].startswith("industry:") or e["role"] == "organisation"
        kinds.add(e["type"] if e["type"] != "ORG" else "ORG company" if company else f"ORG {e['role']}")
    if not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()
    types = {k.split()[0] for k in kinds}
    return f"{types.pop()} mixed" if len(types) == 1 else "mixed"


def _by_kind(metric, scores_per_row, groups, variants, edits) -> dict[str, dict]:
    """Original, D_worst and D_best over the groups of each :func:`entity_kind` (the kind of a group
    is that of its variants' edits, the most frequent one where variants differ)."""
    votes: dict = defaultdict(Counter)
    for g, v, e in zip(groups, variants, edits):
        k = entity_kind(e) if v else None
        if k:
            votes[g][k] += 1
    kind_of = {g: c.most_common(1)[0][0] for g, c in votes.items()}
    out = {}
    for kind in sorted(set(kind_of.values())):
        idx = [i for i, g in enumerate(groups) if kind_of.get(g) == kind]
        sub_w, sub_b = worst_best_rows([scores_per_row[i] for i in idx], [groups[i] for i in idx],
                                       [variants[i] for i in idx])
        orig = [i for i in idx if variants[i] == 0]
        out[kind] = {"original": metric(orig), "worst": metric([idx[j] for j in sub_w]),
                     "best": metric([idx[j] for j in sub_b]), "groups": len({groups[i] for i in idx})}
    return out


def _frequency_points(scores_per_row, variants, edits) -> list[tuple[int, float]]:
    """(training-data frequency of a replacement name, score of the variant) per distinct
    replacement of each swapped variant, where the corpus records frequencies (``train_count`` >= 0)."""
    out = []
    for sc, v, es in zip(scores_per_row, variants, edits):
        if not v:
            continue
        seen = set()
        for e in es:
            c = e.get("train_count", -1)
            if e["role"] not in ("possessive", "article") and c is not None and c >= 0 and e["replacement"] not in seen:
                seen.add(e["replacement"])
                out.append((int(c), float(sc)))
    return out


def _metric_of(scored: dict[str, list]) -> Callable[[Sequence[int]], float]:
    """The task metric over a subset of rows, from their counts: the evaluation's own formula (F1,
    2Σtp / (2Σtp + Σfp + Σfn), 0 without a true positive; or the CoNLL F1 of the pooled coreference
    counts); NaN for no row."""
    fields = scored["fields"]
    c = np.asarray(scored["counts"], dtype=np.float64).reshape(-1, len(fields))
    cols = {f"{f}_x": c[:, j] for j, f in enumerate(fields)}
    formula = f1("x") if tuple(fields) == _F1_FIELDS else conll("x")

    def value(idx):
        idx = np.asarray(list(idx), dtype=int)
        return metric_value(formula, cols, idx) if len(idx) else float("nan")
    return value


def _table3(rows, scored, random_rows=None, random_scored=None) -> dict[str, Any]:
    out = _summary(_metric_of(scored), scored["score"], scored["canon"], rows["group_id"], rows["variant"], rows)
    if random_rows is not None:
        metric = _metric_of(random_scored)
        rv = np.asarray(random_rows["variant"])
        vals = [metric(np.where(rv == c)[0]) for c in sorted(set(rv.tolist()))]
        out["random_mean"], out["random_std"] = float(np.mean(vals)), float(np.std(vals))
    return out


def _scores(rows, preds, random_rows=None, random_preds=None, *, positive: int | None = None) -> dict[str, Any]:
    return _table3(rows, _rows_scored(rows, preds, positive=positive), random_rows,
                   None if random_rows is None else _rows_scored(random_rows, random_preds, positive=positive))


def score_classifier(clf, rows, random_rows=None, *, positive: int | None = None) -> dict[str, Any]:
    """Table-3 scores of a sequence classifier on ``names_mrpc`` rows.

    Parameters
    ----------
    clf : robust_bench.models.classifiers.Classifier
    rows : datasets.Dataset
        The ``test`` (or ``validation``) split: variant 0 and B swapped variants per group.
    random_rows : datasets.Dataset, optional
        The ``random`` split (10 copies, ``variant`` = copy number).
    positive : int, optional
        Index of the positive class, whose F1 is reported (default: ``equivalent`` for MRPC, else
        the last label, as :func:`name_swaps` picks it).

    Returns
    -------
    dict
        ``original``, ``worst``, ``best``, ``random_mean``, ``random_std`` (F1 of the positive
        class, in [0, 1]), ``accuracy_original``, ``stability``, ``groups``, ``variants``,
        ``by_kind``, ``frequency_points``, ``queries``.
    """
    inputs = _inputs(rows)
    extra = _inputs(random_rows) if random_rows is not None else []
    preds_all = clf.predict(inputs + extra)
    out = _scores(rows, preds_all[:len(inputs)], random_rows, preds_all[len(inputs):], positive=positive)
    orig = np.asarray(rows["variant"]) == 0
    out["accuracy_original"] = float((preds_all[:len(inputs)] == np.asarray(rows["label"]))[orig].mean())
    out["queries"] = clf.queries
    return out


def canonical_entities(tags: Sequence[str], edits, n_original: int) -> str:
    """Predicted entity spans of a row, in the original's coordinates, as a canonical string."""
    ents = [(m.start, m.end, m.type) for m in mentions_from_tags(tags)]
    if edits:
        smap = span_map_from_edits(n_original, edits)
        back = {}
        for i in range(n_original):
            a, b = smap.token(i)
            for j in range(a, b):
                back.setdefault(j, i)
        ents = [(back.get(a, -1), (back.get(b - 1, -2) + 1), t) for a, b, t in ents]
    return json.dumps(sorted(ents))


def score_tagger(tagger, rows, random_rows=None) -> dict[str, Any]:
    """Table-3 scores of a tagger on ``names_conll2003``: entity F1 (seqeval's entities, pooled
    counts) on the original, D_worst, D_best and the random copies; the per-example score that
    picks the worst and best variant is the sentence's entity F1.

    Returns
    -------
    dict
        As :func:`score_classifier` (without ``accuracy_original``), with entity F1 in [0, 1].
    """
    sents = _inputs(rows)
    rsents = _inputs(random_rows) if random_rows is not None else []
    pred_all = tagger.predict(sents + rsents)
    out = _scores(rows, pred_all[:len(sents)], random_rows, pred_all[len(sents):])
    out["queries"] = tagger.queries
    return out


def score_coref(predictor, rows, random_rows=None) -> dict[str, Any]:
    """Table-3 scores of a coreference predictor on ``names_coref``: CoNLL F1 (and MUC, B³,
    CEAFe, LEA) over the gold clusters of the swapped entities, pooled over documents.

    Returns
    -------
    dict
        As :func:`score_classifier` (CoNLL F1 in [0, 1]), plus ``metrics_original`` with every metric.
    """
    preds = predictor.predict(_inputs(rows))
    scored = _coref_scored(rows, preds)
    rscored = _coref_scored(random_rows, predictor.predict(_inputs(random_rows))) if random_rows is not None else None
    out = _table3(rows, scored, random_rows, rscored)
    out["metrics_original"] = _original_metrics(rows, preds)
    out["queries"] = predictor.queries
    return out


def format_table(scores: dict[str, Any], *, title: str, metric: str) -> str:
    """Table 3 as text: original, worst, best, random (mean ± sd, when scored) and stability, in percent."""
    lines = [title, f"  {'set':<12} {metric:>10}"]
    for key, name in (("original", "original"), ("worst", "D_worst"), ("best", "D_best")):
        lines.append(f"  {name:<12} {100 * scores[key]:>10.2f}")
    if np.isfinite(scores.get("random_mean", float("nan"))):     # scored only with the random copies
        lines.append(f"  {'random':<12} {100 * scores['random_mean']:>10.2f} ± {100 * scores['random_std']:.2f}")
    lines.append(f"  {'stability':<12} {100 * scores['stability']:>10.2f}   ({scores['groups']} groups, "
                 f"{scores['variants']} variants)")
    return "\n".join(lines)


def resemble_mixture(p_original, p_canonical, *, temperature: float, confidence: float, typed=None):
    """RESEMBLE's revised distribution, Eq. 2 of Balasubramanian et al. (2020, §4), as published::

        P_R(y | x, ẑ) ∝ (1 − c) · P_T(y | x) + c · (P_T(y | x) · Π_m P(y | x_m)) ^ (1 / (M + 1))

    with P_T the temperature-scaled prediction on the original, P_T(y | x) ∝ P(y | x) ^ (1/T), the
    M canonical predictions P(y | x_m) not scaled ("we do not apply temperature scaling to the
    predictions from the canonical entries"), c = P(z = ẑ | x) the type annotator's confidence, and
    the result normalised over y. An input in which the annotator finds no entity of the type has no
    x_m: its distribution is the model's own, P(y | x).

    Parameters
    ----------
    p_original : array, shape (n, n_labels)
        P(y | x), rows summing to 1.
    p_canonical : array, shape (n, M, n_labels)
        P(y | x_m) for each canonical name m.
    temperature : float, > 0
    confidence : float, in [0, 1]
    typed : array of bool, shape (n,), optional
        Whether the annotator found an entity of the type in each input (default: all).

    Returns
    -------
    array, shape (n, n_labels)
        Rows summing to 1.
    """
    p = np.clip(np.asarray(p_original, dtype=np.float64), 1e-12, 1.0)
    q = np.clip(np.asarray(p_canonical, dtype=np.float64), 1e-12, 1.0)
    m = q.shape[1]
    logit = np.log(p) / temperature
    p_t = np.exp(logit - logit.max(axis=1, keepdims=True))
    p_t /= p_t.sum(axis=1, keepdims=True)
    geometric = np.exp((np.log(p_t) + np.log(q).sum(axis=1)) / (m + 1))
    mixed = (1.0 - confidence) * p_t + confidence * geometric
    mixed /= mixed.sum(axis=1, keepdims=True)
    if typed is not None:
        keep = ~np.asarray(typed, dtype=bool)
        mixed[keep] = np.asarray(p_original, dtype=np.float64)[keep]
    return mixed


class Resemble:
    """RESEMBLE (Balasubramanian et al., 2020, §4, Eq. 2) around any classifier adapter.

    The typed entities of the input are replaced by each of M canonical names, and the model's
    predictions on the M rewritten inputs are combined with its temperature-scaled prediction on the
    original by Eq. 2 (:func:`resemble_mixture`): a mixture, by the type annotator's confidence
    c = P(z = ẑ | x), of the scaled prediction and the geometric mean of it and the M canonical
    predictions, normalised.

    Parameters
    ----------
    base : Classifier
    canonical : sequence of str
        The M canonical names (see :func:`choose_canonical_names`).
    nlp : spaCy Language
        The type annotator (its NER).
    types : tuple of str
        Entity types rewritten.
    temperature : float
        T (the paper fixes 2 on validation).
    confidence : float
        c where the annotator gives no probability (spaCy NER), recorded in the result.

    Notes
    -----
    With several entities in one input, entity j of member m takes canonical name (m + j) mod M,
    so distinct entities never merge. Sentence pairs are classified as a whole, so the paper's
    span-level agreement for variable-length entities (used for its token-level tasks) does not
    arise.

    Raises
    ------
    ValueError
        With no canonical name, c outside [0, 1] or T <= 0.
    """

    def __init__(self, base, canonical: Sequence[str], nlp, *, types=("ORG",), temperature: float = 2.0,
                 confidence: float = 0.9):
        if not canonical:
            raise ValueError("RESEMBLE needs at least one canonical name")
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {confidence}")
        if temperature <= 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        self.base, self.canonical, self.nlp = base, list(canonical), nlp
        self.types, self.temperature, self.confidence = tuple(types), float(temperature), float(confidence)
        self.labels = base.labels
        self._docs: dict = {}       # the annotator runs once per sentence, not once per member

    @property
    def queries(self) -> int:
        return self.base.queries

    def rewrite(self, pair: tuple[str, str], member: int) -> tuple[str, ...]:
        """The pair with its typed entities replaced by the canonical names of ``member``."""
        todo = [t for t in pair if t not in self._docs]
        self._docs.update(zip(todo, self.nlp.pipe(todo)))
        docs = [self._docs[t] for t in pair]
        out = []
        names: dict[str, str] = {}
        for d in docs:
            text, last = [], 0
            for e in d.ents:
                if map_entity_label(e.label_) not in self.types:
                    continue
                key = e.text.lower()
                if key not in names:
                    names[key] = self.canonical[(member + len(names)) % len(self.canonical)]
                text.append(d.text[last:e.start_char] + names[key])
                last = e.end_char
            text.append(d.text[last:])
            out.append("".join(text))
        return tuple(out)

    def predict_proba(self, inputs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Probabilities of shape (n_inputs, n_labels) by Eq. 2; every rewritten input is
        batched into one call of the base classifier."""
        m = len(self.canonical)
        rewritten = [self.rewrite(x, k) for x in inputs for k in range(m)]
        typed = [any(rewritten[i * m + k] != tuple(x) for k in range(m)) for i, x in enumerate(inputs)]
        p_orig = self.base.predict_proba(list(inputs))
        p_rew = self.base.predict_proba(rewritten).reshape(len(inputs), m, -1)
        return resemble_mixture(p_orig, p_rew, temperature=self.temperature, confidence=self.confidence, typed=typed)

    def predict(self, inputs) -> np.ndarray:
        return self.predict_proba(inputs).argmax(axis=1)


def canonical_candidates(rows, *, entity_type: str = "ORG", n: int = 20) -> list[str]:
    """RESEMBLE's candidate canonical names: the replacements of ``entity_type`` a built split
    uses, most used first (at most ``n``)."""
    c = Counter(e["replacement"].removeprefix("the ").removeprefix("The ")
                for es in rows["edits"] for e in es if e["type"] == entity_type and e["role"] != "article")
    return [name for name, _ in c.most_common(n)]


def choose_canonical_names(base, rows, candidates: Sequence[str], nlp, *, m: int, types=("ORG",)) -> list[dict]:
    """Rank candidate canonical names by validation accuracy (§4): every typed entity of the
    original validation pairs is replaced by the candidate, and the M best are kept.

    Returns
    -------
    list of dict
        ``{"name", "accuracy"}`` for every candidate, best first; take the first ``m``.
    """
    originals = [i for i, v in enumerate(rows["variant"]) if v == 0]
    pairs = [(rows[i]["sentence1"], rows[i]["sentence2"]) for i in originals]
    gold = np.asarray([rows[i]["label"] for i in originals])
    ranking = []
    for name in candidates:
        one = Resemble(base, [name], nlp, types=types)
        preds = base.predict([one.rewrite(p, 0) for p in pairs])
        ranking.append({"name": name, "accuracy": float((preds == gold).mean())})
    ranking.sort(key=lambda r: (-r["accuracy"], r["name"]))
    return ranking


def plot_frequency(points: Sequence[tuple[int, float]], out_stem: str | Path, *, title: str,
                   ylabel: str = "score of the variant") -> list[Path]:
    """Score against the replacement name's frequency in the training data (the paper's Fig. 1):
    variants binned by frequency (0, 1, 2-4, 5-9, 10-49, 50-99, >= 100), mean score per bin with
    its 95% confidence interval (normal approximation) and the number of points.

    Parameters
    ----------
    points : sequence of (int, float)
        (frequency, score) pairs, as ``scores["frequency_points"]``.
    out_stem : path-like
        Written as ``<stem>.png`` and ``<stem>.svg``.

    Raises
    ------
    ValueError
        If ``points`` is empty (the corpus records no training frequency, as ``names_coref``).
    """
    plt = pyplot()

    if not len(points):
        raise ValueError("no (frequency, score) points: the corpus records no training-data frequency")
    freq = np.asarray([p[0] for p in points])
    sc = np.asarray([p[1] for p in points], dtype=float)
    edges = [0, 1, 2, 5, 10, 50, 100, 10 ** 9]
    xs, ys, errs, ns = [], [], [], []
    for a, b in zip(edges, edges[1:]):
        sel = (freq >= a) & (freq < b)
        if sel.any():
            xs.append(f"{a}" if b == a + 1 else f"{a}-{b - 1}" if b < 10 ** 9 else f"≥{a}")
            ys.append(float(sc[sel].mean()))
            errs.append(float(1.96 * sc[sel].std(ddof=1) / np.sqrt(sel.sum())) if sel.sum() > 1 else 0.0)
            ns.append(int(sel.sum()))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(range(len(xs)), ys, yerr=errs, color="#4c72b0", capsize=3)
    ax.set_xticks(range(len(xs)), xs)
    for k, n in enumerate(ns):
        ax.text(k, 0.02, f"n={n}", ha="center", va="bottom", fontsize=7, color="white")
    ax.set_xlabel("frequency of the replacement name in the training data")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    fig.tight_layout()
    paths = save_figure(fig, out_stem)
    plt.close(fig)
    return paths


def plot_spread(results: dict[str, dict], out_stem: str | Path, *, title: str, metric: str,
                min_groups: int = 10) -> list[Path]:
    """The worst/best spread per entity kind: for each kind of swapped name (``scores["by_kind"]``)
    with at least ``min_groups`` groups, and for all groups, one bar per scored system (plain,
    RESEMBLE M=...) from D_worst to D_best with the original score ticked, in percent.

    Parameters
    ----------
    results : dict of str to dict
        System name to the scores of :func:`score_classifier` / :func:`score_tagger` / :func:`score_coref`.
    out_stem : path-like
        Written as ``<stem>.png`` and ``<stem>.svg``.
    min_groups : int
        Kinds with fewer groups are left out of the figure (their scores stay in the records).
    """
    plt = pyplot()

    kinds = sorted({k for sc in results.values() for k, v in sc.get("by_kind", {}).items()
                    if v["groups"] >= min_groups})
    blocks = [(f"{k} ({next(iter(results.values()))['by_kind'].get(k, {}).get('groups', 0)})",
               {n: sc["by_kind"].get(k) for n, sc in results.items()}) for k in kinds]
    if len(kinds) != 1:
        blocks.append((f"all ({next(iter(results.values()))['groups']})", dict(results)))
    colours = dict(zip(results, ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"]))
    n_sys = len(results)
    fig, ax = plt.subplots(figsize=(6.5, 0.32 * len(blocks) * (n_sys + 1) + 1.4))
    ticks, labels = [], []
    y = 0
    for label, by_sys in blocks:
        ticks.append(y + (n_sys - 1) / 2)
        labels.append(label)
        for name, v in by_sys.items():
            if v is not None:
                lo, hi, orig = 100 * v["worst"], 100 * v["best"], 100 * v["original"]
                ax.plot([lo, max(hi, lo + 0.3)], [y, y], color=colours[name], lw=6, solid_capstyle="butt", alpha=0.7,
                        label=name if label == blocks[0][0] else None)
                ax.plot([orig], [y], marker="|", color="black", ms=10, mew=2)
            y += 1
        y += 1
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"{metric} (%): bar from D_worst to D_best, tick at the original")
    ax.set_title(title + (f" (kinds with >= {min_groups} groups)" if len(blocks) > 1 else ""), fontsize=10)
    if n_sys > 1:
        ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    paths = save_figure(fig, out_stem)
    plt.close(fig)
    return paths
