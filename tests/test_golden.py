"""Same inputs, same outputs, across refactors (issue 32): the smoke runs' records and logs and the
smoke configs' Parquet files equal the ones stored in ``tests/data/golden_smoke.json``.

The golden file holds digests only (no corpus text): per config and split the Parquet file's SHA-256;
per smoke run and task the SHA-256 of its record without ``timestamp``, ``versions`` and the model's id
(a tiny model's id is its temporary folder), its metrics,
and one digest per log line (keyed by example id). Log lines and records are compared as canonical
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


def _snapshot(smoke_repo, smoke_runs) -> dict:
    repo, _ = smoke_repo
    builds = {}
    for config in SMOKE:
        meta = json.loads((repo / "data" / config / "metadata.json").read_text("utf-8"))
        builds[config] = {split: f["sha256"] for split, f in sorted(meta["files"].items())}
    runs = {}
    for kind, (run_dir, _) in sorted(smoke_runs.items()):
        tasks = {}
        for path in sorted((run_dir / "records").glob("*.json")):
            rec = json.loads(path.read_text("utf-8"))
            for key in ("timestamp", "versions"):
                rec.pop(key)
            rec["model"].pop("id")
            lines = {}
            for line in (run_dir / "logs" / f"{path.stem}.jsonl").read_text("utf-8").splitlines():
                entry = json.loads(line)
                lines[entry["id"]] = _digest(entry)[:16]
            tasks[path.stem] = {"record": _digest(rec), "metrics": rec["metrics"], "lines": lines}
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
                continue
            if len(differ) > LINE_SHARE * len(want["lines"]):
                problems.append(f"{kind}/{task}: {len(differ)} of {len(want['lines'])} log lines differ")
            for m, v in want["metrics"].items():
                w = got["metrics"].get(m)
                if (v is None) != (w is None) or (v is not None and abs(v - w) > METRIC_DIFF):
                    problems.append(f"{kind}/{task}: {m} {w} != {v}")
    assert not problems, ("outputs differ from tests/data/golden_smoke.json "
                          f"({'exact' if exact else 'by tolerance: another CPU instruction set'}):\n"
                          + "\n".join(problems))
