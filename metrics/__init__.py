"""`evaluate` modules, one folder per metric (mapped to ``robust_bench.metrics``).

Load them with ``evaluate.load("metrics/<name>")`` from the repository root, or with
``evaluate.load(robust_bench.metrics.path("<name>"))`` from anywhere.
"""

from pathlib import Path

#: Metric modules shipped with robust-bench.
METRICS = ("uuas", "dspr", "attack_success_rate", "consistency")


def path(name: str) -> str:
    """Folder of the metric module ``name``, for ``evaluate.load``.

    Raises
    ------
    KeyError
        If ``name`` is not a robust-bench metric.
    """
    if name not in METRICS:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(METRICS)}")
    return str(Path(__file__).resolve().parent / name)
