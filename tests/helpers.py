"""Helpers shared by the tests: the command line as a user runs it, and the smoke suite's runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.warm_cli import EXE, WarmCLI

#: the session's warm command line (tests/warm_cli.py), set by conftest's ``warm_cli`` fixture; None: every
#: call is a fresh process
WARM: WarmCLI | None = None
#: how this worker's calls ran: "warm", or "fresh: " and the variables that kept one from running warm
CALLS: Counter = Counter()


def run_cli(args, cwd=None, env: dict | None = None, *, code: str | None = None) -> subprocess.CompletedProcess:
    """``robust-bench *args`` (``code``: ``python -c code *args``) in ``cwd`` with the whole environment
    ``env`` (default ``os.environ``), as ``subprocess.run(..., capture_output=True, text=True)`` returns it:
    in the session's warm command line where that cannot differ from a fresh process
    (:meth:`WarmCLI.refused` names none), else a fresh process (always with ``ROBUST_BENCH_TEST_WARM=0``)."""
    env = dict(os.environ if env is None else env)
    if WARM is not None and os.environ.get("ROBUST_BENCH_TEST_WARM", "1") != "0":
        refused = WARM.refused(env)
        CALLS["fresh: " + ", ".join(refused) if refused else "warm"] += 1
        if not refused:
            return WARM.run(args, cwd or os.getcwd(), env, code=code)
    argv = [EXE] if code is None else [sys.executable, "-c", code]
    return subprocess.run([*argv, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env)


def run(args, cwd, env=None, check=True) -> subprocess.CompletedProcess:
    """``robust-bench *args`` in ``cwd`` with ``env`` added to ``os.environ`` (:func:`run_cli`); ``check``:
    raise AssertionError with both streams if it fails."""
    proc = run_cli(args, cwd, {**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"robust-bench {' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


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
