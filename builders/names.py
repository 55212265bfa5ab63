"""Named-entity swaps (Balasubramanian et al., 2020): ``names_mrpc``, ``names_conll2003`` and
``names_coref``.

Every example (an MRPC pair, a CoNLL-2003 sentence, a coreference document) with an entity of
the config's type becomes a group of rows: variant 0 is the original, variants 1..B are
consistent same-type swaps (:mod:`robust_bench.perturb.names`), each seeded from (seed, config,
split, group, variant). The ``random`` split holds 10 full random-replacement copies (the
paper's Table 5 "Random Replacement"), drawn from another seed stream. Every swapped row records
its edits: entity id, type, role, original, replacement, and the spans before and after (token
offsets; character offsets for ``names_mrpc``, whose rows are text).
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import datasets

from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.citations import BALASUBRAMANIAN_2020
from robust_bench.data.registry import register_builder
from robust_bench.io.sources import SourceFile, SourceNotFoundError, describe_read, resolve_sources, sha256_file
from robust_bench.io.task_data import CONLL2003_TAGS, MRPC_LABELS, read_conll2003, read_mrpc
from robust_bench.perturb.checks import indefinite_article
from robust_bench.perturb.names import (INSTITUTION_KINDS, MIN_INDUSTRY_POOL, MIN_ORGANISATION_POOL, Mention,
                                        NameLexicon, apply_swaps, harvest_organisations, is_institution,
                                        is_sports_headline, mentions_from_tags, name_word_roles, nickname_pairs,
                                        organisation_core, organisation_kind, person_name_tokens, plan_swaps,
                                        realign_tags)
from robust_bench.perturb.organisations import (COMPANY, SECTORS, company_key, group_from_words, industry_cues,
                                                read_fortune500, read_traded_companies, sector_from_words,
                                                transport_group)
from robust_bench.text.names import HONORIFIC_GENDER, PARTICLES
from robust_bench.text.nlp import ner_model_name

_CITATION = BALASUBRAMANIAN_2020

_DESCRIPTION = """\
Named-entity swaps ("What's in a Name?", Balasubramanian et al., 2020): every mention of a name
is replaced by another name of the same type, consistently in the whole example or document
(full names, first names alone, last names alone and possessives; first names by first names of
the same gender, last names by last names), never by a name already present and never two
entities by one name. Each group holds the original (variant 0) and B swapped variants; a robust
model answers the same for all of them. Scores: the original set, D_worst and D_best (per group
the variant with the lowest and the highest score, Algorithm 1), the mean and standard deviation
over the 10 copies of the `random` split, and stability (the share of groups whose prediction is
the same for the original and every variant). Every row records its edits (entity, type, role,
original, replacement, original and new offsets, and `train_count`, how often the replacement
occurs in the task's training data, -1 where the task has none: the x-axis of the paper's Fig. 1),
and how many mentions of the type it holds (`mentions`) and replaced (`mentions_swapped`).
"""

_LICENSE = "Same as the source corpus (see the source line); name lists from CheckList (MIT)."

_CHECKLIST = "https://raw.githubusercontent.com/marcotcr/checklist/master/checklist/data"
_NAMES = SourceFile("names/checklist_names.json", f"{_CHECKLIST}/names.json")
_LEXICON = SourceFile("names/checklist_lexicon_basic.json", f"{_CHECKLIST}/lexicons/basic.json")
#: Fortune's 2015 list (rank, company, industry) as a TSV. Fortune publishes it as a web page, not a
#: file: a download reads HTML and is refused with the header named; put the TSV in the source mirror.
_FORTUNE = SourceFile("names/fortune500_2015.tsv", "https://fortune.com/fortune500/2015/")
_CONLL_HUB = "https://huggingface.co/datasets/eriktks/conll2003/resolve/refs%2Fconvert%2Fparquet/conll2003"
_CONLL_TRAIN = SourceFile("conll2003/train.txt", f"{_CONLL_HUB}/train/0000.parquet")
_MSR = "https://dl.fbaipublicfiles.com/senteval/senteval_data"
_LITBANK = "https://github.com/dbamman/litbank/archive/refs/heads/master.zip"
_VERSION = datasets.Version("2.2.0")
_RANDOM_COPIES = 10
#: An institution tagged in MRPC train joins the pool of its kind from this many mentions (a single
#: mention may be a tagging accident).
_MRPC_MIN_INSTITUTION_COUNT = 2


@dataclass
class NamesConfig(RobustBenchConfig):
    """Config of a named-entity swap corpus.

    Attributes
    ----------
    task : str
        ``mrpc``, ``conll2003`` or ``coref``.
    types : tuple of str
        Entity types swapped (``ORG`` for MRPC, ``PER`` otherwise).
    budget : int
        B, the swapped variants per group (default 50, as in the paper).
    files : dict
        Split name to :class:`SourceFile` (not used by ``coref``, which reads a folder).
    train : SourceFile or None
        The task's training data, for ``exclude_seen``.
    coref_path : str or None
        ``coref``: a CoNLL-2012 file or folder (OntoNotes ``*_gold_conll`` under licence); default
        LitBank (``litbank/coref`` in the source mirror, else downloaded).
    names : str or None
        A user name list (``--names FILE``; see :meth:`NameLexicon.load`), for example the Fortune 500.
    exclude_seen : bool
        Leave out replacement names that occur in the task's training data.
    min_org_count : int
        Organisations harvested from CoNLL-2003 train must occur this often.
    spacy_model : str or None
        NER pipeline for corpora without gold entity types (MRPC; a coreference corpus without an entity
        layer); default ``$ROBUST_BENCH_NER_MODEL``, else ``en_core_web_sm``
        (:func:`robust_bench.text.nlp.ner_model_name`).
    """

    task: str = ""
    types: tuple = ("PER",)
    budget: int = 50
    files: dict | None = None
    train: SourceFile | None = None
    coref_path: str | None = None
    names: str | None = None
    exclude_seen: bool = False
    min_org_count: int = 3
    spacy_model: str | None = None


_TASKS = {
    "names_mrpc": dict(task="mrpc", types=("ORG",), splits=("test", "validation", "random"),
                       source_info=SourceInfo("Microsoft Research Paraphrase Corpus", "MSR 2005",
                                              "Microsoft Shared Source",
                                              "https://www.microsoft.com/en-us/download/details.aspx?id=52398"),
                       files={"test": SourceFile("glue/mrpc/msr_paraphrase_test.txt", f"{_MSR}/msr_paraphrase_test.txt"),
                              "validation": SourceFile("glue/mrpc/dev.tsv", "https://huggingface.co/datasets/nyu-mll/glue/"
                                                       "resolve/main/mrpc/validation-00000-of-00001.parquet")},
                       train=SourceFile(("glue/mrpc/msr_paraphrase_train.txt", "glue/mrpc/train.tsv"),
                                        f"{_MSR}/msr_paraphrase_train.txt")),
    "names_conll2003": dict(task="conll2003", types=("PER",), splits=("test", "random"),
                            source_info=SourceInfo("CoNLL-2003 English NER", "2003", "research use (Reuters)",
                                                   "https://www.clips.uantwerpen.be/conll2003/ner/"),
                            files={"test": SourceFile("conll2003/test.txt", f"{_CONLL_HUB}/test/0000.parquet")},
                            train=_CONLL_TRAIN),
    "names_coref": dict(task="coref", types=("PER",), splits=("test", "random"),
                        source_info=SourceInfo("LitBank coreference (or OntoNotes CoNLL-2012 with coref_path)", "2020",
                                               "CC BY 4.0 (LitBank)", "https://github.com/dbamman/litbank"),
                        files={}),
}


def _edit_feature():
    i = datasets.Value("int32")
    s = datasets.Value("string")
    return datasets.List({"entity": s, "type": s, "role": s, "original": s, "replacement": s, "segment": s,
                          "start": i, "end": i, "new_start": i, "new_end": i, "train_count": i})


@register_builder
class NameSwaps(RobustBenchBuilder):
    """Builder for the ``names_*`` configs."""

    VERSION = _VERSION
    FAMILY = "named_entity_swaps"
    CITATION = _CITATION
    DESCRIPTION = _DESCRIPTION
    LICENSE = _LICENSE
    SOURCE = _TASKS["names_mrpc"]["source_info"]
    BUILDER_CONFIG_CLASS = NamesConfig
    BUILDER_CONFIGS = [NamesConfig(name=name, version=_VERSION, description=_DESCRIPTION, **spec)
                       for name, spec in _TASKS.items()]

    def _info(self) -> datasets.DatasetInfo:
        cfg = self.config
        s, i = datasets.Value("string"), datasets.Value("int32")
        common = {"id": s, "group_id": s, "variant": i, "edits": _edit_feature(), "n_swapped": i, "mentions": i,
                  "mentions_swapped": i, "refusals": datasets.List({"reason": s, "count": i})}
        if cfg.task == "mrpc":
            feats = {"idx": i, "sentence1": s, "sentence2": s, "label": datasets.ClassLabel(names=list(MRPC_LABELS)),
                     "original_sentence1": s, "original_sentence2": s, **common}
        elif cfg.task == "conll2003":
            tag = datasets.ClassLabel(names=list(CONLL2003_TAGS))
            feats = {"idx": i, "document": i, "tokens": datasets.List(s), "ner_tags": datasets.List(tag),
                     "original_tokens": datasets.List(s), "original_ner_tags": datasets.List(tag), **common}
        else:
            span = datasets.List(i)
            feats = {"document": s, "tokens": datasets.List(s), "sentence_starts": datasets.List(i),
                     "clusters": datasets.List(datasets.List(span)), "swapped_clusters": datasets.List(i),
                     "genders": datasets.List(s), **common}
        return datasets.DatasetInfo(description=_DESCRIPTION, features=datasets.Features(feats), citation=_CITATION,
                                    license=self.source_info.license, homepage=self.source_info.url)

    def output_splits(self) -> tuple[str, ...]:
        return tuple(self.config.splits)

    # ---- sources -------------------------------------------------------------------------------
    def _lexicon(self, dl_manager) -> NameLexicon:
        cfg = self.config
        paths, origin = resolve_sources({"names": _NAMES, "lexicon": _LEXICON, "conll_train": _CONLL_TRAIN},
                                        source_dir=cfg.source_dir, dl_manager=dl_manager)
        train = read_conll2003(paths["conll_train"])
        headlines: dict = {}
        for r in train:
            headlines.setdefault(r["document"], r["tokens"])
        sports = {d for d, h in headlines.items() if is_sports_headline(h)}
        orgs = harvest_organisations(((r["tokens"], [CONLL2003_TAGS[t] for t in r["ner_tags"]]) for r in train
                                      if r["document"] not in sports), min_count=cfg.min_org_count)
        institutions = [o for o in orgs if is_institution(organisation_kind(o))]
        # companies the Reuters corpus writes with a corporate suffix: evidence that a mention is a company
        self._known_companies = {company_key(o) for o in orgs if not is_institution(organisation_kind(o))}
        self._article_use = {}
        if "ORG" in cfg.types and cfg.task == "mrpc" and cfg.train is not None:
            institutions += [o for o in self._mrpc_institutions(dl_manager) if o not in set(institutions)]
            lower = Counter(w for t in self._article_texts for w in t.split() if w.islower())
            institutions = [o for o in institutions if " " in o or lower[o.lower()] < 3]   # "Reserve", "Government"
            # how the news writes each institution: "the FBI", "NASA"
            self._article_use = article_use(institutions, self._article_texts + [
                " ".join(r["tokens"]) for r in train if r["document"] not in sports])
            self._article_texts = None
        self.provenance["organisations_harvested"] = {"institutions": len(institutions),
                                                      "companies (evidence only)": len(self._known_companies),
                                                      "documents": len(headlines) - len(sports),
                                                      "sports_documents_left_out": len(sports)}
        companies = []
        sources = {"names": _NAMES, "lexicon": _LEXICON, "conll_train": _CONLL_TRAIN}
        if "ORG" in cfg.types:
            fortune, fortune_origin = resolve_sources({"fortune500": _FORTUNE}, source_dir=cfg.source_dir,
                                                      dl_manager=dl_manager)
            companies = read_fortune500(fortune["fortune500"])
            paths, sources = {**paths, **fortune}, {**sources, "fortune500": _FORTUNE}
        traded = read_traded_companies() if "ORG" in cfg.types else []
        lex = NameLexicon.load(paths["names"], paths["lexicon"], organisations=institutions, companies=companies,
                               extra=cfg.names, traded=traded)
        self.provenance["name_lists"] = {k: describe_read(p, origin=origin, url=sources[k].url, rows=0)
                                         for k, p in paths.items()}
        if traded:
            self.provenance["name_lists"]["traded_companies"] = {
                "source": f"pytickersymbols {_version('pytickersymbols')} (stock-index members, recognition only)",
                "rows": len(traded)}
        if cfg.exclude_seen:
            lex = lex.without(self._seen_words(dl_manager))
        self.provenance["lexicon_sizes"] = lex.sizes()
        self._lexicon_obj = lex             # for the card's automatic checks
        self.provenance["user_names"] = cfg.names
        self.provenance["exclude_seen"] = cfg.exclude_seen
        return lex

    def _mrpc_institutions(self, dl_manager) -> list[str]:
        """Institutions named in MRPC (train, test and validation), by the NER pipeline, seen at least twice
        (:data:`_MRPC_MIN_INSTITUTION_COUNT`): the agencies, courts, legislatures and universities of the corpus's own news (the
        Reuters harvest holds few of them). A name counts when its words mark an institution kind
        (:func:`organisation_kind`) and it is made of capitalised words (and "of", "and", "for", "&")
        with no digit and no stock-index word; one word the corpus writes in lower case ("Journal",
        "Government") does not count; the most frequent first."""
        from robust_bench.perturb.names import organisation_core
        from robust_bench.text.nlp import load_spacy, pipe_cached

        cfg = self.config
        paths, _ = resolve_sources({"train": cfg.train, **(cfg.files or {})}, source_dir=cfg.source_dir,
                                   dl_manager=dl_manager)
        texts = [t for p in paths.values() for r in read_mrpc(p) for t in (r["sentence1"], r["sentence2"])]
        nlp = load_spacy(ner_model_name(cfg.spacy_model), require=("ner",))
        counts: Counter = Counter()
        lower = Counter(w for t in texts for w in t.split() if w.islower())
        docs = pipe_cached(nlp, texts)         # the whole corpus: annotated once, then read from the cache
        self._known_companies |= _business_companies(docs)
        self._train_docs = docs               # for the industries of companies no list knows
        for doc in docs:
            for e in doc.ents:
                if e.label_ != "ORG":
                    continue
                core = organisation_core([t.text for t in e])
                name = " ".join(core)
                if (core and len(name) > 2 and is_institution(organisation_kind(name))
                        and all((w[:1].isupper() and not any(c.isdigit() for c in w))
                                or w in ("of", "and", "for", "&") for w in core)
                        and not any(w.lower() in _INDEX_WORDS for w in core)
                        and not (len(core) == 1 and lower[name.lower()] >= 3)):   # "Journal", "Government"
                    counts[name] += 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        self._article_texts = texts
        return [n for n, c in ranked if c >= _MRPC_MIN_INSTITUTION_COUNT]

    def _train_sentences(self, dl_manager) -> list[list[str]] | None:
        """The task's training sentences as word lists (None for a task without training data)."""
        cfg = self.config
        if cfg.task == "coref" or cfg.train is None:
            return None
        if getattr(self, "_train_cache", None) is None:      # read once (the lexicon and the counts use it)
            paths, _ = resolve_sources({"train": cfg.train}, source_dir=cfg.source_dir, dl_manager=dl_manager)
            if cfg.task == "mrpc":
                self._train_cache = [[w.strip(".,;:'\"()") for w in s.split()] for r in read_mrpc(paths["train"])
                                     for s in (r["sentence1"], r["sentence2"])]
            else:
                self._train_cache = [list(r["tokens"]) for r in read_conll2003(paths["train"])]
        return self._train_cache

    def _seen_words(self, dl_manager) -> set[str]:
        sents = self._train_sentences(dl_manager)
        if sents is None:
            raise ValueError(f"{self.config.name}: exclude_seen needs the task's training data, which "
                             f"{self.config.name} does not name")
        return {w for s in sents for w in s}

    def _train_count(self, name: str) -> int:
        """How often ``name`` (a token sequence, case-insensitive) occurs in the task's training data
        (-1 without training data): the x-axis of the paper's Fig. 1."""
        if self._train_ngrams is None:
            return -1
        words = name.lower().split()
        if len(words) > 1 and words[0] == "the":
            words = words[1:]                       # "the Senate" is counted as "Senate"
        return self._train_ngrams.get(tuple(words), 0)

    def _coref_files(self, dl_manager) -> tuple[list[Path], str]:
        cfg = self.config
        if cfg.coref_path:
            p = Path(cfg.coref_path)
            if not p.exists():
                raise SourceNotFoundError(f"coref_path {p} does not exist")
            return ([p] if p.is_file() else sorted(x for x in p.rglob("*conll") if x.is_file())), f"local:{p}"
        import os

        from robust_bench.io.sources import SOURCES_ENV

        for root in (cfg.source_dir, os.environ.get(SOURCES_ENV)):
            if root and (Path(root) / "litbank/coref").is_dir():
                d = Path(root) / "litbank/coref"
                return sorted(d.glob("*.conll")), f"local:{Path(root).resolve()}"
        if cfg.source_dir is not None or dl_manager is None:
            raise SourceNotFoundError(f"no litbank/coref folder under {cfg.source_dir or os.environ.get(SOURCES_ENV)}")
        extracted = Path(dl_manager.download_and_extract(_LITBANK))
        return sorted(extracted.rglob("coref/conll/*.conll")), "download"

    def _split_generators(self, dl_manager):
        cfg = self.config
        if cfg.budget < 1:
            raise ValueError(f"budget must be at least 1 variant per group, got {cfg.budget}")
        lexicon = self._lexicon(dl_manager)
        sents = self._train_sentences(dl_manager)
        self._lowercase_words = set() if sents is None else {w for s in sents for w in s if w.islower()}
        if cfg.task == "mrpc" and sents is not None:
            self._known_companies |= _suffixed_companies(sents)
        self._train_ngrams = None if sents is None else Counter(
            tuple(w.lower() for w in s[i:i + n]) for s in sents for n in range(1, 5) for i in range(len(s) - n + 1))
        self._train_cache = None            # the examples' workers need the counts, not the sentences
        self.provenance.update({"budget": cfg.budget, "random_copies": _RANDOM_COPIES, "types": list(cfg.types),
                                "spacy_model": _spacy_name(cfg.spacy_model) if cfg.task != "conll2003" else None})
        if cfg.task == "coref":
            from robust_bench.io.conll2012 import read_conll2012

            files, origin = self._coref_files(dl_manager)
            if not files:
                raise SourceNotFoundError("no CoNLL-2012 files found for names_coref")
            docs, layers = [], []
            for f in files:
                file_docs = read_conll2012(f)
                layer = _gold_person_names(f, file_docs)
                if layer is not None:
                    layers.append(layer)
                docs += file_docs
            if layers and len(layers) != len(files):
                raise SourceNotFoundError(f"the gold entity layer covers {len(layers)} of {len(files)} coreference "
                                          "files; person names must come from one source for the whole corpus")
            self.provenance["source_origin"] = origin
            self.provenance["person_names"] = ("LitBank gold entity layer (PER, proper names)" if layers else
                                               "gold OntoNotes entities" if any(d.entities for d in docs) else
                                               f"NER of {_spacy_name(cfg.spacy_model)}")
            self.provenance["source_read"] = {"test": {"file": f"{len(files)} CoNLL-2012 files", "rows": len(docs),
                                                       "sha256": _hash_files(files + layers), "sample": False}}
            examples = {"test": list(self.first(docs))}
        else:
            files = {s: cfg.files[s] for s in cfg.splits if s in cfg.files}
            paths, origin = resolve_sources(files, source_dir=cfg.source_dir, dl_manager=dl_manager)
            reader = read_mrpc if cfg.task == "mrpc" else read_conll2003
            examples = {s: list(self.first(reader(p))) for s, p in paths.items()}
            self.provenance["source_origin"] = origin
            self.provenance["source_read"] = {s: describe_read(paths[s], origin=origin, url=files[s].url,
                                                               rows=len(examples[s])) for s in paths}
            self.provenance["source_sha256"] = {s: sha256_file(p) for s, p in paths.items()}
            if cfg.task == "mrpc":
                # a name the corpus writes with a corporate suffix anywhere ("PeopleSoft Inc.") is a company
                self._known_companies |= _suffixed_companies(
                    [w.strip(".,;:'\"()") for w in t.split()] for rows in examples.values() for r in rows
                    for t in (r["sentence1"], r["sentence2"]))
                examples = self._mrpc_pairs(examples, lexicon)
        if "PER" in cfg.types:
            # first-name gender and name roles from names-dataset, looked up once here for the pools and
            # every capitalised word of the corpus, so that the workers get a small table
            from robust_bench.text.names import name_facts

            words = {w for rows in examples.values() for r in rows
                     for w in (r.tokens if hasattr(r, "tokens") else r["tokens"]) if w[:1].isupper()}
            lexicon.add_facts(name_facts(words | lexicon.fact_words()))
            self.provenance["name_facts"] = {"source": f"names-dataset {_version('names-dataset')}",
                                             "names": len(lexicon.facts),
                                             "pools": {k: len(lexicon.pool(k)) for k in ("male", "female", "unisex")}}
        if cfg.task == "coref":
            examples = {"test": self._coref_targets(examples["test"], lexicon)}
        if cfg.task == "conll2003":
            # whole documents: a name's mentions are swapped consistently across its document, so the
            # shards of a parallel build (num_proc) are cut between documents, never inside one
            examples = {s: [list(d) for _, d in itertools.groupby(rows, key=lambda r: r["document"])]
                        for s, rows in examples.items()}
        gens = []
        for split in cfg.splits:
            src = "test" if split == "random" else split
            gens.append(datasets.SplitGenerator(name=split, gen_kwargs={"examples": examples[src], "split": split,
                                                                        "lexicon": lexicon}))
        return gens

    # ---- generation ----------------------------------------------------------------------------
    def _variants(self, split: str) -> list[int]:
        return list(range(1, _RANDOM_COPIES + 1)) if split == "random" else list(range(0, self.config.budget + 1))

    def _rng(self, split: str, group: str, variant: int) -> random.Random:
        stream = "random" if split == "random" else "swap"
        return random.Random(f"robust-bench/{self.config.seed}/{self.config.name}/{stream}/{group}/{variant}")

    def _generate_examples(self, examples, split, lexicon):
        gen = {"mrpc": self._mrpc, "conll2003": self._conll, "coref": self._coref}[self.config.task]
        yield from gen(examples, split, lexicon)

    def _mrpc_pairs(self, examples: dict, lexicon) -> dict:
        """Tag every pair once (in the main process), keep the organisation mentions that pass
        :func:`_organisation_mentions`, and record coverage before and after, by reason, in the
        provenance. Returns split -> the pairs with an organisation in both sentences (the paper's
        filter), each with its tokens, mentions, the filter's refusals and what the article check needs."""
        from robust_bench.text.nlp import load_spacy, map_entity_label

        nlp = load_spacy(ner_model_name(self.config.spacy_model), require=("ner",))
        coverage = {}
        out = {}
        parsed = {split: list(nlp.pipe([t for r in rows for t in (r["sentence1"], r["sentence2"])], batch_size=256))
                  for split, rows in examples.items()}
        for docs in parsed.values():
            self._known_companies |= _business_companies(docs)
        every = list(getattr(self, "_train_docs", None) or []) + [d for docs in parsed.values() for d in docs]
        self._train_docs = None
        inferred = _industries_by_company(every, lexicon)
        self.provenance["industries_inferred"] = len(inferred)
        for split, rows in examples.items():
            docs = parsed[split]
            kept, tagged_pairs = [], 0
            refused: Counter = Counter()
            n_tagged = n_kept = 0
            for k, r in enumerate(rows):
                d1, d2 = docs[2 * k], docs[2 * k + 1]
                n1 = len(d1)
                tagged = [(off, e) for off, d in ((0, d1), (n1, d2)) for e in d.ents
                          if map_entity_label(e.label_) in self.config.types]
                if any(off == 0 for off, _ in tagged) and any(off == n1 for off, _ in tagged):
                    tagged_pairs += 1
                mentions, why, sides = _organisation_mentions(d1, d2, self.config.types, lexicon,
                                                              self._lowercase_words, self._known_companies, inferred)
                n_tagged += len(tagged)
                n_kept += len(mentions)
                refused.update(why)
                if sides != {0, 1} or not mentions:
                    continue            # the paper's filter: an organisation in both sentences; one swapped
                toks = [t.text for t in d1] + [t.text for t in d2]
                info = [(t.dep_, t.pos_, any(c.dep_ == "det" for c in t.children), t.head.i + off)
                        for off, d in ((0, d1), (n1, d2)) for t in d]
                kept.append({"row": r, "tokens": toks, "spaces": [t.whitespace_ for d in (d1, d2) for t in d],
                             "n1": n1, "mentions": mentions, "info": info})
            coverage[split] = {"pairs": len(rows), "pairs with a tagged organisation in both sentences": tagged_pairs,
                               "pairs kept": len(kept), "mentions tagged": n_tagged, "mentions kept": n_kept,
                               "mentions refused by reason": dict(sorted(refused.items(), key=lambda kv: -kv[1]))}
            out[split] = kept
        self.provenance["coverage"] = coverage
        return out

    def _mrpc(self, pairs, split, lexicon):
        for pair in pairs:
            r, toks, spaces, n1, mentions = pair["row"], pair["tokens"], pair["spaces"], pair["n1"], pair["mentions"]
            info = pair["info"]
            group = f"{split if split != 'random' else 'test'}-{r['idx']:05d}"
            orig_chars = _char_offsets(toks, spaces, n1)
            for v in self._variants(split):
                refusals = []
                if v == 0:
                    new, edits = toks, []
                    new_spaces = spaces
                else:
                    plan = plan_swaps(toks, mentions, lexicon, self._rng(split, group, v), types=self.config.types)
                    _fix_determiners(plan, toks, lambda i: _TokenInfo(*info[i]), {0, n1}, self._article_use)
                    refusals = _refusals(plan)
                    new, edits, smap = apply_swaps(toks, plan)
                    new_spaces = _spaces_after(spaces, smap, len(new))
                n1_new = n1 if v == 0 else smap.span(0, n1)[1] if n1 else 0
                s1 = _render(new[:n1_new], new_spaces[:n1_new])
                s2 = _render(new[n1_new:], new_spaces[n1_new:])
                new_chars = _char_offsets(new, new_spaces, n1_new)
                out_edits = [{**e.as_dict(), "segment": "sentence1" if e.start < n1 else "sentence2",
                              "train_count": self._train_count(e.replacement),
                              "start": orig_chars[e.start][0], "end": orig_chars[e.end - 1][1],
                              "new_start": new_chars[e.new_start][0] if e.new_end > e.new_start else 0,
                              "new_end": new_chars[e.new_end - 1][1] if e.new_end > e.new_start else 0}
                             for e in edits]
                yield f"{split}-{r['idx']:05d}-{v:03d}", {
                    "id": f"{split}-{r['idx']:05d}-{v:03d}", "idx": r["idx"], "sentence1": s1, "sentence2": s2, "label": r["label"],
                    "original_sentence1": r["sentence1"], "original_sentence2": r["sentence2"],
                    "group_id": group, "variant": v, "edits": out_edits, "n_swapped": len(out_edits),
                    "refusals": refusals, **_mention_counts(mentions, self.config.types, edits)}

    def _conll(self, documents, split, lexicon):
        for sents in documents:
            doc_id = sents[0]["document"]
            tokens = [w for r in sents for w in r["tokens"]]
            offsets, off = [], 0
            for r in sents:
                offsets.append(off)
                off += len(r["tokens"])
            mentions = []
            for r, o in zip(sents, offsets):
                tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
                for m in mentions_from_tags(tags):     # every type: the others are protected from the swap
                    mentions.append(Mention(o + m.start, o + m.end, m.type, f"{m.type}:{o + m.start}"))
            if not any(m.type in self.config.types for m in mentions):
                continue
            mentions = _link_person_mentions(tokens, [m for m in mentions if m.type == "PER"]) + \
                [m for m in mentions if m.type != "PER"]
            # a name that ends one sentence and goes on at the start of the next ("... , Desvonde" / "Botes
            # 69 ..."): a table's line break inside a name, so neither half is a whole name
            ends = {o + len(r["tokens"]) for r, o in zip(sents, offsets)}
            per = [m for m in mentions if m.type == "PER"]
            broken = {m.entity for m in per for n in per if m.end in ends and n.start == m.end}
            broken |= {n.entity for m in per for n in per if m.end in ends and n.start == m.end}
            refuse = dict.fromkeys(broken, "a name broken across two sentences")
            plans = {v: (plan_swaps(tokens, mentions, lexicon, self._rng(split, f"doc{doc_id}", v),
                                    types=self.config.types, gold=True, bare="last", refuse=refuse) if v else None)
                     for v in self._variants(split)}
            applied = {v: apply_swaps(tokens, p) if p else None for v, p in plans.items()}
            for r, o in zip(sents, offsets):
                tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
                if not any(o <= m.start < o + len(r["tokens"]) and m.type in self.config.types for m in mentions):
                    continue
                group = f"{'test' if split == 'random' else split}-{r['idx']:05d}"
                n = len(r["tokens"])
                for v, res in applied.items():
                    local_mentions = [m for m in mentions if o <= m.start < o + n]
                    if res is None:
                        new_toks, new_tags, edits = list(r["tokens"]), list(r["ner_tags"]), []
                        counts = _mention_counts(local_mentions, self.config.types, [])
                    else:
                        all_new, all_edits, smap = res
                        a, b = smap.span(o, o + n)
                        new_toks = all_new[a:b]
                        local = _LocalMap(smap, o, a)
                        new_tags = [CONLL2003_TAGS.index(t) for t in realign_tags(tags, local, b - a)]
                        edits = [{**e.as_dict(), "segment": "tokens", "start": e.start - o, "end": e.end - o,
                                  "train_count": self._train_count(e.replacement),
                                  "new_start": e.new_start - a, "new_end": e.new_end - a}
                                 for e in all_edits if o <= e.start < o + n]
                        counts = _mention_counts(local_mentions, self.config.types,
                                                 [e for e in all_edits if o <= e.start < o + n])
                    yield f"{split}-{r['idx']:05d}-{v:03d}", {
                        "id": f"{split}-{r['idx']:05d}-{v:03d}", "idx": r["idx"], "document": doc_id, "tokens": new_toks, "ner_tags": new_tags,
                        "original_tokens": list(r["tokens"]), "original_ner_tags": list(r["ner_tags"]),
                        "group_id": group, "variant": v, "edits": edits, "n_swapped": len(edits),
                        "refusals": _row_refusals(plans[v], o, o + n), **counts}

    def _coref_targets(self, docs, lexicon) -> list[dict]:
        """Choose, in every document, the one person whose name the variants change (the paper replaces
        "only mentions of a single name in the long document", §2.3): the person with the most name
        mentions among those that pass :func:`_target_refusal` and whose trial swap leaves none of their
        names whole. Records in the provenance the documents read, those with a named person, those
        swapped, the persons refused by reason and the documents left out by reason.

        Returns
        -------
        list of dict
            Per swapped document: ``doc``, ``mentions`` (every person's name spans, for the roles),
            ``hints`` (gender by entity from the cluster's pronouns) and ``target`` (the entity id).
        """
        from robust_bench.text.nlp import load_spacy
        from robust_bench.text.pseudowords import is_real_word_factory

        ner = self.provenance["person_names"].startswith("NER")
        nlp = load_spacy(ner_model_name(self.config.spacy_model), require=("ner",)) if ner else None
        real_word = is_real_word_factory()
        out, refused, left_out = [], Counter(), Counter()
        for d in docs:
            persons = _coref_persons(d, lexicon, nlp, real_word,
                                     gold_names=self.provenance["person_names"].startswith("LitBank"))
            if not persons:
                left_out["no named person"] += 1
                continue
            mentions = [m for p in persons for m in p["mentions"]]
            hints = {p["entity"]: p["gender"] for p in persons if p["gender"]}
            target = None
            roles = name_word_roles(d.tokens, [(m.start, m.end) for m in mentions], lexicon)
            for p in sorted(persons, key=lambda p: (-len(p["mentions"]), p["mentions"][0].start)):
                why = _target_refusal(d, p, roles, lexicon)
                if why is None and not _human(d, p):
                    # "Ysabel" (a dog of "The Call of the Wild"), "Mina" alone: nothing says a human is meant
                    why = "a name with no sign of a human (a title, a full name, a noun for a person)"
                if why is None:
                    trial = plan_swaps(d.tokens, mentions, lexicon, random.Random(0), types=("PER",),
                                       gender_hints=hints, entities=[p["entity"]])
                    mine = {(m.start, m.end) for m in p["mentions"]}
                    why = next((r for a, b, r in trial.refused if (a, b) in mine or any(
                        x <= a < y for x, y in mine)), None)
                if why is not None:
                    refused[why] += 1
                    continue
                target = p["entity"]
                break
            if target is None:
                left_out["every named person refused"] += 1
                continue
            out.append({"doc": d, "mentions": mentions, "hints": hints, "target": target})
        self.provenance["coref_coverage"] = {
            "documents": len(docs), "documents swapped": len(out),
            "documents left out by reason": dict(left_out.most_common()),
            "persons refused as the document's target, by reason": dict(refused.most_common())}
        return out

    def _coref(self, targets, split, lexicon):
        for t in targets:
            d, mentions, target = t["doc"], t["mentions"], t["target"]
            own = [m for m in mentions if m.entity == target]
            for v in self._variants(split):
                refusals = []
                if v == 0:
                    toks, clusters, eds, starts = list(d.tokens), d.clusters, [], list(d.sentence_starts)
                    swapped: list[int] = []
                    used: list[str] = []
                else:
                    plan = plan_swaps(d.tokens, mentions, lexicon, self._rng(split, d.key, v), types=("PER",),
                                      gender_hints=t["hints"], entities=[target])
                    refusals = _refusals(plan)
                    toks, eds, smap = apply_swaps(d.tokens, plan)
                    clusters = [[smap.span(a, b) for a, b in c] for c in d.clusters]
                    starts = [smap.token(s)[0] for s in d.sentence_starts]
                    # the gold clusters with a replaced name (the paper scores only those): the person's,
                    # and those of relatives whose surname changed with theirs
                    hit = {i for e in eds for i in range(e.start, e.end)}
                    swapped = [c for c, spans in enumerate(d.clusters)
                               if any(i in hit for a, b in spans for i in range(a, b))]
                    used = [plan.genders.get(f"c{c}", "") for c in swapped]
                yield f"{split}-{d.key}-{v:03d}", {
                    "id": f"{split}-{d.key}-{v:03d}", "document": d.key, "tokens": toks, "sentence_starts": starts,
                    "clusters": [[list(s) for s in c] for c in clusters], "swapped_clusters": swapped,
                    "genders": used, "group_id": d.key, "variant": v,
                    "edits": [{**e.as_dict(), "segment": "tokens", "train_count": -1} for e in eds],
                    "n_swapped": len(eds), "refusals": refusals, **_mention_counts(own, ("PER",), eds)}

    # ---- card ----------------------------------------------------------------------------------
    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Groups (examples with an entity of the type), variants, swapped mentions per variant,
        roles and the examples read, recounted from the rows."""
        out = {}
        read = self.provenance.get("source_read", {})
        # a coreference document's original is variant 0 of the test split (the random copies have none)
        originals = {r["group_id"]: r["tokens"] for ds in dataset.values() if "sentence_starts" in ds.column_names
                     for r in ds.select_columns(["group_id", "variant", "tokens"]) if r["variant"] == 0}
        for split, ds in dataset.items():
            cols = ds.select_columns(["group_id", "variant", "n_swapped", "edits", "mentions", "mentions_swapped",
                                     "refusals"])
            checks = self._automatic_checks(ds, originals)
            groups = set(cols["group_id"])
            roles: Counter = Counter()
            refused: Counter = Counter()
            unswapped = 0
            swapped_rows = 0
            mentions = hit = 0
            for r in cols:
                if r["variant"] == 0:
                    continue
                swapped_rows += 1
                unswapped += r["n_swapped"] == 0
                roles.update(e["role"] for e in r["edits"])
                refused.update({x["reason"]: x["count"] for x in r["refusals"]})
                mentions += r["mentions"]
                hit += r["mentions_swapped"]
            src = "test" if split == "random" else split
            out[split] = {"examples": len(ds), "groups": len(groups), "variants": swapped_rows,
                          "source_examples": read.get(src, {}).get("rows"),
                          "variants_without_swap": unswapped,
                          "mentions_swapped_share": round(hit / mentions, 4) if mentions else 0.0,
                          "edits_per_variant": round(sum(roles.values()) / swapped_rows, 3) if swapped_rows else 0.0,
                          "edits_per_role": dict(sorted(roles.items())),
                          "refusals": dict(sorted(refused.items())), "checks": checks}
        out["_lexicon"] = self.provenance.get("lexicon_sizes", {})
        return out

    def _automatic_checks(self, ds, originals: dict[str, list[str]]) -> dict[str, int]:
        """The whole config's automatic checks (issue 29), recounted from the rows:

        * ``article_errors_gained``: swapped variants with more a/an errors than their original
          (:func:`robust_bench.perturb.checks.article_errors`, inflect);
        * ``cross_gender_swaps``: first-name edits between names whose genders are both known
          (:meth:`NameLexicon.gender_of`: male or female, not a name of either gender) and differ;
        * ``surnames_left``: swapped variants where a replaced surname (or its plural or possessive
          form) still occurs as a capitalised word beside its replacement (in CoNLL-2003, as a PER token);
        * ``organisation_names_left``: swapped variants where a distinctive word of a replaced
          organisation's name (capitalised, not "of", "&", a corporate word or a common English word such
          as "Stores") still occurs beside its replacement;
        * ``groups_never_swapped_unexplained``: groups none of whose variants swaps anything, with no
          refusal recorded.
        """
        from wordfreq import zipf_frequency

        from robust_bench.perturb.checks import article_errors

        lex = getattr(self, "_lexicon_obj", None)
        task = self.config.task
        text_cols = {"mrpc": ["sentence1", "sentence2", "original_sentence1", "original_sentence2"],
                     "conll2003": ["tokens", "original_tokens", "ner_tags"], "coref": ["tokens"]}[task]
        cols = ds.select_columns(["group_id", "variant", "edits", "refusals", "n_swapped"] + text_cols)
        words = re.compile(r"[\w'’.-]+|[^\w\s]")
        gained = cross = left = orgs_left = 0
        swapped_groups: set[str] = set()
        explained: set[str] = set()
        groups: set[str] = set()
        for r in cols:
            g = r["group_id"]
            groups.add(g)
            if r["refusals"]:
                explained.add(g)
            if r["variant"] == 0 or not r["edits"]:
                continue
            swapped_groups.add(g)
            if task == "mrpc":
                new = words.findall(r["sentence1"]) + ["."] + words.findall(r["sentence2"])
                old = words.findall(r["original_sentence1"]) + ["."] + words.findall(r["original_sentence2"])
            elif task == "conll2003":
                new, old = r["tokens"], r["original_tokens"]
            else:
                new, old = r["tokens"], originals.get(g, [])
            gained += len(article_errors(new)) > len(article_errors(old))
            surnames = set()
            for e in r["edits"]:
                if e["type"] == "PER" and e["role"] == "first" and lex is not None:
                    a, b = lex.gender_of(e["original"].title()), lex.gender_of(e["replacement"].title())
                    cross += {a, b} == {"male", "female"}
                if e["type"] == "PER" and e["role"] == "last" and e["original"] != e["replacement"]:
                    surnames.add(e["original"].split()[-1])        # "Van Tassel": Tassel
            # an organisation's own words left beside its replacement ("Kleiner Perkins" and "Disney
            # Perkins Caufield")
            orgs = {w for e in r["edits"] if e["type"] == "ORG" and e["role"] not in ("possessive", "article")
                    for w in e["original"].split() if w[:1].isupper() and w.lower() not in _NAME_GLUE
                    and zipf_frequency(w.lower(), "en") < 3.5}         # "Stores" is anyone's
            orgs -= {w for e in r["edits"] for w in e["replacement"].split()}
            orgs_left += bool(orgs & set(new))
            if surnames:
                replaced = {w for e in r["edits"] for w in e["replacement"].split()}
                forms = {f for s in surnames for f in (s, s + "s", s + "es", s + "'s", s + "’s")} - replaced
                if task == "conll2003":
                    tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
                    left += any(w in forms and t.endswith("PER") for w, t in zip(new, tags))
                else:
                    left += any(w in forms for w in new)
        never = groups - swapped_groups - explained
        return {"article_errors_gained": gained, "cross_gender_swaps": cross, "surnames_left": left,
                "organisation_names_left": orgs_left, "groups_never_swapped_unexplained": len(never)}

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        cfg = self.config
        unit = "examples (pairs)" if cfg.task == "mrpc" else "sentences" if cfg.task == "conll2003" else "documents"
        lines = [f"| split | {unit} read | with a {'/'.join(cfg.types)} entity (groups) | swapped variants | "
                 "mentions swapped | edits per variant | variants without a swap |", "|---|---:|---:|---:|---:|---:|---:|"]
        for split, s in stats.items():
            if split.startswith("_"):
                continue
            lines.append(f"| {split} | {s['source_examples'] or '-'} | {s['groups']:,} | {s['variants']:,} | "
                         f"{100 * s['mentions_swapped_share']:.1f}% | {s['edits_per_variant']} | "
                         f"{s['variants_without_swap']} |")
        lines.append("")
        lines.append(f"B = {cfg.budget} swapped variants per group (variant 0 is the original); the `random` split "
                     f"holds {_RANDOM_COPIES} random-replacement copies. Every mention of a swapped entity is "
                     "replaced; a variant without a swap is one where every mention was left unchanged (a name the "
                     "engine could not find inside the mention, or an exhausted list).")
        lex = stats.get("_lexicon", {})
        if lex:
            person = ("male", "female", "unisex", "last")
            shown = {k: v for k, v in lex.items() if v and (k in person) == ("PER" in cfg.types)}
            lines.append("Replacement names: " + ", ".join(f"{k} {v:,}" for k, v in shown.items()) + "."
                         + (" First names by gender from names-dataset (a first name is of known gender when at least "
                            "90% of its bearers are; a name of either gender takes one leaning the same way, a name "
                            "of unknown gender one from the `unisex` pool: NLTK's names of both genders whose "
                            "names-dataset share of women lies in [0.25, 0.75] and leans as the CheckList list holding "
                            "it does)." if "PER" in cfg.types else ""))
            if "ORG" in cfg.types:
                lines.append("Companies are replaced by Fortune 500 companies (2015 list) of the same industry group "
                             "(Fortune's industries grouped, and split by company where they mix kinds a reader tells "
                             "apart: `COMPANY_GROUP`, e.g. Jabil Circuit is no chipmaker, Walgreens no grocer); a "
                             "company of no known group is not swapped. Institutions are replaced by institutions of the "
                             "same kind (court, legislature, hospital, university, broadcaster, news agency or "
                             "newspaper, United States executive department), harvested from the ORG entities of "
                             "CoNLL-2003 train outside sports stories (seen at least "
                             f"{cfg.min_org_count} times) and WordNet. Other kinds (agencies, associations, exchanges, "
                             "international bodies) each have their own remit and are not swapped; a kind with fewer "
                             f"than {MIN_ORGANISATION_POOL} names is not swapped either: their mentions are refused and "
                             "counted below.")
            lines.append("\"Mentions swapped\" is the share of the type's mentions in the swapped variants that an "
                         "edit replaced.")
        roles = Counter()
        for split, s in stats.items():
            if not split.startswith("_"):
                roles.update(s["edits_per_role"])
        if roles:
            lines.append("Edits by role: " + ", ".join(f"{k} {v:,}" for k, v in sorted(roles.items())) + ".")
        refused = Counter()
        for split, s in stats.items():
            if not split.startswith("_"):
                refused.update(s.get("refusals", {}))
        if refused:
            lines.append("Mentions left unchanged, by reason (over all variants; refused at build time rather than "
                         "swapped wrongly): " + ", ".join(f"{k} {v:,}" for k, v in sorted(refused.items(),
                                                                                           key=lambda kv: -kv[1])) + ".")
        checks = Counter()
        for split, s in stats.items():
            if not split.startswith("_"):
                checks.update(s.get("checks", {}))
        if checks:
            lines.append("Automatic checks over the whole config (all splits, every swapped variant): "
                         f"variants that gain an a/an error (inflect) {checks['article_errors_gained']:,}; "
                         "first-name swaps between a man's and a woman's name (genders from names-dataset) "
                         f"{checks['cross_gender_swaps']:,}; variants where a replaced surname (or its plural or "
                         f"possessive) is left beside its replacement {checks['surnames_left']:,}; variants where "
                         "a word of a replaced organisation's name is left beside its replacement "
                         f"{checks['organisation_names_left']:,}; groups never swapped with no recorded reason "
                         f"{checks['groups_never_swapped_unexplained']:,}.")
        if cfg.task == "mrpc":
            lines.append(f"Mentions come from the NER of `{self.provenance.get('spacy_model')}` (OntoNotes labels "
                         "mapped: ORG). Two independent signals must agree that a span is an organisation of a known "
                         "kind: the tagger's ORG, and a word of the name marking an institution kind or evidence "
                         "that it is a company (the Fortune 500, a corporate suffix here or in the Reuters or MRPC "
                         "text, a sector word of its name). Spans that are something else are refused first: "
                         "people (an honorific, the name lists, the same words tagged PERSON in the pair), products "
                         "(digits), stock indices, tickers, places. A pair is kept when both sentences have an "
                         "organisation left (the paper's filter, 218 test pairs with its tagger); mentions of one "
                         "organisation (a shorter name, an acronym) are linked, and one mapping is shared by both "
                         "sentences. Edit offsets are characters.")
            cov = self.provenance.get("coverage") or {}
            if cov:
                lines += ["", "| split | pairs | with a tagged ORG in both sentences | kept | ORG mentions tagged | "
                          "kept |", "|---|---:|---:|---:|---:|---:|"]
                for split, c in cov.items():
                    lines.append(f"| {split} | {c['pairs']:,} | {c['pairs with a tagged organisation in both sentences']:,}"
                                 f" | {c['pairs kept']:,} | {c['mentions tagged']:,} | {c['mentions kept']:,} |")
                why = Counter()
                for c in cov.values():
                    why.update(c["mentions refused by reason"])
                lines += ["", "Tagged ORG mentions refused, by reason: " + ", ".join(
                    f"{k} {v:,}" for k, v in sorted(why.items(), key=lambda kv: -kv[1])) + "."]
        elif cfg.task == "conll2003":
            lines.append("Mentions come from the gold PER tags; every person of the document is swapped and the "
                         "mapping is shared by the whole document; tags are realigned when a name changes length. A name "
                         "word seen only alone is a surname (news style: \"Clinton said\") unless the name lists know it "
                         "as a first name only. Left whole (counted above): a name written family name first (\"Kim Do "
                         "Hoon\"), a word that is one person's first name and another's surname (\"Mushtaq Ahmad\", "
                         "\"Saqlain Mushtaq\"), a person whose initial cannot be replaced by an unused one, a place "
                         "name tagged as a person. Edit offsets are tokens.")
        else:
            cov = self.provenance.get("coref_coverage") or {}
            lines.append("As in the paper (§2.3: \"we replace only mentions of a single name in the long document\"), "
                         "each document's variants rename one person, everywhere in the document (relatives who share "
                         "the surname share the new one); the swapped clusters (`swapped_clusters`) are those with a "
                         "replaced mention, and coreference is scored on them. A cluster is a person when one of its "
                         "name mentions overlaps a gold PER name (LitBank's entity layer: proper names, not titles or "
                         "descriptions tagged PER such as \"the Lord Chancellor\"; OntoNotes entities; or else the NER "
                         "pipeline). The renamed person is the one with the most name mentions among those whose every "
                         "name word has evidence for its role (full names, the name lists, names-dataset, titles), "
                         "whose name names nothing else in the document, who is no animal and whose swap leaves no "
                         "name whole; gender from the cluster's pronouns, honorifics and names-dataset. Only variant 0 "
                         "holds the original tokens (edits give the rest): documents are long.")
            if cov:
                lines.append(f"Documents: {cov['documents']:,} read, {cov['documents swapped']:,} swapped; left out: "
                             + ", ".join(f"{k} {v:,}" for k, v in cov["documents left out by reason"].items())
                             + ". Persons passed over as a document's renamed person, by reason: "
                             + ", ".join(f"{k} {v:,}" for k, v in
                                         cov["persons refused as the document's target, by reason"].items()) + ".")
        return "\n".join(lines)


class _LocalMap:
    """A document :class:`SpanMap` seen from one sentence (original offset ``o``, new offset ``a``)."""

    def __init__(self, smap, o: int, a: int):
        self.smap, self.o, self.a = smap, o, a

    def span(self, start: int, end: int) -> tuple[int, int]:
        x, y = self.smap.span(self.o + start, self.o + end)
        return x - self.a, y - self.a


def _entity_key(text: str) -> str:
    from robust_bench.perturb.names import organisation_core

    return " ".join(organisation_core(text.split()))


def _needs_the(name: str, article_use: dict | None = None) -> bool | None:
    """Whether an organisation name takes "the" as a noun phrase. Companies do not ("Boeing", "IBM").
    An institution named with a head noun does ("the Alabama Supreme Court"), but a university or a
    school only when named "<head> of <place>" ("the University of Michigan", "Vanderbilt University");
    a hospital keeps the original's article ("taken to Kings County Hospital", "at the Boston Medical Center"). A one-word
    institution does as the corpus writes it: ``article_use`` maps a name to (times after "the",
    times seen) in the text its pool was harvested from, and "the" is needed when at least half of
    two or more occurrences have it ("the FBI", "the Pentagon"), dropped when at most a fifth do
    ("NASA", "Congress"), and otherwise the original's article stays. Without that
    evidence, an institution with a head noun does ("the Senate", "the Bank of Japan") and an
    acronym goes either way: ``None``, the original's article stays."""
    from robust_bench.perturb.names import is_institution, organisation_kind

    words = name.split()
    kind = organisation_kind(name)
    if not is_institution(kind):
        return False
    if kind == "hospital":
        return None                     # "taken to Kings County Hospital", "at the Boston Medical Center"
    if kind in ("broadcaster", "news agency or newspaper"):
        # as the news writes each ("the Associated Press", "The Washington Post"; "NBC", "Reuters", "Spike TV"),
        # else the original's article stays
        the, seen = (article_use or {}).get(name, (0, 0))
        return (the / seen >= 0.5) if seen >= 2 and (the / seen >= 0.5 or the / seen <= 0.2) else None
    if kind in ("university", "school or institute") and len(words) > 1:
        # "the University of Michigan", but "Vanderbilt University", "Boston College"
        return "of" in words[1:-1] or words[0].lower() in ("university", "college", "school", "institute")
    if len(words) > 1:
        return True                     # a head noun: "the Alabama Supreme Court", "the House of Representatives"
    the, seen = (article_use or {}).get(name, (0, 0))
    if seen >= 2:
        return True if the / seen >= 0.5 else False if the / seen <= 0.2 else None
    return None if words[0].isupper() else True


def article_use(names, texts) -> dict[str, tuple[int, int]]:
    """For each name, (occurrences after "the"/"The", occurrences) in ``texts`` (whole words,
    case-sensitive; up to two capitalised modifiers may stand between: "the U.S. Food and Drug
    Administration"): how the corpus writes it ("the FBI", "NASA")."""
    import re

    out = {}
    joined = "\n".join(texts)
    # "the FBI", and "the U.S. Food and Drug Administration": the article of a name under a modifier
    before = re.compile(r"\b[Tt]he (?:[A-Z][\w.&'-]* ){0,2}$")
    end = len(joined)

    def word(c: str) -> bool:
        return c.isalnum() or c == "_"

    for name in names:
        # whole words only (not after a word character or a full stop, not before a word character), and a
        # name before another capitalised word modifies it ("U.S. District Court Judge ..."): not counted.
        # str.find scans the text in C; the regular expression per name it replaces took minutes per build.
        hits, i = [], joined.find(name)
        while i >= 0:
            j = i + len(name)
            if (not (i and (word(joined[i - 1]) or joined[i - 1] == "."))
                    and not (j < end and word(joined[j]))
                    and not (j + 1 < end and joined[j] == " " and "A" <= joined[j + 1] <= "Z")):
                hits.append(i)
                i = joined.find(name, j)          # as re.finditer: the next match starts after this one
            else:
                i = joined.find(name, i + 1)
        the = sum(1 for i in hits if before.search(joined[max(0, i - 40):i]))
        out[name] = (the, len(hits))
    return out


def _fix_determiners(plan, tokens, token_of, sentence_starts: set[int], article_use: dict | None = None) -> None:
    """Keep the article right for the new organisation: "the NYSE" -> "Boeing" (not "the Boeing"),
    "Congress passed" -> "the Senate passed", "an SEC filing" -> "a Boeing filing". An article is added
    only to a name heading an argument right after a preposition, a verb or punctuation, never after
    a modifier ("the five-member FCC panel") or inside a name ("Agriculture and Forestry Ministry").
    Edits the plan's spans in place."""
    from robust_bench.perturb.names import ORGANISATION_KINDS

    for (a, b), (words, entity, typ, role) in sorted(plan.spans.items()):
        if typ != "ORG" or not (role in ORGANISATION_KINDS or role.startswith("industry:")) or not words:
            continue
        new = " ".join(words)
        prev = tokens[a - 1] if a > 0 and a not in sentence_starts else None
        free = a - 1 >= 0 and not any(x <= a - 1 < y for x, y in plan.spans)
        if prev is not None and prev.lower() in ("a", "an") and free:
            article = indefinite_article(words[0])
            if prev.lower() != article:
                plan.spans[(a - 1, a)] = ((article.capitalize() if prev[0].isupper() else article,), entity, typ,
                                          "article")
            continue
        # the name's head: its token whose head lies outside it ("Health" of "Kansas Department of Health
        # and Environment" is inside; "Department" is not)
        head = next((token_of(i) for i in range(a, b) if not a <= token_of(i).head < b), token_of(b - 1))
        needs = _needs_the(new, article_use)
        if prev is not None and prev.lower() == "the" and free and needs is False \
                and head.dep_ in _ARGUMENT_DEPS:    # "the Symantec deal": the article is the deal's
            del plan.spans[(a, b)]
            first = words[0] if prev == "the" or words[0][:1].isupper() else words[0].capitalize()
            plan.spans[(a - 1, b)] = ((first,) + tuple(words[1:]), entity, typ, role)
        elif needs and head.dep_ in _ARGUMENT_DEPS and not head.has_det \
                and (prev is None or token_of(a - 1).pos_ in ("ADP", "VERB", "AUX", "PUNCT", "SCONJ")
                and (prev.lower() not in _DETERMINER_WORDS or token_of(a - 1).pos_ == "SCONJ")   # "that the Dail must"
                and prev not in ("'s", "'")):
            plan.spans[(a, b)] = (("The" if prev is None else "the",) + tuple(words), entity, typ, role)


#: A name heading an argument takes an article; one used as a modifier ("10-year Treasury note",
#: "Agriculture and Forestry Ministry") does not (ClearNLP and UD labels).
_ARGUMENT_DEPS = {"nsubj", "nsubjpass", "nsubj:pass", "dobj", "obj", "iobj", "pobj", "obl", "attr", "appos", "ROOT",
                  "root", "dative", "agent", "conj"}     # "from X and the University of ..." -> "and Northwest College"
_DETERMINER_WORDS = {"the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her", "our", "your",
                     "my", "every", "each", "any", "no", "some", "another"}


@dataclass(frozen=True)
class _TokenInfo:
    """What :func:`_fix_determiners` reads of a parsed token: its dependency label, its part of
    speech and whether a determiner depends on it."""

    dep_: str
    pos_: str
    has_det: bool
    head: int


def _row_refusals(plan, start: int, end: int) -> list[dict]:
    """The refusals of a plan whose span starts in tokens ``[start, end)`` (one sentence of a
    document), by reason, as the ``refusals`` column; none for the original (``plan`` None)."""
    if plan is None:
        return []
    why = Counter(r for a, _, r in plan.refused if start <= a < end)
    return [{"reason": k, "count": int(v)} for k, v in sorted(why.items())]


def _refusals(plan) -> list[dict]:
    """A plan's mentions left unchanged, by reason (``SwapPlan.skipped``), as the ``refusals`` column."""
    return [{"reason": k, "count": int(v)} for k, v in sorted(plan.skipped.items()) if v]


def _mention_counts(mentions, types, edits) -> dict[str, int]:
    """Mentions of the swapped types in the example, and how many of them an edit touches."""
    ms = [m for m in mentions if m.type in types]
    hit = sum(1 for m in ms if any(e.start < m.end and e.end > m.start for e in edits))
    return {"mentions": len(ms), "mentions_swapped": hit}


#: Words after a name that make it a stock index, not an organisation ("the Standard & Poor's 500
#: index", "the Dow Jones industrial average", "the Nasdaq Composite").
_INDEX_WORDS = {"index", "indexes", "indices", "composite", "average", "averages", "500", "100", "industrial",
                "industrials", "futures"}
#: Institutions of one place: "England's University of Bristol" or "Bristol University in Britain" would
#: contradict a replacement from elsewhere ("the University of Maryland in Britain").
_PLACED_KINDS = {"university", "hospital", "court", "school or institute"}
#: A legislature named under its state's or country's modifier: "the state Senate", "Russia's Duma".
_LEGISLATURE_MODIFIED = "a legislature its state or country names (the state Senate)"
#: Titles of members of a legislature: "Senator Clinton ... re-election for the Knesset" would not hold.
_LEGISLATOR_TITLES = {"senator", "senators", "sen", "congressman", "congresswoman", "congressmen", "rep",
                      "representative", "representatives", "mp", "mps", "lawmaker", "lawmakers", "legislator",
                      "legislators"}
#: A legislature modifying a noun ("the Senate bill", "House Democrats"): most replacements would not read
#: as modifiers ("the House of Lords bill").
_LEGISLATURE_MODIFIER = "a legislature as a modifier (the Senate bill)"
#: Institution kinds whose members are not interchangeable: each international body has its own remit
#: ("NATO producers ... the cartel's next supply cut"), and events and venues are no organisations.
_NOT_INTERCHANGEABLE = {"international body": "an international body (each has its own remit)",
                        "event or venue": "an event or a venue"}
#: A country's abbreviation before an institution belongs to its name ("U.S. District Court").
_COUNTRY_PREFIXES = {"U.S.", "U.S", "US", "U.K.", "UK"}
#: One-word names of stock indices in the financial news ("the Dow rose", "the Nikkei fell").
_INDEX_SHORT_NAMES = {"dow", "nikkei", "ftse", "dax", "cac", "s&p", "hang"}
#: Corporate suffixes that make a mention a company.
_COMPANY_SUFFIXES = {"co", "corp", "corporation", "inc", "incorporated", "ltd", "plc", "llc", "l.p.", "lp", "ag", "sa",
                     "nv", "bv", "gmbh", "spa"}
#: A company's name right before another name names a product or an event of it.
_NAME_AFTER = "a name of a product or an event after it (Intel Pentium, Honda Indy 225)"
_COMPANY_TITLES = {"chairman", "ceo", "president", "vice", "founder", "co-founder", "chief", "senior", "general",
                   "director", "managing", "executive", "spokesman", "spokeswoman", "inc", "inc.", "corp", "corp."}
#: An organisation named in an office's title is part of the title ("Secretary of State" is no
#: "Secretary of the Labor Department").
_OFFICE_TITLES = {"secretary", "minister", "ministry", "department", "undersecretary", "secretary-general"}
_TITLE_PART = "part of an office's title (Secretary of State)"
#: An acronym that modifies a common noun names a thing, not a company ("AES encryption" is a cipher).
_ACRONYM_THING = "an acronym naming a thing (128-bit AES encryption)"
#: An acronym that only the stock indices list ("RPC", an oilfield-services company) is more often a
#: technical term in the news (remote procedure call).
_ACRONYM_TRADED = "an acronym only a stock index lists as a company (RPC)"
#: Nouns an organisation's name modifies as an organisation ("IBM spokesman", "NEC executives").
_COMPANY_ROLE_NOUNS = {"spokesman", "spokeswoman", "spokesperson", "executive", "chief", "official", "officials",
                       "employees", "employee", "workers", "analyst", "analysts", "board", "chairman", "president",
                       "officer", "lawyers", "attorney", "attorneys", "deal", "merger", "unit", "division", "plant",
                       "plants", "headquarters", "investors", "researchers", "scientists", "engineers", "staff"}
#: spaCy (OntoNotes) labels of things that are not organisations: the same words tagged so elsewhere in
#: the pair make an ORG mention doubtful.
_NOT_ORG_LABELS = {"PERSON", "PER", "PRODUCT", "WORK_OF_ART", "LAW", "EVENT", "GPE", "LOC", "FAC", "NORP"}


def _not_an_organisation(ent, lexicon, lowercase_words: set[str], other_labels: dict[str, set[str]],
                         known_companies: set[str]) -> str | None:
    """Why a tagger's ORG is no organisation, or ``None``. Refused: no name word in it ("<"); a
    digit (a product: "MSN Messenger 6"); a ticker ("AAH.AS"); a stock index (a word of
    :data:`_INDEX_WORDS` in it or right after it); one word the training data writes in lower case
    ("Retailers"); an honorific before it ("Mr. Ballmer"); the same words tagged as a person, product,
    law, work or place elsewhere in the pair; or, unless the company lists know it or a corporate
    suffix follows, a first name at its start ("Lara"), a one-word surname ("Pataki") or a place ("Paris")."""
    from robust_bench.perturb.names import organisation_core

    from robust_bench.perturb.names import university_name
    from robust_bench.text.names import HONORIFIC_GENDER, is_name_word

    words = [t.text for t in ent]
    core = organisation_core(words)
    text = " ".join(core)
    if not core or not any(is_name_word(w) or w.isupper() for w in core):
        return "not a name"
    if any(any(ch.isdigit() for ch in w) for w in core):
        return "a product or model (digits)"
    if any(re.fullmatch(r"[A-Z]{2,}\.[A-Z]{1,3}", w) for w in core):
        return "a ticker symbol"                    # "AAH.AS"; not "F.C.C."
    if len(core) == 1 and len(core[0].replace(".", "")) <= 2:
        return "an acronym too short to tell"       # "IP services company", "BA"
    if ent.end < len(ent.doc) and any(ch.isdigit() for ch in ent.doc[ent.end].text) \
            and any(ch.isalpha() for ch in ent.doc[ent.end].text):
        return "a product or model (digits)"        # "Intel 865G chipset"; not "Wal-Mart's 4,750 stores"
    nxt = ent.doc[ent.end].text.lower() if ent.end < len(ent.doc) else ""
    if any(w.lower() in _INDEX_WORDS for w in core) or nxt in _INDEX_WORDS:
        return "a stock index"
    if nxt in ("group", "holdings") and ent.doc[ent.end].text[:1].isupper():
        return "a span that may miss the end of the name"       # "[SCO] Group" -> "Oracle Group"
    if ent.end < len(ent.doc) and ent.doc[ent.end].pos_ == "PROPN" and ent.doc[ent.end].text[:1].isupper() \
            and nxt.rstrip(".") not in _COMPANY_SUFFIXES and nxt not in _COMPANY_ROLE_NOUNS | _COMPANY_TITLES \
            and ent.doc[ent.end].ent_type_ not in ("PERSON", "GPE"):
        return _NAME_AFTER      # "Honda Indy 225", "Intel Pentium 4", "Intel XScale": a product or event of it
    suffixed = len(core) < len(words) and words[-1].lower().rstrip(",.") in _COMPANY_SUFFIXES \
        or _suffix_after(ent)
    if ent.start > 0 and ent.doc[ent.start - 1].text.lower() in HONORIFIC_GENDER:
        return "a person (honorific)"
    if ent.start > 1 and ent.doc[ent.start - 1].text.lower() == "of" and ent.doc[ent.start - 2].text.lower() in _OFFICE_TITLES:
        return _TITLE_PART                          # "Secretary of [State]", "Minister of [Defence]"
    if ent.start > 1 and ent.doc[ent.start - 1].text in ("'s", "'") and ent.doc[ent.start - 2].ent_type_ == "ORG":
        return "a unit of another organisation (Microsoft's Mobile Devices Marketing Group)"
    kind = organisation_kind(text)         # once: it may look the name up in WordNet
    if len(core) == 1 and re.fullmatch(r"[A-Z]{2,5}", core[0]) and not suffixed and not is_institution(kind):
        head = ent.root.head
        if ent.root.dep_ == "compound" and head.i >= ent.end and head.text.islower() \
                and head.text.lower() not in _COMPANY_AFTER | _COMPANY_ROLE_NOUNS:
            return _ACRONYM_THING                   # "128-bit AES encryption", "DSP co-processor"
        if lexicon.is_listed_company(text) and not lexicon.is_fortune_company(text) \
                and company_key(text) not in known_companies \
                and lexicon.company_group(text) not in industry_cues(t.text for t in ent.doc):
            return _ACRONYM_TRADED                  # "the section of RPC that deals with message exchange"
    if kind == "university" and not university_name(text):
        return "a sports team named after its university"        # "University of New Mexico Lobos"
    if kind in _PLACED_KINDS and (
            ent.start > 0 and ent.doc[ent.start - 1].text.lower() in ("based", "-based")    # "California-based"
            or ent.start > 1 and ent.doc[ent.start - 1].text in ("'s", "'")
            and ent.doc[ent.start - 2].ent_type_ in ("GPE", "LOC")
            or ent.end + 1 < len(ent.doc) and ent.doc[ent.end].text.lower() in ("in", "near", "at", ",", "of")
            and ent.doc[ent.end + 1].ent_type_ in ("GPE", "LOC")):
        return "an institution the sentence places (Bristol University in Britain)"
    if ent.end + 1 < len(ent.doc) and ent.doc[ent.end].text == "for" and ent.doc[ent.end + 1].text.lower() == "the" \
            and is_institution(kind):
        return "a span that may miss the end of the name"       # "Court of Appeals [for the 3rd Circuit]"
    prev = ent.doc[ent.start - 1] if ent.start > 0 else None
    if prev is not None and prev.text in _COUNTRY_PREFIXES and is_institution(kind):
        prev = None                                 # "U.S. [District Court]": the caller takes "U.S." in
    if prev is not None and not ent[0].is_sent_start and prev.text[:1].isupper() \
            and prev.text.lower() not in ("the", "a", "an") and (prev.pos_ == "PROPN" or prev.text.isupper()):
        return "a span that may miss the start of the name"     # "U.S. [District Court]"
    if prev is not None and kind == "legislature" and (
            prev.pos_ in ("ADJ", "NOUN", "PROPN", "NUM") or prev.text in ("'s", "'")):
        return _LEGISLATURE_MODIFIED                # "the state Knesset" is none
    if kind == "legislature" and ent.root.dep_ in ("compound", "nmod", "amod") \
            and ent.root.head.i >= ent.end:
        return _LEGISLATURE_MODIFIER                # "House Democrats" -> "House of Lords Democrats"
    labels = other_labels.get(text.lower(), set()) & _NOT_ORG_LABELS
    # the company lists outweigh a product tag elsewhere ("Oracle" the database): not a person's or a place's
    if labels and (labels & {"PERSON", "PER", "GPE", "LOC"} or not lexicon.is_listed_company(text)):
        return "tagged as another type elsewhere in the pair"
    if len(core) == 1 and core[0].lower() in _INDEX_SHORT_NAMES:
        return "a stock index"                      # "the Dow", "the Nikkei"
    if len(core) == 1 and (core[0].lower() in lowercase_words or not core[0].isupper() and _common_word(core[0])) \
            and not suffixed and not lexicon.is_listed_company(text, alias=False) \
            and not _legislature_name(text):        # "Congress", "the Senate" are names
        return "a common word"      # "Retailers", "United", "Sun"; not "Travelers", "Oracle", "FBI"
    # a listed company whose one-word name is also a person's, unless the sentence names its industry
    # ("Conway" of PeopleSoft's Craig Conway is not the trucker Con-way)
    if len(core) == 1 and not suffixed and (lexicon.is_first_name(core[0]) or lexicon.is_last_name(core[0])) \
            and lexicon.is_listed_company(text) \
            and lexicon.company_group(text) not in industry_cues(t.text for t in ent.doc):
        return "a person (name lists)"
    # a company by its suffix, the company lists or its form ("Evans & Sutherland", "Lindows.com")
    if suffixed or lexicon.is_listed_company(text) or _company_form(text):
        return None
    if kind in _NOT_INTERCHANGEABLE:
        return _NOT_INTERCHANGEABLE[kind]
    if len(core) == 1 and (lexicon.is_first_name(core[0]) or lexicon.is_last_name(core[0])) \
            and not _legislature_name(text):
        return "a person (name lists)"      # "Pataki", "Conway": a listed "Con-way" is not evidence enough
    if company_key(text) in known_companies:
        return None                         # a suffix or business words elsewhere in the news corpora
    if len(core) > 1 and lexicon.is_first_name(core[0]) and not sector_from_words(text) \
            and not is_institution(kind):
        return "a person (name lists)"      # "Marce Fuller"; not "Justice Department", "Penn Traffic Co."
    if lexicon.location_kind(text) is not None:
        return "a place (lexicon)"
    return None


def _suffix_after(ent) -> bool:
    """Whether a corporate suffix follows the span: "Intel Corp.", "Kroger Co."; not the "co" of
    "DSP co-processor" (lower case, no full stop)."""
    if ent.end >= len(ent.doc):
        return False
    nxt = ent.doc[ent.end].text
    return nxt.lower().rstrip(".") in _COMPANY_SUFFIXES and (nxt[:1].isupper() or nxt.endswith("."))


def _legislature_name(text: str) -> bool:
    """A one-word name of a legislature of WordNet's, or "House" (the House of Representatives): "Congress",
    "Senate", "Knesset"; words that also read as common nouns or surnames, but not as those when tagged
    as an organisation. "Assembly" or "Legislature" alone names no one legislature."""
    from robust_bench.perturb.organisations import legislatures

    return text in legislatures() or text == "House"


def _organisation_kind(ent, lexicon, known_companies: set[str]) -> str | None:
    """The kind of an organisation mention that passed :func:`_not_an_organisation`: an institution
    kind its words mark (:func:`organisation_kind`), else a company sector when something vouches that
    it is a company (the company list, a corporate suffix, the Reuters or MRPC text writing it with one,
    or a word of its name marking a sector); ``None`` when nothing does (an armed group, a news agency,
    a programme: no kind, no pool)."""
    from robust_bench.perturb.names import organisation_core

    words = [t.text for t in ent]
    text = " ".join(organisation_core(words))
    suffixed = words[-1].lower().rstrip(",.") in _COMPANY_SUFFIXES or _suffix_after(ent)
    kind = organisation_kind(text)
    # an institution by its words ("the London Stock Exchange", whose owner is a listed company), unless
    # a corporate suffix makes it a company ("First Union Corp.") or a bank named "of" a place is listed
    # ("Bank of America")
    if is_institution(kind) and not suffixed and not (kind == "central bank" and lexicon.is_listed_company(text)):
        return kind
    if suffixed or lexicon.is_listed_company(text):     # "GE Capital Services Inc.", "News Corp.": companies
        return lexicon.company_sector(text)
    if company_key(text) in known_companies or _traded(ent) or _company_form(text):
        return lexicon.company_sector(text)
    return sector_from_words(text)


#: Words that glue a name together, never its own ("of", "&", corporate words).
_NAME_GLUE = {"of", "the", "and", "&", "for", "de", "la", "co", "co.", "corp", "corp.", "inc", "inc.", "ltd", "ltd.",
              "group", "plc", "llc", "u.s.", "us"}


#: Words a company's full name adds to its short one ("Wendy's International", "Nokia Group").
_FULL_NAME_WORDS = {"international", "worldwide", "global", "holdings", "holding", "group", "corporation", "company",
                    "companies", "incorporated", "limited", "enterprises", "industries", "usa", "america"}


def _division(core, shortest, lexicon, known_companies) -> bool:
    """Whether ``core``, a longer name of the company named ``shortest`` in the same pair, names a
    division or a product of it ("Microsoft Developer Network"), not its full name ("Sun Microsystems",
    "Kleiner Perkins Caufield & Byers", "Hewlett-Packard Co."): it adds words, none of them corporate or
    a sector's, no "&", and neither the lists nor the corpora know it as a company."""
    from robust_bench.perturb.organisations import reveals_industry

    extra = list(core[len(shortest):]) if tuple(core[:len(shortest)]) == tuple(shortest) else []
    if not extra or "&" in core or all(w.lower() in _FULL_NAME_WORDS for w in extra):
        return False                    # "Wendy's International", "Sony Corp"
    name = " ".join(core)
    if lexicon.is_listed_company(name) or company_key(name) in known_companies:
        return False
    return not all(w.lower() in _COMPANY_NAME_WORDS or reveals_industry(w) for w in extra)


#: Words that make a name a company's ("AT&T Bell Labs", "Davidowitz & Associates", "The NPD Group").
_COMPANY_NAME_WORDS = {"labs", "laboratories", "associates", "partners", "holdings", "technologies", "group",
                       "industries", "enterprises", "ventures", "brands", "solutions"}


def _company_form(name: str) -> bool:
    """Whether the form of a name makes it a company's: a web address ("Lindows.com"), two capitalised
    names joined by "&" ("Ernst & Young", "Evans & Sutherland"), or a company word as its last word
    (:data:`_COMPANY_NAME_WORDS`)."""
    words = name.split()
    if re.search(r"\w\.com$", name, flags=re.I):
        return True
    if "&" in words and 0 < words.index("&") < len(words) - 1 and all(w[:1].isupper() for w in words if w != "&"):
        return True
    return len(words) > 1 and words[-1].lower() in _COMPANY_NAME_WORDS


#: Words right after a name (or its possessive) that only a company has: "PeopleSoft shares", "Kodak's
#: earnings", "Enron Chairman"; word pairs before it: "shares of Enron"; and verbs whose subject is a
#: company ("Kodak earned", "Oracle acquired"). Words an agency or a person shares ("spokesman", "said",
#: "reported", "sued", "hired") are not among them.
_COMPANY_AFTER = {"shares", "stock", "stockholders", "shareholders", "earnings", "revenue", "revenues", "profit",
                  "profits", "ceo", "share", "sales", "customers", "subsidiary", "subsidiaries",
                  "executives", "shareholder", "stockholder", "products", "shipments"}
_COMPANY_BEFORE = {("shares", "of"), ("stake", "in"), ("shareholders", "of"), ("stockholders", "of"),
                   ("shares", "in"), ("acquisition", "of"), ("merger", "with"), ("takeover", "of"),
                   ("bid", "for"), ("customers", "of")}
_COMPANY_VERBS = {"earn", "acquire", "ship", "manufacture", "license", "merge", "outsource"}


def _business_companies(docs) -> set[str]:
    """Company keys (:func:`company_key`) of the ORG mentions that the words around them make companies
    somewhere in ``docs`` (:func:`_traded`: "SCO shares fell", "Kodak earned"), so that their other
    mentions count as companies too; names an institution's words mark are left out."""
    from robust_bench.perturb.names import organisation_core

    out = set()
    for doc in docs:
        for e in doc.ents:
            if e.label_ == "ORG" and _traded(e):
                name = " ".join(organisation_core([t.text for t in e]))
                if name and not any(c.isdigit() for c in name) and not is_institution(organisation_kind(name)) \
                        and not _wordnet_noun(name):
                    out.add(company_key(name))
    out.discard("")
    return out


def _traded(ent) -> bool:
    """Whether the words around a mention make it a company in business ("PeopleSoft shares fell",
    "Kodak's earnings", "shares of Enron", "Kodak earned 85 cents"): see :data:`_COMPANY_AFTER`,
    :data:`_COMPANY_BEFORE` and :data:`_COMPANY_VERBS` (the head of the mention the subject of one)."""
    doc = ent.doc
    i = ent.end
    if i < len(doc) and doc[i].text in ("'s", "'", "’s"):
        i += 1
    if i < len(doc) and doc[i].text.lower() in _COMPANY_AFTER:
        return True
    if i + 1 < len(doc) and doc[i].text.lower() == "chief" and doc[i + 1].text.lower() in (
            "executive", "executives", "financial", "operating", "technology"):
        return True                         # "the former Citicorp chief executive"
    a = ent.start
    if a > 0 and doc[a - 1].text.lower() == "the":
        a -= 1
    if a >= 2 and (doc[a - 2].text.lower(), doc[a - 1].text.lower()) in _COMPANY_BEFORE:
        return True
    head = ent.root
    return head.dep_ in ("nsubj", "nsubjpass") and head.head.lemma_.lower() in _COMPANY_VERBS


def _organisation_mentions(d1, d2, types, lexicon, lowercase_words, known_companies,
                           inferred: dict[str, str] | None = None) -> tuple[list[Mention], Counter, set[int]]:
    """The mentions of an MRPC pair to swap, the tagger's mentions refused, by reason, and the sentences
    (0, 1) that name an organisation, swapped or not (the paper's filter needs one in each).

    Two independent signals must agree that a span is an organisation of a known kind: the NER pipeline's
    ORG label, and either a name word marking an institution kind or evidence that it is a company (the
    company lists, a corporate suffix, business words beside it in the corpora; see
    :func:`_organisation_kind`); spans that :func:`_not_an_organisation` finds to be something else are
    refused first. A company is then replaced by one of its industry group where the lists or the pair
    ("the airline") or the corpus (``inferred``: :func:`_industries_by_company`) give one; by one of its
    sector only where the sentence does not describe it ("rival PeopleSoft", "publishing house
    HarperCollins", ", an Illinois fund-raiser"); a company of unknown industry is not replaced. Only ORG
    spans are returned (the types swapped in MRPC)."""
    from robust_bench.text.nlp import map_entity_label

    n1 = len(d1)
    d_of = (d1, d2).__getitem__
    other: dict[str, set[str]] = {}
    for d in (d1, d2):
        for e in d.ents:
            if e.label_ != "ORG":
                other.setdefault(e.text.lower(), set()).add(e.label_)
                for w in e.text.lower().split():          # "Steve Ballmer" makes "Ballmer" a person
                    other.setdefault(w, set()).add(e.label_)
    candidates: list[Mention] = []
    described: set[tuple[int, int]] = set()
    refused: Counter = Counter()
    sides: set[int] = set()
    later = []
    modified: set[str] = set()
    refused_persons: set[int] = set()
    for side, (off, d) in enumerate(((0, d1), (n1, d2))):
        for e in d.ents:
            typ = map_entity_label(e.label_)
            if typ not in types:
                continue
            if typ != "ORG":
                candidates.append(Mention(off + e.start, off + e.end, typ, f"{typ}:{e.text.lower()}"))
                continue
            why = _not_an_organisation(e, lexicon, lowercase_words, other, known_companies)
            if why is not None and why.startswith("a person"):
                refused_persons.update(range(off + e.start, off + e.end))     # "Pataki" tagged ORG
            if why in ("a common word", "a person (name lists)"):
                later.append((side, off, e, why))   # unless it is the first word of an organisation of the pair
                continue
            if why is not None:
                refused[why] += 1
                if why in (_LEGISLATURE_MODIFIED, _LEGISLATURE_MODIFIER):   # one body, all or none
                    modified.add(" ".join(organisation_core([t.text for t in e])))
                if why == _NOT_INTERCHANGEABLE["international body"]:
                    sides.add(side)          # an organisation, of a kind not swapped
                continue
            sides.add(side)
            kind = _organisation_kind(e, lexicon, known_companies)
            start = e.start - 1 if e.start > 0 and d[e.start - 1].text in _COUNTRY_PREFIXES and kind in INSTITUTION_KINDS \
                else e.start
            key = " ".join(t.text for t in d[start:e.end]).lower()
            candidates.append(Mention(off + start, off + e.end, typ, f"{typ}:{_entity_key(key)}", kind=kind))
            if _described(e):
                described.add((off + start, off + e.end))
    # "Coastal" beside "Coastal Corp.", "Merrill" beside "Merrill Lynch": the organisation's short name
    toks = [t.text for t in d1] + [t.text for t in d2]
    firsts = {organisation_core(toks[m.start:m.end])[0] for m in candidates if m.type == "ORG"}
    for side, off, e, why in later:
        core = organisation_core([t.text for t in e])
        if len(core) == 1 and core[0] in firsts:
            sides.add(side)
            candidates.append(Mention(off + e.start, off + e.end, "ORG", f"ORG:{_entity_key(e.text.lower())}",
                                      kind=_organisation_kind(e, lexicon, known_companies)))
            continue
        refused[why] += 1
        if why == "a common word" and e.start > 0 and not d_of(side)[e.start - 1].is_sent_start \
                and not d_of(side)[e.start].is_sent_start:
            sides.add(side)                  # an organisation not swapped: "the Senate", "the Fed"
    # an organisation coordinated with a person reads as a person too ("Both Bloomberg and Pataki said",
    # the mayor and the governor): the tokens of such one-word organisations
    persons = {off + t.i for off, d in ((0, d1), (n1, d2)) for e in d.ents
               if e.label_ in ("PERSON", "PER") or e.label_ == "ORG" and len(e) == 1 and e.text[:1].isupper()
               and not e.text.isupper() and not lexicon.is_listed_company(e.text)
               and not is_institution(organisation_kind(e.text)) and not _common_word(e.text)
               for t in e} | refused_persons           # "Pataki", tagged ORG, of no kind
    person_like: set[int] = set()
    for off, d in ((0, d1), (n1, d2)):
        for t in d:
            # one-word organisations only ("Bloomberg"), not "Powell and the State Department"
            if t.dep_ == "conj" and t.ent_type_ == "ORG" and t.ent_iob_ == "B" and off + t.head.i in persons \
                    and off + t.i not in persons and (t.i + 1 == len(d) or d[t.i + 1].ent_iob_ != "I"):
                person_like.add(off + t.i)
            h = t.head
            if t.dep_ == "conj" and off + t.i in persons and h.ent_type_ == "ORG" and h.ent_iob_ == "B" \
                    and off + h.i not in persons and (h.i + 1 == len(d) or d[h.i + 1].ent_iob_ != "I"):
                person_like.add(off + h.i)
    # one organisation, one kind: "F.C.C." is the "Federal Communications Commission" of the other sentence
    linked = _link_organisations(toks, candidates)
    kind_of: dict[str, str] = {}
    for m in linked:
        if m.kind and m.entity not in kind_of:
            kind_of[m.entity] = m.kind
    inside = {i for m in linked for i in range(m.start, m.end)}
    anaphor = _industry_anaphor(toks)           # "Qantas ... the airline warned"
    ticker = any(_TICKER.fullmatch(w) for w in toks) or any(
        a.lower() in ("nasdaq", "nyse", "amex") and b == ":" for a, b in zip(toks, toks[1:])) or any(
        w.lower() in ("symbol", "symbols", "ticker") and any(re.fullmatch(r"[A-Z]{2,5}", x) for x in toks[i + 1:i + 4])
        for i, w in enumerate(toks))            # "under the ticker symbol: PSRC"
    why_entity: dict[str, str] = {}
    # the one organisation of no kind in a pair that calls it "the airline": that airline (not an acronym,
    # not a word WordNet knows: "Medicare", "Hamas")
    unknown = {m.entity for m in linked if m.type == "ORG" and m.entity not in kind_of}
    if anaphor is not None and len(unknown) == 1:
        entity = next(iter(unknown))
        names = {" ".join(organisation_core(toks[m.start:m.end])) for m in linked if m.entity == entity}
        if not any(n.replace(".", "").replace("&", "").isupper() or _wordnet_noun(n) for n in names):
            kind_of[entity] = f"industry:{anaphor}"
    # one organisation, one name: a company whose longer mention adds other words is a division or a
    # product of it ("Microsoft Developer Network"), and a name whose words stand elsewhere in the pair
    # untagged ("Kleiner Perkins" beside a tagged "Kleiner Perkins Caufield & Byers", "IBMof", "Business
    # Week" beside "BusinessWeek") would be left half swapped
    squashed = [_squash(t) for t in toks]
    for entity in list(kind_of):
        cores = [organisation_core(toks[m.start:m.end]) for m in linked if m.entity == entity]
        words = {w for c in cores for w in c if w[:1].isupper() and w.lower() not in _NAME_GLUE}
        spans = {i for m in linked if m.entity == entity for i in range(m.start, m.end)}
        for c in cores:              # the name where the tagger missed it is swapped with it (plan_swaps)
            spans |= {i + k for i in range(len(toks) - len(c) + 1) if tuple(toks[i:i + len(c)]) == tuple(c)
                      for k in range(len(c))}
        outside = [i for i in range(len(toks)) if i not in spans and i not in inside and squashed[i]]
        # runs of capitalised words ("IBMof", "Business Week"), not common nouns ("a state court")
        caps = [i for i in outside if any(ch.isupper() for ch in toks[i])]
        runs = {"".join(squashed[i] for i in caps[k:k + n]) for n in (1, 2, 3) for k in range(len(caps))}
        acronyms = {"".join(w[0] for w in c if w[:1].isupper() and w.lower() not in _NAME_GLUE) for c in cores
                    if len(c) > 1}
        if kind_of[entity] in SECTORS and any(_division(c, min(cores, key=len), lexicon, known_companies)
                                              for c in cores):
            why_entity[entity] = "a division or product named after the company"
        elif any(toks[i] in acronyms or any(toks[i].startswith(a) and toks[i][len(a):] in ("", "'s") for a in acronyms
                                            if len(a) > 1) for i in outside):
            why_entity[entity] = "its initials stand elsewhere in the pair"   # "General Electric" beside "GE Capital"
        elif any(toks[i] in words or any(toks[i].startswith(w) and toks[i][len(w):].islower() for w in words
                                         if len(w) > 2) for i in outside) \
                or any(_squash(w) in runs for w in words if len(_squash(w)) > 3):
            why_entity[entity] = "its name also stands untagged elsewhere in the pair"

    unknown_companies = sum(k == COMPANY for k in kind_of.values())
    # a pair that tells of a change of name speaks of two names for one company, or one name for two
    # ("the original SCO ... changed its name to the SCO Group"): one replacement per name is wrong
    renamed = any(w.lower() in ("renamed", "formerly", "rebranded") for w in toks) or any(
        a.lower() in ("changed", "change", "changing", "changes") and b.lower() in ("its", "their") and c.lower() == "name"
        for a, b, c in zip(toks, toks[1:], toks[2:]))
    # a legislature belongs to a country: "final United States approval ... ratified by Congress" is no
    # Duma's
    country_named = any(e.label_ == "NORP" or e.label_ == "GPE" and (
        lexicon.location_kind(e.text.removeprefix("the ")) == "country" or e.text in _COUNTRY_PREFIXES
        or e.text in ("United States", "America", "American", "Americans", "British", "Britain"))
        for d in (d1, d2) for e in d.ents)
    for entity, kind in list(kind_of.items()):
        spans = [(m.start, m.end) for m in linked if m.entity == entity]
        names = [" ".join(organisation_core(toks[a:b])) for a, b in spans]
        if renamed:
            why_entity[entity] = "an organisation in a pair that tells of a change of name"
        elif kind in INSTITUTION_KINDS and person_like & {i for a, b in spans for i in range(a, b)}:
            why_entity[entity] = "an organisation named beside a person (Both Bloomberg and Pataki said)"
        elif modified & set(names):
            why_entity[entity] = "a legislature named elsewhere in the pair in a way not swapped"
        elif kind == "executive department" and any(t in ("Secretary", "Secretaries", "Undersecretary") for t in toks):
            # "Secretary of State Colin Powell ... the State Department": the secretary heads the department
            why_entity[entity] = "an executive department beside a secretary's title (Secretary of State)"
        elif kind == "legislature" and country_named:
            why_entity[entity] = "a legislature in a pair that names a country (United States approval)"
        elif kind == "legislature" and any(t.lower().rstrip(".") in _LEGISLATOR_TITLES for t in toks):
            why_entity[entity] = "a legislature whose members' title stands in the pair (Senator)"
        elif kind == "legislature" and (modified or sum(k == "legislature" for k in kind_of.values()) > 1 or any(
                t in ("Congresses", "Senates", "Houses", "Parliaments", "Assemblies") for t in toks)):
            # "the House ... the Senate ... two Congresses": one chamber renamed changes how they relate
            why_entity[entity] = "a legislature beside another legislature of the pair"
        elif kind in INSTITUTION_KINDS and kind not in _SWAPPED_INSTITUTIONS:
            why_entity[entity] = f"{kind} (not interchangeable)"
        elif kind in ("broadcaster", "news agency or newspaper") and any(sp in described for sp in spans):
            # "the cable sports network ESPN": a description that fits one broadcaster
            why_entity[entity] = "a broadcaster or newspaper the sentence describes (the cable sports network)"
        elif kind == "court" and any(_court_level(n) == "supreme" for n in names):
            why_entity[entity] = "a supreme court (too few to replace one by another)"
        elif (kind in SECTORS or kind.startswith("industry:")) and ticker:
            why_entity[entity] = "a company beside a ticker symbol"
        elif kind in SECTORS:
            # the company's industry group, from the lists ("Intel": semiconductors), its name ("Alpha
            # Shipping") or the pair ("the airline")
            own = next((g for g in map(lexicon.company_group, names) if g), None) \
                or next((g for g in map(group_from_words, names) if g), None)
            if own is None and kind == "transport":
                own = next((g for g in map(transport_group, names) if g), None)
            if own is None and kind == COMPANY:
                # "the airline" speaks of the one company of unknown industry, not of each of a list
                # ("chipmaker Intel ... Sony, Microsoft, Hewlett-Packard")
                own = (anaphor if unknown_companies == 1 else None) \
                    or next((g for n in names if (g := (inferred or {}).get(company_key(n)))), None)
            # a company is replaced within its industry group only: a sector is too broad ("Sharp" by
            # "Amazon.com", "ImClone Systems" by "Cisco Systems")
            if own is not None:
                kind_of[entity] = f"industry:{own}"       # too small a pool is counted below
            elif kind == COMPANY:
                why_entity[entity] = "a company of unknown industry"
            elif any(sp in described for sp in spans):
                why_entity[entity] = "a company the sentence describes, of no known industry group"
            elif kind == "transport":
                why_entity[entity] = "a transport company of no known kind (airline, railroad, freight)"
            else:
                why_entity[entity] = "a company of a known sector but no known industry group"
    mentions: list[Mention] = []
    for m in linked:
        if m.type != "ORG":
            mentions.append(m)
            continue
        kind = kind_of.get(m.entity)
        minimum = MIN_INDUSTRY_POOL if kind and kind.startswith("industry:") else MIN_ORGANISATION_POOL
        if kind is None:
            refused["organisation of unknown kind"] += 1
        elif m.entity in why_entity:
            refused[why_entity[m.entity]] += 1
        elif len(lexicon.pool(kind)) < minimum:
            refused[f"no pool of its kind ({kind})"] += 1
        else:
            mentions.append(Mention(m.start, m.end, m.type, m.entity, kind))
    return mentions, refused, sides


def _industries_by_company(docs, lexicon) -> dict[str, str]:
    """The industry group of companies no list knows, from the pairs of the corpus (MRPC train, test and
    validation, tagged): per sentence whose industry words
    (:data:`robust_bench.perturb.organisations.INDUSTRY_CUES`) name one group, that group votes for each
    unlisted company the sentence names (the listed companies beside it do not, nor bank words: Enron's
    banks say nothing of Enron); a company with two votes or more, three quarters of them for one group,
    has that group ("PeopleSoft" in sentences that say "software"). ``docs`` are the tagged sentences.

    Returns
    -------
    dict of str to str
        :func:`company_key` -> industry group.
    """
    from robust_bench.perturb.names import organisation_core

    votes: dict[str, Counter] = {}
    for d in docs:
        unknown = set()
        for e in d.ents:
            if e.label_ != "ORG":
                continue
            name = " ".join(organisation_core([t.text for t in e]))
            if name and not is_institution(organisation_kind(name)) and not lexicon.is_listed_company(name):
                unknown.add(company_key(name))
        # the sentence's industry words vote when they name one group, not the listed companies beside
        # it; bank words do not (a company's banks and lenders are its counterparties: "Enron's banks")
        # nor aircraft words (an airline's jets), and not in a sentence of analysts (a broker's analyst
        # speaks of other industries: "Merrill Lynch analyst ... software sales")
        cues = industry_cues(t.text for t in d) - {"banking", "aerospace and defence"}
        if len(cues) != 1 or any(t.lower_ in ("analyst", "analysts") for t in d):
            continue
        for key in unknown - {""}:
            votes.setdefault(key, Counter()).update(cues)
    out = {}
    for key, c in votes.items():
        if c:
            group, n = c.most_common(1)[0]
            if n >= 2 and n >= 3 / 4 * sum(c.values()):
                out[key] = group
    return out


def _described(ent) -> bool:
    """Whether the sentence describes an organisation mention, so that its industry matters: an apposition
    to it or from it (", an Illinois fund-raiser", "the salvage company, Odyssey"), or a common noun right
    before it ("rival PeopleSoft", "publishing house HarperCollins", "VC firms Sequoia Capital")."""
    root = ent.root
    if root.dep_ == "appos" or any(c.dep_ == "appos" for c in root.children):
        return True
    prev = ent.doc[ent.start - 1] if ent.start > 0 else None
    return prev is not None and prev.text.islower() and (prev.pos_ == "NOUN" or prev.text in ("rival", "rivals"))


def _court_level(name: str) -> str:
    """``supreme`` for a court of last resort ("Supreme Court", "the High Court"), else ``court``."""
    words = {w.lower() for w in name.split()}
    return "supreme" if words & {"supreme", "high"} else "court"


def _squash(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


#: Institutions whose members do the same work, so one can stand for another: courts, hospitals,
#: universities, legislatures, broadcasters, news agencies and newspapers, the United States executive
#: departments (a department by a department: "the Justice Department" by "the Labor Department"). Agencies,
#: associations and the like each have their own remit ("the FBI said the suspect..." read with "the
#: FDA" is another story).
_SWAPPED_INSTITUTIONS = {"court", "hospital", "university", "legislature", "broadcaster", "news agency or newspaper",
                         "executive department"}


#: Nouns that stand for a company of one industry group ("the airline warned", "the chipmaker said").
_INDUSTRY_NOUNS = {"airline": "airlines", "carrier": "airlines", "chipmaker": "semiconductors",
                   "drugmaker": "pharmaceuticals", "automaker": "motor vehicles", "carmaker": "motor vehicles",
                   "insurer": "insurance", "retailer": "retail", "bank": "banking", "lender": "banking",
                   "brokerage": "banking", "publisher": "media", "broadcaster": "media",
                   "software maker": "software", "biotech": "pharmaceuticals"}


def _industry_anaphor(tokens) -> str | None:
    """The industry group of the company a pair speaks of as "the airline", "the largest airline", "the
    chipmaker" (nouns of one group only), else ``None``."""
    found = set()
    for i, t in enumerate(tokens):
        # "the airline", "the nation's largest airline", "the Sunnyvale, Calif., chipmaker"; not "Bank of
        # America" nor "each bank helped Enron" (the banks beside the company)
        if t in _INDUSTRY_NOUNS and "the" in [w.lower() for w in tokens[max(0, i - 6):i]] \
                and not any(w in (".", ";", "and", "or", "each", "every", "a", "an") for w in tokens[max(0, i - 6):i][-3:]):
            found.add(_INDUSTRY_NOUNS[t])
    return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=4096)
def _common_word(word: str) -> bool:
    """Whether WordNet knows lower-case ``word`` as a common word (a noun, adjective or verb that is not the
    name of one thing): "united", "sun", "state"; not "reuters", "hamas" (an instance)."""
    from robust_bench.text.wordnet import wordnet as wn

    return any(not s.instance_hypernyms() for s in wn.synsets(word.lower()))


@lru_cache(maxsize=4096)
def _wordnet_noun(name: str) -> bool:
    """Whether WordNet knows ``name`` as a noun ("Medicare", "Hamas", "Jeep"; few companies are there)."""
    from robust_bench.text.wordnet import wordnet as wn

    return bool(wn.synsets(name.replace(" ", "_"), pos="n"))
_TICKER = re.compile(r"[A-Z]{1,5}\.[A-Z]{1,2}")


def _suffixed_companies(sentences) -> set[str]:
    """Company keys (:func:`company_key`) of the names a corpus writes with a corporate suffix at least
    once ("PeopleSoft Inc", "Sun Microsystems Inc", "Merrill Lynch & Co."): up to five capitalised words
    (and "&") before the suffix; also the last word of a longer name ("Kodak" of "Eastman Kodak Co."; a
    caller still refuses a word that is a person's name or a common word)."""
    out = set()
    for words in sentences:
        for i, w in enumerate(words):
            if w.lower().rstrip(".") not in _COMPANY_SUFFIXES or i == 0:
                continue
            j = i
            while j > 0 and i - j < 5 and (words[j - 1][:1].isupper() or words[j - 1] in ("&", "and")) \
                    and words[j - 1].lower() not in ("the", "a"):
                j -= 1
            name = words[j:i]
            while name and name[0] in ("&", "and"):
                name = name[1:]
            while name and name[-1] in ("&", "and"):
                name = name[:-1]
            key = company_key(" ".join(name))
            if key:
                out.add(key)
                last = key.split()[-1]
                if " " in key and len(last) > 3 and name[-1].lower() == last and name[-1][0].isupper():
                    out.add(last)
    return out


#: Words that do not tell two names of one organisation apart ("United States State Department" and "US
#: State Department").
_LINK_IGNORED = {"of", "the", "&", "and", "for", "u.s.", "us", "u.s", "united", "states", "federal"}


def _link_organisations(tokens, mentions: list[Mention]) -> list[Mention]:
    """Mentions of one organisation in a pair share an entity id: one whose content words are a
    subset of another's ("Kleiner Perkins" and "Kleiner Perkins Caufield & Byers", "Bristol
    University" and "University of Bristol") or an acronym of the other's capitalised words ("FDA"),
    so both sentences keep naming the same organisation."""
    from robust_bench.perturb.names import organisation_core

    def content(m):
        # spellings of one name compare equal: "Albertsons" and "Albertson", "U.S." and "US"
        return frozenset(_squash(w).rstrip("s") for w in organisation_core(tokens[m.start:m.end])
                         if w.lower() not in _LINK_IGNORED and _squash(w))

    def initials(m):
        return "".join(w[0] for w in organisation_core(tokens[m.start:m.end])
                       if w[:1].isupper() and w.lower() not in ("of", "the", "and", "for"))

    def same(short, long):
        c = content(short)
        if c <= content(long):
            return True
        word = "".join(organisation_core(tokens[short.start:short.end])).replace(".", "")
        # an acronym of the longer name: "FDA" (or "F.D.A.") and "U.S. Food and Drug Administration"
        return len(c) == 1 and word.isupper() and word.isalpha() and 2 <= len(word) <= 6 and word in initials(long)

    orgs = sorted((m for m in mentions if m.type == "ORG" and content(m)), key=lambda m: -len(content(m)))
    entity = {}
    for k, m in enumerate(orgs):
        entity[m] = next((entity[o] for o in orgs[:k] if same(m, o)), m.entity)
    return [Mention(m.start, m.end, m.type, entity.get(m, m.entity), m.kind) for m in mentions]


#: lower-case words inside a proper person name ("Duke of Wellington", "Ludwig van Beethoven")
_NAME_PARTICLES = {"of", "de", "van", "von", "der", "le", "la", "du", "da", "di", "del", "'s"}


def _gold_person_names(coref_file: Path, docs) -> Path | None:
    """Attach LitBank's gold PER mentions that are proper names, and its mentions of the other types, to
    the documents of one coreference file, as OntoNotes entities are attached (``doc.entities``): the
    entity file of the same name in ``../entities/tsv/`` beside ``coref/``, if there is one (its path is
    returned, for the source hash).

    A proper name is a PER mention whose words are capitalised (name particles aside) and that no
    article precedes: "Sir Walter Elliot", "Mr. Blowers", but not "a man who ..." (a common noun
    phrase) nor the epithets "the Scarlet Pimpernel", "the Lord Chancellor", "the Almighty".

    Raises
    ------
    EntityLayerError
        If the entity file is malformed or its tokens are not the coreference file's (naming both
        files and the first token that differs).
    """
    from robust_bench.io.litbank_entities import EntityLayerError, read_entity_layer

    path = coref_file.parent.parent / "entities" / "tsv" / f"{coref_file.stem}.tsv"
    if not path.is_file():
        return None
    layer = read_entity_layer(path)
    tokens = [t for d in docs for t in d.tokens]
    if tokens != layer.tokens:
        k = next((i for i, (a, b) in enumerate(zip(tokens, layer.tokens)) if a != b), min(len(tokens), len(layer.tokens)))
        raise EntityLayerError(f"{path}: token {k + 1} is {layer.tokens[k] if k < len(layer.tokens) else 'missing'!r}, "
                               f"but {coref_file} has {tokens[k] if k < len(tokens) else 'nothing'!r} there: the entity "
                               "layer must have the coreference file's tokens")
    offset = 0
    for d in docs:
        n = len(d.tokens)
        d.entities = [(a - offset, b - offset, "PER") for a, b in layer.spans("PER")
                      if offset <= a and b <= offset + n and _proper_name(tokens, a, b)]
        # the other types, so that a name that also names a place or a ship is known ("the Hudson")
        d.entities += [(a - offset, b - offset, t) for t in _OTHER_ENTITY_TYPES for a, b in layer.spans(t)
                       if offset <= a and b <= offset + n]
        offset += n
    return path


#: LitBank's entity types other than PER.
_OTHER_ENTITY_TYPES = ("FAC", "GPE", "LOC", "ORG", "VEH")


#: honorifics that stand before a surname and make it a person's name ("Mr. Long"); titles such as "Lord"
#: or "King" also stand before offices ("the Lord Chancellor") and do not
_SURNAME_HONORIFICS = {"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "dr", "dr.", "madame", "mme", "mme.",
                       "monsieur", "mademoiselle", "herr", "frau"}


#: a first name (surname) that is also a word for a person's role ("Dean", "Smith") is a name only among
#: this many of the most frequent ones (the name lists are in order of frequency)
_COMMON_NAME_RANK = 200
_COMMON_SURNAME_RANK = 500


@lru_cache(maxsize=1)
def _function_words() -> frozenset:
    """English function words (NLTK's stopword list): never a name, and a mention they begin is an
    epithet ("My Friend", "The Ayah")."""
    from nltk.corpus import stopwords

    return frozenset(stopwords.words("english"))


@lru_cache(maxsize=4096)
def _role_noun(word: str) -> bool:
    """Whether lower-case ``word`` is an English common noun for a person (WordNet lexicographer file
    noun.person, not an instance): "chancellor", "lawyer", "heir", "dean", "smith"."""
    from robust_bench.text.wordnet import wordnet as wn

    return any(s.lexname() == "noun.person" and not s.instance_hypernyms()
               and word in (lemma.name() for lemma in s.lemmas()) for s in wn.synsets(word, pos="n"))


def _name_words(tokens, a: int, b: int, lexicon, real_word) -> list[int]:
    """The words of a gold PER mention (``tokens[a:b]``) that are a name and may be swapped.

    LitBank tags titles and descriptions used as names as PER ("the Chancellor", "Lawyer", "Happy",
    "Sea-dog"), and the name lists hold many English words ("Chancellor" is a US baby name). So:

    * a word that is no English word (WordNet, with inflections) is a name: "Bartleby", "Pirrip";
    * a first name the lists know is a name unless it is also a common noun for a person's role,
      outside the most frequent names: "Walter", "John", "Jack" are, "Chancellor", "Dean", "Major" not;
    * a surname the lists know is a name only beside one of those or after "Mr."/"Mrs."/"Miss", and
      then with the same exception for role nouns: "John Smith", "Mr. Long", not "the Lord Chancellor";
    * honorifics stay in the span and are kept by the swap.
    """
    from robust_bench.text.names import HONORIFIC_GENDER

    def title(w):
        return w[:1].upper() + w[1:].lower()

    words = tokens[a:b]
    if words and words[0].lower() in _function_words():
        return []                         # "My Friend", "The Ayah": an epithet, not a name
    plain = [w.isalpha() and not real_word(w.lower()) and w.lower() not in _function_words() for w in words]
    first = [lexicon.is_first_name(title(w)) and (not _role_noun(w.lower()) or min(
        lexicon.rank(title(w), "male"), lexicon.rank(title(w), "female")) < _COMMON_NAME_RANK) for w in words]
    anchored = any(plain) or any(first) or any(w.lower() in _SURNAME_HONORIFICS for w in words)
    out = []
    for k, w in enumerate(words):
        surname = anchored and lexicon.is_last_name(title(w)) and (
            not _role_noun(w.lower()) or lexicon.rank(title(w), "last") < _COMMON_SURNAME_RANK)
        if w.lower() in HONORIFIC_GENDER or plain[k] or first[k] or surname:
            out.append(a + k)
    return out


def _proper_name(tokens, a: int, b: int) -> bool:
    words = tokens[a:b]
    if a > 0 and tokens[a - 1].lower() in ("the", "a", "an"):
        return False
    return bool(words) and words[0][:1].isupper() and all(w[:1].isupper() or w.lower() in _NAME_PARTICLES
                                                           for w in words)


def _link_person_mentions(tokens, mentions: list[Mention]) -> list[Mention]:
    """Mentions of one person within a document share an entity id: a mention whose last word
    is the last word of a longer mention, or whose words equal it ("Hill" after "Chris Hill")."""
    out = []
    full: dict[str, str] = {}
    for m in sorted(mentions, key=lambda m: -(m.end - m.start)):
        words = tuple(tokens[m.start:m.end])
        key = None
        for w in (words, words[-1:], words[:1]):
            key = full.get(" ".join(w))
            if key:
                break
        if key is None:
            key = m.entity
            full.setdefault(" ".join(words), key)
            full.setdefault(words[-1], key)
            full.setdefault(words[0], key)
        out.append(Mention(m.start, m.end, m.type, key))
    return sorted(out, key=lambda m: m.start)


def _coref_persons(d, lexicon, nlp, real_word, *, gold_names: bool) -> list[dict]:
    """The persons of a coreference document with a name: per person cluster (:func:`_is_person_cluster`),
    its ``entity`` id (``c<cluster>``), ``cluster`` index, name ``mentions`` (:func:`_person_names`) and
    ``gender`` from its pronouns (or ``None``). Names come from the gold entities (``gold_names``: LitBank's
    layer, whose PER mentions are filtered by :func:`_name_words`; otherwise OntoNotes PERSON spans), or
    from ``nlp``'s NER when the corpus has no entities."""
    from spacy.tokens import Doc

    from robust_bench.text.nlp import map_entity_label

    if nlp is None:
        per = [(a, b) for a, b, lab in d.entities if map_entity_label(lab) == "PER"]
        per_tokens = {i for a, b in per for i in (_name_words(d.tokens, a, b, lexicon, real_word) if gold_names
                                                   else range(a, b))}
    else:
        per_tokens = set()
        bounds = list(d.sentence_starts) + [len(d.tokens)]
        sents = [Doc(nlp.vocab, words=d.tokens[a:b]) for a, b in zip(bounds, bounds[1:])]
        for a, sd in zip(bounds, nlp.pipe(sents, disable=[p for p in nlp.pipe_names if p != "ner"])):
            for e in sd.ents:
                if map_entity_label(e.label_) == "PER":
                    per_tokens.update(range(a + e.start, a + e.end))
    persons = []
    for cid, cluster in enumerate(d.clusters):
        names = [(a, b, person_name_tokens(d.tokens, a, b)) for a, b in cluster]
        if not _is_person_cluster(d.tokens, cluster, names, per_tokens, lexicon):
            continue
        spans = _person_names(d.tokens, names, per_tokens, lexicon, keep_untagged=not gold_names)
        if spans:
            persons.append({"entity": f"c{cid}", "cluster": cid, "gender": _pronoun_gender(d.tokens, cluster),
                            "mentions": [Mention(a, b, "PER", f"c{cid}") for a, b in spans]})
    return persons


_DETERMINERS = frozenset({"the", "a", "an", "his", "her", "my", "our", "their", "this", "that", "your", "its"})


@lru_cache(maxsize=4096)
def _animal(noun: str) -> bool:
    """Whether the first WordNet sense of ``noun`` is an animal ("dog", "horse", "pony")."""
    from robust_bench.text.wordnet import wordnet as wn

    senses = wn.synsets(noun, pos="n")
    return bool(senses) and senses[0].lexname() == "noun.animal"


def _target_refusal(d, person: dict, roles: dict, lexicon) -> str | None:
    """Why ``person`` cannot be the person a coreference document's variants rename, or ``None``.

    Refused: a name word whose role nothing decides (:func:`robust_bench.perturb.names.name_word_roles`:
    "Strether" alone is no more a first name than a surname, and the paper's default, the last name,
    turned "Lucilla" into a surname); a name word the document also writes in lower case ("Hope",
    "Will") or after "the" ("of the Hudson"), or inside a place, facility, organisation or vessel of
    the gold layer; a gold name with capitalised words that are not names ("Ginger Nut", "Vishnu the
    Preserver"), which would be half swapped; and an animal (a mention such as "the dog": "Buck").
    """
    from robust_bench.text.nlp import map_entity_label

    toks = d.tokens
    inside = {i for m in person["mentions"] for i in range(m.start, m.end)}
    low = {toks[i].lower() for i in inside if toks[i].lower() not in HONORIFIC_GENDER and toks[i] not in PARTICLES}
    if any(roles.get(w, ("last", None))[1] is None for w in low):
        return "a name word whose role (first or last name) nothing decides"
    if low & {t for t in toks if t.islower()}:
        return "a name word the document also writes as a common word"
    if low & {toks[i + 1].lower() for i in range(len(toks) - 1) if toks[i].lower() == "the"}:
        return "a name word the document also writes after 'the'"
    per = [(a, b) for a, b, lab in d.entities if map_entity_label(lab) == "PER"]
    in_person = {i for a, b in per for i in range(a, b)}
    other = {toks[i].lower() for a, b, lab in d.entities if map_entity_label(lab) != "PER" for i in range(a, b)
             if i not in in_person}
    if low & other:
        return "a name word that also names a place, an organisation or a vessel"
    for a, b in per:
        if inside & set(range(a, b)) and any(
                i not in inside and toks[i][:1].isupper() and toks[i].lower() not in HONORIFIC_GENDER
                and toks[i].lower() not in _function_words() for i in range(a, b)):
            return "a name with words that are not names"
    if any(b - a >= 2 and toks[a].lower() in _DETERMINERS and toks[b - 1].isalpha() and _animal(toks[b - 1].lower())
           for a, b in d.clusters[person["cluster"]]):
        return "an animal"
    if any(m.start > 0 and toks[m.start - 1] in ("St.", "St", "Saint", "Ste.", "Ste") for m in person["mentions"]):
        return "a name after 'St.' (a saint, or part of a surname: St. Aubert)"
    # the first names that go with the person's surname anywhere in the document ("John Carter" and his
    # "Captain Jack Carter"): a nickname and its full form need related replacements
    lasts = {toks[m.end - 1].lower() for m in person["mentions"] if roles.get(toks[m.end - 1].lower(), ("",))[0] == "last"}
    firsts = {toks[i].lower() for a, b, lab in d.entities if map_entity_label(lab) == "PER" and b - a >= 2
              and toks[b - 1].lower() in lasts for i in range(a, b - 1)
              if toks[i][:1].isupper() and toks[i].lower() not in HONORIFIC_GENDER}
    firsts |= {toks[i].lower() for m in person["mentions"] for i in range(m.start, m.end)
               if roles.get(toks[i].lower(), ("",))[0] == "first"}
    if nickname_pairs(firsts):
        return "a name whose family holds a nickname and its full form"
    return None


def _human(d, person: dict) -> bool:
    """Whether a person cluster shows that it is human: a title ("Mr.", "Aunt"), a full name of two or
    more words, or a mention headed by a noun for a person ("the girl", "his wife")."""
    toks = d.tokens
    if any(m.end - m.start >= 2 or (m.start > 0 and toks[m.start - 1].lower() in HONORIFIC_GENDER)
           for m in person["mentions"]):
        return True
    return any(b - a >= 2 and toks[a].lower() in _DETERMINERS and toks[b - 1].isalpha() and _person_noun(toks[b - 1].lower())
               for a, b in d.clusters[person["cluster"]])


@lru_cache(maxsize=4096)
def _person_noun(noun: str) -> bool:
    """Whether the first WordNet sense of ``noun`` is a person ("girl", "wife", "gardener")."""
    from robust_bench.text.wordnet import wordnet as wn

    senses = wn.synsets(noun, pos="n")
    return bool(senses) and senses[0].lexname() == "noun.person"


def _is_person_cluster(tokens, cluster, names, per_tokens: set[int], lexicon) -> bool:
    """A coreference cluster is a person when a name mention overlaps a PER entity and the cluster
    also has a gendered pronoun, an honorific, or a name the name lists know ("Chancery" and
    "Lincoln 's Inn Hall", tagged PER by a news-trained tagger, have none of these)."""
    from robust_bench.text.names import HONORIFIC_GENDER

    spans = [n for _, _, n in names if n is not None]
    if not any(any(i in per_tokens for i in range(*n)) for n in spans):
        return False
    if any(tokens[b - 1].lower() in _PLACE_HEADS for a, b in spans):
        return False                       # "the Golden Krone Hotel", "Lincoln Park"
    if _pronoun_gender(tokens, cluster) or any(tokens[a].lower() in HONORIFIC_GENDER for a, _ in cluster):
        return True
    return any(lexicon.is_first_name(w.title()) for a, b in spans for w in tokens[a:b])


def _person_names(tokens, names, per_tokens: set[int], lexicon, *, keep_untagged: bool = True) -> list[tuple[int, int]]:
    """The name spans of a person cluster that are really the person's name: a span that overlaps
    a PER entity is cut to the entity ("John Grier" of "the John Grier Home"); a span the tagger
    missed (never, with ``keep_untagged=False``: gold names) is kept only when every word is a word of a tagged span or a name the lists know
    ("Judy"), not a place or an institution of the same cluster ("the Female Inebriate Asylum")."""
    tagged, untagged = [], []
    for _, _, n in names:
        if n is None:
            continue
        inside = [i for i in range(*n) if i in per_tokens]
        if inside:
            a = inside[0]
            b = a
            while b < n[1] and b in per_tokens:
                b += 1
            tagged.append((a, b))
        else:
            untagged.append(n)
    if not keep_untagged:                 # gold names: what the annotators did not mark as a name is not one
        return sorted(tagged)
    known = {w.lower() for a, b in tagged for w in tokens[a:b]}
    ok = [n for n in untagged if all(w.lower() in known or lexicon.is_first_name(w.title())
                                     or lexicon.is_last_name(w.title()) for w in tokens[n[0]:n[1]])]
    return sorted(tagged + ok)


_PLACE_HEADS = {"hotel", "inn", "hall", "park", "street", "road", "river", "point", "house", "church", "square",
                "lane", "court", "bridge", "castle", "abbey", "mountain", "lake", "island", "bay", "hill", "place",
                "station", "office", "company", "bank", "college", "school", "university", "club", "society"}


def _pronoun_gender(tokens, cluster) -> str | None:
    votes = Counter()
    for a, b in cluster:
        if b - a == 1:
            w = tokens[a].lower()
            if w in ("he", "him", "his", "himself"):
                votes["male"] += 1
            elif w in ("she", "her", "hers", "herself"):
                votes["female"] += 1
    if votes and len(votes) == 1:
        return next(iter(votes))
    return None


def _spaces_after(spaces, smap, n_new: int) -> list[str]:
    out = [" "] * n_new
    for i, sp in enumerate(spaces):
        a, b = smap.token(i)
        if b > a:
            out[b - 1] = sp
        elif a > 0:
            out[a - 1] = sp     # a deleted token ("Wal-Mart 's" -> "Macy's"): its space goes to the one before
    return out


def _render(tokens, spaces) -> str:
    return "".join(t + s for t, s in zip(tokens, spaces)).rstrip()


def _char_offsets(tokens, spaces, n1: int) -> list[tuple[int, int]]:
    """Character offsets of each token within its own sentence (the first ``n1`` tokens are sentence 1)."""
    out, pos = [], 0
    for i, (t, s) in enumerate(zip(tokens, spaces)):
        if i == n1:
            pos = 0
        out.append((pos, pos + len(t)))
        pos += len(t) + len(s)
    return out


def _hash_files(files) -> str:
    import hashlib

    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).name.encode())
        h.update(sha256_file(f).encode())
    return h.hexdigest()


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


def _spacy_name(name):
    from robust_bench.text.nlp import spacy_model_name

    return spacy_model_name(ner_model_name(name))
