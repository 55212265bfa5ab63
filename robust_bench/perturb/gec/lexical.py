"""The single-token error types (Nn, SVA, Vform, Wchoice): their positions in a sentence, and
their operations from lemminflect and WordNet, resolved lazily (:data:`_LAZY`) since the look-ups
are the engine's main cost."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from robust_bench.perturb.gec.sets import SUBSTITUTE, WCHOICE_MAX, WCHOICE_SENSES
from robust_bench.perturb.gec.sites import _DATES, _NO_NN, _all_caps, _fixed, _headline, _named, _word_part
from robust_bench.perturb.gec.tokens import (_LEMMINFLECT_TAGS, Operation, Token, _case_like, _children, _inflect,
                                             _subject_of)


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



#: Single-token types whose operations need a dictionary look-up: cheap positions, costly operations.
_LAZY = {"Nn": (_nn_positions, _nn_ops), "SVA": (_sva_positions, _sva_ops), "Vform": (_vform_positions, _vform_ops),
         "Wchoice": (_wchoice_positions, _wchoice_ops)}
