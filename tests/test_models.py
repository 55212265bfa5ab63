"""The model layer: one loader (device, dtype, revision pinning, errors), length-sorted batches, the
prediction cache, taggers that never truncate, and the encoder adapter on a real pretrained encoder."""

from __future__ import annotations

import re

import numpy as np
import pytest

from robust_bench.models.loader import (ModelError, PredictionCache, length_sorted_batches, model_revision,
                                        resolve_device, resolve_dtype)
from tests.conftest import SHARED

MINILM = SHARED / "models" / "all-MiniLM-L6-v2"


def test_one_resolver_for_device_and_dtype():
    import torch

    assert resolve_device("cpu") == "cpu"
    assert resolve_dtype("cpu") is torch.float32 and resolve_dtype("cpu", "bfloat16") is torch.bfloat16
    with pytest.raises(ModelError, match="unknown dtype 'float8'"):
        resolve_dtype("cpu", "float8")
    with pytest.raises(ModelError, match="unknown device"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ModelError, match="CUDA is not available"):
            resolve_device("cuda:0")


def test_a_revision_is_always_pinned(tiny_models, tmp_path):
    rev = model_revision(str(tiny_models["bert"]))
    assert re.fullmatch(r"local-[0-9a-f]{64}", rev)
    assert model_revision(str(tiny_models["bert"])) == rev          # stable
    cfg = type("Cfg", (), {"_commit_hash": "a" * 40})()
    assert model_revision("org/model", "main", cfg) == "a" * 40
    assert model_revision("org/model", "b" * 40, None) == "b" * 40
    with pytest.raises(ModelError, match="cannot pin the revision of 'org/model'"):
        model_revision("org/model", "main", type("Cfg", (), {"_commit_hash": None})())


def test_a_missing_folder_is_called_a_missing_folder(tmp_path):
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.models.lm import CausalLMScorer

    for make in (lambda p: HFClassifier(p, ["a", "b"]), lambda p: CausalLMScorer(p)):
        with pytest.raises(ModelError, match=r"model folder '.*no-such' does not exist"):
            make(str(tmp_path / "no-such"))


def test_length_sorted_batches_cover_every_index_once():
    lengths = [5, 1, 3, 3, 9, 0, 2]
    batches = length_sorted_batches(lengths, 3)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(7)) and [len(b) for b in batches] == [3, 3, 1]
    assert [lengths[i] for i in flat] == sorted(lengths)
    with pytest.raises(ValueError):
        length_sorted_batches(lengths, 0)


def test_prediction_cache_sends_each_input_once():
    seen = []
    cache = PredictionCache()

    def forward(keys):
        seen.append(list(keys))
        return [k * 2 for k in keys]

    assert cache.get_many([1, 2, 1, 3], forward) == [2, 4, 2, 6]
    assert cache.get_many([3, 4], forward) == [6, 8]
    assert seen == [[1, 2, 3], [4]] and cache.queries == 4


def test_adapters_share_the_loader(tiny_models, tiny_lm):
    from robust_bench.models.encoders import EncoderAdapter
    from robust_bench.models.lm import CausalLMScorer

    lm = CausalLMScorer(str(tiny_lm))
    assert lm.revision == model_revision(str(tiny_lm))
    enc = EncoderAdapter(str(tiny_models["bert"]), use_cache=False)
    assert enc.fingerprint() == model_revision(str(tiny_models["bert"]))
    ppl = lm.perplexity(["a cat sat .", "a cat sat .", "dogs run ."])
    assert ppl[0] == ppl[1] and lm.queries == 2 and np.all(ppl >= 1)


def test_a_tagger_tags_every_word_of_a_long_sentence_in_windows(tiny_tagger, ewt_test_words):
    """Before: words past the model's limit got uniform probabilities, i.e. tag 0, which counted in F1."""
    from robust_bench.models.taggers import HFTokenClassifier

    path, tags = tiny_tagger
    tagger = HFTokenClassifier(str(path), tags, dtype="float32")
    long = next(s for s in ewt_test_words if len(s) > 30)
    short = long[:5]
    probs = tagger.predict_proba([long, short])
    assert tagger.n_windowed == 1
    assert probs[0].shape == (len(long), len(tags)) and np.allclose(probs[0].sum(1), 1)
    # no word past the limit is left at the uniform "no prediction" row
    assert not np.any(np.all(np.isclose(probs[0], 1 / len(tags)), axis=1))
    # the window that starts the sentence gives the same tags as the short sentence alone would
    # (same words, same positions)
    alone = HFTokenClassifier(str(path), tags).predict_proba([short])[0]
    np.testing.assert_allclose(probs[1], alone, atol=1e-5)


def test_a_classifier_counts_what_it_truncates(tmp_path, nli_pairs):
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.models.tiny import build_tiny_classifier

    pairs = nli_pairs["mnli"][:64]
    path = build_tiny_classifier(tmp_path / "clf", [p["hypothesis"] for p in pairs], [p["label"] for p in pairs],
                                 ["entailment", "neutral", "contradiction"], epochs=1, max_positions=24)
    clf = HFClassifier(str(path), ["entailment", "neutral", "contradiction"])
    texts = [p["premise"] for p in pairs[:20]]
    clf.predict(texts)
    n_long = sum(len(clf.tokenizer(t)["input_ids"]) > 24 for t in texts)
    assert n_long > 0 and clf.n_truncated == n_long

    # padded by hand in length-sorted batches = the tokenizer's own padding and truncation in
    # one batch, for single texts and pairs (token_type_ids), truncated or not
    import torch

    pair_inputs = [(p["premise"], p["hypothesis"]) for p in pairs[20:40]]
    for inputs in (texts, pair_inputs):
        small = HFClassifier(str(path), ["entailment", "neutral", "contradiction"], batch_size=3)
        got = small.predict_proba(inputs)
        args = ([a for a, _ in inputs], [b for _, b in inputs]) if isinstance(inputs[0], tuple) else (inputs,)
        enc = small.tokenizer(*args, padding=True, truncation=True, max_length=24, return_tensors="pt")
        with torch.inference_mode():
            want = torch.softmax(small.model(**enc).logits[:, small.order], dim=-1).numpy()
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_the_real_encoder_batched_equals_single_sentence_vectors(ewt_test_words, tmp_path):
    """all-MiniLM-L6-v2 (a real pretrained BERT) over real EWT sentences: a batch of mixed lengths
    gives the same word vectors as one sentence at a time (padding, pooling and alignment are right)."""
    from robust_bench.models.encoders import EncoderAdapter

    assert (MINILM / "config.json").is_file(), f"the real encoder is missing at {MINILM}"
    sents = [s for s in ewt_test_words if 3 <= len(s) <= 40][:48]
    batched = EncoderAdapter(str(MINILM), batch_size=16, use_cache=False, device="cpu")
    reps = batched.embed(sents, [0, 3, 6], progress=False)
    single = EncoderAdapter(str(MINILM), batch_size=1, use_cache=False, device="cpu")
    one = single.embed(sents, [0, 3, 6], progress=False)
    assert batched.n_forward == 3 and single.n_forward == len(one[3])
    assert batched.fingerprint().startswith("local-")
    for layer in (0, 3, 6):
        assert len(reps[layer]) == len(sents) - sum(reps[layer].dropped.values())
        np.testing.assert_allclose(np.asarray(reps[layer].vectors), np.asarray(one[layer].vectors), atol=2e-4)
    # a real encoder: a word's layer-6 vector depends on its context, layer 0 (embeddings + position) less so
    v = reps[6].sentence(0)
    assert v.shape == (len(sents[0]), 384) and np.isfinite(v).all() and np.abs(v).max() < 50


def test_run_folders_are_named_by_what_the_spec_loads(tmp_path):
    """Two spaCy pipelines (or two callables of two modules) get two run folders, not one ``spacy``."""
    from robust_bench.models.resolve import spec_name
    from robust_bench.suite.runner import run_folder

    (tmp_path / "pipe_a").mkdir()
    assert spec_name(f"spacy:{tmp_path / 'pipe_a'}") == str(tmp_path / "pipe_a")
    assert spec_name("callable:my_models.nli:predict") == "my_models.nli"
    assert spec_name("my_models.nli:predict") == "my_models.nli"
    assert spec_name("fastcoref:biu-nlp/lingmess-coref") == "biu-nlp/lingmess-coref"
    assert spec_name("spacy:") == "spacy"
    assert run_folder(tmp_path, f"spacy:{tmp_path / 'pipe_a'}") == tmp_path / "pipe_a"
    assert run_folder(tmp_path, "spacy:en_core_web_sm", (1, 4)) == tmp_path / "en_core_web_sm.shard-2-of-4"
    assert run_folder(tmp_path, "org/Model-v2") == tmp_path / "org_model_v2"
