"""The ``robust-bench`` command line: one thin module per command, no domain logic.

Commands follow the Hugging Face CLI style: a verb, a positional config where one is needed, long
options with defaults shown in ``--help``. Every command validates its options before it loads
anything, and every expected failure exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import logging
import sys

from robust_bench.cli import (attack, attack_parser, audit, baselines, build, confusions, evaluate,  # noqa: F401
                              check, export, leaderboard, pipeline, probe, push, run)  # (register commands)
from robust_bench.cli._app import app

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - console entry point
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
