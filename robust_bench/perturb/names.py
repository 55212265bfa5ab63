"""Named-entity swaps (Balasubramanian et al., 2020, "What's in a Name?"): every mention of a
name is replaced by another name of the same type, consistently across the whole example or
document.

One mechanism for every config:

* **Mentions** are token spans with a coarse type (``PER``, ``ORG``, ``LOC``) and an entity id.
  They come from gold annotation (coreference clusters, NER tags) or from a spaCy NER pipeline,
  whose labels are mapped with :func:`robust_bench.text.nlp.map_entity_label`.
* **Persons** are replaced word by word (§2.3 of the paper for coreference): first names by first
  names of the same gender, last names by last names, so "Chris Hill", "Chris", "Hill" and
  "Hill 's" become "Sam Rusnock", "Sam", "Rusnock" and "Rusnock 's". Every distinct name word has
  one role and one replacement in the whole document: a word that full names use first is a first
  name; a word seen only alone or in the middle is a first name when only the first-name lists know
  it; otherwise, "in case of ambiguity, the last name". Middle names follow the same rule, initials
  stay initials ("John F. Kennedy" -> "Sam K. Rusnock"), honorifics (*Mr.*, *Lady*) stay. Gender
  comes from the coreference cluster's pronouns where they exist, else an honorific, else the
  first-name lists; otherwise it is drawn and recorded as ``unknown``.
* **Organisations** are replaced whole, keeping a corporate suffix (*Microsoft Corp.* ->
  *Intel Corp.*); **locations** only when the lexicon knows them as a country or a city, by a
  country or a city.
* **No collision**: a replacement never occurs anywhere in the example or document (as a token
  sequence, case-insensitively), and distinct originals never receive the same replacement, so two
  entities never merge. An original name part keeps one replacement everywhere: two persons who
  share a surname still share the new one.
* **Alignment**: :func:`apply_swaps` returns the new tokens, one :class:`Edit` per replaced span
  (entity id, type, role, original, replacement, original and new spans) and a :class:`SpanMap`
  that realigns NER tags and coreference spans when a name has more or fewer tokens.

Every draw comes from the ``random.Random`` the caller passes, seeded per example, so the same seed
gives the same variants.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from robust_bench.perturb.organisations import (COMPANY, GROUP_WORDS, SECTORS, company_index, company_key,
                                                executive_department, executive_departments, legislatures,
                                                sector_from_words,
                                                sector_pools)
from robust_bench.text.names import (EITHER_SHARE, HONORIFIC_GENDER, NOT_NAME_WORDS, PARTICLES,
                                     SURNAME_FIRST_COUNTRIES, NameFact, is_name_word)
from robust_bench import RobustBenchError

__all__ = ["ENTITY_TYPES", "Mention", "Edit", "SpanMap", "SwapPlan", "NameLexicon", "NameLexiconError",
           "plan_swaps", "apply_swaps", "person_name_tokens", "NOT_NAME_WORDS", "organisation_core", "organisation_kind",
           "ORGANISATION_KINDS", "INSTITUTION_KINDS", "is_institution", "same_organisation", "nickname_pairs",
           "name_word_roles",
           "is_sports_headline", "harvest_organisations",
           "mentions_from_tags", "realign_tags", "span_map_from_edits", "HONORIFIC_GENDER"]

#: Entity types the engine can swap.
ENTITY_TYPES = ("PER", "ORG", "LOC")

#: The lexicon's nationalities say "British"; these are its constituent nations' adjectives.
_BRITISH_ADJECTIVES = {"english", "scottish", "scots", "welsh", "irish", "cornish", "manx"}
_POSSESSIVE = {"'s", "'", "’s", "’"}
#: Corporate suffixes kept when an organisation is replaced.
_ORG_SUFFIXES = {"corp", "corp.", "corporation", "inc", "inc.", "co", "co.", "ltd", "ltd.", "plc", "llc", "l.p.",
                 "ag", "sa", "s.a.", "nv", "n.v.", "limited", "incorporated", "cos", "cos.", "bhd", "group"}


class NameLexiconError(RobustBenchError, ValueError):
    """A name list is missing or malformed; the message names the file and the field."""


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


#: Replacements are drawn from the most frequent first names of each gender and the most frequent
#: surnames of the lists (in order of frequency); the rare tail of the census lists holds misspellings
#: ("Kennth", "Jonthan", "Grabiel") and run-together names ("Michaelanthony") that read as typos. The
#: whole lists still recognise names.
#: An organisation kind with fewer replacement names is not swapped (its mentions are refused and
#: counted): a handful of exchanges would repeat one name across a group's variants.
MIN_ORGANISATION_POOL = 10
#: The same for an industry group (``industry:<group>``), a narrower kind: fewer companies suffice (the
#: Fortune 500's four software makers, Microsoft, Oracle, Symantec and salesforce.com, replace each other).
MIN_INDUSTRY_POOL = 4
POOL_FIRST_NAMES = 1000
POOL_SURNAMES = 5000


#: Irish surnames the census lists write without their apostrophe ("Oneal", "Oleary")
_O_NAMES = {"neal", "neil", "neill", "leary", "brien", "bryan", "connor", "connell", "donnell", "donoghue", "donovan",
            "dell", "reilly", "rourke", "sullivan", "keefe", "keeffe", "malley", "mara", "hara", "hare", "shea",
            "shaughnessy", "toole", "grady", "gorman", "halloran", "callaghan", "dowd", "flaherty", "bannon", "kelly",
            "loughlin", "meara", "quinn", "riley", "boyle", "day", "dea", "doherty", "driscoll", "farrell", "leary"}


def _spelling(name: str) -> str:
    """A census list's name as it is written: "Mccutcheon" -> "McCutcheon", "Oneal" -> "O'Neal"
    (the lists come in capitals, title-cased)."""
    if len(name) > 3 and name.startswith("Mc") and name[2].islower():
        return "Mc" + name[2].upper() + name[3:]
    if len(name) > 3 and name[0] == "O" and name[1:].lower() in _O_NAMES:
        return "O'" + name[1].upper() + name[2:]
    return name


class NameLexicon:
    """Replacement names by type.

    Parameters
    ----------
    male, female : sequence of str
        First names by gender (CheckList's ``men`` and ``women``).
    last : sequence of str
        Last names.
    countries, cities : sequence of str
        Location names (CheckList's basic lexicon).
    organisations : sequence of str
        Institution names (courts, ministries, parties...; see :func:`organisation_kind`), for
        example harvested from CoNLL-2003 train with :func:`harvest_organisations`. Names of no
        institution kind are ignored: companies come from ``companies``.
    companies : sequence of (str, str)
        Company names with their sector (:data:`robust_bench.perturb.organisations.SECTORS`), for
        example the Fortune 500 (:func:`robust_bench.perturb.organisations.read_fortune500`).
    traded : sequence of (str, str, str or None)
        Companies that only recognise a mention as a company and give its sector and industry group (the
        stock indices of :func:`robust_bench.perturb.organisations.read_traded_companies`); never drawn.
    facts : mapping of str to NameFact, optional
        What names-dataset knows of the names that matter (title-cased keys; see
        :func:`robust_bench.text.names.name_facts`): the gender of a first name comes from it where
        it knows the name, and the pools keep only names whose gender it confirms. Without it, the
        gender of a first name is the list that holds it (CheckList's lists are disjoint), and
        there is no pool of names of either gender.
    source : dict, optional
        What the lists were read from, for the card.
    """

    def __init__(self, *, male: Sequence[str], female: Sequence[str], last: Sequence[str],
                 countries: Sequence[str] = (), cities: Sequence[str] = (), organisations: Sequence[str] = (),
                 companies: Sequence[tuple[str, str]] = (), facts: Mapping[str, NameFact] | None = None,
                 traded: Sequence[tuple[str, str, str | None]] = (), source: Mapping | None = None):
        self.facts = dict(facts or {})
        self.male = tuple(dict.fromkeys(male))
        self.female = tuple(dict.fromkeys(female))
        self.last = tuple(dict.fromkeys(last))
        self.countries = tuple(dict.fromkeys(countries))
        self.cities = tuple(dict.fromkeys(cities))
        self.organisations = tuple(dict.fromkeys(organisations))
        for name, sector, *_ in companies:
            if sector not in SECTORS:
                raise NameLexiconError(f"company {name!r}: unknown sector {sector!r}; expected one of {list(SECTORS)}")
        self.traded = tuple(traded)
        # a listed company's industry group where the stock indices' industries say another ("Jabil", a
        # contract manufacturer, is in Fortune's "Semiconductors and Other Electronic Components")
        # keep a Fortune group only where a stock index's industries, if any, confirm it
        industries = {company_key(t[0]): t[3] for t in self.traded if len(t) > 3}

        def group(c):
            g = c[2] if len(c) > 2 else None
            text = industries.get(company_key(c[0]))
            return g if g is None or text is None or any(w in text for w in GROUP_WORDS.get(g, (g,))) else None

        self.companies = tuple(dict.fromkeys((c[0], c[1], group(c)) for c in companies))
        self._company_index, self._company_aliases = company_index(self.companies + self.traded)
        self._fortune_keys = frozenset(company_key(c[0]) for c in self.companies)
        # a Fortune company's group is the list's (none where its industry has none: McDonald's); a traded
        # company's from its industries (pytickersymbols)
        self._company_group = {**{company_key(t[0]): t[2] for t in self.traded},
                               **{company_key(n): g for n, _, g in self.companies}}
        self.source = dict(source or {})
        self._male = set(self.male)
        self._female = set(self.female)
        self._last = set(self.last)
        self._pools: dict[str, tuple[str, ...]] = {}
        self._countries = {c.lower() for c in self.countries}
        self._cities = {c.lower() for c in self.cities}

    @classmethod
    def load(cls, names: str | os.PathLike, lexicon: str | os.PathLike | None = None, *,
             organisations: Sequence[str] = (), companies: Sequence[tuple[str, str]] = (),
             extra: str | os.PathLike | None = None, facts: Mapping[str, NameFact] | None = None,
             traded: Sequence[tuple[str, str, str | None]] = ()) -> "NameLexicon":
        """Read CheckList's ``names.json`` (``men``, ``women``, ``last``) and, optionally, its
        ``lexicons/basic.json`` (``country``, ``city``; person names that are also one of its
        ``nationality``, ``religion`` or ``country`` words, such as *English* or *Spain*, are left
        out) and a user list.

        Parameters
        ----------
        names, lexicon : path-like
        organisations : sequence of str
            Institution names (see :func:`harvest_organisations`).
        companies : sequence of (str, str)
            Companies with their sector (see :func:`robust_bench.perturb.organisations.read_fortune500`).
        facts, traded : optional
            See the class.
        extra : path-like, optional
            A user list (``--names FILE``): one name per line, optionally ``TYPE<TAB>name`` with TYPE
            in ``PER-male``, ``PER-female``, ``PER-last``, ``ORG``, ``ORG-<kind>``, ``LOC-country``,
            ``LOC-city``. ``<kind>`` is a company sector (``ORG-finance``, ``ORG-technology``, ...; see
            :data:`robust_bench.perturb.organisations.SECTORS`) or an institution kind
            (``ORG-court``, ``ORG-university``, ...; :data:`INSTITUTION_KINDS`). ``ORG`` and lines without
            a type are companies, whose sector comes from their name's words or is unknown.

        Raises
        ------
        NameLexiconError
            If a file is missing, is not the expected JSON, or a field is absent or not a list of strings;
            for a user list line with an unknown type or kind, naming the file, line and field.
        """
        data = _read_json(names)
        for key in ("men", "women", "last"):
            _check_list(names, data, key)
        countries: list[str] = []
        cities: list[str] = []
        if lexicon is not None:
            lex = _read_json(lexicon)
            for key in ("country", "city"):
                _check_list(lexicon, lex, key)
            countries, cities = lex["country"], lex["city"]
            # surnames that read as adjectives or places ("English", "Christian", "Spain") would change
            # what the sentence says, not only who is in it
            adjectives = {x.lower() for key in ("nationality", "religion", "religion_adj", "country")
                          for x in lex.get(key, ()) if isinstance(x, str)} | _BRITISH_ADJECTIVES
        else:
            adjectives = set()
        male, female, last = ([_spelling(x) for x in data[k] if x.lower() not in adjectives]
                              for k in ("men", "women", "last"))
        orgs = list(organisations)
        source = {"names": str(names), "lexicon": None if lexicon is None else str(lexicon)}
        if extra is not None:
            path = Path(extra)
            if not path.is_file():
                raise NameLexiconError(f"{path}: no such name list")
            countries, cities = list(countries), list(cities)
            user_orgs: list[str] = []
            user_companies: list[tuple[str, str]] = []
            targets = {"PER-male": male, "PER-female": female, "PER-last": last, "LOC-country": countries,
                       "LOC-city": cities}
            org_types = {"ORG", *(f"ORG-{k}" for k in SECTORS), *(f"ORG-{k}" for k in INSTITUTION_KINDS)}
            from robust_bench.io.fileio import iter_lines

            for lineno, line in enumerate(iter_lines(path), start=1):
                line = line.rstrip("\r\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                kind, name = line.split("\t", 1) if "\t" in line else ("ORG", line)
                kind = kind.strip()
                if kind not in targets and kind not in org_types:
                    raise NameLexiconError(f"{path}:{lineno}: type: unknown name type or kind {kind!r}; expected "
                                           f"one of {sorted(targets) + sorted(org_types)}")
                if not name.strip():
                    raise NameLexiconError(f"{path}:{lineno}: name: empty (a {kind} line needs a name after the tab)")
                if not kind.startswith("ORG"):
                    if name.strip():
                        targets[kind].append(name.strip())
                    continue
                name = " ".join(organisation_core(name.split()))
                if not name:
                    continue
                want = kind[4:] or None
                if want in INSTITUTION_KINDS:
                    if organisation_kind(name) != want:
                        raise NameLexiconError(f"{path}:{lineno}: name: {name!r} is not recognisably a {want} "
                                               f"(its words make it {organisation_kind(name)!r})")
                    user_orgs.append(name)
                else:
                    user_companies.append((name, want or sector_from_words(name) or COMPANY))
            orgs = user_orgs + orgs
            companies = user_companies + list(companies)
            source["extra"] = str(path)
        return cls(male=male, female=female, last=last, countries=countries, cities=cities, organisations=orgs,
                   companies=companies, facts=facts, traded=traded, source=source)

    def without(self, seen: Iterable[str]) -> "NameLexicon":
        """A copy without the names in ``seen`` (case-insensitive), as the paper excluded
        names of the training data (``--exclude-seen``)."""
        s = {x.lower() for x in seen}
        keep = lambda xs: [x for x in xs if x.lower() not in s]   # noqa: E731
        return NameLexicon(male=keep(self.male), female=keep(self.female), last=keep(self.last),
                           countries=keep(self.countries), cities=keep(self.cities),
                           organisations=keep(self.organisations),
                           companies=[c for c in self.companies if c[0].lower() not in s], facts=self.facts,
                           traded=self.traded,
                           source={**self.source, "excluded_seen": len(s)})

    def add_facts(self, facts: Mapping[str, NameFact]) -> None:
        """Add names-dataset facts (see the class), for example for the words of the corpus being built."""
        self.facts.update(facts)
        self._pools.clear()

    def fact_words(self) -> set[str]:
        """The names whose facts the pools need: the first names of the lists' pools."""
        return set(self.male[:POOL_FIRST_NAMES]) | set(self.female[:POOL_FIRST_NAMES])

    def gender_of(self, first: str) -> str | None:
        """The gender of a first name: ``male`` or ``female`` when names-dataset gives at least
        :data:`~robust_bench.text.names.GENDER_SHARE` of its bearers that gender, ``either`` when it
        knows the name with both ("Courtney", "Kim", "Andrea"); for a name it does not know, the one
        first-name list that holds it; else ``None`` (unknown)."""
        fact = self.facts.get(first.title())
        if fact is not None and fact.gender is not None:
            return fact.gender
        m, f = first in self._male, first in self._female
        return "male" if m and not f else "female" if f and not m else None

    def surname_first(self, words: Sequence[str]) -> bool:
        """Whether a person's name is written family name first ("Kim Do Hoon", "Tan Kong Yam", "Li
        Peng"), by names-dataset: its first word is among the 300 most frequent family names of a
        country whose press writes them first (:data:`~robust_bench.text.names.SURNAME_FIRST_COUNTRIES`)
        and ranks higher there than as a given name elsewhere ("Chris", "Ian" do not), and a later word
        is a given name there (most borne there, or among the 10,000 most frequent there) or unknown to
        names-dataset; where the first word is also among the 1,000 most frequent given names elsewhere
        ("Kim", "Kit"), a later word must be most borne there. "Kim Clijsters", "Kit Small" are not."""
        words = [w for w in words if w[:1].isupper()]
        if len(words) < 2:
            return False
        head = self.facts.get(words[0].title())
        later = [self.facts.get(w.title()) for w in words[1:]]
        if head is not None and head.surname_first_rank is not None and head.first_rank is None and any(
                f is not None and f.first_country in SURNAME_FIRST_COUNTRIES and f.given_rank_east is not None
                and f.given_rank_east <= 1000 for f in later):
            return True         # a rarer family name, never a given name, before a given name there ("Kusunose Shiho")
        if head is None or head.surname_first_rank is None or head.surname_first_rank > 300 or (
                head.given_rank_west is not None and head.given_rank_west <= head.surname_first_rank):
            return False
        if head.given_rank_west is not None and head.given_rank_west <= 1000:
            # the head is also a common given name elsewhere ("Kim", "Kit", "Lee"): a later word must be a
            # given name most borne there that the (American) name lists do not know ("Kim Do Hoon"; not
            # "Kit Small", where names-dataset's shares put "Small" in Hong Kong)
            # a hyphenated given name in the Korean romanisation ("Lee Kyou-hyuk", "Kim Dae-jung") counts too
            return any(f is not None and f.first_country in SURNAME_FIRST_COUNTRIES
                       and not (self.is_first_name(w.title()) or self.is_last_name(w.title()))
                       or re.fullmatch(r"[A-Z][a-z]+-[a-z]+", w) is not None
                       for w, f in zip(words[1:], later))
        # a given name ranked there ("Kong", "Zhilan", "Jingna"), or a word names-dataset does not know at all
        return any(f is None or f.first_country in SURNAME_FIRST_COUNTRIES
                   or f.given_rank_east is not None and f.given_rank_east <= 10000 for f in later)

    def is_first_name(self, word: str) -> bool:
        return word in self._male or word in self._female

    def is_last_name(self, word: str) -> bool:
        return word in self._last

    def location_kind(self, text: str) -> str | None:
        """``country`` or ``city`` when the lexicon knows ``text``, else ``None``."""
        t = text.lower()
        return "country" if t in self._countries else "city" if t in self._cities else None

    def company_sector(self, name: str) -> str:
        """The sector of a company name: the list's, when it names the company ("Cisco" is Cisco
        Systems, technology), else one its words mark ("Delta Air Lines": transport), else
        ``company`` (unknown)."""
        key = company_key(name)
        return (self._company_index.get(key) or (self._company_aliases.get(key) if self.is_listed_company(name) else None)
                or sector_from_words(name) or COMPANY)

    def is_fortune_company(self, name: str) -> bool:
        """Whether the Fortune 500 list (not only a stock index) names ``name`` exactly (by :func:`company_key`)."""
        return company_key(name) in self._fortune_keys

    def company_group(self, name: str) -> str | None:
        """The industry group of a listed company (:data:`INDUSTRY_GROUPS`), else ``None``."""
        return self._company_group.get(company_key(name)) if self.is_listed_company(name) else None

    def is_listed_company(self, name: str, *, alias: bool = True) -> bool:
        """Whether the company list names ``name`` (see :func:`company_index`); with ``alias``, a first
        word of a listed name counts too ("Cisco") unless it is also a first name or surname ("Wells",
        "Franklin") or an English word ("Crown" of "Crown corporations", "Southern")."""
        key = company_key(name)
        if key in self._company_index:
            return True
        return alias and key in self._company_aliases and not (self.is_first_name(key.title()) or self.is_last_name(key.title())
                                                    or _english_word(key))

    def pool(self, kind: str) -> tuple[str, ...]:
        """The names of one kind: ``male``, ``female``, ``unisex`` (names of either gender; ``unisex-male``
        and ``unisex-female`` those leaning one way), ``last``, a company sector (:data:`SECTORS`; ``company`` holds the companies whose names
        reveal no industry), an institution kind (:data:`INSTITUTION_KINDS`), ``country``, ``city``.
        Computed once per kind.

        Raises
        ------
        KeyError
            For an unknown kind.
        """
        if kind not in self._pools:
            self._pools[kind] = self._pool(kind)
        return self._pools[kind]

    def _pool(self, kind: str) -> tuple[str, ...]:
        if kind in SECTORS or kind.startswith("industry:"):
            pools = sector_pools(self.companies)
            if kind not in pools:
                raise KeyError(kind)
            # "Shares of Southern fell": a one-word name that is an English adjective reads as one
            return tuple(n for n in pools[kind] if " " in n or not _adjective(n))
        if kind == "executive department":
            return executive_departments()
        if kind == "legislature":
            # WordNet's legislatures, and those the corpus names ("National Assembly")
            return tuple(dict.fromkeys(legislatures() + tuple(
                o for o in self.organisations if organisation_kind(o) == kind and o not in legislatures())))
        if kind in INSTITUTION_KINDS:
            # not a team named after its university ("University of New Mexico Lobos"), not a city ("Newport
            # News"), not a longer form of another name of the pool ("CBS Television", "Reuters Research")
            names = [o for o in self.organisations if organisation_kind(o) == kind
                     and not (_plural_name(o.split()[-1]) and organisation_kind(o.split()[-1]) != kind)
                     and (kind != "university" or university_name(o))
                     and self.location_kind(o) is None]
            words = {o: o.split() for o in names}
            return tuple(o for o in names if not any(
                p != o and len(words[p]) < len(words[o]) and any(words[o][i:i + len(words[p])] == words[p]
                                                                  for i in range(len(words[o])))
                for p in names))
        male, female = self.male[:POOL_FIRST_NAMES], self.female[:POOL_FIRST_NAMES]
        if self.facts:
            # only names whose gender names-dataset confirms ("Kim" is in the men's census list too)
            # ... and names-dataset knows as a given name ("Beckett" is a surname there)
            male = tuple(n for n in male if self.gender_of(n) == "male" and self.facts.get(n.title()) is not None
                         and self.facts[n.title()].female is not None)
            female = tuple(n for n in female if self.gender_of(n) == "female" and self.facts.get(n.title()) is not None
                           and self.facts[n.title()].female is not None)
        # a first name that reads as a surname ("Beckett") and a surname that reads as a first name
        # ("William", "Miguel", "Todd"), or that is a rare surname and an English word ("Null"), would turn
        # a swap into a role swap
        male = tuple(n for n in male if self.likely_role(n) == "first")
        female = tuple(n for n in female if self.likely_role(n) == "first")
        if kind in ("unisex", "unisex-male", "unisex-female"):
            # names of either gender by two resources: names-dataset's shares, and NLTK's names corpus listing
            # the name among both men's and women's names ("Casey", "Jamie", "Morgan"; not "Eli", "Maci"); and
            # leaning the way the (American) list that holds it does, so that it reads as either gender to
            # an English reader ("Andrea", a woman's name in the lists but 55% men's in names-dataset, and
            # "Kellen" are left out). ``unisex-male`` and ``unisex-female``: those leaning one way, for a
            # name of either gender that leans that way ("Joan", 56% women's: "Sydney", not "Marty")
            lo, hi = EITHER_SHARE
            both = _both_gender_names()
            out = []
            for n in self.male[:POOL_FIRST_NAMES] + self.female[:POOL_FIRST_NAMES]:
                f = self.facts.get(n)
                if n not in both or f is None or f.female is None or not lo <= f.female <= hi:
                    continue
                leans = "female" if f.female >= 0.5 else "male"
                if leans != ("male" if n in self._male else "female"):
                    continue
                if kind == "unisex" or kind == f"unisex-{leans}":
                    out.append(n)
            return tuple(dict.fromkeys(out))
        last = tuple(n for n in self.last[:POOL_SURNAMES] if self.likely_role(n) == "last"
                     and not (self.rank(n, "last") > 500 and _english_word(n)))
        return {"male": male, "female": female, "last": last,
                "country": self.countries, "city": self.cities}[kind]

    def likely_role(self, word: str) -> str | None:
        """``first`` or ``last``: the list in which ``word`` ranks higher (the lists are in order of
        frequency: "Rachel", "Oliver" are common first names and rarer surnames, "Johnson", "Watson" the
        reverse); ``None`` when no list has it."""
        if not (self.is_first_name(word) or self.is_last_name(word)):
            return None
        inf = float("inf")
        first = min(self._rank()["male"].get(word, inf), self._rank()["female"].get(word, inf))
        last = self._rank()["last"].get(word, inf)
        return "first" if first < last else "last"

    def rank(self, word: str, kind: str) -> int:
        """0-based position of ``word`` in the ``male``, ``female`` or ``last`` list (the lists are in
        order of frequency); the list's length when it is not there."""
        return self._rank()[kind].get(word, len(self._rank()[kind]))

    def sole_role(self, word: str) -> str | None:
        """``first`` or ``last`` when only the first-name lists or only the surname list has ``word``."""
        f, last = self.is_first_name(word), self.is_last_name(word)
        return "first" if f and not last else "last" if last and not f else None

    def _rank(self) -> dict[str, dict[str, int]]:
        if not hasattr(self, "_ranks"):
            self._ranks = {k: {name: i for i, name in enumerate(v)}
                           for k, v in (("male", self.male), ("female", self.female), ("last", self.last))}
        return self._ranks

    def sizes(self) -> dict[str, int]:
        return {k: len(self.pool(k)) for k in ("male", "female", "unisex", "last", *SECTORS, *INSTITUTION_KINDS,
                                               "country", "city")}


def _read_json(path) -> dict:
    p = Path(path)
    if not p.is_file():
        raise NameLexiconError(f"{p}: no such name list")
    try:
        from robust_bench.io.fileio import read_text

        data = json.loads(read_text(p))
    except json.JSONDecodeError as exc:
        raise NameLexiconError(f"{p}: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise NameLexiconError(f"{p}: expected a JSON object of name lists")
    return data


def _check_list(path, data: dict, key: str) -> None:
    v = data.get(key)
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise NameLexiconError(f"{path}: field {key!r} must be a list of non-empty strings")


def person_name_tokens(tokens: Sequence[str], start: int, end: int, *, gold: bool = False) -> tuple[int, int] | None:
    """The name inside a person mention: honorifics, determiners and a possessive stripped,
    then the last run of capitalised words.

    Parameters
    ----------
    tokens : sequence of str
    start, end : int
        The mention, ``[start, end)``.
    gold : bool
        The span is a gold name annotation: words that are usually not names ("Jason Little",
        "B. Young") count as names.

    Returns
    -------
    (int, int) or None
        Token span ``[a, b)`` of the name, or ``None`` when the mention holds no name
        (a pronoun, "the old man").
    """
    b = end
    while b > start and tokens[b - 1] in _POSSESSIVE:
        b -= 1
    a = b
    while a > start and (tokens[a - 1].lower() not in HONORIFIC_GENDER
                         or gold and tokens[a - 1].lower() in _NAME_LIKE_TITLES) and (
            is_name_word(tokens[a - 1], gold) or tokens[a - 1] in PARTICLES and a - 1 > start and a < b):
        a -= 1
    if all(t in PARTICLES for t in tokens[a:b]):
        return None
    return a, b                 # a leading particle belongs to the surname: "(the Duc) de Chalis"


#: Titles that are also names: inside a gold name annotation ("Dean Sturridge", "Earl Woods", "John
#: Major") they are the name.
_NAME_LIKE_TITLES = {"dean", "earl", "major", "prince", "king", "duke", "baron", "marshal"}


def organisation_core(tokens: Sequence[str]) -> tuple[str, ...]:
    """An organisation mention without a leading article, corporate suffixes, and anything from a
    possessive on (a tagger's "RealNetworks ' Rhapsody" is the organisation RealNetworks), unless only
    corporate suffixes follow it: then the possessive is the name's ("Kohl 's Corp.", "McDonald 's Corp.")."""
    toks = list(tokens)
    cut = next((i for i, t in enumerate(toks) if t in _POSSESSIVE), None)
    if cut and toks[cut + 1:] and all(t.lower().rstrip(",") in _ORG_SUFFIXES for t in toks[cut + 1:]):
        toks = toks[:cut + 1]   # "Kohl 's Corp.": the company is Kohl's
    elif cut and toks[cut + 1:] and toks[-1].lower().rstrip(",") in _ORG_SUFFIXES:
        pass                    # "Wendy 's International Inc.", "Dreyer 's Grand Ice Cream Inc.": one name
    elif cut:
        toks = toks[:cut]       # "RealNetworks ' Rhapsody": the owner is the organisation
    while len(toks) > 1 and (toks[-1].lower().rstrip(",") in _ORG_SUFFIXES or toks[-1] in ("&", "and", "of", ",")):
        toks.pop()
    if toks and toks[0].lower() in ("the", "a", "an") and len(toks) > 1:
        toks.pop(0)             # a tagger's "a Redding Medical Center": the article is the sentence's
    return tuple(toks)


#: Kinds of public institution by a word of the name (first match wins). A court is replaced by a
#: court, a legislature by a legislature, and a company by a company: "the Kurdistan Democratic Party
#: voted" or "the Microsoft voted" would change what the sentence says, not only who is in it.
_INSTITUTION_KINDS = (
    ("journal", {"journal", "magazine", "review", "lancet"}),
    ("hospital", {"hospital", "clinic", "infirmary", "hospice"}),
    ("event or venue", {"conference", "summit", "expo", "festival", "awards", "hall", "arena", "stadium", "theatre",
                        "theater", "museum", "cathedral", "church", "airport", "base", "center", "centre", "centers",
                        "centres", "convention", "show", "fair", "exhibition", "games", "championship", "cup"}),
    ("broadcaster", {"nbc", "abc", "cbs", "cnn", "espn", "bbc", "hbo", "msnbc", "cnbc", "pbs", "television",
                     "channel", "tv", "broadcasting", "sky"}),
    ("news agency or newspaper", {"reuters", "press", "news", "post", "times", "tribune", "herald", "gazette",
                                  "bloomberg", "afp", "newspaper", "chronicle", "globe", "telegraph", "daily"}),
    ("committee", {"committee", "subcommittee"}),
    ("government body", {"commission"}),
    ("court", {"court", "tribunal", "judiciary"}),
    ("legislature", {"senate", "congress", "parliament", "assembly", "duma", "bundestag", "knesset",
                     "legislature"}),
    ("party", {"party", "democrats", "republicans", "tories", "gop"}),
    ("exchange", {"exchange", "nasdaq", "nyse", "amex", "bourse", "nymex", "cbot", "lme"}),
    ("central bank", {"reserve", "bundesbank", "fed", "ecb", "boj", "rba"}),
    ("international body", {"nations", "u.n.", "un", "nato", "osce", "eu", "eec", "imf", "opec", "wto", "who", "iaea",
                            "interpol", "unicef", "unesco", "asean", "apec"}),
    ("university", {"university", "college"}),
    ("school or institute", {"school", "institute", "academy"}),
    ("association", {"association", "society", "foundation", "guild", "federation", "organisation", "organization"}),
    ("armed group", {"army", "navy", "guard", "force", "forces", "front", "tigers", "brigade", "movement", "militia",
                     "marines"}),
    ("government body", {"ministry", "department", "treasury", "government", "administration", "bureau", "agency",
                         "office", "service", "commission", "committee", "authority", "board", "cabinet", "council",
                         "sec", "fda", "fcc", "ftc", "epa", "fbi", "cia", "nasa", "irs", "faa", "ntsb", "usda",
                         "atsb", "doj", "fema", "cdc", "nih", "nsa", "dea", "atf", "inspectorate", "pentagon", "unit",
                         "police"}),
)
#: The institution kinds of ``_INSTITUTION_KINDS``, and the United States executive departments (WordNet;
#: :func:`robust_bench.perturb.organisations.executive_department`).
INSTITUTION_KINDS = tuple(dict.fromkeys(k for k, _ in _INSTITUTION_KINDS)) + ("executive department",)
#: Every organisation kind an edit records: a company sector (:data:`SECTORS`) or an institution kind.
ORGANISATION_KINDS = SECTORS + INSTITUTION_KINDS


def university_name(name: str) -> bool:
    """Whether a name of the kind ``university`` names one as universities are named: "Vanderbilt
    University", "Boston College", "University of Central Florida"; not a team named after one ("University
    of New Mexico Lobos")."""
    words = [w for w in name.split() if w.lower() != "the"]
    return bool(words) and (words[-1] in ("University", "College") or words[0] == "University" and len(words) <= 4)


def organisation_kind(text: str) -> str:
    """The kind of an organisation name: an institution kind when a word marks one (``court``,
    ``legislature``, ``party``, ``exchange``, ``central bank``, ``international body``,
    ``university``, ``association``, ``armed group``, ``government body``; well-known acronyms such as *SEC*, *NYSE*
    or *NATO* count), else ``organisation`` (companies, news agencies, anything else). "Bank" marks a
    central bank only with "central" or "of" ("Bank of Japan", not "Deutsche Bank"); "Security
    Council" is an international body.

    >>> organisation_kind("Alabama Supreme Court"), organisation_kind("Merrill Lynch"), organisation_kind("SEC")
    ('court', 'organisation', 'government body')
    """
    words = [w.lower().strip(",").removesuffix(".com") for w in text.split()]     # "CNET News.com": news
    low = " ".join(words)
    if executive_department(text):
        return "executive department"   # "the Justice Department", "U.S. Department of Agriculture"
    if " ".join(w for w in text.split() if w.lower() != "the") in legislatures():
        return "legislature"            # WordNet's: "Knesset", "Dail", "Duma"
    if "security council" in low or any(f"{x} union" in low for x in ("european", "african", "postal")) or (
            {"organisation", "organization", "federation", "league"} & set(words)
            and {"world", "international", "european", "atlantic", "arab", "african", "countries"} & set(words)):
        return "international body"
    if {"international", "world"} & set(words) and any(w in _GOVERNMENT_WORDS for w in words):
        return "international body"     # "International Atomic Energy Agency", "World Food Programme"
    if low == "white house" or "disease control" in low:
        return "government body"
    if low == "big board":
        return "exchange"
    if {"guild", "union", "unions"} & set(words):
        return "association"            # "Washington-Baltimore Newspaper Guild" is a union, not a newspaper
    if "world congress" in low:
        return "event or venue"
    if any(k in low for k in ("medical center", "medical centre", "health center", "health centre")):
        return "hospital"
    if "house" in words and (len(words) == 1 or "house of" in low or low in ("state house", "statehouse")):
        return "legislature"            # "the House", "House of Commons"; not "Random House" or "Clearing House"
    if "bank" in words and ("central" in words or "of" in words):
        return "central bank"
    for kind, marks in _INSTITUTION_KINDS:
        if kind == "court" and not set(words) & _COURT_TYPES:
            continue                    # "Night Court" (a television series) is no court
        if any(w in marks for w in words):
            if kind == "broadcaster" and {"radio", "brothers", "bros", "bros.", "studios", "productions", "pictures",
                                          "records", "entertainment"} & set(words):
                return "organisation"   # a radio network or a studio ("Warner Brothers Television") is no channel
            return kind
    return "organisation"


_FUNCTION = {"of", "the", "and", "for", "&", "on", "in"}
#: Words that make a "... Court" a court of law ("Supreme Court", "King County Superior Court").
_COURT_TYPES = {"supreme", "district", "appeals", "appellate", "superior", "circuit", "federal", "high", "county",
                "municipal", "magistrates", "crown", "family", "bankruptcy", "tax", "claims", "criminal", "international",
                "constitutional", "state", "justice", "juvenile", "probate", "tribunal", "judiciary", "european", "u.s."}


def _initials(name: str) -> str:
    return "".join(w[0] for w in name.split() if w[:1].isupper() and w.lower() not in _FUNCTION and w != "U.S.")


def same_organisation(a: str, b: str) -> bool:
    """Whether two names may name one organisation, so that one cannot replace the other: equal but
    for dots ("U.N." and "UN"), one the acronym of the other ("FDA" and "Food and Drug
    Administration"), or the content words of one among the other's ("Supreme Court" and "U.S.
    Supreme Court")."""
    x, y = a.replace(".", "").upper(), b.replace(".", "").upper()
    if x == y:
        return True
    if (" " not in a and x == _initials(b).upper()) or (" " not in b and y == _initials(a).upper()):
        return True
    ca = {w.lower() for w in a.split() if w.lower() not in _FUNCTION}
    cb = {w.lower() for w in b.split() if w.lower() not in _FUNCTION}
    return bool(ca) and bool(cb) and (ca <= cb or cb <= ca)


_GOVERNMENT_WORDS = dict(_INSTITUTION_KINDS)["government body"]


def is_institution(kind: str) -> bool:
    """Whether ``kind`` is an institution kind (not a company's)."""
    return kind in INSTITUTION_KINDS


#: Reuters (CoNLL-2003) headlines of sports stories begin with the sport ("SOCCER - JAPAN GET LUCKY WIN .").
_SPORTS = {"soccer", "cricket", "baseball", "tennis", "cycling", "golf", "athletics", "rugby", "rallying", "racing",
           "basketball", "badminton", "motorcycling", "squash", "motocross", "swimming", "hockey", "rowing", "football",
           "boxing", "skiing", "sailing", "yachting", "volleyball", "handball", "judo", "wrestling", "olympics", "nfl",
           "nba", "nhl", "sport", "sports", "rules", "darts", "snooker", "chess", "triathlon", "equestrianism"}


def is_sports_headline(tokens: Sequence[str]) -> bool:
    """Whether a Reuters headline (a CoNLL-2003 document's first sentence) is a sports story's.

    Their organisations are clubs, mostly named after their town ("Kent", "Lille", "Sydney
    Bulldogs"); harvested as replacements they would put a football club where a court stood.
    """
    head = tokens[:tokens.index("-")] if "-" in tokens[:7] else tokens[:3]
    return any(w.lower() in _SPORTS for w in head)


def harvest_organisations(sentences: Iterable[tuple[Sequence[str], Sequence[str]]], *, min_count: int = 3
                          ) -> list[str]:
    """Organisation names from IOB2-tagged sentences (CoNLL-2003 train): companies and institutions.

    The paper replaced organisations by Fortune 500 companies. The harvest keeps the two kinds of
    organisation a news corpus can vouch for:

    * **companies**: names the corpus writes with a corporate suffix at least once ("Boeing Co",
      "Sun Microsystems Inc"), taken without it;
    * **institutions** (:func:`organisation_kind`): courts, ministries, parties, international
      bodies, seen at least ``min_count`` times.

    Militant groups, news agencies and other acronyms with neither kind of evidence ("PKK", "RTRS")
    are left out: put in a court's place they would change what the sentence says.

    Parameters
    ----------
    sentences : iterable of (tokens, tags)
        Tags as IOB2 strings (``B-ORG``, ``I-ORG``). Leave sports stories out before
        (:func:`is_sports_headline`): their organisations are clubs.
    min_count : int
        Institutions seen fewer times are dropped (tagging noise, one-off fragments).

    Returns
    -------
    list of str
        Cores (see :func:`organisation_core`) made of capitalised words, at least three characters,
        companies first, then institutions, each most frequent first. All-capital words count only
        as acronyms of up to five letters (sports tables write "CHICAGO"); names the corpus also tags
        as a location or a person are left out ("Essex", "Lens"), and so are one-word names the corpus
        also writes in lower case three times or more ("House", "News", "Labour").
    """
    counts: Counter = Counter()
    suffixed: Counter = Counter()
    other: set[str] = set()
    lower: Counter = Counter()
    for tokens, tags in sentences:
        lower.update(w for w in tokens if w.islower())
        for m in mentions_from_tags(tags):
            if m.type != "ORG":
                other.add(" ".join(tokens[m.start:m.end]).lower())
                continue
            words = tokens[m.start:m.end]
            core = organisation_core(words)
            text = " ".join(core)
            if core and len(text) > 2 and all(
                    (is_name_word(w) and (not w.isupper() or len(w) <= 5)) or w in ("&", "of", "and", "de", "for")
                    for w in core):
                counts[text] += 1
                if len(core) < len(words) and words[-1].lower().rstrip(",") in _ORG_SUFFIXES:
                    suffixed[text] += 1

    def ok(name: str) -> bool:
        # Reuters datelines ("Paris Newsroom", "U.S. Municipal Desk") are tagged ORG but name no organisation
        return (name.lower() not in other and name.split()[-1] not in ("Newsroom", "Desk")
                and not (name.startswith("Reuters ") or name.startswith("RTRS "))
                and not (" " not in name and lower[name.lower()] >= 3))

    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    companies = [n for n, _ in ranked if suffixed[n] and organisation_kind(n) == "organisation" and ok(n)]
    # a suffixed name with an institution's word ("First Union Corp") is a company the kinds would misfile
    institutions = [n for n, c in ranked if c >= min_count and is_institution(organisation_kind(n)) and ok(n)
                    and not suffixed[n]]
    return companies + institutions


def mentions_from_tags(tags: Sequence[str]) -> list[Mention]:
    """Entity spans of an IOB2 (or IOB1) tag sequence; each span is its own entity (``e<k>``).

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


def realign_tags(tags: Sequence[str], span_map: SpanMap, n_new: int) -> list[str]:
    """NER tags of the variant: every original entity span moves to its mapped span (B- then I-);
    tokens outside entities stay ``O``.

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


def _occurs(words: Sequence[str], lowered_tokens: Sequence[str], token_set: set[str]) -> bool:
    """Whether the token sequence ``words`` occurs in the document (case-insensitive)."""
    w = [x.lower() for x in words]
    if len(w) == 1:
        return w[0] in token_set
    if w[0] not in token_set:
        return False
    n = len(w)
    return any(lowered_tokens[i:i + n] == w for i in range(len(lowered_tokens) - n + 1))


_BANNED = NOT_NAME_WORDS | set(HONORIFIC_GENDER) | PARTICLES


def _squash(text: str) -> str:
    """Lower case, letters and digits only: "Wal-Mart" and "Walmart" are one name."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


class _Drawer:
    """Draws distinct replacements that occur nowhere in the document."""

    def __init__(self, tokens: Sequence[str], rng: random.Random, reserved: Iterable[str] = ()):
        self.lowered = [t.lower() for t in tokens]
        self.token_set = set(self.lowered)
        # the document's words run together up to four at a time, punctuation dropped: "Walmart" is
        # there when "Wal - Mart" is
        words = [_squash(t) for t in tokens if _squash(t)]
        self.squashed = {"".join(words[i:i + n]) for n in range(1, 5) for i in range(len(words) - n + 1)}
        self.rng = rng
        self.used: set[str] = {r.lower() for r in reserved}
        self.initials: set[str] = set()

    def draw(self, pool: Sequence[str], *, initial: bool = False, tries: int = 200, avoid=None) -> str | None:
        """A name from ``pool`` not used before and absent from the document; with ``initial``,
        one whose initial ("S.") is neither used before nor in the document; never one for which
        ``avoid(name)`` is true."""
        if not pool:
            return None
        for _ in range(tries):
            cand = pool[self.rng.randrange(len(pool))]
            key = cand.lower()
            # surnames that read as titles or function words ("Major", "Young", "Van") would change
            # how the sentence parses, not only which name it holds
            if key in self.used or key in _BANNED or _occurs(cand.split(), self.lowered, self.token_set) \
                    or _squash(cand) in self.squashed:
                continue
            if avoid is not None and avoid(cand):
                continue
            if initial:
                ini = cand[0].lower() + "."
                if ini in self.initials or ini in self.token_set or ini in _BANNED:     # "M." reads as Monsieur
                    continue
                self.initials.add(ini)
            self.used.add(key)
            return cand
        return None


@lru_cache(maxsize=8192)
def _english_word(word: str) -> bool:
    """Whether lower-case ``word`` is a common English word (wordfreq Zipf >= 3.5): "crown", "southern",
    "target"; not "cisco", "kroger"."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en") >= 3.5


@lru_cache(maxsize=1)
def _both_gender_names() -> frozenset:
    """First names that NLTK's names corpus (Kantrowitz) lists among both men's and women's names.

    Raises
    ------
    NameLexiconError
        If the corpus is not installed (``python -m nltk.downloader names``).
    """
    try:
        from nltk.corpus import names
        return frozenset(names.words("male.txt")) & frozenset(names.words("female.txt"))
    except LookupError as exc:
        raise NameLexiconError("NLTK's names corpus is missing: python -m nltk.downloader names (or set NLTK_DATA "
                               "to a folder that has corpora/names)") from exc


@lru_cache(maxsize=8192)
def _adjective(word: str) -> bool:
    """Whether WordNet knows lower-case ``word`` as an adjective ("southern", "progressive", "united")."""
    from robust_bench.text.wordnet import wordnet as wn

    return bool(wn.synsets(word.lower(), pos=wn.ADJ))


def _plural_name(word: str) -> bool:
    """Whether a name's last word reads as a plural ("Devices", "Stores", "Airlines"; not "Texas",
    "Paribas", "Express")."""
    w = word.lower()
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "as", "os", "ys")) and word[:1].isupper()


def _is_initial(word: str) -> bool:
    return word.endswith(".") and len(word) <= 3


def _surface(original: str, new: str) -> str:
    """``new`` in the shape of ``original``: an initial stays an initial ("J." -> "S."), capitals stay
    capitals ("TOMMY" -> "SOLBERG")."""
    if _is_initial(original):
        return new[0].upper() + "."
    if original.isupper() and len(original) > 1:
        return new.upper()
    return new


def _person_spans(tokens, ms, lexicon, gold: bool, plan, other_spans: set[int] = frozenset()
                  ) -> list[tuple[Mention, tuple[int, int]]]:
    """The name span of every mention of one person (honorifics, determiners and possessives
    stripped); an all-capital mention ("JONATHAN HARKER", a chapter title "A WAIF") counts only
    when its words are the entity's own or known names, unless the mentions are gold names."""
    names = []
    for m in ms:
        span = person_name_tokens(tokens, m.start, m.end, gold=gold)
        if span is not None and gold:
            a = span[0]
            while a > 0 and re.fullmatch(r"[A-Z]\.", tokens[a - 1]) and a - 1 not in other_spans:
                a -= 1                  # "C. [Walsh]": an initial the annotation left out is the name's
            span = (a, span[1])
        if span is None:
            plan.skipped["no name in the mention"] += 1
            plan.refused.append((m.start, m.end, "no name in the mention"))
        elif lexicon.location_kind(" ".join(tokens[span[0]:span[1]])) and not any(
                lexicon.is_first_name(w.title()) or lexicon.is_last_name(w.title()) for w in tokens[slice(*span)]):
            plan.skipped["a place name tagged as a person"] += 1       # a dateline's "DURBAN"
            plan.refused.append((m.start, m.end, "a place name tagged as a person"))
        else:
            names.append((m, span))
    if gold:
        return names
    caps = lambda a, b: all(w.isupper() and len(w) > 1 for w in tokens[a:b])   # noqa: E731
    mixed = [(m, sp) for m, sp in names if not caps(*sp)]
    known = {w.lower() for _, (a, b) in mixed for w in tokens[a:b]}
    kept = mixed + [(m, (a, b)) for m, (a, b) in names if caps(a, b) and all(
        w.lower() in known or lexicon.is_first_name(w.title()) or lexicon.is_last_name(w.title())
        for w in tokens[a:b])]
    plan.skipped["no name in the mention"] += len(names) - len(kept)
    plan.refused += [(a, b, "no name in the mention") for m, (a, b) in names if (m, (a, b)) not in kept]
    return sorted(kept, key=lambda x: x[1])


def _given_name_only(word: str, lexicon) -> bool:
    """Whether ``word`` is a given name and not a surname: the (American) name lists know it as a first
    name only ("Helen"). names-dataset is not asked: its given names include family names of other
    countries ("Akram" of Wasim Akram)."""
    return lexicon.sole_role(word.title()) == "first"


#: Nouns for a firm: a "person" named right after one is the firm ("bookmakers William Hill", "brokers
#: Nomura").
_ORGANISATION_NOUNS = frozenset({"bookmaker", "bookmakers", "firm", "firms", "company", "companies", "brokers",
                                 "broker", "brokerage", "agency", "group", "retailer", "retailers", "bank", "banks",
                                 "insurer", "manufacturer", "maker", "chain", "label", "publisher", "studio"})


def _word_roles(tokens, person_names, lexicon, bare: str = "rank") -> dict[str, str]:
    """One role per distinct name word (lower-cased) over the whole document: ``first`` or ``last``.

    A word is a first name when full names use it as their first word more often than as their
    last. Otherwise a word that the name lists know in one role only has that role ("Miss Betsey":
    a first name after a surname title); else it follows its titles ("Mr. Harvey" is a surname,
    "Sir John" and "Aunt Polly" first names); else the list in which it ranks higher
    (:meth:`NameLexicon.likely_role`: "Rachel" a first name, "Johnson" a surname). A word no list
    knows is, "in case of ambiguity, the last name" (§2.3). One role per word keeps the swap a
    function of the word, so "John" of "John Durbeyfield" and of "Sir John" stay one name.
    """
    seen: dict[str, Counter] = {}
    shape: dict[str, str] = {}
    for names in person_names.values():
        _count_uses(tokens, names, seen, shape)
    roles = {}
    for word, c in seen.items():
        if word not in shape:
            continue
        roles[word] = _role_with_evidence(shape[word], c, lexicon, bare)[0]
    return roles


def _two_role_words(tokens, person_names) -> set[str]:
    """Name words (lower case) that begin one full name and end another ("Mushtaq Ahmad" and "Saqlain
    Mushtaq"): one replacement per word cannot be a first name for one and a surname for the other."""
    seen: dict[str, Counter] = {}
    shape: dict[str, str] = {}
    for names in person_names.values():
        _count_uses(tokens, names, seen, shape)
    return {w for w, c in seen.items() if c["first"] and c["last"]}


def _count_uses(tokens, names, seen: dict, shape: dict) -> None:
    """Count how each name word of ``names`` ((mention, (a, b)) pairs) is used: alone, first, last or
    in the middle of a full name, after a surname title ("Mr.") or a first-name title ("Sir")."""
    for _, (a, b) in names:
        words = tokens[a:b]
        before = tokens[a - 1].lower() if a > 0 else ""
        if len(words) == 1 and before in _SURNAME_TITLES:
            seen.setdefault(words[0].lower(), Counter())["after surname title"] += 1
        elif len(words) == 1 and before in _FIRST_NAME_TITLES:
            seen.setdefault(words[0].lower(), Counter())["after first-name title"] += 1
        for k, w in enumerate(words):
            if _particle(w, k, len(words)):
                continue
            kind = "single" if len(words) == 1 else "first" if k == 0 else "last" if k == len(words) - 1 \
                else "middle"
            seen.setdefault(w.lower(), Counter())[kind] += 1
            shape.setdefault(w.lower(), w)


def _role_with_evidence(word: str, c: Counter, lexicon, bare: str = "rank") -> tuple[str, str | None]:
    """The role of one name word from its uses ``c`` (see :func:`_word_roles`) and how it was decided,
    first that applies: ``position`` (first or last word of full names); ``lists`` (the name lists know
    it in one role only: "Miss Betsey"); ``names-dataset`` (a given name the lists do not know, that
    names-dataset ranks ten times lower or not at all as a family name: "Lucilla", "Leonce"; never the
    other way, "Tibby" is unranked as a given name there); ``title`` ("Mr. Harvey", "Sir John");
    ``rank`` (one list ranks it at least ten times higher and names-dataset's ranks agree); else
    ``None``, the paper's default, the last name (§2.3). Positions that the lists contradict ("Mary
    Jane": "Jane" is a first name only) decide the role but are no evidence.

    ``bare="last"`` (news): a word never seen in a full name, after a title or in one list only is a
    surname ("Bode 85th", "Clinton said"), with ``rank`` evidence only if the lists agree."""
    title = word[:1].upper() + word[1:].lower()
    sole = lexicon.sole_role(title)
    if c["first"] != c["last"]:
        role = "first" if c["first"] > c["last"] else "last"
        return role, ("position" if sole in (None, role) else None)
    alone = not (c["first"] or c["last"] or c["middle"] or c["after surname title"] or c["after first-name title"])
    if bare == "last" and alone and sole == "first" and lexicon.is_first_name(title):
        # the news names a person alone by the surname ("Kirsten 23rd" is Ulf Kirsten): a surname, though
        # the lists know the word as a first name only
        return "last", None
    if sole:
        # in fiction a name seen only alone and without a title goes by a first name as often as by a surname
        # ("Halsey was eleven"): the surname list alone is no evidence there
        return sole, (None if bare == "rank" and sole == "last" and alone else "lists")
    if c["middle"] and lexicon.is_first_name(title):
        return "first", "position"      # a middle name: "Joao Manuel Pinto"
    likely = lexicon.likely_role(title)
    fact = lexicon.facts.get(title)
    if likely is None and fact is not None and fact.first_rank is not None and fact.first_rank <= 3000 and (
            fact.last_rank is None or fact.last_rank >= 10 * fact.first_rank):
        return "first", "names-dataset"
    if c["after surname title"] != c["after first-name title"]:
        return ("first" if c["after first-name title"] > c["after surname title"] else "last"), "title"
    if likely is None:
        return "last", None
    if bare == "last":
        return "last", ("rank" if likely == "last" else None)
    first = min(lexicon.rank(title, "male"), lexicon.rank(title, "female"))
    last = lexicon.rank(title, "last")
    ratio = (max(first, last) + 1) / (min(first, last) + 1)
    # one list ranks it ten times higher, and names-dataset does not say otherwise ("Cameron" and
    # "Washington" are given names there, surnames in the census lists' order)
    agrees = fact is None or fact.first_rank is None or fact.last_rank is None or (
        (fact.first_rank < fact.last_rank) == (likely == "first"))
    return likely, ("rank" if ratio >= 10 and agrees else None)


def name_word_roles(tokens: Sequence[str], names: Sequence[tuple[int, int]], lexicon: "NameLexicon"
                    ) -> dict[str, tuple[str, str | None]]:
    """The role of every word of a document's person names, as :func:`plan_swaps` decides it, and its
    evidence (see :func:`_role_with_evidence`): lower-cased word -> (``first`` or ``last``, evidence).

    Parameters
    ----------
    tokens : sequence of str
    names : sequence of (int, int)
        Name spans (honorifics stripped; see :func:`person_name_tokens`) of every person of the document.
    """
    seen: dict[str, Counter] = {}
    shape: dict[str, str] = {}
    _count_uses(tokens, [((None, sp)) for sp in names], seen, shape)
    return {w: _role_with_evidence(shape[w], c, lexicon) for w, c in seen.items() if w in shape}


#: Titles before a name that is neither a first name nor a surname.
_NO_FIRST_LAST_TITLES = {"pope", "st.", "st", "saint", "ste.", "ste"}
#: Titles before a surname ("Mr. Harvey", "Dr. Seward") and before a first name ("Sir John",
#: "Aunt Polly"); "Lady", "Lord", "Father" go either way and decide nothing, and so do epithets
#: ("my dear Watson", "old Osborne", "Little Nell").
_SURNAME_TITLES = {
    "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "dr", "dr.", "doctor", "prof", "prof.", "professor", "captain",
    "capt.", "colonel", "col.", "general", "gen.", "major", "lieutenant", "lieut.", "lt.", "sergeant", "sgt.",
    "corporal", "admiral", "commander", "inspector", "constable", "detective", "sheriff", "marshal", "senator",
    "sen.", "rep.", "gov.", "governor", "president", "judge", "mayor", "minister", "herr", "monsieur", "m.", "madame",
    "mme", "mme.", "mlle", "frau", "signor", "signora", "senor", "senora", "señor", "señora", "parson", "vicar",
    "rector", "reverend", "rev", "rev.", "bishop", "squire", "nurse", "citizen", "citoyen", "citoyenne"}
_FIRST_NAME_TITLES = {"sir", "dame", "king", "queen", "prince", "princess", "saint", "st.", "brother", "sister",
                      "uncle", "aunt", "cousin", "pope", "friar", "granny", "grandma", "grandpa"}


def _person_part(word: str, role: str, word_gender: Mapping[str, str], choose, lexicon, rng) -> str | None:
    """The replacement of one person-name word, in its shape, a first name from the pool of its gender
    (``word_gender``: male, female or unisex); ``None`` for a first name without one (it is kept, never
    flipped) or an exhausted pool."""
    if role == "first":
        g = word_gender.get(word.lower())
        if g is None:
            return None
        new = choose(f"first:{word.lower()}", g)
    else:
        new = choose(f"last:{word.lower()}", "last")
    return None if new is None else _surface(word, new)


def nickname_pairs(first_names: set[str]) -> set[str]:
    """The first names of one person that are a nickname and a full form of each other ("Meg" and
    "Margaret", "Tommy" and "Thomas", after the ``nicknames`` package's list): a swap that keeps the
    relation needs a related pair of replacements, which the lists do not give, so the person is kept.
    Two people ("Rob Andrew", "Robert Kitson") are swapped each on their own."""
    nn = _nicknamer()
    out = set()
    for w in first_names:
        related = (nn.nicknames_of(w) | nn.canonicals_of(w)) & first_names
        if related - {w}:
            out |= related | {w}
    return out


@lru_cache(maxsize=1)
def _nicknamer():
    from nicknames import NickNamer

    return NickNamer()


def _particle(word: str, k: int, n: int) -> bool:
    """A name particle: "de", "van" anywhere, and a capitalised one before the rest of the name
    ("Van Tassel", "De Courcy"), which belongs to the surname and is kept."""
    return word in PARTICLES or (word.lower() in PARTICLES and k + 1 < n)


def _plural_of(word: str, roles: Mapping[str, str]) -> str | None:
    """The surname whose plural ``word`` is, where the document also uses the surname as a name:
    "Woodhouses" of "Woodhouse", "Joneses" of "Jones"."""
    low = word.lower()
    for base in (low[:-1] if low.endswith("s") else None, low[:-2] if low.endswith("es") else None):
        if base and roles.get(base) == "last":
            return word[:len(base)]
    return None


def _pluralise(name: str) -> str:
    return name + ("es" if name.lower().endswith(("s", "x", "z", "ch", "sh")) else "s")


def plan_swaps(tokens: Sequence[str], mentions: Sequence[Mention], lexicon: NameLexicon, rng: random.Random, *,
               types: Iterable[str] = ENTITY_TYPES, gender_hints: Mapping[str, str] | None = None,
               fixed: Mapping[str, str] | None = None, gold: bool = False,
               entities: Iterable[str] | None = None, bare: str = "rank",
               refuse: Mapping[str, str] | None = None) -> SwapPlan:
    """Choose a replacement for every mention of the given types.

    Parameters
    ----------
    tokens : sequence of str
        The whole example or document, flat (all sentences, both segments of a pair).
    mentions : sequence of Mention
        Spans into ``tokens``; mentions of one entity share ``entity``.
    lexicon : NameLexicon
    rng : random.Random
        Seeded per example and variant by the caller.
    types : iterable of str
        The entity types to swap (the others stay).
    gender_hints : mapping of str to str, optional
        Entity id -> ``male`` / ``female`` (for example from the cluster's pronouns); takes
        precedence over honorifics and the first-name lists.
    fixed : mapping of str to str, optional
        ``role:original -> replacement`` choices to use instead of drawing (RESEMBLE's canonical
        names); still checked for collisions.
    gold : bool
        The mentions are gold name annotations (CoNLL-2003 tags): an all-capital mention is a
        name as it stands. Otherwise (coreference mentions, a tagger's output) an all-capital
        mention counts only when its words are the entity's own or known names.
    bare : str
        How a name word seen only alone is read where nothing else decides: ``rank`` (the list in which it
        ranks higher; fiction, where people go by their first names) or ``last`` (news: "Clinton said",
        "Bode 85th"). See :func:`_role_with_evidence`.
    refuse : mapping of str to str, optional
        Entities the caller leaves whole, with the reason (recorded like the engine's own refusals).
    entities : iterable of str, optional
        Swap only these entities (the paper's coreference documents change one person's name, §2.3);
        the other mentions still decide the roles of name words, and the words of the swapped names
        are replaced wherever else they occur ("Jane Bennet" beside "Elizabeth Bennet"). Default: all.

    Returns
    -------
    SwapPlan
        Mentions that cannot be swapped (no name inside, an unknown location, an exhausted list)
        are left unchanged and counted in ``skipped``.
    """
    types = set(types)
    refuse = dict(refuse or {})
    plan = SwapPlan()
    owner: dict[str, tuple[str, str]] = {}     # part key -> (entity, role)
    drawer = _Drawer(tokens, rng, reserved=(fixed or {}).values())
    hints = dict(gender_hints or {})
    by_entity: dict[str, list[Mention]] = {}
    for m in sorted(mentions, key=lambda m: (m.start, m.end)):
        if m.type in types:
            by_entity.setdefault(m.entity, []).append(m)
    taken: set[int] = set()

    def choose(role_key: str, pool_kind: str, avoid=None) -> str | None:
        if role_key in plan.mapping:
            return plan.mapping[role_key]
        if fixed and role_key in fixed:
            plan.mapping[role_key] = fixed[role_key]
            return fixed[role_key]
        word = role_key.split(":", 1)[1]
        # an initial stays an initial, and two initials never become one
        initial = _is_initial(word)
        r = drawer.draw(lexicon.pool(pool_kind), initial=initial, avoid=avoid)
        if r is not None:
            plan.mapping[role_key] = r
        return r

    def put(a: int, b: int, new: Sequence[str], entity: str, typ: str, role: str) -> None:
        if any(i in taken for i in range(a, b)):
            plan.skipped["overlapping mention"] += 1
            plan.refused.append((a, b, "overlapping mention"))
            return
        taken.update(range(a, b))
        plan.spans[(a, b)] = (tuple(new), entity, typ, role)

    # persons: the name spans of every entity first, then one role and one replacement per
    # distinct name word over the whole document
    mentioned = {i for m in mentions for i in range(m.start, m.end)}
    person_names: dict[str, list[tuple[Mention, tuple[int, int]]]] = {}
    for entity, ms in by_entity.items():
        if ms[0].type == "PER":
            names = _person_spans(tokens, ms, lexicon, gold, plan, mentioned)
            if names:
                person_names[entity] = names
    roles = _word_roles(tokens, person_names, lexicon, bare)
    two_roles = _two_role_words(tokens, person_names)
    # the gender of each first-name word: its own where names-dataset (or the one list holding it) states
    # one, so that "Benito" and "Alessandra" of two Mussolinis each keep theirs; otherwise the person's
    # context (the cluster's pronouns, else an honorific); otherwise a name of either gender ("unisex")
    word_gender: dict[str, str] = {}
    conflicted: dict[str, str] = {}                 # entity -> why it is left whole
    unisex = bool(lexicon.pool("unisex"))
    for entity, names in person_names.items():
        context = hints.get(entity)
        honorific = {HONORIFIC_GENDER.get(tokens[m.start].lower()) for m, _ in names} - {None}
        if context is None and len(honorific) == 1:
            context = honorific.pop()
        firsts = list(dict.fromkeys(w for _, (a, b) in names for k, w in enumerate(tokens[a:b])
                                    if roles.get(w.lower()) == "first" and not _particle(w, k, b - a)
                                    and not _plural_of(w, roles)))
        named = {g for w in firsts if (g := lexicon.gender_of(w.title())) in ("male", "female")}
        if context in ("male", "female") and named - {context}:
            conflicted[entity] = "person whose first name and context disagree on gender"
            continue
        if any(lexicon.surname_first(tokens[a:b]) for _, (a, b) in names):
            conflicted[entity] = "person whose name is written family name first"
            continue
        if any(a > 0 and tokens[a - 1] in PARTICLES and tokens[a - 1].islower() for _, (a, b) in names):
            # "van Boxmeer" tagged "Boxmeer": the particle would stay before the new surname ("van Ayers")
            conflicted[entity] = "a surname whose particle stands outside the tagged name (van Boxmeer)"
            continue
        if any(b - a > 1 and roles.get(tokens[b - 1].lower()) == "last" and _given_name_only(tokens[b - 1], lexicon)
               for _, (a, b) in names):
            # "Ingeborg Helen [Markein]": a double first name, or a name the tags cut short
            conflicted[entity] = "a full name that ends in a given name (Ingeborg Helen)"
            continue
        if any(a > 0 and tokens[a - 1].lower() in _ORGANISATION_NOUNS for _, (a, b) in names):
            # "UK bookmakers William Hill said": a firm named after its founder
            conflicted[entity] = "a name after a noun for a firm (bookmakers William Hill)"
            continue
        if any(w.lower() in two_roles for _, (a, b) in names for w in tokens[a:b]):
            conflicted[entity] = "person with a name word that is another's first name and surname"
            continue
        if any(a > 0 and tokens[a - 1].lower() in _NO_FIRST_LAST_TITLES for _, (a, b) in names):
            # "Pope John Paul", "St. Aubert": a papal name or a saint's, not a first name and a surname
            conflicted[entity] = "a pope's or a saint's name"
            continue
        if entity in refuse:
            conflicted[entity] = refuse[entity]
            continue
        gender = context if context in ("male", "female") else next(iter(named)) if len(named) == 1 else None
        plan.genders[entity] = gender or "unknown"
        for w in firsts:
            own = lexicon.gender_of(w.title())
            pool = own if own in ("male", "female") else context if context in ("male", "female") else \
                "unisex" if unisex else None
            if pool == "unisex" and own == "either":
                # a name of either gender by one leaning the same way ("Joan" by "Sydney", "Nic" by "Casey")
                share = lexicon.facts[w.title()].female
                leaning = f"unisex-{'female' if share >= 0.5 else 'male'}"
                if len(lexicon.pool(leaning)) >= 5:
                    pool = leaning
            if pool is not None:
                word_gender.setdefault(w.lower(), pool)

    def refusal(entity, names) -> str | None:
        """Why a whole person is left unchanged: half a name swapped ("Davor Pina", "Meg Smith") is
        not a name, so a first name that cannot be swapped keeps the surname too."""
        if entity in conflicted:
            return conflicted[entity]
        related = nickname_pairs({w.lower() for _, (a, b) in names for w in tokens[a:b]
                                   if roles.get(w.lower()) == "first"})
        for _, (a, b) in names:
            for k, w in enumerate(tokens[a:b]):
                if _particle(w, k, b - a) or roles[w.lower()] != "first" or _plural_of(w, roles):
                    continue
                if w.lower() in related:
                    return "person whose first names are a nickname and its full form"
                if w.lower() not in word_gender:
                    return "person with a first name of unknown gender"
        return None

    chosen = None if entities is None else set(entities)
    for entity, names in person_names.items():
        if chosen is not None and entity not in chosen:
            continue
        why = refusal(entity, names)
        if why is not None:
            plan.skipped[why] += len(names)
            plan.refused += [(a, b, why) for _, (a, b) in names]
            continue
        # every part first: a person whose part cannot be drawn is left whole, never half swapped
        before = set(plan.mapping)
        parts = []
        for m, (a, b) in names:
            particles = None                    # where a run of particles before the current word began
            for k, w in enumerate(tokens[a:b]):
                if _particle(w, k, b - a):
                    particles = k if particles is None else particles
                    continue
                start, particles = (a + (particles if particles is not None else k)), None
                role = roles[w.lower()]
                if role != "last":
                    start = a + k               # "de" before a first name stays
                base = _plural_of(w, roles)
                if base is not None:        # "the Woodhouses" beside "Woodhouse": the family, one surname
                    single = _person_part(base, "last", word_gender, choose, lexicon, rng)
                    new = None if single is None else _pluralise(_surface(w, single))
                    role = "last"
                else:
                    new = _person_part(w, role, word_gender, choose, lexicon, rng)
                # a surname's particles go with it: "van Boxmeer", "Van Tassel" -> "Madera" (a particle
                # left before another surname reads as half a name)
                parts.append((start, a + k + 1, new, role, w))
        if any(part[2] is None for part in parts):
            for key in set(plan.mapping) - before:
                del plan.mapping[key]
            plan.skipped["name list exhausted"] += len(names)
            plan.refused += [(a, b, "name list exhausted") for _, (a, b) in names]
            continue
        for start, end, new, role, w in parts:
            owner.setdefault(f"{role}:{w.lower()}", (entity, role))
            put(start, end, (new,), entity, "PER", role)
    org_cores: list[tuple[tuple[str, ...], str, str, str]] = []     # (core, replacement, entity, kind)
    for entity, ms in by_entity.items():
        typ = ms[0].type
        if typ == "PER" or (chosen is not None and entity not in chosen):
            continue
        spans = []
        for m in ms:
            words = list(tokens[m.start:m.end])
            core = organisation_core(words) if typ == "ORG" else tuple(
                w for w in words if w not in _POSSESSIVE and w.lower() != "the")
            if not core:
                plan.skipped["empty mention"] += 1
                continue
            off = next(i for i in range(len(words)) if tuple(words[i:i + len(core)]) == core)
            end = m.start + off + len(core)
            # the corporate suffix goes with the name: "Oracle Corp." by "Symantec", not "Symantec Corp."
            # (each company has its own: "Texas Instruments Inc.")
            while typ == "ORG" and end < len(tokens) and tokens[end].lower() in _ORG_SUFFIXES \
                    and (tokens[end][:1].isupper() or tokens[end].endswith(".")):
                end += 1
            # a suffix whose full stop ends the sentence keeps it there ("... sold it to BMC Software Inc.")
            stop = end > m.start + off + len(core) and tokens[end - 1].endswith(".") and (
                end == len(tokens) or tokens[end][:1].isupper())
            spans.append((m.start + off, end, core, stop))
        if typ == "ORG" and spans:
            # one organisation, one replacement: "Kleiner Perkins" and "Kleiner Perkins Caufield &
            # Byers" of one entity both become "Hyundai"; the kind follows the longest name
            canonical = " ".join(max((c for _, _, c, _ in spans), key=len))
            kind = next((m.kind for m in ms if m.kind), None) or organisation_kind(canonical)
            if kind == "organisation":
                kind = lexicon.company_sector(canonical)
            if len(lexicon.pool(kind)) < (MIN_INDUSTRY_POOL if kind.startswith("industry:") else MIN_ORGANISATION_POOL):
                # never another kind: "the Securities and Exchange Commission" for "the Nasdaq" says something else
                plan.skipped[f"no pool of its kind ({kind})"] += len(spans)
                continue
            names = {" ".join(c) for _, _, c, _ in spans}
            new = choose(f"organisation:{canonical.lower()}", kind,
                         avoid=lambda cand: any(same_organisation(cand, n) for n in names))
            if new is None:
                plan.skipped["name list exhausted"] += len(spans)
                continue
            for a, b, core, stop in spans:
                words = new.split()
                put(a, b, words[:-1] + [words[-1] + "."] if stop and not words[-1].endswith(".") else words,
                    entity, typ, kind)
                org_cores.append((core, new, entity, kind))
            continue
        for a, b, core, _ in spans:
            text = " ".join(core)
            kind = lexicon.location_kind(text)
            if kind is None:
                plan.skipped["location not in the lexicon"] += 1
                continue
            new = choose(f"{kind}:{text.lower()}", kind)
            if new is None:
                plan.skipped["name list exhausted"] += 1
                continue
            put(a, b, new.split(), entity, typ, kind)
    # an organisation's name where the tagger missed it is the same organisation
    protected = {i for m in mentions if m.type not in types for i in range(m.start, m.end)}
    for core, new, entity, kind in sorted(set(org_cores), key=lambda x: (-len(x[0]), x)):
        n = len(core)
        for i in range(len(tokens) - n + 1):
            if tuple(tokens[i:i + n]) == core and not any(j in taken or j in protected for j in range(i, i + n)):
                put(i, i + n, new.split(), entity, "ORG", kind)
            elif n == 1 and tokens[i] == core[0] + "s" and i not in taken and i not in protected:
                # "Microsofts security unit" (an apostrophe dropped): the same company
                *head, last = new.split()
                put(i, i + 1, (*head, last + ("'" if last.endswith("s") else "s")), entity, "ORG", kind)
    # the same name elsewhere in the document is the same name: every capitalised occurrence of a
    # replaced first or last name outside other entities' mentions is replaced too, so no trace of
    # the old name is left ("Jarndyce and Jarndyce" beside "Tom Jarndyce")
    parts = {k.split(":", 1)[1]: (k, v) for k, v in plan.mapping.items() if k.split(":", 1)[0] in ("first", "last")}
    surnames = {word: "last" for word, (k, _) in parts.items() if k.startswith("last:")}
    if parts:
        for i, w in enumerate(tokens):
            if i in taken or i in protected or not is_name_word(w, gold=True):
                continue
            hit = parts.get(w.lower())
            plural = False
            if hit is None and w.endswith("s"):   # "the Wilsons", "the Woodhouses": the family, same surname
                base = _plural_of(w, surnames)
                hit, plural = (parts[base.lower()], True) if base else (None, False)
            if hit is None:
                continue
            key, new = hit
            if plural:
                entity, role = owner.get(key, ("", "last"))
                put(i, i + 1, (_pluralise(_surface(w[:-1], new)),), entity, "PER", role)
                continue
            entity, role = owner.get(key, ("", key.split(":", 1)[0]))
            put(i, i + 1, (_surface(w, new),), entity, "PER", role)
    # "a Santa Claus" -> "an Aimee Sharkey": the indefinite article agrees with the new name's sound
    from robust_bench.perturb.checks import indefinite_article

    for (a, b), (words, entity, typ, role) in sorted(plan.spans.items()):
        if a > 0 and words and tokens[a - 1].lower() in ("a", "an") and (a - 1) not in taken \
                and words[0][:1].isalpha() and not any(x <= a - 1 < y for x, y in plan.spans):
            article = indefinite_article(words[0])
            if tokens[a - 1].lower() != article:
                plan.spans[(a - 1, a)] = ((article.capitalize() if tokens[a - 1][0].isupper() else article,),
                                          entity, typ, "article")
    # a bare possessive apostrophe follows a name ending in s: "Hastings '" -> "Rusnock 's" (after another
    # name it is a closing quotation mark: "‘ How odd , ’ said Good ’"); a company
    # whose name is a plural takes one: "Apple Computer 's" -> "Advanced Micro Devices '"
    for (a, b), (words, entity, typ, role) in list(plan.spans.items()):
        if words and b < len(tokens) and tokens[b] in ("'", "’") and b not in taken \
                and tokens[b - 1].lower().endswith("s") and not words[-1].lower().endswith("s"):
            taken.add(b)
            plan.spans[(b, b + 1)] = (("'s",), entity, typ, "possessive")
        elif typ == "ORG" and words and b < len(tokens) and tokens[b] in ("'s", "’s") and b not in taken \
                and words[-1].endswith(("'s", "’s")):
            taken.add(b)                # "Dillard's" + "'s": the name's own possessive serves
            plan.spans[(b, b + 1)] = ((), entity, typ, "possessive")
        elif typ == "ORG" and words and b < len(tokens) and tokens[b] in ("'s", "’s") and b not in taken \
                and _plural_name(words[-1]):
            taken.add(b)
            plan.spans[(b, b + 1)] = (("'" if tokens[b] == "'s" else "’",), entity, typ, "possessive")
    return plan


def apply_swaps(tokens: Sequence[str], plan: SwapPlan) -> tuple[list[str], list[Edit], SpanMap]:
    """Apply a plan.

    Returns
    -------
    new_tokens : list of str
    edits : list of Edit
        In order of position.
    span_map : SpanMap
        Original spans -> variant spans.
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
