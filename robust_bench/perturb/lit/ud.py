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

from dataclasses import replace
from typing import Iterable, Sequence

from robust_bench.perturb.lit.analysis import analyse
from robust_bench.perturb.lit.clause import (OPERATIONS, PHENOMENA, STRUCTURAL_OPERATIONS, VERB_GROUP_OPERATIONS,
                                             Agreement, Clause, LitSetupError, Refusal, Tok, VerbGroup)
from robust_bench.perturb.lit.lexicon import (_BE, _CLEFT_BREAKERS, _DISCOURSE_MARKERS, _FIRST_PERSON_STATES,
                                              _MEDIAL_ADVERBS, _NEG, _NO_PASSIVE, _PASSIVE_AGENT_PRONOUNS, _TO_ACC,
                                              _TO_NOM, _UD_RELATIONS)
from robust_bench.perturb.lit.nominals import Casing, content_lemmas
from robust_bench.perturb.lit.verbgroup import realise_verb_group

__all__ = ["OPERATIONS", "VERB_GROUP_OPERATIONS", "STRUCTURAL_OPERATIONS", "PHENOMENA", "Refusal", "LitSetupError", "Casing",
           "Agreement",
           "VerbGroup", "Clause", "analyse", "transform", "check_reanalysis", "expected_verb_group", "UDTransformer"]


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
