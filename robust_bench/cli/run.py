"""`robust-bench run`, `robust-bench merge` and `robust-bench suite`: score a model on a suite."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import seed_in_range, fail, check_positive, check_choice, check_output_dir
from robust_bench.data.repository import DEFAULT_REPO

suite_app = typer.Typer(help="Suite files: list, show, pin data hashes.", no_args_is_help=True)
app.add_typer(suite_app, name="suite")


@app.command("run")
def run_cmd(
    model: str = typer.Option(..., "--model", help="Hub id or folder of a transformers model (classifier, tagger, "
                                                   "encoder or causal LM) or spaCy pipeline, module:attribute of a "
                                                   "Python adapter, or a causal LM as hf:ID, vllm:ID or "
                                                   "openai-compatible:URL:MODEL."),
    revision: Optional[str] = typer.Option(None, "--revision", help="Branch, tag or commit of a Hub model (the run "
                                                                   "records the commit)."),
    suite: str = typer.Option("default", "--suite", help="Shipped suite name (`robust-bench suite list`) or YAML path."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated task or family names (default: all)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="At most N examples (groups) per task."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run in the output folder; finished tasks are kept."),
    shard: Optional[str] = typer.Option(None, "--shard", help="i/N: only shard i of N (by example id); merge the "
                                                             "shards with `robust-bench merge`."),
    executor: str = typer.Option("local", "--executor", help="local, or ray: run --shards shards as Ray tasks on the "
                                                            "Ray cluster (RAY_ADDRESS, else a local instance), then merge."),
    shards: int = typer.Option(2, "--shards", help="--executor ray: number of shards (one per GPU when there are GPUs)."),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built configs."),
    output_dir: Path = typer.Option(Path("runs"), "--output-dir", help="The run folder is OUTPUT_DIR/<model>."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    batch_size: int = typer.Option(64, "--batch-size"),
    num_fewshot: int = typer.Option(0, "--num-fewshot", help="Causal LMs: demonstrations per query, drawn with --seed "
                                                             "from the config's train (else another) split."),
    apply_chat_template: bool = typer.Option(False, "--apply-chat-template", help="Causal LMs: the prompt as the "
                                                                                 "user turn of the model's chat template."),
    scoring: str = typer.Option("loglikelihood", "--scoring", help="Causal LMs: loglikelihood (softmax over the "
                                                                   "verbalised labels) or generate (answer parsing, for "
                                                                   "endpoints without log-probabilities)."),
    acc_norm: bool = typer.Option(False, "--acc-norm", help="Causal LMs: log-likelihoods per character of the "
                                                           "verbaliser (lm-eval acc_norm) instead of summed (acc)."),
    system_instruction: Optional[str] = typer.Option(None, "--system-instruction", help="Causal LMs: a system "
                                                     "message (with --apply-chat-template, replacing the template's "
                                                     "default one), or text before a plain prompt; as lm-eval's "
                                                     "--system_instruction. Recorded; part of the prompt's hash."),
    setup: str = typer.Option("suite", "--setup", help="suite: the pipelines the tasks depend on must be the suite's "
                                                       "(checked before any work); any: not checked, recorded as "
                                                       "such, and not ranked (exploration)."),
    prompts: str = typer.Option("default", "--prompts", help="Causal LMs: default (lm-eval's prompt) or all: also "
                                "score every task under each paraphrased template of the suite, on the same rows; "
                                "run.json gives the metrics per template, their spread and the perturbation effect "
                                "relative to it (prompt sensitivity, Sclar et al. 2024)."),
) -> None:
    """Score one model on every suite task that fits it: records with 95% intervals, per-example logs, a report."""
    check_positive("--limit", limit)
    check_positive("--shards", shards)
    check_positive("--batch-size", batch_size)
    check_choice("--executor", executor, ("local", "ray"))
    check_choice("--scoring", scoring, ("loglikelihood", "generate"))
    check_choice("--setup", setup, ("suite", "any"))
    check_choice("--prompts", prompts, ("default", "all"))
    if num_fewshot < 0:
        fail(f"--num-fewshot must be >= 0, got {num_fewshot}")
    check_output_dir("--output-dir", output_dir)
    from robust_bench.suite.runner import parse_shard, run_folder, run_suite

    if shard:
        try:
            parse_shard(shard)
        except ValueError as exc:      # "3/2", "0/0": a usage error, one line, exit 2
            fail(exc)
    try:
        if executor not in ("local", "ray"):
            raise typer.BadParameter(f"--executor must be local or ray, got {executor!r}")
        part = parse_shard(shard) if shard else None
        from robust_bench.models.llm import LLMSettings

        llm = LLMSettings(num_fewshot=num_fewshot, apply_chat_template=apply_chat_template, scoring=scoring,
                          normalization="length" if acc_norm else "none", system_instruction=system_instruction)
        wanted = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
        out = run_folder(output_dir, model, part)
        typer.echo(f"{model} on suite {suite} -> {out}")
        if executor == "ray":
            if part is not None:
                raise typer.BadParameter("--executor ray makes its own shards; drop --shard")
            if prompts != "default":
                raise typer.BadParameter("--prompts all runs unsharded; drop --executor ray")
            from robust_bench.suite.distributed import run_on_ray

            run_on_ray(model, suite, repo=repo, out=out, n_shards=shards, tasks=wanted, limit=limit, seed=seed,
                       revision=revision, device=device, dtype=dtype, batch_size=batch_size, llm=llm, setup=setup,
                       echo=typer.echo)
        else:
            manifest = run_suite(model, suite, repo=repo, out=out, tasks=wanted, limit=limit, resume=resume, shard=part,
                                 seed=seed, revision=revision, device=device, dtype=dtype, batch_size=batch_size,
                                 llm=llm, setup=setup, prompts=prompts, echo=typer.echo)
            failed = [t for t, s in manifest["tasks"].items() if s["status"] == "failed"]
            if failed:
                typer.echo(f"error: tasks failed: {', '.join(failed)} (reasons above and in {out / 'run.json'})", err=True)
                raise typer.Exit(code=1)
        typer.echo(f"run folder: {out}")
    except RobustBenchError as exc:
        fail(exc)


@app.command("merge")
def merge_cmd(
    shard_dirs: list[Path] = typer.Argument(..., help="The shard folders of one run (from --shard i/N)."),
    out: Path = typer.Option(..., "--out", help="The merged run folder (must not exist yet)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="Suite YAML, where the shards ran one that is not shipped."),
) -> None:
    """Join shard folders into one run folder, with the records an unsharded run gives."""
    from robust_bench.suite.runner import merge_runs

    try:
        manifest = merge_runs(shard_dirs, out, suite=suite)
        typer.echo(f"merged {len(shard_dirs)} shards, {sum(s['status'] == 'done' for s in manifest['tasks'].values())} "
                   f"tasks -> {out}")
    except RobustBenchError as exc:
        fail(exc)


@suite_app.command("list")
def suite_list() -> None:
    """The shipped suites, their versions, tasks and whether their data is pinned."""
    from robust_bench.benchmarks import list_suites, load_suite

    for name in list_suites():
        s = load_suite(name)
        pinned = sum(bool(t.data_sha256) for t in s.tasks)
        typer.echo(f"{name:<24} v{s.version}  {len(s.tasks):>2} tasks, {pinned} pinned: "
                   f"{', '.join(t.name for t in s.tasks)}")


@suite_app.command("pin")
def suite_pin(
    path: Path = typer.Argument(..., help="A suite YAML that lists its tasks."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Repository holding the data to pin."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the pinned suite here (default: in place)."),
) -> None:
    """Write the SHA-256 of each task's built data file into the suite (bump its version when they change)."""
    from robust_bench.benchmarks import pin_suite

    try:
        changed = pin_suite(path, repo, out=out)
        for name, (old, new) in changed.items():
            typer.echo(f"  {name}: {old or 'unpinned'} -> {new}" if new else f"  {name}: not built in {repo}, kept")
        typer.echo(f"{sum(new is not None for _, new in changed.values())} hashes changed; written to {out or path}")
    except RobustBenchError as exc:
        fail(exc)
