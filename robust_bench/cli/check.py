"""`robust-bench check`: the CI regression gate between two runs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench.cli._common import check, check_fraction, check_output_file


@app.command("check")
def check_cmd(
    baseline: Path = typer.Option(..., "--baseline", help="Run folder of the current model."),
    candidate: Path = typer.Option(..., "--candidate", help="Run folder of the new model version."),
    tolerance: float = typer.Option(0.01, "--tolerance", help="Allowed drop of each task's primary metric (its units)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Intervals are (1 - alpha) intervals."),
    suite: Optional[str] = typer.Option(None, "--suite", help="Suite YAML, where the runs used one that is not shipped."),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write JUnit XML here (default CANDIDATE/check.junit.xml)."),
    summary: Optional[Path] = typer.Option(None, "--summary", help="Write the Markdown summary here "
                                                                  "(default CANDIDATE/check.md)."),
) -> None:
    """Exit 0 when no task regresses, 1 naming the tasks that do, 2 when the runs cannot be compared."""
    check("--tolerance", math.isfinite(tolerance) and tolerance >= 0, f"must be a number >= 0, got {tolerance}")
    check_fraction("--alpha", alpha, one=False)
    check_output_file("--junit", junit)
    check_output_file("--summary", summary)
    from robust_bench.benchmarks import SuiteError
    from robust_bench.suite.gate import GateError, check_runs, format_verdict, write_junit, write_summary
    from robust_bench.suite.runner import RunError

    try:
        verdicts = check_runs(baseline, candidate, tolerance=tolerance, alpha=alpha, suite=suite)
    except (GateError, SuiteError, RunError) as exc:
        typer.echo(f"unusable input: {exc}", err=True)
        raise typer.Exit(code=2)
    for v in verdicts:
        typer.echo("  " + format_verdict(v, tolerance))
    write_junit(verdicts, junit or candidate / "check.junit.xml", tolerance=tolerance)
    write_summary(verdicts, summary or candidate / "check.md", tolerance=tolerance, alpha=alpha)
    bad = [v.task for v in verdicts if v.regressed]
    if bad:
        typer.echo(f"regression in {len(bad)} tasks: {', '.join(bad)}", err=True)
        raise typer.Exit(code=1)
    typer.echo(f"pass: no task regresses beyond {tolerance} ({len(verdicts)} tasks)")
