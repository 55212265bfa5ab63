"""Jabberwocky EWT: UD English EWT with open-class words replaced by pseudowords.

Hall Maudslay & Cotterell (2021) build a "Jabberwocky" version of the EWT test set in which
nouns, verbs, adjectives and adverbs become inflected pseudowords while the gold trees stay
as they were, and probe whether syntactic probes still find the trees. This builder makes
that corpus for train, validation and test: the paper used only test, and names training
probes on Jabberwocky data as the missing experiment (§5.3, §6).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import datasets

from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.registry import register_builder
from robust_bench.io.conllu_io import ConlluError, Sentence, read_conllu
from robust_bench.perturb.jabberwocky import OPEN_CLASSES, SKIP_FEATURES, jabberwockify, sentence_rng, skip_reasons
from robust_bench.text.pseudowords import WUGGY_ENGLISH_URL, PseudowordError, pseudoword_inventory
from robust_bench.io.sources import SourceFile, resolve_sources, sha256_file
from robust_bench.data.citations import HALL_MAUDSLAY_COTTERELL_2021

_CITATION = HALL_MAUDSLAY_COTTERELL_2021

_DESCRIPTION = """\
Jabberwocky EWT (Hall Maudslay & Cotterell, 2021): the Universal Dependencies English Web
Treebank with every noun, verb, adjective and adverb in the forms of the paper's footnote 4
replaced by a random one-syllable pseudoword, inflected to the same form with the regular
rules of English. Heads, relations and tags are the gold ones, unchanged, so the trees can be
used to probe how much of a model's syntax survives without lexical semantics. Pseudowords
come from Wuggy (the ARC Nonword Database used in the paper is not redistributable) and are
checked against WordNet, the Wuggy lexicon and the EWT vocabulary. Each example is seeded from
(seed, sent_id).
"""

_LICENSE = "CC BY-SA 4.0 (UD English EWT); pseudowords generated with Wuggy (MIT)."

_EWT_VERSION = "r2.16"
_EWT_URL = "https://raw.githubusercontent.com/UniversalDependencies/UD_English-EWT/" + _EWT_VERSION
_SPLIT_FILES = {"train": "train", "validation": "dev", "test": "test"}

#: The seventeen UPOS tags of Universal Dependencies v2.
UPOS_TAGS = ["ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
             "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"]
#: The pseudoword inventory is fixed for a given lexicon; the build seed only picks words.
LEXICON_SEED = 0
MIN_PSEUDOWORDS = 1500
_CHUNK = 512


class JabberwockyConfig(RobustBenchConfig):
    """Config of the Jabberwocky builder; see :class:`RobustBenchConfig`."""


@register_builder
class JabberwockyEWT(RobustBenchBuilder):
    """Builder for ``jabberwocky_ewt`` (train, validation, test)."""

    VERSION = datasets.Version("1.0.0")
    FAMILY = "jabberwocky"

    @classmethod
    def card_refusals(cls, statistics: dict[str, Any]) -> dict[str, int]:
        """Open-class words left as they are, by why (``open_class_not_substituted``), summed over the splits."""
        out: dict[str, int] = {}
        for stats in statistics.values():
            for reason, n in (stats.get("open_class_not_substituted") or {}).items():
                out[reason] = out.get(reason, 0) + int(n)
        return out
    CITATION = _CITATION
    DESCRIPTION = _DESCRIPTION
    LICENSE = _LICENSE
    SOURCE = SourceInfo(
        name="UD English EWT", version=_EWT_VERSION, license="CC BY-SA 4.0",
        url="https://github.com/UniversalDependencies/UD_English-EWT",
    )
    BUILDER_CONFIG_CLASS = JabberwockyConfig
    BUILDER_CONFIGS = [
        JabberwockyConfig(name="jabberwocky_ewt", version=VERSION, description=_DESCRIPTION,
                          splits=("train", "validation", "test")),
    ]
    DEFAULT_CONFIG_NAME = "jabberwocky_ewt"

    SOURCE_FILES = {
        **{split: SourceFile(local=f"ud_english_ewt/en_ewt-ud-{name}.conllu",
                             url=f"{_EWT_URL}/en_ewt-ud-{name}.conllu")
           for split, name in _SPLIT_FILES.items()},
        "wuggy": SourceFile(local="wuggy/orthographic_english.txt", url=WUGGY_ENGLISH_URL),
    }

    def _info(self) -> datasets.DatasetInfo:
        edit = {"type": datasets.Value("string"), "position": datasets.Value("int32"),
                "original": datasets.Value("string"), "replacement": datasets.Value("string")}
        features = datasets.Features({
            "id": datasets.Value("string"),
            "sent_id": datasets.Value("string"),
            "tokens": datasets.List(datasets.Value("string")),
            "original_tokens": datasets.List(datasets.Value("string")),
            "upos": datasets.List(datasets.ClassLabel(names=UPOS_TAGS)),
            "xpos": datasets.List(datasets.Value("string")),
            "feats": datasets.List(datasets.Value("string")),
            "head": datasets.List(datasets.Value("int32")),
            "deprel": datasets.List(datasets.Value("string")),
            "substituted": datasets.List(datasets.Value("bool")),
            "edits": datasets.List(edit),
        })
        return datasets.DatasetInfo(description=_DESCRIPTION, features=features, citation=_CITATION,
                                    license=_LICENSE, homepage=self.SOURCE.url)

    def read_treebank(self, dl_manager=None) -> tuple[dict[str, list[Sentence]], dict[str, str]]:
        """Resolve and read the three EWT splits; also returns all resolved source paths.

        Raises
        ------
        ConlluError
            On malformed CoNLL-U or a UPOS tag outside UD's seventeen.
        SourceNotFoundError
            See :func:`robust_bench.io.sources.resolve_sources`.
        """
        paths, origin = resolve_sources(self.SOURCE_FILES, source_dir=self.config.source_dir,
                                        dl_manager=dl_manager)
        self.provenance["source_origin"] = origin
        known = set(UPOS_TAGS)
        treebank = {}
        for split in _SPLIT_FILES:
            sents = read_conllu(paths[split])
            for s in sents:
                for i, u in enumerate(s.upos):
                    if u not in known:
                        raise ConlluError(paths[split], s.word_lines[i], "UPOS",
                                          f"unknown UPOS tag {u!r} (word {i + 1} of sentence {s.sent_id})")
            treebank[split] = sents
        return treebank, paths

    def _split_generators(self, dl_manager):
        treebank, paths = self.read_treebank(dl_manager)
        vocab = set()
        for sents in treebank.values():
            for s in sents:
                vocab.update(w.lower() for w in s.forms)
                vocab.update(w.lower() for w in s.lemmas)
        pseudowords = pseudoword_inventory(paths["wuggy"], vocab, seed=LEXICON_SEED, progress=True)
        if len(pseudowords) < MIN_PSEUDOWORDS:
            raise PseudowordError(f"only {len(pseudowords)} pseudowords could be generated from "
                                  f"{paths['wuggy']}; at least {MIN_PSEUDOWORDS} are needed")
        self.provenance.update({
            "source_sha256": {k: sha256_file(p) for k, p in paths.items()},
            "source_files": {k: self.SOURCE_FILES[k].url for k in paths},
            "pseudowords": {"generator": "wuggy", "inventory_size": len(pseudowords),
                            "lexicon_seed": LEXICON_SEED, "examples": sorted(pseudowords)[:: max(1, len(pseudowords) // 20)]},
        })
        # the engine's own reasons for every open-class word it keeps, counted for the card
        self.provenance["open_class_not_substituted"] = {
            split: dict(sorted(Counter(r for s in self.first(treebank[split]) for r in skip_reasons(s).values()).items()))
            for split in self.config.splits}
        gens = []
        for split in self.config.splits:
            sents = list(enumerate(self.first(treebank[split])))
            chunks = [sents[i:i + _CHUNK] for i in range(0, len(sents), _CHUNK)]
            gens.append(datasets.SplitGenerator(name=split, gen_kwargs={
                "chunks": chunks, "pseudowords": tuple(pseudowords), "split": split}))
        return gens

    def _generate_examples(self, chunks, pseudowords, split):
        for chunk in chunks:
            for index, sent in chunk:
                res = jabberwockify(sent, pseudowords, sentence_rng(self.config.seed, sent.sent_id))
                key = f"{split}-{index:05d}"
                yield key, {
                    "id": key,
                    "sent_id": sent.sent_id,
                    "tokens": list(res.tokens),
                    "original_tokens": list(sent.forms),
                    "upos": list(sent.upos),
                    "xpos": list(sent.xpos),
                    "feats": list(sent.feats),
                    "head": list(sent.heads),
                    "deprel": list(sent.deprels),
                    "substituted": list(res.substituted),
                    "edits": [dict(e) for e in res.edits],
                }

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Sentences, words and the substituted share per class, recounted from the rows."""
        names = dataset[next(iter(dataset))].features["upos"].feature.names
        out: dict[str, Any] = {}
        for split, ds in dataset.items():
            per_class = {c: {"tokens": 0, "substituted": 0} for c in OPEN_CLASSES}
            n_tokens = n_sub = 0
            for row in ds.select_columns(["tokens", "upos", "substituted"]):
                n_tokens += len(row["tokens"])
                for tag_id, flag in zip(row["upos"], row["substituted"]):
                    upos = names[tag_id]
                    n_sub += flag
                    if upos not in per_class:
                        continue
                    per_class[upos]["tokens"] += 1
                    per_class[upos]["substituted"] += flag
            for c in per_class.values():
                c["share"] = round(c["substituted"] / c["tokens"], 4) if c["tokens"] else 0.0
            out[split] = {
                "sentences": len(ds),
                "tokens": n_tokens,
                "substituted_tokens": n_sub,
                "substituted_share": round(n_sub / n_tokens, 4) if n_tokens else 0.0,
                "per_class": per_class,
                "open_class_not_substituted": self.provenance["open_class_not_substituted"][split],
            }
        return out

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        lines = ["| split | sentences | words | substituted | share | NOUN | VERB | ADJ | ADV |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for split, s in stats.items():
            pc = s["per_class"]
            lines.append(f"| {split} | {s['sentences']:,} | {s['tokens']:,} | {s['substituted_tokens']:,} | "
                         f"{s['substituted_share']:.1%} | " + " | ".join(f"{pc[c]['share']:.1%}" for c in OPEN_CLASSES) + " |")
        lines.append("")
        lines.append("Open-class words that were kept, and why: "
                     + "; ".join(f"{split}: " + ", ".join(f"{k} {v:,}" for k, v in s["open_class_not_substituted"].items())
                                 for split, s in stats.items()) + ".")
        lines.append(f"'{SKIP_FEATURES}' covers past tenses, past participles, gerunds, imperatives, "
                     "typos, abbreviations, ordinals and words with ExtPos; footnote 4 of the paper "
                     "replaces only the listed forms. Multiword-token parts keep their surface form.")
        return "\n".join(lines)
