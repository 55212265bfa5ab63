"""Benchmark: representation extraction speed and probe training time per epoch.

1. Extraction of every layer's word vectors for EWT test (2,077 sentences) through
   ``EncoderAdapter`` (alignment, length-sorted batches, pooling, copies), as a ratio to a bare
   batched forward loop over the same model and the same batches (tokenise, pad, forward with
   hidden states, nothing else): ``bare / adapter``, target >= 0.8. The model is the real
   pretrained all-MiniLM-L6-v2 in ``../shared`` (``--model``), so subword counts and sentence
   lengths are those of a real uncased WordPiece vocabulary; ``--model random`` builds a randomly
   initialised BERT of ``--hidden`` and ``--layers`` (768 and 12 give the shape of BERT-base) with
   a WordPiece vocabulary trained on EWT.
2. Structural and perceptron probe training time per epoch at d = rank = ``--hidden`` on 12,544
   sentences with the lengths of EWT train (random vectors: speed does not depend on values),
   on the CPU, and on the GPU when one is present.

Usage::

    python perf/bench_probes.py --source ../shared/data [--model PATH | --model random --layers 12] [--hidden 768]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def bare_loop(model_path: Path, sentences, batch_size: int, device: str) -> float:
    """Tokenise, sort by length, pad, forward with hidden states: the physical floor."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_path))
    model = AutoModel.from_pretrained(str(model_path)).eval().to(device)
    t = time.perf_counter()
    enc = tok([list(s) for s in sentences], is_split_into_words=True, verbose=False)
    ids = [x for x in enc["input_ids"] if len(x) <= 512]
    ids.sort(key=len)
    with torch.inference_mode():
        for i in range(0, len(ids), batch_size):
            batch = tok.pad({"input_ids": ids[i:i + batch_size]}, return_tensors="pt")
            out = model(**{k: v.to(device) for k, v in batch.items()}, output_hidden_states=True)
            _ = out.hidden_states[-1][0, 0, 0].item()  # synchronise
    return time.perf_counter() - t


def random_heads(rng, n: int) -> list[int]:
    """A random tree: word k (k > 0) attaches to a random earlier word; word 0 is the root."""
    return [0] + [int(rng.integers(1, k + 1)) for k in range(1, n)]


def epoch_time(kind: str, dim: int, lengths, device: str) -> float:
    from robust_bench.experiments.probes import TrialConfig, train_probe

    rng = np.random.default_rng(0)
    reps = [rng.normal(size=(n, dim)).astype(np.float32) for n in lengths]
    heads = [random_heads(rng, n) for n in lengths]
    dev = slice(0, 64)
    t = time.perf_counter()
    train_probe(kind, reps, heads, reps[dev], heads[dev], TrialConfig(lr=1e-3, rank=dim, dropout=0.1),
                epochs=1, device=device)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--model", default="../shared/models/all-MiniLM-L6-v2",
                    help="Encoder folder or Hub id, or 'random' for a random BERT of --hidden and --layers.")
    ap.add_argument("--hidden", type=int, default=768, help="Probe dimension and rank; width of --model random.")
    ap.add_argument("--layers", type=int, default=12, help="Layers of --model random.")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--skip-probes", action="store_true")
    args = ap.parse_args()

    import torch

    from robust_bench.io.conllu_io import read_conllu
    from robust_bench.models.encoders import EncoderAdapter
    from robust_bench.models.loader import resolve_device
    from robust_bench.models.tiny import build_tiny_bert

    device = resolve_device("auto")
    ewt = Path(args.source) / "ud_english_ewt"
    train = [list(s.forms) for s in read_conllu(ewt / "en_ewt-ud-train.conllu")]
    test_sents = [list(s.forms) for s in read_conllu(ewt / "en_ewt-ud-test.conllu")]
    print(f"device: {device}; torch {torch.__version__}; {os.cpu_count()} CPU cores; threads {torch.get_num_threads()}")

    with tempfile.TemporaryDirectory() as tmp:
        if args.model == "random":
            model = build_tiny_bert(Path(tmp) / "bert", train, hidden=args.hidden, layers=args.layers,
                                    heads=max(1, args.hidden // 64), intermediate=4 * args.hidden, vocab_size=8000,
                                    max_positions=512)
        else:
            model = Path(args.model).resolve() if os.path.exists(args.model) else args.model
        adapter = EncoderAdapter(str(model), device=device, batch_size=args.batch_size, use_cache=False, dtype="float32")
        n_layers, hidden = adapter.num_layers, adapter.hidden_size
        adapter.embed(test_sents[:64], [0], progress=False)  # warm-up: load, first kernels
        bare_loop(model, test_sents[:64], args.batch_size, device)
        t_bare = bare_loop(model, test_sents, args.batch_size, device)
        t = time.perf_counter()
        reps = adapter.embed(test_sents, list(range(n_layers)), progress=False)
        t_ad = time.perf_counter() - t
        n_words = int(reps[0].offsets[-1])
        print(f"extraction, EWT test, {Path(str(model)).name} ({len(test_sents):,} sentences, {n_words:,} words, "
              f"{n_layers} hidden-state layers, hidden {hidden}):")
        print(f"  bare batched forward loop {t_bare:7.2f} s")
        print(f"  EncoderAdapter.embed      {t_ad:7.2f} s   ratio bare/adapter = {t_bare / t_ad:.2f} (target >= 0.8)")
        # a second call is served from the cache: no forward pass
        cached = EncoderAdapter(str(model), device=device, batch_size=args.batch_size, cache_dir=Path(tmp) / "cache")
        cached.embed(test_sents, [n_layers - 1], progress=False)
        t = time.perf_counter()
        cached2 = EncoderAdapter(str(model), device=device, batch_size=args.batch_size, cache_dir=Path(tmp) / "cache")
        cached2.embed(test_sents, [n_layers - 1], progress=False)
        print(f"  cached second run          {time.perf_counter() - t:7.2f} s   forward passes: {cached2.n_forward}")

    if args.skip_probes:
        return
    lengths = [len(s) for s in train]
    for dev in (["cpu"] + (["cuda"] if torch.cuda.is_available() else [])):
        for kind in ("structural", "perceptron"):
            secs = epoch_time(kind, args.hidden, lengths, dev)
            print(f"probe epoch, {kind:<10} d={args.hidden} rank={args.hidden}, {len(lengths):,} sentences on {dev}: "
                  f"{secs:7.1f} s")
    if not torch.cuda.is_available():
        print("probe epoch on GPU: no GPU on this machine")


if __name__ == "__main__":
    main()
