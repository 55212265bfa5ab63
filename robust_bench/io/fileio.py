"""Small file helpers shared across the package: atomic writes, the content-keyed cache and figure saving."""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, TextIO, TypeVar

from robust_bench import RobustBenchError

__all__ = ["CONTROL_CHARS", "CACHE_ENV", "pyplot", "TextDecodeError", "read_text", "iter_lines", "read_lines", "atomic_open",
           "atomic_write_text", "atomic_write_bytes", "remove_stale_temporaries", "save_figure", "default_cache_dir", "cached"]

#: Where robust-bench caches what it computes once and reuses (encoder representations, pseudoword inventories,
#: spaCy annotations of whole corpora).
CACHE_ENV = "ROBUST_BENCH_CACHE"


def default_cache_dir() -> Path:
    """``$ROBUST_BENCH_CACHE`` or ``~/.cache/robust_bench``."""
    return Path(os.environ.get(CACHE_ENV, Path.home() / ".cache" / "robust_bench"))


T = TypeVar("T")


def cached(kind: str, key_parts: Iterable[bytes], compute: Callable[[], T], *, encode: Callable[[T], bytes],
           decode: Callable[[bytes], T], suffix: str, cache_dir: str | os.PathLike | None = None) -> T:
    """``compute()`` once, then read back from a file keyed by the content it depends on.

    The value is kept under ``cache_dir/kind/<key>.<suffix>``, where the key is the SHA-256 of the
    SHA-256s of ``key_parts``, so any change of an input, of the code or of a library version makes a new
    file, and what is not in the key (a rebuild's ``limit``, a second worker) reuses the old one. The file
    appears only when complete (:func:`atomic_open`). A file that ``decode`` cannot read (any exception:
    a damaged or foreign file) is recomputed and replaced; a cache folder that cannot be written costs
    the time saved, not the result (a warning says so).

    Parameters
    ----------
    kind : str
        The cache's sub-folder (``spacy-docs``, ``pseudowords``, ``verb-frames``).
    key_parts : iterable of bytes
        Everything the value depends on: the inputs' bytes, the source of the code that computes it,
        the versions of the libraries it calls.
    compute : callable
        Makes the value when no readable file has it.
    encode, decode : callable
        Value to bytes and back; ``decode(encode(v))`` must equal ``v``.
    suffix : str
        File extension, without the dot.
    cache_dir : path-like, optional
        Default :func:`default_cache_dir` (``$ROBUST_BENCH_CACHE``).

    Returns
    -------
    The value, computed or read back.

    Raises
    ------
    Whatever ``compute`` or ``encode`` raise; nothing from reading or writing the cache.
    """
    import hashlib
    import logging

    h = hashlib.sha256()
    for part in key_parts:
        h.update(hashlib.sha256(part).digest())
    path = Path(cache_dir if cache_dir is not None else default_cache_dir()) / kind / f"{h.hexdigest()}.{suffix}"
    if path.is_file():
        try:
            return decode(path.read_bytes())
        except Exception:  # noqa: BLE001 - a damaged or foreign cache file is recomputed and replaced
            pass
    value = compute()
    data = encode(value)
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        logging.getLogger(__name__).warning("cache %s not written (%s); the value is recomputed next time", path, exc)
    return value


#: C0 controls and DEL in a word: a NUL or an escape is corruption, never a word (the readers refuse them).
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class TextDecodeError(RobustBenchError, ValueError):
    """A text file is not valid UTF-8. The message names the file, the line (1-based) and the
    byte offset in the file (0-based) of the first invalid byte."""

    def __init__(self, path: str, line: int, offset: int, detail: str):
        self.path, self.line, self.offset = path, line, offset
        super().__init__(f"{path}:{line}: not valid UTF-8 at byte offset {offset} of the file ({detail})")


def read_text(path: str | os.PathLike) -> str:
    """The whole text of a UTF-8 file, without a leading byte-order mark.

    A UTF-8 BOM is legal (some editors write one) and is dropped. Line ends are left as they are.

    Raises
    ------
    TextDecodeError
        On invalid UTF-8, naming the file, the line and the byte offset in the whole file (not
        in a read buffer).
    FileNotFoundError, IsADirectoryError, PermissionError
        As ``open`` does.
    """
    data = Path(path).read_bytes()
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        return str(memoryview(data)[bom:], "utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start + bom
        line = data.count(b"\n", 0, start) + 1
        raise TextDecodeError(str(path), line, start, f"byte 0x{data[start]:02x}: {exc.reason}") from None


def iter_lines(path: str | os.PathLike) -> Iterator[str]:
    """Stream the lines of a UTF-8 file (see :func:`read_text`), without their ``\\n`` or ``\\r\\n``.

    Only ``\\n`` ends a line, as in the CoNLL formats: unlike ``str.splitlines``, form feeds, Unicode
    line separators and lone ``\\r`` stay inside a line, so line numbers match ``grep -n`` and editors.
    A UTF-8 BOM at the start is dropped. Memory stays flat for files of any size.

    Raises
    ------
    TextDecodeError
        On invalid UTF-8, naming the file, the line and the byte offset in the whole file.
    """
    offset = 0
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            skip = 3 if lineno == 1 and raw.startswith(b"\xef\xbb\xbf") else 0
            try:
                line = str(memoryview(raw)[skip:], "utf-8")
            except UnicodeDecodeError as exc:
                at = offset + skip + exc.start
                raise TextDecodeError(str(path), lineno, at,
                                      f"byte 0x{raw[skip + exc.start]:02x}: {exc.reason}") from None
            offset += len(raw)
            if line.endswith("\n"):
                line = line[:-2] if line.endswith("\r\n") else line[:-1]
            yield line


def read_lines(path: str | os.PathLike) -> list[str]:
    """All lines of a UTF-8 file; see :func:`iter_lines`."""
    return list(iter_lines(path))


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


@contextmanager
def atomic_open(path: str | os.PathLike, *, binary: bool = False) -> Iterator[TextIO | BinaryIO]:
    """Open ``path`` for writing text (bytes with ``binary``) so that it appears only when complete.

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
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as f:
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


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, binary=True) as f:
        f.write(data)
    return Path(path)


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporaries that :func:`atomic_open` left under ``folder`` when a writer was killed.

    Call it only when no other process writes into ``folder``. Returns the removed paths.
    """
    stale = [p for p in Path(folder).rglob(".*.tmp") if p.is_file()]
    for p in stale:
        p.unlink()
    return stale


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend (figures are only ever saved to files);
    imported on first use, since matplotlib is slow to import."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


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
