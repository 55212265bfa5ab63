"""Result record v1: the JSON every robust-bench evaluation emits.

The schema is ``result_record.schema.json`` beside this module (JSON Schema 2020-12).
"""

from __future__ import annotations

import json
import os
import platform
import re
from datetime import datetime, timezone
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from robust_bench.io.fileio import atomic_write_text

__all__ = ["SCHEMA_VERSION", "RecordError", "load_schema", "make_record", "validate_record", "write_record",
           "package_versions"]

SCHEMA_VERSION = "1"


class RecordError(ValueError):
    """A result record does not match the v1 schema."""


@lru_cache(maxsize=1)
def load_schema() -> dict:
    """The v1 JSON schema."""
    text = resources.files("robust_bench.leaderboard").joinpath("result_record.schema.json").read_text("utf-8")
    return json.loads(text)


def package_versions(*names: str) -> dict[str, str]:
    """Versions of robust-bench, Python and the named installed packages."""
    from importlib.metadata import PackageNotFoundError, version

    from robust_bench import __version__

    out = {"robust_bench": __version__, "python": platform.python_version()}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def make_record(*, model_id: str, revision: str | None, config: str, split: str, corpus_sha256: str,
                metrics: Mapping[str, float], seed: int, variant: str | None = None,
                details: Mapping[str, Any] | None = None, versions: Mapping[str, str] | None = None,
                timestamp: str | None = None) -> dict:
    """Assemble and validate a v1 record.

    Parameters
    ----------
    model_id : str
        Hub id, local path, or ``"baseline:<name>"``.
    revision : str or None
    config, split : str
    corpus_sha256 : str
        SHA-256 hex digest of the evaluated data file.
    metrics : mapping of str to float
    seed : int
    variant : str, optional
        Which text the model saw (``"plain"``, ``"jabberwocky"``).
    details : mapping, optional
        Counts behind the metrics.
    versions : mapping, optional
        Defaults to :func:`package_versions` of datasets, evaluate, transformers and torch.
    timestamp : str, optional
        ISO 8601; defaults to now (UTC).

    Returns
    -------
    dict

    Raises
    ------
    RecordError
        If the result does not validate.
    """
    rec: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "model": {"id": model_id, "revision": revision},
        "config": config,
        "split": split,
        "corpus_sha256": corpus_sha256,
        "metrics": {k: float(v) for k, v in metrics.items()},
        "seed": int(seed),
        "versions": dict(versions) if versions is not None
        else package_versions("datasets", "evaluate", "transformers", "torch", "numpy", "scipy"),
        "timestamp": timestamp or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if variant is not None:
        rec["variant"] = variant
    if details:
        rec["details"] = json.loads(json.dumps(details))
    validate_record(rec)
    return rec


def validate_record(record: Mapping[str, Any]) -> None:
    """Validate a record against the v1 schema.

    Raises
    ------
    RecordError
        Naming the first offending field.
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema(), format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "<record>"
        raise RecordError(f"result record field {where!r}: {e.message}")
    ts = record.get("timestamp", "")
    try:
        datetime.fromisoformat(ts)
    except ValueError:
        raise RecordError(f"result record field 'timestamp': {ts!r} is not ISO 8601") from None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def write_record(record: Mapping[str, Any], out_dir: str | os.PathLike, *, tag: str | None = None) -> Path:
    """Validate and write a record as ``<model>__<config>__<split>[__<variant>][__<tag>].json``, atomically.

    ``tag`` tells apart several records of one model on one split (for example the probe and layer).

    Returns
    -------
    pathlib.Path
        The written file.
    """
    validate_record(record)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    parts = [record["model"]["id"], record["config"], record["split"]]
    if record.get("variant"):
        parts.append(record["variant"])
    if tag:
        parts.append(tag)
    path = out_dir / ("__".join(_slug(p) for p in parts) + ".json")
    return atomic_write_text(path, json.dumps(record, indent=2) + "\n")
