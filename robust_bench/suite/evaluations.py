"""The five evaluations of the suite, each turning a model and a task's rows into per-example logs.

An evaluation returns one log entry per example (per group for name swaps): ``id``,
``input_sha256``, ``prediction``, ``gold`` and ``outcome``, a dict of numbers from which every
metric of the task is a sum-decomposable formula (:data:`METRICS`,
:mod:`robust_bench.scoring.intervals`), so that shards merge exactly and two runs compare paired.

* ``contrast-set``: LIT contrast sets (Li et al., 2020, §4.1.3, Table 3): Acc@Ori, Acc@Ctr, consistency.
* ``attack``: grammatical-error attacks (Yin et al., 2020, Alg. 1-3; greedy, budget 15% by default):
  clean and adversarial accuracy (entity F1 for NER), attack success rate.
* ``name-swaps``: named-entity swaps (Balasubramanian et al., 2020, Alg. 1, Table 3): the task F1
  on the originals, D_worst and D_best (one row per group), and stability.
* ``probe``: the Jabberwocky structural probe (Hall Maudslay & Cotterell, 2021, §4 and App. B;
  layer chosen by dev loss): UUAS and DSpr on plain and Jabberwocky test sentences.
* ``parser-attack``: an adversarial treebank (Wang et al., 2021) as a transfer set: UAS and LAS on
  the original and the attacked sentences (gold trees unchanged), and the share of sentences whose
  parse gets worse.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from robust_bench.leaderboard.logs import METRICS
from robust_bench import RobustBenchError

__all__ = ["METRICS", "EvaluationError", "EvalOutput", "EVALUATORS", "unit_ids",
           "input_sha256"]


class EvaluationError(RobustBenchError, ValueError):
    """A task's rows or options do not fit its evaluation."""


@dataclass
class EvalOutput:
    """Per-example log entries (sorted by id by the runner) and deterministic details."""

    examples: list[dict]
    details: dict = field(default_factory=dict)


def input_sha256(*parts: Any) -> str:
    """SHA-256 of the JSON of what the model saw (canonical: sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def unit_ids(evaluation: str, rows, split: str) -> list[str]:
    """The unit (example) each row belongs to: the group for name swaps (variants of one source
    example are scored together), the row's ``id`` (``<split>-<idx>`` for GEC rows) otherwise."""
    if evaluation == "name-swaps":
        return [str(g) for g in rows["group_id"]]
    if "id" in rows.column_names:
        return [str(i) for i in rows["id"]]
    return [f"{split}-{int(i):06d}" for i in rows["idx"]]


def _entry(uid, sha, prediction, gold, outcome) -> dict:
    return {"id": uid, "input_sha256": sha, "prediction": prediction, "gold": gold,
            "outcome": {k: (int(v) if isinstance(v, (bool, int, np.bool_, np.integer)) else float(v))
                        for k, v in outcome.items()}}


def _label_names(rows, column: str = "label") -> list[str]:
    return list(rows.features[column].names)


def _contrast_set(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    from robust_bench.scoring import consistency_details

    labels = _label_names(rows)
    clf = model.classifier(labels)
    ori = list(zip(rows["original_premise"], rows["original_hypothesis"]))
    ctr = list(zip(rows["premise"], rows["hypothesis"]))
    preds = clf.predict(ori + ctr)
    po, pc = preds[:len(ori)], preds[len(ori):]
    out = []
    for k, uid in enumerate(unit_ids("contrast-set", rows, task.split)):
        c = consistency_details([int(po[k])], [int(pc[k])], [rows[k]["rule"]])
        go, gc = int(rows[k]["original_label"]), int(rows[k]["label"])
        out.append(_entry(uid, input_sha256(ori[k], ctr[k]),
                          {"original": labels[po[k]], "contrast": labels[pc[k]]},
                          {"original": labels[go], "contrast": labels[gc]},
                          {"ori_correct": po[k] == go, "ctr_correct": pc[k] == gc, "one": 1,
                           "consistent": c["instances"] == 1 and c["consistency"] == 1.0,
                           "counted": c["instances"]}))
    return EvalOutput(out, {"rows": len(rows), "consistency_excluded": sum(1 - e["outcome"]["counted"] for e in out)})


def _entity_counts(gold: Sequence[str], pred: Sequence[str]) -> tuple[int, int, int]:
    from seqeval.metrics.sequence_labeling import get_entities

    g, p = set(get_entities(list(gold))), set(get_entities(list(pred)))
    return len(g & p), len(p - g), len(g - p)


def _attack(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    from robust_bench.attacks.runner import TASKS, AttackError, run_attack, run_ner_attack

    from robust_bench.attacks.runner import attack_pipelines
    from robust_bench.text.nlp import load_spacy

    search = task.options.get("search", "greedy")
    budget = float(task.options.get("budget", 0.15))
    uids = unit_ids("attack", rows, task.split)
    nlp = load_spacy()
    details = {"search": search, "budget": budget, "pipelines": attack_pipelines(nlp)}
    if "ner_tags" in rows.column_names:
        names = list(rows.features["ner_tags"].feature.names)
        tagger = model.tagger(names)
        words = [list(t) for t in rows["tokens"]]
        gold = [[names[t] for t in tags] for tags in rows["ner_tags"]]
        clean = tagger.predict(words)
        try:
            run = run_ner_attack(tagger, rows, search=search, budget_rate=budget, seed=seed, progress=False,
                                 positions=positions, nlp=nlp)
            found = {r.idx: r.result for r in run["examples"]}
        except AttackError:   # raised only when no sentence has all its entities right: nothing to attack
            found = {}
        from robust_bench.perturb.grammar_errors import realign_tags

        adv_words = [found[k].words if k in found else words[k] for k in range(len(rows))]
        adv_gold = [realign_tags(gold[k], found[k].edits, fill="O") if k in found else gold[k] for k in range(len(rows))]
        adv = tagger.predict(adv_words)
        out = []
        for k, uid in enumerate(uids):
            tc, fc, nc = _entity_counts(gold[k], clean[k])
            ta, fa, na = _entity_counts(adv_gold[k], adv[k])
            r = found.get(k)
            out.append(_entry(uid, input_sha256(words[k]), {"clean": clean[k], "adversarial": adv[k],
                                                            "adversarial_tokens": list(adv_words[k])},
                              gold[k], {"tp_clean": tc, "fp_clean": fc, "fn_clean": nc, "tp_adversarial": ta,
                                        "fp_adversarial": fa, "fn_adversarial": na, "attacked": r is not None,
                                        "success": bool(r is not None and r.success), "one": 1,
                                        "queries": r.queries if r is not None else 0}))
        return EvalOutput(out, details)
    if task.config not in TASKS:
        raise EvaluationError(f"task {task.name!r}: no attack fields for config {task.config!r}; "
                              f"known: {', '.join(TASKS)}")
    fields, _ = TASKS[task.config]
    labels = _label_names(rows)
    clf = model.classifier(labels)
    inputs = [tuple(r[f] for f in fields) if len(fields) > 1 else r[fields[0]] for r in rows]
    clean = clf.predict(inputs)
    gold = np.asarray(rows["label"])
    found = {}
    if (clean == gold).any():
        journal = None
        if work is not None:   # finished attacks survive a kill; a resumed run reads them back
            from robust_bench.attacks.search import AttackJournal

            journal = AttackJournal(Path(work) / "attacks.jsonl", {
                "model": model.id, "revision": model.revision(), "config": task.config, "split": task.split,
                "search": search, "budget": budget, "seed": seed, "ids": input_sha256(*uids)})
        try:
            run = run_attack(clf, rows, task.config, search=search, budget_rate=budget, seed=seed, progress=False,
                             positions=positions, journal=journal, nlp=nlp)
        finally:
            if journal is not None:
                journal.close()
        found = {r.idx: r.result for r in run["examples"]}
    out = []
    for k, uid in enumerate(uids):
        r = found.get(k)
        adv_pred = int(r.prediction) if r is not None else int(clean[k])
        ok = bool(clean[k] == gold[k])
        pred = {"clean": labels[clean[k]], "adversarial": labels[adv_pred]}
        if r is not None and r.success:
            pred["adversarial_text"] = "".join(w + (" " if s else "") for w, s in zip(r.words, r.spaces)).strip()
        out.append(_entry(uid, input_sha256(inputs[k]), pred, labels[gold[k]],
                          {"clean_correct": ok, "adversarial_correct": ok and not (r is not None and r.success),
                           "attacked": r is not None, "success": bool(r is not None and r.success), "one": 1,
                           "queries": r.queries if r is not None else 0}))
    return EvalOutput(out, details)


def _name_swaps(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    from robust_bench.experiments.name_eval import canonical_entities
    from robust_bench.scoring import group_stability, worst_best_rows

    groups, variants = list(rows["group_id"]), list(rows["variant"])
    if "sentence1" in rows.column_names:
        labels = _label_names(rows)
        positive = labels.index("equivalent") if "equivalent" in labels else len(labels) - 1
        clf = model.classifier(labels)
        inputs = list(zip(rows["sentence1"], rows["sentence2"]))
        preds = clf.predict(inputs)
        gold = np.asarray(rows["label"])
        score = (preds == gold).astype(float)
        canon = [int(p) for p in preds]

        def counts(i):
            p, g = preds[i] == positive, gold[i] == positive
            return int(p and g), int(p and not g), int(g and not p)

        def show(i):
            return labels[preds[i]]

        gold_of = [labels[g] for g in gold]
    elif "ner_tags" in rows.column_names:
        names = list(rows.features["ner_tags"].feature.names)
        tagger = model.tagger(names)
        inputs = [tuple(t) for t in rows["tokens"]]
        tags = tagger.predict(inputs)
        gold_of = [[names[t] for t in r] for r in rows["ner_tags"]]
        cnt = [_entity_counts(g, p) for g, p in zip(gold_of, tags)]
        score = np.asarray([2 * tp / (2 * tp + fp + fn) if (tp + fp + fn) else 1.0 for tp, fp, fn in cnt])
        n_orig = [len(t) for t in rows["original_tokens"]]
        canon = [canonical_entities(p, e, n) for p, e, n in zip(tags, rows["edits"], n_orig)]

        def counts(i):
            return cnt[i]

        def show(i):
            return tags[i]
    else:
        raise EvaluationError(f"task {task.name!r}: name swaps score sentence pairs (names_mrpc) or NER "
                              f"(names_conll2003); {task.config!r} has neither")
    worst, best = worst_best_rows(score, groups, variants)
    stability = group_stability(canon, groups, variants)
    worst_of = {groups[i]: i for i in worst}
    best_of = {groups[i]: i for i in best}
    members: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    out = []
    for g, idx in members.items():
        orig = next((i for i in idx if variants[i] == 0), None)
        others = [i for i in idx if variants[i] != 0]
        counted = g in stability
        o = dict(zip(("tp_original", "fp_original", "fn_original"), counts(orig) if orig is not None else (0, 0, 0)))
        w = dict(zip(("tp_worst", "fp_worst", "fn_worst"), counts(worst_of[g]) if g in worst_of else (0, 0, 0)))
        b = dict(zip(("tp_best", "fp_best", "fn_best"), counts(best_of[g]) if g in best_of else (0, 0, 0)))
        stable = stability.get(g, False)
        out.append(_entry(str(g), input_sha256([inputs[i] for i in idx]),
                          {"original": show(orig) if orig is not None else None,
                           "worst": show(worst_of[g]) if g in worst_of else None,
                           "worst_variant": variants[worst_of[g]] if g in worst_of else None},
                          gold_of[orig] if orig is not None else None,
                          {**o, **w, **b, "stable": stable, "counted": counted, "variants": len(others)}))
    return EvalOutput(out, {"rows": len(rows), "groups": len(out)})


def _probe(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    from robust_bench.experiments.probing import ProbeSettings, run_probing

    opts = dict(task.options)
    kind = opts.pop("probe", "structural")
    known = {"layers", "trials", "epochs", "batch_size", "patience", "max_train_sentences"}
    bad = sorted(set(opts) - known)
    if bad:
        raise EvaluationError(f"task {task.name!r}: unknown probe options {bad}; known: {sorted(known)}")
    if "layers" in opts:
        opts["layers"] = tuple(opts["layers"])
    settings = ProbeSettings(probes=(kind,), seed=seed, **opts)
    run = run_probing(model.id, repo=repo, revision=model.spec.revision, config=task.config, settings=settings, device=model.device,
                      dtype=model.dtype, progress=False, test_indices=positions, per_sentence=True,
                      checkpoint_dir=None if work is None else Path(work) / "probe")
    layer = run["selected"][kind]
    per = {r["variant"]: r["per_sentence"] for r in run["results"] if r["representation"] == layer}
    by_id = {str(i): k for k, i in enumerate(rows["id"])}
    out = []
    for k, sid in enumerate(run["test_ids"]):
        row = rows[by_id[sid]]
        outcome = {"length": per["plain"][k]["length"]}
        for v in ("plain", "jabberwocky"):
            s = per[v][k]
            outcome.update({f"uuas_correct_{v}": s["uuas_correct"], f"uuas_total_{v}": s["uuas_total"],
                            f"dspr_rho_sum_{v}": s.get("dspr_rho_sum", 0.0), f"dspr_rows_{v}": s.get("dspr_rows", 0)})
        out.append(_entry(sid, input_sha256(row["original_tokens"], row["tokens"]),
                          {"layer": layer}, {"head": list(row["head"])}, outcome))
    details = {"probe": kind, "selected_layer": layer, "layers": run["layers"], "n_test_scored": run["n_test"],
               "n_test_rows": len(rows), "trial": next(r["trial"] for r in run["results"] if r["representation"] == layer)}
    return EvalOutput(out, details)


def _parser_attack(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    from robust_bench.scoring import attachment_errors, attachment_mask

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
        out.append(_entry(uid, input_sha256(originals[k], attacked[k]),
                          {"original": {"head": list(p0[k].heads), "deprel": list(p0[k].deprels or [])},
                           "adversarial": {"head": list(p1[k].heads), "deprel": list(p1[k].deprels or [])}},
                          {"head": list(r["head"]), "deprel": list(r["deprel"])},
                          {"scored": n, "arcs_right_original": n - a0, "labels_right_original": n - l0,
                           "arcs_right_adversarial": n - a1, "labels_right_adversarial": n - l1,
                           "success": a1 > a0 or (labelled and l1 > l0), "one": 1}))
    return EvalOutput(out, {"rule": rule, "labelled": all(any(d != "_" for d in r) for r in rows["deprel"])})


#: evaluation name -> function(model handle, task, rows, positions in the split, seed, repository)
EVALUATORS: dict[str, Callable[..., EvalOutput]] = {
    "contrast-set": _contrast_set, "attack": _attack, "name-swaps": _name_swaps, "probe": _probe,
    "parser-attack": _parser_attack,
}
