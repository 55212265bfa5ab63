"""`robust-bench submit` and `robust-bench leaderboard init|build`: the results store and its site."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import check_positive, fail, seed_in_range
from robust_bench.data.repository import DEFAULT_REPO
from robust_bench.leaderboard.verification import DEFAULT_SAMPLE

board_app = typer.Typer(help="The leaderboard: create a results store, build its static site.", no_args_is_help=True)
app.add_typer(board_app, name="leaderboard")


@app.command("submit")
def submit_cmd(
    run_dir: Path = typer.Argument(..., help="A run folder (robust-bench run or merge)."),
    to: str = typer.Option(..., "--to", help="The store: a local folder (robust-bench leaderboard init) or a Hub "
                                             "dataset repository ORG/NAME (the submission opens a pull request)."),
    model_id: Optional[str] = typer.Option(None, "--model-id", help="List the scores under this Hub-style id "
                                                                   "(needed when the run scored a local folder)."),
    revision: Optional[str] = typer.Option(None, "--revision", help="Revision label (needed when the run records none)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a stored submission of the same model, suite "
                                                              "version, revision and way of asking."),
    partial: bool = typer.Option(False, "--partial", help="Store a partial run (--limit, fewer examples than a task "
                                                          "pins) as a marked row that is not ranked."),
) -> None:
    """Validate a run and add it to a leaderboard store; a rejected run leaves the store unchanged. Only whole
    runs are ranked: a run made with --limit is refused unless --partial lists it unranked."""
    from robust_bench.leaderboard.store import open_store, submit

    try:
        sub, where = submit(run_dir, open_store(to), model_id=model_id, revision=revision, overwrite=overwrite,
                            partial=partial)
    except (RobustBenchError, FileExistsError) as exc:
        typer.echo(f"rejected: {exc}", err=True)
        raise typer.Exit(code=2)
    for task, why in sub.excluded.items():
        typer.echo(f"  {task}: not submitted, {why}")
    for task, why in sub.partial.items():
        typer.echo(f"  {task}: partial, {why}")
    asked = "" if sub.asked == "model" else f" asked as {sub.asked}"
    typer.echo(f"accepted {sub.model_id}@{sub.revision}{asked} on {sub.suite.name} v{sub.suite.version}: "
               f"{len(sub.records)} tasks ({', '.join(sorted(sub.records))}) -> {where}"
               + (" (partial: listed, not ranked)" if sub.partial else ""))


@board_app.command("init")
def init_cmd(
    store: Path = typer.Option(..., "--store", help="Folder of the new store (or an existing one, to add suites)."),
    suite: list[str] = typer.Option(["default"], "--suite", help="Suite name or YAML the store accepts (repeatable)."),
    name: str = typer.Option("robust-bench leaderboard", "--name"),
) -> None:
    """Create a local results store that accepts the given suite versions (their data hashes frozen)."""
    from robust_bench.benchmarks import load_suite
    from robust_bench.leaderboard.store import init_store

    try:
        suites = [load_suite(s) for s in suite]
        init_store(store, suites, name=name)
        for s in suites:
            pinned = sum(bool(t.data_sha256) for t in s.tasks)
            typer.echo(f"  accepts {s.name} v{s.version}: {pinned} of {len(s.tasks)} tasks pinned to data")
        typer.echo(f"store: {store}")
    except (RobustBenchError, FileExistsError) as exc:
        fail(exc)


@board_app.command("build")
def build_cmd(
    store: str = typer.Option(..., "--store", help="A local store folder or a Hub dataset repository ORG/NAME."),
    out: Path = typer.Option(Path("site"), "--out", help="Folder of the static site (replaced if it is one)."),
) -> None:
    """Validate every stored submission again and write the static site: index, family pages, reports."""
    from robust_bench.leaderboard.site import build_site
    from robust_bench.leaderboard.store import open_store

    try:
        subs = build_site(open_store(store).local_copy(), out)
        typer.echo(f"{len(subs)} submissions -> {out / 'index.html'}")
    except (RobustBenchError, FileExistsError) as exc:
        fail(exc)


@board_app.command("verify")
def verify_cmd(
    submission: str = typer.Argument(..., help="MODEL_ID or MODEL_ID@REVISION of a stored submission."),
    store: str = typer.Option(..., "--store", help="A local store folder or a Hub dataset repository ORG/NAME."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the pinned configs."),
    model: Optional[str] = typer.Option(None, "--model", help="Load this local folder (or spaCy pipeline) instead of "
                                                              "the Hub id; its fingerprint must be the run's."),
    suite: Optional[str] = typer.Option(None, "--suite", help="NAME-vVERSION, where the model has several."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated submitted tasks (default: all)."),
    sample: int = typer.Option(DEFAULT_SAMPLE, "--sample", help="Examples drawn per task (groups for name swaps)."),
    full: bool = typer.Option(False, "--full", help="Re-run every example instead of a sample."),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range, help="Seed of the draw."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: Optional[str] = typer.Option(None, "--dtype", help="Default: the dtype the run recorded."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Default: the batch size the run recorded."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Compare only; store no verification."),
) -> None:
    """Re-run a submission's model on a seeded sample of each task and compare predictions example by
    example; the site then marks the row verified, or flagged when they differ beyond the tolerance.
    Exit 0 verified, 1 flagged, 2 on an error."""
    check_positive("--sample", sample)
    check_positive("--batch-size", batch_size)
    from robust_bench.leaderboard.store import open_store
    from robust_bench.suite.verify import verify_submission

    try:
        doc = verify_submission(open_store(store), submission, repo=repo, model=model, suite=suite,
                                tasks=[t.strip() for t in tasks.split(",") if t.strip()] if tasks else None, sample=None if full else sample, seed=seed, device=device, dtype=dtype,
                                batch_size=batch_size, write=not dry_run, echo=typer.echo)
    except (RobustBenchError, OSError) as exc:   # OSError: a pipeline missing
        fail(exc)
    if doc["status"] != "verified":
        raise typer.Exit(code=1)
