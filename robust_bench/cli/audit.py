"""`robust-bench audit`: blind validity audits of any built config (../shared/VALIDITY.md)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import seed_in_range, fail, check_positive, check_output_file, check_input_file
from robust_bench.data.repository import DEFAULT_REPO


@app.command()
def audit(
    config: str = typer.Argument(..., help="A built config, of any family (gec_mnli, names_mrpc, lit_mnli, ...)."),
    sample: int = typer.Option(100, "--sample", help="Changed rows to draw at random (100 or more for a card)."),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range, help="Seed of the draw; use a new one after fixing the builder."),
    split: Optional[str] = typer.Option(None, "--split", help="One split (default: all splits pooled)."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    out: Optional[Path] = typer.Option(None, "--out", help="TSV to write (default: audit_<config>_<seed>.tsv)."),
    judged: Optional[Path] = typer.Option(None, "--judged", help="Record a judged TSV on the card instead of drawing."),
    reader: str = typer.Option("", "--reader", help="With --judged: who judged (recorded on the card)."),
) -> None:
    """Draw a blind audit sample (id, original, perturbed, edits; empty judgement, defect and reason
    columns) as a TSV; `--judged FILE` checks a judged TSV against the build and records ok/N with a
    95% Wilson interval and the defect classes in the card's Validity section."""
    check_positive("--sample", sample)
    check_output_file("--out", out)
    check_input_file("--judged", judged)

    from robust_bench.experiments.audit import asks_fluency, audit_sample, record_audit, write_audit_tsv

    try:
        if judged is not None:
            e = record_audit(repo, config, judged, reader=reader)
            lo, hi = e["wilson_95"]
            typer.echo(f"{config}: {e['ok']}/{e['n']} judged ok ({e['share']:.1%}, 95% Wilson [{lo:.1%}, {hi:.1%}]), "
                       f"seed {e['seed']}, builder {e['builder_version']}; recorded as {e['file']} on the card")
            if "fluent" in e:
                f = e["fluent"]
                typer.echo(f"{config}: {f['ok']}/{f['n']} judged fluent ({f['share']:.1%}, 95% Wilson "
                           f"[{f['wilson_95'][0]:.1%}, {f['wilson_95'][1]:.1%}])")
            for defect, count in e["defects"].items():
                typer.echo(f"  {count:>4}  {defect}")
            return
        rows, meta = audit_sample(repo, config, n=sample, seed=seed, split=split)
        wrap = textwrap.TextWrapper(width=100, initial_indent="      ", subsequent_indent="      ")
        for k, r in enumerate(rows, 1):
            typer.echo(f"[{k}] {r['id']}  {r['edits'][:120]}")
            typer.echo(wrap.fill(r["original"][:600]))
            typer.echo(wrap.fill("-> " + r["perturbed"][:600]))
        fluency = asks_fluency(config, meta.get("family"))
        path = write_audit_tsv(rows, out or Path(f"audit_{config}_{seed}.tsv"), meta, fluency=fluency)
        typer.echo(f"wrote {len(rows)} rows to {path} (+ {path.name}.meta.json); {meta['unchanged_share']:.1%} of "
                   f"{meta['units']:,} rows or groups were left unchanged and are not drawn. Fill judgement with ok or "
                   f"bad (and defect, reason for bad){', and fluent with yes or no' if fluency else ''}, then run "
                   f"`robust-bench audit {config} --judged {path}`")
    except RobustBenchError as exc:
        fail(exc)
