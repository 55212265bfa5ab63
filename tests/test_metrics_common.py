"""Common tests over every metric module in metrics/."""

import doctest
import importlib.util
import inspect
import os

import evaluate
import numpy as np
import pytest

from robust_bench.metrics import METRICS, path
from tests.conftest import ROOT


def _module(name):
    spec = importlib.util.spec_from_file_location(f"_metric_{name}", ROOT / "metrics" / name / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _inputs(name, rng):
    mod = _module(name)
    assert hasattr(mod, "_common_test_inputs"), f"metrics/{name}/{name}.py defines no _common_test_inputs(rng)"
    return mod._common_test_inputs(rng)


@pytest.mark.parametrize("name", METRICS)
def test_doctests_run(name, monkeypatch):
    monkeypatch.chdir(ROOT)                     # the examples load "metrics/<name>" as the README says
    mod = _module(name)
    results = doctest.testmod(mod, verbose=False)
    assert results.attempted >= 2 and results.failed == 0


@pytest.mark.parametrize("name", METRICS)
def test_compute_has_explicit_kwargs(name):
    mod = _module(name)
    cls = [c for _, c in inspect.getmembers(mod, inspect.isclass) if issubclass(c, evaluate.Metric) and c is not evaluate.Metric][0]
    params = inspect.signature(cls._compute).parameters.values()
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params)
    assert os.path.isfile(os.path.join(path(name), "README.md"))


@pytest.mark.parametrize("name", METRICS)
def test_order_invariant_and_list_numpy_agree(name):
    metric = evaluate.load(path(name))
    rng = np.random.default_rng(3)
    kw = _inputs(name, rng)
    base = metric.compute(**kw)
    perm = rng.permutation(len(kw["predictions"]))
    shuffled = {k: [v[i] for i in perm] for k, v in kw.items()}
    assert metric.compute(**shuffled) == pytest.approx(base)
    # the other container: nested numpy rows become lists, flat lists become numpy arrays
    nested = any(np.ndim(x) > 0 for x in kw["predictions"])
    as_lists = ({k: [np.asarray(x).tolist() for x in v] for k, v in kw.items()} if nested
                else {k: np.asarray(v) for k, v in kw.items()})
    assert metric.compute(**as_lists) == pytest.approx(base)
    assert isinstance(base[name], float) and not np.isnan(base[name])


def test_metrics_agree_with_engine_functions():
    from robust_bench.scoring import dspr_score, punctuation_mask, uuas_score

    rng = np.random.default_rng(4)
    kw = _inputs("uuas", rng)
    got = evaluate.load(path("uuas")).compute(**kw)["uuas"]
    assert got == uuas_score(kw["references"], kw["predictions"], punctuation=[punctuation_mask(u) for u in kw["upos"]])
    kw = _inputs("dspr", rng)
    assert evaluate.load(path("dspr")).compute(**kw)["dspr"] == pytest.approx(dspr_score(kw["references"], kw["predictions"]))


def test_unknown_metric_path():
    with pytest.raises(KeyError, match="unknown metric"):
        path("bleu")
