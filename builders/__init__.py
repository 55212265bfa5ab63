"""Dataset builders, one module per perturbation family (mapped to ``robust_bench.builders``)."""

from robust_bench.builders.gec import GrammaticalErrors
from robust_bench.builders.jabberwocky import JabberwockyEWT

#: Every registered builder class, in the order ``robust-bench list`` shows them.
BUILDER_CLASSES = [JabberwockyEWT, GrammaticalErrors]

__all__ = ["BUILDER_CLASSES", "JabberwockyEWT", "GrammaticalErrors"]
