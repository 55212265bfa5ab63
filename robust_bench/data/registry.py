"""Which builder owns which config, filled by discovery.

A builder module in ``builders/`` decorates its :class:`~robust_bench.data.builder_base.RobustBenchBuilder`
subclass with :func:`register_builder`; :func:`builder_classes` imports every module of the
``robust_bench.builders`` package once, so adding a builder touches one file. A config name that two
builders claim raises :class:`DuplicateNameError`; an unknown name lists the known ones (as
lm-evaluation-harness registers tasks).
"""

from __future__ import annotations

from dataclasses import dataclass

from robust_bench import RobustBenchError, import_submodules

__all__ = ["ConfigEntry", "register_builder", "builder_classes", "list_configs", "get_config", "UnknownConfigError",
           "DuplicateNameError"]

_BUILDERS: dict[str, type] = {}     # "module.Class" -> class


class UnknownConfigError(RobustBenchError, KeyError):
    """No registered builder owns the requested config."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0])


class DuplicateNameError(RobustBenchError, ValueError):
    """Two builders claim one config name."""


@dataclass(frozen=True)
class ConfigEntry:
    """A materialisable config: its builder class and what ``robust-bench list`` shows."""

    name: str
    builder: type
    family: str
    source: str
    splits: tuple[str, ...]
    tokenised: bool = False


def register_builder(cls: type) -> type:
    """Class decorator: register a builder and its ``BUILDER_CONFIGS``.

    Raises
    ------
    DuplicateNameError
        If a config name is already owned by another builder class.
    """
    key = f"{cls.__module__}.{cls.__qualname__}"
    owned = {cfg.name: k for k, other in _BUILDERS.items() if k != key for cfg in other.BUILDER_CONFIGS}
    for cfg in cls.BUILDER_CONFIGS:
        if cfg.name in owned:
            raise DuplicateNameError(f"config {cfg.name!r} of {key} is already registered by {owned[cfg.name]}")
    names = [cfg.name for cfg in cls.BUILDER_CONFIGS]
    if len(set(names)) != len(names):
        raise DuplicateNameError(f"{key} lists a config name twice: {names}")
    _BUILDERS[key] = cls
    return cls


def _discover() -> None:
    import robust_bench.builders as pkg

    import_submodules(pkg)


def builder_classes() -> list[type]:
    """Every registered builder class, discovered from ``builders/`` (module name order)."""
    _discover()
    return sorted(_BUILDERS.values(), key=lambda c: (c.__module__, c.__qualname__))


def list_configs() -> list[ConfigEntry]:
    """Every config of every registered builder."""
    entries = []
    for cls in builder_classes():
        for cfg in cls.BUILDER_CONFIGS:
            src = getattr(cfg, "source_info", None) or cls.SOURCE
            entries.append(ConfigEntry(name=cfg.name, builder=cls, family=cls.FAMILY,
                                       source=f"{src.name} {src.version}", splits=tuple(cfg.splits),
                                       tokenised=src.tokenised))
    return entries


def get_config(name: str) -> ConfigEntry:
    """The entry for config ``name``.

    Raises
    ------
    UnknownConfigError
        If no builder owns ``name``; the message lists the known configs.
    """
    entries = {e.name: e for e in list_configs()}
    if name not in entries:
        raise UnknownConfigError(f"unknown config {name!r}; known configs: {', '.join(sorted(entries))}")
    return entries[name]


def text_is_tokenised(name: str) -> bool:
    """Whether config ``name``'s source text is tokenised the Penn Treebank way (its
    :class:`~robust_bench.data.builder_base.SourceInfo` says so), so that an LLM's prompt renders it
    detokenised; False for a config no builder owns."""
    try:
        return get_config(name).tokenised
    except UnknownConfigError:
        return False
