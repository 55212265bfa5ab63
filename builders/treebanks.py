"""Adversarial treebanks (Wang et al., 2021): EWT and WSJ sentences attacked against a reference parser.

Each sentence of the source treebank is attacked with the black-box attack of Wang et al. (2021,
Alg. 1; :mod:`robust_bench.attacks.parser_attack`) against a reference parser: words are replaced
by substitutes from four generators that pass four filters, at most 15% of the words, and the gold
tree is kept. The rows are a transfer set: other parsers are scored on the adversarial words with
the original gold trees.

* ``adv_ewt``: UD English EWT test (2,077 sentences), labelled, so LAS and UAS.
* ``adv_ptb``: PTB WSJ in dependencies. A user's CoNLL-X section 23 (``treebank`` option), or by
  default NLTK's WSJ dependency sample (3,914 sentences, heads only, so UAS only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import datasets

from robust_bench.attacks.parser_attack import (FILTERS, GENERATORS, TreeExample, make_attack, result_rows,
                                                results_from_rows, row_features, summarise)
from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.citations import WANG_2021
from robust_bench.data.registry import register_builder
from robust_bench.io.conllu_io import read_conllu
from robust_bench.io.sources import SourceFile, resolve_sources, sha256_file

_CITATION = WANG_2021

_DESCRIPTION = """\
Adversarial treebanks (Wang et al., 2021): each sentence attacked with the paper's black-box
attack (Alg. 1) against a reference parser. Words, in descending importance (Eq. 1), are replaced
by substitutes from a masked LM, word-vector neighbours, WordNet synonyms and HowNet sememes that
keep the fine POS tag in context, have cosine similarity >= 0.7 to the word, add no grammar error
(LanguageTool, when it runs) and raise the GPT-2 perplexity by at most 20; at most 15% of the words
change. The gold heads and relations are kept, so the rows score any other parser (a transfer set).
Each row carries the original words, the edits, the reference parser's trees before and after, and
whether the attack lowered its LAS (UAS on an unlabelled treebank).
"""

_LICENSE = "CC BY-SA 4.0 (UD English EWT); the WSJ sample is NLTK's (LDC, for research). Substitutions generated here."

#: Counter-fitted word vectors (Mrkšić et al., 2016), the vectors of the paper (§3.2).
COUNTER_FITTED_URL = "https://github.com/nmrksic/counter-fitting/raw/master/word_vectors/counter-fitted-vectors.txt.zip"
_EWT_VERSION = "r2.16"
_EWT_URL = "https://raw.githubusercontent.com/UniversalDependencies/UD_English-EWT/" + _EWT_VERSION
_CHUNK = 256


@dataclass
class TreebankAttackConfig(RobustBenchConfig):
    """Settings of an adversarial treebank.

    Attributes
    ----------
    parser : str
        Reference parser, a ``--parser`` string (``spacy:PATH``, ``stanza:PATH``,
        ``callable:module:function``); ``spacy:`` is ``$ROBUST_BENCH_SPACY_MODEL``.
    spacy_model : str or None
        spaCy pipeline of the POS filter (default ``$ROBUST_BENCH_SPACY_MODEL``).
    mlm, lm : str or None
        Masked LM and causal LM (default ``bert-base-uncased`` and ``gpt2``).
    vectors : str or None
        Word-vector file; default the counter-fitted vectors (downloaded).
    generators, filters : str
        Comma-separated subsets of the four generators and the four filters.
    limit : int or None
        Attack only the first N sentences.
    treebank : str or None
        ``adv_ptb``: a CoNLL-X file (PTB section 23 in Stanford dependencies) instead of NLTK's sample.
    """

    parser: str = "spacy:"
    spacy_model: str | None = None
    mlm: str | None = None
    lm: str | None = None
    vectors: str | None = None
    generators: str = ",".join(GENERATORS)
    filters: str = ",".join(FILTERS)
    limit: int | None = None
    treebank: str | None = None


@register_builder
class AdversarialTreebank(RobustBenchBuilder):
    """Builder for ``adv_ewt`` and ``adv_ptb``."""

    VERSION = datasets.Version("1.0.0")
    FAMILY = "adversarial_treebanks"
    CITATION = _CITATION
    DESCRIPTION = _DESCRIPTION
    LICENSE = _LICENSE
    SOURCE = SourceInfo(name="UD English EWT", version=_EWT_VERSION, license="CC BY-SA 4.0",
                        url="https://github.com/UniversalDependencies/UD_English-EWT")
    BUILDER_CONFIG_CLASS = TreebankAttackConfig
    BUILDER_CONFIGS = [
        TreebankAttackConfig(name="adv_ewt", version=VERSION, description=_DESCRIPTION, splits=("test",)),
        TreebankAttackConfig(name="adv_ptb", version=VERSION, description=_DESCRIPTION, splits=("test",),
                             source_info=SourceInfo(name="Penn Treebank WSJ, dependencies (NLTK sample)",
                                                    version="nltk-dependency_treebank", license="LDC (research)",
                                                    url="https://www.nltk.org/nltk_data/")),
    ]
    DEFAULT_CONFIG_NAME = "adv_ewt"

    SOURCE_FILES = {"test": SourceFile(local="ud_english_ewt/en_ewt-ud-test.conllu", url=f"{_EWT_URL}/en_ewt-ud-test.conllu"),
                    "train": SourceFile(local="ud_english_ewt/en_ewt-ud-train.conllu",
                                        url=f"{_EWT_URL}/en_ewt-ud-train.conllu")}

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=_DESCRIPTION, features=row_features(), citation=_CITATION,
                                    license=_LICENSE, homepage="https://aclanthology.org/2021.findings-acl.207/")

    def examples(self, dl_manager=None) -> list[TreeExample]:
        """The sentences to attack, as :class:`TreeExample` (the first ``limit``).

        Raises
        ------
        ConlluError, SourceNotFoundError, LookupError
            For a malformed or missing treebank.
        """
        from robust_bench.io.dependency_treebank import read_conllx, read_nltk_dependency_treebank

        cfg = self.config
        if cfg.name == "adv_ewt":
            paths, origin = resolve_sources(self.SOURCE_FILES, source_dir=cfg.source_dir, dl_manager=dl_manager)
            self.provenance.update({"source_origin": origin, "source_sha256": {k: sha256_file(p) for k, p in paths.items()}})
            self._train_path = paths["train"]
            sents = read_conllu(paths["test"])
            exs = [TreeExample.from_sentence(s) for s in sents]
        else:
            self._train_path = None
            if cfg.treebank:
                sents = read_conllx(cfg.treebank)
                self.provenance.update({"source_origin": cfg.treebank, "source_sha256": {"test": sha256_file(cfg.treebank)}})
            else:
                sents = read_nltk_dependency_treebank()
                self.provenance["source_origin"] = "nltk_data/corpora/dependency_treebank"
            exs = [TreeExample.from_sentence(s) for s in sents]
        return exs[: cfg.limit] if cfg.limit else exs

    def _attack(self):
        if getattr(self, "_attack_obj", None) is None:
            from robust_bench.models.parsers import load_parser

            cfg = self.config
            vectors = cfg.vectors or self._vectors_path
            self._attack_obj, setup = make_attack(
                load_parser(cfg.parser), vectors=vectors, mlm=cfg.mlm, lm=cfg.lm, tagger_model=cfg.spacy_model,
                generators=[g for g in cfg.generators.split(",") if g], filters=[f for f in cfg.filters.split(",") if f],
                seed=cfg.seed, rule="ud" if cfg.name == "adv_ewt" else "ptb")
            self.provenance["attack"] = setup
        return self._attack_obj

    def _split_generators(self, dl_manager):
        exs = self.examples(dl_manager)
        self._vectors_path = None
        if not self.config.vectors:
            import zipfile
            from pathlib import Path

            folder = Path(dl_manager.download_and_extract(COUNTER_FITTED_URL))
            self._vectors_path = str(next(folder.rglob("*.txt")) if folder.is_dir() else folder)
            if zipfile.is_zipfile(self._vectors_path):   # pragma: no cover - depends on the download
                raise RuntimeError(f"could not extract {COUNTER_FITTED_URL}")
        self._attack()           # load the models once here, so a setup error stops the build early
        chunks = [(i, exs[i:i + _CHUNK]) for i in range(0, len(exs), _CHUNK)]
        return [datasets.SplitGenerator(name="test", gen_kwargs={"chunks": chunks})]

    def _generate_examples(self, chunks):
        attack = self._attack()
        for start, chunk in chunks:
            for row in result_rows(attack.attack(chunk), chunk, split="test", start=start):
                yield row["id"], row

    def _train_vocabulary(self) -> set[str] | None:
        if getattr(self, "_train_path", None) is None:
            return None
        return {w for s in read_conllu(self._train_path) for w in s.forms}

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Table 6 (UAS/LAS before and after, success rate), Table 4 (candidates per generator) and
        Table 7 (OOT against EWT train, the reference parser's training data), recounted from the rows."""
        out = {}
        train = self._train_vocabulary()
        for split, ds in dataset.items():
            results, examples = results_from_rows(ds)
            out[split] = summarise(results, examples, train_vocabulary=train)
        return out

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        setup = self.provenance.get("attack", {})
        lines = []
        for split, s in stats.items():
            sc = s["scores"]
            parts = [f"{rule}: UAS {v['uas_original']:.2f} -> {v['uas_adversarial']:.2f}"
                     + (f", LAS {v['las_original']:.2f} -> {v['las_adversarial']:.2f}" if "las_original" in v else "")
                     for rule, v in sc.items()]
            lines.append(f"{split}: {s['sentences']:,} sentences attacked against {setup.get('parser', '?')}; "
                         f"success rate {s['success_rate']:.1%}; {s['substitutions']:,} substitutions; " + "; ".join(parts) + ".")
            lines.append("Candidates proposed / kept by every filter: "
                         + ", ".join(f"{g} {c['proposed']:,} / {c['kept']:,}" for g, c in s["candidates"].items()) + ".")
        for what, why in setup.get("unavailable", {}).items():
            lines.append(f"Not used: {what} ({why}).")
        lines.append("Rules: `ud` scores every token (CoNLL 2018); `ptb` leaves out tokens whose gold PTB tag is "
                     "one of `` '' , . : (the paper's). Sentences whose attack found no substitution keep their words.")
        return "\n".join(lines)
