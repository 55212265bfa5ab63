"""Registries by discovery: a builder or a metric is added in one file (or folder), duplicates raise,
unknown names list the known ones."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid

import pytest

from robust_bench.data.registry import (DuplicateNameError, UnknownConfigError, get_config, list_configs,
                                        register_builder)
from tests.conftest import ROOT
from tests.helpers import run_cli

TOY_BUILDER = '''
"""A toy builder written by tests/test_registry.py; it is deleted when the test ends."""

from dataclasses import dataclass

import datasets

from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.registry import register_builder


@dataclass
class ToyPowerConfig(RobustBenchConfig):
    """power : int
        The exponent of y = x ** power (a setting of this builder's own)."""

    power: int = 2


@register_builder
class ToyPower(RobustBenchBuilder):
    VERSION = datasets.Version("0.0.1")
    FAMILY = "toy"
    CITATION = "@misc{toy, title={Toy}"
    DESCRIPTION = "Numbers and their powers (squares by default)."
    LICENSE = "CC0"
    SOURCE = SourceInfo(name="arithmetic", version="1", license="CC0", url="https://example.org/toy")
    BUILDER_CONFIG_CLASS = ToyPowerConfig
    BUILDER_CONFIGS = [ToyPowerConfig(name="@NAME@", version=VERSION, splits=("test",))]

    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features(
            {"id": datasets.Value("string"), "x": datasets.Value("int32"), "y": datasets.Value("int32")}))

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name="test", gen_kwargs={"n": 7})]

    def _generate_examples(self, n):
        for i in range(n):
            yield f"test-{i:03d}", {"id": f"test-{i:03d}", "x": i, "y": i ** self.config.power}
'''

TOY_METRIC = '''
"""A toy metric written by tests/test_registry.py; it is deleted when the test ends."""

import datasets
import evaluate
import numpy as np

_KWARGS_DESCRIPTION = """
Examples:
    >>> import evaluate
    >>> m = evaluate.load("metrics/@NAME@")
    >>> m.compute(predictions=[1, 2], references=[1, 3])
    {'@NAME@': 0.5}
    >>> m.compute(predictions=[4], references=[4])
    {'@NAME@': 1.0}
"""


class ToyMatch(evaluate.Metric):
    __doc__ = _KWARGS_DESCRIPTION

    def _info(self):
        return evaluate.MetricInfo(description="Share of equal pairs.", citation="", inputs_description=_KWARGS_DESCRIPTION,
                                   features=datasets.Features({"predictions": datasets.Value("int64"),
                                                               "references": datasets.Value("int64")}))

    def _compute(self, predictions, references):
        return {"@NAME@": float(np.mean(np.asarray(predictions) == np.asarray(references)))}


def _common_test_inputs(rng):
    refs = rng.integers(0, 3, size=30)
    return {"predictions": list(np.where(rng.random(30) < 0.5, refs, 0)), "references": list(refs)}
'''


def test_unknown_config_lists_the_known_ones():
    with pytest.raises(UnknownConfigError, match="known configs: .*jabberwocky_ewt"):
        get_config("no_such_config")


def test_a_duplicate_config_name_raises():
    clone = type("Clone", (get_config("jabberwocky_ewt").builder,), {"__module__": "tests.fake"})
    with pytest.raises(DuplicateNameError, match="'jabberwocky_ewt' .* already registered"):
        register_builder(clone)
    assert [e.name for e in list_configs()].count("jabberwocky_ewt") == 1


def test_a_duplicate_metric_folder_raises(tmp_path):
    from robust_bench.metrics import DuplicateMetricError, discover

    for name in ("my_metric", "My-Metric"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.py").write_text("")
    with pytest.raises(DuplicateMetricError, match="same metric"):
        discover(tmp_path)


def test_a_toy_builder_and_metric_are_one_file_each_and_join_list_and_common_tests(tmp_path):
    tag = uuid.uuid4().hex[:8]
    config, metric = f"toy_{tag}", f"toy_match_{tag}"
    builder_file = ROOT / "builders" / f"toy_{tag}.py"
    metric_dir = ROOT / "metrics" / metric
    try:
        builder_file.write_text(TOY_BUILDER.replace("@NAME@", config), encoding="utf-8")
        metric_dir.mkdir()
        (metric_dir / f"{metric}.py").write_text(TOY_METRIC.replace("@NAME@", metric), encoding="utf-8")
        (metric_dir / "README.md").write_text(f"# {metric}\n\nA toy metric.\n", encoding="utf-8")
        listed = run_cli(["list"], tmp_path)
        assert listed.returncode == 0, listed.stderr
        assert any(line.split()[:2] == [config, "toy"] for line in listed.stdout.splitlines()), listed.stdout
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/test_builders_common.py", "tests/test_metrics_common.py", "-k", tag],
                              capture_output=True, text=True, cwd=ROOT, env=env)
        tail = proc.stdout[-3000:]
        assert proc.returncode == 0, tail
        passed = int(next(w for line in tail.splitlines() if " passed" in line for w in [line.split(" passed")[0].split()[-1]]))
        # builder: keys/features, same-seed bytes, card, load_dataset; metric: doctests, kwargs, order/containers
        assert passed == 7, tail
    finally:
        builder_file.unlink(missing_ok=True)
        shutil.rmtree(metric_dir, ignore_errors=True)
        shutil.rmtree(ROOT / "builders" / "__pycache__", ignore_errors=True)



def test_a_new_builder_setting_is_one_field_given_by_set(tmp_path):
    """Issue 32: a builder's new option is a field of its config class, in the builder's one file;
    `robust-bench build CONFIG --set KEY=VALUE` passes it, converted to the field's type, and refuses
    an unknown key (listing the settings) or a value of the wrong type, in one line."""
    import json

    import pandas as pd

    tag = uuid.uuid4().hex[:8]
    config = f"toypow_{tag}"
    builder_file = ROOT / "builders" / f"toypow_{tag}.py"
    try:
        builder_file.write_text(TOY_BUILDER.replace("@NAME@", config), encoding="utf-8")
        repo = tmp_path / "repo"
        done = run_cli(["build", config, "--set", "power=3", "--out", str(repo)], tmp_path)
        assert done.returncode == 0, done.stderr
        rows = pd.read_parquet(repo / "data" / config / "test.parquet")
        assert list(rows["y"]) == [x ** 3 for x in range(7)]
        assert json.loads((repo / "data" / config / "metadata.json").read_text())["options"] == {"power": "3"}
        for setting, words in (("power=three", ["power=three", "not a valid int"]),
                               ("colour=red", ["colour", "no such setting", "power"]),
                               ("power", ["KEY=VALUE"])):
            bad = run_cli(["build", config, "--set", setting, "--out", str(tmp_path / "bad")], tmp_path)
            assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, (setting, bad.stderr)
            assert all(w in bad.stderr for w in words), (setting, bad.stderr)
            assert not (tmp_path / "bad").exists()
    finally:
        builder_file.unlink(missing_ok=True)
        shutil.rmtree(ROOT / "builders" / "__pycache__", ignore_errors=True)
