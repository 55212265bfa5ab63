"""Same inputs, same outputs, across refactors (issue 32): the smoke runs' records and logs and the
smoke configs' Parquet files equal the ones stored in ``tests/data/golden_smoke.json``.

The golden file holds digests only (no corpus text): per config and split the Parquet file's SHA-256;
per smoke run and task the SHA-256 of its record without ``timestamp``, ``versions`` and the model's id
(a tiny model's id is its temporary folder), its metrics,
and one digest per log line (keyed by example id). Since record 2.2 (issue 54) the record and the lines are
digested as they were before it (the lines without ``cluster``, the record as the 2.1 record of those lines),
and the new content apart: a digest of every line's cluster, ``n_clusters``, ``design_effect`` and the 2.2
record (``record_2_2``). Log lines and records are compared as canonical
JSON with floats rounded to 9 significant digits, so that a change of the last bit of a DSpr sum is
not a change of behaviour, while a changed count, label, id or field is.

On a machine whose CPU gives PyTorch another instruction set (``torch.backends.cpu.get_cpu_capability``)
than the machine that wrote the file, the trained tiny models and the builds' model-based checks may
round differently, so there the comparison is by tolerance instead: builds are not compared, at most
2% of a log's lines may differ and every metric must be within 0.02. Rewrite the file, after checking
that a change of output is meant, with ``ROBUST_BENCH_WRITE_GOLDEN=1 pytest tests/test_golden.py``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os

import pytest

from tests.conftest import ROOT, SMOKE

pytestmark = pytest.mark.shared

GOLDEN = ROOT / "tests" / "data" / "golden_smoke.json"
#: when the instruction set differs from the golden file's: share of log lines and metric difference allowed
LINE_SHARE, METRIC_DIFF = 0.02, 0.02


def _round(obj):
    if isinstance(obj, float):
        return float(f"{obj:.9g}") if math.isfinite(obj) else obj
    if isinstance(obj, dict):
        return {k: _round(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_round(v) for v in obj]
    return obj


def _digest(obj) -> str:
    text = json.dumps(_round(obj), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _cpu() -> str:
    import torch

    return torch.backends.cpu.get_cpu_capability()


def _as_written_before_clusters(rec: dict, entries: list[dict], suite) -> dict:
    """The 2.1 record of a log with its ``cluster`` fields removed, as ``run`` wrote it before clusters were
    declared (its log hashed without them): what the golden file's ``record`` digests, so that the content that
    existed before record 2.2 is compared unchanged."""
    from robust_bench.results.runs import dumps, record_from_log

    stripped = [{k: v for k, v in e.items() if k != "cluster"} for e in entries]
    text = "".join(dumps(e) + "\n" for e in sorted(stripped, key=lambda e: e["id"]))     # as write_log writes it
    old = record_from_log(suite.task(rec["task"]), suite, sorted(stripped, key=lambda e: e["id"]),
                          log_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), model_id=rec["model"]["id"],
                          revision=rec["model"]["revision"], corpus_sha256=rec["corpus_sha256"], seed=rec["seed"],
                          limit=rec["details"]["limit"], versions=rec["versions"], timestamp=rec["timestamp"],
                          schema_version="2.1")
    old["details"] = rec["details"]
    return old


def _snapshot(smoke_repo, smoke_runs) -> dict:
    from robust_bench.benchmarks import load_suite

    repo, suites = smoke_repo
    suite = load_suite(suites / "smoke.yaml")
    builds = {}
    for config in SMOKE:
        meta = json.loads((repo / "data" / config / "metadata.json").read_text("utf-8"))
        builds[config] = {split: f["sha256"] for split, f in sorted(meta["files"].items())}
    runs = {}
    for kind, (run_dir, _) in sorted(smoke_runs.items()):
        tasks = {}
        for path in sorted((run_dir / "records").glob("*.json")):
            rec = json.loads(path.read_text("utf-8"))
            entries = [json.loads(line) for line in (run_dir / "logs" / f"{path.stem}.jsonl").read_text("utf-8")
                       .splitlines()]
            before = _as_written_before_clusters(rec, entries, suite)
            for r in (rec, before):
                for key in ("timestamp", "versions"):
                    r.pop(key)
                r["model"].pop("id")
            # issue 54 added each line's cluster and the record's n_clusters and design_effect (record 2.2): the
            # lines and the record are digested as they were before (without them), and the new fields apart
            lines = {e["id"]: _digest({k: v for k, v in e.items() if k != "cluster"})[:16] for e in entries}
            tasks[path.stem] = {"record": _digest(before), "metrics": rec["metrics"], "lines": lines,
                                "record_2_2": _digest(rec), "clusters": _digest({e["id"]: e.get("cluster") for e in entries}),
                                "n_clusters": rec.get("n_clusters"), "design_effect": rec.get("design_effect")}
        runs[kind] = tasks
    return {"cpu_capability": _cpu(), "builds": builds, "runs": runs}


def test_smoke_runs_and_builds_equal_the_golden_file(smoke_repo, smoke_runs):
    now = _snapshot(smoke_repo, smoke_runs)
    if os.environ.get("ROBUST_BENCH_WRITE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", "utf-8")
    gold = json.loads(GOLDEN.read_text("utf-8"))
    assert sorted(now["runs"]) == sorted(gold["runs"])
    exact = now["cpu_capability"] == gold["cpu_capability"]
    problems = []
    if exact:
        for config, files in gold["builds"].items():
            if now["builds"].get(config) != files:
                problems.append(f"build {config}: {now['builds'].get(config)} != {files}")
    for kind, tasks in gold["runs"].items():
        if sorted(now["runs"][kind]) != sorted(tasks):
            problems.append(f"{kind}: tasks {sorted(now['runs'][kind])} != {sorted(tasks)}")
            continue
        for task, want in tasks.items():
            got = now["runs"][kind][task]
            if sorted(got["lines"]) != sorted(want["lines"]):
                problems.append(f"{kind}/{task}: other example ids")
                continue
            differ = [i for i in want["lines"] if got["lines"][i] != want["lines"][i]]
            if exact:
                if differ:
                    problems.append(f"{kind}/{task}: {len(differ)} of {len(want['lines'])} log lines "
                                    f"differ, first {differ[0]}")
                elif got["record"] != want["record"]:
                    problems.append(f"{kind}/{task}: the record differs (its log does not)")
                for key in ("clusters", "n_clusters", "record_2_2"):      # absent from a file written before 2.2
                    if key in want and got[key] != want[key]:
                        problems.append(f"{kind}/{task}: {key} differs")
                continue
            if "n_clusters" in want and (got["clusters"], got["n_clusters"]) != (want["clusters"], want["n_clusters"]):
                problems.append(f"{kind}/{task}: other clusters")
            if len(differ) > LINE_SHARE * len(want["lines"]):
                problems.append(f"{kind}/{task}: {len(differ)} of {len(want['lines'])} log lines differ")
            for m, v in want["metrics"].items():
                w = got["metrics"].get(m)
                if (v is None) != (w is None) or (v is not None and abs(v - w) > METRIC_DIFF):
                    problems.append(f"{kind}/{task}: {m} {w} != {v}")
    assert not problems, ("outputs differ from tests/data/golden_smoke.json "
                          f"({'exact' if exact else 'by tolerance: another CPU instruction set'}):\n"
                          + "\n".join(problems))
