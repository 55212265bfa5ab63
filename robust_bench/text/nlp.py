"""spaCy pipelines, configurable per user.

The pipeline that parses is the project's reference pipeline ``en_robust_bench_sm`` (UD relations and PTB
tags, trained by ``robust-bench pipeline train``; the default suite declares it and its builds are pinned on
it; install its wheel, :data:`robust_bench.text.reference_pipeline.WHEEL_URL`). The second, independent
pipeline (LIT's second parser, names_mrpc's NER, the validity checks' second tagger) is ``en_core_web_sm``.
``$ROBUST_BENCH_SPACY_MODEL`` and friends, or an explicit name or path, override them: another pipeline
builds other bytes, which a pinned suite does not take. Code must not hard-code one model's label set: use
:func:`map_entity_label`.
"""

from __future__ import annotations

import os
from functools import lru_cache

from robust_bench import RobustBenchError

__all__ = ["SPACY_ENV", "NER_ENV", "DEFAULT_SPACY_MODEL", "SECOND_SPACY_MODEL", "SpacyModelError", "load_spacy", "spacy_model_name",
           "pipe_cached", "ner_model_name", "second_parser_name", "SECOND_PARSER_ENV", "map_entity_label"]

SPACY_ENV = "ROBUST_BENCH_SPACY_MODEL"
#: The pipeline whose NER finds names where a corpus has no gold entities (``names_mrpc``): an OntoNotes
#: pipeline such as ``en_core_web_sm`` (ORG, PERSON, GPE, PRODUCT, LAW, WORK_OF_ART...), whose finer
#: labels tell organisations from products, laws and works; a CoNLL-trained pipeline (PER, ORG, LOC,
#: MISC) also works, mapped by :func:`map_entity_label`.
NER_ENV = "ROBUST_BENCH_NER_MODEL"
#: The pipeline that parses by default: the reference pipeline's package name.
DEFAULT_SPACY_MODEL = "en_robust_bench_sm"
#: The second, independent pipeline by default (spaCy's own, installed by ``python -m spacy download``).
SECOND_SPACY_MODEL = "en_core_web_sm"
#: A second, independent parser (``en_core_web_sm``, OntoNotes with ClearNLP labels, by default)
#: whose disagreement with the first refuses a LIT transformation.
SECOND_PARSER_ENV = "ROBUST_BENCH_SECOND_PARSER"

#: OntoNotes and CoNLL-2003 entity labels mapped to one coarse set.
_ENTITY_MAP = {"PERSON": "PER", "PER": "PER", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "ORG": "ORG",
               "NORP": "MISC", "MISC": "MISC", "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC",
               "LAW": "MISC", "LANGUAGE": "MISC"}


class SpacyModelError(RobustBenchError, RuntimeError):
    """The requested spaCy pipeline cannot be loaded or lacks a needed component."""


def spacy_model_name(name: str | None = None) -> str:
    """The pipeline to use: ``name``, else ``$ROBUST_BENCH_SPACY_MODEL``, else ``en_robust_bench_sm``."""
    return name or os.environ.get(SPACY_ENV) or DEFAULT_SPACY_MODEL


def second_parser_name(name: str | None = None) -> str | None:
    """The second, independent parser of the LIT backend (:data:`SECOND_PARSER_ENV`): ``name``, else
    ``$ROBUST_BENCH_SECOND_PARSER``, else ``$ROBUST_BENCH_ERRANT_MODEL`` (the second pipeline the
    validity checks already use), else ``en_core_web_sm``; None for ``"none"``."""
    out = name or os.environ.get(SECOND_PARSER_ENV) or os.environ.get("ROBUST_BENCH_ERRANT_MODEL") or SECOND_SPACY_MODEL
    return None if out.lower() == "none" else out


def ner_model_name(name: str | None = None) -> str:
    """The NER pipeline to use: ``name``, else ``$ROBUST_BENCH_NER_MODEL``, else ``en_core_web_sm`` (see
    :data:`NER_ENV`)."""
    return name or os.environ.get(NER_ENV) or SECOND_SPACY_MODEL


@lru_cache(maxsize=4)
def _load(name: str):
    import spacy

    try:
        return spacy.load(name)
    except OSError as exc:
        if name == DEFAULT_SPACY_MODEL:
            from robust_bench.text.reference_pipeline import WHEEL_URL
            how = f"pip install {WHEEL_URL}, or train it: robust-bench pipeline train"
        else:
            how = f"python -m spacy download {name}"
        raise SpacyModelError(f"spaCy pipeline {name!r} is not available: install it ({how}) or set "
                              f"{SPACY_ENV} to a pipeline directory") from exc


def load_spacy(name: str | None = None, *, require: tuple[str, ...] = ("tagger", "parser")):
    """Load (once per process) a spaCy pipeline.

    Parameters
    ----------
    name : str, optional
        Package name or directory; see :func:`spacy_model_name`.
    require : tuple of str
        Components that must be present (``"tagger"`` is satisfied by ``tagger`` or ``morphologizer``).

    Raises
    ------
    SpacyModelError
        If the pipeline is missing or lacks a required component.
    """
    resolved = spacy_model_name(name)
    nlp = _load(resolved)
    names = set(nlp.pipe_names)
    for comp in require:
        ok = bool(names & {"tagger", "morphologizer"}) if comp == "tagger" else comp in names
        if not ok:
            raise SpacyModelError(f"spaCy pipeline {resolved!r} has no {comp!r} component (has {sorted(names)})")
    return nlp


def pipe_cached(nlp, texts, *, batch_size: int = 256, cache_dir: str | os.PathLike | None = None) -> list:
    """``list(nlp.pipe(texts))``, computed once and then read from a cache: a build that annotates a whole
    corpus again with the same pipeline (another seed, another ``limit``, a second worker) reads the
    annotations back instead of running the pipeline again.

    The documents are kept as a spaCy ``DocBin`` (tokens, tags, lemmas, morphology, dependencies,
    entities) under ``cache_dir/spacy-docs/<key>.spacy``, where the key is the SHA-256 of the texts, the
    pipeline's components and tokenizer (weights, settings), its static vectors, its name and version and
    spaCy's version; a damaged file is recomputed and replaced, and a file appears only when complete.

    Parameters
    ----------
    nlp : spacy.language.Language
    texts : sequence of str
    batch_size : int
    cache_dir : path-like, optional
        Default :func:`robust_bench.io.fileio.default_cache_dir` (``$ROBUST_BENCH_CACHE``).

    Returns
    -------
    list of spacy.tokens.Doc
        One per text, in order; equal, token by token and annotation by annotation, to the pipeline's.
    """
    import json

    import numpy as np
    import spacy
    from spacy.tokens import DocBin

    from robust_bench.io.fileio import cached

    texts = list(texts)
    # the pipeline as it was trained: its components' and tokenizer's bytes and its static vectors, not the
    # vocabulary's string store, which grows with every text the process annotates
    vectors = nlp.vocab.vectors
    key = ("\x1e".join(texts).encode("utf-8"), nlp.tokenizer.to_bytes(exclude=["vocab"]),
           *(pipe.to_bytes(exclude=["vocab"]) for _, pipe in nlp.pipeline),
           np.ascontiguousarray(vectors.data).tobytes(), json.dumps(sorted(vectors.key2row.items())).encode(),
           json.dumps([nlp.pipe_names, nlp.meta.get("name"), nlp.meta.get("version"), spacy.__version__]).encode())

    def decode(data: bytes) -> list:
        docs = list(DocBin().from_bytes(data).get_docs(nlp.vocab))
        if [d.text for d in docs] != texts:
            raise ValueError("the cached documents are not these texts")
        return docs
    return cached("spacy-docs", key, lambda: list(nlp.pipe(texts, batch_size=batch_size)),
                  encode=lambda docs: DocBin(docs=docs, store_user_data=False).to_bytes(), decode=decode,
                  suffix="spacy", cache_dir=cache_dir)


def map_entity_label(label: str) -> str:
    """A pipeline's entity label in the coarse CoNLL set (PER, LOC, ORG, MISC); others unchanged."""
    return _ENTITY_MAP.get(label, label)
