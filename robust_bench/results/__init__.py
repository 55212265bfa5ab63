"""Result records and run folders: their formats and schemas, the writers of records (v2, what ``run``
writes, and the grammatical-error, LIT and Jabberwocky commands with it:
:func:`robust_bench.results.runs.record_from_log` from a per-example log; v1, what the names command, the
live parser attack and ``baselines`` still write: :func:`make_record`) and the one reader of run folders and per-example logs
(:mod:`robust_bench.results.runs`). A low room: experiments, evaluations, suites and the
leaderboard all read and write results through it."""

from robust_bench.results.records import (SCHEMA_VERSION, RecordError, load_schema, make_record, package_versions,
                                          validate_record, write_record)

__all__ = ["SCHEMA_VERSION", "RecordError", "load_schema", "make_record", "package_versions", "validate_record",
           "write_record"]
