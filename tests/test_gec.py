"""The grammatical-error engine on hand-written, hand-parsed sentences (no model involved)."""

import random
from collections import Counter

import pytest

from robust_bench.perturb.gec import (PREPOSITIONS, Confusions, Token, apply_edits,
                                       candidate_operations, error_budget, perturb, render)


def sent(*rows):
    """rows: (text, tag, pos, dep, head, lemma[, morph]); the last token has no trailing space."""
    toks = []
    for k, r in enumerate(rows):
        text, tag, pos, dep, head, lemma = r[:6]
        morph = r[6] if len(r) > 6 else ""
        toks.append(Token(text, tag, pos, dep, head, lemma, morph, space=k < len(rows) - 1))
    return toks


# "The children go to school ."
CHILDREN = sent(("The", "DT", "DET", "det", 1, "the", "Definite=Def|PronType=Art"),
                ("children", "NNS", "NOUN", "nsubj", 2, "child", "Number=Plur"),
                ("go", "VBP", "VERB", "root", 2, "go", "Mood=Ind|Tense=Pres|VerbForm=Fin"),
                ("to", "IN", "ADP", "case", 4, "to"),
                ("school", "NN", "NOUN", "obl", 2, "school", "Number=Sing"),
                (".", ".", "PUNCT", "punct", 2, "."))

# "They went home and he has eaten apples quickly ."
PAST = sent(("They", "PRP", "PRON", "nsubj", 1, "they", "Case=Nom|Number=Plur|Person=3|PronType=Prs"),
            ("went", "VBD", "VERB", "root", 1, "go", "Mood=Ind|Tense=Past|VerbForm=Fin"),
            ("home", "RB", "ADV", "advmod", 1, "home"),
            ("and", "CC", "CCONJ", "cc", 6, "and"),
            ("he", "PRP", "PRON", "nsubj", 6, "he", "Case=Nom|Number=Sing|Person=3|PronType=Prs"),
            ("has", "VBZ", "AUX", "aux", 6, "have", "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"),
            ("eaten", "VBN", "VERB", "conj", 1, "eat", "Tense=Past|VerbForm=Part"),
            ("apples", "NNS", "NOUN", "obj", 6, "apple", "Number=Plur"),
            ("quickly", "RB", "ADV", "advmod", 6, "quickly"),
            (".", ".", "PUNCT", "punct", 1, "."))

# "Mary Smith is so happy to go to Paris ."
NAMES = sent(("Mary", "NNP", "PROPN", "nsubj", 3, "Mary", "Number=Sing"),
             ("Smith", "NNP", "PROPN", "flat", 0, "Smith", "Number=Sing"),
             ("is", "VBZ", "AUX", "cop", 3, "be", "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"),
             ("so", "RB", "ADV", "advmod", 3, "so"),
             ("happy", "JJ", "ADJ", "root", 3, "happy", "Degree=Pos"),
             ("to", "TO", "PART", "mark", 6, "to"),
             ("go", "VB", "VERB", "xcomp", 4, "go", "VerbForm=Inf"),
             ("to", "IN", "ADP", "case", 8, "to"),
             ("Paris", "NNP", "PROPN", "obl", 6, "Paris", "Number=Sing"),
             (".", ".", "PUNCT", "punct", 4, "."))


def ops_of(tokens, kind, **kw):
    return [o for o in candidate_operations(tokens, types=(kind,), **kw)]


def test_artordet_on_articles_and_before_bare_noun_phrases():
    ops = ops_of(CHILDREN, "ArtOrDet")
    subs = {(o.position, o.replacement) for o in ops if o.operation == "substitute"}
    assert subs == set()                                       # "The children": no "A children"
    # "The children go" -> "Children go" is a generic plural, standard English: not deleted
    assert not any(o.operation == "delete" and o.position == 0 for o in ops)
    inserts = {(o.position, o.replacement) for o in ops if o.operation == "insert"}
    assert inserts == set()           # "go to a school", "the school": standard English; no article added
    # before a bare mass noun, "an" is the learner's error ("they need an information")
    info = sent(("they", "PRP", "PRON", "nsubj", 1, "they"), ("need", "VBP", "VERB", "root", 1, "need"),
                ("information", "NN", "NOUN", "obj", 1, "information"), (".", ".", "PUNCT", "punct", 1, "."))
    assert [(o.position, o.replacement) for o in ops_of(info, "ArtOrDet")] == [(2, "an")]
    # a headline (no closing punctuation) drops articles: nothing is added or dropped there
    assert not ops_of(info[:3], "ArtOrDet")
    assert not any(o.position == 1 and o.operation == "insert" for o in ops)  # "children" has one
    # "apples" is plural: no article is an error before it ("the apples" is standard English)
    assert ops_of(PAST, "ArtOrDet") == []
    # "the hour" -> "hour": a singular common noun needs its article; a/an <-> the is definiteness, not an
    # error, so no article is substituted for another
    hour = sent(("the", "DT", "DET", "det", 1, "the"), ("hour", "NN", "NOUN", "obj", 1, "hour"),
                (".", ".", "PUNCT", "punct", 1, "."))
    assert [(o.operation, o.replacement) for o in ops_of(hour, "ArtOrDet")] == [("delete", "")]
    a_house = sent(("a", "DT", "DET", "det", 1, "a"), ("house", "NN", "NOUN", "obj", 1, "house"))
    assert not [o for o in ops_of(a_house, "ArtOrDet") if o.operation == "substitute"]


def test_no_article_or_preposition_goes_into_an_all_caps_headline():
    head = sent(("GOLF", "NN", "NOUN", "root", 0, "golf"), ("-", ":", "PUNCT", "punct", 0, "-"),
                ("LEADING", "VBG", "VERB", "amod", 3, "lead"), ("SCORES", "NNS", "NOUN", "appos", 0, "score"))
    assert not [o for o in candidate_operations(head, types=("ArtOrDet", "Prep", "Trans", "Wchoice"))]


def test_prep_only_on_adpositions_with_learner_partners():
    ops = ops_of(NAMES, "Prep")
    assert {o.position for o in ops} == {7}                    # the infinitival "to" (PART) is never touched
    from robust_bench.perturb.gec import LEARNER_CONFUSIONS

    assert {o.replacement for o in ops if o.operation == "substitute"} == set(LEARNER_CONFUSIONS["Prep"]["to"]) - {""}
    # "eaten apples": "eat" is no verb learners give an extraneous preposition, so nothing is inserted
    assert not [o for o in ops_of(PAST, "Prep") if o.operation == "insert"]
    discuss = sent(("we", "PRP", "PRON", "nsubj", 1, "we"), ("discussed", "VBD", "VERB", "root", 1, "discuss"),
                   ("plans", "NNS", "NOUN", "obj", 1, "plan"))
    assert [(o.position, o.replacement) for o in ops_of(discuss, "Prep")] == [(2, "about")]
    # uniform weights over Table 1's whole set remain available
    uniform = candidate_operations(NAMES, types=("Prep",), confusions=Confusions())
    assert {o.replacement for o in uniform if o.operation == "substitute"} == set(PREPOSITIONS) - {"to"}


def test_trans_on_connectives_not_on_degree_adverbs():
    assert {o.position for o in ops_of(PAST, "Trans", confusions=Confusions())} == {3}
    assert not ops_of(PAST, "Trans")        # "and" has no learner partner: not substituted, not dropped
    assert not ops_of(NAMES, "Trans")                          # "so happy": a degree adverb


def test_nn_never_on_pronouns_or_proper_nouns_and_handles_irregulars():
    ops = ops_of(CHILDREN, "Nn")
    # "children go": the verb fixes the subject's number; a bare "school" may be either ("go to schools")
    assert {(o.position, o.replacement) for o in ops} == {(1, "child")}
    assert not ops_of(NAMES, "Nn")
    assert not ops_of(PAST, "Nn")     # not "They", "he"; "eaten apples" -> "eaten apple" is another meaning
    two = sent(("two", "CD", "NUM", "nummod", 1, "two"), ("apples", "NNS", "NOUN", "root", 1, "apple"),
               (".", ".", "PUNCT", "punct", 1, "."))
    assert [(o.position, o.replacement) for o in ops_of(two, "Nn")] == [(1, "apple")]   # "two apple"


def test_sva_only_on_present_tense():
    assert [(o.position, o.replacement) for o in ops_of(CHILDREN, "SVA")] == [(2, "goes")]
    assert [(o.position, o.replacement) for o in ops_of(PAST, "SVA")] == [(5, "have")]   # not "went"
    # "Mary Smith is": a proper-noun subject (a team, a country) may take either number in British usage
    assert ops_of(NAMES, "SVA") == []


def test_vform_covers_irregular_forms_and_skips_auxiliaries():
    # "The children go to school": "went" is another tense, standard English; "going", "gone" are errors
    forms = {o.replacement for o in ops_of(CHILDREN, "Vform")}
    assert forms == {"going", "gone"}
    now = sent(*[r for r in ((t.text, t.tag, t.pos, t.dep, t.head, t.lemma, t.morph) for t in CHILDREN)][:-1],
               ("now", "RB", "ADV", "advmod", 2, "now"), (".", ".", "PUNCT", "punct", 2, "."))
    assert "went" in {o.replacement for o in ops_of(now, "Vform")}   # "go to school now" fixes the time
    forms = {o.replacement for o in ops_of(PAST, "Vform") if o.position == 1}
    assert forms == {"going", "gone"}      # "They go home" would be another tense, not an error
    assert not any(o.position == 5 for o in ops_of(PAST, "Vform"))


def test_wchoice_at_most_ten_inflected_synonyms():
    ops = ops_of(CHILDREN, "Wchoice")
    per_pos = Counter(o.position for o in ops)
    assert per_pos and max(per_pos.values()) <= 10
    assert "kids" in {o.replacement for o in ops if o.position == 1}      # plural like "children"
    assert not any(o.position in (0, 3, 5) for o in ops)


def test_worder_swaps_adverb_with_participle_and_never_moves_entities():
    # "has eaten apples quickly": the adverb's neighbours are a noun and a full stop; "home" follows a
    # past-tense verb (not a participle): nothing to swap
    assert ops_of(PAST, "Worder") == []
    # "he has quickly eaten": adverb before a participle
    quick = sent(("he", "PRP", "PRON", "nsubj", 3, "he"), ("has", "VBZ", "AUX", "aux", 3, "have"),
                 ("quickly", "RB", "ADV", "advmod", 3, "quickly"), ("eaten", "VBN", "VERB", "root", 3, "eat"))
    # "has quickly eaten" -> "has eaten quickly" is standard English; with an object it is a word-order error
    assert ops_of(quick, "Worder") == []
    quick_obj = quick + sent(("apples", "NNS", "NOUN", "obj", 3, "apple"))
    assert [(o.position, o.original, o.replacement) for o in ops_of(quick_obj, "Worder")] == [(2, "quickly eaten", "eaten quickly")]
    # an adverb after its adjective: "big enough" -> "enough big"
    enough = sent(("it", "PRP", "PRON", "nsubj", 2, "it"), ("is", "VBZ", "AUX", "cop", 2, "be"),
                  ("big", "JJ", "ADJ", "root", 2, "big"), ("enough", "RB", "ADV", "advmod", 2, "enough"))
    assert [(o.position, o.replacement) for o in ops_of(enough, "Worder")] == [(2, "enough big")]
    assert not ops_of(enough, "Worder", protected={2})          # a protected (entity) token never moves


def test_worder_leaves_degree_adverbs_and_repeated_intensifiers():
    # "too drastic" -> "drastic too" reads as "also drastic" (blind audit, round 8)
    drastic = sent(("it", "PRP", "PRON", "nsubj", 3, "it"), ("is", "VBZ", "AUX", "cop", 3, "be"),
                   ("too", "RB", "ADV", "advmod", 3, "too"), ("drastic", "JJ", "ADJ", "root", 3, "drastic"))
    assert ops_of(drastic, "Worder") == []
    # "extremely , extremely strong": no swap beside a repeated intensifier
    strong = sent(("it", "PRP", "PRON", "nsubj", 5, "it"), ("is", "VBZ", "AUX", "cop", 5, "be"),
                  ("extremely", "RB", "ADV", "advmod", 5, "extremely"), (",", ",", "PUNCT", "punct", 5, ","),
                  ("extremely", "RB", "ADV", "advmod", 5, "extremely"), ("strong", "JJ", "ADJ", "root", 5, "strong"))
    assert ops_of(strong, "Worder") == []


def test_verb_edits_leave_nominals_going_to_and_unlicensed_base_forms():
    # "blasting serves past him": "serves" tagged VBZ but parsed as the object
    serves = sent(("blasting", "VBG", "VERB", "root", 0, "blast"), ("serves", "VBZ", "VERB", "obj", 0, "serve"),
                  ("past", "IN", "ADP", "case", 3, "past"), ("him", "PRP", "PRON", "obl", 0, "he"))
    assert not ops_of(serves, "SVA") and not any(o.position == 1 for o in ops_of(serves, "Vform"))
    # "it is going to be": the going-to future is not a verb-form site
    going = sent(("it", "PRP", "PRON", "nsubj", 2, "it"), ("is", "VBZ", "AUX", "aux", 2, "be"),
                 ("going", "VBG", "VERB", "root", 2, "go"), ("to", "TO", "PART", "mark", 4, "to"),
                 ("be", "VB", "AUX", "xcomp", 2, "be"), ("late", "JJ", "ADJ", "acomp", 4, "late"))
    assert not any(o.position == 2 for o in ops_of(going, "Vform"))
    # "Yeltsin plans return to Kremlin": a headline's noun read as a bare VB
    plans = sent(("Yeltsin", "NNP", "PROPN", "nsubj", 1, "Yeltsin"), ("plans", "VBZ", "VERB", "root", 1, "plan"),
                 ("return", "VB", "VERB", "xcomp", 1, "return"), ("to", "IN", "ADP", "case", 4, "to"),
                 ("Kremlin", "NNP", "PROPN", "obl", 2, "Kremlin"))
    assert not any(o.position == 2 for o in ops_of(plans, "Vform"))
    # with "to" the base form is licensed: "plans to return" -> "plans to returned"
    plans_to = sent(("Yeltsin", "NNP", "PROPN", "nsubj", 1, "Yeltsin"), ("plans", "VBZ", "VERB", "root", 1, "plan"),
                    ("to", "TO", "PART", "mark", 3, "to"), ("return", "VB", "VERB", "xcomp", 1, "return"))
    assert "returned" in {o.replacement for o in ops_of(plans_to, "Vform") if o.position == 3}
    # "budget , and busing": a verb conjoined to a noun is a noun
    busing = sent(("budget", "NN", "NOUN", "root", 0, "budget"), (",", ",", "PUNCT", "punct", 3, ","),
                  ("and", "CC", "CCONJ", "cc", 3, "and"), ("busing", "VBG", "VERB", "conj", 0, "bus"))
    assert not any(o.position == 3 for o in ops_of(busing, "Vform"))


def test_nn_and_wchoice_leave_bare_ing_nouns_compounds_amounts_and_tables():
    # "six ships loading": a participle read as a noun
    loading = sent(("six", "CD", "NUM", "nummod", 1, "six"), ("ships", "NNS", "NOUN", "root", 1, "ship"),
                   ("loading", "NN", "NOUN", "appos", 1, "loading"))
    assert not any(o.position == 2 for o in ops_of(loading, "Nn"))
    # "the web site": one word of a WordNet compound ("web website")
    site = sent(("the", "DT", "DET", "det", 2, "the"), ("web", "NN", "NOUN", "compound", 2, "web"),
                ("site", "NN", "NOUN", "root", 2, "site"), ("works", "VBZ", "VERB", "root", 3, "work"))
    assert not any(o.position == 2 for o in ops_of(site, "Wchoice"))
    # "hundreds of millions": WordNet's hyperbole sense would give "trillions"
    millions = sent(("hundreds", "NNS", "NOUN", "root", 0, "hundred"), ("of", "IN", "ADP", "case", 2, "of"),
                    ("millions", "NNS", "NOUN", "nmod", 0, "million"))
    assert not ops_of(millions, "Wchoice")
    # a results table: "few choice 2-3 1150 lbs 66.00"
    table = sent(("few", "JJ", "ADJ", "amod", 1, "few"), ("choice", "NN", "NOUN", "root", 1, "choice"),
                 ("2-3", "CD", "NUM", "nummod", 1, "2-3"), ("1150", "CD", "NUM", "nummod", 4, "1150"),
                 ("lbs", "NNS", "NOUN", "appos", 1, "lb"), ("66.00", "CD", "NUM", "nummod", 1, "66.00"))
    assert not ops_of(table, "Wchoice")


def test_protected_tokens_and_entity_insides_are_never_touched():
    everything = candidate_operations(NAMES, protected={0, 1, 8}, no_insert_before={1})
    assert all(o.position not in (0, 1, 8) or o.operation == "insert" for o in everything)
    assert not any(o.operation == "insert" and o.position == 1 for o in everything)


def test_perturb_respects_budget_round_trips_and_is_seeded():
    words = [t.text for t in PAST]
    spaces = [t.space for t in PAST]
    for seed in range(30):
        r = perturb(PAST, random.Random(seed), error_rate=0.3)
        assert r.modified <= r.budget == error_budget(len(PAST), 0.3) == 3
        assert (r.modified == r.budget) or r.reason is None
        w, s = apply_edits(words, spaces, r.edits)
        assert tuple(w) == r.tokens and render(w, s) == render(r.tokens, r.spaces)
        assert r == perturb(PAST, random.Random(seed), error_rate=0.3)
    with pytest.raises(ValueError, match="error_rate"):
        perturb(PAST, random.Random(0), error_rate=0)


def test_apply_edits_spacing_and_errors():
    words, spaces = ["I", "do", "n't", "know", "."], [True, False, True, False, False]
    w, s = apply_edits(words, spaces, [{"position": 2, "operation": "delete", "original": "n't", "replacement": ""},
                                       {"position": 0, "operation": "insert", "original": "", "replacement": "So"},
                                       {"position": 3, "operation": "substitute", "original": "know", "replacement": "knew"}])
    assert render(w, s) == "So I do knew."
    with pytest.raises(ValueError, match="overlaps"):
        apply_edits(words, spaces, [{"position": 1, "operation": "swap", "original": "do n't", "replacement": ""},
                                    {"position": 2, "operation": "delete", "original": "n't", "replacement": ""}])
    with pytest.raises(ValueError, match="does not match"):
        apply_edits(words, spaces, [{"position": 1, "operation": "delete", "original": "did", "replacement": ""}])


def test_confusion_weights_and_type_distribution_steer_sampling():
    only_the_to_a = Confusions(type_distribution={"ArtOrDet": 1.0}, weights={"ArtOrDet": {"the": {"a": 1.0}}})
    for seed in range(20):
        r = perturb(CHILDREN, random.Random(seed), error_rate=0.2, confusions=only_the_to_a)
        assert all(e["type"] == "ArtOrDet" for e in r.edits)
        assert all(not (e["position"] == 0 and e["replacement"] != "A") for e in r.edits)
    with pytest.raises(ValueError, match="unknown types"):
        Confusions.from_json({"type_distribution": {"Spelling": 1.0}})


def test_edits_must_leave_an_error_not_other_standard_english():
    from robust_bench.perturb.gec import Operation, undoes_error

    # "at this time" -> "this time": a time phrase stands without its preposition
    at_time = sent(("left", "VBD", "VERB", "root", 0, "leave"), ("at", "IN", "ADP", "case", 3, "at"),
                   ("this", "DT", "DET", "det", 3, "this"), ("time", "NN", "NOUN", "obl", 0, "time"))
    assert not [o for o in ops_of(at_time, "Prep") if o.operation == "delete"]
    # "the crimes": "the" does not fix the number ("said of the crime" is standard English)
    crimes = sent(("of", "IN", "ADP", "case", 2, "of"), ("the", "DT", "DET", "det", 2, "the"),
                  ("crimes", "NNS", "NOUN", "root", 2, "crime"))
    assert not ops_of(crimes, "Nn")
    # "organisations which have": an agreement edit that follows an Nn edit of the antecedent is no error
    orgs = sent(("organisations", "NNS", "NOUN", "root", 0, "organisation"),
                ("which", "WDT", "PRON", "nsubj", 2, "which"), ("have", "VBP", "VERB", "relcl", 0, "have"))
    nn = {"type": "Nn", "position": 0, "operation": "substitute", "original": "organisations",
          "replacement": "organisation"}
    assert undoes_error(orgs, [nn], Operation("SVA", "substitute", 2, "have", "has"))


def test_no_word_choice_for_the_verb_of_a_phrasal_verb():
    """Blind audit of gec_conll2003 (v10, seed 20261304): "the nations making up the committee" took
    "creating up"; the synonyms of "make" are not those of "make up" (WordNet knows "make_up" but not
    "making_up"). Without the particle, "making" takes them."""
    rows = [("Five", "CD", "NUM", "nummod", 1, "five"), ("nations", "NNS", "NOUN", "nsubj", 2, "nation", "Number=Plur"),
            ("making", "VBG", "VERB", "root", 2, "make", "VerbForm=Ger"),
            ("up", "RP", "ADP", "compound:prt", 2, "up"),
            ("the", "DT", "DET", "det", 5, "the", "Definite=Def|PronType=Art"),
            ("committee", "NN", "NOUN", "obj", 2, "committee", "Number=Sing"), (".", ".", "PUNCT", "punct", 2, ".")]
    assert not [o for o in ops_of(sent(*rows), "Wchoice") if o.position == 2]
    bare = rows[:3] + rows[4:]
    bare = [r[:4] + (r[4] - (r[4] > 3),) + r[5:] for r in bare]
    assert [o for o in ops_of(sent(*bare), "Wchoice") if o.position == 2]


def test_prepositions_of_phrasal_verbs_infinitive_to_and_degree_so_are_left_alone():
    """The second blind audit of gec_conll2003 (v10, seed 20261321), each on the reference pipeline's parse."""
    # "closed in on victory" -> "closed in in victory": the preposition after a particle is the verb's
    closed = sent(("Rivals", "NNS", "NOUN", "nsubj", 1, "rival"), ("closed", "VBD", "VERB", "root", 1, "close"),
                  ("in", "RP", "ADP", "advmod", 1, "in"), ("on", "IN", "ADP", "case", 4, "on"),
                  ("victory", "NN", "NOUN", "obl", 1, "victory"), (".", ".", "PUNCT", "punct", 1, "."))
    assert not [o for o in ops_of(closed, "Prep") if o.position == 3]
    # "rates to cool economic growth" with "cool" read as an adjective: "to" is the infinitive's when the
    # second tagger disputes the next word; undisputed, the preposition may change
    rates = sent(("raise", "VB", "VERB", "root", 0, "raise"), ("rates", "NNS", "NOUN", "obj", 0, "rate"),
                 ("to", "TO", "ADP", "case", 4, "to"), ("cool", "JJ", "ADJ", "amod", 4, "cool"),
                 ("growth", "NN", "NOUN", "obl", 0, "growth"), (".", ".", "PUNCT", "punct", 0, "."))
    assert not [o for o in ops_of(rates, "Prep", unsure={3}) if o.position == 2]
    assert [o for o in ops_of(rates, "Prep") if o.position == 2]
    # "was so shaken by ... that" -> "therefore shaken": the degree adverb is no connective
    shaken = sent(("She", "PRP", "PRON", "nsubj:pass", 3, "she"), ("was", "VBD", "AUX", "aux:pass", 3, "be"),
                  ("so", "RB", "ADV", "advmod", 3, "so"), ("shaken", "VBN", "VERB", "root", 3, "shake"),
                  ("that", "IN", "SCONJ", "mark", 6, "that"), ("she", "PRP", "PRON", "nsubj", 6, "she"),
                  ("left", "VBD", "VERB", "ccomp", 3, "leave"), (".", ".", "PUNCT", "punct", 3, "."))
    assert not [o for o in ops_of(shaken, "Trans") if o.position == 2]


def test_sports_tables_set_phrases_and_currency_amounts_keep_their_words():
    """The third blind audit of gec_conll2003 (v10, seed 20261331): standings heads ("goals for"), "fall of
    wickets" and "a second day running" are set phrases; "from $ 1.54 trillion" carries a comparison; a
    preposition with no object ("for , goals against") is a column head."""
    heads = sent(("won", "VBD", "VERB", "root", 0, "win"), (",", ",", "PUNCT", "punct", 0, ","),
                 ("goals", "NNS", "NOUN", "conj", 0, "goal"), ("for", "IN", "ADP", "case", 2, "for"),
                 (",", ",", "PUNCT", "punct", 0, ","), ("points", "NNS", "NOUN", "conj", 0, "point"))
    assert not [o for o in ops_of(heads, "Prep") if o.position == 3]
    fragment = sent(("for", "IN", "ADP", "root", 0, "for"), (",", ",", "PUNCT", "punct", 0, ","),
                    ("goals", "NNS", "NOUN", "conj", 0, "goal"), ("against", "IN", "ADP", "case", 2, "against"))
    assert not [o for o in ops_of(fragment, "Prep") if o.position == 0]
    running = sent(("Prices", "NNS", "NOUN", "nsubj", 1, "price"), ("fell", "VBD", "VERB", "root", 1, "fall"),
                   ("for", "IN", "ADP", "case", 5, "for"), ("a", "DT", "DET", "det", 5, "a"),
                   ("second", "JJ", "ADJ", "amod", 5, "second"), ("day", "NN", "NOUN", "obl", 1, "day"),
                   ("running", "VBG", "VERB", "advcl", 1, "run"), (".", ".", "PUNCT", "punct", 1, "."))
    assert not [o for o in ops_of(running, "Vform") if o.position == 6]
    amount = sent(("It", "PRP", "PRON", "nsubj", 1, "it"), ("rose", "VBD", "VERB", "root", 1, "rise"),
                  ("from", "IN", "ADP", "case", 4, "from"), ("$", "$", "SYM", "nmod", 4, "$"),
                  ("billion", "CD", "NUM", "obl", 1, "billion"), (".", ".", "PUNCT", "punct", 1, "."))
    assert not [o for o in ops_of(amount, "Prep") if o.position == 2]
