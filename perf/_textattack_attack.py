"""TextAttack's side of ``bench_vs_textattack.py``; runs in TextAttack's own virtual environment.

The attack is TextAttack's greedy word-importance search with deletion importance
(``GreedyWordSwapWIR(wir_method="delete")``), WordNet synonym swaps (``WordSwapWordNet``), its
repeat and stopword constraints, and ``InputColumnModification`` so that only ``sentence1`` of an
MRPC pair is perturbed; the goal is an untargeted label flip (``UntargetedClassification``,
no query budget), with the model behind ``HuggingFaceModelWrapper``.

That wrapper pads every batch to ``tokenizer.model_max_length`` (``padding="max_length"``); its
own ``max_length`` argument only reaches ``generate``. So ``--max-length 128`` sets the
tokenizer's ``model_max_length``, the one knob a user has.

The model's forward is wrapped to count calls, inputs and padded tokens; the wrapper's inputs
are written out (``queried``) so that the bench can time a bare loop over exactly them.
Nothing from robust-bench is imported: this file runs under transformers 4 (see
``install_textattack.sh``).

Usage::

    $TEXTATTACK_VENV/bin/python perf/_textattack_attack.py --model DIR --pairs pairs.jsonl \\
        --max-length 128 --batch-size 32 --threads 2 --out out.json
"""

import argparse
import json
import os
import sys
import time
from collections import OrderedDict

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, help="sequence-classification model folder")
    p.add_argument("--pairs", required=True, help="JSONL of {id, sentence1, sentence2, label}")
    p.add_argument("--max-length", default="default",
                   help="'default' (the tokenizer's model_max_length, 512 for MiniLM) or an integer")
    p.add_argument("--batch-size", type=int, default=32, help="UntargetedClassification(model_batch_size=...)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    t_start = time.perf_counter()

    import torch
    torch.set_num_threads(args.threads)
    import transformers
    from importlib.metadata import version
    from textattack import Attack
    from textattack.attack_results import FailedAttackResult, SkippedAttackResult, SuccessfulAttackResult
    from textattack.constraints.pre_transformation import (InputColumnModification, RepeatModification,
                                                           StopwordModification)
    from textattack.goal_functions import UntargetedClassification
    from textattack.models.wrappers import HuggingFaceModelWrapper
    from textattack.search_methods import GreedyWordSwapWIR
    from textattack.shared import AttackedText
    from textattack.transformations import WordSwapWordNet

    tokenizer = transformers.AutoTokenizer.from_pretrained(args.model)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(args.model).eval().to(args.device)
    if args.max_length != "default":
        tokenizer.model_max_length = int(args.max_length)
    pad_to = 512 if tokenizer.model_max_length > 100000 else tokenizer.model_max_length

    queried = []

    class RecordingWrapper(HuggingFaceModelWrapper):
        def __call__(self, text_input_list):
            queried.extend(list(x) if isinstance(x, (tuple, list)) else [x, ""] for x in text_input_list)
            return super().__call__(text_input_list)

    wrapper = RecordingWrapper(model, tokenizer)
    with torch.no_grad():
        HuggingFaceModelWrapper.__call__(wrapper, [("warm up", "warm up")])

    stats = {"calls": 0, "rows": 0, "padded_tokens": 0, "real_tokens": 0, "forward_s": 0.0}
    forward = model.forward

    def counting_forward(*a, **kw):
        ids, mask = kw.get("input_ids", a[0] if a else None), kw.get("attention_mask")
        stats["calls"] += 1
        stats["rows"] += int(ids.shape[0])
        stats["padded_tokens"] += int(ids.numel())
        stats["real_tokens"] += int(mask.sum()) if mask is not None else int(ids.numel())
        t = time.perf_counter()
        out = forward(*a, **kw)
        stats["forward_s"] += time.perf_counter() - t
        return out

    model.forward = counting_forward
    goal = UntargetedClassification(wrapper, model_batch_size=args.batch_size)
    transformation = WordSwapWordNet()   # tries nltk.download("omw-1.4"); offline this fails harmlessly
    constraints = [RepeatModification(), StopwordModification(),
                   InputColumnModification(["sentence1", "sentence2"], {"sentence2"})]
    attack = Attack(goal, constraints, transformation, GreedyWordSwapWIR(wir_method="delete"))

    with open(args.pairs, encoding="utf-8") as f:
        pairs = [json.loads(line) for line in f if line.strip()]
    setup_s = time.perf_counter() - t_start
    print(f"TextAttack: {len(pairs)} pairs, padded to {pad_to}, batch {args.batch_size}, "
          f"{torch.get_num_threads()} threads; setup {setup_s:.1f} s", file=sys.stderr)

    examples = []
    t_attack = time.perf_counter()
    for ex in pairs:
        text = AttackedText(OrderedDict([("sentence1", ex["sentence1"]), ("sentence2", ex["sentence2"])]))
        t0 = time.perf_counter()
        result = attack.attack(text, int(ex["label"]))
        kind = ("success" if isinstance(result, SuccessfulAttackResult) else
                "skipped" if isinstance(result, SkippedAttackResult) else
                "failed" if isinstance(result, FailedAttackResult) else type(result).__name__)
        examples.append({"id": ex.get("id"), "result": kind, "queries": int(result.perturbed_result.num_queries),
                         "seconds": round(time.perf_counter() - t0, 4)})
        if len(examples) % 10 == 0:
            print(f"  {len(examples)}/{len(pairs)} attacked, {time.perf_counter() - t_attack:.0f} s", file=sys.stderr)
    wall = time.perf_counter() - t_attack

    out = {
        "pad_to": pad_to, "batch_size": args.batch_size, "threads": args.threads, "setup_s": setup_s,
        "wall_s": wall, "forward_calls": stats["calls"], "inputs": stats["rows"],
        "padded_tokens": stats["padded_tokens"], "real_tokens": stats["real_tokens"], "forward_s": stats["forward_s"],
        "versions": {k: version(k) for k in ("textattack", "torch", "transformers", "tokenizers", "nltk")},
        "attack": str(attack), "examples": examples, "queried": queried,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
