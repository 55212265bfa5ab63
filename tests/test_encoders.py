"""The encoder adapter on tiny local BERT and GPT-2 models built from EWT text."""

import numpy as np
import pytest
import torch

from robust_bench.models.encoders import DROP_TOO_LONG, DROP_UNALIGNED, EncoderAdapter
from robust_bench.models.loader import ModelError


def _manual(adapter, words, layer, pooling):
    """One sentence, no batching or padding: the reference the batched extraction must match."""
    tok, model = adapter.tokenizer, adapter.model
    enc = tok(words, is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        hs = model(**enc, output_hidden_states=True).hidden_states[layer][0]
    wids = enc.word_ids(0)
    out = []
    for w in range(len(words)):
        pos = [i for i, x in enumerate(wids) if x == w]
        out.append(hs[pos[0]] if pooling == "first" else hs[pos].mean(0))
    return torch.stack(out).numpy()


@pytest.mark.parametrize("name", ["bert", "gpt2"])
@pytest.mark.parametrize("pooling", ["first", "mean"])
def test_batched_word_vectors_match_a_single_sentence_forward(tiny_models, ewt_test_words, name, pooling, tmp_path):
    sents = ewt_test_words[:40]
    adapter = EncoderAdapter(str(tiny_models[name]), pooling=pooling, batch_size=8, cache_dir=tmp_path)
    reps = adapter.embed(sents, [0, 2], progress=False)
    for layer in (0, 2):
        r = reps[layer]
        assert r.vectors.shape[1] == 32 and len(r.offsets) == len(r.kept) + 1
        for k in (0, 7, len(r.kept) - 1):
            words = sents[r.kept[k]]
            np.testing.assert_allclose(r.sentence(k), _manual(adapter, words, layer, pooling), atol=2e-5)


def test_drops_are_counted(tiny_models, ewt_test_words, tmp_path):
    adapter = EncoderAdapter(str(tiny_models["bert"]), cache_dir=tmp_path)
    sents = ewt_test_words[:200] + [["a", "", "b"]]   # an empty word gets no subword
    reps = adapter.embed(sents, [1], progress=False)[1]
    too_long = sum(len(adapter.tokenizer(s, is_split_into_words=True)["input_ids"]) > 64 for s in sents[:200])
    assert too_long > 0
    assert reps.dropped == {DROP_TOO_LONG: too_long, DROP_UNALIGNED: 1}
    assert len(reps.kept) == len(sents) - too_long - 1 and 200 not in reps.kept.tolist()


def test_cache_means_no_second_forward_pass(tiny_models, ewt_test_words, tmp_path):
    sents = ewt_test_words[:50]
    first = EncoderAdapter(str(tiny_models["gpt2"]), cache_dir=tmp_path)
    a = first.embed(sents, [0, 1], progress=False)
    assert first.n_forward > 0
    second = EncoderAdapter(str(tiny_models["gpt2"]), cache_dir=tmp_path)
    b = second.embed(sents, [1, 0], progress=False)
    assert second.n_forward == 0
    assert isinstance(b[1].vectors, np.memmap)
    np.testing.assert_array_equal(np.asarray(a[1].vectors), np.asarray(b[1].vectors))
    other = second.embed(sents[:10], [1], progress=False)          # another corpus: a new key
    assert second.n_forward > 0 and len(other[1]) == 10


def test_bad_layers_and_missing_model(tiny_models, tmp_path):
    adapter = EncoderAdapter(str(tiny_models["bert"]), cache_dir=tmp_path)
    with pytest.raises(ModelError, match=r"layers \[3\] out of range.*0\.\.2"):
        adapter.embed([["a"]], [3], progress=False)
    with pytest.raises(ModelError, match="model folder .* does not exist"):
        EncoderAdapter(str(tmp_path / "no-such-model"), cache_dir=tmp_path).embed([["a"]], [0], progress=False)


def test_a_tokenizer_that_knows_no_word_is_reported(tmp_path, ewt_test_words):
    """A vocabulary that maps every word to [UNK] (what transformers 5 makes of BertTokenizer(vocab_file=...))
    must not pass silently."""
    from robust_bench.models.tiny import build_tiny_bert

    path = build_tiny_bert(tmp_path / "unk", [["zzz"]] * 5, vocab_size=30)
    adapter = EncoderAdapter(str(path), cache_dir=tmp_path / "cache", use_cache=False)
    with pytest.warns(RuntimeWarning, match="unknown token"):
        adapter.align(ewt_test_words[:20])
