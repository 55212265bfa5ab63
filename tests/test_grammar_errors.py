"""The grammatical-error engine on hand-written, hand-parsed sentences (no model involved)."""

import random
from collections import Counter

import pytest

from robust_bench.perturb.grammar_errors import (ARTICLES, PREPOSITIONS, Confusions, Token, apply_edits,
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
    assert any(o.operation == "delete" and o.position == 0 for o in ops)
    inserts = {(o.position, o.replacement) for o in ops if o.operation == "insert"}
    assert inserts == {(4, "the"), (4, "a")}                   # "school" has no determiner; "a", not "an"
    assert not any(o.position == 1 and o.operation == "insert" for o in ops)  # "children" has one
    # "apples" is plural: only "the" goes before it
    assert {(o.position, o.replacement) for o in ops_of(PAST, "ArtOrDet")} == {(7, "the")}
    # "the hour" -> "an hour"; "the house" -> "a house"; "a"/"an" -> "the", never each other
    hour = sent(("the", "DT", "DET", "det", 1, "the"), ("hour", "NN", "NOUN", "obj", 1, "hour"))
    assert {o.replacement for o in ops_of(hour, "ArtOrDet") if o.operation == "substitute"} == {"an"}
    a_house = sent(("a", "DT", "DET", "det", 1, "a"), ("house", "NN", "NOUN", "obj", 1, "house"))
    assert {o.replacement for o in ops_of(a_house, "ArtOrDet") if o.operation == "substitute"} == {"the"}


def test_no_article_or_preposition_goes_into_an_all_caps_headline():
    head = sent(("GOLF", "NN", "NOUN", "root", 0, "golf"), ("-", ":", "PUNCT", "punct", 0, "-"),
                ("LEADING", "VBG", "VERB", "amod", 3, "lead"), ("SCORES", "NNS", "NOUN", "appos", 0, "score"))
    assert not [o for o in candidate_operations(head, types=("ArtOrDet", "Prep", "Trans", "Wchoice"))]


def test_prep_only_on_adpositions_with_learner_partners():
    ops = ops_of(NAMES, "Prep")
    assert {o.position for o in ops} == {7}                    # the infinitival "to" (PART) is never touched
    from robust_bench.perturb.grammar_errors import LEARNER_CONFUSIONS

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
    assert {(o.position, o.replacement) for o in ops} == {(1, "child"), (4, "schools")}
    assert not ops_of(NAMES, "Nn")
    assert {o.position for o in ops_of(PAST, "Nn")} == {7}     # not "They", "he"


def test_sva_only_on_present_tense():
    assert [(o.position, o.replacement) for o in ops_of(CHILDREN, "SVA")] == [(2, "goes")]
    assert [(o.position, o.replacement) for o in ops_of(PAST, "SVA")] == [(5, "have")]   # not "went"
    assert [(o.position, o.replacement) for o in ops_of(NAMES, "SVA")] == [(2, "are")]


def test_vform_covers_irregular_forms_and_skips_auxiliaries():
    forms = {o.replacement for o in ops_of(CHILDREN, "Vform")}
    assert forms == {"went", "going", "gone"}
    forms = {o.replacement for o in ops_of(PAST, "Vform") if o.position == 1}
    assert forms == {"go", "going", "gone"}
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
    assert [(o.position, o.original, o.replacement) for o in ops_of(quick, "Worder")] == [(2, "quickly eaten", "eaten quickly")]
    # adverb next to an adjective: "so happy" -> "happy so"
    assert [(o.position, o.replacement) for o in ops_of(NAMES, "Worder")] == [(3, "happy so")]
    assert not ops_of(NAMES, "Worder", protected={4})          # a protected (entity) token never moves


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
