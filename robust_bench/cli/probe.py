"""`robust-bench probe` and `robust-bench probe-figure`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from robust_bench.cli._app import app
from robust_bench.experiments.probe_report import rep_name
from robust_bench.leaderboard.records import make_record
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
                                "are read from OUTPUT_DIR/.probe-checkpoints."),
    max_sentences: Optional[int] = typer.Option(None, "--max-sentences", help="Use only the first N sentences per split (quick runs)."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the config."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where records and figures go."),
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
    from robust_bench.experiments.probing import ProbeSettings

    kinds = ("structural", "perceptron") if probe_kind == "both" else (probe_kind,)
    settings = ProbeSettings(probes=kinds, layers=parse_layers(layers), trials=trials, epochs=epochs,
                             batch_size=batch_size, seed=seed, train_on=train_on, max_sentences=max_sentences,
                             static_vectors=None if static_vectors is None else str(static_vectors),
                             variant=variant, precision=precision)
    try:
        _probe(model, repo, config, settings, revision, device, dtype, pooling, output_dir, resume)
    except RobustBenchError as exc:
        fail(exc)


def _probe(model, repo, config, settings, revision, device, dtype, pooling, output_dir, resume=False):
    import re
    import shutil

    from robust_bench.leaderboard.records import write_record
    from robust_bench.experiments.probe_report import lead_table, plot_probe_records
    from robust_bench.experiments.probing import run_probing

    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")
    checkpoints = output_dir / ".probe-checkpoints" / f"{stem}__{config}"
    if not resume and checkpoints.exists():
        shutil.rmtree(checkpoints)
    run = run_probing(model, repo=repo, config=config, settings=settings, revision=revision, device=device,
                      dtype=dtype, pooling=pooling, checkpoint_dir=checkpoints)
    if run["resumed"]:
        typer.echo(f"resumed: {len(run['resumed'])} finished searches read from {checkpoints}")
    typer.echo(lead_table(run))
    typer.echo("alignment drops (sentences): " + "; ".join(
        f"{k}: " + ", ".join(f"{r} {n}" for r, n in v.items()) for k, v in run["dropped"].items()))
    records = run_records(run)
    for rec, tag in records:
        write_record(rec, output_dir, tag=tag)
    typer.echo(f"encoder forward passes: {run['n_forward']} (0 means every representation came from the cache)")
    typer.echo(f"wrote {len(records)} result records to {output_dir}")
    shutil.rmtree(checkpoints, ignore_errors=True)
    recs = [r for r, _ in records]
    # a figure per metric that some selected layer reports (the perceptron probe has no DSpr)
    for metric in ("uuas", "dspr"):
        if not any(metric in r["metrics"] and r["details"].get("selected_layer") for r in recs):
            continue
        paths = plot_probe_records(recs, output_dir / f"{stem}__{config}__{metric}", metric=metric)
        typer.echo(f"figure: {', '.join(str(p) for p in paths)}")


@app.command("probe-figure")
def probe_figure(
    records: list[Path] = typer.Argument(..., help="Result records of probe runs (one or more models)."),
    out: Path = typer.Option(Path("results/probes"), "--out", help="Output path without extension."),
    metric: str = typer.Option("uuas", "--metric", help="uuas or dspr."),
) -> None:
    """Plot several models' probe records side by side (Hall Maudslay & Cotterell, 2021, Fig. 3)."""
    check_choice("--metric", metric, ("uuas", "dspr"))
    for path in records:
        check_input_file("RECORDS", path)
    check_output_file("--out", out)
    import json

    from robust_bench.leaderboard.records import validate_record
    from robust_bench.experiments.probe_report import plot_probe_records

    loaded = []
    for path in records:
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
            validate_record(rec)
        except (OSError, ValueError) as exc:
            fail(ValueError(f"{path}: {exc}"))
        loaded.append(rec)
    try:
        paths = plot_probe_records(loaded, out, metric=metric)
    except ValueError as exc:
        fail(exc)
    typer.echo(f"figure: {', '.join(str(p) for p in paths)}")


def run_records(run: dict[str, Any]) -> list[tuple[dict, str]]:
    """Result records v1 for a probing run: one per (probe, representation, test variant).

    Returns
    -------
    list of (record, tag)
        ``tag`` names the probe and representation, for :func:`write_record`.
    """
    out = []
    for r in run["results"]:
        rep = r["representation"]
        details = {
            "probe": r["probe"],
            "layer": rep if isinstance(rep, int) else None,
            "representation": rep_name(rep),
            "selected_layer": run["selected"][r["probe"]] == rep,
            "dev_loss": r["dev_loss"],
            "trial": r["trial"],
            "train_on": run["train_on"],
            "training": run["training"],
            "n_test_sentences": run["n_test"],
            "n_test_total": run["n_test_total"],
            "alignment_dropped": run["dropped"],
            "baselines": {name: by_v[r["variant"]]["uuas"] for name, by_v in run["baselines"].items()},
            "baselines_dspr": {name: by_v[r["variant"]]["dspr"] for name, by_v in run["baselines"].items()},
            **r["details"],
        }
        rec = make_record(model_id=run["model"], revision=run["model_revision"], config=run["config"], split="test",
                          corpus_sha256=run["corpus_sha256"], metrics=r["metrics"], seed=run["seed"],
                          variant=r["variant"], details=details)
        tag = f"{r['probe']}-{rep_name(rep).replace(' ', '')}"
        out.append((rec, tag))
    return out
