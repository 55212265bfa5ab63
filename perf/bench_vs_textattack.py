"""robust-bench's greedy attack beside TextAttack's, on the same model, pairs and hardware.

The setup (so anyone can rerun the comparison):

* the model: ``../shared/models/all-MiniLM-L6-v2`` fine-tuned on MRPC train for 3 epochs
  (cached in ``--cache-dir``; the script prints its MRPC dev accuracy);
* the data: the first ``--n`` (100) MRPC dev pairs the model predicts correctly; only
  ``sentence1`` is attacked, as in ``robust-bench attack gec_mrpc``;
* the attacks: robust-bench's greedy search (Yin et al. 2020, Alg. 1: eight learner-error types,
  budget 15% of the tokens, every validity check on) two ways: on the search space gec_mrpc ships
  (``candidates="stored"``, what ``robust-bench attack`` and ``run`` do; the validation split is built
  into ``--repo`` first if it is not there, not timed) and parsing and checking the candidates at run
  time (``candidates="parse"``: spaCy's parse, the second tagger and the meaning encoder, timed); against
  TextAttack's greedy word-importance search
  (``GreedyWordSwapWIR(wir_method="delete")`` with ``WordSwapWordNet``, repeat and stopword
  constraints), model batch size 32 for both; TextAttack with its default ``max_length``
  (every batch padded to 512) and with ``max_length=128``;
* ``--threads`` (2) threads for every run, fp32, on ``--device`` (cpu; ``cuda`` moves every
  model, TextAttack's included, to the GPU).

For each run: wall time per attacked example (robust-bench's parse run includes spaCy's parsing and the
validity checks of the attacked sentences; TextAttack's includes its word splitting), model inputs per second, forward
calls and inputs per call, queries per example, attack success rate, and the inputs per second
as a ratio to a bare batched ``model(**batch)`` loop over the inputs that run sent to its model,
with dynamic padding, in the order they were sent (``_baselines.bare_loop``: what the model
alone costs). Queries: robust-bench counts an example's distinct inputs; TextAttack's
``num_queries`` counts its goal-function calls, cache hits included.
The two attacks change words differently (learner errors against WordNet synonyms), so their
success rates are not comparable; the costs per query and per example are.

TextAttack cannot share our environment (it needs transformers 4); ``install_textattack.sh``
builds its virtual environment and says what that took. Without ``--textattack-python`` only
robust-bench's side runs.

Usage::

    bash perf/install_textattack.sh        # once; prints TEXTATTACK_PYTHON=...
    python perf/bench_vs_textattack.py --source ../shared/data \\
        --textattack-python ~/.cache/robust-bench/textattack-venv/bin/python [--n 100] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _baselines import bare_loop, finetuned  # perf/ is the script's folder

HERE = Path(__file__).resolve().parent


def _row(name, ex, wall, inputs, calls, queries, success, bare_s):
    return {"tool": name, "attacked": ex, "s_per_example": wall / ex, "inputs_per_s": inputs / wall,
            "ratio_to_bare": bare_s / wall, "bare_inputs_per_s": inputs / bare_s, "inputs": inputs,
            "forward_calls": calls, "inputs_per_call": inputs / max(1, calls), "queries_mean": queries,
            "attack_success_rate": success, "wall_s": wall}


def _robust_bench(clf, rows, candidates: str, args, device, path) -> dict:
    """robust-bench's greedy attack on ``rows`` with ``candidates`` (stored or parse), timed."""
    import datasets

    from robust_bench.attacks.gec import _checker, make_targets
    from robust_bench.attacks.search import attack_many, validate_targets
    from robust_bench.data.repository import build_config
    from robust_bench.models.classifiers import CallableClassifier
    from robust_bench.io.task_data import MRPC_LABELS
    from robust_bench.text.nlp import load_spacy

    print(f"2. robust-bench greedy, candidates {candidates}")
    if candidates == "stored":
        repo = Path(args.repo)
        if not (repo / "data" / "gec_mrpc" / "validation.parquet").exists():
            build_config("gec_mrpc", out=repo, source=args.source, options={"splits": ("validation",)})
        data = datasets.load_dataset(str(repo), "gec_mrpc", split="validation")
        by_idx = {r["idx"]: k for k, r in enumerate(data)}
        rows = data.select([by_idx[r["idx"]] for r in rows])
        t = time.perf_counter()
        targets = make_targets(rows, "gec_mrpc", candidates="stored")
    else:
        nlp = load_spacy(args.spacy_model)
        t = time.perf_counter()
        targets = make_targets(rows, "gec_mrpc", nlp, candidates="parse")
        validate_targets(targets, _checker(nlp, "all"))
    prep_s = time.perf_counter() - t
    clf.clear_cache()
    q0, f0 = clf.queries, clf.n_forward
    t = time.perf_counter()
    res = attack_many(clf, targets, search="greedy", progress=True)
    attack_s = time.perf_counter() - t
    wall = attack_s + prep_s
    inputs, calls = clf.queries - q0, clf.n_forward - f0
    # the inputs the model saw, in the order it saw them: the same attack through a recording wrapper
    seen: list = []

    def record(xs):
        seen.extend(xs)
        return clf.predict_proba(xs)

    attack_many(CallableClassifier(record, MRPC_LABELS), targets, search="greedy")
    assert len(seen) == inputs, (len(seen), inputs)
    bare_s = bare_loop(Path(path), seen, args.batch_size, sort=False, device=device)
    print(f"  {attack_s:.1f} s attacking + {prep_s:.1f} s {'reading the stored space' if candidates == 'stored' else 'parsing and checking'} "
          f"of the {len(rows)} sentences; bare loop over the same {inputs:,} inputs {bare_s:.1f} s")
    return _row(f"robust-bench greedy, {candidates}", len(res), wall, inputs, calls, np.mean([r.queries for r in res]),
                np.mean([r.success for r in res]), bare_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--spacy-model", default=os.environ.get("ROBUST_BENCH_SPACY_MODEL", "../shared/models/spacy/en_rb_sm"))
    ap.add_argument("--encoder", default="../shared/models/all-MiniLM-L6-v2")
    ap.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/robust-bench/bench"))
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--n", type=int, default=100, help="Correctly predicted MRPC dev pairs to attack.")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--device", default="cpu", help="cpu, cuda or auto (robust-bench's side and the bare loops).")
    ap.add_argument("--textattack-python", default=os.environ.get("TEXTATTACK_PYTHON"),
                    help="Python of TextAttack's virtual environment (install_textattack.sh).")
    ap.add_argument("--textattack-lengths", default="128,default",
                    help="TextAttack max_length settings to run, comma-separated ('default' is 512).")
    ap.add_argument("--repo", default=os.path.expanduser("~/.cache/robust-bench/bench/repo"),
                    help="Dataset repository holding gec_mrpc (its validation split is built there if missing).")
    ap.add_argument("--out", default="bench_vs_textattack_out")
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(Path(args.source).resolve().parent / "nltk_data"))

    import torch

    torch.set_num_threads(args.threads)
    from robust_bench.io.task_data import MRPC_LABELS, read_mrpc
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.models.loader import resolve_device

    device = resolve_device(args.device)
    src, out = Path(args.source), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"1. model and pairs ({torch.get_num_threads()} threads, device {device})")
    train = read_mrpc(src / "glue/mrpc/train.tsv")
    path = finetuned(args.encoder, Path(args.cache_dir), "mrpc", [(r["sentence1"], r["sentence2"]) for r in train],
                     [r["label"] for r in train], MRPC_LABELS, args.epochs)
    dev = read_mrpc(src / "glue/mrpc/dev.tsv")
    clf = HFClassifier(path, MRPC_LABELS, batch_size=args.batch_size, device=device, dtype="float32")
    pred = clf.predict([(r["sentence1"], r["sentence2"]) for r in dev])
    gold = np.array([r["label"] for r in dev])
    rows = [r for r, ok in zip(dev, pred == gold) if ok][:args.n]
    print(f"  MRPC dev accuracy {np.mean(pred == gold):.3f} ({len(dev)} pairs); attacking the first {len(rows)} "
          "correctly predicted pairs")
    pairs_file = out / "pairs.jsonl"
    with open(pairs_file, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"id": r["idx"], "sentence1": r["sentence1"], "sentence2": r["sentence2"],
                                "label": r["label"]}) + "\n")

    table = [_robust_bench(clf, rows, "stored", args, device, path), _robust_bench(clf, rows, "parse", args, device, path)]
    if args.textattack_python:
        for ml in args.textattack_lengths.split(","):
            print(f"3. TextAttack, max_length {ml}")
            ta_out = out / f"textattack_{ml}.json"
            subprocess.run([args.textattack_python, str(HERE / "_textattack_attack.py"), "--model", path,
                            "--pairs", str(pairs_file), "--max-length", ml, "--batch-size", str(args.batch_size),
                            "--threads", str(args.threads), "--device", device, "--out", str(ta_out)], check=True)
            ta = json.loads(ta_out.read_text(encoding="utf-8"))
            queried = [tuple(x) for x in ta["queried"]]
            assert len(queried) == ta["inputs"], (len(queried), ta["inputs"])
            ex = ta["examples"]
            done = [e for e in ex if e["result"] != "skipped"]
            ta_bare = bare_loop(Path(path), queried, args.batch_size, sort=False, device=device)
            table.append(_row(f"TextAttack, max_length {ta['pad_to']}", len(ex), ta["wall_s"], ta["inputs"],
                              ta["forward_calls"], np.mean([e["queries"] for e in ex]),
                              np.mean([e["result"] == "success" for e in done]), ta_bare))
            table[-1]["versions"] = ta["versions"]
            print(f"  skipped (already misclassified for TextAttack): {len(ex) - len(done)}; "
                  f"mean padded length {ta['padded_tokens'] / ta['inputs']:.0f} subwords "
                  f"(real {ta['real_tokens'] / ta['inputs']:.0f})")
    else:
        print("3. TextAttack: not run (give --textattack-python; see perf/install_textattack.sh)")

    print("\n| tool | s per attacked example | inputs/s | ÷ bare loop | inputs per forward | queries mean | "
          "attack success rate |\n|---|---:|---:|---:|---:|---:|---:|")
    for r in table:
        print(f"| {r['tool']} | {r['s_per_example']:.3f} | {r['inputs_per_s']:.0f} | {r['ratio_to_bare']:.2f} | "
              f"{r['inputs_per_call']:.0f} | {r['queries_mean']:.1f} | {r['attack_success_rate']:.2f} |")
    print(f"\nbare model(**batch) loop (dynamic padding, batch {args.batch_size}, query order) over robust-bench's "
          f"inputs: {table[0]['bare_inputs_per_s']:.0f} inputs/s")
    for r in table[2:]:
        print(f"robust-bench needs {r['s_per_example'] / table[0]['s_per_example']:.1f}x less wall time per attacked "
              f"example than {r['tool']} (targets: 3x at max_length 128, 10x at the default)")
    print(f"robust-bench's inputs/s ÷ bare loop: {table[0]['ratio_to_bare']:.2f} on the stored space, "
          f"{table[1]['ratio_to_bare']:.2f} parsing and checking at run time (target >= 0.95)")
    meta = {"threads": args.threads, "batch_size": args.batch_size, "device": device, "n": len(rows),
            "model": path, "torch": torch.__version__, "python": sys.version.split()[0]}
    (out / "results.json").write_text(json.dumps({"meta": meta, "table": table}, indent=2, default=float),
                                      encoding="utf-8")
    print(f"-> {out / 'results.json'}")


if __name__ == "__main__":
    main()
