"""`robust-bench baselines`: the Path and Majority baselines on Jabberwocky configs."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import fail
from robust_bench.data.repository import DEFAULT_REPO


@app.command()
def baselines(
    config: str = typer.Option("jabberwocky_ewt", "--config", help="A Jabberwocky config."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    source: Optional[Path] = typer.Option(None, "--source", help="Local mirror of the source treebank."),
    split: str = typer.Option("test", "--split", help="Split to score."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where result records are written."),
) -> None:
    """Score the Path and Majority baselines (UUAS, DSpr) on plain and Jabberwocky text.

    Both baselines ignore the words, so the plain and Jabberwocky scores must be identical;
    the command fails if they are not.
    """
    try:
        _baselines(config, repo, source, split, output_dir)
    except RobustBenchError as exc:
        fail(exc)


def _baselines(config: str, repo: Path, source: Optional[Path], split: str, output_dir: Path) -> None:
    from robust_bench.experiments.baselines import run_baselines
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.scoring import PUNCTUATION_RULES

    run = run_baselines(config, repo=repo, source=source, split=split)
    typer.echo(f"{config} / {split}: model-free baselines (Hall Maudslay & Cotterell, 2021, §5.1)")
    rules = {r["details"]["punctuation_rule"] for by_v in run["results"].values() for r in by_v.values()}
    typer.echo(f"UUAS excludes punctuation by: {', '.join(PUNCTUATION_RULES[r] for r in sorted(rules))}")
    typer.echo(f"{'baseline':<10} {'variant':<12} {'UUAS':>7} {'DSpr':>7}")
    written = []
    for name, by_variant in run["results"].items():
        for variant, r in by_variant.items():
            typer.echo(f"{name:<10} {variant:<12} {r['uuas']:>7.4f} {r['dspr']:>7.4f}")
            rec = make_record(model_id=f"baseline:{name}", revision=None, config=config, split=split,
                              corpus_sha256=run["hashes"][variant], metrics={"uuas": r["uuas"], "dspr": r["dspr"]},
                              seed=run["seed"], variant=variant, details=r["details"])
            written.append(write_record(rec, output_dir))
    typer.echo("check passed: plain and Jabberwocky scores are identical for both baselines")
    for path in written:
        typer.echo(f"  wrote {path}")
