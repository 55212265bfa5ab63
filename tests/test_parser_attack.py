"""Adversarial treebanks (Wang et al., 2021): parser adapters, UAS/LAS, generators, filters, the attack,
adv_ewt and adv_ptb on the real treebanks, and the attack-parser command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robust_bench.attacks.parser_attack import (ParserAttack, TreeExample, edit_budget, results_from_rows, summarise)
from robust_bench.models.loader import ModelError
from robust_bench.models.parsers import CallableParser, Parse, SpacyParser, StanzaParser, load_parser
from robust_bench.perturb.parser_substitutes import (EmbeddingFilter, FilterQuery, GrammarFilter, PerplexityFilter,
                                                     PosFilter, Site, load_word_vectors, merge_candidates,
                                                     recover_word_case)
from robust_bench.scoring.parsing import attachment_errors, attachment_scores

ROOT = Path(__file__).resolve().parents[1]


# --- a hand-made parser and generator --------------------------------------------------------------

GOLD = TreeExample(id="s1", words=("The", "old", "dog", "chased", "a", "cat", "."),
                   heads=(3, 3, 4, 0, 6, 4, 4), deprels=("det", "amod", "nsubj", "root", "det", "obj", "punct"),
                   xpos=("DT", "JJ", "NN", "VBD", "DT", "NN", "."), upos=("DET", "ADJ", "NOUN", "VERB", "DET", "NOUN", "PUNCT"))


def toy_parser(sentences):
    """Gold tree of GOLD for any sentence of its length, broken where words changed:
    ``<unk>`` or a new word at position 2 ("dog") moves three heads, at 5 ("cat") one head,
    at 1 ("old") one label. Any other sentence gets a right-branching chain."""
    out = []
    for words in sentences:
        if len(words) != len(GOLD.words):
            out.append(([i + 2 if i + 1 < len(words) else 0 for i in range(len(words))],
                        ["dep"] * (len(words) - 1) + ["root"]))
            continue
        heads, rels = list(GOLD.heads), list(GOLD.deprels)
        if words[2] != "dog":
            heads[0] = heads[1] = heads[2] = 6 if words[2] != "<unk>" else 7
            if words[2] == "hound":       # the strongest substitute
                heads[5] = 1
        if words[5] != "cat":
            heads[5] = 3
        if words[1] != "old":
            rels[1] = "nmod"
        out.append((heads, rels))
    return out


class ListGenerator:
    """Proposes fixed substitutes for every site, under a generator name."""

    def __init__(self, name="synonym", words=("hound", "puppy", "kitten", "young", "An", "it", "!")):
        self.name = name
        self.words = list(words)
        self.sites = []

    def generate(self, sites):
        self.sites.extend(sites)
        return [list(self.words) for _ in sites]


class SiteGenerator:
    """Proposes the given substitutes at the given positions only."""

    name = "mlm"

    def __init__(self, by_position):
        self.by_position = by_position

    def generate(self, sites):
        return [list(self.by_position.get(s.position, ())) for s in sites]


def make_parser(labelled=True):
    return CallableParser(toy_parser if labelled else (lambda s: [h for h, _ in toy_parser(s)]),
                          name="toy", labelled=labelled)


# --- scoring ---------------------------------------------------------------------------------------

def test_attachment_scores_by_hand():
    gold = [[2, 0, 2, 2]]
    rels = [["nsubj", "root", "obj", "punct"]]
    xpos = [["PRP", "VBD", "NN", "."]]
    pred = [[2, 0, 1, 3]]
    prels = [["nsubj:pass", "root", "iobj", "punct"]]
    ud = attachment_scores(gold, pred, gold_deprels=rels, pred_deprels=prels, rule="ud")
    assert (ud.total, ud.head_correct, ud.label_correct) == (4, 2, 2)   # subtype ignored; word 3 wrong head
    ptb = attachment_scores(gold, pred, gold_deprels=rels, pred_deprels=prels, xpos=xpos, rule="ptb")
    assert (ptb.total, ptb.head_correct, ptb.label_correct) == (3, 2, 2) and ptb.uas == pytest.approx(2 / 3)
    assert attachment_errors([2, 0, 2], [2, 0, 2], gold_deprels=["a", "root", "b"], pred_deprels=["a", "root", "c"]) == (3, 0, 1)
    unl = attachment_scores(gold, pred)
    with pytest.raises(ValueError, match="LAS is undefined"):
        unl.las
    with pytest.raises(ValueError, match="ptb rule needs"):
        attachment_scores(gold, pred, rule="ptb")
    with pytest.raises(ValueError, match="unknown attachment rule"):
        attachment_scores(gold, pred, rule="conll")


# --- adapters --------------------------------------------------------------------------------------

def test_callable_parser_caches_and_validates():
    calls = []

    def fn(sents):
        calls.append(len(sents))
        return [Parse(tuple([0] + [1] * (len(s) - 1)), ("root",) + ("dep",) * (len(s) - 1)) for s in sents]

    p = CallableParser(fn)
    p.parse([["a", "b"], ["c"], ["a", "b"]])
    p.parse([["a", "b"]])
    assert p.queries == 2 and calls == [2]
    with pytest.raises(ValueError, match="sentence 0 is empty"):
        p.parse([[]])
    with pytest.raises(ValueError, match="whitespace"):
        p.parse([["a b"]])
    bad = CallableParser(lambda s: [[5] for _ in s])
    with pytest.raises(ModelError, match="head outside"):
        bad.parse([["x"]])
    short = CallableParser(lambda s: [[0] for _ in s])
    with pytest.raises(ModelError, match="1 heads for a sentence of 2 words"):
        short.parse([["x", "y"]])


def test_spacy_parser_keeps_tokens_and_gives_one_tree(sources):
    from robust_bench.io.conllu_io import read_conllu

    sents = read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-test.conllu")[:60]
    p = SpacyParser()
    parses = p.parse([s.forms for s in sents])
    for s, parse in zip(sents, parses):
        assert len(parse.heads) == len(s.forms) and sum(h == 0 for h in parse.heads) == 1
        assert all(d == d.lower() for d in parse.deprels)
    res = attachment_scores([s.heads for s in sents], [x.heads for x in parses], gold_deprels=[s.deprels for s in sents],
                            pred_deprels=[x.deprels for x in parses])
    assert 0.6 < res.uas <= 1 and res.las <= res.uas         # a real parser on real text
    assert p.queries == len({s.forms for s in sents}) and p.calls == 1


def test_stanza_adapter_reads_a_stanza_document_and_fails_clearly_without_stanza():
    class W:
        def __init__(self, head, deprel):
            self.head, self.deprel = head, deprel

    class S:
        def __init__(self, words):
            self.words = words

    class Doc:
        def __init__(self, sents):
            self.sentences = sents

    pipeline = lambda batch: Doc([S([W(0, "root")] + [W(1, "obj")] * (len(ws) - 1)) for ws in batch])  # noqa: E731
    p = StanzaParser("my-model", pipeline=pipeline)
    assert p.parse([["Dogs", "bark"]])[0] == Parse((0, 1), ("root", "obj"))
    with pytest.raises(ModelError, match="stanza is not installed|cannot build a stanza pipeline"):
        load_parser("stanza:/nowhere")
    with pytest.raises(ModelError, match="unknown parser kind"):
        load_parser("udpipe:x")
    with pytest.raises(ModelError, match="cannot import"):
        load_parser("callable:no_such_module:f")


# --- generators and filters ------------------------------------------------------------------------

def _vectors(tmp_path, header=True):
    rows = {"dog": [1.0, 0.1, 0.0], "hound": [0.95, 0.15, 0.0], "car": [0.0, 0.0, 1.0], "cat": [0.8, 0.5, 0.1]}
    lines = [f"{w} " + " ".join(str(x) for x in v) for w, v in rows.items()]
    path = tmp_path / ("vec.txt" if header else "glove.txt")
    path.write_text(("4 3\n" if header else "") + "\n".join(lines) + "\n")
    return path


def test_word_vectors_read_word2vec_and_glove_files(tmp_path):
    for header in (True, False):
        v = load_word_vectors(_vectors(tmp_path, header))
        assert len(v) == 4 and v.neighbours("Dog", 1) == ["hound"] and v.cosine("dog", "zebra") is None
    from robust_bench.perturb.parser_substitutes import SubstituteError

    with pytest.raises(SubstituteError, match="does not exist"):
        load_word_vectors(tmp_path / "missing.txt")


def _query(word="dog", cand="hound", words=("The", "dog", "barks", ".")):
    site = Site(key="k", words=tuple(words), position=words.index(word), xpos="NN", upos="NOUN")
    return FilterQuery(site, cand, tuple(words))


def test_each_filter_rejects_a_bad_candidate_and_keeps_a_good_one(tmp_path):
    from robust_bench.models.taggers import SpacyPosTagger

    emb = EmbeddingFilter(load_word_vectors(_vectors(tmp_path)))
    assert emb.keep([_query(cand="hound"), _query(cand="car"), _query(cand="zebra")]) == [True, False, False]
    pos = PosFilter(SpacyPosTagger())
    assert pos.keep([_query(cand="cat"), _query(cand="quickly")]) == [True, False]
    gram = GrammarFilter(checker=lambda text: text.count("barks barks") + text.count(" a "))
    assert gram.keep([_query(cand="cat"), _query(cand="barks")]) == [True, False]

    class FakeLM:
        def perplexity(self, texts):
            table = {"The dog barks .": 50.0, "The cat barks .": 60.0, "The car barks .": 75.0}
            return np.array([table[t] for t in texts])

    ppl = PerplexityFilter(FakeLM())
    assert ppl.keep([_query(cand="cat"), _query(cand="car")]) == [True, False]     # +10 kept, +25 rejected


def test_grammar_filter_without_languagetool_says_why():
    g = GrammarFilter()
    if not g.available:
        assert "LanguageTool" in g.reason or "language_tool_python" in g.reason
        assert g.keep([_query()]) == [True]


def test_merge_dedupes_keeps_case_and_sources():
    site = Site(key="k", words=("The", "Dog", "ran"), position=1, xpos="NN")
    c = merge_candidates(site, {"synonym": ["hound", "dog", "Canine"], "mlm": ["HOUND", "cat", "|"], "embedding": ["a b"]})
    assert c.words == ["Hound", "Canine", "Cat"]
    assert c.sources == [("synonym", "mlm"), ("synonym",), ("mlm",)]
    assert c.raw == {"synonym": 2, "embedding": 0, "mlm": 2}
    assert recover_word_case("apple", "IBM") == "APPLE" and recover_word_case("Apple", "pear") == "apple"


def test_wordnet_generator_inflects_synonyms():
    from robust_bench.perturb.parser_substitutes import WordNetGenerator

    gen = WordNetGenerator()
    big, cars = gen.generate([Site("k", ("big",), 0, "JJ", lemma="big"), Site("k", ("cars",), 0, "NNS", lemma="car")])
    assert "large" in big and "big" not in big
    assert "automobiles" in cars


def test_masked_lm_generator_is_seeded_and_drops_subwords(parser_attack_models):
    from robust_bench.models.lm import MaskedLMFiller
    from robust_bench.perturb.parser_substitutes import MaskedLMGenerator

    filler = MaskedLMFiller(parser_attack_models["mlm"], device="cpu")
    site = Site("s1", ("The", "dog", "chased", "a", "cat"), 1, "NN")
    a = MaskedLMGenerator(filler, seed=0).generate([site])[0]
    b = MaskedLMGenerator(filler, seed=0).generate([site])[0]
    c = MaskedLMGenerator(filler, seed=1).generate([site])[0]
    assert a == b and a != c and 0 < len(a) <= 50
    assert not any(w.startswith("##") or w in filler.tokenizer.all_special_tokens for w in a)


# --- the attack ------------------------------------------------------------------------------------

def test_importance_ranks_words_by_eq1():
    gen = ListGenerator(words=())
    res = ParserAttack(make_parser(), [gen], []).attack([GOLD])[0]
    # dog: 3 arcs (and their labels) wrong -> 0.5*3 + 0.5*3; cat: 1 arc; old: 1 label only
    assert res.importance == {1: 0.5, 2: 3.0, 3: 0.0, 5: 1.0}
    assert [s.position for s in gen.sites] == [2, 5, 1, 3]   # attackable words, in descending importance


def test_greedy_takes_the_best_candidate_and_stops_at_the_budget():
    res = ParserAttack(make_parser(), [ListGenerator()], []).attack([GOLD])[0]
    assert res.budget == edit_budget(7) == 1
    assert res.edits == [{"type": "synonym", "position": 2, "original": "dog", "replacement": "hound"}]
    assert res.words == ("The", "old", "hound", "chased", "a", "cat", ".") and res.success
    assert res.adversarial_errors == (4, 4) and res.original_errors == (0, 0)


def test_forbidden_classes_are_never_substituted():
    words = ("It", "was", "the", "first", "of", "three", "long", "walks", "and", "we", "enjoyed", "it", "very",
             "much", "today", ",", "Sue", "said", "!")
    xpos = ("PRP", "VBD", "DT", "JJ", "IN", "CD", "JJ", "NNS", "CC", "PRP", "VBD", "PRP", "RB", "RB", "NN", ",",
            "NNP", "VBD", ".")
    heads = (2, 0) + (2,) * 17
    ex = TreeExample(id="f", words=words, heads=heads, xpos=xpos)

    def fragile(sentences):       # every changed word loses its gold head
        return [[h if w == o else (3 if h != 3 else 4) for w, o, h in zip(s, words, heads)] for s in sentences]

    gen = ListGenerator(words=("thing", "Other"))
    res = ParserAttack(CallableParser(fragile, labelled=False), [gen], []).attack([ex])[0]
    forbidden = {i for i, x in enumerate(xpos) if x in ("PRP", "DT", "IN", "CD", "CC", ",", ".")}
    assert {s.position for s in gen.sites}.isdisjoint(forbidden)
    assert len(res.edits) == res.budget == edit_budget(len(words)) == 3
    assert {e["position"] for e in res.edits}.isdisjoint(forbidden) and res.success


def test_budget_and_no_parse_twice():
    assert [edit_budget(n) for n in (1, 5, 6, 12, 19, 20, 40)] == [1, 1, 1, 1, 3, 3, 6]
    parser = make_parser()
    ParserAttack(parser, [ListGenerator()], []).attack([GOLD, GOLD])
    seen = parser.queries
    ParserAttack(parser, [ListGenerator()], []).attack([GOLD])
    assert parser.queries == seen            # every word sequence was parsed once


def test_unlabelled_success_is_a_uas_drop():
    gen = SiteGenerator({1: ["young"]})           # changes a label only (see toy_parser)
    labelled = ParserAttack(make_parser(), [gen], []).attack([GOLD])[0]
    assert labelled.success and labelled.adversarial_errors == (0, 1)
    unlabelled = ParserAttack(make_parser(labelled=False), [gen], []).attack([GOLD])[0]
    assert not unlabelled.labelled and unlabelled.edits == [] and not unlabelled.success


# --- the corpora, on the real treebanks ------------------------------------------------------------

def test_nltk_wsj_sample_is_read_whole(sources):
    from robust_bench.io.dependency_treebank import read_nltk_dependency_treebank

    sents = read_nltk_dependency_treebank()
    assert len(sents) == 3914 and sents[0].forms[:2] == ("Pierre", "Vinken") and sents[0].deprels is None


@pytest.mark.parametrize("config", ["adv_ewt", "adv_ptb"])
def test_adversarial_treebank_keeps_gold_trees(build_any, config, sources):
    import datasets

    repo = build_any(config)
    ds = datasets.load_dataset(str(repo), config, split="test")
    assert len(ds) == 12
    if config == "adv_ewt":
        from robust_bench.io.conllu_io import read_conllu

        gold = read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-test.conllu")[:12]
    else:
        from robust_bench.io.dependency_treebank import read_nltk_dependency_treebank

        gold = read_nltk_dependency_treebank()[:12]
    n_edits = 0
    for row, g in zip(ds, gold):
        assert tuple(row["original_tokens"]) == g.forms and tuple(row["head"]) == g.heads
        changed = {i for i, (a, b) in enumerate(zip(row["tokens"], row["original_tokens"])) if a != b}
        assert changed == {e["position"] for e in row["edits"]} and len(changed) <= row["budget"]
        assert not any(x in ("DT", "PRP", "IN", "CC", "CD", ",", ".") for x in (row["xpos"][i] for i in changed))
        n_edits += len(changed)
        if config == "adv_ptb":
            assert set(row["deprel"]) == {"_"}
    assert n_edits > 0
    from robust_bench.data.repository import read_metadata

    meta = read_metadata(repo)[config]
    results, examples = results_from_rows(ds)
    s = summarise(results, examples)
    assert ("las_original" in s["scores"]["ud"]) == (config == "adv_ewt")
    assert s["scores"]["ud"]["uas_adversarial"] <= s["scores"]["ud"]["uas_original"]
    assert meta["statistics"]["test"]["successes"] == s["successes"] == sum(ds["success"])
    assert meta["provenance"]["attack"]["generators"] == ["synonym", "embedding", "mlm"]
    assert "sememe" in meta["provenance"]["attack"]["unavailable"]


def test_attack_parser_cli_on_a_second_parser(tmp_path, parser_attack_models, sources):
    """The same attack against a Python callable (the toy parser of this module) on the WSJ sample,
    through the command a user runs; tables, record, figures and the stored config."""
    exe = Path(sys.executable).with_name("robust-bench")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ROBUST_BENCH_SOURCES": str(sources)}
    args = [str(exe), "attack-parser", "--parser", "callable:tests.test_parser_attack:chain_parser", "--config",
            "adv_ptb", "--limit", "8", "--mlm", parser_attack_models["mlm"], "--lm", parser_attack_models["lm"],
            "--vectors", parser_attack_models["vectors"], "--out", str(tmp_path / "repo"),
            "--output-dir", str(tmp_path / "results")]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    for table in ("Table 6", "Table 4", "Table 7", "Table 2", "Table 5"):
        assert table in out
    assert "| chain_parser | ud |" in out and "| chain_parser | ptb |" in out
    rec = json.loads(next((tmp_path / "results").glob("*.json")).read_text())
    assert 0 <= rec["metrics"]["attack_success_rate"] <= 1 and "las_original_ud" not in rec["metrics"]
    assert (tmp_path / "repo" / "data" / "adv_chain_parser_ptb" / "test.parquet").is_file()
    assert list((tmp_path / "results").glob("*__candidates.png"))
    bad = subprocess.run(args[:2] + ["--parser", "spacy:/nowhere", "--vectors", parser_attack_models["vectors"]],
                         cwd=tmp_path, capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "error:" in bad.stderr and "/nowhere" in bad.stderr


def chain_parser(sentences):
    """A second, deliberately simple parser for the CLI test: each word attaches to the nearest
    following verb-like word (ending in -s, -ed or -ing), else to the word before; the first such
    word is the root. Unlabelled."""
    out = []
    for words in sentences:
        verbs = [i for i, w in enumerate(words) if w.lower().endswith(("s", "ed", "ing")) and len(w) > 3]
        root = verbs[0] if verbs else 0
        heads = []
        for i in range(len(words)):
            nxt = [v for v in verbs if v > i]
            if i == root:
                heads.append(0)
            elif i in verbs or not nxt:
                heads.append(root + 1)
            else:
                heads.append(nxt[0] + 1)
        out.append(heads)
    return out


def test_sememe_generator_matches_sememes_and_pos():
    """OpenHowNet's data cannot be downloaded here; a HowNet-like dictionary of four senses checks the rule:
    same part of speech and identical sememe set."""
    from robust_bench.perturb.parser_substitutes import SememeGenerator, SubstituteError

    class Sense:
        def __init__(self, word, grammar, sememes):
            self.en_word, self.en_grammar, self._s = word, grammar, sememes

        def get_sememe_list(self):
            return self._s

    class HowNet:
        def get_all_senses(self):
            return [Sense("car", "noun", ["LandVehicle|车"]), Sense("automobile", "noun", ["LandVehicle|车"]),
                    Sense("car", "verb", ["drive|驾驶"]), Sense("truck", "noun", ["LandVehicle|车", "heavy|重"])]

    gen = SememeGenerator(HowNet())
    noun, verb = gen.generate([Site("k", ("car",), 0, "NN"), Site("k", ("car",), 0, "VB")])
    assert noun == ["automobile"] and verb == []
    try:
        import OpenHowNet  # noqa: F401
    except ImportError:
        with pytest.raises(SubstituteError, match="OpenHowNet"):
            SememeGenerator()
