"""Dependency-parser adapters: any spaCy pipeline with a parser, a stanza pipeline, or a Python callable.

One protocol for every parser the adversarial-treebank family attacks (Wang et al., 2021):

* :meth:`Parser.parse` takes pre-split sentences (tuples of words) and returns, per sentence, a
  :class:`Parse`: 1-based heads (0 for the root) and relation labels, one per word. Tokens never
  shift: the words given are the words parsed.
* Every distinct word sequence is parsed once (a cache keyed by the words), and
  :attr:`Parser.queries` counts the sentences the parser really saw; :attr:`Parser.calls` counts
  the batched calls.
* :func:`robust_bench.models.resolve.load_model` turns a ``spacy:PATH``, ``stanza:PATH`` or
  ``callable:module:function`` string (the ``--parser`` option) into an adapter, as it does every
  model spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from robust_bench.models.loader import ModelError, PredictionCache

__all__ = ["Parse", "Parser", "SpacyParser", "StanzaParser", "CallableParser"]


@dataclass(frozen=True)
class Parse:
    """A predicted dependency tree of one sentence.

    Attributes
    ----------
    heads : tuple of int of shape (n_words,)
        1-based heads, 0 for the root; values in [0, n_words].
    deprels : tuple of str of shape (n_words,), or None
        Relation labels (lower case, UD style: ``root`` for the root); ``None`` for an
        unlabelled parser.
    """

    heads: tuple[int, ...]
    deprels: tuple[str, ...] | None = None


def _check_parse(parse, words: tuple, who: str) -> Parse:
    if not isinstance(parse, Parse):
        if isinstance(parse, tuple) and len(parse) == 2 and not isinstance(parse[0], int):
            heads, deprels = parse
        else:
            heads, deprels = parse, None
        parse = Parse(tuple(int(h) for h in heads), None if deprels is None else tuple(str(d) for d in deprels))
    n = len(words)
    if len(parse.heads) != n:
        raise ModelError(f"{who} returned {len(parse.heads)} heads for a sentence of {n} words: {' '.join(words)!r}")
    if any(h < 0 or h > n for h in parse.heads):
        raise ModelError(f"{who} returned a head outside [0, {n}] for {' '.join(words)!r}: {parse.heads}")
    if parse.deprels is not None and len(parse.deprels) != n:
        raise ModelError(f"{who} returned {len(parse.deprels)} relations for a sentence of {n} words")
    return parse


class Parser:
    """Base protocol: pre-split sentences in, one :class:`Parse` per sentence out, cached by the words.

    Subclasses implement :meth:`_forward` on a list of distinct, uncached word tuples.

    Attributes
    ----------
    name : str
        What records and config names call the parser.
    revision : str
        A pin of the parser's version (pipeline name and version, or a content hash).
    labelled : bool
        Whether the parser predicts relation labels (LAS can be scored).
    calls : int
        Batched calls to the underlying parser.
    """

    name = "parser"
    revision = "unknown"
    labelled = True

    def __init__(self):
        self._cache = PredictionCache()
        self.calls = 0

    @property
    def queries(self) -> int:
        """Distinct sentences the parser has parsed (cache hits cost none)."""
        return self._cache.queries

    def _forward(self, sentences: list[tuple[str, ...]]) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def parse(self, sentences: Sequence[Sequence[str]]) -> list[Parse]:
        """Parse pre-split sentences.

        Parameters
        ----------
        sentences : sequence of sequence of str
            Words per sentence, shape (n_sentences, n_words); no sentence may be empty.

        Returns
        -------
        list of Parse of length n_sentences

        Raises
        ------
        ValueError
            If a sentence is empty or a word is empty or contains whitespace.
        robust_bench.models.loader.ModelError
            If the parser returns a malformed tree (wrong length, head out of range).
        """
        keys = [tuple(s) for s in sentences]
        for k, s in enumerate(keys):
            if not s:
                raise ValueError(f"sentence {k} is empty; a parser needs at least one word")
            bad = [w for w in s if not w or any(c.isspace() for c in w)]
            if bad:
                raise ValueError(f"sentence {k}: words must be non-empty and free of whitespace, got {bad[0]!r}")

        def forward(todo):
            self.calls += 1
            out = self._forward(todo)
            if len(out) != len(todo):
                raise ModelError(f"{self.name} returned {len(out)} parses for {len(todo)} sentences")
            return [_check_parse(p, w, self.name) for p, w in zip(out, todo)]

        return self._cache.get_many(keys, forward)

    def clear_cache(self) -> None:
        """Forget every cached parse (the query count stays)."""
        self._cache.clear()


class CallableParser(Parser):
    """Wrap any Python function as a parser.

    Parameters
    ----------
    fn : callable
        ``list of word tuples -> list of parses``; a parse is a :class:`Parse`, a ``(heads,
        deprels)`` pair, or a plain sequence of 1-based heads (an unlabelled parser).
    name : str
    labelled : bool
        Whether ``fn`` returns relation labels.
    """

    def __init__(self, fn: Callable[[list], list], *, name: str = "callable", labelled: bool = True,
                 revision: str = "callable"):
        super().__init__()
        self.fn = fn
        self.name = name
        self.labelled = labelled
        self.revision = revision

    def _forward(self, sentences):
        return list(self.fn(list(sentences)))


class SpacyParser(Parser):
    """The dependency parser of a spaCy pipeline, given pre-tokenised input.

    Each sentence becomes ``Doc(nlp.vocab, words=...)`` with every word but the first marked as
    not starting a sentence, so the parser returns one tree over exactly the given words (spaCy's
    parser keeps preset sentence boundaries). The pipeline's tagger, morphologizer and
    lemmatizer run too when present, as they would for a user; NER and other components are
    disabled. Relation labels are lower-cased (spaCy's ``ROOT`` is UD's ``root``).

    Parameters
    ----------
    spacy_model : str, optional
        Package name or directory; default ``$ROBUST_BENCH_SPACY_MODEL``, else ``en_robust_bench_sm``.
    batch_size : int
        Documents per ``nlp.pipe`` batch.

    Attributes
    ----------
    training_vocabulary : None
        spaCy pipelines do not ship their training words; pass them to the attack report.

    Raises
    ------
    robust_bench.text.nlp.SpacyModelError
        If the pipeline cannot be loaded or has no parser.
    """

    def __init__(self, spacy_model: str | None = None, *, batch_size: int = 256):
        from robust_bench.text.nlp import load_spacy, spacy_model_name

        super().__init__()
        self.nlp = load_spacy(spacy_model, require=("parser",))
        self.model_id = spacy_model_name(spacy_model)
        meta = self.nlp.meta
        self.name = f"spacy-{meta.get('lang', 'xx')}_{meta.get('name', 'pipeline')}"
        self.revision = f"spacy-{meta.get('lang', 'xx')}_{meta.get('name', 'pipeline')}-{meta.get('version', '0')}"
        self.batch_size = batch_size
        self._disable = [p for p in self.nlp.pipe_names
                         if p not in ("tok2vec", "transformer", "tagger", "morphologizer", "parser", "attribute_ruler")]

    def docs(self, sentences: Sequence[Sequence[str]]):
        """The parsed spaCy ``Doc`` of each sentence (not cached; the parse cache is in :meth:`parse`)."""
        from spacy.tokens import Doc

        def make(words):
            doc = Doc(self.nlp.vocab, words=list(words))
            for tok in doc[1:]:
                tok.is_sent_start = False
            return doc

        return self.nlp.pipe((make(s) for s in sentences), batch_size=self.batch_size, disable=self._disable)

    def _forward(self, sentences):
        out = []
        for doc in self.docs(sentences):
            heads = tuple(0 if t.head.i == t.i else t.head.i + 1 for t in doc)
            out.append(Parse(heads, tuple(t.dep_.lower() for t in doc)))
        return out


class StanzaParser(Parser):
    """The dependency parser of a stanza pipeline (Dozat & Manning's biaffine parser), on pre-tokenised input.

    Parameters
    ----------
    model : str
        A directory holding stanza models (``stanza.Pipeline(dir=...)``, with ``lang``), or a
        language code whose models are already downloaded. Users' own models, trained with
        stanza's tooling, are given with ``depparse_model_path`` and friends in ``options``.
    lang : str
    options : dict, optional
        Extra ``stanza.Pipeline`` keyword arguments (``depparse_model_path``, ``pos_model_path``,
        ``depparse_pretrain_path``, ``use_gpu`` ...).
    pipeline : object, optional
        An already-built ``stanza.Pipeline`` (or any callable taking a list of word lists and
        returning a ``stanza.Document``); ``model`` is then only its name.

    Raises
    ------
    robust_bench.models.loader.ModelError
        If stanza is not installed (``pip install 'robust-bench[stanza]'``) or the pipeline
        cannot be built; stanza's own message is kept.
    """

    def __init__(self, model: str = "en", *, lang: str = "en", options: dict | None = None, pipeline=None):
        super().__init__()
        self.model_id = model
        self.name = f"stanza-{Path(model).name or model}"
        if pipeline is None:
            try:
                import stanza
            except ImportError as exc:
                raise ModelError("stanza is not installed: pip install 'robust-bench[stanza]'") from exc
            kwargs = {"lang": lang, "processors": "tokenize,pos,lemma,depparse", "tokenize_pretokenized": True,
                      "download_method": None, "verbose": False, **(options or {})}
            if Path(model).is_dir():
                kwargs["dir"] = str(model)
            try:
                pipeline = stanza.Pipeline(**kwargs)
            except Exception as exc:   # stanza raises many types (FileNotFoundError, ResourcesFileNotFoundError ...)
                raise ModelError(f"cannot build a stanza pipeline from {model!r}: {exc}") from exc
            self.revision = f"stanza-{stanza.__version__}-{Path(model).name or model}"
        else:
            self.revision = f"stanza-{Path(model).name or model}"
        self.pipeline = pipeline

    def _forward(self, sentences):
        doc = self.pipeline([list(s) for s in sentences])
        if len(doc.sentences) != len(sentences):
            raise ModelError(f"{self.name} returned {len(doc.sentences)} sentences for {len(sentences)}")
        out = []
        for sent in doc.sentences:
            words = sent.words
            out.append(Parse(tuple(int(w.head) for w in words), tuple((w.deprel or "_").lower() for w in words)))
        return out
