"""``robust-bench check``: the CI regression gate between two runs of one suite version.

Per task, the primary metric's change (candidate minus baseline, signed so that positive is
better) is tested on the paired per-example outcomes, at the level of the clusters the log lines name
(the source example, group or document a line was drawn from; a line without one is its own cluster):
when the outcome is accuracy-like (a 0/1 numerator over a denominator of 1 per example), the clustered
McNemar test of Durkalski et al. (2003) with the cluster-robust Wald interval of the paired difference
(:func:`robust_bench.scoring.intervals.clustered_mcnemar`; McNemar's test, ``statsmodels``, with one
example per cluster), a cluster paired bootstrap otherwise. A task **regresses** when the upper end of
the (1 - alpha) interval of the change is below ``-tolerance``.

Each verdict also states the **minimum detectable effect**: the smallest true drop that the gate flags
with 80% power on these examples and clusters,
tolerance + (z_{1-alpha/2} + z_{0.8}) SE (:func:`robust_bench.scoring.intervals.minimum_detectable_effect`),
so that a pass is read as "no drop of that size", not "no drop".

Exit status: 0 pass, 1 regression, 2 unusable input (a different suite or version, different
data hashes, a task missing from one run, logs over different examples, a tampered log).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from robust_bench.benchmarks import Suite, list_suites, load_suite
from robust_bench.io.fileio import atomic_write_text
from robust_bench.results.runs import RunFolderError, log_clusters, log_columns, read_manifest
from robust_bench.scoring.intervals import (POWER, ClusterIndex, bootstrap_standard_error, cluster_index,
                                            clustered_mcnemar, design_effect, minimum_detectable_effect,
                                            paired_difference)
from robust_bench import RobustBenchError

__all__ = ["GateError", "TaskVerdict", "check_runs", "format_verdict", "write_junit", "write_summary"]


class GateError(RobustBenchError, ValueError):
    """The two runs cannot be compared (exit status 2); the message says why in one line."""


@dataclass
class TaskVerdict:
    """The gate's finding on one task."""

    task: str
    metric: str
    test: str
    baseline: float
    candidate: float
    change: float                 # signed so that positive is better
    interval: tuple[float, float]
    p_value: float | None
    n: int
    regressed: bool
    n_clusters: int = 0
    design_effect: float | None = None     # of the baseline's primary metric
    mde: float = float("nan")              # the smallest drop flagged with 80% power, in the metric's units


def _validated(run: Path, suite: Suite | str | None) -> tuple[Suite, dict[str, dict], dict[str, list[dict]]]:
    """A run folder checked as strictly as ``submit`` checks it (:func:`robust_bench.leaderboard.
    submission.validate_run`: strict JSON, schema v2, finite in-range metrics and intervals, no links,
    log hashes, metrics recomputed from the logs), with its records and logs; unpinned tasks are kept."""
    from robust_bench.benchmarks import SuiteError
    from robust_bench.leaderboard.submission import validate_run

    try:
        manifest = read_manifest(run)
        name, version = manifest["suite"]["name"], manifest["suite"]["version"]
        # a family command's derived suite travels in its run folder (robust_bench.suite.command): read only
        # when run.json names it, and never in place of a shipped suite
        local = run / "suite.yaml"
        derived = (not suite and name not in list_suites() and local.is_file()
                   and load_suite(local).name == name)
        chosen = suite if isinstance(suite, Suite) else load_suite(suite or (local if derived else name))
        if (chosen.name, chosen.version) != (name, version):
            raise GateError(f"{run / 'run.json'}: the run used suite {name!r} v{version}, the suite given is "
                            f"{chosen.name!r} v{chosen.version}")
        checked = validate_run(run, chosen, unpinned=True, listed=False, keep_logs=True)
    except RunFolderError as exc:
        raise GateError(f"invalid run: {exc}") from None
    except SuiteError as exc:
        raise GateError(f"{run / 'run.json'}: {exc}") from None
    if not checked.records:
        raise GateError(f"{run} has no records (is it a run folder, and did the run finish?)")
    return chosen, checked.records, checked.logs


#: what must agree for two causal-LM runs to be compared: the same prompt, asked the same way
_LLM_COMPARED = ("prompt_sha256", "chat_template", "num_fewshot", "scoring", "normalization", "system_instruction")


def _same_llm_setup(task: str, ra: dict, rb: dict) -> None:
    """Refuse to compare two causal-LM records of ``task`` whose prompts or settings differ (a
    classifier against an LLM, or hf against vLLM, is compared)."""
    la, lb = ra["model"].get("llm"), rb["model"].get("llm")
    if not la or not lb:
        return
    diff = [k for k in _LLM_COMPARED if la.get(k) != lb.get(k)]
    if diff:
        shown = ", ".join(f"{k} {str(la.get(k))[:12]} vs {str(lb.get(k))[:12]}" for k in diff)
        raise GateError(f"task {task}: the LLM runs were asked differently ({shown}); scores under different "
                        "prompts or settings are not compared")


def _templates(asked: dict) -> str:
    """How a run's ``--prompts all`` templates read in an error: ``lm-eval's prompt only`` or the templates
    (name and the start of its prompt's SHA-256) per task."""
    if not asked:
        return "lm-eval's prompt only"
    return "; ".join(f"{task}: {', '.join(f'{n} {str(h)[:8]}' for n, h in sorted(hashes.items()))}"
                     for task, hashes in sorted(asked.items()))


def check_runs(baseline: str | Path, candidate: str | Path, *, tolerance: float = 0.01, alpha: float = 0.05,
               suite: Suite | str | None = None) -> list[TaskVerdict]:
    """Compare two run folders task by task.

    Parameters
    ----------
    baseline, candidate : path-like
        Run folders (``robust-bench run`` or ``merge``).
    tolerance : float
        Allowed drop of the primary metric, in its units (0.01 = one point of accuracy).
    alpha : float in (0, 1)
        The intervals are (1 - alpha) intervals.
    suite : Suite or str, optional
        To read metric directions from (default: the suite named in the records).

    Returns
    -------
    list of TaskVerdict

    Raises
    ------
    GateError
        An invalid run (anything ``submit`` refuses: malformed or non-finite records, links, a log
        that does not match its record or whose outcomes give other metrics), different suites or
        versions, different data hashes, a task done in one run only, different example ids, or different
        prompt templates (``run --prompts all`` in one run only, or over other templates).
    """
    if not 0 < alpha < 1:
        raise GateError(f"--alpha must be in (0, 1), got {alpha}")
    if tolerance < 0:
        raise GateError(f"--tolerance must be >= 0, got {tolerance}")
    a_dir, b_dir = Path(baseline), Path(candidate)
    suite_a, a, logs_a = _validated(a_dir, suite)
    suite_b, b, logs_b = _validated(b_dir, suite)
    if (suite_a.name, suite_a.version) != (suite_b.name, suite_b.version):
        raise GateError(f"suite mismatch: baseline ran {suite_a.name} v{suite_a.version}, candidate ran "
                        f"{suite_b.name} v{suite_b.version}")
    suite = suite_a
    missing = sorted(set(a) ^ set(b))
    if missing:
        raise GateError(f"tasks scored in one run only: {', '.join(missing)}")
    ta, tb = ((read_manifest(d).get("prompts") or {}).get("templates") or {} for d in (a_dir, b_dir))
    if {t: ta.get(t) for t in a} != {t: tb.get(t) for t in a}:
        raise GateError(f"the runs were scored under different prompt templates ({_templates(ta)} vs {_templates(tb)}; "
                        "run both with or both without --prompts all, on the same suite's templates)")
    out = []
    for name in sorted(a):
        ra, rb = a[name], b[name]
        if ra["corpus_sha256"] != rb["corpus_sha256"]:
            raise GateError(f"task {name}: data hashes differ ({ra['corpus_sha256'][:12]}… vs {rb['corpus_sha256'][:12]}…)")
        _same_llm_setup(name, ra, rb)
        la, lb = logs_a[name], logs_b[name]
        if [e["id"] for e in la] != [e["id"] for e in lb]:
            raise GateError(f"task {name}: the runs scored different examples ({len(la)} vs {len(lb)}; "
                            "same --limit and no --shard?)")
        task = suite.task(name)
        metric = task.primary
        spec = task.metric(metric)
        formula = spec.formula
        sign = 1.0 if spec.higher_is_better else -1.0
        ca, cb = log_columns(la), log_columns(lb)
        clusters = _clusters(name, la, lb)
        res, mde, deff = _paired_test(formula, ca, cb, clusters, alpha=alpha, tolerance=tolerance, seed=int(ra["seed"]))
        lo, hi = res["interval"]
        change = sign * res["difference"]
        lo, hi = (lo, hi) if sign > 0 else (-hi, -lo)
        regressed = bool(np.isfinite(hi) and hi < -tolerance)
        out.append(TaskVerdict(name, metric, res["test"], res["baseline"], res["candidate"], change, (lo, hi),
                               res.get("p_value"), len(la), regressed, clusters.n_clusters,
                               deff if np.isfinite(deff) else None, mde))
    return out


def _clusters(task: str, la: Sequence[dict], lb: Sequence[dict]) -> ClusterIndex:
    """The clusters of a task's examples as both logs name them (a log written before clusters were
    declared names none: the other's are used, or each example is its own).

    Raises
    ------
    GateError
        If both logs name clusters and they differ.
    """
    ka, kb = log_clusters(la), log_clusters(lb)
    named_a, named_b = (any("cluster" in e for e in log) for log in (la, lb))
    if named_a and named_b and ka != kb:
        first = next(e["id"] for e, x, y in zip(la, ka, kb) if x != y)
        raise GateError(f"task {task}: the runs put the examples in different clusters (first {ascii(first)[:60]}); "
                        "were they scored on the same data by the same robust-bench?")
    return cluster_index(ka if named_a or not named_b else kb)


def _paired_test(formula, ca: dict, cb: dict, clusters: ClusterIndex, *, alpha: float, tolerance: float,
                 seed: int) -> tuple[dict, float, float]:
    """The clustered paired test of the primary metric, its minimum detectable effect and the baseline's
    design effect.

    0/1 outcomes: :func:`~robust_bench.scoring.intervals.clustered_mcnemar`, and the detectable drop from
    the SE of a paired difference of proportions under the alternative, inflated by the baseline's design
    effect. Otherwise: the cluster paired bootstrap, and the detectable drop from its SE, floored at the
    baseline metric's own clustered bootstrap SE (two identical runs disagree nowhere, yet a change would
    be measured with at least the metric's own sampling error).
    """
    num, den = formula.fields[0], formula.fields[-1]
    accuracy_like = (formula.kind == "ratio" and formula.over is None and all(np.all(c[den] == 1) and np.isin(c[num], (0, 1)).all()
                                                     for c in (ca, cb)))
    n = len(ca[num])
    deff = design_effect(formula, ca, clusters)
    if accuracy_like:
        res = clustered_mcnemar(ca[num].astype(int), cb[num].astype(int), clusters, confidence=1 - alpha)
        mde = minimum_detectable_effect(alpha=alpha, tolerance=tolerance, n=n, discordance=(res["b"] + res["c"]) / n,
                                        deff=deff, power=POWER)
        return res, mde, deff
    res = paired_difference(formula, ca, cb, confidence=1 - alpha, seed=seed, clusters=clusters)
    floor = bootstrap_standard_error(formula, ca, seed=seed, clusters=clusters)
    se = np.nanmax([res["se"], floor]) if np.isfinite([res["se"], floor]).any() else float("nan")
    return res, minimum_detectable_effect(alpha=alpha, tolerance=tolerance, n=n, se=se, power=POWER), deff


def write_junit(verdicts: Sequence[TaskVerdict], path: str | Path, *, tolerance: float) -> Path:
    """JUnit XML: one test case per task, a failure for each regression (CI systems render it)."""
    fails = sum(v.regressed for v in verdicts)
    cases = []
    for v in verdicts:
        body = ""
        if v.regressed:
            body = (f"<failure message={quoteattr(format_verdict(v, tolerance))} type=\"regression\">"
                    f"{escape(format_verdict(v, tolerance))}</failure>")
        cases.append(f'  <testcase classname="robust-bench" name={quoteattr(v.task)}>{body}</testcase>')
    xml = (f'<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="robust-bench check" tests="{len(verdicts)}" '
           f'failures="{fails}" errors="0">\n' + "\n".join(cases) + "\n</testsuite>\n")
    return atomic_write_text(path, xml)


def format_verdict(v: TaskVerdict, tolerance: float) -> str:
    """One line per task: the change, its interval, the test and the verdict."""
    p = f", p = {v.p_value:.3g}" if v.p_value is not None else ""
    verdict = "REGRESSION" if v.regressed else "ok"
    return (f"{v.task}: {v.metric} {v.baseline:.4f} -> {v.candidate:.4f}, change {v.change:+.4f} "
            f"[{v.interval[0]:+.4f}, {v.interval[1]:+.4f}] ({v.test}{p}, n = {v.n} in {v.n_clusters} clusters"
            f"{_deff(v)}); {verdict} at tolerance {tolerance}; {_mde(v)}")


def _deff(v: TaskVerdict) -> str:
    return f", design effect {v.design_effect:.2f}" if v.design_effect is not None else ""


def _mde(v: TaskVerdict) -> str:
    """The minimum detectable effect, in words."""
    if not np.isfinite(v.mde):
        return "minimum detectable effect unknown (too few clusters)"
    return f"minimum detectable effect {v.mde:.4f} ({POWER:.0%} power)"


def write_summary(verdicts: Sequence[TaskVerdict], path: str | Path, *, tolerance: float, alpha: float) -> Path:
    """A Markdown summary (for ``$GITHUB_STEP_SUMMARY`` or a PR comment)."""
    rows = ["| task | metric | baseline | candidate | change (better > 0) | interval | test | examples (clusters) | "
            f"minimum detectable effect ({POWER:.0%} power) | verdict |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for v in verdicts:
        p = f", p = {v.p_value:.3g}" if v.p_value is not None else ""
        mde = f"{v.mde:.4f}" if np.isfinite(v.mde) else "unknown"
        rows.append(f"| {v.task} | {v.metric} | {v.baseline:.4f} | {v.candidate:.4f} | {v.change:+.4f} | "
                    f"[{v.interval[0]:+.4f}, {v.interval[1]:+.4f}] | {v.test}{p} | {v.n} ({v.n_clusters}) | {mde} | "
                    f"{'**regression**' if v.regressed else 'pass'} |")
    n = sum(v.regressed for v in verdicts)
    head = (f"## robust-bench check: {'FAIL, ' + str(n) + ' regressions' if n else 'pass'}\n\n"
            f"A task regresses when the upper end of the {100 * (1 - alpha):.0f}% interval of the change is below "
            f"-{tolerance}. The minimum detectable effect is the smallest drop the gate flags with {POWER:.0%} power "
            f"on these examples, resampled or tested by cluster (the source each example was drawn from).\n\n")
    return atomic_write_text(path, head + "\n".join(rows) + "\n")
