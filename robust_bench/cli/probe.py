"""`robust-bench probe` and `robust-bench probe-figure`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (seed_in_range, check_choice, check_input_file, check_model, check_output_dir,
                                      check_output_file, check_positive, fail, parse_layers)
from robust_bench.data.repository import DEFAULT_REPO


@app.command()
def probe(
    model: str = typer.Option(..., "--model", help="AutoModel id or local path (BERT, RoBERTa, ELECTRA, GPT-2, ...)."),
    config: str = typer.Option("jabberwocky_ewt", "--config", help="A Jabberwocky config."),
    probe_kind: str = typer.Option("both", "--probe", help="structural, perceptron or both."),
    layers: Optional[str] = typer.Option(None, "--layers", help="Comma-separated layers; default 0 and every fourth."),
    trials: int = typer.Option(10, "--trials", help="Random-search trials per probe and layer (App. B: 10)."),
    epochs: int = typer.Option(20, "--epochs", help="Maximum epochs (App. B: 20)."),
    batch_size: int = typer.Option(64, "--batch-size", help="Sentences per probe training step (App. B: 64)."),
    train_on: str = typer.Option("plain", "--train-on", help="plain (the paper) or jabberwocky (train and test on Jabberwocky)."),
    static_vectors: Optional[Path] = typer.Option(None, "--static-vectors",
                                                  help="word2vec/GloVe text file for the Fast+Pos baseline."),
    revision: Optional[str] = typer.Option(None, "--revision", help="Model revision on the Hub."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype", help="auto (bf16/fp16 on GPU, fp32 on CPU), float32, bfloat16, float16."),
    pooling: str = typer.Option("first", "--pooling", help="first subword (the paper) or mean."),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range),
    variant: str = typer.Option("scaled", "--variant", help="scaled (default: B initialised at the gold distances' "
                                "scale) or paper (App. B exactly); both search App. B's space."),
    precision: str = typer.Option("auto", "--precision", help="auto (bf16 projections on bf16 hardware), float32 "
                                  "or bfloat16."),
    resume: bool = typer.Option(False, "--resume", help="Continue a killed run: finished (probe, layer) searches "
                                "are read back from its run folder."),
    max_sentences: Optional[int] = typer.Option(None, "--max-sentences", help="Use only the first N sentences per split (quick runs)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="The suite whose task this is (default: jabberwocky); "
                                                            "other settings or data make a derived, unranked suite."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the config."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Run folders go under OUTPUT_DIR/<model>/: "
                                                                          "v2 records, logs, report, the paper's tables."),
) -> None:
    """Train structural and perceptron probes on a model and score them on plain and Jabberwocky EWT."""
    check_model("--model", model)
    check_choice("--probe", probe_kind, ("structural", "perceptron", "both"))
    check_choice("--train-on", train_on, ("plain", "jabberwocky"))
    check_choice("--pooling", pooling, ("first", "mean"))
    check_choice("--variant", variant, ("scaled", "paper"))
    check_choice("--precision", precision, ("auto", "float32", "bfloat16"))
    for option, value in (("--trials", trials), ("--epochs", epochs), ("--batch-size", batch_size),
                          ("--max-sentences", max_sentences)):
        check_positive(option, value)
    check_input_file("--static-vectors", static_vectors)
    check_output_dir("--output-dir", output_dir)
    from robust_bench.experiments.jabberwocky import ProbeSettings

    kinds = ("structural", "perceptron") if probe_kind == "both" else (probe_kind,)
    settings = ProbeSettings(probes=kinds, layers=parse_layers(layers), trials=trials, epochs=epochs,
                             batch_size=batch_size, seed=seed, train_on=train_on, max_sentences=max_sentences,
                             static_vectors=None if static_vectors is None else str(static_vectors),
                             variant=variant, precision=precision)
    from robust_bench.suite.command import probe_command

    try:
        outs, _ = probe_command(model, repo=repo, config=config, settings=settings, revision=revision,
                                device=device, dtype=dtype, pooling=pooling, suite=suite, output_dir=output_dir,
                                resume=resume, echo=typer.echo)
        for out in outs:
            typer.echo(f"run folder: {out} (record, per-example log, report; tables/ and figures/ hold the "
                       "per-layer table and Fig. 3)")
    except RobustBenchError as exc:
        fail(exc)


@app.command("probe-figure")
def probe_figure(
    runs: list[Path] = typer.Argument(..., help="Run folders of probe runs (robust-bench probe; one or more models)."),
    out: Path = typer.Option(Path("results/probes"), "--out", help="Output path without extension."),
    metric: str = typer.Option("uuas", "--metric", help="uuas or dspr."),
) -> None:
    """Plot several models' probe runs side by side (Hall Maudslay & Cotterell, 2021, Fig. 3)."""
    check_choice("--metric", metric, ("uuas", "dspr"))
    check_output_file("--out", out)
    for path in runs:
        check_input_file("RUNS", path / "run.json")
    from robust_bench.evaluations.jabberwocky import probe_figure as plot

    try:
        paths = plot(runs, out, metric=metric)
    except RobustBenchError as exc:
        fail(exc)
    typer.echo(f"figure: {', '.join(str(p) for p in paths)}")
