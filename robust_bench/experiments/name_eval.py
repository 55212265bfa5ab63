"""Scoring on named-entity swaps (Balasubramanian et al., 2020, Alg. 1 and Table 3), and the RESEMBLE
defence (§4, Eq. 2).

For a built ``names_*`` config, every row of a split is predicted once, in one batched call
(variant 0 is the original; no input is scored twice), and reported as the paper does:

* **original**: the score on the variant-0 rows;
* **worst / best**: per group, the swapped variant with the lowest / highest per-example score
  (:func:`robust_bench.scoring.worst_best_rows`), scored as a set (D_worst, D_best);
* **random**: the mean and standard deviation over the 10 copies of the ``random`` split;
* **stability**: the share of groups whose prediction is the same for the original and all variants.

The task metric is the F1 of the positive class for MRPC (as the paper), entity F1 (seqeval) for
NER, and for coreference MUC, B³, CEAFe, CoNLL F1 and LEA over the gold clusters of the swapped
entities, pooled over documents (:mod:`robust_bench.scoring.coref`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from robust_bench.scoring import stability_details, worst_best_rows
from robust_bench import RobustBenchError

__all__ = ["NameEvalError", "load_name_sets", "score_classifier", "score_tagger", "score_coref", "format_table",
           "Resemble", "resemble_mixture", "canonical_candidates", "choose_canonical_names", "entity_kind", "plot_frequency", "plot_spread", "canonical_entities"]


class NameEvalError(RobustBenchError, ValueError):
    """The config is not a built ``names_*`` config, or lacks a split."""


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

    from robust_bench.data.repository import built_config

    if not config.startswith("names_"):
        raise NameEvalError(f"expected a names_* config (names_mrpc, names_conll2003, names_coref); got {config!r}")
    meta = built_config(repo, config)
    return {sp: datasets.load_dataset(str(repo), config, split=sp) for sp in meta["files"]}, meta


def _summary(metric, scores_per_row, preds_canon, groups, variants, rows=None) -> dict:
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
    from robust_bench.perturb.organisations import SECTORS

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
    from collections import Counter, defaultdict

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


def score_classifier(clf, rows, random_rows=None, *, positive: int = 1) -> dict[str, Any]:
    """Table-3 scores of a sequence classifier on ``names_mrpc`` rows.

    Parameters
    ----------
    clf : robust_bench.models.classifiers.Classifier
    rows : datasets.Dataset
        The ``test`` (or ``validation``) split: variant 0 and B swapped variants per group.
    random_rows : datasets.Dataset, optional
        The ``random`` split (10 copies, ``variant`` = copy number).
    positive : int
        Index of the positive class, whose F1 is reported (``equivalent`` for MRPC).

    Returns
    -------
    dict
        ``original``, ``worst``, ``best``, ``random_mean``, ``random_std`` (F1 of the positive
        class, in [0, 1]), ``accuracy_original``, ``stability``, ``groups``, ``variants``, ``queries``.
    """
    inputs = list(zip(rows["sentence1"], rows["sentence2"]))
    extra = list(zip(random_rows["sentence1"], random_rows["sentence2"])) if random_rows is not None else []
    preds_all = clf.predict(inputs + extra)
    preds, rpreds = preds_all[:len(inputs)], preds_all[len(inputs):]
    gold = np.asarray(rows["label"])
    correct = (preds == gold).astype(float)

    def f1(idx, p=preds, g=gold):
        idx = np.asarray(idx, dtype=int)
        return _positive_f1(g[idx], p[idx], positive) if len(idx) else float("nan")

    out = _summary(f1, correct, [int(p) for p in preds], rows["group_id"], rows["variant"], rows)
    if random_rows is not None:
        rg, rv = np.asarray(random_rows["label"]), np.asarray(random_rows["variant"])
        vals = [f1(np.where(rv == c)[0], rpreds, rg) for c in sorted(set(rv.tolist()))]
        out["random_mean"], out["random_std"] = float(np.mean(vals)), float(np.std(vals))
    orig = np.asarray(rows["variant"]) == 0
    out["accuracy_original"] = float(correct[orig].mean())
    out["queries"] = clf.queries
    return out


def _positive_f1(gold: np.ndarray, pred: np.ndarray, positive: int) -> float:
    tp = int(((pred == positive) & (gold == positive)).sum())
    fp = int(((pred == positive) & (gold != positive)).sum())
    fn = int(((pred != positive) & (gold == positive)).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def canonical_entities(tags: Sequence[str], edits, n_original: int) -> str:
    """Predicted entity spans of a row, in the original's coordinates, as a canonical string."""
    from robust_bench.perturb.names import mentions_from_tags, span_map_from_edits

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


def _sentence_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Entity F1 of one sentence, as seqeval's ``f1_score`` gives it (default mode, entities from its
    ``get_entities``): 2·tp / (predicted + gold); 1.0 when neither has an entity. One call per row of
    a 50,000-row config: seqeval's own ``f1_score`` per sentence costs a third of the scoring time."""
    from seqeval.metrics.sequence_labeling import get_entities

    g, p = set(get_entities(list(gold))), set(get_entities(list(pred)))
    if not g and not p:
        return 1.0
    return 2 * len(g & p) / (len(g) + len(p))


def score_tagger(tagger, rows, random_rows=None) -> dict[str, Any]:
    """Table-3 scores of a tagger on ``names_conll2003``: entity F1 (seqeval, micro) on the
    original, D_worst, D_best and the random copies; per-example score is the sentence's entity F1.

    Returns
    -------
    dict
        As :func:`score_classifier`, with entity F1 in [0, 1].
    """
    from seqeval.metrics import f1_score

    names = rows.features["ner_tags"].feature.names
    sents = [tuple(t) for t in rows["tokens"]]
    rsents = [tuple(t) for t in random_rows["tokens"]] if random_rows is not None else []
    pred_all = tagger.predict(sents + rsents)
    preds, rpreds = pred_all[:len(sents)], pred_all[len(sents):]
    gold = [[names[t] for t in tags] for tags in rows["ner_tags"]]

    def f1(idx, p=preds, g=gold):
        idx = list(idx)
        return float(f1_score([g[i] for i in idx], [p[i] for i in idx])) if idx else float("nan")

    per_row = [_sentence_f1(gold[i], preds[i]) for i in range(len(gold))]
    n_orig = [len(t) for t in rows["original_tokens"]]
    canon = [canonical_entities(p, e, n) for p, e, n in zip(preds, rows["edits"], n_orig)]
    out = _summary(f1, per_row, canon, rows["group_id"], rows["variant"], rows)
    if random_rows is not None:
        rgold = [[names[t] for t in tags] for tags in random_rows["ner_tags"]]
        rv = np.asarray(random_rows["variant"])
        vals = [f1(np.where(rv == c)[0], rpreds, rgold) for c in sorted(set(rv.tolist()))]
        out["random_mean"], out["random_std"] = float(np.mean(vals)), float(np.std(vals))
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
    from robust_bench.perturb.names import span_map_from_edits
    from robust_bench.scoring.coref import coref_scores, restrict_to_clusters

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
        from robust_bench.text.nlp import map_entity_label

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
    from collections import Counter

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

    from robust_bench.io.fileio import save_figure

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

    from robust_bench.io.fileio import save_figure

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
