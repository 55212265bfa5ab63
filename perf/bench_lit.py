"""Benchmark: LIT contrast sets for the 2,000 MNLI sample pairs, stage by stage.

Runs :func:`robust_bench.perturb.lit.pairs.make_contrast_sets` on both MNLI validation samples (2,000
pairs) and reports the time of each stage separately: parsing (spaCy, batched, each distinct
sentence once), transformation (clause analysis is part of parsing; this is candidate
generation for every code), and LM ranking (batched perplexity of every candidate list with more
than one member, §3.3). Baselines in the same process:

* parsing: one ``nlp(text)`` call per sentence occurrence (no batching, no de-duplication);
* LM ranking: one forward pass per candidate (batch size 1), over the same candidates.

Usage::

    python perf/bench_lit.py --source ../shared/data [--lm gpt2 | --lm tiny] [--device auto]

``--lm tiny`` builds a random 2-layer GPT-2 on the fly (no hub needed); with ``gpt2`` (the
default of the builder) the LM stage measures a real 124M-parameter model.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


class RecordingScorer:
    """Passes every call to a :class:`CausalLMScorer` and remembers the distinct sentences it had
    to score (lists of one candidate need no LM query, §3.3), in first-seen order; the benchmark
    reads no private state."""

    def __init__(self, inner):
        self.inner = inner
        self.seen: dict[str, None] = {}

    def perplexity(self, sentences):
        self.seen.update(dict.fromkeys(sentences))
        return self.inner.perplexity(sentences)

    def choose(self, candidates):
        for cands in candidates:
            if len(cands) > 1:
                self.seen.update(dict.fromkeys(cands))
        return self.inner.choose(candidates)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--spacy-model", default=os.environ.get("ROBUST_BENCH_SPACY_MODEL", "../shared/models/spacy/en_rb_sm"))
    ap.add_argument("--lm", default="tiny", help="Causal LM id or path, or 'tiny' (built here).")
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))
    spacy_model = str(Path(args.spacy_model).resolve()) if os.path.exists(args.spacy_model) else args.spacy_model

    from robust_bench.perturb.lit.ud import UDTransformer
    from robust_bench.perturb.lit.pairs import make_contrast_sets
    from robust_bench.models.lm import CausalLMScorer
    from robust_bench.io.task_data import read_nli

    mnli = Path(args.source) / "glue" / "mnli"
    pairs = read_nli(mnli / "dev_matched_sample.tsv") + read_nli(mnli / "dev_mismatched_sample.tsv")
    pairs = [dict(p, idx=i) for i, p in enumerate(pairs)]
    tmp = tempfile.mkdtemp()
    lm_id = args.lm
    if lm_id == "tiny":
        from robust_bench.models.tiny import build_tiny_gpt2

        lm_id = str(build_tiny_gpt2(Path(tmp) / "lm", [p[f].split() for p in pairs for f in ("premise", "hypothesis")],
                                    lm_head=True))
    backend = UDTransformer(spacy_model)
    backend.analyse_many(["A warm-up sentence ."])
    scorer = RecordingScorer(CausalLMScorer(lm_id, device=args.device))

    t0 = time.perf_counter()
    rows, report = make_contrast_sets(pairs, backend, scorer)
    total = time.perf_counter() - t0
    s = report.seconds
    print(f"LIT on {len(pairs):,} MNLI pairs ({report.sentences:,} distinct sentences), backend ud, LM {args.lm}, "
          f"device {scorer.device}")
    print(f"  rows built                 {len(rows):,} ({len({r['source_id'] for r in rows}):,} pairs covered)")
    print(f"  parsing                    {s['parsing']:7.2f} s")
    print(f"  transformation             {s['transformation']:7.2f} s")
    if "verification" in s:
        rejected = sum(report.reanalysis_rejections.values())
        print(f"  re-analysis check          {s['verification']:7.2f} s  ({rejected:,} candidates rejected)")
    print(f"  LM ranking                 {s['lm_ranking']:7.2f} s  ({scorer.n_forward} forward passes, "
          f"{len(scorer.seen):,} candidates scored)")
    print(f"  total (with coverage)      {total:7.2f} s  -> {len(pairs) / total:.0f} pairs/s")

    # baseline 1: unbatched parsing of every sentence occurrence
    texts = [p[f] for p in pairs for f in ("premise", "hypothesis")]
    t0 = time.perf_counter()
    for t in texts:
        backend.nlp(t)
    naive_parse = time.perf_counter() - t0
    print(f"  parsing baseline (one nlp() call per occurrence, {len(texts):,}): {naive_parse:.2f} s; "
          f"ratio batched/baseline {s['parsing'] / naive_parse:.2f}")
    # baseline 2: the same candidates scored one at a time
    cands = sorted(scorer.seen)
    single = CausalLMScorer(lm_id, device=args.device, batch_size=1)
    t0 = time.perf_counter()
    single.perplexity(cands)
    naive_lm = time.perf_counter() - t0
    if naive_lm > 0 and cands:
        print(f"  LM baseline (batch size 1, {len(cands):,} candidates): {naive_lm:.2f} s; "
              f"ratio batched/baseline {s['lm_ranking'] / naive_lm:.2f}")


if __name__ == "__main__":
    main()
