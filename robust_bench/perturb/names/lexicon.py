"""Replacement names by type (Balasubramanian et al., 2020: CheckList's name lists): first
names by gender, surnames, countries and cities, companies by industry and institutions by kind, and
what they say of a name word (its gender, its likely role)."""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from robust_bench import RobustBenchError
from robust_bench.perturb.names.kinds import (INSTITUTION_KINDS, UNIVERSITY_KINDS, organisation_core, organisation_kind,
                                              university_kind, university_name)
from robust_bench.perturb.organisations import (BROADCAST_FORMATS, COMPANY, GROUP_WORDS, SECTORS, company_index, company_key,
                                                executive_departments, generic_legislature, legislatures, sector_from_words, sector_pools)
from robust_bench.text.names import BOTH_LISTS_SHARE, SURNAME_FIRST_COUNTRIES, NameFact

class NameLexiconError(RobustBenchError, ValueError):
    """A name list is missing or malformed; the message names the file and the field."""


#: The lexicon's nationalities say "British"; these are its constituent nations' adjectives.
_BRITISH_ADJECTIVES = {"english", "scottish", "scots", "welsh", "irish", "cornish", "manx"}


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


def pool_minimum(kind: str) -> int:
    """The fewest replacement names a kind needs to be swapped: :data:`MIN_INDUSTRY_POOL` for an industry group
    and a broadcast format (narrow kinds: the eight US networks replace each other), else
    :data:`MIN_ORGANISATION_POOL`.

    Parameters
    ----------
    kind : str

    Returns
    -------
    int
    """
    return MIN_INDUSTRY_POOL if kind.startswith("industry:") or kind in BROADCAST_FORMATS else MIN_ORGANISATION_POOL


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
        gender of a first name is the list that holds it (CheckList's lists are disjoint); either way
        a name NLTK's names corpus lists for both genders may be of either (:meth:`gender_of`).
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
        first-name list that holds it; else ``None`` (unknown). A name that NLTK's names corpus (Kantrowitz)
        lists among both men's and women's names is ``either`` unless names-dataset gives it at least 97% of one
        gender: a blind read found "Chris" Witty (90% men's in names-dataset) a woman and "Laurie" Harper (95%
        women's) a man (issue 53), while NLTK's lists also hold "Tony", "George" and "Bill" (98% men's or more).

        Raises
        ------
        NameLexiconError
            If NLTK's names corpus is not installed."""
        fact = self.facts.get(first.title())
        if first.title() in _both_gender_names() and (fact is None or fact.female is None or
                                                       BOTH_LISTS_SHARE[0] < fact.female < BOTH_LISTS_SHARE[1]):
            return "either"
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
        """The names of one kind: ``male``, ``female``, ``last``, a company sector (:data:`SECTORS`; ``company``
        holds the companies whose names reveal no industry), an institution kind (:data:`INSTITUTION_KINDS`;
        ``university`` holds universities only, ``college`` and ``junior college`` the others:
        :data:`~robust_bench.perturb.names.kinds.UNIVERSITY_KINDS`), ``country``, ``city``. Computed once per kind.

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
        if kind in BROADCAST_FORMATS:
            return BROADCAST_FORMATS[kind]
        if kind == "legislature":
            # WordNet's legislatures, and those the corpus names ("National Assembly"); never a bare "Parliament"
            # (see :func:`~robust_bench.perturb.organisations.legislatures`)
            return tuple(dict.fromkeys(legislatures() + tuple(
                o for o in self.organisations if organisation_kind(o) == kind and o not in legislatures()
                and not generic_legislature(o))))
        if kind in INSTITUTION_KINDS or kind in UNIVERSITY_KINDS:
            # not a team named after its university ("University of New Mexico Lobos"), not a city ("Newport
            # News"), not a longer form of another name of the pool ("CBS Television", "Reuters Research");
            # universities, colleges and junior colleges apart (issue 53)
            base = "university" if kind in UNIVERSITY_KINDS else kind
            names = [o for o in self.organisations if organisation_kind(o) == base
                     and not (_plural_name(o.split()[-1]) and organisation_kind(o.split()[-1]) != base)
                     and (base != "university" or university_name(o) and university_kind(o) == kind)
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
        return {k: len(self.pool(k)) for k in ("male", "female", "last", *SECTORS, *INSTITUTION_KINDS,
                                               *UNIVERSITY_KINDS[1:], "country", "city")}


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


@lru_cache(maxsize=8192)
def _english_word(word: str) -> bool:
    """Whether lower-case ``word`` is a common English word (wordfreq Zipf >= 3.5): "crown", "southern",
    "target"; not "cisco", "kroger"."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en") >= 3.5


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
