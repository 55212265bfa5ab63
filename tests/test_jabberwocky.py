import json

import pytest

from robust_bench.io.conllu_io import parse_conllu_text
from robust_bench.perturb.jabberwocky import (SKIP_FEATURES, SKIP_MULTIWORD, SKIP_NON_ALPHA, jabberwockify, sentence_rng,
                                              substitution_form)


@pytest.mark.parametrize("upos,feats,form", [
    ("NOUN", "Number=Sing", "base"), ("NOUN", "Number=Plur", "plural"), ("NOUN", "Number=Ptan", None),
    ("NOUN", "Number=Sing|Typo=Yes", None), ("NOUN", "_", None),
    ("VERB", "VerbForm=Inf", "base"), ("VERB", "Tense=Pres|VerbForm=Part", "ing"),
    ("VERB", "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin", "3sg"),
    ("VERB", "Mood=Ind|Tense=Pres|VerbForm=Fin", "base"),
    ("VERB", "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin", "base"),
    ("VERB", "Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin", "base"),
    ("VERB", "Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin", None),
    ("VERB", "Tense=Past|VerbForm=Part", None), ("VERB", "VerbForm=Ger", None), ("VERB", "Mood=Imp|VerbForm=Fin", None),
    ("ADJ", "Degree=Pos", "base"), ("ADJ", "Degree=Cmp", "cmp"), ("ADJ", "Degree=Sup", "sup"),
    ("ADJ", "Degree=Pos|NumType=Ord", None), ("ADV", "_", "base"), ("ADV", "PronType=Dem", None),
    ("ADV", "Degree=Sup", "sup"), ("PROPN", "Number=Sing", None), ("AUX", "VerbForm=Inf", None),
])
def test_footnote_4_forms(upos, feats, form):
    assert substitution_form(upos, feats) == form


def r(i, form, upos, feats, head, deprel):
    return f"{i}\t{form}\t{form.lower()}\t{upos}\t_\t{feats}\t{head}\t{deprel}\t_\t_"


SENT = "\n".join([
    "# sent_id = t1",
    r(1, "Happy", "ADJ", "Degree=Pos", 2, "amod"),
    r(2, "dogs", "NOUN", "Number=Plur", 3, "nsubj"),
    r(3, "chase", "VERB", "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin", 0, "root"),
    r(4, "cats", "NOUN", "Number=Plur|Typo=Yes", 3, "obj"),
    r(5, "quickly", "ADV", "_", 3, "advmod"),
    r(6, "and", "CCONJ", "_", 7, "cc"),
    r(7, "barked", "VERB", "Mood=Ind|Number=Plur|Person=3|Tense=Past|VerbForm=Fin", 3, "conj"),
    r(8, "e-mail", "NOUN", "Number=Sing", 7, "obl"),
    "9-10\tgonna\t_\t_\t_\t_\t_\t_\t_\t_",
    r(9, "gon", "VERB", "Tense=Pres|VerbForm=Part", 3, "advcl"),
    r(10, "na", "PART", "_", 11, "mark"),
    r(11, "RUN", "VERB", "VerbForm=Inf", 9, "xcomp"),
    r(12, ".", "PUNCT", "_", 3, "punct"),
    "", ""])


def test_jabberwockify_replaces_exactly_the_footnote_4_words():
    sent = parse_conllu_text(SENT)[0]
    res = jabberwockify(sent, ["blick"], sentence_rng(0, sent.sent_id))
    assert res.tokens == ("Blick", "blicks", "blick", "cats", "blick", "and", "barked", "e-mail",
                          "gon", "na", "BLICK", ".")
    assert res.substituted == (True, True, True, False, True, False, False, False, False, False, True, False)
    assert [e["position"] for e in res.edits] == [0, 1, 2, 4, 10]
    assert res.edits[1] == {"type": "pseudoword:NOUN:plural", "position": 1, "original": "dogs", "replacement": "blicks"}
    assert dict(res.skipped) == {3: SKIP_FEATURES, 6: SKIP_FEATURES, 7: SKIP_NON_ALPHA, 8: SKIP_MULTIWORD}
    # the tree is the sentence's own; applying the edits to the original gives the tokens
    tokens = list(sent.forms)
    for e in res.edits:
        assert tokens[e["position"]] == e["original"]
        tokens[e["position"]] = e["replacement"]
    assert tuple(tokens) == res.tokens


def test_seeded_per_sentence():
    sent = parse_conllu_text(SENT)[0]
    words = [f"w{i}" for i in range(100)]
    words = ["".join(chr(97 + (i * 7 + k) % 26) for k in range(4)) for i in range(100)]
    a = jabberwockify(sent, words, sentence_rng(0, "t1")).tokens
    assert a == jabberwockify(sent, words, sentence_rng(0, "t1")).tokens
    assert a != jabberwockify(sent, words, sentence_rng(1, "t1")).tokens
    with pytest.raises(ValueError, match="no pseudowords"):
        jabberwockify(sent, [], sentence_rng(0, "t1"))


def test_the_pseudoword_inventory_is_computed_once_and_keyed_by_its_inputs(sources, tmp_path):
    """A second call with the same inputs reads the cache (same words); another vocabulary is another
    key (a word it makes real is never a pseudoword); a damaged cache file is recomputed."""
    import random
    from pathlib import Path

    from robust_bench.text.pseudowords import pseudoword_inventory

    lines = (sources / "wuggy" / "orthographic_english.txt").read_text(encoding="utf-8").splitlines()
    random.Random(0).shuffle(lines)
    lexicon = tmp_path / "lexicon.txt"
    lexicon.write_text("\n".join(sorted(lines[:2500])) + "\n", encoding="utf-8")
    cache = tmp_path / "cache"
    first = pseudoword_inventory(lexicon, ["blick"], cache_dir=cache)
    files = list((cache / "pseudowords").glob("*.json"))
    assert first and len(files) == 1
    files[0].write_text(json.dumps(["nope"] + first[1:]), encoding="utf-8")     # a cache hit returns the file
    assert pseudoword_inventory(lexicon, ["blick"], cache_dir=cache) == ["nope"] + first[1:]
    files[0].write_text("{not json", encoding="utf-8")                          # damaged: recomputed, rewritten
    assert pseudoword_inventory(lexicon, ["blick"], cache_dir=cache) == first
    assert json.loads(files[0].read_text(encoding="utf-8")) == first
    other = pseudoword_inventory(lexicon, ["blick", first[0]], cache_dir=cache)
    assert first[0] not in other and len(list(Path(cache, "pseudowords").glob("*.json"))) == 2
