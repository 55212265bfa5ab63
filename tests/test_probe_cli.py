"""The whole `robust-bench probe` command on tiny local BERT and GPT-2 models and real EWT,
plain and Jabberwocky. No hub is used."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from robust_bench.evaluations.jabberwocky import probe_results
from robust_bench.suite.runner import run_folder
from tests.helpers import run_cli


def run(args, cwd, env):
    proc = run_cli(args, cwd, {**os.environ, **env})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def records(root):
    """The per-layer results the probe runs under ``root`` (OUTPUT_DIR/<model>: a run per probe) recorded in
    run.json, by (probe, representation, variant); each task's v2 record is there too."""
    out = {}
    for run in sorted(Path(root).iterdir()):
        manifest = json.loads((run / "run.json").read_text())
        for task, state in manifest["tasks"].items():
            rec = json.loads((run / "records" / f"{task}.json").read_text())
            assert rec["schema_version"].startswith("2") and rec["model"]["revision"].startswith("local-")
            for r in probe_results(manifest["model"], state["details"]):
                r["n_test_scored"] = state["details"]["n_test_scored"]
                out[(r["details"]["probe"], r["details"]["representation"], r["variant"])] = r
    return out


QUICK = ["--trials", "2", "--epochs", "2", "--max-sentences", "300"]


#: BERT in the full tier only: the fast tier probes BERT in test_train_and_test_on_jabberwocky and the killed
#: probe run (test_interruptions.py), and GPT-2 here (a causal encoder and static Fast+Pos vectors besides)
@pytest.mark.parametrize("name", [pytest.param("bert", marks=pytest.mark.full), "gpt2"])
def test_probe_command_end_to_end(name, tiny_models, built_repo, tmp_path):
    env = {"ROBUST_BENCH_CACHE": str(tmp_path / "cache")}
    args = ["probe", "--model", str(tiny_models[name]), "--repo", str(built_repo), "--layers", "0,1,2", *QUICK]
    extra = []
    if name == "gpt2":   # Fast+Pos with a static vector file the test writes itself
        rng = np.random.default_rng(0)
        vec = tmp_path / "vectors.txt"
        words = sorted({w for w in "the a of and to in is that it for on was with he be I you".split()})
        vec.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) + "\n" for w in words))
        extra = ["--static-vectors", str(vec)]
    out = run([*args, *extra, "--output-dir", str(tmp_path / "r1")], tmp_path, env)
    assert "structural probe on" in out and "perceptron probe on" in out and "lead of the selected layer" in out
    assert "over path" in out and "over majority" in out
    assert "alignment drops (sentences): train/plain:" in out and "test/jabberwocky" in out
    r1 = run_folder(tmp_path / "r1", str(tiny_models[name]))
    recs = records(r1)
    reps = ["layer 0", "layer 1", "layer 2"] + (["fast+pos"] if name == "gpt2" else [])
    assert set(recs) == {(p, r, v) for p in ("structural", "perceptron") for r in reps for v in ("plain", "jabberwocky")}
    for (probe, rep, variant), rec in recs.items():
        assert 0 <= rec["metrics"]["uuas"] <= 1
        assert ("dspr" in rec["metrics"]) == (probe == "structural")
        assert rec["n_test_scored"] <= 300
        assert rec["details"]["punctuation_rule"] == "xpos-ptb"
    assert sum(rec["details"]["selected_layer"] for rec in recs.values()) == 4
    for metric in ("uuas", "dspr"):
        for ext in ("png", "svg"):
            assert list(r1.glob(f"*/figures/jabberwocky_ewt__{metric}.{ext}"))
    assert list(r1.glob("*/tables/jabberwocky_ewt_perceptron__layers.txt"))
    from tests.helpers import submit_to_own_leaderboard      # v2 records, which a leaderboard of their suite stores

    for k, folder in enumerate(sorted(r1.iterdir())):
        assert submit_to_own_leaderboard(folder, tmp_path / f"store{k}", f"tests/{name}").records
    # several runs plot together
    fig = run(["probe-figure", *map(str, sorted(r1.iterdir())), "--out", str(tmp_path / "fig"),
               "--metric", "uuas"], tmp_path, env)
    assert (tmp_path / "fig.png").is_file() and (tmp_path / "fig.svg").is_file() and "figure:" in fig
    # same seed, same numbers; the second run reads every representation from the cache
    out2 = run([*args, *extra, "--output-dir", str(tmp_path / "r2")], tmp_path, env)
    assert "encoder forward passes: 0" in out2
    again = records(run_folder(tmp_path / "r2", str(tiny_models[name])))
    assert {k: r["metrics"] for k, r in again.items()} == {k: r["metrics"] for k, r in recs.items()}


def test_train_and_test_on_jabberwocky(tiny_models, built_repo, tmp_path):
    env = {"ROBUST_BENCH_CACHE": str(tmp_path / "cache")}
    out = run(["probe", "--model", str(tiny_models["bert"]), "--repo", str(built_repo), "--layers", "2",
               "--probe", "structural", "--train-on", "jabberwocky", *QUICK, "--output-dir", str(tmp_path / "r")],
              tmp_path, env)
    assert "trained on jabberwocky" in out
    recs = records(run_folder(tmp_path / "r", str(tiny_models["bert"])))
    assert {(p, r, v) for p, r, v in recs} == {("structural", "layer 0", "jabberwocky"), ("structural", "layer 2", "jabberwocky")}
    assert all(r["details"]["train_on"] == "jabberwocky" for r in recs.values())
