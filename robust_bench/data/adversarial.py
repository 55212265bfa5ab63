"""Adversarial examples and the dataset repository: the rows an attack reads, and the derived
configs it writes.

An attack (:mod:`robust_bench.attacks`) works on model adapters and rows; this module connects it
to the repository: :func:`load_examples` reads the rows of a built config, :func:`save_adversarial`
stores what a grammatical-error attack found as a derived config (a transfer set), with the
same card, hashes and atomic write as a built config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robust_bench.attacks.runner import TASKS, AttackError
from robust_bench.data.repository import built_config, write_derived_config
from robust_bench.perturb.grammar_errors import realign_tags, render

__all__ = ["load_examples", "save_adversarial"]


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
