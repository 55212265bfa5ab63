"""The leaderboard: run reports, submission validation, the results store (local or Hub), aggregation,
the static site, verification of stored rows and Hub evaluation results. Records and run folders
themselves are read and written by :mod:`robust_bench.results`."""
