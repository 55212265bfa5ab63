"""Grammatical-error attacks (Yin et al., 2020, Alg. 1-3; greedy, budget 15% by default): the
``attack`` evaluation, and ``robust-bench attack``.

Only examples the model gets right are attacked (§3.3): every correctly classified example
(sequence classification), or every sentence with entities whose entities the tagger all gets right
(NER). Metrics: clean and adversarial accuracy (entity F1, seqeval's definition, for NER) and the
attack success rate = successful attacks / attacked examples (lower is more robust). ``robust-bench
run`` and ``robust-bench attack`` attack and log each example with the same function
(:func:`attack_examples`); the command adds the paper's report: queries, modified share, error types
(Table 4), agreement across models (§4), the budget curve (Fig. 1) and the adversarial examples as a
derived config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from robust_bench.evaluations import (EvalOutput, EvaluationError, Metric, Tolerance, f1, input_sha256,
                                      llm_traces, log_entry, pair_or_tagger_task_type, ratio, register_evaluation, task_classifier,
                                      unit_ids)
from robust_bench.scoring import entity_counts
from robust_bench.attacks.gec import (AttackError, TASKS, attack_pipelines, run_attack, run_ner_attack)
from robust_bench.attacks.search import AttackJournal
from robust_bench.data.repository import write_derived_config
from robust_bench.models.resolve import load_model
from robust_bench.perturb.gec import realign_tags, render
from robust_bench.scoring.intervals import Formula

__all__ = ["attack", "attack_examples", "check_outcome", "attack_journal",
           "save_adversarial"]


_CLASSIFIERS_ONLY = ("--max-attacked and --resume are for classification configs; gec_conll2003 attacks every "
                     "sentence whose entities the tagger gets right")


def _label(value):
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def check_outcome(entry: dict) -> list[tuple[str, int]]:
    """What a classifier attack's log line must say given its own clean and adversarial predictions
    and gold label: ``clean_correct`` whether the clean prediction is the gold label, an attack
    succeeds only on an attacked, correctly predicted example whose adversarial prediction is wrong."""
    o, pred, gold = entry["outcome"], entry.get("prediction"), entry.get("gold")
    if not (isinstance(pred, dict) and _label(gold) is not None and _label(pred.get("clean")) is not None
            and "clean_correct" in o):
        return []
    clean_ok = pred["clean"] == gold
    adv_ok = pred.get("adversarial", pred["clean"]) == gold
    checks = [("clean_correct", int(clean_ok)), ("adversarial_correct", int(clean_ok and adv_ok)),
              ("success", int(bool(o.get("attacked", 0)) and clean_ok and not adv_ok))]
    if o.get("success", 0) and not o.get("attacked", 0):
        checks.append(("attacked", 1))
    return checks


def attack_journal(path: str | Path, identity: dict):
    """The journal of finished attacks (:class:`robust_bench.attacks.search.AttackJournal`) at
    ``path``, for the attack ``identity`` names: a killed attack resumes from it, and a journal of
    another attack is refused."""
    return AttackJournal(Path(path), identity)


def attack_examples(target, rows, config: str, *, uids: Sequence[str], search: str, budget: float, seed: int,
                    positions: Sequence[int] | None = None, journal=None, agree_with: Sequence = (),
                    max_attacked: int | None = None, candidates: str = "stored", nlp=None, progress: bool = False,
                    must_attack: bool = False) -> tuple[list[dict], dict | None]:
    """Attack the rows of a ``gec_*`` config and log one line per row.

    Parameters
    ----------
    target : Classifier or TokenClassifier
        The model under attack (a tagger for ``gec_conll2003``).
    rows : datasets.Dataset
    config : str
    uids : sequence of str of shape (n_rows,)
        The rows' example ids.
    search : {"greedy", "beam", "genetic"}
    budget : float
        Share of the segment's tokens (of the non-entity tokens for NER) that may change, in (0, 1].
    seed : int
    positions : sequence of int of shape (n_rows,), optional
        Each row's index in its split: example k is searched with seed ``seed * 100003 + positions[k]``.
    journal : AttackJournal, optional
        Resume from, and add to, finished attacks (classifier configs).
    agree_with : sequence of adapters
        Attack only the examples every one of these also gets right (§4).
    max_attacked : int, optional
        Attack only the first N examples the model gets right (classifier configs).
    candidates : {"stored", "parse"}
        The search space the data ships (the benchmark's), or a parse now with ``nlp``
        (:func:`robust_bench.attacks.gec.run_attack`).
    nlp : spaCy Language, optional
        With ``candidates="parse"``.
    progress : bool
    must_attack : bool
        Raise when no example can be attacked (the command); the suite logs the clean predictions.

    Returns
    -------
    (entries, run)
        The log lines (outcome ``clean_correct``, ``adversarial_correct`` or entity counts clean and
        adversarial, ``attacked``, ``success``, ``queries``, ``one``) and what
        :func:`robust_bench.attacks.gec.run_attack` / ``run_ner_attack`` returned (None when
        nothing was attacked).

    Raises
    ------
    AttackError
        An unknown search or config; with ``must_attack``, no example to attack.
    """
    if "ner_tags" in rows.column_names:
        if max_attacked is not None or journal is not None:
            raise AttackError(_CLASSIFIERS_ONLY)
        names = list(rows.features["ner_tags"].feature.names)
        words = [list(t) for t in rows["tokens"]]
        gold = [[names[t] for t in tags] for tags in rows["ner_tags"]]
        clean = target.predict(words)
        try:
            run = run_ner_attack(target, rows, search=search, budget_rate=budget, seed=seed, progress=progress,
                                 positions=positions, nlp=nlp, agree_with=agree_with, candidates=candidates)
        except AttackError:   # raised only when no sentence has all its entities right: nothing to attack
            if must_attack:
                raise
            run = None
        found = {r.idx: r.result for r in run["examples"]} if run else {}

        adv_words = [found[k].words if k in found else words[k] for k in range(len(rows))]
        adv_gold = [realign_tags(gold[k], found[k].edits, fill="O") if k in found else gold[k] for k in range(len(rows))]
        adv = target.predict(adv_words)
        out = []
        for k, uid in enumerate(uids):
            tc, fc, nc = entity_counts(gold[k], clean[k])
            ta, fa, na = entity_counts(adv_gold[k], adv[k])
            r = found.get(k)
            out.append(log_entry(uid, input_sha256(words[k]), {"clean": clean[k], "adversarial": adv[k],
                                                               "adversarial_tokens": list(adv_words[k])},
                                 gold[k], {"tp_clean": tc, "fp_clean": fc, "fn_clean": nc, "tp_adversarial": ta,
                                           "fp_adversarial": fa, "fn_adversarial": na, "attacked": r is not None,
                                           "success": bool(r is not None and r.success), "one": 1,
                                           "queries": r.queries if r is not None else 0}))
        return out, run
    if config not in TASKS:
        raise AttackError(f"attacks run on {', '.join(TASKS)} and gec_conll2003; got {config!r}")
    fields, _ = TASKS[config]
    labels = list(rows.features["label"].names)
    inputs = [tuple(r[f] for f in fields) if len(fields) > 1 else r[fields[0]] for r in rows]
    clean = target.predict(inputs)
    gold = np.asarray(rows["label"])
    run = None
    if must_attack or (clean == gold).any():
        run = run_attack(target, rows, config, search=search, budget_rate=budget, seed=seed, progress=progress,
                         positions=positions, journal=journal, nlp=nlp, agree_with=agree_with,
                         max_attacked=max_attacked, candidates=candidates)
    found = {r.idx: r.result for r in run["examples"]} if run else {}
    # the input each attacked example ended on (its last edits put back into the example)
    final = {e.idx: t.make_input(list(e.result.words), list(e.result.spaces), list(e.result.edits))
             for e, t in zip(run["examples"], run["targets"])} if run else {}
    if getattr(target, "keeps_traces", False):
        # a resumed run read some searches back from its journal: their last inputs go to a causal LM once
        # more, so that every log line carries the traces an uninterrupted run's would
        unasked = [x for x in final.values() if target.trace(x) is None]
        if unasked:
            target.predict(unasked)
    out = []
    for k, uid in enumerate(uids):
        r = found.get(k)
        adv_pred = int(r.prediction) if r is not None else int(clean[k])
        ok = bool(clean[k] == gold[k])
        pred = {"clean": labels[clean[k]], "adversarial": labels[adv_pred]}
        if r is not None and r.success:
            pred["adversarial_text"] = "".join(w + (" " if s else "") for w, s in zip(r.words, r.spaces)).strip()
        out.append(log_entry(uid, input_sha256(inputs[k]), pred, labels[gold[k]],
                             {"clean_correct": ok, "adversarial_correct": ok and not (r is not None and r.success),
                              "attacked": r is not None, "success": bool(r is not None and r.success), "one": 1,
                              "queries": r.queries if r is not None else 0},
                             llm_traces(target, (inputs[k], final[k]) if k in final else (inputs[k],))))
    return out, run


@register_evaluation(
    name="attack", family="grammatical_errors",
    metrics=(Metric("clean_accuracy", ratio("clean_correct")), Metric("adversarial_accuracy", ratio("adversarial_correct")),
             Metric("attack_success_rate", ratio("success", "attacked"), higher_is_better=False),
             Metric("f1_clean", f1("clean")), Metric("f1_adversarial", f1("adversarial")),
             Metric("f1_drop", Formula("f1_drop", f1("clean").fields + f1("adversarial").fields), higher_is_better=False,
                    range=(-1.0, 1.0))),
    pairs=(("clean_accuracy", "adversarial_accuracy"), ("f1_clean", "f1_adversarial")),
    robustness=("attack_success_rate",), tolerance=Tolerance("lines", max_share=0.02),
    hub_task_type=pair_or_tagger_task_type, check_outcome=check_outcome, setup=lambda: {"candidates": "stored"},
    title="Grammatical errors (Yin et al., 2020)")
def attack(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of a grammatical-error attack on a classifier (``gec_mnli``, ``gec_mrpc``,
    ``gec_qnli``, ``gec_sst2``) or a tagger (``gec_conll2003``).

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
    task
        The suite task. ``options``: ``search`` (greedy, beam, genetic; default greedy), ``budget`` (share
        of the segment's tokens, default 0.15); and, for ``robust-bench attack``'s exploration (a task with
        them is a derived suite's, not ranked): ``max_attacked`` (attack the first N examples the model gets
        right; classifiers), ``agree_with`` (model specs: attack only the examples all of them get right
        too, §4), ``candidates`` (``stored``, the search space the data ship, or ``parse``: parse the
        segments now, :func:`attack_examples`) and ``label_map`` (model label -> dataset label).
    rows : datasets.Dataset
    positions : sequence of int
        Each row's index in its split: example k is searched with seed ``seed * 100003 + positions[k]``.
    seed : int
    repo : path-like
        The dataset repository: a causal LM's k-shot demonstrations are drawn from another split of the
        config with ``seed`` (:func:`~robust_bench.evaluations.task_classifier`).
    work : path-like, optional
        Finished attacks are journalled there, so a killed run resumes inside the task.

    Returns
    -------
    EvalOutput
        One entry per row; details: the search, the budget, where the candidate edits came from
        (``candidates``; with ``parse``, the ``pipelines``), ``agree_with`` and ``max_attacked`` where
        set, and the search's ``summary`` (Table 4's counts). ``extras``: ``run`` (what :func:`robust_bench.attacks.gec.run_attack` or ``run_ner_attack``
        returned, None when nothing was attacked) and ``target`` (the adapter attacked), for the command's
        report.

    Raises
    ------
    EvaluationError
        For a config that is no ``gec_*`` config.
    AttackError
        ``max_attacked`` on gec_conll2003.
    """
    o = task.options
    search = o.get("search", "greedy")
    budget = float(o.get("budget", 0.15))
    candidates = o.get("candidates", "stored")
    agree_with, label_map = list(o.get("agree_with") or ()), o.get("label_map")
    uids = unit_ids("attack", rows, task.split)
    details = {"search": search, "budget": budget, "candidates": candidates,
               **({"pipelines": attack_pipelines()} if candidates == "parse" else {}),
               **({"agree_with": agree_with} if agree_with else {}),
               **({"max_attacked": o["max_attacked"]} if o.get("max_attacked") else {})}
    kw = dict(uids=uids, search=search, budget=budget, seed=seed, positions=positions, candidates=candidates)
    ner = "ner_tags" in rows.column_names
    interface = "token-classification" if ner else "sequence-classification"
    others = [load_model(m, interface=interface, device=model.device, dtype=model.dtype, batch_size=model.batch_size)
              for m in agree_with]
    if ner:
        if o.get("max_attacked"):
            raise AttackError(_CLASSIFIERS_ONLY)
        names = list(rows.features["ner_tags"].feature.names)
        target = model.tagger(names, label_map)
        entries, run = attack_examples(target, rows, task.config, agree_with=[h.tagger(names, label_map) for h in others],
                                       **kw)
        return EvalOutput(entries, _with_summary(details, run), extras={"run": run, "target": target})
    if task.config not in TASKS:
        raise EvaluationError(f"task {task.name!r}: no attack fields for config {task.config!r}; "
                              f"known: {', '.join(TASKS)}")
    labels = list(rows.features["label"].names)
    journal = None
    if work is not None:   # finished attacks survive a kill; a resumed run reads them back
        journal = attack_journal(Path(work) / "attacks.jsonl", {
            "model": model.id, "revision": model.revision(), "config": task.config, "split": task.split,
            "search": search, "budget": budget, "seed": seed, "ids": input_sha256(*uids),
            "inputs": input_sha256(*(tuple(r[f] for f in TASKS[task.config][0]) for r in rows)),
            **{k: o[k] for k in ("max_attacked", "agree_with", "candidates", "label_map") if o.get(k)}})
    target = task_classifier(model, labels, task, repo, seed, label_map)
    try:
        entries, run = attack_examples(target, rows, task.config, journal=journal, max_attacked=o.get("max_attacked"),
                                       agree_with=[h.classifier(labels, label_map, task=task) for h in others], **kw)
    finally:
        if journal is not None:
            journal.close()
    return EvalOutput(entries, _with_summary(details, run), extras={"run": run, "target": target})


def _with_summary(details: dict, run) -> dict:
    """The details with the search's summary (attacked, successes, queries, modified share, error types in
    successful attacks: Table 4), deterministic, so that ``run.json`` keeps what the command's report prints."""
    if run is None:
        return details
    keep = ("examples", "attacked", "successes", "modified_share_mean", "queries_mean", "queries_median",
            "error_types_in_successes")
    return {**details, "summary": {k: run["summary"][k] for k in keep if k in run["summary"]}}


def save_adversarial(run: dict[str, Any], *, repo: str | Path, name: str, model: str, revision: str, config: str,
                     split: str, search: str, budget: float, seed: int, meta: dict) -> str:
    """Store the attacked examples of a run as a derived config of the dataset repository, reusable
    as a transfer set: the original fields, the adversarial text, the edits, and per example the
    success flag, queries and modified tokens.

    Parameters
    ----------
    run : dict
        What :func:`run_attack` or :func:`run_ner_attack` returned.
    repo : path-like
        Dataset repository.
    name : str
        Config name to write (an existing one is replaced).
    model, revision, config, split, search, budget, seed
        What the card records about the attack.
    meta : dict
        Metadata of the attacked config (citation, licence, source, file hashes).

    Returns
    -------
    str
        ``name``.
    """
    import datasets

    rows = run["rows"]
    s = run["summary"]
    int32 = datasets.Value("int32")
    common = {"edits": rows.features["edits"], "success": datasets.Value("bool"), "queries": int32,
              "n_modified": int32, "budget": int32}
    adv_rows = []
    if "names" in run:  # NER
        tag = rows.features["ner_tags"]
        for row, ex in zip(rows, run["examples"]):
            r = ex.result
            adv_rows.append({"idx": int(row["idx"]), "tokens": row["tokens"], "ner_tags": row["ner_tags"],
                             "adversarial_tokens": r.words, "adversarial_ner_tags": realign_tags(row["ner_tags"], r.edits, fill=0),
                             "edits": r.edits, "success": r.success, "queries": r.queries, "n_modified": r.modified,
                             "budget": r.budget})
        feats = datasets.Features({"idx": int32, "tokens": rows.features["tokens"], "ner_tags": tag,
                                   "adversarial_tokens": rows.features["tokens"], "adversarial_ner_tags": tag, **common})
        description = (f"Adversarial CoNLL-2003 sentences found by the {search} grammatical-error attack of Yin et al. "
                       f"(2020) against the tagger {model} (budget {budget:.0%}).")
    else:
        fields, segment = run["fields"], run["segment"]
        for row, ex in zip(rows, run["examples"]):
            r = ex.result
            adv_rows.append({**{f: row[f] for f in fields}, "idx": int(row["idx"]), "label": int(row["label"]),
                             f"adversarial_{segment}": render(r.words, r.spaces), "edits": r.edits, "success": r.success,
                             "prediction": r.prediction, "queries": r.queries, "n_modified": r.modified,
                             "budget": r.budget, "p_original": r.p_original, "p_final": r.p_final})
        feats = datasets.Features({**{f: datasets.Value("string") for f in fields}, "idx": int32,
                                   "label": rows.features["label"], f"adversarial_{segment}": datasets.Value("string"),
                                   "edits": rows.features["edits"], "success": datasets.Value("bool"),
                                   "prediction": rows.features["label"], "queries": int32, "n_modified": int32,
                                   "budget": int32, "p_original": datasets.Value("float32"),
                                   "p_final": datasets.Value("float32")})
        description = (f"Adversarial examples found by the {search} grammatical-error attack of Yin et al. (2020) "
                       f"against {model} on {config}/{split} (budget {budget:.0%}); reusable as a transfer set. "
                       "Rows with success=False kept the model's prediction.")
    dataset = datasets.DatasetDict({split: datasets.Dataset.from_list(adv_rows, features=feats)})
    write_derived_config(repo, name, dataset, family="grammatical_errors_adversarial", description=description,
                         citation=meta["citation"], license=meta["license"], source=meta["source"], seed=seed,
                         statistics={split: s}, provenance={"model": model, "model_revision": revision,
                                                            "source_config": config,
                                                            "source_sha256": meta["files"][split]["sha256"]})
    return name
