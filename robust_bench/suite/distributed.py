"""Sharded runs as Ray tasks (``robust-bench run --executor ray``).

Each shard is one Ray task, which loads the model once and runs every task of the suite on its
examples (:func:`robust_bench.suite.runner.run_suite` with ``shard=(i, n)``); the driver then merges
the shard folders (:func:`~robust_bench.suite.runner.merge_runs`). Ray connects to the cluster in
``RAY_ADDRESS`` when set, else starts a local instance. Where the cluster has GPUs, each shard asks
for one, so N GPUs run N shards at once. ``ray`` is an optional extra: ``pip install robust-bench[ray]``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from robust_bench.benchmarks import Suite, load_suite
from robust_bench.suite.runner import RunError, merge_runs, run_suite

__all__ = ["run_on_ray"]


def _shard(model, suite, repo, out, i, n, tasks, limit, seed, revision, device, dtype, batch_size, llm=None,
           setup="suite") -> str:
    run_suite(model, suite, repo=repo, out=out, tasks=tasks, limit=limit, shard=(i, n), seed=seed, revision=revision,
              device=device, dtype=dtype, batch_size=batch_size, report=False, llm=llm, setup=setup, echo=lambda _m: None)
    return str(out)


def run_on_ray(model: str, suite: str | Suite, *, repo: str | os.PathLike, out: str | os.PathLike, n_shards: int,
               tasks: Sequence[str] | None = None, limit: int | None = None, seed: int = 0,
               revision: str | None = None, device: str = "auto",
               dtype: str = "auto", batch_size: int = 64, num_cpus: int | None = None, llm=None, setup: str = "suite",
               echo: Callable[[str], None] = print) -> dict:
    """Run ``n_shards`` shards of a suite run as Ray tasks and merge them into ``out``.

    Shard folders go to ``out.shards/<i>-of-<n>`` (kept, for inspection and resumption).

    Parameters
    ----------
    num_cpus : int, optional
        CPUs of a local Ray instance (default: all); ignored when joining a cluster.

    Returns
    -------
    dict
        The merged run's manifest.

    Raises
    ------
    RunError
        If ray is not installed, ``out`` exists, or a shard fails.
    """
    try:
        import ray
    except ImportError:
        raise RunError("--executor ray needs ray: pip install 'robust-bench[ray]'") from None
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    out = Path(out)
    if out.exists():
        raise RunError(f"{out} already exists; choose another --output-dir")
    shard_root = out.with_name(out.name + ".shards")
    started = not ray.is_initialized()
    if started:
        ray.init(address=os.environ.get("RAY_ADDRESS") or None, num_cpus=num_cpus, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
    try:
        gpus = int(ray.cluster_resources().get("GPU", 0))
        remote = ray.remote(num_gpus=1 if gpus else 0, max_retries=0)(_shard)
        dirs = [shard_root / f"{i + 1}-of-{n_shards}" for i in range(n_shards)]
        echo(f"  {n_shards} shards on Ray ({int(ray.cluster_resources().get('CPU', 0))} CPUs, {gpus} GPUs)")
        futures = [remote.remote(model, suite, Path(repo).resolve(), d.resolve(), i, n_shards, tasks, limit, seed,
                                 revision, "cuda" if gpus and device == "auto" else device, dtype, batch_size, llm,
                                 setup)
                   for i, d in enumerate(dirs)]
        try:
            ray.get(futures)
        except ray.exceptions.RayTaskError as exc:
            raise RunError(f"a shard failed on Ray: {exc.cause if hasattr(exc, 'cause') else exc}") from None
    finally:
        if started:
            ray.shutdown()
    manifest = merge_runs(dirs, out, suite=suite)
    echo(f"  merged {n_shards} shards -> {out}")
    return manifest
