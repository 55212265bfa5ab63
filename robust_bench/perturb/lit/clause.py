"""The clause model of the LIT UD backend (Li et al., 2020): the operations, the refusal, and what
:func:`robust_bench.perturb.lit.analysis.analyse` reads off a parse (subject, verb group, object).

Re-exported by :mod:`robust_bench.perturb.lit.ud`, whose docstring describes the backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from robust_bench import RobustBenchError

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
