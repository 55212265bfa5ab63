"""Label scoring with a causal LM (issue 33): throughput against a bare batched forward loop and
against lm-eval's own ``loglikelihood`` over the same requests, in one process.

A GPT-2 with random weights (``--hidden``, ``--layers``; byte-BPE vocabulary from the rows) scores
``--n`` MNLI pairs of ../shared (TextFooler's public dev samples) in lm-eval's MNLI prompt, three
verbalisers each. Four timings, interleaved ``--repeats`` times (the fastest of each is reported, so
that none alone pays for the first batch shapes on a GPU):

1. **robust-bench**: :class:`robust_bench.models.llm.LLMClassifier` on the ``hf`` backend,
   ``predict_proba`` of every pair (prompt rendering, tokenisation, requests, softmax; a fresh cache);
2. **bare loop**: the same token sequences lm-eval builds (``context + continuation`` encoded whole,
   the continuation's tokens split off, the last one dropped from the input), length-sorted into
   batches of ``--batch-size`` and right-padded, with the indices of the scored tokens: all built
   before the clock starts. Timed: one ``model(input_ids, attention_mask)`` per batch, log-softmax
   over the whole batch, the scored tokens gathered and summed per request on the device, one
   transfer at the end. Requests that share their input (one-token verbalisers of one context) are
   run once, as lm-eval does. This is the loop the issue's target names;
3. **lean bare loop**: the same, but the model computes logits only from the batch's first scored
   position on (``logits_to_keep``, no attention mask) and the log-softmax is taken at the scored
   positions only, which is the work robust-bench does: the ratio to it is what robust-bench's
   tokenisation and bookkeeping cost;
4. **lm-eval**: ``HFLM.loglikelihood`` on the same (context, continuation) requests, what a user of
   lm-eval would run.

Prints pairs per second of each, the ratios of robust-bench to the bare loop (target >= 0.8), to the
lean bare loop and to lm-eval, and the largest difference of its log-likelihoods from the bare loop's
and lm-eval's; ``--device cuda`` on a GPU machine.

``--model`` scores a real causal LM instead (a transformers folder, or a GGUF file, which is dequantized
once into a temporary folder that all four load: the timings are of scoring, not of loading), e.g. the
instruction-tuned SmolLM2-135M (GQA, RoPE, a 49k vocabulary).

Usage::

    python perf/bench_llm.py [--n 1000] [--hidden 256] [--layers 4] [--batch-size 32] [--device cpu]
    python perf/bench_llm.py --model ../shared/models/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q4_1.gguf --n 200
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def bare(model_dir: Path, requests: list[tuple[str, str]], batch_size: int, device: str,
         dtype, lean: bool = False) -> tuple[float, list[float]]:
    """Seconds of the bare loop over ``requests`` (weights in ``dtype``, as robust-bench loads them on
    ``device``) and the log-likelihoods it gives. The token sequences, padded batches and the indices
    of the scored tokens are built before the clock starts; the loop runs the model, takes the
    log-softmax (over every position, or with ``lean`` over the scored ones only, the model computing
    logits from the batch's first scored position on, without an attention mask), gathers the scored
    tokens and sums them per request on the device, with one transfer at the end."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype).eval().to(device)
    seqs = []
    for ctx, cont in requests:
        whole = tok(ctx + cont, add_special_tokens=False)["input_ids"]
        n_ctx = len(tok(ctx, add_special_tokens=False)["input_ids"])
        seqs.append((tuple(whole[:-1]), whole[n_ctx:]))
    n_cont: dict[tuple, int] = {}
    users: dict[tuple, list[int]] = {}
    for r, (s, c) in enumerate(seqs):
        n_cont[s] = max(n_cont.get(s, 0), len(c))
        users.setdefault(s, []).append(r)
    distinct = sorted(n_cont, key=len, reverse=True)
    batches = []
    for i in range(0, len(distinct), batch_size):
        chunk = distinct[i:i + batch_size]
        width = len(chunk[0])
        start = min(len(s) - n_cont[s] for s in chunk) if lean else 0
        ids = torch.zeros(len(chunk), width, dtype=torch.long)
        att = torch.zeros_like(ids)
        index: list[list[int]] = [[], [], [], []]
        for row, s in enumerate(chunk):
            ids[row, :len(s)], att[row, :len(s)] = torch.tensor(s), 1
            for r in users[s]:
                cont = seqs[r][1]
                index[0] += [row] * len(cont)
                index[1] += range(len(s) - start - len(cont), len(s) - start)
                index[2] += cont
                index[3] += [r] * len(cont)
        batches.append((start, width, ids, att, torch.tensor(index)))

    def run(todo):
        sums = torch.zeros(len(seqs), device=device)
        with torch.inference_mode():
            for start, width, ids, att, index in todo:
                ids, index = ids.to(device), index.to(device)
                if lean:
                    logits = model(input_ids=ids, logits_to_keep=width - start).logits
                    picked = logits[index[0], index[1]].float()
                    lp = picked.gather(1, index[2, :, None])[:, 0] - torch.logsumexp(picked, dim=1)
                else:
                    logp = torch.log_softmax(model(input_ids=ids, attention_mask=att.to(device)).logits.float(), -1)
                    lp = logp[index[0], index[1], index[2]]
                sums.index_add_(0, index[3], lp)
        return sums.cpu().tolist()

    run(batches[:1])                                # warm-up
    t = time.perf_counter()
    lls = run(batches)
    return time.perf_counter() - t, lls


def real_model(spec: str, tmp: Path) -> Path:
    """A transformers folder of the causal LM ``spec``: the folder itself, or a GGUF file dequantized once
    (:func:`robust_bench.models.llm.dequantize_gguf`)."""
    from robust_bench.models.llm import dequantize_gguf

    path = Path(spec)
    return dequantize_gguf(path, tmp / "dequantized") if path.suffix == ".gguf" else path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--n", type=int, default=1000, help="MNLI pairs scored.")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeats", type=int, default=2, help="Timings of each, interleaved; the fastest is reported.")
    ap.add_argument("--model", help="A real causal LM (transformers folder or GGUF file) instead of the random GPT-2.")
    args = ap.parse_args()

    import numpy as np
    import torch

    from robust_bench.evaluations import CommandTask
    from robust_bench.io.task_data import NLI_LABELS, read_nli
    from robust_bench.models.llm import LLMClassifier, LLMSettings, task_prompt
    from robust_bench.models.resolve import load_model
    from robust_bench.models.tiny import build_tiny_gpt2

    rows = []
    for name in ("dev_matched_sample.tsv", "dev_mismatched_sample.tsv"):
        rows += read_nli(Path(args.source) / "glue" / "mnli" / name)
    pairs = [(r["premise"], r["hypothesis"]) for r in rows][:args.n]
    gpu = f" ({torch.cuda.get_device_name()})" if args.device.startswith("cuda") else ""
    what = Path(args.model).name if args.model else f"GPT-2 {args.layers} layers x {args.hidden}"
    print(f"machine: {os.cpu_count()} cores, torch {torch.__version__} ({torch.get_num_threads()} threads), device "
          f"{args.device}{gpu}; {len(pairs)} MNLI pairs, {what}, batch size {args.batch_size}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.model:
            model_dir = real_model(args.model, Path(tmp))
        else:
            model_dir = build_tiny_gpt2(Path(tmp) / "lm", [(a + " " + b).split() for a, b in pairs], hidden=args.hidden,
                                        layers=args.layers, heads=max(1, args.hidden // 64), vocab_size=4000,
                                        max_positions=512, lm_head=True)
        handle = load_model(str(model_dir), device=args.device, batch_size=args.batch_size)
        task = CommandTask("gec_mnli", "validation_matched")
        clf = handle.classifier(list(NLI_LABELS), task=task)
        prompt = task_prompt("gec_mnli", NLI_LABELS)
        requests = [(clf.context(x), clf.delimiter + v) for x in pairs for v in prompt.verbalisers]

        from lm_eval.api.instance import Instance

        from robust_bench.models.loader import resolve_device, resolve_dtype

        lm = handle.llm_backend()
        dtype = resolve_dtype(resolve_device(args.device), "auto")
        times: dict[str, list[float]] = {"ours": [], "bare": [], "lean": [], "lm_eval": []}
        for _ in range(args.repeats):         # interleaved, so that no contender alone pays first-shape costs
            fresh = LLMClassifier(lm, NLI_LABELS, prompt, LLMSettings())
            t = time.perf_counter()
            fresh.predict_proba(pairs)
            times["ours"].append(time.perf_counter() - t)
            t_bare, lls = bare(model_dir, requests, args.batch_size, args.device, dtype)
            times["bare"].append(t_bare)
            t_lean, lls_lean = bare(model_dir, requests, args.batch_size, args.device, dtype, lean=True)
            times["lean"].append(t_lean)
            t = time.perf_counter()
            theirs = lm.lm.loglikelihood([Instance(request_type="loglikelihood", doc={}, arguments=r, idx=i)
                                          for i, r in enumerate(requests)], disable_tqdm=True)
            times["lm_eval"].append(time.perf_counter() - t)
        ours = clf.loglikelihoods(pairs)                # not timed: for the agreement checks
        diff = float(max(np.abs(np.asarray(x).reshape(ours.shape) - ours).max() for x in (lls, lls_lean)))
        diff_lm_eval = float(np.abs(np.asarray([ll for ll, _ in theirs]).reshape(ours.shape) - ours).max())
        t_ours, t_bare, t_lean, t_lm_eval = (min(times[k]) for k in ("ours", "bare", "lean", "lm_eval"))

    n = len(pairs)
    print(f"  robust-bench LLMClassifier  {n / t_ours:9.1f} pairs/s  ({t_ours:.2f} s)")
    print(f"  bare batched forward loop   {n / t_bare:9.1f} pairs/s  ({t_bare:.2f} s)")
    print(f"  lean bare loop              {n / t_lean:9.1f} pairs/s  ({t_lean:.2f} s)")
    print(f"  lm-eval HFLM.loglikelihood  {n / t_lm_eval:9.1f} pairs/s  ({t_lm_eval:.2f} s)")
    print(f"  ratio robust-bench / bare loop:      {t_bare / t_ours:.2f} (target >= 0.8)")
    print(f"  ratio robust-bench / lean bare loop: {t_lean / t_ours:.2f}")
    print(f"  ratio robust-bench / lm-eval:        {t_lm_eval / t_ours:.2f}")
    print(f"  largest log-likelihood difference, robust-bench vs bare loops: {diff:.2e} nats, "
          f"vs lm-eval: {diff_lm_eval:.2e} nats")

if __name__ == "__main__":
    main()
