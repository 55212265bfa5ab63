"""Shared fixtures. End-to-end tests read the real corpora in ../shared (never copied here)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROBUST_BENCH_SHARED", ROOT.parent / "shared")).resolve()
SOURCES = SHARED / "data"

# Defaults for the real data; the README documents the same variables. Relative paths (as in
# the README's `NLTK_DATA=../shared/nltk_data`) are made absolute, because tests run commands
# from other working directories.
os.environ["NLTK_DATA"] = str(Path(os.environ.get("NLTK_DATA", SHARED / "nltk_data")).resolve())
if os.environ.get("ROBUST_BENCH_SOURCES"):
    os.environ["ROBUST_BENCH_SOURCES"] = str(Path(os.environ["ROBUST_BENCH_SOURCES"]).resolve())
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def _require_shared() -> Path:
    if not (SOURCES / "ud_english_ewt" / "en_ewt-ud-test.conllu").is_file():
        # Never skip: a test that cannot see its data must fail, in CI and locally alike.
        pytest.fail(f"the shared corpora are missing at {SHARED}; set ROBUST_BENCH_SHARED")
    return SOURCES


@pytest.fixture(scope="session")
def sources() -> Path:
    """../shared/data, the local mirror of the source corpora."""
    return _require_shared()


@pytest.fixture(scope="session")
def ewt_train(sources):
    from robust_bench.conllu_io import read_conllu

    return read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-train.conllu")


@pytest.fixture(scope="session")
def built_repo(tmp_path_factory, sources) -> Path:
    """A dataset repository with jabberwocky_ewt built once (seed 0) for the session.

    It is named ``robust-bench`` inside its own parent, so ``load_dataset("robust-bench", ...)``
    can be called from the parent, as the mission says.
    """
    from robust_bench.repository import build_config

    parent = tmp_path_factory.mktemp("repo_seed0")
    build_config("jabberwocky_ewt", out=parent / "robust-bench", source=sources, seed=0)
    return parent / "robust-bench"


@pytest.fixture(scope="session")
def built_repo_again(tmp_path_factory, sources) -> Path:
    """A second, independent build with the same seed."""
    from robust_bench.repository import build_config

    out = tmp_path_factory.mktemp("repo_seed0_again") / "robust-bench"
    build_config("jabberwocky_ewt", out=out, source=sources, seed=0, num_proc=2)
    return out


@pytest.fixture(scope="session")
def built_repo_seed1(tmp_path_factory, sources) -> Path:
    from robust_bench.repository import build_config

    out = tmp_path_factory.mktemp("repo_seed1") / "robust-bench"
    build_config("jabberwocky_ewt", out=out, source=sources, seed=1)
    return out


@pytest.fixture
def repo_copy(built_repo, tmp_path) -> Path:
    """A private copy of the session repository that a test may break."""
    dst = tmp_path / "robust-bench"
    shutil.copytree(built_repo, dst)
    return dst
