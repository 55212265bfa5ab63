"""The parsed sentence the engine works on (:class:`Token`), the candidate edit
(:class:`Operation`), and the parse and inflection helpers every error type uses."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple, Sequence

from robust_bench.perturb.gec.sets import SWAP


@dataclass(frozen=True)
class Token:
    """One parsed token. ``head`` is the 0-based index of the head (itself for the root)."""

    text: str
    tag: str
    pos: str
    dep: str
    head: int
    lemma: str
    morph: str = ""
    space: bool = True

    @cached_property
    def lower(self) -> str:
        return self.text.lower()

    def feat(self, name: str) -> str | None:
        for item in self.morph.split("|"):
            k, _, v = item.partition("=")
            if k == name:
                return v
        return None


def tokens_from_doc(doc) -> list[Token]:
    """Convert a spaCy ``Doc`` to :class:`Token` objects."""
    return [Token(text=t.text, tag=t.tag_, pos=t.pos_, dep=t.dep_.lower(), head=t.head.i, lemma=t.lemma_ or t.text,
                  morph=str(t.morph), space=bool(t.whitespace_)) for t in doc]


class Operation(NamedTuple):
    """A candidate edit. ``position`` is an original token index; an insertion goes before it
    (``position == n`` appends). A swap exchanges ``position`` and ``position + 1``.
    (A named tuple: sentences produce thousands of candidates, and tuples are cheap to make.)"""

    type: str
    operation: str
    position: int
    original: str
    replacement: str

    @property
    def cost(self) -> int:
        """Tokens modified: 2 for a swap, 1 otherwise."""
        return 2 if self.operation == SWAP else 1

    def as_edit(self) -> dict:
        return {"type": self.type, "position": self.position, "operation": self.operation,
                "original": self.original, "replacement": self.replacement}


def _case_like(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _children(tokens: Sequence[Token]) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in tokens]
    for i, t in enumerate(tokens):
        if t.head != i:
            kids[t.head].append(i)
    return kids


_NOT_IN_PHRASE = ("case", "mark", "cc", "punct", "conj", "acl:relcl", "relcl", "acl", "appos", "parataxis")


def _left_edge(tokens: Sequence[Token], kids: list[list[int]], i: int) -> int:
    """First token of the phrase headed by ``i``: its subtree without the markers that
    precede a phrase (a case-marking preposition, a subordinator, a conjunction) or attach
    clauses to it."""
    stack, best = [i], i
    while stack:
        u = stack.pop()
        best = min(best, u)
        stack.extend(c for c in kids[u] if tokens[c].dep not in _NOT_IN_PHRASE)
    return best


_LEMMINFLECT_TAGS = {"NN", "NNS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "JJ", "JJR", "JJS", "RB", "RBR", "RBS"}


@lru_cache(maxsize=100_000)
def _inflect(lemma: str, tag: str) -> str | None:
    from lemminflect import getAllInflections, getInflection

    if tag not in _LEMMINFLECT_TAGS:
        return None
    upos = {"N": "NOUN", "V": "VERB", "J": "ADJ", "R": "ADV"}[tag[0]]
    if not getAllInflections(lemma, upos=upos):
        return None         # not in lemminflect's dictionary: its rules guess ("meted" -> "metting")
    forms = getInflection(lemma, tag=tag)
    return forms[0] if forms else None


def _subject_of(tokens: Sequence[Token], verb: int) -> int | None:
    """The noun a verb agrees with: its subject, or the subject of the main verb an auxiliary belongs to
    ("attorneys have given"); through a relative pronoun, its antecedent ("organisations which have")."""
    heads = {verb, tokens[verb].head} if tokens[verb].dep in ("aux", "cop", "aux:pass", "auxpass") else {verb}
    for c, t in enumerate(tokens):
        if t.head in heads and c not in heads and t.dep.startswith("nsubj"):
            if t.lower in ("which", "that", "who") and tokens[t.head].dep in ("relcl", "acl:relcl", "acl"):
                return tokens[t.head].head
            return c
    return None
