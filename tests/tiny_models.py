"""Tiny local transformer models for tests, built from the data itself (no hub).

A 2-layer BERT with a WordPiece vocabulary and a 2-layer GPT-2 with a byte-level BPE
vocabulary, both trained on the given sentences with the `tokenizers` library and saved
with `save_pretrained`, so `AutoModel.from_pretrained(path)` loads them like Hub models.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence


def build_tiny_bert(path: Path, sentences: Iterable[Sequence[str]], *, hidden: int = 32, layers: int = 2,
                    vocab_size: int = 2000, max_positions: int = 128, seed: int = 0) -> Path:
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertModel, BertTokenizer

    path.mkdir(parents=True, exist_ok=True)
    wp = BertWordPieceTokenizer(lowercase=False)
    wp.train_from_iterator((" ".join(s) for s in sentences), vocab_size=vocab_size, min_frequency=1)
    wp.save_model(str(path))
    tok = BertTokenizer(vocab_file=str(path / "vocab.txt"), do_lower_case=False,
                        model_max_length=max_positions)
    tok.save_pretrained(str(path))
    cfg = BertConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=2 * hidden, max_position_embeddings=max_positions)
    torch.manual_seed(seed)
    BertModel(cfg).save_pretrained(str(path))
    return path


def build_tiny_gpt2(path: Path, sentences: Iterable[Sequence[str]], *, hidden: int = 32, layers: int = 2,
                    vocab_size: int = 2000, max_positions: int = 128, seed: int = 0) -> Path:
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2Model, GPT2Tokenizer

    path.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer(add_prefix_space=True)
    bpe.train_from_iterator((" ".join(s) for s in sentences), vocab_size=vocab_size, min_frequency=1,
                            special_tokens=["<|endoftext|>"])
    tok = GPT2Tokenizer(tokenizer_object=bpe._tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                        unk_token="<|endoftext|>", add_prefix_space=True, model_max_length=max_positions)
    tok.save_pretrained(str(path))
    cfg = GPT2Config(vocab_size=len(tok), n_embd=hidden, n_layer=layers, n_head=2, n_positions=max_positions,
                     bos_token_id=0, eos_token_id=0)
    torch.manual_seed(seed)
    GPT2Model(cfg).save_pretrained(str(path))
    return path
