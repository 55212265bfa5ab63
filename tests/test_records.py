import json

import pytest

from robust_bench.results import RecordError, load_schema, make_record, validate_record, write_record

SHA = "a" * 64
RANGES = {"uuas": (0.0, 1.0), "dspr": (-1.0, 1.0)}


def test_make_validate_and_write(tmp_path):
    rec = make_record(model_id="baseline:path", revision=None, config="jabberwocky_ewt", split="test",
                      corpus_sha256=SHA, metrics={"uuas": 0.5, "dspr": 0.6}, ranges=RANGES, seed=0, variant="plain",
                      details={"n": 3})
    assert rec["schema_version"] == "1" and rec["versions"]["robust_bench"]
    path = write_record(rec, tmp_path)
    assert path.name == "baseline_path__jabberwocky_ewt__test__plain.json"
    assert json.loads(path.read_text()) == rec
    assert load_schema()["title"].startswith("robust-bench result record v1")


@pytest.mark.parametrize("mutate,field", [
    (lambda r: r.pop("seed"), "<record>"),
    (lambda r: r.update(corpus_sha256="xyz"), "corpus_sha256"),
    (lambda r: r["metrics"].update(uuas="high"), "metrics/uuas"),
    (lambda r: r.update(metrics={}), "metrics"),
    (lambda r: r.update(timestamp="yesterday"), "timestamp"),
    (lambda r: r.update(extra=1), "<record>"),
])
def test_invalid_records_name_the_field(mutate, field):
    rec = make_record(model_id="m", revision="abc", config="c", split="s", corpus_sha256=SHA,
                      metrics={"uuas": 1.0}, ranges=RANGES, seed=1)
    mutate(rec)
    with pytest.raises(RecordError, match=f"field '{field}'"):
        validate_record(rec)


def test_every_metric_is_checked_against_its_declared_range():
    """A metric's range comes from the evaluation that declares it; a writer must give one for every
    metric, and a value outside it is refused, naming the metric."""
    with pytest.raises(RecordError, match="'metrics/uas': no declared range"):
        make_record(model_id="m", revision="abc", config="c", split="s", corpus_sha256=SHA, metrics={"uas": 0.5},
                    ranges=RANGES, seed=1)
    with pytest.raises(RecordError, match=r"'metrics/dspr': -1.5 is outside \[-1, 1\]"):
        make_record(model_id="m", revision="abc", config="c", split="s", corpus_sha256=SHA, metrics={"dspr": -1.5},
                    ranges=RANGES, seed=1)
    ok = make_record(model_id="m", revision="abc", config="c", split="s", corpus_sha256=SHA, metrics={"dspr": -0.5},
                     ranges=RANGES, seed=1)
    validate_record(ok)                     # a reader without the evaluation checks the schema only
