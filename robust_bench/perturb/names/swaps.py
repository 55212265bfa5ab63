"""The swap plan (Balasubramanian et al., 2020): a replacement for every mention of the given
types, consistent over the whole example or document, drawn so that no replacement collides with a
name already there and no two entities merge. :func:`plan_swaps` runs its steps in order; each step
that leaves a mention whole records why (``SwapPlan.skipped`` and ``refused``), in the words the
dataset cards count."""

from __future__ import annotations

import random
import re
from typing import Iterable, Mapping, Sequence

from robust_bench.perturb.names.kinds import (_ORG_SUFFIXES, _POSSESSIVE, organisation_core, organisation_kind,
                                              same_organisation, university_kind)
from robust_bench.perturb.names.lexicon import NameLexicon, _plural_name, pool_minimum
from robust_bench.perturb.names.mentions import ENTITY_TYPES, Mention
from robust_bench.perturb.names.org_spans import common_word
from robust_bench.perturb.names.roles import (_NO_FIRST_LAST_TITLES, _ORGANISATION_NOUNS, _SURNAME_TITLES,
                                              _given_name_only, _is_initial, _particle, _person_spans, _plural_of,
                                              _pluralise, _surface, _two_role_words, _word_roles, nickname_pairs)
from robust_bench.perturb.names.places import GOLD_TAG_DOUBT
from robust_bench.perturb.names.spans import ADJUSTED, SwapPlan
from robust_bench.text.names import (GENDER_SHARE, HONORIFIC_GENDER, NOT_NAME_WORDS, PARTICLES, SURNAME_FIRST_COUNTRIES,
                                     is_name_word)
from robust_bench.text.wordnet import first_noun_sense

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


def squash(text: str) -> str:
    """Lower case, letters and digits only: "Wal-Mart" and "Walmart" are one name.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    return "".join(ch for ch in text.lower() if ch.isalnum())


class _Drawer:
    """Draws distinct replacements that occur nowhere in the document."""

    def __init__(self, tokens: Sequence[str], rng: random.Random, reserved: Iterable[str] = ()):
        self.lowered = [t.lower() for t in tokens]
        self.token_set = set(self.lowered)
        # the document's words run together up to four at a time, punctuation dropped: "Walmart" is
        # there when "Wal - Mart" is
        words = [squash(t) for t in tokens if squash(t)]
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
                    or squash(cand) in self.squashed:
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


def _person_part(word: str, role: str, word_gender: Mapping[str, str], choose, lexicon, rng) -> str | None:
    """The replacement of one person-name word, in its shape, a first name from the pool of its gender
    (``word_gender``: male or female); ``None`` for a first name without one (it is kept, never
    flipped) or an exhausted pool."""
    if role == "first":
        g = word_gender.get(word.lower())
        if g is None:
            return None
        new = choose(f"first:{word.lower()}", g)
    else:
        new = choose(f"last:{word.lower()}", "last")
    return None if new is None else _surface(word, new)


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
    refuse = {**split_by_the_tags(tokens, mentions, lexicon), **(refuse or {})}
    state = _Planning(tokens, lexicon, rng, fixed)
    hints = dict(gender_hints or {})
    by_entity: dict[str, list[Mention]] = {}
    for m in sorted(mentions, key=lambda m: (m.start, m.end)):
        if m.type in types:
            by_entity.setdefault(m.entity, []).append(m)
    # persons: the name spans of every entity first, then one role and one replacement per
    # distinct name word over the whole document
    person_names = _person_names(state, mentions, by_entity, gold)
    roles = _word_roles(tokens, person_names, lexicon, bare)
    two_roles = _two_role_words(tokens, person_names)
    word_gender, conflicted = _genders_and_conflicts(state, person_names, roles, two_roles, hints, refuse,
                                                     news=bare == "last")
    chosen = None if entities is None else set(entities)
    _swap_persons(state, person_names, roles, word_gender, conflicted, chosen)
    org_cores = _swap_organisations_and_places(state, by_entity, chosen)
    protected = {i for m in mentions if m.type not in types for i in range(m.start, m.end)}
    _swap_untagged_organisations(state, org_cores, protected)
    _swap_name_words_elsewhere(state, protected)
    _agree_indefinite_articles(state)
    _fix_possessives(state)
    return state.plan


#: Why a mention or a person is left whole: the reasons the dataset cards count (``SwapPlan.skipped``).
OVERLAPPING_MENTION = "overlapping mention"
GENDER_DISAGREES = "person whose first name and context disagree on gender"
FAMILY_NAME_FIRST = "person whose name is written family name first"
PARTICLE_OUTSIDE_THE_NAME = "a surname whose particle stands outside the tagged name (van Boxmeer)"
ENDS_IN_A_GIVEN_NAME = "a full name that ends in a given name (Ingeborg Helen)"
AFTER_A_NOUN_FOR_A_FIRM = "a name after a noun for a firm (bookmakers William Hill)"
FIRST_NAME_AND_SURNAME = "person with a name word that is another's first name and surname"
POPE_OR_SAINT = "a pope's or a saint's name"
DEITY_OR_PROPHET = "a name of God or a prophet (Allah, the prophet Mohammed)"
NICKNAME_AND_FULL_FORM = "person whose first names are a nickname and its full form"
FIRST_NAME_OF_UNKNOWN_GENDER = "person with a first name of either or unknown gender that nothing in the text decides"
NAME_LIST_EXHAUSTED = "name list exhausted"
EMPTY_MENTION = "empty mention"
LOCATION_NOT_IN_THE_LEXICON = "location not in the lexicon"
EAST_ASIAN_NAME = "an East Asian name (family name first, given name in one or two tokens): whole or not at all"
UNKNOWN_NAME_WORD = "a name word the lists know in neither role"
ROLE_AGAINST_THE_LISTS = "a name word whose role names-dataset contradicts (Clarke as a given name, Shatskikh Oleg)"
LONE_GIVEN_NAME = "a name word alone that the lists know as a given name (Tony, Peggy): given name or surname, nothing tells"
SHORT_UNLISTED_WORD = "a short word alone that no name list holds (Nat, Lab: parties in a results line)"
MIDDLE_WORD_OF_NO_ROLE = "a middle word the lists do not know as a surname (Hilde Synnove Lid): given name or surname, nothing tells"
SPLIT_BY_THE_TAGS = "a name the gold tags split (Florence [LOC] Masnada [PER]): its first name would stay"
MODIFIER_TAGGED_AS_PERSON = "a common word before a noun for a person (Pace bowler Ian Harvey): a modifier tagged PER"
JOINED_NAME = "a name with a word that joins the next (Abdul Latif, Abu Bakr, bin Laden): one name in two words"


def no_pool_of_its_kind(kind: str) -> str:
    """Why an organisation is left whole whose kind has too few replacements (see
    :data:`~robust_bench.perturb.names.lexicon.MIN_ORGANISATION_POOL`): "no pool of its kind (<kind>)".

    Parameters
    ----------
    kind : str

    Returns
    -------
    str
    """
    return f"no pool of its kind ({kind})"


class _Planning:
    """What the steps of one :func:`plan_swaps` share: the tokens, the lexicon, the plan being built, the
    drawer of replacements, the tokens already replaced, and the owner (entity, role) of each name part."""

    def __init__(self, tokens: Sequence[str], lexicon: NameLexicon, rng: random.Random,
                 fixed: Mapping[str, str] | None):
        self.tokens = tokens
        self.lexicon = lexicon
        self.rng = rng
        self.fixed = fixed
        self.plan = SwapPlan()
        self.owner: dict[str, tuple[str, str]] = {}     # part key -> (entity, role)
        self.drawer = _Drawer(tokens, rng, reserved=(fixed or {}).values())
        self.taken: set[int] = set()

    def choose(self, role_key: str, pool_kind: str, avoid=None) -> str | None:
        """The replacement of ``role_key`` (``role:original``): the one chosen before, a fixed one, or one
        drawn from the pool ``pool_kind``; ``None`` when the pool is exhausted."""
        plan, fixed = self.plan, self.fixed
        if role_key in plan.mapping:
            return plan.mapping[role_key]
        if fixed and role_key in fixed:
            plan.mapping[role_key] = fixed[role_key]
            return fixed[role_key]
        word = role_key.split(":", 1)[1]
        # an initial stays an initial, and two initials never become one
        initial = _is_initial(word)
        r = self.drawer.draw(self.lexicon.pool(pool_kind), initial=initial, avoid=avoid)
        if r is not None:
            plan.mapping[role_key] = r
        return r

    def put(self, a: int, b: int, new: Sequence[str], entity: str, typ: str, role: str) -> None:
        """Replace tokens ``[a, b)`` by ``new``, unless one of them is replaced already
        (:data:`OVERLAPPING_MENTION`)."""
        plan = self.plan
        if any(i in self.taken for i in range(a, b)):
            plan.skipped[OVERLAPPING_MENTION] += 1
            plan.refused.append((a, b, OVERLAPPING_MENTION))
            return
        self.taken.update(range(a, b))
        plan.spans[(a, b)] = (tuple(new), entity, typ, role)


def _person_names(state: _Planning, mentions, by_entity, gold: bool) -> dict[str, list[tuple[Mention, tuple[int, int]]]]:
    """Step 1: the name spans of every person entity (:func:`~robust_bench.perturb.names.roles._person_spans`)."""
    mentioned = {i for m in mentions for i in range(m.start, m.end)}
    person_names: dict[str, list[tuple[Mention, tuple[int, int]]]] = {}
    for entity, ms in by_entity.items():
        if ms[0].type == "PER":
            names = _person_spans(state.tokens, ms, state.lexicon, gold, state.plan, mentioned)
            if names:
                person_names[entity] = names
    return person_names


class _Person:
    """One person as the checks of :data:`PERSON_CHECKS` see it."""

    def __init__(self, tokens, names, lexicon, roles, two_roles, context, named, full_last=frozenset(),
                 in_full=frozenset(), news: bool = False):
        self.tokens, self.names, self.lexicon = tokens, names, lexicon
        self.roles, self.two_roles, self.context, self.named = roles, two_roles, context, named
        self.full_last = full_last      # words (lower case) that end a full name anywhere in the document
        self.in_full = in_full          # words (lower case) of full names (two words or more) of the document
        self.news = news                # the document is news (``bare="last"``)


def _gender_disagrees(p: _Person) -> bool:
    return bool(p.context in ("male", "female") and p.named - {p.context})


def _family_name_first(p: _Person) -> bool:
    return any(p.lexicon.surname_first(p.tokens[a:b]) for _, (a, b) in p.names)


def _particle_outside_the_name(p: _Person) -> bool:
    # "van Boxmeer" tagged "Boxmeer": the particle would stay before the new surname ("van Ayers")
    return any(a > 0 and p.tokens[a - 1] in PARTICLES and p.tokens[a - 1].islower() for _, (a, b) in p.names)


def _ends_in_a_given_name(p: _Person) -> bool:
    # "Ingeborg Helen [Markein]": a double first name, or a name the tags cut short; "Gunn Margit [Andreassen]":
    # a given name the (American) lists do not know, that names-dataset knows as one of one gender
    return any(b - a > 1 and p.roles.get(p.tokens[b - 1].lower()) == "last"
               and (_given_name_only(p.tokens[b - 1], p.lexicon) or _given_name_by_names_dataset(p.tokens[b - 1], p.lexicon))
               for _, (a, b) in p.names)


def _given_name_by_names_dataset(word: str, lexicon) -> bool:
    """A word the name lists do not know that names-dataset ranks among the 1,000 most frequent given names of a
    country, at least five times higher than as a family name, and gives one gender (≥ 90% of its bearers):
    "Margit", "Ingeborg"."""
    t = word.title()
    if lexicon.is_first_name(t) or lexicon.is_last_name(t):
        return False
    f = lexicon.facts.get(t)
    return f is not None and f.first_rank is not None and f.first_rank <= 1000 and (
        f.last_rank is None or f.last_rank >= 5 * f.first_rank) and f.female is not None and not (
        1 - GENDER_SHARE < f.female < GENDER_SHARE)


def _lone_given_name(p: _Person) -> bool:
    # "his wife , Peggy", "Paul Crofts ... Tony": in the news a name alone is read as a surname ("Clinton said"),
    # but one the lists know as a given name only (or rank ten times higher as one, names-dataset agreeing) may be
    # either, unless a full name of the document ends in it (issue 53)
    lexicon = p.lexicon
    if not p.news:
        return False
    for _, (a, b) in p.names:
        words = [w for w in p.tokens[a:b] if not _is_initial(w)]
        if len(words) != 1 or p.roles.get(words[0].lower()) != "last" or words[0].lower() in p.full_last or (
                a > 0 and p.tokens[a - 1].lower() in _SURNAME_TITLES):      # "Mr. Michael" is a surname
            continue
        t = words[0].title()
        f = lexicon.facts.get(t)
        if lexicon.sole_role(t) == "first" or lexicon.likely_role(t) == "first" and f is not None and (
                f.first_rank is not None and (f.last_rank is None or 10 * f.first_rank <= f.last_rank)):
            return True
    return False


def _short_unlisted_word(p: _Person) -> bool:
    # "Peters says Nat , Lab talks at similar stage": party abbreviations the news's gold tags call PER
    return p.news and any(
        b - a == 1 and len(p.tokens[a]) <= 3 and p.tokens[a].isalpha() and p.tokens[a].lower() not in p.in_full
        and not (p.lexicon.is_first_name(p.tokens[a].title()) or p.lexicon.is_last_name(p.tokens[a].title()))
        for _, (a, b) in p.names)


def _modifier_tagged_as_person(p: _Person) -> bool:
    # "Pace bowler Ian Harvey claimed three": a sentence's first word, a common word, before a noun for a
    # person, tagged PER in the news's gold layer
    toks = p.tokens
    return p.news and any(
        b - a == 1 and (a == 0 or toks[a - 1] in (".", "!", "?", '"')) and b < len(toks) and toks[b].isalpha()
        and toks[b].islower() and first_noun_sense(toks[b]) == "noun.person" and common_word(toks[a].lower())
        for _, (a, b) in p.names)


def _middle_word_of_no_role(p: _Person) -> bool:
    # "Hilde Synnove Lid": a middle word that no list knows is a surname by the paper's default only
    for _, (a, b) in p.names:
        n = b - a
        for k, w in enumerate(p.tokens[a:b]):
            if 0 < k < n - 1 and not _particle(w, k, n) and not _is_initial(w) and w[:1].isupper() \
                    and p.roles.get(w.lower()) == "last" and not p.lexicon.is_last_name(w.title()):
                return True
    return False


def split_by_the_tags(tokens: Sequence[str], mentions: Sequence[Mention], lexicon) -> dict[str, str]:
    """Persons whose name the gold tags split: a one-word mention of another type that is a first name, right
    before the person's mention ("Florence [LOC] Masnada [PER]"); swapping the surname alone would leave half a
    name (issue 53). Entity id -> :data:`SPLIT_BY_THE_TAGS`.

    Parameters
    ----------
    tokens : sequence of str
    mentions : sequence of Mention
    lexicon : NameLexicon

    Returns
    -------
    dict of str to str
    """
    ends = {m.end: m for m in mentions if m.type != "PER" and m.end - m.start == 1}
    return {m.entity: SPLIT_BY_THE_TAGS for m in mentions if m.type == "PER" and m.start in ends
            and lexicon.is_first_name(tokens[m.start - 1].title()) and tokens[m.start - 1][:1].isupper()}


#: Words that join the next word of a name into one ("Abdul Latif", "Abu Bakr", "bin Laden", "Ibn Saud").
_JOINING_WORDS = frozenset({"abdul", "abdel", "abd", "abdal", "abdol", "abdur", "abu", "abou", "bin", "ibn", "bint"})


def _joined_name(p: _Person) -> bool:
    return any(w.lower() in _JOINING_WORDS for _, (a, b) in p.names for w in p.tokens[a:b - 1])


def _after_a_noun_for_a_firm(p: _Person) -> bool:
    # "UK bookmakers William Hill said": a firm named after its founder
    return any(a > 0 and p.tokens[a - 1].lower() in _ORGANISATION_NOUNS for _, (a, b) in p.names)


def _first_name_and_surname(p: _Person) -> bool:
    return any(w.lower() in p.two_roles for _, (a, b) in p.names for w in p.tokens[a:b])


def _pope_or_saint(p: _Person) -> bool:
    # "Pope John Paul", "St. Aubert": a papal name or a saint's, not a first name and a surname
    return any(a > 0 and p.tokens[a - 1].lower() in _NO_FIRST_LAST_TITLES for _, (a, b) in p.names)


#: Names of God and of founders of religions that CoNLL-2003 tags PER ("there is no God but Allah and ...
#: the prophet Mohammed"): no first name and surname to swap.
_DEITIES = {"god", "allah", "jesus", "christ", "buddha", "yahweh", "jehovah", "mohammed", "muhammad", "moses"}


def _deity_or_prophet(p: _Person) -> bool:
    return any(b - a == 1 and p.tokens[a].lower() in _DEITIES or a > 0 and p.tokens[a - 1].lower() == "prophet"
               for _, (a, b) in p.names)


def _name_words(p: _Person):
    """The words of a person's names that are swapped (no particle, no initial), with their position."""
    for _, (a, b) in p.names:
        for k, w in enumerate(p.tokens[a:b]):
            if not _particle(w, k, b - a) and not _is_initial(w) and w[:1].isalpha():
                yield w, k, b - a


def east_asian_word(word: str, lexicon) -> bool:
    """Whether a name word is East Asian by names-dataset's country data
    (:data:`~robust_bench.text.names.SURNAME_FIRST_COUNTRIES`): a family name among the 300 most frequent of a
    country whose press writes the family name first, ranked there above any rank as a given name elsewhere
    ("Yoo", "Roh", "Lee", "Kim"); or a given name most borne there that the (American) name lists do not know
    ("Sang", "Chul", "Hoon"). Such names are written surname first, often with a two-syllable given name as
    two tokens ("Yoo Sang Chul"), so English position rules do not tell the roles (issue 53).

    Parameters
    ----------
    word : str
    lexicon : NameLexicon

    Returns
    -------
    bool
    """
    f = lexicon.facts.get(word.title())
    if f is None:
        return False
    if f.surname_first_rank is not None and f.surname_first_rank <= 300 and (
            f.given_rank_west is None or f.given_rank_west > f.surname_first_rank):
        return True
    return f.first_country in SURNAME_FIRST_COUNTRIES and not (
        lexicon.is_first_name(word.title()) or lexicon.is_last_name(word.title()))


def _east_asian_name(p: _Person) -> bool:
    # "Roh" alone beside "Roh Tae-woo": a given name in the Korean romanisation marks the person's every name
    return any(east_asian_word(w, p.lexicon) or re.fullmatch(r"[A-Z][a-z]+-[a-z]+", w) is not None
               for w, _, _ in _name_words(p))


def known_name_word(word: str, lexicon) -> bool:
    """Whether names-dataset or the name lists know ``word`` as a given name or a family name (each part of a
    hyphenated name)."""
    return all(p.title() in lexicon.facts or lexicon.is_first_name(p.title()) or lexicon.is_last_name(p.title())
               for p in word.split("-") if p)


def _unknown_name_word(p: _Person) -> bool:
    # "Islode Kostner" (a misspelt "Isolde"): a word no list knows in either role has no role and no gender to
    # draw by, unless a full name puts it last (a family name by position: "Betsey Trotwood", "Dean Sturridge")
    last = {p.tokens[b - 1].lower() for _, (a, b) in p.names if b - a > 1}
    return any(not known_name_word(w, p.lexicon) and (p.roles.get(w.lower()) == "first" or w.lower() not in last)
               and _plural_of(w, p.roles) is None for w, _, _ in _name_words(p))      # "the Woodhouses"


def _role_against_the_lists(p: _Person) -> bool:
    # "Clarke" read as a first name where names-dataset ranks it ten times higher as a family name; "Oleg"
    # last in "Shatskikh Oleg" (a surname-first list), a given name names-dataset does not know as a family name
    facts = p.lexicon.facts
    for w, k, n in _name_words(p):
        f = facts.get(w.title())
        if f is not None and p.roles.get(w.lower()) == "first" and f.last_rank is not None and (
                f.first_rank is None or 50 * f.last_rank < f.first_rank):
            return True
        if f is not None and p.roles.get(w.lower()) == "first" and p.lexicon.sole_role(w.title()) == "last" and (
                f.last_rank is not None and (f.first_rank is None or f.last_rank < f.first_rank)):
            return True         # "Ramos Horta": a compound surname, its first word a surname by both resources
    for _, (a, b) in p.names:
        words = [w for w in p.tokens[a:b] if w[:1].isupper() and not _is_initial(w)]
        if len(words) < 2:
            continue
        head, tail = facts.get(words[0].title()), facts.get(words[-1].title())
        if head is not None and tail is not None and head.last_rank is not None and tail.first_rank is not None \
                and (head.first_rank is None or head.last_rank < head.first_rank) \
                and (tail.last_rank is None or tail.first_rank < tail.last_rank):
            return True         # a family name before a given name: a list written surname first
    return False


#: The checks of a person, in order, with the reason each records: the first that holds leaves the
#: person whole (before the caller's own refusals).
PERSON_CHECKS = ((GENDER_DISAGREES, _gender_disagrees), (FAMILY_NAME_FIRST, _family_name_first),
                 (PARTICLE_OUTSIDE_THE_NAME, _particle_outside_the_name),
                 (ENDS_IN_A_GIVEN_NAME, _ends_in_a_given_name), (AFTER_A_NOUN_FOR_A_FIRM, _after_a_noun_for_a_firm),
                 (FIRST_NAME_AND_SURNAME, _first_name_and_surname), (POPE_OR_SAINT, _pope_or_saint),
                 (DEITY_OR_PROPHET, _deity_or_prophet), (EAST_ASIAN_NAME, _east_asian_name),
                 (JOINED_NAME, _joined_name), (SHORT_UNLISTED_WORD, _short_unlisted_word),
                 (MODIFIER_TAGGED_AS_PERSON, _modifier_tagged_as_person),
                 (MIDDLE_WORD_OF_NO_ROLE, _middle_word_of_no_role),
                 (UNKNOWN_NAME_WORD, _unknown_name_word), (ROLE_AGAINST_THE_LISTS, _role_against_the_lists),
                 (LONE_GIVEN_NAME, _lone_given_name))


def _person_context(tokens, names, hint: str | None) -> str | None:
    """A person's gender by context: the hint (the cluster's pronouns), else the one gender its honorifics give."""
    context = hint
    honorific = {HONORIFIC_GENDER.get(tokens[m.start].lower()) for m, _ in names} - {None}
    if context is None and len(honorific) == 1:
        context = honorific.pop()
    return context


def _genders_and_conflicts(state: _Planning, person_names, roles, two_roles, hints, refuse, news: bool = False
                           ) -> tuple[dict[str, str], dict[str, str]]:
    """Step 2: the gender of each first-name word: its own where names-dataset (or the one list holding it)
    states one, so that "Benito" and "Alessandra" of two Mussolinis each keep theirs; otherwise the context
    (the cluster's pronouns, else an honorific) of every person bearing the word, when they agree; otherwise
    none, and those persons are left whole ("Mrs. Chris Smith met Chris Jones": nothing tells Chris Jones's
    gender, and one word has one replacement). A person that a check of :data:`PERSON_CHECKS` or the caller
    (``refuse``) leaves whole gets none. ``news``: the document is news (``bare="last"``).

    Returns word -> pool kind, and entity -> why it is left whole."""
    tokens, lexicon, plan = state.tokens, state.lexicon, state.plan
    word_gender: dict[str, str] = {}
    conflicted: dict[str, str] = {}                 # entity -> why it is left whole
    multi = [(a, b) for names in person_names.values() for _, (a, b) in names if b - a > 1]
    full_last = frozenset(tokens[b - 1].lower() for a, b in multi)
    in_full = frozenset(w.lower() for a, b in multi for w in tokens[a:b])
    kept, contexts = [], {}         # contexts: a first-name word of no gender of its own -> its bearers' contexts
    for entity, names in person_names.items():
        context = _person_context(tokens, names, hints.get(entity))
        firsts = list(dict.fromkeys(w for _, (a, b) in names for k, w in enumerate(tokens[a:b])
                                    if roles.get(w.lower()) == "first" and not _particle(w, k, b - a)
                                    and not _plural_of(w, roles)))
        named = {g for w in firsts if (g := lexicon.gender_of(w.title())) in ("male", "female")}
        person = _Person(tokens, names, lexicon, roles, two_roles, context, named, full_last, in_full, news)
        why = next((reason for reason, check in PERSON_CHECKS if check(person)), None)
        if why is not None:
            conflicted[entity] = why
            continue
        if entity in refuse:
            conflicted[entity] = refuse[entity]
            continue
        kept.append((entity, firsts, context, named))
        for w in firsts:
            if not _is_initial(w) and lexicon.gender_of(w.title()) not in ("male", "female"):
                contexts.setdefault(w.lower(), set()).add(context if context in ("male", "female") else None)
    for entity, firsts, context, named in kept:
        gender = context if context in ("male", "female") else next(iter(named)) if len(named) == 1 else None
        plan.genders[entity] = gender or "unknown"
        _first_name_pools(lexicon, firsts, context, contexts, word_gender)
    _share_refusals(tokens, person_names, conflicted)
    return word_gender, conflicted


#: Reasons that leave a name whole or not at all (issue 53): another person who shares one of its words (the
#: surname "Bowyer" alone beside "Lee Bowyer") is left whole too, or the name would change in part.
_WHOLE_OR_NOT_AT_ALL = (EAST_ASIAN_NAME, FAMILY_NAME_FIRST)


def _share_refusals(tokens, person_names, conflicted: dict[str, str]) -> None:
    """Leave whole every person sharing a name word with one left whole for a reason of
    :data:`_WHOLE_OR_NOT_AT_ALL` (in place, until nothing changes)."""
    words = {e: {w.lower() for _, (a, b) in names for w in tokens[a:b] if w[:1].isupper() and not _is_initial(w)}
             for e, names in person_names.items()}
    changed = True
    while changed:
        changed = False
        held = [(words[e], why) for e, why in conflicted.items() if why in _WHOLE_OR_NOT_AT_ALL and e in words]
        for e, ws in words.items():
            if e in conflicted:
                continue
            why = next((why for hw, why in held if hw & ws), None)
            if why is not None:
                conflicted[e] = why
                changed = True


def _first_name_pools(lexicon, firsts, context, contexts, word_gender: dict[str, str]) -> None:
    """The pool of each first-name word of one person (see :func:`_genders_and_conflicts`), unless an
    earlier person set it: its own gender; else the one gender the contexts of all its bearers give
    (``contexts``: word -> their contexts, ``None`` for a bearer without one); else none, for a name of either
    or unknown gender that nothing in the text decides (a blind read found "Laurie" Harper, a man, renamed
    "Sasha", and Tae Satoya, a woman, "Sammy", from names of either gender leaning one way: issue 53), so the
    person is left whole (:data:`FIRST_NAME_OF_UNKNOWN_GENDER`). An initial shows only its letter: that of a
    first name of the gender of the first bearer's context, else a man's (one letter, one replacement)."""
    for w in firsts:
        own = lexicon.gender_of(w.title())
        if _is_initial(w):
            pool = context if context in ("male", "female") else "male"
        elif own in ("male", "female"):
            pool = own
        else:
            told = contexts.get(w.lower(), {None})
            pool = next(iter(told)) if len(told) == 1 and None not in told else None
        if pool is not None:
            word_gender.setdefault(w.lower(), pool)


def _person_refusal(tokens, entity: str, names, conflicted: Mapping[str, str], roles, word_gender) -> str | None:
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
                return NICKNAME_AND_FULL_FORM
            if w.lower() not in word_gender:
                return FIRST_NAME_OF_UNKNOWN_GENDER
    return None


def _person_parts(state: _Planning, names, roles, word_gender) -> list[tuple[int, int, str | None, str, str]]:
    """Every part of one person's names with its replacement (``None`` where none can be drawn):
    (start, end, replacement, role, original word)."""
    tokens = state.tokens
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
                single = _person_part(base, "last", word_gender, state.choose, state.lexicon, state.rng)
                new = None if single is None else _pluralise(_surface(w, single))
                role = "last"
            else:
                new = _person_part(w, role, word_gender, state.choose, state.lexicon, state.rng)
            # a surname's particles go with it: "van Boxmeer", "Van Tassel" -> "Madera" (a particle
            # left before another surname reads as half a name)
            parts.append((start, a + k + 1, new, role, w))
    return parts


def _swap_persons(state: _Planning, person_names, roles, word_gender, conflicted, chosen) -> None:
    """Step 3: every person (of ``chosen``, if given) that no refusal leaves whole, part by part; a person
    whose part cannot be drawn is left whole (:data:`NAME_LIST_EXHAUSTED`), never half swapped."""
    tokens, plan = state.tokens, state.plan
    for entity, names in person_names.items():
        if chosen is not None and entity not in chosen:
            continue
        why = _person_refusal(tokens, entity, names, conflicted, roles, word_gender)
        if why is not None:
            plan.skipped[why] += len(names)
            plan.refused += [(a, b, why) for _, (a, b) in names]
            continue
        # every part first: a person whose part cannot be drawn is left whole, never half swapped
        before = set(plan.mapping)
        parts = _person_parts(state, names, roles, word_gender)
        if any(part[2] is None for part in parts):
            for key in set(plan.mapping) - before:
                del plan.mapping[key]
            plan.skipped[NAME_LIST_EXHAUSTED] += len(names)
            plan.refused += [(a, b, NAME_LIST_EXHAUSTED) for _, (a, b) in names]
            continue
        for start, end, new, role, w in parts:
            state.owner.setdefault(f"{role}:{w.lower()}", (entity, role))
            state.put(start, end, (new,), entity, "PER", role)


def _core_spans(state: _Planning, ms, typ: str) -> list[tuple[int, int, tuple[str, ...], bool]]:
    """The spans of an organisation's or a place's mentions to replace: (start, end, core name, whether a
    corporate suffix's full stop ends the sentence); a mention without a core is left (:data:`EMPTY_MENTION`)."""
    tokens, plan = state.tokens, state.plan
    spans = []
    for m in ms:
        words = list(tokens[m.start:m.end])
        core = organisation_core(words) if typ == "ORG" else tuple(
            w for w in words if w not in _POSSESSIVE and w.lower() != "the")
        if not core:
            plan.skipped[EMPTY_MENTION] += 1
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
    return spans


def _swap_organisation(state: _Planning, entity: str, ms, spans, org_cores: list) -> None:
    """One organisation, one replacement: "Kleiner Perkins" and "Kleiner Perkins Caufield & Byers" of one
    entity both become "Hyundai"; the kind follows the longest name, and a kind with too small a pool is
    never replaced by another kind (:func:`no_pool_of_its_kind`)."""
    lexicon, plan = state.lexicon, state.plan
    canonical = " ".join(max((c for _, _, c, _ in spans), key=len))
    kind = next((m.kind for m in ms if m.kind), None) or organisation_kind(canonical)
    if kind == "organisation":
        kind = lexicon.company_sector(canonical)
    if kind == "university":
        kind = university_kind(canonical)       # a college by a college (issue 53)
    if len(lexicon.pool(kind)) < pool_minimum(kind):
        # never another kind: "the Securities and Exchange Commission" for "the Nasdaq" says something else
        plan.skipped[no_pool_of_its_kind(kind)] += len(spans)
        return
    names = {" ".join(c) for _, _, c, _ in spans}
    new = state.choose(f"organisation:{canonical.lower()}", kind,
                       avoid=lambda cand: any(same_organisation(cand, n) for n in names))
    if new is None:
        plan.skipped[NAME_LIST_EXHAUSTED] += len(spans)
        return
    for a, b, core, stop in spans:
        words = new.split()
        state.put(a, b, words[:-1] + [words[-1] + "."] if stop and not words[-1].endswith(".") else words,
                  entity, "ORG", kind)
        org_cores.append((core, new, entity, kind))


def _swap_places(state: _Planning, entity: str, typ: str, spans) -> None:
    """Each mention of a place the lexicon knows as a country or a city, by one of its kind
    (:data:`LOCATION_NOT_IN_THE_LEXICON` otherwise)."""
    for a, b, core, _ in spans:
        text = " ".join(core)
        kind = state.lexicon.location_kind(text)
        if kind is None:
            state.plan.skipped[LOCATION_NOT_IN_THE_LEXICON] += 1
            continue
        new = state.choose(f"{kind}:{text.lower()}", kind)
        if new is None:
            state.plan.skipped[NAME_LIST_EXHAUSTED] += 1
            continue
        state.put(a, b, new.split(), entity, typ, kind)


def _swap_organisations_and_places(state: _Planning, by_entity, chosen) -> list[tuple[tuple[str, ...], str, str, str]]:
    """Step 4: organisations whole, places by kind. Returns (core, replacement, entity, kind) of every
    replaced organisation mention."""
    org_cores: list[tuple[tuple[str, ...], str, str, str]] = []     # (core, replacement, entity, kind)
    for entity, ms in by_entity.items():
        typ = ms[0].type
        if typ == "PER" or (chosen is not None and entity not in chosen):
            continue
        spans = _core_spans(state, ms, typ)
        if typ == "ORG" and spans:
            _swap_organisation(state, entity, ms, spans, org_cores)
            continue
        _swap_places(state, entity, typ, spans)
    return org_cores


def _swap_untagged_organisations(state: _Planning, org_cores, protected: set[int]) -> None:
    """Step 5: an organisation's name where the tagger missed it is the same organisation."""
    tokens, taken = state.tokens, state.taken
    for core, new, entity, kind in sorted(set(org_cores), key=lambda x: (-len(x[0]), x)):
        n = len(core)
        for i in range(len(tokens) - n + 1):
            if tuple(tokens[i:i + n]) == core and not any(j in taken or j in protected for j in range(i, i + n)):
                state.put(i, i + n, new.split(), entity, "ORG", kind)
            elif n == 1 and tokens[i] == core[0] + "s" and i not in taken and i not in protected:
                # "Microsofts security unit" (an apostrophe dropped): the same company
                *head, last = new.split()
                state.put(i, i + 1, (*head, last + ("'" if last.endswith("s") else "s")), entity, "ORG", kind)


def _swap_name_words_elsewhere(state: _Planning, protected: set[int]) -> None:
    """Step 6: the same name elsewhere in the document is the same name: every capitalised occurrence of a
    replaced first or last name outside other entities' mentions is replaced too, so no trace of the old
    name is left ("Jarndyce and Jarndyce" beside "Tom Jarndyce")."""
    tokens, taken, plan, owner = state.tokens, state.taken, state.plan, state.owner
    parts = {k.split(":", 1)[1]: (k, v) for k, v in plan.mapping.items() if k.split(":", 1)[0] in ("first", "last")}
    surnames = {word: "last" for word, (k, _) in parts.items() if k.startswith("last:")}
    if not parts:
        return
    # a place doubted as a person stays whole ("member for Fraser" beside a person Fraser); a person refused
    # otherwise shares the new surname of a relative (the family keeps one name)
    left = {i for a, b, why in plan.refused if why == GOLD_TAG_DOUBT for i in range(a, b)}
    for i, w in enumerate(tokens):
        if i in taken or i in protected or i in left or not is_name_word(w, gold=True):
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
            state.put(i, i + 1, (_pluralise(_surface(w[:-1], new)),), entity, "PER", role)
            continue
        entity, role = owner.get(key, ("", key.split(":", 1)[0]))
        state.put(i, i + 1, (_surface(w, new),), entity, "PER", role)


def _agree_indefinite_articles(state: _Planning) -> None:
    """Step 7: "a Santa Claus" -> "an Aimee Sharkey": the indefinite article agrees with the new name's sound."""
    from robust_bench.perturb.checks import indefinite_article

    tokens, taken, plan = state.tokens, state.taken, state.plan
    for (a, b), (words, entity, typ, role) in sorted(plan.spans.items()):
        if a > 0 and words and tokens[a - 1].lower() in ("a", "an") and (a - 1) not in taken \
                and words[0][:1].isalpha() and not any(x <= a - 1 < y for x, y in plan.spans):
            article = indefinite_article(words[0])
            if tokens[a - 1].lower() != article:
                plan.spans[(a - 1, a)] = ((article.capitalize() if tokens[a - 1][0].isupper() else article,),
                                          entity, ADJUSTED, "article")


def _fix_possessives(state: _Planning) -> None:
    """Step 8: a bare possessive apostrophe follows a name ending in s: "Hastings '" -> "Rusnock 's" (after
    another name it is a closing quotation mark: "‘ How odd , ’ said Good ’"); a company whose name is a
    plural takes one: "Apple Computer 's" -> "Advanced Micro Devices '"."""
    tokens, taken, plan = state.tokens, state.taken, state.plan
    for (a, b), (words, entity, typ, role) in list(plan.spans.items()):
        if words and b < len(tokens) and tokens[b] in ("'", "’") and b not in taken \
                and tokens[b - 1].lower().endswith("s") and not words[-1].lower().endswith("s"):
            taken.add(b)
            plan.spans[(b, b + 1)] = (("'s",), entity, ADJUSTED, "possessive")
        elif typ == "ORG" and words and b < len(tokens) and tokens[b] in ("'s", "’s") and b not in taken \
                and words[-1].endswith(("'s", "’s")):
            taken.add(b)                # "Dillard's" + "'s": the name's own possessive serves
            plan.spans[(b, b + 1)] = ((), entity, ADJUSTED, "possessive")
        elif typ == "ORG" and words and b < len(tokens) and tokens[b] in ("'s", "’s") and b not in taken \
                and _plural_name(words[-1]):
            taken.add(b)
            plan.spans[(b, b + 1)] = (("'" if tokens[b] == "'s" else "’",), entity, ADJUSTED, "possessive")
