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

import random
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
from robust_bench.perturb.names import (Mention, NameLexicon, apply_swaps, harvest_organisations, is_sports_headline,
                                        mentions_from_tags, person_name_tokens, plan_swaps, realign_tags)

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
_CONLL_HUB = "https://huggingface.co/datasets/eriktks/conll2003/resolve/refs%2Fconvert%2Fparquet/conll2003"
_CONLL_TRAIN = SourceFile("conll2003/train.txt", f"{_CONLL_HUB}/train/0000.parquet")
_MSR = "https://dl.fbaipublicfiles.com/senteval/senteval_data"
_LITBANK = "https://github.com/dbamman/litbank/archive/refs/heads/master.zip"
_VERSION = datasets.Version("1.2.0")
_RANDOM_COPIES = 10


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
        NER pipeline for corpora without gold entity types (MRPC, LitBank).
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
        self.provenance["organisations_harvested"] = {"names": len(orgs), "documents": len(headlines) - len(sports),
                                                      "sports_documents_left_out": len(sports)}
        lex = NameLexicon.load(paths["names"], paths["lexicon"], organisations=orgs, extra=cfg.names)
        self.provenance["name_lists"] = {k: describe_read(p, origin=origin, url=u.url, rows=0)
                                         for (k, p), u in zip(paths.items(), (_NAMES, _LEXICON, _CONLL_TRAIN))}
        if cfg.exclude_seen:
            lex = lex.without(self._seen_words(dl_manager))
        self.provenance["lexicon_sizes"] = lex.sizes()
        self.provenance["user_names"] = cfg.names
        self.provenance["exclude_seen"] = cfg.exclude_seen
        return lex

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
            examples = {"test": docs}
        else:
            files = {s: cfg.files[s] for s in cfg.splits if s in cfg.files}
            paths, origin = resolve_sources(files, source_dir=cfg.source_dir, dl_manager=dl_manager)
            reader = read_mrpc if cfg.task == "mrpc" else read_conll2003
            examples = {s: reader(p) for s, p in paths.items()}
            self.provenance["source_origin"] = origin
            self.provenance["source_read"] = {s: describe_read(paths[s], origin=origin, url=files[s].url,
                                                               rows=len(examples[s])) for s in paths}
            self.provenance["source_sha256"] = {s: sha256_file(p) for s, p in paths.items()}
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

    def _mrpc(self, rows, split, lexicon):
        from robust_bench.text.nlp import load_spacy, map_entity_label

        nlp = load_spacy(self.config.spacy_model, require=("ner",))
        texts = [t for r in rows for t in (r["sentence1"], r["sentence2"])]
        docs = list(nlp.pipe(texts, batch_size=256))
        lowercase = self._lowercase_words      # from the training data: the same in every shard
        for k, r in enumerate(rows):
            d1, d2 = docs[2 * k], docs[2 * k + 1]
            toks = [t.text for t in d1] + [t.text for t in d2]
            spaces = [t.whitespace_ for t in d1] + [t.whitespace_ for t in d2]
            n1 = len(d1)
            mentions = []
            for off, d in ((0, d1), (n1, d2)):
                for e in d.ents:
                    typ = map_entity_label(e.label_)
                    if typ in self.config.types:
                        if typ == "ORG" and _not_an_organisation(e, lexicon, lowercase):
                            continue
                        key = " ".join(t.text for t in e).lower()
                        mentions.append(Mention(off + e.start, off + e.end, typ, f"{typ}:{_entity_key(key)}"))
            if not (any(m.end <= n1 for m in mentions) and any(m.start >= n1 for m in mentions)):
                continue            # the paper's filter: an entity of the type in both sentences
            mentions = _link_organisations(toks, mentions)
            group = f"{split if split != 'random' else 'test'}-{r['idx']:05d}"
            orig_chars = _char_offsets(toks, spaces, n1)
            for v in self._variants(split):
                refusals = []
                if v == 0:
                    new, edits = toks, []
                    new_spaces = spaces
                else:
                    plan = plan_swaps(toks, mentions, lexicon, self._rng(split, group, v), types=self.config.types)
                    _fix_determiners(plan, toks, lambda i: d1[i] if i < n1 else d2[i - n1], {0, n1})
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

    def _conll(self, rows, split, lexicon):
        by_doc: dict[int, list[dict]] = {}
        for r in rows:
            by_doc.setdefault(r["document"], []).append(r)
        for doc_id, sents in by_doc.items():
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
            plans = {v: (plan_swaps(tokens, mentions, lexicon, self._rng(split, f"doc{doc_id}", v),
                                    types=self.config.types, gold=True) if v else None) for v in self._variants(split)}
            applied = {v: apply_swaps(tokens, p) if p else None for v, p in plans.items()}
            reported = False          # a document's refusals go on its first row, so the card's sums count them once
            for r, o in zip(sents, offsets):
                tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
                if not any(o <= m.start < o + len(r["tokens"]) and m.type in self.config.types for m in mentions):
                    continue
                group = f"{'test' if split == 'random' else split}-{r['idx']:05d}"
                n = len(r["tokens"])
                first_row, reported = not reported, True
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
                        "refusals": _refusals(plans[v]) if first_row and plans[v] else [], **counts}

    def _coref(self, docs, split, lexicon):
        from spacy.tokens import Doc

        from robust_bench.text.nlp import load_spacy, map_entity_label
        from robust_bench.text.pseudowords import is_real_word_factory

        nlp = load_spacy(self.config.spacy_model, require=("ner",))
        real_word = is_real_word_factory()
        for d in docs:
            bounds = list(d.sentence_starts) + [len(d.tokens)]
            per_tokens: set[int] = set()
            gold_names = self.provenance["person_names"].startswith("LitBank")
            if d.entities or not self.provenance["person_names"].startswith("NER"):
                per_tokens = {i for a, b, lab in d.entities if map_entity_label(lab) == "PER" for i in range(a, b)}
                if self.provenance["person_names"].startswith("LitBank"):
                    per_tokens = {i for a, b, lab in d.entities for i in _name_words(d.tokens, a, b, lexicon, real_word)}
            else:
                sents = [Doc(nlp.vocab, words=d.tokens[a:b]) for a, b in zip(bounds, bounds[1:])]
                for a, sd in zip(bounds, nlp.pipe(sents, disable=[p for p in nlp.pipe_names if p != "ner"])):
                    for e in sd.ents:
                        if map_entity_label(e.label_) == "PER":
                            per_tokens.update(range(a + e.start, a + e.end))
            mentions, swapped, genders = [], [], []
            for cid, cluster in enumerate(d.clusters):
                names = [(a, b, person_name_tokens(d.tokens, a, b)) for a, b in cluster]
                if not _is_person_cluster(d.tokens, cluster, names, per_tokens, lexicon):
                    continue
                swapped.append(cid)
                genders.append(_pronoun_gender(d.tokens, cluster))
                mentions += [Mention(a, b, "PER", f"c{cid}") for a, b in _person_names(
                    d.tokens, names, per_tokens, lexicon, keep_untagged=not gold_names)]
            if not swapped:
                continue
            hints = {f"c{c}": g for c, g in zip(swapped, genders) if g}
            for v in self._variants(split):
                refusals = []
                if v == 0:
                    toks, clusters, edits, used = list(d.tokens), d.clusters, [], ["" for _ in swapped]
                    starts = list(d.sentence_starts)
                    eds = []
                else:
                    plan = plan_swaps(d.tokens, mentions, lexicon, self._rng(split, d.key, v), types=("PER",),
                                      gender_hints=hints)
                    refusals = _refusals(plan)
                    toks, eds, smap = apply_swaps(d.tokens, plan)
                    clusters = [[smap.span(a, b) for a, b in c] for c in d.clusters]
                    starts = [smap.token(s)[0] for s in d.sentence_starts]
                    edits = [{**e.as_dict(), "segment": "tokens", "train_count": -1} for e in eds]
                    used = [plan.genders.get(f"c{c}", "") for c in swapped]
                yield f"{split}-{d.key}-{v:03d}", {
                    "id": f"{split}-{d.key}-{v:03d}", "document": d.key, "tokens": toks, "sentence_starts": starts,
                    "clusters": [[list(s) for s in c] for c in clusters], "swapped_clusters": swapped,
                    "genders": used, "group_id": d.key, "variant": v, "edits": edits, "n_swapped": len(edits),
                    "refusals": refusals,
                    **_mention_counts(mentions, ("PER",), eds)}

    # ---- card ----------------------------------------------------------------------------------
    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Groups (examples with an entity of the type), variants, swapped mentions per variant,
        roles and the examples read, recounted from the rows."""
        out = {}
        read = self.provenance.get("source_read", {})
        for split, ds in dataset.items():
            cols = ds.select_columns(["group_id", "variant", "n_swapped", "edits", "mentions", "mentions_swapped",
                                     "refusals"])
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
                          "refusals": dict(sorted(refused.items()))}
        out["_lexicon"] = self.provenance.get("lexicon_sizes", {})
        return out

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
            lines.append("Replacement names: " + ", ".join(f"{k} {v:,}" for k, v in lex.items()) + ". Organisations are "
                         "harvested from the ORG entities of CoNLL-2003 train outside sports stories: companies (names "
                         "the corpus writes with a corporate suffix) replace companies, institutions (courts, "
                         f"ministries, parties; seen at least {cfg.min_org_count} times) replace institutions; names "
                         "the corpus also tags as a location or a person are left out. \"Mentions swapped\" is the "
                         "share of the type's mentions in the swapped variants that an edit replaced.")
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
        if cfg.task == "mrpc":
            lines.append("Mentions come from the spaCy NER pipeline (labels mapped to PER/ORG/LOC), less the ORG "
                         "mentions the name lists say are a person or a place; a pair is kept when both sentences "
                         "have an ORG mention (the paper's filter, 218 test pairs with its tagger); mentions of one "
                         "organisation (a shorter name, an acronym) are linked, and one mapping is shared by both "
                         "sentences. Edit offsets are characters.")
        elif cfg.task == "conll2003":
            lines.append("Mentions come from the gold PER tags; the mapping is shared by the whole document, tags "
                         "are realigned when a name changes length (a two-word surname). Edit offsets are tokens.")
        else:
            lines.append("A cluster is a person when one of its name mentions overlaps a person's name: LitBank's gold "
                         "entity layer (PER mentions that are proper names: capitalised, no article before them, and "
                         "words that are names, not titles or descriptions tagged PER such as \"the Lord "
                         "Chancellor\" or \"Sea-dog\"), OntoNotes gold entities, or else the spaCy NER pipeline; "
                         "every name mention of such a cluster is swapped "
                         "(first names by first names, last names by last names, gender from the name lists, "
                         "honorifics or the cluster's pronouns) and the gold clusters move with their spans. "
                         "Only variant 0 holds the original tokens (edits give the rest): documents are long.")
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


def _needs_the(name: str) -> bool | None:
    """Whether an organisation name takes "the" as a noun phrase: institutions with a head noun do
    ("the Senate", "the Bank of Japan"), companies do not ("Boeing", "IBM"); an institution's acronym
    goes either way ("the SEC", "NATO"): ``None``, the original's article stays."""
    from robust_bench.perturb.names import is_institution, organisation_kind

    words = name.split()
    if not is_institution(organisation_kind(name)):
        return False
    return None if len(words) == 1 and words[0].isupper() else True


def _fix_determiners(plan, tokens, token_of, sentence_starts: set[int]) -> None:
    """Keep the article right for the new organisation: "the NYSE" -> "Boeing" (not "the Boeing"),
    "Congress passed" -> "the Senate passed", "an SEC filing" -> "a Boeing filing". An article is added
    only to a name heading an argument right after a preposition, a verb or punctuation, never after
    a modifier ("the five-member FCC panel") or inside a name ("Agriculture and Forestry Ministry").
    Edits the plan's spans in place."""
    from robust_bench.perturb.names import ORGANISATION_KINDS

    for (a, b), (words, entity, typ, role) in sorted(plan.spans.items()):
        if typ != "ORG" or role not in ORGANISATION_KINDS or not words:
            continue
        new = " ".join(words)
        prev = tokens[a - 1] if a > 0 and a not in sentence_starts else None
        free = a - 1 >= 0 and not any(x <= a - 1 < y for x, y in plan.spans)
        if prev is not None and prev.lower() in ("a", "an") and free:
            article = "an" if _vowel_sound(new) else "a"
            if prev.lower() != article:
                plan.spans[(a - 1, a)] = ((article.capitalize() if prev[0].isupper() else article,), entity, typ,
                                          "article")
            continue
        head = token_of(b - 1)
        if prev is not None and prev.lower() == "the" and free and _needs_the(new) is False:
            del plan.spans[(a, b)]
            first = words[0] if prev == "the" or words[0][:1].isupper() else words[0].capitalize()
            plan.spans[(a - 1, b)] = ((first,) + tuple(words[1:]), entity, typ, role)
        elif _needs_the(new) and head.dep_ in _ARGUMENT_DEPS and not any(c.dep_ == "det" for c in head.children) \
                and (prev is None or token_of(a - 1).pos_ in ("ADP", "VERB", "AUX", "PUNCT", "SCONJ")
                and prev.lower() not in _DETERMINER_WORDS and prev not in ("'s", "'")):
            plan.spans[(a, b)] = (("The" if prev is None else "the",) + tuple(words), entity, typ, role)


#: A name heading an argument takes an article; one used as a modifier ("10-year Treasury note",
#: "Agriculture and Forestry Ministry") does not (ClearNLP and UD labels).
_ARGUMENT_DEPS = {"nsubj", "nsubjpass", "nsubj:pass", "dobj", "obj", "iobj", "pobj", "obl", "attr", "appos", "ROOT",
                  "root", "dative", "agent"}
_DETERMINER_WORDS = {"the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her", "our", "your",
                     "my", "every", "each", "any", "no", "some", "another"}


def _vowel_sound(name: str) -> bool:
    """Whether ``name`` begins with a vowel sound ("an SEC", "an Intel", "a UN", "a Boeing")."""
    w = name.split()[0]
    if w.isupper() and len(w) > 1:                           # an acronym is spelled out
        return w[0] in "AEFHILMNORSX"
    return w[0].lower() in "aeio" or (w[0].lower() == "u" and w[:3].lower() in ("und", "unr", "unl"))


def _refusals(plan) -> list[dict]:
    """A plan's mentions left unchanged, by reason (``SwapPlan.skipped``), as the ``refusals`` column."""
    return [{"reason": k, "count": int(v)} for k, v in sorted(plan.skipped.items()) if v]


def _mention_counts(mentions, types, edits) -> dict[str, int]:
    """Mentions of the swapped types in the example, and how many of them an edit touches."""
    ms = [m for m in mentions if m.type in types]
    hit = sum(1 for m in ms if any(e.start < m.end and e.end > m.start for e in edits))
    return {"mentions": len(ms), "mentions_swapped": hit}


def _not_an_organisation(ent, lexicon, lowercase_words: set[str]) -> bool:
    """A tagger's ORG that is no organisation: no name word in it ("<"), a digit (a product), one word
    the training data also writes in lower case ("Retailers"), an honorific before it ("Mr. Ballmer"), or,
    without a corporate suffix ("Walt Disney Co." stays), a person by the name lists ("Lara",
    "Marlon Samuels") or a place by the lexicon ("Paris")."""
    from robust_bench.perturb.names import organisation_core

    from robust_bench.text.names import HONORIFIC_GENDER, is_name_word

    words = [t.text for t in ent]
    core = organisation_core(words)
    if not core or not any(is_name_word(w) or w.isupper() for w in core):
        return True                                  # a tagger's "<" or "the"
    if any(any(ch.isdigit() for ch in w) for w in core):
        return True                                  # a product or a release ("MSN Messenger 6")
    if len(core) == 1 and core[0].lower() in lowercase_words:
        return True                                  # a capitalised common word ("Retailers")
    if ent.start > 0 and ent.doc[ent.start - 1].text.lower() in HONORIFIC_GENDER:
        return True                                  # "Mr. Ballmer"
    if len(core) < len(words) and words[-1].lower().rstrip(",.") in ("co", "corp", "inc", "ltd", "plc", "llc"):
        return False
    return lexicon.is_first_name(core[0]) or lexicon.location_kind(" ".join(core)) is not None


def _link_organisations(tokens, mentions: list[Mention]) -> list[Mention]:
    """Mentions of one organisation in a pair share an entity id: one whose content words are a
    subset of another's ("Kleiner Perkins" and "Kleiner Perkins Caufield & Byers", "Bristol
    University" and "University of Bristol") or an acronym of the other's capitalised words ("FDA"),
    so both sentences keep naming the same organisation."""
    from robust_bench.perturb.names import organisation_core

    def content(m):
        return frozenset(w.lower() for w in organisation_core(tokens[m.start:m.end])
                         if w.lower() not in ("of", "the", "&", "and", "for"))

    def initials(m):
        return "".join(w[0] for w in organisation_core(tokens[m.start:m.end])
                       if w[:1].isupper() and w.lower() not in ("of", "the", "and", "for"))

    def same(short, long):
        c = content(short)
        if c <= content(long):
            return True
        word = " ".join(tokens[short.start:short.end])
        # an acronym of the longer name: "FDA" and "U.S. Food and Drug Administration"
        return len(c) == 1 and word.isupper() and word.isalpha() and 2 <= len(word) <= 6 and word in initials(long)

    orgs = sorted((m for m in mentions if m.type == "ORG" and content(m)), key=lambda m: -len(content(m)))
    entity = {}
    for k, m in enumerate(orgs):
        entity[m] = next((entity[o] for o in orgs[:k] if same(m, o)), m.entity)
    return [Mention(m.start, m.end, m.type, entity.get(m, m.entity)) for m in mentions]


#: lower-case words inside a proper person name ("Duke of Wellington", "Ludwig van Beethoven")
_NAME_PARTICLES = {"of", "de", "van", "von", "der", "le", "la", "du", "da", "di", "del", "'s"}


def _gold_person_names(coref_file: Path, docs) -> Path | None:
    """Attach LitBank's gold PER mentions that are proper names to the documents of one coreference
    file, as OntoNotes entities are attached (``doc.entities``): the entity file of the same name in
    ``../entities/tsv/`` beside ``coref/``, if there is one (its path is returned, for the source hash).

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
        offset += n
    return path


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
    from nltk.corpus import wordnet as wn

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


def _spacy_name(name):
    from robust_bench.text.nlp import spacy_model_name

    return spacy_model_name(name)
