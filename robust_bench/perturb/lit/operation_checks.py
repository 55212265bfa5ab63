"""Checks of an accepted clause, per operation (LIT UD backend; Li et al., 2020).

A sentence that :func:`robust_bench.perturb.lit.analysis.analyse` accepts may still not take every
transformation of Li et al. (2020, §3.4) fluently or with the meaning the pair's label rule assumes
(§4): blind audits of real MNLI and SNLI rows found the classes below (issue 31). The analysis records,
per operation, the reason of the first check that holds, and the transformation refuses with it
(:func:`robust_bench.perturb.lit.ud.transform`); the reason is counted on the dataset card.

Each check is ``(Reading) -> bool``, True when it refuses; its reason is declared with
:func:`~robust_bench.perturb.lit.reading.refuses`. The tuples run in order
(:func:`~robust_bench.perturb.lit.reading.first_reason`): the first check that holds gives the reason.
"""

from __future__ import annotations

from robust_bench.perturb.lit.lexicon import (_ADDITIVE_ADVERBS, _CLEFT_BREAKERS, _FOCUS_ADVERBS, _IDIOMS,
                                              _LASTING_PREDICATES, _NEGATIVE_WORDS, _NPIS, _PLACEMENT_VERBS,
                                              _POSSESSIVE_BINDERS, _REFLEXIVE, _SPECIFICATIONAL_NOUNS, _SPEECH_VERBS,
                                              _STATIVE_VERBS, _TEMPORAL_MARKS, _VERBAL_PREPOSITIONS)
from robust_bench.perturb.lit.nominals import _bare_singular_being, _first_noun_sense_under, _is_person, _quantified
from robust_bench.perturb.lit.reading import Reading, refuses
from robust_bench.perturb.lit.verbgroup import _tag

# ---------------------------------------------------------------------------------------------
# Tense and may: hedges, performatives and fixed frames take no tense or modal change


@refuses("first-person attitude verb")
def tense_first_person_attitude_verb(a: Reading) -> bool:
    """A first-person hedge or performative ("I guess ...", "We are pleased to tell you ..."): a tense
    or modal on it is not English ("I may guess I read ...")."""
    return a.attitude


@refuses("relative clause in the subject of be")
def tense_relative_clause_in_the_subject_of_be(a: Reading) -> bool:
    """A specificational copula whose subject holds a relative clause ("The last thing he wants is
    ..."): the embedded clause would keep the old tense."""
    return a.copula and any(c.dep_ == "acl:relcl" for c in a.subj.subtree)


@refuses("reporting tag")
def tense_reporting_tag(a: Reading) -> bool:
    """A verb of saying beside a quotation is a reporting tag, which takes no modal (not "he may have
    said")."""
    return a.lemma in _SPEECH_VERBS and a.quotes


@refuses("verb of liking with an infinitive")
def tense_verb_of_liking_with_an_infinitive(a: Reading) -> bool:
    """*like*, *love*, *hate*, *prefer* with an infinitive: not "We will like to help"."""
    return a.lemma in ("like", "love", "hate", "prefer") and a.to_xcomp


@refuses("used to")
def tense_used_to(a: Reading) -> bool:
    """Habitual *used to*: not "may have used to swing"."""
    main, toks = a.main, a.toks
    return a.lemma == "use" and main.i + 1 < len(toks) and toks[main.i + 1].lower_ == "to" and not a.verb_group.passive


@refuses("going-to future")
def tense_going_to_future(a: Reading) -> bool:
    """The *going to* future: not "may be going to go"."""
    return a.lemma == "go" and a.verb_group.progressive and a.to_xcomp


#: Refuse tense changes and *may* (``Clause.tense_refusal``; negation too for an attitude verb).
TENSE_CHECKS = (tense_first_person_attitude_verb, tense_relative_clause_in_the_subject_of_be, tense_reporting_tag,
                tense_verb_of_liking_with_an_infinitive, tense_used_to, tense_going_to_future)


@refuses("finite temporal clause")
def tense_only_finite_temporal_clause(a: Reading) -> bool:
    """A finite temporal clause of the root keeps its tense: "... occurred as adults and children spend
    time"."""
    return any(c.dep_ == "advcl" and any(g.dep_ == "mark" and g.lower_ in _TEMPORAL_MARKS for g in c.children)
               and any(g.dep_.startswith("nsubj") for g in c.children) for c in a.root.children)


@refuses("finite relative clause")
def tense_only_finite_relative_clause(a: Reading) -> bool:
    """A present relative clause keeps its tense when the main verb's changes: "A man was looking at the
    sign that a woman is holding"."""
    return any(t.dep_ in ("acl:relcl", "acl") and _tag(t) in ("VBZ", "VBP") or t.dep_ in ("aux", "cop") and
               t.head.dep_ in ("acl:relcl", "acl") and _tag(t) in ("VBZ", "VBP") for t in a.toks)


#: Refuse tense changes only (``Clause.tense_only_refusal``).
TENSE_ONLY_CHECKS = (tense_only_finite_temporal_clause, tense_only_finite_relative_clause)


@refuses("present clause under a past verb")
def past_present_clause_under_a_past_verb(a: Reading) -> bool:
    """Any present clause other than a complement of the root (temporal, coordinated, attached to a
    noun) clashes with a past main verb: "A player went up for the shot as two men jump up to block
    it" (a future one takes it: "will like it when we have a citation")."""
    head = a.head
    return any(t.i not in a.chain_idx and t.pos_ in ("VERB", "AUX") and _tag(t) in ("VBZ", "VBP")
               and not any(x.dep_ == "ccomp" and x.head.i == head.i for x in (t, *t.ancestors)) for t in a.toks)


#: Refuse the past (``Clause.past_refusal``).
PAST_CHECKS = (past_present_clause_under_a_past_verb,)

# ---------------------------------------------------------------------------------------------
# The it-cleft: the subject must be a focus with a contrast


@refuses("indefinite or numeral subject")
def cleft_indefinite_or_numeral_subject(a: Reading) -> bool:
    """"It is a secret that will need two people", "It was two that was enough", "it was oh i 've that
    never itemized": indefinite, numeral or broken subjects are no cleft focus."""
    toks = a.toks
    return toks[a.s_start].lower_ in ("a", "an") or _tag(a.subj) == "CD" or any(
        t.pos_ in ("INTJ", "AUX") for t in toks[a.s_start:a.s_end])


@refuses("generic plural subject")
def cleft_generic_plural_subject(a: Reading) -> bool:
    """"It is people who generally seem ..." has no contrast."""
    return a.subj.lemma_.lower() in ("people", "folk", "folks", "child", "kid", "human") and not a.subj_dets_early


@refuses("specificational copula")
def cleft_specificational_copula(a: Reading) -> bool:
    """The subject of a specificational copula is not a cleft focus: "A relatively new technique is the
    sandwich", "Marina del Rey is another", "The other aircraft was United 175"."""
    root, toks, after = a.root, a.toks, a.after
    pred_det = {c.lower_ for c in root.children if c.dep_ in ("det", "nmod:poss")}
    return a.copula and (root.pos_ in ("DET", "PRON", "PROPN", "NUM") or after < len(toks) and toks[after].lower_ == "what"
                         or _tag(root) in ("NNP", "NNPS", "CD", "PRP", "DT")
                         or root.pos_ == "NOUN" and pred_det & {"the", "my", "our", "your", "his", "her", "its", "their"})


@refuses("relative clause in the subject of be")
def cleft_relative_clause_in_the_subject_of_be(a: Reading) -> bool:
    """Not "It is the last thing we want that is ..."."""
    return a.copula and any(c.dep_ == "acl:relcl" for c in a.subj.subtree)


@refuses("specificational copula")
def cleft_specificational_noun(a: Reading) -> bool:
    """A specificational head noun as the subject of *be*: not "It is the whole point that is speed ..."."""
    return a.copula and a.subj.lemma_.lower() in _SPECIFICATIONAL_NOUNS


@refuses("adjective as subject")
def cleft_adjective_as_subject(a: Reading) -> bool:
    """"Obese is a compound ...": a word mentioned, not a participant."""
    return a.subj.pos_ == "ADJ"


@refuses("clausal or possessive predicate")
def cleft_clausal_or_possessive_predicate(a: Reading) -> bool:
    """"It was another thing ... that was that ...", "... that are Harvelle 's"."""
    root = a.root
    return a.copula and (any(c.dep_ in ("ccomp", "csubj") or c.dep_ == "mark" and c.lower_ == "that"
                             for c in root.children)
                         or any(c.dep_ == "case" and c.lower_ in ("'s", "'") for c in root.children))


@refuses("anaphoric subject")
def cleft_anaphoric_subject(a: Reading) -> bool:
    """"It is other attractions that include ...": the contrast is already in the subject."""
    return any(t.lower_ in ("other", "another", "such", "same", "further", "additional")
               for t in a.toks[a.s_start:a.s_end])


@refuses("bare singular noun")
def cleft_bare_singular_noun(a: Reading) -> bool:
    """"It is little girl that blows bubbles" (headline style)."""
    return _bare_singular_being(a.subj)


@refuses("additive adverb")
def cleft_additive_adverb(a: Reading) -> bool:
    """"It is X that also ..." contradicts the exclusiveness the cleft asserts."""
    return any(x in _ADDITIVE_ADVERBS for x in a.adverbs) or any(c.lower_ in _ADDITIVE_ADVERBS
                                                                  for c in a.root.children)


@refuses("participle or as-phrase before the subject")
def cleft_participle_or_as_phrase_before_the_subject(a: Reading) -> bool:
    """"Standing , it was he who ..."."""
    return a.predicative_pre


#: Refuse the it-cleft (``Clause.cleft_refusal``).
CLEFT_CHECKS = (cleft_indefinite_or_numeral_subject, cleft_generic_plural_subject, cleft_specificational_copula,
                cleft_relative_clause_in_the_subject_of_be, cleft_specificational_noun, cleft_adjective_as_subject,
                cleft_clausal_or_possessive_predicate, cleft_anaphoric_subject, cleft_bare_singular_noun,
                cleft_additive_adverb, cleft_participle_or_as_phrase_before_the_subject)

# ---------------------------------------------------------------------------------------------
# The object, for the passive and the swap: it must be one noun phrase the verb acts on


@refuses("no direct object")
def object_no_direct_object(a: Reading) -> bool:
    """A copula, or a verb without a direct object: nothing to promote."""
    return a.copula or not a.objs


@refuses("first-person attitude verb")
def object_first_person_attitude_verb(a: Reading) -> bool:
    """"I know X" -> not "X is known by me"."""
    return a.attitude


@refuses("generic subject one")
def object_generic_subject_one(a: Reading) -> bool:
    """Not "A yacht can be chartered by one"."""
    return a.subj_pron == "one"


@refuses("generic agent")
def object_generic_agent(a: Reading) -> bool:
    """Not "Fruits and vegetables are bought by people"."""
    return a.subj.lemma_.lower() in ("people", "someone", "somebody", "everyone", "everybody", "folk", "folks") \
        and not a.subj_dets_early


@refuses("focus adverb")
def object_focus_adverb(a: Reading) -> bool:
    """"He only ate X" -> not "X was only eaten by him": passivisation moves the focus."""
    return any(x in _FOCUS_ADVERBS for x in a.adverbs)


@refuses("participle or as-phrase before the subject")
def object_participle_or_as_phrase_before_the_subject(a: Reading) -> bool:
    """Not "Standing , a yell was let out by him"."""
    return a.predicative_pre


@refuses("comparison")
def object_comparison(a: Reading) -> bool:
    """Not "More time is spent by X than inventors do"."""
    return "than" in a.words


@refuses("by-phrase already present")
def object_by_phrase_already_present(a: Reading) -> bool:
    """Not "defeats were suffered by X by Kurdish forces"."""
    return any(c.dep_ == "obl" and any(g.lower_ == "by" and g.dep_ == "case" for g in c.children)
               for c in a.root.children)


@refuses("punctuation in the subject")
def object_punctuation_in_the_subject(a: Reading) -> bool:
    """"Spain under the Monarchs , Ferdinand and Isabella ,": more than a noun phrase for the agent."""
    return any(t.text in _CLEFT_BREAKERS for t in a.toks[a.s_start:a.s_end])


@refuses("double object or complement clause")
def object_double_object_or_complement_clause(a: Reading) -> bool:
    """An indirect object or a complement clause would stay behind, attached to the wrong verb form."""
    return any(c.dep_ in ("iobj", "xcomp", "ccomp") for c in a.head.children)


@refuses("participle adjunct")
def object_participle_adjunct(a: Reading) -> bool:
    """Not "the drums are played by X while speaking into ..."."""
    return any(c.dep_ == "advcl" and _tag(c) == "VBG" for c in a.head.children)


@refuses("bare singular noun")
def object_bare_singular_noun(a: Reading) -> bool:
    """"played by man with ..." (headline style)."""
    return any(t.dep_ in ("nsubj", "obj") and t.head.i == a.head.i and _bare_singular_being(t) for t in a.toks)


@refuses("bare singular object")
def object_bare_singular_object(a: Reading) -> bool:
    """A bare singular count noun ("plays guitar", "rides bike") is no subject without its article: not
    "Guitar is played by a woman"; a mass noun is ("Responsibility was borne by ...")."""
    return any(o.pos_ == "NOUN" and _tag(o) == "NN" and not any(g.dep_ in ("det", "nmod:poss", "nummod", "det:predet")
                                                                for g in o.children)
               and (a.lemma == "play" or _first_noun_sense_under(o.lemma_.lower(), "artifact.n.01")) for o in a.objs)


@refuses("with-phrase after the object")
def object_with_phrase_after_the_object(a: Reading) -> bool:
    """"wearing blue hats with colored streamers" -> not "Blue hats are being worn by four children with
    colored streamers": the phrase would attach to the agent."""
    return a.subj.pos_ != "PRON" and any(c.dep_ == "obl" and c.i > a.objs[0].i and any(
        g.dep_ == "case" and g.lower_ in ("with", "without") for g in c.children) for c in a.head.children)


@refuses("object not right after the verb")
def object_not_right_after_the_verb(a: Reading) -> bool:
    """Only a particle may stand between the verb and the object."""
    between = range(a.main.i + 1, a.o_start)
    return a.o_start <= a.main.i or any(a.toks[i].dep_ != "compound:prt" for i in between)


@refuses("reflexive or reciprocal object")
def object_reflexive_or_reciprocal_object(a: Reading) -> bool:
    """A reflexive or reciprocal needs its antecedent as the subject."""
    return a.o.lower_ in _REFLEXIVE or any(t.lower_ in _REFLEXIVE for t in a.o.subtree)


@refuses("object is not a noun phrase")
def object_is_not_a_noun_phrase(a: Reading) -> bool:
    """An object headed by no noun, a possessive, two objects, or one followed by a noun."""
    o, o_end, toks = a.o, a.o_end, a.toks
    return o.pos_ not in ("NOUN", "PROPN", "PRON", "NUM") or "Yes" in o.morph.get("Poss") or len(a.objs) > 1 \
        or o_end < len(toks) and toks[o_end].pos_ in ("NOUN", "PROPN")


@refuses("infinitival complement in the object")
def object_infinitival_complement_in_the_object(a: Reading) -> bool:
    """"enable CIOs to work with ...": the "object" is an object plus an infinitival complement."""
    return any(t.tag_ == "TO" or (t.pos_ in ("VERB", "AUX") and "Inf" in t.morph.get("VerbForm")
                                  and t.dep_ in ("acl", "xcomp", "advcl"))
               for t in a.o.subtree)


@refuses("coordinated clause")
def object_coordinated_clause(a: Reading) -> bool:
    """A verb coordinated inside the object, or a conjunction of the root after it."""
    return any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") for t in a.o.subtree) or \
        any(t.dep_ == "cc" for t in a.toks[a.o_end:] if t.head.i == a.head.i)


@refuses("coordinated object")
def object_coordinated_object(a: Reading) -> bool:
    """The new subject's number rests on where the parse attached the conjunct: "passing a man wearing
    a bandanna and girl" (singular or two people?), "licking a smaller white and black dog" (with
    "white" taken for a noun: "... dog ... are being licked"; SNLI dev, blind audit v10)."""
    return any(t.dep_ == "cc" for t in a.o.subtree)


@refuses("prepositional phrase after the object")
def object_prepositional_phrase_after_the_object(a: Reading) -> bool:
    """"exchange ideas about X on the website": a prepositional phrase after the object may belong to
    the verb, and moving it into the passive subject changes the meaning."""
    o = a.o
    return any(t.dep_ == "nmod" and (t.head.i != o.i or any(g.dep_ == "case" and g.lower_ in _VERBAL_PREPOSITIONS
                                                            for g in t.children))
               for t in o.subtree)


@refuses("oblique after the object")
def object_oblique_after_the_object(a: Reading) -> bool:
    """"A roof is being put by a man on a beach house": the by-phrase would split the verb from the
    place or path it needs."""
    return a.lemma in _PLACEMENT_VERBS and any(c.dep_ == "obl" and c.i > a.o.i for c in a.head.children)


@refuses("light-verb idiom")
def object_light_verb_idiom(a: Reading) -> bool:
    """The noun of a light-verb idiom is no participant: not "A face was made by him"."""
    return a.o.lemma_.lower() in _IDIOMS.get(a.lemma, ())


@refuses("possessive bound by the subject")
def object_possessive_bound_by_the_subject(a: Reading) -> bool:
    """"it closed its doors" -> not "its doors were closed by it"; "American 11 turned off its
    transponder" -> not "Its transponder was turned off by American 11" (cataphora)."""
    subj_pron = a.subj_pron
    return any(t.dep_ == "nmod:poss" and (subj_pron in _POSSESSIVE_BINDERS.get(t.lower_, ()) or
                                          subj_pron is None and t.lower_ in ("his", "her", "its", "their"))
               for t in a.o.subtree)


@refuses("negative or quantified object")
def object_negative_or_quantified_object(a: Reading) -> bool:
    """Scope changes when a negative, a polarity item or (under negation) a quantifier moves."""
    o = a.o
    return any(t.lower_ in _NEGATIVE_WORDS or t.lower_ in _NPIS for t in o.subtree) or \
        bool(a.negs) and _quantified(list(o.subtree))


@refuses("object is not one noun phrase")
def object_is_not_one_noun_phrase(a: Reading) -> bool:
    """"found your mistress busy writing letters": a determiner on a compound modifier or an adjective
    after a noun inside the "object" is an object plus a small clause."""
    toks, o_start = a.toks, a.o_start
    return any(t.dep_ == "compound" and any(g.dep_ in ("det", "nmod:poss") for g in t.children) or
               t.dep_ == "amod" and t.i > o_start and toks[t.i - 1].pos_ in ("NOUN", "PROPN") and t.i < t.head.i
               for t in a.o.subtree)


#: Refuse the passive and the swap (``Clause.obj_refusal``); from :func:`object_not_right_after_the_verb`
#: on, the checks read the first direct object.
OBJECT_CHECKS = (object_no_direct_object, object_first_person_attitude_verb, object_generic_subject_one,
                 object_generic_agent, object_focus_adverb, object_participle_or_as_phrase_before_the_subject,
                 object_comparison, object_by_phrase_already_present, object_punctuation_in_the_subject,
                 object_double_object_or_complement_clause, object_participle_adjunct, object_bare_singular_noun,
                 object_bare_singular_object, object_with_phrase_after_the_object, object_not_right_after_the_verb,
                 object_reflexive_or_reciprocal_object, object_is_not_a_noun_phrase,
                 object_infinitival_complement_in_the_object, object_coordinated_clause, object_coordinated_object,
                 object_prepositional_phrase_after_the_object, object_oblique_after_the_object,
                 object_light_verb_idiom, object_possessive_bound_by_the_subject,
                 object_negative_or_quantified_object, object_is_not_one_noun_phrase)

# ---------------------------------------------------------------------------------------------
# Tense changes on lasting states and generic truths (issue 31, decision 3)


@refuses("classifying copula")
def stative_classifying_copula(a: Reading) -> bool:
    """"Penrith and Blencathra will also be Celtic names": a classification does not change with time."""
    return a.copula and a.root.pos_ in ("NOUN", "PROPN") and not _is_person(a.subj)


@refuses("lasting property")
def stative_lasting_property(a: Reading) -> bool:
    """"The sea will not even be three blocks away": place and size are lasting properties of things."""
    return a.copula and a.root.lower_ in _LASTING_PREDICATES and not _is_person(a.subj)


@refuses("stative verb")
def stative_stative_verb(a: Reading) -> bool:
    """"The book will contain ...": a state, not an event."""
    return not a.copula and a.lemma in _STATIVE_VERBS


@refuses("lasting property")
def stative_made_of(a: Reading) -> bool:
    """"The ledge will be made of a hard substance": what a thing is made of lasts."""
    return a.lemma == "make" and a.verb_group.passive and any(
        c.dep_ == "obl" and any(g.dep_ == "case" and g.lower_ in ("of", "from") for g in c.children)
        for c in a.head.children)


@refuses("generic subject")
def stative_generic_subject(a: Reading) -> bool:
    """"Dogs bark" -> not "Dogs barked": a bare noun subject in the simple present is generic."""
    vg = a.verb_group
    bare_noun = a.subj.pos_ == "NOUN" and not a.subj_dets
    return bare_noun and vg.tense == "present" and not vg.progressive and not vg.perfect


#: Refuse the past and the future (``Clause.stative_refusal``).
STATIVE_CHECKS = (stative_classifying_copula, stative_lasting_property, stative_stative_verb, stative_made_of,
                  stative_generic_subject)
