"""The six filters (``frequency``, ``pos``, ``embedding``, ``meaning``, ``grammar``, ``perplexity``),
which judge a substitute in the context of the current adversarial sentence (:class:`FilterQuery`), and
the grammar checkers behind the ``grammar`` filter."""

from __future__ import annotations

import atexit
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from robust_bench.perturb.treebanks.frames import VerbFrames
from robust_bench.perturb.treebanks.site import MAX_PPL_INCREASE, MIN_COSINE, Site, SubstituteError
from robust_bench.perturb.treebanks.vectors import WordVectors


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


#: Morphological features compared between the original and the substitute, tagged in context.
MORPH_FEATURES = ("Number", "Tense", "VerbForm", "Mood", "Person", "Degree")


class PosFilter:
    """Keep a substitute that keeps the sentence's tags when the sentence is re-tagged (§2.3, "POS filter").

    The paper keeps a substitute whose fine POS tag in context equals the original word's. Here the
    substituted sentence is re-tagged and the substitute must have the original's gold PTB tag (its
    UPOS where the corpus has none) and its universal tag, the same morphological features
    (:data:`MORPH_FEATURES`, where the pipeline has a morphologizer) as the original word tagged in
    the current sentence, and every other word must keep the tag it had in the current sentence, so
    that a substitute does not make its neighbours read differently ("i want to" -> "i neediness to").

    A verb must also be able to take the original's complements (:class:`VerbFrames`), where the
    filter has a frame treebank and the corpus has relations.

    Parameters
    ----------
    tagger : robust_bench.models.taggers.SpacyPosTagger
    frames : VerbFrames, optional
    """

    name = "pos"
    available = True
    reason = ""

    def __init__(self, tagger, frames: VerbFrames | None = None):
        self.tagger = tagger
        self.frames = frames

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        tags = self.tagger.tag([q.substituted for q in queries] + [q.current for q in queries])
        n = len(queries)
        out = []
        for k, q in enumerate(queries):
            (xpos, upos, morph), (xpos0, upos0, morph0) = tags[k][:3], tags[n + k][:3]
            i = q.site.position
            if q.site.xpos not in (None, "_"):
                ok = xpos[i] == q.site.xpos
            else:
                ok = upos[i] == q.site.upos
            ok = ok and (q.site.upos in (None, "_") or upos[i] == q.site.upos)
            ok = ok and all(xpos[j] == xpos0[j] for j in range(len(xpos)) if j != i)
            ok = ok and _morph(morph[i]) == _morph(morph0[i])
            if ok and self.frames is not None and q.site.frame is not None and q.site.upos == "VERB":
                ok = self.frames.allows(q.candidate, q.site.frame)
            out.append(ok)
        return out


def _morph(feats: str) -> tuple:
    parts = dict(p.split("=", 1) for p in (feats or "").split("|") if "=" in p)
    return tuple(parts.get(f) for f in MORPH_FEATURES)


#: How much rarer than the original a substitute may be, in Zipf units (a factor of about 18): a
#: much rarer synonym is a change of register that readers call stilted ("want" -> "desire" 1.4,
#: "use" -> "utilize" 2.1, "lot" -> "heap" 2.0, "written" -> "penned" 1.7), while "big" -> "large"
#: (0.3) and "happened" -> "occurred" (0.6) pass. Lowered from 1.25 to 1.0 after the blind audit of
#: adv_ewt 2.0.0: between the two sat "especially" -> "specially" (1.2), "similar" -> "alike" (1.1) and
#: "regime" -> "regimen" (1.01), each a different word rather than a synonym.
MAX_ZIPF_DROP = 1.0


class FrequencyFilter:
    """Keep a substitute that is an English word (wordfreq Zipf >= 1.5 or a WordNet lemma), at least as
    common as Zipf ``floor`` (default 3.0, about once per million words: ``../shared/VALIDITY.md`` §3,
    the floor of the grammatical-error family), and at most ``max_drop`` Zipf units rarer than the
    original word (:data:`MAX_ZIPF_DROP`). Rare words read as odd ("tidings", "cerebrate"), much
    rarer synonyms as a change of register, and non-words are not English at all.

    Parameters
    ----------
    floor : float
        Zipf frequency in [0, 8].
    max_drop : float
        Zipf units, >= 0.
    """

    name = "frequency"
    available = True
    reason = ""

    def __init__(self, floor: float | None = None, max_drop: float = MAX_ZIPF_DROP):
        from robust_bench.perturb.checks import ZIPF_FLOOR

        self.floor = ZIPF_FLOOR if floor is None else floor
        self.max_drop = max_drop

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        from robust_bench.perturb.checks import is_common_word, is_known_word, zipf

        out = []
        for q in queries:
            ok = is_known_word(q.candidate) and is_common_word(q.candidate, self.floor)
            ok = ok and zipf(q.candidate.lower()) >= zipf(q.site.word.lower()) - self.max_drop
            out.append(ok)
        return out


#: Cosine thresholds of the meaning filter, set on 220 synonym substitutes of EWT test sentences that
#: had passed the frequency and POS filters, judged by a blind reader (38 ok; the judged file is
#: ``robust_bench/data/calibration/adv_ewt_meaning.tsv``, cosines recomputed after the fix of builder
#: 2.3.0): with the word's contextual cosine >= 0.85, 10 kept, 7 ok (the three others are grammar or
#: fluency faults, "started" -> "began this page", "made" -> "created our stay convenient", "rather as" ->
#: "instead as", which the grammar filter is for); >= 0.80, 18 kept, 9 ok ("a plenty of", "did mistakes",
#: "uncover", "luncheon", "desire" refused); >= 0.70, 52 kept, 22 ok. The sentence cosine (>= 0.90, as the
#: grammatical-error family) separated nothing the word cosine did not.
MEANING_SENTENCE_COSINE = 0.90
MEANING_WORD_COSINE = 0.85


class MeaningFilter:
    """Keep a substitute that keeps the sentence's meaning: the sentence-encoder check of the
    grammatical-error family (:class:`robust_bench.perturb.checks.MeaningKept`, all-MiniLM-L6-v2 by
    default), cosine of the whole sentences >= :data:`MEANING_SENTENCE_COSINE` and of the word's own
    contextual vectors >= :data:`MEANING_WORD_COSINE` (calibrated on judged substitutes; a synonym
    in another sense, "number" -> "figure", scores 0.09). Each candidate is judged in the current
    adversarial sentence, words joined by spaces.

    Parameters
    ----------
    meaning : MeaningKept, optional
        Default: the encoder of ``$ROBUST_BENCH_SIMILARITY_MODEL`` (else the Hub id) with the
        thresholds above.
    """

    name = "meaning"
    available = True
    reason = ""

    def __init__(self, meaning=None):
        from robust_bench.perturb.checks import MeaningKept

        self.meaning = meaning or MeaningKept(sentence_threshold=MEANING_SENTENCE_COSINE,
                                              word_threshold=MEANING_WORD_COSINE)

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        items = [(q.current, (True,) * len(q.current), q.site.position, q.candidate) for q in queries]
        return self.meaning.verdicts(items)


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


#: Longest sentence (in words) that Link Grammar judges. Its search for a parse with null links grows
#: steeply with length: on 250 EWT dev sentences, every parse up to 25 words took under 0.6 s, while 8
#: of 35 longer ones took over 1 s and some over 20 s. A bound in words, not in seconds, keeps a
#: build's verdicts the same on any machine and under any load (a timer made two builds differ).
MAX_LINK_GRAMMAR_WORDS = 25


def link_grammar_checker(language: str = "en", *, max_words: int = MAX_LINK_GRAMMAR_WORDS,
                         max_parse_time: int = 60) -> Callable[[str], int | None]:
    """A function ``text -> number of null links`` of CMU Link Grammar (the words it cannot link;
    0 for a sentence its dictionary parses completely), or None when it cannot judge: a sentence of
    more than ``max_words`` space-separated words (:data:`MAX_LINK_GRAMMAR_WORDS`; about 20% of EWT's
    sentences), or, as a safeguard only, a parse that takes longer than ``max_parse_time`` seconds;
    through the Python bindings of Debian's ``python3-link-grammar`` (``make grammar`` installs them
    and links them into the virtualenv).

    Raises
    ------
    SubstituteError
        If the ``linkgrammar`` module or its English dictionary is missing.
    """
    try:
        from linkgrammar import Dictionary, LG_Error, ParseOptions, Sentence
    except ImportError as exc:
        raise SubstituteError("CMU Link Grammar is not installed: run `make grammar` (Debian's link-grammar and "
                              "python3-link-grammar, linked into the virtualenv)") from exc
    try:
        dictionary = Dictionary(language)
    except Exception as exc:   # the bindings raise LG_DictionaryError and plain errors
        raise SubstituteError(f"CMU Link Grammar has no {language!r} dictionary: {exc}") from exc
    options = ParseOptions(min_null_count=0, max_null_count=250, verbosity=0, linkage_limit=1)
    options.max_parse_time = max_parse_time
    # free the dictionary before the interpreter tears the bindings' module down (else a TypeError at exit)
    atexit.register(dictionary.__del__)

    def nulls(text: str) -> int | None:
        if len(text.split()) > max_words:
            return None
        sentence = Sentence(text, dictionary, options)
        try:
            sentence.parse()
        except LG_Error:        # LG_TimerExhausted (a long sentence), or a sentence it cannot split
            return None
        return int(sentence.null_count())

    return nulls


#: Grammar checkers by name, best first: the paper's LanguageTool, then Link Grammar.
GRAMMAR_CHECKERS = {"languagetool": language_tool_checker, "link-grammar": link_grammar_checker}


class GrammarFilter:
    """Keep a substitute that adds no grammar error to the current sentence (DepAttacker:
    ``len(matches) <= num_origin_err``): no more errors of the grammar checker, and no indefinite
    article that disagrees with its next word ("a apple"; ``inflect``), a check that runs always.

    The checker is the paper's LanguageTool where it runs, else CMU Link Grammar (no more null links
    than the current sentence; ``../shared/VALIDITY.md`` §3).

    Parameters
    ----------
    checker : callable or str, optional
        ``text -> number of errors`` (None where it cannot judge: a current sentence it cannot judge
        keeps every substitute, a substituted one it cannot judge is refused), or a name of :data:`GRAMMAR_CHECKERS`; default the first that
        runs. With none running, :attr:`available` is False, only the article check runs and
        :attr:`reason` says why.
    require : bool
        Raise instead of running without a checker (the user asked for this filter by name).

    Attributes
    ----------
    checker_name : str or None

    Raises
    ------
    SubstituteError
        With ``require``, if no checker runs; for a named checker that does not run.
    """

    name = "grammar"

    def __init__(self, checker: Callable[[str], int] | str | None = None, *, require: bool = False):
        self.available, self.reason, self.checker_name = True, "", None
        if callable(checker):
            self.checker_name = getattr(checker, "__name__", "callable")
        else:
            names = [checker] if checker else list(GRAMMAR_CHECKERS)
            unknown = [n for n in names if n not in GRAMMAR_CHECKERS]
            if unknown:
                raise SubstituteError(f"unknown grammar checker {unknown[0]!r}; known: {', '.join(GRAMMAR_CHECKERS)}")
            why = []
            for n in names:
                try:
                    checker = GRAMMAR_CHECKERS[n]()
                    self.checker_name = n
                    break
                except SubstituteError as exc:
                    why.append(f"{n}: {exc}")
            else:
                checker = None
                self.available, self.reason = False, "; ".join(why)
                if require or len(names) == 1:
                    raise SubstituteError("the grammar filter was asked for but no grammar checker runs: " + self.reason)
        self.checker = checker
        self._cache: dict[str, int] = {}

    def _errors(self, words: Sequence[str]) -> int | None:
        text = " ".join(words)
        if text not in self._cache:
            n = self.checker(text)
            self._cache[text] = None if n is None else int(n)
        return self._cache[text]

    def _no_new_errors(self, q: FilterQuery) -> bool:
        before = self._errors(q.current)
        if before is None:          # the checker cannot judge the current sentence: no comparison
            return True
        after = self._errors(q.substituted)
        return after is not None and after <= before

    def keep(self, queries: Sequence[FilterQuery]) -> list[bool]:
        from robust_bench.perturb.checks import article_errors

        out = []
        for q in queries:
            i = q.site.position
            ok = (i - 1) not in article_errors(q.substituted) - article_errors(q.current)
            if ok and self.available:
                ok = self._no_new_errors(q)
            out.append(ok)
        return out


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
