"""Jabberwocky probing experiments (Hall Maudslay & Cotterell, 2021): train probes on a model's
representations and score them on plain and Jabberwocky EWT.

Protocol (App. B): probes are trained on plain EWT train and selected on plain validation
(random search over learning rate, rank and dropout; the trial and, for the headline number,
the layer with the lowest development loss win). The same trained probe is scored on plain
test and Jabberwocky test. Test sentences are those that the encoder could align in both
variants, so the two scores are over the same trees. Baselines: layer 0 of the same model,
Path and Majority, and Fast+Pos when a static vector file is given. ``train_on="jabberwocky"``
runs the experiment the paper asks for (§5.3, §6): train and select on Jabberwocky train and
validation, test on Jabberwocky test.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from robust_bench.experiments.baselines import score_baselines
from robust_bench.experiments.probes import (PROBES, VARIANTS as TRAINING_VARIANTS, predict_distances,
                                             prepare_search_data, random_search, resolve_precision, sample_trials)
from robust_bench.scoring import dspr_details, dspr_sentence_sums, punctuation_masks, uuas_counts
from robust_bench import RobustBenchError

__all__ = ["ProbeSettings", "default_layers", "load_static_vectors", "run_probing", "ProbingError"]

VARIANTS = ("plain", "jabberwocky")


class ProbingError(RobustBenchError, RuntimeError):
    """The probing experiment cannot run with these inputs."""


@dataclass
class ProbeSettings:
    """Settings of a probing run; defaults are the paper's (App. B)."""

    probes: tuple[str, ...] = PROBES
    layers: tuple[int, ...] | None = None
    trials: int = 10
    epochs: int = 20
    batch_size: int = 64
    patience: int = 2
    seed: int = 0
    train_on: str = "plain"
    max_sentences: int | None = None
    max_train_sentences: int | None = None
    static_vectors: str | None = None
    #: "scaled" (default) or "paper": see :data:`robust_bench.experiments.probes.VARIANTS`
    variant: str = "scaled"
    #: "auto" (bf16 projections where the hardware has bf16 units), "float32" or "bfloat16"
    precision: str = "auto"


def default_layers(num_layers: int) -> tuple[int, ...]:
    """Layer 0 and every fourth layer (App. B): 0, 4, 8, ... below ``num_layers``."""
    return tuple(sorted({0, *range(4, num_layers, 4)}))


def load_static_vectors(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], int]:
    """Read word vectors in word2vec/GloVe text format (``word v1 v2 ...``; an optional
    ``count dim`` header line is skipped).

    Raises
    ------
    ProbingError
        If the file is empty or rows have different dimensions (naming the line).
    """
    vecs: dict[str, np.ndarray] = {}
    dim = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, start=1):
            parts = line.rstrip("\n").rstrip().split(" ")
            if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise ProbingError(f"{path}:{lineno}: expected {dim} values, found {len(parts) - 1}")
            vecs.setdefault(parts[0], np.asarray(parts[1:], dtype=np.float32))
    if not vecs:
        raise ProbingError(f"{path}: no vectors found")
    return vecs, dim


@dataclass
class _Split:
    words: dict[str, list[list[str]]]
    heads: list[list[int]]
    upos: list[list[str]]
    xpos: list[list[str]]
    punct: list[np.ndarray]
    punctuation_rule: str
    ids: list[str]


def _load_splits(repo: Path, config: str, max_sentences: int | None, max_train: int | None = None,
                 test_indices: Sequence[int] | None = None) -> tuple[dict[str, _Split], dict]:
    import datasets

    from robust_bench.data.repository import built_config

    meta = built_config(repo, config)
    ds = datasets.load_dataset(str(repo), config)
    out = {}
    for split in ("train", "validation", "test"):
        if split not in ds:
            raise ProbingError(f"{config!r} has no {split!r} split")
        d = ds[split]
        if max_sentences is not None:
            d = d.select(range(min(max_sentences, len(d))))
        if split != "test" and max_train is not None:
            d = d.select(range(min(max_train, len(d))))
        if split == "test" and test_indices is not None:
            d = d.select([int(i) for i in test_indices])
        names = d.features["upos"].feature.names
        upos = [[names[t] for t in row] for row in d["upos"]]
        punct, rule = punctuation_masks(upos, d["xpos"])
        out[split] = _Split(words={"plain": d["original_tokens"], "jabberwocky": d["tokens"]}, heads=d["head"],
                            upos=upos, xpos=d["xpos"], punct=punct, punctuation_rule=rule, ids=list(d["id"]))
    return out, meta


def _fast_pos(adapter, vectors: dict[str, np.ndarray], dim: int, sentences: Sequence[Sequence[str]],
              kept: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Fast+Pos (§5.1): a static vector per word (lower-cased look-up as fallback; zeros when
    out of vocabulary, counted) concatenated with the model's position embedding."""
    longest = max((len(sentences[k]) for k in kept), default=1)
    pos = adapter.position_embeddings(longest)
    out, oov = [], 0
    for k in kept:
        words = sentences[k]
        static = np.zeros((len(words), dim), dtype=np.float32)
        for i, w in enumerate(words):
            v = vectors.get(w)
            if v is None:
                v = vectors.get(w.lower())
            if v is None:
                oov += 1
            else:
                static[i] = v
        out.append(np.concatenate([static, pos[:len(words)]], axis=1))
    return out, oov


def _score(kind: str, proj: np.ndarray, reps, heads, punct, rule: str, per_sentence: bool = False) -> dict[str, Any]:
    dists = predict_distances(proj, reps)
    u = uuas_counts(heads, dists, punctuation=punct)
    metrics = {"uuas": u.score}
    details = {"uuas_correct": u.correct, "uuas_total": u.total, "punctuation_rule": rule}
    if kind == "structural":
        d = dspr_details(heads, dists)
        metrics["dspr"] = d.score
        details.update({"dspr_sentences": d.n_sentences, "dspr_excluded": d.n_excluded})
    out = {"metrics": metrics, "details": details}
    if per_sentence:
        rows = []
        for h, dist, p in zip(heads, dists, punct):
            c = uuas_counts([h], [dist], punctuation=[p])
            row = {"uuas_correct": c.correct, "uuas_total": c.total, "length": len(h)}
            if kind == "structural":
                rho, n = dspr_sentence_sums(h, dist) if 5 <= len(h) <= 50 else (0.0, 0)
                row.update({"dspr_rho_sum": rho, "dspr_rows": n})
            rows.append(row)
        out["per_sentence"] = rows
    return out


def run_probing(model, *, repo: str | os.PathLike, config: str = "jabberwocky_ewt",
                settings: ProbeSettings | None = None, revision: str | None = None, device: str = "auto",
                dtype: str = "auto", pooling: str = "first", encode_batch_size: int = 32,
                cache_dir: str | os.PathLike | None = None, progress: bool = True,
                test_indices: Sequence[int] | None = None, per_sentence: bool = False,
                checkpoint_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """Run the Jabberwocky probing experiment for one model.

    Parameters
    ----------
    model : str or EncoderAdapter
        ``AutoModel`` id or local path, or the encoder adapter of a model already loaded
        (:meth:`robust_bench.models.resolve.ModelHandle.encoder`; ``revision``, ``device``, ``dtype``, ``pooling``
        and ``encode_batch_size`` are then its own).
    repo : path-like
        Dataset repository holding ``config``.
    config : str
    settings : ProbeSettings, optional
    revision, device, dtype, pooling, encode_batch_size, cache_dir
        Passed to :class:`robust_bench.models.encoders.EncoderAdapter`.
    progress : bool
    test_indices : sequence of int, optional
        Score only these rows of the test split (a shard); training is unchanged.
    per_sentence : bool
        Add to each result ``per_sentence``: per scored test sentence, its UUAS counts and DSpr
        sums (:func:`robust_bench.scoring.dspr_sentence_sums`), in ``test_ids`` order.
    checkpoint_dir : path-like, optional
        Write each (probe, representation) result there as soon as its search ends, and take the
        results already there instead of training again, so a killed run resumes where it was.
        Training is seeded per search, so a resumed run gives an uninterrupted run's results.

    Returns
    -------
    dict
        ``results``: a list of entries with ``probe``, ``representation`` (layer index or
        ``"fast+pos"``), ``variant``, ``metrics``, ``details``, ``dev_loss`` and ``trial``;
        ``selected``: the selected layer per probe; ``baselines``; ``dropped``: alignment drop
        counts per split and variant; ``n_test``; ``model_revision``; ``corpus_sha256``.

    Raises
    ------
    ProbingError, ModelError
        On missing data, bad settings, a model that cannot be loaded, or a checkpoint made with
        other settings.
    """
    from robust_bench.models.encoders import EncoderAdapter

    s = settings or ProbeSettings()
    _check_settings(s)
    repo = Path(repo)
    splits, meta = _load_splits(repo, config, s.max_sentences, s.max_train_sentences, test_indices)
    adapter = model if isinstance(model, EncoderAdapter) else EncoderAdapter(
        model, revision=revision, device=device, dtype=dtype, pooling=pooling, batch_size=encode_batch_size,
        cache_dir=cache_dir)
    layers = tuple(s.layers) if s.layers else default_layers(adapter.num_layers)
    if 0 not in layers:
        layers = (0, *layers)  # layer 0 is a baseline the paper always reports

    def embed(split: str, variant: str):
        return adapter.embed(splits[split].words[variant], layers, progress=progress)

    train_var = s.train_on
    reps = {("train", train_var): embed("train", train_var), ("validation", train_var): embed("validation", train_var)}
    test_variants = VARIANTS if train_var == "plain" else ("jabberwocky",)
    for v in test_variants:
        reps[("test", v)] = embed("test", v)
    dropped = {f"{sp}/{v}": r[layers[0]].dropped for (sp, v), r in reps.items()}
    # score both variants on the same sentences: those aligned in every test variant
    common = set(range(len(splits["test"].heads)))
    for v in test_variants:
        common &= set(reps[("test", v)][layers[0]].kept.tolist())
    common_sorted = sorted(common)
    if not common_sorted:
        raise ProbingError("no test sentence could be aligned in every variant")

    def take(split: str, variant: str, layer: int, only: Sequence[int] | None = None):
        r = reps[(split, variant)][layer]
        pos = {int(k): i for i, k in enumerate(r.kept)}
        idx = [int(k) for k in r.kept] if only is None else list(only)
        vecs = [np.asarray(r.sentence(pos[k])) for k in idx]
        return vecs, [splits[split].heads[k] for k in idx], [splits[split].punct[k] for k in idx]

    fast = _static_features(s, adapter, splits, reps, layers, common_sorted)

    def data_for(rep, split, variant):
        if rep == "fast+pos":
            vecs, heads, punct, _ = fast[(split, variant)]
            return vecs, heads, punct
        return take(split, variant, rep, common_sorted if split == "test" else None)

    dim_of = {layer: reps[("train", train_var)][layer].vectors.shape[1] for layer in layers}
    reps_list: list[Any] = list(layers) + (["fast+pos"] if fast else [])
    train_device = adapter.device if adapter.device != "mps" else "cpu"
    precision = resolve_precision(s.precision, train_device)
    checkpoint = _Checkpoint(checkpoint_dir, {
        "model": adapter.fingerprint(), "config": config, "corpus_sha256": meta["files"]["test"]["sha256"],
        "settings": {k: v for k, v in vars(s).items()}, "layers": list(layers), "precision": precision,
        "test_indices": None if test_indices is None else [int(i) for i in test_indices],
        "per_sentence": per_sentence}) if checkpoint_dir is not None else None
    results = _train_and_score(s, reps_list, test_variants, data_for, checkpoint, splits["test"].punctuation_rule,
                               train_device=train_device, precision=precision, per_sentence=per_sentence,
                               progress=progress)
    # the order of an uninterrupted run: by probe, then representation
    results.sort(key=lambda r: (s.probes.index(r["probe"]), reps_list.index(r["representation"])))
    selected = _selected_layers(results, s.probes)
    test = splits["test"]
    heads = [test.heads[k] for k in common_sorted]
    upos = [test.upos[k] for k in common_sorted]
    xpos = [test.xpos[k] for k in common_sorted]
    base = score_baselines(splits["train"].heads, {v: (heads, upos, xpos) for v in test_variants})
    return {
        "model": adapter.model_id,
        "model_revision": adapter.fingerprint(),
        "config": config,
        "corpus_sha256": meta["files"]["test"]["sha256"],
        "seed": s.seed,
        "layers": list(layers),
        "train_on": train_var,
        "results": results,
        "selected": selected,
        "baselines": base,
        "dropped": dropped,
        "n_test": len(common_sorted),
        "test_ids": [splits["test"].ids[k] for k in common_sorted],
        "n_test_total": len(test.heads),
        "punctuation_rule": test.punctuation_rule,
        "static_vectors_oov": {f"{k[0]}/{k[1]}": v[3] for k, v in fast.items()} if fast else None,
        "dims": dim_of,
        "n_forward": adapter.n_forward,
        "training": {"variant": s.variant, "precision": precision, "trials": s.trials, "epochs": s.epochs,
                     "batch_size": s.batch_size, "patience": s.patience},
        "resumed": sorted(checkpoint.reused) if checkpoint else [],
    }


def _check_settings(s: ProbeSettings) -> None:
    """Refuse settings with an unknown ``train_on`` variant, probe or training variant (``variant``)."""
    if s.train_on not in VARIANTS:
        raise ProbingError(f"train_on must be one of {VARIANTS}, got {s.train_on!r}")
    bad = [p for p in s.probes if p not in PROBES]
    if bad:
        raise ProbingError(f"unknown probes {bad}; choose from {PROBES}")
    if s.variant not in TRAINING_VARIANTS:
        raise ProbingError(f"variant must be one of {TRAINING_VARIANTS}, got {s.variant!r}")


def _static_features(s: ProbeSettings, adapter, splits, reps, layers, common_sorted):
    """The ``fast+pos`` representation of every embedded split and variant (static vectors with the
    model's POS features), or None without static vectors."""
    fast = None
    if s.static_vectors:
        vectors, vdim = load_static_vectors(s.static_vectors)
        fast = {}
        for (sp, v), r in reps.items():
            kept = r[layers[0]].kept if sp != "test" else np.asarray(common_sorted)
            fp, oov = _fast_pos(adapter, vectors, vdim, splits[sp].words[v], kept)
            fast[(sp, v)] = (fp, [splits[sp].heads[k] for k in kept], [splits[sp].punct[k] for k in kept], oov)
    return fast


def _train_and_score(s: ProbeSettings, reps_list: list[Any], test_variants, data_for, checkpoint, punctuation_rule, *,
                     train_device: str, precision: str, per_sentence: bool, progress: bool) -> list[dict]:
    """Per representation and probe, the random search on the training variant and the scores of its best
    probe on each test variant; a search the checkpoint holds is taken from it."""
    results = []
    for rep in reps_list:
        data = None  # the layer's padded features, shared by both probes
        for kind in s.probes:
            name = f"{kind}-{rep}"
            done = checkpoint.get(name) if checkpoint else None
            if done is not None:
                results += done
                continue
            if data is None:
                tr_x, tr_h, _ = data_for(rep, "train", s.train_on)
                dv_x, dv_h, _ = data_for(rep, "validation", s.train_on)
                data = prepare_search_data(tr_x, tr_h, dv_x, dv_h, device=train_device, precision=precision)
            trials = sample_trials(s.trials, data[0].dim, seed=s.seed)
            best, _all = random_search(kind, None, None, None, None, trials, epochs=s.epochs,
                                       batch_size=s.batch_size, patience=s.patience, seed=s.seed,
                                       device=train_device, progress=progress, variant=s.variant,
                                       precision=precision, data=data)
            entries = []
            for v in test_variants:
                te_x, te_h, te_p = data_for(rep, "test", v)
                scored = _score(kind, best.proj, te_x, te_h, te_p, punctuation_rule, per_sentence)
                entries.append({"probe": kind, "representation": rep, "variant": v, "dev_loss": best.dev_loss,
                                "trial": {"lr": best.trial.lr, "rank": best.trial.rank,
                                          "dropout": best.trial.dropout, "epochs": best.epochs},
                                **scored})
            if checkpoint:
                checkpoint.put(name, entries)
            results += entries
    return results


def _selected_layers(results: list[dict], probes) -> dict:
    """Per probe, the layer whose probe has the lowest development loss (the lower layer on a tie)."""
    selected = {}
    for kind in probes:
        cands = [r for r in results if r["probe"] == kind and isinstance(r["representation"], int)]
        selected[kind] = min(cands, key=lambda r: (r["dev_loss"], r["representation"]))["representation"]
    return selected


class _Checkpoint:
    """Per-search results of a probing run in a folder: ``state.json`` (the run's settings) and
    one ``<probe>-<representation>.json`` per finished search, each written atomically."""

    def __init__(self, folder, fingerprint: dict):
        import json

        from robust_bench.io.fileio import atomic_write_text, remove_stale_temporaries

        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.folder)
        self.reused: set[str] = set()
        state = self.folder / "state.json"
        want = json.loads(json.dumps(fingerprint, sort_keys=True))
        if state.exists():
            try:
                have = json.loads(state.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ProbingError(f"{state}: unreadable checkpoint ({exc}); remove {self.folder}") from None
            if have != want:
                diff = sorted(k for k in set(have) | set(want) if have.get(k) != want.get(k))
                raise ProbingError(f"{self.folder} holds a checkpoint of another probing run (differs in {diff}); "
                                   "remove it or run without --resume")
        else:
            atomic_write_text(state, json.dumps(want, sort_keys=True, indent=1) + "\n")

    def _path(self, name: str) -> Path:
        return self.folder / f"{name.replace('+', 'plus')}.json"

    def get(self, name: str):
        import json

        p = self._path(name)
        if not p.exists():
            return None
        try:
            entries = json.loads(p.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ProbingError(f"{p}: unreadable checkpoint ({exc}); remove it") from None
        self.reused.add(name)
        return entries

    def put(self, name: str, entries) -> None:
        import json

        from robust_bench.io.fileio import atomic_write_text

        atomic_write_text(self._path(name), json.dumps(entries, allow_nan=False) + "\n")
