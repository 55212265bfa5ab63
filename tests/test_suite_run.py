"""`robust-bench run`, `merge` and `check` over the smoke suite, on data built from ../shared with
tiny models the tests build (and the real spaCy pipeline as parser and NER)."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from tests.helpers import records_of as _records, run_on_smoke as _run
from tests.test_cli import run

pytestmark = pytest.mark.shared


def test_run_smoke_with_tiny_models(smoke_runs):
    """Every smoke task runs or is skipped with its reason; records validate against v2; logs
    hash to the records; a report is written."""
    import hashlib

    from robust_bench.results.records import validate_record

    done = set()
    for kind, (run_dir, stdout) in smoke_runs.items():
        manifest = json.loads((run_dir / "run.json").read_text())
        assert set(manifest["tasks"]) == {"gec_mnli", "gec_mrpc", "gec_conll2003", "names_mrpc", "names_conll2003",
                                          "adv_ewt", "lit_mnli", "jabberwocky_ewt"}, stdout
        for name, state in manifest["tasks"].items():
            assert state["status"] in ("done", "skipped"), (kind, name, state)
            if state["status"] == "skipped":
                assert state["reason"] and f"{name}: skipped, " in stdout
            else:
                done.add(name)
                rec = json.loads((run_dir / "records" / f"{name}.json").read_text())
                validate_record(rec)
                assert hashlib.sha256((run_dir / "logs" / f"{name}.jsonl").read_bytes()).hexdigest() == rec["log_sha256"]
                assert rec["data_pinned"] and rec["suite"] == {"name": "smoke", "version": 5}
                for m, v in rec["metrics"].items():
                    lo, hi = rec["intervals"][m]
                    if v is not None and lo is not None:
                        assert lo - 1e-9 <= v <= hi + 1e-9, (name, m, v, lo, hi)
                    if rec["counts"][m] >= 1:   # every metric over one example or more has a finite interval
                        assert v is not None and lo is not None and hi is not None, (kind, name, m, rec["counts"][m])
                        assert rec["interval_methods"][m] in ("bootstrap-percentile", "cluster-bootstrap-percentile",
                                                              "wilson", "wilson-clustered", "range")
                # record 2.2: the clusters the log lines name, and a design effect for every metric
                lines = [json.loads(x) for x in (run_dir / "logs" / f"{name}.jsonl").read_text().splitlines()]
                assert rec["schema_version"] == "2.2" and all(isinstance(e["cluster"], str) for e in lines)
                assert rec["n_clusters"] == len({e["cluster"] for e in lines}) <= rec["n_examples"]
                assert set(rec["design_effect"]) == set(rec["metrics"])
                if name == "lit_mnli":      # contrast rows of one source pair share a cluster
                    assert rec["n_clusters"] < rec["n_examples"]
                    assert rec["interval_methods"]["contrast_consistency"] == "cluster-bootstrap-percentile"
        assert (run_dir / "report.html").is_file() and (run_dir / "report.md").is_file()
    # gec_mrpc and names_mrpc need an MRPC classifier, which no tiny model here is
    assert done == {"gec_mnli", "gec_conll2003", "names_conll2003", "adv_ewt", "lit_mnli", "jabberwocky_ewt"}
    mnli = (smoke_runs["nli"][0] / "run.json").read_text()
    assert "labels do not fit" in mnli and "gec_mrpc" in mnli


def test_interrupted_run_resumes_to_the_same_records(smoke_repo, smoke_runs, models, tmp_path):
    """Killed at a random point inside a task (after its first attacked examples reached the task's
    journal), the run leaves no half-written file; --resume keeps the finished tasks and attacks and
    ends with the records of an uninterrupted run."""
    from tests.test_interruptions import run_killed

    repo, suites = smoke_repo
    args = ["--tasks", "lit_mnli,gec_mnli"]
    out = tmp_path / "cut"
    run_dir = out / "clf"
    run_killed(["run", "--model", models["nli"], "--suite", str(suites / "smoke.yaml"), "--repo", str(repo),
                "--output-dir", str(out), "--device", "cpu", *args],
               "robust_bench.attacks.search:AttackJournal.add", seed=15, most=3)
    assert not (run_dir / "records" / "gec_mnli.json").exists(), "killed inside gec_mnli"
    assert not (run_dir / "records" / "lit_mnli.json").exists(), "the kill came too late to test resumption"
    for f in run_dir.rglob("*.json"):
        json.loads(f.read_text())  # a kill leaves at most a hidden temporary, never a half-written file
    refused = _run(models["nli"], out, smoke_repo, *args, check=False)
    assert refused.returncode == 2 and "--resume" in refused.stderr
    resumed = _run(models["nli"], out, smoke_repo, *args, "--resume")
    assert not list(run_dir.rglob(".*.tmp")) and not list((run_dir / ".partial").rglob("*.jsonl"))
    assert _records(run_dir) == _smoke_records(smoke_runs, "lit_mnli", "gec_mnli")


def _smoke_records(smoke_runs, *tasks) -> dict:
    """The records of the session's uninterrupted, unsharded smoke run of the tiny NLI classifier
    for ``tasks``: what an interrupted, sharded or distributed run must give."""
    whole = _records(smoke_runs["nli"][0])
    return {f"{t}.json": whole[f"{t}.json"] for t in tasks if f"{t}.json" in whole}   # adv_ewt: skipped


def test_sharded_runs_merge_to_the_unsharded_records(smoke_repo, smoke_runs, models, tmp_path):
    args = ["--tasks", "lit_mnli,gec_mnli,adv_ewt"]
    for i in (1, 2):
        _run(models["nli"], tmp_path / "parts", smoke_repo, *args, "--shard", f"{i}/2")
    parts = sorted((tmp_path / "parts").iterdir())
    assert [p.name for p in parts] == ["clf.shard-1-of-2", "clf.shard-2-of-2"]
    n = [json.loads((p / "run.json").read_text())["tasks"]["lit_mnli"]["n_examples"] for p in parts]
    whole = json.loads((smoke_runs["nli"][0] / "run.json").read_text())["tasks"]["lit_mnli"]["n_examples"]
    assert all(n) and sum(n) == whole
    repo, suites = smoke_repo
    run(["merge", *map(str, parts), "--out", str(tmp_path / "merged"), "--suite", str(suites / "smoke.yaml")], tmp_path)
    assert _records(tmp_path / "merged") == _smoke_records(smoke_runs, "lit_mnli", "gec_mnli", "adv_ewt")
    bad = run(["merge", str(parts[0]), "--out", str(tmp_path / "m2"), "--suite", str(suites / "smoke.yaml")], tmp_path,
              check=False)
    assert bad.returncode == 2 and "need shards 1..2" in bad.stderr


def test_ray_executor_gives_the_unsharded_records(smoke_repo, smoke_runs, models, tmp_path):
    """Two shards as Ray tasks on a local Ray instance (2 CPUs), merged by the driver."""
    from robust_bench.suite.distributed import run_on_ray

    repo, suites = smoke_repo
    # the shards of an attack are checked by the test above; here Ray runs the shards of the contrast set
    kw = dict(tasks=["lit_mnli"], device="cpu")
    run_on_ray(models["nli"], str(suites / "smoke.yaml"), repo=repo, out=tmp_path / "ray", n_shards=2, num_cpus=2,
               echo=lambda m: None, **kw)
    assert _records(tmp_path / "ray") == _smoke_records(smoke_runs, "lit_mnli")
    assert sorted(p.name for p in (tmp_path / "ray.shards").iterdir()) == ["1-of-2", "2-of-2"]


def test_gate(smoke_repo, models, tmp_path):
    """Two runs of one model pass; a model that moves a third of its predictions fails naming the
    tasks; runs on different data are unusable (exit 2)."""
    repo, suites = smoke_repo
    cwd = models["dir"]
    args = ["--tasks", "lit_mnli"]
    for name, model, batch in (("a", models["good"], "64"), ("b", models["good"], "7"), ("bad", models["bad"], "64")):
        _run(model, tmp_path / name, smoke_repo, *args, "--batch-size", batch, cwd=cwd)
    a, b, bad = (tmp_path / n / "wrapped_py" for n in ("a", "b", "bad"))
    suite = ["--suite", str(suites / "smoke.yaml")]
    same = run(["check", "--baseline", str(a), "--candidate", str(b), *suite], tmp_path)
    assert "pass" in same.stdout
    # clustered: the contrast rows of one source pair are tested together, and the detectable drop is said
    assert "clusters" in same.stdout and "minimum detectable effect" in same.stdout, same.stdout
    assert "minimum detectable effect" in (b / "check.md").read_text()
    worse = run(["check", "--baseline", str(a), "--candidate", str(bad), *suite], tmp_path, check=False)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "regression in" in worse.stderr and "lit_mnli" in worse.stderr
    junit = (bad / "check.junit.xml").read_text()
    assert "<failure" in junit and 'name="lit_mnli"' in junit
    assert "**regression**" in (bad / "check.md").read_text()
    rec = bad / "records" / "lit_mnli.json"
    doc = json.loads(rec.read_text())
    doc["corpus_sha256"] = "0" * 64
    rec.write_text(json.dumps(doc))
    mismatch = run(["check", "--baseline", str(a), "--candidate", str(bad), *suite], tmp_path, check=False)
    # the record no longer matches its run.json: refused as submit refuses it, naming the field
    assert mismatch.returncode == 2 and "field 'corpus_sha256'" in mismatch.stderr
    (bad / "logs" / "lit_mnli.jsonl").write_text("")
    doc["corpus_sha256"] = json.loads((a / "records" / "lit_mnli.json").read_text())["corpus_sha256"]
    rec.write_text(json.dumps(doc))
    tampered = run(["check", "--baseline", str(a), "--candidate", str(bad), *suite], tmp_path, check=False)
    assert tampered.returncode == 2 and "log_sha256" in tampered.stderr


def test_data_hash_mismatch_fails_the_task(smoke_repo, models, tmp_path):
    repo, suites = smoke_repo
    text = (suites / "default.yaml").read_text()
    import re

    pinned = re.sub(r"data_sha256: [0-9a-f]{64}", "data_sha256: " + "ab" * 32, text)
    (tmp_path / "default.yaml").write_text(pinned)
    shutil.copy(suites / "smoke.yaml", tmp_path / "smoke.yaml")
    proc = run(["run", "--model", models["nli"], "--suite", str(tmp_path / "smoke.yaml"), "--repo", str(repo),
                "--output-dir", str(tmp_path / "out"), "--tasks", "lit_mnli", "--limit", "5"], tmp_path, check=False)
    assert proc.returncode == 1 and "data hash mismatch for lit_mnli/validation_matched" in proc.stdout


def test_a_suite_that_declares_its_setup_refuses_other_pipelines_and_unchecked_runs(smoke_repo, models, sources,
                                                                                    tmp_path):
    """Issue 50: a suite names the artifacts an attack's candidates depend on (pipeline, second tagger,
    encoder) by content hash; `run` stops before any work, in one line naming the role, when the
    environment gives another; `--setup any` runs anyway and says so; `submit` and `check` refuse that run."""
    from robust_bench.benchmarks import load_suite
    from robust_bench.leaderboard.store import init_store, open_store, submit
    from robust_bench.leaderboard.submission import SubmissionError
    from robust_bench.perturb.setup import artifact_sha256

    repo, suites = smoke_repo
    shared = sources.parent / "models"
    have = {"spacy_pipeline": ("spacy", shared / "spacy" / "en_rb_sm"),
            "second_tagger": ("spacy", shared / "spacy" / "en_core_web_sm"),
            "meaning_encoder": ("encoder", shared / "all-MiniLM-L6-v2")}
    folder = tmp_path / "suites"
    folder.mkdir()
    for name in ("default.yaml", "smoke.yaml"):
        shutil.copy(suites / name, folder / name)
    doc = {"name": "declared", "version": 1, "description": "gec_mnli with its set-up declared", "extends": "smoke",
           "select": ["gec_mnli"], "overrides": {"gec_mnli": {"setup": sorted(have)}},
           "setup": {role: {"name": path.name, "version": None, "sha256": artifact_sha256(kind, str(path)),
                            "get": f"the copy in ../shared/models ({path.name})"} for role, (kind, path) in have.items()}}
    (folder / "declared.yaml").write_text(yaml.safe_dump(doc))
    suite = load_suite(folder / "declared.yaml")
    # the task's roles are checked; the suite also inherits default's declarations (Link Grammar among them)
    inherited = set(load_suite(folder / "default.yaml").setup)
    assert suite.task("gec_mnli").setup == tuple(sorted(have)) and set(suite.setup) == set(have) | inherited
    args = ["run", "--model", models["nli"], "--suite", str(folder / "declared.yaml"), "--repo", str(repo),
            "--limit", "2"]
    run([*args, "--output-dir", str(tmp_path / "ok")], tmp_path)
    ok = next((tmp_path / "ok").iterdir())
    recorded = json.loads((ok / "run.json").read_text())["setup"]
    assert {r: v["sha256"] for r, v in recorded.items()} == {r: a["sha256"] for r, a in doc["setup"].items()}
    # another second tagger: refused before any work, in one line that names the role and how to get it
    env = {"ROBUST_BENCH_ERRANT_MODEL": str(have["spacy_pipeline"][1])}
    other = run([*args, "--output-dir", str(tmp_path / "other")], tmp_path, check=False, env=env)
    assert other.returncode == 2 and len(other.stderr.strip().splitlines()) == 1, other.stderr
    assert "second_tagger (the second, independent tagger) is " in other.stderr and "not the suite's" in other.stderr
    assert "--setup any" in other.stderr and not (tmp_path / "other").exists()
    run([*args, "--output-dir", str(tmp_path / "any"), "--setup", "any"], tmp_path, env=env)
    anyway = next((tmp_path / "any").iterdir())
    assert json.loads((anyway / "run.json").read_text())["setup"] == "any"
    store = init_store(tmp_path / "store", [suite])
    with pytest.raises(SubmissionError, match=r"field 'setup': the run was made with --setup any"):
        submit(anyway, open_store(store), model_id="tiny/nli", partial=True)
    gate = run(["check", "--baseline", str(ok), "--candidate", str(anyway), "--suite", str(folder / "declared.yaml")],
               tmp_path, check=False)
    assert gate.returncode == 2 and "field 'setup'" in gate.stderr
