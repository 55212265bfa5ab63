"""Substitute words for the parser attack of Wang et al. (2021): four generators and four filters.

A word of a treebank sentence may be replaced by a substitute that keeps the gold tree valid
(§2.3). Substitutes come from four generators, in the order of the authors' released code
(DepAttacker, ``adversary/attackers/blackbox.py``), de-duplicated case-insensitively, with the
original word dropped and its case copied onto each substitute (``recover_word_case``):

* ``sememe``: words with the same HowNet sememes and part of speech (OpenHowNet; optional, needs
  its data);
* ``synonym``: WordNet synonyms (NLTK) of any synset, single words only, not the word's own lemma
  nor "be"; the code keeps the base forms, and this module also offers each in the word's
  inflection (``lemminflect``), so an inflected word can get a synonym in the same form;
* ``embedding``: the 50 nearest neighbours in a word-vector space (the paper uses the
  counter-fitted vectors of Mrkšić et al. 2016; any word2vec or GloVe file works);
* ``mlm``: a masked LM with the word masked; 60 tokens are drawn without replacement from its top
  100, in proportion to their probability (temperature 1), subword continuations (``##``)
  dropped, at most 50 kept (DepAttacker ``gen_mlm_cands``; the draw is seeded per sentence and
  position).

Filters (§2.3, settings of §3.2 and ``adversary/config/pipe.json``) decide in the context of the
current adversarial sentence:

* ``pos``: the substitute, tagged in context, has the original word's fine POS tag;
* ``embedding``: cosine similarity of the two words' vectors >= 0.7; a word without a vector is
  rejected (for every generator, as in the code);
* ``grammar``: LanguageTool finds no more errors than in the current sentence (skipped, and
  recorded, when LanguageTool cannot run);
* ``perplexity``: the causal-LM perplexity rises by at most 20 over the current sentence (Eq. 2).

Words of forbidden classes are never substituted: DepAttacker's ``stop_tags`` (pronouns, articles
and determiners, conjunctions and prepositions (IN), numerals, interjections, wh-words and
punctuation), or their UPOS equivalents for a corpus without PTB tags.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

__all__ = ["FORBIDDEN_XPOS", "FORBIDDEN_UPOS", "GENERATORS", "FILTERS", "Site", "is_attackable", "recover_word_case",
           "WordVectors", "load_word_vectors", "MaskedLMGenerator", "EmbeddingGenerator", "WordNetGenerator",
           "SememeGenerator", "PosFilter", "EmbeddingFilter", "GrammarFilter", "PerplexityFilter",
           "language_tool_checker", "SubstituteError", "MIN_COSINE", "MAX_PPL_INCREASE", "N_NEIGHBOURS",
           "FilterQuery", "Candidates", "merge_candidates"]

#: DepAttacker's ``stop_tags``: PTB tags of words that are never substituted.
FORBIDDEN_XPOS = frozenset({"PRP", "PRP$", "DT", "CC", "IN", "CD", "UH", "WDT", "WP", "WP$", "-LRB-", "-RRB-",
                            ".", "``", "''", ":", ",", "?", ";"})
#: The same classes in UPOS, for corpora without PTB tags.
FORBIDDEN_UPOS = frozenset({"PRON", "DET", "CCONJ", "SCONJ", "ADP", "NUM", "INTJ", "PUNCT"})
#: Generator names, in the order DepAttacker collects candidates.
GENERATORS = ("sememe", "synonym", "embedding", "mlm")
#: Filter names, in the order of the paper's ablation (Table 5).
FILTERS = ("pos", "embedding", "grammar", "perplexity")
MIN_COSINE = 0.7            # §3.2, pipe.json "wsim"
MAX_PPL_INCREASE = 20.0     # §3.2, pipe.json "ppl_diff_thres"
N_NEIGHBOURS = 50           # pipe.json "max_knn"
MLM_TOP_K, MLM_DRAWS, MLM_KEEP = 100, 60, 50
#: PTB tags lemminflect inflects to
_INFLECTABLE = frozenset({"NN", "NNS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "JJ", "JJR", "JJS", "RB", "RBR", "RBS"})


class SubstituteError(RuntimeError):
    """A generator or filter cannot be set up (a missing vector file, an unusable resource)."""


@dataclass(frozen=True)
class Site:
    """A word that may be substituted.

    Attributes
    ----------
    key : str
        Sentence id, for seeding.
    words : tuple of str of shape (n_words,)
        The original sentence.
    position : int
        0-based index of the word.
    xpos, upos : str or None
        The word's gold tags (``xpos`` None when the corpus has none).
    lemma : str or None
    """

    key: str
    words: tuple[str, ...]
    position: int
    xpos: str | None = None
    upos: str | None = None
    lemma: str | None = None

    @property
    def word(self) -> str:
        return self.words[self.position]


def is_attackable(xpos: str | None, upos: str | None) -> bool:
    """Whether a word of this class may be substituted (not a forbidden class).

    The PTB tag decides when there is one (:data:`FORBIDDEN_XPOS`), else the UPOS tag
    (:data:`FORBIDDEN_UPOS`).
    """
    if xpos and xpos != "_":
        return xpos not in FORBIDDEN_XPOS
    return (upos or "") not in FORBIDDEN_UPOS


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


# --- word vectors ----------------------------------------------------------------------------------

class WordVectors:
    """Nearest neighbours and cosine similarity in a word-vector space (``gensim`` KeyedVectors).

    Lookups try the word as written, then lower-cased (counter-fitted vectors are lower case).

    Parameters
    ----------
    keyed_vectors : gensim.models.KeyedVectors
    name : str
        What reports call the space (the file name).
    """

    def __init__(self, keyed_vectors, *, name: str = "vectors"):
        self.kv = keyed_vectors
        self.name = name
        self._nn: dict[str, list[str]] = {}

    def _key(self, word: str) -> str | None:
        if word in self.kv.key_to_index:
            return word
        low = word.lower()
        return low if low in self.kv.key_to_index else None

    def __contains__(self, word: str) -> bool:
        return self._key(word) is not None

    def __len__(self) -> int:
        return len(self.kv.key_to_index)

    def neighbours(self, word: str, k: int = N_NEIGHBOURS) -> list[str]:
        """The ``k`` nearest words by cosine similarity, nearest first; [] for a word without a vector."""
        key = self._key(word)
        if key is None:
            return []
        if key not in self._nn:
            self._nn[key] = [w for w, _ in self.kv.most_similar(key, topn=k)]
        return self._nn[key][:k]

    def cosine(self, a: str, b: str) -> float | None:
        """Cosine similarity in [-1, 1], or None when either word has no vector."""
        ka, kb = self._key(a), self._key(b)
        if ka is None or kb is None:
            return None
        return float(self.kv.similarity(ka, kb))


def load_word_vectors(path: str | Path) -> WordVectors:
    """Read a word-vector file: word2vec text (with its ``count dim`` header), GloVe text (no
    header), or word2vec binary (``.bin``); ``.gz`` and ``.bz2`` are read compressed.

    Raises
    ------
    SubstituteError
        If the file does not exist or cannot be parsed; the message names the file.
    """
    from gensim.models import KeyedVectors

    path = Path(path)
    if not path.is_file():
        raise SubstituteError(f"word-vector file {path} does not exist")
    binary = ".bin" in path.suffixes
    try:
        if binary:
            kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
        else:
            from gensim.utils import open as gopen

            with gopen(str(path), "rb") as fh:
                first = fh.readline().decode("utf-8", "replace").split()
            header = len(first) == 2 and all(x.isdigit() for x in first)
            kv = KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=not header)
    except (ValueError, UnicodeDecodeError, EOFError) as exc:
        raise SubstituteError(f"cannot read word vectors from {path}: {exc}") from exc
    return WordVectors(kv, name=path.name)


# --- generators ------------------------------------------------------------------------------------

class EmbeddingGenerator:
    """The ``k`` nearest neighbours of the word in a vector space (§2.3; k = 50, pipe.json ``max_knn``)."""

    name = "embedding"

    def __init__(self, vectors: WordVectors, k: int = N_NEIGHBOURS):
        self.vectors = vectors
        self.k = k

    def generate(self, sites: Sequence[Site]) -> list[list[str]]:
        return [self.vectors.neighbours(s.word, self.k) for s in sites]


class WordNetGenerator:
    """WordNet synonyms (NLTK) from every synset of the word, as DepAttacker's ``gen_synonym.py``.

    Single-word lemmas only; the word's own lemma and "be" are left out. With ``inflect`` (default)
    each synonym is also given in the word's inflection (``lemminflect.getInflection`` with the PTB
    tag), since the POS filter rejects a base form in an inflected slot.
    """

    name = "synonym"

    def __init__(self, *, inflect: bool = True):
        from nltk.corpus import wordnet

        try:
            wordnet.ensure_loaded()
        except LookupError as exc:
            raise SubstituteError("NLTK WordNet is missing: set NLTK_DATA or run nltk.download('wordnet')") from exc
        self.wn = wordnet
        self.inflect = inflect
        self._cache: dict[tuple, list[str]] = {}

    def _synonyms(self, word: str, lemma: str, xpos: str | None) -> list[str]:
        key = (word.lower(), lemma, xpos)
        if key in self._cache:
            return self._cache[key]
        own = {word.lower(), lemma, "be"}
        out: list[str] = []
        for syn in self.wn.synsets(word.lower()) + (self.wn.synsets(lemma) if lemma != word.lower() else []):
            for name in syn.lemma_names():
                if "_" in name or "-" in name or name.lower() in own:
                    continue
                forms = [name]
                if self.inflect and xpos in _INFLECTABLE:
                    from lemminflect import getInflection

                    forms = list(getInflection(name, tag=xpos) or ()) + forms
                out.extend(f for f in forms if f.lower() not in own)
        self._cache[key] = list(dict.fromkeys(out))
        return self._cache[key]

    def generate(self, sites: Sequence[Site]) -> list[list[str]]:
        return [self._synonyms(s.word, (s.lemma or s.word).lower(), s.xpos) for s in sites]


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


# --- filters ---------------------------------------------------------------------------------------

@dataclass
class FilterQuery:
    """A substitute to judge: ``current`` is the adversarial sentence so far, ``site`` the word."""

    site: Site
    candidate: str
    current: tuple[str, ...]

    @property
    def substituted(self) -> tuple[str, ...]:
        w = list(self.current)
        w[self.site.position] = self.candidate
        return tuple(w)


class PosFilter:
    """Keep a substitute whose POS tag in context equals the original word's gold fine tag (or its
    UPOS when the corpus has no PTB tags).

    Parameters
    ----------
    tagger : robust_bench.models.taggers.SpacyPosTagger
    """

    name = "pos"
    available = True
    reason = ""

    def __init__(self, tagger):
        self.tagger = tagger

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        tags = self.tagger.tag([q.substituted for q in queries])
        out = []
        for q, (xpos, upos) in zip(queries, tags):
            i = q.site.position
            out.append(xpos[i] == q.site.xpos if q.site.xpos not in (None, "_") else upos[i] == q.site.upos)
        return out


class EmbeddingFilter:
    """Keep a substitute whose cosine similarity to the original word is at least 0.7; a word
    without a vector is rejected (DepAttacker ``filter_cands``, ``wsim`` 0.7)."""

    name = "embedding"
    available = True
    reason = ""

    def __init__(self, vectors: WordVectors, threshold: float = MIN_COSINE):
        self.vectors = vectors
        self.threshold = threshold

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        out = []
        for q in queries:
            sim = self.vectors.cosine(q.site.word, q.candidate)
            out.append(sim is not None and sim >= self.threshold)
        return out


def language_tool_checker(language: str = "en-US") -> Callable[[str], int]:
    """A function ``text -> number of LanguageTool matches``, through ``language_tool_python``.

    Raises
    ------
    SubstituteError
        If ``language_tool_python`` is not installed, or Java or the LanguageTool server is not
        available (it is downloaded on first use, which needs the network).
    """
    try:
        import language_tool_python
    except ImportError as exc:
        raise SubstituteError("language_tool_python is not installed (pip install 'robust-bench[grammar]')") from exc
    try:
        tool = language_tool_python.LanguageTool(language)
    except Exception as exc:   # missing Java, no network for the download, server start failure
        raise SubstituteError(f"LanguageTool cannot start: {exc}") from exc
    return lambda text: len(tool.check(text))


class GrammarFilter:
    """Keep a substitute that does not raise the number of grammar errors over the current sentence
    (DepAttacker: ``len(matches) <= num_origin_err``, LanguageTool).

    Parameters
    ----------
    checker : callable, optional
        ``text -> number of errors``; default :func:`language_tool_checker`. When it cannot be
        built, the filter is unavailable: it keeps everything and :attr:`reason` says why.
    """

    name = "grammar"

    def __init__(self, checker: Callable[[str], int] | None = None):
        self.available, self.reason = True, ""
        if checker is None:
            try:
                checker = language_tool_checker()
            except SubstituteError as exc:
                self.available, self.reason = False, str(exc)
        self.checker = checker
        self._cache: dict[str, int] = {}

    def _errors(self, words: Sequence[str]) -> int:
        text = " ".join(words)
        if text not in self._cache:
            self._cache[text] = int(self.checker(text))
        return self._cache[text]

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        if not self.available:
            return [True] * len(queries)
        return [self._errors(q.substituted) <= self._errors(q.current) for q in queries]


class PerplexityFilter:
    """Keep a substitute that raises the causal-LM perplexity of the sentence by at most 20 over the
    current sentence (Eq. 2; an absolute increase, as DepAttacker's ``ppl_diff_thres``). All
    sentences of a call are scored in one batched pass.

    Parameters
    ----------
    lm : robust_bench.models.lm.CausalLMScorer
    threshold : float
    """

    name = "perplexity"
    available = True
    reason = ""

    def __init__(self, lm, threshold: float = MAX_PPL_INCREASE):
        self.lm = lm
        self.threshold = threshold

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        texts = [" ".join(q.substituted) for q in queries] + [" ".join(q.current) for q in queries]
        ppl = self.lm.perplexity(texts) if texts else np.zeros(0)
        n = len(queries)
        return [bool(ppl[i] - ppl[n + i] <= self.threshold) for i in range(n)]


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
