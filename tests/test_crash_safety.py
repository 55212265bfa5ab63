"""Crash safety of the dataset repository: `kill -9` anywhere in a write, the commit included, leaves
the previous (or the new, complete) config after the next command, with no staging folder left; and
two writers never write one repository at once."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from robust_bench.data.repository import RepositoryBusyError, read_metadata, repository_lock
from robust_bench.io.sources import sha256_file
from tests.helpers import run_cli

#: writes config "toy" with version V (rows carry V) into the repository, N times in a loop;
#: KILL_AT_RENAME=k sends SIGKILL to itself at its k-th os.rename (inside the commit)
WRITER = textwrap.dedent('''
    import os, signal, sys
    import datasets
    from robust_bench.data import repository

    repo, versions, kill_at = sys.argv[1], [int(v) for v in sys.argv[2].split(",")], int(sys.argv[3])
    calls = {"n": 0}
    real_rename = os.rename
    def rename(a, b):
        calls["n"] += 1
        if calls["n"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real_rename(a, b)
    os.rename = rename
    feats = datasets.Features({"id": datasets.Value("string"), "version": datasets.Value("int32")})
    print("ready", flush=True)
    for v in versions:
        rows = [{"id": f"r{i:03d}", "version": v} for i in range(20 + v)]
        ds = datasets.DatasetDict({"test": datasets.Dataset.from_list(rows, features=feats)})
        repository.write_derived_config(repo, "toy", ds, family="toy", description=f"version {v}", citation="",
                                        license="CC0", source={"name": "toy", "version": str(v), "license": "CC0",
                                                               "url": "https://example.org"},
                                        seed=0, statistics={"test": {"examples": len(rows)}}, provenance={})
''')


def _write(repo: Path, versions, kill_at: int = 0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(repo), ",".join(map(str, versions)), str(kill_at)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _check_intact(repo: Path, allowed_versions) -> int:
    """The next command (a reader) recovers; then the repository must be whole."""
    metas = read_metadata(repo)
    assert set(metas) == {"toy", "keep"}, sorted(metas)
    card = (repo / "README.md").read_text(encoding="utf-8")
    for name, meta in metas.items():
        assert f"config_name: {name}" in card
        for f in meta["files"].values():
            assert sha256_file(repo / f["path"]) == f["sha256"] and f["sha256"] in card
    import pyarrow.parquet as pq

    table = pq.read_table(repo / "data" / "toy" / "test.parquet")
    versions = set(table.column("version").to_pylist())
    assert len(versions) == 1 and table.num_rows == 20 + next(iter(versions))
    version = next(iter(versions))
    assert version in allowed_versions and metas["toy"]["description"] == f"version {version}"
    leftovers = [p.name for p in repo.parent.iterdir() if p.name.startswith(f".{repo.name}") and not p.name.endswith(".lock")]
    leftovers += [p.name for p in repo.iterdir() if p.name.startswith(".")]
    assert not leftovers, leftovers
    return version


@pytest.fixture
def repo(tmp_path) -> Path:
    repo = tmp_path / "robust-bench"
    for versions, name in (([1], "toy"),):
        proc = _write(repo, versions)
        assert proc.wait() == 0, proc.stderr.read()
    # a second config that no write touches must survive every crash too
    proc = subprocess.run([sys.executable, "-c", WRITER.replace('"toy", ds', '"keep", ds'), str(repo), "5", "0"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return repo


def test_kill_at_every_rename_of_the_commit(repo):
    # renames per write: journal (os.replace is not os.rename), old config aside, staged in = 2
    seen = set()
    for kill_at in (1, 2, 3):
        proc = _write(repo, [2 + kill_at], kill_at=kill_at)
        rc = proc.wait()
        assert rc in (-signal.SIGKILL, 0), proc.stderr.read()
        seen.add(_check_intact(repo, {1, 3, 4, 5}))
    assert seen - {1}, "no kill landed after the journal: the roll-forward path was not exercised"


def test_kill_at_random_points_many_times(repo, full):
    """20 kills at random times (the full tier); 6 of them, the first of the same seeded draw, in the
    fast tier."""
    rng = random.Random(0)
    allowed = {1}
    versions_seen = set()
    killed = 0
    trials = 20 if full else 6
    for trial in range(trials):
        versions = [10 + 2 * trial, 11 + 2 * trial] * 400   # more writes than fit in 0.8 s, so the kill lands mid-run
        allowed |= set(versions)
        proc = _write(repo, versions)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.8))
        proc.send_signal(signal.SIGKILL)
        killed += proc.wait() == -signal.SIGKILL
        versions_seen.add(_check_intact(repo, allowed))
    assert killed >= 0.6 * trials and len(versions_seen) >= (3 if full else 2)


def _hold_lock(repo: Path) -> subprocess.Popen:
    """A process that holds the writer's lock of ``repo`` for 30 s (kill it when done)."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        import time
        from robust_bench.data.repository import repository_lock
        with repository_lock({str(repo)!r}):
            print("locked", flush=True)
            time.sleep(30)
    ''')], stdout=subprocess.PIPE, text=True)


def test_a_second_writer_stops_with_a_clear_message(tmp_path):
    repo = tmp_path / "robust-bench"
    holder = _hold_lock(repo)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(RepositoryBusyError, match="being written by another robust-bench command"):
            with repository_lock(repo):
                pass
        from robust_bench.data.repository import build_config

        with pytest.raises(RepositoryBusyError):
            build_config("jabberwocky_ewt", out=repo)
    finally:
        holder.kill()
        holder.wait()
    with repository_lock(repo):   # the lock dies with its process
        pass


def test_the_cli_reports_a_busy_repository_in_one_line(tmp_path):
    repo = tmp_path / "robust-bench"
    holder = _hold_lock(repo)
    try:
        assert holder.stdout.readline().strip() == "locked"
        proc = run_cli(["build", "jabberwocky_ewt", "--out", str(repo)])
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "being written by another robust-bench command" in lines[0], proc.stderr
    finally:
        holder.kill()
        holder.wait()


def test_an_incomplete_journal_is_dropped(repo):
    journal = repo.parent / f".{repo.name}.journal.json"
    journal.write_text('{"config": "toy", "sta')
    assert _check_intact(repo, {1}) == 1
    assert not journal.exists()
