"""Jabberwocky probing (Hall Maudslay & Cotterell, 2021, §4, §5.1 and App. B): the ``probe``
evaluation, the views of ``robust-bench probe`` (the per-layer table, Fig. 3, ``probe-figure``) and
``baselines``.

A structural (or perceptron) probe is trained on the model's representations of plain EWT train,
its layer chosen by development loss, then scored on the same test trees twice: with the plain words
and with pseudowords that keep every tree. Metrics: UUAS (punctuation excluded) and DSpr (Hewitt &
Manning, 2019, §3.1: Spearman correlations averaged over sentences of each length 5-50, then over
lengths) on both; a model whose syntax rests on semantics loses more on Jabberwocky text. The
model-free Path and Majority baselines (§5.1) ignore the words, so they score plain and Jabberwocky
text alike. The probing run itself is :func:`robust_bench.experiments.jabberwocky.run_probing`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from robust_bench.evaluations import (EvalOutput, EvaluationError, Metric, Tolerance, input_sha256, log_entry, ratio,
                                      register_evaluation, unit_ids)
from robust_bench.scoring import dspr_sentence_sums, punctuation_masks, uuas_counts
from robust_bench.scoring.intervals import Formula
from robust_bench.experiments.baselines import MAJORITY_MAX_LENGTH, MajorityBaseline, path_distances, source_trees
from robust_bench.experiments.jabberwocky import ProbeSettings, run_probing
from robust_bench.io.fileio import pyplot, save_figure
from robust_bench.results.runs import read_manifest

__all__ = ["probe", "baseline", "probe_results", "probe_figure", "rep_name", "lead_table", "plot_probe_records"]


def _dspr(variant: str) -> Formula:
    return Formula("dspr", (f"dspr_rho_sum_{variant}", f"dspr_rows_{variant}", "length"))


@register_evaluation(
    name="probe", family="jabberwocky",
    metrics=(Metric("uuas_plain", ratio("uuas_correct_plain", "uuas_total_plain")),
             Metric("uuas_jabberwocky", ratio("uuas_correct_jabberwocky", "uuas_total_jabberwocky")),
             Metric("dspr_plain", _dspr("plain"), range=(-1.0, 1.0)),
             Metric("dspr_jabberwocky", _dspr("jabberwocky"), range=(-1.0, 1.0))),
    pairs=(("uuas_plain", "uuas_jabberwocky"), ("dspr_plain", "dspr_jabberwocky")),
    tolerance=Tolerance("metrics", max_metric_diff=0.02), hub_task_type="feature-extraction", cluster="sent_id",
    title="Jabberwocky EWT (Hall Maudslay & Cotterell, 2021)")
def probe(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of a Jabberwocky probe: one per test sentence scored on both variants.

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        An encoder (any transformers model).
    task
        The suite task: ``options`` ``probe`` (structural, the default, or perceptron), the probing
        settings ``layers``, ``trials``, ``epochs``, ``batch_size``, ``patience``, ``max_train_sentences``,
        and (``robust-bench probe``'s choices) ``train_on``, ``variant``, ``precision``, ``static_vectors``,
        ``max_sentences`` (:class:`~robust_bench.experiments.jabberwocky.ProbeSettings`) and ``pooling``.
    rows : datasets.Dataset
        The test rows to score.
    positions : sequence of int
        Their indices in the test split; training uses the whole train split.
    seed : int
    repo : path-like
        The dataset repository (train and validation splits).
    work : path-like, optional
        Finished probe searches are kept there, so a killed run resumes.

    Returns
    -------
    EvalOutput
        Per sentence: UUAS counts and DSpr sums for both variants, and its length. Details: the probe,
        the selected layer, and ``results``, every representation's scores on the scored sentences
        (:func:`probe_results` reads them: the per-layer table and Fig. 3 are views of them), with the
        model-free ``baselines``. Extras: ``run``, what
        :func:`~robust_bench.experiments.jabberwocky.run_probing` returned.

    Raises
    ------
    EvaluationError
        On an unknown probe option.
    """
    opts = dict(task.options)
    kind = opts.pop("probe", "structural")
    pooling = opts.pop("pooling", "first")
    known = {"layers", "trials", "epochs", "batch_size", "patience", "max_train_sentences", "train_on", "variant",
             "precision", "static_vectors", "max_sentences"}
    bad = sorted(set(opts) - known)
    if bad:
        raise EvaluationError(f"task {task.name!r}: unknown probe options {bad}; known: {sorted(known)}")
    if "layers" in opts:
        opts["layers"] = tuple(opts["layers"])
    settings = ProbeSettings(probes=(kind,), seed=seed, **opts)
    # the model it was given, as an encoder; the probe trains on the config's train and validation splits (read
    # from repo: the method's training data, not the task's rows) and is scored on the task's test rows
    run = run_probing(model.encoder(pooling=pooling), repo=repo, config=task.config, settings=settings, progress=False,
                      test_indices=positions, per_sentence=True,
                      checkpoint_dir=None if work is None else Path(work) / "probe")
    layer = run["selected"][kind]
    per = {r["variant"]: r["per_sentence"] for r in run["results"] if r["representation"] == layer}
    by_id = {str(i): k for k, i in enumerate(rows["id"])}
    out = []
    for k, sid in enumerate(run["test_ids"]):
        row = rows[by_id[sid]]
        outcome = {"length": next(iter(per.values()))[k]["length"]}
        for v in ("plain", "jabberwocky"):    # trained and tested on Jabberwocky only: the plain fields count 0
            s = per[v][k] if v in per else {"uuas_correct": 0, "uuas_total": 0}
            outcome.update({f"uuas_correct_{v}": s["uuas_correct"], f"uuas_total_{v}": s["uuas_total"],
                            f"dspr_rho_sum_{v}": s.get("dspr_rho_sum", 0.0), f"dspr_rows_{v}": s.get("dspr_rows", 0)})
        out.append(log_entry(sid, input_sha256(row["original_tokens"], row["tokens"]),
                             {"layer": layer}, {"head": list(row["head"])}, outcome))
    details = {"probe": kind, "selected_layer": layer, "layers": run["layers"], "n_test_scored": run["n_test"],
               "n_test_rows": len(rows), "trial": next(r["trial"] for r in run["results"] if r["representation"] == layer),
               "train_on": run["train_on"], "alignment_dropped": run["dropped"],
               "results": [{"representation": r["representation"], "variant": r["variant"], "metrics": r["metrics"],
                            "dev_loss": r["dev_loss"], "trial": r["trial"], "details": r["details"]}
                           for r in run["results"]],
               "baselines": run["baselines"]}
    return EvalOutput(out, details, extras={"run": run})


def rep_name(rep) -> str:
    return f"layer {rep}" if isinstance(rep, int) else str(rep)


def lead_table(run: dict[str, Any]) -> str:
    """Plain-text table: the selected layer's UUAS/DSpr, plain and Jabberwocky, and its lead
    (in points of UUAS or DSpr x 100) over layer 0, Fast+Pos, Path and Majority."""
    lines = []
    variants = sorted({r["variant"] for r in run["results"]}, key=lambda v: (v != "plain", v))
    for kind, sel in run["selected"].items():
        rows = {(r["representation"], r["variant"]): r["metrics"] for r in run["results"] if r["probe"] == kind}
        metrics = ["uuas", "dspr"] if kind == "structural" else ["uuas"]
        lines.append(f"{kind} probe on {run['model']} (selected: layer {sel}; trained on {run['train_on']}; "
                     f"{run['n_test']}/{run['n_test_total']} test sentences aligned)")
        head = f"  {'representation':<16}" + "".join(f"{m.upper() + ' ' + v[:5]:>14}" for m in metrics for v in variants)
        lines.append(head)
        reps = sorted({rep for rep, _ in rows}, key=lambda x: (not isinstance(x, int), x if isinstance(x, int) else 0))
        for rep in reps:
            mark = " *" if rep == sel else ""
            lines.append(f"  {rep_name(rep) + mark:<16}" + "".join(
                f"{rows[(rep, v)][m]:>14.4f}" for m in metrics for v in variants))
        for name, by_v in run["baselines"].items():
            lines.append(f"  {name:<16}" + "".join(f"{by_v[v][m]:>14.4f}" for m in metrics for v in variants))
        lines.append("  lead of the selected layer, in points (x100):")
        comps = [("layer 0", {v: rows[(0, v)] for v in variants})] if sel != 0 else []
        if any(rep == "fast+pos" for rep, _ in rows):
            comps.append(("fast+pos", {v: rows[("fast+pos", v)] for v in variants}))
        comps += [(name, {v: by_v[v] for v in variants}) for name, by_v in run["baselines"].items()]
        for name, by_v in comps:
            lines.append(f"    over {name:<12}" + "".join(
                f"{100 * (rows[(sel, v)][m] - by_v[v][m]):>+14.1f}" for m in metrics for v in variants))
        lines.append("")
    return "\n".join(lines)


def _check_probe_record(n: int, rec: dict, metric: str) -> None:
    d = rec["details"]
    base = d.get("baselines" if metric == "uuas" else "baselines_dspr")
    problems = {
        "details.probe": isinstance(d.get("probe"), str),
        "variant": rec.get("variant") in ("plain", "jabberwocky"),
        "details.layer": d.get("layer") is None or (isinstance(d.get("layer"), int) and not isinstance(d["layer"], bool)),
        "details.selected_layer": isinstance(d.get("selected_layer", False), bool),
        "details.baselines": isinstance(base, dict) and all(isinstance(v, (int, float)) for v in base.values()),
    }
    for field, ok in problems.items():
        if not ok:
            raise EvaluationError(f"record {n} ({rec['model']['id']}): field {field!r} has the wrong type or value "
                             "for a probe record")


def plot_probe_records(records: Sequence[dict], out_stem: str | os.PathLike, *, metric: str = "uuas") -> list[Path]:
    """Bar chart in the style of Fig. 3 of Hall Maudslay & Cotterell (2021).

    For each (model, probe), two bars: plain and Jabberwocky scores of the selected layer, each
    with the part that layer 0 already reaches drawn hatched inside it. Dashed lines mark the
    Path and Majority baselines. Written as PNG and SVG.

    Parameters
    ----------
    records : sequence of dict
        Probe results of one or more models (:func:`probe_results`).
    out_stem : path-like
        Output path without extension.
    metric : {"uuas", "dspr"}

    Returns
    -------
    list of pathlib.Path
        The PNG and SVG files.

    Raises
    ------
    EvaluationError
        If no result carries ``metric`` for a selected layer, or a result's ``variant`` or ``details``
        (``probe``, ``layer``, ``selected_layer``, ``baselines``) have the wrong type (naming the result
        and the field).
    """
    plt = pyplot()

    groups: dict[tuple[str, str], dict] = {}
    for n, rec in enumerate(records, start=1):
        d = rec.get("details", {})
        if metric not in rec["metrics"] or "probe" not in d:
            continue
        _check_probe_record(n, rec, metric)
        key = (rec["model"]["id"], d["probe"])
        g = groups.setdefault(key, {"sel": {}, "l0": {}, "base": {}})
        if d.get("selected_layer"):
            g["sel"][rec["variant"]] = rec["metrics"][metric]
            g["base"][rec["variant"]] = d["baselines"] if metric == "uuas" else d["baselines_dspr"]
        if d.get("layer") == 0:
            g["l0"][rec["variant"]] = rec["metrics"][metric]
    groups = {k: v for k, v in groups.items() if v["sel"]}
    if not groups:
        raise EvaluationError(f"no selected-layer records with {metric!r}")
    keys = sorted(groups)
    colours = {"plain": "#4C72B0", "jabberwocky": "#DD8452"}
    fig, ax = plt.subplots(figsize=(max(4.5, 1.8 + 1.6 * len(keys)), 4))
    width = 0.38
    for gi, key in enumerate(keys):
        g = groups[key]
        for vi, variant in enumerate(("plain", "jabberwocky")):
            if variant not in g["sel"]:
                continue
            x = gi + (vi - 0.5) * width
            ax.bar(x, g["sel"][variant], width, color=colours[variant],
                   label=variant.capitalize() if gi == 0 else None)
            if variant in g["l0"]:
                ax.bar(x, min(g["l0"][variant], g["sel"][variant]), width, color="none", edgecolor="black",
                       hatch="//", linewidth=0.6, label="layer 0" if gi == 0 and vi == 0 else None)
            ax.text(x, g["sel"][variant] + 0.01, f"{g['sel'][variant]:.2f}", ha="center", fontsize=8)
    first = groups[keys[0]]["base"].get("plain") or next(iter(groups[keys[0]]["base"].values()))
    for name, style in (("path", "--"), ("majority", ":")):
        if name in first:
            ax.axhline(first[name], color="grey", linestyle=style, linewidth=1, label=name.capitalize())
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{Path(m).name}\n{p}" for m, p in keys], fontsize=8)
    ax.set_ylabel(metric.upper())
    ax.set_ylim(0, 1)
    ax.set_title(f"{metric.upper()}: plain vs Jabberwocky test", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()

    return save_figure(fig, out_stem)


def probe_results(model_id: str, details: dict) -> list[dict]:
    """The per-representation scores a ``probe`` task recorded (its ``run.json`` details), one dict per
    (representation, variant) in the shape :func:`plot_probe_records` reads: ``model.id``, ``variant``,
    ``metrics`` (``uuas``, and ``dspr`` for the structural probe) and ``details`` (``probe``, ``layer``,
    ``representation``, ``selected_layer``, ``baselines``, ``baselines_dspr``, ``dev_loss``, ``trial``,
    ``train_on`` and the result's own details: punctuation rule, alignment).

    Raises
    ------
    EvaluationError
        If the details are not a probe task's (no ``results``).
    """
    if not isinstance(details, dict) or not isinstance(details.get("results"), list) or "probe" not in details:
        raise EvaluationError("not the details of a probe task (robust-bench probe or run on jabberwocky_ewt): "
                              "no 'probe' or 'results'")
    out = []
    for r in details["results"]:
        rep = r["representation"]
        base = details.get("baselines") or {}
        out.append({"model": {"id": model_id}, "variant": r["variant"], "metrics": r["metrics"],
                    "details": {"probe": details["probe"], "layer": rep if isinstance(rep, int) else None,
                                "representation": rep_name(rep), "selected_layer": rep == details["selected_layer"],
                                "baselines": {n: v[r["variant"]]["uuas"] for n, v in base.items()},
                                "baselines_dspr": {n: v[r["variant"]]["dspr"] for n, v in base.items()},
                                "dev_loss": r["dev_loss"], "trial": r["trial"], "train_on": details.get("train_on"),
                                **(r.get("details") or {})}})
    return out


def probe_figure(run_dirs: Sequence[str | Path], out: str | Path, *, metric: str = "uuas") -> list[Path]:
    """``robust-bench probe-figure``: several models' probe runs side by side (Fig. 3), from the run folders
    ``robust-bench probe`` (or ``run`` on a suite with a probe task) wrote.

    Raises
    ------
    RunFolderError
        A folder that is not a run folder (naming the file and the field).
    EvaluationError
        No finished probe task in the folders, no selected-layer result with ``metric``, or a probe task's
        details of the wrong type.
    """
    rows = []
    for d in run_dirs:
        manifest = read_manifest(d)
        for name, state in manifest["tasks"].items():
            details = state.get("details") or {}
            if state.get("status") == "done" and "results" in details and "probe" in details:
                rows += probe_results(manifest["model"], details)
    if not rows:
        raise EvaluationError(f"no finished probe task in {', '.join(str(d) for d in run_dirs)}")
    return plot_probe_records(rows, out, metric=metric)


@register_evaluation(
    name="baseline", family="jabberwocky", metrics=probe.metrics, pairs=probe.pairs,
    tolerance=Tolerance("lines"), hub_task_type="feature-extraction")
def baseline(model, task, rows, positions, seed, repo, work=None) -> EvalOutput:
    """Log lines of a model-free baseline (Hall Maudslay & Cotterell, 2021, §5.1): Path or Majority scored on
    each test sentence as a probe is, on the plain source sentence and on its Jabberwocky row.

    The metrics are the ``probe`` evaluation's, with its fields and formulas: ``uuas_plain``,
    ``uuas_jabberwocky`` (in [0, 1], punctuation excluded by one rule for the scored rows,
    :func:`robust_bench.scoring.punctuation_masks`) and ``dspr_plain``, ``dspr_jabberwocky`` (in [-1, 1],
    sentences of 5-50 words). The baselines ignore the words, so both variants score the same whenever the
    Jabberwocky trees equal their source (``robust-bench baselines`` checks it).

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
        ``baseline:path`` (each word linked to the next) or ``baseline:majority`` (per sentence length, the
        maximum spanning tree of the training trees' undirected edges; Path past 40 words or for a length
        training lacks).
    task
        The suite task: a Jabberwocky config and split; ``options`` ``source`` (a local mirror of the
        source treebank, whose training trees Majority is fitted on and whose plain sentences are scored;
        default ``$ROBUST_BENCH_SOURCES``).
    rows : datasets.Dataset
        The rows to score: ``id``, ``sent_id``, ``original_tokens``, ``tokens``, ``head``, ``upos``, ``xpos``.
    positions, seed, repo, work
        Unused.

    Returns
    -------
    EvalOutput
        Per sentence: prediction ``edges`` (0-based undirected edges of the baseline's tree) and
        ``path_fallback`` (Majority fell back to Path); gold ``head``; outcome the probe's fields per variant
        and ``length``. Details: ``baseline``, ``punctuation_rule``, ``train_sentences``, ``max_length``,
        ``path_fallback_sentences``, ``source_sha256`` (the plain test file's).

    Raises
    ------
    EvaluationError
        A model that is not a baseline, or an unknown option.
    BaselineCheckError
        A config that is not a Jabberwocky config, or a row whose sentence is not in the source.
    ConlluError, SourceNotFoundError
        A malformed or missing source treebank.
    """
    if model.spec.kind != "baseline":
        raise EvaluationError(f"task {task.name!r}: the baseline evaluation scores baseline:path or baseline:majority, "
                              f"not {model.spec.id!r}")
    bad = sorted(set(task.options) - {"source"})
    if bad:
        raise EvaluationError(f"task {task.name!r}: unknown option(s) {bad} of the baseline evaluation; known: source")
    src = source_trees(task.config, list(rows["sent_id"]), split=task.split, source=task.options.get("source"))
    majority = MajorityBaseline().fit(src["train_heads"]) if model.spec.target == "majority" else None
    names = rows.features["upos"].feature.names
    variants = {"plain": ([s.heads for s in src["plain"]], [s.upos for s in src["plain"]], [s.xpos for s in src["plain"]]),
                "jabberwocky": (rows["head"], [[names[t] for t in r] for r in rows["upos"]], rows["xpos"])}
    masks, rules = {}, {}
    for v, (_, upos, xpos) in variants.items():
        masks[v], rules[v] = punctuation_masks(upos, xpos)
    out = []
    for k, uid in enumerate(unit_ids("baseline", rows, task.split)):
        outcome, pred = {"length": len(rows[k]["head"])}, None
        for v, (heads, _, _) in variants.items():
            h = list(heads[k])
            before = majority.n_fallback if majority is not None else 0
            dist = majority.predict_distances(len(h)) if majority is not None else path_distances(len(h))
            c = uuas_counts([h], [dist], punctuation=[masks[v][k]])
            rho, n = dspr_sentence_sums(h, dist) if 5 <= len(h) <= 50 else (0.0, 0)
            outcome.update({f"uuas_correct_{v}": c.correct, f"uuas_total_{v}": c.total, f"dspr_rho_sum_{v}": rho,
                            f"dspr_rows_{v}": n})
            if v == "jabberwocky":
                fallback = majority is not None and majority.n_fallback > before
                edges = np.argwhere(np.triu(dist == 1)).tolist()        # the baseline's tree: distance-1 pairs
                pred = {"edges": edges, "path_fallback": bool(fallback)}
        row = rows[k]
        out.append(log_entry(uid, input_sha256(row["original_tokens"], row["tokens"]), pred, {"head": list(row["head"])},
                             outcome))
    details = {"baseline": model.spec.target, "punctuation_rule": rules["jabberwocky"],
               "punctuation_rule_plain": rules["plain"], "train_sentences": len(src["train_heads"]),
               "max_length": MAJORITY_MAX_LENGTH,
               "path_fallback_sentences": sum(e["prediction"]["path_fallback"] for e in out),
               "source_sha256": src["sha256"]}
    return EvalOutput(out, details)
