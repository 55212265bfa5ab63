"""Result records, their schema, and (later) submission validation and the results store."""

from robust_bench.leaderboard.records import (SCHEMA_VERSION, RecordError, load_schema, make_record,
                                              validate_record, write_record)

__all__ = ["SCHEMA_VERSION", "RecordError", "load_schema", "make_record", "validate_record", "write_record"]
