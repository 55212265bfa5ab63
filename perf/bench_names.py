"""Named-entity swaps end to end on real models, and their speed (Balasubramanian et al., 2020).

1. **Build speed**: ``names_mrpc`` at B = 50 (test, validation and random splits) from the local
   mirror; rows (the original and its variants) and source pairs per second.
2. **Table 3 / Table 5 on MRPC**: fine-tunes ``../shared/models/all-MiniLM-L6-v2`` on MRPC train
   (cached in ``--cache-dir``, so a second run skips it) and scores it on ``names_mrpc``: F1 of the
   positive class on the original set, D_worst, D_best, the 10 random copies, and stability;
   then RESEMBLE (§4, Eq. 2) with M = 1 and M = 3 canonical organisations chosen on validation,
   T = 2, and the annotator's confidence fixed (spaCy's NER gives no probability), on the first
   ``--resemble-variants`` variants of every group (Table 5, with the plain model on the same rows).
3. **Speed of scoring**: model queries per second during the plain scoring as a ratio to the raw
   batched forward of the same model over exactly the inputs it queried (tokenise a batch with
   padding, ``model(**batch)``, softmax; batches in the order a user would write them and
   length-sorted, the physical limit). Target >= 0.8.
4. **Table 3 on CoNLL-2003**: the NER of ``--spacy-model`` (the issue asks for ``en_core_web_sm``) on ``names_conll2003`` at B = 50, and its query
   rate against a bare ``nlp.pipe`` over the same distinct sentences.
5. Figures (the paper's Fig. 1 and the worst/best spread per kind of name) in ``--out``.

Usage::

    python perf/bench_names.py --source ../shared/data [--budget 50] [--cache-dir ~/.cache/robust-bench/bench]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _baselines import bare_loop  # perf/ is the script's folder


def table(rows: dict[str, dict], metric: str) -> str:
    head = f"  {'system':<16} {'original':>9} {'D_worst':>8} {'D_best':>8} {'random':>15} {'stability':>10}"
    out = [head.replace("metric", metric)]
    for name, sc in rows.items():
        out.append(f"  {name:<16} {100 * sc['original']:>9.2f} {100 * sc['worst']:>8.2f} {100 * sc['best']:>8.2f} "
                   f"{100 * sc['random_mean']:>8.2f} ± {100 * sc['random_std']:<4.2f} {100 * sc['stability']:>10.2f}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--spacy-model", default=os.environ.get("ROBUST_BENCH_SPACY_MODEL", "../shared/models/spacy/en_rb_sm"))
    ap.add_argument("--model", default="../shared/models/all-MiniLM-L6-v2", help="Encoder to fine-tune on MRPC train.")
    ap.add_argument("--budget", type=int, default=50, help="B, swapped variants per group.")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/robust-bench/bench"),
                    help="Where the fine-tuned classifier is kept between runs.")
    ap.add_argument("--confidence", type=float, default=0.9, help="RESEMBLE's annotator confidence c.")
    ap.add_argument("--out", default="bench_names_out", help="Folder for the figures.")
    ap.add_argument("--skip-ner", action="store_true", help="Skip the CoNLL-2003 part.")
    ap.add_argument("--resemble-variants", type=int, default=10,
                    help="Table 5 uses the first K variants of every group (RESEMBLE multiplies the queries by M + 1).")
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))
    spacy_model = str(Path(args.spacy_model).resolve()) if os.path.exists(args.spacy_model) else args.spacy_model
    os.environ["ROBUST_BENCH_SPACY_MODEL"] = spacy_model

    from robust_bench.data.repository import build_config
    from robust_bench.evaluations.names import (Resemble, canonical_candidates, choose_canonical_names,
                                                    load_name_sets, plot_frequency, plot_spread, score_classifier,
                                                    score_tagger)
    from robust_bench.io.task_data import MRPC_LABELS, read_mrpc
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.models.taggers import SpacyTagger
    from robust_bench.models.tiny import finetune_classifier
    from robust_bench.text.nlp import load_spacy

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores; B = {args.budget}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "robust-bench"
        # 1. build speed
        t = time.perf_counter()
        report = build_config("names_mrpc", out=repo, source=args.source, seed=0, options={"budget": args.budget})
        t_build = time.perf_counter() - t
        files = report.metadata["files"]
        rows = sum(f["rows"] for f in files.values())
        read = report.metadata.get("provenance", {}).get("source_read", {})
        pairs = sum(r.get("rows", 0) for r in read.values()) if read else 0
        per_split = ", ".join(f"{s} {f['rows']:,}" for s, f in files.items())
        print(f"\n1. build names_mrpc: {rows:,} rows ({per_split}) "
              f"from {pairs:,} source pairs in {t_build:.1f} s: {rows / t_build:,.0f} rows/s, "
              f"{pairs / t_build:,.0f} source pairs/s (spaCy NER of every pair included)")

        # 2. fine-tune (cached)
        cache = Path(args.cache_dir) / f"{Path(args.model).name}-mrpc-e{args.epochs}"
        src = Path(args.source)
        train_file = src / "glue/mrpc/train.tsv"
        if not (cache / "config.json").is_file():
            train = read_mrpc(train_file)
            t = time.perf_counter()
            finetune_classifier(args.model, cache, [(r["sentence1"], r["sentence2"]) for r in train],
                                [r["label"] for r in train], MRPC_LABELS, epochs=args.epochs)
            print(f"\n2. fine-tuned {Path(args.model).name} on {len(train):,} MRPC train pairs, {args.epochs} epochs, "
                  f"in {time.perf_counter() - t:.0f} s -> {cache}")
        else:
            print(f"\n2. fine-tuned classifier from the cache: {cache}")
        sets, meta = load_name_sets(repo, "names_mrpc")
        test, rand, val = sets["test"], sets["random"], sets["validation"]
        clf = HFClassifier(str(cache), MRPC_LABELS, device="cpu", batch_size=64)
        clf.predict([(test[0]["sentence1"], test[0]["sentence2"])])           # warm-up
        clf.clear_cache()
        q0, t = clf.queries, time.perf_counter()
        results = {"plain": score_classifier(clf, test, rand)}
        t_ours = time.perf_counter() - t
        n_q = clf.queries - q0
        print(f"   accuracy on the {sum(v == 0 for v in test['variant'])} original test pairs: "
              f"{results['plain']['accuracy_original']:.3f}")

        # 3. speed against the raw batched forward over the same distinct inputs
        inputs = list(dict.fromkeys(list(zip(test["sentence1"], test["sentence2"]))
                                    + list(zip(rand["sentence1"], rand["sentence2"]))))
        assert len(inputs) == n_q, (len(inputs), n_q)
        bare_loop(cache, inputs[:128], 64, sort=False)                           # warm-up
        t_bare = bare_loop(cache, inputs, 64, sort=False)
        t_sorted = bare_loop(cache, inputs, 64, sort=True)
        rows_scored = len(test) + len(rand)
        print(f"\n3. scoring speed ({rows_scored:,} rows, {n_q:,} distinct inputs, each scored once):")
        print(f"   score_classifier:           {t_ours:7.1f} s  {n_q / t_ours:7.1f} queries/s (everything included)")
        print(f"   bare loop, rows in order:   {t_bare:7.1f} s  {n_q / t_bare:7.1f} inputs/s   ratio {t_bare / t_ours:.2f}")
        print(f"   bare loop, length-sorted:   {t_sorted:7.1f} s  {n_q / t_sorted:7.1f} inputs/s   ratio "
              f"{t_sorted / t_ours:.2f} (target >= 0.8)")

        # RESEMBLE (Table 5)
        nlp = load_spacy(spacy_model, require=("ner",))
        cands = canonical_candidates(test)
        t = time.perf_counter()
        ranking = choose_canonical_names(clf, val, cands, nlp, m=3)
        print(f"\n   canonical names by validation accuracy ({len(cands)} candidates, {time.perf_counter() - t:.0f} s): "
              + ", ".join(f"{r['name']} {r['accuracy']:.3f}" for r in ranking[:5]))
        k = min(args.resemble_variants, args.budget)
        sub = test.filter(lambda r: r["variant"] <= k)
        print(f"\nTable 3: {Path(args.model).name} fine-tuned on MRPC, names_mrpc test ({results['plain']['groups']} "
              f"groups, B = {args.budget}); F1 of the positive class, percent")
        print(table(results, "F1"))
        table5 = {"plain": score_classifier(clf, sub, rand)}           # cached: no new query
        for m in (1, 3):
            wrapped = Resemble(clf, [r["name"] for r in ranking[:m]], nlp, temperature=2.0, confidence=args.confidence)
            t = time.perf_counter()
            table5[f"RESEMBLE M={m}"] = score_classifier(wrapped, sub, rand)
            print(f"   RESEMBLE M={m}: {time.perf_counter() - t:.0f} s")
        print(f"\nTable 5: the same groups with their first {k} variants (B = {k}; RESEMBLE costs M + 1 forward "
              f"passes per input), c = {args.confidence}, T = 2; F1 of the positive class, percent")
        print(table(table5, "F1"))
        results.update({n: v for n, v in table5.items() if n != "plain"})
        for name, sc in results.items():
            kinds = ", ".join(f"{k}: {100 * v['original']:.1f} / {100 * v['worst']:.1f} / {100 * v['best']:.1f} "
                              f"({v['groups']})" for k, v in sc["by_kind"].items())
            print(f"   {name} by kind (original / worst / best (groups)): {kinds}")
        figs = plot_spread(table5, out / "minilm_mrpc__names_mrpc__spread", title=f"MiniLM (MRPC) on names_mrpc, B = {k}",
                           metric="F1")
        figs += plot_frequency(results["plain"]["frequency_points"], out / "minilm_mrpc__names_mrpc__frequency",
                               title="MiniLM (MRPC) on names_mrpc (Fig. 1)", ylabel="accuracy of the variant")

        # 4. NER
        if not args.skip_ner:
            t = time.perf_counter()
            build_config("names_conll2003", out=repo, source=args.source, seed=0, options={"budget": args.budget})
            t_b = time.perf_counter() - t
            sets, _ = load_name_sets(repo, "names_conll2003")
            tags = sets["test"].features["ner_tags"].feature.names
            tagger = SpacyTagger(spacy_model, tags)
            t = time.perf_counter()
            sc = score_tagger(tagger, sets["test"], sets["random"])
            t_tag = time.perf_counter() - t
            sents = list(dict.fromkeys(tuple(x) for x in list(sets["test"]["tokens"]) + list(sets["random"]["tokens"])))
            from spacy.tokens import Doc

            keep = [p for p in tagger.nlp.pipe_names if p in ("ner", "tok2vec")]
            t = time.perf_counter()
            for _ in tagger.nlp.pipe((Doc(tagger.nlp.vocab, words=list(s)) for s in sents), batch_size=256,
                                     disable=[p for p in tagger.nlp.pipe_names if p not in keep]):
                pass
            t_pipe = time.perf_counter() - t
            name = Path(spacy_model).name
            print(f"\n4. names_conll2003 built in {t_b:.1f} s; {name} NER (Table 3, entity F1, percent):")
            print(table({name: sc}, "entity F1"))
            print(f"   scoring {len(sents):,} distinct sentences: {t_tag:.1f} s ({tagger.queries / t_tag:,.0f} queries/s); "
                  f"bare nlp.pipe over the same sentences {t_pipe:.1f} s; ratio {t_pipe / t_tag:.2f}")
            figs += plot_spread({name: sc}, out / f"{name}__names_conll2003__spread", title=f"{name} on "
                                "names_conll2003", metric="entity F1")
            figs += plot_frequency(sc["frequency_points"], out / f"{name}__names_conll2003__frequency",
                                   title=f"{name} on names_conll2003 (Fig. 1)", ylabel="entity F1 of the variant")
        print("\nfigures: " + ", ".join(str(p) for p in figs))


if __name__ == "__main__":
    main()
