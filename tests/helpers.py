"""Helpers shared by the suite, gate and leaderboard tests."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli import run


def run_on_smoke(model, out: Path, smoke_repo, *extra, cwd=None, check=True):
    """``robust-bench run`` of ``model`` over the pinned smoke suite into ``out``."""
    repo, suites = smoke_repo
    return run(["run", "--model", model, "--suite", str(suites / "smoke.yaml"), "--repo", str(repo),
                "--output-dir", str(out), "--device", "cpu", *extra], cwd or out.parent, check=check)


def records_of(run_dir: Path) -> dict:
    """File name -> record of a run folder, without the timestamps."""
    out = {}
    for p in sorted((run_dir / "records").glob("*.json")):
        rec = json.loads(p.read_text())
        rec.pop("timestamp")
        out[p.name] = rec
    return out
