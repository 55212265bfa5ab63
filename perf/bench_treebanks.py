"""Speed of the parser attack (Wang et al., 2021) against a spaCy parser, on UD English EWT test.

1. **Parser throughput during the attack**: distinct sentences parsed per second of parser time
   (inside the adapter: cache lookups, ``Doc`` construction, ``nlp.pipe``), as a ratio to a bare
   ``nlp.pipe`` over exactly the same word sequences (``Doc(words=...)``, the same components, the
   same batch size, one call), the physical limit of this parser. Target >= 0.7.
2. **Sentences attacked per minute** on this machine, wall time from the first importance parse
   to the last round, with where the time goes (parser, POS tagger, causal LM, masked LM, the rest).

By default the attack is the offline default build's: every generator and filter that runs
without the Hub (WordNet synonyms; the frequency, POS, meaning and grammar filters, the last with
CMU Link Grammar). ``--tiny-models`` adds the paper's other generators and filters with local
models: a small masked LM and causal LM built and cached by this script (random weights: no masked
or causal LM is reachable offline; ``../shared/models/all-MiniLM-L6-v2`` has no LM head) and
word2vec vectors trained with ``gensim`` on EWT train. Their quality changes which candidates
survive, not the parser's throughput. The tool a user would otherwise pick, DepAttacker, cannot run here (Python 3.6, a
fork of one parser toolkit, hard-coded paths and Java tools), so there is no peer ratio.

Usage::

    python perf/bench_treebanks.py --source ../shared/data [--sentences 300] [--tiny-models]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def models(cache: Path, train) -> dict:
    from robust_bench.models.tiny import build_tiny_bert, build_tiny_gpt2

    cache.mkdir(parents=True, exist_ok=True)
    words = [list(s.forms) for s in train]
    if not (cache / "mlm" / "config.json").exists():
        build_tiny_bert(cache / "mlm", words, hidden=64, max_positions=256, mlm_head=True)
    if not (cache / "lm" / "config.json").exists():
        build_tiny_gpt2(cache / "lm", words, hidden=64, max_positions=256, lm_head=True)
    if not (cache / "vectors.txt").exists():
        from gensim.models import Word2Vec

        w2v = Word2Vec([[w.lower() for w in s] for s in words], vector_size=100, min_count=3, epochs=5, seed=0,
                       workers=1)
        w2v.wv.save_word2vec_format(str(cache / "vectors.txt"))
    return {"mlm": str(cache / "mlm"), "lm": str(cache / "lm"), "vectors": str(cache / "vectors.txt")}


class Timed:
    """Wraps a method and adds its wall time to a counter."""

    def __init__(self, obj, name, clock: dict, key: str):
        self.fn = getattr(obj, name)
        self.clock, self.key = clock, key
        setattr(obj, name, self)

    def __call__(self, *a, **k):
        t = time.perf_counter()
        try:
            return self.fn(*a, **k)
        finally:
            self.clock[self.key] = self.clock.get(self.key, 0.0) + time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--spacy-model", default=os.environ.get("ROBUST_BENCH_SPACY_MODEL", "../shared/models/spacy/en_rb_sm"))
    ap.add_argument("--sentences", type=int, default=300, help="First N sentences of EWT test.")
    ap.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/robust-bench/bench/parser-attack"))
    ap.add_argument("--tiny-models", action="store_true", help="Add the masked LM, causal LM and word2vec built here.")
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))
    spacy_model = str(Path(args.spacy_model).resolve()) if os.path.exists(args.spacy_model) else args.spacy_model

    import torch

    from robust_bench.attacks.treebanks import TreeExample, make_attack, summarise
    from robust_bench.io.conllu_io import read_conllu
    from robust_bench.models.parsers import SpacyParser

    ewt = Path(args.source) / "ud_english_ewt"
    train = read_conllu(ewt / "en_ewt-ud-train.conllu")
    test = read_conllu(ewt / "en_ewt-ud-test.conllu")[: args.sentences]
    kwargs = {}
    if args.tiny_models:
        m = models(Path(args.cache_dir), train)
        kwargs = {"vectors": m["vectors"], "mlm": m["mlm"], "lm": m["lm"]}
    print(f"torch threads {torch.get_num_threads()}; {len(test)} EWT test sentences; parser {spacy_model}")

    parser = SpacyParser(spacy_model)
    attack, setup = make_attack(parser, tagger_model=spacy_model, device="cpu", **kwargs)
    print(f"generators: {', '.join(setup['generators'])}; filters: {', '.join(setup['filters'])}"
          f" (grammar checker {setup.get('grammar_checker')})")
    clock: dict[str, float] = {}
    Timed(parser, "_forward", clock, "parser")
    for f in attack.filters:
        if f.name == "pos":
            Timed(f.tagger, "_forward", clock, "pos tagger")
        if f.name == "perplexity":
            Timed(f.lm, "_forward", clock, "causal LM")
        if f.name == "meaning":
            Timed(f.meaning, "_encode", clock, "sentence encoder")
        if f.name == "grammar" and f.available:
            Timed(f, "checker", clock, "grammar checker")
    for g in attack.generators:
        if g.name == "mlm":
            Timed(g.filler, "_forward", clock, "masked LM")
    exs = [TreeExample.from_sentence(s) for s in test]
    t0 = time.perf_counter()
    results = attack.attack(exs, progress=True)
    wall = time.perf_counter() - t0
    s = summarise(results, exs)
    seen = list(parser._cache._store)            # every distinct sequence the attack parsed

    # bare nlp.pipe over the same sequences: Doc(words), the same components, one call
    from spacy.tokens import Doc

    nlp = parser.nlp
    t = time.perf_counter()
    for _ in nlp.pipe((Doc(nlp.vocab, words=list(w)) for w in seen), batch_size=parser.batch_size,
                      disable=parser._disable):
        pass
    bare = time.perf_counter() - t
    in_attack = len(seen) / clock["parser"]
    raw = len(seen) / bare
    print(f"\nsuccess rate {s['success_rate']:.3f}; UAS {s['scores']['ud']['uas_original']:.2f} -> "
          f"{s['scores']['ud']['uas_adversarial']:.2f}, LAS {s['scores']['ud']['las_original']:.2f} -> "
          f"{s['scores']['ud']['las_adversarial']:.2f}")
    print(f"parser: {parser.queries:,} distinct sentences in {parser.calls} calls "
          f"({parser.queries / parser.calls:.0f} per call)")
    print(f"  during the attack   {in_attack:8.0f} sentences/s of parser time")
    print(f"  bare nlp.pipe       {raw:8.0f} sentences/s")
    print(f"  ratio               {in_attack / raw:8.2f}   (target >= 0.7)")
    print(f"attack: {len(exs)} sentences in {wall:.1f} s = {60 * len(exs) / wall:.1f} sentences/min")
    rest = wall - sum(clock.values())
    for k, v in sorted(clock.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<12} {v:7.1f} s  {v / wall:5.1%}")
    print(f"  {'the rest':<12} {rest:7.1f} s  {rest / wall:5.1%}  (filters' bookkeeping, WordNet, scoring)")


if __name__ == "__main__":
    main()
