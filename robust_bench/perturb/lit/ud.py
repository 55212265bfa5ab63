"""Linguistically-Informed Transformations (LIT; Li et al., 2020), dependency-parse backend.

LIT (Li, Chen, Liu & Ma, 2020, "Linguistically-Informed Transformations (LIT): A Method for
Automatically Generating Contrast Sets") parses a sentence with the English Resource Grammar,
edits its MRS for one phenomenon at a time (§3.2), generates every surface string the grammar
allows and keeps the one a language model finds most fluent (§3.3). The ERG path is in
:mod:`robust_bench.perturb.lit.erg`; this module is the default backend, which needs no grammar: it
reads the main clause off a UD dependency parse (spaCy) and regenerates the verb group with
``lemminflect``.

The clause model is deliberately narrow. :func:`analyse` accepts a sentence only when it can
identify, without guessing,

* one sentence with a finite main clause (a verbal root, or a copula);
* a subject that precedes the verb group (a noun phrase, a pronoun, or expletive *there*);
* a verb group whose auxiliaries form a well-formed English chain (modal, perfect *have*,
  progressive *be*, passive *be*; do-support) and whose finite verb agrees with the subject;
* no coordinated clause at the root (the transformation would reach only the first conjunct).

Every other sentence raises :class:`Refusal` with a reason, and transformations on it return
no candidate. A transformation that does not apply to an accepted clause (a passive without a
direct object, a tense change to the tense it already has) is refused the same way.

Transformations (§3.4, plus the three the project adds) are named by operation:

========== =========================================================================
``past``     past tense, aspect kept (*has seen* -> *had seen*, *is running* -> *was running*)
``present``  present tense, aspect kept
``future``   future with *will*, aspect kept (*will have seen*, *will be running*)
``may``      epistemic *may* (past clauses become *may have* + participle)
``passive``  object promoted to subject, agent in a *by*-phrase; pronoun case, agreement
``itcleft``  *It is/was X who/that ...*, X the subject
``negation`` *not* added (do-support where needed) or removed
``question`` polar question: subject-auxiliary inversion or do-support
``swap``     subject and direct object exchanged; pronoun case and agreement follow
========== =========================================================================

Verb-group operations (tense, ``may``, ``negation``) compose with each other and with at most
one structural operation (``passive``, ``itcleft``, ``question``, ``swap``), which is how the
paper's compositions such as ``f;p +i`` are built. A transformation returns every surface
string it considers grammatical (*who* and *that* in a cleft of a person; adverbs take one standard
position); :class:`robust_bench.models.lm.CausalLMScorer` picks one. Every candidate is then parsed
again and kept only if it re-analyses to what was intended (:func:`check_reanalysis`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable, Sequence

from robust_bench import RobustBenchError

__all__ = ["OPERATIONS", "VERB_GROUP_OPERATIONS", "STRUCTURAL_OPERATIONS", "PHENOMENA", "Refusal", "LitSetupError", "Casing",
           "Agreement",
           "VerbGroup", "Clause", "analyse", "transform", "check_reanalysis", "expected_verb_group", "UDTransformer"]

VERB_GROUP_OPERATIONS = ("past", "present", "future", "may", "negation")
STRUCTURAL_OPERATIONS = ("passive", "itcleft", "question", "swap")
OPERATIONS = VERB_GROUP_OPERATIONS + STRUCTURAL_OPERATIONS
#: Phenomenon (coverage row) -> the operations that realise it.
PHENOMENA = {"tense": ("past", "present", "future"), "modality": ("may",), "passive": ("passive",),
             "itcleft": ("itcleft",), "negation": ("negation",), "question": ("question",), "swap": ("swap",)}


class LitSetupError(RobustBenchError, RuntimeError):
    """A resource the UD backend needs (WordNet) is missing."""


class Refusal(ValueError):
    """The sentence, or this transformation of it, cannot be produced safely. ``reason`` is a short
    category used in coverage reports."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason + (f": {detail}" if detail else ""))
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# Lexicon of the verb group

_MODALS = {"will": "will", "'ll": "will", "wo": "will", "shall": "shall", "would": "would", "'d": None,
           "should": "should", "can": "can", "ca": "can", "could": "could", "may": "may", "might": "might",
           "must": "must"}
_BE = {"am": "VBP", "'m": "VBP", "is": "VBZ", "'s": "VBZ", "are": "VBP", "'re": "VBP", "was": "VBD",
       "were": "VBD", "be": "VB", "been": "VBN", "being": "VBG"}
_HAVE = {"have": "VBP", "'ve": "VBP", "has": "VBZ", "had": "VBD", "having": "VBG"}
_DO = {"do": "VBP", "does": "VBZ", "did": "VBD"}
_NEG = {"not", "n't"}
#: Derivational suffixes of common nouns, for capitalised words WordNet does not know.
_COMMON_NOUN_SUFFIXES = ("ness", "ity", "tion", "sion", "ment", "ism", "ance", "ence", "ship", "hood", "ality")
#: Tokens that may not occur inside a clefted subject.
_CLEFT_BREAKERS = {",", ";", ":", "--", "\"", "``", "''", "(", ")", "-LRB-", "-RRB-"}
#: Adverbs that take the medial position of a verb group (after the first auxiliary or a finite *be*).
_MEDIAL_ADVERBS = {"probably", "also", "always", "never", "often", "still", "now", "really", "certainly",
                   "definitely", "usually", "just", "already", "clearly", "obviously", "surely", "sometimes",
                   "generally", "actually", "indeed", "mostly", "typically", "likely", "possibly", "perhaps",
                   "rarely", "seldom", "frequently", "normally", "currently", "apparently", "undoubtedly", "even"}
#: Subject pronouns -> (person, number); *you* takes plural verb forms.
_PRONOUN_AGR = {"i": (1, "sg"), "you": (2, "pl"), "he": (3, "sg"), "she": (3, "sg"), "it": (3, "sg"),
                "we": (1, "pl"), "they": (3, "pl"), "this": (3, "sg"), "that": (3, "sg"), "these": (3, "pl"),
                "those": (3, "pl")}
_TO_ACC = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them", "who": "whom"}
_TO_NOM = {v: k for k, v in _TO_ACC.items()}
_REFLEXIVE = {"myself", "yourself", "himself", "herself", "itself", "ourselves", "yourselves", "themselves", "eachother",
              "oneself", "each", "other", "one another"}
#: Quantified and negative subjects: clefting and negating them changes scope, not just focus/polarity.
_QUANTIFIER_WORDS = {"every", "each", "all", "no", "none", "some", "any", "most", "many", "few", "several",
                     "both", "either", "neither", "everyone", "everybody", "everything", "someone", "somebody",
                     "something", "anyone", "anybody", "anything", "nobody", "nothing", "noone", "only"}
#: Verbs without a passive (middle and measure verbs, possession).
#: Negative words (adding *not* would make a double negative) and negative polarity items
#: (removing *not* would strand them: *I saw anything*).
_NEGATIVE_WORDS = {"no", "not", "n't", "nothing", "nobody", "none", "never", "neither", "nor", "nowhere", "noone",
                   "hardly", "barely", "scarcely"}
_NPIS = {"any", "anything", "anyone", "anybody", "anywhere", "ever", "yet", "either", "at all"}
_NO_PASSIVE = {"have", "lack", "resemble", "cost", "weigh", "last", "become", "get", "fit", "suit", "mean",
               "equal", "seem", "appear", "be", "contain", "hold", "involve", "include", "matter", "take",
               # stative and psych verbs whose passive no speaker uses with an ordinary agent
               # ("A cracker is wanted by you", "That was liked by me")
               "want", "like", "love", "hate", "prefer", "need", "wish", "deserve", "suffer",
               # "an innocuous history was enjoyed by", "A jumping kick is done by a child"
               "enjoy", "do"}
# what a speaker knows of their own mind: "I may love poetry", "I may look forward to ..." are no hedges
_FIRST_PERSON_STATES = {"love", "like", "hate", "enjoy", "prefer", "want", "wish", "hope", "need", "look", "care",
                        "appreciate", "miss", "adore", "dislike", "fear", "intend", "plan", "mean", "feel"}
#: Light-verb idioms (verb lemma -> object noun lemmas): the noun is not a participant, so the
#: passive and the swap break the idiom ("A face was made by him").
_IDIOMS = {"make": {"face", "sense", "difference", "living", "way", "fun", "love", "friend", "peace", "sure", "point",
                    "mind", "move", "deal", "effort", "use", "page", "headline", "news"},
           "take": {"place", "part", "care", "advantage", "look", "time", "turn", "step", "chance", "break", "seat",
                    "note", "notice", "charge", "hold", "shape", "effect", "action", "aim", "breath", "risk"},
           "pay": {"attention", "visit", "tribute", "heed", "price"},
           "give": {"way", "rise", "birth", "hand", "try", "shot", "thought", "chase", "damn", "credit"},
           "have": {"fun", "time", "look"}, "catch": {"breath", "eye", "sight"},
           "lose": {"temper", "mind", "way", "track", "sight", "touch", "heart", "face"},
           "keep": {"track", "touch", "eye", "pace", "mind", "word", "cool"}, "hold": {"breath", "tongue"},
           "shake": {"head", "hand"}, "nod": {"head"}, "raise": {"eyebrow"}, "roll": {"eye"},
           "do": {"job", "trick", "best", "thing"}, "run": {"risk"}, "bear": {"mind"}, "lend": {"hand"},
           "close": {"door"}, "open": {"door"}, "bat": {"eye", "eyelid"}, "lead": {"way"},
           "let": {"yell", "cry", "scream", "sigh", "breath", "laugh", "groan", "shout", "gasp", "whistle"}}
#: Verbs of belief, perception and feeling that, with a first-person subject in the present, are
#: hedges or performatives ("I guess", "I hope", "I see"): a tense or modal on them is not
#: English ("I may guess I read ...", "I will hope ...").
_ATTITUDE_VERBS = {"guess", "think", "know", "see", "hope", "suspect", "believe", "suppose", "mean", "bet", "wonder",
                   "feel", "understand", "assume", "reckon", "imagine", "doubt", "expect", "agree", "admit",
                   "promise", "swear", "wish", "say", "tell", "fear", "trust", "presume", "gather", "figure",
                   "realize", "realise", "thank", "apologize", "apologise", "recommend", "suggest", "insist",
                   "regret", "confess", "mind", "declare", "note", "add", "remember", "forget"}
#: Adjectives of the same performative frames ("I am happy to report", "We are pleased to tell you").
_ATTITUDE_ADJECTIVES = {"happy", "pleased", "glad", "sorry", "sure", "certain", "afraid", "delighted", "proud",
                        "honored", "honoured", "excited", "thrilled", "grateful", "thankful", "confident", "aware",
                        "convinced", "positive", "delight", "surprised", "amazed", "shocked", "disappointed",
                        "worried", "concerned", "curious"}
#: Epistemic adverbs: *may* beside them stacks two modalities ("may probably never be").
_EPISTEMIC_ADVERBS = {"probably", "possibly", "perhaps", "maybe", "likely", "certainly", "surely", "definitely",
                      "undoubtedly", "apparently", "presumably", "doubtless", "obviously", "clearly", "evidently",
                      "supposedly", "allegedly", "necessarily", "conceivably"}
#: Verbs of saying: after reported speech ("' Not entirely , ' I snapped") they are a reporting tag,
#: which takes no modal, and with *may* in the present they read as permission ("Time may claim").
# heads of specificational subjects ("The whole point is speed"): no cleft focus
_DISCOURSE_MARKERS = {"yeah", "yes", "no", "well", "oh", "so", "now", "um", "uh", "um-hum", "uh-huh", "okay", "ok",
                      "right", "anyway", "like", "and", "but", "plus", "hey", "ah", "sir", "please"}
_FLOATING_QUANTIFIERS = {"both", "all", "each"}
_SPECIFICATIONAL_NOUNS = {"point", "thing", "problem", "question", "issue", "idea", "goal", "aim", "purpose", "reason",
                          "result", "fact", "truth", "answer", "key", "trick", "plan", "solution", "concern", "hope",
                          "rule", "difference", "advantage", "benefit", "danger", "conclusion", "lesson", "message",
                          "objective", "priority", "task", "challenge", "secret", "trouble", "catch", "upshot"}
_SPEECH_VERBS = {"say", "tell", "ask", "reply", "answer", "claim", "state", "report", "announce", "explain", "add",
                 "shout", "whisper", "snap", "cry", "mutter", "murmur", "insist", "note", "write", "respond",
                 "declare", "exclaim", "continue", "agree", "admit", "warn", "argue", "suggest", "observe"}
#: Positive polarity items: adding *not* beside them is not English ("have not already described").
_PPIS = {"already", "still", "some", "somewhat", "rather", "pretty", "fairly", "quite", "too", "also", "only",
         "someone", "something", "somebody", "somewhere"}
#: Additive adverbs: an it-cleft asserts exclusiveness, which they contradict ("It is X that also ...").
_ADDITIVE_ADVERBS = {"also", "too", "either", "likewise", "additionally"}
#: Time adverbials that tie a clause to the speech time (no past, no future) or to the past.
_NOW_WORDS = {"now", "currently", "nowadays", "presently", "today", "tonight", "tomorrow"}
_PAST_WORDS = {"ago", "yesterday", "formerly", "previously", "once"}
#: Temporal subordinators: a clause they introduce shares the main clause's tense ("as they spend").
_TEMPORAL_MARKS = {"as", "when", "while", "whenever", "until", "till", "before", "after", "once", "since"}
#: Irregular participles lemminflect does not give (it gives *born*, the birth sense only).
_VBN_OVERRIDES = {"bear": "borne"}
#: Focus adverbs: passivisation moves their focus ("He only ate X" -> "X was only eaten by him").
_FOCUS_ADVERBS = {"only", "even", "merely", "just", "simply", "solely"}
#: Possessive determiners -> the subject pronouns they can be bound by.
_POSSESSIVE_BINDERS = {"my": {"i"}, "our": {"we"}, "your": {"you"}, "his": {"he"}, "her": {"she"}, "its": {"it"},
                       "their": {"they"}}
#: Human collective nouns WordNet files under groups rather than person.n.01.
_PASSIVE_AGENT_PRONOUNS = {"it", "we", "they", "you", "one", "i"}     # "can not be overemphasized by me"
# prepositions whose phrase after an object more often belongs to the verb ("exchange ideas on
# the website", "announced plans at the meeting"): such an object is not moved into a passive subject
_QUANTITY_ADJECTIVES = {"many", "much", "several", "multiple", "numerous", "enough", "few"}
_VERBAL_PREPOSITIONS = {"on", "at", "during", "before", "after", "since", "until", "through", "throughout",
                        "across", "via", "within", "without", "despite", "from", "into", "onto", "toward", "towards"}
_PERSON_COLLECTIVES = {"people", "folk", "folks", "staff", "crowd", "audience", "public", "family", "team"}
#: Stative verbs: a tense change on them reads as a change of a lasting state or a generic truth
#: ("Penrith and Blencathra will also be Celtic names"; "The book will contain ..."), which makes
#: the p;f / f;p pair incoherent rather than about two events (issue 31, decision 3).
_STATIVE_VERBS = {"contain", "consist", "include", "comprise", "belong", "own", "possess", "resemble", "equal",
                  "mean", "represent", "require", "depend", "exist", "deserve", "cost", "weigh", "measure",
                  "know", "understand", "believe", "seem", "appear", "matter", "involve", "lack", "concern",
                  "constitute", "differ", "remain", "border", "span", "house", "feature", "boast"}
#: Verbs of placement and caused motion, whose place or path after the object a by-phrase would split
#: off ("A roof is being put by a man on a beach house").
_PLACEMENT_VERBS = {"put", "place", "set", "lay", "pour", "throw", "toss", "push", "pull", "move", "bring", "take",
                    "send", "hang", "stick", "insert", "drop", "lift", "carry", "drag", "roll", "kick", "hit", "spray",
                    "splash", "pass", "hand", "load", "spread", "rub", "apply", "lead", "guide", "ride", "drive"}
#: Copular predicates of place and size, lasting properties of things.
_LASTING_PREDICATES = {"away", "far", "near", "close", "located", "situated", "long", "wide", "high", "tall", "deep",
                       "big", "large", "small", "old", "north", "south", "east", "west"}
#: Relations whose subtree is outside the scope of an operator on the main verb group: adverbial
#: clauses (but a purpose infinitive), appositions, parentheticals and discourse, and (in
#: :func:`analyse`) relative and participle clauses set off by a comma: their content stays asserted
#: or presupposed under *may*.
_OUTSIDE_SCOPE = {"advcl", "appos", "parataxis", "discourse", "vocative", "dislocated", "list", "csubj", "reparandum"}
#: Parts of speech whose lemmas carry content, for the scope check of m;o.
_CONTENT_POS = {"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"}
_LIGHT_LEMMAS = {"be", "have", "do", "not", "also", "so", "very", "just", "then", "there", "here", "now", "only",
                 "even", "still", "too", "more", "most", "much", "many"}
#: Relations every UD English parser has and the ClearNLP scheme of spaCy's en_core_web_* lacks.
_UD_RELATIONS = {"obj", "cop", "nsubj:pass", "aux:pass"}
_PERSON_PRONOUNS = {"he", "she", "i", "you", "we", "they", "someone", "somebody", "everyone", "everybody"}


@dataclass(frozen=True)
class Agreement:
    """Person (1, 2, 3) and number (``"sg"``, ``"pl"``) of a subject."""

    person: int
    number: str


_3SG = Agreement(3, "sg")


@dataclass(frozen=True)
class VerbGroup:
    """The main clause's verb group, abstracted from its surface.

    ``tense`` is ``past``, ``present``, ``future`` (modal *will*/*shall*) or ``modal`` (any other
    modal, kept in ``modal``); ``lemma`` is the main verb (``be`` for a copula).
    """

    lemma: str
    tense: str
    modal: str | None = None
    perfect: bool = False
    progressive: bool = False
    passive: bool = False
    negated: bool = False
    copula: bool = False
    #: the main verb as written and its PTB tag: a regenerated group that needs the same form
    #: keeps it (learnt, born), whatever lemminflect's first form is
    surface: tuple[str, str] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Tok:
    """An output token: its text, whether a space precedes it, and whether it may be lowercased
    when it stops being sentence-initial."""

    text: str
    space: bool = True
    proper: bool = False


@dataclass(frozen=True)
class Clause:
    """A sentence accepted by :func:`analyse`.

    Token spans are half-open ``[start, end)`` indices into ``toks``; ``chain`` lists the
    indices of the verb group (auxiliaries, negation, main verb or copula) and ``interior`` the
    adverbs inside it.
    """

    text: str
    toks: tuple[Tok, ...]
    subject: tuple[int, int]
    agreement: Agreement
    expletive: bool
    subject_pronoun: str | None
    subject_is_person: bool
    subject_quantified: bool
    chain: tuple[int, ...]
    interior: tuple[int, ...]
    verb_group: VerbGroup
    obj: tuple[int, int] | None
    obj_pronoun: str | None
    obj_agreement: Agreement | None
    obj_refusal: str | None
    final_punct: int | None
    never: bool
    negative_words: bool = False
    npis: bool = False
    lower_start: bool = False
    subject_adverb: bool = False
    tense_refusal: str | None = None
    epistemic_adverb: bool = False
    cleft_refusal: str | None = None
    tense_only_refusal: str | None = None
    past_refusal: str | None = None
    finite_complement: bool = False
    bare_existential: bool = False
    now_bound: bool = False
    past_bound: bool = False
    speech_verb: bool = False
    subject_negative: bool = False
    other_negatives: bool = False
    ppis: bool = False
    coordinated_predicate: bool = False
    focus_interior: bool = False
    not_even: bool = False
    preverbal_adverb: bool = False
    subject_lemmas: frozenset = frozenset()
    subject_head: str | None = None
    quantified_after_verb: bool = False
    coordinated_finite: bool = False
    modifier_lemmas: frozenset = frozenset()
    predicate_lemma: str | None = None
    existential_or_exist: bool = False
    stative_refusal: str | None = None
    indefinite_subject: bool = False
    scope_lemmas: frozenset = frozenset()
    outside_lemmas: frozenset = frozenset()


# ---------------------------------------------------------------------------------------------
# Morphology

def _tag(token) -> str:
    return token.tag_.split("_")[0]


@lru_cache(maxsize=50_000)
def _inflect(lemma: str, tag: str) -> str:
    from lemminflect import getInflection

    if tag == "VBN" and lemma in _VBN_OVERRIDES:
        return _VBN_OVERRIDES[lemma]
    forms = getInflection(lemma, tag=tag)
    if not forms:
        raise Refusal("no inflection", f"{lemma}/{tag}")
    if tag == "VBN":
        # lemminflect merges homographs: "relay" gets the participle of re-lay ("relaid"), which it
        # also lists as a second past form after the regular one. A participle that is only an
        # alternative past form yields to the regular past (relayed); shown, proven stay.
        past = getInflection(lemma, tag="VBD")
        if forms[0] in past[1:] and past[0].endswith("ed"):
            return past[0]
    return forms[0]


def _be(tense: str, agr: Agreement) -> str:
    if tense == "present":
        return "am" if agr == Agreement(1, "sg") else "is" if agr.number == "sg" and agr.person == 3 else "are"
    return "was" if agr.number == "sg" and agr.person != 2 else "were"


def _finite(lemma: str, tense: str, agr: Agreement) -> str:
    if lemma == "be":
        return _be(tense, agr)
    if tense == "past":
        return _inflect(lemma, "VBD")
    return _inflect(lemma, "VBZ" if agr == _3SG else "VB")


def realise_verb_group(vg: VerbGroup, agr: Agreement, *, question: bool = False) -> list[str]:
    """Surface words of a verb group, finite word first.

    Order and forms follow English auxiliary syntax: modal, perfect *have* (+ past participle),
    progressive *be* (+ present participle), passive *be* (+ past participle), main verb.
    Negation and questions without an auxiliary take do-support; *not* follows the first word.

    Parameters
    ----------
    vg : VerbGroup
    agr : Agreement
        The subject's person and number (finite forms agree with it).
    question : bool
        Whether the first word will be inverted (forces do-support on a lone lexical verb).

    Returns
    -------
    list of str

    Raises
    ------
    Refusal
        If ``lemminflect`` has no form for the verb.
    """
    # (lemma, role) of each element, in English auxiliary order
    chain = [(lemma, role) for lemma, role, present in ((vg.modal, "modal", bool(vg.modal)),
                                                         ("have", "perf", vg.perfect),
                                                         ("be", "prog", vg.progressive),
                                                         ("be", "pass", vg.passive)) if present]
    chain.append((vg.lemma, "main"))
    if len(chain) == 1 and vg.lemma != "be" and (vg.negated or question):
        chain.insert(0, ("do", "do"))
    elems, roles = [c[0] for c in chain], [c[1] for c in chain]
    words = []
    prev = None
    for lemma, role in zip(elems, roles):
        if prev is None:
            words.append(lemma if role == "modal" else _finite(lemma, vg.tense, agr))
        else:
            tag = {"modal": "VB", "do": "VB", "perf": "VBN", "prog": "VBG", "pass": "VBN"}[prev]
            words.append(lemma if tag == "VB" else ("been" if lemma == "be" and tag == "VBN" else
                                                    "being" if lemma == "be" and tag == "VBG" else
                                                    _inflect(lemma, tag)))
        if role == "main" and vg.surface and lemma != "be":
            form, tag = vg.surface
            want = ("VBN" if prev in ("perf", "pass") else "VBG" if prev == "prog" else "VB") if prev else (
                "VBD" if vg.tense == "past" else None)
            if want == tag:
                words[-1] = form
        prev = role
    if vg.negated:
        words.insert(1, "not")
    return words


# ---------------------------------------------------------------------------------------------
# Analysis

def _agreement(head) -> Agreement:
    low = head.text.lower()
    if low in _PRONOUN_AGR:
        return Agreement(*_PRONOUN_AGR[low])
    if any(c.dep_ == "conj" for c in head.children) and any(c.lower_ == "and" for c in head.subtree):
        return Agreement(3, "pl")
    if "Plur" in head.morph.get("Number") or _tag(head) in ("NNS", "NNPS"):
        return Agreement(3, "pl")
    if head.pos_ == "NOUN":
        # a tagger that calls "monarchs" singular: the word is the plural form of another lemma
        from lemminflect import getAllLemmas, getInflection

        if any(lem != low and low in getInflection(lem, tag="NNS") and low not in getInflection(lem, tag="NN")
               for lem in getAllLemmas(low, upos="NOUN").get("NOUN", ())):
            return Agreement(3, "pl")
    return _3SG


def _is_person(head) -> bool:
    if any(c.dep_ == "conj" and not _is_person(c) for c in head.children):
        return False                  # "these people and their successes" takes "that"
    low = head.text.lower()
    if head.pos_ == "PRON":
        return low in _PERSON_PRONOUNS
    if head.pos_ == "PROPN":
        # a PER entity whose name part is a known first name ("Jon", "Mr. Hastings"); a small NER
        # calls venues and titles PER ("the Grill"), and "that" is always a correct cleft relative
        from robust_bench.text.nlp import map_entity_label

        span = [t for t in head.subtree if t.pos_ == "PROPN"]
        return map_entity_label(head.ent_type_) == "PER" and any(
            t.text in _first_names() or t.text.rstrip(".") in ("Mr", "Mrs", "Ms", "Dr", "Miss", "Sir") for t in span)
    lemma = head.lemma_.lower()
    if head.i > 1 and head.doc[head.i - 1].text == "-" and head.doc[head.i - 2].head.i == head.i:
        lemma = head.doc[head.i - 2].lower_ + "-" + lemma      # "die-cutters": a machine, not a cutter
    return lemma in _PERSON_COLLECTIVES or _noun_is_person(lemma)


@lru_cache(maxsize=1)
def _first_names() -> frozenset:
    """First names of NLTK's names corpus (male and female)."""
    from nltk.corpus import names

    try:
        return frozenset(names.words("male.txt")) | frozenset(names.words("female.txt"))
    except LookupError as exc:
        raise LitSetupError("the LIT UD backend needs the NLTK names corpus to tell people from other names; "
                            "set NLTK_DATA or run `python -m nltk.downloader names`") from exc


@lru_cache(maxsize=20_000)
def _noun_is_person(lemma: str) -> bool:
    """WordNet: the first noun sense of ``lemma`` is a hyponym of person.n.01."""
    return _first_noun_sense_under(lemma, "person.n.01")


@lru_cache(maxsize=20_000)
def _first_noun_sense_under(lemma: str, synset: str) -> bool:
    """WordNet: the first noun sense of ``lemma`` is a hyponym of ``synset``."""
    from robust_bench.text.wordnet import wordnet as wn

    syns = wn.synsets(lemma, pos="n")
    if not syns:
        return False
    target = wn.synset(synset)
    return any(target in path for path in syns[0].hypernym_paths())


def _bare_singular_being(tok) -> bool:
    """A singular person or animal noun without a determiner: the headline style of SNLI captions
    ("man with an orange bandanna plays"), which a cleft or a passive cannot carry ("It is man
    that ..."). Mass and abstract nouns ("Economic growth will continue") are not refused."""
    if tok.pos_ == "PROPN" and tok.i == 0 and tok.text not in _first_names() and not any(
            c.dep_ in ("compound", "flat", "flat:name") for c in tok.children) and not tok.lower_.endswith("s") \
            and _wordnet_case(tok.lower_) == "common" and (_noun_is_person(tok.lower_) or
                                                            _first_noun_sense_under(tok.lower_, "animal.n.01")):
        return True                   # "Dog yawns": a common noun at the start, tagged as a name
    if tok.pos_ != "NOUN" or "Sing" not in tok.morph.get("Number") or tok.i > 0 and tok.text[:1].isupper() or any(
            c.dep_ in ("det", "nmod:poss", "nummod", "det:poss") for c in tok.children):
        return False
    return _is_person(tok) or _first_noun_sense_under(tok.lemma_.lower(), "animal.n.01")


def _quantified(span_tokens) -> bool:
    return any(t.lower_ in _QUANTIFIER_WORDS for t in span_tokens if t.dep_ in ("det", "nsubj", "nsubj:pass",
                                                                                  "obj", "advmod", "ROOT", "amod")
               or t.pos_ in ("PRON", "DET"))


def _parse_chain(words, tags, deps) -> VerbGroup:
    """Read tense, aspect, voice and modality off the verb-group words (last one the main verb)."""
    *auxes, main = words
    low = [w.lower() for w in auxes]
    modal = None
    perfect = progressive = passive = False
    do = False
    expect = None  # the form the next element must have
    for w, t, d in zip(low, tags[:-1], deps[:-1]):
        if expect is None and w in _MODALS:
            modal = _MODALS[w]
            if modal is None:
                raise Refusal("ambiguous contraction", w)
            expect = "VB"
        elif w in _DO and expect is None:
            do = True
            expect = "VB"
        elif w in _HAVE:
            if expect not in (None, "VB") or (expect is None and _HAVE[w] not in ("VBP", "VBZ", "VBD")):
                raise Refusal("unusual verb group", " ".join(words))
            perfect = True
            expect = "VBN"
        elif w in _BE:
            if expect is None and _BE[w] not in ("VBP", "VBZ", "VBD") or expect is not None and _BE[w] != expect:
                raise Refusal("unusual verb group", " ".join(words))
            if d == "aux:pass":
                passive = True
                expect = "VBN"
            else:
                progressive = True
                expect = "VBG"
        else:
            raise Refusal("unusual verb group", " ".join(words))
    return VerbGroup(lemma="", tense="", modal=modal, perfect=perfect, progressive=progressive, passive=passive,
                     copula=False), expect, do


def _tense_of_first(word: str, tag: str) -> str:
    w = word.lower()
    if w in _MODALS:
        m = _MODALS[w]
        return "future" if m in ("will", "shall") else "modal"
    form = _BE.get(w) or _HAVE.get(w) or _DO.get(w) or tag
    if form == "VBD":
        return "past"
    if form in ("VBZ", "VBP"):
        return "present"
    raise Refusal("no finite verb", word)


class Casing:
    """Whether a sentence-initial capitalised word is a name, so that it keeps its capital when it
    is no longer first (*It is managers that ...* but *It is John who ...*).

    Evidence, in order: (1) the corpus being transformed: a word seen capitalised after the
    first position more often than lower-cased there is a name, and the reverse a common word;
    (2) the tagger: a PROPN tagged as a person, place or geopolitical entity is a name; (3)
    WordNet: a lower-case lemma (after morphy) makes a common word, only a capitalised one
    (*Carnegie*) a name; (4) otherwise a name only if tagged PROPN and recognised as an entity
    (*Voluntariness of risks ...* is neither).

    Parameters
    ----------
    docs : iterable of spacy.tokens.Doc, optional
        The corpus, for the counts of (1).
    """

    _NAME_ENTS = {"PER", "PERSON", "LOC", "GPE", "NORP"}

    def __init__(self, docs: Iterable = ()):
        from collections import Counter

        self.capitalised: Counter = Counter()
        self.lowered: Counter = Counter()
        for doc in docs:
            self.add(doc)

    def add(self, doc) -> None:
        """Count the casing of the words of ``doc`` after its first token."""
        for t in list(doc)[1:]:
            if t.text[:1].isupper():
                self.capitalised[t.text.lower()] += 1
            elif t.text[:1].islower():
                self.lowered[t.text] += 1

    def is_name(self, tok) -> bool:
        """Whether the sentence-initial token ``tok`` (a spaCy token) is a name."""
        if not tok.text[:1].isupper():
            return False
        low = tok.text.lower()
        cap, lower = self.capitalised.get(low, 0), self.lowered.get(low, 0)
        if cap != lower:
            return cap > lower
        if tok.pos_ == "PROPN" and tok.ent_type_ in self._NAME_ENTS:
            return True
        known = _wordnet_case(low)
        if known in ("common", "name"):
            return known == "name"
        if known == "both":                 # "Democrats" / "democrats": the tagger decides
            return tok.pos_ == "PROPN"
        # unknown to WordNet: a name if tagged PROPN (misspelt and rare names: "Carneagie"),
        # unless it carries a common-noun suffix ("Voluntariness")
        return tok.pos_ == "PROPN" and not low.endswith(_COMMON_NOUN_SUFFIXES)


@lru_cache(maxsize=None)
def _wordnet_case(word: str) -> str | None:
    """``"common"`` if WordNet has ``word`` (or its morphy base form) only as a lower-case lemma,
    ``"name"`` if only as a capitalised one (*Carnegie*), ``"both"`` (*democrat*, *Democrat*), or
    ``None`` if not at all."""
    try:
        from robust_bench.text.wordnet import wordnet as wn

        lower = upper = False
        for pos in ("n", "v", "a", "r"):
            base = wn.morphy(word, pos) or word
            for syn in wn.synsets(base, pos):
                for lem in syn.lemmas():
                    if lem.name() == base:
                        lower = True
                    elif lem.name().lower() == base:
                        upper = True
        return "both" if lower and upper else "common" if lower else "name" if upper else None
    except LookupError as exc:
        raise LitSetupError("the LIT UD backend needs NLTK WordNet to tell names from common words; set "
                            "NLTK_DATA to a folder holding corpora/wordnet or run "
                            "`python -m nltk.downloader wordnet`") from exc


def analyse(doc, casing: "Casing | None" = None) -> Clause:
    """Accept or refuse one parsed sentence.

    Parameters
    ----------
    doc : spacy.tokens.Doc
        A parse with UD relations, PTB tags and morphology (any spaCy pipeline with a tagger and a
        dependency parser trained on UD English).
    casing : Casing, optional
        Decides whether a sentence-initial capitalised word is a name (kept capitalised when it
        moves, as in a cleft focus) or a common word (lowered). Default: a :class:`Casing` with
        no corpus evidence.

    Returns
    -------
    Clause

    Raises
    ------
    Refusal
        With one of the reasons: ``empty``, ``several sentences``, ``question``,
        ``no finite verb`` (fragments, imperatives, gerund roots), ``no subject``,
        ``subject after verb``, ``clausal subject``, ``coordinated clauses``,
        ``interrupted verb group``, ``unusual verb group``, ``agreement mismatch``,
        ``irregular lemma``; and, for parses whose root is not the main clause,
        ``subordinate clause taken for the main clause``, ``reduced relative clause taken for the
        main verb``, ``verb in a nominal relation``, ``finite verb before the subject``,
        ``unattached noun phrase before the subject``, ``discourse be``, ``headline casing``.

    Notes
    -----
    Some transformations are refused later, per operation, for fluency classes found by blind
    audits of real MNLI rows: tense and *may* on first-person hedges and performatives (*I guess*,
    *We are pleased to*), reporting tags, *used to*, *going to*, liking verbs with an infinitive,
    specificational copulas with a relative clause in the subject, temporal clauses and time
    adverbials of another tense; tense shifts other than present to future over a finite
    complement clause (its tense would need its own shift); *may* beside an epistemic adverb or *seem*, with *you* (permission)
    or a negative subject; negation beside other negatives or polarity items, and of an existential
    with a bare noun ("there were not costs" wants *no*); passives of stative verbs, light-verb
    idioms, objects followed by a prepositional phrase that may belong to the verb, bound or cataphoric possessives, focus adverbs, pronoun agents other
    than *he*, *she*, *I*; clefts of indefinite, numeral or specificational subjects and beside
    additive adverbs. Each is a :class:`Refusal` with its reason, counted on the card.
    """
    toks = [t for t in doc]
    if not toks or all(t.is_punct or t.is_space for t in toks):
        raise Refusal("empty")
    sents = list(doc.sents)
    if len(sents) > 1:
        raise Refusal("several sentences")
    if any(t.text == "?" for t in toks):
        raise Refusal("question")
    root = sents[0].root
    cop = [c for c in root.children if c.dep_ == "cop"]
    copula = bool(cop)
    main = cop[0] if copula else root
    if not copula and root.pos_ not in ("VERB", "AUX"):
        raise Refusal("no finite verb", "fragment")
    head = root
    auxes = sorted((c for c in head.children if c.dep_ in ("aux", "aux:pass") and c.i < main.i
                    and c.lower_ not in _NEG), key=lambda t: t.i)
    negs = [c for c in head.children if c.lower_ in _NEG and (auxes and auxes[0].i < c.i < main.i
                                                              or copula and c.i == main.i + 1)]
    if not negs and not copula and main.lower_ in _BE and main.i + 1 < len(toks) and toks[main.i + 1].lower_ in _NEG:
        # "there is not a town": parsers attach the negation of an existential be to the noun
        negs = [toks[main.i + 1]]
    chain_words = auxes + [main]
    if any(c.dep_ in ("csubj", "csubj:pass") for c in head.children):
        raise Refusal("clausal subject")
    subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubj:pass", "expl")]
    if not subjects:
        raise Refusal("no subject")
    expl = [s for s in subjects if s.dep_ == "expl" and s.lower_ == "there"]
    subj = expl[0] if expl else min(subjects, key=lambda t: t.i)
    if subj.dep_ == "expl" and subj.lower_ != "there":
        raise Refusal("no subject", "expletive it")
    first = chain_words[0]
    s_start, s_end = subj.left_edge.i, subj.right_edge.i + 1
    if s_end > first.i:
        raise Refusal("subject after verb")
    for c in head.children:
        if c.i < s_start and (c.dep_ == "mark" or (c.dep_ == "advmod" and c.tag_ == "WRB")):
            # "When I first started in the eighties you had to ...": the parse's root is a
            # subordinate clause, so the main clause is elsewhere
            raise Refusal("subordinate clause taken for the main clause", c.text)
    if any(c.dep_ == "conj" and (c.pos_ in ("VERB", "AUX") or any(g.dep_.startswith("nsubj") for g in c.children))
           for c in head.children):
        raise Refusal("coordinated clauses")
    if any(c.dep_ == "parataxis" for c in head.children):
        raise Refusal("coordinated clauses", "parataxis")
    if any(c.dep_ == "dep" and c.pos_ in ("VERB", "AUX") for c in head.children):
        raise Refusal("unattached clause")
    if any(c.pos_ == "VERB" and c.dep_ in ("obl", "obl:unmarked", "nmod", "obj", "iobj") and c.i > root.i
           and _tag(c) in ("VB", "VBP", "VBZ", "VBD") for c in head.children):
        # "Employees engaged in textile manufacturing tend to ...": a bare verb in a nominal
        # relation means the parse took a reduced relative clause for the main verb
        raise Refusal("verb in a nominal relation", " ".join(c.text for c in head.children if c.pos_ == "VERB"))
    for t in toks[:s_start]:
        if t.pos_ in ("VERB", "AUX") and _tag(t) in ("VBZ", "VBP", "VBD", "MD") and not any(
                a.dep_ == "advcl" and a.head.i == head.i for a in [t, *t.ancestors]):
            # reported speech before a reporting tag ("' Not entirely , ' I snapped"), or a parse
            # whose root is not the main clause ("Personal saving is how much income is left")
            raise Refusal("finite verb before the subject", t.text)
    for t in toks[:s_start]:
        if t.dep_.startswith("obl") and t.head.i == head.i and not any(g.dep_ == "case" for g in t.children) \
                and t.right_edge.i - t.left_edge.i >= 4:
            # "Critics praise Goodman 's abilities , the ways in which ...": a long noun phrase
            # without a preposition before the subject is a misparsed clause
            raise Refusal("unattached noun phrase before the subject", t.text)
    if any(toks[i].tag_ in ("WRB", "WP", "WDT") for i in range(max(0, s_start - 2), s_start)):
        # "Personal saving is how much income is left": the subject opens a wh-clause
        raise Refusal("subordinate clause taken for the main clause", "wh-word before the subject")
    for t in toks:
        if t.dep_ == "conj" and t.head.pos_ not in ("VERB", "AUX") and t.head.i != head.i and (
                _tag(t) in ("VBZ", "VBP", "VBD", "MD") or _tag(t) == "VB" and t.head.pos_ in ("NOUN", "PROPN")):
            # a finite verb coordinated with a noun is a misparse, and so is a bare one: "Two women stand
            # in a kitchen and wipe down trays" with "wipe" (VB) a conjunct of "kitchen" would become
            # "It was two women that stood in a kitchen and wipe down trays" (SNLI dev, blind audit v10)
            raise Refusal("coordinated clauses", t.text)
    if toks[-1].text not in (".", "!", "?", "'", '"', "''", "``", ")") and len(toks) > 1 \
            and all(t.text[:1].isupper() and t.is_alpha for t in toks[:2]):
        raise Refusal("heading or fragment")      # "Station Jesus meets his mother" (a Stations of the Cross heading)
    alpha = [t.text for t in toks if t.is_alpha and len(t.text) > 1]
    if alpha and (sum(w.isupper() for w in alpha) > len(alpha) / 2 or
                  len(alpha) >= 4 and sum(w[:1].isupper() for w in alpha[1:]) > 0.6 * (len(alpha) - 1)):
        raise Refusal("headline casing")          # "HE KNOWS ABOUT THE MINES", "What Clustering Looks Like"
    if any(toks[i].lower_ in _NEG for i in range(s_end, first.i)):
        # "Homes not located on these roads must ...": a finite verb is never negated without an
        # auxiliary, so the parse has taken a reduced relative clause for the main clause
        raise Refusal("negation without auxiliary")
    # tokens between the subject and the verb group, and inside the group: adverbs only
    span_end = max([main.i] + [n.i for n in negs])
    chain_idx = {t.i for t in chain_words} | {n.i for n in negs}
    interior = tuple(i for i in range(first.i, span_end + 1) if i not in chain_idx)
    for i in interior + tuple(range(s_end, first.i)):
        if toks[i].pos_ not in ("ADV", "PART") or toks[i].head.i != head.i:
            raise Refusal("interrupted verb group", toks[i].text)
    if copula or main.lower_ in _BE and any(c.dep_ == "expl" for c in head.children):
        # medial adverbs right after a finite copula (or existential be: "There are also dozens"
        # -> "There may also be dozens") belong to the verb group, whatever the parse
        # attaches them to: "is probably happy" -> "will probably be happy", "are also more
        # willing" -> "may also be more willing", not "may be also more willing"
        j = span_end + 1
        while (j < len(toks) and toks[j].lower_ in _MEDIAL_ADVERBS and toks[j].dep_ == "advmod"
               and (toks[j].head.i == head.i or toks[j].head.i > j)):
            interior += (j,)
            j += 1
    after = max((span_end,) + interior) + 1
    if after < len(toks) and main.lemma_ == "be" and toks[after].text in (",", ":"):
        raise Refusal("discourse be", main.text)      # "That is , businesses ..." is not a clause
    while after < len(toks) and toks[after].pos_ == "ADV":
        after += 1
    # "They 're (actually) both excited" -> not "They may be both excited": a floating quantifier
    # goes after the first auxiliary of a new group, and under negation it changes the scope
    floating = [i for i in interior if toks[i].lower_ in _FLOATING_QUANTIFIERS]
    j = max((span_end,) + interior) + 1
    while copula and j < len(toks) and (toks[j].pos_ == "ADV" or toks[j].lower_ in _FLOATING_QUANTIFIERS):
        if toks[j].lower_ in _FLOATING_QUANTIFIERS and not (j + 1 < len(toks) and toks[j + 1].lower_ in (
                "of", "the", "these", "those", "my", "our", "your", "his", "her", "their", "its")):
            floating.append(j)
        j += 1
    if floating:
        raise Refusal("floating quantifier", toks[floating[0]].text)
    if after < len(toks) and toks[after].pos_ in ("AUX", "VERB") and _tag(toks[after]) in ("VBZ", "VBP", "VBD", "MD"):
        # "The main specification tracked is the allowance ...": a finite verb right after the
        # verb group means the parse took a reduced relative clause for the main verb
        raise Refusal("reduced relative clause taken for the main verb", toks[after].text)
    ccs = [t.i for t in toks[after:] if t.dep_ == "cc" or t.lower_ in ("and", "but", "or", "yet")]
    if ccs:
        # a clause coordinated after the verb group that the parse attached to a noun ("... in
        # exchange and the entity that forfeits the property does not receive ...", ", and
        # informed headquarters"): a finite verb after the conjunction, outside a relative clause
        for t in toks[ccs[0] + 1:]:
            h = t.head if t.dep_ in ("aux", "aux:pass", "cop") else t
            embedded = h.dep_ in ("ccomp", "advcl", "acl", "acl:relcl", "xcomp", "csubj") and h.left_edge.i < ccs[0]
            if (_tag(t) in ("VBZ", "VBP", "VBD", "MD") and t.pos_ in ("VERB", "AUX") and t.dep_ != "acl:relcl"
                    and toks[t.i - 1].lower_ not in ("that", "who", "which", "whom", "whose") and not embedded
                    or _tag(t) in ("VBD", "VBN") and t.i - 1 in ccs):
                raise Refusal("coordinated clauses", t.text)
    adverbs = [toks[i].lower_ for i in interior + tuple(range(s_end, first.i))]
    epistemic = any(c.dep_ == "advmod" and c.lower_ in _EPISTEMIC_ADVERBS for c in head.children) or \
        main.lemma_ in ("seem", "appear") or \
        copula and root.lower_ in ("likely", "unlikely", "possible", "impossible", "probable", "certain", "sure", "bound")
    never = any(toks[i].lower_ == "never" for i in interior + tuple(range(s_end, first.i)))
    negative_words = any(t.lower_ in _NEGATIVE_WORDS for t in toks)
    # "I could not say much" -> not "I could say much": "much" as the verb's object or degree
    npis = any(t.lower_ in _NPIS for t in toks) or any(t.lower_ == "much" and t.head.i == head.i for t in toks)
    # the verb group
    tags = [_tag(t) for t in chain_words]
    if len(chain_words) == 1 and not copula and tags[0] in ("VB", "VBN"):
        # A root verb with a subject and no auxiliary is finite whatever the tagger says: VB is
        # then present non-3sg (VBP) and VBN a past tense (VBD) when the forms coincide.
        tags[0] = "VBP" if tags[0] == "VB" else "VBD"
    vg, expect, do = _parse_chain([t.text for t in chain_words], tags, [t.dep_ for t in chain_words])
    if copula:
        lemma = "be"
        form = _BE.get(main.lower_)
        if form is None or (expect is None and form not in ("VBP", "VBZ", "VBD")) or (expect and form != expect):
            raise Refusal("unusual verb group", main.text)
    else:
        lemma = _main_lemma(main, expect, tags[-1])
        if lemma == "be" and not vg.passive and expect is None and main.lower_ not in _BE:
            raise Refusal("unusual verb group", main.text)
        if lemma in ("have", "do", "be") and chain_words[:-1] and not any(
                c.i > main.i and c.dep_ not in ("punct", "cc", "mark", "discourse", "advcl", "parataxis")
                for c in main.children):
            raise Refusal("elliptical verb phrase", main.text)   # "they must have because ..."
        if lemma in ("have", "do") and not chain_words[:-1] and not any(
                c.i > main.i and c.dep_ not in ("punct", "cc", "mark", "discourse", "advcl", "parataxis")
                and c.lower_ not in _NEG for c in main.children):
            raise Refusal("elliptical verb phrase", main.text)   # "But fortunately they did n't ."
    tense = _tense_of_first(chain_words[0].text, tags[0])
    if do and (vg.perfect or vg.progressive or vg.passive):
        raise Refusal("unusual verb group")
    vg = replace(vg, lemma=lemma, tense=tense, negated=bool(negs), copula=copula,
                 surface=(main.text.lower(), tags[-1]) if not copula else None)
    if vg.modal and vg.modal not in ("will", "shall"):
        vg = replace(vg, tense="modal")
    elif vg.modal:
        vg = replace(vg, tense="future", modal="will")
    # agreement
    if expl:
        real = [c for c in head.children if c.dep_ in ("nsubj", "nsubj:pass") and c.i > main.i]
        if not real:
            raise Refusal("no subject", "there without a logical subject")
        agr = _agreement(real[0])
    else:
        agr = _agreement(subj)
    finite = chain_words[0].lower_
    if tense in ("present", "past") and not vg.modal:
        flem = "do" if finite in _DO else "have" if finite in _HAVE else "be" if finite in _BE else lemma
        expected = _finite(flem, tense, agr)
        alt = {"'s": "is" if flem == "be" else "has", "'re": "are", "'m": "am", "'ve": "have"}.get(finite, finite)
        if flem == "be" and tense == "past" and agr.person == 2:
            expected = "were"
        if alt != expected.lower() and not (tense == "past" and flem not in ("be",)):
            raise Refusal("agreement mismatch", f"{subj.text} ... {chain_words[0].text}")
    # "Two men cut some plastic": a past form that is also the present form for this subject
    if len(chain_words) == 1 and not copula and tense == "past" and agr != _3SG and lemma != "be":
        from lemminflect import getInflection

        past, present = getInflection(lemma, tag="VBD"), getInflection(lemma, tag="VBP")
        if past and present and past[0] == present[0]:
            raise Refusal("past or present form", main.text)
    # hedges and performatives ("I guess ...", "We are pleased to tell you ..."), and specificational
    # copulas whose subject holds a relative clause ("The last thing he wants is ..."), take no
    # tense or modal change: the embedded clause would keep the old tense or the frame breaks
    subj_pron = subj.lower_ if subj.pos_ == "PRON" and s_end - s_start == 1 else None
    clausal = any(c.dep_ in ("ccomp", "xcomp", "advcl") for c in root.children)
    no_obj = not any(c.dep_ == "obj" for c in root.children)
    attitude = (subj_pron in ("i", "we") and (
        lemma in _ATTITUDE_VERBS and (clausal or no_obj)
        or copula and root.lower_ in _ATTITUDE_ADJECTIVES and clausal)
        or subj_pron == "you" and lemma in ("know", "see", "mean") and (clausal or no_obj))   # filler "you know"
    to_xcomp = any(c.dep_ == "xcomp" and any(g.tag_ == "TO" for g in c.children) for c in root.children)
    quotes = any(t.text in ("'", "`", "``", "''", '"') for t in toks)
    tense_ref = tense_only_ref = None
    if attitude:
        tense_ref = "first-person attitude verb"
    elif copula and any(c.dep_ == "acl:relcl" for c in subj.subtree):
        tense_ref = "relative clause in the subject of be"
    elif lemma in _SPEECH_VERBS and quotes:
        tense_ref = "reporting tag"                                     # not "he may have said"
    elif lemma in ("like", "love", "hate", "prefer") and to_xcomp:
        tense_ref = "verb of liking with an infinitive"                 # not "We will like to help"
    elif lemma == "use" and main.i + 1 < len(toks) and toks[main.i + 1].lower_ == "to" and not vg.passive:
        tense_ref = "used to"                                           # not "may have used to swing"
    elif lemma == "go" and vg.progressive and to_xcomp:
        tense_ref = "going-to future"                                   # not "may be going to go"
    if any(c.dep_ == "advcl" and any(g.dep_ == "mark" and g.lower_ in _TEMPORAL_MARKS for g in c.children)
           and any(g.dep_.startswith("nsubj") for g in c.children) for c in root.children):
        # "... occurred as adults and children spend time": the temporal clause keeps its tense
        tense_only_ref = "finite temporal clause"
    elif any(t.dep_ in ("acl:relcl", "acl") and _tag(t) in ("VBZ", "VBP") or t.dep_ in ("aux", "cop") and
             t.head.dep_ in ("acl:relcl", "acl") and _tag(t) in ("VBZ", "VBP") for t in toks):
        # "A man was looking at the sign that a woman is holding": a present relative clause keeps
        # its tense when the main verb's changes
        tense_only_ref = "finite relative clause"
    past_ref = None
    if any(t.i not in chain_idx and t.pos_ in ("VERB", "AUX") and _tag(t) in ("VBZ", "VBP")
           and not any(a.dep_ == "ccomp" and a.head.i == head.i for a in (t, *t.ancestors)) for t in toks):
        # "A player went up for the shot as two men jump up to block it": any other present clause
        # (temporal, coordinated, attached to a noun) clashes with a past main verb (a future one
        # takes it: "will like it when we have a citation")
        past_ref = "present clause under a past verb"
    # "Time claims that the FBI has been seeking" -> not "Time claimed that the FBI has been
    # seeking": a finite complement clause would need its own sequence-of-tenses shift
    finite_complement = any(c.dep_ == "ccomp" and any(g.dep_.startswith("nsubj") for g in c.children)
                            for c in root.children)
    words = {t.lower_ for t in toks}
    lows = [t.lower_ for t in toks]
    now_bound = bool(words & _NOW_WORDS) or any(a in ("these", "this") and b in ("days", "year", "week", "month", "last",
                                                                                    "past", "decade", "century")
                                                for a, b in zip(lows, lows[1:]))
    past_bound = bool(words & _PAST_WORDS) or any(a == "last" and b in ("year", "week", "month", "night", "decade",
                                                                          "century", "time", "summer", "winter")
                                                  for a, b in zip(lows, lows[1:]))
    predicative_pre = any(
        (t.dep_ == "advcl" and t.head.i == head.i and not any(g.dep_.startswith("nsubj") for g in t.children))
        or (t.lower_ == "as" and t.dep_ in ("case", "mark") and t.head.pos_ in ("NOUN", "PROPN", "ADJ"))
        for t in toks[:s_start])
    cleft_ref = None
    subj_dets_early = {c.lower_ for c in subj.children if c.dep_ in ("det", "nmod:poss")}
    pred_det = {c.lower_ for c in root.children if c.dep_ in ("det", "nmod:poss")}
    if toks[s_start].lower_ in ("a", "an") or _tag(subj) == "CD" or any(
            t.pos_ in ("INTJ", "AUX") for t in toks[s_start:s_end]):
        # "It is a secret that will need two people", "It was two that was enough", "it was oh i 've
        # that never itemized": indefinite, numeral or broken subjects are no cleft focus
        cleft_ref = "indefinite or numeral subject"
    elif subj.lemma_.lower() in ("people", "folk", "folks", "child", "kid", "human") and not subj_dets_early:
        cleft_ref = "generic plural subject"         # "It is people who generally seem ..." has no contrast
    elif copula and (root.pos_ in ("DET", "PRON", "PROPN", "NUM") or after < len(toks) and toks[after].lower_ == "what"
                   or _tag(root) in ("NNP", "NNPS", "CD", "PRP", "DT")
                   or root.pos_ == "NOUN" and pred_det & {"the", "my", "our", "your", "his", "her", "its", "their"}):
        # "A relatively new technique is the sandwich", "Marina del Rey is another", "The other
        # aircraft was United 175": the subject of a specificational copula is not a cleft focus
        cleft_ref = "specificational copula"
    elif copula and any(c.dep_ == "acl:relcl" for c in subj.subtree):
        cleft_ref = "relative clause in the subject of be"   # "It is the last thing we want that is ..."
    elif copula and subj.lemma_.lower() in _SPECIFICATIONAL_NOUNS:
        cleft_ref = "specificational copula"                 # not "It is the whole point that is speed ..."
    elif subj.pos_ == "ADJ":
        cleft_ref = "adjective as subject"                   # "Obese is a compound ..." (a word mentioned)
    elif copula and (any(c.dep_ in ("ccomp", "csubj") or c.dep_ == "mark" and c.lower_ == "that" for c in root.children)
                     or any(c.dep_ == "case" and c.lower_ in ("'s", "'") for c in root.children)):
        cleft_ref = "clausal or possessive predicate"        # "It was another thing ... that was that ...", "... that are Harvelle 's"
    elif any(t.lower_ in ("other", "another", "such", "same", "further", "additional") for t in toks[s_start:s_end]):
        cleft_ref = "anaphoric subject"                      # "It is other attractions that include ..."
    elif _bare_singular_being(subj):
        cleft_ref = "bare singular noun"                     # "It is little girl that blows bubbles" (headline style)
    elif any(a in _ADDITIVE_ADVERBS for a in adverbs) or any(c.lower_ in _ADDITIVE_ADVERBS for c in root.children):
        cleft_ref = "additive adverb"                 # "It is X that also ..." contradicts the cleft
    elif predicative_pre:
        cleft_ref = "participle or as-phrase before the subject"   # "Standing , it was he who ..."
    # the object (for passive and swap)
    obj = obj_pron = obj_agr = obj_ref = None
    objs = [c for c in head.children if c.dep_ == "obj"] if not copula else []
    if copula or not objs:
        obj_ref = "no direct object"
    elif attitude:
        obj_ref = "first-person attitude verb"      # "I know X" -> not "X is known by me"
    elif subj_pron == "one":
        obj_ref = "generic subject one"             # not "A yacht can be chartered by one"
    elif subj.lemma_.lower() in ("people", "someone", "somebody", "everyone", "everybody", "folk", "folks") \
            and not subj_dets_early:
        obj_ref = "generic agent"                   # not "Fruits and vegetables are bought by people"
    elif any(a in _FOCUS_ADVERBS for a in adverbs):
        obj_ref = "focus adverb"                    # "He only ate X" -> not "X was only eaten by him"
    elif predicative_pre:
        obj_ref = "participle or as-phrase before the subject"   # not "Standing , a yell was let out by him"
    elif "than" in words:
        obj_ref = "comparison"                      # not "More time is spent by X than inventors do"
    elif any(c.dep_ == "obl" and any(g.lower_ == "by" and g.dep_ == "case" for g in c.children) for c in root.children):
        obj_ref = "by-phrase already present"       # not "defeats were suffered by X by Kurdish forces"
    elif any(t.text in _CLEFT_BREAKERS for t in toks[s_start:s_end]):
        obj_ref = "punctuation in the subject"      # "Spain under the Monarchs , Ferdinand and Isabella ,"
    elif any(c.dep_ in ("iobj", "xcomp", "ccomp") for c in head.children):
        obj_ref = "double object or complement clause"
    elif any(c.dep_ == "advcl" and _tag(c) == "VBG" for c in head.children):
        obj_ref = "participle adjunct"              # not "the drums are played by X while speaking into ..."
    elif any(t.dep_ in ("nsubj", "obj") and t.head.i == head.i and _bare_singular_being(t) for t in toks):
        obj_ref = "bare singular noun"              # "played by man with ..." (headline style)
    elif any(o.pos_ == "NOUN" and _tag(o) == "NN" and not any(g.dep_ in ("det", "nmod:poss", "nummod", "det:predet")
                                                              for g in o.children)
             and (lemma == "play" or _first_noun_sense_under(o.lemma_.lower(), "artifact.n.01")) for o in objs):
        # a bare singular count noun ("plays guitar", "rides bike") is no subject without its article:
        # not "Guitar is played by a woman"; a mass noun is ("Responsibility was borne by ...")
        obj_ref = "bare singular object"
    elif subj.pos_ != "PRON" and any(c.dep_ == "obl" and c.i > objs[0].i and any(
            g.dep_ == "case" and g.lower_ in ("with", "without") for g in c.children) for c in head.children):
        # "wearing blue hats with colored streamers" -> not "Blue hats are being worn by four
        # children with colored streamers": the phrase would attach to the agent
        obj_ref = "with-phrase after the object"
    else:
        o = objs[0]
        o_start, o_end = o.left_edge.i, o.right_edge.i + 1
        between = range(main.i + 1, o_start)
        if o_start <= main.i or any(toks[i].dep_ != "compound:prt" for i in between):
            obj_ref = "object not right after the verb"
        elif o.lower_ in _REFLEXIVE or any(t.lower_ in _REFLEXIVE for t in o.subtree):
            obj_ref = "reflexive or reciprocal object"
        elif o.pos_ not in ("NOUN", "PROPN", "PRON", "NUM") or "Yes" in o.morph.get("Poss") or len(objs) > 1 \
                or o_end < len(toks) and toks[o_end].pos_ in ("NOUN", "PROPN"):
            obj_ref = "object is not a noun phrase"
        elif any(t.tag_ == "TO" or (t.pos_ in ("VERB", "AUX") and "Inf" in t.morph.get("VerbForm")
                                     and t.dep_ in ("acl", "xcomp", "advcl"))
                 for t in o.subtree):
            # "enable CIOs to work with ..." : the "object" is an object plus an infinitival complement
            obj_ref = "infinitival complement in the object"
        elif any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") for t in o.subtree) or \
                any(t.dep_ == "cc" for t in toks[o_end:] if t.head.i == head.i):
            obj_ref = "coordinated clause"
        elif any(t.dep_ == "cc" for t in o.subtree):
            # the new subject's number rests on where the parse attached the conjunct: "passing a man
            # wearing a bandanna and girl" (singular or two people?), "licking a smaller white and
            # black dog" (with "white" taken for a noun: "... dog ... are being licked"; SNLI dev,
            # blind audit v10)
            obj_ref = "coordinated object"
        elif any(t.dep_ == "nmod" and (t.head.i != o.i or any(g.dep_ == "case" and g.lower_ in _VERBAL_PREPOSITIONS
                                                              for g in t.children))
                 for t in o.subtree):
            # "exchange ideas about X on the website": a prepositional phrase after the object may
            # belong to the verb, and moving it into the passive subject changes the meaning
            obj_ref = "prepositional phrase after the object"
        elif lemma in _PLACEMENT_VERBS and any(c.dep_ == "obl" and c.i > o.i for c in head.children):
            # "A roof is being put by a man on a beach house": the by-phrase would split the verb from
            # the place or path it needs
            obj_ref = "oblique after the object"
        elif o.lemma_.lower() in _IDIOMS.get(lemma, ()):
            obj_ref = "light-verb idiom"
        elif any(t.dep_ == "nmod:poss" and (subj_pron in _POSSESSIVE_BINDERS.get(t.lower_, ()) or
                                            subj_pron is None and t.lower_ in ("his", "her", "its", "their"))
                 for t in o.subtree):
            # "it closed its doors" -> not "its doors were closed by it"; "American 11 turned off its
            # transponder" -> not "Its transponder was turned off by American 11" (cataphora)
            obj_ref = "possessive bound by the subject"
        elif any(t.lower_ in _NEGATIVE_WORDS or t.lower_ in _NPIS for t in o.subtree) or \
                negs and _quantified(list(o.subtree)):
            obj_ref = "negative or quantified object"     # scope changes when the object moves
        elif any(t.dep_ == "compound" and any(g.dep_ in ("det", "nmod:poss") for g in t.children) or
                 t.dep_ == "amod" and t.i > o_start and toks[t.i - 1].pos_ in ("NOUN", "PROPN") and t.i < t.head.i
                 for t in o.subtree):
            # "found your mistress busy writing letters": a determiner on a compound modifier or
            # an adjective after a noun inside the "object" is an object plus a small clause
            obj_ref = "object is not one noun phrase"
        else:
            obj = (o_start, o_end)
            obj_pron = o.lower_ if o.pos_ == "PRON" and o_end - o_start == 1 else None
            obj_agr = _agreement(o)
    # what a new modal takes in its scope, and what stays outside (issue 31, decision 1): the subject
    # and material before it, adverbial, relative and appositive clauses, parentheticals
    clausal_idx: set[int] = set(range(0, s_start))
    for t in toks:
        infinitival = t.dep_ == "advcl" and any(g.tag_ == "TO" or g.lower_ == "to" for g in t.children)
        # a relative or participle clause is outside when set off by a comma (non-restrictive); a
        # purpose infinitive ("may go to buy bread") stays inside
        nonrestrictive = t.dep_ in ("acl:relcl", "acl") and t.left_edge.i > 0 and (
            toks[t.left_edge.i - 1].text in (",", "--", "-", "(")
            # a relative clause of a definite noun phrase is presupposed: "the women who bawl"
            or t.dep_ == "acl:relcl" and any(g.dep_ in ("det", "nmod:poss") and g.lower_ not in ("a", "an", "some", "any",
                                                                                               "no", "every", "each")
                                             for g in t.head.children))
        if (t.dep_ in _OUTSIDE_SCOPE and not infinitival or nonrestrictive) and t.i != head.i:
            clausal_idx |= {x.i for x in t.subtree}
    in_scope = [t for t in toks if t.i >= first.i and t.i not in clausal_idx and not s_start <= t.i < s_end]
    scope_lemmas = frozenset(content_lemmas(in_scope))
    outside_lemmas = frozenset(content_lemmas(toks[i] for i in sorted(clausal_idx)))
    # tense changes on lasting states and generic truths (issue 31, decision 3)
    subj_dets = {c.lower_ for c in subj.children if c.dep_ in ("det", "nmod:poss", "nummod")}
    bare_noun = subj.pos_ == "NOUN" and not subj_dets
    if copula and root.pos_ in ("NOUN", "PROPN") and not _is_person(subj):
        stative_ref = "classifying copula"            # "Penrith and Blencathra will also be Celtic names"
    elif copula and root.lower_ in _LASTING_PREDICATES and not _is_person(subj):
        stative_ref = "lasting property"              # "The sea will not even be three blocks away"
    elif not copula and lemma in _STATIVE_VERBS:
        stative_ref = "stative verb"                  # "The book will contain ..."
    elif lemma == "make" and vg.passive and any(c.dep_ == "obl" and any(g.dep_ == "case" and g.lower_ in ("of", "from")
                                                                        for g in c.children) for c in head.children):
        stative_ref = "lasting property"              # "The ledge will be made of a hard substance"
    elif bare_noun and vg.tense == "present" and not vg.progressive and not vg.perfect:
        stative_ref = "generic subject"               # "Dogs bark" -> not "Dogs barked"
    else:
        stative_ref = None
    # "A small container is not stuffed with ..." still asserts that a container exists: the
    # negation of a sentence with an indefinite subject is not its contradictory
    # (a bare plural takes narrow scope: "Cars are not parked outside" denies that any are)
    indefinite = (toks[s_start].lower_ in ("a", "an", "some", "several", "many", "few", "one")
                  or _tag(subj) == "CD" or subj_dets & {"a", "an", "some"}
                  or subj.lower_ in ("someone", "somebody", "something"))
    out_toks = []
    casing = casing or Casing()
    for k, t in enumerate(toks):
        space = k > 0 and bool(toks[k - 1].whitespace_)
        nxt = toks[k + 1].text if k + 1 < len(toks) else ""
        # Keep the capital of names: "I", acronyms, every capitalised word after the first, and a
        # capitalised word followed by another (multi-word names such as "Legal Services"). The
        # first word's capital is the sentence's; whether the word is a name is decided by
        # Casing (taggers call many sentence-initial plurals PROPN or an entity).
        multiword = (nxt[:1].isupper() and nxt.isalpha() and t.text[:1].isupper()
                     and t.lower_ not in _QUANTIFIER_WORDS and t.lower_ not in _QUANTITY_ADJECTIVES   # "Few Americans"
                     and t.pos_ not in ("DET", "PRON", "ADP", "CCONJ", "SCONJ", "ADV")
                     # a capitalised adjective after it ("Current Chinese leaders") makes no name of it
                     and (t.pos_ == "PROPN" or toks[k + 1].pos_ != "ADJ"))
        if k == 0:
            proper = t.text == "I" or (t.text.isupper() and len(t.text) > 1) or multiword or casing.is_name(t)
        else:
            proper = (t.pos_ == "PROPN" or bool(t.ent_type_) or t.text == "I" or (t.text.isupper() and len(t.text) > 1)
                      or t.text[:1].isupper() or multiword)
        out_toks.append(Tok(t.text, space, proper=proper))
    final = len(toks) - 1 if toks[-1].text in (".", "!") else None
    s_toks = [toks[i] for i in range(s_start, s_end)]
    return Clause(text=doc.text, toks=tuple(out_toks), subject=(s_start, s_end), agreement=agr,
                  expletive=bool(expl), subject_pronoun=subj_pron, subject_is_person=_is_person(subj),
                  subject_quantified=_quantified(s_toks),
                  chain=tuple(sorted(chain_idx)), interior=interior, verb_group=vg, obj=obj, obj_pronoun=obj_pron,
                  obj_agreement=obj_agr, obj_refusal=obj_ref, final_punct=final, never=never,
                  negative_words=negative_words, npis=npis, lower_start=toks[0].text[:1].islower(),
                  subject_adverb=toks[s_start].pos_ in ("ADV", "SCONJ"), tense_refusal=tense_ref,
                  epistemic_adverb=epistemic, cleft_refusal=cleft_ref, tense_only_refusal=tense_only_ref,
                  past_refusal=past_ref,
                  now_bound=now_bound, past_bound=past_bound, speech_verb=lemma in _SPEECH_VERBS,
                  subject_negative=any(t.lower_ in _NEGATIVE_WORDS for t in toks[s_start:s_end]),
                  other_negatives=any(t.lower_ in _NEGATIVE_WORDS for t in toks if t.i not in chain_idx),
                  ppis=any(t.lower_ in _PPIS for t in toks),
                  coordinated_predicate=any(c.dep_ == "conj" for c in root.children),
                  finite_complement=finite_complement, stative_refusal=stative_ref,
                  focus_interior=any(toks[i].lower_ in _FOCUS_ADVERBS for i in interior),
                  preverbal_adverb=s_end < first.i,
                  subject_lemmas=frozenset(content_lemmas(toks[s_start:s_end])),
                  subject_head=subj.lemma_.lower(),
                  coordinated_finite=any(c.dep_ == "conj" and _tag(c) in ("VBZ", "VBP", "VBD") for c in root.children),
                  quantified_after_verb=not expl and any(t.lower_ in _QUANTIFIER_WORDS or t.lower_ in _QUANTITY_ADJECTIVES
                                            for t in toks[max(max(chain_idx) + 1, s_end):]),
                  modifier_lemmas=frozenset(t.lemma_.lower() for t in toks if t.dep_ in ("amod", "compound", "nummod")
                                            and t.i >= first.i),
                  predicate_lemma=root.lemma_.lower() if copula else None,
                  existential_or_exist=bool(expl) or lemma == "exist",
                  not_even=any(toks[i].lower_ == "even" and i > 0 and toks[i - 1].lower_ in _NEG for i in interior)
                  or any(a.lower_ in _NEG and b.lower_ == "even" for a, b in zip(toks, toks[1:])), indefinite_subject=bool(indefinite),
                  scope_lemmas=scope_lemmas, outside_lemmas=outside_lemmas,
                  bare_existential=bool(expl) and any(
                      c.dep_ == "nsubj" and not any(g.dep_ in ("det", "nummod", "nmod:poss") or g.lower_ in _QUANTITY_ADJECTIVES
                                                     for g in c.children)
                      for c in head.children))


def content_lemmas(tokens) -> list[str]:
    """Lower-cased lemmas of the content words (nouns, verbs, adjectives, adverbs, numbers) among
    ``tokens`` (spaCy tokens), without *be*, *have*, *do* and the degree and focus adverbs."""
    return [t.lemma_.lower() for t in tokens if t.pos_ in _CONTENT_POS and t.is_alpha
            and t.lemma_.lower() not in _LIGHT_LEMMAS]


def scope_refusal(clause: Clause, hypothesis_lemmas: Iterable[str], label: int = 0, operator: str = "may", *,
                  subject: bool = True, hypothesis: "Clause | Refusal | None" = None) -> str | None:
    """Why an operator on the premise's main verb group would not give the pair the rule's label, or
    None: *may* (m;o -> neutral, Li et al. 2020 code 2a/2b), a tense change (p;f, f;p -> neutral) and
    negation (n;n, contraposition) act on what they take in their scope, so the rule holds only
    where the hypothesis rests on that (issue 31, decision 1).

    Refused: a hypothesis that shares a content word with an adverbial, relative or appositive
    clause, or material before the subject, that the predicate does not have; and, for an
    entailment, one that shares no content word with the premise's predicate (the verb group and
    what follows it), so that it rests on the subject or its modifiers, which *may* leaves
    presupposed ("the bookshop at the Gallery carries ..." still entails "There is a bookshop at
    the gallery"). A contradiction that shares only the subject is kept: its predicates clash
    ("Tuppence frowned" / "Tuppence beamed"), and *may* takes that clash in its scope, unless the
    subject is quantified ("Girl Scouting's many friends" / "just a couple of donors").

    Parameters
    ----------
    clause : Clause
        The premise.
    hypothesis_lemmas : iterable of str
        :func:`content_lemmas` of the hypothesis.
    label : int
        The pair's original label (0 entailment, 1 neutral, 2 contradiction).
    operator : str
        Named in the reason.
    hypothesis : Clause or Refusal, optional
        The analysed hypothesis: a contradiction is kept only where its subject adds no content
        word to the premise's subject and it is not about existence.
    subject : bool
        Whether to check the subject (``may`` and negation; not a tense change, whose neutral
        label holds for a hypothesis about the subject: a bookshop that carried books is not one
        that will be there).

    Returns
    -------
    str or None
    """
    hyp = set(hypothesis_lemmas)
    if hyp & (clause.outside_lemmas - clause.scope_lemmas):
        return f"hypothesis rests on a clause outside the scope of {operator}"
    if not subject:
        return None
    head = {clause.subject_head} if clause.subject_head else set()
    if int(label) == 0 and (not hyp & clause.scope_lemmas or hyp & (clause.subject_lemmas - clause.scope_lemmas - head)):
        # "A man on a concrete ledge ..." still entails "A man is on a ledge" under may
        return f"hypothesis rests on the subject, outside the scope of {operator}"
    if int(label) == 0 and isinstance(hypothesis, Clause) and hypothesis.existential_or_exist:
        # "He may stress grievances that are widely shared" still says there are grievances
        return f"existential hypothesis, which {operator} leaves presupposed"
    if int(label) == 0 and isinstance(hypothesis, Clause) and (
            hypothesis.predicate_lemma and hypothesis.predicate_lemma in clause.modifier_lemmas
            or hypothesis.subject_head and hypothesis.subject_head != clause.subject_head
            and hypothesis.subject_head in clause.scope_lemmas):
        # "A man may ride along a concrete ledge" still says the ledge is concrete: a hypothesis about
        # an argument of the premise's predicate, or about one of its modifiers, is not in may's scope
        return f"hypothesis about an argument or a modifier, which {operator} leaves presupposed"
    if int(label) == 2:
        if hyp & (clause.subject_lemmas - clause.scope_lemmas - head):
            # "A man in a blue shirt may be performing a trick" still has the shirt: "Nobody has a shirt"
            return f"contradiction may rest on a modifier of the subject, outside the scope of {operator}"
        if isinstance(hypothesis, Clause) and hypothesis.verb_group.copula and hypothesis.predicate_lemma and \
                hypothesis.predicate_lemma not in clause.scope_lemmas and clause.subject_lemmas - head:
            # "A large black and white dog may be licking ..." still is black and white: "The dog is red"
            return f"contradiction may rest on a description of the subject, outside the scope of {operator}"
        if clause.subject_quantified:
            return f"contradiction may rest on the quantified subject, outside the scope of {operator}"
        if hypothesis is None or not isinstance(hypothesis, Clause):
            return "contradiction not checked: the hypothesis has no analysable subject"
        if hypothesis.subject_lemmas - clause.subject_lemmas:
            # "A brown dog with a yellow toy" / "A black dog with a red toy": the clash is in the subject
            return f"contradiction may rest on the subject, outside the scope of {operator}"
        if hypothesis.existential_or_exist:
            # "The Encyclopedia may be progressing well" still presupposes that it exists
            return f"contradiction about existence, which {operator} leaves presupposed"
    return None


def _main_lemma(main, expect, tag) -> str:
    """The main verb's lemma, checked by re-inflection: it must give back the word as written."""
    from lemminflect import getAllLemmas

    word = main.text.lower()
    if word in _BE:
        return "be"
    if word in _HAVE:
        return "have"
    if word in _DO:
        return "do"
    # lemminflect's dictionary first: a statistical lemmatiser's guess ("recuperated" -> "recuperat")
    # re-inflects to the word as written and would give "did not recuperat"
    cands = list(getAllLemmas(word, upos="VERB").get("VERB", ()))
    if main.lemma_ and main.lemma_.lower() not in cands:
        cands.append(main.lemma_.lower())
    want = {None: (tag,), "VB": ("VB",), "VBN": ("VBN",), "VBG": ("VBG",)}[expect]
    if expect is None and tag not in ("VBD", "VBZ", "VBP"):
        raise Refusal("no finite verb", main.text)
    from lemminflect import getInflection

    for c in cands:
        if c.isalpha() and any(word in getInflection(c, tag=t) or getInflection(c, tag=t) and word == _inflect(c, t)
                               for t in want):
            return c
    raise Refusal("irregular lemma", main.text)


# ---------------------------------------------------------------------------------------------
# Transformation

def _words(clause: Clause, a: int, b: int) -> list[Tok]:
    return list(clause.toks[a:b])


def _recase(toks: list[Tok], pronoun: str | None, table: dict) -> list[Tok]:
    if pronoun and pronoun in table:
        t = toks[0]
        new = table[pronoun]
        return [Tok(new, t.space, proper=new == "I")]
    return toks


def _render(toks: Sequence[Tok], capitalise: bool = True) -> str:
    """Join tokens with their spaces. The first word is capitalised, or, for a sentence that
    began in lower case (``capitalise=False``, transcribed speech in MNLI), lowered unless it is a
    name, so the output keeps the original's casing apart from the transformed words."""
    out = []
    for k, t in enumerate(toks):
        text = t.text
        if k == 0:
            text = text[:1].upper() + text[1:] if capitalise else (text if t.proper else text[:1].lower() + text[1:])
        out.append((" " if k and t.space else "") + text)
    return "".join(out)


def _lower_first(toks: list[Tok]) -> list[Tok]:
    if toks and not toks[0].proper:
        t = toks[0]
        return [Tok(t.text[:1].lower() + t.text[1:], True, t.proper)] + toks[1:]
    if toks:
        return [Tok(toks[0].text, True, toks[0].proper)] + toks[1:]
    return toks


def _new(words: Iterable[str]) -> list[Tok]:
    return [Tok(w) for w in words]


def _verb_group_tokens(chain: list[str], clause: Clause) -> list[Tok]:
    """The regenerated verb group with the clause's adverbs in their standard positions.

    * A manner adverb that stood right before the main verb, after the last auxiliary (*is well
      designed*), stays right before the main verb: *will be well designed*.
    * A medial adverb (:data:`_MEDIAL_ADVERBS`: *probably*, *always*, *also*, *already* ...), or
      any adverb after an earlier auxiliary, goes after the first auxiliary (and *not*):
      *was probably designed*, *can always be explained*.
    * An adverb before the old verb group (*I now submit*, *He also received*, *He probably has
      left*) goes after the first word of a new group of several words, before its *not* so its
      scope is kept (*is now submitted*, *was also received*, *will probably have left*, *I
      really wasn't* -> *I may really not have been*); it stays before a one-word group.
    * A one-word group that is a form of *be* takes every adverb after it (*was probably happy*),
      and the medial adverbs after a finite copula move with it (*are also more willing* -> *may
      also be more willing*).

    One placement is returned: the LM does not choose adverb positions (Quirk et al., 1985, §8.20:
    medial position follows the first auxiliary; manner adverbs precede the participle).
    """
    out = _placed_verb_group(chain, clause)
    # an unchanged finite auxiliary keeps its contracted negation: "It is your man that would n't
    # have remained ...", not "would not"
    first = clause.toks[clause.chain[0]].text.lower()
    if any(clause.toks[i].text.lower() == "n't" for i in clause.chain) and len(chain) > 1 and chain[0].lower() == first:
        for k in range(len(out) - 1):
            if out[k].text.lower() == first and out[k + 1].text == "not":
                out[k + 1] = Tok("n't", True, False)
                break
    return out


def _placed_verb_group(chain: list[str], clause: Clause) -> list[Tok]:
    def tok(a: Tok) -> Tok:
        return Tok(a.text, True, a.proper)

    s1 = clause.subject[1]
    first_chain = clause.chain[0]
    pre = [tok(a) for a in clause.toks[s1:first_chain]]
    aux_idx = [i for i in clause.chain if clause.toks[i].text.lower() not in _NEG]
    before_main = aux_idx[-2] if len(aux_idx) > 1 else first_chain - 1
    near_main = [tok(clause.toks[i]) for i in clause.interior
                 if i > before_main and clause.toks[i].text.lower() not in _MEDIAL_ADVERBS]
    after_first = [tok(clause.toks[i]) for i in clause.interior
                   if i <= before_main or clause.toks[i].text.lower() in _MEDIAL_ADVERBS]
    head = 2 if len(chain) > 1 and chain[1] == "not" else 1
    if chain[-1].lower() in _NEG or (len(chain) == 1 and chain[0].lower() in _BE):
        # a finite copula, negated or not: medial position after it (*was (not) probably happy*)
        return _new(chain) + pre + after_first + near_main
    if len(chain) == 1:
        return pre + after_first + near_main + _new(chain)
    middle = _new(chain[head:-1])
    if pre:
        # an adverb before the old group goes to the medial position of the new one, before its
        # negation so that its scope is kept: "I really wasn't" -> "I may really not have been"
        return _new(chain[:1]) + pre + _new(chain[1:head]) + after_first + middle + near_main + _new(chain[-1:])
    return _new(chain[:head]) + after_first + middle + near_main + _new(chain[-1:])


def _apply_verb_ops(clause: Clause, ops: Sequence[str]) -> VerbGroup:
    vg = clause.verb_group
    for op in ops:
        if op in ("past", "present", "future", "may") and clause.tense_refusal or \
                op == "negation" and clause.tense_refusal == "first-person attitude verb":
            raise Refusal(clause.tense_refusal)    # "i do n't know she said" -> not "i know she said"
        if op in ("future", "may") and vg.progressive and vg.passive:
            raise Refusal("progressive passive after a modal")     # not "may be being sought"
        if op in ("past", "present", "future"):
            if vg.tense == "modal":
                raise Refusal("modal verb group", vg.modal or "")
            if vg.tense == op:
                raise Refusal(f"already {op}")
            if clause.tense_only_refusal:
                raise Refusal(clause.tense_only_refusal)
            if op == "past" and clause.past_refusal:
                raise Refusal(clause.past_refusal)
            if clause.stative_refusal and op in ("past", "future"):
                raise Refusal(clause.stative_refusal)
            if clause.coordinated_finite:
                raise Refusal("coordinated predicate")            # not "smoked a cigarette and ties a bag"
            if clause.finite_complement and not (vg.tense == "present" and op == "future"):
                raise Refusal("finite complement clause")
            if op == "past" and clause.now_bound or op == "future" and (clause.now_bound or clause.past_bound) \
                    or op == "present" and clause.past_bound:
                raise Refusal("time adverbial of another tense")    # not "It was now ...", "will ... ago"
            if op == "future" and vg.perfect:
                raise Refusal("future perfect")                     # "We will have provided an invoice" reads as a guess
            vg = replace(vg, tense=op, modal="will" if op == "future" else None)
        elif op == "may":
            if vg.tense == "modal":
                raise Refusal("modal verb group", vg.modal or "")
            if clause.epistemic_adverb:
                raise Refusal("epistemic adverb")                 # not "may probably never be"
            if clause.subject_pronoun == "you":
                raise Refusal("may reads as permission")          # "You may never call"
            if clause.subject_pronoun in ("i", "we") and vg.lemma in _FIRST_PERSON_STATES:
                raise Refusal("first-person may on a mental state")   # not "I may just really not have ever loved poetry"
            if clause.speech_verb and vg.tense == "present":
                raise Refusal("may reads as permission")          # "Time may claim that ..."
            if clause.subject_negative or clause.subject_quantified and clause.never or "few" in clause.subject_lemmas:
                raise Refusal("negative subject")                 # not "No one may have been there", "Few X may have"
            if clause.now_bound and vg.tense == "past":
                raise Refusal("time adverbial of another tense")
            if clause.coordinated_predicate:
                raise Refusal("coordinated predicate")            # "may have been trained and therefore were"
            if clause.focus_interior:
                raise Refusal("focus adverb in the verb group")   # "was just right" -> not "may just have been right"
            if vg.negated and clause.other_negatives:
                raise Refusal("negative concord")                 # "the nurses may not be no ..."
            vg = replace(vg, modal="may", perfect=vg.perfect or vg.tense == "past", tense="modal")
        elif op == "negation":
            if vg.modal == "must" and not vg.negated:
                raise Refusal("must not is a prohibition")        # not the negation of "must"
            if clause.coordinated_predicate:
                raise Refusal("coordinated predicate")            # "is not well designed and the right size"
            if clause.never:
                raise Refusal("already negative (never)")
            if clause.subject_quantified:
                raise Refusal("quantified subject")
            if not vg.negated and clause.preverbal_adverb and not vg.modal and not vg.perfect and not vg.progressive \
                    and not vg.passive and vg.lemma != "be":
                raise Refusal("adverb before do-support")         # not "People do generally not seem"
            if not vg.negated and clause.quantified_after_verb:
                raise Refusal("quantifier after the verb")        # "not shopping for many things" reads as few
            if not vg.negated and clause.indefinite_subject:
                raise Refusal("indefinite subject")               # "A container is not stuffed" keeps a container
            if not vg.negated and clause.negative_words:
                raise Refusal("negative word in the sentence")
            if vg.negated and (clause.npis or clause.not_even):
                raise Refusal("negative polarity item")           # "is not even" -> not "is even"
            if vg.negated and clause.other_negatives:
                raise Refusal("negative concord")                 # not "... -- neither can I"
            if not vg.negated and clause.ppis:
                raise Refusal("positive polarity item")           # not "have not already described"
            if not vg.negated and clause.npis:
                raise Refusal("free-choice any")                  # "in any of the ways" changes scope
            if not vg.negated and clause.expletive and clause.bare_existential:
                raise Refusal("existential there takes no")       # not "There were not indirect costs"
            vg = replace(vg, negated=not vg.negated)
    return vg


def transform(clause: Clause, ops: Sequence[str]) -> list[str]:
    """All surface candidates of ``clause`` after the operations ``ops``.

    Parameters
    ----------
    clause : Clause
    ops : sequence of str
        Verb-group operations (:data:`VERB_GROUP_OPERATIONS`), in order, and at most one
        structural operation (:data:`STRUCTURAL_OPERATIONS`), applied last.

    Returns
    -------
    list of str
        Distinct candidates in a fixed order; at least one.

    Raises
    ------
    Refusal
        When an operation does not apply (see the module docstring).
    ValueError
        For an unknown operation or two structural operations.
    """
    unknown = [o for o in ops if o not in OPERATIONS]
    if unknown:
        raise ValueError(f"unknown LIT operation(s) {unknown}; known: {list(OPERATIONS)}")
    structural = [o for o in ops if o in STRUCTURAL_OPERATIONS]
    if len(structural) > 1:
        raise ValueError(f"at most one structural operation, got {structural}")
    vg = _apply_verb_ops(clause, [o for o in ops if o in VERB_GROUP_OPERATIONS])
    op = structural[0] if structural else None
    s0, s1 = clause.subject
    first_chain = clause.chain[0]
    last_chain = max(clause.chain + clause.interior)
    pre = _words(clause, 0, s0)
    subj = _words(clause, s0, s1)
    pre_adv = _words(clause, s1, first_chain)
    adverbs = [clause.toks[i] for i in clause.interior]
    rest = _words(clause, last_chain + 1, len(clause.toks))
    agr = clause.agreement
    if op == "question":
        chain = realise_verb_group(vg, agr, question=True)
        head = 1
        rest_q = rest[:-1] if clause.final_punct is not None else rest
        after = chain[head:]
        neg = 1 if after[:1] == ["not"] else 0
        verb = _new(after[:neg]) + [Tok(a.text, True, a.proper) for a in pre_adv + adverbs] + _new(after[neg:])
        body = _lower_first(subj) + verb + rest_q + [Tok("?", clause.toks[-1].space if clause.final_punct
                                                          is not None else False)]
        lead = _new(chain[:head])
        return _dedupe([pre + ([Tok(lead[0].text, True)] if pre else lead) + body], not clause.lower_start)
    if op in ("passive", "swap"):
        if clause.expletive:
            raise Refusal("expletive subject")
        if clause.obj is None:
            raise Refusal(clause.obj_refusal or "no direct object")
        if vg.passive:
            raise Refusal("already passive")
        if op == "passive" and vg.lemma in _NO_PASSIVE:
            raise Refusal("verb without passive", vg.lemma)
        if op == "passive" and vg.progressive and vg.modal:
            raise Refusal("progressive passive after a modal")
        if op == "passive" and clause.subject_pronoun in _PASSIVE_AGENT_PRONOUNS:
            raise Refusal("pronoun agent")                        # not "is served by us", "are featured by it"
        if clause.subject_pronoun in ("who", "what", "which", "that"):
            raise Refusal("relative or interrogative subject")
        o0, o1 = clause.obj
        obj = _words(clause, o0, o1)
        new_subj = _recase(obj, clause.obj_pronoun, _TO_NOM)
        old_subj = _lower_first(_recase(subj, clause.subject_pronoun, _TO_ACC))
        between = rest[:o0 - last_chain - 1]
        after = rest[o1 - last_chain - 1:]
        if op == "passive":
            vg = replace(vg, passive=True)
            chain = realise_verb_group(vg, clause.obj_agreement)
            tail = between + [Tok("by")] + old_subj + after
        else:
            chain = realise_verb_group(vg, clause.obj_agreement)
            tail = between + old_subj + after
        new_subj = [Tok(new_subj[0].text, False if not pre else True, new_subj[0].proper)] + new_subj[1:]
        return _dedupe([pre + new_subj + _verb_group_tokens(chain, clause) + tail], not clause.lower_start)
    chain = realise_verb_group(vg, agr)
    if op == "itcleft":
        if clause.expletive:
            raise Refusal("expletive subject")
        if clause.subject_pronoun in ("i", "you", "we", "it", "this", "that", "there", "one", "who", "what", "they"):
            # "it is they who do not allow ...": "they" is often vague or not a person
            raise Refusal("subject pronoun cannot be clefted", clause.subject_pronoun)
        if clause.subject_quantified:
            raise Refusal("quantified subject")
        if clause.cleft_refusal:
            raise Refusal(clause.cleft_refusal)
        if any(t.text in _CLEFT_BREAKERS for t in clause.toks[s0:s1]):
            # "The more pieces in a marker , the more effort ...": a comma or quotation inside the
            # span means the parse has taken more than a noun phrase for the subject
            raise Refusal("punctuation in the subject")
        if clause.subject_adverb:
            raise Refusal("adverb at the start of the subject")   # "Still Bork waited" -> not "It was still Bork"
        if s0 > 4:
            # only a short introductory adverbial ("For example ,", "In 1990 ,") may precede the
            # cleft; longer material is a subordinate clause, a correlative or reported speech
            raise Refusal("long material before the subject")
        if pre and pre[-1].text != ",":
            raise Refusal("material before the subject")
        if any(t.text.lower() in _DISCOURSE_MARKERS for t in pre):
            raise Refusal("discourse marker before the subject")   # not "Yeah , it is he who is down"
        # the cleft's be is past for a past clause, else present ("It is the museum that will be
        # designed"; "It will be the museum that will be designed" doubles the future)
        be = "was" if vg.tense == "past" else "is"
        # "that" first: the offline build takes the first candidate, and "that" is right for any
        # focus, while "who" on a misjudged non-person is not ("It was F-15 fighters who ..."); but
        # "who" after "he" and "she" ("It was he who sat ...")
        rels = (["who", "that"] if clause.subject_pronoun in ("he", "she") else
                ["that", "who"] if clause.subject_is_person else ["that"])
        verb = _verb_group_tokens(chain, clause)
        outs = [pre + [Tok("It" if not pre else "it", bool(pre)), Tok(be)] + _lower_first(subj) + [Tok(rel)] + verb + rest
                for rel in rels]
        return _dedupe(outs, not clause.lower_start)
    if vg == clause.verb_group:
        raise Refusal("no change")
    return _dedupe([pre + subj + _verb_group_tokens(chain, clause) + rest], not clause.lower_start)


def _dedupe(outs: list[list[Tok]], capitalise: bool = True) -> list[str]:
    seen = []
    for toks in outs:
        s = _render(toks, capitalise)
        if s not in seen:
            seen.append(s)
    return seen


# ---------------------------------------------------------------------------------------------
# Verification by re-analysis

def _span_text(toks: Sequence[Tok], a: int, b: int) -> str:
    return " ".join(t.text for t in toks[a:b]).lower()


def _tail(clause: Clause) -> list[str]:
    """Words after the verb group (and its adverbs), final punctuation included."""
    return [t.text for t in clause.toks[max(clause.chain + clause.interior) + 1:]]


def expected_verb_group(clause: Clause, ops: Sequence[str]) -> VerbGroup:
    """The verb group ``ops`` should produce on ``clause`` (tense, modality, aspect, voice, polarity)."""
    vg = _apply_verb_ops(clause, [o for o in ops if o in VERB_GROUP_OPERATIONS])
    if "passive" in ops:
        vg = replace(vg, passive=True)
    return vg


def _uncleft(candidate: str, clause: Clause) -> str | None:
    """The sentence under an it-cleft candidate (*It is the man who sleeps.* -> *The man sleeps.*),
    or ``None`` when the candidate does not have the frame *It BE <original subject> who/that*."""
    import re

    s0, s1 = clause.subject

    def surface(toks: Sequence[Tok]) -> str:
        return "".join((" " if k and t.space else "") + t.text for k, t in enumerate(toks))

    pre = surface(clause.toks[:s0])
    focus = surface(clause.toks[s0:s1])
    lowered = focus if clause.toks[s0].proper else focus[:1].lower() + focus[1:]
    m = re.match(r"^(?P<pre>.*?)\b[Ii]t (?:is|was|will be) (?P<focus>.+?) (?:who|that) (?P<rest>.*)$", candidate)
    if m is None or m.group("focus") != lowered:
        return None
    got_pre = m.group("pre").strip()
    if got_pre[:1].lower() + got_pre[1:] != (pre[:1].lower() + pre[1:] if pre else ""):
        return None
    base = (pre + " " if pre else "") + (focus if not pre else lowered) + " " + m.group("rest")
    return base[:1].upper() + base[1:]


def check_reanalysis(clause: Clause, ops: Sequence[str], candidate: str, reparsed) -> str | None:
    """Whether a candidate re-analyses to what was intended; ``None`` if it does, else the reason.

    The candidate, parsed again (``reparsed``: the :func:`analyse` result of its parse, or of the
    sentence under its it-cleft), must have: the intended tense, modality, aspect, voice and
    polarity on the main verb group; the original subject as subject (the original object, with
    nominative case, after passivisation); and no changed word after the verb group (after the
    object, for a passive or a subject-object swap). Polar questions are not re-analysed (no
    pair code uses them). An it-cleft must have the frame *It BE <subject> who/that* with the
    original subject span as focus, its first letter lowered unless it is a name.

    Parameters
    ----------
    clause : Clause
        The original analysis.
    ops : sequence of str
        The operations applied.
    candidate : str
        The surface produced.
    reparsed : Clause or Refusal
        :func:`analyse` on the parse of the candidate (or of :func:`_uncleft` of it).

    Returns
    -------
    str or None
        A refusal reason starting with ``re-analysis:``, or ``None``.
    """
    if "question" in ops:
        # a polar question is not a declarative clause that analyse() accepts; questions are a
        # sentence transformation only (no pair code uses them), and are not re-analysed
        return None
    if isinstance(reparsed, Refusal):
        return f"re-analysis: {reparsed.reason}"
    want = expected_verb_group(clause, ops)
    got = reparsed.verb_group
    for attr in ("tense", "modal", "perfect", "progressive", "passive", "negated"):
        if getattr(got, attr) != getattr(want, attr):
            return f"re-analysis: {attr} differs"
    if got.lemma != want.lemma:
        return "re-analysis: main verb differs"
    if "passive" in ops or "swap" in ops:
        o0, o1 = clause.obj
        subj = [_TO_NOM.get(t.text.lower(), t.text.lower()) for t in clause.toks[o0:o1]]
        if [t.text.lower() for t in reparsed.toks[slice(*reparsed.subject)]] != subj:
            return "re-analysis: subject is not the old object"
        after = [t.text for t in clause.toks[o1:]]
        if after and [t.text for t in reparsed.toks[-len(after):]] != after:
            return "re-analysis: words after the object changed"
        return None
    if _span_text(reparsed.toks, *reparsed.subject) != _span_text(clause.toks, *clause.subject):
        return "re-analysis: subject differs"
    if _tail(reparsed) != _tail(clause):
        return "re-analysis: words after the verb group changed"
    return None


#: Relations of a subject and of the verb group in either scheme (UD, and ClearNLP as spaCy's
#: ``en_core_web_*`` pipelines label it).
_SUBJECT_RELATIONS = {"nsubj", "nsubj:pass", "nsubjpass", "expl", "csubj", "csubjpass", "csubj:pass"}
_GROUP_RELATIONS = {"aux", "aux:pass", "auxpass", "cop"}


def _char_span(doc, start: int, end: int) -> tuple[int, int]:
    return doc[start].idx, doc[end - 1].idx + len(doc[end - 1])


# clitics a UD English EWT model reads poorly as separate tokens (EWT writes them inside
# multiword tokens), and the full word it reads instead; "'d" (would or had) is left alone
_CLITIC_WORDS = {"'re": "are", "'m": "am", "'ve": "have", "'ll": "will", "n't": "not"}
_NEGATED_STEMS = {"ca": "can", "wo": "will", "sha": "shall"}
_VERBAL_S_HOSTS = {"he", "she", "it", "that", "there", "here", "what", "who", "where", "how", "this", "why", "when",
                   "everything", "everyone", "everybody", "nothing", "nobody", "something", "someone", "somebody"}


def _parse_words(words: Sequence[str]) -> list[str]:
    """The words a UD parser reads for ``words``: PTB clitics spelled out ("'re" -> "are",
    "n't" -> "not", "ca n't" -> "can not", "'s" after a pronoun -> "is", or "has" before
    *been*, *got*, *gotten*, *had*), one word for one, so the parse maps back token by token."""
    out = list(words)
    for i, w in enumerate(words):
        low = w.lower()
        if i == 0:
            continue
        if low in _CLITIC_WORDS:
            out[i] = _CLITIC_WORDS[low]
        elif low == "'s" and words[i - 1].lower() in _VERBAL_S_HOSTS:
            nxt = words[i + 1].lower() if i + 1 < len(words) else ""
            out[i] = "has" if nxt in ("been", "got", "gotten", "had") else "is"
        elif low == "'s" and words[i - 1].lower() == "let":
            out[i] = "us"
        if low == "n't" and words[i - 1].lower() in _NEGATED_STEMS:
            stem = _NEGATED_STEMS[words[i - 1].lower()]
            out[i - 1] = stem.capitalize() if words[i - 1][:1].isupper() else stem
    return out


def parse(nlp, texts: Sequence[str], *, batch_size: int = 256, disable: Sequence[str] = (),
          clitics: bool = True) -> list:
    """Parse ``texts`` with sentence boundaries set by spaCy's rule-based ``Sentencizer`` (a
    boundary after ``.``, ``!`` or ``?``), which a spaCy parser respects, and, with ``clitics``,
    with PTB clitics spelled out for the parser (:func:`_parse_words`).

    A statistical parser that splits sentences itself breaks many single MNLI sentences in two
    (at an ``-LRB-``, a long subject, a colon), and each half is then refused as "several
    sentences" or parsed as a fragment; a text with sentence-final punctuation inside still holds
    several sentences and is refused by :func:`analyse`. A parser trained on UD English EWT,
    which writes *she's* and *don't* as one multiword token, misreads a separate *'s* or *n't*
    ("She 's very tired": *'s* as a subject); it reads *is* and *not* well. The parse of the
    spelled-out words is copied onto the original words, so every text keeps its own tokens.

    Parameters
    ----------
    nlp : spacy.Language
        A pipeline with a parser.
    texts : sequence of str
    batch_size : int
        ``nlp.pipe`` batch size.
    disable : sequence of str
        Pipeline components not to run.
    clitics : bool
        Spell out clitics for the parser (for UD models; spaCy's ClearNLP pipelines read them).

    Returns
    -------
    list of spacy.tokens.Doc, one per text, with the original words.
    """
    from spacy.pipeline import Sentencizer
    from spacy.tokens import Doc

    sentencizer = Sentencizer()
    base = [sentencizer(nlp.make_doc(t)) for t in texts]
    if not clitics:
        return list(nlp.pipe(base, batch_size=batch_size, disable=list(disable)))
    spelled = []
    for d in base:
        words = [t.text for t in d]
        spelled.append(Doc(nlp.vocab, words=_parse_words(words), spaces=[bool(t.whitespace_) for t in d],
                           sent_starts=[bool(t.is_sent_start) for t in d]))
    out = []
    for d, p in zip(base, nlp.pipe(spelled, batch_size=batch_size, disable=list(disable))):
        if [t.text for t in p] == [t.text for t in d]:
            out.append(p)
            continue
        out.append(Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d],
                       tags=[t.tag_ for t in p], pos=[t.pos_ for t in p], morphs=[str(t.morph) for t in p],
                       lemmas=[t.lemma_ for t in p], heads=[t.head.i for t in p], deps=[t.dep_ for t in p],
                       ents=[t.ent_iob_ + ("-" + t.ent_type_ if t.ent_type_ else "") if t.ent_iob_ else "O"
                             for t in p]))
    return out


def second_parse_disagreement(clause: Clause, doc, doc2) -> tuple[str | None, str | None]:
    """Where a second, independent parse of the sentence disagrees with the one ``clause`` was
    analysed from, on what the transformations rest on (issue 31, decision 2).

    The second parse may use UD or ClearNLP labels. Compared by character span: the verb group
    (auxiliaries and the main verb or copula, without negation), the subject (its whole span),
    and the direct object where the clause has one (its whole span).

    Parameters
    ----------
    clause : Clause
        The analysis of ``doc``.
    doc, doc2 : spacy.tokens.Doc
        The first and the second parse of the same text.

    Returns
    -------
    (str or None, str or None)
        The reason to refuse the sentence (``parsers disagree on the verb group`` or ``... on
        the subject``), or None; and the reason to refuse its object (``parsers disagree on the
        object``), or None.
    """
    sents = list(doc2.sents)
    if len(sents) != 1:
        return "parsers disagree on the sentence", None
    head = sents[0].root
    # in UD a copula depends on its predicate (a cop relation); in ClearNLP the copula is the root
    group = [head] if head.pos_ in ("VERB", "AUX") else []
    group += [c for c in head.children if c.dep_ in _GROUP_RELATIONS]
    mine = {_char_span(doc, i, i + 1) for i in clause.chain if doc[i].lower_ not in _NEG}
    theirs = {_char_span(doc2, t.i, t.i + 1) for t in group if t.lower_ not in _NEG}
    if mine != theirs:
        return "parsers disagree on the verb group", None
    subjects = [c for c in head.children if c.dep_ in _SUBJECT_RELATIONS]
    there = [c for c in subjects if c.lower_ == "there"]
    subj = there[0] if there else (min(subjects, key=lambda t: t.i) if subjects else None)
    if subj is None or _char_span(doc, *clause.subject) != _char_span(doc2, subj.left_edge.i, subj.right_edge.i + 1):
        return "parsers disagree on the subject", None
    # "A man smokes a cigarette and ties a plastic bag", "... goes up for the shot as two men in red
    # jump up": a finite verb that the first parse took for a noun would keep its tense when the
    # main verb's changes
    first = {t.idx: t for t in doc}
    for t in doc2:
        if t.tag_ in ("VBZ", "VBP", "VBD") and t.pos_ in ("VERB", "AUX") and t.idx in first \
                and first[t.idx].pos_ not in ("VERB", "AUX"):
            coordinated = t.i > 0 and doc2[t.i - 1].lower_ in ("and", "or", "but")
            return f"parsers disagree on a {'coordinated' if coordinated else 'finite'} verb", None
    if clause.obj is not None:
        objs = [c for c in head.children if c.dep_ in ("obj", "dobj")]
        if len(objs) != 1 or _char_span(doc, *clause.obj) != _char_span(doc2, objs[0].left_edge.i,
                                                                         objs[0].right_edge.i + 1):
            return None, "parsers disagree on the object"
    return None, None


class UDTransformer:
    """The default LIT backend: spaCy parses, rule-based transformations.

    Parameters
    ----------
    spacy_model : str, optional
        spaCy pipeline with a tagger/morphologizer and a UD dependency parser; default
        ``$ROBUST_BENCH_SPACY_MODEL`` or ``en_robust_bench_sm``.
    second_parser : str, optional
        A second, independent spaCy pipeline with a parser (UD or ClearNLP labels); a sentence whose
        verb group or subject it parses otherwise is refused, and so is a passive of an object it
        parses otherwise (:func:`second_parse_disagreement`). Default
        :func:`robust_bench.text.nlp.second_parser_name` (``en_core_web_sm``); ``"none"`` turns the
        check off.
    batch_size : int
        Sentences per ``nlp.pipe`` batch.

    Raises
    ------
    robust_bench.text.nlp.SpacyModelError
        If the pipeline cannot be loaded, or its parser does not label Universal Dependencies
        (spaCy's ``en_core_web_*`` pipelines use ClearNLP labels: ``dobj``, ``nsubjpass``, no ``cop``).
    """

    name = "ud"

    def __init__(self, spacy_model: str | None = None, *, second_parser: str | None = None, batch_size: int = 256):
        from robust_bench.text.nlp import SpacyModelError, load_spacy, second_parser_name, spacy_model_name

        self.nlp = load_spacy(spacy_model, require=("tagger", "parser"))
        self.spacy_model = spacy_model_name(spacy_model)
        self.second_parser = second_parser_name(second_parser)
        self.nlp2 = None if self.second_parser is None else load_spacy(self.second_parser, require=("parser",))
        labels = set(self.nlp.get_pipe("parser").labels)
        missing = sorted(_UD_RELATIONS - labels)
        if missing:
            found = sorted(labels & {"dobj", "nsubjpass", "auxpass", "attr", "acomp", "pobj"})
            raise SpacyModelError(
                f"spaCy pipeline {self.spacy_model!r} does not parse into Universal Dependencies (no {missing}"
                + (f"; it has ClearNLP labels {found}" if found else "") + "): the LIT UD backend needs a parser "
                "trained on UD English (for example UD English EWT); see the README section 'Parse quality'")
        self.batch_size = batch_size
        self._content: dict[str, frozenset] = {}
        self._clauses: dict[str, Clause | Refusal] = {}

    def scope_refusal(self, premise: Clause, hypothesis: str, label: int, operator: str = "may", *,
                      subject: bool = True) -> str | None:
        """Why the pair's label rule would not hold for an operator on this premise
        (:func:`scope_refusal`), or None; ``hypothesis`` must have been analysed by :meth:`analyse_many`."""
        return scope_refusal(premise, self._content[hypothesis], label, operator, subject=subject,
                             hypothesis=self._clauses.get(hypothesis))

    def content_of(self, text: str) -> frozenset:
        """:func:`content_lemmas` of a sentence already analysed by :meth:`analyse_many`."""
        return self._content[text]

    def analyse_many(self, texts: Sequence[str]) -> list[Clause | Refusal]:
        """Parse and analyse sentences; each item is a :class:`Clause` or the :class:`Refusal`.
        The casing of sentence-initial words is judged with :class:`Casing` over all ``texts``."""
        out: list[Clause | Refusal] = []
        docs = parse(self.nlp, texts, batch_size=self.batch_size)
        self._content.update((t, frozenset(content_lemmas(d))) for t, d in zip(texts, docs))
        casing = Casing(docs)
        for doc in docs:
            try:
                out.append(analyse(doc, casing))
            except Refusal as exc:
                out.append(exc)
        if self.nlp2 is not None:
            # the second parse, only of the sentences the first one accepted
            accepted = [k for k, a in enumerate(out) if not isinstance(a, Refusal)]
            docs2 = parse(self.nlp2, [texts[k] for k in accepted], batch_size=self.batch_size, disable=["ner"],
                          clitics=False)
            for k, doc2 in zip(accepted, docs2):
                whole, obj = second_parse_disagreement(out[k], docs[k], doc2)
                if whole:
                    out[k] = Refusal(whole)
                elif obj:
                    out[k] = replace(out[k], obj=None, obj_pronoun=None, obj_agreement=None, obj_refusal=obj)
        self._clauses.update(zip(texts, out))
        return out

    def verify_many(self, items: Sequence[tuple[Clause, Sequence[str], str]]) -> list[str | None]:
        """Check candidates by re-analysis (:func:`check_reanalysis`), parsing each distinct
        sentence once in one batched ``nlp.pipe`` call.

        Parameters
        ----------
        items : sequence of (Clause, ops, candidate)

        Returns
        -------
        list of (str or None), one per item
            ``None`` for a verified candidate, else the refusal reason.
        """
        bases = []
        for clause, ops, cand in items:
            bases.append(_uncleft(cand, clause) if "itcleft" in ops else cand)
        todo = sorted({b for b, (_, ops, _) in zip(bases, items) if b is not None and "question" not in ops})
        parsed = {}
        # the entity recogniser only informs casing, which the check does not use
        for text, doc in zip(todo, parse(self.nlp, todo, batch_size=self.batch_size, disable=["ner"])):
            try:
                parsed[text] = analyse(doc)
            except Refusal as exc:
                parsed[text] = exc
        out: list[str | None] = []
        for (clause, ops, cand), base in zip(items, bases):
            if base is None:
                out.append("re-analysis: not an it-cleft of the subject")
            else:
                out.append(check_reanalysis(clause, ops, cand, parsed.get(base)))
        return out

    @staticmethod
    def tense_of(clause: Clause) -> str:
        """``past``, ``present``, ``future`` or ``modal``."""
        return clause.verb_group.tense

    @staticmethod
    def transform(clause: Clause, ops: Sequence[str]) -> list[str]:
        """See :func:`transform`."""
        return transform(clause, ops)

    def candidates(self, text: str, ops: Sequence[str]) -> list[str]:
        """Verified candidates of one sentence (empty when refused); see :func:`transform` and
        :meth:`verify_many`."""
        clause = self.analyse_many([text])[0]
        if isinstance(clause, Refusal):
            return []
        try:
            cands = transform(clause, ops)
        except Refusal:
            return []
        reasons = self.verify_many([(clause, ops, c) for c in cands])
        return [c for c, r in zip(cands, reasons) if r is None]
