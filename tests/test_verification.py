"""Verified rows without a model: the seeded draw, the line-by-line comparison and its tolerances, the
set-up check, and the stored verification file read strictly (the end-to-end re-run of a real local
model is in test_leaderboard.py)."""

from __future__ import annotations

import copy
import json

import pytest

from robust_bench.benchmarks import load_suite
from robust_bench.evaluations import Tolerance, evaluations
from robust_bench.leaderboard.verification import (VerificationError, compare_task,
                                                   read_verification, row_status, sample_ids, same_line,
                                                   verification_path)


def _lines(n: int) -> list[dict]:
    return [{"id": f"validation-{k:06d}", "input_sha256": f"{k:064x}", "gold": "entailment",
             "prediction": {"original": "entailment", "contrast": "neutral"},
             "outcome": {"ori_correct": 1, "ctr_correct": 0, "one": 1, "consistent": 0, "counted": 1}}
            for k in range(n)]


def test_the_draw_is_seeded_per_task_and_full_takes_everything():
    ids = [f"x-{k}" for k in range(500)]
    a = sample_ids(ids, 50, 0, "lit_mnli")
    assert a == sample_ids(list(reversed(ids)), 50, 0, "lit_mnli") == sorted(a) and len(set(a)) == 50
    assert a != sample_ids(ids, 50, 1, "lit_mnli") and a != sample_ids(ids, 50, 0, "gec_mnli")
    assert sample_ids(ids, None, 0, "t") == sorted(ids) == sample_ids(ids, 900, 0, "t")


def test_lines_compare_exactly_within_the_tolerance():
    task = load_suite("default").task("lit_mnli")
    logged = {e["id"]: e for e in _lines(200)}
    rerun = copy.deepcopy(list(logged.values()))
    assert compare_task(task, logged, rerun)["verdict"] == "match"
    rerun[0]["prediction"]["contrast"] = "contradiction"          # 1 of 200: a near tie, within 1%
    rerun[1]["outcome"]["ctr_correct"] = 1                         # 2 of 200: still within floor(2.0)
    got = compare_task(task, logged, rerun)
    assert got["verdict"] == "match" and got["differing"] == 2
    assert got["examples"] == [{"id": "validation-000000", "field": "prediction"},
                               {"id": "validation-000001", "field": "outcome"}]
    rerun[2]["gold"] = "neutral"
    got = compare_task(task, logged, rerun)
    assert got["verdict"] == "mismatch" and got["differing"] == 3
    assert got["metrics"]["acc_ctr"] == {"submitted": 0.0, "rerun": 0.005}
    # floats agree to a relative 1e-6; a re-run that scored an example the submission lacks is an error
    assert same_line({"outcome": {"s": 1.0}}, {"outcome": {"s": 1.0 + 1e-9}}) is None
    assert same_line({"outcome": {"s": 1.0}}, {"outcome": {"s": 1.01}}) == "outcome"
    with pytest.raises(VerificationError, match="does not hold"):
        compare_task(task, logged, [{**rerun[0], "id": "elsewhere"}])


def test_a_causal_lms_traces_compare_by_prompt_and_log_likelihoods_within_1e_4():
    line = {"outcome": {"one": 1}, "llm": [{"prompt_sha256": "ab" * 32, "loglikelihoods": [-1.5, -2.25, -3.0]},
                                         {"prompt_sha256": "cd" * 32, "answer": " yes"}]}
    near = copy.deepcopy(line)
    near["llm"][0]["loglikelihoods"][1] += 5e-5
    assert same_line(line, line) is None and same_line(line, near) is None
    for spoil in (lambda x: x["llm"][0]["loglikelihoods"].__setitem__(2, -3.001),
                  lambda x: x["llm"][0].__setitem__("prompt_sha256", "ef" * 32),
                  lambda x: x["llm"][1].__setitem__("answer", " no"),
                  lambda x: x["llm"].pop(), lambda x: x.pop("llm")):
        other = copy.deepcopy(line)
        spoil(other)
        assert same_line(line, other) == "llm"
    # malformed traces agree with nothing, and raise nothing
    for bad in ([{"prompt_sha256": "ab" * 32, "loglikelihoods": ["x", None, -3.0]}, line["llm"][1]], "traces", [None, None]):
        assert same_line(line, {**line, "llm": bad}) == "llm"
    # an input the model was not asked in one run (None) agrees only with None
    partial = {**line, "llm": [line["llm"][0], None]}
    assert same_line(partial, copy.deepcopy(partial)) is None and same_line(partial, line) == "llm"
    # a line logged without traces (before they were kept) is compared by prediction and outcome only
    assert same_line({"outcome": {"one": 1}}, line) is None


def test_probes_compare_by_metric_and_the_tolerances_are_documented():
    task = load_suite("default").task("lit_mnli")
    logged = {e["id"]: e for e in _lines(10)}
    rerun = copy.deepcopy(list(logged.values()))
    rerun[0]["outcome"]["ctr_correct"] = 1                         # acc_ctr 0.0 -> 0.1
    assert compare_task(task, logged, rerun, Tolerance("metrics", max_metric_diff=0.2))["verdict"] == "match"
    assert compare_task(task, logged, rerun, Tolerance("metrics", max_metric_diff=0.05))["verdict"] == "mismatch"
    # the shipped evaluations (a toy one another test adds for a moment may be registered beside them)
    shipped = ("contrast-set", "name-swaps", "parser-attack", "attack", "probe")
    tolerances = {e.name: e.tolerance for e in evaluations() if e.name in shipped}
    assert set(tolerances) == set(shipped)
    assert tolerances["probe"].compare == "metrics" and all(
        t.compare == "lines" for e, t in tolerances.items() if e != "probe")


def test_another_set_up_is_refused_before_anything_is_compared():
    from robust_bench.suite.verify import _same_setup

    ran = {"search": "greedy", "budget": 0.15, "pipelines": {"spacy": "en_rb_sm-0.1.0"}}
    _same_setup("gec_mrpc", ran, {"pipelines": {"spacy": "en_rb_sm-0.1.0"}, "rows": 3})
    _same_setup("gec_mrpc", [ran, ran], {"search": "greedy"})           # a merged run: shard details
    with pytest.raises(VerificationError, match="ROBUST_BENCH_SPACY_MODEL"):
        _same_setup("gec_mrpc", ran, {"pipelines": {"spacy": "en_core_web_sm-3.8.0"}})


def _store(tmp_path, doc: dict | str) -> tuple:
    entry = "submissions/org--m/default-v3/abc"
    (tmp_path / entry).mkdir(parents=True)
    (tmp_path / entry / "submission.json").write_text('{"format": 1}')
    path = tmp_path / verification_path(entry)
    path.parent.mkdir(parents=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return entry, path


GOOD = {"format": 1, "entry": "submissions/org--m/default-v3/abc", "status": "verified",
        "verified_at": "2026-11-25T03:00:00+00:00", "sample": {"full": False, "per_task": 50, "seed": 0},
        "submission_sha256": "", "tasks": {"lit_mnli": {"compared": 50, "differing": 0, "verdict": "match"}}}


@pytest.mark.parametrize("spoil, message", [
    (lambda d: d.update(status="flagged"), "contradicts the task verdicts"),
    (lambda d: d.update(entry="submissions/other/x-v1/y"), "field 'entry'"),
    (lambda d: d.update(verified_at="yesterday"), "field 'verified_at'"),
    (lambda d: d["tasks"]["lit_mnli"].update(verdict="fine"), "field 'tasks.lit_mnli'"),
    (lambda d: d.update(format=2), "field 'format'"),
    (lambda d: d.update(unverified_tasks="gec_mnli"), "field 'unverified_tasks'"),
])
def test_a_malformed_verification_is_refused_naming_the_field(tmp_path, spoil, message):
    doc = copy.deepcopy(GOOD)
    spoil(doc)
    entry, path = _store(tmp_path, doc)
    with pytest.raises(VerificationError, match=message) as err:
        read_verification(tmp_path, entry)
    assert str(path) in str(err.value)


def test_row_status(tmp_path):
    import hashlib

    entry, path = _store(tmp_path, "{}")
    sha = hashlib.sha256(b'{"format": 1}').hexdigest()
    path.write_text(json.dumps({**GOOD, "submission_sha256": sha}))
    assert row_status(tmp_path, entry)["status"] == "verified"
    path.write_text(json.dumps({**GOOD, "submission_sha256": sha, "unverified_tasks": ["gec_mnli"]}))
    assert row_status(tmp_path, entry)["status"] == "self-reported"           # verified only in part
    path.write_text(json.dumps({**GOOD, "submission_sha256": "0" * 64}))
    assert row_status(tmp_path, entry) == {"status": "self-reported",
                                           "detail": "replaced since its verification of 2026-11-25"}
    path.write_text("{NaN")
    with pytest.raises(VerificationError, match="not JSON"):
        row_status(tmp_path, entry)
    path.unlink()
    assert row_status(tmp_path, entry)["status"] == "self-reported"
