"""The console script, run as a user runs it (subprocesses, real data)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from robust_bench.results.records import validate_record


def run(args, cwd, env=None, check=True):
    exe = Path(sys.executable).with_name("robust-bench")
    proc = subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"robust-bench {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_list(tmp_path):
    out = run(["list"], tmp_path).stdout
    assert "jabberwocky_ewt" in out and "UD English EWT r2.16" in out and "train, validation, test" in out


def test_main_job_build_then_baselines(tmp_path, sources, full):
    """The README's main job: build jabberwocky_ewt from local sources, then score the baselines (the
    whole corpus in the full tier, its first 300 sentences per split in the fast tier)."""
    env = {"ROBUST_BENCH_SOURCES": str(sources)}
    out = run(["build", "jabberwocky_ewt", *([] if full else ["--set", "limit=300"])], tmp_path, env).stdout
    assert "built jabberwocky_ewt" in out and (tmp_path / "robust-bench" / "data" / "jabberwocky_ewt" / "test.parquet").is_file()
    out = run(["baselines", "--config", "jabberwocky_ewt"], tmp_path, env).stdout
    assert "check passed: plain and Jabberwocky scores are identical" in out
    assert "UUAS excludes punctuation by: XPOS in" in out
    records = sorted((tmp_path / "results").glob("*.json"))
    assert len(records) == 4
    by = {}
    for p in records:
        rec = json.loads(p.read_text())
        validate_record(rec)
        by[(rec["model"]["id"], rec["variant"])] = rec["metrics"]
        assert rec["details"]["punctuation_rule"] == "xpos-ptb"      # EWT has PTB XPOS tags
    for name in ("baseline:path", "baseline:majority"):
        assert by[(name, "plain")] == by[(name, "jabberwocky")]
        assert 0.3 < by[(name, "plain")]["uuas"] < 0.7 and 0.3 < by[(name, "plain")]["dspr"] < 0.8
    assert by[("baseline:majority", "plain")]["uuas"] > by[("baseline:path", "plain")]["uuas"]


def test_errors_are_one_clear_line(tmp_path, sources):
    proc = run(["build", "no_such_config"], tmp_path, check=False)
    assert proc.returncode == 2 and proc.stderr.strip().startswith("error: unknown config 'no_such_config'")
    proc = run(["baselines", "--repo", str(tmp_path / "nowhere"), "--source", str(sources)], tmp_path, check=False)
    assert proc.returncode == 2 and "run `robust-bench build jabberwocky_ewt" in proc.stderr
    proc = run(["build", "jabberwocky_ewt", "--source", str(tmp_path)], tmp_path, check=False)
    assert proc.returncode == 2 and "lacks" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "robust-bench").exists()
