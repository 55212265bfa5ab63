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

__all__ = ["Input", "LabelMappingError", "Classifier", "HFClassifier", "CallableClassifier", "map_labels",
           "TokenClassifier", "CallableTokenClassifier", "HFTokenClassifier", "EntityObjective"]

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
    """Base protocol: cached, counted, batched probabilities over the dataset's labels."""

    labels: tuple[str, ...]

    def __init__(self, labels: Sequence[str]):
        self.labels = tuple(labels)
        self.queries = 0
        self._cache: dict[Input, np.ndarray] = {}

    def _forward(self, inputs: list[Input]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict_proba(self, inputs: Sequence[Input]) -> np.ndarray:
        """Probabilities over :attr:`labels`, shape (n_inputs, n_labels); rows sum to 1.

        Inputs already seen are answered from the cache; the rest go to the model once each.
        """
        keys = [tuple(x) if isinstance(x, list) else x for x in inputs]
        todo = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if todo:
            probs = self._forward(todo)
            self.queries += len(todo)
            for k, p in zip(todo, probs):
                self._cache[k] = np.asarray(p, dtype=np.float64)
        if not keys:
            return np.zeros((0, len(self.labels)))
        return np.stack([self._cache[k] for k in keys])

    def is_cached(self, x: Input) -> bool:
        """Whether ``x`` was already sent to the model."""
        return (tuple(x) if isinstance(x, list) else x) in self._cache

    def predict(self, inputs: Sequence[Input]) -> np.ndarray:
        """Predicted label indices, shape (n_inputs,)."""
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
    labels : sequence of str
        The dataset's label names, in ClassLabel order.
    label_map : mapping of str to str, optional
        Model label -> dataset label, when names do not match.
    revision, device, dtype, batch_size, max_length
        ``device="auto"`` picks cuda, mps or cpu; ``dtype="auto"`` is bf16/fp16 on GPU, fp32 on CPU.

    Raises
    ------
    LabelMappingError, EncoderError
    """

    def __init__(self, model: str, labels: Sequence[str], *, label_map: Mapping[str, str] | None = None,
                 revision: str | None = None, device: str = "auto", dtype: str = "auto", batch_size: int = 64,
                 max_length: int = 512):
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from robust_bench.encoders import EncoderError, resolve_device, resolve_dtype

        super().__init__(labels)
        self.model_id = model
        self.device = resolve_device(device)
        tdtype = resolve_dtype(self.device, dtype)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision)
            self.model = AutoModelForSequenceClassification.from_pretrained(model, revision=revision, dtype=tdtype)
        except (OSError, ValueError) as exc:
            raise EncoderError(f"cannot load classifier {model!r}: {exc}") from exc
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
            self.model.config.pad_token_id = self.tokenizer.pad_token_id
        self.model.eval().to(self.device)
        self.order = map_labels(self.model.config.id2label, self.labels, label_map)
        self.batch_size = batch_size
        limit = getattr(self.model.config, "max_position_embeddings", None)
        # truncate to what the model can embed (tiny and distilled models have fewer positions)
        self.max_length = min(max_length, limit) if limit else max_length
        self.n_forward = 0
        commit = getattr(self.model.config, "_commit_hash", None)
        self.revision = revision or commit

    def _forward(self, inputs):
        import torch

        pairs = isinstance(inputs[0], tuple)
        lengths = [len(x[0]) + len(x[1]) if pairs else len(x) for x in inputs]
        order = sorted(range(len(inputs)), key=lambda i: lengths[i])
        out = np.zeros((len(inputs), len(self.labels)))
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                idx = order[s:s + self.batch_size]
                batch = [inputs[i] for i in idx]
                if pairs:
                    enc = self.tokenizer([b[0] for b in batch], [b[1] for b in batch], padding=True, truncation=True,
                                         max_length=self.max_length, return_tensors="pt")
                else:
                    enc = self.tokenizer(batch, padding=True, truncation=True, max_length=self.max_length,
                                         return_tensors="pt")
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
                self.n_forward += 1
                probs = torch.softmax(logits[:, self.order], dim=-1).cpu().numpy()
                out[idx] = probs
        return out


class TokenClassifier:
    """Base protocol for taggers: per-word tag probabilities over the dataset's tag names,
    cached by the exact word sequence, with a query counter."""

    def __init__(self, tags: Sequence[str]):
        self.tags = tuple(tags)
        self.queries = 0
        self._cache: dict[tuple, np.ndarray] = {}

    def _forward(self, sentences: list[tuple]) -> list[np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict_proba(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Per sentence, probabilities of shape (n_words, n_tags)."""
        keys = [tuple(s) for s in sentences]
        todo = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if todo:
            for k, p in zip(todo, self._forward(todo)):
                self._cache[k] = np.asarray(p, dtype=np.float64)
            self.queries += len(todo)
        return [self._cache[k] for k in keys]

    def predict(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """Predicted tag names per word."""
        return [[self.tags[i] for i in p.argmax(axis=1)] for p in self.predict_proba(sentences)]

    def clear_cache(self) -> None:
        self._cache.clear()


class CallableTokenClassifier(TokenClassifier):
    """Wrap ``list of word tuples -> list of arrays (n_words, n_tags)`` of probabilities."""

    def __init__(self, fn: Callable[[list], list], tags: Sequence[str]):
        super().__init__(tags)
        self.fn = fn

    def _forward(self, sentences):
        out = [np.asarray(p, dtype=np.float64) for p in self.fn(list(sentences))]
        for s, p in zip(sentences, out):
            if p.shape != (len(s), len(self.tags)):
                raise ValueError(f"the callable returned shape {p.shape}, expected ({len(s)}, {len(self.tags)})")
        return out


class HFTokenClassifier(TokenClassifier):
    """Any ``AutoModelForTokenClassification``; a word's tag is read at its first subword.

    Raises
    ------
    LabelMappingError
        If a dataset tag has no model output (tags must match by name, e.g. ``B-PER``);
        ``label_map`` overrides.
    EncoderError
        If the model cannot be loaded.
    """

    def __init__(self, model: str, tags: Sequence[str], *, label_map: Mapping[str, str] | None = None,
                 revision: str | None = None, device: str = "auto", batch_size: int = 32):
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        from robust_bench.encoders import EncoderError, resolve_device

        super().__init__(tags)
        self.model_id = model
        self.device = resolve_device(device)
        try:
            try:
                self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision, add_prefix_space=True)
            except TypeError:
                self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision)
            self.model = AutoModelForTokenClassification.from_pretrained(model, revision=revision)
        except (OSError, ValueError) as exc:
            raise EncoderError(f"cannot load tagger {model!r}: {exc}") from exc
        self.model.eval().to(self.device)
        id2label = {int(i): str(l) for i, l in self.model.config.id2label.items()}
        if label_map:
            id2label = {i: label_map.get(l, l) for i, l in id2label.items()}
        by_name = {l: i for i, l in id2label.items()}
        missing = [t for t in self.tags if t not in by_name]
        if missing:
            raise LabelMappingError(f"the tagger has no output for tags {missing} (it has {sorted(by_name)}); "
                                    "use --label-map")
        self.order = [by_name[t] for t in self.tags]
        self.batch_size = batch_size
        self.revision = revision or getattr(self.model.config, "_commit_hash", None)

    def _forward(self, sentences):
        import torch

        out: list[np.ndarray] = [None] * len(sentences)  # type: ignore[list-item]
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                idx = order[s:s + self.batch_size]
                enc = self.tokenizer([list(sentences[i]) for i in idx], is_split_into_words=True, padding=True,
                                     truncation=True, return_tensors="pt")
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
                probs = torch.softmax(logits[:, :, self.order], dim=-1).cpu().numpy()
                for b, i in enumerate(idx):
                    wids = enc.word_ids(b)
                    first = {}
                    for pos, w in enumerate(wids):
                        if w is not None and w not in first:
                            first[w] = pos
                    p = np.full((len(sentences[i]), len(self.tags)), 1.0 / len(self.tags))
                    for w, pos in first.items():
                        p[w] = probs[b, pos]
                    out[i] = p
        return out


class EntityObjective(Classifier):
    """A tagger seen as a two-way classifier for the attack searches: label 0 means "the
    sentence's entities are all predicted correctly". Input: ``(words, gold_tags)``.

    ``p(0) = 0.5 + 0.5 * q`` when the predicted entities equal the gold ones and ``0.5 * q``
    otherwise, with ``q`` the mean probability of the gold tags: lowering ``p(0)`` degrades the
    tagging smoothly, and the argmax flips exactly when an entity error appears.
    """

    def __init__(self, tagger: TokenClassifier):
        super().__init__(("entities_correct", "entities_wrong"))
        self.tagger = tagger

    def _forward(self, inputs):
        from seqeval.metrics.sequence_labeling import get_entities

        sents = [tuple(w) for w, _ in inputs]
        probs = self.tagger.predict_proba(sents)
        out = np.zeros((len(inputs), 2))
        for k, ((words, gold), p) in enumerate(zip(inputs, probs)):
            idx = [self.tagger.tags.index(t) for t in gold]
            q = float(np.mean(p[np.arange(len(idx)), idx])) if idx else 1.0
            pred = [self.tagger.tags[i] for i in p.argmax(axis=1)]
            same = get_entities(list(pred)) == get_entities(list(gold))
            p0 = 0.5 + 0.5 * q if same else 0.5 * q
            out[k] = (p0, 1.0 - p0)
        return out
