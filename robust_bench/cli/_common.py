"""What every command shares: the one error exit and the option checks and parsers."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer



def fail(exc: BaseException) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def check(option: str, ok: bool, message: str) -> None:
    """Stop with ``error: OPTION: MESSAGE`` (exit 2) unless ``ok``. Commands call these checks
    on every option before they load anything."""
    if not ok:
        fail(ValueError(f"{option}: {message}"))


def check_positive(option: str, value: Optional[int]) -> None:
    """An optional count (``--limit``, ``--trials``, ``--batch-size``): None or an integer >= 1."""
    if value is not None:
        check(option, value >= 1, f"must be at least 1, got {value}")


#: Seeds are what NumPy, PyTorch and Python's random all take: 0 <= seed < 2**32.
SEED_MAX = 2 ** 32


def seed_in_range(value: Optional[int]) -> Optional[int]:
    """Typer callback of every ``--seed``: the :func:`check_seed` rule as a usage error (exit 2, one line)."""
    if value is not None and not 0 <= value < SEED_MAX:
        shown = value if abs(value) < 10 ** 20 else str(value)[:20] + "..."
        raise typer.BadParameter(f"must be in [0, 2**32), got {shown}")
    return value


def check_fraction(option: str, value: Optional[float], *, zero: bool = False, one: bool = True) -> None:
    """A share in (0, 1] (``zero``/``one`` include the ends); NaN and infinities are refused."""
    import math

    if value is None:
        return
    lo, hi = ("[0" if zero else "(0"), ("1]" if one else "1)")
    inside = math.isfinite(value) and (value >= 0 if zero else value > 0) and (value <= 1 if one else value < 1)
    check(option, inside, f"must be in {lo}, {hi}, got {value}")


def check_choice(option: str, value: Optional[str], choices) -> None:
    if value is not None:
        check(option, value in choices, f"must be one of {', '.join(choices)}, got {value!r}")


def check_output_dir(option: str, path: Optional[Path]) -> None:
    """An output folder: absent (it is made) or a folder, not a file."""
    if path is not None:
        check(option, not path.exists() or path.is_dir(), f"{path} is a file; give a folder")


def check_output_file(option: str, path: Optional[Path]) -> None:
    """An output file: absent or a file, not a folder; its parent is made when missing."""
    if path is not None:
        check(option, not path.is_dir(), f"{path} is a folder; give a file path")


def check_model(option: str, model: Optional[str]) -> None:
    """A transformers model: a Hub id, or a local folder that exists (checked before any data is read)."""
    if model is not None:
        from robust_bench.models.loader import ModelError, check_model_id

        try:
            check_model_id(model)
        except ModelError as exc:
            fail(exc)


def check_input_file(option: str, path: Optional[Path]) -> None:
    """An input file that must exist."""
    if path is not None:
        check(option, path.exists(), f"{path} does not exist")
        check(option, path.is_file(), f"{path} is a folder; give a file")


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

