"""What the benchmark scripts compare against: the loop a user would write by hand."""

from __future__ import annotations

import time
from pathlib import Path


def bare_loop(model_path: Path, inputs: list[tuple[str, str]], batch_size: int, *, sort: bool) -> float:
    """Seconds for a bare transformers loop over ``inputs``: tokenise a batch with padding,
    ``model(**batch)``, softmax. Nothing else (no cache, no label mapping, no truncation count)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_path))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_path)).eval()
    order = sorted(inputs, key=lambda x: len(x[0]) + len(x[1])) if sort else list(inputs)
    t = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(order), batch_size):
            chunk = order[i:i + batch_size]
            batch = tok([a for a, _ in chunk], [b for _, b in chunk], padding=True, truncation=True,
                        max_length=512, return_tensors="pt")
            torch.softmax(model(**batch).logits, dim=-1).numpy()
    return time.perf_counter() - t
