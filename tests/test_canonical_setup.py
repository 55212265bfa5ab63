"""The benchmark as a user elsewhere gets it (issue 50), in the full tier: a fresh virtualenv with the
project installed as the README says and the default suite's declared artifacts installed as a user
installs them: the reference pipeline from its released wheel ($ROBUST_BENCH_PIPELINE_WHEEL, the file
behind :data:`robust_bench.text.reference_pipeline.WHEEL_URL`), ``en_core_web_sm`` as a package (the
shared folder packaged by ``spacy package``, as ``spacy download`` installs it) and the meaning encoder
under its Hub id in a Hub cache filled from ../shared; no ``ROBUST_BENCH_*`` model variable set.

There, the environment is the suite's declared set-up, every pinned config of the newest default suite
builds to its pin, and ``run --suite default`` of a tiny classifier writes the records a run in the
development set-up (this process' environment, the pipelines named by path) writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import records_of, run

pytestmark = [pytest.mark.shared, pytest.mark.full]

ROOT = Path(__file__).resolve().parents[1]
WHEEL_ENV = "ROBUST_BENCH_PIPELINE_WHEEL"
ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
#: the variables that override the declared set-up, unset for the user
MODEL_VARS = ("ROBUST_BENCH_SPACY_MODEL", "ROBUST_BENCH_SIMILARITY_MODEL", "ROBUST_BENCH_ERRANT_MODEL",
              "ROBUST_BENCH_NER_MODEL", "ROBUST_BENCH_SECOND_PARSER")


def _pip(python: Path, *args) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *map(str, args)], check=True)


@pytest.fixture(scope="module")
def user(tmp_path_factory, sources):
    """The user's virtualenv and environment: ``(bin folder, env)``."""
    from robust_bench.text.reference_pipeline import PACKAGE, VERSION, WHEEL_URL

    wheel = Path(os.environ.get(WHEEL_ENV, ""))
    if not wheel.is_file() or not wheel.name.startswith(f"{PACKAGE}-{VERSION}-"):
        pytest.fail(f"the full tier needs the released reference pipeline: set {WHEEL_ENV} to "
                    f"{PACKAGE}-{VERSION}-py3-none-any.whl ({WHEEL_URL}; or robust-bench pipeline train, then "
                    f"robust-bench pipeline package)")
    root = tmp_path_factory.mktemp("user")
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    import torch

    _pip(python, f"torch=={torch.__version__.split('+')[0]}")       # the README's order: torch first
    _pip(python, ROOT)
    _pip(python, wheel)
    # en_core_web_sm as `spacy download` installs it: the package of the shared pipeline
    dist = root / "dist"
    dist.mkdir()
    subprocess.run([sys.executable, "-m", "spacy", "package", str(sources.parent / "models" / "spacy" / "en_core_web_sm"),
                    str(dist), "--build", "wheel", "--force"], check=True, capture_output=True)
    _pip(python, *dist.glob("*/dist/*.whl"))
    # CMU Link Grammar (adv_ewt's grammar filter): Debian's bindings linked into the virtualenv, as `make grammar`
    import linkgrammar

    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "linkgrammar").symlink_to(Path(linkgrammar.__file__).resolve().parent)
    # the encoder under its Hub id, in a Hub cache as huggingface_hub lays it out
    snap = root / "hf" / "hub" / f"models--{ENCODER.replace('/', '--')}"
    shutil.copytree(sources.parent / "models" / "all-MiniLM-L6-v2", snap / "snapshots" / "local")
    (snap / "refs").mkdir()
    (snap / "refs" / "main").write_text("local")
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARS and not k.startswith("PYTEST")}
    env.update(HF_HOME=str(root / "hf"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               PATH=f"{python.parent}{os.pathsep}{env.get('PATH', '')}", ROBUST_BENCH_CACHE=str(root / "cache"))
    return python.parent, env


def _in_venv(user, args, cwd) -> subprocess.CompletedProcess:
    bin_, env = user
    proc = subprocess.run([str(bin_ / "robust-bench"), *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, f"robust-bench {' '.join(map(str, args))}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def user_repo(user, tmp_path_factory):
    """Every pinned task's split of the newest default suite, built in the user's virtualenv."""
    from robust_bench.benchmarks import load_suite

    out = tmp_path_factory.mktemp("user_repo")
    suite = load_suite("default")
    by_config: dict[str, list[str]] = {}
    for t in suite.tasks:
        if t.data_sha256:
            by_config.setdefault(t.config, []).append(t.split)
    for config, splits in by_config.items():
        _in_venv(user, ["build", config, "--out", out / "repo", "--splits", ",".join(sorted(set(splits)))], out)
    return out / "repo", suite


def test_the_users_environment_is_the_declared_set_up(user, tmp_path):
    bin_, env = user
    code = ("import json; from robust_bench.benchmarks import load_suite; "
            "from robust_bench.perturb.setup import check_setup; s = load_suite('default'); "
            "print(json.dumps(check_setup(s.setup, s.setup)))")
    proc = subprocess.run([str(bin_ / "python"), "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    from robust_bench.benchmarks import load_suite

    declared = load_suite("default").setup
    assert set(json.loads(proc.stdout)) == set(declared)


def test_every_pinned_config_of_the_default_suite_builds_to_its_pin(user_repo):
    from robust_bench.data.repository import read_metadata

    repo, suite = user_repo
    metas = read_metadata(repo)
    got = {t.name: metas[t.config]["files"][t.split]["sha256"] for t in suite.tasks if t.data_sha256}
    assert got == {t.name: t.data_sha256 for t in suite.tasks if t.data_sha256}


#: the pinned tasks a tiny NLI classifier takes: an attack over the stored search space and two contrast sets
NLI_TASKS = ("gec_mnli", "lit_mnli", "lit_snli")


def test_a_run_of_the_default_suite_is_the_same_in_the_users_and_the_development_set_up(user, tmp_path):
    from robust_bench.benchmarks import load_suite
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.tiny import build_tiny_classifier

    suite = load_suite("default")
    repo = tmp_path / "repo"
    for name in NLI_TASKS:         # built in the user's venv (the pins are checked by the test above)
        task = suite.task(name)
        _in_venv(user, ["build", task.config, "--out", repo, "--splits", task.split], tmp_path)
    clf = build_tiny_classifier(tmp_path / "clf", [("A man sleeps .", "A man is awake ."), ("It rains .", "It is wet .")],
                                [2, 0], NLI_LABELS, epochs=1)
    args = ["run", "--model", clf, "--suite", "default", "--tasks", ",".join(NLI_TASKS), "--repo", repo, "--device", "cpu"]
    _in_venv(user, [*args, "--output-dir", tmp_path / "user"], tmp_path)
    run([*args, "--output-dir", tmp_path / "dev"], tmp_path)
    # the two environments may hold other releases of the libraries (pip resolves the user's afresh): the
    # records are compared without the versions they list
    user_records, dev_records = ({name: {k: v for k, v in rec.items() if k != "versions"} for name, rec in
                                  records_of(next((tmp_path / side).iterdir())).items()} for side in ("user", "dev"))
    assert set(user_records) == {f"{t}.json" for t in NLI_TASKS} and user_records == dev_records
