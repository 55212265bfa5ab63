"""The organisations of an MRPC pair to swap (Balasubramanian et al., 2020: pairs with an
organisation in both sentences, one mapping for the pair): the tagger's ORG spans that pass
:mod:`~robust_bench.perturb.names.org_spans`, linked into one entity per organisation, each given one
kind (an institution kind or a company's industry group) or refused by a named step whose reason the
``names_mrpc`` card counts."""

from __future__ import annotations

import re
from collections import Counter

from robust_bench.perturb.names.kinds import (_ORG_SUFFIXES, INSTITUTION_KINDS, is_institution, organisation_core,
                                           organisation_kind, university_kind)
from robust_bench.perturb.names.lexicon import MIN_ORGANISATION_POOL, pool_minimum
from robust_bench.perturb.names.mentions import Mention
from robust_bench.perturb.names.org_spans import (_COMPANY_NAME_WORDS, _COUNTRY_PREFIXES, _LEGISLATOR_TITLES,
                                                  LEGISLATURE_MODIFIED, LEGISLATURE_MODIFIER, NOT_INTERCHANGEABLE,
                                                  common_word, is_described, mention_organisation_kind,
                                                  not_an_organisation, wordnet_noun)
from robust_bench.perturb.names.swaps import no_pool_of_its_kind, squash
from robust_bench.perturb.organisations import (BROADCAST_FORMATS, COMPANY, SECTORS, company_key, group_from_words,
                                                industry_cues, transport_group)

def entity_key(text: str) -> str:
    """The entity id of an organisation mention's text: its core name (:func:`organisation_core`).

    Parameters
    ----------
    text : str
        Space-joined tokens.

    Returns
    -------
    str
    """
    return " ".join(organisation_core(text.split()))


#: Words that glue a name together, never its own ("of", "&", corporate words).
_NAME_GLUE = {"of", "the", "and", "&", "for", "de", "la", "co", "co.", "corp", "corp.", "inc", "inc.", "ltd", "ltd.",
              "group", "plc", "llc", "u.s.", "us"}


#: Words a company's full name adds to its short one ("Wendy's International", "Nokia Group").
_FULL_NAME_WORDS = {"international", "worldwide", "global", "holdings", "holding", "group", "corporation", "company",
                    "companies", "incorporated", "limited", "enterprises", "industries", "usa", "america"}


def is_division(core, shortest, lexicon, known_companies) -> bool:
    """Whether ``core``, a longer name of the company named ``shortest`` in the same pair, names a
    division or a product of it ("Microsoft Developer Network"), not its full name ("Sun Microsystems",
    "Kleiner Perkins Caufield & Byers", "Hewlett-Packard Co."): it adds words, none of them corporate or
    a sector's, no "&", and neither the lists nor the corpora know it as a company.

    Parameters
    ----------
    core : sequence of str
    shortest : sequence of str
        The company's shortest name in the pair.
    lexicon : NameLexicon
    known_companies : set of str

    Returns
    -------
    bool
    """
    from robust_bench.perturb.organisations import reveals_industry

    extra = list(core[len(shortest):]) if tuple(core[:len(shortest)]) == tuple(shortest) else []
    if not extra or "&" in core or all(w.lower() in _FULL_NAME_WORDS for w in extra):
        return False                    # "Wendy's International", "Sony Corp"
    name = " ".join(core)
    if lexicon.is_listed_company(name) or company_key(name) in known_companies:
        return False
    return not all(w.lower() in _COMPANY_NAME_WORDS or reveals_industry(w) for w in extra)


def organisation_mentions(d1, d2, types, lexicon, lowercase_words, known_companies,
                          inferred: dict[str, str] | None = None) -> tuple[list[Mention], Counter, set[int]]:
    """The mentions of an MRPC pair to swap, the tagger's mentions refused, by reason, and the sentences
    (0, 1) that name an organisation, swapped or not (Balasubramanian et al., 2020: the paper's
    filter needs one in each).

    Two independent signals must agree that a span is an organisation of a known kind: the NER pipeline's
    ORG label, and either a name word marking an institution kind or evidence that it is a company (the
    company lists, a corporate suffix, business words beside it in the corpora; see
    :func:`mention_organisation_kind`); spans that :func:`not_an_organisation` finds to be something else are
    refused first. A company is then replaced by one of its industry group where the lists or the pair
    ("the airline") or the corpus (``inferred``: :func:`industries_by_company`) give one; by one of its
    sector only where the sentence does not describe it ("rival PeopleSoft", "publishing house
    HarperCollins", ", an Illinois fund-raiser"); a company of unknown industry is not replaced. Only ORG
    spans are returned (the types swapped in MRPC).

    The steps, in order: the tagger's spans (:func:`_tagged_candidates`), short names of the pair's
    organisations (:func:`_short_names`), one entity per organisation (:func:`link_organisations`), a kind
    from "the airline" (:func:`_kind_from_anaphor`), names left half swapped (:func:`_half_swapped`), the
    refusals by kind and the industry groups (:func:`_refuse_or_group`), and the pools (:func:`_kept`).
    Each refusal is a reason string of this module or :mod:`~robust_bench.perturb.names.org_spans`.

    Parameters
    ----------
    d1, d2 : spacy.tokens.Doc
        The pair's sentences, tagged (entities, parts of speech, dependencies).
    types : iterable of str
        The entity types swapped (``ORG``).
    lexicon : NameLexicon
    lowercase_words : set of str
        Words the task's training data writes in lower case.
    known_companies : set of str
        Company keys the corpora vouch for (:func:`~robust_bench.perturb.names.org_spans.suffixed_companies`,
        :func:`~robust_bench.perturb.names.org_spans.business_companies`, the Reuters harvest).
    inferred : dict of str to str, optional
        Industry groups of unlisted companies (:func:`industries_by_company`).

    Returns
    -------
    mentions : list of Mention
        The mentions to swap, with their kind.
    refused : Counter
        The tagger's mentions refused, by reason.
    sides : set of int
        The sentences that name an organisation.
    """
    pair = _tagged_candidates(d1, d2, types, lexicon, lowercase_words, known_companies)
    toks = [t.text for t in d1] + [t.text for t in d2]
    _short_names(pair, toks, d1, d2, lexicon, known_companies)
    pair.person_like = _coordinated_with_persons(d1, d2, lexicon, pair.refused_persons)
    # one organisation, one kind: "F.C.C." is the "Federal Communications Commission" of the other sentence
    linked = link_organisations(toks, pair.candidates)
    kind_of: dict[str, str] = {}
    for m in linked:
        if m.kind and m.entity not in kind_of:
            kind_of[m.entity] = m.kind
    anaphor = industry_anaphor(toks)           # "Qantas ... the airline warned"
    why_entity: dict[str, str] = {}
    _kind_from_anaphor(linked, toks, kind_of, anaphor)
    _half_swapped(linked, toks, kind_of, why_entity, lexicon, known_companies)
    _refuse_or_group(pair, linked, toks, kind_of, why_entity, d1, d2, lexicon, anaphor, inferred)
    return _kept(linked, kind_of, why_entity, lexicon, pair.refused, toks), pair.refused, pair.sides


#: Why an organisation of a pair is left whole: the reasons the ``names_mrpc`` card counts.
UNKNOWN_KIND = "organisation of unknown kind"
DIVISION_OR_PRODUCT = "a division or product named after the company"
INITIALS_ELSEWHERE = "its initials stand elsewhere in the pair"
NAME_UNTAGGED_ELSEWHERE = "its name also stands untagged elsewhere in the pair"
CHANGE_OF_NAME = "an organisation in a pair that tells of a change of name"
BESIDE_A_PERSON = "an organisation named beside a person (Both Bloomberg and Pataki said)"
LEGISLATURE_NOT_SWAPPED_ELSEWHERE = "a legislature named elsewhere in the pair in a way not swapped"
DEPARTMENT_BESIDE_A_SECRETARY = "an executive department beside a secretary's title (Secretary of State)"
LEGISLATURE_OF_A_NAMED_COUNTRY = "a legislature in a pair that names a country (United States approval)"
LEGISLATURE_BESIDE_ITS_MEMBERS = "a legislature whose members' title stands in the pair (Senator)"
LEGISLATURE_BESIDE_ANOTHER = "a legislature beside another legislature of the pair"
DESCRIBED_BROADCASTER = "a broadcaster or newspaper the sentence describes (the cable sports network)"
SUPREME_COURT = "a supreme court (too few to replace one by another)"
BESIDE_A_TICKER = "a company beside a ticker symbol"
COMPANY_OF_UNKNOWN_INDUSTRY = "a company of unknown industry"
DESCRIBED_COMPANY = "a company the sentence describes, of no known industry group"
TRANSPORT_OF_NO_KIND = "a transport company of no known kind (airline, railroad, freight)"
NO_INDUSTRY_GROUP = "a company of a known sector but no known industry group"
BRAND_IN_THE_PAIR = "an organisation whose product, brand or work the pair names (Microsoft ... Windows, NBC's ER)"
BESIDE_AN_OFFICER = "an organisation in a pair that names an officer (Microsoft chairman Larry Ellison)"
DESCRIBED_UNIVERSITY = "a university or college the pair describes (private, public, affiliated with a church)"
DESCRIBED_BY_ITS_BUSINESS = "a company the sentence describes by its business (publishing house HarperCollins)"


#: Products and brands the MRPC news (2003-2005) names without their makers' names ("an alternative to
#: Windows"): a maker replaced while its product stays says that another company makes it. The spaCy
#: PRODUCT and WORK_OF_ART entities of the pair count too (OntoNotes 5.0 labels).
_BRANDS = frozenset({"Windows", "Xbox", "MSN", "Outlook", "Longhorn", "Pentium", "Centrino", "Itanium", "Xeon",
                     "Athlon", "Opteron", "iPod", "iTunes", "Macintosh", "Mac", "Java", "Solaris", "Linux", "Unix",
                     "PalmPilot", "Treo", "BlackBerry", "Walkman", "PlayStation", "Viagra", "Lipitor", "Vioxx",
                     "Celebrex", "Zocor", "Prozac", "DB2", "WebSphere", "Acrobat", "Photoshop", "Kazaa", "Napster",
                     "Firefox"})


def _names_a_product(d1, d2) -> bool:
    """Whether the pair names a product, a brand or a work (:data:`_BRANDS`, or a PRODUCT or WORK_OF_ART
    entity of the tagger): a company or a broadcaster swapped beside it changes who makes or airs it."""
    return any(e.label_ in ("PRODUCT", "WORK_OF_ART") for d in (d1, d2) for e in d.ents) or any(
        t.text in _BRANDS for d in (d1, d2) for t in d)


def _possesses_a_name(spans, toks, n1: int, names=()) -> bool:
    """Whether a mention is followed by a possessive and a capitalised word ("NBC's ER", "Microsoft's
    Windows", "Yahoo's Overture unit") or by a capitalised word at once ("SCO UNIX Rights", "Oracle
    Chairman"): what it owns stays when it is replaced. Every place where one of its ``names`` stands counts,
    tagged or not (the swap replaces them all)."""
    for name in names:
        core = tuple(name.split())
        spans = list(spans) + [(i, i + len(core)) for i in range(len(toks) - len(core) + 1)
                               if tuple(toks[i:i + len(core)]) == core]
    return any(b + 1 < len(toks) and toks[b] in ("'s", "’s", "'", "’") and toks[b + 1][:1].isupper()
               or b < len(toks) and b != n1 and toks[b][:1].isupper() and toks[b].lower().rstrip(".") not in _NOT_OWNED
               for _, b in spans)


#: Capitalised words after a company's name that it does not own: its corporate suffix, days and months.
_NOT_OWNED = {s.rstrip(".") for s in _ORG_SUFFIXES} | {"monday", "tuesday", "wednesday", "thursday", "friday",
                                                      "saturday", "sunday", "jan", "january", "feb", "february",
                                                      "march", "april", "may", "june", "july", "aug", "august",
                                                      "sept", "sep", "september", "oct", "october", "nov", "november",
                                                      "dec", "december", "and", "&"}


#: Titles of a company's officers: "Microsoft chairman Larry Ellison" puts Oracle's chairman at Microsoft.
_OFFICER_TITLES = {"chairman", "chairwoman", "ceo", "founder", "co-founder", "cfo", "coo", "cto", "president",
                   "chief"}


def _names_an_officer(d1, d2) -> bool:
    """Whether the pair names a person and an officer's title ("Chairman Bill Gates", "Sears CEO Julian
    Day"): a company replaced beside its officer gets another company's officer."""
    return any(e.label_ == "PERSON" for d in (d1, d2) for e in d.ents) and any(
        t.text.lower() in _OFFICER_TITLES for d in (d1, d2) for t in d)


#: Entity labels of the tagger (OntoNotes 5.0) that a broadcaster's swap leaves true: people, places, times
#: and numbers; any other capitalised word may be a programme ("CBS ... keep ER on the air").
_PLAIN_LABELS = {"PERSON", "GPE", "LOC", "NORP", "DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT",
                 "QUANTITY"}


def _names_a_programme(d1, d2, spans, n1: int) -> bool:
    """Whether the pair holds a capitalised word, not opening its sentence, outside the broadcaster's own
    mentions and outside people, places, times and numbers: a programme, a studio or a channel that the
    broadcaster's replacement does not air ("NBC's ER and Third Watch", "Warner Brothers Television")."""
    own = {i for a, b in spans for i in range(a, b)}
    from robust_bench.perturb.names.places import known_place

    for off, d in ((0, d1), (n1, d2)):
        # a place only where a gazetteer knows it ("West Wing" is no place)
        plain = {t.i for e in d.ents if e.label_ in _PLAIN_LABELS
                 and (e.label_ not in ("GPE", "LOC") or known_place(e.text.removeprefix("the "))) for t in e}
        if any(t.text[:1].isupper() and t.i > 0 and not d[t.i - 1].is_sent_end and t.i not in plain
               and off + t.i not in own and t.text.lower() not in ("i", "the", "mr.", "mrs.", "ms.")
               for t in d):
            return True
    return False


def not_interchangeable(kind: str) -> str:
    """Why an institution of a kind whose members are not interchangeable is left whole: "<kind> (not
    interchangeable)".

    Parameters
    ----------
    kind : str

    Returns
    -------
    str
    """
    return f"{kind} (not interchangeable)"


class _Pair:
    """What the first steps of :func:`organisation_mentions` find in a pair."""

    def __init__(self):
        self.candidates: list[Mention] = []
        self.described: set[tuple[int, int]] = set()
        self.refused: Counter = Counter()
        self.sides: set[int] = set()
        self.later: list = []
        self.modified: set[str] = set()
        self.refused_persons: set[int] = set()
        self.person_like: set[int] = set()


def _labels_elsewhere(d1, d2) -> dict[str, set[str]]:
    """The labels of the pair's non-ORG entities, by their text and each of its words."""
    other: dict[str, set[str]] = {}
    for d in (d1, d2):
        for e in d.ents:
            if e.label_ != "ORG":
                other.setdefault(e.text.lower(), set()).add(e.label_)
                for w in e.text.lower().split():          # "Steve Ballmer" makes "Ballmer" a person
                    other.setdefault(w, set()).add(e.label_)
    return other


def _tagged_candidates(d1, d2, types, lexicon, lowercase_words, known_companies) -> _Pair:
    """Step 1: the tagger's spans of the ``types``; an ORG span that :func:`not_an_organisation` refuses is
    counted, or kept for :func:`_short_names` when it is a common word or a person's name."""
    from robust_bench.text.nlp import map_entity_label

    n1 = len(d1)
    other = _labels_elsewhere(d1, d2)
    pair = _Pair()
    for side, (off, d) in enumerate(((0, d1), (n1, d2))):
        for e in d.ents:
            typ = map_entity_label(e.label_)
            if typ not in types:
                continue
            if typ != "ORG":
                pair.candidates.append(Mention(off + e.start, off + e.end, typ, f"{typ}:{e.text.lower()}"))
                continue
            why = not_an_organisation(e, lexicon, lowercase_words, other, known_companies)
            if why is not None and why.startswith("a person"):
                pair.refused_persons.update(range(off + e.start, off + e.end))     # "Pataki" tagged ORG
            if why in ("a common word", "a person (name lists)"):
                pair.later.append((side, off, e, why))   # unless it is the first word of an organisation of the pair
                continue
            if why is not None:
                pair.refused[why] += 1
                if why in (LEGISLATURE_MODIFIED, LEGISLATURE_MODIFIER):   # one body, all or none
                    pair.modified.add(" ".join(organisation_core([t.text for t in e])))
                if why == NOT_INTERCHANGEABLE["international body"]:
                    pair.sides.add(side)          # an organisation, of a kind not swapped
                continue
            pair.sides.add(side)
            kind = mention_organisation_kind(e, lexicon, known_companies)
            start = e.start - 1 if e.start > 0 and d[e.start - 1].text in _COUNTRY_PREFIXES and kind in INSTITUTION_KINDS \
                else e.start
            key = " ".join(t.text for t in d[start:e.end]).lower()
            pair.candidates.append(Mention(off + start, off + e.end, typ, f"{typ}:{entity_key(key)}", kind=kind))
            if is_described(e):
                pair.described.add((off + start, off + e.end))
    return pair


def _short_names(pair: _Pair, toks, d1, d2, lexicon, known_companies) -> None:
    """Step 2: "Coastal" beside "Coastal Corp.", "Merrill" beside "Merrill Lynch": the organisation's short
    name; the other spans kept back by step 1 are refused."""
    d_of = (d1, d2).__getitem__
    firsts = {organisation_core(toks[m.start:m.end])[0] for m in pair.candidates if m.type == "ORG"}
    for side, off, e, why in pair.later:
        core = organisation_core([t.text for t in e])
        if len(core) == 1 and core[0] in firsts:
            pair.sides.add(side)
            pair.candidates.append(Mention(off + e.start, off + e.end, "ORG", f"ORG:{entity_key(e.text.lower())}",
                                           kind=mention_organisation_kind(e, lexicon, known_companies)))
            continue
        pair.refused[why] += 1
        if why == "a common word" and e.start > 0 and not d_of(side)[e.start - 1].is_sent_start \
                and not d_of(side)[e.start].is_sent_start:
            pair.sides.add(side)                  # an organisation not swapped: "the Senate", "the Fed"


def _coordinated_with_persons(d1, d2, lexicon, refused_persons: set[int]) -> set[int]:
    """Step 3: an organisation coordinated with a person reads as a person too ("Both Bloomberg and Pataki
    said", the mayor and the governor): the tokens of such one-word organisations."""
    n1 = len(d1)
    persons = {off + t.i for off, d in ((0, d1), (n1, d2)) for e in d.ents
               if e.label_ in ("PERSON", "PER") or e.label_ == "ORG" and len(e) == 1 and e.text[:1].isupper()
               and not e.text.isupper() and not lexicon.is_listed_company(e.text)
               and not is_institution(organisation_kind(e.text)) and not common_word(e.text)
               for t in e} | refused_persons           # "Pataki", tagged ORG, of no kind
    person_like: set[int] = set()
    for off, d in ((0, d1), (n1, d2)):
        for t in d:
            # one-word organisations only ("Bloomberg"), not "Powell and the State Department"
            if t.dep_ == "conj" and t.ent_type_ == "ORG" and t.ent_iob_ == "B" and off + t.head.i in persons \
                    and off + t.i not in persons and (t.i + 1 == len(d) or d[t.i + 1].ent_iob_ != "I"):
                person_like.add(off + t.i)
            h = t.head
            if t.dep_ == "conj" and off + t.i in persons and h.ent_type_ == "ORG" and h.ent_iob_ == "B" \
                    and off + h.i not in persons and (h.i + 1 == len(d) or d[h.i + 1].ent_iob_ != "I"):
                person_like.add(off + h.i)
    return person_like


def _kind_from_anaphor(linked, toks, kind_of: dict[str, str], anaphor: str | None) -> None:
    """Step 4: the one organisation of no kind in a pair that calls it "the airline": that airline (not an
    acronym, not a word WordNet knows: "Medicare", "Hamas")."""
    unknown = {m.entity for m in linked if m.type == "ORG" and m.entity not in kind_of}
    if anaphor is not None and len(unknown) == 1:
        entity = next(iter(unknown))
        names = {" ".join(organisation_core(toks[m.start:m.end])) for m in linked if m.entity == entity}
        if not any(n.replace(".", "").replace("&", "").isupper() or wordnet_noun(n) for n in names):
            kind_of[entity] = f"industry:{anaphor}"


def _half_swapped(linked, toks, kind_of, why_entity: dict[str, str], lexicon, known_companies) -> None:
    """Step 5: one organisation, one name: a company whose longer mention adds other words is a division or
    a product of it ("Microsoft Developer Network"), and a name whose words stand elsewhere in the pair
    untagged ("Kleiner Perkins" beside a tagged "Kleiner Perkins Caufield & Byers", "IBMof", "Business
    Week" beside "BusinessWeek") would be left half swapped."""
    inside = {i for m in linked for i in range(m.start, m.end)}
    squashed = [squash(t) for t in toks]
    for entity in list(kind_of):
        cores = [organisation_core(toks[m.start:m.end]) for m in linked if m.entity == entity]
        words = {w for c in cores for w in c if w[:1].isupper() and w.lower() not in _NAME_GLUE}
        spans = {i for m in linked if m.entity == entity for i in range(m.start, m.end)}
        for c in cores:              # the name where the tagger missed it is swapped with it (plan_swaps)
            spans |= {i + k for i in range(len(toks) - len(c) + 1) if tuple(toks[i:i + len(c)]) == tuple(c)
                      for k in range(len(c))}
        outside = [i for i in range(len(toks)) if i not in spans and i not in inside and squashed[i]]
        # runs of capitalised words ("IBMof", "Business Week"), not common nouns ("a state court")
        caps = [i for i in outside if any(ch.isupper() for ch in toks[i])]
        runs = {"".join(squashed[i] for i in caps[k:k + n]) for n in (1, 2, 3) for k in range(len(caps))}
        acronyms = {"".join(w[0] for w in c if w[:1].isupper() and w.lower() not in _NAME_GLUE) for c in cores
                    if len(c) > 1}
        if kind_of[entity] in SECTORS and any(is_division(c, min(cores, key=len), lexicon, known_companies)
                                              for c in cores):
            why_entity[entity] = DIVISION_OR_PRODUCT
        elif any(toks[i] in acronyms or any(toks[i].startswith(a) and toks[i][len(a):] in ("", "'s") for a in acronyms
                                            if len(a) > 1) for i in outside):
            why_entity[entity] = INITIALS_ELSEWHERE   # "General Electric" beside "GE Capital"
        elif any(toks[i] in words or any(toks[i].startswith(w) and toks[i][len(w):].islower() for w in words
                                         if len(w) > 2) for i in outside) \
                or any(squash(w) in runs for w in words if len(squash(w)) > 3):
            why_entity[entity] = NAME_UNTAGGED_ELSEWHERE


def _names_a_ticker(toks) -> bool:
    """Whether the pair writes a ticker symbol ("IBM.N", "Nasdaq: PSRC", "under the ticker symbol: PSRC")."""
    return any(_TICKER.fullmatch(w) for w in toks) or any(
        a.lower() in ("nasdaq", "nyse", "amex") and b == ":" for a, b in zip(toks, toks[1:])) or any(
        w.lower() in ("symbol", "symbols", "ticker") and any(re.fullmatch(r"[A-Z]{2,5}", x) for x in toks[i + 1:i + 4])
        for i, w in enumerate(toks))            # "under the ticker symbol: PSRC"


def _tells_of_a_change_of_name(toks) -> bool:
    """A pair that tells of a change of name speaks of two names for one company, or one name for two ("the
    original SCO ... changed its name to the SCO Group"): one replacement per name is wrong."""
    return any(w.lower() in ("renamed", "formerly", "rebranded") for w in toks) or any(
        a.lower() in ("changed", "change", "changing", "changes") and b.lower() in ("its", "their") and c.lower() == "name"
        for a, b, c in zip(toks, toks[1:], toks[2:]))


def _names_a_country(d1, d2, lexicon) -> bool:
    """A legislature belongs to a country: "final United States approval ... ratified by Congress" is no
    Duma's."""
    return any(e.label_ == "NORP" or e.label_ == "GPE" and (
        lexicon.location_kind(e.text.removeprefix("the ")) == "country" or e.text in _COUNTRY_PREFIXES
        or e.text in ("United States", "America", "American", "Americans", "British", "Britain"))
        for d in (d1, d2) for e in d.ents)


def _kind_refusal(kind: str, names, spans, toks, kind_of, pair: _Pair, renamed: bool, country_named: bool,
                  ticker: bool, products: bool = False, officer: bool = False, programme=lambda spans: False,
                  owns=lambda spans: False) -> str | None:
    """Why an organisation of kind ``kind`` is left whole in this pair, the first reason that holds, or
    ``None``."""
    if renamed:
        return CHANGE_OF_NAME
    if kind in INSTITUTION_KINDS and pair.person_like & {i for a, b in spans for i in range(a, b)}:
        return BESIDE_A_PERSON
    if pair.modified & set(names):
        return LEGISLATURE_NOT_SWAPPED_ELSEWHERE
    if kind == "executive department" and any(t in ("Secretary", "Secretaries", "Undersecretary") for t in toks):
        # "Secretary of State Colin Powell ... the State Department": the secretary heads the department
        return DEPARTMENT_BESIDE_A_SECRETARY
    if kind == "legislature" and country_named:
        return LEGISLATURE_OF_A_NAMED_COUNTRY
    if kind == "legislature" and any(t.lower().rstrip(".") in _LEGISLATOR_TITLES for t in toks):
        return LEGISLATURE_BESIDE_ITS_MEMBERS
    if kind == "legislature" and (pair.modified or sum(k == "legislature" for k in kind_of.values()) > 1 or any(
            t in ("Congresses", "Senates", "Houses", "Parliaments", "Assemblies") for t in toks)):
        # "the House ... the Senate ... two Congresses": one chamber renamed changes how they relate
        return LEGISLATURE_BESIDE_ANOTHER
    if kind in INSTITUTION_KINDS and kind not in _SWAPPED_INSTITUTIONS:
        return not_interchangeable(kind)
    if kind in _MEDIA_KINDS and any(sp in pair.described for sp in spans):
        # "the cable sports network ESPN": a description that fits one broadcaster
        return DESCRIBED_BROADCASTER
    if kind == "university" and (any(sp in pair.described for sp in spans) or any(
            t.lower() in _UNIVERSITY_DESCRIPTIONS or part in _UNIVERSITY_DESCRIPTIONS
            for t in toks for part in t.lower().split("-"))):
        # "Washington private-college president", "which is affiliated with the Assemblies of God": a
        # description that fits some universities only (issue 53)
        return DESCRIBED_UNIVERSITY
    if kind == "court" and any(court_level(n) == "supreme" for n in names):
        return SUPREME_COURT
    if (kind in SECTORS or kind.startswith("industry:")) and ticker:
        return BESIDE_A_TICKER
    owned = kind in SECTORS or kind.startswith("industry:") or kind in _MEDIA_KINDS
    if owned and (products or owns(spans)):
        return BRAND_IN_THE_PAIR
    if owned and officer:
        return BESIDE_AN_OFFICER
    if kind in BROADCAST_FORMATS and programme(spans):
        return BRAND_IN_THE_PAIR
    if (kind in SECTORS or kind.startswith("industry:")) and any(sp in pair.described for sp in spans):
        # "publishing house Disney": an industry group mixes businesses a description tells apart
        return DESCRIBED_BY_ITS_BUSINESS
    return None


def _industry_group(kind: str, names, lexicon, anaphor, unknown_companies: int, inferred) -> str | None:
    """A company's industry group, from the lists ("Intel": semiconductors), its name ("Alpha Shipping") or
    the pair ("the airline"), or the corpus (``inferred``)."""
    own = next((g for g in map(lexicon.company_group, names) if g), None) \
        or next((g for g in map(group_from_words, names) if g), None)
    if own is None and kind == "transport":
        own = next((g for g in map(transport_group, names) if g), None)
    if own is None and kind == COMPANY:
        # "the airline" speaks of the one company of unknown industry, not of each of a list
        # ("chipmaker Intel ... Sony, Microsoft, Hewlett-Packard")
        own = (anaphor if unknown_companies == 1 else None) \
            or next((g for n in names if (g := (inferred or {}).get(company_key(n)))), None)
    return own


def _refuse_or_group(pair: _Pair, linked, toks, kind_of, why_entity, d1, d2, lexicon, anaphor, inferred) -> None:
    """Step 6: per organisation, the first refusal of :func:`_kind_refusal`; else, for a company, its
    industry group (a sector is too broad: "Sharp" by "Amazon.com", "ImClone Systems" by "Cisco Systems"),
    or why it has none."""
    ticker = _names_a_ticker(toks)
    unknown_companies = sum(k == COMPANY for k in kind_of.values())
    renamed = _tells_of_a_change_of_name(toks)
    country_named = _names_a_country(d1, d2, lexicon)
    products = _names_a_product(d1, d2)
    officer = _names_an_officer(d1, d2)
    for entity, kind in list(kind_of.items()):
        spans = [(m.start, m.end) for m in linked if m.entity == entity]
        names = [" ".join(organisation_core(toks[a:b])) for a, b in spans]
        why = _kind_refusal(kind, names, spans, toks, kind_of, pair, renamed, country_named, ticker, products, officer,
                            lambda spans: _names_a_programme(d1, d2, spans, len(d1)),
                            lambda spans: _possesses_a_name(spans, toks, len(d1), names))
        if why is not None:
            why_entity[entity] = why
        elif kind in SECTORS:
            own = _industry_group(kind, names, lexicon, anaphor, unknown_companies, inferred)
            # a company is replaced within its industry group only: a sector is too broad ("Sharp" by
            # "Amazon.com", "ImClone Systems" by "Cisco Systems")
            if own is not None:
                kind_of[entity] = f"industry:{own}"       # too small a pool is counted below
            elif kind == COMPANY:
                why_entity[entity] = COMPANY_OF_UNKNOWN_INDUSTRY
            elif any(sp in pair.described for sp in spans):
                why_entity[entity] = DESCRIBED_COMPANY
            elif kind == "transport":
                why_entity[entity] = TRANSPORT_OF_NO_KIND
            else:
                why_entity[entity] = NO_INDUSTRY_GROUP


def _kept(linked, kind_of, why_entity, lexicon, refused: Counter, toks) -> list[Mention]:
    """Step 7: the mentions to swap: every non-ORG mention, and each ORG mention of a kind, not refused, whose
    pool is large enough (:data:`~robust_bench.perturb.names.lexicon.MIN_ORGANISATION_POOL`,
    :data:`~robust_bench.perturb.names.lexicon.MIN_INDUSTRY_POOL`); the others are counted in ``refused``. A
    university's kind is refined here (:func:`~robust_bench.perturb.names.kinds.university_kind`, by its longest
    mention), so that the pool checked is the pool drawn from."""
    mentions: list[Mention] = []
    longest = {}
    for m in linked:
        if m.type == "ORG" and m.end - m.start > len(longest.get(m.entity, ())):
            longest[m.entity] = toks[m.start:m.end]
    for m in linked:
        if m.type != "ORG":
            mentions.append(m)
            continue
        kind = kind_of.get(m.entity)
        if kind == "university":
            kind = university_kind(" ".join(longest[m.entity]))
        minimum = pool_minimum(kind) if kind else MIN_ORGANISATION_POOL
        if kind is None:
            refused[UNKNOWN_KIND] += 1
        elif m.entity in why_entity:
            refused[why_entity[m.entity]] += 1
        elif len(lexicon.pool(kind)) < minimum:
            refused[no_pool_of_its_kind(kind)] += 1
        else:
            mentions.append(Mention(m.start, m.end, m.type, m.entity, kind))
    return mentions


def industries_by_company(docs, lexicon) -> dict[str, str]:
    """The industry group of companies no list knows, from the pairs of the corpus (MRPC train, test and
    validation, tagged): per sentence whose industry words
    (:data:`robust_bench.perturb.organisations.INDUSTRY_CUES`) name one group, that group votes for each
    unlisted company the sentence names (the listed companies beside it do not, nor bank words: Enron's
    banks say nothing of Enron); a company with two votes or more, three quarters of them for one group,
    has that group ("PeopleSoft" in sentences that say "software"). ``docs`` are the tagged sentences.

    Returns
    -------
    dict of str to str
        :func:`company_key` -> industry group.

    Parameters
    ----------
    docs : iterable of spacy.tokens.Doc
    lexicon : NameLexicon
    """
    votes: dict[str, Counter] = {}
    for d in docs:
        unknown = set()
        for e in d.ents:
            if e.label_ != "ORG":
                continue
            name = " ".join(organisation_core([t.text for t in e]))
            if name and not is_institution(organisation_kind(name)) and not lexicon.is_listed_company(name):
                unknown.add(company_key(name))
        # the sentence's industry words vote when they name one group, not the listed companies beside
        # it; bank words do not (a company's banks and lenders are its counterparties: "Enron's banks")
        # nor aircraft words (an airline's jets), and not in a sentence of analysts (a broker's analyst
        # speaks of other industries: "Merrill Lynch analyst ... software sales")
        cues = industry_cues(t.text for t in d) - {"banking", "aerospace and defence"}
        if len(cues) != 1 or any(t.lower_ in ("analyst", "analysts") for t in d):
            continue
        for key in unknown - {""}:
            votes.setdefault(key, Counter()).update(cues)
    out = {}
    for key, c in votes.items():
        if c:
            group, n = c.most_common(1)[0]
            if n >= 2 and n >= 3 / 4 * sum(c.values()):
                out[key] = group
    return out


def court_level(name: str) -> str:
    """``supreme`` for a court of last resort ("Supreme Court", "the High Court"), else ``court``.

    Parameters
    ----------
    name : str

    Returns
    -------
    str
    """
    words = {w.lower() for w in name.split()}
    return "supreme" if words & {"supreme", "high"} else "court"


#: Institutions whose members do the same work, so one can stand for another: courts, hospitals,
#: universities, legislatures, broadcasters, news agencies and newspapers, the United States executive
#: Agencies, government departments (issue 53: "Education Department spokesman Richard Boucher" on a peace
#: conference speaks for the State Department; no pool of departments of one remit exists here), broadcasters
#: of no known format (:data:`~robust_bench.perturb.organisations.BROADCAST_FORMATS`), associations and
#: the like each have their own remit ("the FBI said the suspect..." read with "the
#: FDA" is another story).
_SWAPPED_INSTITUTIONS = {"court", "hospital", "university", "legislature", "newspaper", "news agency",
                         "television network", "news channel"}
#: Words that describe a university's control, church or type, which its replacement need not share.
_UNIVERSITY_DESCRIPTIONS = frozenset({"private", "public", "affiliated", "catholic", "jesuit", "baptist", "methodist",
                                      "lutheran", "presbyterian", "christian", "bible", "ivy", "nonprofit",
                                      "for-profit", "two-year", "four-year", "land-grant"})
#: Kinds of news media: a description beside one fits that one only ("the cable sports network ESPN").
_MEDIA_KINDS = ("broadcaster", "newspaper", "news agency", "television network", "news channel")


#: Nouns that stand for a company of one industry group ("the airline warned", "the chipmaker said").
_INDUSTRY_NOUNS = {"airline": "airlines", "carrier": "airlines", "chipmaker": "semiconductors",
                   "drugmaker": "pharmaceuticals", "automaker": "motor vehicles", "carmaker": "motor vehicles",
                   "insurer": "insurance", "retailer": "retail", "bank": "banking", "lender": "banking",
                   "brokerage": "banking", "publisher": "publishing", "broadcaster": "entertainment",
                   "software maker": "software", "biotech": "pharmaceuticals"}


def industry_anaphor(tokens) -> str | None:
    """The industry group of the company a pair speaks of as "the airline", "the largest airline", "the
    chipmaker" (nouns of one group only), else ``None``.

    Parameters
    ----------
    tokens : sequence of str

    Returns
    -------
    str or None
    """
    found = set()
    for i, t in enumerate(tokens):
        # "the airline", "the nation's largest airline", "the Sunnyvale, Calif., chipmaker"; not "Bank of
        # America" nor "each bank helped Enron" (the banks beside the company)
        if t in _INDUSTRY_NOUNS and "the" in [w.lower() for w in tokens[max(0, i - 6):i]] \
                and not any(w in (".", ";", "and", "or", "each", "every", "a", "an") for w in tokens[max(0, i - 6):i][-3:]):
            found.add(_INDUSTRY_NOUNS[t])
    return found.pop() if len(found) == 1 else None


_TICKER = re.compile(r"[A-Z]{1,5}\.[A-Z]{1,2}")


#: Words that do not tell two names of one organisation apart ("United States State Department" and "US
#: State Department").
_LINK_IGNORED = {"of", "the", "&", "and", "for", "u.s.", "us", "u.s", "united", "states", "federal"}


def link_organisations(tokens, mentions: list[Mention]) -> list[Mention]:
    """Mentions of one organisation in a pair share an entity id: one whose content words are a
    subset of another's ("Kleiner Perkins" and "Kleiner Perkins Caufield & Byers", "Bristol
    University" and "University of Bristol") or an acronym of the other's capitalised words ("FDA"),
    so both sentences keep naming the same organisation.

    Parameters
    ----------
    tokens : sequence of str
    mentions : list of Mention

    Returns
    -------
    list of Mention
        The same mentions, in the same order, with shared entity ids.
    """
    def content(m):
        # spellings of one name compare equal: "Albertsons" and "Albertson", "U.S." and "US"
        return frozenset(squash(w).rstrip("s") for w in organisation_core(tokens[m.start:m.end])
                         if w.lower() not in _LINK_IGNORED and squash(w))

    def initials(m):
        return "".join(w[0] for w in organisation_core(tokens[m.start:m.end])
                       if w[:1].isupper() and w.lower() not in ("of", "the", "and", "for"))

    def same(short, long):
        c = content(short)
        if c <= content(long):
            return True
        word = "".join(organisation_core(tokens[short.start:short.end])).replace(".", "")
        # an acronym of the longer name: "FDA" (or "F.D.A.") and "U.S. Food and Drug Administration"
        return len(c) == 1 and word.isupper() and word.isalpha() and 2 <= len(word) <= 6 and word in initials(long)

    orgs = sorted((m for m in mentions if m.type == "ORG" and content(m)), key=lambda m: -len(content(m)))
    entity = {}
    for k, m in enumerate(orgs):
        entity[m] = next((entity[o] for o in orgs[:k] if same(m, o)), m.entity)
    return [Mention(m.start, m.end, m.type, entity.get(m, m.entity), m.kind) for m in mentions]


def mrpc_pair(d1, d2, types, lexicon, lowercase_words, known_companies, inferred: dict[str, str] | None = None
              ) -> tuple[int, bool, list[Mention], Counter, dict | None]:
    """One MRPC pair as the swaps need it (Balasubramanian et al., 2020: the pairs with an
    organisation in both sentences): its tagged mentions, the mentions to swap
    (:func:`organisation_mentions`) and, when it passes the paper's filter, what the rows and the
    article check (:func:`robust_bench.perturb.names.determiners.fix_determiners`) need.

    Parameters
    ----------
    d1, d2 : spacy.tokens.Doc
        The pair's sentences, tagged.
    types, lexicon, lowercase_words, known_companies, inferred
        As for :func:`organisation_mentions`.

    Returns
    -------
    tagged : int
        The tagger's mentions of the ``types``.
    both : bool
        Whether both sentences hold one of them.
    mentions : list of Mention
        The mentions to swap.
    refused : Counter
        The tagger's mentions refused, by reason.
    pair : dict or None
        ``tokens``, ``spaces``, ``n1`` (the first sentence's tokens), ``mentions`` and ``info`` (per token its
        dependency label, part of speech, whether a determiner depends on it, and its head's index; see
        :class:`~robust_bench.perturb.names.determiners.TokenInfo`); ``None`` for a pair without an
        organisation in both sentences or without a mention to swap.
    """
    from robust_bench.text.nlp import map_entity_label

    n1 = len(d1)
    tagged = [(off, e) for off, d in ((0, d1), (n1, d2)) for e in d.ents
              if map_entity_label(e.label_) in types]
    both = any(off == 0 for off, _ in tagged) and any(off == n1 for off, _ in tagged)
    mentions, why, sides = organisation_mentions(d1, d2, types, lexicon, lowercase_words, known_companies, inferred)
    if sides != {0, 1} or not mentions:
        return len(tagged), both, mentions, why, None   # the paper's filter: an organisation in both sentences; one swapped
    toks = [t.text for t in d1] + [t.text for t in d2]
    info = [(t.dep_, t.pos_, any(c.dep_ == "det" for c in t.children), t.head.i + off)
            for off, d in ((0, d1), (n1, d2)) for t in d]
    return len(tagged), both, mentions, why, {"tokens": toks, "spaces": [t.whitespace_ for d in (d1, d2) for t in d],
                                              "n1": n1, "mentions": mentions, "info": info}
