"""Per-example logs and the records computed from them.

A run writes one log line per example: ``id``, ``input_sha256``, ``prediction``, ``gold`` and
``outcome``, a dict of numbers from which every metric of the task is a sum-decomposable formula
(:data:`METRICS`, :mod:`robust_bench.scoring.intervals`). :func:`record_from_log` turns a log into its
v2 record; ``run``, ``merge``, ``submit``, ``leaderboard build`` and ``check`` all use it, so a record
can always be recomputed from its log and compared.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from typing import Sequence

import numpy as np

from robust_bench.benchmarks import Suite, Task
from robust_bench.leaderboard.records import package_versions, validate_record
from robust_bench.scoring.intervals import Formula, bootstrap_interval, metric_value
from robust_bench import RobustBenchError

__all__ = ["METRICS", "RunError", "read_log", "log_columns", "record_from_log"]


def _r(num: str, den: str = "one") -> Formula:
    return Formula("ratio", (num, den))


def _f1(prefix: str) -> Formula:
    return Formula("f1", (f"tp_{prefix}", f"fp_{prefix}", f"fn_{prefix}"))


#: per evaluation, every metric it can report and its formula over the per-example outcome fields
METRICS: dict[str, dict[str, Formula]] = {
    "contrast-set": {"acc_ori": _r("ori_correct"), "acc_ctr": _r("ctr_correct"),
                     "consistency": _r("consistent", "counted")},
    "attack": {"clean_accuracy": _r("clean_correct"), "adversarial_accuracy": _r("adversarial_correct"),
               "attack_success_rate": _r("success", "attacked"),
               "f1_clean": _f1("clean"), "f1_adversarial": _f1("adversarial")},
    "name-swaps": {"original_f1": _f1("original"), "worst_f1": _f1("worst"), "best_f1": _f1("best"),
                   "stability": _r("stable", "counted")},
    "probe": {"uuas_plain": _r("uuas_correct_plain", "uuas_total_plain"),
              "uuas_jabberwocky": _r("uuas_correct_jabberwocky", "uuas_total_jabberwocky"),
              "dspr_plain": Formula("dspr", ("dspr_rho_sum_plain", "dspr_rows_plain", "length")),
              "dspr_jabberwocky": Formula("dspr", ("dspr_rho_sum_jabberwocky", "dspr_rows_jabberwocky", "length"))},
    "parser-attack": {"uas_original": _r("arcs_right_original", "scored"),
                      "las_original": _r("labels_right_original", "scored"),
                      "uas_adversarial": _r("arcs_right_adversarial", "scored"),
                      "las_adversarial": _r("labels_right_adversarial", "scored"),
                      "success_rate": _r("success")},
}


class RunError(RobustBenchError, RuntimeError):
    """The run cannot start or continue: an existing folder without ``resume``, a different model
    or suite version in the folder being resumed, unmergeable shards, a malformed log."""


def read_log(path: str | os.PathLike) -> list[dict]:
    """Read a per-example log.

    Raises
    ------
    RunError
        Naming the file and line of a malformed entry or a repeated id.
    """
    out, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                e = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RunError(f"{path}, line {n}: not JSON ({exc.msg})") from None
            if not isinstance(e, dict) or not isinstance(e.get("id"), str) or not isinstance(e.get("outcome"), dict):
                raise RunError(f"{path}, line {n}: an entry needs a string 'id' and an 'outcome' object")
            bad = [k for k, v in e["outcome"].items() if not isinstance(v, (int, float)) or isinstance(v, bool)
                   or not np.isfinite(v)]
            if bad:
                raise RunError(f"{path}, line {n}: outcome fields {bad} are not finite numbers")
            if e["id"] in seen:
                raise RunError(f"{path}, line {n}: id {e['id']!r} repeats")
            seen.add(e["id"])
            out.append(e)
    return out


def log_columns(examples: Sequence[dict]) -> dict[str, np.ndarray]:
    """Outcome fields as columns, shape (n_examples,) each (a field absent from an entry is 0)."""
    keys = sorted({k for e in examples for k in e["outcome"]})
    return {k: np.asarray([e["outcome"].get(k, 0) for e in examples], dtype=np.float64) for k in keys}


def _clean(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 10)


def record_from_log(task: Task, suite: Suite, examples: Sequence[dict], *, log_sha256: str, model_id: str,
                    revision: str | None, corpus_sha256: str, seed: int, limit: int | None,
                    versions: dict | None = None, timestamp: str | None = None) -> dict:
    """The v2 record of a task, from its per-example log alone.

    Metrics come from :data:`~robust_bench.suite.evaluations.METRICS`; every interval is a 95%
    percentile bootstrap over the examples (:func:`robust_bench.scoring.intervals.bootstrap_interval`,
    seeded by ``seed``). Values are rounded to 10 decimals so that the record is byte-stable.

    Raises
    ------
    RunError
        If a task metric is unknown to its evaluation, or a value leaves the metric's range.
    RecordError
        If the record does not validate.
    """
    cols = log_columns(examples)
    metrics, intervals = {}, {}
    for spec in task.metrics:
        formula = METRICS[task.evaluation].get(spec.name)
        if formula is None:
            raise RunError(f"task {task.name!r}: evaluation {task.evaluation!r} has no metric {spec.name!r}; "
                           f"it has {', '.join(METRICS[task.evaluation])}")
        if examples and not all(f in cols for f in formula.fields):
            metrics[spec.name], intervals[spec.name] = None, [None, None]
            continue
        value = metric_value(formula, cols) if examples else float("nan")
        lo, hi = bootstrap_interval(formula, cols, seed=seed) if examples else (float("nan"), float("nan"))
        if np.isfinite(value) and not spec.range[0] - 1e-9 <= value <= spec.range[1] + 1e-9:
            raise RunError(f"task {task.name!r}: {spec.name} = {value} is outside its range {list(spec.range)}")
        metrics[spec.name], intervals[spec.name] = _clean(value), [_clean(lo), _clean(hi)]
    rec = {
        "schema_version": "2",
        "model": {"id": model_id, "revision": revision},
        "suite": {"name": suite.name, "version": suite.version},
        "task": task.name, "family": task.family, "evaluation": task.evaluation,
        "config": task.config, "split": task.split, "corpus_sha256": corpus_sha256,
        "data_pinned": task.data_sha256 == corpus_sha256,
        "metrics": metrics, "intervals": intervals, "primary": task.primary,
        "n_examples": len(examples), "log_sha256": log_sha256,
        "details": {"limit": limit, "options": task.options},
        "seed": int(seed),
        "versions": versions if versions is not None else package_versions("datasets", "transformers", "torch", "scipy"),
        "timestamp": timestamp or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    validate_record(rec)
    return rec
