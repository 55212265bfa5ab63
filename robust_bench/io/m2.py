"""Reader of the M2 format of grammatical-error corrections (CoNLL-2013/2014, NUCLE, BEA-2019, ERRANT).

An M2 file is a sequence of blocks separated by blank lines. Each block has one ``S`` line with
the learner's tokenised sentence and any number of ``A`` lines, one per edit::

    S He go to the school .
    A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0

The six ``|||``-separated fields of an edit are the token span ``start end`` (0-based, end
exclusive, in the learner's tokens), the error tag, the correction (``-NONE-`` for a deletion),
``REQUIRED``, a comment and the annotator id. ``noop`` edits (``-1 -1``) say an annotator made no
correction.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

from robust_bench.io.fileio import iter_lines
from robust_bench import RobustBenchError

__all__ = ["M2Error", "M2Edit", "M2Sentence", "read_m2"]


class M2Error(RobustBenchError, ValueError):
    """Malformed M2 input; the message names the file and line."""


@dataclass(frozen=True)
class M2Edit:
    """One ``A`` line: span ``[start, end)`` of the learner tokens (-1, -1 for ``noop``), tag,
    correction text, annotator id and the line it came from (1-based)."""

    start: int
    end: int
    tag: str
    correction: str
    annotator: int
    line: int


@dataclass(frozen=True)
class M2Sentence:
    """One block: the learner's tokens and their edits."""

    tokens: tuple[str, ...]
    edits: tuple[M2Edit, ...]
    line: int


def read_m2(path: str | os.PathLike) -> Iterator[M2Sentence]:
    """Read an M2 file block by block.

    Parameters
    ----------
    path : path-like

    Yields
    ------
    M2Sentence

    Raises
    ------
    M2Error
        Naming the file and line: an ``A`` line with no ``S`` line in its block (which would
        otherwise attribute its edits to the previous sentence), a line that is neither, a
        malformed ``A`` line, or a span outside the sentence (for any tag).
    """
    path = str(path)
    tokens: tuple[str, ...] | None = None
    edits: list[M2Edit] = []
    start_line = 0

    def flush():
        return M2Sentence(tokens, tuple(edits), start_line)

    for lineno, line in enumerate(iter_lines(path), start=1):
        if not line.strip():
            if tokens is not None:
                yield flush()
            tokens, edits = None, []
            continue
        if line.startswith("S "):
            if tokens is not None:
                raise M2Error(f"{path}:{lineno}: a second 'S' line in one block (blocks are separated by "
                              "blank lines)")
            tokens, edits, start_line = tuple(line[2:].split(" ")), [], lineno
            continue
        if not line.startswith("A "):
            raise M2Error(f"{path}:{lineno}: expected an 'S' or 'A' line")
        if tokens is None:
            raise M2Error(f"{path}:{lineno}: edit before any sentence: this block has no 'S' line")
        fields = line[2:].split("|||")
        if len(fields) < 6:
            raise M2Error(f"{path}:{lineno}: expected 6 '|||'-separated fields, found {len(fields)}")
        try:
            start, end = (int(x) for x in fields[0].split())
            who = int(fields[5])
        except ValueError:
            raise M2Error(f"{path}:{lineno}: bad span {fields[0]!r} or annotator {fields[5]!r}") from None
        if (start, end) != (-1, -1) and not (0 <= start <= end <= len(tokens)):
            raise M2Error(f"{path}:{lineno}: span {start}-{end} outside the {len(tokens)}-token sentence")
        edits.append(M2Edit(start, end, fields[1], fields[2], who, lineno))
    if tokens is not None:
        yield flush()
