"""What a swap plan holds and how it is applied (Balasubramanian et al., 2020): the replaced spans
(:class:`Edit`), the plan (:class:`SwapPlan`), and the map from the original's token spans onto the
variant's (:class:`SpanMap`) that realigns NER tags and coreference spans when a name has more or
fewer tokens."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from robust_bench.perturb.names.mentions import mentions_from_tags

@dataclass(frozen=True)
class Edit:
    """One replaced span, as recorded in every variant.

    Attributes
    ----------
    entity : str
        Entity id within the example or document.
    type : str
        ``PER``, ``ORG`` or ``LOC``.
    role : str
        ``first``, ``last``, ``organisation``, ``country``, ``city``, or
        ``possessive`` (a bare apostrophe after a name ending in *s* becomes *'s*).
    original, replacement : str
        Space-joined tokens.
    start, end : int
        The replaced tokens in the original, ``[start, end)``.
    new_start, new_end : int
        Their replacement in the variant, ``[new_start, new_end)``.
    """

    entity: str
    type: str
    role: str
    original: str
    replacement: str
    start: int
    end: int
    new_start: int
    new_end: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


#: The edit type of an article or a possessive adjusted because of a swap ("an" -> "a" before the new name,
#: "'s" -> "'" after a plural one): not a swap of its own, and its original is no entity (issue 53). Its role
#: says which (``article`` or ``possessive``).
ADJUSTED = "adjusted"


@dataclass
class SwapPlan:
    """Replacement tokens per original token span, and the choices behind them.

    Attributes
    ----------
    spans : dict of (int, int) to (tuple of str, Edit fields)
        Non-overlapping original spans and what replaces them.
    mapping : dict of str to str
        ``role:original -> replacement`` for every name part replaced (one per distinct original).
    genders : dict of str to str
        Per person entity, the gender used (``male``, ``female``, or ``unknown`` when drawn).
    skipped : Counter
        Mentions left unchanged, by reason.
    refused : list of (int, int, str)
        Where persons' names were left unchanged and why (token span, reason), so that a caller can
        put each refusal on the row that holds it.
    """

    spans: dict = field(default_factory=dict)
    mapping: dict = field(default_factory=dict)
    genders: dict = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)
    refused: list = field(default_factory=list)


class SpanMap:
    """Maps token spans of the original onto the variant after :func:`apply_swaps`.

    A span whose ends fall on replaced tokens stretches to the whole replacement, so a mention
    "Mr. Hill" maps to "Mr. Rusnock" and an NER span "Chris Hill" to "Sam Rusnock".
    """

    def __init__(self, starts: Sequence[int], ends: Sequence[int], n_new: int):
        self._starts = list(starts)
        self._ends = list(ends)
        self.n_new = n_new

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The variant span of original tokens ``[start, end)``.

        Raises
        ------
        IndexError
            If the span lies outside the original tokens or is empty.
        """
        if not 0 <= start < end <= len(self._starts):
            raise IndexError(f"span [{start}, {end}) outside the {len(self._starts)} original tokens")
        return self._starts[start], max(self._ends[end - 1], self._starts[start])

    def token(self, i: int) -> tuple[int, int]:
        """The variant tokens ``[a, b)`` that original token ``i`` became (empty when dropped)."""
        return self._starts[i], self._ends[i]


def realign_tags(tags: Sequence[str], span_map: SpanMap, n_new: int) -> list[str]:
    """NER tags of the variant: every original entity span moves to its mapped span (B- then I-);
    tokens outside entities stay ``O``.

    Parameters
    ----------
    tags : sequence of str
    span_map : SpanMap
    n_new : int

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If two entities would overlap after mapping (cannot happen for swaps of whole names).
    """
    out = ["O"] * n_new
    for m in mentions_from_tags(tags):
        a, b = span_map.span(m.start, m.end)
        if any(t != "O" for t in out[a:b]):
            raise ValueError(f"entity at [{m.start}, {m.end}) overlaps another after realignment")
        for k in range(a, b):
            out[k] = ("B-" if k == a else "I-") + m.type
    return out


def apply_swaps(tokens: Sequence[str], plan: SwapPlan) -> tuple[list[str], list[Edit], SpanMap]:
    """Apply a plan.

    Returns
    -------
    new_tokens : list of str
    edits : list of Edit
        In order of position.
    span_map : SpanMap
        Original spans -> variant spans.

    Parameters
    ----------
    tokens : sequence of str
    plan : SwapPlan
    """
    new: list[str] = []
    starts = [0] * len(tokens)
    ends = [0] * len(tokens)
    edits: list[Edit] = []
    spans = sorted(plan.spans.items())
    k = 0
    i = 0
    while i < len(tokens):
        if k < len(spans) and spans[k][0][0] == i:
            (a, b), (words, entity, typ, role) = spans[k]
            ns = len(new)
            new.extend(words)
            for j in range(a, b):
                starts[j], ends[j] = ns, len(new)
            edits.append(Edit(entity=entity, type=typ, role=role, original=" ".join(tokens[a:b]),
                              replacement=" ".join(words), start=a, end=b, new_start=ns, new_end=len(new)))
            k += 1
            i = b
            continue
        starts[i] = len(new)
        new.append(tokens[i])
        ends[i] = len(new)
        i += 1
    return new, edits, SpanMap(starts, ends, len(new))


def span_map_from_edits(n_original: int, edits: Sequence[Mapping]) -> SpanMap:
    """Rebuild the :class:`SpanMap` of a stored variant from its token edits.

    Parameters
    ----------
    n_original : int
        Tokens in the original.
    edits : sequence of mapping
        The row's ``edits`` (token offsets: ``start``, ``end``, ``new_start``, ``new_end``).

    Returns
    -------
    SpanMap

    Raises
    ------
    ValueError
        If the edits overlap or fall outside the original.
    """
    starts, ends = [0] * n_original, [0] * n_original
    regions = sorted((int(e["start"]), int(e["end"]), int(e["new_start"]), int(e["new_end"])) for e in edits)
    pos, k, i = 0, 0, 0
    while i < n_original:
        if k < len(regions) and regions[k][0] == i:
            a, b, na, nb = regions[k]
            if b > n_original or na != pos:
                raise ValueError(f"edit [{a}, {b}) does not fit the original's {n_original} tokens")
            for j in range(a, b):
                starts[j], ends[j] = na, nb
            pos, i, k = nb, b, k + 1
            continue
        if k < len(regions) and regions[k][0] < i:
            raise ValueError(f"edits overlap at token {regions[k][0]}")
        starts[i], ends[i] = pos, pos + 1
        pos, i = pos + 1, i + 1
    return SpanMap(starts, ends, pos)
