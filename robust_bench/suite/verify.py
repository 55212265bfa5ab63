"""``robust-bench leaderboard verify``: re-run a stored submission's model on a seeded sample of each
task's examples and compare its predictions with the submitted logs, example by example.

The comparison, the tolerances and the file written are in :mod:`robust_bench.leaderboard.verification`
(which also says which tasks are deterministic enough to compare exactly). Here the model is
loaded and run exactly as ``robust-bench run`` ran it: the submission's model id at its recorded
revision (a Hub commit) or a local folder whose fingerprint must equal the recorded one, the
run's seed (an attacked example is searched with the seed of its position in the split, as in the
full run), and the run's dtype and batch size.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from robust_bench import __version__
from robust_bench.evaluations import evaluations, get_evaluation, with_clusters
from robust_bench.io.sources import sha256_file
from robust_bench.leaderboard.store import HubStore, LocalStore, find_entry, read_entry
from robust_bench.leaderboard.submission import SUBMISSION_FILE
from robust_bench.leaderboard.verification import (DEFAULT_SAMPLE, FORMAT, VerificationError, compare_task,
                                                   sample_ids, verification_path)
from robust_bench.models.resolve import ModelHandle, resolve_model
from robust_bench.perturb.setup import SetupError, check_setup
from robust_bench.results.records import package_versions
from robust_bench.results.runs import read_log
from robust_bench.suite.runner import _runtime, select_rows

__all__ = ["verify_submission"]

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


#: task details that describe the set-up rather than the results: a re-run with another set-up is no
#: test of the submitted predictions (an attack proposes its edits with the spaCy pipeline it finds)
SETUP_DETAILS = ("search", "budget", "candidates", "pipelines", "rule", "probe")


def _same_setup(task: str, submitted, rerun: dict) -> None:
    if isinstance(submitted, list):           # a merged run keeps each shard's details
        submitted = submitted[0] if submitted else None
    if not isinstance(submitted, dict):
        return
    for key in SETUP_DETAILS:
        if key in submitted and key in rerun and submitted[key] != rerun[key]:
            raise VerificationError(f"task {task}: the run used {key} {submitted[key]}, this machine {rerun[key]}; "
                                    "set the same pipelines (ROBUST_BENCH_SPACY_MODEL, ROBUST_BENCH_ERRANT_MODEL, "
                                    "ROBUST_BENCH_SIMILARITY_MODEL) before verifying")


def _parse(submission: str) -> tuple[str, str | None, str | None]:
    """``MODEL_ID[@REVISION][#ASKED]`` -> (model id, revision or None, how it was asked or None)."""
    rest, _, asked = submission.partition("#")
    model_id, _, revision = rest.partition("@")
    return model_id, (revision or None), (asked or None)


def verify_submission(store: LocalStore | HubStore, submission: str, *, repo: str | Path,
                      model: str | None = None, suite: str | None = None, tasks: list[str] | None = None,
                      sample: int | None = DEFAULT_SAMPLE,
                      seed: int = 0, device: str = "auto", dtype: str | None = None, batch_size: int | None = None,
                      write: bool = True, echo: Callable[[str], None] = print) -> dict:
    """Re-run a stored submission's model and compare its predictions with the submitted logs.

    Parameters
    ----------
    store : LocalStore or HubStore
    submission : str
        ``MODEL_ID``, ``MODEL_ID@REVISION`` or ``MODEL_ID@REVISION#ASKED`` of a stored submission (its listed
        id and revision, and how it was asked where the model has rows asked several ways).
    repo : path-like
        Dataset repository holding the configs the suite version pins (their hashes are checked).
    model : str, optional
        Load this instead of the submission's Hub id: a local folder (or spaCy pipeline, or
        ``module:attribute``) whose fingerprint must equal the revision the run recorded.
    suite : str, optional
        ``NAME-vVERSION``, where the model has submissions for several suite versions.
    tasks : list of str, optional
        Only these submitted tasks (default: every submitted task). A verification of some tasks
        marks the row verified only for what it re-ran; the stored file lists them.
    sample : int or None
        Examples (groups, sentences) drawn per task; None re-runs every example (``--full``).
    seed : int
        Seed of the draw (the model is run with the submission's own seed).
    device : str
    dtype, batch_size : optional
        Default to what the run recorded (``run.json`` ``runtime``), else ``auto`` and 64.
    write : bool
        Store the verification (a local store: the file; a Hub store: a pull request).

    Returns
    -------
    dict
        The verification: ``status`` (``"verified"`` or ``"flagged"``), per-task comparisons
        (:func:`~robust_bench.leaderboard.verification.compare_task`), the sample, the model loaded
        and the machine's settings.

    Raises
    ------
    VerificationError
        If the loaded model is not the one the run scored (another fingerprint or commit).
    StoreError, SubmissionError
        If the submission cannot be found or no longer validates.
    RunError, InterfaceError
        If the data is not built as pinned, or the model cannot be loaded.
    VerificationError
        Also if an artifact the tasks depend on (the suite's ``setup``) is not the suite's on this machine.
    """
    if sample is not None and sample < 1:
        raise VerificationError(f"--sample must be at least 1, got {sample}")
    model_id, revision, asked = _parse(submission)
    root = store.local_copy()
    suites = store.suites()
    info_path = find_entry(root, model_id, revision=revision, suite=suite, asked=asked)
    sub = read_entry(info_path, root, suites)
    folder = info_path.parent
    manifest = sub.manifest
    recorded = manifest.get("revision")
    runtime = manifest.get("runtime") or {}
    hub_revision = None
    if model is None:
        if recorded and str(recorded).startswith("local-"):
            raise VerificationError(f"{sub.model_id}@{sub.revision} was run from a local folder ({recorded}); pass "
                                    "--model FOLDER with the same weights, or have the submitter push them to the Hub")
        model = sub.model_id
        hub_revision = recorded if recorded and _COMMIT.fullmatch(str(recorded)) else sub.revision
    spec = resolve_model(model, hub_revision)
    llm = None
    if isinstance(manifest.get("llm"), dict):      # a causal LM: asked as the run asked it
        from robust_bench.models.llm import LLMError, LLMSettings

        try:
            llm = LLMSettings(**manifest["llm"])
        except (TypeError, LLMError) as exc:
            raise VerificationError(f"{sub.model_id}@{sub.revision}: run.json field 'llm' is not usable: {exc}") from None
    handle = ModelHandle(spec, device=device, dtype=dtype or runtime.get("dtype", "auto"),
                         batch_size=batch_size or int(runtime.get("batch_size", 64)), llm=llm)
    mine = _runtime(device, handle.dtype, handle.batch_size)
    if runtime.get("dtype") and mine["dtype"] != runtime["dtype"]:
        echo(f"warning: the run used {runtime['dtype']} weights, this re-run {mine['dtype']}; predictions near a tie "
             "differ between dtypes (bf16 against fp32 changed 37 of 150 attack lines in our measurement), so a "
             "mismatch may be the dtype's")
    loaded = handle.revision()
    if recorded and loaded != recorded:
        raise VerificationError(f"{model} is {loaded}, not the model the run scored ({recorded}); verify with the "
                                "same weights")
    unknown = sorted(set(tasks or ()) - set(sub.records))
    if unknown:
        raise VerificationError(f"--tasks {unknown}: not submitted tasks of {sub.model_id}@{sub.revision} "
                                f"({', '.join(sorted(sub.records))})")
    roles = {r for t in sub.suite.tasks if t.name in sub.records and (not tasks or t.name in tasks) for r in t.setup}
    if roles:        # this machine's pipelines must be the suite's, as the run's were (submit checked those)
        try:
            check_setup(sub.suite.setup, roles)
        except SetupError as exc:
            raise VerificationError(f"this machine's set-up is not the suite's: {exc}") from None
    echo(f"verifying {sub.model_id}@{sub.revision} on {sub.suite.name} v{sub.suite.version} with {model} "
         f"({'every example' if sample is None else f'{sample} examples per task'}, draw seed {seed})")
    results = {}
    for task in sub.suite.tasks:
        if task.name not in sub.records or (tasks and task.name not in tasks):
            continue
        submitted_details = (manifest["tasks"].get(task.name) or {}).get("details")
        setup = get_evaluation(task.evaluation).setup
        if setup is not None:                 # before the search: a set-up difference is told at once
            _same_setup(task.name, submitted_details, setup())
        logged = {e["id"]: e for e in read_log(folder / "logs" / f"{task.name}.jsonl")}
        ids = sample_ids(list(logged), sample, seed, task.name)
        data = select_rows(task, Path(repo), None, None, ids=set(ids))
        out = get_evaluation(task.evaluation).run(handle, task, data.rows, data.positions, int(manifest["seed"]),
                                                  Path(repo), work=None)
        _same_setup(task.name, submitted_details, out.details)
        # the re-run's lines name their clusters as run names them: a log that claims other clusters (narrower
        # intervals) is caught at the line
        result = compare_task(task, logged, with_clusters(task.evaluation, data.rows, task.split, out.examples))
        results[task.name] = result
        primary = result["metrics"].get(task.primary, {})
        echo(f"  {task.name}: {result['verdict']}, {result['differing']} of {result['compared']} examples differ "
             f"({result['tolerance']}); {task.primary} on the sample {primary.get('submitted')} submitted, "
             f"{primary.get('rerun')} re-run")
        for ex in result["examples"][:5]:
            echo(f"    {ex['id']}: {ex['field']} differs")
    status = "verified" if all(t["verdict"] == "match" for t in results.values()) else "flagged"
    doc = {"format": FORMAT, "entry": sub.entry, "model_id": sub.model_id, "revision": sub.revision,
           "suite": {"name": sub.suite.name, "version": sub.suite.version},
           "submission_sha256": sha256_file(folder / SUBMISSION_FILE), "status": status,
           "verified_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "sample": {"full": sample is None, "per_task": sample, "seed": seed},
           "unverified_tasks": sorted(set(sub.records) - set(results)),
           "model": {"loaded": Path(model).name if Path(model).exists() else model, "revision": loaded},
           "runtime": {**mine, "submitted": runtime},
           "tolerances": {e.name: e.tolerance.describe() for e in evaluations()},
           "versions": {"robust_bench": __version__,
                        **package_versions("datasets", "transformers", "torch", "scipy", "spacy")},
           "tasks": results}
    echo(f"{status}: {sub.model_id}@{sub.revision}")
    if write:
        where = store.put_file(verification_path(sub.entry), json.dumps(doc, indent=2, sort_keys=True) + "\n",
                               message=f"Verify {sub.model_id}@{sub.revision} on {sub.suite.name} v{sub.suite.version}")
        echo(f"verification -> {where}")
    return doc
