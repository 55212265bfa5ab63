"""`robust-bench attack`: grammatical-error attacks (Yin et al., 2020)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (seed_in_range, check_choice, check_fraction, check_model, check_output_dir, check_positive,
                                      fail, model_slug, parse_label_map)
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
    resume: bool = typer.Option(False, "--resume", help="Continue a killed attack from its journal in "
                                "OUTPUT_DIR/.attack-journals (finished examples are not attacked again)."),
    label_map: Optional[str] = typer.Option(None, "--label-map", help="MODEL_LABEL=DATASET_LABEL,... when names differ."),
    agree_with: Optional[str] = typer.Option(None, "--agree-with",
                                             help="Comma-separated models; attack only examples all of them predict correctly."),
    curve: bool = typer.Option(True, "--curve/--no-curve", help="Also plot success rate for budgets 15%-45% (Fig. 1)."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository; adversarial examples go there too."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where the record and the plot go."),
) -> None:
    """Worst-case grammatical-error attack on a classifier; reports the attack success rate."""
    check_model("--model", model)
    for other in (agree_with or "").split(","):
        check_model("--agree-with", other or None)
    check_choice("--search", search, ("greedy", "beam", "genetic"))
    check_fraction("--budget", budget)
    check_positive("--limit", limit)
    check_positive("--max-attacked", max_attacked)
    check_output_dir("--output-dir", output_dir)
    check_output_dir("--repo", repo)
    try:
        _attack(model, config, search, budget, split, limit, parse_label_map(label_map),
                [m for m in (agree_with or "").split(",") if m], curve, device, dtype, seed, repo, output_dir,
                max_attacked, resume)
    except RobustBenchError as exc:
        fail(exc)


def _attack(model, config, search, budget, split, limit, label_map, agree_with, curve, device, dtype, seed, repo,
            output_dir, max_attacked=None, resume=False):
    import time

    from robust_bench.attacks.runner import AttackError, budget_curve, plot_budget_curve, run_attack, run_ner_attack
    from robust_bench.attacks.search import AttackJournal
    from robust_bench.data.adversarial import load_examples, save_adversarial
    from robust_bench.leaderboard.records import make_record, write_record

    rows, split, meta = load_examples(repo, config, split, limit)
    ner = config == "gec_conll2003"
    if ner:
        from robust_bench.models.taggers import HFTokenClassifier

        names = rows.features["ner_tags"].feature.names
        target = HFTokenClassifier(model, names, label_map=label_map, device=device, dtype=dtype)
        others = [HFTokenClassifier(m, names, label_map=label_map, device=device, dtype=dtype) for m in agree_with]
        if max_attacked or resume:
            raise AttackError("--max-attacked and --resume are for classification configs; gec_conll2003 "
                              "attacks every sentence whose entities the tagger gets right")
        t0 = time.perf_counter()
        run = run_ner_attack(target, rows, search=search, budget_rate=budget, seed=seed, agree_with=others)
    else:
        from robust_bench.models.classifiers import HFClassifier

        labels = rows.features["label"].names
        target = HFClassifier(model, labels, label_map=label_map, device=device, dtype=dtype)
        others = [HFClassifier(m, labels, label_map=label_map, device=device, dtype=dtype) for m in agree_with]
        journal_path = output_dir / ".attack-journals" / f"{model_slug(model)}__{config}__{split}__{search}.jsonl"
        if not resume and journal_path.exists():
            journal_path.unlink()
        journal = AttackJournal(journal_path, {
            "model": model, "revision": target.revision, "config": config, "split": split,
            "corpus_sha256": meta["files"][split]["sha256"], "search": search, "budget": budget, "seed": seed,
            "limit": limit, "max_attacked": max_attacked, "agree_with": agree_with, "label_map": label_map})
        resumed = len(journal.done)
        t0 = time.perf_counter()
        try:
            run = run_attack(target, rows, config, search=search, budget_rate=budget, seed=seed, agree_with=others,
                             max_attacked=max_attacked, journal=journal)
        finally:
            journal.close()
        if resumed:
            typer.echo(f"  resumed: {resumed} finished attacks read from {journal_path}")
    wall = time.perf_counter() - t0
    s = run["summary"]
    what = "the non-entity tokens" if ner else f"the {run['segment']}"
    typer.echo(f"{model} on {config}/{split}, {search} search, budget {budget:.0%} of {what}:")
    if ner:
        typer.echo(f"  entity F1 clean {s['f1_clean']:.4f} -> adversarial {s['f1_adversarial']:.4f} "
                   f"(drop {100 * s['f1_drop']:.1f} points)")
    else:
        typer.echo(f"  clean accuracy            {s['clean_accuracy']:.4f} ({s['examples']} examples)")
    typer.echo(f"  attacked (correct{' for all models' if others else ''})  {s['attacked']}")
    typer.echo(f"  attack success rate       {s['attack_success_rate']:.4f}   (lower is more robust)")
    typer.echo(f"  modified share (success)  {s['modified_share_mean']:.4f}")
    typer.echo(f"  queries per example       mean {s['queries_mean']:.1f}, median {s['queries_median']:.1f}")
    n_inputs = getattr(target, "queries", 0)
    typer.echo(f"  wall time                 {wall:.1f} s ({wall / max(1, s['attacked']):.2f} s per attacked example; "
               f"{n_inputs / wall if wall else 0:.0f} model inputs/s, {getattr(target, 'n_forward', 0)} forward calls)")
    typer.echo("  error types in successful attacks: " + ", ".join(f"{k} {v}" for k, v in s["error_types_in_successes"].items()))
    if getattr(target, "n_truncated", 0) or getattr(target, "n_windowed", 0):
        typer.echo(f"  inputs longer than the model's limit: {getattr(target, 'n_truncated', 0)} truncated, "
                   f"{getattr(target, 'n_windowed', 0)} tagged in windows")
    slug = model_slug(model)
    adv_name = save_adversarial(run, repo=repo, name=f"adv_{slug}_{config}_{search}", model=model,
                                revision=target.revision, config=config, split=split, search=search, budget=budget,
                                seed=seed, meta=meta)
    typer.echo(f"  adversarial examples: config {adv_name!r} in {repo}")
    details = {k: v for k, v in s.items() if k != "attack_success_rate"}
    details.update({"agree_with": agree_with, "adversarial_config": adv_name,
                    "n_truncated": getattr(target, "n_truncated", 0), "n_windowed": getattr(target, "n_windowed", 0)})
    metrics = {"attack_success_rate": s["attack_success_rate"]}
    metrics.update({k: s[k] for k in (("f1_clean", "f1_adversarial", "f1_drop") if ner else ("clean_accuracy",))})
    rec = make_record(model_id=model, revision=target.revision, config=config, split=split,
                      corpus_sha256=meta["files"][split]["sha256"], metrics=metrics, seed=seed, details=details)
    typer.echo(f"  record: {write_record(rec, output_dir, tag=f'attack-{search}')}")
    if not ner:
        journal_path.unlink(missing_ok=True)
    if curve:
        c = budget_curve(run["objective"] if ner else target, run["targets"], search=search, seed=seed)
        typer.echo("  success vs budget: " + ", ".join(f"{int(b * 100)}% {v:.3f}" for b, v in c.items()))
        paths = plot_budget_curve({f"{Path(model).name} ({search})": c}, output_dir / f"{slug}__{config}__{search}__budget",
                                  title=f"Attack success rate vs budget, {config}/{split}")
        typer.echo(f"  figure: {', '.join(str(p) for p in paths)}")
