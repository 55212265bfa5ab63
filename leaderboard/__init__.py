"""Result records and their schema, run reports, submission validation, the results store, aggregation and the static site."""

from robust_bench.leaderboard.records import (SCHEMA_VERSION, RecordError, load_schema, make_record,
                                              validate_record, write_record)

__all__ = ["SCHEMA_VERSION", "RecordError", "load_schema", "make_record", "validate_record", "write_record"]
