"""What every command shares: the one error exit, option parsers, model slugs."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer



def fail(exc: BaseException) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def known_errors() -> tuple[type[BaseException], ...]:
    from robust_bench.io.conllu_io import ConlluError
    from robust_bench.leaderboard.records import RecordError
    from robust_bench.text.nlp import SpacyModelError
    from robust_bench.io.task_data import TaskDataError
    from robust_bench.text.pseudowords import PseudowordError
    from robust_bench.data.registry import UnknownConfigError
    from robust_bench.data.repository import RepositoryBusyError
    from robust_bench.io.sources import SourceNotFoundError
    from robust_bench.models.loader import ModelError
    from robust_bench.perturb.lit.erg import ErgUnavailableError
    from robust_bench.perturb.lit.ud import LitSetupError
    from robust_bench.experiments.baselines import BaselineCheckError
    from robust_bench.perturb.parser_substitutes import SubstituteError

    return (ConlluError, SourceNotFoundError, PseudowordError, UnknownConfigError, RecordError, RepositoryBusyError,
            BaselineCheckError, TaskDataError, SpacyModelError, ModelError, ErgUnavailableError,
            LitSetupError, SubstituteError)


def model_slug(model: str) -> str:
    """A file-name-safe name for a Hub id or a local model folder."""
    import re

    return re.sub(r"[^A-Za-z0-9]+", "_", Path(model).name if Path(model).exists() else model).strip("_").lower()


def parse_label_map(text: Optional[str]) -> Optional[dict]:
    if not text:
        return None
    out = {}
    for item in text.split(","):
        if "=" not in item:
            raise typer.BadParameter(f"--label-map takes MODEL_LABEL=DATASET_LABEL pairs, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def parse_layers(text: Optional[str]) -> Optional[tuple[int, ...]]:
    if not text:
        return None
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise typer.BadParameter(f"--layers takes comma-separated integers, got {text!r}") from None

