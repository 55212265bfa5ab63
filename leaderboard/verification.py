"""Verified rows: the leaderboard re-runs a submission's model and compares its predictions, example
by example, with the submitted per-example logs.

``submit`` already refuses a log whose outcomes disagree with its own predictions, and recomputes
every metric from the log, so a stored submission is at least self-consistent. What it cannot see
is a log whose *predictions* were made up. ``robust-bench leaderboard verify`` answers that as the
Open LLM Leaderboard does, by running the model itself: on a seeded sample of each task's examples
(every example with ``--full``), with the submission's model id and revision, seed, dtype and batch
size. This module holds what the verifier and the site share: which examples are drawn, how two
log lines are compared, the tolerances, and the verification file stored beside the submissions::

    verifications/<org--name>/<suite>-v<version>/<revision>/<asked>.json

A verification names the SHA-256 of the ``submission.json`` it checked, so a submission replaced
later (``submit --overwrite``) is shown as self-reported again until it is verified anew.

Which tasks are deterministic
-----------------------------
Every evaluation is deterministic given the model, the data, the seed, the device, the dtype and
the batch size: classifiers and parsers are run in eval mode without sampling, and an attack's
search is seeded per example from the run's seed and the example's position in the split
(:mod:`robust_bench.suite.runner`), so a sampled example is searched exactly as in the full run.
Re-running on the same kind of machine with the same settings gives byte-identical log lines (the
README gives the figures measured). What differs across machines is floating-point summation order (another GPU, another BLAS, another padding), which moves a prediction only where
two labels nearly tie, and an attack search amplifies such a tie into another path. Hence each
evaluation declares how a re-run is compared (:attr:`robust_bench.evaluations.Evaluation.tolerance`):

* ``contrast-set``, ``name-swaps`` and ``parser-attack``, one forward pass per input: compared
  exactly, line by line; a small share of lines may differ (near ties).
* ``attack``: compared exactly, line by line (clean and adversarial predictions, success, number
  of queries, the adversarial text); a larger share may differ, since one near tie among the
  search's queries changes the path.
* ``probe``: a structural probe is *trained* (Hall Maudslay & Cotterell, 2021, §4) on the whole
  train split before the sampled test sentences are scored, and training accumulates rounding over
  thousands of steps; it is compared by the task's metrics on the sampled sentences, within an
  absolute tolerance, not line by line.
"""

from __future__ import annotations

import hashlib
import math
import random
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

from robust_bench.benchmarks import Task
from robust_bench.evaluations import Tolerance, get_evaluation
from robust_bench.io.sources import sha256_file
from robust_bench.results.runs import log_columns
from robust_bench.scoring.intervals import metric_value
from robust_bench import RobustBenchError

__all__ = ["VERIFICATION_DIR", "VerificationError", "sample_ids", "same_line",
           "compare_task", "verification_path", "read_verification", "row_status", "DEFAULT_SAMPLE"]

VERIFICATION_DIR = "verifications"
FORMAT = 1
#: examples (groups for name swaps, sentences for probes) drawn per task unless ``--full``
DEFAULT_SAMPLE = 50
_MAX_BYTES = 1 << 20
#: floats in log lines (probe DSpr sums) are equal when within this relative difference
FLOAT_RTOL = 1e-6
#: a causal LM's per-choice log-likelihoods (nats) in log lines are equal when within this absolute
#: difference (the parity the tests hold the hf scorer to against lm-eval's)
LL_ATOL = 1e-4


class VerificationError(RobustBenchError, ValueError):
    """A verification file that is not one, or a submission that cannot be verified as asked."""


def sample_ids(ids: Sequence[str], size: int | None, seed: int, task: str) -> list[str]:
    """The examples a verification re-runs: ``size`` ids drawn without replacement from ``ids`` with
    a generator seeded by (``seed``, ``task``), or all of them when ``size`` is None or not smaller.

    Returns
    -------
    list of str
        Sorted; the same for the same arguments on any machine.
    """
    pool = sorted(set(ids))
    if size is None or size >= len(pool):
        return pool
    digest = hashlib.sha256(f"{int(seed)}:{task}".encode()).hexdigest()
    return sorted(random.Random(int(digest[:16], 16)).sample(pool, size))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=FLOAT_RTOL, abs_tol=FLOAT_RTOL)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _same_llm(a: Any, b: Any) -> bool:
    """A causal LM's traces agree: the same rendered prompts and answers, log-likelihoods within
    :data:`LL_ATOL` nats (a malformed trace agrees with nothing)."""
    if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)):
        return False
    try:
        for x, y in zip(a, b):
            if x is None or y is None:
                if x is not y:
                    return False
                continue
            if not (isinstance(x, dict) and isinstance(y, dict)) or x.keys() != y.keys():
                return False
            if x.get("prompt_sha256") != y.get("prompt_sha256") or x.get("answer") != y.get("answer"):
                return False
            lx, ly = x.get("loglikelihoods", []), y.get("loglikelihoods", [])
            if len(lx) != len(ly) or any(not math.isclose(float(u), float(v), rel_tol=0, abs_tol=LL_ATOL)
                                         for u, v in zip(lx, ly)):
                return False
    except (TypeError, ValueError):
        return False
    return True


def same_line(logged: Mapping, rerun: Mapping) -> str | None:
    """The first field in which two log lines of one example differ (``input_sha256``, ``gold``,
    ``prediction``, ``outcome``, ``cluster`` or a causal LM's ``llm`` traces), or None when they agree (floats
    within :data:`FLOAT_RTOL`; log-likelihoods within :data:`LL_ATOL`)."""
    for key in ("input_sha256", "gold", "prediction", "outcome"):
        if not _same(logged.get(key), rerun.get(key)):
            return key
    # a line logged before clusters were declared (record 2.1 and older) is compared without its cluster
    if "cluster" in logged and logged["cluster"] != rerun.get("cluster"):
        return "cluster"
    # a line logged before traces were kept (or by a model without them) is compared without them
    if "llm" in logged and not _same_llm(logged["llm"], rerun.get("llm")):
        return "llm"
    return None


def _sample_metrics(task: Task, lines: Sequence[Mapping]) -> dict[str, float | None]:
    cols = log_columns(lines)
    out = {}
    for spec in task.metrics:
        formula = spec.formula
        value = metric_value(formula, cols) if lines and all(f in cols for f in formula.fields) else float("nan")
        out[spec.name] = round(float(value), 10) if math.isfinite(value) else None
    return out


def compare_task(task: Task, logged: Mapping[str, Mapping], rerun: Sequence[Mapping],
                 tolerance: Tolerance | None = None) -> dict:
    """Compare a task's re-run log lines with the submitted ones of the same examples.

    Parameters
    ----------
    task : Task
    logged : mapping of str to dict
        Example id -> the submitted log line.
    rerun : sequence of dict
        The re-run's log lines (one per sampled example).
    tolerance : Tolerance, optional
        Defaults to the evaluation's (:attr:`robust_bench.evaluations.Evaluation.tolerance`).

    Returns
    -------
    dict
        ``compared`` (number of examples), ``differing`` (how many lines differ), ``examples`` (the
        first 20 differing ids with the field), ``metrics`` (each metric on the sample:
        ``{"submitted": x, "rerun": y}``), ``tolerance`` (its description) and ``verdict``
        (``"match"`` or ``"mismatch"``).

    Raises
    ------
    VerificationError
        If the re-run scored an example the submission does not hold, or missed one.
    """
    tol = tolerance or get_evaluation(task.evaluation).tolerance
    ids = [e["id"] for e in rerun]
    extra = sorted(set(ids) - set(logged))
    if extra or len(set(ids)) != len(ids):
        raise VerificationError(f"task {task.name}: the re-run scored examples the submission does not hold "
                                f"({extra[:3]})")
    differing = [(e["id"], f) for e in rerun if (f := same_line(logged[e["id"]], e)) is not None]
    submitted = _sample_metrics(task, [logged[i] for i in ids])
    again = _sample_metrics(task, rerun)
    metrics = {m: {"submitted": submitted[m], "rerun": again[m]} for m in submitted}
    if tol.compare == "lines":
        ok = len(differing) <= math.floor(tol.max_share * len(rerun) + 1e-9)
    else:
        ok = all((v["submitted"] is None) == (v["rerun"] is None) and
                 (v["submitted"] is None or abs(v["submitted"] - v["rerun"]) <= tol.max_metric_diff + 1e-12)
                 for v in metrics.values())
    return {"compared": len(rerun), "differing": len(differing),
            "examples": [{"id": i, "field": f} for i, f in differing[:20]],
            "metrics": metrics, "tolerance": tol.describe(), "verdict": "match" if ok else "mismatch"}


def verification_path(entry: str) -> str:
    """Where the verification of the submission stored at ``entry``
    (``submissions/<key>/<suite>-v<version>/<revision>/<asked>``) is kept, relative to the store."""
    if not entry.startswith("submissions/"):
        raise VerificationError(f"{entry!r} is not a submission entry")
    return f"{VERIFICATION_DIR}/{entry[len('submissions/'):]}.json"


def read_verification(store_root: str | Path, entry: str) -> dict | None:
    """The stored verification of ``entry``, checked, or None if there is none.

    Raises
    ------
    VerificationError
        If the file is a link, too large, not strict JSON, or lacks its fields (naming the file
        and the field).
    """
    path = Path(store_root) / verification_path(entry)
    if not path.exists() and not path.is_symlink():
        return None
    from robust_bench.results.runs import RunFolderError, read_json

    where = str(path)
    if path.is_symlink() or not path.is_file():
        raise VerificationError(f"{where}: not a plain file")
    try:
        doc = read_json(path, limit=_MAX_BYTES, where=where)   # the run folders' strict reader: size, UTF-8, no NaN
    except RunFolderError as exc:
        raise VerificationError(str(exc)) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise VerificationError(f"{where}: field 'format': expected {FORMAT}")
    for key, kind in (("entry", str), ("submission_sha256", str), ("status", str), ("verified_at", str),
                      ("tasks", dict), ("sample", dict)):
        if not isinstance(doc.get(key), kind):
            raise VerificationError(f"{where}: field {key!r}: expected {kind.__name__}")
    if doc["entry"] != entry:
        raise VerificationError(f"{where}: field 'entry': {ascii(doc['entry'])[:100]} is not {entry}")
    if doc["status"] not in ("verified", "flagged"):
        raise VerificationError(f"{where}: field 'status': expected verified or flagged")
    try:
        datetime.fromisoformat(doc["verified_at"])
    except ValueError:
        raise VerificationError(f"{where}: field 'verified_at': not an ISO 8601 time") from None
    for name, t in doc["tasks"].items():
        if not isinstance(t, dict) or t.get("verdict") not in ("match", "mismatch") \
                or not isinstance(t.get("compared"), int) or not isinstance(t.get("differing"), int):
            raise VerificationError(f"{where}: field 'tasks.{ascii(name)[1:-1][:64]}': expected compared, differing, "
                                   "verdict")
    rest = doc.setdefault("unverified_tasks", [])
    if not isinstance(rest, list) or not all(isinstance(t, str) for t in rest):
        raise VerificationError(f"{where}: field 'unverified_tasks': expected a list of task names")
    if (doc["status"] == "verified") != all(t["verdict"] == "match" for t in doc["tasks"].values()):
        raise VerificationError(f"{where}: field 'status': {doc['status']} contradicts the task verdicts")
    return doc


def row_status(store_root: str | Path, entry: str) -> dict:
    """How the site shows a submission: ``{"status": "verified" | "flagged" | "self-reported",
    "detail": one line}``. Verified needs every submitted task re-run and matching; a mismatch on any
    task flags the row. A verification of another ``submission.json`` than the stored one (the
    submission was replaced since) counts as none.

    Raises
    ------
    VerificationError
        From :func:`read_verification`.
    """
    from robust_bench.leaderboard.submission import SUBMISSION_FILE

    doc = read_verification(store_root, entry)
    if doc is None:
        return {"status": "self-reported", "detail": "not re-run by the leaderboard"}
    if doc["submission_sha256"] != sha256_file(Path(store_root) / entry / SUBMISSION_FILE):
        return {"status": "self-reported", "detail": "replaced since its verification of "
                                                     f"{doc['verified_at'][:10]}"}
    n = sum(t["compared"] for t in doc["tasks"].values())
    scope = "every example" if doc["sample"].get("full") else f"{n} sampled examples"
    if doc["status"] == "verified" and doc["unverified_tasks"]:
        return {"status": "self-reported", "detail": f"re-run on {scope} of {', '.join(sorted(doc['tasks']))} only "
                                                     f"(predictions match); not re-run: "
                                                     f"{', '.join(doc['unverified_tasks'])}"}
    if doc["status"] == "verified":
        return {"status": "verified", "detail": f"re-run on {scope} on {doc['verified_at'][:10]}: predictions match"}
    bad = sorted(k for k, t in doc["tasks"].items() if t["verdict"] == "mismatch")
    return {"status": "flagged", "detail": f"re-run on {scope} on {doc['verified_at'][:10]}: predictions differ "
                                           f"beyond the tolerance on {', '.join(bad)}"}
