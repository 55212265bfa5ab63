"""`robust-bench push` and `robust-bench push-results`: publish the dataset, publish a model's scores."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import fail
from robust_bench.data.repository import DEFAULT_REPO


@app.command("push")
def push_cmd(
    repo_id: str = typer.Option(..., "--repo", help="Hub dataset repository ORG/NAME."),
    local: Path = typer.Option(Path(DEFAULT_REPO), "--local", help="The local dataset repository to publish."),
    create_pr: bool = typer.Option(False, "--create-pr", help="Open a pull request instead of committing to main."),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", help="Also publish eval.yaml, the Hub benchmark "
                                                                      "definition of this suite (name or YAML)."),
) -> None:
    """Upload the dataset repository (Parquet files, metadata, card) with huggingface_hub.upload_folder."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    from robust_bench.benchmarks import eval_yaml, load_suite
    from robust_bench.data.hub import push_repository

    try:
        extra = {"eval.yaml": eval_yaml(load_suite(benchmark))} if benchmark else None
        url = push_repository(local, repo_id, create_pr=create_pr, extra_files=extra)
        typer.echo(f"pushed {local} -> {url}")
    except (RobustBenchError, HfHubHTTPError, OfflineModeIsEnabled) as exc:
        fail(exc)


@app.command("push-results")
def push_results_cmd(
    run_dir: Path = typer.Argument(..., help="A run folder (robust-bench run or merge)."),
    model_repo: str = typer.Option(..., "--model-repo", help="The model's Hub id."),
    dataset_repo: str = typer.Option("robust-bench/robust-bench", "--dataset-repo",
                                     help="The benchmark dataset repository the results refer to."),
    fmt: str = typer.Option("eval-results", "--format", help="eval-results (.eval_results/*.yaml) or model-index "
                                                             "(the README card's YAML, for older hubs)."),
    create_pr: bool = typer.Option(True, "--create-pr/--no-create-pr", help="Open a pull request on the model "
                                                                          "repository (default) or commit to main."),
) -> None:
    """Write a run's primary scores into the model repository in the Hub's evaluation-results format."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    from robust_bench.leaderboard.hub_results import push_results

    try:
        url = push_results(run_dir, model_repo, dataset_repo=dataset_repo, fmt=fmt, create_pr=create_pr)
        typer.echo(f"results of {run_dir} -> {url}")
    except (RobustBenchError, ValueError, HfHubHTTPError, OfflineModeIsEnabled) as exc:
        fail(exc)
