"""The checks by which :func:`robust_bench.perturb.lit.analysis.analyse` refuses a whole sentence (LIT UD
backend; Li et al., 2020).

LIT's transformations edit one main clause: its verb group for tense, modality and negation, its
subject and object for the passive, the it-cleft and the swap (Li et al., 2020, §3.2, §3.4). The UD
backend reads that clause off a dependency parse, so it accepts a sentence only when it can identify,
without guessing, one finite main clause, its subject and its verb group; every other sentence is
refused with a reason counted on the dataset card.

Each check takes the :class:`~robust_bench.perturb.lit.reading.Reading` of a sentence and returns
``None`` when the sentence passes, else the refusal's detail (:data:`NO_DETAIL` when it has none); its
reason is declared with :func:`~robust_bench.perturb.lit.reading.refuses` and its name spells the
reason. :data:`CHECKS` runs them in order, and the first refusal is the one counted, so the order is
part of the behaviour. A few checks read a part of the verb group that refuses by itself while being
read (:class:`~robust_bench.perturb.lit.reading.Reading`); they say so.
"""

from __future__ import annotations

from robust_bench.perturb.lit.clause import _3SG
from robust_bench.perturb.lit.lexicon import _BE, _DO, _FLOATING_QUANTIFIERS, _HAVE, _NEG
from robust_bench.perturb.lit.reading import Reading, refuses
from robust_bench.perturb.lit.verbgroup import _finite, _tag

#: What a check returns to refuse a sentence without a detail.
NO_DETAIL = ""
#: Finite PTB tags.
_FINITE_TAGS = ("VBZ", "VBP", "VBD", "MD")


@refuses("empty")
def empty(a: Reading) -> str | None:
    """Refuse a sentence with no word: nothing to transform."""
    if not a.toks or all(t.is_punct or t.is_space for t in a.toks):
        return NO_DETAIL
    return None


@refuses("several sentences")
def several_sentences(a: Reading) -> str | None:
    """Refuse several sentences: the transformations act on one main clause (Li et al., 2020, §3.4)."""
    return NO_DETAIL if len(a.sents) > 1 else None


@refuses("question")
def question(a: Reading) -> str | None:
    """Refuse a question: the clause model is declarative, and LIT's questions are made from
    declaratives (Li et al., 2020, §3.4)."""
    return NO_DETAIL if any(t.text == "?" for t in a.toks) else None


@refuses("no finite verb")
def no_finite_verb(a: Reading) -> str | None:
    """Refuse a fragment: a root that is neither a verb nor the predicate of a copula has no verb
    group to transform."""
    return "fragment" if not a.copula and a.root.pos_ not in ("VERB", "AUX") else None


@refuses("clausal subject")
def clausal_subject(a: Reading) -> str | None:
    """Refuse a clause as subject: it cannot be moved, clefted or case-marked like a noun phrase."""
    return NO_DETAIL if any(c.dep_ in ("csubj", "csubj:pass") for c in a.head.children) else None


@refuses("no subject")
def no_subject(a: Reading) -> str | None:
    """Refuse a root without a subject (imperatives, fragments): agreement and the structural
    transformations need one."""
    return NO_DETAIL if not a.subjects else None


@refuses("no subject")
def no_subject_expletive_it(a: Reading) -> str | None:
    """Refuse an expletive other than *there* as the subject (expletive *it*): no participant to
    cleft or move."""
    return "expletive it" if a.subj.dep_ == "expl" and a.subj.lower_ != "there" else None


@refuses("subject after verb")
def subject_after_verb(a: Reading) -> str | None:
    """Refuse a subject that does not precede the verb group (inversion, or a misparse)."""
    return NO_DETAIL if a.s_end > a.first.i else None


@refuses("subordinate clause taken for the main clause")
def subordinate_clause_taken_for_the_main_clause(a: Reading) -> str | None:
    """Refuse a root with a subordinator before the subject: "When I first started in the eighties
    you had to ...": the parse's root is a subordinate clause, so the main clause is elsewhere."""
    for c in a.head.children:
        if c.i < a.s_start and (c.dep_ == "mark" or (c.dep_ == "advmod" and c.tag_ == "WRB")):
            return c.text
    return None


@refuses("coordinated clauses")
def coordinated_clauses(a: Reading) -> str | None:
    """Refuse a verb (or a conjunct with its own subject) coordinated at the root: the transformation
    would reach only the first conjunct."""
    if any(c.dep_ == "conj" and (c.pos_ in ("VERB", "AUX") or any(g.dep_.startswith("nsubj") for g in c.children))
           for c in a.head.children):
        return NO_DETAIL
    return None


@refuses("coordinated clauses")
def coordinated_clauses_parataxis(a: Reading) -> str | None:
    """Refuse a clause in parataxis with the root, for the same reason."""
    return "parataxis" if any(c.dep_ == "parataxis" for c in a.head.children) else None


@refuses("unattached clause")
def unattached_clause(a: Reading) -> str | None:
    """Refuse a verb the parser could not attach (``dep``) to the root: the clause structure is unknown."""
    return NO_DETAIL if any(c.dep_ == "dep" and c.pos_ in ("VERB", "AUX") for c in a.head.children) else None


@refuses("verb in a nominal relation")
def verb_in_a_nominal_relation(a: Reading) -> str | None:
    """Refuse a bare verb in a nominal relation after the root: "Employees engaged in textile
    manufacturing tend to ...": the parse took a reduced relative clause for the main verb."""
    head, root = a.head, a.root
    if any(c.pos_ == "VERB" and c.dep_ in ("obl", "obl:unmarked", "nmod", "obj", "iobj") and c.i > root.i
           and _tag(c) in ("VB", "VBP", "VBZ", "VBD") for c in head.children):
        return " ".join(c.text for c in head.children if c.pos_ == "VERB")
    return None


@refuses("finite verb before the subject")
def finite_verb_before_the_subject(a: Reading) -> str | None:
    """Refuse a finite verb before the subject outside an adverbial clause of the root: reported speech
    before a reporting tag ("' Not entirely , ' I snapped"), or a parse whose root is not the main
    clause ("Personal saving is how much income is left")."""
    for t in a.toks[:a.s_start]:
        if t.pos_ in ("VERB", "AUX") and _tag(t) in _FINITE_TAGS and not any(
                x.dep_ == "advcl" and x.head.i == a.head.i for x in [t, *t.ancestors]):
            return t.text
    return None


@refuses("unattached noun phrase before the subject")
def unattached_noun_phrase_before_the_subject(a: Reading) -> str | None:
    """Refuse a long noun phrase without a preposition before the subject: "Critics praise Goodman 's
    abilities , the ways in which ..." is a misparsed clause."""
    for t in a.toks[:a.s_start]:
        if t.dep_.startswith("obl") and t.head.i == a.head.i and not any(g.dep_ == "case" for g in t.children) \
                and t.right_edge.i - t.left_edge.i >= 4:
            return t.text
    return None


@refuses("subordinate clause taken for the main clause")
def subordinate_clause_taken_for_the_main_clause_wh(a: Reading) -> str | None:
    """Refuse a wh-word right before the subject: "Personal saving is how much income is left": the
    subject opens a wh-clause."""
    if any(a.toks[i].tag_ in ("WRB", "WP", "WDT") for i in range(max(0, a.s_start - 2), a.s_start)):
        return "wh-word before the subject"
    return None


@refuses("coordinated clauses")
def coordinated_clauses_with_a_noun(a: Reading) -> str | None:
    """Refuse a finite verb, or a bare one, coordinated with a noun: a misparse. "Two women stand in a
    kitchen and wipe down trays" with "wipe" (VB) a conjunct of "kitchen" would become "It was two
    women that stood in a kitchen and wipe down trays" (SNLI dev, blind audit v10)."""
    for t in a.toks:
        if t.dep_ == "conj" and t.head.pos_ not in ("VERB", "AUX") and t.head.i != a.head.i and (
                _tag(t) in _FINITE_TAGS or _tag(t) == "VB" and t.head.pos_ in ("NOUN", "PROPN")):
            return t.text
    return None


@refuses("heading or fragment")
def heading_or_fragment(a: Reading) -> str | None:
    """Refuse a heading: no final punctuation and two capitalised words first ("Station Jesus meets
    his mother", a Stations of the Cross heading)."""
    toks = a.toks
    if toks[-1].text not in (".", "!", "?", "'", '"', "''", "``", ")") and len(toks) > 1 \
            and all(t.text[:1].isupper() and t.is_alpha for t in toks[:2]):
        return NO_DETAIL
    return None


@refuses("headline casing")
def headline_casing(a: Reading) -> str | None:
    """Refuse capitals or title case ("HE KNOWS ABOUT THE MINES", "What Clustering Looks Like"):
    the tagger's reading, and the casing of moved words, cannot be trusted."""
    alpha = [t.text for t in a.toks if t.is_alpha and len(t.text) > 1]
    if alpha and (sum(w.isupper() for w in alpha) > len(alpha) / 2 or
                  len(alpha) >= 4 and sum(w[:1].isupper() for w in alpha[1:]) > 0.6 * (len(alpha) - 1)):
        return NO_DETAIL
    return None


@refuses("negation without auxiliary")
def negation_without_auxiliary(a: Reading) -> str | None:
    """Refuse a negation between the subject and a verb group without an auxiliary: "Homes not
    located on these roads must ...": a finite verb is never negated without one, so the parse has
    taken a reduced relative clause for the main clause."""
    return NO_DETAIL if any(a.toks[i].lower_ in _NEG for i in range(a.s_end, a.first.i)) else None


@refuses("interrupted verb group")
def interrupted_verb_group(a: Reading) -> str | None:
    """Refuse anything but adverbs of the root between the subject and the verb group or inside it:
    the regenerated group could not place it (Li et al., 2020, §3.4 edit the verb group alone)."""
    for i in a.inner + tuple(range(a.s_end, a.first.i)):
        if a.toks[i].pos_ not in ("ADV", "PART") or a.toks[i].head.i != a.head.i:
            return a.toks[i].text
    return None


@refuses("discourse be")
def discourse_be(a: Reading) -> str | None:
    """Refuse *be* followed by a comma or colon: "That is , businesses ..." is not a clause."""
    after = a.group_end
    if after < len(a.toks) and a.main.lemma_ == "be" and a.toks[after].text in (",", ":"):
        return a.main.text
    return None


@refuses("floating quantifier")
def floating_quantifier(a: Reading) -> str | None:
    """Refuse a floating quantifier in or after the verb group: "They 're (actually) both excited" ->
    not "They may be both excited": it goes after the first auxiliary of a new group, and under
    negation it changes the scope."""
    toks = a.toks
    floating = [i for i in a.interior if toks[i].lower_ in _FLOATING_QUANTIFIERS]
    j = a.group_end
    while a.copula and j < len(toks) and (toks[j].pos_ == "ADV" or toks[j].lower_ in _FLOATING_QUANTIFIERS):
        if toks[j].lower_ in _FLOATING_QUANTIFIERS and not (j + 1 < len(toks) and toks[j + 1].lower_ in (
                "of", "the", "these", "those", "my", "our", "your", "his", "her", "their", "its")):
            floating.append(j)
        j += 1
    return toks[floating[0]].text if floating else None


@refuses("reduced relative clause taken for the main verb")
def reduced_relative_clause_taken_for_the_main_verb(a: Reading) -> str | None:
    """Refuse a finite verb right after the verb group: "The main specification tracked is the
    allowance ...": the parse took a reduced relative clause for the main verb."""
    after, toks = a.after, a.toks
    if after < len(toks) and toks[after].pos_ in ("AUX", "VERB") and _tag(toks[after]) in _FINITE_TAGS:
        return toks[after].text
    return None


@refuses("coordinated clauses")
def coordinated_clauses_after_the_verb_group(a: Reading) -> str | None:
    """Refuse a clause coordinated after the verb group that the parse attached to a noun ("... in
    exchange and the entity that forfeits the property does not receive ...", ", and informed
    headquarters"): a finite verb after the conjunction, outside a relative clause."""
    toks = a.toks
    ccs = [t.i for t in toks[a.after:] if t.dep_ == "cc" or t.lower_ in ("and", "but", "or", "yet")]
    if ccs:
        for t in toks[ccs[0] + 1:]:
            h = t.head if t.dep_ in ("aux", "aux:pass", "cop") else t
            embedded = h.dep_ in ("ccomp", "advcl", "acl", "acl:relcl", "xcomp", "csubj") and h.left_edge.i < ccs[0]
            if (_tag(t) in _FINITE_TAGS and t.pos_ in ("VERB", "AUX") and t.dep_ != "acl:relcl"
                    and toks[t.i - 1].lower_ not in ("that", "who", "which", "whom", "whose") and not embedded
                    or _tag(t) in ("VBD", "VBN") and t.i - 1 in ccs):
                return t.text
    return None


@refuses("unusual verb group")
def unusual_verb_group_copula(a: Reading) -> str | None:
    """Refuse a copula whose form does not fit the auxiliaries before it. Reads the auxiliary chain
    first, which refuses ``ambiguous contraction`` (*'d*) and ``unusual verb group`` (an order or
    form English auxiliaries do not have)."""
    _, expect, _ = a.chain_reading
    if a.copula:
        form = _BE.get(a.main.lower_)
        if form is None or (expect is None and form not in ("VBP", "VBZ", "VBD")) or (expect and form != expect):
            return a.main.text
    return None


@refuses("unusual verb group")
def unusual_verb_group_be(a: Reading) -> str | None:
    """Refuse a lone main verb *be* that is no form of *be* as written. Reads the main verb's lemma
    first, which refuses ``no finite verb`` and ``irregular lemma`` (no lemma re-inflects to the word)."""
    if a.copula:
        return None
    vg, expect, _ = a.chain_reading
    if a.lemma == "be" and not vg.passive and expect is None and a.main.lower_ not in _BE:
        return a.main.text
    return None


def _nothing_after(a: Reading, *, negation: bool) -> bool:
    """Whether the main verb has no dependent after it but punctuation, conjunctions, subordinators,
    discourse, adverbial clauses and parataxis (and, with ``negation``, *not*)."""
    return not any(c.i > a.main.i and c.dep_ not in ("punct", "cc", "mark", "discourse", "advcl", "parataxis")
                   and (not negation or c.lower_ not in _NEG) for c in a.main.children)


@refuses("elliptical verb phrase")
def elliptical_verb_phrase(a: Reading) -> str | None:
    """Refuse an auxiliary left without its verb phrase ("they must have because ..."): there is no
    main verb to transform."""
    if not a.copula and a.lemma in ("have", "do", "be") and a.chain_words[:-1] and _nothing_after(a, negation=False):
        return a.main.text
    return None


@refuses("elliptical verb phrase")
def elliptical_verb_phrase_alone(a: Reading) -> str | None:
    """Refuse a lone *have* or *do* standing for an elided verb phrase ("But fortunately they did
    n't ."), which a new verb group would get wrong ("they may have done n't")."""
    if not a.copula and a.lemma in ("have", "do") and not a.chain_words[:-1] and _nothing_after(a, negation=True):
        return a.main.text
    return None


@refuses("unusual verb group")
def unusual_verb_group_do_support(a: Reading) -> str | None:
    """Refuse do-support with an aspect or the passive. Reads the tense of the first word first, which
    refuses ``no finite verb``."""
    _ = a.tense     # read here, where the analysis has always read it: it may refuse "no finite verb"
    vg, _, do = a.chain_reading
    return NO_DETAIL if do and (vg.perfect or vg.progressive or vg.passive) else None


@refuses("no subject")
def no_subject_there(a: Reading) -> str | None:
    """Refuse existential *there* without a logical subject after the verb: no agreement to read."""
    return "there without a logical subject" if a.expl and not a.real_subjects else None


@refuses("agreement mismatch")
def agreement_mismatch(a: Reading) -> str | None:
    """Refuse a finite present (or past *be*) that does not agree with the subject: the parse has the
    wrong subject or verb, and regenerated forms would agree with the wrong one."""
    tense, agr, chain_words = a.tense, a.agreement, a.chain_words
    finite = chain_words[0].lower_
    if tense in ("present", "past") and not a.verb_group.modal:
        flem = "do" if finite in _DO else "have" if finite in _HAVE else "be" if finite in _BE else a.lemma
        expected = _finite(flem, tense, agr)
        alt = {"'s": "is" if flem == "be" else "has", "'re": "are", "'m": "am", "'ve": "have"}.get(finite, finite)
        if flem == "be" and tense == "past" and agr.person == 2:
            expected = "were"
        if alt != expected.lower() and not (tense == "past" and flem not in ("be",)):
            return f"{a.subj.text} ... {chain_words[0].text}"
    return None


@refuses("past or present form")
def past_or_present_form(a: Reading) -> str | None:
    """Refuse a lone past form that is also the present form for this subject ("Two men cut some
    plastic"): the tense the transformation starts from is unknown."""
    if len(a.chain_words) == 1 and not a.copula and a.tense == "past" and a.agreement != _3SG and a.lemma != "be":
        from lemminflect import getInflection

        past, present = getInflection(a.lemma, tag="VBD"), getInflection(a.lemma, tag="VBP")
        if past and present and past[0] == present[0]:
            return a.main.text
    return None


#: The checks of a whole sentence, in the order they run; the first refusal is the one counted.
CHECKS = (empty, several_sentences, question, no_finite_verb, clausal_subject, no_subject, no_subject_expletive_it,
          subject_after_verb, subordinate_clause_taken_for_the_main_clause, coordinated_clauses,
          coordinated_clauses_parataxis, unattached_clause, verb_in_a_nominal_relation,
          finite_verb_before_the_subject, unattached_noun_phrase_before_the_subject,
          subordinate_clause_taken_for_the_main_clause_wh, coordinated_clauses_with_a_noun, heading_or_fragment,
          headline_casing, negation_without_auxiliary, interrupted_verb_group, discourse_be, floating_quantifier,
          reduced_relative_clause_taken_for_the_main_verb, coordinated_clauses_after_the_verb_group,
          unusual_verb_group_copula, unusual_verb_group_be, elliptical_verb_phrase, elliptical_verb_phrase_alone,
          unusual_verb_group_do_support, no_subject_there, agreement_mismatch, past_or_present_form)
