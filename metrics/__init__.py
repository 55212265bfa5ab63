"""`evaluate` modules, one folder per metric (mapped to ``robust_bench.metrics``), found by discovery.

A metric is a folder ``metrics/<name>/`` holding ``<name>.py`` (a thin ``evaluate.Metric`` over a pure
function of :mod:`robust_bench.scoring`) and ``README.md`` (its card). Adding a metric is adding that
folder: :data:`METRICS` lists every such folder, and packaging ships them as package data.

Load them with ``evaluate.load("metrics/<name>")`` from the repository root, or with
``evaluate.load(robust_bench.metrics.path("<name>"))`` from anywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from robust_bench import RobustBenchError

__all__ = ["METRICS", "path", "discover", "DuplicateMetricError"]

_HERE = Path(__file__).resolve().parent


class DuplicateMetricError(RobustBenchError, ValueError):
    """Two metric folders whose names differ only in case or in ``-``/``_``."""


def discover(folder: Path = _HERE) -> tuple[str, ...]:
    """Names of the metric folders under ``folder``, sorted.

    Raises
    ------
    DuplicateMetricError
        If two folders normalise to the same name.
    """
    names = sorted(p.name for p in folder.iterdir()
                   if p.is_dir() and not p.name.startswith(("_", ".")) and (p / f"{p.name}.py").is_file())
    seen: dict[str, str] = {}
    for n in names:
        key = re.sub(r"[-_]", "", n.lower())
        if key in seen:
            raise DuplicateMetricError(f"metric folders {seen[key]!r} and {n!r} name the same metric")
        seen[key] = n
    return tuple(names)


#: Metric modules shipped with robust-bench (discovered at import).
METRICS = discover()


def path(name: str) -> str:
    """Folder of the metric module ``name``, for ``evaluate.load``.

    Raises
    ------
    KeyError
        If ``name`` is not a robust-bench metric; the message lists the known ones.
    """
    if name not in METRICS:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(METRICS)}")
    return str(_HERE / name)
