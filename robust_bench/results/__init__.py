"""Result records and run folders: their format and schema, the one writer of records
(:func:`robust_bench.results.runs.record_from_log`, from a task's per-example log, for ``run`` and every
family command) and the one reader of run folders and per-example logs (:mod:`robust_bench.results.runs`).
A low room: experiments, evaluations, suites and the leaderboard all read and write results through it."""

from robust_bench.results.records import SCHEMA_VERSION, RecordError, load_schema, package_versions, validate_record

__all__ = ["SCHEMA_VERSION", "RecordError", "load_schema", "package_versions", "validate_record"]
