"""Grammatical-error engine of Yin et al. (2020), "On the Robustness of Language Encoders
against Grammatical Errors".

Eight learner-error types (Table 1), each a set of operations on a parsed sentence:

============ ==================================================================================
ArtOrDet     {a, an, the, ø}: substitute or delete an article; insert one before a bare noun phrase
Prep         29 prepositions + ø: substitute or delete a preposition; insert one before a direct object
Trans        18 transition words + ø: substitute or delete a connective; insert one at a clause start
Nn           singular <-> plural of a common noun (lemminflect)
SVA          3SG <-> non-3SG of a present-tense verb or auxiliary (lemminflect)
Vform        present / past / progressive / perfect form of a verb (§3.1; lemminflect)
Wchoice      one of up to ten WordNet synonyms, inflected like the word (NLTK WordNet)
Worder       swap an adverb with its neighbouring adjective, participle or modal
============ ==================================================================================

An operation is only proposed where the parse supports it, as the paper does with its parse
trees: an article must be a determiner, a preposition an adposition, a bare noun phrase a noun
without determiner or possessor, and so on. Protected tokens (named-entity tokens in NER data)
are never touched, moved or split.

Every operation must also pass the validity checks of :mod:`robust_bench.perturb.checks` (the
rows must be what the paper means, ``../shared/VALIDITY.md``): an indefinite article takes the form the
next word's sound needs and no edit leaves a/an disagreeing with its next word; every written token is
an English word; word-choice substitutes are common words (Zipf >= 3) from the word's most frequent
WordNet senses, and the builder and the attacks confirm each one in context (same PTB tag on
re-tagging, sentence and word meaning kept); nothing is inserted into an all-caps headline. Refused
candidates are counted by check.

The probabilistic transformation (§3.1) samples an error type from the type distribution
(over the types applicable to the sentence), then a random plausible position for that type,
then the replacement by the substitution weights w_ij, and repeats until the error budget is
spent. Yin et al. estimate w_ij and the type distribution from NUCLE; NUCLE is licensed, so the
type distribution defaults to uniform and the substitution weights to :data:`LEARNER_CONFUSIONS`
(see :meth:`Confusions.learner_default`); ``fit-confusions`` estimates both from any M2 file, and
``Confusions()`` is the literal uniform weighting over every member of Table 1's sets.

Every applied operation is an edit ``{type, position, operation, original, replacement}`` on
the original token indices, and :func:`apply_edits` reproduces the perturbed sentence from the
original exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Collection, Iterable, Mapping, MutableMapping, NamedTuple, Sequence

__all__ = [
    "ERROR_TYPES", "ARTICLES", "PREPOSITIONS", "TRANSITIONS", "CONFUSION_SETS", "Token", "Operation",
    "Confusions", "candidate_operations", "error_budget", "perturb", "apply_edits", "render", "tokens_from_doc",
    "PerturbationResult", "realign_tags", "articles_after", "crowded", "undoes_error", "LEARNER_CONFUSIONS", "EXTRANEOUS_PREPOSITIONS",
]

ERROR_TYPES = ("ArtOrDet", "Prep", "Trans", "Nn", "SVA", "Vform", "Wchoice", "Worder")

#: Confusion sets of Yin et al. (2020), Table 1; "" is ø (deletion or insertion).
ARTICLES = ("a", "an", "the")
PREPOSITIONS = ("on", "in", "at", "from", "for", "under", "over", "with", "into", "during", "until", "against",
                "among", "throughout", "to", "by", "about", "like", "before", "across", "behind", "but", "out",
                "up", "after", "since", "down", "off", "of")
TRANSITIONS = ("and", "but", "so", "however", "as", "that", "thus", "also", "because", "therefore", "if",
               "although", "which", "where", "moreover", "besides", "of")
CONFUSION_SETS = {"ArtOrDet": ARTICLES + ("",), "Prep": PREPOSITIONS + ("",), "Trans": TRANSITIONS + ("",)}

SUBSTITUTE, INSERT, DELETE, SWAP = "substitute", "insert", "delete", "swap"
WCHOICE_MAX = 10
#: Word-choice substitutes come from this many of the lemma's WordNet senses for its part of speech,
#: most frequent first (WordNet orders a lemma's synsets by their SemCor frequency).
WCHOICE_SENSES = 3


def _rows(groups: dict[str, tuple[str, ...]]) -> dict[str, dict[str, float]]:
    return {src: {t: 1.0 for t in tgts} for src, tgts in groups.items()}


#: Default substitution weights w_ij when no M2 file is given. Uniform weights over Table 1's whole
#: sets produce edits no learner makes ("asked during shocked tone", "independence until Portugal",
#: "privilege besides naming"). Learner preposition and connective errors concentrate on members that
#: mark the same kind of relation (Rozovskaya & Roth, 2010, "Generating confusion sets for model
#: adaptation of error correction"; Dahlmeier & Ng, 2011): place and time (in/on/at), direction
#: (to/for), topic (about/on), duration and start (since/from, during/in/for); contrast (but/however),
#: result (so/therefore/thus), addition (moreover/besides). Pairs whose swap is standard English or
#: changes the meaning were taken out after blind audits: into/in/to ("get back in the match"),
#: about/of ("thinks of"), with/by ("replaced with" / "replaced by"), since/for, because/as (causal
#: "as"), and relative which/that. Each member is replaced by
#: one of its partners with equal weight (``""`` is deletion, ø); members with no partner are not
#: substituted. A preposition may be dropped (learners omit them: "listen music") and one of the
#: extraneous prepositions learners add before a direct object ("discuss about", "reach to",
#: "emphasise on", "contact with", "request for") may be inserted. Connectives are never inserted or
#: deleted: an inserted or dropped "and", "that" or "however" is either still grammatical or changes
#: the meaning. The weights were judged plausible by blind readers (the dataset card's audits).
LEARNER_CONFUSIONS: dict[str, dict[str, dict[str, float]]] = {
    "Prep": {
        **_rows({
            # "into" -> "in"/"to" ("get back in the match") and "about" -> "of" ("thinks of") are standard
            # English; "in" -> "into" and "since" -> "for" are left out: "kidnap persons into a foreign country",
            # "killed in hostile fire for Bush's statement" change the meaning (blind audit, round 8)
            "in": ("on", "at"), "on": ("in", "at"), "at": ("in", "on"),
            "into": (), "to": ("for", "into", "at"), "for": ("to",),
            "of": ("for", "from", "in"), "about": ("on",), "from": ("of",),
            "with": (), "by": (), "until": (), "since": ("from",),
            "during": ("in", "for"), "throughout": ("during", "in"), "over": ("on", "across"),
            "across": ("over",), "like": (), "under": (), "among": (), "against": (),
            "before": (), "after": (), "behind": (), "but": (), "out": (), "up": (), "down": (), "off": (),
        }),
        "": {"about": 1.0, "to": 1.0, "on": 1.0, "with": 1.0, "for": 1.0},
    },
    "Trans": _rows({
        "but": ("however",), "however": ("but",), "so": ("therefore", "thus"), "therefore": ("so", "thus"),
        "thus": ("so", "therefore"), "because": (), "as": (), "moreover": ("besides",),
        "besides": ("moreover",), "which": (), "that": (), "where": (),
        "and": (), "also": (), "if": (), "although": (), "of": (), "": (),
    }),
}
#: Transitive verbs after which learners add a preposition before the object, with the prepositions
#: they add ("discuss about the plan", "reach to the city", "enter into the room"): the classic
#: "unnecessary preposition" errors of learner English (e.g. Swan, *Practical English Usage*, on verbs
#: used without prepositions). Prep insertions go only here; elsewhere an inserted preposition
#: ("give you with a signal", "watch on him") is no error a learner makes.
EXTRANEOUS_PREPOSITIONS: dict[str, tuple[str, ...]] = {
    "discuss": ("about",), "mention": ("about",), "describe": ("about",), "explain": ("about",),
    "emphasize": ("on",), "emphasise": ("on",), "stress": ("on",), "reach": ("to", "at"), "enter": ("into", "to"),
    "attend": ("to",), "contact": ("with", "to"), "request": ("for",), "approach": ("to",), "answer": ("to",),
    "marry": ("with",), "oppose": ("to",), "resemble": ("to", "with"), "accompany": ("with",), "join": ("with",),
    "visit": ("to",), "consider": ("about",), "investigate": ("into", "about"), "seek": ("for",), "lack": ("of",),
    "meet": ("with",), "order": ("for",), "comprise": ("of",), "await": ("for",), "affect": ("on",),
    "influence": ("on",), "ask": ("for",), "demand": ("for",), "study": ("about",), "research": ("about", "on"),
}

#: Prepositions learners drop ("listen music", "arrive the station"); dropping one that carries its own
#: meaning ("since 1992", "until Friday", "during the war") loses the meaning, so those are not dropped.
DROPPABLE_PREPOSITIONS = ("to", "of", "for", "on", "at", "in", "about")
for _src, _row in LEARNER_CONFUSIONS["Prep"].items():
    if _src in DROPPABLE_PREPOSITIONS:
        _row[""] = 0.5          # dropping a preposition: half as likely as each partner


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


@lru_cache(maxsize=100_000)
def _synonyms(lemma: str, wn_pos: str) -> tuple[str, ...]:
    """Single-word WordNet synonyms of ``lemma`` from its :data:`WCHOICE_SENSES` most frequent senses
    for ``wn_pos`` (a word's rare senses give "born" -> "brooked", "blue" -> "depressed"), in sense
    order. Frequency and meaning are checked later, per use."""
    from robust_bench.text.wordnet import wordnet as wn

    out: list[str] = []
    pos = (wn_pos, "s") if wn_pos == "a" else (wn_pos,)
    synsets = [s for s in wn.synsets(lemma) if s.pos() in pos][:WCHOICE_SENSES]
    for syn in synsets:
        for lem in syn.lemmas():
            name = lem.name()
            if "_" in name or "-" in name or name.lower() == lemma.lower() or name in out or not name.isalpha():
                continue
            out.append(name)
    return tuple(out)


_WN_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
_PRESENT_BE = {"is": "are", "are": "is", "am": "is"}


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

    def free(i: int) -> bool:
        return 0 <= i < n and i not in prot

    sites: list[tuple[str, str, int]] = []

    def set_ops(kind: str, i: int, members: Sequence[str]):
        sites.append((kind, "tok", i))

    caps = _all_caps(tokens)
    headline = _headline(tokens)
    doubted = set(unsure)

    def insert_ops(kind: str, gap: int, members: Sequence[str], where: str = "gap"):
        if caps or gap >= n or not tokens[gap].text.isalpha():
            return
        if gap in no_ins or gap == 0 and n and tokens[0].text[:1].isupper() and tokens[0].pos != "PROPN" \
                and tokens[0].text != "I":
            # no insertion before a capitalised sentence start: it would need a case change too
            return
        if gap in prot or (gap > 0 and gap - 1 in prot and gap in prot):
            return
        sites.append((kind, where, gap))

    for kind in types:
        if kind == "ArtOrDet" and headline:
            continue        # a headline drops articles: adding or dropping one gives another headline
        if kind == "ArtOrDet":
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
        elif kind == "Prep":
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
        elif kind == "Trans":
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
        elif kind in _LAZY:
            positions, ops_at = _LAZY[kind]
            for i in positions(tokens, prot | set(unsure)):
                ops.extend(ops_at(tokens[i], i, refusals, tokens))
        elif kind == "Worder":
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
    if sites_only:
        return ops, sites
    conf = confusions if confusions is not None else _default_confusions()
    for site in sites:
        ops.extend(o for o in _site_ops(tokens, site) if conf.uniform_weights or conf.op_weight(o) > 0)
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


_TIME_NOUNS = frozenset({"time", "times", "day", "days", "week", "weeks", "month", "months", "year", "years",
                         "moment", "night", "morning", "afternoon", "evening", "season", "weekend", "point"})


@lru_cache(maxsize=50_000)
def _mostly_mass(lemma: str) -> bool:
    """Whether a noun is mostly uncountable: its plural is at least ten times rarer than its singular
    (wordfreq; "information", "opposition", "fire" in "fire broke out") or it has none ("research").
    A mass noun stands without an article ("opposition to the ban"), and takes *a* only as a learner's
    error ("an information")."""
    from robust_bench.perturb.checks import zipf

    plural = _inflect(lemma, "NNS")
    return not plural or plural == lemma or zipf(lemma) - zipf(plural) >= 1.0


def _temporal_object(tokens: Sequence[Token], i: int) -> bool:
    """Whether preposition ``i`` introduces a time phrase ("at this time", "on the last day")."""
    for j in range(i + 1, min(len(tokens), i + 4)):
        if tokens[j].pos in ("NOUN", "PROPN") or tokens[j].lower in _DATES:
            return tokens[j].lower in _TIME_NOUNS or tokens[j].lower in _DATES
    return False


def _article_members(tokens: Sequence[Token], site: tuple[str, str, int]) -> tuple[str, ...]:
    """The articles an ArtOrDet operation may write at a site. An indefinite article takes the form
    the next word's sound needs (:func:`robust_bench.perturb.checks.indefinite_article`: "an hour",
    "a university"), and is not written before a plural head ("the books" -> "a books"); *a* and *an*
    are not confused with each other (that is spelling, not article choice)."""
    from robust_bench.perturb.checks import indefinite_article

    _, where, i = site
    n = len(tokens)
    if where.startswith("gap"):
        nxt = tokens[i].text
        # "the" before a bare noun phrase is standard English with a definite reading ("told the
        # reporters", "after the rebels looted"); only a/an before a bare singular is an error
        return (indefinite_article(nxt),) if where == "gap" and nxt.isalpha() else ()
    # a/an <-> the is a choice of definiteness: both are standard English out of context ("left the
    # meeting" / "left a meeting"), so no article is substituted for another (ninth blind audit)
    return ()


#: Fixed expressions whose words are not free choices: an edit inside "because of", "in front of" or
#: "at least" ("because about", "into front of") is no learner's preposition or word-choice error.
FIXED_BIGRAMS = frozenset({
    ("because", "of"), ("instead", "of"), ("according", "to"), ("due", "to"), ("out", "of"), ("ahead", "of"),
    ("spite", "of"), ("front", "of"), ("in", "front"), ("part", "of"), ("terms", "of"), ("in", "terms"),
    ("addition", "to"), ("in", "addition"), ("regardless", "of"), ("prior", "to"), ("rather", "than"),
    ("such", "as"), ("apart", "from"), ("thanks", "to"), ("next", "to"), ("close", "to"), ("as", "well"),
    ("at", "least"), ("at", "all"), ("in", "order"), ("of", "course"), ("by", "far"), ("at", "once"),
    ("up", "to"), ("in", "case"), ("on", "behalf"), ("in", "spite"), ("at", "last"), ("so", "that"),
    ("even", "if"), ("even", "though"), ("as", "if"), ("as", "though"), ("so", "far"), ("at", "home"),
    ("on", "top"), ("top", "of"), ("at", "first"), ("in", "fact"), ("for", "example"), ("for", "instance"),
    ("at", "times"), ("in", "particular"), ("as", "of"), ("as", "for"), ("per", "cent"), ("on", "time"),
    ("as", "much"), ("much", "as"), ("as", "many"), ("many", "as"), ("as", "long"), ("as", "soon"), ("as", "far"),
    ("back", "and"), ("and", "forth"), ("quoted", "as"), ("as", "saying"), ("n", "/"), ("/", "a"),
    ("far", "as"), ("long", "as"), ("soon", "as"), ("well", "as"), ("sort", "of"), ("kind", "of"), ("do", "with"),
    ("going", "to"), ("used", "to"), ("lot", "of"), ("lots", "of"), ("spur", "of"), ("the", "moment"), ("couple", "of"), ("plenty", "of"),
    # sports results and standings (CoNLL-2003): column heads and set phrases, not free prepositions or verbs
    ("goals", "for"), ("goals", "against"), ("fall", "of"), ("of", "wickets"), ("day", "running"),
    ("week", "running"), ("year", "running"), ("season", "running"), ("game", "running"), ("time", "running"),
})
#: currency signs a number follows in tokenised news ("from $ 1.54 trillion")
_CURRENCY = frozenset({"$", "us$", "c$", "a$", "nz$", "hk$", "£", "€", "¥"})
_DATES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                    "february", "march", "april", "may", "june", "july", "august", "september", "october",
                    "november", "december", "today", "tomorrow", "yesterday", "tonight", "noon", "midnight"})
_APPROX = frozenset({"about", "around", "approximately", "nearly", "almost", "roughly", "some", "over", "under"})
_QUANTIFIERS = frozenset({"not", "no", "many", "much", "few", "more", "most", "several", "enough", "all", "both",
                          "each", "every", "some", "any", "other", "such", "own", "less", "least", "little"})
#: Nouns whose plural or singular is no number error (temporal adverbs parsed as nouns, letters).
_NO_NN = frozenset({"yesterday", "today", "tomorrow", "tonight", "v", "vs", "etc",
                    # sports and other mass nouns whose plural names something else ("crickets", "squashes")
                    "cricket", "squash", "football", "soccer", "tennis", "golf", "rugby", "baseball", "basketball",
                    "hockey", "athletics", "boxing", "cycling", "swimming", "skiing", "sailing", "rowing", "racing",
                    "polo", "mom", "dad", "mum"})


def _in_title(tokens: Sequence[Token], i: int) -> bool:
    """Whether a function word sits inside a capitalised name or title ("The Bell Curve", "A Treasury
    of the World's Great Letters"): capitalised itself past the sentence start, or between capitalised
    words. A learner copies a title as written."""
    def cap(j: int) -> bool:
        return 0 <= j < len(tokens) and tokens[j].text[:1].isupper() and (j > 0 or tokens[j].pos == "PROPN")

    if i > 0 and tokens[i].text[:1].isupper():
        return True
    if i == 0 and tokens[i].text[:1].isupper() and cap(1) and tokens[1].pos == "PROPN" and tokens[i].lower in ARTICLES:
        return True
    return cap(i - 1) and (cap(i + 1) or (i + 2 < len(tokens) and tokens[i + 1].lower in ARTICLES and cap(i + 2)))


def _fixed(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` belongs to a fixed expression (:data:`FIXED_BIGRAMS`, or UD ``fixed``)."""
    low = tokens[i].lower
    if tokens[i].dep in ("fixed", "mwe") or any(tokens[c].dep in ("fixed", "mwe") and tokens[c].head == i
                                                 for c in (i - 1, i + 1) if 0 <= c < len(tokens)):
        return True
    return (i > 0 and (tokens[i - 1].lower, low) in FIXED_BIGRAMS) or \
        (i + 1 < len(tokens) and (low, tokens[i + 1].lower) in FIXED_BIGRAMS)


def _word_part(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` is part of a larger written word: joined by a hyphen or slash with no space
    ("land-owners", "open-air"), or a clitic host ("ca" of "ca n't", "wo n't")."""
    n = len(tokens)
    if i + 1 < n and not tokens[i].space and (tokens[i + 1].text in ("-", "/", "n't") or tokens[i + 1].text[:1] == "'"):
        return True
    if i + 1 < n and tokens[i + 1].lower in ("n't", "'s", "'ll", "'re", "'ve", "'d", "'m"):
        return True
    return i > 0 and not tokens[i - 1].space and tokens[i - 1].text in ("-", "/")


def _named(tokens: Sequence[Token], i: int) -> bool:
    """A capitalised word past the sentence start ("the Commission", "Marshall Plan", "Table 9.1"): part
    of a name or title, whatever its tag; number, form and word choice leave it alone."""
    return i > 0 and tokens[i].text[:1].isupper() and not _all_caps(tokens)


def _nn_positions(tokens: Sequence[Token], protected: set[int]) -> list[int]:
    return [i for i, t in enumerate(tokens)
            if i not in protected and t.pos == "NOUN" and t.tag in ("NN", "NNS") and t.text.isalpha() and not _named(tokens, i)
            and len(t.text) > 2 and t.lower not in _NO_NN and not _word_part(tokens, i)
            and t.dep != "compound" and not _fixed(tokens, i) and not _is_unit(t.lemma.lower(), "n")
            and tokens[t.head].pos != "ADJ" and not _bare_ing(tokens, i) and _number_fixed(tokens, i)] \
        if not _headline(tokens) else []


#: Determiners and quantifiers whose noun's number is not free: "a plan" -> "a plans", "many car".
_NUMBER_WORDS = frozenset({"a", "an", "this", "that", "these", "those", "every", "each", "another", "many",
                           "several", "few", "both", "one", "two", "three", "four", "five", "six", "seven", "eight",
                           "nine", "ten", "various", "numerous", "much", "little"})


def _number_fixed(tokens: Sequence[Token], i: int) -> bool:
    """Whether the sentence fixes the noun's number, so that changing it is an error: a determiner or
    numeral that marks number ("a plan", "these plans", "two plans"), or a present-tense or past "be"
    verb it is the subject of ("the streets are"). With "the", a possessive or nothing ("the crimes",
    "our intelligence services", "await Clinton orders") either number is standard English, and
    changing it changes the meaning, not the grammar (ninth blind audit)."""
    kids = [c for c, t in enumerate(tokens) if t.head == i and c != i]
    if any(tokens[c].lower in _NUMBER_WORDS or tokens[c].pos == "NUM" for c in kids):
        return True
    t = tokens[i]
    if t.dep.startswith("nsubj") and t.head != i:
        verb = tokens[t.head]
        aux = [tokens[c] for c, x in enumerate(tokens) if x.head == t.head and x.dep in ("aux", "cop", "aux:pass", "auxpass")]
        return any(v.tag in ("VBZ", "VBP") or v.lower in ("was", "were") for v in [verb] + aux)
    return False


def _misordered(tokens: Sequence[Token], kids: list[list[int]], adv: int, other: int) -> bool:
    """Whether swapping adverb ``adv`` with its neighbour ``other`` gives an order learners write and
    English does not: "enough" before its adjective ("big enough" -> "enough big"), or an adverb moved
    between a participle and its object ("has quickly eaten apples" -> "has eaten quickly apples").
    Other swaps ("temporarily postponed" -> "postponed temporarily", "can always" -> "always can") are
    standard English (ninth blind audit)."""
    t, o = tokens[adv], tokens[other]
    if o.pos == "ADJ":
        return t.lower == "enough" and other < adv
    if o.tag in ("VBN", "VBG") and adv < other:
        return any(tokens[c].dep in ("obj", "dobj") and c > other for c in kids[other])
    return False


def _bare_ing(tokens: Sequence[Token], i: int) -> bool:
    """An -ing word tagged as a noun with no determiner ("six ships loading", "budget, and busing"):
    most are participles or gerunds the tagger read as nouns, and their number or form is no
    learner's error ("loadings", "bussed")."""
    if not tokens[i].lower.endswith("ing"):
        return False
    return not any(tokens[c].dep in ("det", "poss", "nmod:poss") for c in _children(tokens)[i])


#: Dependency relations of a nominal: a word the parser attaches so is no finite verb, whatever its tag
#: ("blasting serves past him": "serves" as object).
_NOMINAL_DEPS = frozenset({"obj", "dobj", "pobj", "iobj", "nsubj", "nsubjpass", "nsubj:pass", "compound", "appos",
                           "amod", "nmod", "poss", "attr"})


def _nn_ops(t: Token, i: int, refusals=None, tokens=None) -> list[Operation]:
    """Singular <-> plural of a common noun (lemminflect handles child/children)."""
    target = _inflect(t.lemma.lower(), "NNS" if t.tag == "NN" else "NN")
    if target and target.lower() != t.lower and _known(target, refusals):
        return [Operation("Nn", SUBSTITUTE, i, t.text, _case_like(t.text, target))]
    return []


def _sva_positions(tokens: Sequence[Token], protected: set[int]) -> list[int]:
    return [i for i, t in enumerate(tokens) if i not in protected and t.tag in ("VBZ", "VBP")
            and t.pos in ("VERB", "AUX") and t.text.isalpha() and not _word_part(tokens, i)
            and t.dep not in _NOMINAL_DEPS and not _bare_conj(tokens, i) and not _free_agreement(tokens, i)]


#: Nouns that take a singular or a plural verb ("the team has" / "the team have").
_COLLECTIVE = frozenset({"team", "government", "family", "staff", "committee", "police", "public", "crowd", "company",
                         "board", "council", "army", "group", "majority", "audience", "club", "jury", "party", "union",
                         "side", "squad", "management", "administration", "cabinet", "parliament", "couple", "number",
                         "none", "series", "data", "media"})


def _free_agreement(tokens: Sequence[Token], i: int) -> bool:
    """Whether either verb number is standard English with the verb's subject: a proper noun (a team or
    a country, "Kansas City have scored" in British usage), a collective noun ("the team have"), or
    "none"; an SVA edit there is no agreement error (ninth blind audit)."""
    c = _subject_of(tokens, i)
    if c is None:
        return False
    t = tokens[c]
    return t.pos == "PROPN" or (t.text.isupper() and len(t.text) > 1) or t.lower in _COLLECTIVE \
        or t.lemma.lower() in _COLLECTIVE


def _bare_conj(tokens: Sequence[Token], i: int) -> bool:
    """A verb conjoined to a noun ("budget, and busing"): a noun the tagger read as a verb."""
    return tokens[i].dep == "conj" and tokens[tokens[i].head].pos in ("NOUN", "PROPN")


#: Dependents after a noun that restrict it ("variety in firm size", "standards for charities").
_POSTMODIFIERS = frozenset({"prep", "nmod", "acl", "relcl", "acl:relcl"})
#: Perception verbs: their complement is a base form or an -ing form, both standard ("see it burn",
#: "see it burning"), so changing one into the other is no verb-form error.
_PERCEPTION = frozenset({"see", "hear", "watch", "feel", "notice", "observe", "smell", "saw"})

#: Heads whose verbal complement is a bare infinitive ("make him go", "let it be", "help them win").
_BARE_INFINITIVE_HEADS = frozenset({"make", "let", "help", "see", "hear", "watch", "have", "feel", "bid"})


def _licensed_base(tokens: Sequence[Token], kids: list[list[int]], i: int) -> bool:
    """Whether a word tagged VB has what licenses a base form: "to", a modal or "do" among its
    children, a bare-infinitive head ("make him go"), or the start of an imperative. Elsewhere a
    VB is most often a tagger's reading of a noun in a headline ("Yeltsin plans return to Kremlin")."""
    t = tokens[i]
    if any(tokens[c].dep in ("aux", "mark", "aux:pass", "auxpass") for c in kids[i]):
        return True
    if t.dep == "conj" and tokens[t.head].tag == "VB":
        return _licensed_base(tokens, kids, t.head)
    if t.head != i and tokens[t.head].lemma.lower() in _BARE_INFINITIVE_HEADS:
        return True
    return t.dep == "root" and not any(tokens[c].dep.startswith("nsubj") for c in kids[i])


def _sva_ops(t: Token, i: int, refusals=None, tokens=None) -> list[Operation]:
    """3SG <-> non-3SG of a present-tense verb or auxiliary."""
    if t.tag == "VBP" and _inflect(t.lemma.lower(), "VBD") == t.lower:
        return []           # "beat", "put", "cut": the same form is past tense, so "beats" changes the tense
    target = _PRESENT_BE.get(t.lower) or _inflect(t.lemma.lower(), "VBP" if t.tag == "VBZ" else "VBZ")
    if target and target.lower() != t.lower and _known(target, refusals):
        return [Operation("SVA", SUBSTITUTE, i, t.text, _case_like(t.text, target))]
    return []


def _vform_positions(tokens: Sequence[Token], protected: set[int]) -> list[int]:
    kids = _children(tokens)
    return [i for i, t in enumerate(tokens) if i not in protected and t.pos == "VERB"
            and t.tag in ("VB", "VBZ", "VBP", "VBD", "VBG", "VBN") and t.text.isalpha() and not _word_part(tokens, i)
            and not _named(tokens, i) and not (t.tag == "VB" and t.dep == "root" and not any(tokens[c].dep.startswith("nsubj") for c in kids[i]))
            and t.dep not in _NOMINAL_DEPS and not _bare_conj(tokens, i) and not _fixed(tokens, i)
            and not (t.tag == "VB" and not _licensed_base(tokens, kids, i))
            and not (t.tag in ("VB", "VBG") and t.head != i and tokens[t.head].lemma.lower() in _PERCEPTION)
            # a participle modifying a noun: "the week ending December 1" -> "ended" is standard English
            and not (t.tag in ("VBG", "VBN") and t.dep in ("acl", "amod"))
            # "it's going to be" -> "it's went to be": the going-to future is one unit, not a verb form
            and not (t.lower == "going" and i + 1 < len(tokens) and tokens[i + 1].lower == "to")]


def _vform_ops(t: Token, i: int, refusals=None, tokens=None) -> list[Operation]:
    """The verb's present (agreeing), past, progressive and perfect forms other than its own."""
    lemma = t.lemma.lower()
    if lemma == "be":
        return []           # "were" -> "am" or "was" is agreement (SVA), not verb form
    third = t.tag == "VBZ" or (t.feat("Person") == "3" and t.feat("Number") == "Sing")
    seen = {t.lower}
    out = []
    if _inflect(lemma, t.tag) not in (t.lower, None) and t.tag != "VBP":
        return []           # a wrong lemma ("fined" read as "fin") would make "finned"
    passive = t.tag == "VBN" and t.feat("Voice") == "Pass"
    finite = {"VBD", "VBZ", "VBP"}
    if t.tag in finite and not (tokens is not None and _tense_fixed(tokens, i, t.tag)):
        # "the spokesman said" -> "says", "entities use" -> "used": another tense, standard English unless
        # the sentence fixes the time; a participle spelt like the past ("included") reads as that tense
        seen |= {f.lower() for f in (_inflect(lemma, x) for x in finite) if f}
    for tag in ("VBZ" if third else "VBP", "VBD", "VBG", "VBN"):
        if passive and tag == "VBG":
            continue        # "to be executed" -> "to be executing" turns the passive around
        form = _inflect(lemma, tag)
        if form and form.lower() not in seen and _known(form, refusals):
            seen.add(form.lower())
            out.append(Operation("Vform", SUBSTITUTE, i, t.text, _case_like(t.text, form)))
    return out


#: Words that fix the time of a clause: a past-time adverbial, or a present-time one.
_PAST_TIME = frozenset({"yesterday", "ago", "last", "earlier", "previously", "formerly", "once", "overnight"})
_PRESENT_TIME = frozenset({"now", "currently", "nowadays", "presently", "usually", "always", "often", "generally",
                           "every", "today"})


def _tense_fixed(tokens: Sequence[Token], i: int, tag: str) -> bool:
    """Whether the sentence fixes the tense of finite verb ``i`` (tag ``tag``), so that switching past and
    present is an error: a past-time word for a past verb ("said yesterday" -> "says yesterday"), a
    present-time word for a present one ("now lives" -> "now lived"), or a coordinated finite verb in
    the same tense ("arrived and said" -> "arrived and says"). Without one, "he says" for "he said" is
    standard English (news and reports use both; ninth blind audit)."""
    if _headline(tokens) or tokens[i].dep in ("ccomp", "xcomp"):
        return False        # headlines use the present for the past; reported clauses may or may not shift back
    words = {t.lower for t in tokens}
    if tag == "VBD" and (words & _PAST_TIME or any(
            (t.lower in _DATES and t.lower not in ("today", "tomorrow", "tonight"))
            or (t.text.isdigit() and len(t.text) == 4 and 1900 <= int(t.text) <= 2030) for t in tokens)):
        return True
    if tag != "VBD" and words & _PRESENT_TIME:
        return True
    t = tokens[i]
    partners = [j for j, x in enumerate(tokens) if j != i and ((t.dep == "conj" and j == t.head)
                                                              or (x.dep == "conj" and x.head == i))]
    return any(tokens[j].tag == tag or (tag != "VBD" and tokens[j].tag in ("VBZ", "VBP")) for j in partners)


def _wchoice_positions(tokens: Sequence[Token], protected: set[int]) -> list[int]:
    """Content words that may take a synonym (whether WordNet has one is checked later)."""
    if _all_caps(tokens):
        return []           # a headline's words are not a learner's word choices
    kids = _children(tokens)
    return [i for i, t in enumerate(tokens) if i not in protected and t.pos in _WN_POS and t.text.isalpha()
            and t.tag != "MD" and not _word_part(tokens, i) and not _fixed(tokens, i) and not _named(tokens, i)
            # not a verb before its own subject ('" ...," said Casesa' -> "told Casesa" swaps the roles)
            and not (t.pos == "VERB" and any(tokens[c].dep.startswith("nsubj") and c > i for c in kids[i]))
            # not the verb of a phrasal verb: its synonyms are the verb's alone ("making up the committee"
            # -> "creating up"; CoNLL-2003 dev, blind audit v10)
            and not (t.pos == "VERB" and any(tokens[c].dep in ("compound:prt", "prt") for c in kids[i]))
            # not a degree adverb ("simply too good" -> "merely too good")
            and not (t.pos == "ADV" and tokens[t.head].pos in ("ADJ", "ADV"))
            and not _in_compound(tokens, i)] if not _tabular(tokens) else []


def _in_compound(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` is one word of a WordNet compound with a neighbour ("web site" ->
    "web website", "blue jeans"): the compound, not the word, carries the meaning."""

    low = tokens[i].lower
    pairs = []
    if i > 0 and tokens[i - 1].text.isalpha():
        pairs.append(f"{tokens[i - 1].lower}_{low}")
    if i + 1 < len(tokens) and tokens[i + 1].text.isalpha():
        pairs.append(f"{low}_{tokens[i + 1].lower}")
    return any(_wn_lemma(p) for p in pairs)


@lru_cache(maxsize=100_000)
def _wn_lemma(name: str) -> bool:
    from robust_bench.text.wordnet import wordnet as wn

    return bool(wn.synsets(name))


def _tabular(tokens: Sequence[Token]) -> bool:
    """A table or results line ("Pen Select , few choice 2-3 1150 lbs 66.00 ."): at least a quarter
    of its tokens are numbers, and its words are a trade's terms (a cattle grade, a score), not free
    word choices."""
    nums = sum(1 for t in tokens if t.pos == "NUM" or t.text[:1].isdigit())
    return nums * 4 >= len(tokens)


def _wchoice_ops(t: Token, i: int, refusals=None, tokens=None) -> list[Operation]:
    """Up to ten ("ten synonyms from WordNet synsets", Table 1) common WordNet synonyms of ``t``'s
    lemma in its most frequent senses, inflected with ``t``'s tag by lemminflect. A synonym that
    lemminflect cannot inflect for the tag, or whose form is not a common English word
    (``frequency_floor``, ``known_word``), is refused; fewer than ten are used when fewer pass."""
    from robust_bench.perturb.checks import is_common_word, is_known_word

    out = []
    if t.lemma.lower() in _NO_WCHOICE or t.tag not in _LEMMINFLECT_TAGS or _is_quantity(t.lemma.lower(), _WN_POS[t.pos]):
        return out
    if t.pos == "NOUN" and t.lower.endswith("ing"):
        return out          # a gerund ("time cooking" -> "time cookery"): its noun synonyms change the part of speech
    for syn in _synonyms(t.lemma.lower(), _WN_POS[t.pos]):
        if _main_pos(syn) not in (_WN_POS[t.pos], "s" if _WN_POS[t.pos] == "a" else None):
            continue        # "travel" -> "trip": a word mostly used as another part of speech
        form = syn if t.tag in ("NN", "VB", "JJ", "RB") else _inflect(syn, t.tag)
        if not form or form.lower() == t.lower:
            continue
        if not is_known_word(form):
            _count(refusals, "known_word")
            continue
        if not is_common_word(form):
            _count(refusals, "frequency_floor")
            continue
        if _variant(syn, t.lemma.lower()):
            _count(refusals, "distinct_word")
            continue
        out.append(Operation("Wchoice", SUBSTITUTE, i, t.text, _case_like(t.text, form)))
        if len(out) == WCHOICE_MAX:
            break
    return out


#: Lemmas whose WordNet synonyms are never a word choice: light and auxiliary verbs, whose every
#: synonym changes the construction ("is" -> "exists", "have" -> "own"), and negation.
_NO_WCHOICE = frozenset({"be", "have", "do", "not", "n't", "never", "so", "too", "very", "there", "here", "then",
                         "also", "just", "only", "even", "still", "now", "as", "well"})


def _variant(a: str, b: str) -> bool:
    """Whether two words are spellings of one word (offense/offence, colour/color, analyse/analyze)."""
    import re

    def norm(w: str) -> str:
        w = w.lower()
        for pat, rep in ((r"ence$", "ense"), (r"our", "or"), (r"is(e|ed|es|ing|ation)$", r"iz\1"), (r"ys(e|ed|es|ing)$", r"yz\1"),
                         (r"tre$", "ter"), (r"ll(ed|ing|er)$", r"l\1"), (r"ogue$", "og")):
            w = re.sub(pat, rep, w)
        return w

    a, b = a.lower(), b.lower()
    short, long_ = sorted((a, b), key=len)
    # a derivation of the same word ("hit" -> "hitting", "smoking" -> "smoke") is no word choice
    return norm(a) == norm(b) or (len(short) >= 3 and long_.startswith(short[:-1] if short.endswith("e") else short))


@lru_cache(maxsize=50_000)
def _main_pos(word: str) -> str | None:
    """The WordNet part of speech of ``word``'s most frequent sense (SemCor counts over its lemmas)."""
    from robust_bench.text.wordnet import wordnet as wn

    best, pos = -1, None
    for syn in wn.synsets(word):
        count = sum(lem.count() for lem in syn.lemmas() if lem.name().lower() == word.lower())
        if count > best:
            best, pos = count, syn.pos()
    return pos


@lru_cache(maxsize=50_000)
def _is_unit(lemma: str, wn_pos: str) -> bool:
    """Whether a noun names a unit of measure or time ("minutes", "miles", "percent"): its WordNet
    synonyms are other units ("minutes" -> "seconds"), which change the fact, not the word."""
    if wn_pos != "n":
        return False

    return _under(lemma, frozenset({"unit_of_measurement.n.01", "time_unit.n.01", "fundamental_quantity.n.01"}))


@lru_cache(maxsize=50_000)
def _is_quantity(lemma: str, wn_pos: str) -> bool:
    """Whether a noun names a number or an amount ("millions", "dozens", "lot"): WordNet puts "trillion"
    beside "million" in its hyperbole sense, so a synonym changes the amount ("hundreds of millions" ->
    "hundreds of trillions"). Units (:func:`_is_unit`) are quantities too."""
    if wn_pos != "n":
        return False
    return _is_unit(lemma, wn_pos) or _under(lemma, frozenset({
        "number.n.02", "large_integer.n.01", "definite_quantity.n.01", "indefinite_quantity.n.01"}))


def _under(lemma: str, roots: frozenset) -> bool:
    """Whether one of the noun's :data:`WCHOICE_SENSES` most frequent senses has a hypernym in ``roots``."""
    from robust_bench.text.wordnet import wordnet as wn

    for syn in wn.synsets(lemma, pos="n")[:WCHOICE_SENSES]:
        if syn.name() in roots or any(h.name() in roots for h in syn.closure(lambda x: x.hypernyms())):
            return True
    return False


def _count(refusals, name: str, n: int = 1) -> None:
    if refusals is not None:
        refusals[name] += n


def _known(word: str, refusals=None) -> bool:
    """The ``known_word`` check on a written form, counted when it refuses."""
    from robust_bench.perturb.checks import is_known_word

    if is_known_word(word):
        return True
    _count(refusals, "known_word")
    return False


def _headline(tokens: Sequence[Token]) -> bool:
    """A headline or a label ("China to open port at Hainan", "Indonesian newspapers"): no closing
    punctuation. Headlines drop articles and use the present for the past, so adding an article or
    switching number or tense there gives another headline, not an error."""
    return bool(tokens) and tokens[-1].text not in (".", "?", "!", '"', "''", "'", ")", ":", ";", "...")


def _all_caps(tokens: Sequence[Token]) -> bool:
    """An all-caps segment (a headline such as "GOLF - LEADING SCORES"): nothing is inserted into it,
    since a lower-case word would stand out and an upper-case one reads as part of the headline."""
    long = [t.text for t in tokens if t.text.isalpha() and len(t.text) > 1]
    return bool(long) and sum(w.isupper() for w in long) * 2 > len(long)


#: Single-token types whose operations need a dictionary look-up: cheap positions, costly operations.
_LAZY = {"Nn": (_nn_positions, _nn_ops), "SVA": (_sva_positions, _sva_ops), "Vform": (_vform_positions, _vform_ops),
         "Wchoice": (_wchoice_positions, _wchoice_ops)}


@dataclass
class Confusions:
    """Error-type distribution and substitution weights.

    Attributes
    ----------
    type_distribution : dict of str to float, or None
        Probability of each error type; ``None`` is uniform over the applicable types.
    weights : dict of str to dict of str to dict of str to float
        ``weights[type][source][target]`` = w_ij for the confusion-set types; ``""`` is ø.
        Missing entries are uniform.
    source : str
        Where the estimates come from (``"uniform"`` or the M2 file and its SHA-256).
    """

    type_distribution: dict[str, float] | None = None
    weights: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    source: str = "uniform"

    @property
    def uniform_weights(self) -> bool:
        """No substitution weights: every operation of a type is equally likely."""
        return not any(self.weights.values())

    def type_weight(self, kind: str) -> float:
        if self.type_distribution is None:
            return 1.0
        return float(self.type_distribution.get(kind, 0.0))

    def op_weight(self, op: Operation) -> float:
        """w_ij of an operation: the fitted share of its (source, target) pair. A type without
        fitted weights, or a source token with no fitted row (never seen corrected in the M2
        data), falls back to uniform weights (1.0); a fitted row gives unseen targets weight 0."""
        table = self.weights.get(op.type)
        if not table:
            return 1.0
        src = "" if op.operation == INSERT else op.original.lower()
        tgt = "" if op.operation == DELETE else op.replacement.lower()
        row = table.get(src)
        if row is None:
            return 1.0
        return float(row.get(tgt, 0.0))

    @classmethod
    def learner_default(cls) -> "Confusions":
        """The default: uniform type distribution, :data:`LEARNER_CONFUSIONS` for Prep and Trans."""
        import copy

        return cls(type_distribution=None, weights=copy.deepcopy(LEARNER_CONFUSIONS),
                   source="robust-bench learner confusion classes (LEARNER_CONFUSIONS)")

    def to_json(self) -> dict:
        return {"source": self.source, "type_distribution": self.type_distribution, "weights": self.weights}

    @classmethod
    def from_json(cls, data: Mapping) -> "Confusions":
        """Build from the JSON written by ``robust-bench fit-confusions``.

        Raises
        ------
        ValueError
            On unknown error types or negative weights.
        """
        dist = data.get("type_distribution")
        if dist is not None:
            bad = [k for k in dist if k not in ERROR_TYPES]
            if bad or any(v < 0 for v in dist.values()):
                raise ValueError(f"type_distribution: unknown types {bad} or negative probabilities")
        weights = data.get("weights") or {}
        bad = [k for k in weights if k not in CONFUSION_SETS]
        if bad:
            raise ValueError(f"weights: {bad} are not confusion-set types ({', '.join(CONFUSION_SETS)})")
        return cls(type_distribution=dist, weights=weights, source=str(data.get("source", "file")))


def error_budget(n_tokens: int, error_rate: float) -> int:
    """Tokens that may be modified: ``round(error_rate * n_tokens)``, at least 1 for a
    non-empty segment (Yin et al., §4: 15% of the tokens)."""
    if n_tokens <= 0:
        return 0
    return max(1, int(round(error_rate * n_tokens)))


@dataclass(frozen=True)
class PerturbationResult:
    """Output of :func:`perturb`."""

    tokens: tuple[str, ...]
    spaces: tuple[bool, ...]
    edits: tuple[dict, ...]
    budget: int
    modified: int
    reason: str | None = None
    #: Word-choice candidates that passed the engine's checks at each word-choice site resolved
    #: (at most ten each; "ten synonyms", Table 1).
    wchoice_candidates: tuple[int, ...] = ()


def _site_free(site: tuple[str, int], touched: set[int], gaps: set[int]) -> bool:
    where, i = site
    return i not in gaps if where.startswith("gap") else i not in touched


def _conflicts(op: Operation, touched: set[int], gaps: set[int]) -> bool:
    if op.operation == INSERT:
        return op.position in gaps
    if op.operation == SWAP:
        return op.position in touched or op.position + 1 in touched
    return op.position in touched


def perturb(tokens: Sequence[Token], rng: random.Random, *, error_rate: float = 0.15,
            confusions: Confusions | None = None, protected: Iterable[int] = (),
            no_insert_before: Iterable[int] = (), types: Sequence[str] = ERROR_TYPES,
            banned: Collection[tuple[str, int, str]] = (), refusals: MutableMapping[str, int] | None = None,
            unsure: Iterable[int] = ()) -> PerturbationResult:
    """The probabilistic transformation of Yin et al. (2020, §3.1).

    Repeat until the budget (:func:`error_budget`) is spent or nothing applies: sample an error
    type among those applicable (by the type distribution), a position for it (uniformly), and an
    operation there (by the substitution weights). Each token is modified at most once.

    Parameters
    ----------
    tokens : sequence of Token
    rng : random.Random
        Seeded per example.
    error_rate : float
        Share of tokens to modify, in (0, 1]; 0.15 in the paper's settings (§4).
    confusions : Confusions, optional
        Default :meth:`Confusions.learner_default`.
    protected, no_insert_before, types
        See :func:`candidate_operations`.
    banned : collection of (type, position, replacement)
        Operations refused by a check run outside the engine (the builder's in-context checks on
        word-choice substitutes); they are never drawn. The same ``rng`` seed with more bans gives
        the same draws up to the first banned one.
    unsure : iterable of int
        See :func:`candidate_operations`.
    refusals : mutable mapping of str to int, optional
        Counts candidates refused by the engine's checks, by check name
        (:data:`robust_bench.perturb.checks.CHECKS`): ``known_word`` and ``frequency_floor`` when a
        site's operations are made, ``article_agreement`` when a drawn operation would leave a/an
        disagreeing with the next word.

    Returns
    -------
    PerturbationResult
        ``reason`` says why no error could be placed, when none was.

    Raises
    ------
    ValueError
        If ``error_rate`` is outside (0, 1].
    """
    if not 0 < error_rate <= 1:
        raise ValueError(f"error_rate must be in (0, 1], got {error_rate}")
    conf = confusions if confusions is not None else _default_confusions()
    banned = set(banned)
    words = [t.text for t in tokens]
    spaces = [t.space for t in tokens]
    budget = error_budget(len(tokens), error_rate)
    if not tokens:
        return PerturbationResult((), (), (), 0, 0, "empty segment")
    # Nn, SVA, Vform and Wchoice need a lemminflect or WordNet look-up per position, the engine's
    # main cost, so their positions are resolved only when drawn: a drawn position without an
    # operation is dropped and another drawn; a type left without positions is dropped and the
    # type drawn again. This rejection sampling picks types and positions with exactly the
    # probabilities of generating all operations upfront.
    # Confusion-set types are resolved per site in the same way (a site always has operations,
    # so nothing is rejected there unless fitted weights rule all of them out).
    prot = set(protected)
    lazy: dict[str, dict[tuple[str, int], list[Operation] | None]] = {
        kind: {("tok", i): None for i in _LAZY[kind][0](tokens, prot | set(unsure))} for kind in types if kind in _LAZY}
    eager_types = [t for t in types if t not in _LAZY]
    ops, sites = candidate_operations(tokens, protected=prot, no_insert_before=no_insert_before, types=eager_types,
                                      sites_only=True, unsure=unsure)
    for kind, where, i in sites:
        lazy.setdefault(kind, {})[(where, i)] = None
    lazy = {k: v for k, v in lazy.items() if v}
    if not ops and not lazy:
        return PerturbationResult(tuple(words), tuple(spaces), (), budget, 0, "no applicable operation")
    by_type: dict[str, list[Operation]] = {}
    for op in ops:
        by_type.setdefault(op.type, []).append(op)
    touched: set[int] = set()
    gaps: set[int] = set()
    spent = 0
    edits: list[dict] = []
    base_articles = len(_articles(words))
    wchoice_sizes: list[int] = []
    uniform = conf.uniform_weights
    dead: set[str] = set()
    while spent < budget:
        left = budget - spent
        avail: dict[str, list[Operation] | None] = {}
        for kind in ERROR_TYPES:
            if conf.type_weight(kind) <= 0 or kind in dead:
                continue
            if kind in lazy:
                # lazily resolved operations are single-token edits (cost 1)
                if any(_site_free(site, touched, gaps) and (v is None or v) for site, v in lazy[kind].items()):
                    avail[kind] = None
                continue
            lst = by_type.get(kind)
            if not lst:
                continue
            ok = [op for op in lst if op.cost <= left and not _conflicts(op, touched, gaps)
                  and (uniform or conf.op_weight(op) > 0)]
            if ok:
                avail[kind] = ok
        if not avail:
            break
        kinds = list(avail)
        kind = rng.choices(kinds, weights=[conf.type_weight(k) for k in kinds])[0]
        if kind in lazy:
            cands = None
            table = lazy[kind]
            while True:
                open_sites = [st for st, v in table.items() if _site_free(st, touched, gaps) and (v is None or v)]
                if not open_sites:
                    break
                site = rng.choice(open_sites)
                if table[site] is None:
                    where, i = site
                    made = (_LAZY[kind][1](tokens[i], i, refusals, tokens) if kind in _LAZY
                            else _site_ops(tokens, (kind, where, i)))
                    table[site] = [o for o in made if (uniform or conf.op_weight(o) > 0)
                                   and (o.type, o.position, o.replacement) not in banned]
                    if kind == "Wchoice":
                        wchoice_sizes.append(len(table[site]))
                if table[site]:
                    cands = table[site]
                    break
            if cands is None:
                dead.add(kind)
                continue
        else:
            positions = sorted({op.position for op in avail[kind]})
            pos = rng.choice(positions)
            cands = [op for op in avail[kind] if op.position == pos]
        op = rng.choice(cands) if uniform else rng.choices(cands, weights=[conf.op_weight(o) for o in cands])[0]
        if undoes_error(tokens, edits, op):
            # together with an earlier edit it makes correct English with another meaning ("the companies
            # want" -> "the company wants", "a plan" -> "the plans")
            _count(refusals, "still_an_error")
            cands.remove(op)
            if kind not in lazy:
                by_type[kind].remove(op)
            continue
        if crowded(edits, op):
            # a third edit within two tokens of two others ("a spur of the moment" -> "spurs moment")
            _count(refusals, "edit_spread")
            cands.remove(op)
            if kind not in lazy:
                by_type[kind].remove(op)
            continue
        if articles_after(words, spaces, edits, op) > base_articles:
            # the edit would leave a/an before a word of the other sound ("an mechanism", "a effort")
            _count(refusals, "article_agreement")
            cands.remove(op)
            if kind not in lazy:
                by_type[kind].remove(op)
            continue
        edits.append(op.as_edit())
        spent += op.cost
        if op.operation == INSERT:
            gaps.add(op.position)
        elif op.operation == SWAP:
            touched.update((op.position, op.position + 1))
        else:
            touched.add(op.position)
    if not edits and not ops and not any(v for table in lazy.values() for v in table.values()):
        return PerturbationResult(tuple(words), tuple(spaces), (), budget, 0, "no applicable operation")
    new_words, new_spaces = apply_edits(words, spaces, edits)
    reason = None if edits else "no operation fits the budget"
    return PerturbationResult(tuple(new_words), tuple(new_spaces), tuple(edits), budget, spent, reason,
                              tuple(wchoice_sizes))


def _articles(words: Sequence[str]) -> set[int]:
    from robust_bench.perturb.checks import article_errors

    return article_errors(words)


def undoes_error(tokens: Sequence[Token], edits: Sequence[Mapping], op: Operation) -> bool:
    """The ``still_an_error`` check: whether ``op`` with an earlier edit yields correct English with
    another meaning instead of an error: an agreement (SVA) change of a verb whose subject's number an Nn
    edit changed ("the companies want" -> "the company wants"; the subject as parsed, or the noun right
    before the verb), or a number change of a noun whose own
    article an ArtOrDet edit changed ("a plan" -> "the plans", "in a restaurant" -> "in restaurants")."""
    if op.type not in ("SVA", "Nn", "ArtOrDet", "Vform") or not tokens:
        return False
    n = len(tokens)

    def article_of(i: int) -> int | None:
        for j in range(max(0, i - 4), i):
            if tokens[j].head == i and tokens[j].lower in ARTICLES:
                return j
        return None

    for e in edits:
        p = int(e["position"])
        if not 0 <= p < n and e["operation"] != INSERT:
            continue
        pair = {e["type"], op.type}
        if pair in ({"SVA", "Nn"}, {"Vform", "Nn"}):
            verb, noun = (p, op.position) if op.type == "Nn" else (op.position, p)
            if noun < n and verb < n and (_subject_of(tokens, verb) == noun or _just_before(tokens, noun, verb)):
                return True
        elif pair == {"ArtOrDet", "Nn"}:
            art, noun = (op, p) if op.type == "ArtOrDet" else (None, op.position)
            if art is None:          # op is Nn: did an earlier ArtOrDet edit touch this noun's article?
                a = article_of(noun)
                if (a is not None and p == a) or (e["operation"] == INSERT and noun >= p >= noun - 3):
                    return True
            else:                    # op is ArtOrDet: was its noun's number changed?
                target = op.position if op.operation == INSERT else tokens[op.position].head
                if op.operation == INSERT:
                    if p >= op.position and p <= op.position + 3:
                        return True
                elif p == target:
                    return True
    return False


def _just_before(tokens: Sequence[Token], noun: int, verb: int) -> bool:
    """Whether ``noun`` comes right before ``verb`` ("the outlook remains"): read as its subject even where
    the parse says otherwise (a parser that attached "outlook" to a later "says" made "outlooks remain"
    pass as an agreement error). Positions only, so an attack over the stored search space, which keeps
    no tags, decides as one that parses."""
    return noun == verb - 1


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


def crowded(edits: Sequence[Mapping], op: Operation) -> bool:
    """The ``edit_spread`` check: whether ``op`` would be the third edit within two tokens of each other,
    which leaves a stretch no reader can recover ("a spur of the moment decision" -> "spurs moment
    decision")."""
    near = sum(1 for e in edits if abs(int(e["position"]) - op.position) <= 2)
    return near >= 2


def articles_after(words: Sequence[str], spaces: Sequence[bool], edits: Sequence[Mapping],
                   op: Operation | None) -> int:
    """Indefinite articles that disagree with the next word's sound once ``op`` (if any) joins
    ``edits`` (:func:`robust_bench.perturb.checks.article_errors`); the ``article_agreement`` check
    compares it with the original sentence's count. Only sentences with an article or an article
    edit are rebuilt.

    Parameters
    ----------
    words, spaces : sequence of shape (n_tokens,)
        The original sentence.
    edits : sequence of dict
        Edits already applied (original token indices).
    op : Operation or None

    Returns
    -------
    int
    """
    if (op is None or op.type != "ArtOrDet") and not any(w.lower() in ("a", "an") for w in words) \
            and not any(e["type"] == "ArtOrDet" for e in edits):
        return 0
    new, _ = apply_edits(words, spaces, [*edits, *([op.as_edit()] if op is not None else [])])
    return len(_articles(new))


def apply_edits(words: Sequence[str], spaces: Sequence[bool], edits: Iterable[Mapping]) -> tuple[list[str], list[bool]]:
    """Apply edits (original token indices) to a tokenised sentence.

    Substitutions keep the token's trailing space; an inserted token is followed by a space;
    a deleted token's trailing space passes to the token before it; a swap exchanges the words
    and keeps the spaces in place.

    Parameters
    ----------
    words : sequence of str of shape (n_tokens,)
    spaces : sequence of bool of shape (n_tokens,)
        Whether each token is followed by a space.
    edits : iterable of dict
        With ``position``, ``operation``, ``replacement`` (and ``type``, ``original``).

    Returns
    -------
    words, spaces : list of str, list of bool

    Raises
    ------
    ValueError
        On overlapping edits, out-of-range positions, an unknown operation, or an edit whose
        ``original`` does not match the sentence.
    """
    n = len(words)
    sub: dict[int, str] = {}
    dele: set[int] = set()
    ins: dict[int, str] = {}
    swap: set[int] = set()
    touched: set[int] = set()
    for e in edits:
        p, op = int(e["position"]), e["operation"]
        if op == INSERT:
            if not 0 <= p <= n or p in ins:
                raise ValueError(f"insertion at {p} is out of range or repeated")
            ins[p] = e["replacement"]
            continue
        span = (p, p + 1) if op == SWAP else (p,)
        if any(not 0 <= q < n or q in touched for q in span):
            raise ValueError(f"{op} at {p} is out of range or overlaps another edit")
        touched.update(span)
        expected = " ".join(words[q] for q in span)
        if e.get("original") is not None and e["original"] != expected:
            raise ValueError(f"{op} at {p}: original {e['original']!r} does not match {expected!r}")
        if op == SUBSTITUTE:
            sub[p] = e["replacement"]
        elif op == DELETE:
            dele.add(p)
        elif op == SWAP:
            swap.add(p)
        else:
            raise ValueError(f"unknown operation {op!r}")
    out_w: list[str] = []
    out_s: list[bool] = []
    i = 0
    while i <= n:
        if i in ins:
            out_w.append(ins[i])
            out_s.append(True)
        if i == n:
            break
        if i in dele:
            if out_s and not out_s[-1]:
                out_s[-1] = spaces[i]
            i += 1
            continue
        if i in swap:
            out_w += [words[i + 1], words[i]]
            out_s += [spaces[i], spaces[i + 1]]
            i += 2
            continue
        out_w.append(sub.get(i, words[i]))
        out_s.append(spaces[i])
        i += 1
    if out_s and n and ins.get(n) is not None:
        out_s[-1] = spaces[-1] if n else False
    return out_w, out_s


def render(words: Sequence[str], spaces: Sequence[bool]) -> str:
    """Detokenise: each word followed by a space where ``spaces`` says so (trailing space stripped)."""
    return "".join(w + (" " if s else "") for w, s in zip(words, spaces)).rstrip(" ")


def realign_tags(tags: Sequence, edits: Iterable[Mapping], *, fill) -> list:
    """Per-token tags (for example NER tags) carried through the edits: an inserted token gets
    ``fill`` (``O``), a deleted token drops its tag, swapped tokens swap theirs, a substituted
    token keeps its own.

    Parameters
    ----------
    tags : sequence of shape (n_tokens,)
    edits : iterable of dict
    fill : object
        The tag of inserted tokens.

    Returns
    -------
    list of shape (n_tokens_after,)
    """
    marks = [str(i) for i in range(len(tags))]
    marked = []
    for e in edits:
        op = e["operation"]
        repl = "+" if op == INSERT else str(e["position"]) if op == SUBSTITUTE else ""
        marked.append({**e, "original": None, "replacement": repl})
    new, _ = apply_edits(marks, [True] * len(marks), marked)
    return [tags[int(w)] if w.isdigit() else fill for w in new]
