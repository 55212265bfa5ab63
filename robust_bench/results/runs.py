"""Run folders: the one reader and writer of what ``robust-bench run`` leaves on disk.

A run folder holds

* ``run.json``: the manifest: model, suite name and version, seed, limit, shard, revision, and each
  task's status (``done``, ``skipped`` with the reason, ``failed`` with the error), diagnostics and
  wall time;
* ``logs/<task>.jsonl``: one line per example (``id``, ``input_sha256``, ``prediction``, ``gold``,
  ``outcome`` and, since record 2.2, ``cluster``: the source example, group or document the example was
  drawn from, as its evaluation declares it), sorted by id, as lm-evaluation-harness's ``--log_samples``. ``outcome`` is a dict
  of numbers from which every metric of the task is a sum-decomposable formula
  (:class:`robust_bench.scoring.intervals.Formula`), so that shards merge exactly and two runs
  compare paired;
* ``records/<task>.json``: the v2 result record, computed from the log alone
  (:func:`record_from_log`).

Everything here reads those files as strictly as a leaderboard reads a stranger's submission:
bounded sizes (:data:`LIMITS`), no symbolic links, UTF-8, strict JSON (no NaN or Infinity, bounded
nesting), the manifest's fields (:data:`RUN_SCHEMA`), one JSON object per log line with a unique
string id and finite numeric outcomes. ``run``, ``merge``, ``check``, ``submit``, ``leaderboard
build``, ``push-results`` and the reports all read through it. Every failure is a
:class:`RunFolderError` naming the file (and line) and the field.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from robust_bench import RobustBenchError
from robust_bench.io.fileio import atomic_write_text
from robust_bench.results.records import RecordError, package_versions, validate_record
from robust_bench.scoring.intervals import (bootstrap_interval, cluster_index, design_effect, metric_interval,
                                            metric_value)

__all__ = ["RUN_FILE", "LIMITS", "MAX_TOTAL_BYTES", "RUN_SCHEMA", "RunError", "RunFolderError", "read_json",
           "file_size", "read_manifest", "write_manifest", "read_log", "write_log", "read_record", "read_records", "write_task_record",
           "log_columns", "log_clusters", "record_from_log", "dumps", "LLM_SETUP", "RECORD_VERSION", "RECORD_VERSIONS"]

RUN_FILE = "run.json"
#: largest accepted size of each file of a run folder, in bytes
LIMITS = {"run.json": 1 << 20, "submission.json": 1 << 20, "record": 1 << 20, "log": 64 << 20}
#: largest accepted size of a whole run folder's scored files, in bytes
MAX_TOTAL_BYTES = 512 << 20
_TASK = r"^[a-z][a-z0-9_]{0,63}$"

#: the fields of ``run.json`` that its readers rely on
RUN_SCHEMA = {
    "type": "object",
    "required": ["model", "suite", "seed", "tasks"],
    "properties": {
        "model": {"type": "string", "minLength": 1, "maxLength": 4096},
        "suite": {"type": "object", "required": ["name", "version"],
                  "properties": {"name": {"type": "string"}, "version": {"type": "integer"}}},
        "seed": {"type": "integer"},
        "limit": {"type": ["integer", "null"]},
        "shard": {"type": ["array", "null"], "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "revision": {"type": ["string", "null"], "maxLength": 256},
        "setup": {"oneOf": [{"const": "any"}, {"type": "object", "maxProperties": 16, "additionalProperties": {
            "type": "object", "required": ["sha256"], "properties": {"sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}}}]},
        "prompts": {"type": "object", "properties": {"templates": {"type": "object", "maxProperties": 256,
                    "additionalProperties": {"type": "object", "maxProperties": 64,
                                             "additionalProperties": {"type": ["string", "null"], "maxLength": 64}}}}},
        "tasks": {"type": "object", "maxProperties": 256,
                  "propertyNames": {"pattern": _TASK},
                  "additionalProperties": {"type": "object", "required": ["status"],
                                           "properties": {"status": {"enum": ["done", "skipped", "failed"]},
                                                          "reason": {"type": "string", "maxLength": 4096}}}},
    },
}


class RunError(RobustBenchError, RuntimeError):
    """The run cannot start or continue: an existing folder without ``resume``, a different model
    or suite version in the folder being resumed, unmergeable shards."""


class RunFolderError(RobustBenchError, ValueError):
    """A file of a run folder is missing, too large, a link, not strict JSON, or breaks its format.

    Attributes
    ----------
    where : str
        The file (and line).
    field : str
        The field, or ``<file>`` / ``<line>`` for the whole.
    reason : str
    """

    def __init__(self, where: str, field: str, reason: str):
        self.where, self.field, self.reason = where, field, reason
        super().__init__(f"{where}: field {field!r}: {reason}")


def dumps(obj: Any) -> str:
    """Canonical JSON of a log line: sorted keys, no spaces, UTF-8 kept, no NaN."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def file_size(path: Path, where: str | None = None) -> int:
    """The size of a plain file, in bytes.

    Raises
    ------
    RunFolderError
        If it is a symbolic link, missing, or not a plain file.
    """
    where = where or str(path)
    if path.is_symlink():
        raise RunFolderError(where, "<file>", "a symbolic link; give plain files")
    if not path.is_file():
        raise RunFolderError(where, "<file>", "missing")
    return path.stat().st_size


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _loads(data: bytes, where: str, field: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise RunFolderError(where, field, f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RunFolderError(where, field, f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except ValueError as exc:
        raise RunFolderError(where, field, str(exc)) from None
    except RecursionError:
        raise RunFolderError(where, field, "JSON nested too deeply") from None


def read_json(path: str | os.PathLike, *, limit: int, where: str | None = None) -> Any:
    """A JSON file, strictly: a plain file (no link) of at most ``limit`` bytes, UTF-8, strict JSON.

    Raises
    ------
    RunFolderError
        Naming the file.
    """
    path = Path(path)
    where = where or str(path)
    size = file_size(path, where)
    if size > limit:
        raise RunFolderError(where, "<file>", f"{size} bytes, over the limit of {limit}")
    return _loads(path.read_bytes(), where, "<file>")


def read_manifest(run_dir: str | os.PathLike) -> dict:
    """``run.json`` of a run folder: a plain folder and file, strict JSON within :data:`LIMITS`,
    the fields of :data:`RUN_SCHEMA`.

    Raises
    ------
    RunFolderError
        Naming the file and the field (``<folder>`` when ``run_dir`` is no run folder).
    """
    import jsonschema

    run_dir = Path(run_dir)
    if run_dir.is_symlink() or not run_dir.is_dir() or not (run_dir / RUN_FILE).exists():
        raise RunFolderError(str(run_dir), "<folder>", f"not a run folder (no {RUN_FILE})")
    where = str(run_dir / RUN_FILE)
    manifest = read_json(run_dir / RUN_FILE, limit=LIMITS["run.json"], where=where)
    errors = sorted(jsonschema.Draft202012Validator(RUN_SCHEMA).iter_errors(manifest), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise RunFolderError(where, "/".join(map(str, e.absolute_path)) or "<run>", e.message[:300])
    return manifest


def write_manifest(run_dir: str | os.PathLike, manifest: dict) -> Path:
    """Write ``run.json`` atomically (indented, sorted keys, strict JSON)."""
    return atomic_write_text(Path(run_dir) / RUN_FILE, json.dumps(manifest, indent=2, sort_keys=True,
                                                                   allow_nan=False) + "\n")


def read_log(path: str | os.PathLike, *, sha256: str | None = None) -> list[dict]:
    """A per-example log: one strict JSON object per line, each with a unique string ``id``, an
    ``outcome`` object of finite numbers and, where present, a string ``cluster``.

    Parameters
    ----------
    path : path-like
    sha256 : str, optional
        The log's SHA-256 as its record states it; the file must hash to it.

    Returns
    -------
    list of dict
        The entries, in file order.

    Raises
    ------
    RunFolderError
        Naming the file (and line) and the field: a link, over :data:`LIMITS`, another hash, a line
        that is not such an object, a repeated id.
    """
    path = Path(path)
    where = str(path)
    size = file_size(path, where)
    if size > LIMITS["log"]:
        raise RunFolderError(where, "<file>", f"{size} bytes, over the limit of {LIMITS['log']}")
    data = path.read_bytes()
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise RunFolderError(where, "<file>", "its SHA-256 differs from the record's log_sha256")
    out, seen = [], set()
    for n, line in enumerate(data.splitlines(), 1):
        at = f"{where}, line {n}"
        e = _loads(line, at, "<line>")
        if not isinstance(e, dict) or not isinstance(e.get("id"), str):
            raise RunFolderError(at, "id", "each line is an object with a string id")
        if not isinstance(e.get("outcome"), dict):
            raise RunFolderError(at, "outcome", "each line has an 'outcome' object")
        bad = [k for k, v in e["outcome"].items() if not isinstance(v, (int, float)) or isinstance(v, bool)
               or not math.isfinite(v)]
        if bad:
            raise RunFolderError(at, "outcome", f"fields {bad} are not finite numbers")
        if "cluster" in e and not (isinstance(e["cluster"], str) and 0 < len(e["cluster"]) <= 1024):
            raise RunFolderError(at, "cluster", "a line's cluster is a string of 1 to 1,024 characters")
        if e["id"] in seen:
            raise RunFolderError(at, "id", f"{ascii(e['id'])[:80]} repeats")
        seen.add(e["id"])
        out.append(e)
    return out


def write_log(path: str | os.PathLike, examples: Sequence[dict]) -> str:
    """Write a per-example log (canonical JSON lines sorted by id) atomically.

    Returns
    -------
    str
        Its SHA-256, as a record states it.
    """
    text = "".join(dumps(e) + "\n" for e in sorted(examples, key=lambda e: e["id"]))
    atomic_write_text(path, text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_task_record(run_dir: str | os.PathLike, task: str, record: dict) -> Path:
    """Write a task's v2 record into ``records/<task>.json`` of a run folder, atomically (indented,
    sorted keys, strict JSON)."""
    return atomic_write_text(Path(run_dir) / "records" / f"{task}.json",
                             json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n")


def read_record(path: str | os.PathLike, *, ranges=None) -> dict:
    """A result record, strictly (:func:`read_json` within :data:`LIMITS`), validated against its
    schema (and ``ranges``, see :func:`~robust_bench.results.records.validate_record`).

    Raises
    ------
    RunFolderError
        Naming the file and the field.
    """
    rec = read_json(path, limit=LIMITS["record"])
    try:
        validate_record(rec, ranges=ranges)
    except RecordError as exc:
        raise RunFolderError(str(path), "schema", str(exc)) from None
    return rec


def read_records(run_dir: str | os.PathLike, *, ranges_of=None) -> dict[str, dict]:
    """The v2 records of a run folder, task name -> record, in task-name order.

    Parameters
    ----------
    run_dir : path-like
    ranges_of : callable, optional
        ``ranges_of(record) -> {metric: (low, high)}``: each record's declared metric ranges (its
        evaluation's), checked as :func:`read_record` checks them.

    Raises
    ------
    RunFolderError
        Naming the file: a record that does not validate or leaves a range, or a v1 record.
    """
    out = {}
    for p in sorted((Path(run_dir) / "records").glob("*.json")):
        rec = read_record(p)
        if rec["schema_version"] not in RECORD_VERSIONS:
            raise RunFolderError(str(p), "schema_version", "a v1 record; run folders hold the v2 records of "
                                                           "`robust-bench run`")
        if ranges_of is not None:
            try:
                validate_record(rec, ranges=ranges_of(rec))
            except RecordError as exc:
                raise RunFolderError(str(p), "schema", str(exc)) from None
        out[p.stem] = rec
    return out


def log_columns(examples: Sequence[dict]) -> dict[str, np.ndarray]:
    """Outcome fields as columns, shape (n_examples,) each (a field absent from an entry is 0)."""
    keys = sorted({k for e in examples for k in e["outcome"]})
    return {k: np.asarray([e["outcome"].get(k, 0) for e in examples], dtype=np.float64) for k in keys}


def log_clusters(examples: Sequence[dict], *, required: bool = False) -> list[str]:
    """Each log line's cluster: its ``cluster`` field, or its own id where it has none (a log written
    before clusters were declared: every example its own cluster).

    Parameters
    ----------
    examples : sequence of dict
    required : bool
        Every line must state its cluster (a record 2.2's log: a line without one would make its intervals
        narrower, as if it were a cluster of its own).

    Raises
    ------
    RunFolderError
        If a line's cluster is not a string, or missing where required.
    """
    out = []
    for e in examples:
        if required and "cluster" not in e:
            raise RunFolderError(f"log line {ascii(e['id'])[:80]}", "cluster", "missing: a record 2.2's log states "
                                                                                 "every line's cluster")
        c = e.get("cluster", e["id"])
        if not isinstance(c, str):
            raise RunFolderError(f"log line {ascii(e['id'])[:80]}", "cluster", "must be a string")
        out.append(c)
    return out


def _clean(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 10)


#: what a record's ``model.llm`` says of how a causal LM was asked; runs that differ in any of these
#: are not compared (``check``, the leaderboard)
LLM_SETUP = ("backend", "model", "base_url", "prompt_sha256", "prompt_source", "chat_template", "num_fewshot",
             "scoring", "normalization", "system_instruction")


#: the record version :func:`record_from_log` writes; "2" records (no counts, bootstrap intervals only) and
#: "2.1" records (no clusters: intervals over examples) are still read and recomputed as they were written
RECORD_VERSION = "2.2"
#: the v2 record versions this robust-bench reads (run folders, submissions, the gate)
RECORD_VERSIONS = ("2", "2.1", "2.2")


def record_from_log(task, suite, examples: Sequence[dict], *, log_sha256: str, model_id: str,
                    revision: str | None, corpus_sha256: str, seed: int, limit: int | None,
                    versions: dict | None = None, timestamp: str | None = None, llm: dict | None = None,
                    schema_version: str = RECORD_VERSION) -> dict:
    """The v2 record of a task, from its per-example log alone.

    Parameters
    ----------
    task : robust_bench.benchmarks.Task
        Its metrics carry their formulas, directions and ranges (declared by the evaluation).
    suite : robust_bench.benchmarks.Suite
    examples : sequence of dict
        The log's entries, sorted by id.
    log_sha256, model_id, revision, corpus_sha256, seed, limit, versions, timestamp
        What the record states; ``versions`` and ``timestamp`` default to now's.
    llm : dict, optional
        How a causal LM was asked (:meth:`robust_bench.models.resolve.ModelHandle.llm_setup`): its
        backend, prompt hash, chat-template flag, shots and scoring go to ``model.llm``; its query and
        request counts (and ``wall_seconds``, where given) to ``details.llm``.

    schema_version : {"2.2", "2.1", "2"}
        "2.2" (what ``run`` writes): as "2.1", with the examples' clusters (:func:`log_clusters`): intervals
        resample clusters (:func:`robust_bench.scoring.intervals.metric_interval` with clusters), and the
        record states ``n_clusters`` and, per metric, ``design_effect``
        (:func:`robust_bench.scoring.intervals.design_effect`; null where undefined). With one example per
        cluster its intervals are 2.1's. "2.1": every interval from
        :func:`robust_bench.scoring.intervals.metric_interval` (a Wilson interval for a proportion over
        fewer than 30 trials, else a 95% percentile bootstrap over the examples seeded by ``seed``; finite
        whenever the metric is over one example or more), with ``interval_methods`` and ``counts`` (how
        many examples each metric is over). "2": the bootstrap alone, as records were written before, so
        that an older run is recomputed as it was written.

    Every metric comes from its formula over the outcome columns. Values are rounded to 10 decimals so
    that the record is byte-stable; a metric whose fields the log lacks is null.

    Raises
    ------
    RunError
        If a value leaves its metric's range.
    RecordError
        If the record does not validate.
    """
    if schema_version not in RECORD_VERSIONS:
        raise RunError(f"record version {schema_version!r}: this robust-bench writes {RECORD_VERSION} and reads "
                       f"{', '.join(RECORD_VERSIONS)}")
    cols = log_columns(examples)
    clustered = schema_version not in ("2", "2.1")
    clusters = cluster_index(log_clusters(examples, required=True)) if clustered else None
    metrics, intervals, methods, counts, deffs = {}, {}, {}, {}, {}
    for spec in task.metrics:
        formula = spec.formula
        if not examples or not all(f in cols for f in formula.fields):
            metrics[spec.name], intervals[spec.name] = None, [None, None]
            methods[spec.name], counts[spec.name], deffs[spec.name] = "none", 0, None
            continue
        value = metric_value(formula, cols)
        if schema_version == "2":
            lo, hi = bootstrap_interval(formula, cols, seed=seed)
        else:
            ci = metric_interval(formula, cols, value_range=spec.range, seed=seed, clusters=clusters)
            lo, hi, methods[spec.name], counts[spec.name] = ci.low, ci.high, ci.method, ci.n
            if clustered:
                deffs[spec.name] = _clean(design_effect(formula, cols, clusters))
        if np.isfinite(value) and not spec.range[0] - 1e-9 <= value <= spec.range[1] + 1e-9:
            raise RunError(f"task {task.name!r}: {spec.name} = {value} is outside its range {list(spec.range)}")
        metrics[spec.name], intervals[spec.name] = _clean(value), [_clean(lo), _clean(hi)]
    rec = {
        "schema_version": schema_version,
        "model": {"id": model_id, "revision": revision},
        "suite": {"name": suite.name, "version": suite.version},
        "task": task.name, "family": task.family, "evaluation": task.evaluation,
        "config": task.config, "split": task.split, "corpus_sha256": corpus_sha256,
        "data_pinned": task.data_sha256 == corpus_sha256,
        "metrics": metrics, "intervals": intervals, "primary": task.primary,
        "n_examples": len(examples), "log_sha256": log_sha256,
        **({"interval_methods": methods, "counts": counts} if schema_version != "2" else {}),
        **({"n_clusters": clusters.n_clusters, "design_effect": deffs} if clustered else {}),
        "details": {"limit": limit, "options": task.options},
        "seed": int(seed),
        "versions": versions if versions is not None else package_versions("datasets", "transformers", "torch", "scipy"),
        "timestamp": timestamp or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if llm:
        rec["model"]["llm"] = {k: llm[k] for k in LLM_SETUP if k in llm}
        rec["details"]["llm"] = {k: v for k, v in llm.items() if k not in LLM_SETUP}
    validate_record(rec, ranges={m.name: m.range for m in task.metrics})
    return rec
