"""Suite definitions (YAML): which configs, which model interface, which metrics, a version.

Mapped to ``robust_bench.benchmarks``.
"""

from __future__ import annotations

from importlib import resources

import yaml

__all__ = ["list_suites", "load_suite"]


def list_suites() -> list[str]:
    """Names of the suites shipped with robust-bench."""
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".yaml"))


def load_suite(name: str) -> dict:
    """The suite definition ``name``.

    Raises
    ------
    KeyError
        If no such suite exists; the message lists the known ones.
    """
    if name not in list_suites():
        raise KeyError(f"unknown suite {name!r}; known: {', '.join(list_suites())}")
    return yaml.safe_load(resources.files(__name__).joinpath(f"{name}.yaml").read_text("utf-8"))
