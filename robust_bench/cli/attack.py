"""`robust-bench attack`: grammatical-error attacks (Yin et al., 2020)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (seed_in_range, check_choice, check_fraction, check_model, check_output_dir, check_positive,
                                      fail, parse_label_map)
from robust_bench.data.repository import DEFAULT_REPO


@app.command()
def attack(
    model: str = typer.Option(..., "--model", help="AutoModelForSequenceClassification id or local path."),
    config: str = typer.Option(..., "--config", help="gec_mnli, gec_mrpc, gec_qnli or gec_sst2 (built first)."),
    search: str = typer.Option("greedy", "--search", help="greedy, beam or genetic (Yin et al., Alg. 1-3)."),
    budget: float = typer.Option(0.15, "--budget", help="Share of the segment's tokens that may change (§4: 0.15)."),
    split: Optional[str] = typer.Option(None, "--split", help="Split to attack (default: the config's first)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Read only the first N rows of the split (dataset rows; "
                                        "only the correctly predicted ones are attacked)."),
    max_attacked: Optional[int] = typer.Option(None, "--max-attacked", help="Attack at most N examples (the first N "
                                               "correctly predicted rows)."),
    resume: bool = typer.Option(False, "--resume", help="Continue a killed attack in its run folder (finished "
                                "examples are read back from its journal, not attacked again)."),
    label_map: Optional[str] = typer.Option(None, "--label-map", help="MODEL_LABEL=DATASET_LABEL,... when names differ."),
    agree_with: Optional[str] = typer.Option(None, "--agree-with",
                                             help="Comma-separated models; attack only examples all of them predict correctly."),
    curve: bool = typer.Option(True, "--curve/--no-curve", help="Also plot success rate for budgets 15%-45% (Fig. 1)."),
    candidates: str = typer.Option("stored", "--candidates", help="stored: the validated edits the data ships (the "
                                   "benchmark's; no pipeline needed); parse: parse the segments now with "
                                   "ROBUST_BENCH_SPACY_MODEL and check them (exploration; the record names the pipelines)."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range),
    suite: Optional[str] = typer.Option(None, "--suite", help="The suite whose task this is (default: "
                                                            "grammatical_errors); other options or data make a "
                                                            "derived, unranked one-task suite."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository; adversarial examples go there too."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Run folders go under OUTPUT_DIR/<model>/: "
                                                                          "v2 records, logs, report, the paper's tables."),
) -> None:
    """Worst-case grammatical-error attack on a classifier or tagger: a run of the suite's task (v2 record,
    per-example log, report) and the paper's report (success rate, queries, error types, budget curve)."""
    check_model("--model", model)
    for other in (agree_with or "").split(","):
        check_model("--agree-with", other or None)
    check_choice("--search", search, ("greedy", "beam", "genetic"))
    check_choice("--candidates", candidates, ("stored", "parse"))
    check_fraction("--budget", budget)
    check_positive("--limit", limit)
    check_positive("--max-attacked", max_attacked)
    check_output_dir("--output-dir", output_dir)
    check_output_dir("--repo", repo)
    from robust_bench.suite.command import attack_command

    try:
        out, _ = attack_command(model, config, search=search, budget=budget, split=split, limit=limit,
                                max_attacked=max_attacked, resume=resume, label_map=parse_label_map(label_map),
                                agree_with=[m for m in (agree_with or "").split(",") if m], curve=curve,
                                candidates=candidates, device=device, dtype=dtype, seed=seed, suite=suite, repo=repo,
                                output_dir=output_dir, echo=typer.echo)
        typer.echo(f"run folder: {out} (record, per-example log, report; tables/ and figures/ hold the paper's)")
    except RobustBenchError as exc:
        fail(exc)
