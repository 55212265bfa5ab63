"""Whether a tagger's ORG span is an organisation, and of what kind (Balasubramanian et al., 2020:
MRPC's organisations come from an NER pipeline). Two independent signals must agree: the
tagger's label, and a word of the name marking an institution kind or evidence that it is a company
(the company lists, a corporate suffix, business words beside it). Each refusal is a reason string the
``names_mrpc`` card counts."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from robust_bench.perturb.names.kinds import is_institution, organisation_core, organisation_kind, university_name
from robust_bench.perturb.organisations import company_key, industry_cues, sector_from_words
from robust_bench.text.names import HONORIFIC_GENDER, is_name_word

#: Words after a name that make it a stock index, not an organisation ("the Standard & Poor's 500
#: index", "the Dow Jones industrial average", "the Nasdaq Composite").
_INDEX_WORDS = {"index", "indexes", "indices", "composite", "average", "averages", "500", "100", "industrial",
                "industrials", "futures"}


#: Institutions of one place: "England's University of Bristol" or "Bristol University in Britain" would
#: contradict a replacement from elsewhere ("the University of Maryland in Britain").
_PLACED_KINDS = {"university", "hospital", "court", "school or institute"}


#: A legislature named under its state's or country's modifier: "the state Senate", "Russia's Duma".
LEGISLATURE_MODIFIED = "a legislature its state or country names (the state Senate)"


#: Titles of members of a legislature: "Senator Clinton ... re-election for the Knesset" would not hold.
_LEGISLATOR_TITLES = {"senator", "senators", "sen", "congressman", "congresswoman", "congressmen", "rep",
                      "representative", "representatives", "mp", "mps", "lawmaker", "lawmakers", "legislator",
                      "legislators"}


#: A legislature modifying a noun ("the Senate bill", "House Democrats"): most replacements would not read
#: as modifiers ("the House of Lords bill").
LEGISLATURE_MODIFIER = "a legislature as a modifier (the Senate bill)"


#: Institution kinds whose members are not interchangeable: each international body has its own remit
#: ("NATO producers ... the cartel's next supply cut"), and events and venues are no organisations.
NOT_INTERCHANGEABLE = {"international body": "an international body (each has its own remit)",
                        "event or venue": "an event or a venue",
                        "executive department": "a government department (each has its own remit; no pool of the "
                                                "same remit here)",
                        "broadcaster": "a broadcaster of no known format (a network, a news channel)"}


#: A country's abbreviation before an institution belongs to its name ("U.S. District Court").
_COUNTRY_PREFIXES = {"U.S.", "U.S", "US", "U.K.", "UK"}


#: One-word names of stock indices in the financial news ("the Dow rose", "the Nikkei fell").
_INDEX_SHORT_NAMES = {"dow", "nikkei", "ftse", "dax", "cac", "s&p", "hang"}


#: Corporate suffixes that make a mention a company.
_COMPANY_SUFFIXES = {"co", "corp", "corporation", "inc", "incorporated", "ltd", "plc", "llc", "l.p.", "lp", "ag", "sa",
                     "nv", "bv", "gmbh", "spa"}


#: A company's name right before another name names a product or an event of it.
NAME_AFTER = "a name of a product or an event after it (Intel Pentium, Honda Indy 225)"


_COMPANY_TITLES = {"chairman", "ceo", "president", "vice", "founder", "co-founder", "chief", "senior", "general",
                   "director", "managing", "executive", "spokesman", "spokeswoman", "inc", "inc.", "corp", "corp."}


#: An organisation named in an office's title is part of the title ("Secretary of State" is no
#: "Secretary of the Labor Department").
_OFFICE_TITLES = {"secretary", "minister", "ministry", "department", "undersecretary", "secretary-general"}


TITLE_PART = "part of an office's title (Secretary of State)"


#: An acronym that modifies a common noun names a thing, not a company ("AES encryption" is a cipher).
ACRONYM_THING = "an acronym naming a thing (128-bit AES encryption)"


#: An acronym that only the stock indices list ("RPC", an oilfield-services company) is more often a
#: technical term in the news (remote procedure call).
ACRONYM_TRADED = "an acronym only a stock index lists as a company (RPC)"


#: Nouns an organisation's name modifies as an organisation ("IBM spokesman", "NEC executives").
_COMPANY_ROLE_NOUNS = {"spokesman", "spokeswoman", "spokesperson", "executive", "chief", "official", "officials",
                       "employees", "employee", "workers", "analyst", "analysts", "board", "chairman", "president",
                       "officer", "lawyers", "attorney", "attorneys", "deal", "merger", "unit", "division", "plant",
                       "plants", "headquarters", "investors", "researchers", "scientists", "engineers", "staff"}


#: spaCy (OntoNotes) labels of things that are not organisations: the same words tagged so elsewhere in
#: the pair make an ORG mention doubtful.
_NOT_ORG_LABELS = {"PERSON", "PER", "PRODUCT", "WORK_OF_ART", "LAW", "EVENT", "GPE", "LOC", "FAC", "NORP"}


def not_an_organisation(ent, lexicon, lowercase_words: set[str], other_labels: dict[str, set[str]],
                         known_companies: set[str]) -> str | None:
    """Why a tagger's ORG is no organisation, or ``None``. Refused: no name word in it ("<"); a
    digit (a product: "MSN Messenger 6"); a ticker ("AAH.AS"); a stock index (a word of
    :data:`_INDEX_WORDS` in it or right after it); one word the training data writes in lower case
    ("Retailers"); an honorific before it ("Mr. Ballmer"); the same words tagged as a person, product,
    law, work or place elsewhere in the pair; or, unless the company lists know it or a corporate
    suffix follows, a first name at its start ("Lara"), a one-word surname ("Pataki") or a place ("Paris").

    Parameters
    ----------
    ent : spacy.tokens.Span
        The tagger's ORG span.
    lexicon : NameLexicon
    lowercase_words : set of str
        Words the training data writes in lower case.
    other_labels : dict of str to set of str
        The labels of the pair's other entities, by text and word.
    known_companies : set of str
        Company keys the corpora vouch for.

    Returns
    -------
    str or None
        The reason (a string the ``names_mrpc`` card counts), or ``None``.
    """
    words = [t.text for t in ent]
    core = organisation_core(words)
    text = " ".join(core)
    if not core or not any(is_name_word(w) or w.isupper() for w in core):
        return "not a name"
    if any(any(ch.isdigit() for ch in w) for w in core):
        return "a product or model (digits)"
    if any(re.fullmatch(r"[A-Z]{2,}\.[A-Z]{1,3}", w) for w in core):
        return "a ticker symbol"                    # "AAH.AS"; not "F.C.C."
    if len(core) == 1 and len(core[0].replace(".", "")) <= 2:
        return "an acronym too short to tell"       # "IP services company", "BA"
    if ent.end < len(ent.doc) and any(ch.isdigit() for ch in ent.doc[ent.end].text) \
            and any(ch.isalpha() for ch in ent.doc[ent.end].text):
        return "a product or model (digits)"        # "Intel 865G chipset"; not "Wal-Mart's 4,750 stores"
    nxt = ent.doc[ent.end].text.lower() if ent.end < len(ent.doc) else ""
    if any(w.lower() in _INDEX_WORDS for w in core) or nxt in _INDEX_WORDS:
        return "a stock index"
    if nxt in ("group", "holdings") and ent.doc[ent.end].text[:1].isupper():
        return "a span that may miss the end of the name"       # "[SCO] Group" -> "Oracle Group"
    if ent.end < len(ent.doc) and ent.doc[ent.end].pos_ == "PROPN" and ent.doc[ent.end].text[:1].isupper() \
            and nxt.rstrip(".") not in _COMPANY_SUFFIXES and nxt not in _COMPANY_ROLE_NOUNS | _COMPANY_TITLES \
            and ent.doc[ent.end].ent_type_ not in ("PERSON", "GPE"):
        return NAME_AFTER      # "Honda Indy 225", "Intel Pentium 4", "Intel XScale": a product or event of it
    suffixed = len(core) < len(words) and words[-1].lower().rstrip(",.") in _COMPANY_SUFFIXES \
        or suffix_after(ent)
    if ent.start > 0 and ent.doc[ent.start - 1].text.lower() in HONORIFIC_GENDER:
        return "a person (honorific)"
    if ent.start > 1 and ent.doc[ent.start - 1].text.lower() == "of" and ent.doc[ent.start - 2].text.lower() in _OFFICE_TITLES:
        return TITLE_PART                          # "Secretary of [State]", "Minister of [Defence]"
    if ent.start > 1 and ent.doc[ent.start - 1].text in ("'s", "'") and ent.doc[ent.start - 2].ent_type_ == "ORG":
        return "a unit of another organisation (Microsoft's Mobile Devices Marketing Group)"
    kind = organisation_kind(text)         # once: it may look the name up in WordNet
    if len(core) == 1 and re.fullmatch(r"[A-Z]{2,5}", core[0]) and not suffixed and not is_institution(kind):
        head = ent.root.head
        if ent.root.dep_ == "compound" and head.i >= ent.end and head.text.islower() \
                and head.text.lower() not in _COMPANY_AFTER | _COMPANY_ROLE_NOUNS:
            return ACRONYM_THING                   # "128-bit AES encryption", "DSP co-processor"
        if lexicon.is_listed_company(text) and not lexicon.is_fortune_company(text) \
                and company_key(text) not in known_companies \
                and lexicon.company_group(text) not in industry_cues(t.text for t in ent.doc):
            return ACRONYM_TRADED                  # "the section of RPC that deals with message exchange"
    if kind == "university" and not university_name(text):
        return "a sports team named after its university"        # "University of New Mexico Lobos"
    if kind in _PLACED_KINDS and (
            ent.start > 0 and ent.doc[ent.start - 1].text.lower() in ("based", "-based")    # "California-based"
            or ent.start > 1 and ent.doc[ent.start - 1].text in ("'s", "'")
            and ent.doc[ent.start - 2].ent_type_ in ("GPE", "LOC")
            or ent.end + 1 < len(ent.doc) and ent.doc[ent.end].text.lower() in ("in", "near", "at", ",", "of")
            and ent.doc[ent.end + 1].ent_type_ in ("GPE", "LOC")):
        return "an institution the sentence places (Bristol University in Britain)"
    if ent.end + 1 < len(ent.doc) and ent.doc[ent.end].text == "for" and ent.doc[ent.end + 1].text.lower() == "the" \
            and is_institution(kind):
        return "a span that may miss the end of the name"       # "Court of Appeals [for the 3rd Circuit]"
    prev = ent.doc[ent.start - 1] if ent.start > 0 else None
    if prev is not None and prev.text in _COUNTRY_PREFIXES and is_institution(kind):
        prev = None                                 # "U.S. [District Court]": the caller takes "U.S." in
    if prev is not None and not ent[0].is_sent_start and prev.text[:1].isupper() \
            and prev.text.lower() not in ("the", "a", "an") and (prev.pos_ == "PROPN" or prev.text.isupper()):
        return "a span that may miss the start of the name"     # "U.S. [District Court]"
    if prev is not None and kind == "legislature" and (
            prev.pos_ in ("ADJ", "NOUN", "PROPN", "NUM") or prev.text in ("'s", "'")):
        return LEGISLATURE_MODIFIED                # "the state Knesset" is none
    if kind == "legislature" and ent.root.dep_ in ("compound", "nmod", "amod") \
            and ent.root.head.i >= ent.end:
        return LEGISLATURE_MODIFIER                # "House Democrats" -> "House of Lords Democrats"
    labels = other_labels.get(text.lower(), set()) & _NOT_ORG_LABELS
    # the company lists outweigh a product tag elsewhere ("Oracle" the database): not a person's or a place's
    if labels and (labels & {"PERSON", "PER", "GPE", "LOC"} or not lexicon.is_listed_company(text)):
        return "tagged as another type elsewhere in the pair"
    if len(core) == 1 and core[0].lower() in _INDEX_SHORT_NAMES:
        return "a stock index"                      # "the Dow", "the Nikkei"
    if len(core) == 1 and (core[0].lower() in lowercase_words or not core[0].isupper() and common_word(core[0])) \
            and not suffixed and not lexicon.is_listed_company(text, alias=False) \
            and not legislature_name(text):        # "Congress", "the Senate" are names
        return "a common word"      # "Retailers", "United", "Sun"; not "Travelers", "Oracle", "FBI"
    # a listed company whose one-word name is also a person's, unless the sentence names its industry
    # ("Conway" of PeopleSoft's Craig Conway is not the trucker Con-way)
    if len(core) == 1 and not suffixed and (lexicon.is_first_name(core[0]) or lexicon.is_last_name(core[0])) \
            and lexicon.is_listed_company(text) \
            and lexicon.company_group(text) not in industry_cues(t.text for t in ent.doc):
        return "a person (name lists)"
    # a company by its suffix, the company lists or its form ("Evans & Sutherland", "Lindows.com")
    if suffixed or lexicon.is_listed_company(text) or company_form(text):
        return None
    if kind in NOT_INTERCHANGEABLE:
        return NOT_INTERCHANGEABLE[kind]
    if len(core) == 1 and (lexicon.is_first_name(core[0]) or lexicon.is_last_name(core[0])) \
            and not legislature_name(text):
        return "a person (name lists)"      # "Pataki", "Conway": a listed "Con-way" is not evidence enough
    if company_key(text) in known_companies:
        return None                         # a suffix or business words elsewhere in the news corpora
    if len(core) > 1 and lexicon.is_first_name(core[0]) and not sector_from_words(text) \
            and not is_institution(kind):
        return "a person (name lists)"      # "Marce Fuller"; not "Justice Department", "Penn Traffic Co."
    if lexicon.location_kind(text) is not None:
        return "a place (lexicon)"
    return None


def suffix_after(ent) -> bool:
    """Whether a corporate suffix follows the span: "Intel Corp.", "Kroger Co."; not the "co" of
    "DSP co-processor" (lower case, no full stop).

    Parameters
    ----------
    ent : spacy.tokens.Span

    Returns
    -------
    bool
    """
    if ent.end >= len(ent.doc):
        return False
    nxt = ent.doc[ent.end].text
    return nxt.lower().rstrip(".") in _COMPANY_SUFFIXES and (nxt[:1].isupper() or nxt.endswith("."))


def legislature_name(text: str) -> bool:
    """A one-word name of a legislature of WordNet's, or "House" (the House of Representatives): "Congress",
    "Senate", "Knesset"; words that also read as common nouns or surnames, but not as those when tagged
    as an organisation. "Assembly" or "Legislature" alone names no one legislature.

    Parameters
    ----------
    text : str

    Returns
    -------
    bool
    """
    from robust_bench.perturb.organisations import legislatures

    return text in legislatures() or text == "House"


def mention_organisation_kind(ent, lexicon, known_companies: set[str]) -> str | None:
    """The kind of an organisation mention that passed :func:`not_an_organisation`: an institution
    kind its words mark (:func:`organisation_kind`), else a company sector when something vouches that
    it is a company (the company list, a corporate suffix, the Reuters or MRPC text writing it with one,
    or a word of its name marking a sector); ``None`` when nothing does (an armed group, a news agency,
    a programme: no kind, no pool).

    Parameters
    ----------
    ent : spacy.tokens.Span
    lexicon : NameLexicon
    known_companies : set of str

    Returns
    -------
    str or None
    """
    words = [t.text for t in ent]
    text = " ".join(organisation_core(words))
    suffixed = words[-1].lower().rstrip(",.") in _COMPANY_SUFFIXES or suffix_after(ent)
    kind = organisation_kind(text)
    # an institution by its words ("the London Stock Exchange", whose owner is a listed company), unless
    # a corporate suffix makes it a company ("First Union Corp.") or a bank named "of" a place is listed
    # ("Bank of America")
    if is_institution(kind) and not suffixed and not (kind == "central bank" and lexicon.is_listed_company(text)):
        return kind
    if suffixed or lexicon.is_listed_company(text):     # "GE Capital Services Inc.", "News Corp.": companies
        return lexicon.company_sector(text)
    if company_key(text) in known_companies or in_business(ent) or company_form(text):
        return lexicon.company_sector(text)
    return sector_from_words(text)


#: Words that make a name a company's ("AT&T Bell Labs", "Davidowitz & Associates", "The NPD Group").
_COMPANY_NAME_WORDS = {"labs", "laboratories", "associates", "partners", "holdings", "technologies", "group",
                       "industries", "enterprises", "ventures", "brands", "solutions"}


def company_form(name: str) -> bool:
    """Whether the form of a name makes it a company's: a web address ("Lindows.com"), two capitalised
    names joined by "&" ("Ernst & Young", "Evans & Sutherland"), or a company word as its last word
    (:data:`_COMPANY_NAME_WORDS`).

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    words = name.split()
    if re.search(r"\w\.com$", name, flags=re.I):
        return True
    if "&" in words and 0 < words.index("&") < len(words) - 1 and all(w[:1].isupper() for w in words if w != "&"):
        return True
    return len(words) > 1 and words[-1].lower() in _COMPANY_NAME_WORDS


#: Words right after a name (or its possessive) that only a company has: "PeopleSoft shares", "Kodak's
#: earnings", "Enron Chairman"; word pairs before it: "shares of Enron"; and verbs whose subject is a
#: company ("Kodak earned", "Oracle acquired"). Words an agency or a person shares ("spokesman", "said",
#: "reported", "sued", "hired") are not among them.
_COMPANY_AFTER = {"shares", "stock", "stockholders", "shareholders", "earnings", "revenue", "revenues", "profit",
                  "profits", "ceo", "share", "sales", "customers", "subsidiary", "subsidiaries",
                  "executives", "shareholder", "stockholder", "products", "shipments"}


_COMPANY_BEFORE = {("shares", "of"), ("stake", "in"), ("shareholders", "of"), ("stockholders", "of"),
                   ("shares", "in"), ("acquisition", "of"), ("merger", "with"), ("takeover", "of"),
                   ("bid", "for"), ("customers", "of")}


_COMPANY_VERBS = {"earn", "acquire", "ship", "manufacture", "license", "merge", "outsource"}


def business_companies(docs) -> set[str]:
    """Company keys (:func:`company_key`) of the ORG mentions that the words around them make companies
    somewhere in ``docs`` (:func:`in_business`: "SCO shares fell", "Kodak earned"), so that their other
    mentions count as companies too; names an institution's words mark are left out.

    Parameters
    ----------
    docs : iterable of spacy.tokens.Doc

    Returns
    -------
    set of str
    """
    out = set()
    for doc in docs:
        for e in doc.ents:
            if e.label_ == "ORG" and in_business(e):
                name = " ".join(organisation_core([t.text for t in e]))
                if name and not any(c.isdigit() for c in name) and not is_institution(organisation_kind(name)) \
                        and not wordnet_noun(name):
                    out.add(company_key(name))
    out.discard("")
    return out


def in_business(ent) -> bool:
    """Whether the words around a mention make it a company in business ("PeopleSoft shares fell",
    "Kodak's earnings", "shares of Enron", "Kodak earned 85 cents"): see :data:`_COMPANY_AFTER`,
    :data:`_COMPANY_BEFORE` and :data:`_COMPANY_VERBS` (the head of the mention the subject of one).

    Parameters
    ----------
    ent : spacy.tokens.Span

    Returns
    -------
    bool
    """
    doc = ent.doc
    i = ent.end
    if i < len(doc) and doc[i].text in ("'s", "'", "’s"):
        i += 1
    if i < len(doc) and doc[i].text.lower() in _COMPANY_AFTER:
        return True
    if i + 1 < len(doc) and doc[i].text.lower() == "chief" and doc[i + 1].text.lower() in (
            "executive", "executives", "financial", "operating", "technology"):
        return True                         # "the former Citicorp chief executive"
    a = ent.start
    if a > 0 and doc[a - 1].text.lower() == "the":
        a -= 1
    if a >= 2 and (doc[a - 2].text.lower(), doc[a - 1].text.lower()) in _COMPANY_BEFORE:
        return True
    head = ent.root
    return head.dep_ in ("nsubj", "nsubjpass") and head.head.lemma_.lower() in _COMPANY_VERBS


def is_described(ent) -> bool:
    """Whether the sentence describes an organisation mention, so that its industry matters: an apposition
    to it or from it (", an Illinois fund-raiser", "the salvage company, Odyssey"), or a common noun right
    before it ("rival PeopleSoft", "publishing house HarperCollins", "VC firms Sequoia Capital").

    Parameters
    ----------
    ent : spacy.tokens.Span

    Returns
    -------
    bool
    """
    root = ent.root
    if root.dep_ == "appos" or any(c.dep_ == "appos" for c in root.children):
        return True
    prev = ent.doc[ent.start - 1] if ent.start > 0 else None
    return prev is not None and prev.text.islower() and (prev.pos_ == "NOUN" or prev.text in ("rival", "rivals"))


@lru_cache(maxsize=4096)
def common_word(word: str) -> bool:
    """Whether WordNet knows lower-case ``word`` as a common word (a noun, adjective or verb that is not the
    name of one thing): "united", "sun", "state"; not "reuters", "hamas" (an instance).

    Parameters
    ----------
    word : str

    Returns
    -------
    bool
    """
    from robust_bench.text.wordnet import wordnet as wn

    return any(not s.instance_hypernyms() for s in wn.synsets(word.lower()))


@lru_cache(maxsize=4096)
def wordnet_noun(name: str) -> bool:
    """Whether WordNet knows ``name`` as a noun ("Medicare", "Hamas", "Jeep"; few companies are there).

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    from robust_bench.text.wordnet import wordnet as wn

    return bool(wn.synsets(name.replace(" ", "_"), pos="n"))


def suffixed_companies(sentences) -> set[str]:
    """Company keys (:func:`company_key`) of the names a corpus writes with a corporate suffix at least
    once ("PeopleSoft Inc", "Sun Microsystems Inc", "Merrill Lynch & Co."): up to five capitalised words
    (and "&") before the suffix; also the last word of a longer name ("Kodak" of "Eastman Kodak Co."; a
    caller still refuses a word that is a person's name or a common word).

    Parameters
    ----------
    sentences : iterable of list of str
        Word lists.

    Returns
    -------
    set of str
    """
    out = set()
    for words in sentences:
        for i, w in enumerate(words):
            if w.lower().rstrip(".") not in _COMPANY_SUFFIXES or i == 0:
                continue
            j = i
            while j > 0 and i - j < 5 and (words[j - 1][:1].isupper() or words[j - 1] in ("&", "and")) \
                    and words[j - 1].lower() not in ("the", "a"):
                j -= 1
            name = words[j:i]
            while name and name[0] in ("&", "and"):
                name = name[1:]
            while name and name[-1] in ("&", "and"):
                name = name[:-1]
            key = company_key(" ".join(name))
            if key:
                out.add(key)
                last = key.split()[-1]
                if " " in key and len(last) > 3 and name[-1].lower() == last and name[-1][0].isupper():
                    out.add(last)
    return out


def institution_counts(docs, lower: Counter) -> Counter:
    """How often the tagged sentences ``docs`` name each institution (Balasubramanian et al., 2020:
    organisations are replaced by organisations of their kind): an ORG span counts when its words mark an
    institution kind (:func:`organisation_kind`) and its core name (:func:`organisation_core`) is made of
    capitalised words (and "of", "and", "for", "&") with no digit and no stock-index word; one word the
    corpus writes in lower case three times or more ("Journal", "Government") does not count.

    Parameters
    ----------
    docs : iterable of spacy.tokens.Doc
        The corpus's sentences, tagged by an NER pipeline.
    lower : Counter
        How often the corpus writes each lower-case word.

    Returns
    -------
    Counter
        Institution name -> mentions.
    """
    counts: Counter = Counter()
    for doc in docs:
        for e in doc.ents:
            if e.label_ != "ORG":
                continue
            core = organisation_core([t.text for t in e])
            name = " ".join(core)
            if (core and len(name) > 2 and is_institution(organisation_kind(name))
                    and all((w[:1].isupper() and not any(c.isdigit() for c in w))
                            or w in ("of", "and", "for", "&") for w in core)
                    and not any(w.lower() in _INDEX_WORDS for w in core)
                    and not (len(core) == 1 and lower[name.lower()] >= 3)):   # "Journal", "Government"
                counts[name] += 1
    return counts
