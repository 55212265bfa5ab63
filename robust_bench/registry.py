"""Which builder owns which config."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ConfigEntry", "list_configs", "get_config", "UnknownConfigError"]


class UnknownConfigError(KeyError):
    """No registered builder owns the requested config."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0])


@dataclass(frozen=True)
class ConfigEntry:
    """A materialisable config: its builder class and what ``robust-bench list`` shows."""

    name: str
    builder: type
    family: str
    source: str
    splits: tuple[str, ...]


def list_configs() -> list[ConfigEntry]:
    """Every config of every registered builder."""
    from robust_bench.builders import BUILDER_CLASSES

    entries = []
    for cls in BUILDER_CLASSES:
        for cfg in cls.BUILDER_CONFIGS:
            src = getattr(cfg, "source_info", None) or cls.SOURCE
            entries.append(ConfigEntry(name=cfg.name, builder=cls, family=cls.FAMILY,
                                       source=f"{src.name} {src.version}", splits=tuple(cfg.splits)))
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
