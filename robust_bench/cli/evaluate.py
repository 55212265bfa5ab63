"""`robust-bench evaluate`: LIT contrast sets (Li et al., 2020, Table 3) and named-entity swaps
(Balasubramanian et al., 2020, Table 3 and Table 5)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer

from robust_bench import RobustBenchError
from robust_bench.cli._app import app
from robust_bench.cli._common import check, check_fraction, check_output_dir, check_positive, fail, parse_label_map
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
    random: bool = typer.Option(False, "--random/--no-random", help="names_*: also score the random split's 10 "
                                                                    "copies (Table 3's random row; a derived, "
                                                                    "unranked suite)."),
    temperature: float = typer.Option(2.0, "--temperature", help="RESEMBLE's T (Eq. 2)."),
    confidence: float = typer.Option(0.9, "--annotator-confidence", help="RESEMBLE's P(z=ẑ|x) for an annotator "
                                                                        "without probabilities (spaCy)."),
    split: Optional[str] = typer.Option(None, "--split", help="One split (default: every split of the config)."),
    label_map: Optional[str] = typer.Option(None, "--label-map", help="MODEL_LABEL=DATASET_LABEL,... when names differ."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    batch_size: int = typer.Option(64, "--batch-size"),
    resume: bool = typer.Option(False, "--resume", help="Continue (or take the finished tasks of) a run in the same "
                                                       "folder, as `run --resume`."),
    suite: Optional[str] = typer.Option(None, "--suite", help="The suite whose task this is (default: the family's "
                                                            "shipped suite); other options or data make a derived, "
                                                            "unranked one-task suite."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Run folders go under OUTPUT_DIR/<model>/: "
                                                                          "v2 records, logs, report, the paper's tables."),
) -> None:
    """Acc@Ori, Acc@Ctr and consistency per transformation on a LIT contrast set (Table 3), or a
    name-swap config's original, worst, best, (random) and stability scores (Table 3): a run folder each."""
    check_positive("--batch-size", batch_size)
    check("--temperature", math.isfinite(temperature) and temperature > 0, f"must be a positive number, got {temperature}")
    check_fraction("--annotator-confidence", confidence)
    check_output_dir("--output-dir", output_dir)
    parts = [x.strip() for x in resemble.split(",")] if resemble else []
    check("--resemble", all(x.isdigit() and int(x) > 0 for x in parts), f"must be positive integers M, got {resemble!r}")
    try:
        from robust_bench.data.registry import get_config

        names = get_config(config).family == "named_entity_swaps"
        # options of the other family, or of another names config, are refused rather than ignored
        for option, given, ok in (("--random", random, names), ("--resemble", bool(parts), config == "names_mrpc"),
                                  ("--predictor", predictor is not None, config == "names_coref"),
                                  ("--split", split not in (None, "test"), not names),
                                  ("--spacy-model", spacy_model is not None and model is not None,
                                   config != "names_conll2003")):
            check(option, not given or ok, f"does not apply to --config {config}" + (
                " (give --model or --spacy-model, not both)" if option == "--spacy-model" else
                " (name swaps score the test split)" if option == "--split" else ""))
        if names:
            from robust_bench.suite.command import names_command

            outs, _ = names_command(config, model=model, spacy_model=spacy_model, predictor=predictor, random=random,
                                    resemble=[int(x) for x in parts], temperature=temperature, confidence=confidence,
                                    label_map=parse_label_map(label_map), device=device, dtype=dtype,
                                    batch_size=batch_size, resume=resume, suite=suite, repo=repo,
                                    output_dir=output_dir, echo=typer.echo)
            for out in outs:
                typer.echo(f"run folder: {out} (records, per-example logs, report; tables/ and figures/ hold Table 3)")
            return
        if model is None:
            raise typer.BadParameter("--model is required for lit_* configs")
        from robust_bench.suite.command import evaluate_contrast_sets

        out, _ = evaluate_contrast_sets(model, config, split=split, label_map=parse_label_map(label_map),
                                        device=device, dtype=dtype, batch_size=batch_size, resume=resume, suite=suite,
                                        repo=repo,
                                        output_dir=output_dir, echo=typer.echo)
        typer.echo(f"run folder: {out} (records, per-example logs, report; tables/ and figures/ hold Table 3)")
    except RobustBenchError as exc:
        fail(exc)
