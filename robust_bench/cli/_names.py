"""The names_* half of `robust-bench evaluate` (Balasubramanian et al., 2020, Table 3 and Table 5)."""

from __future__ import annotations

import math
from pathlib import Path

import typer


def _predictor(spec: str | None, device: str):
    from robust_bench.models.coref import ConllFileCoref, FastCorefAdapter, RuleBasedCoref

    if spec in (None, "rule-based"):
        return RuleBasedCoref()
    if spec.startswith("fastcoref"):
        _, _, name = spec.partition(":")
        return FastCorefAdapter(name or "biu-nlp/f-coref", device="cpu" if device == "auto" else device)
    return ConllFileCoref([spec])


def evaluate_names(*, model, config, spacy_model, predictor, resemble, temperature, confidence, label_map, device,
                   dtype, batch_size, repo: Path, output_dir: Path) -> None:
    from robust_bench.cli._common import model_slug
    from robust_bench.experiments.name_eval import (NameEvalError, Resemble, canonical_candidates,
                                                    choose_canonical_names, format_table,
                                                    load_name_sets, plot_frequency, plot_spread, score_classifier,
                                                    score_coref, score_tagger)
    from robust_bench.leaderboard.records import make_record, write_record

    sets, meta = load_name_sets(repo, config)
    rand = sets.get("random")
    seed = int(meta.get("seed", 0))
    sha = meta["files"]["test"]["sha256"]
    results = {}
    if config == "names_mrpc":
        if model is None:
            raise NameEvalError("names_mrpc needs --model (a sequence classifier fine-tuned on MRPC)")
        from robust_bench.models.classifiers import HFClassifier

        clf = HFClassifier(model, sets["test"].features["label"].names, label_map=label_map, device=device,
                           dtype=dtype, batch_size=batch_size)
        who, revision, metric = model, clf.revision, "F1"
        results["plain"] = score_classifier(clf, sets["test"], rand)
        if resemble:
            from robust_bench.text.nlp import load_spacy, ner_model_name

            nlp = load_spacy(ner_model_name(spacy_model), require=("ner",))     # the annotator (§4)
            ranking = choose_canonical_names(clf, sets["validation"], canonical_candidates(sets["test"]), nlp, m=3)
            typer.echo("  canonical names by validation accuracy: "
                       + ", ".join(f"{r['name']} {r['accuracy']:.3f}" for r in ranking[:5]))
            for m in (int(x) for x in resemble.split(",")):
                wrapped = Resemble(clf, [r["name"] for r in ranking[:m]], nlp, temperature=temperature,
                                   confidence=confidence)
                results[f"resemble_m{m}"] = score_classifier(wrapped, sets["test"], rand)
                results[f"resemble_m{m}"]["canonical"] = [r["name"] for r in ranking[:m]]
    elif config == "names_conll2003":
        from robust_bench.models.taggers import HFTokenClassifier, SpacyTagger

        tags = sets["test"].features["ner_tags"].feature.names
        if spacy_model or model is None:
            tagger = SpacyTagger(spacy_model, tags)
            who = tagger.model_id
        else:
            tagger = HFTokenClassifier(model, tags, label_map=label_map, device=device, dtype=dtype)
            who = model
        revision, metric = tagger.revision, "entity F1"
        results["plain"] = score_tagger(tagger, sets["test"], rand)
    else:
        pred = _predictor(predictor, device)
        who, revision, metric = pred.name, None, "CoNLL F1"
        results["plain"] = score_coref(pred, sets["test"], rand)
    for name, sc in results.items():
        title = f"{who} on {config}/test{'' if name == 'plain' else ' with ' + name} (Table 3; percentages)"
        typer.echo(format_table(sc, title=title, metric=metric))
        names = ("original", "worst", "best", "random_mean", "random_std", "stability")
        # a metric with nothing to average over (no random variants) is NaN: listed, not written
        metrics = {k: sc[k] for k in names if math.isfinite(sc[k])}
        details = {k: v for k, v in sc.items() if k not in names and k != "frequency_points"}
        details["undefined_metrics"] = [k for k in names if k not in metrics]
        rec = make_record(model_id=who, revision=revision, config=config, split="test", corpus_sha256=sha,
                          metrics=metrics, seed=seed, variant=None if name == "plain" else name, details=details)
        typer.echo(f"  record: {write_record(rec, output_dir, tag=f'names-{name}')}")
    typer.echo(f"  model queries: {results['plain'].get('queries')}")
    stem = output_dir / f"{model_slug(who)}__{config}"
    short = Path(who).name if Path(who).exists() else who
    paths = plot_spread(results, f"{stem}__spread", title=f"{short} on {config}", metric=metric)
    points = results["plain"]["frequency_points"]
    if points:
        paths += plot_frequency(points, f"{stem}__frequency", title=f"{short} on {config} (Fig. 1)",
                                ylabel="accuracy of the variant" if config == "names_mrpc" else f"{metric} of the variant")
    typer.echo("  figures: " + ", ".join(str(p) for p in paths))

