"""Coreference predictors: one protocol, several sources of clusters.

:meth:`CorefPredictor.predict` takes documents as (tokens, sentence starts) and returns, per
document, clusters of end-exclusive token spans. Every distinct token sequence is predicted once
(a cache keyed by the tokens) and :attr:`CorefPredictor.queries` counts what the system really saw.

* :class:`RuleBasedCoref`: a deterministic reference point (string and head match of proper
  names, plus gendered pronouns attached to the nearest compatible name). It reads no name
  list, only capitalisation and honorifics, so consistent same-type swaps cannot change its
  output: its stability on ``names_coref`` must be 1.0, which checks the swap machinery itself.
* :class:`ConllFileCoref`: clusters from CoNLL-2012 files of system output, matched to the
  documents by their tokens (any system that writes CoNLL-2012, run offline per variant).
* :class:`CallableCoref`: any Python function.
* :class:`FastCorefAdapter`: the ``fastcoref`` library (F-coref, Otmazgin et al., 2022) where it
  is installed and its weights are present.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from robust_bench.models.loader import ModelError, PredictionCache
from robust_bench.text.names import HONORIFIC_GENDER, is_name_word

__all__ = ["CorefPredictor", "RuleBasedCoref", "ConllFileCoref", "CallableCoref", "FastCorefAdapter"]

Doc = tuple  # (tokens tuple, sentence starts tuple)
Clusters = list  # list of list of (start, end)

_PRONOUNS = {"he": "male", "him": "male", "his": "male", "himself": "male",
             "she": "female", "her": "female", "hers": "female", "herself": "female"}


class CorefPredictor:
    """Base protocol: cached, counted coreference prediction.

    Attributes
    ----------
    queries : int
        Distinct documents the system has seen.
    name : str
    """

    name = "coref"

    def __init__(self):
        self._cache = PredictionCache()

    @property
    def queries(self) -> int:
        return self._cache.queries

    def _forward(self, docs: list[Doc]) -> list[Clusters]:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict(self, docs: Sequence[tuple[Sequence[str], Sequence[int]]]) -> list[Clusters]:
        """Clusters per document.

        Parameters
        ----------
        docs : sequence of (tokens, sentence_starts)

        Returns
        -------
        list of list of list of (int, int)
            Per document, clusters of end-exclusive token spans.
        """
        keys = [(tuple(t), tuple(s)) for t, s in docs]
        return self._cache.get_many(keys, lambda todo: [
            [sorted((int(a), int(b)) for a, b in c) for c in clusters] for clusters in self._forward(todo)])


def _name_word(w: str) -> bool:
    return is_name_word(w) and w.lower() not in HONORIFIC_GENDER


class RuleBasedCoref(CorefPredictor):
    """String and head match of proper names, and he/she pronouns attached to the nearest
    preceding name of a compatible gender (honorifics only) within ``window`` sentences.

    A name mention is a run of capitalised words (an honorific before it joins the mention);
    two name mentions corefer when their words are equal or their last words are. Singletons are
    dropped, as in OntoNotes.
    """

    name = "rule-based"

    def __init__(self, window: int = 3):
        super().__init__()
        self.window = window

    def _forward(self, docs):
        return [self._one(tokens, starts) for tokens, starts in docs]

    def _one(self, tokens, starts) -> Clusters:
        sent_of = []
        bounds = list(starts) + [len(tokens)]
        for s, (a, b) in enumerate(zip(bounds, bounds[1:])):
            sent_of.extend([s] * (b - a))
        mentions = []   # (start, end, kind, key, gender)
        i = 0
        while i < len(tokens):
            w = tokens[i]
            low = w.lower()
            if low in _PRONOUNS:
                mentions.append((i, i + 1, "pronoun", None, _PRONOUNS[low]))
                i += 1
                continue
            hon = HONORIFIC_GENDER.get(low, "none") if low in HONORIFIC_GENDER else "none"
            j = i + 1 if hon != "none" else i
            k = j
            while k < len(tokens) and _name_word(tokens[k]) and tokens[k].lower() not in HONORIFIC_GENDER:
                k += 1
            if k > j:
                name = tuple(w.lower() for w in tokens[j:k])     # "TESS" and "Tess" are one name
                gender = hon if hon in ("male", "female") else None
                mentions.append((i, k, "name", name, gender))
                i = k
                continue
            i += 1
        clusters: list[list] = []
        genders: list = []
        by_string: dict = {}
        by_head: dict = {}
        last_name_mention: list = []    # (index in mentions, cluster id)
        for a, b, kind, key, gender in mentions:
            if kind == "name":
                cid = by_string.get(key, by_head.get(key[-1]))
                if cid is None:
                    cid = len(clusters)
                    clusters.append([])
                    genders.append(gender)
                elif genders[cid] is None:
                    genders[cid] = gender
                clusters[cid].append((a, b))
                by_string.setdefault(key, cid)
                by_head.setdefault(key[-1], cid)
                last_name_mention.append((a, cid))
            else:
                for pos, cid in reversed(last_name_mention):
                    if sent_of[a] - sent_of[pos] > self.window:
                        break
                    if genders[cid] in (None, gender):
                        clusters[cid].append((a, b))
                        break
        return [sorted(c) for c in clusters if len(c) > 1]


class CallableCoref(CorefPredictor):
    """Wrap ``list of (tokens, sentence_starts) -> list of clusters``."""

    def __init__(self, fn: Callable[[list], list], *, name: str = "callable"):
        super().__init__()
        self.fn = fn
        self.name = name

    def _forward(self, docs):
        out = list(self.fn([(list(t), list(s)) for t, s in docs]))
        if len(out) != len(docs):
            raise ValueError(f"the callable returned {len(out)} documents for {len(docs)}")
        return out


class ConllFileCoref(CorefPredictor):
    """System clusters read from CoNLL-2012 files, matched to each document by its tokens.

    Parameters
    ----------
    paths : sequence of path-like
        Files or folders of ``*conll`` files.

    Raises
    ------
    ModelError
        If a path does not exist, or (at prediction) a document is in none of the files.
    """

    def __init__(self, paths: Sequence[str | os.PathLike]):
        from robust_bench.io.conll2012 import read_conll2012

        super().__init__()
        files: list[Path] = []
        for p in map(Path, paths):
            if p.is_dir():
                files += sorted(x for x in p.iterdir() if "conll" in x.name)
            elif p.is_file():
                files.append(p)
            else:
                raise ModelError(f"coreference output {p} does not exist")
        self.name = "conll:" + ",".join(str(p) for p in paths)
        self._by_tokens = {}
        for f in files:
            for d in read_conll2012(f):
                self._by_tokens[tuple(d.tokens)] = d.clusters

    def _forward(self, docs):
        out = []
        for tokens, _ in docs:
            if tokens not in self._by_tokens:
                raise ModelError(f"{self.name}: no system output for the document beginning "
                                 f"{' '.join(tokens[:12])!r}; write one CoNLL-2012 document per variant")
            out.append(self._by_tokens[tokens])
        return out


class FastCorefAdapter(CorefPredictor):
    """``fastcoref`` (F-coref or LingMess) on pre-split words.

    Parameters
    ----------
    model : str
        ``FCoref``'s model id or local folder (default ``biu-nlp/f-coref``).
    device : str

    Raises
    ------
    ModelError
        If ``fastcoref`` is not installed or its weights cannot be loaded (no hub access).
    """

    def __init__(self, model: str = "biu-nlp/f-coref", device: str = "cpu"):
        super().__init__()
        try:
            from fastcoref import FCoref
        except ImportError as exc:
            raise ModelError("fastcoref is not installed: pip install fastcoref") from exc
        try:
            self.model = FCoref(model_name_or_path=model, device=device)
        except Exception as exc:  # noqa: BLE001 - the library raises many kinds on missing weights
            raise ModelError(f"fastcoref model {model!r} cannot be loaded: {exc}") from exc
        self.name = f"fastcoref:{model}"

    def _forward(self, docs):
        preds = self.model.predict(texts=[list(t) for t, _ in docs], is_split_into_words=True)
        out = []
        for (tokens, _), p in zip(docs, preds):
            # with is_split_into_words, fastcoref's "character" offsets are word offsets (i, i + 1)
            # per word (utilities/util.py, encode), so spans come back end-exclusive in words
            out.append([[(int(a), int(b)) for a, b in c] for c in p.get_clusters(as_strings=False)])
        return out
