"""Issue 32: one evaluation per family behind both front doors, each declared once.

* a new evaluation is one module in ``robust_bench/evaluations/``: suites, runs, records, reports and
  the gate take it from its declaration;
* a suite names metrics; their formulas, directions and ranges are the evaluation's;
* the command line only parses, calls and prints;
* ``robust-bench run`` and a family's own command score the same examples identically.
"""

from __future__ import annotations

import ast
import json
import shutil
import uuid

import pytest

from tests.conftest import ROOT
from tests.helpers import run_cli

TOY_EVALUATION = '''
"""A toy evaluation written by tests/test_evaluations.py; it is deleted when the test ends."""

from robust_bench.evaluations import EvalOutput, Metric, input_sha256, log_entry, ratio, register_evaluation, unit_ids

LABELS = ["even", "odd"]


@register_evaluation(name="@NAME@", family="toy", metrics=(Metric("parity_accuracy", ratio("correct")),
                                                           Metric("errors", ratio("wrong"), higher_is_better=False)),
                     robustness=("errors",))
def toy(model, task, rows, positions, seed, repo, work=None):
    """Is a sentence's number of words even or odd?"""
    clf = model.classifier(LABELS)
    words = [list(t) for t in rows["tokens"]]
    preds = clf.predict([" ".join(w) for w in words])
    out = [log_entry(uid, input_sha256(w), LABELS[p], LABELS[len(w) % 2],
                     {"correct": p == len(w) % 2, "wrong": p != len(w) % 2, "one": 1})
           for uid, w, p in zip(unit_ids("@NAME@", rows, task.split), words, preds)]
    return EvalOutput(out, {"rows": len(rows)})
'''

PARITY_MODEL = '''
import numpy as np


def parity(texts):
    """Right on every sentence but those of 7 words."""
    out = []
    for t in texts:
        n = len(t.split())
        odd = (n % 2 == 1) != (n == 7)
        out.append([0.0, 1.0] if odd else [1.0, 0.0])
    return np.asarray(out)


parity.robust_bench_interface = "sequence-classification"
parity.robust_bench_labels = ["even", "odd"]
'''


def _run(args, cwd, check=True):
    proc = run_cli(args, cwd)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.shared
def test_a_new_evaluation_is_one_file_and_runs_end_to_end(built_repo, tmp_path):
    """A toy evaluation module, and nothing else in the package: a suite names it and its metrics,
    `run` scores a callable model with it, and the record carries the declared family, formula
    values and ranges; the report lists its robustness measure; `check` compares two runs by it."""
    from robust_bench.results.runs import read_log

    tag = uuid.uuid4().hex[:8]
    name = f"toy-{tag}"
    module = ROOT / "robust_bench" / "evaluations" / f"toy_{tag}.py"
    try:
        module.write_text(TOY_EVALUATION.replace("@NAME@", name), encoding="utf-8")
        (tmp_path / "parity.py").write_text(PARITY_MODEL, encoding="utf-8")
        (tmp_path / "toy.yaml").write_text(f"""name: toy
version: 1
description: One toy task.
tasks:
- name: toy_parity
  config: jabberwocky_ewt
  split: test
  interface: sequence-classification
  evaluation: {name}
  metrics: [parity_accuracy, errors]
  primary: parity_accuracy
  data_sha256: null
""", encoding="utf-8")
        for out in ("a", "b"):
            _run(["run", "--model", "parity.py:parity", "--suite", "toy.yaml", "--repo", built_repo, "--limit", "80",
                  "--output-dir", out], tmp_path)
        run_dir = tmp_path / "a" / "parity_py"
        rec = json.loads((run_dir / "records" / "toy_parity.json").read_text())
        assert rec["family"] == "toy" and rec["evaluation"] == name and rec["n_examples"] == 80
        lines = read_log(run_dir / "logs" / "toy_parity.jsonl")
        wrong = sum(e["outcome"]["wrong"] for e in lines)
        assert 0 < wrong < 80 and rec["metrics"]["errors"] == pytest.approx(wrong / 80)
        assert rec["metrics"]["parity_accuracy"] == pytest.approx(1 - wrong / 80)
        assert "errors" in (run_dir / "report.md").read_text()
        gate = _run(["check", "--baseline", run_dir, "--candidate", tmp_path / "b" / "parity_py", "--suite",
                     "toy.yaml"], tmp_path)
        assert "pass" in gate.stdout
        # a metric the evaluation does not declare is refused when the suite is read, naming it
        text = (tmp_path / "toy.yaml").read_text()
        (tmp_path / "bad.yaml").write_text(text.replace("[parity_accuracy, errors]", "[parity_accuracy, recall]"))
        bad = _run(["run", "--model", "parity.py:parity", "--suite", "bad.yaml", "--repo", built_repo,
                    "--output-dir", "c"], tmp_path, check=False)
        assert bad.returncode == 2 and "no metric 'recall'" in bad.stderr and "parity_accuracy" in bad.stderr
    finally:
        module.unlink(missing_ok=True)
        shutil.rmtree(module.parent / "__pycache__", ignore_errors=True)


def test_a_suite_names_metrics_and_the_evaluation_declares_them(tmp_path):
    from robust_bench.benchmarks import SuiteError, list_suites, load_suite
    from robust_bench.evaluations import get_evaluation

    for name in list_suites():                           # every shipped suite loads (a YAML error once hid here)
        suite = load_suite(name)
        for task in suite.tasks:
            ev = get_evaluation(task.evaluation)
            assert task.family == ev.family
            for m in task.metrics:
                assert (m.formula, m.higher_is_better, m.range) == (lambda d: (d.formula, d.higher_is_better,
                                                                                d.range))(ev.metric(m.name))
    shipped = (ROOT / "benchmarks" / "default.yaml").read_text()
    assert "metrics: [acc_ori, acc_ctr, consistency, contrast_consistency]" in shipped
    bad = shipped.replace("metrics: [acc_ori, acc_ctr, consistency, contrast_consistency]",
                          "metrics: [acc_ori, {name: consistency, higher_is_better: false, range: [0, 1]}]", 1)
    (tmp_path / "bad.yaml").write_text(bad.replace("primary: contrast_consistency", "primary: acc_ori", 1))
    with pytest.raises(SuiteError, match="'consistency': direction or range differs from its evaluation"):
        load_suite(tmp_path / "bad.yaml")
    (tmp_path / "fam.yaml").write_text(shipped.replace("evaluation: contrast-set", "evaluation: contrast-set\n  family: toy", 1))
    with pytest.raises(SuiteError, match="field 'family': 'toy', but evaluation 'contrast-set' scores 'lit'"):
        load_suite(tmp_path / "fam.yaml")
    (tmp_path / "ev.yaml").write_text(shipped.replace("evaluation: contrast-set", "evaluation: contrast-sets", 1))
    with pytest.raises(SuiteError, match="unknown evaluation 'contrast-sets'; known: .*contrast-set"):
        load_suite(tmp_path / "ev.yaml")


def test_the_command_line_only_parses_calls_and_prints():
    """Every module of cli/ but its shared parsing helpers defines commands and nothing else: each
    top-level function is a registered command, and no command module holds a class or a table."""
    helpers = {"__init__.py", "_app.py", "_common.py"}
    for path in sorted((ROOT / "robust_bench" / "cli").glob("*.py")):
        if path.name in helpers:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                commands = [d for d in node.decorator_list if isinstance(d, ast.Call)
                            and isinstance(d.func, ast.Attribute) and d.func.attr == "command"]
                assert commands, f"{path.name}: {node.name} is not a command; workflows belong in robust_bench.evaluations or robust_bench.suite.command"
            assert not isinstance(node, ast.ClassDef), f"{path.name}: class {node.name}"




def test_a_metric_that_needs_an_option_is_refused_without_it():
    """Metric.option is checked for every evaluation before it runs: Table 3's random row needs `random`."""
    from dataclasses import replace

    from robust_bench.benchmarks import load_suite
    from robust_bench.evaluations import EvaluationError, get_evaluation

    ev = get_evaluation("name-swaps")
    task = next(t for t in load_suite("default").tasks if t.config == "names_mrpc")
    ev.check_options(task)                                          # the suite's task lists no random metric
    spec = ev.metric("random_mean_f1")
    from robust_bench.benchmarks import MetricSpec

    asking = replace(task, metrics=task.metrics + (MetricSpec(spec.name, spec.higher_is_better, spec.range, spec.formula),))
    with pytest.raises(EvaluationError, match=r"random_mean_f1 \(random\)"):
        ev.check_options(asking)
    ev.check_options(replace(asking, options={**asking.options, "random": True}))
