"""Kill -9 at a random point of an attack and of a probe run (after a random number of finished
units, drawn from a fixed seed), then resume (issue 15, item 5):
finished units (attacked examples, probe searches) are on disk as they finish, the resumed command
does not redo them, and its records equal an uninterrupted run's. The suite run's kill test is in
test_suite_run.py."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
from pathlib import Path

from tests.helpers import run_cli


def _run(args, env=None):
    proc = run_cli(args, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


#: runs the console command, with ``MODULE.CLASS.METHOD`` wrapped so that the process SIGKILLs itself
#: right after the K-th call: right after the K-th unit of work reached the disk
KILLER = """
import importlib, os, signal, sys
module, cls, method, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
owner = getattr(importlib.import_module(module), cls)
real, calls = getattr(owner, method), [0]
def wrapped(self, *args, **kwargs):
    out = real(self, *args, **kwargs)
    calls[0] += 1
    if calls[0] == k:
        os.kill(os.getpid(), signal.SIGKILL)
    return out
setattr(owner, method, wrapped)
sys.argv = ["robust-bench", *sys.argv[5:]]
from robust_bench.cli import main
main()
"""


def run_killed(args, unit: str, seed: int, most: int, env=None) -> int:
    """Run the command and kill it after a random number (1..``most``, drawn from ``seed``) of calls
    of ``unit`` ("module:Class.method"). Returns that number; fails if the command was not killed."""
    k = random.Random(seed).randint(1, most)
    module, rest = unit.split(":")
    cls, method = rest.split(".")
    proc = run_cli([module, cls, method, str(k), *args], env={**os.environ, **(env or {})}, code=KILLER)
    assert proc.returncode == -signal.SIGKILL, f"not killed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return k


def _strip(rec: dict) -> dict:
    rec = dict(rec)
    rec.pop("timestamp")
    return rec


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_killed_attack_resumes_to_the_uninterrupted_records(gec_repo, sst2_classifier, tmp_path):
    """`attack` is a run (issue 52): its journal of finished attacks lives in the run folder's .partial/, a
    resumed command reads it back and writes the record an uninterrupted command writes."""
    from robust_bench.suite.runner import run_folder

    model = sst2_classifier
    repo = tmp_path / "robust-bench"
    shutil.copytree(gec_repo, repo)
    common = ["attack", "--model", str(model), "--config", "gec_sst2", "--search", "beam", "--no-curve",
              "--repo", str(repo)]
    _run([*common, "--output-dir", str(tmp_path / "whole")])
    (whole_dir,) = run_folder(tmp_path / "whole", str(model)).iterdir()
    whole = json.loads((whole_dir / "records" / "gec_sst2.json").read_text())
    attacked = sum(json.loads(x)["outcome"]["attacked"] for x in (whole_dir / "logs" / "gec_sst2.jsonl").open())
    cut = tmp_path / "cut"
    k = run_killed([*common, "--output-dir", str(cut)], "robust_bench.attacks.search:AttackJournal.add", seed=15,
                   most=attacked - 1)
    (folder,) = run_folder(cut, str(model)).iterdir()
    assert not list((folder / "records").glob("*.json")), "killed before the record"
    journal = folder / ".partial" / "gec_sst2" / "attacks.jsonl"
    finished = _lines(journal) - 1          # the first line names the attack
    assert finished == k
    shutil.copytree(run_folder(cut, str(model)), run_folder(tmp_path / "cut2", str(model)))
    _run([*common, "--output-dir", str(cut), "--resume"])
    assert not journal.exists(), "the journal is removed once the record is written"
    resumed = json.loads((folder / "records" / "gec_sst2.json").read_text())
    assert _strip(resumed) == _strip(whole)
    # a journal of another attack is refused, never mixed in
    other = run_folder(tmp_path / "cut2", str(model)) / folder.name / ".partial" / "gec_sst2" / "attacks.jsonl"
    other.write_text(json.dumps({"robust_bench_attack_journal": 1, "budget": 0.3}) + "\n")
    proc = run_cli([*common, "--output-dir", str(tmp_path / "cut2"), "--resume"])
    assert proc.returncode == 2 and "is the journal of another attack" in proc.stderr, proc.stderr


def test_a_killed_probe_run_resumes_to_the_uninterrupted_records(tiny_models, built_repo, tmp_path, full):
    env = {"ROBUST_BENCH_CACHE": str(tmp_path / "cache")}
    # the fast tier probes the first 100 sentences of each split (the same kill points and units)
    common = ["probe", "--model", str(tiny_models["bert"]), "--repo", str(built_repo), "--layers", "0,1",
              "--trials", "3", "--epochs", "3", "--max-sentences", "250" if full else "100"]
    _run([*common, "--output-dir", str(tmp_path / "whole")], env)
    from robust_bench.suite.runner import run_folder

    cut = tmp_path / "cut"
    root = run_folder(cut, str(tiny_models["bert"]))      # a run per probe under it
    unit = "robust_bench.experiments.jabberwocky:_Checkpoint.put"
    k = run_killed([*common, "--output-dir", str(cut)], unit, seed=7, most=3, env=env)
    assert not list(root.rglob("records/*.json")), "killed before the records"
    kept = len([p for p in root.rglob(".partial/**/*.json") if p.name != "state.json"])
    assert kept == k
    out = _run([*common, "--output-dir", str(cut), "--resume"], env)
    assert f"resumed: {kept} finished searches" in out
    assert not list(root.rglob(".partial/**/*.json")), "checkpoints are removed once the records are written"

    def recs(d):
        return {p.parent.parent.name + "/" + p.name: _strip(json.loads(p.read_text()))
                for p in sorted(Path(d).rglob("records/*.json"))}

    assert recs(root) == recs(run_folder(tmp_path / "whole", str(tiny_models["bert"]))) and len(recs(root)) == 2
    # other settings under --resume are another (derived) suite: they run in their own folder, never mixed
    run_killed([*common, "--output-dir", str(tmp_path / "cut2")], unit, seed=8, most=3, env=env)
    killed = {p.parent.name for p in run_folder(tmp_path / "cut2", str(tiny_models["bert"])).iterdir()
              for p in [p / "run.json"]}
    _run([*common[:-2], "--max-sentences", "90", "--output-dir", str(tmp_path / "cut2"), "--resume"], env)
    after = {p.name for p in run_folder(tmp_path / "cut2", str(tiny_models["bert"])).iterdir()}
    assert killed < after and len(after - killed) == 2
