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

import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import datasets

from robust_bench import RobustBenchError

__all__ = ["RobustBenchConfig", "RobustBenchBuilder", "SourceInfo", "SettingError"]


class SettingError(RobustBenchError, ValueError):
    """A ``--set KEY=VALUE`` that the config does not have, or a value of the wrong type."""


#: fields of ``datasets.BuilderConfig``, and the ones the build command sets itself (``--seed``, ``--source``)
_NOT_SETTABLE = frozenset(datasets.BuilderConfig.__dataclass_fields__) | {"seed", "source_dir", "source_info"}
_TRUE, _FALSE = ("true", "yes", "1", "on"), ("false", "no", "0", "off")


def _plain(hint: Any) -> Any:
    """The type of a setting, without ``| None``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return next((a for a in typing.get_args(hint) if a is not type(None)), str)
    return hint


def _settable(hint: Any) -> bool:
    hint = _plain(hint)
    return hint in (bool, int, float, str, tuple) or typing.get_origin(hint) is tuple


def _coerce(key: str, text: str, hint: Any) -> Any:
    """``text`` as a value of the type ``hint`` (str, int, float, bool, tuple of str, or one of
    them or None); a setting of another type cannot be given on the command line."""
    hint = _plain(hint)
    try:
        if hint is bool:
            if text.strip().lower() not in _TRUE + _FALSE:
                raise ValueError
            return text.strip().lower() in _TRUE
        if hint in (int, float):
            return hint(text)
        if hint is str:
            return text
        if hint is tuple or typing.get_origin(hint) is tuple:
            return tuple(x.strip() for x in text.split(",") if x.strip())
    except ValueError:
        raise SettingError(f"--set {key}={text}: not a valid {getattr(hint, '__name__', hint)}") from None
    raise SettingError(f"--set {key}: a setting of type {hint} cannot be given on the command line")


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
    limit : int or None
        Only the first ``limit`` source examples of each split (sentences, pairs or documents, in
        file order; ``--set limit=N``): a real but small build, to try a config or to test on a
        slice of the real corpus. Corpus-wide resources (lexicons, training counts) are read whole.
        The card records it; a limited build is not the pinned one.
    """

    seed: int = 0
    source_dir: str | None = None
    splits: tuple[str, ...] = ()
    source_info: "SourceInfo | None" = None
    limit: int | None = None

    @classmethod
    def settings(cls) -> dict[str, Any]:
        """The settings a user may give (``robust-bench build CONFIG --set KEY=VALUE``): every
        field of the config class but those of ``datasets.BuilderConfig`` and the seed and source,
        with its type. A builder declares a new option by adding a field to its config class;
        nothing else changes."""
        hints = typing.get_type_hints(cls)
        return {name: hints[name] for name in cls.__dataclass_fields__ if name not in _NOT_SETTABLE}

    @classmethod
    def parse_settings(cls, pairs: Sequence[str]) -> dict[str, Any]:
        """``KEY=VALUE`` strings as config settings, each value converted to the field's type.

        Parameters
        ----------
        pairs : sequence of str
            For example ``["error_rate=0.2", "codes=m;o,i;i"]``; a dash in a key reads as an underscore.

        Returns
        -------
        dict
            Setting name to value, for ``build_config(options=...)``.

        Raises
        ------
        SettingError
            For a string without ``=``, a key the config does not have (the message lists the
            settings it has), a key given twice, or a value of the wrong type.
        """
        known = cls.settings()
        out: dict[str, Any] = {}
        for pair in pairs:
            key, sep, text = pair.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or not key:
                raise SettingError(f"--set {pair!r}: give KEY=VALUE")
            if key not in known:
                raise SettingError(f"--set {key}: no such setting; the settings are "
                                   f"{', '.join(sorted(k for k, h in known.items() if _settable(h)))}")
            if key in out:
                raise SettingError(f"--set {key}: given twice")
            out[key] = _coerce(key, text, known[key])
        return out


@dataclass(frozen=True)
class SourceInfo:
    """The source corpus of a builder, as stated on the card; ``tokenised``: its text is tokenised the Penn
    Treebank way (tokens split by spaces, "do n't", "-LRB-"), so an LLM's prompt renders it detokenised
    (:func:`robust_bench.text.detokenize.detokenize`)."""

    name: str
    version: str
    license: str
    url: str
    citation: str = ""
    tokenised: bool = False


class RobustBenchBuilder(datasets.GeneratorBasedBuilder):
    """Base class of robust-bench builders. See the module docstring."""

    FAMILY: ClassVar[str] = ""
    SOURCE: ClassVar[SourceInfo]
    CITATION: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    LICENSE: ClassVar[str] = ""
    #: the validity audit asks the reader for a fluency verdict apart from validity
    #: (:data:`robust_bench.experiments.audit.FLUENCY_COLUMN`)
    AUDIT_FLUENCY: ClassVar[bool] = False

    @staticmethod
    def audit_group(row: dict[str, str]) -> str | None:
        """The group a judged audit row is counted in apart (the card gives ok/N per group), from the audit
        TSV's columns; None: the family's audits are not grouped."""
        return None

    @classmethod
    def card_refusals(cls, statistics: dict[str, Any]) -> dict[str, int]:
        """Refusals by reason for the card, summed over the splits' statistics: by default each split's
        ``refusals`` (reason -> count); a family that counts its refusals elsewhere says where."""
        out: dict[str, int] = {}
        for stats in statistics.values():
            for reason, n in (stats.get("refusals") or {}).items():
                if isinstance(n, (int, float)):
                    out[reason] = out.get(reason, 0) + int(n)
        return out

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        #: Facts gathered while building (source hashes, lexicon sizes, ...), for the card.
        self.provenance: dict[str, Any] = {}

    @property
    def source_info(self) -> SourceInfo:
        """The source corpus of the current config (configs may differ; the class default otherwise)."""
        return getattr(self.config, "source_info", None) or self.SOURCE

    def first(self, rows: Sequence[Any]) -> Sequence[Any]:
        """The first ``config.limit`` of a split's source rows (all when no limit is set).

        Raises
        ------
        SettingError
            If the limit is below 1.
        """
        limit = self.config.limit
        if limit is None:
            return rows
        if limit < 1:
            raise SettingError(f"--set limit={limit}: give a positive number of examples")
        return rows[:limit]

    def output_splits(self) -> tuple[str, ...]:
        """The splits a build writes (the config's, plus any an option adds)."""
        return tuple(self.config.splits)

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Per-config statistics for the card, recounted from the built rows."""
        return {split: {"examples": len(ds)} for split, ds in dataset.items()}

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        """Markdown that explains the statistics (what was transformed, and why not)."""
        return ""
