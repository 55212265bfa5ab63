"""Worst-case attacks: classifiers that key on a preposition or an article must be flipped by all
three searches, within the budget, with correct edits; label mapping; the attack command."""

import json

import numpy as np
import pytest

from robust_bench.attacks.search import SEARCHES, AttackTarget, attack
from robust_bench.models.classifiers import CallableClassifier, HFClassifier, LabelMappingError, map_labels
from robust_bench.perturb.gec import Token, apply_edits, render
from tests.helpers import run_cli

NLI = ["entailment", "neutral", "contradiction"]


def sent(*rows):
    return [Token(r[0], r[1], r[2], r[3], r[4], r[5], r[6] if len(r) > 6 else "", space=k < len(rows) - 1)
            for k, r in enumerate(rows)]


# "The children walked to the old school every morning ." (hand-parsed)
WALKED = sent(("The", "DT", "DET", "det", 1, "the"), ("children", "NNS", "NOUN", "nsubj", 2, "child", "Number=Plur"),
              ("walked", "VBD", "VERB", "root", 2, "walk", "Tense=Past|VerbForm=Fin"), ("to", "IN", "ADP", "case", 6, "to"),
              ("the", "DT", "DET", "det", 6, "the"), ("old", "JJ", "ADJ", "amod", 6, "old", "Degree=Pos"),
              ("school", "NN", "NOUN", "obl", 2, "school", "Number=Sing"), ("every", "DT", "DET", "det", 8, "every"),
              ("morning", "NN", "NOUN", "obl:tmod", 2, "morning", "Number=Sing"), (".", ".", "PUNCT", "punct", 2, "."))


class Recorder:
    """A classifier keyed on the preposition 'to'; records every input the model sees."""

    def __init__(self):
        self.seen = []

    def __call__(self, inputs):
        self.seen += inputs
        return np.array([[0.8, 0.1, 0.1] if "to" in hyp.lower().split() else [0.1, 0.2, 0.7] for _, hyp in inputs])


@pytest.mark.parametrize("search", SEARCHES)
def test_every_search_flips_a_preposition_keyed_classifier(search):
    rec = Recorder()
    clf = CallableClassifier(rec, NLI)
    target = AttackTarget(WALKED, lambda w, s, e: ("Some premise .", render(w, s)), label=0)
    res = attack(clf, target, search=search, budget_rate=0.15, seed=1)
    assert res.success and res.prediction != 0
    assert res.budget == 2 and res.modified <= res.budget
    assert [e["type"] for e in res.edits] == ["Prep"] and res.edits[0]["position"] == 3
    words, spaces = apply_edits([t.text for t in WALKED], [t.space for t in WALKED], res.edits)
    assert words == res.words and "to" not in [w.lower() for w in words]
    assert res.queries == len(rec.seen) == len(set(rec.seen))      # never the same input twice


def test_an_unbreakable_classifier_is_not_flipped_and_budget_is_kept():
    clf = CallableClassifier(lambda xs: np.tile([0.9, 0.05, 0.05], (len(xs), 1)), NLI)
    target = AttackTarget(WALKED, lambda w, s, e: ("p", render(w, s)), label=0)
    for search in SEARCHES:
        res = attack(clf, target, search=search)
        assert not res.success and res.modified <= res.budget


def _article_data():
    nouns = ["dog", "cat", "girl", "boy", "farmer", "teacher", "bird", "child"]
    verbs = ["sees", "likes", "finds", "helps"]
    objs = ["apple", "house", "river", "garden", "letter", "song"]
    texts, labels = [], []
    for n in nouns:
        for v in verbs:
            for o in objs:
                # positive iff the sentence starts with "the": without an article it is negative too, so
                # the model is keyed on "the" itself (not on "a" against "the"), whatever it learns
                texts += [f"the {n} {v} a {o} .", f"a {n} {v} a {o} .", f"{n} {v} a {o} ."]
                labels += [1, 0, 0]
    return texts, labels


@pytest.fixture(scope="module")
def article_model(tmp_path_factory):
    from robust_bench.models.tiny import build_tiny_classifier

    texts, labels = _article_data()
    return build_tiny_classifier(tmp_path_factory.mktemp("article") / "m", texts, labels, ["negative", "positive"],
                                 hidden=32, epochs=6, lr=2e-3, vocab_size=200)


@pytest.mark.parametrize("search", SEARCHES)
def test_every_search_flips_a_tiny_transformer_keyed_on_an_article(article_model, search):
    clf = HFClassifier(str(article_model), ["negative", "positive"])
    texts, labels = _article_data()
    assert np.mean(clf.predict(texts) == np.array(labels)) > 0.95
    toks = sent(("the", "DT", "DET", "det", 1, "the"), ("girl", "NN", "NOUN", "nsubj", 2, "girl"),
                ("helps", "VBZ", "VERB", "root", 2, "help"), ("a", "DT", "DET", "det", 4, "a"),
                ("garden", "NN", "NOUN", "obj", 2, "garden"), (".", ".", "PUNCT", "punct", 2, "."))
    res = attack(clf, AttackTarget(toks, lambda w, s, e: render(w, s), label=1), search=search, budget_rate=0.15)
    assert res.success and res.budget == 1 and res.modified == 1
    e = res.edits[0]
    assert e["position"] == 0 and e["original"] == "the"
    assert res.words[0] != "the"


def test_label_mapping():
    assert map_labels({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, NLI) == [2, 1, 0]
    assert map_labels({0: "entailment", 1: "not_entailment"}, ["entailment", "not_entailment"]) == [0, 1]
    with pytest.raises(LabelMappingError, match="generic"):
        map_labels({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, NLI)
    assert map_labels({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, NLI,
                      {"LABEL_0": "neutral", "LABEL_1": "entailment", "LABEL_2": "contradiction"}) == [1, 0, 2]
    with pytest.raises(LabelMappingError, match="both mean"):
        map_labels({0: "entailment", 1: "entails", 2: "contradiction"}, NLI)
    with pytest.raises(LabelMappingError, match="no model output for dataset labels \\['neutral'\\]"):
        map_labels({0: "entailment", 1: "contradiction"}, NLI)


def test_ambiguous_hf_model_raises(tmp_path):
    from robust_bench.models.tiny import build_tiny_classifier

    texts, labels = _article_data()
    path = build_tiny_classifier(tmp_path / "generic", texts[:20], labels[:20], ["LABEL_0", "LABEL_1"], epochs=1)
    with pytest.raises(LabelMappingError, match="--label-map"):
        HFClassifier(str(path), ["negative", "positive"])
    ok = HFClassifier(str(path), ["negative", "positive"], label_map={"LABEL_0": "negative", "LABEL_1": "positive"})
    assert ok.predict_proba(["the dog sees a song ."]).shape == (1, 2)


def test_attack_command_on_gec_sst2(gec_repo, sst2_classifier, tmp_path):
    """The attack command end to end on a built config with a locally trained classifier."""
    import datasets

    model = sst2_classifier
    repo = tmp_path / "robust-bench"
    import shutil

    shutil.copytree(gec_repo, repo)
    from robust_bench.results.records import model_slug
    from robust_bench.suite.runner import run_folder

    proc = run_cli(["attack", "--model", str(model), "--config", "gec_sst2", "--search", "greedy",
                    "--repo", str(repo), "--output-dir", str(tmp_path / "results")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "attack success rate" in proc.stdout and "success vs budget: 15%" in proc.stdout
    (run,) = run_folder(tmp_path / "results", str(model)).iterdir()
    rec = json.loads((run / "records" / "gec_sst2.json").read_text())
    assert rec["schema_version"].startswith("2") and rec["suite"]["name"] == "grammatical_errors"
    log = [json.loads(x)["outcome"] for x in (run / "logs" / "gec_sst2.jsonl").open()]
    attacked, successes = sum(o["attacked"] for o in log), sum(o["success"] for o in log)
    assert 0 <= rec["metrics"]["attack_success_rate"] <= 1 and attacked >= 1
    assert rec["metrics"]["attack_success_rate"] == pytest.approx(successes / attacked)
    adv = datasets.load_dataset(str(repo), f"adv_{model_slug(str(model))}_gec_sst2_greedy", split="validation")
    assert len(adv) == attacked and sum(adv["success"]) == successes
    assert (run / "tables" / "gec_sst2__attack.txt").is_file()
    assert list((run / "figures").glob("gec_sst2__budget.png")) and list((run / "figures").glob("gec_sst2__budget.svg"))


@pytest.mark.parametrize("config", ["gec_mnli", "gec_conll2003"])
def test_an_attack_on_the_stored_search_space_loads_no_pipeline_and_matches_a_parse(gec_repo, config, monkeypatch):
    """The search space a gec_* config ships is the one a parse with the build's pipelines gives: the same
    attacks (edits, queries, success) and refusals; an attack on it runs with every pipeline, tagger and
    encoder hidden."""
    import datasets

    from robust_bench.attacks.gec import AttackError, run_attack, run_ner_attack
    from robust_bench.io.task_data import CONLL2003_TAGS
    from robust_bench.models.taggers import CallableTokenClassifier
    from robust_bench.text.nlp import load_spacy

    split = "validation_matched" if config == "gec_mnli" else "validation"
    rows = datasets.load_dataset(str(gec_repo), config, split=split).select(range(40))
    if config == "gec_conll2003":
        tags = list(CONLL2003_TAGS)

        lex = {w: t for r in rows for w, t in zip(r["tokens"], r["ner_tags"])}

        def fn(sentences):   # the rows' tags by word, an entity lost after a word it does not know (an edit)
            out = []
            for ws in sentences:
                p = np.full((len(ws), len(tags)), 0.01)
                for i, w in enumerate(ws):
                    p[i, 0 if i and ws[i - 1] not in lex else lex.get(w, 0)] = 1
                out.append(p / p.sum(axis=1, keepdims=True))
            return out
        model = CallableTokenClassifier(fn, tags)

        def attack_with(candidates, nlp=None, rows=rows):
            return run_ner_attack(model, rows, search="greedy", progress=False, candidates=candidates, nlp=nlp)
    else:
        def fn(pairs):   # keyed on the words the engine edits most: prepositions and articles
            return np.array([[0.2, 0.3, 0.5] if sum(w.lower() in ("to", "of", "in", "the", "a") for w in h.split()) % 2
                             else [0.6, 0.3, 0.1] for _, h in pairs])
        model = CallableClassifier(fn, NLI)
        rows = rows.map(lambda r: {"label": int(np.argmax(fn([(r["premise"], r["hypothesis"])])[0]))})

        def attack_with(candidates, nlp=None, rows=rows):
            return run_attack(model, rows, config, search="greedy", progress=False, candidates=candidates, nlp=nlp)
    parsed = attack_with("parse", load_spacy())

    def hidden(*a, **k):
        raise AssertionError("a pipeline was loaded")
    import spacy
    import sentence_transformers

    monkeypatch.setattr(spacy, "load", hidden)
    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", hidden)
    stored = attack_with("stored")
    assert parsed["summary"] == stored["summary"] and parsed["summary"]["attacked"] >= 5
    assert [(r.idx, r.result.edits, r.result.queries, r.result.success) for r in parsed["examples"]] \
        == [(r.idx, r.result.edits, r.result.queries, r.result.success) for r in stored["examples"]]
    assert any(r.result.success for r in stored["examples"])
    with pytest.raises(AttackError, match="no stored search space.*rebuild"):
        attack_with("stored", rows=rows.remove_columns(["attack_operations"]))


def test_ner_attack_command_honours_dtype_and_agree_with(gec_repo, tiny_tagger, tmp_path):
    """Before: gec_conll2003 ignored --dtype and --agree-with. Now a bad value of either is refused
    in one line, and good values run end to end."""
    import shutil

    tagger, _ = tiny_tagger
    repo = tmp_path / "robust-bench"
    shutil.copytree(gec_repo, repo)
    base = ["attack", "--model", str(tagger), "--config", "gec_conll2003", "--repo", str(repo),
            "--limit", "3", "--no-curve"]
    for k, (extra, message) in enumerate(((["--dtype", "float7"], "unknown dtype 'float7'"),
                                          (["--agree-with", str(tmp_path / "no-model")], "does not exist"))):
        proc = run_cli(base + extra + ["--output-dir", str(tmp_path / f"bad{k}")])
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    # good values are accepted and the second tagger is consulted; the random tagger gets no
    # sentence right: nothing is attacked, which the report says (the run's record has its clean F1)
    proc = run_cli(base + ["--dtype", "float32", "--agree-with", str(tagger), "--output-dir", str(tmp_path / "ok")])
    assert proc.returncode == 0 and "nothing to attack" in proc.stdout and "Traceback" not in proc.stderr, proc.stderr


def test_ner_attack_flips_a_tagger_keyed_on_a_preposition():
    """A tagger that calls a capitalised word after 'in' a location: the attack must break the
    preposition, never the entities, and report the entity-F1 drop."""
    import datasets

    from robust_bench.attacks.gec import run_ner_attack
    from robust_bench.models.taggers import CallableTokenClassifier
    from robust_bench.io.task_data import CONLL2003_TAGS

    tags = list(CONLL2003_TAGS)

    def tagger_fn(sentences):
        out = []
        for ws in sentences:
            p = np.full((len(ws), len(tags)), 0.01)
            for i, w in enumerate(ws):
                if w[:1].isupper() and i > 0 and ws[i - 1].lower() == "in":
                    p[i, tags.index("B-LOC")] = 1
                elif w[:1].isupper() and i > 0:
                    p[i, tags.index("B-PER")] = 1
                else:
                    p[i, tags.index("O")] = 1
            out.append(p / p.sum(axis=1, keepdims=True))
        return out

    sents = [("Yesterday John stayed in Paris with friends .", ["O", "B-PER", "O", "O", "B-LOC", "O", "O", "O"]),
             ("Mary lives in Rome now .", ["O", "O", "O", "B-LOC", "O", "O"])]
    feats = datasets.Features({"tokens": datasets.List(datasets.Value("string")),
                               "ner_tags": datasets.List(datasets.ClassLabel(names=tags))})
    rows = datasets.Dataset.from_list([{"tokens": s.split(), "ner_tags": [tags.index(t) for t in g]} for s, g in sents],
                                      features=feats)
    tagger = CallableTokenClassifier(tagger_fn, tags)
    run = run_ner_attack(tagger, rows, search="greedy", progress=False, candidates="parse")
    s = run["summary"]
    assert s["attacked"] == 2 and s["attack_success_rate"] == 1.0
    # entity F1 by the evaluation's declared formula over its log lines (its one definition)
    from robust_bench.evaluations.gec import attack, attack_examples
    from robust_bench.results.runs import log_columns
    from robust_bench.scoring.intervals import metric_value

    entries, _ = attack_examples(tagger, rows, "gec_conll2003", uids=["s0", "s1"], search="greedy", budget=0.15, seed=0,
                                 candidates="parse")
    f1 = {m.name: metric_value(m.formula, log_columns(entries)) for m in attack.metrics if m.name.startswith("f1_")}
    assert f1["f1_clean"] == 1.0 and f1["f1_clean"] - f1["f1_adversarial"] > 0.3
    for ex, (sent_text, gold) in zip(run["examples"], sents):
        r = ex.result
        assert r.modified <= r.budget
        for e in r.edits:
            assert gold[e["position"]] == "O" or e["operation"] == "insert"
        ents = [w for w, t in zip(sent_text.split(), gold) if t != "O"]
        assert all(w in r.words for w in ents)


@pytest.mark.parametrize("search", SEARCHES)
def test_batching_across_examples_gives_the_same_attacks(search):
    from robust_bench.attacks.search import attack_many

    def fn(inputs):
        # a smooth, deterministic score of the words, so every search has real choices to make
        out = []
        for _, hyp in inputs:
            h = sum(ord(c) for c in hyp) % 97 / 97
            p = 0.45 + 0.5 * h if "to" in hyp.split() else 0.2 * h
            out.append([p, (1 - p) / 2, (1 - p) / 2])
        return np.array(out)

    targets = [AttackTarget(WALKED, (lambda w, s, e, k=k: (f"premise {k} .", render(w, s))), label=0) for k in range(6)]
    one = [attack(CallableClassifier(fn, NLI), t, search=search, seed=k) for k, t in enumerate(targets)]
    many = attack_many(CallableClassifier(fn, NLI), targets, search=search, group=4)
    assert [(r.success, r.edits, r.queries) for r in one] == [(r.success, r.edits, r.queries) for r in many]
    # two lanes, the model on a worker thread (the GPU default): the same attacks; an example
    # attacked twice (the same input in both lanes) counts its own queries each time
    targets = targets + targets[:2]
    one += one[:2]
    for group in (2, 4, 64):
        lanes = attack_many(CallableClassifier(fn, NLI), targets, search=search, group=group, overlap=True,
                            seeds=[0, 1, 2, 3, 4, 5, 0, 1])
        assert [(r.success, r.edits, r.queries) for r in one] == [(r.success, r.edits, r.queries) for r in lanes]


def test_pending_predictions_send_each_input_once():
    from concurrent.futures import ThreadPoolExecutor

    sent = []

    def fn(inputs):
        sent.extend(inputs)
        return np.array([[len(x) % 3 + 1.0, 1.0] for x in inputs])

    clf = CallableClassifier(fn, ("a", "b"))
    with ThreadPoolExecutor(1) as ex:
        first = clf.predict_proba_later(["x", "yy", "x"], ex)
        second = clf.predict_proba_later(["yy", "zzz"], ex)
        p2 = second.result()          # waits for the first call, which holds "yy"
        p1 = first.result()
    assert sorted(sent) == ["x", "yy", "zzz"] and clf.queries == 3
    np.testing.assert_allclose(p1[0], p1[2])
    np.testing.assert_allclose(p2, clf.predict_proba(["yy", "zzz"]))
    assert clf.queries == 3 and len(sent) == 3

    def broken(inputs):
        raise RuntimeError("model crashed")

    bad = CallableClassifier(broken, ("a", "b"))
    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(RuntimeError, match="model crashed"):
            bad.predict_proba_later(["x"], ex).result()
    assert not bad._pending and bad.queries == 0      # nothing left pending, nothing counted


def test_greedy_budget_curve_from_one_run_equals_one_run_per_budget(sources):
    """Yin et al.'s Fig. 1 curve: for greedy search, one run at the largest budget (plus reruns of
    the examples whose walk may differ) gives what a run per budget gives, on real sentences."""
    from collections import Counter

    from robust_bench.attacks.gec import CURVE_BUDGETS, budget_curve
    from robust_bench.attacks.search import attack_many
    from robust_bench.io.task_data import read_nli
    from robust_bench.perturb.gec import tokens_from_doc
    from robust_bench.scoring import attack_success_rate
    from robust_bench.text.nlp import load_spacy

    pairs = read_nli(sources / "snli" / "dev_sample.tsv")[:40]
    docs = list(load_spacy().pipe([p["hypothesis"] for p in pairs]))
    original = {k: Counter(p["hypothesis"].split()) for k, p in enumerate(pairs)}

    def fn(inputs):
        # p(label 0) falls with every word changed, with a small deterministic wobble per input
        out = []
        for prem, hyp in inputs:
            k = int(prem.split()[1])
            changed = sum((Counter(hyp.split()) - original[k]).values()) + sum((original[k] - Counter(hyp.split())).values())
            p = max(0.0, min(1.0, 0.92 - 0.09 * changed - 0.1 * (sum(map(ord, hyp)) % 13) / 13))
            out.append([p, (1 - p) / 2, (1 - p) / 2])
        return np.array(out)

    clf = CallableClassifier(fn, NLI)
    targets = [AttackTarget(tokens_from_doc(d), (lambda w, s, e, k=k: (f"premise {k} .", render(w, s))), label=0)
               for k, d in enumerate(docs)]
    fast = budget_curve(clf, targets, search="greedy")
    slow = {b: attack_success_rate([r.success for r in attack_many(clf, targets, search="greedy", budget_rate=b,
                                                                   seeds=list(range(len(targets))))])
            for b in CURVE_BUDGETS}
    assert fast == slow
    assert len(set(slow.values())) >= 3, slow   # the budgets matter on these sentences
