"""`robust-bench export lm-eval`: the static corpora as lm-evaluation-harness tasks."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from robust_bench import RobustBenchError
from robust_bench.cli._app import app
from robust_bench.cli._common import check_positive, fail
from robust_bench.data.repository import DEFAULT_REPO

export_app = typer.Typer(help="Write the built corpora in another tool's format.", no_args_is_help=True)
app.add_typer(export_app, name="export")


@export_app.command("lm-eval")
def export_lm_eval_cmd(
    configs: List[str] = typer.Argument(..., help="Classification configs: gec_mnli, gec_mrpc, gec_qnli, gec_sst2, "
                                                  "names_mrpc, lit_mnli, lit_snli."),
    out: Path = typer.Option(Path("lm_eval_tasks"), "--out", help="Folder for the task YAMLs and their Parquet data "
                                                                  "(lm_eval --include_path OUT)."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built configs."),
    split: Optional[str] = typer.Option(None, "--split", help="Split to export (default: the one the default suite "
                                                              "scores)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N rows."),
) -> None:
    """lm-eval multiple_choice tasks robust_bench_CONFIG (perturbed rows) and robust_bench_CONFIG_original, with
    local Parquet data and its SHA-256 in each task's metadata."""
    check_positive("--limit", limit)
    from robust_bench.data.lm_eval_export import export_lm_eval

    from robust_bench.benchmarks import load_suite

    scored = {t.config: t.split for t in reversed(load_suite("default").tasks)}
    try:
        paths = export_lm_eval(configs, repo=repo, out=out, limit=limit,
                               splits={c: split or scored.get(c) for c in configs})
    except RobustBenchError as exc:
        fail(exc)
    for p in paths:
        typer.echo(f"  {p}")
    names = " ".join(sorted({p.stem for p in paths}))
    typer.echo(f"run them with: lm_eval --model hf --model_args pretrained=MODEL --tasks {names.replace(' ', ',')} "
               f"--include_path {Path(out).resolve()}")
