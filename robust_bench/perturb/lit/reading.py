"""The state of :func:`robust_bench.perturb.lit.analysis.analyse` (LIT UD backend; Li et al., 2020): what
it reads off one parse, and the two small pieces every check uses (:func:`refuses`, :func:`first_reason`).

A :class:`Reading` computes each part of the sentence (root, verb group, subject, object ...) once, when a
check first asks for it. Most parts are pure functions of the parse; three refuse while being read, as
the morphology helpers do (:attr:`Reading.chain_reading`, :attr:`Reading.lemma`, :attr:`Reading.tense`):
the checks of :mod:`robust_bench.perturb.lit.checks` ask for them at the place the analysis has always
read them, so the first refusal is the same.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import Callable, Sequence

from robust_bench.perturb.lit.clause import VerbGroup
from robust_bench.perturb.lit.lexicon import (_ATTITUDE_ADJECTIVES, _ATTITUDE_VERBS, _BE, _EPISTEMIC_ADVERBS,
                                              _MEDIAL_ADVERBS, _NEG, _NEGATIVE_WORDS, _NOW_WORDS, _NPIS, _PAST_WORDS)
from robust_bench.perturb.lit.nominals import _agreement
from robust_bench.perturb.lit.verbgroup import _main_lemma, _parse_chain, _tag, _tense_of_first


def refuses(reason: str) -> Callable:
    """Decorator: declare the refusal reason (counted on the dataset card) of a check.

    Parameters
    ----------
    reason : str
        Stored as the check's ``reason`` attribute.
    """
    def mark(check: Callable) -> Callable:
        check.reason = reason
        return check
    return mark


def first_reason(reading: "Reading", checks: Sequence[Callable]) -> str | None:
    """The reason of the first of ``checks`` (each ``(Reading) -> bool``) that holds, or None."""
    for check in checks:
        if check(reading):
            return check.reason
    return None


class Reading:
    """One parsed sentence as the analysis reads it; each attribute is computed on first use.

    Parameters
    ----------
    doc : spacy.tokens.Doc
        A parse with UD relations, PTB tags and morphology.
    """

    def __init__(self, doc):
        self.doc = doc
        self.toks = [t for t in doc]

    # --- the sentence and its root -----------------------------------------------------------

    @cached_property
    def sents(self) -> list:
        return list(self.doc.sents)

    @cached_property
    def root(self):
        """The root of the (only) sentence: the main verb, or the predicate of a copula."""
        return self.sents[0].root

    @property
    def head(self):
        """The head whose children are the clause's dependents (the root)."""
        return self.root

    @cached_property
    def cop(self) -> list:
        return [c for c in self.root.children if c.dep_ == "cop"]

    @property
    def copula(self) -> bool:
        return bool(self.cop)

    @property
    def main(self):
        """The main verb, or the copula."""
        return self.cop[0] if self.copula else self.root

    # --- the verb group ----------------------------------------------------------------------

    @cached_property
    def auxes(self) -> list:
        head, main = self.head, self.main
        return sorted((c for c in head.children if c.dep_ in ("aux", "aux:pass") and c.i < main.i
                       and c.lower_ not in _NEG), key=lambda t: t.i)

    @cached_property
    def negs(self) -> list:
        head, main, auxes, copula, toks = self.head, self.main, self.auxes, self.copula, self.toks
        negs = [c for c in head.children if c.lower_ in _NEG and (auxes and auxes[0].i < c.i < main.i
                                                                  or copula and c.i == main.i + 1)]
        if not negs and not copula and main.lower_ in _BE and main.i + 1 < len(toks) and \
                toks[main.i + 1].lower_ in _NEG:
            # "there is not a town": parsers attach the negation of an existential be to the noun
            negs = [toks[main.i + 1]]
        return negs

    @cached_property
    def chain_words(self) -> list:
        """Auxiliaries and the main verb (or copula), in order."""
        return self.auxes + [self.main]

    @property
    def first(self):
        """The first word of the verb group."""
        return self.chain_words[0]

    @cached_property
    def span_end(self) -> int:
        return max([self.main.i] + [n.i for n in self.negs])

    @cached_property
    def chain_idx(self) -> set:
        return {t.i for t in self.chain_words} | {n.i for n in self.negs}

    @cached_property
    def inner(self) -> tuple:
        """Indices inside the verb group that are not part of it, as parsed."""
        return tuple(i for i in range(self.first.i, self.span_end + 1) if i not in self.chain_idx)

    @cached_property
    def interior(self) -> tuple:
        """:attr:`inner`, and the medial adverbs after a finite copula or existential *be*."""
        toks, head, main = self.toks, self.head, self.main
        interior = self.inner
        if self.copula or main.lower_ in _BE and any(c.dep_ == "expl" for c in head.children):
            # medial adverbs right after a finite copula (or existential be: "There are also dozens"
            # -> "There may also be dozens") belong to the verb group, whatever the parse
            # attaches them to: "is probably happy" -> "will probably be happy", "are also more
            # willing" -> "may also be more willing", not "may be also more willing"
            j = self.span_end + 1
            while (j < len(toks) and toks[j].lower_ in _MEDIAL_ADVERBS and toks[j].dep_ == "advmod"
                   and (toks[j].head.i == head.i or toks[j].head.i > j)):
                interior += (j,)
                j += 1
        return interior

    @property
    def group_end(self) -> int:
        """The index right after the verb group and its adverbs."""
        return max((self.span_end,) + self.interior) + 1

    @cached_property
    def after(self) -> int:
        """:attr:`group_end`, past the adverbs that follow the verb group."""
        after = self.group_end
        while after < len(self.toks) and self.toks[after].pos_ == "ADV":
            after += 1
        return after

    @cached_property
    def tags(self) -> list:
        """PTB tags of the verb group; a lone root verb with a subject is finite."""
        tags = [_tag(t) for t in self.chain_words]
        if len(self.chain_words) == 1 and not self.copula and tags[0] in ("VB", "VBN"):
            # A root verb with a subject and no auxiliary is finite whatever the tagger says: VB is
            # then present non-3sg (VBP) and VBN a past tense (VBD) when the forms coincide.
            tags[0] = "VBP" if tags[0] == "VB" else "VBD"
        return tags

    @cached_property
    def chain_reading(self) -> tuple:
        """``(VerbGroup, expected form of the main verb, do-support)`` of the auxiliaries
        (:func:`~robust_bench.perturb.lit.verbgroup._parse_chain`); refuses ``ambiguous contraction``
        and ``unusual verb group``."""
        chain_words = self.chain_words
        return _parse_chain([t.text for t in chain_words], self.tags, [t.dep_ for t in chain_words])

    @cached_property
    def lemma(self) -> str:
        """The main verb's lemma (``be`` for a copula); refuses ``no finite verb`` and ``irregular lemma``."""
        return "be" if self.copula else _main_lemma(self.main, self.chain_reading[1], self.tags[-1])

    @cached_property
    def tense(self) -> str:
        """The tense of the first word of the verb group; refuses ``no finite verb``."""
        return _tense_of_first(self.chain_words[0].text, self.tags[0])

    @cached_property
    def verb_group(self) -> VerbGroup:
        """The verb group, with the main verb, tense and polarity."""
        vg, main, copula = self.chain_reading[0], self.main, self.copula
        vg = replace(vg, lemma=self.lemma, tense=self.tense, negated=bool(self.negs), copula=copula,
                     surface=(main.text.lower(), self.tags[-1]) if not copula else None)
        if vg.modal and vg.modal not in ("will", "shall"):
            vg = replace(vg, tense="modal")
        elif vg.modal:
            vg = replace(vg, tense="future", modal="will")
        return vg

    # --- the subject -------------------------------------------------------------------------

    @cached_property
    def subjects(self) -> list:
        return [c for c in self.head.children if c.dep_ in ("nsubj", "nsubj:pass", "expl")]

    @cached_property
    def expl(self) -> list:
        """Expletive *there*, if it is a subject."""
        return [s for s in self.subjects if s.dep_ == "expl" and s.lower_ == "there"]

    @cached_property
    def subj(self):
        """The subject's head: expletive *there*, else the first subject."""
        return self.expl[0] if self.expl else min(self.subjects, key=lambda t: t.i)

    @property
    def s_start(self) -> int:
        return self.subj.left_edge.i

    @property
    def s_end(self) -> int:
        return self.subj.right_edge.i + 1

    @cached_property
    def real_subjects(self) -> list:
        """The logical subjects after the verb of an existential."""
        return [c for c in self.head.children if c.dep_ in ("nsubj", "nsubj:pass") and c.i > self.main.i]

    @cached_property
    def agreement(self):
        """The subject's person and number (the logical subject's, after *there*)."""
        return _agreement(self.real_subjects[0]) if self.expl else _agreement(self.subj)

    @cached_property
    def subj_pron(self) -> str | None:
        """The subject, lowered, when it is one pronoun."""
        subj = self.subj
        return subj.lower_ if subj.pos_ == "PRON" and self.s_end - self.s_start == 1 else None

    @cached_property
    def subj_dets_early(self) -> set:
        return {c.lower_ for c in self.subj.children if c.dep_ in ("det", "nmod:poss")}

    @cached_property
    def subj_dets(self) -> set:
        return {c.lower_ for c in self.subj.children if c.dep_ in ("det", "nmod:poss", "nummod")}

    @cached_property
    def attitude(self) -> bool:
        """A first-person hedge or performative ("I guess", "We are pleased to"), or filler "you know"."""
        subj_pron, lemma, clausal, no_obj = self.subj_pron, self.lemma, self.clausal, self.no_obj
        return (subj_pron in ("i", "we") and (
            lemma in _ATTITUDE_VERBS and (clausal or no_obj)
            or self.copula and self.root.lower_ in _ATTITUDE_ADJECTIVES and clausal)
            or subj_pron == "you" and lemma in ("know", "see", "mean") and (clausal or no_obj))   # filler "you know"

    # --- words and frames of the whole sentence ----------------------------------------------

    @cached_property
    def adverbs(self) -> list:
        """The adverbs inside the verb group and between the subject and it, lowered."""
        return [self.toks[i].lower_ for i in self.interior + tuple(range(self.s_end, self.first.i))]

    @cached_property
    def epistemic(self) -> bool:
        head, main, root = self.head, self.main, self.root
        return any(c.dep_ == "advmod" and c.lower_ in _EPISTEMIC_ADVERBS for c in head.children) or \
            main.lemma_ in ("seem", "appear") or \
            self.copula and root.lower_ in ("likely", "unlikely", "possible", "impossible", "probable", "certain",
                                            "sure", "bound")

    @cached_property
    def never(self) -> bool:
        return any(self.toks[i].lower_ == "never" for i in self.interior + tuple(range(self.s_end, self.first.i)))

    @cached_property
    def negative_words(self) -> bool:
        return any(t.lower_ in _NEGATIVE_WORDS for t in self.toks)

    @cached_property
    def npis(self) -> bool:
        # "I could not say much" -> not "I could say much": "much" as the verb's object or degree
        return any(t.lower_ in _NPIS for t in self.toks) or any(t.lower_ == "much" and t.head.i == self.head.i
                                                                for t in self.toks)

    @cached_property
    def clausal(self) -> bool:
        return any(c.dep_ in ("ccomp", "xcomp", "advcl") for c in self.root.children)

    @cached_property
    def no_obj(self) -> bool:
        return not any(c.dep_ == "obj" for c in self.root.children)

    @cached_property
    def to_xcomp(self) -> bool:
        return any(c.dep_ == "xcomp" and any(g.tag_ == "TO" for g in c.children) for c in self.root.children)

    @cached_property
    def quotes(self) -> bool:
        return any(t.text in ("'", "`", "``", "''", '"') for t in self.toks)

    @cached_property
    def words(self) -> set:
        return {t.lower_ for t in self.toks}

    @cached_property
    def now_bound(self) -> bool:
        """A time adverbial that ties the clause to the speech time."""
        lows = [t.lower_ for t in self.toks]
        return bool(self.words & _NOW_WORDS) or any(
            a in ("these", "this") and b in ("days", "year", "week", "month", "last", "past", "decade", "century")
            for a, b in zip(lows, lows[1:]))

    @cached_property
    def past_bound(self) -> bool:
        """A time adverbial that ties the clause to the past."""
        lows = [t.lower_ for t in self.toks]
        return bool(self.words & _PAST_WORDS) or any(
            a == "last" and b in ("year", "week", "month", "night", "decade", "century", "time", "summer", "winter")
            for a, b in zip(lows, lows[1:]))

    @cached_property
    def finite_complement(self) -> bool:
        # "Time claims that the FBI has been seeking" -> not "Time claimed that the FBI has been
        # seeking": a finite complement clause would need its own sequence-of-tenses shift
        return any(c.dep_ == "ccomp" and any(g.dep_.startswith("nsubj") for g in c.children)
                   for c in self.root.children)

    @cached_property
    def predicative_pre(self) -> bool:
        """A participle clause or an *as*-phrase before the subject."""
        head = self.head
        return any(
            (t.dep_ == "advcl" and t.head.i == head.i and not any(g.dep_.startswith("nsubj") for g in t.children))
            or (t.lower_ == "as" and t.dep_ in ("case", "mark") and t.head.pos_ in ("NOUN", "PROPN", "ADJ"))
            for t in self.toks[:self.s_start])

    # --- the object --------------------------------------------------------------------------

    @cached_property
    def objs(self) -> list:
        return [c for c in self.head.children if c.dep_ == "obj"] if not self.copula else []

    @property
    def o(self):
        """The first direct object."""
        return self.objs[0]

    @property
    def o_start(self) -> int:
        return self.o.left_edge.i

    @property
    def o_end(self) -> int:
        return self.o.right_edge.i + 1
