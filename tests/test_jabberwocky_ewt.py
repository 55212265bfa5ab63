"""End to end: jabberwocky_ewt built from the real UD English EWT in ../shared."""

import datasets
import numpy as np
import pytest

from robust_bench.io.conllu_io import read_conllu
from robust_bench.perturb.jabberwocky import OPEN_CLASSES
from robust_bench.text.pseudowords import wordnet_lemmas
from robust_bench.data.repository import read_metadata

FILES = {"train": "train", "validation": "dev", "test": "test"}


@pytest.fixture(scope="module")
def jab(built_repo, monkeypatch_module=None):
    return datasets.load_dataset(str(built_repo), "jabberwocky_ewt")


def _source(sources, split):
    """The sentences of a split's source file that the tests' build holds (its first --set limit=N)."""
    from tests.conftest import TEST_LIMITS

    return read_conllu(sources / "ud_english_ewt" / f"en_ewt-ud-{FILES[split]}.conllu")[:TEST_LIMITS["jabberwocky_ewt"]]


def test_sentence_counts_are_the_limit(jab):
    from tests.conftest import TEST_LIMITS

    n = TEST_LIMITS["jabberwocky_ewt"]
    assert {s: len(jab[s]) for s in jab} == {"train": n, "validation": n, "test": n}


@pytest.mark.full
def test_whole_build_has_the_treebank_counts_and_share(build_any):
    """The whole corpus, as the suite pins it: every sentence of UD English EWT r2.16, about a third of
    the tokens replaced."""
    repo = build_any("jabberwocky_ewt", whole=True)
    meta = read_metadata(repo)["jabberwocky_ewt"]
    assert {s: f["rows"] for s, f in meta["files"].items()} == {"train": 12544, "validation": 2001, "test": 2077}
    assert 0.25 < meta["statistics"]["test"]["substituted_share"] < 0.45


@pytest.mark.parametrize("split", list(FILES))
def test_every_tree_equals_its_source(jab, sources, split):
    src = _source(sources, split)
    rows = jab[split]
    names = rows.features["upos"].feature.names
    assert len(rows) == len(src)
    for sent, row in zip(src, rows):
        assert row["sent_id"] == sent.sent_id
        assert tuple(row["head"]) == sent.heads and tuple(row["deprel"]) == sent.deprels
        assert tuple(names[t] for t in row["upos"]) == sent.upos
        assert tuple(row["xpos"]) == sent.xpos and tuple(row["feats"]) == sent.feats
        assert tuple(row["original_tokens"]) == sent.forms
        tokens = list(sent.forms)
        for e in row["edits"]:
            assert tokens[e["position"]] == e["original"]
            tokens[e["position"]] = e["replacement"]
        assert tokens == row["tokens"]
        assert [t != o for t, o in zip(row["tokens"], row["original_tokens"])] == \
            [f and t != o for f, t, o in zip(row["substituted"], row["tokens"], row["original_tokens"])]


def test_every_eligible_word_is_replaced_and_no_other(jab, sources, built_repo):
    """Both halves: every open-class word the engine does not skip is replaced, every other word is
    kept; and the card's "kept, and why" counts are the engine's own reasons."""
    from collections import Counter

    from robust_bench.perturb.jabberwocky import skip_reasons

    gold = _source(sources, "test")
    rows = jab["test"]
    assert len(rows) == len(gold)
    reasons: Counter = Counter()
    for row, sent in zip(rows, gold):
        assert row["sent_id"] == sent.sent_id
        skipped = skip_reasons(sent)
        reasons.update(skipped.values())
        for i, (upos, flag) in enumerate(zip(sent.upos, row["substituted"])):
            eligible = upos in OPEN_CLASSES and i not in skipped
            assert flag == eligible, (sent.sent_id, i, sent.forms[i], upos, skipped.get(i))
            assert (row["tokens"][i] != row["original_tokens"][i]) <= flag
    meta = read_metadata(built_repo)["jabberwocky_ewt"]
    assert meta["statistics"]["test"]["open_class_not_substituted"] == dict(sorted(reasons.items()))
    assert sum(reasons.values()) > 0 and len(reasons) >= 2


def test_pseudowords_are_not_real_words(jab, sources, built_repo):
    meta = read_metadata(built_repo)["jabberwocky_ewt"]
    assert meta["provenance"]["pseudowords"]["inventory_size"] >= 1500
    lexicon = {line.split("\t")[0].lower() for line in
               (sources / "wuggy" / "orthographic_english.txt").read_text(encoding="utf-8").splitlines()}
    ewt = set()
    for split in jab:
        for row in jab[split].select_columns(["original_tokens"]):
            ewt.update(w.lower() for w in row["original_tokens"])
    lemmas, wn = wordnet_lemmas()
    replacements = set()
    for split in jab:
        for row in jab[split].select_columns(["edits"]):
            replacements.update(e["replacement"].lower() for e in row["edits"])
    assert len(replacements) > 1000
    real = {w for w in replacements if w in lexicon or w in ewt or w in lemmas}
    assert not real, sorted(real)[:20]


def test_statistics_recount(jab, built_repo):
    stats = read_metadata(built_repo)["jabberwocky_ewt"]["statistics"]
    for split in jab:
        tokens = sum(len(t) for t in jab[split]["tokens"])
        subs = sum(sum(f) for f in jab[split]["substituted"])
        assert stats[split]["tokens"] == tokens and stats[split]["substituted_tokens"] == subs
        assert stats[split]["substituted_share"] == round(subs / tokens, 4)
    print({s: stats[s]["substituted_share"] for s in stats})
    assert 0.25 < stats["test"]["substituted_share"] < 0.45


def test_other_seed_changes_words_not_trees(built_repo, built_repo_seed1):
    a = datasets.load_dataset(str(built_repo), "jabberwocky_ewt", split="test")
    b = datasets.load_dataset(str(built_repo_seed1), "jabberwocky_ewt", split="test")
    for col in ("sent_id", "original_tokens", "upos", "xpos", "feats", "head", "deprel", "substituted"):
        assert a[col] == b[col], col
    changed = [x != y for x, y, f in zip(a["tokens"], b["tokens"], a["substituted"]) if any(f)]
    assert np.mean(changed) > 0.9
