"""Analysis of one parsed sentence for the LIT UD backend (Li et al., 2020): accept its main clause as a
:class:`~robust_bench.perturb.lit.clause.Clause`, or refuse it with a reason counted on the card.

:func:`analyse` runs the sentence checks of :mod:`robust_bench.perturb.lit.checks` in order on a
:class:`~robust_bench.perturb.lit.reading.Reading` of the parse; on an accepted sentence it records, per
operation, the first reason of :mod:`robust_bench.perturb.lit.operation_checks` that holds.
"""

from __future__ import annotations

from typing import Callable

from robust_bench.perturb.lit.checks import CHECKS
from robust_bench.perturb.lit.clause import Clause, Refusal, Tok
from robust_bench.perturb.lit.lexicon import (_FOCUS_ADVERBS, _NEG, _NEGATIVE_WORDS, _OUTSIDE_SCOPE, _PPIS,
                                              _QUANTIFIER_WORDS, _QUANTITY_ADJECTIVES, _SPEECH_VERBS)
from robust_bench.perturb.lit.nominals import Casing, _agreement, _is_person, _quantified, content_lemmas
from robust_bench.perturb.lit.operation_checks import (CLEFT_CHECKS, OBJECT_CHECKS, PAST_CHECKS, STATIVE_CHECKS,
                                                       TENSE_CHECKS, TENSE_ONLY_CHECKS)
from robust_bench.perturb.lit.reading import Reading, first_reason
from robust_bench.perturb.lit.verbgroup import _tag


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
    a = Reading(doc)
    failed = first_refusal(a)
    if failed is not None:
        check, detail = failed
        raise Refusal(check.reason, detail)
    return _clause(a, casing)


def first_refusal(a: Reading) -> "tuple[Callable, str] | None":
    """The first check of :data:`~robust_bench.perturb.lit.checks.CHECKS` that refuses the sentence read
    as ``a``, with the refusal's detail; None when all pass. A check may also raise :class:`Refusal`
    while reading the verb group (see :class:`~robust_bench.perturb.lit.reading.Reading`)."""
    for check in CHECKS:
        detail = check(a)
        if detail is not None:
            return check, detail
    return None


def _scope_lemmas(a: Reading) -> tuple[frozenset, frozenset]:
    """Content lemmas a new modal takes in its scope, and those that stay outside (issue 31, decision
    1): the subject and material before it, adverbial, relative and appositive clauses,
    parentheticals stay outside."""
    toks, head, first, s_start, s_end = a.toks, a.head, a.first, a.s_start, a.s_end
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
    return frozenset(content_lemmas(in_scope)), frozenset(content_lemmas(toks[i] for i in sorted(clausal_idx)))


def _out_toks(toks, casing: Casing) -> tuple[Tok, ...]:
    """The sentence's tokens with their spaces, and whether each keeps its capital when it moves."""
    out_toks = []
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
    return tuple(out_toks)


def _clause(a: Reading, casing: "Casing | None") -> Clause:
    """The :class:`Clause` of a sentence every check accepted, with the reasons that refuse each operation."""
    toks, head, root, subj, s_start, s_end = a.toks, a.head, a.root, a.subj, a.s_start, a.s_end
    tense_ref = first_reason(a, TENSE_CHECKS)
    tense_only_ref = first_reason(a, TENSE_ONLY_CHECKS)
    past_ref = first_reason(a, PAST_CHECKS)
    cleft_ref = first_reason(a, CLEFT_CHECKS)
    obj = obj_pron = obj_agr = None
    obj_ref = first_reason(a, OBJECT_CHECKS)
    if obj_ref is None:
        o, o_start, o_end = a.o, a.o_start, a.o_end
        obj = (o_start, o_end)
        obj_pron = o.lower_ if o.pos_ == "PRON" and o_end - o_start == 1 else None
        obj_agr = _agreement(o)
    scope_lemmas, outside_lemmas = _scope_lemmas(a)
    stative_ref = first_reason(a, STATIVE_CHECKS)
    # "A small container is not stuffed with ..." still asserts that a container exists: the
    # negation of a sentence with an indefinite subject is not its contradictory
    # (a bare plural takes narrow scope: "Cars are not parked outside" denies that any are)
    indefinite = (toks[s_start].lower_ in ("a", "an", "some", "several", "many", "few", "one")
                  or _tag(subj) == "CD" or a.subj_dets & {"a", "an", "some"}
                  or subj.lower_ in ("someone", "somebody", "something"))
    out_toks = _out_toks(toks, casing or Casing())
    final = len(toks) - 1 if toks[-1].text in (".", "!") else None
    s_toks = [toks[i] for i in range(s_start, s_end)]
    expl, chain_idx, interior, first, lemma = a.expl, a.chain_idx, a.interior, a.first, a.lemma
    return Clause(text=a.doc.text, toks=out_toks, subject=(s_start, s_end), agreement=a.agreement,
                  expletive=bool(expl), subject_pronoun=a.subj_pron, subject_is_person=_is_person(subj),
                  subject_quantified=_quantified(s_toks),
                  chain=tuple(sorted(chain_idx)), interior=interior, verb_group=a.verb_group, obj=obj,
                  obj_pronoun=obj_pron, obj_agreement=obj_agr, obj_refusal=obj_ref, final_punct=final, never=a.never,
                  negative_words=a.negative_words, npis=a.npis, lower_start=toks[0].text[:1].islower(),
                  subject_adverb=toks[s_start].pos_ in ("ADV", "SCONJ"), tense_refusal=tense_ref,
                  epistemic_adverb=a.epistemic, cleft_refusal=cleft_ref, tense_only_refusal=tense_only_ref,
                  past_refusal=past_ref,
                  now_bound=a.now_bound, past_bound=a.past_bound, speech_verb=lemma in _SPEECH_VERBS,
                  subject_negative=any(t.lower_ in _NEGATIVE_WORDS for t in toks[s_start:s_end]),
                  other_negatives=any(t.lower_ in _NEGATIVE_WORDS for t in toks if t.i not in chain_idx),
                  ppis=any(t.lower_ in _PPIS for t in toks),
                  coordinated_predicate=any(c.dep_ == "conj" for c in root.children),
                  finite_complement=a.finite_complement, stative_refusal=stative_ref,
                  focus_interior=any(toks[i].lower_ in _FOCUS_ADVERBS for i in interior),
                  preverbal_adverb=s_end < first.i,
                  subject_lemmas=frozenset(content_lemmas(toks[s_start:s_end])),
                  subject_head=subj.lemma_.lower(),
                  coordinated_finite=any(c.dep_ == "conj" and _tag(c) in ("VBZ", "VBP", "VBD") for c in root.children),
                  quantified_after_verb=not expl and any(t.lower_ in _QUANTIFIER_WORDS or t.lower_ in _QUANTITY_ADJECTIVES
                                            for t in toks[max(max(chain_idx) + 1, s_end):]),
                  modifier_lemmas=frozenset(t.lemma_.lower() for t in toks if t.dep_ in ("amod", "compound", "nummod")
                                            and t.i >= first.i),
                  predicate_lemma=root.lemma_.lower() if a.copula else None,
                  existential_or_exist=bool(expl) or lemma == "exist",
                  not_even=any(toks[i].lower_ == "even" and i > 0 and toks[i - 1].lower_ in _NEG for i in interior)
                  or any(x.lower_ in _NEG and b.lower_ == "even" for x, b in zip(toks, toks[1:])),
                  indefinite_subject=bool(indefinite),
                  scope_lemmas=scope_lemmas, outside_lemmas=outside_lemmas,
                  bare_existential=bool(expl) and any(
                      c.dep_ == "nsubj" and not any(g.dep_ in ("det", "nummod", "nmod:poss") or g.lower_ in _QUANTITY_ADJECTIVES
                                                     for g in c.children)
                      for c in head.children))
