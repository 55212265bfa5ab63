"""Every plausible operation of the requested types on a parsed sentence
(:func:`candidate_operations`), and the operations of a confusion-set type at one site."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, MutableMapping, Sequence

from robust_bench.perturb.gec.lexical import _LAZY, _POSTMODIFIERS
from robust_bench.perturb.gec.sets import (ARTICLES, CONFUSION_SETS, DELETE, ERROR_TYPES, EXTRANEOUS_PREPOSITIONS,
                                           INSERT, PREPOSITIONS, SUBSTITUTE, SWAP, TRANSITIONS)
from robust_bench.perturb.gec.sites import (_APPROX, _CURRENCY, _DATES, _NO_NN, _QUANTIFIERS, _all_caps,
                                            _article_members, _fixed, _headline, _in_title, _misordered, _mostly_mass,
                                            _temporal_object, _word_part)
from robust_bench.perturb.gec.tokens import Operation, Token, _case_like, _children, _left_edge
from robust_bench.perturb.gec.weights import Confusions


def candidate_operations(tokens: Sequence[Token], *, protected: Iterable[int] = (),
                         no_insert_before: Iterable[int] = (), types: Sequence[str] = ERROR_TYPES,
                         sites_only: bool = False, refusals: MutableMapping[str, int] | None = None,
                         confusions: "Confusions | None" = None, unsure: Iterable[int] = ()):
    """Every plausible operation of the requested types on a parsed sentence.

    Parameters
    ----------
    tokens : sequence of Token
    protected : iterable of int
        Token indices that no operation may substitute, delete or move (entity tokens).
    no_insert_before : iterable of int
        Positions before which nothing may be inserted (inside an entity).
    types : sequence of str
        Error types to generate.

    sites_only : bool
        Internal: return ``(operations, sites)`` with the confusion-set types left as sites
        (see :func:`_site_ops`) instead of expanded.
    refusals : mutable mapping of str to int, optional
        Counts candidates the engine's checks refuse, by check name.
    confusions : Confusions, optional
        Confusion-set operations with weight 0 are left out (the attacks' operation sets are the
        corpora's); default :meth:`Confusions.learner_default`.
    unsure : iterable of int
        Tokens whose part of speech a second tagger disputes (:func:`robust_bench.perturb.checks.
        tag_disagreements`): Nn, SVA, Vform and Wchoice, which rest on the tag, leave them alone.

    Returns
    -------
    list of Operation
        In a deterministic order (by type, then site).

    Raises
    ------
    ValueError
        On an unknown error type.
    """
    bad = [t for t in types if t not in ERROR_TYPES]
    if bad:
        raise ValueError(f"unknown error types {bad}; expected a subset of {ERROR_TYPES}")
    prot = set(protected)
    no_ins = set(no_insert_before)
    kids = _children(tokens)
    ops: list[Operation] = []
    n = len(tokens)
    sites: list[tuple[str, str, int]] = []
    caps = _all_caps(tokens)
    headline = _headline(tokens)
    doubted = set(unsure)
    sentence = _Sentence(tokens, n, kids, prot, no_ins, caps, doubted, sites)
    for kind in types:
        if kind == "ArtOrDet" and headline:
            continue        # a headline drops articles: adding or dropping one gives another headline
        if kind == "ArtOrDet":
            _article_sites(sentence, kind)
        elif kind == "Prep":
            _preposition_sites(sentence, kind)
        elif kind == "Trans":
            _transition_sites(sentence, kind)
        elif kind in _LAZY:
            positions, ops_at = _LAZY[kind]
            for i in positions(tokens, prot | set(unsure)):
                ops.extend(ops_at(tokens[i], i, refusals, tokens))
        elif kind == "Worder":
            ops.extend(_word_order_ops(sentence, kind))
    if sites_only:
        return ops, sites
    conf = confusions if confusions is not None else _default_confusions()
    for site in sites:
        ops.extend(o for o in _site_ops(tokens, site) if conf.uniform_weights or conf.op_weight(o) > 0)
    return ops


@dataclass
class _Sentence:
    """A sentence while :func:`candidate_operations` collects its sites: the tokens, what no operation may
    touch (``prot``) or insert before (``no_ins``), and the confusion-set sites found so far, in order."""

    tokens: Sequence[Token]
    n: int
    kids: list[list[int]]
    prot: set[int]
    no_ins: set[int]
    caps: bool
    doubted: set[int]
    sites: list[tuple[str, str, int]]

    def free(self, i: int) -> bool:
        return 0 <= i < self.n and i not in self.prot

    def set_ops(self, kind: str, i: int, members: Sequence[str]):
        self.sites.append((kind, "tok", i))

    def insert_ops(self, kind: str, gap: int, members: Sequence[str], where: str = "gap"):
        tokens, n, caps, no_ins, prot = self.tokens, self.n, self.caps, self.no_ins, self.prot
        if caps or gap >= n or not tokens[gap].text.isalpha():
            return
        if gap in no_ins or gap == 0 and n and tokens[0].text[:1].isupper() and tokens[0].pos != "PROPN" \
                and tokens[0].text != "I":
            # no insertion before a capitalised sentence start: it would need a case change too
            return
        if gap in prot or (gap > 0 and gap - 1 in prot and gap in prot):
            return
        self.sites.append((kind, where, gap))


def _article_sites(sentence: _Sentence, kind: str) -> None:
    """ArtOrDet: articles that may be substituted or deleted, and gaps before a bare mass noun."""
    tokens, n, kids, caps, doubted = sentence.tokens, sentence.n, sentence.kids, sentence.caps, sentence.doubted
    free, set_ops, insert_ops = sentence.free, sentence.set_ops, sentence.insert_ops
    for i, t in enumerate(tokens):
        if free(i) and t.lower in ARTICLES and t.pos == "DET" and not caps and t.head > i \
                and not _in_title(tokens, i) \
                and tokens[t.head].pos in ("NOUN", "PROPN", "ADJ", "NUM") and i + 1 < n \
                and tokens[i + 1].text.isalpha():
            set_ops(kind, i, ARTICLES)
    for i, t in enumerate(tokens):
        if t.pos == "NOUN" and t.tag in ("NN", "NNS") and free(i):
            if any(tokens[c].dep in ("det", "poss", "nmod:poss") or tokens[c].pos in ("DET", "PRON", "NUM")
                   for c in kids[i]):
                continue
            if t.dep in ("compound",):
                continue
            gap = _left_edge(tokens, kids, i)
            if gap > 0 and (tokens[gap - 1].pos in ("DET", "PRON", "ADJ", "NOUN", "PROPN", "NUM")
                            or tokens[gap - 1].tag in ("VBG", "VBN") and tokens[gap - 1].head == i):
                continue    # "printed packaging a company": a participle modifying the noun
            if tokens[gap].pos not in ("ADJ", "NOUN") or tokens[gap].lower in _QUANTIFIERS:
                continue    # "the not many attractions", "the several reasons"
            if gap > 0 and tokens[gap - 1].text in (")", "]", '"', "''", "'"):
                continue    # "BIOS (Basic Input Output System) the update": inside a compound
            if not t.text.isalpha() or not t.text.islower() or len(t.text) < 3 or t.lower in _NO_NN:
                continue    # "v" in a score line, a capitalised name read as a noun
            if i in doubted or _left_edge(tokens, kids, i) in doubted:
                continue    # a second tagger reads the noun (or the phrase's first word) otherwise
            if t.tag != "NN" or not _mostly_mass(t.lemma.lower()) or gap != i:
                continue    # "a" before a bare count noun ("go to a school", "sign a deal") or an
                #             adjective ("a technological infrastructure") is standard English; before
                #             a bare mass noun it is the learner's error ("an information")
            if any(c > i and tokens[c].dep in _POSTMODIFIERS for c in kids[i]):
                continue    # "account for variety in firm size" -> "the variety in ...": a noun with a
                #             modifier after it takes an article or none, both standard English
            # a plural head takes only "the" ("a books" is no learner's article error)
            insert_ops(kind, gap, ARTICLES, "gap" if t.tag == "NN" else "gap:pl")


def _preposition_sites(sentence: _Sentence, kind: str) -> None:
    """Prep: prepositions that may be substituted or dropped, and gaps after a verb that learners follow
    with an extraneous preposition."""
    tokens, n, kids, caps, doubted = sentence.tokens, sentence.n, sentence.kids, sentence.caps, sentence.doubted
    free, set_ops, insert_ops = sentence.free, sentence.set_ops, sentence.insert_ops
    for i, t in enumerate(tokens):
        if free(i) and t.lower in PREPOSITIONS and t.pos == "ADP" and not _fixed(tokens, i) \
                and not (caps and t.text.isupper()) and not _in_title(tokens, i) and i not in doubted \
                and not _word_part(tokens, i) \
                and not (i > 0 and tokens[i - 1].tag == "RP") \
                and i + 1 < n and tokens[i + 1].pos != "PUNCT" \
                and not (t.lower == "to" and i + 1 < n and (tokens[i + 1].tag == "VB" or i + 1 in doubted)):
            # "year-on-year" -> "year-at-year"; a preposition with no object ("for , goals against") is
            # a table's column head; a preposition after a particle is part of the verb
            # ("closed in on victory", "made up for lost time"); "to" before a word the taggers dispute
            # may be the infinitive's ("rates to cool economic growth", "cool" read as an adjective)
            # (blind audit of gec_conll2003, v10)
            set_ops(kind, i, PREPOSITIONS)
    for i, t in enumerate(tokens):
        verb = tokens[t.head]
        if t.dep in ("obj", "dobj") and t.pos in ("NOUN", "PROPN") and verb.pos == "VERB" \
                and verb.lemma.lower() in EXTRANEOUS_PREPOSITIONS:
            gap = _left_edge(tokens, kids, i)
            if gap > 0 and gap == t.head + 1 and tokens[gap - 1].pos != "ADP":
                insert_ops(kind, gap, PREPOSITIONS, "gap:" + verb.lemma.lower())


def _transition_sites(sentence: _Sentence, kind: str) -> None:
    """Trans: connectives that join clauses, and gaps at a clause start after a comma."""
    tokens, n, kids, caps = sentence.tokens, sentence.n, sentence.kids, sentence.caps
    free, set_ops, insert_ops = sentence.free, sentence.set_ops, sentence.insert_ops
    for i, t in enumerate(tokens):
        if not free(i) or t.lower not in TRANSITIONS or _fixed(tokens, i) or caps or _in_title(tokens, i):
            continue
        relative = t.lower in ("which", "that", "where") and (
            t.feat("PronType") == "Rel" or t.tag in ("WDT", "WRB") and tokens[t.head].dep in ("relcl", "acl:relcl"))
        if t.lower in ("which", "that", "where") and not relative:
            continue        # "I think that ..." -> "which" is no connective confusion
        if t.lower == "as" and not (t.pos == "SCONJ" and t.dep == "mark"):
            continue        # "as big as", "as a child": not the causal connective
        if t.lower in ("as", "because") and not any(
                tokens[c].dep.startswith("nsubj") for c in kids[t.head]):
            continue        # "quoted as saying": no clause of its own
        # a connective adverb modifies a clause (its head is a verb), not a degree adverb ("so big")
        clausal_adv = t.pos == "ADV" and t.dep in ("advmod", "cc") and tokens[t.head].pos in ("VERB", "AUX")
        if i == 0 or tokens[i - 1].text in (".", "!", "?", ";", '"', "``", "''", ":"):
            continue        # "But ..." -> "However ...", "So ..." -> "Therefore ...": standard English at a
            #                 sentence start; the learner's error is the adverb joining clauses ("X, however Y")
        if t.lower == "so" and t.head == i + 1 and tokens[i + 1].tag in ("JJ", "JJR", "RB", "VBN"):
            continue        # the degree adverb of "so shaken ... that", not the connective
        if t.pos in ("CCONJ", "SCONJ") or clausal_adv or relative:
            set_ops(kind, i, TRANSITIONS)
    for i in range(1, n):
        t = tokens[i]
        if tokens[i - 1].text == "," and t.dep in ("nsubj", "nsubjpass", "nsubj:pass", "expl") \
                and tokens[t.head].dep in ("conj", "advcl", "ccomp", "parataxis", "root") \
                and _left_edge(tokens, kids, t.head) <= i:
            insert_ops(kind, i, TRANSITIONS)


def _word_order_ops(sentence: _Sentence, kind: str) -> list[Operation]:
    """Worder: swaps of an adverb with its neighbouring adjective, participle or modal, where the new order
    is one learners write and English does not."""
    tokens, n, kids = sentence.tokens, sentence.n, sentence.kids
    free = sentence.free
    ops: list[Operation] = []
    for i, t in enumerate(tokens):
        if not free(i) or t.pos != "ADV" or not t.text.isalpha() or t.tag == "WRB" or t.lower in _APPROX:
            continue        # "how bad" -> "bad how" is no learner's word order
        for j in (i - 1, i + 1):
            if not free(j):
                continue
            o = tokens[j]
            if _fixed(tokens, i) or _fixed(tokens, j) or _word_part(tokens, min(i, j)) \
                    or _word_part(tokens, max(i, j)):
                continue    # "anti so-intellectual", "has back been and forth"
            if t.head != j and o.head != i:
                continue    # "not immediately known when": the adverb does not modify its neighbour
            if o.pos == "ADJ" and i < j and t.head == j:
                continue    # a degree adverb before its adjective: "too drastic" -> "drastic too" reads as "also"
            if any(tokens[k].lower == t.lower for k in range(max(0, i - 3), min(n, i + 4)) if k != i):
                continue    # a repeated intensifier ("extremely, extremely strong")
            if not _misordered(tokens, kids, i, j):
                continue
            if o.pos == "ADJ" or o.tag in ("VBN", "VBG", "MD"):
                a, b = min(i, j), max(i, j)
                if a == 0 and tokens[0].text[:1].isupper():
                    continue  # would move the capitalised first word
                ops.append(Operation(kind, SWAP, a, f"{tokens[a].text} {tokens[b].text}",
                                     f"{tokens[b].text} {tokens[a].text}"))
    return ops



@lru_cache(maxsize=1)
def _default_confusions() -> "Confusions":
    """One shared :meth:`Confusions.learner_default` for calls without confusions (read only)."""
    return Confusions.learner_default()


def _site_ops(tokens: Sequence[Token], site: tuple[str, str, int]) -> list[Operation]:
    """The operations of a confusion-set type at one site: every other member substituted for
    the token and its deletion (``"tok"``), or every member inserted (``"gap"``)."""
    kind, where, i = site
    members = CONFUSION_SETS[kind][:-1]
    if kind == "ArtOrDet":
        members = _article_members(tokens, site)
    elif kind == "Prep" and where.startswith("gap:"):
        members = EXTRANEOUS_PREPOSITIONS[where[4:]]
    elif kind == "Prep" and i + 1 < len(tokens) and (tokens[i + 1].pos == "NUM" or tokens[i + 1].text[:1].isdigit()
                                                     or tokens[i + 1].lower in _DATES or tokens[i + 1].lower in _CURRENCY):
        # "to 6.1 percent", "from 1.8 to 4.4", "from $ 1.54 trillion", "by Saturday": before a number or a date the preposition
        # carries the fact (a range, a deadline), and changing or dropping it changes the meaning
        return []
    if where.startswith("gap"):
        return [Operation(kind, INSERT, i, "", m) for m in members]
    t = tokens[i]
    text, low = t.text, t.lower
    if text == low:
        ops = [Operation(kind, SUBSTITUTE, i, text, m) for m in members if m != low]
    else:
        ops = [Operation(kind, SUBSTITUTE, i, text, _case_like(text, m)) for m in members if m != low]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    prev = tokens[i - 1].lower if i > 0 else ""
    if kind == "Prep" and nxt is not None and nxt.pos in ("ADP", "ADV"):
        return ops          # "climbed to above 20,000 feet" -> "climbed above": still standard English
    if kind == "Prep" and _temporal_object(tokens, i):
        return ops          # "at this time" -> "this time": a time phrase is an adverbial without its preposition
    head = tokens[tokens[i].head]
    if kind == "ArtOrDet" and (prev == "as" or head.tag != "NN" or _mostly_mass(head.lemma.lower())):
        # "its status as a political capital" -> "as political capital": a role needs no article; and
        # "the automatic weapons" -> "automatic weapons" is a generic plural: only a singular common noun
        # needs its article
        return ops
    ops.append(Operation(kind, DELETE, i, text, ""))
    return ops
