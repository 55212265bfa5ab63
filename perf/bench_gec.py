"""Benchmark: gec_mnli build time against spaCy parsing alone.

Builds ``gec_mnli`` from the 2,000 MNLI sample pairs (both validation splits) and compares
with ``nlp.pipe`` alone over the same 2,000 hypotheses (same pipeline, same components, same
batch size), run in the same process after a warm-up. Target: build / parse <= 1.5x, since
parsing should dominate. The engine's own share (candidate generation and sampling on the
parsed sentences) is timed separately, and the build is run with the engine's own checks only
(``checks=static``) and with every check (the sentence encoder and the second tagger in context, and
ERRANT's re-classification of every edit for the card).

Usage::

    python perf/bench_gec.py --source ../shared/data [--spacy-model ../shared/models/spacy/en_rb_sm]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--spacy-model", default=os.environ.get("ROBUST_BENCH_SPACY_MODEL", "../shared/models/spacy/en_rb_sm"))
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))
    os.environ["ROBUST_BENCH_SPACY_MODEL"] = str(Path(args.spacy_model).resolve()) \
        if os.path.exists(args.spacy_model) else args.spacy_model

    from robust_bench.perturb.gec import perturb, tokens_from_doc
    from robust_bench.text.nlp import load_spacy
    from robust_bench.data.repository import build_config
    from robust_bench.io.task_data import read_nli

    mnli = Path(args.source) / "glue" / "mnli"
    rows = read_nli(mnli / "dev_matched_sample.tsv") + read_nli(mnli / "dev_mismatched_sample.tsv")
    hyps = [r["hypothesis"] for r in rows]

    t = time.perf_counter()
    nlp = load_spacy()
    t_load = time.perf_counter() - t
    list(nlp.pipe(hyps[:200], disable=["ner"], batch_size=256))  # warm-up
    t = time.perf_counter()
    docs = list(nlp.pipe(hyps, disable=["ner"], batch_size=256))
    t_parse = time.perf_counter() - t

    perturb(tokens_from_doc(docs[0]), random.Random(0))  # loads WordNet and lemminflect once
    t = time.perf_counter()
    for k, d in enumerate(docs):
        perturb(tokens_from_doc(d), random.Random(k))
    t_engine = time.perf_counter() - t

    builds = {}
    for checks in ("static", "all"):
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            report = build_config("gec_mnli", out=Path(tmp) / "robust-bench", source=args.source, seed=0,
                                  options={"checks": checks})
            builds[checks] = time.perf_counter() - t
    t_build = builds["all"]
    # the card's ERRANT figures, alone: every edit re-classified by ERRANT on en_core_web_sm
    import datasets

    from robust_bench.builders.gec import _errant, validity_figures

    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        report = build_config("gec_mnli", out=Path(tmp) / "robust-bench", source=args.source, seed=0)
        rows = [r for s in report.files.values() for r in datasets.Dataset.from_parquet(str(s)) if r["edits"]]
    t = time.perf_counter()
    validity_figures(rows, _errant())
    t_errant = time.perf_counter() - t
    n = sum(f["rows"] for f in report.metadata["files"].values())
    print(f"machine: {os.cpu_count()} cores; spaCy pipeline {os.environ['ROBUST_BENCH_SPACY_MODEL']} (load {t_load:.1f} s)")
    print(f"spaCy nlp.pipe alone, {len(hyps):,} hypotheses:        {t_parse:6.2f} s")
    print(f"engine alone (candidates + sampling), same docs:     {t_engine:6.2f} s   engine / parse = {t_engine / t_parse:.2f}")
    print(f"build gec_mnli, checks=static (no encoder, no ERRANT): {builds['static']:6.2f} s   build / parse = "
          f"{builds['static'] / t_parse:.2f}x (target <= 1.5x)")
    print(f"build gec_mnli ({n:,} pairs, every check, ERRANT on the card): {t_build:6.2f} s   build / parse = "
          f"{t_build / t_parse:.2f}x (target <= 1.5x)")
    print(f"  of which the card's ERRANT figures: {t_errant:6.2f} s")
    print(f"  (parse + engine = {(t_parse + t_engine) / t_parse:.2f}x; the rest is datasets' prepare, Parquet and card)")


if __name__ == "__main__":
    main()
