"""Dataset builders, one module per perturbation family (mapped to ``robust_bench.builders``)."""

from robust_bench.builders.gec import GrammaticalErrors
from robust_bench.builders.jabberwocky import JabberwockyEWT
from robust_bench.builders.lit import LitContrastSets

#: Every registered builder class, in the order ``robust-bench list`` shows them.
BUILDER_CLASSES = [JabberwockyEWT, GrammaticalErrors, LitContrastSets]

__all__ = ["BUILDER_CLASSES", "JabberwockyEWT", "GrammaticalErrors", "LitContrastSets"]
