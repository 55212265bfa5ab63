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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.citations import BALASUBRAMANIAN_2020
from robust_bench.data.registry import register_builder
from robust_bench.io.sources import SourceFile, SourceNotFoundError, describe_read, resolve_sources, sha256_file
from robust_bench.io.task_data import CONLL2003_TAGS, MRPC_LABELS, read_conll2003, read_mrpc
from robust_bench.perturb.names import (GOLD_TAG_DOUBT, RANDOM_COPIES, coref_variant, distinct_variants, place_doubts,
                                        placed_name, NameLexicon, apply_swaps, article_use, automatic_checks,
                                        business_companies, char_offsets, choose_target, coref_persons, coverage_notes,
                                        document_mentions, gold_person_names, harvest_organisations,
                                        industries_by_company, institution_counts, is_institution,
                                        is_sports_headline, link_document_persons, mention_counts, mrpc_pair,
                                        organisation_kind, pair_variant, plan_swaps, row_refusals,
                                        sentence_variant, split_statistics, suffixed_companies)
from robust_bench.perturb.organisations import company_key, read_fortune500, read_traded_companies
from robust_bench.text.nlp import ner_model_name

_CITATION = BALASUBRAMANIAN_2020

_DESCRIPTION = """\
Named-entity swaps ("What's in a Name?", Balasubramanian et al., 2020): every mention of a name
is replaced by another name of the same type, consistently in the whole example or document
(full names, first names alone, last names alone and possessives; first names by first names of
the same gender, last names by last names), never by a name already present and never two
entities by one name. Each group holds the original (variant 0) and up to B swapped variants, each a
distinct text (fewer where fewer distinct swaps exist; the card gives the mean and minimum); a robust
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
_VERSION = datasets.Version("2.4.0")
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
        from robust_bench.text.nlp import load_spacy, pipe_cached

        cfg = self.config
        paths, _ = resolve_sources({"train": cfg.train, **(cfg.files or {})}, source_dir=cfg.source_dir,
                                   dl_manager=dl_manager)
        texts = [t for p in paths.values() for r in read_mrpc(p) for t in (r["sentence1"], r["sentence2"])]
        nlp = load_spacy(ner_model_name(cfg.spacy_model), require=("ner",))
        lower = Counter(w for t in texts for w in t.split() if w.islower())
        docs = pipe_cached(nlp, texts)         # the whole corpus: annotated once, then read from the cache
        self._known_companies |= business_companies(docs)
        self._train_docs = docs               # for the industries of companies no list knows
        counts = institution_counts(docs, lower)
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
            self._known_companies |= suffixed_companies(sents)
        self._train_ngrams = None if sents is None else Counter(
            tuple(w.lower() for w in s[i:i + n]) for s in sents for n in range(1, 5) for i in range(len(s) - n + 1))
        self._train_cache = None            # the examples' workers need the counts, not the sentences
        self.provenance.update({"budget": cfg.budget, "random_copies": RANDOM_COPIES, "types": list(cfg.types),
                                "spacy_model": _spacy_name(cfg.spacy_model) if cfg.task != "conll2003" else None})
        if cfg.task == "coref":
            from robust_bench.io.conll2012 import read_conll2012

            files, origin = self._coref_files(dl_manager)
            if not files:
                raise SourceNotFoundError("no CoNLL-2012 files found for names_coref")
            docs, layers = [], []
            for f in files:
                file_docs = read_conll2012(f)
                layer = gold_person_names(f, file_docs)
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
                self._known_companies |= suffixed_companies(
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
                                             "pools": {k: len(lexicon.pool(k)) for k in ("male", "female")}}
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
    def _rng(self, split: str, group: str, variant: int) -> random.Random:
        stream = "random" if split == "random" else "swap"
        return random.Random(f"robust-bench/{self.config.seed}/{self.config.name}/{stream}/{group}/{variant}")

    def _generate_examples(self, examples, split, lexicon):
        gen = {"mrpc": self._mrpc, "conll2003": self._conll, "coref": self._coref}[self.config.task]
        yield from gen(examples, split, lexicon)

    def _mrpc_pairs(self, examples: dict, lexicon) -> dict:
        """Tag every pair once (in the main process), keep the organisation mentions that pass
        :func:`organisation_mentions`, and record coverage before and after, by reason, in the
        provenance. Returns split -> the pairs with an organisation in both sentences (the paper's
        filter), each with its tokens, mentions, the filter's refusals and what the article check needs."""
        from robust_bench.text.nlp import load_spacy

        nlp = load_spacy(ner_model_name(self.config.spacy_model), require=("ner",))
        coverage = {}
        out = {}
        parsed = {split: list(nlp.pipe([t for r in rows for t in (r["sentence1"], r["sentence2"])], batch_size=256))
                  for split, rows in examples.items()}
        for docs in parsed.values():
            self._known_companies |= business_companies(docs)
        every = list(getattr(self, "_train_docs", None) or []) + [d for docs in parsed.values() for d in docs]
        self._train_docs = None
        inferred = industries_by_company(every, lexicon)
        self.provenance["industries_inferred"] = len(inferred)
        for split, rows in examples.items():
            docs = parsed[split]
            kept, tagged_pairs = [], 0
            refused: Counter = Counter()
            n_tagged = n_kept = 0
            for k, r in enumerate(rows):
                tagged, both, mentions, why, pair = mrpc_pair(docs[2 * k], docs[2 * k + 1], self.config.types, lexicon,
                                                              self._lowercase_words, self._known_companies, inferred)
                tagged_pairs += both
                n_tagged += tagged
                n_kept += len(mentions)
                refused.update(why)
                if pair is not None:
                    kept.append({"row": r, **pair})
            coverage[split] = {"pairs": len(rows), "pairs with a tagged organisation in both sentences": tagged_pairs,
                               "pairs kept": len(kept), "mentions tagged": n_tagged, "mentions kept": n_kept,
                               "mentions refused by reason": dict(sorted(refused.items(), key=lambda kv: -kv[1]))}
            out[split] = kept
        self.provenance["coverage"] = coverage
        return out

    def _mrpc(self, pairs, split, lexicon):
        for pair in pairs:
            r, toks, mentions = pair["row"], pair["tokens"], pair["mentions"]
            group = f"{split if split != 'random' else 'test'}-{r['idx']:05d}"
            orig_chars = char_offsets(toks, pair["spaces"], pair["n1"])

            def attempt(k, pair=pair, group=group, orig_chars=orig_chars):
                plan = None if k == 0 else plan_swaps(pair["tokens"], pair["mentions"], lexicon,
                                                      self._rng(split, group, k), types=self.config.types)
                out = pair_variant(pair, plan, self._article_use, self._train_count, orig_chars)
                return out[:2], out

            for v, (s1, s2, edits, out_edits, refusals) in self._variant_list(split, attempt,
                                                                             (r["sentence1"], r["sentence2"])):
                yield f"{split}-{r['idx']:05d}-{v:03d}", {
                    "id": f"{split}-{r['idx']:05d}-{v:03d}", "idx": r["idx"], "sentence1": s1, "sentence2": s2, "label": r["label"],
                    "original_sentence1": r["sentence1"], "original_sentence2": r["sentence2"],
                    "group_id": group, "variant": v, "edits": out_edits, "n_swapped": len(out_edits),
                    "refusals": refusals, **mention_counts(mentions, self.config.types, edits)}

    def _variant_list(self, split: str, attempt, original) -> list[tuple[int, Any]]:
        """(variant, payload) of a group: the original (``attempt(0)``) and the distinct swaps
        (:func:`distinct_variants`, at most B); the ``random`` split's copies as drawn."""
        if split == "random":
            return [(v, attempt(v)[1]) for v in range(1, RANDOM_COPIES + 1)]
        return list(enumerate([attempt(0)[1]] + distinct_variants(attempt, self.config.budget, original)))

    def _conll(self, documents, split, lexicon):
        for sents in documents:
            doc_id = sents[0]["document"]
            tokens, offsets, mentions = document_mentions(sents)
            if not any(m.type in self.config.types for m in mentions):
                continue
            mentions, refuse = link_document_persons(tokens, sents, offsets, mentions)
            refuse = {**place_doubts(tokens, mentions, lexicon, offsets), **refuse}
            cache: dict = {}          # a document's plans, drawn once per attempt and shared by its sentences

            def doc_plan(k, tokens=tokens, mentions=mentions, refuse=refuse, cache=cache, doc_id=doc_id):
                if k not in cache:
                    plan = plan_swaps(tokens, mentions, lexicon, self._rng(split, f"doc{doc_id}", k),
                                      types=self.config.types, gold=True, bare="last", refuse=refuse) if k else None
                    cache[k] = (plan, apply_swaps(tokens, plan) if plan else None)
                return cache[k]

            for r, o in zip(sents, offsets):
                tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
                n = len(r["tokens"])
                local_mentions = [m for m in mentions if o <= m.start < o + n]
                if not any(m.type in self.config.types for m in local_mentions):
                    continue
                group = f"{'test' if split == 'random' else split}-{r['idx']:05d}"

                def attempt(k, r=r, o=o, n=n, tags=tags, local_mentions=local_mentions):
                    plan, res = doc_plan(k)
                    out = sentence_variant(r, o, tags, local_mentions, self.config.types, res, self._train_count)
                    return tuple(out[0]), (*out, row_refusals(plan, o, o + n))

                for v, (new_toks, new_tags, edits, counts, refusals) in self._variant_list(split, attempt,
                                                                                          tuple(r["tokens"])):
                    yield f"{split}-{r['idx']:05d}-{v:03d}", {
                        "id": f"{split}-{r['idx']:05d}-{v:03d}", "idx": r["idx"], "document": doc_id, "tokens": new_toks, "ner_tags": new_tags,
                        "original_tokens": list(r["tokens"]), "original_ner_tags": list(r["ner_tags"]),
                        "group_id": group, "variant": v, "edits": edits, "n_swapped": len(edits),
                        "refusals": refusals, **counts}

    def _coref_targets(self, docs, lexicon) -> list[dict]:
        """Choose, in every document, the one person whose name the variants change (the paper replaces
        "only mentions of a single name in the long document", §2.3): the person with the most name
        mentions among those that pass :func:`target_refusal` and whose trial swap leaves none of their
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
            persons = coref_persons(d, lexicon, nlp, real_word,
                                     gold_names=self.provenance["person_names"].startswith("LitBank"))
            if not persons:
                left_out["no named person"] += 1
                continue
            mentions = [m for p in persons for m in p["mentions"]]
            persons, n = [p for p in persons if not placed_name(d.tokens, p["mentions"], lexicon)], len(persons)
            refused.update({GOLD_TAG_DOUBT: n - len(persons)} if n > len(persons) else {})      # issue 53
            hints = {p["entity"]: p["gender"] for p in persons if p["gender"]}
            target, passed_over = choose_target(d, persons, mentions, hints, lexicon)
            refused.update(passed_over)
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

            def attempt(k, t=t):
                out = coref_variant(t, lexicon, self._rng(split, t["doc"].key, k) if k else None)
                return tuple(out[0]), out

            for v, (toks, clusters, eds, starts, swapped, used, refusals) in self._variant_list(
                    split, attempt, tuple(d.tokens)):
                yield f"{split}-{d.key}-{v:03d}", {
                    "id": f"{split}-{d.key}-{v:03d}", "document": d.key, "tokens": toks, "sentence_starts": starts,
                    "clusters": [[list(s) for s in c] for c in clusters], "swapped_clusters": swapped,
                    "genders": used, "group_id": d.key, "variant": v,
                    "edits": [{**e.as_dict(), "segment": "tokens", "train_count": -1} for e in eds],
                    "n_swapped": len(eds), "refusals": refusals, **mention_counts(own, ("PER",), eds)}

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
            checks = automatic_checks(ds, self.config.task, getattr(self, "_lexicon_obj", None), originals)
            src = "test" if split == "random" else split
            out[split] = split_statistics(ds, checks, read.get(src, {}).get("rows"))
        out["_lexicon"] = self.provenance.get("lexicon_sizes", {})
        return out

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        return coverage_notes(self.config, stats, self.provenance, RANDOM_COPIES)


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
