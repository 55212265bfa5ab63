"""CoNLL-2012 coreference files: OntoNotes (``*_gold_conll``) and LitBank (``*.conll``).

A file holds documents between ``#begin document (KEY); part NNN`` and ``#end document``;
sentences are separated by blank lines; each token line has whitespace-separated columns, the
word in the fourth and the coreference clusters in the last (``(3``, ``3)``, ``(3)``, ``(3|(5``,
``-`` or empty). OntoNotes files also carry named entities in the eleventh column (``(PERSON*``,
``*``, ``*)``); LitBank files leave it ``_``.

:func:`read_conll2012` returns :class:`CorefDocument` objects with flat token indices and
end-exclusive spans; :func:`write_conll2012` writes documents back (the words and the
coreference column, the others ``-``), so system output can be scored or predicted clusters
handed to another tool. Malformed input raises :class:`CorefDataError` naming the file, the line
and the column.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from robust_bench.io.fileio import CONTROL_CHARS, atomic_open, iter_lines
from robust_bench import RobustBenchError

__all__ = ["CorefDataError", "CorefDocument", "read_conll2012", "write_conll2012"]

_BEGIN = re.compile(r"#begin document \(?([^);]+)\)?;?\s*(?:part\s+(\d+))?")
_COREF_PART = re.compile(r"^(\()?(\d+)(\))?$")


class CorefDataError(RobustBenchError, ValueError):
    """Malformed CoNLL-2012 input; the message names the file, the line and the column."""


@dataclass
class CorefDocument:
    """One document (one part) of a CoNLL-2012 file.

    Attributes
    ----------
    key : str
        ``"<document id>/<part>"``, unique within a corpus.
    tokens : list of str
        All words, flat.
    sentence_starts : list of int
        Index of each sentence's first token in ``tokens``.
    clusters : list of list of (int, int)
        Gold clusters, each a list of end-exclusive token spans in document order; clusters in
        order of first mention.
    entities : list of (int, int, str)
        Named-entity spans and their OntoNotes labels (empty for LitBank).
    """

    key: str
    tokens: list[str] = field(default_factory=list)
    sentence_starts: list[int] = field(default_factory=list)
    clusters: list[list[tuple[int, int]]] = field(default_factory=list)
    entities: list[tuple[int, int, str]] = field(default_factory=list)


def _parse_coref(cell: str, index: int, opened: dict, spans: dict, where: str) -> None:
    if cell in ("-", "_", ""):
        return
    for part in cell.split("|"):
        m = _COREF_PART.match(part)
        if not m:
            raise CorefDataError(f"{where}: coreference column: cannot read {part!r} (expected (N, N) or (N))")
        open_, cid, close = m.group(1), int(m.group(2)), m.group(3)
        if open_ and close:
            spans.setdefault(cid, []).append((index, index + 1))
        elif open_:
            opened.setdefault(cid, []).append(index)
        elif close:
            if not opened.get(cid):
                raise CorefDataError(f"{where}: coreference column: {part!r} closes cluster {cid}, which is not open")
            start = opened[cid].pop()
            spans.setdefault(cid, []).append((start, index + 1))
        else:
            raise CorefDataError(f"{where}: coreference column: {part!r} has no bracket")


def read_conll2012(path: str | os.PathLike) -> list[CorefDocument]:
    """Read every document of a CoNLL-2012 file.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    list of CorefDocument

    Raises
    ------
    CorefDataError
        On a token line outside a document, too few columns, an unreadable coreference or
        named-entity cell, a cluster closed before it opens or left open, a document without tokens,
        a control character (NUL, escape) in a word, or a file with no document at all.
    FileNotFoundError
        If ``path`` does not exist.
    """
    path = Path(path)
    docs: list[CorefDocument] = []
    doc: CorefDocument | None = None
    opened: dict = {}
    spans: dict = {}
    ne_open: tuple[int, str] | None = None
    in_sentence = False

    def finish(lineno: int) -> None:
        nonlocal doc
        assert doc is not None
        left = [cid for cid, st in opened.items() if st]
        if left:
            raise CorefDataError(f"{path}:{lineno}: document {doc.key}: clusters {left} are opened but never closed")
        if not doc.tokens:
            raise CorefDataError(f"{path}:{lineno}: document {doc.key} has no tokens")
        doc.clusters = [sorted(set(s)) for _, s in sorted(spans.items(), key=lambda kv: min(kv[1]))]
        docs.append(doc)
        doc = None

    for lineno, line in enumerate(iter_lines(path), start=1):
        if line.startswith("#begin document"):
            if doc is not None:
                raise CorefDataError(f"{path}:{lineno}: #begin document inside document {doc.key}")
            m = _BEGIN.match(line)
            if not m:
                raise CorefDataError(f"{path}:{lineno}: cannot read the document header {line!r}")
            doc = CorefDocument(key=f"{m.group(1).strip()}/{int(m.group(2) or 0)}")
            opened, spans, ne_open, in_sentence = {}, {}, None, False
            continue
        if line.startswith("#end document"):
            if doc is None:
                raise CorefDataError(f"{path}:{lineno}: #end document without #begin document")
            finish(lineno)
            continue
        if not line.strip():
            in_sentence = False
            continue
        if doc is None:
            raise CorefDataError(f"{path}:{lineno}: token line outside a document")
        cols = line.split("\t") if "\t" in line else line.split()
        cols = [c.strip() for c in cols]
        if len(cols) < 5:
            raise CorefDataError(f"{path}:{lineno}: expected at least 5 columns, found {len(cols)}")
        index = len(doc.tokens)
        if not in_sentence:
            doc.sentence_starts.append(index)
            in_sentence = True
        where = f"{path}:{lineno}"
        bad = CONTROL_CHARS.search(cols[3])
        if bad:
            raise CorefDataError(f"{where}: word column: control character U+{ord(bad.group()):04X} in {cols[3]!r} "
                                 "(a binary or corrupted file?)")
        doc.tokens.append(cols[3])
        _parse_coref(cols[-1], index, opened, spans, where)
        if len(cols) > 11:
            ne = cols[10]
            if ne.startswith("("):
                if ne_open is not None:
                    raise CorefDataError(f"{where}: named-entity column: {ne!r} opens inside an open entity")
                label = ne.strip("()*")
                if ne.endswith(")"):
                    doc.entities.append((index, index + 1, label))
                else:
                    ne_open = (index, label)
            elif ne.endswith(")"):
                if ne_open is None:
                    raise CorefDataError(f"{where}: named-entity column: {ne!r} closes no entity")
                doc.entities.append((ne_open[0], index + 1, ne_open[1]))
                ne_open = None
    if doc is not None:
        raise CorefDataError(f"{path}: document {doc.key} has no #end document")
    if not docs:
        raise CorefDataError(f"{path}: no document (an empty or truncated file?); a source file must hold at "
                             "least one '#begin document' ... '#end document'")
    return docs


def _coref_cells(n: int, clusters: Sequence[Sequence[tuple[int, int]]]) -> list[str]:
    cells: list[list[str]] = [[] for _ in range(n)]
    for cid, cluster in enumerate(clusters):
        for a, b in cluster:
            if b - a == 1:
                cells[a].append(f"({cid})")
            else:
                cells[a].append(f"({cid}")
                cells[b - 1].append(f"{cid})")
    return ["|".join(c) if c else "-" for c in cells]


def write_conll2012(docs: Iterable[CorefDocument], path: str | os.PathLike) -> Path:
    """Write documents in CoNLL-2012 layout (atomically: a temporary file, then a rename).

    Only the document id, part, word index, word and coreference columns are filled; the
    others are ``-``.
    """
    path = Path(path)
    with atomic_open(path) as f:
        for doc in docs:
            name, _, part = doc.key.rpartition("/")
            f.write(f"#begin document ({name}); part {int(part or 0):03d}\n")
            cells = _coref_cells(len(doc.tokens), doc.clusters)
            bounds = list(doc.sentence_starts) + [len(doc.tokens)]
            for s, (a, b) in enumerate(zip(bounds, bounds[1:])):
                for i in range(a, b):
                    f.write("\t".join([name, str(int(part or 0)), str(i - a), doc.tokens[i]] + ["-"] * 7
                                      + [cells[i]]) + "\n")
                f.write("\n")
            f.write("#end document\n")
    return path
