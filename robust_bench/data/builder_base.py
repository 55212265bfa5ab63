"""What every robust-bench builder shares, on top of ``datasets.GeneratorBasedBuilder``.

A builder module in ``builders/`` defines module constants ``_CITATION``, ``_DESCRIPTION``
and ``_LICENSE``, a :class:`RobustBenchConfig` subclass, and a :class:`RobustBenchBuilder`
subclass with ``_info``, ``_split_generators`` and ``_generate_examples``, in the style of
the old ``glue.py``. On top of that it declares where its source comes from (``SOURCE``),
which family it belongs to (``FAMILY``), and how to summarise its rows for the dataset card
(:meth:`RobustBenchBuilder.statistics`). ``robust-bench build`` instantiates it directly,
calls ``download_and_prepare()`` and ``as_dataset()``, and writes the result into the
dataset repository (:mod:`robust_bench.data.repository`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import datasets

__all__ = ["RobustBenchConfig", "RobustBenchBuilder", "SourceInfo"]


@dataclass
class RobustBenchConfig(datasets.BuilderConfig):
    """Settings every config has.

    Attributes
    ----------
    seed : int
        Base seed; each example is seeded from (seed, example id).
    source_dir : str or None
        Local mirror of the source corpora (``--source``); ``None`` means the environment or
        a download, see :mod:`robust_bench.io.sources`.
    splits : tuple of str
        The splits this config materialises.
    """

    seed: int = 0
    source_dir: str | None = None
    splits: tuple[str, ...] = ()
    source_info: "SourceInfo | None" = None


@dataclass(frozen=True)
class SourceInfo:
    """The source corpus of a builder, as stated on the card."""

    name: str
    version: str
    license: str
    url: str
    citation: str = ""


class RobustBenchBuilder(datasets.GeneratorBasedBuilder):
    """Base class of robust-bench builders. See the module docstring."""

    FAMILY: ClassVar[str] = ""
    SOURCE: ClassVar[SourceInfo]
    CITATION: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    LICENSE: ClassVar[str] = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        #: Facts gathered while building (source hashes, lexicon sizes, ...), for the card.
        self.provenance: dict[str, Any] = {}

    @property
    def source_info(self) -> SourceInfo:
        """The source corpus of the current config (configs may differ; the class default otherwise)."""
        return getattr(self.config, "source_info", None) or self.SOURCE

    def output_splits(self) -> tuple[str, ...]:
        """The splits a build writes (the config's, plus any an option adds)."""
        return tuple(self.config.splits)

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Per-config statistics for the card, recounted from the built rows."""
        return {split: {"examples": len(ds)} for split, ds in dataset.items()}

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        """Markdown that explains the statistics (what was transformed, and why not)."""
        return ""
