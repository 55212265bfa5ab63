"""The console script, run as a user runs it (subprocesses, real data)."""

import json
import os
import subprocess
import sys

import pytest

from tests import helpers
from tests.helpers import run
from tests.warm_cli import EXE


def test_list(tmp_path):
    out = run(["list"], tmp_path).stdout
    assert "jabberwocky_ewt" in out and "UD English EWT r2.16" in out and "train, validation, test" in out


def test_main_job_build_then_baselines(tmp_path, sources, full):
    """The README's main job: build jabberwocky_ewt from local sources, then score the baselines (the
    whole corpus in the full tier, its first 300 sentences per split in the fast tier): one run folder per
    baseline (model baseline:path, baseline:majority) whose v2 record carries the probe's metrics, read by
    robust_bench.results.runs, and which check compares."""
    from robust_bench.results.runs import read_log, read_manifest

    env = {"ROBUST_BENCH_SOURCES": str(sources)}
    out = run(["build", "jabberwocky_ewt", *([] if full else ["--set", "limit=300"])], tmp_path, env).stdout
    assert "built jabberwocky_ewt" in out and (tmp_path / "robust-bench" / "data" / "jabberwocky_ewt" / "test.parquet").is_file()
    out = run(["baselines", "--config", "jabberwocky_ewt"], tmp_path, env).stdout
    assert "check passed: plain and Jabberwocky scores are identical" in out
    assert "UUAS excludes punctuation by: XPOS in" in out
    runs = {}
    for name in ("path", "majority"):
        (folder,) = (tmp_path / "results" / f"baseline_{name}").iterdir()
        manifest = read_manifest(folder)
        assert manifest["model"] == f"baseline:{name}" and (folder / "suite.yaml").is_file()
        (task,) = manifest["tasks"]
        state = manifest["tasks"][task]
        assert state["status"] == "done" and state["details"]["punctuation_rule"] == "xpos-ptb"  # EWT has PTB XPOS
        rec = json.loads((folder / "records" / f"{task}.json").read_text())
        assert rec["schema_version"].startswith("2") and rec["evaluation"] == "baseline"
        assert rec["model"]["id"] == f"baseline:{name}" and rec["config"] == "jabberwocky_ewt"
        assert len(read_log(folder / "logs" / f"{task}.jsonl")) == state["n_examples"]
        assert full or state["n_examples"] == 300
        assert (folder / "tables" / f"{task}__baselines.txt").is_file()
        runs[name] = (folder, rec["metrics"])
    for name, (_, m) in runs.items():
        assert set(m) == {"uuas_plain", "uuas_jabberwocky", "dspr_plain", "dspr_jabberwocky"}
        assert (m["uuas_plain"], m["dspr_plain"]) == (m["uuas_jabberwocky"], m["dspr_jabberwocky"])
        assert 0.3 < m["uuas_plain"] < 0.7 and 0.3 < m["dspr_plain"] < 0.8
    assert runs["majority"][1]["uuas_plain"] > runs["path"][1]["uuas_plain"]
    for folder, _ in runs.values():          # check reads each folder (its derived suite.yaml) and passes it
        run(["check", "--baseline", str(folder), "--candidate", str(folder)], tmp_path, env)


def test_errors_are_one_clear_line(tmp_path, sources):
    proc = run(["build", "no_such_config"], tmp_path, check=False)
    assert proc.returncode == 2 and proc.stderr.strip().startswith("error: unknown config 'no_such_config'")
    proc = run(["baselines", "--repo", str(tmp_path / "nowhere"), "--source", str(sources)], tmp_path, check=False)
    assert proc.returncode == 2 and "run `robust-bench build jabberwocky_ewt" in proc.stderr
    proc = run(["build", "jabberwocky_ewt", "--source", str(tmp_path)], tmp_path, check=False)
    assert proc.returncode == 2 and "lacks" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "robust-bench").exists()


#: the same call both ways: commands that print, fail in one line, and write a file (fit-confusions on a
#: tiny M2 file), and ``python -c`` code (what the kill tests run)
WARM_CALLS = [(["list"], None), (["--help"], None), (["build", "no_such_config"], None),
              (["build", "jabberwocky_ewt", "--source", "{tmp}"], None),
              (["fit-confusions", "{tmp}/tiny.m2", "-o", "{tmp}/confusions.json"], None),
              (["a", "{tmp}"], "import os, sys; print(sys.argv, os.getcwd() == sys.argv[2]); sys.exit(3)")]


@pytest.mark.parametrize("args,code", WARM_CALLS)
def test_a_warm_call_is_what_a_fresh_process_gives(tmp_path, args, code):
    """The suite's warm command line (tests/warm_cli.py: a child forked from a server that imported the
    command line's modules) gives the same status, streams and files as a fresh process."""
    from tests.test_m2 import M2

    assert helpers.WARM is not None and helpers.WARM.refused(dict(os.environ)) == []
    got = {}
    for way in ("fresh", "warm"):
        (tmp_path / way).mkdir()
        (tmp_path / way / "tiny.m2").write_text(M2, encoding="utf-8")
        call = [a.replace("{tmp}", str(tmp_path / way)) for a in args]
        if way == "fresh":
            argv = [EXE] if code is None else [sys.executable, "-c", code]
            proc = subprocess.run([*argv, *call], cwd=tmp_path / way, capture_output=True, text=True)
        else:
            proc = helpers.WARM.run(call, tmp_path / way, dict(os.environ), code=code)
        files = {p.name: p.read_bytes() for p in sorted((tmp_path / way).iterdir()) if p.is_file()}
        streams = [text.replace(str(tmp_path / way), "{tmp}") for text in (proc.stdout, proc.stderr)]
        got[way] = (proc.returncode, *streams, files)
    assert got["warm"] == got["fresh"]
    assert got["warm"][0] == (3 if code else 2 if "build" in args else 0)
