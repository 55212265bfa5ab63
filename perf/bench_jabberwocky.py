"""Benchmark: jabberwocky_ewt build time and UUAS/DSpr time on EWT test.

Targets (issue "Foundation"): the build of all three splits under 60 s on a 2-core machine;
UUAS and DSpr for the 2,077 test sentences under 2 s. Each figure is printed with a ratio
against a baseline measured in the same process:

* build time / time to only read and validate the three CoNLL-U files;
* metric time / the per-row ``scipy.stats.spearmanr`` loop and union-find Kruskal of
  Hewitt & Manning's reporter.py, on the same predictions.

Usage::

    python perf/bench_jabberwocky.py --source ../shared/data
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def _timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def _reference_metrics(heads, preds, punct):
    """Hewitt & Manning's reporter.py, restated: per-row spearmanr and Kruskal with union-find."""
    from scipy.stats import spearmanr

    from robust_bench.text.trees import tree_distances

    by_len = {}
    correct = total = 0
    for h, p, pu in zip(heads, preds, punct):
        g = tree_distances(h)
        n = len(h)
        if 5 <= n <= 50:
            by_len.setdefault(n, []).extend(spearmanr(a, b).correlation for a, b in zip(p, g))

        def mst(m):
            parent = list(range(n))

            def find(i):
                while parent[i] != i:
                    i = parent[i]
                return i
            pairs = sorted(((m[i][j], i, j) for i in range(n) for j in range(n) if not pu[i] and not pu[j]))
            edges = set()
            for _, i, j in pairs:
                if find(i) != find(j):
                    parent[find(i)] = find(j)
                    edges.add((min(i, j), max(i, j)))
            return edges
        ge, pe = mst(g), mst(p)
        correct += len(ge & pe)
        total += len(ge)
    return correct / total, float(np.mean([np.mean(v) for v in by_len.values()]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--num-proc", type=int, default=None)
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))

    from robust_bench.io.conllu_io import read_conllu
    from robust_bench.data.repository import build_config
    from robust_bench.scoring import dspr_score, punctuation_mask, uuas_score
    from robust_bench.text.trees import tree_distances

    ewt = Path(args.source) / "ud_english_ewt"
    splits, t_read = _timed(lambda: {s: read_conllu(ewt / f"en_ewt-ud-{s}.conllu") for s in ("train", "dev", "test")})
    with tempfile.TemporaryDirectory() as tmp:
        report, t_build = _timed(build_config, "jabberwocky_ewt", out=Path(tmp) / "robust-bench",
                                 source=args.source, seed=0, num_proc=args.num_proc)
    n_sent = sum(len(v) for v in splits.values())

    test = splits["test"]
    rng = np.random.default_rng(0)
    heads = [s.heads for s in test]
    punct = [punctuation_mask(s.upos) for s in test]
    preds = []
    for h in heads:
        d = tree_distances(h) + rng.normal(0, 1.0, (len(h), len(h)))
        preds.append((d + d.T) / 2)
    (uuas, t_uuas) = _timed(uuas_score, heads, preds, punctuation=punct)
    (dspr, t_dspr) = _timed(dspr_score, heads, preds)
    (ref, t_ref) = _timed(_reference_metrics, heads, preds, punct)
    assert abs(ref[0] - uuas) < 1e-12 and abs(ref[1] - dspr) < 1e-9, (ref, uuas, dspr)

    cores = os.cpu_count()
    print(f"machine: {cores} cores; num_proc={args.num_proc}")
    print(f"build jabberwocky_ewt (3 splits, {n_sent:,} sentences): {t_build:6.1f} s   target < 60 s: "
          f"{'met' if t_build < 60 else 'MISSED'} ({t_build / 60:.2f} of budget)")
    print(f"  baseline, read + validate the 3 CoNLL-U files:     {t_read:6.1f} s   build / read = {t_build / t_read:.1f}x")
    t_metric = t_uuas + t_dspr
    print(f"UUAS + DSpr on EWT test ({len(test):,} sentences):       {t_metric:6.2f} s   target < 2 s: "
          f"{'met' if t_metric < 2 else 'MISSED'} (UUAS {t_uuas:.2f} s, DSpr {t_dspr:.2f} s)")
    print(f"  baseline, reporter.py restated (spearmanr loop):   {t_ref:6.2f} s   speed-up = {t_ref / t_metric:.1f}x")


if __name__ == "__main__":
    main()
