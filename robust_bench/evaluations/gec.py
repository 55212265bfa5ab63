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

import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from robust_bench.evaluations import (CommandTask, EvalOutput, EvaluationError, Metric, Tolerance, f1, input_sha256,
                                      llm_traces, log_entry, pair_or_tagger_task_type, ratio, register_evaluation, task_classifier,
                                      unit_ids)
from robust_bench.scoring import entity_counts
from robust_bench.attacks.gec import (AttackError, TASKS, attack_pipelines, budget_curve, plot_budget_curve,
    run_attack, run_ner_attack)
from robust_bench.attacks.search import AttackJournal
from robust_bench.data.repository import built_config, write_derived_config
from robust_bench.models.resolve import load_model
from robust_bench.perturb.gec import realign_tags, render
from robust_bench.results.records import make_record, model_slug, write_record
from robust_bench.results.runs import log_columns
from robust_bench.scoring.intervals import metric_value

__all__ = ["attack", "attack_examples", "attack_command", "check_outcome", "attack_journal",
           "load_examples", "save_adversarial"]


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
             Metric("f1_clean", f1("clean")), Metric("f1_adversarial", f1("adversarial"))),
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
        The suite task: ``options`` ``search`` (greedy, beam, genetic) and ``budget`` (share of the
        segment's tokens, default 0.15).
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
        One entry per row; details: the search, the budget and where the candidate edits came from
        (``candidates``: ``"stored"``, the search space the data ships; no pipeline is loaded).

    Raises
    ------
    EvaluationError
        For a config that is no ``gec_*`` config.
    """
    search = task.options.get("search", "greedy")
    budget = float(task.options.get("budget", 0.15))
    uids = unit_ids("attack", rows, task.split)
    details = {"search": search, "budget": budget, "candidates": "stored"}
    kw = dict(uids=uids, search=search, budget=budget, seed=seed, positions=positions, candidates="stored")
    if "ner_tags" in rows.column_names:
        entries, _ = attack_examples(model.tagger(list(rows.features["ner_tags"].feature.names)), rows, task.config, **kw)
        return EvalOutput(entries, details)
    if task.config not in TASKS:
        raise EvaluationError(f"task {task.name!r}: no attack fields for config {task.config!r}; "
                              f"known: {', '.join(TASKS)}")
    journal = None
    if work is not None:   # finished attacks survive a kill; a resumed run reads them back
        journal = attack_journal(Path(work) / "attacks.jsonl", {
            "model": model.id, "revision": model.revision(), "config": task.config, "split": task.split,
            "search": search, "budget": budget, "seed": seed, "ids": input_sha256(*uids)})
    try:
        entries, _ = attack_examples(task_classifier(model, list(rows.features["label"].names), task, repo, seed), rows, task.config,
                                     journal=journal, **kw)
    finally:
        if journal is not None:
            journal.close()
    return EvalOutput(entries, details)


#: the command's record also reports the entity F1 drop, a difference in [-1, 1]
_DROP_RANGE = {"f1_drop": (-1.0, 1.0)}


def attack_command(model: str, config: str, *, search: str = "greedy", budget: float = 0.15, split: str | None = None,
                   limit: int | None = None, max_attacked: int | None = None, resume: bool = False,
                   label_map: dict | None = None, agree_with: Sequence[str] = (), curve: bool = True,
                   candidates: str = "stored", device: str = "auto", dtype: str = "auto", seed: int = 0,
                   repo: str | Path,
                   output_dir: str | Path, echo: Callable[[str], None] = print) -> list[Path]:
    """``robust-bench attack``: attack one model on a ``gec_*`` config and report as Yin et al. (2020) do.

    Every row is attacked and logged with :func:`attack_examples` (what ``robust-bench run`` calls);
    the record's metrics come from those lines with the evaluation's formulas (:data:`attack`). Also
    writes the adversarial examples into ``repo`` as the derived config
    ``adv_<model>_<config>_<search>``, and the success-versus-budget curve (Fig. 1) with ``curve``.

    Parameters
    ----------
    model : str
        A classifier's (a tagger's, for ``gec_conll2003``) model spec.
    config : str
    search, budget, seed
        As :func:`attack_examples`.
    split : str, optional
        Default: the config's first split.
    limit : int, optional
        Read only the first N rows.
    max_attacked : int, optional
        Attack at most N examples (classifier configs).
    resume : bool
        Continue a killed attack from its journal in ``output_dir/.attack-journals``.
    label_map : dict, optional
        Model label -> dataset label.
    agree_with : sequence of str
        Model specs; attack only the examples all of them also get right.
    curve : bool
    candidates : {"stored", "parse"}
        As :func:`attack_examples`; with ``"parse"`` the record names the pipelines
        (:func:`robust_bench.attacks.gec.attack_pipelines`).
    device, dtype
        Passed to the model adapters.
    repo, output_dir : path-like
    echo : callable

    Returns
    -------
    list of Path
        The record and figures written.

    Raises
    ------
    AttackError, NotBuiltError, ModelError
        Nothing to attack, a config not built, a model that cannot be loaded.
    """
    rows, split, meta = load_examples(repo, config, split, limit)
    ner = "ner_tags" in rows.column_names
    if ner and resume:
        raise AttackError(_CLASSIFIERS_ONLY)
    interface = "token-classification" if ner else "sequence-classification"
    # the adapters' own batch sizes (taggers 32, classifiers 64)
    handles = [load_model(m, interface=interface, device=device, dtype=dtype, batch_size=32 if ner else 64)
               for m in (model, *agree_with)]
    if ner:
        names = list(rows.features["ner_tags"].feature.names)
        target, *others = [h.tagger(names, label_map) for h in handles]
    else:
        labels = list(rows.features["label"].names)
        target, *others = [h.classifier(labels, label_map, task=CommandTask(config, split)) for h in handles]
    output_dir = Path(output_dir)
    journal = journal_path = None
    if not ner:
        journal_path = output_dir / ".attack-journals" / f"{model_slug(model)}__{config}__{split}__{search}.jsonl"
        if not resume and journal_path.exists():
            journal_path.unlink()
        journal = attack_journal(journal_path, {
            "model": model, "revision": target.revision, "config": config, "split": split,
            "corpus_sha256": meta["files"][split]["sha256"], "search": search, "budget": budget, "seed": seed,
            "limit": limit, "max_attacked": max_attacked, "agree_with": list(agree_with), "label_map": label_map,
            "candidates": candidates})
        if journal.done:
            echo(f"  resumed: {len(journal.done)} finished attacks read from {journal_path}")
    t0 = time.perf_counter()
    try:
        entries, run = attack_examples(target, rows, config, uids=unit_ids("attack", rows, split), search=search,
                                       budget=budget, seed=seed, journal=journal, agree_with=others,
                                       max_attacked=max_attacked, candidates=candidates, progress=True,
                                       must_attack=True)
    finally:
        if journal is not None:
            journal.close()
    wall = time.perf_counter() - t0
    cols = log_columns(entries)
    reported = ("attack_success_rate", "f1_clean", "f1_adversarial") if ner else ("attack_success_rate", "clean_accuracy")
    metrics = {name: metric_value(attack.metric(name).formula, cols) for name in reported}
    if ner:
        metrics["f1_drop"] = metrics["f1_clean"] - metrics["f1_adversarial"]
    s = run["summary"]
    what = "the non-entity tokens" if ner else f"the {run['segment']}"
    echo(f"{model} on {config}/{split}, {search} search, budget {budget:.0%} of {what}:")
    if ner:
        echo(f"  entity F1 clean {metrics['f1_clean']:.4f} -> adversarial {metrics['f1_adversarial']:.4f} "
             f"(drop {100 * metrics['f1_drop']:.1f} points)")
    else:
        echo(f"  clean accuracy            {metrics['clean_accuracy']:.4f} ({s['examples']} examples)")
    echo(f"  attacked (correct{' for all models' if others else ''})  {s['attacked']}")
    echo(f"  attack success rate       {metrics['attack_success_rate']:.4f}   (lower is more robust)")
    echo(f"  modified share (success)  {s['modified_share_mean']:.4f}")
    echo(f"  queries per example       mean {s['queries_mean']:.1f}, median {s['queries_median']:.1f}")
    n_inputs = getattr(target, "queries", 0)
    echo(f"  wall time                 {wall:.1f} s ({wall / max(1, s['attacked']):.2f} s per attacked example; "
         f"{n_inputs / wall if wall else 0:.0f} model inputs/s, {getattr(target, 'n_forward', 0)} forward calls)")
    echo("  error types in successful attacks: " + ", ".join(f"{k} {v}" for k, v in s["error_types_in_successes"].items()))
    if getattr(target, "n_truncated", 0) or getattr(target, "n_windowed", 0):
        echo(f"  inputs longer than the model's limit: {getattr(target, 'n_truncated', 0)} truncated, "
             f"{getattr(target, 'n_windowed', 0)} tagged in windows")
    slug = model_slug(model)
    adv_name = save_adversarial(run, repo=repo, name=f"adv_{slug}_{config}_{search}", model=model,
                                revision=target.revision, config=config, split=split, search=search, budget=budget,
                                seed=seed, meta=meta)
    echo(f"  adversarial examples: config {adv_name!r} in {repo}")
    # the attack's summary, its scores as the log's formulas give them (the one definition of each)
    details = {k: metrics.get(k, v) for k, v in s.items() if k != "attack_success_rate"}
    details.update({"agree_with": list(agree_with), "adversarial_config": adv_name, "candidates": candidates,
                    **({"pipelines": attack_pipelines()} if candidates == "parse" else {}),
                    "n_truncated": getattr(target, "n_truncated", 0), "n_windowed": getattr(target, "n_windowed", 0)})
    rec = make_record(model_id=model, revision=target.revision, config=config, split=split,
                      corpus_sha256=meta["files"][split]["sha256"], metrics=metrics,
                      ranges={**attack.ranges, **_DROP_RANGE}, seed=seed, details=details)
    written = [write_record(rec, output_dir, tag=f"attack-{search}")]
    echo(f"  record: {written[0]}")
    if journal_path is not None:
        journal_path.unlink(missing_ok=True)
    if curve:
        c = budget_curve(run["objective"] if ner else target, run["targets"], search=search, seed=seed)
        echo("  success vs budget: " + ", ".join(f"{int(b * 100)}% {v:.3f}" for b, v in c.items()))
        paths = plot_budget_curve({f"{Path(model).name} ({search})": c}, output_dir / f"{slug}__{config}__{search}__budget",
                                  title=f"Attack success rate vs budget, {config}/{split}")
        echo(f"  figure: {', '.join(str(p) for p in paths)}")
        written += paths
    return written


def load_examples(repo: str | Path, config: str, split: str | None = None, limit: int | None = None):
    """Rows of a ``gec_*`` config (its original fields and labels), and the label names.

    Raises
    ------
    NotBuiltError
        If the config is not built or has no such split.
    AttackError
        If the config is not a sequence-classification config.
    """
    import datasets

    if config not in TASKS and config != "gec_conll2003":
        raise AttackError(f"attacks run on {', '.join(TASKS)} and gec_conll2003; got {config!r}")
    meta = built_config(repo, config, split or None)
    split = split or next(iter(meta["files"]))
    ds = datasets.load_dataset(str(repo), config, split=split)
    if limit is not None:
        ds = ds.select(range(min(limit, len(ds))))
    return ds, split, meta


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
