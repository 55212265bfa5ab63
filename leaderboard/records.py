"""Result records: the JSON every robust-bench evaluation emits.

v1 (``result_record.schema.json``): one model on one config split, written by the per-family
commands. v2 (``result_record_v2.schema.json``): one model on one task of a suite version, written
by ``robust-bench run``, with intervals and the per-example log's hash. JSON Schema 2020-12.
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
           "package_versions", "SCHEMAS"]

SCHEMA_VERSION = "1"


class RecordError(ValueError):
    """A result record does not match the v1 schema."""


#: schema version -> schema file beside this module
SCHEMAS = {"1": "result_record.schema.json", "2": "result_record_v2.schema.json"}


@lru_cache(maxsize=None)
def load_schema(version: str = SCHEMA_VERSION) -> dict:
    """The JSON schema of record ``version`` ("1" or "2").

    Raises
    ------
    RecordError
        For an unknown version.
    """
    if version not in SCHEMAS:
        raise RecordError(f"result record field 'schema_version': unknown version {version!r}; known: {sorted(SCHEMAS)}")
    text = resources.files("robust_bench.leaderboard").joinpath(SCHEMAS[version]).read_text("utf-8")
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
    """Validate a record against the schema of its ``schema_version``.

    Raises
    ------
    RecordError
        Naming the first offending field.
    """
    import jsonschema

    if not isinstance(record, Mapping):
        raise RecordError(f"a result record is a JSON object, not {type(record).__name__}")
    version = record.get("schema_version")
    validator = jsonschema.Draft202012Validator(load_schema(version if isinstance(version, str) else repr(version)),
                                                format_checker=jsonschema.FormatChecker())
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
