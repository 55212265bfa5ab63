"""Small file helpers shared across the package: atomic writes and figure saving."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, TextIO

__all__ = ["atomic_open", "atomic_write_text", "remove_stale_temporaries", "save_figure"]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


@contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator[TextIO]:
    """Open ``path`` for writing text so that it appears only when complete.

    The text goes to a temporary file beside ``path``, which is renamed over it on success
    and removed on any error or interruption, so readers never see a half-written file. A process
    killed outright (SIGKILL, power loss) can leave the hidden temporary ``.NAME.XXXX.tmp`` behind,
    never ``path`` itself half-written; :func:`remove_stale_temporaries` clears those.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    # mkstemp makes the file private (0600); give it the mode a plain open() would have
    os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_UMASK)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path) as f:
        f.write(text)
    return Path(path)


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporaries that :func:`atomic_open` left under ``folder`` when a writer was killed.

    Call it only when no other process writes into ``folder``. Returns the removed paths.
    """
    stale = [p for p in Path(folder).rglob(".*.tmp") if p.is_file()]
    for p in stale:
        p.unlink()
    return stale


def save_figure(fig, out_stem: str | os.PathLike, *, dpi: int = 150) -> list[Path]:
    """Save a matplotlib figure as PNG and SVG next to each other, then close it."""
    import matplotlib.pyplot as plt

    stem = Path(out_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)
    return paths
