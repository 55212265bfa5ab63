"""Result records have one format (issue 52): v2, written from a per-example log by record_from_log and checked
against its schema and the ranges the evaluation declares; every field a reader trips on is named."""

import json

import pytest

from robust_bench.results import RecordError, load_schema, validate_record

SHA = "a" * 64


def v2_record(metric: float = 0.75, **change) -> dict:
    """A v2 record of a two-example task, from its log (the one writer)."""
    from robust_bench.benchmarks import MetricSpec, Suite, Task
    from robust_bench.results.runs import record_from_log
    from robust_bench.scoring.intervals import Formula

    task = Task(name="t", family="lit", config="lit_mnli", split="validation_matched", interface="sequence-classification",
                evaluation="contrast-set", metrics=(MetricSpec("acc_ori", True, (0.0, 1.0), Formula("ratio", ("c", "one"))),),
                primary="acc_ori", data_sha256=SHA)
    suite = Suite(name="s", version=1, description="", tasks=(task,))
    examples = [{"id": str(i), "input_sha256": SHA, "prediction": 0, "gold": 0, "outcome": {"c": c, "one": 1},
                 "cluster": f"pair-{i // 2}"}
                for i, c in enumerate([1, 1, 1, 0])]
    rec = record_from_log(task, suite, examples, log_sha256=SHA, model_id="m", revision="abc", corpus_sha256=SHA,
                          seed=0, limit=None, timestamp="2026-11-22T14:00:00+00:00")
    rec["metrics"]["acc_ori"] = metric
    rec.update(change)
    return rec


def test_a_record_from_a_log_validates_and_is_strict_json():
    rec = v2_record()
    assert rec["schema_version"] == "2.2" and rec["versions"]["robust_bench"]
    validate_record(rec, ranges={"acc_ori": (0.0, 1.0)})
    json.loads(json.dumps(rec, allow_nan=False))
    assert load_schema()["title"].startswith("robust-bench result record v2")
    with pytest.raises(RecordError, match="unknown version '1'"):        # v1 is gone: one format
        validate_record({**rec, "schema_version": "1"})


@pytest.mark.parametrize("mutate,field", [
    (lambda r: r.pop("seed"), "<record>"),
    (lambda r: r.update(corpus_sha256="xyz"), "corpus_sha256"),
    (lambda r: r["metrics"].update(acc_ori="high"), "metrics/acc_ori"),
    (lambda r: r.update(timestamp="yesterday"), "timestamp"),
    (lambda r: r.update(extra=1), "<record>"),
])
def test_invalid_records_name_the_field(mutate, field):
    rec = v2_record()
    mutate(rec)
    with pytest.raises(RecordError, match=f"field '{field}'"):
        validate_record(rec)


def test_every_metric_is_checked_against_its_declared_range():
    """A metric's range comes from the evaluation that declares it; a reader that knows the evaluation
    gives one for every metric, and a value outside it is refused, naming the metric."""
    with pytest.raises(RecordError, match="'metrics/acc_ori': no declared range"):
        validate_record(v2_record(), ranges={"uas": (0.0, 1.0)})
    with pytest.raises(RecordError, match=r"'metrics/acc_ori': 1.5 is outside \[0, 1\]"):
        validate_record(v2_record(1.5), ranges={"acc_ori": (0.0, 1.0)})
    validate_record(v2_record(1.5))                     # a reader without the evaluation checks the schema only
