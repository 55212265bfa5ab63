"""Adversarial treebanks (Wang et al., 2021): EWT and WSJ sentences attacked against a reference parser.

Each sentence of the source treebank is attacked with the black-box attack of Wang et al. (2021,
Alg. 1; :mod:`robust_bench.attacks.treebanks`) against a reference parser: words are replaced
by substitutes from four generators that pass four filters, at most 15% of the words, and the gold
tree is kept. The rows are a transfer set: other parsers are scored on the adversarial words with
the original gold trees.

* ``adv_ewt``: UD English EWT test (2,077 sentences), dev (``validation``, 2,001) and train
  (12,544; for adversarial training, §4.4), labelled, so LAS and UAS. Table 6 is the test split's.
* ``adv_ptb``: PTB WSJ in dependencies. A user's CoNLL-X section 23 (``treebank`` option), or by
  default NLTK's WSJ dependency sample (3,914 sentences, heads only, so UAS only).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import datasets

from robust_bench.attacks.treebanks import (FILTERS, GENERATORS, TreeExample, make_attack,
                                             result_rows, results_from_rows, row_features, substitution_checks,
                                             summarise)
from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.citations import WANG_2021
from robust_bench.data.registry import register_builder
from robust_bench.io.conllu_io import read_conllu, word_forms
from robust_bench.io.sources import SourceFile, resolve_sources, sha256_file
from robust_bench.perturb.treebanks import OFFLINE_FILTERS, OFFLINE_GENERATORS, SubstituteError

logger = logging.getLogger(__name__)

_CITATION = WANG_2021

_DESCRIPTION = """\
Adversarial treebanks (Wang et al., 2021): each sentence attacked with the paper's black-box
attack (Alg. 1) against a reference parser. Words, in descending importance (Eq. 1), are replaced
by substitutes from WordNet synonyms (the lemma in its own part of speech, common senses only,
inflected like the word) and, where they run, a masked LM, word-vector neighbours and HowNet
sememes; at most 15% of the words change. Function words, auxiliaries and copulas, proper nouns,
light verbs, degree adverbs and the words of fixed expressions and flat names never change. A
substitute must be a common English word, keep the sentence's tags and morphology on re-tagging
(and a verb its complements), keep the sentence's meaning (sentence encoder), add no grammar error
(LanguageTool, else CMU Link Grammar, and a/an agreement), and, where they run, pass the paper's
word-vector (cosine >= 0.7) and GPT-2 perplexity (+20 at most) filters. The card says which
generators and filters ran. The gold heads and relations are kept, so the rows score any other
parser (a transfer set). Each row carries the original words, the edits, the reference parser's
trees before and after, and whether the attack lowered its LAS (UAS on an unlabelled treebank).
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
        Word-vector file; default the counter-fitted vectors (downloaded; left out, and said so,
        when the download fails).
    generators, filters : str
        Comma-separated subsets of the four generators and six filters, which must all run; default
        :data:`~robust_bench.perturb.treebanks.OFFLINE_GENERATORS` and ``OFFLINE_FILTERS`` (the synonym
        generator; the frequency, POS, meaning and grammar filters), the same on every machine, online or
        not. ``auto``: every generator and filter that can run here (the card says which did and why the
        others did not), which gives other bytes on a machine that reaches the Hub.
    treebank : str or None
        ``adv_ptb``: a CoNLL-X file (PTB section 23 in Stanford dependencies) instead of NLTK's sample.
    grammar_checker : str
        The grammar filter's checker: ``link-grammar`` (the default, the same on every machine: CMU Link
        Grammar, which a suite declares as its ``grammar_checker``), ``languagetool`` (the paper's; Java and
        a LanguageTool server) or ``auto`` (the first that runs).
    """

    parser: str = "spacy:"
    spacy_model: str | None = None
    mlm: str | None = None
    lm: str | None = None
    vectors: str | None = None
    generators: str = ",".join(OFFLINE_GENERATORS)
    filters: str = ",".join(OFFLINE_FILTERS)
    treebank: str | None = None
    grammar_checker: str = "link-grammar"


def _require_xpos(sentences) -> None:
    """The synonym generator inflects with the PTB tag and the POS filter compares it (§2.3), so every
    word needs one.

    Raises
    ------
    ConlluError
        Naming the file, the line and the XPOS field of the first word without a tag.
    """
    from robust_bench.io.conllu_io import ConlluError

    for s in sentences:
        for k, x in enumerate(s.xpos):
            if not x or x == "_":
                line = s.word_lines[k] if k < len(s.word_lines) else s.line
                raise ConlluError(s.path, line, "XPOS", f"word {k + 1} ({s.forms[k]!r}) of sentence {s.sent_id} has no "
                                  "PTB tag; the parser attack needs XPOS on every word (UD English EWT has them)")


@register_builder
class AdversarialTreebank(RobustBenchBuilder):
    """Builder for ``adv_ewt`` and ``adv_ptb``."""

    #: 2.3.0: the meaning filter reads each substitute's own word in the original sentence (it once took the
    #: word at the first position asked in that sentence, robust_bench.perturb.checks.MeaningKept)
    #: 2.4.0: an example's ``queries`` are its own distinct parser inputs, not those the parser's cache lacked
    #: (a full build and a one-split build wrote other counts for sentences that recur across splits)
    VERSION = datasets.Version("2.4.0")
    FAMILY = "adversarial_treebanks"
    #: Wang et al. (2021, Table 2) report fluency apart from syntax: the audit asks it apart
    AUDIT_FLUENCY = True

    @classmethod
    def card_refusals(cls, statistics: dict[str, Any]) -> dict[str, int]:
        """Candidates each filter removed (``filters``: candidates left before and after each, in order) and
        words never attacked, by why they are protected (``checks.protected_words``), summed over the splits."""
        out: dict[str, int] = {}
        for stats in statistics.values():
            left = list((stats.get("filters") or {}).items())
            for (_, before), (name, after) in zip(left, left[1:]):
                out[f"filter {name}"] = out.get(f"filter {name}", 0) + int(before) - int(after)
            for reason, n in ((stats.get("checks") or {}).get("protected_words") or {}).items():
                out[f"protected: {reason}"] = out.get(f"protected: {reason}", 0) + int(n)
        return out
    CITATION = _CITATION
    DESCRIPTION = _DESCRIPTION
    LICENSE = _LICENSE
    SOURCE = SourceInfo(name="UD English EWT", version=_EWT_VERSION, license="CC BY-SA 4.0",
                        url="https://github.com/UniversalDependencies/UD_English-EWT")
    BUILDER_CONFIG_CLASS = TreebankAttackConfig
    BUILDER_CONFIGS = [
        TreebankAttackConfig(name="adv_ewt", version=VERSION, description=_DESCRIPTION,
                             splits=("train", "validation", "test")),
        TreebankAttackConfig(name="adv_ptb", version=VERSION, description=_DESCRIPTION, splits=("test",),
                             source_info=SourceInfo(name="Penn Treebank WSJ, dependencies (NLTK sample)",
                                                    version="nltk-dependency_treebank", license="LDC (research)",
                                                    url="https://www.nltk.org/nltk_data/")),
    ]
    DEFAULT_CONFIG_NAME = "adv_ewt"

    SOURCE_FILES = {"test": SourceFile(local="ud_english_ewt/en_ewt-ud-test.conllu", url=f"{_EWT_URL}/en_ewt-ud-test.conllu"),
                    "validation": SourceFile(local="ud_english_ewt/en_ewt-ud-dev.conllu",
                                             url=f"{_EWT_URL}/en_ewt-ud-dev.conllu"),
                    "train": SourceFile(local="ud_english_ewt/en_ewt-ud-train.conllu",
                                        url=f"{_EWT_URL}/en_ewt-ud-train.conllu")}

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=_DESCRIPTION, features=row_features(), citation=_CITATION,
                                    license=_LICENSE, homepage="https://aclanthology.org/2021.findings-acl.207/")

    def examples(self, dl_manager=None, split: str = "test") -> list[TreeExample]:
        """The sentences of ``split`` to attack, as :class:`TreeExample` (the first ``limit``). Sets
        :attr:`train_path`, the training treebank of the reference parser (EWT train for ``adv_ewt``,
        None for ``adv_ptb``), for out-of-training counts (Table 7).

        Raises
        ------
        ConlluError, SourceNotFoundError, LookupError
            For a malformed or missing treebank, or one without PTB tags (XPOS).
        ValueError
            For a split the config does not have.
        """
        from robust_bench.io.dependency_treebank import read_conllx, read_nltk_dependency_treebank

        cfg = self.config
        if split not in cfg.splits:
            raise ValueError(f"{cfg.name} has no split {split!r}; splits: {', '.join(cfg.splits)}")
        if cfg.name == "adv_ewt":
            paths, origin = resolve_sources(self.SOURCE_FILES, source_dir=cfg.source_dir, dl_manager=dl_manager)
            if "source_sha256" not in self.provenance:      # once per build, not once per split
                self.provenance.update({"source_origin": origin,
                                        "source_sha256": {k: sha256_file(p) for k, p in paths.items()}})
            self.train_path = paths["train"]
            sents = read_conllu(paths[split])
            _require_xpos(sents)
            exs = [TreeExample.from_sentence(s) for s in sents]
        else:
            # the POS filter's verb frames come from EWT train (downloaded where no mirror has it), so that
            # adv_ptb's default build is the same on every machine
            wanted = {f.strip() for f in cfg.filters.split(",")}
            self.train_path = resolve_sources({"train": self.SOURCE_FILES["train"]}, source_dir=cfg.source_dir,
                                              dl_manager=dl_manager)[0]["train"] if wanted & {"pos", "auto"} else None
            if cfg.treebank:
                sents = read_conllx(cfg.treebank)
                self.provenance.update({"source_origin": cfg.treebank, "source_sha256": {"test": sha256_file(cfg.treebank)}})
            else:
                sents = read_nltk_dependency_treebank()
                self.provenance["source_origin"] = "nltk_data/corpora/dependency_treebank"
            exs = [TreeExample.from_sentence(s) for s in sents]
        return list(self.first(exs))

    def _attack(self):
        if getattr(self, "_attack_obj", None) is None:
            from robust_bench.models.resolve import load_model

            cfg = self.config
            vectors = cfg.vectors or getattr(self, "_vectors_path", None)
            self._attack_obj, setup = make_attack(
                load_model(cfg.parser, interface="parser").parser(), vectors=vectors, mlm=cfg.mlm, lm=cfg.lm, tagger_model=cfg.spacy_model,
                generators=cfg.generators, filters=cfg.filters, seed=cfg.seed,
                rule="ud" if cfg.name == "adv_ewt" else "ptb", vectors_unavailable=getattr(self, "_vectors_why", None),
                grammar_checker=None if cfg.grammar_checker == "auto" else cfg.grammar_checker,
                frames=self.frames_path())
            self.provenance["attack"] = setup
            for what, why in setup["unavailable"].items():
                logger.warning("%s: left out %s (%s)", cfg.name, what, why)
            logger.warning("%s: generators %s; filters %s", cfg.name, ", ".join(setup["generators"]),
                           ", ".join(setup["filters"]))
        return self._attack_obj

    def __getstate__(self):
        # worker processes (--num-proc) set the attack up again: its grammar checker and models do not pickle
        state = dict(super().__getstate__())
        state.pop("_attack_obj", None)
        return state

    def frames_path(self) -> str | None:
        """UD English EWT train, whose verbs' complements the POS filter checks (adv_ewt, and adv_ptb with
        the POS filter; resolved when the examples are read, else from a local mirror)."""
        if getattr(self, "train_path", None):
            return str(self.train_path)
        from robust_bench.io.sources import SourceNotFoundError

        try:
            paths, _ = resolve_sources({"train": self.SOURCE_FILES["train"]}, source_dir=self.config.source_dir)
        except SourceNotFoundError:   # no local EWT: the frames are left out and the card says so
            return None
        return str(paths["train"])

    def _download_vectors(self, dl_manager) -> None:
        """The counter-fitted vectors, when the embedding generator or filter may run; a failed download
        leaves them out (and says why) unless they were asked for by name."""
        import zipfile
        from pathlib import Path

        from robust_bench.attacks.treebanks import _names

        self._vectors_path, self._vectors_why = None, None
        cfg = self.config
        _names(cfg.generators, GENERATORS, "generator")        # an unknown name stops the build here
        _names(cfg.filters, FILTERS, "filter")
        wanted = {g for g in cfg.generators.split(",")} | {f for f in cfg.filters.split(",")}
        if cfg.vectors or not ({"auto", "embedding"} & wanted):
            return
        try:
            folder = Path(dl_manager.download_and_extract(COUNTER_FITTED_URL))
        except Exception as exc:   # offline: datasets raises ConnectionError, OSError or its own errors
            if "embedding" in wanted:
                raise SubstituteError(f"the embedding generator or filter was asked for, but the counter-fitted "
                                      f"vectors cannot be downloaded ({exc}); pass --vectors FILE") from exc
            self._vectors_why = f"the counter-fitted vectors cannot be downloaded ({type(exc).__name__}); pass --vectors"
            return
        self._vectors_path = str(next(folder.rglob("*.txt")) if folder.is_dir() else folder)
        if zipfile.is_zipfile(self._vectors_path):   # pragma: no cover - depends on the download
            raise RuntimeError(f"could not extract {COUNTER_FITTED_URL}")

    def _split_generators(self, dl_manager):
        by_split = {split: self.examples(dl_manager, split) for split in self.output_splits()}
        self._download_vectors(dl_manager)
        self._attack()           # load the models once here, so a setup error stops the build early
        out = []
        for split, exs in by_split.items():
            chunks = [(i, exs[i:i + _CHUNK]) for i in range(0, len(exs), _CHUNK)]
            out.append(datasets.SplitGenerator(name=split, gen_kwargs={"chunks": chunks, "split": split}))
        return out

    def _generate_examples(self, chunks, split="test"):
        attack = self._attack()
        for start, chunk in chunks:
            for row in result_rows(attack.attack(chunk), chunk, split=split, start=start):
                yield row["id"], row

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Table 6 (UAS/LAS before and after, success rate), Table 4 (candidates per generator) and
        Table 7 (OOT against EWT train, the reference parser's training data), recounted from the rows."""
        from robust_bench.models.taggers import SpacyPosTagger

        out = {}
        train = word_forms(self.train_path) if getattr(self, "train_path", None) else None
        tagger = SpacyPosTagger(self.config.spacy_model)
        for split, ds in dataset.items():
            results, examples = results_from_rows(ds)
            out[split] = summarise(results, examples, train_vocabulary=train)
            out[split]["checks"] = substitution_checks(results, examples, tagger=tagger)
            out[split]["checks"]["tagger"] = tagger.model_id
            stages = [sum(x) for x in zip(*(r.stages for r in results if r.stages))]
            order = (self.provenance.get("attack") or {}).get("filters") or []
            if stages and len(stages) == len(order) + 1:
                out[split]["filters"] = {"before": stages[0], **dict(zip(order, stages[1:]))}
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
            if s.get("filters"):
                f = s["filters"]
                lines.append(f"Candidates of the visited words: {f['before']:,} proposed, then after each filter in turn: "
                             + ", ".join(f"{k} {v:,}" for k, v in f.items() if k != "before") + ".")
            c = s.get("checks") or {}
            if c:
                prot = ", ".join(f"{k} {v:,}" for k, v in c["protected_words"].items())
                lines.append(f"Automatic checks over the build: {c['substitutions']:,} substitutions; "
                             f"{sum(c['on_protected'].values())} on protected words (words that may not change: {prot}); "
                             f"{c['non_words']} non-words ({c['non_word_rate']:.2%})"
                             + (f"; {c['retagged']} substitutes re-tagged differently from their gold tag by "
                                f"{c.get('tagger')} ({c['retag_rate']:.2%}), and {c['context_retag_rate']:.2%} of "
                                "the other words of attacked sentences" if c.get("retagged") is not None else "") + ".")
        checker = setup.get("grammar_checker") or "none, article agreement only"
        lines.append("Generators that ran: " + ", ".join(setup.get("generators", [])) + "; filters that ran: "
                     + ", ".join(setup.get("filters", []))
                     + (f" (grammar checker: {checker})" if "grammar" in setup.get("filters", []) else "") + ".")
        if setup.get("thresholds"):
            lines.append("Thresholds: " + "; ".join(f"{k} " + ", ".join(f"{a} {b}" for a, b in v.items())
                                                    for k, v in setup["thresholds"].items()) + ".")
        for what, why in setup.get("unavailable", {}).items():
            lines.append(f"Not used: {what} ({why}).")
        left = [f"generator {g}" for g in GENERATORS if g not in setup.get("generators", [])] + \
            [f"filter {f}" for f in FILTERS if f not in setup.get("filters", [])]
        if setup.get("requested", {}).get("generators") != "auto" and left:
            lines.append("Options not in this build (each needs a model or data from the Hub, so a default build, "
                         "the same on every machine, leaves them out; `--generators ... --filters ...`): "
                         + ", ".join(left) + ".")
        lines.append("Rules: `ud` scores every token (CoNLL 2018); `ptb` leaves out tokens whose gold PTB tag is "
                     "one of `` '' , . : (the paper's). Sentences whose attack found no substitution keep their words.")
        return "\n".join(lines)
