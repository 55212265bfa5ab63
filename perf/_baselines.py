"""Shared by the benchmark scripts: the loop a user would write by hand (what speed is compared
against), and classifiers fine-tuned from a real encoder, cached between runs."""

from __future__ import annotations

import time
from pathlib import Path


def bare_loop(model_path: Path, inputs: list[tuple[str, str]], batch_size: int, *, sort: bool,
              device: str = "cpu") -> float:
    """Seconds for a bare transformers loop over ``inputs`` (fp32, after one untimed warm-up
    batch): tokenise a batch with padding, ``model(**batch)``, softmax. Nothing else (no cache,
    no label mapping, no truncation count)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from robust_bench.models.loader import resolve_device

    tok = AutoTokenizer.from_pretrained(str(model_path))
    device = resolve_device(device)
    model = AutoModelForSequenceClassification.from_pretrained(str(model_path)).eval().to(device)
    order = sorted(inputs, key=lambda x: len(x[0]) + len(x[1])) if sort else list(inputs)
    with torch.inference_mode():          # warm-up, not timed: first kernels and allocations
        warm = order[:batch_size]
        model(**tok([a for a, _ in warm], [b for _, b in warm], padding=True, truncation=True, max_length=512,
                    return_tensors="pt").to(device))
    t = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(order), batch_size):
            chunk = order[i:i + batch_size]
            batch = tok([a for a, _ in chunk], [b for _, b in chunk], padding=True, truncation=True,
                        max_length=512, return_tensors="pt")
            torch.softmax(model(**batch.to(device)).logits, dim=-1).cpu().numpy()
    return time.perf_counter() - t


def finetuned(base: str, cache_dir: Path, name: str, pairs, labels, label_names, epochs: int) -> str:
    """A classifier fine-tuned from ``base`` (``models.tiny.finetune_classifier``), cached in
    ``cache_dir/<base name>-<name>-e<epochs>``; the path as a string."""
    from robust_bench.models.tiny import finetune_classifier

    path = cache_dir / f"{Path(base).name}-{name}-e{epochs}"
    if not (path / "config.json").is_file():
        t = time.perf_counter()
        finetune_classifier(base, path, pairs, labels, label_names, epochs=epochs)
        print(f"  fine-tuned {Path(base).name} on {len(pairs):,} {name} pairs, {epochs} epochs, "
              f"in {time.perf_counter() - t:.0f} s -> {path}")
    else:
        print(f"  {name} classifier from the cache: {path}")
    return str(path)
