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


def submit_to_own_leaderboard(run_dir: Path, store_dir: Path, model_id: str, revision: str | None = None):
    """Store a run folder in a fresh local leaderboard that accepts the suite it ran: a family command's derived
    suite (its ``suite.yaml``) or the shipped suite ``run.json`` names; the stored submission (a local model
    records no revision: give one). The records'
    format is the one the leaderboard takes (v2); whether a leaderboard ranks a derived suite is its own choice."""
    from robust_bench.benchmarks import load_suite
    from robust_bench.leaderboard.store import init_store, open_store, submit
    from robust_bench.results.runs import read_manifest

    own = run_dir / "suite.yaml"
    suite = load_suite(own if own.is_file() else read_manifest(run_dir)["suite"]["name"])
    store = init_store(store_dir, [suite])
    sub, _ = submit(run_dir, open_store(store), model_id=model_id, revision=revision, partial=True)
    return sub


def chromium_driver():
    """Headless Chromium through selenium (Debian's chromium and chromium-driver, which `make browser` installs):
    the browser tests of the leaderboard site and the docs site. A missing browser fails, never skips."""
    import shutil

    import pytest
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (os.path.exists(chromium) and os.path.exists(driver)):
        # never skip (as with ../shared): a missing browser is set-up to mend, in CI and locally alike
        pytest.fail("the browser test needs Debian's chromium and chromium-driver; `make browser` installs them")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(driver), options=opts)
