"""`robust-bench audit`: a random sample of a built LIT config for human judgement."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench.cli._common import fail, known_errors, check_positive, check_output_file, check_input_file
from robust_bench.data.repository import DEFAULT_REPO


@app.command()
def audit(
    config: str = typer.Argument(..., help="A built LIT config, for example lit_mnli."),
    sample: int = typer.Option(200, "--sample", help="Rows to draw at random."),
    seed: int = typer.Option(0, "--seed", help="Seed of the draw."),
    split: Optional[str] = typer.Option(None, "--split", help="One split (default: all splits pooled)."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    out: Optional[Path] = typer.Option(None, "--out", help="TSV to write (default: audit_<config>_<seed>.tsv)."),
    judged: Optional[Path] = typer.Option(None, "--judged", help="Summarise a judged TSV instead of drawing."),
) -> None:
    """Print a random sample of rows, original beside transformed, and write it as a TSV with an
    empty `judgement` column (ok / bad); `--judged FILE` prints the share judged ok per code."""
    check_positive("--sample", sample)
    check_output_file("--out", out)
    check_input_file("--judged", judged)
    from robust_bench.experiments.audit import AuditError

    try:
        if judged is not None:
            _summarise(judged)
        else:
            _draw(config, sample, seed, split, repo, out)
    except (*known_errors(), AuditError) as exc:
        fail(exc)


def _draw(config, sample, seed, split, repo, out):
    from robust_bench.experiments.audit import audit_sample, write_audit_tsv

    rows = audit_sample(repo, config, n=sample, seed=seed, split=split)
    wrap = textwrap.TextWrapper(width=100, initial_indent="      ", subsequent_indent="      ")
    for k, r in enumerate(rows, 1):
        typer.echo(f"[{k}] {r['id']}  {r['transformation']}  {r['original_label']} -> {r['label']}")
        for side in ("premise", "hypothesis"):
            if r[side] == r[f"original_{side}"]:
                typer.echo(f"   {side[0].upper()}  (unchanged) {r[side]}")
            else:
                typer.echo(f"   {side[0].upper()}  {r[f'original_{side}']}")
                typer.echo(wrap.fill("-> " + r[side]))
    path = write_audit_tsv(rows, out or Path(f"audit_{config}_{seed}.tsv"))
    typer.echo(f"wrote {len(rows)} rows to {path}; fill the judgement column with ok or bad, then run "
               f"`robust-bench audit {config} --judged {path}`")


def _summarise(path):
    from robust_bench.experiments.audit import judged_shares, read_judgements

    shares = judged_shares(read_judgements(path))
    typer.echo(f"{'code':<12} {'judged':>7} {'ok':>5} {'share':>7}")
    for code, s in sorted(shares.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        typer.echo(f"{code:<12} {s['judged']:>7} {s['ok']:>5} {s['share']:>7.1%}")
