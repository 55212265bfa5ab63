"""The recipe of robust-bench's reference spaCy pipeline, ``en_robust_bench_sm``: trained from public files only
(UD English EWT and CoNLL-2003), deterministic on CPU, packaged as a wheel a user installs with pip.

Two stages, as recorded in the config of the project's first pipeline (``en_rb_sm`` 0.1.0, whose ``meta.json``
logs no NER loss and whose ``ner`` carries its own token-to-vector layer):

1. ``ud.cfg``: tok2vec, tagger (PTB tags), morphologizer (UPOS and UD features), trainable lemmatizer and parser
   (UD relations) on EWT train, EWT dev for model selection. The treebank is converted by spaCy's own CoNLL-U
   converter as spaCy's UD projects do (``spacy convert --converter conllu --n-sents 10 --merge-subtokens``).
2. ``ner.cfg``: NER (PER, ORG, LOC, MISC) on CoNLL-2003 train, valid for model selection, ten sentences of one
   document per training document (``spacy convert --converter ner --n-sents 10``).

The NER is then sourced into stage 1's pipeline, and the result is scored on EWT test and CoNLL-2003 test (the
scores go into its ``meta.json``). :func:`package_pipeline` runs ``spacy package`` to make the wheel.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from robust_bench import RobustBenchError

__all__ = ["NAME", "VERSION", "PACKAGE", "HUB_REPO", "WHEEL_URL", "RecipeError", "TrainedPipeline",
           "train_pipeline", "package_pipeline", "ewt_docs", "conll2003_docs"]

#: the pipeline's spaCy name (its package is ``en_<NAME>``) and version
NAME = "robust_bench_sm"
VERSION = "1.0.0"
PACKAGE = f"en_{NAME}"
#: where the released wheel is published (a Hub model repository, as spaCy publishes its own pipelines)
HUB_REPO = f"robust-bench/{PACKAGE}"
WHEEL_URL = f"https://huggingface.co/{HUB_REPO}/resolve/v{VERSION}/{PACKAGE}-{VERSION}-py3-none-any.whl"

_HERE = Path(__file__).parent
#: sentences per training document, as spaCy's converters group them
N_SENTS = 10


class RecipeError(RobustBenchError, ValueError):
    """A source file is missing or unreadable, or a stage of the recipe failed."""


@dataclass(frozen=True)
class TrainedPipeline:
    """The recipe's output: the pipeline folder, its held-out scores and the wall time of each stage."""

    path: Path
    scores: dict
    seconds: dict


def ewt_docs(path: str | os.PathLike, *, limit: int | None = None) -> list:
    """UD English EWT as spaCy training documents, through spaCy's CoNLL-U converter (multiword tokens
    merged, as spaCy cannot expand them; ten sentences per document).

    Parameters
    ----------
    path : path-like
        A CoNLL-U file.
    limit : int, optional
        Only the first ``limit`` sentences (a quick run; the recipe's CI test trains on a slice).

    Raises
    ------
    RecipeError
        If the file is missing or malformed (the message names it).
    """
    from itertools import islice

    from spacy.training.converters import conllu_to_docs

    from robust_bench.io.conllu_io import ConlluError, iter_conllu
    from robust_bench.io.fileio import TextDecodeError, read_lines

    try:    # validated by our reader first: spaCy's converter fails on a malformed line with a bare traceback
        n = sum(1 for _ in islice(iter_conllu(path), limit))
        text = "\n".join(read_lines(path))       # as our reader reads it: no BOM, no \r
    except (OSError, ConlluError, TextDecodeError) as exc:
        raise RecipeError(f"{path}: not a readable CoNLL-U treebank ({exc})") from exc
    blocks = [b for b in text.strip().split("\n\n") if b.strip()][:n]
    return list(conllu_to_docs("\n\n".join(blocks) + "\n", n_sents=N_SENTS, merge_subtokens=True, no_print=True))


def conll2003_docs(path: str | os.PathLike, *, limit: int | None = None) -> list:
    """CoNLL-2003 as spaCy training documents: each sentence's entities (IOB2 tags, read by
    :func:`robust_bench.io.task_data.read_conll2003`, from the original text files or the Hub's Parquet),
    ten sentences of one document per training document.

    Raises
    ------
    RecipeError
        If the file is missing or malformed (the message names the file and line).
    """
    from spacy.tokens import Doc
    from spacy.training import biluo_tags_to_spans, iob_to_biluo
    from spacy.vocab import Vocab

    from robust_bench.io.task_data import CONLL2003_TAGS, TaskDataError, read_conll2003

    try:
        rows = read_conll2003(path)
    except (OSError, TaskDataError) as exc:
        raise RecipeError(f"{path}: not a readable CoNLL-2003 file ({exc})") from exc
    if limit is not None:
        rows = rows[:limit]
    vocab, docs, group = Vocab(), [], []

    def flush():
        if group:
            words = [w for r in group for w in r["tokens"]]
            spaces = [True] * len(words)
            sent_starts = [i == 0 for r in group for i in range(len(r["tokens"]))]
            doc = Doc(vocab, words=words, spaces=spaces, sent_starts=sent_starts)
            tags = iob_to_biluo([CONLL2003_TAGS[t] for r in group for t in r["ner_tags"]])
            doc.ents = biluo_tags_to_spans(doc, tags)
            docs.append(doc)
            group.clear()
    for row in rows:
        if group and (row["document"] != group[0]["document"] or len(group) == N_SENTS):
            flush()
        group.append(row)
    flush()
    return docs


def _docbin(docs: list, path: Path) -> Path:
    from spacy.tokens import DocBin

    from robust_bench.io.fileio import atomic_write_bytes

    return atomic_write_bytes(path, DocBin(docs=docs, store_user_data=False).to_bytes())


def _score(nlp, docs: list) -> dict:
    from spacy.tokens import DocBin
    from spacy.training import Example

    gold = DocBin(docs=docs, store_user_data=False).get_docs(nlp.vocab)    # the gold in the pipeline's strings
    scores = nlp.evaluate([Example(nlp.make_doc(d.text), d) for d in gold])
    keep = ("token_acc", "tag_acc", "pos_acc", "morph_acc", "lemma_acc", "dep_uas", "dep_las", "sents_f",
            "ents_p", "ents_r", "ents_f")
    return {k: round(float(scores[k]), 4) for k in keep if scores.get(k) is not None}


def _train_stage(stage: str, work: Path, overrides: dict, log: Path | None = None) -> float:
    """Run one stage's ``spacy train`` (config ``<stage>.cfg``, output ``work/<stage>``); its seconds.
    With ``log``, the stage's progress table goes to that file (a stage in a process of its own)."""
    import contextlib

    from spacy.cli.train import train as spacy_train

    start = time.monotonic()
    with contextlib.ExitStack() as stack:
        if log is not None:
            handle = stack.enter_context(open(log, "w", encoding="utf-8"))
            stack.enter_context(contextlib.redirect_stdout(handle))
            stack.enter_context(contextlib.redirect_stderr(handle))
        try:    # spaCy reports a failed stage by exiting the process (wasabi's msg.fail)
            spacy_train(_HERE / f"{stage}.cfg", work / stage, use_gpu=-1,
                        overrides={**overrides, "paths.train": str(work / f"{stage}-train.spacy"),
                                   "paths.dev": str(work / f"{stage}-dev.spacy")})
        except (SystemExit, ValueError) as exc:
            where = f"; see {log}" if log is not None else "; see the lines above"
            raise RecipeError(f"training stage {stage} failed ({exc}){where}") from None
    return round(time.monotonic() - start, 1)


def train_pipeline(out: str | os.PathLike, *, ewt: dict[str, str | os.PathLike],
                   conll2003: dict[str, str | os.PathLike], max_epochs: int | None = None,
                   limit: int | None = None, jobs: int = 1,
                   echo: Callable[[str], None] = print) -> TrainedPipeline:
    """Train the reference pipeline from the public files and write it to ``out`` (a spaCy pipeline folder,
    loadable with ``spacy.load`` and packaged by :func:`package_pipeline`).

    Parameters
    ----------
    out : path-like
        The pipeline folder; must not exist yet. Its sibling ``<out>.work`` keeps the converted corpora and
        both stages' training output.
    ewt : dict
        ``train``, ``dev`` and ``test`` CoNLL-U files of UD English EWT (v2.16 for the released pipeline).
    conll2003 : dict
        ``train``, ``valid`` and ``test`` files of CoNLL-2003 (original text or the Hub's Parquet).
    max_epochs : int, optional
        Override both stages' ``training.max_epochs`` (30; spaCy stops earlier after 3,000 steps without a
        better dev score).
    limit : int, optional
        Only the first ``limit`` sentences of every file (tests, quick looks); the released pipeline
        uses all of them.
    jobs : int
        1 (default): the two stages one after the other in this process. 2: each stage in a process of its
        own, at the same time (about half the wall time on two cores; the same seeds, so the same pipeline),
        each stage's progress table going to ``<out>.work/<stage>.log``.
    echo : callable
        Progress lines.

    Returns
    -------
    TrainedPipeline
        Scores on EWT test (tokens, PTB tags, UPOS, morphology, lemmas, UAS, LAS) and CoNLL-2003 test
        (entity precision, recall, F1), all in [0, 1]; the seconds each stage took.

    Raises
    ------
    RecipeError
        A missing or malformed source file, ``out`` exists, or ``jobs`` is not 1 or 2.
    """
    import spacy

    out = Path(out)
    if out.exists():
        raise RecipeError(f"{out} exists; the recipe writes a new pipeline folder")
    for name, files, keys in (("ewt", ewt, ("train", "dev", "test")), ("conll2003", conll2003, ("train", "valid", "test"))):
        missing = [k for k in keys if k not in files]
        if missing:
            raise RecipeError(f"{name}: no {', '.join(missing)} file given")
    if jobs not in (1, 2):
        raise RecipeError(f"jobs must be 1 or 2 (the recipe has two stages), not {jobs}")
    work = out.parent / f"{out.name}.work"
    seconds: dict[str, float] = {}
    start = time.monotonic()
    corpora = {"ud-train": ewt_docs(ewt["train"], limit=limit), "ud-dev": ewt_docs(ewt["dev"], limit=limit),
               "ner-train": conll2003_docs(conll2003["train"], limit=limit),
               "ner-dev": conll2003_docs(conll2003["valid"], limit=limit)}
    for key, docs in corpora.items():
        _docbin(docs, work / f"{key}.spacy")
    tests = {"ewt_test": ewt_docs(ewt["test"], limit=limit),
             "conll2003_test": conll2003_docs(conll2003["test"], limit=limit)}
    seconds["convert"] = round(time.monotonic() - start, 1)
    overrides = {"training.max_epochs": max_epochs} if max_epochs is not None else {}
    stages = ("ud", "ner")
    if jobs == 1:
        for stage in stages:
            echo(f"training stage {stage} ({_HERE / f'{stage}.cfg'})")
            seconds[stage] = _train_stage(stage, work, overrides)
    else:   # the stages share nothing until they are joined: one process each, each writing its own log
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from concurrent.futures.process import BrokenProcessPool

        with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {}
            for stage in stages:
                echo(f"training stage {stage} ({_HERE / f'{stage}.cfg'}) in its own process; log {work / f'{stage}.log'}")
                futures[stage] = pool.submit(_train_stage, stage, work, overrides, work / f"{stage}.log")
            for stage in stages:
                try:
                    seconds[stage] = futures[stage].result()
                except BrokenProcessPool:    # a stage's process was killed (out of memory, a signal)
                    raise RecipeError(f"training stage {stage}: its process died; see {work / f'{stage}.log'}") from None
    nlp = spacy.load(work / "ud" / "model-best")
    nlp.add_pipe("ner", source=spacy.load(work / "ner" / "model-best"))
    scores = {name: _score(nlp, docs) for name, docs in tests.items()}
    nlp.meta.update({
        "name": NAME, "version": VERSION,
        "description": "robust-bench's reference pipeline: tagger (PTB tags), morphologizer, trainable lemmatizer "
                       "and parser (UD relations) on UD English EWT train; NER (PER/ORG/LOC/MISC) on CoNLL-2003 "
                       "train. No static vectors. Trained by `robust-bench pipeline train`.",
        "url": f"https://huggingface.co/{HUB_REPO}",
        "license": "CC BY-SA 4.0 (EWT-derived components); CoNLL-2003-derived NER for research use",
        "sources": [{"name": "UD English EWT", "url": "https://github.com/UniversalDependencies/UD_English-EWT"},
                    {"name": "CoNLL-2003 English NER", "url": "https://www.clips.uantwerpen.be/conll2003/ner/"}],
        "performance_heldout": scores,
        "robust_bench_recipe": {"max_epochs": max_epochs, "limit": limit},
    })
    # training speed (words per second) is the one figure that differs between two runs of the recipe
    nlp.meta.get("performance", {}).pop("speed", None)
    for key in ("train", "dev"):      # the config ships without this machine's paths
        nlp.config["paths"][key] = None
    nlp.to_disk(out)
    echo("held-out scores: " + json.dumps(scores))
    return TrainedPipeline(out, scores, seconds)


def package_pipeline(pipeline: str | os.PathLike, out: str | os.PathLike) -> Path:
    """``spacy package PIPELINE OUT --build wheel``: the installable wheel of a trained pipeline.

    Returns
    -------
    Path
        The wheel (``OUT/<package>-<version>/dist/<package>-<version>-py3-none-any.whl``).

    Raises
    ------
    RecipeError
        If ``pipeline`` is not a spaCy pipeline folder, PyPA ``build`` is missing, or no wheel was made.
    """
    from spacy.cli.package import has_build, package

    if not has_build():    # spaCy would exit the process instead of raising
        raise RecipeError("spacy package needs the 'build' package: pip install 'robust-bench[pipeline]'")
    pipeline, out = Path(pipeline), Path(out)
    meta = pipeline / "meta.json"
    try:
        info = json.loads(meta.read_text(encoding="utf-8"))
        package_name = f"{info['lang']}_{info['name']}-{info['version']}"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RecipeError(f"{meta}: not the meta.json of a spaCy pipeline ({exc})") from None
    out.mkdir(parents=True, exist_ok=True)
    try:    # spaCy reports a failed build by exiting the process (wasabi's msg.fail, run_command)
        package(pipeline, out, create_sdist=False, create_wheel=True, force=True, silent=True)
    except SystemExit as exc:
        raise RecipeError(f"spacy package failed (exit {exc.code}); PyPA build needs setuptools from PyPI for its "
                          "isolated build") from None
    wheels = sorted(out.glob(f"{package_name}/dist/*.whl"))
    if not wheels:
        raise RecipeError(f"spacy package made no wheel under {out}")
    return wheels[-1]
