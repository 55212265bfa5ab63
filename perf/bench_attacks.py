"""Attacks end to end on real MNLI and MRPC, and attack speed.

1. Fine-tunes a real pretrained encoder (default ``../shared/models/all-MiniLM-L6-v2``) into
   classifiers locally (no hub): MNLI on the mismatched MNLI sample plus the SNLI sample, tested
   on the matched sample; MRPC on MRPC train, tested on MRPC dev + test. Attacks the correctly
   predicted examples with greedy, beam and genetic search (budget 15%) and prints attack success
   rate, modified share and queries per example.
2. Speed, on the same model and examples: model queries per second during a greedy attack as a
   ratio to a bare ``model(**batch)`` loop over exactly the inputs the attack queried (tokenise
   with padding, forward, softmax; batches in query order, as a user would write it, and sorted
   by length, the physical limit; target >= 0.7), and the wall-time ratio against a naive
   implementation of the same search that sends one candidate per forward pass.

Usage::

    python perf/bench_attacks.py --source ../shared/data [--min-attacked 200] [--model PATH]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from _baselines import bare_loop  # noqa: E402  (perf/ is the script's folder)


def _targets(rows, fields, segment, nlp):
    from robust_bench.attacks.search import AttackTarget
    from robust_bench.perturb.gec import render, tokens_from_doc

    docs = nlp.pipe([r[segment] for r in rows], disable=["ner"], batch_size=256)
    out = []
    for r, d in zip(rows, docs):
        def make(words, spaces, edits=(), r=r):
            return tuple(render(words, spaces) if f == segment else r[f] for f in fields)
        out.append(AttackTarget(tokens_from_doc(d), make, r["label"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--spacy-model", default=os.environ.get("ROBUST_BENCH_SPACY_MODEL", "../shared/models/spacy/en_rb_sm"))
    ap.add_argument("--min-attacked", type=int, default=200)
    ap.add_argument("--model", default="../shared/models/all-MiniLM-L6-v2",
                    help="Pretrained encoder to fine-tune (local folder or Hub id).")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--max-train", type=int, default=4000, help="Training pairs per task at most.")
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))

    from robust_bench.attacks.search import SEARCHES, attack, attack_many
    from robust_bench.io.task_data import MRPC_LABELS, NLI_LABELS, read_mrpc, read_nli
    from robust_bench.models.classifiers import CallableClassifier, HFClassifier
    from robust_bench.models.tiny import finetune_classifier
    from robust_bench.text.nlp import load_spacy

    src = Path(args.source)
    nlp = load_spacy(str(Path(args.spacy_model).resolve()) if os.path.exists(args.spacy_model) else args.spacy_model)
    tasks = {
        "mnli": (read_nli(src / "glue/mnli/dev_mismatched_sample.tsv") + read_nli(src / "snli/dev_sample.tsv"),
                 read_nli(src / "glue/mnli/dev_matched_sample.tsv"), ("premise", "hypothesis"), "hypothesis", NLI_LABELS),
        "mrpc": (read_mrpc(src / "glue/mrpc/train.tsv"),
                 read_mrpc(src / "glue/mrpc/dev.tsv") + read_mrpc(src / "glue/mrpc/msr_paraphrase_test.txt"),
                 ("sentence1", "sentence2"), "sentence1", MRPC_LABELS),
    }
    with tempfile.TemporaryDirectory() as tmp:
        speed_done = False
        for name, (train, test, fields, segment, labels) in tasks.items():
            t = time.perf_counter()
            train = train[:args.max_train]
            path = finetune_classifier(args.model, Path(tmp) / name, [tuple(r[f] for f in fields) for r in train],
                                       [r["label"] for r in train], labels, epochs=args.epochs)
            clf = HFClassifier(str(path), labels)
            inputs = [tuple(r[f] for f in fields) for r in test]
            gold = np.array([r["label"] for r in test])
            pred = clf.predict(inputs)
            correct = [r for r, ok in zip(test, pred == gold) if ok]
            print(f"\n{name}: {Path(args.model).name} fine-tuned on {len(train):,} pairs in {time.perf_counter() - t:.0f} s; "
                  f"accuracy {np.mean(pred == gold):.3f} on {len(test):,}; {len(correct)} correct")
            correct = correct[:max(args.min_attacked, 200)]
            targets = _targets(correct, fields, segment, nlp)
            print(f"  {'search':<8} {'attacked':>8} {'ASR':>7} {'modified':>9} {'queries mean':>13} {'median':>7} {'seconds':>8}")
            for search in SEARCHES:
                clf.clear_cache()
                t = time.perf_counter()
                res = attack_many(clf, targets, search=search)
                secs = time.perf_counter() - t
                ok = [r for r in res if r.success]
                share = np.mean([r.modified / len(tg.tokens) for r, tg in zip(res, targets) if r.success]) if ok else 0
                q = [r.queries for r in res]
                print(f"  {search:<8} {len(res):>8} {len(ok) / len(res):>7.3f} {share:>9.3f} {np.mean(q):>13.1f} "
                      f"{np.median(q):>7.0f} {secs:>8.1f}")
            if speed_done:
                continue
            speed_done = True
            # speed on this model and these examples
            sub = targets[:60]
            clf.clear_cache()
            q0, t = clf.queries, time.perf_counter()
            attack_many(clf, sub, search="greedy")
            t_ours = time.perf_counter() - t
            n_q = clf.queries - q0
            # the same attack again through a recording wrapper: its cache passes on exactly the
            # inputs the model had to score, in query order
            seen: list = []
            fresh = HFClassifier(str(path), labels)

            def record(xs):
                seen.extend(xs)
                return fresh.predict_proba(xs)

            attack_many(CallableClassifier(record, labels), sub, search="greedy")
            assert len(seen) == n_q, (len(seen), n_q)
            bare_loop(path, seen[:64], clf.batch_size, sort=False)  # warm-up
            t_bare = bare_loop(path, seen, clf.batch_size, sort=False)
            t_sorted = bare_loop(path, seen, clf.batch_size, sort=True)
            naive = HFClassifier(str(path), labels, batch_size=1)
            t = time.perf_counter()
            for k, tg in enumerate(sub):
                attack(naive, tg, search="greedy", seed=k)
            t_naive = time.perf_counter() - t
            print(f"\nspeed ({name}, greedy, {len(sub)} examples, {n_q:,} queries, {os.cpu_count()} CPU cores):")
            print(f"  bare model(**batch) loop, query order:    {n_q / t_bare:8.0f} queries/s")
            print(f"  bare model(**batch) loop, length-sorted:  {n_q / t_sorted:8.0f} queries/s")
            print(f"  during the greedy attack:                 {n_q / t_ours:8.0f} queries/s   "
                  f"ratio {t_bare / t_ours:.2f} vs query order, {t_sorted / t_ours:.2f} vs sorted (target >= 0.7)")
            print(f"  naive one candidate per forward:          {t_naive:8.1f} s vs {t_ours:.1f} s   "
                  f"speed-up {t_naive / t_ours:.1f}x")


if __name__ == "__main__":
    main()
