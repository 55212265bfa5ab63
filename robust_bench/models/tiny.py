"""Local transformer models for tests, benchmark scripts and offline demos (no hub).

A 2-layer BERT with a WordPiece vocabulary, a 2-layer GPT-2 with a byte-level BPE vocabulary,
and a tiny BERT sequence classifier trained on given examples; WordPiece vocabularies are drawn
from the texts deterministically, BPE vocabularies trained with the `tokenizers` library, and
models saved with `save_pretrained`, so `from_pretrained(path)`
loads them like Hub models. :func:`finetune_classifier` fine-tunes a real pretrained encoder
(for example ``../shared/models/all-MiniLM-L6-v2``) into a sequence classifier, for benchmark
scripts where a random model would say nothing about real behaviour. Nothing here is used by
the benchmark itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence


def _wordpiece_vocabulary(words: dict[str, int], vocab_size: int) -> list[str]:
    """WordPiece's vocabulary as its trainer learns it, deterministically: every character (word-initial,
    and as a ``##`` continuation), then merges of the adjacent pair of symbols that is most frequent
    over the word counts, ties broken by the pair's spelling, until ``vocab_size`` tokens (the five
    special tokens included)."""
    import heapq
    from collections import defaultdict

    seqs = {w: [w[0], *(f"##{ch}" for ch in w[1:])] for w in words if w}
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted({t for seq in seqs.values() for t in seq})]
    counts: dict = defaultdict(int)
    where: dict = defaultdict(set)
    for w, seq in seqs.items():
        for pair in zip(seq, seq[1:]):
            counts[pair] += words[w]
            where[pair].add(w)
    heap = [(-n, pair) for pair, n in counts.items()]
    heapq.heapify(heap)
    known = set(tokens)
    while len(tokens) < vocab_size and heap:
        n, pair = heapq.heappop(heap)
        if counts.get(pair, 0) != -n or n == 0:
            continue                          # a stale entry: the pair's count changed since it was pushed
        a, b = pair
        merged = a + b[2:]
        if merged not in known:
            tokens.append(merged)
            known.add(merged)
        changed = set()
        for w in sorted(where.pop(pair)):
            seq, c = seqs[w], words[w]
            for p in zip(seq, seq[1:]):
                counts[p] -= c
                changed.add(p)
            out, k = [], 0
            while k < len(seq):
                if k + 1 < len(seq) and seq[k] == a and seq[k + 1] == b:
                    out.append(merged)
                    k += 2
                else:
                    out.append(seq[k])
                    k += 1
            seqs[w] = out
            for p in zip(out, out[1:]):
                counts[p] += c
                where[p].add(w)
                changed.add(p)
        counts.pop(pair, None)
        for p in sorted(changed):
            if counts.get(p, 0) > 0:
                heapq.heappush(heap, (-counts[p], p))
            else:
                counts.pop(p, None)
    return tokens


def _wordpiece(texts: Iterable[str], vocab_size: int, *, lowercase: bool, max_positions: int):
    """A fast BERT tokenizer with a WordPiece vocabulary learnt from ``texts``, the same in every process.

    The vocabulary is learnt as the `tokenizers` WordPiece trainer learns it (characters, then the most
    frequent adjacent pairs merged, after BERT's normaliser and pre-tokeniser), by
    :func:`_wordpiece_vocabulary`, with ties broken by spelling: the trainer breaks frequency ties
    differently in every process, so the same texts gave other vocabularies (and other tiny models)
    from run to run.

    (transformers 5 builds ``BertTokenizer`` from a `tokenizers` object; a ``vocab_file`` alone
    is not read, which would leave a tokenizer that maps every word to [UNK].)
    """
    from collections import Counter

    from tokenizers import BertWordPieceTokenizer
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer
    from transformers import BertTokenizer

    norm, pre = BertNormalizer(lowercase=lowercase), BertPreTokenizer()
    words: Counter = Counter()
    for text in texts:
        words.update(w for w, _ in pre.pre_tokenize_str(norm.normalize_str(text)))
    tokens = _wordpiece_vocabulary(dict(words), vocab_size)
    wp = BertWordPieceTokenizer({t: i for i, t in enumerate(tokens)}, lowercase=lowercase)
    return BertTokenizer(tokenizer_object=wp._tokenizer, unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                         cls_token="[CLS]", mask_token="[MASK]", do_lower_case=lowercase,
                         model_max_length=max_positions)


def build_tiny_bert(path: Path, sentences: Iterable[Sequence[str]], *, hidden: int = 32, layers: int = 2,
                    vocab_size: int = 2000, max_positions: int = 128, seed: int = 0, heads: int = 2,
                    intermediate: int | None = None, mlm_head: bool = False) -> Path:
    """A randomly initialised BERT with a cased WordPiece vocabulary trained on ``sentences``
    (word lists); ``heads`` attention heads and an ``intermediate`` feed-forward width
    (default ``2 * hidden``). ``hidden=768, layers=12, heads=12, intermediate=3072`` gives the
    shape of BERT-base. ``mlm_head=True`` saves ``BertForMaskedLM`` (a masked LM), else ``BertModel``."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertModel

    path.mkdir(parents=True, exist_ok=True)
    tok = _wordpiece((" ".join(s) for s in sentences), vocab_size, lowercase=False, max_positions=max_positions)
    tok.save_pretrained(str(path))
    cfg = BertConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                     intermediate_size=intermediate or 2 * hidden, max_position_embeddings=max_positions)
    torch.manual_seed(seed)
    (BertForMaskedLM if mlm_head else BertModel)(cfg).save_pretrained(str(path))
    return path


def build_tiny_gpt2(path: Path, sentences: Iterable[Sequence[str]], *, hidden: int = 32, layers: int = 2,
                    vocab_size: int = 2000, max_positions: int = 128, seed: int = 0, lm_head: bool = False,
                    heads: int = 2, chat_template: str | None = None) -> Path:
    """A randomly initialised 2-layer GPT-2 with a byte-BPE vocabulary trained on ``sentences``
    (word lists); ``lm_head=True`` saves ``GPT2LMHeadModel`` (a causal LM), else ``GPT2Model``;
    ``heads`` attention heads (vLLM's CPU attention needs 64 dimensions per head); a Jinja
    ``chat_template`` is saved with the tokenizer."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Model, GPT2Tokenizer

    path.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer(add_prefix_space=True)
    bpe.train_from_iterator((" ".join(s) for s in sentences), vocab_size=vocab_size, min_frequency=1,
                            special_tokens=["<|endoftext|>"])
    tok = GPT2Tokenizer(tokenizer_object=bpe._tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                        unk_token="<|endoftext|>", add_prefix_space=True, model_max_length=max_positions)
    if chat_template is not None:
        tok.chat_template = chat_template
    tok.save_pretrained(str(path))
    cfg = GPT2Config(vocab_size=len(tok), n_embd=hidden, n_layer=layers, n_head=heads, n_positions=max_positions,
                     bos_token_id=0, eos_token_id=0)
    torch.manual_seed(seed)
    (GPT2LMHeadModel if lm_head else GPT2Model)(cfg).save_pretrained(str(path))
    return path


def build_tiny_classifier(path: Path, texts: Sequence, labels: Sequence[int], label_names: Sequence[str], *,
                          hidden: int = 64, layers: int = 2, epochs: int = 4, lr: float = 5e-4, batch_size: int = 32,
                          max_positions: int = 256, seed: int = 0, vocab_size: int = 4000) -> Path:
    """Train a tiny BERT sequence classifier on the given examples and save it with
    ``save_pretrained``, with ``id2label`` set to ``label_names``.

    Parameters
    ----------
    path : Path
    texts : sequence of str or (str, str)
        Single sentences or sentence pairs.
    labels : sequence of int
    label_names : sequence of str
    hidden, layers, epochs, lr, batch_size, max_positions, seed, vocab_size
        Size and training settings; the defaults train on a few thousand pairs in well under a
        minute on two CPU cores.

    Returns
    -------
    Path
    """
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    path.mkdir(parents=True, exist_ok=True)
    flat = [t if isinstance(t, str) else " ".join(t) for t in texts]
    tok = _wordpiece(flat, vocab_size, lowercase=True, max_positions=max_positions)
    tok.save_pretrained(str(path))
    cfg = BertConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=2 * hidden, max_position_embeddings=max_positions, num_labels=len(label_names),
                     id2label=dict(enumerate(label_names)), label2id={n: i for i, n in enumerate(label_names)})
    torch.manual_seed(seed)
    model = BertForSequenceClassification(cfg)
    _train_classifier(model, tok, texts, labels, epochs=epochs, lr=lr, batch_size=batch_size,
                      max_length=max_positions, seed=seed)
    model.save_pretrained(str(path))
    return path


def _train_classifier(model, tok, texts: Sequence, labels: Sequence[int], *, epochs: int, lr: float,
                      batch_size: int, max_length: int, seed: int, progress: bool = False) -> None:
    """Plain AdamW training of a sequence classifier on single sentences or pairs, in place."""
    import torch
    from tqdm.auto import tqdm

    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    pairs = not isinstance(texts[0], str)
    gen = torch.Generator().manual_seed(seed)
    y = torch.tensor(list(labels))
    model.train()
    for epoch in range(epochs):
        perm = torch.randperm(len(texts), generator=gen).tolist()
        steps = range(0, len(perm), batch_size)
        for s in tqdm(steps, desc=f"fine-tune epoch {epoch + 1}/{epochs}", disable=not progress):
            idx = perm[s:s + batch_size]
            if pairs:
                enc = tok([texts[i][0] for i in idx], [texts[i][1] for i in idx], padding=True, truncation=True,
                          max_length=max_length, return_tensors="pt")
            else:
                enc = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=max_length,
                          return_tensors="pt")
            loss = model(**enc, labels=y[idx]).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()


def finetune_classifier(base: str | Path, path: Path, texts: Sequence, labels: Sequence[int],
                        label_names: Sequence[str], *, epochs: int = 2, lr: float = 5e-5, batch_size: int = 32,
                        max_length: int = 128, seed: int = 0, progress: bool = True) -> Path:
    """Fine-tune a pretrained encoder into a sequence classifier and save it to ``path``.

    A new classification head (``AutoModelForSequenceClassification``) is put on ``base`` and
    the whole model is trained with AdamW on ``texts`` (single sentences or (str, str) pairs,
    truncated to ``max_length`` subwords) for ``epochs`` passes. ``id2label`` is set to
    ``label_names``. On two CPU cores all-MiniLM-L6-v2 takes about half a minute per thousand
    pairs and epoch.

    Returns
    -------
    Path
        ``path``, loadable with ``from_pretrained`` and :class:`~robust_bench.models.classifiers.HFClassifier`.

    Raises
    ------
    robust_bench.models.loader.ModelError
        If ``base`` cannot be loaded.
    """
    from transformers import AutoModelForSequenceClassification

    from robust_bench.models.loader import load_pretrained

    loaded = load_pretrained(AutoModelForSequenceClassification, str(base), device="cpu", dtype="float32",
                             kind="classifier", num_labels=len(label_names),
                             id2label=dict(enumerate(label_names)),
                             label2id={n: i for i, n in enumerate(label_names)})
    _train_classifier(loaded.model, loaded.tokenizer, texts, labels, epochs=epochs, lr=lr, batch_size=batch_size,
                      max_length=max_length, seed=seed, progress=progress)
    path.mkdir(parents=True, exist_ok=True)
    loaded.model.save_pretrained(str(path))
    loaded.tokenizer.save_pretrained(str(path))
    return path
