"""`robust-bench evaluate`: LIT contrast sets (Li et al., 2020, Table 3) and named-entity swaps
(Balasubramanian et al., 2020, Table 3)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (check, check_fraction, check_output_dir, check_positive, fail,
                                      model_slug, parse_label_map)
from robust_bench.data.repository import DEFAULT_REPO


@app.command("evaluate")
def evaluate_cmd(
    model: Optional[str] = typer.Option(None, "--model", help="AutoModelForSequenceClassification (lit_*, names_mrpc) "
                                                            "or AutoModelForTokenClassification (names_conll2003) id or path."),
    config: str = typer.Option(..., "--config", help="lit_mnli, lit_snli, names_mrpc, names_conll2003 or names_coref "
                                                     "(built first)."),
    spacy_model: Optional[str] = typer.Option(None, "--spacy-model", help="names_conll2003: score a spaCy pipeline's "
                                                                        "NER instead of --model; names_mrpc: RESEMBLE's "
                                                                        "type annotator."),
    predictor: Optional[str] = typer.Option(None, "--predictor", help="names_coref: 'rule-based', 'fastcoref[:MODEL]', "
                                                                    "or a CoNLL-2012 file/folder of system output."),
    resemble: Optional[str] = typer.Option(None, "--resemble", help="names_mrpc: also score RESEMBLE with M canonical "
                                                                  "names, comma-separated values of M (e.g. 1,3)."),
    temperature: float = typer.Option(2.0, "--temperature", help="RESEMBLE's T (Eq. 2)."),
    confidence: float = typer.Option(0.9, "--annotator-confidence", help="RESEMBLE's P(z=ẑ|x) for an annotator "
                                                                        "without probabilities (spaCy)."),
    split: Optional[str] = typer.Option(None, "--split", help="One split (default: every split of the config)."),
    label_map: Optional[str] = typer.Option(None, "--label-map", help="MODEL_LABEL=DATASET_LABEL,... when names differ."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    batch_size: int = typer.Option(64, "--batch-size"),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where records and the figure go."),
) -> None:
    """Acc@Ori, Acc@Ctr and consistency per transformation on a LIT contrast set (Table 3)."""
    check_positive("--batch-size", batch_size)
    check("--temperature", math.isfinite(temperature) and temperature > 0, f"must be a positive number, got {temperature}")
    check_fraction("--annotator-confidence", confidence)
    check_output_dir("--output-dir", output_dir)

    try:
        if config.startswith("names_"):
            from robust_bench.cli._names import evaluate_names

            evaluate_names(model=model, config=config, spacy_model=spacy_model, predictor=predictor,
                           resemble=resemble, temperature=temperature, confidence=confidence,
                           label_map=parse_label_map(label_map), device=device, dtype=dtype, batch_size=batch_size,
                           repo=repo, output_dir=output_dir)
            return
        if model is None:
            raise typer.BadParameter("--model is required for lit_* configs")
        _evaluate(model, config, split, parse_label_map(label_map), device, dtype, batch_size, repo, output_dir)
    except RobustBenchError as exc:
        fail(exc)


def _evaluate(model, config, split, label_map, device, dtype, batch_size, repo, output_dir):
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.experiments.lit_eval import contrast_set_scores, format_table, load_contrast_sets, plot_scores
    from robust_bench.io.task_data import NLI_LABELS

    sets, meta = load_contrast_sets(repo, config, split)      # checks the config before the model loads
    clf = HFClassifier(model, NLI_LABELS, label_map=label_map, device=device, dtype=dtype, batch_size=batch_size)
    slug = model_slug(model)
    for sp, rows in sets.items():
        po = clf.predict(list(zip(rows["original_premise"], rows["original_hypothesis"])))
        pc = clf.predict(list(zip(rows["premise"], rows["hypothesis"])))
        scores = contrast_set_scores(rows, po, pc)
        typer.echo(format_table(scores, title=f"{model} on {config}/{sp} (LIT, Table 3; percentages)"))
        typer.echo(f"  forward passes: {clf.n_forward}; distinct pairs scored: {clf.queries}")
        overall = scores["all"]
        rec = make_record(model_id=model, revision=clf.revision, config=config, split=sp,
                          corpus_sha256=meta["files"][sp]["sha256"],
                          metrics={"acc_ori": overall["acc_ori"], "acc_ctr": overall["acc_ctr"],
                                   "consistency": overall["consistency"]},
                          seed=int(meta.get("seed", 0)),
                          details={"per_transformation": {k: v for k, v in scores.items() if k != "all"},
                                   "consistency_excluded": overall["consistency_excluded"],
                                   "label_map": label_map, "backend": meta["provenance"].get("backend"),
                                   "lm": meta["provenance"].get("lm")})
        path = write_record(rec, output_dir, tag="lit")
        figs = plot_scores(scores, output_dir / f"{slug}__{config}__{sp}__lit",
                           title=f"{Path(model).name} on {config}/{sp}")
        typer.echo(f"  record: {path}")
        typer.echo(f"  figure: {', '.join(str(p) for p in figs)}")

