"""Token-classifier adapters (taggers): any Hub token classifier, or any Python callable.

One protocol for every family that scores taggers (NER under grammatical-error attacks, name swaps):

* :meth:`TokenClassifier.predict_proba` takes pre-split sentences and returns, per sentence, tag
  probabilities of shape (n_words, n_tags) over the *dataset's* tag names;
* every distinct word sequence is sent to the model once (a cache keyed by the words), and
  :attr:`TokenClassifier.queries` counts what the model really saw;
* a sentence longer than the model's maximum length is never truncated: it is tagged in
  consecutive windows of whole words that fit, and counted in :attr:`HFTokenClassifier.n_windowed`.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from robust_bench.models.classifiers import Classifier, LabelMappingError
from robust_bench.models.loader import PredictionCache, length_sorted_batches, load_pretrained

__all__ = ["TokenClassifier", "CallableTokenClassifier", "HFTokenClassifier", "SpacyTagger", "EntityObjective",
           "SpacyPosTagger"]


class TokenClassifier:
    """Base protocol for taggers: per-word tag probabilities over the dataset's tag names,
    cached by the exact word sequence, with a query counter.

    Attributes
    ----------
    tags : tuple of str
        The dataset's tag names (for example IOB2 ``B-PER``), in ClassLabel order.
    queries : int
        Distinct sentences the model has seen.
    """

    def __init__(self, tags: Sequence[str]):
        self.tags = tuple(tags)
        self._cache = PredictionCache()

    @property
    def queries(self) -> int:
        return self._cache.queries

    def _forward(self, sentences: list[tuple]) -> list[np.ndarray]:  # pragma: no cover - abstract
        """Per distinct, uncached sentence, probabilities of shape (n_words, n_tags)."""
        raise NotImplementedError

    def predict_proba(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Tag probabilities.

        Parameters
        ----------
        sentences : sequence of sequence of str

        Returns
        -------
        list of ndarray of float64, each of shape (n_words, n_tags)
            Rows sum to 1.
        """
        keys = [tuple(s) for s in sentences]
        return self._cache.get_many(keys, lambda todo: [np.asarray(p, dtype=np.float64) for p in self._forward(todo)])

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

    Parameters
    ----------
    model : str
        Hub id or local folder.
    tags : sequence of str
        The dataset's tag names.
    label_map : mapping of str to str, optional
        Model tag -> dataset tag, where names differ.
    revision, device, dtype : str
        See :func:`robust_bench.models.loader.load_pretrained`.
    batch_size : int
        Windows per forward pass.

    Attributes
    ----------
    n_windowed : int
        Distinct sentences too long for the model, tagged in several windows of whole words.
    revision : str

    Raises
    ------
    LabelMappingError
        If a dataset tag has no model output (tags must match by name, e.g. ``B-PER``).
    robust_bench.models.loader.ModelError
        If the model cannot be loaded.
    """

    def __init__(self, model: str, tags: Sequence[str], *, label_map: Mapping[str, str] | None = None,
                 revision: str | None = None, device: str = "auto", dtype: str = "auto", batch_size: int = 32):
        from transformers import AutoModelForTokenClassification

        super().__init__(tags)
        loaded = load_pretrained(AutoModelForTokenClassification, model, revision=revision, device=device,
                                 dtype=dtype, kind="tagger", add_prefix_space=True, require_fast=True)
        self.model_id = model
        self.model, self.tokenizer, self.device = loaded.model, loaded.tokenizer, loaded.device
        self.revision = loaded.revision
        self.max_length = loaded.max_length or 512
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
        self.n_windowed = 0

    def _windows(self, words: tuple) -> list[tuple[int, int]]:
        """Consecutive word ranges ``[a, b)`` whose subwords, with special tokens, fit the model."""
        n_special = self.tokenizer.num_special_tokens_to_add(pair=False)
        room = self.max_length - n_special
        counts = [max(1, len(x)) for x in self.tokenizer(list(words), is_split_into_words=False,
                                                         add_special_tokens=False)["input_ids"]] if words else []
        windows, a, used = [], 0, 0
        for i, c in enumerate(counts):
            if used + c > room and i > a:
                windows.append((a, i))
                a, used = i, 0
            used += c
        windows.append((a, len(words)))
        return windows

    def _forward(self, sentences):
        import torch

        pieces = []   # (sentence index, word offset, words)
        for i, words in enumerate(sentences):
            wins = self._windows(words)
            self.n_windowed += len(wins) > 1
            pieces += [(i, a, words[a:b]) for a, b in wins]
        out = [np.zeros((len(s), len(self.tags))) for s in sentences]
        with torch.inference_mode():
            for idx in length_sorted_batches([len(p[2]) for p in pieces], self.batch_size):
                enc = self.tokenizer([list(pieces[k][2]) for k in idx], is_split_into_words=True, padding=True,
                                     truncation=True, max_length=self.max_length, return_tensors="pt")
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
                probs = torch.softmax(logits[:, :, self.order], dim=-1).cpu().numpy()
                for b, k in enumerate(idx):
                    i, offset, words = pieces[k]
                    seen = set()
                    for pos, w in enumerate(enc.word_ids(b)):
                        if w is not None and w not in seen:
                            seen.add(w)
                            out[i][offset + w] = probs[b, pos]
                    if len(seen) != len(words):  # a word with no subword (a control character, say)
                        for w in set(range(len(words))) - seen:
                            out[i][offset + w] = 1.0 / len(self.tags)
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


class SpacyTagger(TokenClassifier):
    """The NER component of a spaCy pipeline as a tagger over the dataset's IOB2 tags.

    Words are passed pre-split (``Doc(words=...)``), so tokens never shift. Entity labels are
    mapped with :func:`robust_bench.text.nlp.map_entity_label` (``PERSON`` -> ``PER``, ``GPE`` ->
    ``LOC``); labels outside the dataset's tag set become ``O``. spaCy gives no probabilities, so
    the output is one-hot.

    Raises
    ------
    robust_bench.text.nlp.SpacyModelError
        If the pipeline cannot be loaded or has no ``ner`` component.
    """

    def __init__(self, spacy_model: str | None, tags: Sequence[str], *, batch_size: int = 256):
        from robust_bench.text.nlp import load_spacy, spacy_model_name

        super().__init__(tags)
        self.nlp = load_spacy(spacy_model, require=("ner",))
        self.model_id = spacy_model_name(spacy_model)
        self.revision = f"spacy-{self.nlp.meta.get('name', 'pipeline')}-{self.nlp.meta.get('version', '0')}"
        self.batch_size = batch_size

    def _forward(self, sentences):
        from spacy.tokens import Doc

        from robust_bench.text.nlp import map_entity_label

        index = {t: i for i, t in enumerate(self.tags)}
        docs = (Doc(self.nlp.vocab, words=list(s)) for s in sentences)
        keep = [p for p in self.nlp.pipe_names if p in ("ner", "tok2vec", "transformer")]
        out = []
        for s, doc in zip(sentences, self.nlp.pipe(docs, batch_size=self.batch_size,
                                                    disable=[p for p in self.nlp.pipe_names if p not in keep])):
            p = np.zeros((len(s), len(self.tags)))
            p[:, index["O"]] = 1.0
            for e in doc.ents:
                lab = map_entity_label(e.label_)
                if f"B-{lab}" not in index:
                    continue
                for k in range(e.start, e.end):
                    p[k, :] = 0.0
                    p[k, index[("B-" if k == e.start else "I-") + lab]] = 1.0
            out.append(p)
        return out


class SpacyPosTagger:
    """Part-of-speech tags in context from a spaCy pipeline, on pre-split sentences.

    Each distinct word sequence is tagged once (a cache keyed by the words). Used by the POS
    filter of the parser attack (Wang et al. 2021, §2.3: a substitute must keep the word's fine
    POS tag, tagged in its sentence).

    Parameters
    ----------
    spacy_model : str, optional
        Package name or directory; default ``$ROBUST_BENCH_SPACY_MODEL``, else ``en_robust_bench_sm``.
    batch_size : int

    Attributes
    ----------
    queries : int
        Distinct sentences tagged.

    Raises
    ------
    robust_bench.text.nlp.SpacyModelError
        If the pipeline cannot be loaded or has no tagger.
    """

    def __init__(self, spacy_model: str | None = None, *, batch_size: int = 512):
        from robust_bench.text.nlp import load_spacy, spacy_model_name

        self.nlp = load_spacy(spacy_model, require=("tagger",))
        self.model_id = spacy_model_name(spacy_model)
        self.batch_size = batch_size
        self._disable = [p for p in self.nlp.pipe_names
                         if p not in ("tok2vec", "transformer", "tagger", "morphologizer", "attribute_ruler")]
        self._cache = PredictionCache()

    @property
    def queries(self) -> int:
        return self._cache.queries

    def tag(self, sentences: Sequence[Sequence[str]]) -> list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
        """Fine (PTB) and universal tags and morphological features of every word.

        Parameters
        ----------
        sentences : sequence of sequence of str

        Returns
        -------
        list of (xpos, upos, morph)
            Per sentence, three tuples of str of shape (n_words,); ``morph`` is the UD FEATS string
            (empty where the pipeline has no morphologizer).
        """
        return self._cache.get_many([tuple(s) for s in sentences], self._forward)

    def _forward(self, todo):
        from spacy.tokens import Doc

        docs = (Doc(self.nlp.vocab, words=list(s)) for s in todo)
        return [(tuple(t.tag_ for t in d), tuple(t.pos_ for t in d), tuple(str(t.morph) for t in d))
                for d in self.nlp.pipe(docs, batch_size=self.batch_size, disable=self._disable)]
