"""Result records: the JSON every robust-bench evaluation emits, one format (``result_record_v2.schema.json``,
JSON Schema 2020-12).

A record is one model on one task of a suite version, written from the task's per-example log by
:func:`robust_bench.results.runs.record_from_log`, for ``robust-bench run`` and every family command (each
is a run of a one-task suite, :mod:`robust_bench.suite.command`), with intervals and the log's hash.

A metric's range is declared once, with the metric, by the evaluation that reports it
(:mod:`robust_bench.evaluations`); the writers pass those ranges here, and a record is checked
against them.
"""

from __future__ import annotations

import json
import platform
import re
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from robust_bench import RobustBenchError

__all__ = ["SCHEMA_VERSION", "RecordError", "load_schema", "validate_record", "package_versions", "model_slug",
           "SCHEMAS"]

Ranges = Mapping[str, "tuple[float, float]"]

#: the newest record version (:data:`robust_bench.results.runs.RECORD_VERSION` writes it)
SCHEMA_VERSION = "2.2"


class RecordError(RobustBenchError, ValueError):
    """A result record does not match the schema of its version (or a metric leaves its range)."""


#: schema version -> schema file beside this module
SCHEMAS = {"2": "result_record_v2.schema.json", "2.1": "result_record_v2.schema.json",
           "2.2": "result_record_v2.schema.json"}


@lru_cache(maxsize=None)
def load_schema(version: str = SCHEMA_VERSION) -> dict:
    """The JSON schema of record ``version`` ("2", "2.1" and "2.2" share one file).

    Raises
    ------
    RecordError
        For an unknown version.
    """
    if version not in SCHEMAS:
        raise RecordError(f"result record field 'schema_version': unknown version {version!r}; known: {sorted(SCHEMAS)}")
    text = resources.files(__package__).joinpath(SCHEMAS[version]).read_text("utf-8")
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


#: Longest string a record may hold anywhere (ids, labels, notes); records are small JSON files.
MAX_STRING = 10_000
#: Deepest nesting of objects and arrays in a record.
MAX_DEPTH = 32
_SHA256 = re.compile(r"[0-9a-f]{64}")
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _check_values(obj: Any, where: str, depth: int = 0) -> None:
    import math

    if depth > MAX_DEPTH:
        raise RecordError(f"result record field {where!r}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(obj, float) and not math.isfinite(obj):
        raise RecordError(f"result record field {where!r}: {obj} is not a finite number (JSON has no NaN or Infinity)")
    if isinstance(obj, str) and len(obj) > MAX_STRING:
        raise RecordError(f"result record field {where!r}: a string of {len(obj):,} characters; at most {MAX_STRING:,}")
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if not isinstance(k, str) or len(k) > 256:
                raise RecordError(f"result record field {where!r}: keys are strings of at most 256 characters")
            _check_values(v, f"{where}/{k}" if where else k, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _check_values(v, f"{where}/{i}", depth + 1)


def validate_record(record: Mapping[str, Any], *, ranges: Ranges | None = None) -> None:
    """Validate a record against the schema of its ``schema_version``, then check what JSON Schema
    cannot say portably: every number finite (strict JSON), each metric within ``ranges`` (its
    evaluation's declared range, where the caller knows the evaluation), SHA-256 digests of exactly 64 hex digits (no trailing newline), an RFC 3339
    timestamp with a time zone, strings of at most :data:`MAX_STRING` characters, nesting of at
    most :data:`MAX_DEPTH` levels.

    Parameters
    ----------
    record : mapping
    ranges : mapping of str to (float, float), optional
        Metric name -> (low, high). When given, every metric of the record must be named in it.

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
    _check_values(record, "")
    for name, value in record["metrics"].items() if ranges is not None else ():
        if name not in ranges:
            raise RecordError(f"result record field 'metrics/{name}': no declared range (not a metric of its "
                              f"evaluation: {', '.join(sorted(ranges))})")
        lo, hi = ranges[name]
        if value is not None and not lo <= value <= hi:
            raise RecordError(f"result record field 'metrics/{name}': {value} is outside [{lo:g}, {hi:g}]")
    for key in ("corpus_sha256", "log_sha256"):
        if key in record and not _SHA256.fullmatch(record[key]):
            raise RecordError(f"result record field {key!r}: {record[key]!r} is not 64 lower-case hex digits")
    ts = record["timestamp"]
    try:
        if not _RFC3339.fullmatch(ts):
            raise ValueError
        datetime.fromisoformat(ts.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise RecordError(f"result record field 'timestamp': {ts!r} is not an RFC 3339 date-time with a time zone "
                          "(e.g. 2026-11-22T14:00:00+00:00)") from None


def model_slug(model: str) -> str:
    """A file-name-safe name for a model: a local folder's name, or a Hub id or spec, lower-cased,
    with every run of other characters than letters and digits made one ``_`` (run folders, figures,
    derived configs)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", Path(model).name if Path(model).exists() else model).strip("_").lower()
