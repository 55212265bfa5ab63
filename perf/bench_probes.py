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
    python perf/bench_probes.py --skip-extraction --repo robust-bench [--sections 2,3,4]
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


def layer_data(repo: Path, model: str, layer: int, max_train: int | None):
    """Layer ``layer``'s word vectors of EWT train, validation, plain and Jabberwocky test, with
    gold heads and punctuation masks, through the representation cache."""
    from robust_bench.experiments.jabberwocky import _load_splits
    from robust_bench.models.encoders import EncoderAdapter

    splits, _ = _load_splits(repo, "jabberwocky_ewt", None, max_train)
    adapter = EncoderAdapter(model, device="auto")
    out = {}
    for split, variant in (("train", "plain"), ("validation", "plain"), ("test", "plain"), ("test", "jabberwocky")):
        r = adapter.embed(splits[split].words[variant], [layer], progress=False)[layer]
        kept = [int(k) for k in r.kept]
        out[(split, variant)] = ([np.asarray(r.sentence(i)) for i in range(len(kept))],
                                 [splits[split].heads[k] for k in kept], [splits[split].punct[k] for k in kept])
    return out


def test_scores(proj, data) -> dict:
    from robust_bench.experiments.probes import predict_distances
    from robust_bench.scoring import dspr_details, uuas_counts

    out = {}
    for v in ("plain", "jabberwocky"):
        x, h, p = data[("test", v)]
        d = predict_distances(proj, x)
        out[v] = (uuas_counts(h, d, punctuation=p).score, dspr_details(h, d).score)
    return out


def bare_epoch(train, trials, batch_size: int, precision: str, kind: str, seed: int = 0,
               dropout: bool = False) -> float:
    """The physical floor of one epoch: the same padded batches, and per trial the same products
    (projection, Gram matrix, and their backward), with nothing else: no loss terms beyond a sum,
    no optimiser, no bookkeeping, and no dropout unless ``dropout`` (then the trials' masks, drawn
    as the trainer draws them: one uniform draw per batch, one mask multiply per trial)."""
    import torch

    from robust_bench.experiments.probes import _batches, _distances, _project, _trim

    gen = torch.Generator().manual_seed(seed)
    projs = [torch.nn.Parameter(torch.empty(t.rank, train.dim).uniform_(-0.05, 0.05)) for t in trials]
    t0 = time.perf_counter()
    for k, idx in _batches(train, batch_size, gen):
        b = train.buckets[k]
        h, _, _ = _trim(b.h[idx], b.gold[idx], b.lengths[idx])
        u = torch.rand(h.shape, generator=gen) if dropout else None
        terms = [_distances(_project(h * (u >= t.dropout) if dropout else h, p, precision)).sum()
                 for t, p in zip(trials, projs)]
        torch.stack(terms).sum().backward()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--model", default="../shared/models/all-MiniLM-L6-v2",
                    help="Encoder folder or Hub id, or 'random' for a random BERT of --hidden and --layers.")
    ap.add_argument("--hidden", type=int, default=768, help="Probe dimension and rank; width of --model random.")
    ap.add_argument("--layers", type=int, default=12, help="Layers of --model random.")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--skip-probes", action="store_true")
    ap.add_argument("--skip-extraction", action="store_true")
    ap.add_argument("--repo", help="Dataset repository holding jabberwocky_ewt, for the probe benchmarks.")
    ap.add_argument("--sections", default="2,3,4", help="Probe sections to run (2 reliability, 3 epoch time, "
                    "4 the full App. B protocol), comma-separated.")
    args = ap.parse_args()

    import torch

    from robust_bench.io.conllu_io import read_conllu
    from robust_bench.models.encoders import EncoderAdapter
    from robust_bench.models.loader import resolve_device
    from robust_bench.models.tiny import build_tiny_bert

    device = resolve_device("auto")
    if args.skip_extraction:
        return probe_benchmarks(args) if not args.skip_probes else None
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
    if not args.repo:
        print("probes: pass --repo, a dataset repository holding jabberwocky_ewt (robust-bench build jabberwocky_ewt)")
        return
    probe_benchmarks(args)


def probe_benchmarks(args) -> None:
    import torch

    from robust_bench.experiments.probes import resolve_precision

    device = "cuda" if torch.cuda.is_available() else "cpu"
    precision = resolve_precision("auto", device)
    model = str(Path(args.model).resolve()) if os.path.exists(args.model) else args.model
    repo = Path(args.repo)
    print(f"\nprobes on {Path(model).name}, device {device}, projections in {precision}, "
          f"{torch.get_num_threads()} threads")

    sections = {int(x) for x in args.sections.split(",")}
    if 2 in sections:
        reliability(model, repo, device, precision)
    if 3 in sections:
        epoch_time(model, repo, device, precision)
    if 4 in sections:
        full_protocol(model, repo)


def reliability(model, repo, device, precision) -> None:
    """2. The random search's selected probe against a fixed setting (layer 3, 4,000 sentences)."""
    from robust_bench.experiments.baselines import path_distances
    from robust_bench.experiments.probes import TrialConfig, prepare_search_data, random_search, sample_trials
    from robust_bench.scoring import uuas_counts

    data = layer_data(repo, model, 3, 4000)
    tr, dv = data[("train", "plain")], data[("validation", "plain")]
    _, heads, punct = data[("test", "plain")]
    path = uuas_counts(heads, [path_distances(len(h)) for h in heads], punctuation=punct).score
    print(f"\n2. structural probe, layer 3, {len(tr[0]):,} train sentences (Path UUAS on these test sentences: "
          f"{path:.4f})")
    print("| variant | search | selected trial (lr, rank, dropout, epochs) | dev loss | UUAS plain | DSpr plain | "
          "UUAS Jabberwocky | DSpr Jabberwocky | s |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    prepared = prepare_search_data(*tr[:2], *dv[:2], device=device, precision=precision)
    fixed = TrialConfig(lr=1e-3, rank=384, dropout=0.1)
    for variant in ("paper", "scaled"):
        for label, trials, epochs, patience in (("3 trials", sample_trials(3, 384, seed=0), 20, 2),
                                                ("10 trials", sample_trials(10, 384, seed=0), 20, 2),
                                                ("fixed lr 1e-3, rank 384, dropout 0.1, 11 epochs", [fixed], 11, 99)):
            t0 = time.perf_counter()
            best, _ = random_search("structural", None, None, None, None, trials, epochs=epochs, patience=patience,
                                    device=device, variant=variant, precision=precision, data=prepared)
            sc = test_scores(best.proj, data)
            tt = best.trial
            print(f"| {variant} | {label} | {tt.lr:.1e}, {tt.rank}, {tt.dropout:.2f}, {best.epochs} | {best.dev_loss:.4f} | "
                  f"{sc['plain'][0]:.4f} | {sc['plain'][1]:.4f} | {sc['jabberwocky'][0]:.4f} | "
                  f"{sc['jabberwocky'][1]:.4f} | {time.perf_counter() - t0:.0f} |")



def epoch_time(model, repo, device, precision) -> None:
    """3. Epoch time against the bare loop (all of EWT train, layer 3, App. B's 10 trials)."""
    from robust_bench.experiments.probes import prepare_search_data, sample_trials, train_trials

    data = layer_data(repo, model, 3, None)
    tr, dv = data[("train", "plain")], data[("validation", "plain")]
    prepared = prepare_search_data(*tr[:2], *dv[:2], device=device, precision=precision)
    trials = sample_trials(10, 384, seed=0)
    print(f"\n3. one epoch, 10 App. B trials together (ranks sum {sum(t.rank for t in trials)}), "
          f"{prepared[0].n_sentences:,} sentences, layer 3:")
    for kind in ("structural", "perceptron"):
        bare = min(bare_epoch(prepared[0], trials, 64, precision, kind) for _ in range(2))
        masked = min(bare_epoch(prepared[0], trials, 64, precision, kind, dropout=True) for _ in range(2))
        t0 = time.perf_counter()
        train_trials(kind, prepared[0], prepared[1], trials, epochs=1, patience=99, device=device,
                     precision=precision)
        ours = time.perf_counter() - t0
        print(f"  {kind:<10} train_trials {ours:6.1f} s (with the development pass)   bare products {bare:6.1f} s "
              f"(ratio {ours / bare:.2f}, target <= 1.5)   bare products with the dropout masks {masked:6.1f} s "
              f"(ratio {ours / masked:.2f})")



def full_protocol(model, repo) -> None:
    """4. The full App. B protocol, timed, with the selected layers' scores and the baselines."""
    from robust_bench.experiments.jabberwocky import ProbeSettings, run_probing

    settings = ProbeSettings(layers=(0, 3, 6), trials=10, epochs=20)
    t0 = time.perf_counter()
    run = run_probing(model, repo=repo, settings=settings, progress=False)
    wall = time.perf_counter() - t0
    print(f"\n4. full App. B protocol (10 trials, <= 20 epochs, structural and perceptron, layers 0, 3, 6, all of EWT "
          f"train): {wall / 60:.1f} min (target <= 20), {run['n_test']:,} test sentences")
    print("| probe | selected layer | UUAS plain | DSpr plain | UUAS Jabberwocky | DSpr Jabberwocky |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind, layer in run["selected"].items():
        got = {r["variant"]: r["metrics"] for r in run["results"] if r["probe"] == kind and r["representation"] == layer}
        cell = lambda v, m: f"{got[v][m]:.4f}" if m in got[v] else "n/a"  # noqa: E731
        print(f"| {kind} | {layer} | {cell('plain', 'uuas')} | {cell('plain', 'dspr')} | {cell('jabberwocky', 'uuas')} "
              f"| {cell('jabberwocky', 'dspr')} |")
    for name, by_v in run["baselines"].items():
        print(f"| {name} (baseline) | | {by_v['plain']['uuas']:.4f} | {by_v['plain']['dspr']:.4f} | "
              f"{by_v['jabberwocky']['uuas']:.4f} | {by_v['jabberwocky']['dspr']:.4f} |")


if __name__ == "__main__":
    main()
