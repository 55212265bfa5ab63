"""Suites at work: ``robust-bench run`` (the runner, its shards and Ray executor), the regression gate,
and the leaderboard's re-run of a submission's sample. Record and run-folder formats live in
:mod:`robust_bench.results`, each family's evaluation in :mod:`robust_bench.evaluations`."""
