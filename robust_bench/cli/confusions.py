"""`robust-bench fit-confusions`."""

from __future__ import annotations

from pathlib import Path

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import check_input_file, check_output_file, fail


@app.command("fit-confusions")
def fit_confusions_cmd(
    m2_file: Path = typer.Argument(..., help="M2 file (NUCLE, CoNLL-2014, BEA-2019)."),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the confusions JSON."),
    annotator: int = typer.Option(0, "--annotator", help="Annotator whose edits are counted."),
) -> None:
    """Estimate substitution weights and the error-type distribution from an M2 file (Yin et al., 2020, §3.1)."""
    check_input_file("M2_FILE", m2_file)
    check_output_file("--output", output)
    from robust_bench.perturb.confusions import fit_confusions, write_confusions

    try:
        conf = fit_confusions(m2_file, annotator=annotator)
    except (RobustBenchError, OSError) as exc:
        fail(exc)
    write_confusions(conf, output)
    typer.echo(f"wrote {output}: " + ", ".join(f"{k} {v:.3f}" for k, v in (conf.type_distribution or {}).items()))

