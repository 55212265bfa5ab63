"""Suites at work: runs, per-example logs, reports, sharding, and the regression gate."""
