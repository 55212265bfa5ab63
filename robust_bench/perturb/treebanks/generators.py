"""The four generators of substitutes (``sememe``, ``synonym``, ``embedding``, ``mlm``), the case
copied onto each substitute (:func:`recover_word_case`), and the merge of their outputs in DepAttacker's
order (:func:`merge_candidates`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from robust_bench.perturb.treebanks.protection import _used_as_other_pos
from robust_bench.perturb.treebanks.site import (GENERATORS, MAX_SENSE_RANK, MAX_SUBSTITUTE_SENSE_RANK, MLM_DRAWS, MLM_KEEP,
                                               N_NEIGHBOURS, Site, SubstituteError)
from robust_bench.perturb.treebanks.vectors import WordVectors


#: PTB tags lemminflect inflects to
_INFLECTABLE = frozenset({"NNS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "JJR", "JJS", "RBR", "RBS"})
_WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
_XPOS_UPOS = {"NN": "NOUN", "VB": "VERB", "JJ": "ADJ", "RB": "ADV"}


def recover_word_case(candidate: str, original: str) -> str:
    """``candidate`` in the case pattern of ``original`` (lower, UPPER or Capitalised; else unchanged),
    as DepAttacker's ``recover_word_case``."""
    if original.islower():
        return candidate.lower()
    if original.isupper() and len(original) > 1:
        return candidate.upper()
    if original[:1].isupper() and original[1:].islower():
        return candidate[:1].upper() + candidate[1:].lower()
    return candidate


class EmbeddingGenerator:
    """The ``k`` nearest neighbours of the word in a vector space (§2.3; k = 50, pipe.json ``max_knn``)."""

    name = "embedding"

    def __init__(self, vectors: WordVectors, k: int = N_NEIGHBOURS):
        self.vectors = vectors
        self.k = k

    def generate(self, sites: Sequence[Site]) -> list[list[str]]:
        return [self.vectors.neighbours(s.word, self.k) for s in sites]


def _upos_of(site: "Site") -> str | None:
    if site.upos in _WORDNET_POS:
        return site.upos
    return _XPOS_UPOS.get((site.xpos or "")[:2])


def site_lemma(site: "Site") -> str:
    """The word's lemma: the gold one, else lemminflect's for its part of speech, else the lower-cased word."""
    if site.lemma and site.lemma != "_":
        return site.lemma.lower()
    up = _upos_of(site)
    if up:
        from lemminflect import getLemma

        found = getLemma(site.word, upos=up)
        if found:
            return found[0].lower()
    return site.word.lower()


def inflect_like(lemma: str, xpos: str | None) -> str | None:
    """``lemma`` in the inflection of the PTB tag ``xpos`` (lemminflect's first form), the lemma itself
    for a base-form tag (NN, JJ, RB, and VB/VBP other than "be"), None when lemminflect has no form."""
    if not xpos or xpos not in _INFLECTABLE:
        return lemma
    from lemminflect import getInflection

    forms = getInflection(lemma, tag=xpos)
    return forms[0] if forms else None


def is_abbreviation(short: str, long: str) -> bool:
    """Whether ``short`` (at most 4 letters) abbreviates ``long``: same first letter, shorter, its letters
    in order inside ``long`` ("hr" of "hour", "gal" of "gallon", "yr" of "year"). WordNet lists such
    abbreviations as synonyms; in running text they read as notes, not English prose."""
    if not short or len(short) > 4 or len(short) >= len(long) or short[0] != long[0]:
        return False
    it = iter(long)
    return all(ch in it for ch in short)


class WordNetGenerator:
    """WordNet synonyms (NLTK) of the word's lemma in its own part of speech, inflected like the word.

    DepAttacker's ``gen_synonym.py`` takes every synset of the surface form, whatever its part of
    speech; that reads "was" as the noun "WA" (Washington) and offers "washingtoned". Here, as the
    paper means (§2.3, "synonyms"):

    * the lemma (gold, else lemminflect's) is looked up with the word's own part of speech (the gold
      UPOS, else the PTB tag's first two letters);
    * only the original's :data:`MAX_SENSE_RANK` most frequent senses (WordNet's order) are used, and
      a synonym is kept only if that sense is among its own :data:`MAX_SUBSTITUTE_SENSE_RANK` most
      frequent ones, so no rare sense of either word ("number" -> "figure");
    * single-word lemmas only, not the word's own lemma nor "be", nor an abbreviation of a lemma of
      the sense (:func:`is_abbreviation`: "hr" for "hour"), nor, for a noun or adjective, a
      substitute that gains or loses -ing or -ed ("fight" -> "fighting", "mature" -> "matured"),
      nor, for an -ly adverb, one without -ly ("quickly" -> "quick");
    * each synonym is inflected with the original's PTB tag (``lemminflect.getInflection``: plural
      nouns, verb tenses and participles, comparatives), and dropped where it has no such form.

    Parameters
    ----------
    max_sense_rank, max_substitute_sense_rank : int
        The sense limits above (at least 1).

    Raises
    ------
    SubstituteError
        If NLTK's WordNet data is missing.
    """

    name = "synonym"

    def __init__(self, *, max_sense_rank: int = MAX_SENSE_RANK, max_substitute_sense_rank: int = MAX_SUBSTITUTE_SENSE_RANK):
        from robust_bench.text.wordnet import wordnet

        try:
            wordnet.ensure_loaded()
        except LookupError as exc:
            raise SubstituteError("NLTK WordNet is missing: set NLTK_DATA or run nltk.download('wordnet')") from exc
        self.wn = wordnet
        self.max_sense_rank = max_sense_rank
        self.max_substitute_sense_rank = max_substitute_sense_rank
        self._cache: dict[tuple, list[str]] = {}

    def _senses(self, lemma: str, pos: str) -> list:
        found = self.wn.synsets(lemma, pos)
        if pos == "a":
            found = found + [x for x in self.wn.synsets(lemma, "s") if x not in found]
        # WordNet lists a lemma's senses by frequency only among its own lemmas' synsets; NLTK's
        # satellite lookup can yield None for an adjective it maps through a morphological rule
        return [x for x in found if x is not None and any(l.name().lower() == lemma for l in x.lemmas())]

    def _synonyms(self, lemma: str, upos: str, xpos: str | None, word: str = "") -> list[str]:
        word = (word or lemma).lower()
        key = (lemma, upos, xpos, word.endswith("ing"), word.endswith("ed"))
        if key in self._cache:
            return self._cache[key]
        pos = _WORDNET_POS[upos]
        out: list[str] = []
        for syn in self._senses(lemma, pos)[: self.max_sense_rank]:
            for lem in syn.lemmas():
                name = lem.name()
                low = name.lower()
                if "_" in name or "-" in name or low in (lemma, "be") or not name.isalpha():
                    continue
                if syn not in self._senses(low, pos)[: self.max_substitute_sense_rank]:
                    continue
                if any(is_abbreviation(low, other) for other in {lemma} | {x.name().lower() for x in syn.lemmas()}):
                    continue
                if _used_as_other_pos(low, pos):
                    continue              # "your vet" -> "your veterinary": an adjective in all its attested uses
                form = inflect_like(name, xpos)
                if form and pos in ("n", "a") and any(form.lower().endswith(x) != word.endswith(x) for x in ("ing", "ed")):
                    continue              # "a big fight" -> "a big fighting", "mature" -> "matured"
                if form and pos == "r" and word.endswith("ly") and not form.lower().endswith("ly"):
                    continue              # "do so quickly" -> "do so quick": a flat adverb is another register
                if form and form.lower() != lemma:
                    out.append(form)
        self._cache[key] = list(dict.fromkeys(out))
        return self._cache[key]

    def generate(self, sites: Sequence[Site]) -> list[list[str]]:
        out = []
        for s in sites:
            up = _upos_of(s)
            out.append(self._synonyms(site_lemma(s), up, s.xpos if s.xpos not in (None, "_") else None, s.word)
                       if up else [])
        return out


class MaskedLMGenerator:
    """Single-subword predictions of a masked LM for the masked word (§2.3, DepAttacker ``gen_mlm_cands``).

    From the ``top_k`` = 100 most probable vocabulary entries, ``draws`` = 60 are drawn without
    replacement in proportion to their probability, continuations (``##``) and special tokens
    are dropped, and the first ``keep`` = 50 are kept. The draw is seeded from (seed, sentence id,
    position), so a build is reproducible and independent of batching.

    Parameters
    ----------
    filler : robust_bench.models.lm.MaskedLMFiller
    seed : int
    """

    name = "mlm"

    def __init__(self, filler, *, seed: int = 0, draws: int = MLM_DRAWS, keep: int = MLM_KEEP):
        self.filler = filler
        self.seed = seed
        self.draws = draws
        self.keep = keep
        self._special = set(filler.tokenizer.all_special_tokens)

    def generate(self, sites: Sequence[Site]) -> list[list[str]]:
        preds = self.filler.predict([(s.words, s.position) for s in sites])
        out = []
        for s, (tokens, probs) in zip(sites, preds):
            if not tokens:
                out.append([])
                continue
            rng = np.random.default_rng(random.Random(f"robust-bench/mlm/{self.seed}/{s.key}/{s.position}")
                                        .getrandbits(63))
            p = probs / probs.sum()
            idx = rng.choice(len(tokens), size=min(self.draws, len(tokens)), replace=False, p=p)
            words = [tokens[i] for i in idx]
            out.append([w for w in words if not w.startswith("##") and w not in self._special][: self.keep])
        return out


class SememeGenerator:
    """Words that share a sense's HowNet sememes and part of speech (Zang et al. 2020; §2.3),
    through ``OpenHowNet``.

    Parameters
    ----------
    hownet : OpenHowNet.HowNetDict, optional
        Default: ``OpenHowNet.HowNetDict()``, which needs the HowNet data
        (``OpenHowNet.download()``).

    Raises
    ------
    SubstituteError
        If OpenHowNet is not installed or its data is missing; the message says how to get it.
    """

    name = "sememe"
    _POS = {"noun": "NN", "verb": "VB", "adj": "JJ", "adv": "RB"}

    def __init__(self, hownet=None):
        if hownet is None:
            try:
                import OpenHowNet
            except ImportError as exc:
                raise SubstituteError("the sememe generator needs OpenHowNet: pip install OpenHowNet, then "
                                      "OpenHowNet.download()") from exc
            try:
                hownet = OpenHowNet.HowNetDict()
            except Exception as exc:   # OpenHowNet raises bare exceptions for missing data
                raise SubstituteError(f"OpenHowNet has no data ({exc}); run OpenHowNet.download()") from exc
        self.index: dict[tuple[str, frozenset], set[str]] = {}
        self.senses: dict[str, list[tuple[str, frozenset]]] = {}
        for sense in hownet.get_all_senses():
            word = getattr(sense, "en_word", "") or ""
            pos = self._POS.get(getattr(sense, "en_grammar", ""))
            if not pos or not word or " " in word:
                continue
            sememes = frozenset(str(x) for x in sense.get_sememe_list())
            if not sememes:
                continue
            self.index.setdefault((pos, sememes), set()).add(word.lower())
            self.senses.setdefault(word.lower(), []).append((pos, sememes))

    def generate(self, sites: Sequence[Site]) -> list[list[str]]:
        out = []
        for s in sites:
            tag = (s.xpos or "")[:2]
            found: list[str] = []
            for word in {s.word.lower(), (s.lemma or s.word).lower()}:
                for pos, sememes in self.senses.get(word, ()):
                    if tag and pos != tag:
                        continue
                    found.extend(sorted(self.index[(pos, sememes)] - {word}))
            out.append(list(dict.fromkeys(found)))
        return out


@dataclass
class Candidates:
    """The substitutes of one site, with the generators that proposed each.

    Attributes
    ----------
    words : list of str
        De-duplicated (case-insensitively) substitutes in generator order, case recovered.
    sources : list of tuple of str
        Per substitute, the generators that proposed it.
    raw : dict of str to int
        Per generator, how many substitutes it proposed (after dropping the original word).
    """

    words: list[str] = field(default_factory=list)
    sources: list[tuple[str, ...]] = field(default_factory=list)
    raw: dict[str, int] = field(default_factory=dict)


def merge_candidates(site: Site, per_generator: dict[str, list[str]]) -> Candidates:
    """Merge the generators' outputs for one site, in :data:`GENERATORS` order (DepAttacker ``get_candidate_set``).

    A substitute must contain a letter and no whitespace: a masked LM also proposes punctuation
    ("|"), which a tagger can mistake for the right tag, and a multi-word string would shift the tokens.
    """
    own = site.word.lower()
    index: dict[str, int] = {}
    out = Candidates()
    for gen in GENERATORS:
        if gen not in per_generator:
            continue
        kept = [c for c in per_generator[gen] if c.lower() != own and any(ch.isalpha() for ch in c)
                and not any(ch.isspace() for ch in c)]
        out.raw[gen] = len({c.lower() for c in kept})
        for c in kept:
            low = c.lower()
            if low in index:
                k = index[low]
                if gen not in out.sources[k]:
                    out.sources[k] = out.sources[k] + (gen,)
                continue
            index[low] = len(out.words)
            out.words.append(recover_word_case(c, site.word))
            out.sources.append((gen,))
    return out
