"""Submission validation: what a run folder must satisfy before the leaderboard stores it.

A submission is the part of a run folder (``robust-bench run``) that the scores rest on:
``run.json``, ``records/<task>.json`` (v2) and ``logs/<task>.jsonl``. Reports, figures and any other
file are not submitted; the leaderboard renders its own report from the validated records, so no
submitted HTML or SVG is ever served.

:func:`validate_submission` checks, before anything is written:

* sizes first (every file and the total bounded, see :data:`robust_bench.results.runs.LIMITS`), then strict JSON (no NaN or
  Infinity literals, no nesting deeper than Python's recursion limit);
* no symbolic links, no file outside ``records/`` and ``logs/`` that claims to be a task;
* the manifest's fields and types (:data:`robust_bench.results.runs.RUN_SCHEMA`), an unsharded run of a suite version the
  store accepts;
* a model id that is a valid Hub id (``huggingface_hub.utils.validate_repo_id``: at most 96 ASCII
  characters, no ``..``/``--``, at most one ``/``), so it cannot traverse paths or carry control
  characters, and a revision of the same alphabet;
* every record against the v2 schema, the suite's task definition (config, split, evaluation,
  family, primary) and the run's manifest; its data hash equal to the one the suite version pins;
  its log's SHA-256 equal to ``log_sha256``, one JSON object per example with unique ids;
* every metric finite and within the suite's range, every interval finite, ordered, around its value;
* every metric and interval recomputed from the per-example log, exactly as ``run`` computes them,
  equal to the record's, and each log line's outcome consistent with its own prediction and gold
  label where the evaluation writes both (:func:`validate_run`, :func:`check_outcomes`).

The CI gate (``robust-bench check``) runs the same :func:`validate_run` on both runs.

A task the suite version leaves unpinned cannot be compared across submissions; its record is
left out of the submission and the reason is kept in ``submission.json`` (never silently).
Every rejection raises :class:`SubmissionError` naming the file and the field, a file that cannot be
read as its format says included (read by :mod:`robust_bench.results.runs`, the one reader of run
folders).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from robust_bench.benchmarks import Suite
from robust_bench.perturb.setup import compare_setup
from robust_bench.results.runs import (LLM_SETUP, MAX_TOTAL_BYTES, RECORD_VERSIONS, RUN_FILE, RunFolderError, file_size, read_log, read_manifest,
                                       read_record, record_from_log)
from robust_bench import RobustBenchError

__all__ = ["SubmissionError", "rejected", "Submission", "validate_submission", "validate_run", "ValidatedRun", "check_outcomes",
           "validate_model_id", "validate_revision", "model_key", "stage_submission", "SUBMISSION_FILE", "llm_setup",
           "asked_key", "public_model_name"]

SUBMISSION_FILE = "submission.json"
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
_TASK = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class SubmissionError(RunFolderError):
    """A submission is rejected; the message names the file and the field."""


@contextmanager
def rejected():
    """Within it, a run folder's file that cannot be read as its format says
    (:class:`~robust_bench.results.runs.RunFolderError`, from the one reader of run folders) is a
    rejected submission: :class:`SubmissionError`, with the same file, field and reason."""
    try:
        yield
    except SubmissionError:
        raise
    except RunFolderError as exc:
        raise SubmissionError(exc.where, exc.field, exc.reason) from None


@dataclass(frozen=True)
class Submission:
    """A validated submission.

    Attributes
    ----------
    model_id, revision : str
        Under which the scores are listed (Hub id syntax).
    suite : Suite
        The store's definition of the suite version the run scored.
    run_dir : Path
        The folder it was read from.
    manifest : dict
        Its ``run.json``.
    records : dict of str to dict
        Task name -> v2 record, for the tasks that go to the leaderboard.
    excluded : dict of str to str
        Task name -> why its record is not submitted (the suite version pins no data for it).
    submitted_at : str
        ISO 8601, UTC.
    """

    model_id: str
    revision: str
    suite: Suite
    run_dir: Path
    manifest: dict
    records: dict[str, dict]
    excluded: dict[str, str] = field(default_factory=dict)
    submitted_at: str = ""
    partial: dict[str, str] = field(default_factory=dict)

    @property
    def asked(self) -> str:
        """How the model was asked (:func:`asked_key`): ``model`` for a model scored as it is, else an LLM's setup."""
        return asked_key(self.records)

    @property
    def ranked(self) -> bool:
        """Whether the leaderboard ranks it: a whole run (``partial`` is empty)."""
        return not self.partial

    @property
    def entry(self) -> str:
        """Its folder in a store: ``submissions/<model key>/<suite>-v<version>/<revision>/<asked>``, so that
        the same weights asked two ways (plain and with the chat template) are two rows of one model."""
        return (f"submissions/{model_key(self.model_id)}/{self.suite.name}-v{self.suite.version}/{self.revision}/"
                f"{self.asked}")

    def info(self) -> dict:
        """The ``submission.json`` written beside the files (which :func:`stage_submission` writes with every
        local path of the submitting machine dropped, :func:`public_copy`)."""
        files = {}
        for rel in ["run.json"] + [f"{d}/{t}.{x}" for t in sorted(self.records) for d, x in (("records", "json"),
                                                                                          ("logs", "jsonl"))]:
            files[rel] = hashlib.sha256(_public_bytes(self.run_dir / rel, self.manifest)).hexdigest()
        out = {"format": 2, "model_id": self.model_id, "revision": self.revision,
               "suite": {"name": self.suite.name, "version": self.suite.version}, "asked": self.asked,
               "run_model": public_model_name(self.manifest["model"]), "submitted_at": self.submitted_at,
               "tasks": sorted(self.records), "excluded": dict(sorted(self.excluded.items())), "files": files}
        if self.partial:
            out["partial"] = dict(sorted(self.partial.items()))
        return out


#: what tells the ways of asking an LLM apart (a record's ``model.llm``), in the order the folder name gives them
_ASKED = ("backend", "chat_template", "num_fewshot", "scoring", "normalization")


def llm_setup(records: Mapping[str, dict]) -> dict | None:
    """How a causal LM was asked across a submission's records: backend, shots, chat template, scoring
    and one hash of its prompts (rows of the same model asked otherwise are told apart by it); None for a
    model scored as it is."""
    setups = [r["model"]["llm"] for r in records.values() if r["model"].get("llm")]
    if not setups:
        return None
    prompts = sorted({s["prompt_sha256"] for s in setups})
    first = setups[0]
    out = {**{k: first[k] for k in _ASKED}, "prompts_sha256": hashlib.sha256(" ".join(prompts).encode()).hexdigest()}
    if first.get("system_instruction") is not None:      # (its text is in the prompts' hash too)
        out["system_instruction"] = first["system_instruction"]
    return out


def asked_key(records: Mapping[str, dict]) -> str:
    """The folder name of how a submission's model was asked: ``model`` for a classifier, tagger, parser or
    encoder scored as it is; for a causal LM, ``<backend>-<chat|plain>-<k>shot-<scoring>[-accnorm]-<prompts>``
    (the first 12 hex digits of the hash of its prompts), e.g. ``hf-chat-0shot-loglikelihood-3f2a9c01b7d4``."""
    s = llm_setup(records)
    if s is None:
        return "model"
    return (f"{s['backend']}-{'chat' if s['chat_template'] else 'plain'}-{s['num_fewshot']}shot-{s['scoring']}"
            f"{'-accnorm' if s['normalization'] == 'length' else ''}-{s['prompts_sha256'][:12]}")


def public_model_name(model: str) -> str:
    """What a published file may say of the model a run scored: a Hub id or spec as given, but a local path
    (``/home/me/models/clf``, ``hf:./taught``, ``wrapped.py:good``) by its base name only; the folder's content
    fingerprint is the run's revision (``local-<sha256>``)."""
    from robust_bench.models.resolve import public_name

    return public_name(model)


def _public_bytes(path: Path, manifest: dict) -> bytes:
    """A submitted file as it is stored: ``run.json`` and the records without the submitting machine's
    local model path (an older run recorded it; it is replaced by its base name), logs as they are."""
    data = path.read_bytes()
    model = manifest.get("model")
    if path.suffix == ".jsonl" or not isinstance(model, str) or public_model_name(model) == model:
        return data
    doc = json.loads(data.decode("utf-8"))
    public = public_model_name(model)
    if path.name == RUN_FILE:
        doc = _replace_text(doc, model, public)
    else:
        doc["model"]["id"] = public
        doc = _replace_text(doc, model, public)
    return (json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")


def _replace_text(obj: Any, old: str, new: str) -> Any:
    if isinstance(obj, str):
        return obj.replace(old, new)
    if isinstance(obj, dict):
        return {k: _replace_text(v, old, new) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_replace_text(v, old, new) for v in obj]
    return obj


def model_key(model_id: str) -> str:
    """The folder name of a model id: ``org/name`` -> ``org--name`` (``--`` cannot occur in a Hub id)."""
    return model_id.replace("/", "--")


def validate_model_id(model_id: Any, where: str = "submission", field_name: str = "model.id") -> str:
    """Check that ``model_id`` is a valid Hub id (``huggingface_hub.utils.validate_repo_id``), ASCII only.

    Raises
    ------
    SubmissionError
        Naming ``field_name``; for a local path, saying to pass ``--model-id``.
    """
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    if not isinstance(model_id, str) or not model_id:
        raise SubmissionError(where, field_name, "missing; pass --model-id ORG/NAME")
    shown = ascii(model_id[:100])
    if not model_id.isascii() or not model_id.isprintable():
        raise SubmissionError(where, field_name, f"{shown} has non-ASCII or control characters")
    try:
        validate_repo_id(model_id)
    except HFValidationError:
        hint = ("; it looks like a local path: pass --model-id ORG/NAME, the name to list it under"
                if model_id.count("/") > 1 or model_id.startswith((".", "/", "~")) else "")
        raise SubmissionError(where, field_name, f"{shown} is not a valid Hub id: [ORG/]NAME, at most 96 characters "
                                                 f"of A-Z a-z 0-9 - _ ., no '--' or '..'{hint}") from None
    return model_id


def validate_revision(revision: Any, where: str = "submission", field_name: str = "model.revision") -> str:
    """Check a revision label: 1-80 characters of ``[A-Za-z0-9._-]``, no ``..``, starting alphanumeric.

    Raises
    ------
    SubmissionError
        If it is missing (a local model records none: pass ``--revision``) or malformed.
    """
    if revision is None:
        raise SubmissionError(where, field_name, "the run records no revision (a local model); pass --revision "
                                                 "(a commit hash or version tag), so that a later submission of "
                                                 "this model cannot replace this one")
    if not isinstance(revision, str) or not _REVISION.fullmatch(revision) or ".." in revision:
        raise SubmissionError(where, field_name, f"{ascii(str(revision)[:80])} is not a revision label "
                                                 "(1-80 characters of A-Z a-z 0-9 . _ -, no '..')")
    return revision



def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _check_metrics(rec: dict, task, where: str) -> None:
    specs = {m.name: m for m in task.metrics}
    for name in specs:
        if name not in rec["metrics"]:
            raise SubmissionError(where, f"metrics.{name}", "missing (the suite lists it)")
    for name, value in rec["metrics"].items():
        if value is None:
            continue
        if not _finite(value):
            raise SubmissionError(where, f"metrics.{name}", f"{value!r} is not a finite number")
        interval = rec["intervals"].get(name)
        if interval is None:
            raise SubmissionError(where, f"intervals.{name}", "missing for a metric with a value")
        lo, hi = interval
        if lo is not None or hi is not None:
            if not (_finite(lo) and _finite(hi)):
                raise SubmissionError(where, f"intervals.{name}", f"{interval!r} is not two finite numbers")
            if not lo - 1e-9 <= value <= hi + 1e-9:
                raise SubmissionError(where, f"intervals.{name}", f"[{lo}, {hi}] does not contain the value {value}")
        spec = specs.get(name)
        if spec is not None:
            a, b = spec.range
            for label, x in (("value", value), ("interval low", lo), ("interval high", hi)):
                if x is not None and not a - 1e-9 <= x <= b + 1e-9:
                    raise SubmissionError(where, f"metrics.{name}", f"{label} {x} is outside the range [{a}, {b}]")


#: How far a record's value may be from the one recomputed from its log: metrics are exact sums and
#: ratios (the record rounds to 10 decimals); intervals are seeded bootstraps, equal on one NumPy.
METRIC_TOLERANCE, INTERVAL_TOLERANCE = 1e-9, 1e-6


def check_outcomes(evaluation: str, examples, where: str) -> None:
    """Check each log line's outcome against its own prediction and gold label, as the evaluation
    declares it (:attr:`robust_bench.evaluations.Evaluation.check_outcome`: classifier attacks and
    contrast sets): ``clean_correct`` must say whether the clean prediction equals the gold label, an
    attack succeeds only on an attacked, correctly predicted example whose adversarial prediction is
    wrong, and so on. A log edited to show other outcomes is caught at the example that was edited.

    Raises
    ------
    SubmissionError
        Naming the log line, the example id and the outcome field.
    """
    from robust_bench.evaluations import get_evaluation

    check = get_evaluation(evaluation).check_outcome
    for k, e in enumerate(examples if check is not None else (), 1):
        o = e["outcome"]
        for name, expect in check(e):
            if name in o and int(o[name]) != expect:
                raise SubmissionError(f"{where}, line {k}", f"outcome.{name}",
                                      f"example {ascii(e['id'])[:80]}: {o[name]} disagrees with its own prediction "
                                      f"and gold label (expected {expect}); the log was edited")


def _check_log(task, suite: Suite, rec: dict, log: Path, where: str) -> list[dict]:
    """Read the log once (:func:`robust_bench.results.runs.read_log`: bounded, strict, hashed as the
    record says), check its outcomes against its predictions, recompute the record from it
    (:func:`robust_bench.results.runs.record_from_log`) and compare every metric and interval; a log
    edited (and re-hashed) to show other outcomes than the record claims, or a record edited to claim
    other scores, is refused naming the metric. Returns the log's entries."""
    examples = read_log(log, sha256=rec["log_sha256"])
    if len(examples) != rec["n_examples"]:
        raise SubmissionError(str(log), "<file>", f"{len(examples)} examples, the record says n_examples "
                                                  f"{rec['n_examples']}")
    check_outcomes(task.evaluation, examples, str(log))
    try:
        again = record_from_log(task, suite, examples, log_sha256=rec["log_sha256"], model_id=rec["model"]["id"],
                                revision=rec["model"]["revision"], corpus_sha256=rec["corpus_sha256"],
                                seed=rec["seed"], limit=(rec.get("details") or {}).get("limit"),
                                versions=rec.get("versions") or {}, timestamp=rec["timestamp"],
                                schema_version=rec["schema_version"])
    except (RobustBenchError, KeyError, TypeError, ValueError) as exc:
        raise SubmissionError(str(log), "<log>", f"its examples do not give a valid record: {exc}") from None
    for key in ("counts", "interval_methods", "n_clusters"):
        if rec.get(key) != again.get(key):
            raise SubmissionError(where, key, f"{ascii(rec.get(key))[:200]} differs from what its log {log.name} gives "
                                              f"({ascii(again.get(key))[:200]})")
    for name, value in rec["metrics"].items():
        other = again["metrics"].get(name)
        if (value is None) != (other is None) or (value is not None and abs(value - other) > METRIC_TOLERANCE):
            raise SubmissionError(where, f"metrics.{name}", f"{value} differs from {other}, the value its log "
                                                            f"{log.name} gives ({len(examples)} examples)")
        for side, a, b in zip(("low", "high"), rec["intervals"].get(name) or [None, None],
                              again["intervals"].get(name) or [None, None]):
            if (a is None) != (b is None) or (a is not None and abs(a - b) > INTERVAL_TOLERANCE):
                raise SubmissionError(where, f"intervals.{name}", f"{side} end {a} differs from {b}, the bootstrap "
                                                                  f"of its log {log.name} (seed {rec['seed']})")
    # after the metrics, so that an edited outcome is named by the metric it changes
    for name, deff in (rec.get("design_effect") or {}).items() if "design_effect" in again else ():
        other = again["design_effect"].get(name)
        if (deff is None) != (other is None) or (deff is not None and abs(deff - other) > INTERVAL_TOLERANCE):
            raise SubmissionError(where, f"design_effect.{name}", f"{deff} differs from {other}, the design effect "
                                                                  f"its log {log.name} gives")
    if set(rec.get("design_effect") or {}) != set(again.get("design_effect") or {}):
        raise SubmissionError(where, "design_effect", f"names other metrics than its log {log.name} gives")
    return examples


def _unpinned(suite: Suite, task) -> str:
    return (f"suite {suite.name} v{suite.version} pins no data hash for {task.name}, so its scores cannot be "
            "compared across submissions")


def _rejecting(fn):
    @functools.wraps(fn)
    def checked(*args, **kwargs):
        with rejected():
            return fn(*args, **kwargs)
    return checked


@_rejecting
def validate_submission(run_dir: str | Path, suites: Mapping[tuple[str, int], Suite], *, model_id: str | None = None,
                        revision: str | None = None, submitted_at: str | None = None,
                        partial: bool = False) -> Submission:
    """Validate a run folder as a leaderboard submission; nothing is written.

    Parameters
    ----------
    run_dir : path-like
        A run folder of ``robust-bench run`` or ``robust-bench merge`` (not a shard).
    suites : mapping of (name, version) to Suite
        The suite versions the store accepts, with their data hashes.
    model_id, revision : str, optional
        List the scores under these instead of the run's model and revision.
    submitted_at : str, optional
        ISO 8601 time; defaults to now (UTC).
    partial : bool
        Accept a partial run (``--limit``, fewer examples than a pinned task holds) as a marked, unranked
        row instead of refusing it.

    Returns
    -------
    Submission

    Raises
    ------
    SubmissionError
        At the first problem, naming the file and the field (see the module docstring and
        :func:`validate_run`).
    """
    manifest = read_manifest(run_dir)
    key = (manifest["suite"]["name"], manifest["suite"]["version"])
    if key not in suites:
        accepted = ", ".join(f"{n} v{v}" for n, v in sorted(suites)) or "none"
        raise SubmissionError(str(Path(run_dir) / "run.json"), "suite",
                              f"{ascii(key[0][:64])} v{key[1]} is not a suite version this leaderboard "
                              f"accepts ({accepted})")
    run = validate_run(run_dir, suites[key], model_id=model_id, revision=revision)
    if not run.records:
        why = "; ".join(f"{t}: {r}" for t, r in run.excluded.items()) or "the run finished no task"
        raise SubmissionError(str(Path(run_dir) / "run.json"), "tasks", f"no task can go to the leaderboard ({why})")
    if run.partial and not partial:
        task, why = next(iter(run.partial.items()))
        raise SubmissionError(str(Path(run_dir) / "records" / f"{task}.json"), "n_examples",
                              f"a partial run: {why}; only whole runs are ranked: run the suite without --limit, or "
                              "submit with --partial to list it as a marked, unranked row")
    return Submission(model_id=run.model_id, revision=run.revision, suite=run.suite, run_dir=Path(run_dir),
                      manifest=run.manifest, records=run.records, excluded=run.excluded,
                      submitted_at=submitted_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      partial=run.partial)


@dataclass(frozen=True)
class ValidatedRun:
    """A run folder that passed :func:`validate_run`: its manifest, the model it lists, the records
    that can be compared (pinned data) with their per-example logs, and the tasks left out with the
    reason."""

    suite: Suite
    manifest: dict
    model_id: str
    revision: str | None
    records: dict
    excluded: dict
    logs: dict = field(default_factory=dict)
    partial: dict = field(default_factory=dict)


@_rejecting
def validate_run(run_dir: str | Path, suite: Suite, *, model_id: str | None = None,
                 revision: str | None = None, unpinned: bool = False, listed: bool = True,
                 keep_logs: bool = False) -> ValidatedRun:
    """Everything a run folder must satisfy before its scores are believed, for ``submit``,
    ``leaderboard build`` and the CI gate (``check``) alike; nothing is written.

    The checks of the module docstring, and every metric and interval **recomputed from the
    per-example log** (:func:`robust_bench.results.runs.record_from_log`, the function ``run``
    itself uses) and compared with the record, after the log's outcomes are checked against its
    predictions and gold labels where the evaluation records both (:func:`check_outcomes`).

    Parameters
    ----------
    run_dir : path-like
    suite : Suite
        The suite version the run says it ran (the caller checks the name and version).
    model_id, revision : str, optional
        Override the run's model and revision (``submit --model-id``).
    unpinned : bool
        Keep records of tasks whose data the suite does not pin (the CI gate compares two runs of one
        private suite); by default they go to ``excluded`` with the reason.
    listed : bool
        The model id and revision will be listed publicly, so they must be a Hub id and revision
        (:func:`validate_model_id`); the CI gate also compares local models and adapters
        (``module.py:attribute``), so it passes False.
    keep_logs : bool
        Keep each task's parsed log lines in :attr:`ValidatedRun.logs` (the gate compares them), so
        that nobody reads them twice; off by default, since a run's logs may be large.

    Raises
    ------
    SubmissionError
        At the first problem, naming the file and the field (a log line names the example).
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    where = str(run_dir / "run.json")
    if (manifest["suite"]["name"], manifest["suite"]["version"]) != (suite.name, suite.version):
        raise SubmissionError(where, "suite", f"{ascii(manifest['suite']['name'])[:64]} v{manifest['suite']['version']} "
                                              f"is not suite {suite.name} v{suite.version}")
    if listed:
        if model_id is None and str(manifest.get("revision") or "").startswith("local-"):
            raise SubmissionError(where, "model", f"{ascii(manifest['model'])[:64]} was a local model folder (revision "
                                                  "local-<fingerprint>); pass --model-id ORG/NAME, the name to list "
                                                  "it under")
        mid = validate_model_id(model_id if model_id is not None else manifest["model"], where,
                                "model" if model_id is None else "--model-id")
        rev = validate_revision(revision if revision is not None else manifest.get("revision"), where,
                                "revision" if revision is None else "--revision")
    else:
        mid, rev = manifest["model"], manifest.get("revision")
    if manifest.get("shard") is not None:
        raise SubmissionError(where, "shard", "a shard of a run; merge the shards first (robust-bench merge)")
    ran = {t for t, s in manifest["tasks"].items() if s["status"] == "done"}
    why = compare_setup(manifest.get("setup"), suite.setup, {r for t in suite.tasks if t.name in ran for r in t.setup})
    if why:
        raise SubmissionError(where, "setup", why)
    total = file_size(run_dir / RUN_FILE, where)
    records: dict[str, dict] = {}
    excluded: dict[str, str] = {}
    logs: dict[str, list[dict]] = {}
    partial: dict[str, str] = {}
    for sub in ("records", "logs"):
        folder = run_dir / sub
        if folder.is_symlink():
            raise SubmissionError(str(folder), "<folder>", "a symbolic link; submit plain folders")
        suffix = ".json" if sub == "records" else ".jsonl"
        for p in sorted(folder.iterdir()) if folder.is_dir() else []:
            if p.is_symlink() or not p.is_file():
                raise SubmissionError(str(p), "<file>", "a symbolic link; submit plain files" if p.is_symlink()
                                      else "not a plain file")
            stem = p.name[: -len(suffix)] if p.name.endswith(suffix) else None
            if stem is None or not _TASK.fullmatch(stem) or stem not in {t.name for t in suite.tasks}:
                raise SubmissionError(str(p), "<file>", f"not a task of suite {suite.name} v{suite.version}")
    done = {t for t, s in manifest["tasks"].items() if s["status"] == "done"}
    for task in suite.tasks:
        path = run_dir / "records" / f"{task.name}.json"
        if not path.exists() and not path.is_symlink():
            if task.name in done and (task.data_sha256 or unpinned):
                raise SubmissionError(str(path), "<file>", "missing; run.json says the task is done")
            if task.name in done:
                excluded[task.name] = _unpinned(suite, task)
            continue
        w = str(path)
        rec = read_record(path, ranges={m.name: m.range for m in task.metrics})
        total += path.stat().st_size
        if rec["schema_version"] not in RECORD_VERSIONS:
            raise SubmissionError(w, "schema_version", "the leaderboard takes v2 records (robust-bench run)")
        expect = {"task": task.name, "family": task.family, "evaluation": task.evaluation, "config": task.config,
                  "split": task.split, "primary": task.primary, "suite": {"name": suite.name, "version": suite.version},
                  "seed": manifest["seed"]}
        for k, v in expect.items():
            if rec[k] != v:
                raise SubmissionError(w, k, f"{ascii(rec[k])[:100]} differs from {v!r} (the suite or run.json)")
        if (rec.get("details") or {}).get("options", task.options) != task.options:
            raise SubmissionError(w, "details.options", f"{ascii(rec['details']['options'])[:100]} are not the options "
                                                        f"suite {suite.name} v{suite.version} gives task {task.name}")
        if {k: rec["model"].get(k) for k in ("id", "revision")} != {"id": manifest["model"],
                                                                    "revision": manifest.get("revision")}:
            raise SubmissionError(w, "model", "differs from run.json's model and revision")
        if task.name not in done:
            raise SubmissionError(w, "task", "run.json does not list the task as done")
        state = manifest["tasks"][task.name]
        llm = state.get("llm") if isinstance(state.get("llm"), dict) else None
        if rec["model"].get("llm") != ({k: llm[k] for k in LLM_SETUP if k in llm} if llm else None):
            raise SubmissionError(w, "model.llm", "differs from how run.json says the LLM was asked")
        for k in ("log_sha256", "corpus_sha256"):
            if state.get(k) != rec[k]:
                raise SubmissionError(w, k, "differs from run.json")
        if not task.data_sha256 and not unpinned:
            excluded[task.name] = _unpinned(suite, task)
            continue
        if task.data_sha256 and rec["corpus_sha256"] != task.data_sha256:
            raise SubmissionError(w, "corpus_sha256", f"{rec['corpus_sha256'][:12]}… is not the data suite {suite.name} "
                                                      f"v{suite.version} pins ({task.data_sha256[:12]}…)")
        if task.data_sha256 and rec["data_pinned"] is not True:
            raise SubmissionError(w, "data_pinned", "must be true for pinned data")
        _check_metrics(rec, task, w)
        log = run_dir / "logs" / f"{task.name}.jsonl"
        total += file_size(log)
        if total > MAX_TOTAL_BYTES:
            raise SubmissionError(str(run_dir), "<folder>", f"over {MAX_TOTAL_BYTES} bytes in all")
        lines = _check_log(task, suite, rec, log, w)
        if keep_logs:
            logs[task.name] = lines
        records[task.name] = rec
        whole = task.whole
        # the examples the run asked for (a probe scores fewer when a tokenizer cannot align a sentence)
        asked = manifest.get("tasks", {}).get(task.name, {}).get("n_asked", rec["n_examples"])
        if not isinstance(asked, int) or isinstance(asked, bool) or asked < rec["n_examples"]:
            raise SubmissionError(str(run_dir / RUN_FILE), f"tasks.{task.name}.n_asked",
                                  f"must be a whole number at least n_examples ({rec['n_examples']}); got {asked!r}")
        if whole is not None and asked != whole:
            partial[task.name] = (f"task {task.name} ran {asked:,} of the {whole:,} examples suite "
                                  f"{suite.name} v{suite.version} pins" + (f" (run with --limit {manifest['limit']})"
                                                                          if manifest.get("limit") else ""))
        elif manifest.get("limit") and whole is None and task.data_sha256:
            partial[task.name] = f"task {task.name} was run with --limit {manifest['limit']}"
    missing = sorted(done - {t.name for t in suite.tasks})
    if missing:
        raise SubmissionError(where, "tasks", f"{ascii(missing)[:200]} are not tasks of suite {suite.name} v{suite.version}")
    return ValidatedRun(suite=suite, manifest=manifest, model_id=mid, revision=rev, records=records, excluded=excluded,
                        logs=logs, partial=partial)


def stage_submission(sub: Submission, dest: str | Path) -> Path:
    """Copy the submitted files and write ``submission.json`` into the new folder ``dest``.

    Returns
    -------
    Path
        ``dest``.
    """
    dest = Path(dest)
    (dest / "records").mkdir(parents=True)
    (dest / "logs").mkdir()
    for rel in ["run.json"] + [f"{d}/{t}.{x}" for t in sub.records for d, x in (("records", "json"), ("logs", "jsonl"))]:
        public = _public_bytes(sub.run_dir / rel, sub.manifest)
        if public == (sub.run_dir / rel).read_bytes():
            shutil.copyfile(sub.run_dir / rel, dest / rel)
        else:                                       # an older run that recorded a local path
            (dest / rel).write_bytes(public)
    (dest / SUBMISSION_FILE).write_text(json.dumps(sub.info(), indent=2, sort_keys=True) + "\n", "utf-8")
    return dest
