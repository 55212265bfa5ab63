"""`robust-bench baselines`: the Path and Majority baselines on Jabberwocky configs."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench import RobustBenchError
from robust_bench.cli._app import app
from robust_bench.cli._common import fail
from robust_bench.data.repository import DEFAULT_REPO


@app.command()
def baselines(
    config: str = typer.Option("jabberwocky_ewt", "--config", help="A Jabberwocky config."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    source: Optional[Path] = typer.Option(None, "--source", help="Local mirror of the source treebank."),
    split: str = typer.Option("test", "--split", help="Split to score."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where the run folders go: "
                                                                          "OUTPUT_DIR/baseline_<name>/<config>_command_<hash>."),
) -> None:
    """Score the Path and Majority baselines (UUAS, DSpr) on plain and Jabberwocky text.

    Each baseline is a run (model baseline:path, baseline:majority) of the baseline evaluation, whose records
    carry the probe's metrics. Both baselines ignore the words, so the plain and Jabberwocky scores must be
    identical; the command fails if they are not.
    """
    from robust_bench.suite.command import baselines_command

    try:
        baselines_command(config, repo=repo, source=source, split=split, output_dir=output_dir, echo=typer.echo)
    except RobustBenchError as exc:
        fail(exc)
