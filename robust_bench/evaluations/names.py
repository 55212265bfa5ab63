"""Named-entity swaps (Balasubramanian et al., 2020, Alg. 1 and Table 3): the ``name-swaps``
evaluation, ``robust-bench evaluate --config names_*``, and the RESEMBLE defence (§4, Eq. 2).

A group is a source example and its B swapped variants (variant 0 is the original); the group is one
example of the log. Every row of a split is predicted once, in one batched call (no input is scored
twice), and reported as the paper does:

* **original**: the task F1 on the variant-0 rows;
* **worst / best**: per group, the swapped variant with the lowest / highest per-example score
  (:func:`robust_bench.scoring.worst_best_rows`), scored as a set (D_worst, D_best);
* **random**: the mean and standard deviation over the 10 copies of the ``random`` split;
* **stability**: the share of groups whose prediction is the same for the original and all variants.

The task metric is the F1 of the positive class for MRPC (as the paper) and entity F1 (seqeval's
entities) for NER, both 2Σtp / (2Σtp + Σfp + Σfn) over the log's counts (the evaluation's declared
formulas, which ``robust-bench run`` uses too); for coreference it is MUC, B³, CEAFe, CoNLL F1 and
LEA over the gold clusters of the swapped entities, pooled over documents
(:mod:`robust_bench.scoring.coref`), which the suites do not score.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from robust_bench import RobustBenchError
from robust_bench.evaluations import (CommandTask, EvalOutput, EvaluationError, Metric, f1, input_sha256, llm_traces, log_entry,
                                      pair_or_tagger_task_type, ratio, register_evaluation, task_classifier)
from robust_bench.scoring import entity_counts, group_stability, stability_details, worst_best_rows
from robust_bench.data.registry import UnknownConfigError, get_config
from robust_bench.data.repository import built_config
from robust_bench.io.fileio import save_figure
from robust_bench.models.resolve import load_model
from robust_bench.perturb.names import mentions_from_tags, span_map_from_edits
from robust_bench.perturb.organisations import SECTORS
from robust_bench.results.records import make_record, model_slug, write_record
from robust_bench.scoring.coref import coref_scores, restrict_to_clusters
from robust_bench.scoring.intervals import metric_value
from robust_bench.text.nlp import load_spacy, map_entity_label, ner_model_name

__all__ = ["name_swaps", "NameEvalError", "load_name_sets", "score_classifier", "score_tagger", "score_coref",
           "format_table", "Resemble", "resemble_mixture", "canonical_candidates", "choose_canonical_names",
           "entity_kind", "plot_frequency", "plot_spread", "canonical_entities", "evaluate_name_swaps"]


class NameEvalError(RobustBenchError, ValueError):
    """The config is not a built ``names_*`` config, or lacks a split."""


def _positive(labels: Sequence[str]) -> int:
    """The positive class of a sentence-pair task, whose F1 is reported (``equivalent`` for MRPC)."""
    return labels.index("equivalent") if "equivalent" in labels else len(labels) - 1


def _rows_scored(rows, preds, *, positive: int | None = None) -> dict[str, list]:
    """Per row of a ``names_*`` split and its predictions: the task metric's (tp, fp, fn), the
    per-example score that picks D_worst and D_best (correct for a classifier, the sentence's entity
    F1 for a tagger, 1.0 with no entity on either side), the canonical prediction that stability
    compares, and the prediction and gold label as the log shows them."""
    if "sentence1" in rows.column_names:
        labels = list(rows.features["label"].names)
        positive = _positive(labels) if positive is None else positive
        gold = np.asarray(rows["label"])
        counts = [(int(p == positive and g == positive), int(p == positive and g != positive),
                   int(g == positive and p != positive)) for p, g in zip(preds, gold)]
        return {"counts": counts, "score": (np.asarray(preds) == gold).astype(float).tolist(),
                "canon": [int(p) for p in preds], "shown": [labels[p] for p in preds], "gold": [labels[g] for g in gold]}
    names = list(rows.features["ner_tags"].feature.names)
    gold = [[names[t] for t in r] for r in rows["ner_tags"]]
    counts = [entity_counts(g, p) for g, p in zip(gold, preds)]
    n_orig = [len(t) for t in rows["original_tokens"]]
    return {"counts": counts, "score": [2 * tp / (2 * tp + fp + fn) if (tp + fp + fn) else 1.0 for tp, fp, fn in counts],
            "canon": [canonical_entities(p, e, n) for p, e, n in zip(preds, rows["edits"], n_orig)],
            "shown": list(preds), "gold": gold}


def _group_entries(rows, inputs, scored: dict[str, list], clf=None) -> list[dict]:
    """One log line per group: tp/fp/fn of the original, the worst and the best variant, whether the
    group is stable and counted for stability, and its number of swapped variants (and, for a causal LM
    ``clf``, each variant's trace in row order)."""
    groups, variants = list(rows["group_id"]), list(rows["variant"])
    counts = scored["counts"]
    worst, best = worst_best_rows(scored["score"], groups, variants)
    stability = group_stability(scored["canon"], groups, variants)
    worst_of = {groups[i]: i for i in worst}
    best_of = {groups[i]: i for i in best}
    members: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    out = []
    for g, idx in members.items():
        orig = next((i for i in idx if variants[i] == 0), None)
        o = dict(zip(("tp_original", "fp_original", "fn_original"), counts[orig] if orig is not None else (0, 0, 0)))
        w = dict(zip(("tp_worst", "fp_worst", "fn_worst"), counts[worst_of[g]] if g in worst_of else (0, 0, 0)))
        b = dict(zip(("tp_best", "fp_best", "fn_best"), counts[best_of[g]] if g in best_of else (0, 0, 0)))
        out.append(log_entry(str(g), input_sha256([inputs[i] for i in idx]),
                             {"original": scored["shown"][orig] if orig is not None else None,
                              "worst": scored["shown"][worst_of[g]] if g in worst_of else None,
                              "worst_variant": variants[worst_of[g]] if g in worst_of else None},
                             scored["gold"][orig] if orig is not None else None,
                             {**o, **w, **b, "stable": stability.get(g, False), "counted": g in stability,
                              "variants": sum(variants[i] != 0 for i in idx)},
                             llm_traces(clf, [inputs[i] for i in idx]) if clf is not None else None))
    return out


def _inputs(rows) -> list:
    if "sentence1" in rows.column_names:
        return list(zip(rows["sentence1"], rows["sentence2"]))
    return [tuple(t) for t in rows["tokens"]]


@register_evaluation(
    name="name-swaps", family="named_entity_swaps",
    metrics=(Metric("original_f1", f1("original")), Metric("worst_f1", f1("worst")), Metric("best_f1", f1("best")),
             Metric("stability", ratio("stable", "counted"))),
    pairs=(("original_f1", "worst_f1"),), robustness=("worst_f1", "best_f1", "stability"),
    hub_task_type=pair_or_tagger_task_type, unit_column="group_id",
    # the swaps of one source example form one group; groups share a cluster where they share a document
    # (a CoNLL-2003 document; a LitBank novel, whose windows are <novel>/<window>)
    cluster=lambda rows: ([str(d).split("/")[0] for d in rows["document"]] if "document" in rows.column_names
                          else [str(g) for g in rows["group_id"]]),
    title="Named-entity swaps (Balasubramanian et al., 2020)")
def name_swaps(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of a name-swap config, one per group: every row predicted once, in one batched call.

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        A sequence classifier (``names_mrpc``) or a token classifier (``names_conll2003``).
    task, rows
        The suite task and its rows (every variant of the selected groups).
    seed, repo
        A causal LM's k-shot demonstrations are drawn with ``seed`` from another split of the config in
        ``repo`` (:func:`~robust_bench.evaluations.task_classifier`); other models do not use them.
    positions, work
        Unused.

    Returns
    -------
    EvalOutput
        One entry per group: tp/fp/fn of the original, the worst and the best variant, ``stable``,
        ``counted`` and ``variants``.

    Raises
    ------
    EvaluationError
        If the rows are neither sentence pairs nor NER rows.
    """
    if "sentence1" in rows.column_names:
        adapter = task_classifier(model, list(rows.features["label"].names), task, repo, seed)
    elif "ner_tags" in rows.column_names:
        adapter = model.tagger(list(rows.features["ner_tags"].feature.names))
    else:
        raise EvaluationError(f"task {task.name!r}: name swaps score sentence pairs (names_mrpc) or NER "
                              f"(names_conll2003); {task.config!r} has neither")
    inputs = _inputs(rows)
    entries = _group_entries(rows, inputs, _rows_scored(rows, adapter.predict(inputs)), adapter)
    return EvalOutput(entries, {"rows": len(rows), "groups": len(entries)})


def load_name_sets(repo: str | Path, config: str) -> tuple[dict, dict]:
    """The splits of a built ``names_*`` config, and its metadata.

    Raises
    ------
    NameEvalError
        If the config is not a ``names_*`` config.
    robust_bench.data.repository.NotBuiltError
        If it is not built in ``repo``.
    """
    import datasets

    try:
        family = get_config(config).family
    except UnknownConfigError:
        family = None
    if family != "named_entity_swaps":
        raise NameEvalError(f"expected a names_* config (names_mrpc, names_conll2003, names_coref); got {config!r}")
    meta = built_config(repo, config)
    return {sp: datasets.load_dataset(str(repo), config, split=sp) for sp in meta["files"]}, meta


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


def _f1_of(counts: Sequence[tuple[int, int, int]]) -> Callable[[Sequence[int]], float]:
    """The task F1 over a subset of rows, from their (tp, fp, fn): the evaluation's own formula
    (``original_f1``, 2Σtp / (2Σtp + Σfp + Σfn), 0 without a true positive); NaN for no row."""
    c = np.asarray(counts, dtype=np.float64).reshape(-1, 3)
    cols = {"tp_original": c[:, 0], "fp_original": c[:, 1], "fn_original": c[:, 2]}
    formula = name_swaps.metric("original_f1").formula

    def value(idx):
        idx = np.asarray(list(idx), dtype=int)
        return metric_value(formula, cols, idx) if len(idx) else float("nan")
    return value


def _scores(rows, preds, random_rows=None, random_preds=None, *, positive: int | None = None) -> dict[str, Any]:
    scored = _rows_scored(rows, preds, positive=positive)
    out = _summary(_f1_of(scored["counts"]), scored["score"], scored["canon"], rows["group_id"], rows["variant"], rows)
    if random_rows is not None:
        metric = _f1_of(_rows_scored(random_rows, random_preds, positive=positive)["counts"])
        rv = np.asarray(random_rows["variant"])
        vals = [metric(np.where(rv == c)[0]) for c in sorted(set(rv.tolist()))]
        out["random_mean"], out["random_std"] = float(np.mean(vals)), float(np.std(vals))
    return out


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

    def predict(ds):
        return predictor.predict([(t, s) for t, s in zip(ds["tokens"], ds["sentence_starts"])])

    preds = predict(rows)
    rpreds = predict(random_rows) if random_rows is not None else []

    def pairs(ds, pr, idx):
        out = []
        for i in idx:
            key = [[tuple(m) for m in c] for c in ds[i]["clusters"]]
            resp = [[tuple(m) for m in c] for c in pr[i]]
            out.append(restrict_to_clusters(key, resp, ds[i]["swapped_clusters"]))
        return out

    def conll(idx, ds=rows, pr=preds):
        idx = list(idx)
        return coref_scores(pairs(ds, pr, idx))["conll_f1"] if idx else float("nan")

    per_row = [conll([i]) for i in range(len(rows))]
    # canonical prediction: the original's clusters mapped forward must equal the variant's
    originals = {g: i for i, (g, v) in enumerate(zip(rows["group_id"], rows["variant"])) if v == 0}
    canon = []
    for i in range(len(rows)):
        r = rows[i]
        if r["variant"] == 0:
            canon.append("ref")
            continue
        o = originals.get(r["group_id"])
        if o is None:
            canon.append("no original")
            continue
        smap = span_map_from_edits(len(rows[o]["tokens"]), r["edits"])
        moved = sorted(sorted(smap.span(a, b) for a, b in c) for c in preds[o])
        canon.append("ref" if moved == sorted(sorted(tuple(m) for m in c) for c in preds[i]) else f"changed {i}")
    out = _summary(conll, per_row, canon, rows["group_id"], rows["variant"], rows)
    if random_rows is not None:
        rv = np.asarray(random_rows["variant"])
        vals = [conll(np.where(rv == c)[0], random_rows, rpreds) for c in sorted(set(rv.tolist()))]
        out["random_mean"], out["random_std"] = float(np.mean(vals)), float(np.std(vals))
    orig_idx = [i for i, v in enumerate(rows["variant"]) if v == 0]
    out["metrics_original"] = coref_scores(pairs(rows, preds, orig_idx))
    out["queries"] = predictor.queries
    return out


def format_table(scores: dict[str, Any], *, title: str, metric: str) -> str:
    """Table 3 as text: original, worst, best, random (mean ± sd) and stability, in percent."""
    lines = [title, f"  {'set':<12} {metric:>10}"]
    for key, name in (("original", "original"), ("worst", "D_worst"), ("best", "D_best")):
        lines.append(f"  {name:<12} {100 * scores[key]:>10.2f}")
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


#: The record of ``robust-bench evaluate --config names_*`` names Table 3's rows; each is the
#: declared metric it reports, or a mean and deviation of one over the random copies.
_RECORD_METRICS = {"original": "original_f1", "worst": "worst_f1", "best": "best_f1", "random_mean": "original_f1",
                   "random_std": "original_f1", "stability": "stability"}


def evaluate_name_swaps(*, config: str, model: str | None = None, spacy_model: str | None = None,
                        predictor: str | None = None, resemble: str | None = None, temperature: float = 2.0,
                        confidence: float = 0.9, label_map: dict | None = None, device: str = "auto",
                        dtype: str = "auto", batch_size: int = 64, repo: str | Path, output_dir: str | Path,
                        echo: Callable[[str], None] = print) -> list[Path]:
    """``robust-bench evaluate --config names_*``: Table 3 of Balasubramanian et al. (2020), and
    RESEMBLE (Table 5) on ``names_mrpc``.

    Parameters
    ----------
    config : str
        ``names_mrpc`` (a sequence classifier, ``model``), ``names_conll2003`` (a token classifier
        ``model``, or a spaCy pipeline's NER, ``spacy_model``) or ``names_coref`` (``predictor``).
    model, spacy_model, predictor : str, optional
        Model specs (:func:`robust_bench.models.resolve.resolve_model`); ``spacy_model`` is also
        RESEMBLE's type annotator; ``predictor`` defaults to ``rule-based``.
    resemble : str, optional
        Comma-separated values of M: also score RESEMBLE with the M best canonical names.
    temperature, confidence : float
        RESEMBLE's T and P(z = ẑ | x) for an annotator without probabilities (Eq. 2).
    label_map : dict, optional
        Model label -> dataset label.
    device, dtype, batch_size
        Passed to the model adapters.
    repo, output_dir : path-like
    echo : callable

    Returns
    -------
    list of Path
        The records and figures written.

    Raises
    ------
    NameEvalError, NotBuiltError, ModelError
        A config that is not a name-swap config or not built, no model, a model that cannot be loaded.
    """
    sets, meta = load_name_sets(repo, config)
    rand = sets.get("random")
    seed = int(meta.get("seed", 0))
    sha = meta["files"]["test"]["sha256"]
    opts = dict(device=device, dtype=dtype)
    results = {}
    if config == "names_mrpc":
        if model is None:
            raise NameEvalError("names_mrpc needs --model (a sequence classifier fine-tuned on MRPC)")
        clf = load_model(model, interface="sequence-classification", batch_size=batch_size, **opts).classifier(
            sets["test"].features["label"].names, label_map, task=CommandTask(config, "test"))
        who, revision, metric = model, clf.revision, "F1"
        results["plain"] = score_classifier(clf, sets["test"], rand)
        if resemble:

            nlp = load_spacy(ner_model_name(spacy_model), require=("ner",))     # the annotator (§4)
            ranking = choose_canonical_names(clf, sets["validation"], canonical_candidates(sets["test"]), nlp, m=3)
            echo("  canonical names by validation accuracy: "
                 + ", ".join(f"{r['name']} {r['accuracy']:.3f}" for r in ranking[:5]))
            for m in (int(x) for x in resemble.split(",")):
                wrapped = Resemble(clf, [r["name"] for r in ranking[:m]], nlp, temperature=temperature,
                                   confidence=confidence)
                results[f"resemble_m{m}"] = score_classifier(wrapped, sets["test"], rand)
                results[f"resemble_m{m}"]["canonical"] = [r["name"] for r in ranking[:m]]
    elif config == "names_conll2003":
        tags = sets["test"].features["ner_tags"].feature.names
        spec = spacy_model or model or "spacy:"                 # default: $ROBUST_BENCH_SPACY_MODEL's NER
        handle = load_model(spec, interface="token-classification", batch_size=32, **opts)
        tagger = handle.tagger(tags, label_map)
        who = tagger.model_id if handle.spec.kind == "spacy" else spec
        revision, metric = tagger.revision, "entity F1"
        results["plain"] = score_tagger(tagger, sets["test"], rand)
    else:
        pred = load_model(predictor or "rule-based", interface="coreference", **opts).coref()
        who, revision, metric = pred.name, None, "CoNLL F1"
        results["plain"] = score_coref(pred, sets["test"], rand)
    ranges = {k: name_swaps.metric(m).range for k, m in _RECORD_METRICS.items()}
    output_dir = Path(output_dir)
    written = []
    for name, sc in results.items():
        title = f"{who} on {config}/test{'' if name == 'plain' else ' with ' + name} (Table 3; percentages)"
        echo(format_table(sc, title=title, metric=metric))
        # a metric with nothing to average over (no random variants) is NaN: listed, not written
        metrics = {k: sc[k] for k in _RECORD_METRICS if math.isfinite(sc[k])}
        details = {k: v for k, v in sc.items() if k not in _RECORD_METRICS and k != "frequency_points"}
        details["undefined_metrics"] = [k for k in _RECORD_METRICS if k not in metrics]
        rec = make_record(model_id=who, revision=revision, config=config, split="test", corpus_sha256=sha,
                          metrics=metrics, ranges=ranges, seed=seed, variant=None if name == "plain" else name,
                          details=details)
        written.append(write_record(rec, output_dir, tag=f"names-{name}"))
        echo(f"  record: {written[-1]}")
    echo(f"  model queries: {results['plain'].get('queries')}")
    stem = output_dir / f"{model_slug(who)}__{config}"
    short = Path(who).name if Path(who).exists() else who
    paths = plot_spread(results, f"{stem}__spread", title=f"{short} on {config}", metric=metric)
    points = results["plain"]["frequency_points"]
    if points:
        paths += plot_frequency(points, f"{stem}__frequency", title=f"{short} on {config} (Fig. 1)",
                                ylabel="accuracy of the variant" if config == "names_mrpc" else f"{metric} of the variant")
    echo("  figures: " + ", ".join(str(p) for p in paths))
    return written + paths
