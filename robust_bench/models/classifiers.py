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
from robust_bench import RobustBenchError

__all__ = ["Input", "LabelMappingError", "Classifier", "PendingPrediction", "HFClassifier", "CallableClassifier",
           "map_labels"]

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


class LabelMappingError(RobustBenchError, ValueError):
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
    #: whether :meth:`trace` says how the model answered (a causal LM), so that log lines carry it
    keeps_traces: bool = False

    def __init__(self, labels: Sequence[str]):
        self.labels = tuple(labels)
        self._cache = PredictionCache()
        self._pending: dict = {}
        self.n_truncated = 0

    @property
    def queries(self) -> int:
        return self._cache.queries

    def _forward(self, inputs: list[Input]) -> np.ndarray:  # pragma: no cover - abstract
        """Probabilities for distinct, uncached inputs, shape (len(inputs), n_labels)."""
        raise NotImplementedError

    def trace(self, x: Input) -> dict | None:
        """What a per-example log keeps of how the model answered ``x`` beyond its prediction (a causal
        LM's rendered-prompt hash and per-choice log-likelihoods, :meth:`LLMClassifier.trace
        <robust_bench.models.llm.LLMClassifier.trace>`); None for a classifier that answers with its own head."""
        return None

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
        for pending in {id(p): p for p in (self._pending.get(k) for k in keys) if p is not None}.values():
            pending.result()              # on its way already: wait rather than send it again
        return np.stack(self._cache.get_many(keys, self._forward_rows))

    def _forward_rows(self, todo: list) -> list:
        return [np.asarray(p, dtype=np.float64) for p in self._forward(todo)]

    def predict_proba_later(self, inputs: Sequence[Input], executor) -> "PendingPrediction":
        """Start :meth:`predict_proba` on ``executor`` and return at once, so the caller can
        prepare the next inputs while the model runs.

        Each distinct input still goes to the model once, also across pending calls (an input
        already on its way is waited for, not sent again). The cache and :attr:`queries` change only in
        :meth:`PendingPrediction.result`, on the caller's thread, so they do not depend on
        thread timing (:attr:`n_forward` and :attr:`n_truncated` are counted by the worker).

        Parameters
        ----------
        inputs : sequence of str or (str, str)
        executor : concurrent.futures.Executor
            With one worker, so forward passes run one at a time and in the order submitted.

        Returns
        -------
        PendingPrediction
            ``.result()`` gives the ndarray of shape (n_inputs, n_labels) that
            :meth:`predict_proba` would, and raises what the model raised.
        """
        keys = [self._key(x) for x in inputs]
        todo = list(dict.fromkeys(k for k in keys if k not in self._cache and k not in self._pending))
        waits = list({id(p): p for p in (self._pending[k] for k in keys if k in self._pending)}.values())
        pending = PendingPrediction(self, keys, todo, executor.submit(self._forward, todo) if todo else None, waits)
        for k in todo:
            self._pending[k] = pending
        return pending

    def predict(self, inputs: Sequence[Input]) -> np.ndarray:
        """Predicted label indices into :attr:`labels`, shape (n_inputs,)."""
        return self.predict_proba(inputs).argmax(axis=1)

    def clear_cache(self) -> None:
        self._cache.clear()


class PendingPrediction:
    """The probabilities of a :meth:`Classifier.predict_proba_later` call, once computed."""

    def __init__(self, clf: Classifier, keys: list, todo: list, future, waits: list):
        self._clf, self._keys, self._todo, self._future, self._waits = clf, keys, todo, future, waits
        self._done = False

    def _complete(self) -> None:
        """Wait for the model and store its outputs in the cache (once)."""
        clf = self._clf
        if self._done:
            return
        try:
            for other in self._waits:
                other._complete()
            if self._future is not None:
                outs = self._future.result()
                clf._cache.add(self._todo, [np.asarray(p, dtype=np.float64) for p in outs])
        finally:
            if self._future is not None and not self._future.done():
                try:                  # an earlier call failed: still let this forward finish
                    self._future.result()
                except Exception:
                    pass
            for k in self._todo:
                clf._pending.pop(k, None)
            self._done = True

    def result(self) -> np.ndarray:
        """Wait for the model; shape (n_inputs, n_labels), rows sum to 1.

        Raises
        ------
        Exception
            Whatever the model raised (its inputs are then no longer pending, and not cached).
        ValueError
            If the model returned the wrong number of outputs.
        """
        self._complete()
        if not self._keys:
            return np.zeros((0, len(self._clf.labels)))
        return np.stack(self._clf._cache.get_many(self._keys, self._clf._forward_rows))

    def discard(self) -> None:
        """Let the forward pass finish (storing what it gave) and drop any error: for clean-up."""
        try:
            self._complete()
        except Exception:
            pass


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

        # one tokenizer call for every input; batches by subword length, padded here (a second
        # call with truncation only for the rare inputs over max_length)
        pairs = isinstance(inputs[0], tuple)
        args = ([x[0] for x in inputs], [x[1] for x in inputs]) if pairs else (list(inputs),)
        names = [k for k in self.tokenizer.model_input_names if k in ("input_ids", "token_type_ids", "attention_mask")]
        enc = self.tokenizer(*args, truncation=False, verbose=False)
        enc = {k: list(enc[k]) for k in names if k in enc}
        lengths = [len(x) for x in enc["input_ids"]]
        long = [i for i, n in enumerate(lengths) if n > self.max_length]
        if long:
            self.n_truncated += len(long)
            cut = self.tokenizer(*([a[i] for i in long] for a in args), truncation=True, max_length=self.max_length,
                                 verbose=False)
            for k in enc:
                for j, i in enumerate(long):
                    enc[k][i] = cut[k][j]
            for i in long:
                lengths[i] = len(enc["input_ids"][i])
        # right padding (load_tokenizer sets it); the pad id is masked out, so 0 does when there is none
        pad = {"input_ids": self.tokenizer.pad_token_id or 0, "attention_mask": 0,
               "token_type_ids": self.tokenizer.pad_token_type_id}
        out = np.zeros((len(inputs), len(self.labels)))
        with torch.inference_mode():
            for idx in length_sorted_batches(lengths, self.batch_size):
                width = max(lengths[i] for i in idx)
                batch = {}
                for k, seqs in enc.items():
                    arr = np.full((len(idx), width), pad[k], dtype=np.int64)
                    for r, i in enumerate(idx):
                        arr[r, :lengths[i]] = seqs[i]
                    batch[k] = torch.from_numpy(arr).to(self.device)
                logits = self.model(**batch).logits.float()
                self.n_forward += 1
                out[idx] = torch.softmax(logits[:, self.order], dim=-1).cpu().numpy()
        return out
