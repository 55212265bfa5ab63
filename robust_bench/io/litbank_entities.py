"""LitBank's gold entity layer (Bamman, Popat & Shen, 2019): nested PER, FAC, GPE, LOC, VEH and ORG
mentions, proper and common, over the same tokens as LitBank's coreference files.

One token a line: the word, then up to four IOB2 columns, outermost layer first (a trailing tab and
empty columns are allowed); a blank line between sentences. ``names_coref`` takes its person names
from this layer, as the paper takes them "based on gold annotations in the OntoNotes corpus"
(Balasubramanian et al., 2020, §3).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from robust_bench.io.fileio import CONTROL_CHARS, iter_lines
from robust_bench import RobustBenchError

__all__ = ["LITBANK_ENTITY_TYPES", "EntityLayerError", "EntityLayer", "read_entity_layer"]

#: the six entity types of LitBank's annotation guidelines
LITBANK_ENTITY_TYPES = ("PER", "FAC", "GPE", "LOC", "VEH", "ORG")


class EntityLayerError(RobustBenchError, ValueError):
    """A malformed entity file; the message names the file and the line."""


@dataclass
class EntityLayer:
    """The tokens of one LitBank document and its gold entity mentions.

    Attributes
    ----------
    tokens : list of str
        Every token of the document, in order (sentences concatenated).
    mentions : list of (int, int, str)
        ``(start, end, type)``, token offsets into ``tokens`` (end exclusive), of every layer,
        nested mentions included; sorted by start, then longest first.
    """

    tokens: list[str] = field(default_factory=list)
    mentions: list[tuple[int, int, str]] = field(default_factory=list)

    def spans(self, entity_type: str) -> list[tuple[int, int]]:
        """The ``(start, end)`` of every mention of ``entity_type``."""
        return [(a, b) for a, b, t in self.mentions if t == entity_type]


def read_entity_layer(path: str | os.PathLike) -> EntityLayer:
    """Read one LitBank entity TSV.

    Raises
    ------
    EntityLayerError
        Naming the file and line of an empty word, a control character, a tag that is not ``O`` or
        ``B-``/``I-`` of :data:`LITBANK_ENTITY_TYPES`, an ``I-`` that continues no mention of its
        type, or a file without tokens.
    TextDecodeError
        On invalid UTF-8.
    """
    layer = EntityLayer()
    open_: dict[int, tuple[int, str]] = {}          # column -> (start, type) of the mention it is inside

    def close(col: int) -> None:
        start, typ = open_.pop(col)
        layer.mentions.append((start, len(layer.tokens), typ))

    for lineno, line in enumerate(iter_lines(path), start=1):
        where = f"{path}, line {lineno}"
        if not line.strip():
            for col in sorted(open_):
                close(col)
            continue
        cols = line.split("\t")
        word = cols[0]
        if not word.strip():
            raise EntityLayerError(f"{where}: empty word")
        bad = CONTROL_CHARS.search(word)
        if bad:
            raise EntityLayerError(f"{where}: control character U+{ord(bad.group()):04X} in word {word!r}")
        tags = [c.strip() for c in cols[1:]]
        for col, tag in enumerate(tags):
            if tag in ("", "O"):
                if col in open_:
                    close(col)
                continue
            prefix, _, typ = tag.partition("-")
            if prefix not in ("B", "I") or typ not in LITBANK_ENTITY_TYPES:
                raise EntityLayerError(f"{where}: column {col + 2}: tag {tag!r} is not O, B-TYPE or I-TYPE with a "
                                       f"type of {', '.join(LITBANK_ENTITY_TYPES)}")
            if prefix == "I":
                if col not in open_ or open_[col][1] != typ:
                    raise EntityLayerError(f"{where}: column {col + 2}: {tag} continues no {typ} mention")
                continue
            if col in open_:
                close(col)
            open_[col] = (len(layer.tokens), typ)
        for col in [c for c in open_ if c >= len(tags)]:
            close(col)
        layer.tokens.append(word)
    for col in sorted(open_):
        close(col)
    if not layer.tokens:
        raise EntityLayerError(f"{path}: no tokens")
    layer.mentions.sort(key=lambda m: (m[0], -(m[1] - m[0]), m[2]))
    return layer
