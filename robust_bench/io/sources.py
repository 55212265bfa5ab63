"""Where source corpora come from: a local mirror first, else the real download.

A builder names each source file twice: by its path inside a local mirror (the layout of
``../shared/data``) and by its download URL. :func:`resolve_sources` returns local paths:

* ``source_dir`` given explicitly (``robust-bench build --source PATH``): every file must be
  there, or :class:`SourceNotFoundError` lists what is missing. Nothing is downloaded.
* otherwise, ``$ROBUST_BENCH_SOURCES`` when set and holding all the files;
* otherwise the files are downloaded (and cached) with ``datasets.DownloadManager``.
  ``HF_DATASETS_OFFLINE=1`` makes that fail fast instead.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from robust_bench import RobustBenchError

__all__ = ["SOURCES_ENV", "TEXTFOOLER_URL", "TEXTFOOLER_DATA", "TEXTFOOLER_SAMPLES", "SourceNotFoundError", "SourceFile", "resolve_sources", "sha256_file", "describe_read"]

SOURCES_ENV = "ROBUST_BENCH_SOURCES"
#: The fixed, public 1,000-pair MNLI and SNLI samples of TextFooler (Jin et al., 2020; MIT), which
#: adversarial-NLP papers attack: every user downloads the same pairs, so configs built from them can
#: be pinned. ``TEXTFOOLER_DATA`` is the data folder at a fixed commit.
TEXTFOOLER_URL = "https://github.com/jind11/TextFooler"
TEXTFOOLER_DATA = "https://raw.githubusercontent.com/jind11/TextFooler/d47e72407a9910991559a923ab39d778fbfb4841/data"
logger = logging.getLogger(__name__)


class SourceNotFoundError(RobustBenchError, FileNotFoundError):
    """A source corpus is missing from the local directory that was named for it."""


@dataclass(frozen=True)
class SourceFile:
    """One source file: its place in a local mirror (or several accepted names, the first
    found wins) and its download URL."""

    local: str | tuple[str, ...]
    url: str

    @property
    def candidates(self) -> tuple[str, ...]:
        return (self.local,) if isinstance(self.local, str) else tuple(self.local)

    def find(self, root: Path) -> Path | None:
        for c in self.candidates:
            if (root / c).is_file():
                return root / c
        return None


#: TextFooler's samples (:data:`TEXTFOOLER_DATA`), by the split they come from, with their place in
#: ``../shared/data``: the MNLI dev samples that gec_mnli and lit_mnli are built from, and the SNLI
#: sample of lit_snli.
TEXTFOOLER_SAMPLES = {
    "mnli": {"validation_matched": SourceFile("glue/mnli/dev_matched_sample.tsv", f"{TEXTFOOLER_DATA}/mnli_matched"),
             "validation_mismatched": SourceFile("glue/mnli/dev_mismatched_sample.tsv",
                                                 f"{TEXTFOOLER_DATA}/mnli_mismatched")},
    "snli": {"validation": SourceFile("snli/dev_sample.tsv", f"{TEXTFOOLER_DATA}/snli")},
}


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """SHA-256 hex digest of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def resolve_sources(files: Mapping[str, SourceFile], *, source_dir: str | os.PathLike | None = None,
                    dl_manager=None) -> tuple[dict[str, str], str]:
    """Map each named source file to a local path.

    Parameters
    ----------
    files : mapping of str to SourceFile
    source_dir : path-like, optional
        An explicit local mirror; every file must exist there.
    dl_manager : datasets.DownloadManager, optional
        Used when no local mirror holds the files.

    Returns
    -------
    paths : dict of str to str
    origin : str
        ``"local:<dir>"`` or ``"download"``.

    Raises
    ------
    SourceNotFoundError
        If ``source_dir`` is given and lacks a file, or no local copy exists and no
        ``dl_manager`` is given.
    """
    if source_dir is not None:
        root = Path(source_dir).expanduser().resolve()
        found = {k: f.find(root) for k, f in files.items()}
        missing = [" or ".join(str(root / c) for c in files[k].candidates) for k, p in found.items() if p is None]
        if missing:
            raise SourceNotFoundError(
                f"source directory {root} lacks: " + ", ".join(missing)
                + f". Give a directory laid out like ../shared/data, or leave out --source and unset {SOURCES_ENV} to download.")
        return {k: str(p) for k, p in found.items()}, f"local:{root}"
    env = os.environ.get(SOURCES_ENV)
    if env:
        root = Path(env).expanduser().resolve()
        found = {k: f.find(root) for k, f in files.items()}
        if all(p is not None for p in found.values()):
            return {k: str(p) for k, p in found.items()}, f"local:{root}"
        logger.warning("%s=%s does not hold %s; downloading instead", SOURCES_ENV, env,
                       ", ".join(f.candidates[0] for f in files.values()))
    if dl_manager is None:
        raise SourceNotFoundError("no local copy of " + ", ".join(f.candidates[0] for f in files.values())
                                  + " and no download manager to fetch it")
    urls = {k: f.url for k, f in files.items()}
    return {k: str(v) for k, v in dl_manager.download(urls).items()}, "download"


def describe_read(path: str | os.PathLike, *, origin: str, url: str, rows: int) -> dict:
    """What the card says about a source file that was actually read.

    Parameters
    ----------
    path : path-like
        The file read.
    origin : str
        As returned by :func:`resolve_sources` (``"local:<dir>"`` or ``"download"``).
    url : str
        The download URL of the full file.
    rows : int
        Examples read from it.

    Returns
    -------
    dict
        ``file`` (the path inside the local mirror, or the URL downloaded), ``rows``, ``sha256``
        and ``sample`` (True for a ``*_sample*`` file, a subset of the official one).
    """
    path = Path(path)
    if origin.startswith("local:"):
        root = Path(origin[len("local:"):])
        shown = str(path)
        # the mirror may be a folder of symbolic links: try the path as given, then resolved
        for p, r in ((path.absolute(), root.absolute()), (path.resolve(), root.resolve())):
            try:
                shown = str(p.relative_to(r))
                break
            except ValueError:
                continue
    elif origin == "download":
        shown = url
    else:
        shown = str(path)
    return {"file": shown, "rows": int(rows), "sha256": sha256_file(path), "sample": "_sample" in path.name}
