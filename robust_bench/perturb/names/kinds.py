"""Organisation names and their kinds (Balasubramanian et al., 2020: organisations are replaced
by organisations): an organisation mention's core name, its kind (a company, or an institution kind
such as a court or a legislature), and the harvest of institution names from a tagged news corpus."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from robust_bench.perturb.names.mentions import mentions_from_tags
from robust_bench.perturb.organisations import (BROADCAST_FORMATS, SECTORS, broadcast_format, executive_department,
                                                legislatures)
from robust_bench.text.names import is_name_word

_POSSESSIVE = {"'s", "'", "’s", "’"}


#: Corporate suffixes kept when an organisation is replaced.
_ORG_SUFFIXES = {"corp", "corp.", "corporation", "inc", "inc.", "co", "co.", "ltd", "ltd.", "plc", "llc", "l.p.",
                 "ag", "sa", "s.a.", "nv", "n.v.", "limited", "incorporated", "cos", "cos.", "bhd", "group"}


def organisation_core(tokens: Sequence[str]) -> tuple[str, ...]:
    """An organisation mention without a leading article, corporate suffixes, and anything from a
    possessive on (a tagger's "RealNetworks ' Rhapsody" is the organisation RealNetworks), unless only
    corporate suffixes follow it: then the possessive is the name's ("Kohl 's Corp.", "McDonald 's Corp.").

    Parameters
    ----------
    tokens : sequence of str

    Returns
    -------
    tuple of str
    """
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
    ("newspaper", {"post", "times", "tribune", "herald", "gazette", "newspaper", "chronicle", "globe", "telegraph",
                   "daily"}),
    ("news agency", {"reuters", "press", "news", "bloomberg", "afp"}),
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
INSTITUTION_KINDS = tuple(dict.fromkeys(k for k, _ in _INSTITUTION_KINDS)) + ("executive department",) + tuple(
    BROADCAST_FORMATS)


#: Every organisation kind an edit records: a company sector (:data:`SECTORS`) or an institution kind.
ORGANISATION_KINDS = SECTORS + INSTITUTION_KINDS


def university_name(name: str) -> bool:
    """Whether a name of the kind ``university`` names one as universities are named: "Vanderbilt
    University", "Boston College", "University of Central Florida"; not a team named after one ("University
    of New Mexico Lobos").

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    words = [w for w in name.split() if w.lower() != "the"]
    return bool(words) and (words[-1] in ("University", "College") or words[0] == "University" and len(words) <= 4)


#: The finer kinds of the kind ``university`` that replace only each other (:func:`university_kind`).
UNIVERSITY_KINDS = ("university", "college", "junior college")


def university_kind(name: str) -> str:
    """Which of :data:`UNIVERSITY_KINDS` a university's name says it is: a ``junior college`` (a junior or
    community college, two-year), a ``college`` ("Boston College", "Northwest College") or a ``university``
    (any other name of the kind: "University of Michigan", "the Ohio State").
    A blind read judged "the University of Minnesota" by "Young Harris Junior College" and "Northwest
    College" by "Vanderbilt University" of another kind (issue 53).

    >>> university_kind("Young Harris Junior College"), university_kind("University of Michigan")
    ('junior college', 'university')

    Parameters
    ----------
    name : str

    Returns
    -------
    str
    """
    low = {w.lower() for w in name.split()}
    if low & {"junior", "community"}:
        return "junior college"
    return "college" if "college" in low and "university" not in low else "university"


def organisation_kind(text: str) -> str:
    """The kind of an organisation name: an institution kind when a word marks one (``court``,
    ``legislature``, ``party``, ``exchange``, ``central bank``, ``international body``,
    ``university``, ``association``, ``armed group``, ``government body``; well-known acronyms such as *SEC*, *NYSE*
    or *NATO* count), else ``organisation`` (companies, news agencies, anything else). "Bank" marks a
    central bank only with "central" or "of" ("Bank of Japan", not "Deutsche Bank"); "Security
    Council" is an international body.

    >>> organisation_kind("Alabama Supreme Court"), organisation_kind("Merrill Lynch"), organisation_kind("SEC")
    ('court', 'organisation', 'government body')

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    words = [w.lower().strip(",").removesuffix(".com") for w in text.split()]     # "CNET News.com": news
    low = " ".join(words)
    fmt = broadcast_format(text)
    if fmt is not None:
        return fmt                      # "CBS": a network; "CNN": a news channel (issue 53)
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
    Supreme Court").

    Parameters
    ----------
    a, b : str

    Returns
    -------
    bool
    """
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
    """Whether ``kind`` is an institution kind (not a company's).

    Parameters
    ----------
    kind : str

    Returns
    -------
    bool
    """
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

    Parameters
    ----------
    tokens : sequence of str

    Returns
    -------
    bool
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
