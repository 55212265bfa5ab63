"""Classifier adapters: any Hub sequence classifier, or any Python callable.

One protocol for every family that scores classifiers (attacks, contrast sets, name swaps):

* :meth:`Classifier.predict_proba` takes a list of inputs (a string, or a ``(text_a, text_b)``
  pair) and returns probabilities over the *dataset's* label names, shape (n_inputs, n_labels);
* every distinct input is sent to the model once: a prediction cache keyed by the exact input
  answers repeats, and :attr:`Classifier.queries` counts the inputs the model really saw;
* batches are length-sorted with dynamic padding, on the GPU when present.

The model's ``id2label`` is mapped to the dataset's label names explicitly, because models order
entailment, neutral and contradiction differently. An ambiguous mapping (generic ``LABEL_0``
names, a missing or duplicated label) raises :class:`LabelMappingError`; ``label_map`` overrides.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence, Union

import numpy as np

from robust_bench.models.loader import PredictionCache, length_sorted_batches, load_pretrained

__all__ = ["Input", "LabelMappingError", "Classifier", "HFClassifier", "CallableClassifier", "map_labels"]

Input = Union[str, tuple]

#: Spellings of the same label across model cards.
_ALIASES = {
    "entailment": {"entailment", "entails", "entail", "ent", "e"},
    "neutral": {"neutral", "neu", "n"},
    "contradiction": {"contradiction", "contradict", "contra", "con", "c"},
    "not_entailment": {"not_entailment", "non_entailment", "not entailment", "notentailment"},
    "equivalent": {"equivalent", "paraphrase", "yes"},
    "not_equivalent": {"not_equivalent", "not equivalent", "not_paraphrase", "no"},
    "positive": {"positive", "pos"},
    "negative": {"negative", "neg"},
}


class LabelMappingError(ValueError):
    """The model's labels cannot be matched to the dataset's unambiguously."""


def _norm(label: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(label).strip().lower())


def map_labels(id2label: Mapping[int, str], dataset_labels: Sequence[str],
               label_map: Mapping[str, str] | None = None) -> list[int]:
    """For each dataset label, the index of the model output that means it.

    Parameters
    ----------
    id2label : mapping of int to str
        The model's ``config.id2label``.
    dataset_labels : sequence of str
        The dataset's ClassLabel names.
    label_map : mapping of str to str, optional
        Explicit model label -> dataset label (overrides name matching).

    Returns
    -------
    list of int of shape (n_dataset_labels,)

    Raises
    ------
    LabelMappingError
        If a dataset label has no model output, two model outputs claim one label, or the
        model's labels are generic (``LABEL_0``) and no ``label_map`` is given.
    """
    model = {int(i): str(l) for i, l in id2label.items()}
    out: dict[str, int] = {}
    if label_map:
        inv = {_norm(k): v for k, v in label_map.items()}
        for i, name in model.items():
            target = inv.get(_norm(name), inv.get(str(i)))
            if target is not None:
                if target not in dataset_labels:
                    raise LabelMappingError(f"--label-map maps {name!r} to {target!r}, not a dataset label "
                                            f"({', '.join(dataset_labels)})")
                if target in out:
                    raise LabelMappingError(f"--label-map maps two model labels to {target!r}")
                out[target] = i
    else:
        if all(re.fullmatch(r"label_\d+", _norm(n)) for n in model.values()):
            raise LabelMappingError(
                f"the model's labels are generic ({', '.join(model[i] for i in sorted(model))}); say which is which "
                f"with --label-map, e.g. --label-map LABEL_0={dataset_labels[0]}")
        for i, name in model.items():
            n = _norm(name)
            hits = [d for d in dataset_labels if n == _norm(d) or n in _ALIASES.get(d, ())]
            if len(hits) > 1:
                raise LabelMappingError(f"model label {name!r} matches several dataset labels {hits}")
            if hits:
                if hits[0] in out:
                    raise LabelMappingError(f"model labels {model[out[hits[0]]]!r} and {name!r} both mean {hits[0]!r}; "
                                            "use --label-map")
                out[hits[0]] = i
    missing = [d for d in dataset_labels if d not in out]
    if missing:
        raise LabelMappingError(f"no model output for dataset labels {missing}; the model has "
                                f"{', '.join(f'{i}={n}' for i, n in sorted(model.items()))}; use --label-map")
    return [out[d] for d in dataset_labels]


class Classifier:
    """Base protocol of sequence classifiers: cached, counted, batched probabilities over the
    dataset's labels.

    Subclasses implement :meth:`_forward`; users call :meth:`predict_proba` or :meth:`predict`.

    Attributes
    ----------
    labels : tuple of str
        The dataset's label names, in ClassLabel order.
    queries : int
        Distinct inputs the model has seen (cache hits cost none).
    n_truncated : int
        Distinct inputs longer than the model's maximum length, truncated before scoring (0 for
        adapters without a limit).
    """

    labels: tuple[str, ...]

    def __init__(self, labels: Sequence[str]):
        self.labels = tuple(labels)
        self._cache = PredictionCache()
        self.n_truncated = 0

    @property
    def queries(self) -> int:
        return self._cache.queries

    def _forward(self, inputs: list[Input]) -> np.ndarray:  # pragma: no cover - abstract
        """Probabilities for distinct, uncached inputs, shape (len(inputs), n_labels)."""
        raise NotImplementedError

    @staticmethod
    def _key(x: Input):
        return tuple(x) if isinstance(x, list) else x

    def predict_proba(self, inputs: Sequence[Input]) -> np.ndarray:
        """Probabilities over :attr:`labels`.

        Parameters
        ----------
        inputs : sequence of str or (str, str)
            Single texts or text pairs.

        Returns
        -------
        ndarray of float64 of shape (n_inputs, n_labels)
            Rows sum to 1. Inputs already seen are answered from the cache; the rest go to the
            model once each.
        """
        if not inputs:
            return np.zeros((0, len(self.labels)))
        keys = [self._key(x) for x in inputs]
        rows = self._cache.get_many(keys, lambda todo: [np.asarray(p, dtype=np.float64) for p in self._forward(todo)])
        return np.stack(rows)

    def is_cached(self, x: Input) -> bool:
        """Whether ``x`` was already sent to the model."""
        return self._key(x) in self._cache

    def predict(self, inputs: Sequence[Input]) -> np.ndarray:
        """Predicted label indices into :attr:`labels`, shape (n_inputs,)."""
        return self.predict_proba(inputs).argmax(axis=1)

    def clear_cache(self) -> None:
        self._cache.clear()


class CallableClassifier(Classifier):
    """Wrap any function ``list of inputs -> array (n_inputs, n_labels)`` of scores.

    Rows are normalised to probabilities if they do not already sum to 1 (softmax of scores).
    """

    def __init__(self, fn: Callable[[list], np.ndarray], labels: Sequence[str], *, name: str = "callable"):
        super().__init__(labels)
        self.fn = fn
        self.name = name

    def _forward(self, inputs):
        out = np.asarray(self.fn(list(inputs)), dtype=np.float64)
        if out.shape != (len(inputs), len(self.labels)):
            raise ValueError(f"the callable returned shape {out.shape}, expected ({len(inputs)}, {len(self.labels)})")
        if np.allclose(out.sum(axis=1), 1.0) and (out >= 0).all():
            return out
        e = np.exp(out - out.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


class HFClassifier(Classifier):
    """Any ``AutoModelForSequenceClassification`` id or local path.

    Parameters
    ----------
    model : str
        Hub id or local folder.
    labels : sequence of str
        The dataset's label names, in ClassLabel order.
    label_map : mapping of str to str, optional
        Model label -> dataset label, when names do not match.
    revision : str, optional
    device : str
        ``"auto"`` picks cuda, mps or cpu.
    dtype : str
        ``"auto"`` is bf16/fp16 on GPU, fp32 on CPU.
    batch_size : int
        Inputs per forward pass (length-sorted, dynamically padded).
    max_length : int
        Inputs are truncated to this many subwords, or to the model's own limit if lower;
        truncated inputs are counted in :attr:`n_truncated`.

    Attributes
    ----------
    revision : str
        Pinned revision (Hub commit or ``local-<sha256>``).
    n_forward : int
        Forward passes so far.

    Raises
    ------
    LabelMappingError
        If the model's labels cannot be matched to ``labels``.
    robust_bench.models.loader.ModelError
        If the model cannot be loaded.
    """

    def __init__(self, model: str, labels: Sequence[str], *, label_map: Mapping[str, str] | None = None,
                 revision: str | None = None, device: str = "auto", dtype: str = "auto", batch_size: int = 64,
                 max_length: int = 512):
        from transformers import AutoModelForSequenceClassification

        super().__init__(labels)
        loaded = load_pretrained(AutoModelForSequenceClassification, model, revision=revision, device=device,
                                 dtype=dtype, kind="classifier")
        self.model_id = model
        self.model, self.tokenizer, self.device = loaded.model, loaded.tokenizer, loaded.device
        self.revision = loaded.revision
        self.order = map_labels(self.model.config.id2label, self.labels, label_map)
        self.batch_size = batch_size
        # truncate to what the model can embed (tiny and distilled models have fewer positions)
        self.max_length = min(max_length, loaded.max_length) if loaded.max_length else max_length
        self.n_forward = 0

    def _forward(self, inputs):
        import torch

        pairs = isinstance(inputs[0], tuple)
        lengths = [len(x[0]) + len(x[1]) if pairs else len(x) for x in inputs]
        out = np.zeros((len(inputs), len(self.labels)))
        with torch.inference_mode():
            for idx in length_sorted_batches(lengths, self.batch_size):
                batch = [inputs[i] for i in idx]
                args = ([b[0] for b in batch], [b[1] for b in batch]) if pairs else (batch,)
                full = self.tokenizer(*args, truncation=False, verbose=False)["input_ids"]
                self.n_truncated += sum(len(x) > self.max_length for x in full)
                enc = self.tokenizer(*args, padding=True, truncation=True, max_length=self.max_length,
                                     return_tensors="pt")
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
                self.n_forward += 1
                out[idx] = torch.softmax(logits[:, self.order], dim=-1).cpu().numpy()
        return out
