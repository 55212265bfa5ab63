"""Attack a classifier on a grammatical-error config and report as Yin et al. (2020) do.

Protocol (§3.3, §4): only examples the model predicts correctly are attacked; attack success
rate = successful attacks / attacked examples; also the mean share of modified tokens, the mean
and median number of model queries per example, and the error types used by successful attacks
(Table 4). ``agree_with`` restricts the attack to the examples that every listed model predicts
correctly, so rates can be compared across models (§4, last paragraph). A success-versus-budget
curve reruns the search for budgets of 15% to 45% of the segment (Fig. 1).
"""

from __future__ import annotations

import statistics as st
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from robust_bench.attacks.search import (SEARCHES, AttackJournal, AttackTarget, attack_many, success_at_budget,
                                        validate_targets)
from robust_bench.models.classifiers import Classifier
from robust_bench.perturb.gec import ERROR_TYPES, Operation, Token, render, tokens_from_doc
from robust_bench.scoring import attack_success_rate
from robust_bench import RobustBenchError

__all__ = ["AttackError", "TASKS", "CANDIDATES", "STORED_COLUMNS", "make_targets", "stored_target", "run_attack",
           "run_ner_attack", "budget_curve", "plot_budget_curve", "CURVE_BUDGETS"]

CURVE_BUDGETS = (0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.45)

#: Per config: the input fields in model order and the field the attack edits (§4).
TASKS = {
    "gec_mnli": (("premise", "hypothesis"), "hypothesis"),
    "gec_mrpc": (("sentence1", "sentence2"), "sentence1"),
    "gec_qnli": (("question", "sentence"), "sentence"),
    "gec_sst2": (("sentence",), "sentence"),
}


class AttackError(RobustBenchError, RuntimeError):
    """The attack cannot run with these inputs."""


#: the columns of the search space a ``gec_*`` config ships (builder 2.2.0 and later)
STORED_COLUMNS = ("original_tokens", "original_spaces", "original_heads", "original_deps", "attack_operations",
                  "attack_refusals")
#: where an attack's candidate operations come from: the data (``stored``) or a parse at run time
CANDIDATES = ("stored", "parse")


def stored_target(row, make_input, label: int, protected=frozenset(), no_insert_before=frozenset()) -> AttackTarget:
    """An attack target from a row's stored search space (:data:`STORED_COLUMNS`).

    The segment's tokens, trailing spaces, heads and relations, as the build parsed them, are what the
    searches' checks of combined edits read (``still_an_error``, ``article_agreement``); the operations
    are those :func:`robust_bench.attacks.search.validate_targets` kept at build time, in its order, and
    its refusals by check come with them. No pipeline is loaded.
    """
    tokens = [Token(text=w, tag="", pos="", dep=d, head=int(h), lemma="", space=bool(sp))
              for w, sp, h, d in zip(row["original_tokens"], row["original_spaces"], row["original_heads"],
                                     row["original_deps"])]
    ops = [Operation(e["type"], e["operation"], int(e["position"]), e["original"], e["replacement"])
           for e in row["attack_operations"]]
    return AttackTarget(tokens=tokens, make_input=make_input, label=label, protected=set(protected),
                        no_insert_before=set(no_insert_before), operations=ops,
                        refusals={x["check"]: int(x["count"]) for x in row["attack_refusals"]})


def _require_stored(rows, config: str) -> None:
    missing = [c for c in STORED_COLUMNS if c not in rows.column_names]
    if missing:
        raise AttackError(f"{config}: the data has no stored search space (columns {', '.join(missing)} are missing: "
                          "built by a grammatical-error builder before 2.2.0); rebuild it with `robust-bench build "
                          f"{config}`, or attack with candidates='parse' (--candidates parse)")


def make_targets(rows, config: str, nlp=None, *, candidates: str = "stored") -> list[AttackTarget]:
    """The attack targets of rows of a ``gec_*`` classification config.

    Parameters
    ----------
    rows : datasets.Dataset or sequence of dict
    config : str
        A key of :data:`TASKS`.
    nlp : spaCy Language, optional
        With ``candidates="parse"``: the pipeline that parses each attacked segment (default
        :func:`robust_bench.text.nlp.load_spacy`).
    candidates : {"stored", "parse"}
        ``"stored"``: the search space the data ships (:func:`stored_target`; operations already
        validated); ``"parse"``: parse the segment now (operations made and checked when attacked,
        :func:`robust_bench.attacks.search.validate_targets`).

    Raises
    ------
    AttackError
        With ``"stored"``, when the rows have no stored search space.
    """
    fields, segment = TASKS[config]

    def maker(r):
        def make_input(words, spaces, edits=()):
            text = render(words, spaces)
            vals = tuple(text if f == segment else r[f] for f in fields)
            return vals if len(vals) > 1 else vals[0]
        return make_input

    if candidates == "stored":
        _require_stored(rows, config)
        return [stored_target(r, maker(r), int(r["label"])) for r in rows]
    nlp = _nlp(nlp)
    docs = nlp.pipe([r[segment] for r in rows], disable=[p for p in ("ner",) if p in nlp.pipe_names], batch_size=256)
    return [AttackTarget(tokens=tokens_from_doc(doc), make_input=maker(r), label=int(r["label"]))
            for r, doc in zip(rows, docs)]


@dataclass
class _Row:
    idx: int
    result: Any


def run_attack(clf: Classifier, rows, config: str, *, search: str = "greedy", budget_rate: float = 0.15,
               seed: int = 0, agree_with: Sequence[Classifier] = (), nlp=None, progress: bool = True,
               positions: Sequence[int] | None = None, max_attacked: int | None = None,
               journal: AttackJournal | None = None, checks: str = "all",
               candidates: str = "stored") -> dict[str, Any]:
    """Attack every correctly predicted example.

    Parameters
    ----------
    clf : Classifier
    rows : datasets.Dataset
        Rows of a ``gec_*`` config.
    config : str
    search : {"greedy", "beam", "genetic"}
    budget_rate : float
        Share of the segment's tokens that may be modified.
    seed : int
    agree_with : sequence of Classifier
        Attack only examples that all of these also predict correctly.
    nlp : spaCy Language, optional
        With ``candidates="parse"``; default :func:`robust_bench.text.nlp.load_spacy`.
    positions : sequence of int of shape (n_rows,), optional
        Each row's index in its whole split (default 0..n-1). Example k is searched with seed
        ``seed * 100003 + positions[k]``, so a subset (a shard) gets the seeds the whole split gives.
    max_attacked : int, optional
        Attack only the first N correctly predicted rows (``rows`` bounds the rows read; this
        bounds the attacked examples).
    candidates : {"stored", "parse"}
        ``"stored"`` (the benchmark's): the searches draw from the validated operations the data
        ships (builder 2.2.0 and later), made at build time by :func:`validate_targets` with the
        build's pipelines and every check, so the attack needs the data and the model only. The
        combined-edit checks of the searches read the stored parse. With the build's pipelines,
        ``"parse"`` gives the same operations (a test checks it), but for a word-choice candidate
        whose cosine lies within 5e-5 of a meaning threshold (the encoder's batches differ: the build
        checks a chunk of 256 rows, the attack the attacked rows; cosines are rounded to 4 decimals);
        with other pipelines, other operations. Budget, queries and success are Yin et al.'s (§3.3,
        Alg. 1-3) either way.
        ``"parse"``: parse the attacked segments now with ``nlp`` and validate as ``checks`` says.
    checks : {"all", "static"}
        With ``candidates="parse"``: ``"all"`` also checks every word-choice substitute in context
        (same tag, meaning kept with ``$ROBUST_BENCH_SIMILARITY_MODEL``); ``"static"`` only the
        engine's own checks. Refusals by check are in the summary either way.
    journal : AttackJournal, optional
        Resume from, and add to, a journal of finished attacks (see :func:`attack_many`).

    Returns
    -------
    dict
        ``summary`` (attack success rate, attacked, successes, accuracy, modified share, queries,
        error types) and ``examples`` (one entry per attacked example).

    Raises
    ------
    AttackError
        On an unknown search or candidates, rows without a stored search space (``"stored"``), or
        when no example is predicted correctly.
    """
    _check_args(search, candidates, checks)
    if candidates == "stored":
        _require_stored(rows, config)
    else:
        nlp = _nlp(nlp)
    fields, segment = TASKS[config]
    clean = [tuple(r[f] for f in fields) if len(fields) > 1 else r[fields[0]] for r in rows]
    labels = np.asarray(rows["label"])
    correct = clf.predict(clean) == labels
    for other in agree_with:
        correct &= other.predict(clean) == labels
    idx = [int(i) for i in np.flatnonzero(correct)]
    if max_attacked is not None:
        idx = idx[:max_attacked]
    if not idx:
        raise AttackError("no example is predicted correctly (by every model), so nothing can be attacked")
    sub = rows.select(idx)
    targets = make_targets(sub, config, nlp, candidates=candidates)
    if candidates == "parse":
        validate_targets(targets, _checker(nlp, checks))
    pos = list(positions) if positions is not None else list(range(len(rows)))
    found = attack_many(clf, targets, search=search, budget_rate=budget_rate,
                        seeds=[seed * 100003 + pos[i] for i in idx], progress=progress, journal=journal)
    results = [_Row(i, r) for i, r in zip(idx, found)]
    succ = [r.result.success for r in results]
    ok = [r.result for r in results if r.result.success]
    shares = [r.result.modified / max(1, len(t.tokens)) for r, t in zip(results, targets) if r.result.success]
    queries = [r.result.queries for r in results]
    types = Counter(e["type"] for r in ok for e in r.edits)
    summary = {
        "attack_success_rate": attack_success_rate(succ),
        "attacked": len(results),
        "successes": int(sum(succ)),
        "examples": len(rows),
        "clean_accuracy": float(np.mean(clf.predict(clean) == labels)),
        "modified_share_mean": float(np.mean(shares)) if shares else 0.0,
        "queries_mean": float(np.mean(queries)),
        "queries_median": float(st.median(queries)),
        "error_types_in_successes": {t: types.get(t, 0) for t in ERROR_TYPES},
        "search": search,
        "budget_rate": budget_rate,
        "refusals": _refusals(targets),
    }
    return {"summary": summary, "examples": results, "targets": targets, "segment": segment, "fields": fields,
            "rows": sub}


def budget_curve(clf: Classifier, targets: Sequence[AttackTarget], *, search: str, seed: int = 0,
                 budgets: Sequence[float] = CURVE_BUDGETS) -> dict[float, float]:
    """Attack success rate for each budget (Yin et al., Fig. 1), on the same attacked examples.

    Greedy search runs once, at the largest budget: a smaller budget only cuts the same walk
    short, so :func:`robust_bench.attacks.search.success_at_budget` reads most outcomes off that
    run, and only the examples whose walk may differ (a candidate that no longer fits) are
    attacked again. Beam and genetic search run once per budget.

    Returns
    -------
    dict of float to float
        Budget rate to attack success rate, in the order of ``budgets``.
    """
    seeds = [seed * 100003 + k for k in range(len(targets))]
    out = {}
    if search != "greedy":
        for b in budgets:
            found = attack_many(clf, targets, search=search, budget_rate=b, seeds=seeds)
            out[b] = attack_success_rate([r.success for r in found])
        return out
    full = attack_many(clf, targets, search=search, budget_rate=max(budgets), seeds=seeds)
    for b in budgets:
        known = [success_at_budget(r, len(t.tokens), b) for r, t in zip(full, targets)]
        redo = [k for k, v in enumerate(known) if v is None]
        if redo:
            again = attack_many(clf, [targets[k] for k in redo], search=search, budget_rate=b,
                                seeds=[seeds[k] for k in redo])
            for k, r in zip(redo, again):
                known[k] = r.success
        out[b] = attack_success_rate(known)
    return out


def plot_budget_curve(curves: dict[str, dict[float, float]], out_stem: str | Path, *, title: str) -> list[Path]:
    """Attack success rate against the budget, one line per model or search; PNG and SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.6))
    for name, curve in curves.items():
        xs = sorted(curve)
        ax.plot([100 * x for x in xs], [100 * curve[x] for x in xs], marker="o", label=name)
    ax.set_xlabel("budget (% of segment tokens)")
    ax.set_ylabel("attack success rate (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    from robust_bench.io.fileio import save_figure

    return save_figure(fig, out_stem)


def run_ner_attack(tagger, rows, *, search: str = "greedy", budget_rate: float = 0.15, seed: int = 0,
                   agree_with: Sequence = (), nlp=None, progress: bool = True,
                   positions: Sequence[int] | None = None, checks: str = "all",
                   candidates: str = "stored") -> dict[str, Any]:
    """Attack a tagger on ``gec_conll2003`` rows (Yin et al., 2020, Table 3, NER column).

    A sentence is attacked when it has at least one entity and the tagger gets all its entities
    right; entity tokens are never edited, nothing is inserted inside an entity, and inserted
    tokens are tagged O. An attack succeeds when an entity error appears. The report adds the
    entity-level F1 (seqeval) on all rows before and after replacing the attacked sentences by
    their adversarial versions, and the F1 drop.

    Parameters
    ----------
    tagger : robust_bench.models.taggers.TokenClassifier
    rows : datasets.Dataset
        Rows of ``gec_conll2003``.
    search : {"greedy", "beam", "genetic"}
    budget_rate : float
        Share of the non-entity tokens that may be modified, in (0, 1].
    seed : int
    agree_with : sequence of TokenClassifier
        Attack only sentences whose entities all of these taggers also get right.
    nlp : spaCy Language, optional
    positions : sequence of int of shape (n_rows,), optional
        As in :func:`run_attack`.
    checks, candidates
        As in :func:`run_attack`.

    Returns
    -------
    dict
        As :func:`run_attack`. The entity F1 before and after comes from the attack's log lines, by
        the formula :data:`robust_bench.evaluations.gec.attack` declares (its one definition).

    Raises
    ------
    AttackError
        On an unknown search or candidates, rows without a stored search space (``"stored"``), or
        when no sentence with entities is tagged correctly (by every tagger).
    """
    from seqeval.metrics.sequence_labeling import get_entities

    from robust_bench.models.taggers import EntityObjective
    from robust_bench.perturb.gec import realign_tags

    _check_args(search, candidates, checks)
    if candidates == "stored":
        _require_stored(rows, "gec_conll2003")
    else:
        nlp = _nlp(nlp)
    names = rows.features["ner_tags"].feature.names
    words = [list(r) for r in rows["tokens"]]
    gold = [[names[t] for t in r] for r in rows["ner_tags"]]
    pred = tagger.predict(words)
    preds = [pred] + [other.predict(words) for other in agree_with]
    ok = [k for k, g in enumerate(gold)
          if get_entities(g) and all(get_entities(g) == get_entities(p[k]) for p in preds)]
    if not ok:
        raise AttackError("no sentence with entities is tagged correctly (by every tagger), so nothing can be attacked")
    objective = EntityObjective(tagger)
    tokens = _ner_tokens(rows, ok, words, nlp) if candidates == "parse" else None
    targets = []
    for j, k in enumerate(ok):
        tags = gold[k]

        def make_input(ws, spaces, edits=(), tags=tags):
            return (tuple(ws), tuple(realign_tags(tags, edits, fill="O")))
        protected = {i for i, t in enumerate(tags) if t != "O"}
        no_insert = {i for i, t in enumerate(tags) if t.startswith("I-")}
        if tokens is None:
            targets.append(stored_target(rows[k], make_input, 0, protected, no_insert))
        else:
            targets.append(AttackTarget(tokens=tokens[j], make_input=make_input, label=0, protected=protected,
                                        no_insert_before=no_insert))
    if candidates == "parse":
        validate_targets(targets, _checker(nlp, checks))
    pos = list(positions) if positions is not None else list(range(len(rows)))
    found = attack_many(objective, targets, search=search, budget_rate=budget_rate,
                        seeds=[seed * 100003 + pos[k] for k in ok], progress=progress)
    results = [_Row(k, r) for k, r in zip(ok, found)]
    succ = [r.result.success for r in results]
    shares = [r.result.modified / max(1, len(t.tokens)) for r, t in zip(results, targets) if r.result.success]
    queries = [r.result.queries for r in results]
    types = Counter(e["type"] for r in results if r.result.success for e in r.result.edits)
    summary = {"attack_success_rate": attack_success_rate(succ), "attacked": len(results),
               "successes": int(sum(succ)), "examples": len(rows), "modified_share_mean": float(np.mean(shares)) if shares else 0.0,
               "queries_mean": float(np.mean(queries)), "queries_median": float(st.median(queries)),
               "error_types_in_successes": {t: types.get(t, 0) for t in ERROR_TYPES}, "search": search,
               "budget_rate": budget_rate, "refusals": _refusals(targets)}
    return {"summary": summary, "examples": results, "targets": targets, "rows": rows.select(ok),
            "objective": objective, "names": names}


def _check_args(search: str, candidates: str, checks: str) -> None:
    if search not in SEARCHES:
        raise AttackError(f"unknown search {search!r}; expected one of {SEARCHES}")
    if candidates not in CANDIDATES:
        raise AttackError(f"candidates must be one of {CANDIDATES}, got {candidates!r}")
    if checks not in ("all", "static"):
        raise AttackError(f"checks must be 'all' or 'static', got {checks!r}")


def _nlp(nlp):
    from robust_bench.text.nlp import load_spacy

    return nlp or load_spacy()


def _ner_tokens(rows, ok: Sequence[int], words, nlp) -> list[list[Token]]:
    """The parse of the sentences ``ok`` of a ``gec_conll2003`` split, tokenised as the source is."""
    from spacy.tokens import Doc

    docs = nlp.pipe([Doc(nlp.vocab, words=words[k], spaces=[True] * (len(words[k]) - 1) + [False]) for k in ok],
                    disable=[p for p in ("ner",) if p in nlp.pipe_names])
    return [tokens_from_doc(doc) for doc in docs]


def _pipeline_id(nlp) -> str:
    meta = getattr(nlp, "meta", {}) or {}
    return f"{meta.get('lang', '?')}_{meta.get('name', '?')}-{meta.get('version', '?')}"


def attack_pipelines(nlp=None, checks: str = "all") -> dict[str, str]:
    """What an attack's candidates depend on besides the model and the seed: the spaCy pipeline that
    proposes the edits and, with ``checks="all"``, the second tagger and the meaning check's encoder,
    each named as ``lang_name-version`` (or the encoder's folder or Hub name). Recorded in a run's
    task details, so that a re-run (``leaderboard verify``) can tell another set-up from other
    predictions.

    Raises
    ------
    SpacyModelError, OSError
        If a pipeline cannot be loaded.
    """
    from robust_bench.perturb.checks import load_second_tagger, resolve_meaning_model
    from robust_bench.text.nlp import load_spacy

    out = {"spacy": _pipeline_id(nlp or load_spacy())}
    if checks == "all":
        out["second_tagger"] = _pipeline_id(load_second_tagger())
        out["meaning_encoder"] = resolve_meaning_model().rstrip("/").rsplit("/", 1)[-1]
    return out


def _checker(nlp, checks: str):
    """The in-context checks of an attack: ``"all"`` (same tag and meaning kept) or ``"static"``
    (none beyond the engine's own)."""
    from robust_bench.perturb.checks import InContextChecks, MeaningKept, load_second_tagger

    return InContextChecks(nlp, MeaningKept(), load_second_tagger()) if checks == "all" else None


def _refusals(targets) -> dict[str, int]:
    """Candidate operations refused by each validity check, summed over the attacked examples."""
    out: Counter = Counter()
    for t in targets:
        out.update(t.refusals)
    return dict(sorted(out.items()))
