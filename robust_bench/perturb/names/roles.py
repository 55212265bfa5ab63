"""Person names word by word (Balasubramanian et al., 2020, §2.3): the name inside a mention, and one
role per distinct name word over a whole document, first name or surname ("in case of ambiguity, the
last name"), with the evidence that decided it."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Mapping, Sequence

from robust_bench.perturb.names.kinds import _POSSESSIVE
from robust_bench.perturb.names.lexicon import NameLexicon
from robust_bench.perturb.names.mentions import Mention
from robust_bench.text.names import HONORIFIC_GENDER, PARTICLES, is_name_word

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
        "B. Young") count as names, and "M." is an initial ("M. Waugh"), not "Monsieur".

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
                         or gold and (tokens[a - 1].lower() in _NAME_LIKE_TITLES
                                      or re.fullmatch(r"[A-Z]\.", tokens[a - 1]) is not None)) and (
            is_name_word(tokens[a - 1], gold) or tokens[a - 1] in PARTICLES and a - 1 > start and a < b):
        a -= 1
    if all(t in PARTICLES for t in tokens[a:b]):
        return None
    return a, b                 # a leading particle belongs to the surname: "(the Duc) de Chalis"


#: Titles that are also names: inside a gold name annotation ("Dean Sturridge", "Earl Woods", "John
#: Major") they are the name.
_NAME_LIKE_TITLES = {"dean", "earl", "major", "prince", "king", "duke", "baron", "marshal"}


def _is_initial(word: str) -> bool:
    return word.endswith(".") and len(word) <= 3


def _surface(original: str, new: str) -> str:
    """``new`` in the shape of ``original``: an initial stays an initial ("J." -> "S."), capitals stay
    capitals ("TOMMY" -> "SOLBERG", and "McBRIDE" -> "MATHESON" beside "SALLIE")."""
    if _is_initial(original):
        return new[0].upper() + "."
    if len(original) > 1 and (original.isupper() or re.fullmatch(r"(Mc|Mac|O')[A-Z]{2,}", original)):
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
        elif len(words) == 1 and before in _EITHER_WAY_TITLES:
            seen.setdefault(words[0].lower(), Counter())["after either-way title"] += 1
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
    it in one role only: "Miss Betsey"); ``title`` ("Mr. Harvey", "Sir John", "Mr. Heathcliff");
    ``names-dataset`` (a given name the lists do not know, among names-dataset's 1,000 most frequent given
    names, that it ranks ten times lower or not at all as a family name: "Lucilla", "Leonce"; not "Bartleby",
    2,940th, a surname to a reader; never the other way, "Tibby" is unranked as a given name
    there); ``rank`` (one list ranks it at least ten times higher and names-dataset's ranks agree; in
    fiction not for a name seen only after a title that goes either way, "my cousin Percy"); else
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
    if c["after surname title"] != c["after first-name title"]:
        # before names-dataset: "Mr. Heathcliff" is a surname, though names-dataset knows "Heathcliff" as a
        # given name only (issue 53)
        return ("first" if c["after first-name title"] > c["after surname title"] else "last"), "title"
    if likely is None and fact is not None and fact.first_rank is not None and fact.first_rank <= 1000 and (
            fact.last_rank is None or fact.last_rank >= 10 * fact.first_rank):
        return "first", "names-dataset"
    if likely is None:
        return "last", None
    if bare == "last":
        return "last", ("rank" if likely == "last" else None)
    if bare == "rank" and alone and c["single"] and c["after either-way title"] >= c["single"]:
        # seen only after a title that goes either way ("my cousin Percy", "Lord Jim"): nothing decides
        return likely, None
    first = min(lexicon.rank(title, "male"), lexicon.rank(title, "female"))
    last = lexicon.rank(title, "last")
    ratio = (max(first, last) + 1) / (min(first, last) + 1)
    # one list ranks it ten times higher, and names-dataset does not say otherwise ("Cameron" and
    # "Washington" are given names there, surnames in the census lists' order)
    agrees = fact is None or fact.first_rank is None or fact.last_rank is None or (
        (fact.first_rank < fact.last_rank) == (likely == "first"))
    return likely, ("rank" if ratio >= 10 and agrees else None)


def name_word_roles(tokens: Sequence[str], names: Sequence[tuple[int, int]], lexicon: NameLexicon
                    ) -> dict[str, tuple[str, str | None]]:
    """The role of every word of a document's person names, as :func:`plan_swaps` decides it, and its
    evidence (see :func:`_role_with_evidence`): lower-cased word -> (``first`` or ``last``, evidence).

    Parameters
    ----------
    tokens : sequence of str
    names : sequence of (int, int)
        Name spans (honorifics stripped; see :func:`person_name_tokens`) of every person of the document.

    Returns
    -------
    dict of str to (str, str or None)

    Notes
    -----
    Balasubramanian et al. (2020), §2.3: first names are replaced by first names, last names by last names,
    and "in case of ambiguity, the last name".
    """
    seen: dict[str, Counter] = {}
    shape: dict[str, str] = {}
    _count_uses(tokens, [((None, sp)) for sp in names], seen, shape)
    return {w: _role_with_evidence(shape[w], c, lexicon) for w, c in seen.items() if w in shape}


#: Titles before a name that is neither a first name nor a surname.
_NO_FIRST_LAST_TITLES = {"pope", "st.", "st", "saint", "ste.", "ste"}


#: Titles before a surname ("Mr. Harvey", "Dr. Seward") and before a first name ("Sir John",
#: "Aunt Polly"); "Lady", "Lord", "Father", "cousin" go either way (:data:`_EITHER_WAY_TITLES`) and decide
#: nothing, and so do epithets ("my dear Watson", "old Osborne", "Little Nell").
_SURNAME_TITLES = {
    "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "dr", "dr.", "doctor", "prof", "prof.", "professor", "captain",
    "capt.", "colonel", "col.", "general", "gen.", "major", "lieutenant", "lieut.", "lt.", "sergeant", "sgt.",
    "corporal", "admiral", "commander", "inspector", "constable", "detective", "sheriff", "marshal", "senator",
    "sen.", "rep.", "gov.", "governor", "president", "judge", "mayor", "minister", "herr", "monsieur", "m.", "madame",
    "mme", "mme.", "mlle", "frau", "signor", "signora", "senor", "senora", "señor", "señora", "parson", "vicar",
    "rector", "reverend", "rev", "rev.", "bishop", "squire", "nurse", "citizen", "citoyen", "citoyenne"}


_FIRST_NAME_TITLES = {"sir", "dame", "king", "queen", "prince", "princess", "saint", "st.", "brother", "sister",
                      "uncle", "aunt", "pope", "friar", "granny", "grandma", "grandpa"}
#: Titles before either a first name or a surname ("my cousin Percy" is a kinsman called by the family
#: name; "Lady Catherine" and "Lady Russell", "Lord Jim" and "Lord Byron", "Father Brown"): a name seen
#: only after one has no role that anything decides (issue 53).
_EITHER_WAY_TITLES = {"cousin", "lady", "lord", "father", "mother"}


def nickname_pairs(first_names: set[str]) -> set[str]:
    """The first names of one person that are a nickname and a full form of each other ("Meg" and
    "Margaret", "Tommy" and "Thomas", after the ``nicknames`` package's list): a swap that keeps the
    relation needs a related pair of replacements, which the lists do not give, so the person is kept.
    Two people ("Rob Andrew", "Robert Kitson") are swapped each on their own.

    Parameters
    ----------
    first_names : set of str
        Lower case.

    Returns
    -------
    set of str
    """
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
