"""Mentions of names (Balasubramanian et al., 2020): token spans with a coarse type (``PER``,
``ORG``, ``LOC``) and an entity id, read from IOB tags (CoNLL-2003's gold annotation) and linked into
one entity per person within a document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from robust_bench.io.task_data import CONLL2003_TAGS

#: Entity types the engine can swap.
ENTITY_TYPES = ("PER", "ORG", "LOC")


@dataclass(frozen=True)
class Mention:
    """One mention: tokens ``[start, end)`` of type ``type`` referring to entity ``entity``; for an
    organisation, optionally its ``kind`` (a company sector or an institution kind) as the caller
    established it (otherwise :func:`plan_swaps` reads it from the name)."""

    start: int
    end: int
    type: str
    entity: str
    kind: str | None = None


def mentions_from_tags(tags: Sequence[str]) -> list[Mention]:
    """Entity spans of an IOB2 (or IOB1) tag sequence; each span is its own entity (``e<k>``).

    Parameters
    ----------
    tags : sequence of str

    Returns
    -------
    list of Mention

    Examples
    --------
    >>> [(m.start, m.end, m.type) for m in mentions_from_tags(["B-PER", "I-PER", "O", "B-ORG"])]
    [(0, 2, 'PER'), (3, 4, 'ORG')]
    """
    out: list[Mention] = []
    start, typ = None, None
    for i, t in enumerate(list(tags) + ["O"]):
        prefix, _, label = t.partition("-")
        if start is not None and (prefix in ("B", "O", "") or label != typ):
            out.append(Mention(start, i, typ, f"e{len(out)}"))
            start, typ = None, None
        if prefix in ("B", "I") and start is None:
            start, typ = i, label
    return out


def link_person_mentions(tokens, mentions: list[Mention]) -> list[Mention]:
    """Mentions of one person within a document share an entity id: a mention whose last word
    is the last word of a longer mention, or whose words equal it ("Hill" after "Chris Hill").

    Parameters
    ----------
    tokens : sequence of str
    mentions : list of Mention
        Person mentions.

    Returns
    -------
    list of Mention
        In order of position.

    Notes
    -----
    Balasubramanian et al. (2020), §2.3: a person's full name, first name alone and last name alone are one
    person's and change together.
    """
    out = []
    full: dict[str, str] = {}
    for m in sorted(mentions, key=lambda m: -(m.end - m.start)):
        words = tuple(tokens[m.start:m.end])
        key = None
        for w in (words, words[-1:], words[:1]):
            key = full.get(" ".join(w))
            if key:
                break
        if key is None:
            key = m.entity
            full.setdefault(" ".join(words), key)
            full.setdefault(words[-1], key)
            full.setdefault(words[0], key)
        out.append(Mention(m.start, m.end, m.type, key))
    return sorted(out, key=lambda m: m.start)


def document_mentions(sents) -> tuple[list[str], list[int], list[Mention]]:
    """The tokens and gold mentions of a CoNLL-2003 document (Balasubramanian et al., 2020: the
    gold NER tags): every type, so that the others are protected from the swap; each mention its own
    entity (``<type>:<start>``).

    Parameters
    ----------
    sents : sequence of dict
        The document's sentences as :func:`robust_bench.io.task_data.read_conll2003` reads them
        (``tokens``, ``ner_tags`` as indices into :data:`~robust_bench.io.task_data.CONLL2003_TAGS`).

    Returns
    -------
    tokens : list of str
        The document's tokens, flat.
    offsets : list of int
        Where each sentence starts in ``tokens``.
    mentions : list of Mention
        In order of sentence and position.
    """
    tokens = [w for r in sents for w in r["tokens"]]
    offsets, off = [], 0
    for r in sents:
        offsets.append(off)
        off += len(r["tokens"])
    mentions = []
    for r, o in zip(sents, offsets):
        tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
        for m in mentions_from_tags(tags):     # every type: the others are protected from the swap
            mentions.append(Mention(o + m.start, o + m.end, m.type, f"{m.type}:{o + m.start}"))
    return tokens, offsets, mentions


#: Why a person is left whole whose name ends one sentence and goes on at the start of the next.
BROKEN_NAME = "a name broken across two sentences"


def link_document_persons(tokens, sents, offsets, mentions: list[Mention]) -> tuple[list[Mention], dict[str, str]]:
    """A CoNLL-2003 document's mentions with its persons linked (:func:`link_person_mentions`: "Hill" after
    "Chris Hill", §2.3 of Balasubramanian et al., 2020, applied to news), and the persons to leave whole: a
    name that ends one sentence and goes on at the start of the next ("... , Desvonde" / "Botes 69 ..."),
    a table's line break inside a name, so neither half is a whole name (:data:`BROKEN_NAME`).

    Parameters
    ----------
    tokens : sequence of str
    sents : sequence of dict
        The document's sentences (``tokens``).
    offsets : sequence of int
        Where each sentence starts in ``tokens``.
    mentions : list of Mention
        From :func:`document_mentions`.

    Returns
    -------
    mentions : list of Mention
        The persons' mentions (linked, in order of position), then the others.
    refuse : dict of str to str
        Entity -> :data:`BROKEN_NAME`, for :func:`robust_bench.perturb.names.swaps.plan_swaps`.
    """
    mentions = link_person_mentions(tokens, [m for m in mentions if m.type == "PER"]) + \
        [m for m in mentions if m.type != "PER"]
    # a name that ends one sentence and goes on at the start of the next ("... , Desvonde" / "Botes
    # 69 ..."): a table's line break inside a name, so neither half is a whole name
    ends = {o + len(r["tokens"]) for r, o in zip(sents, offsets)}
    per = [m for m in mentions if m.type == "PER"]
    broken = {m.entity for m in per for n in per if m.end in ends and n.start == m.end}
    broken |= {n.entity for m in per for n in per if m.end in ends and n.start == m.end}
    return mentions, dict.fromkeys(broken, BROKEN_NAME)
