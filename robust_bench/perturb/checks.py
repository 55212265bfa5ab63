"""Validity checks shared by every perturbation family: an engine proposes, the checks dispose.

A perturbed row is only worth scoring if it is what its paper means (``../shared/VALIDITY.md``).
Where a defect can be found by a program, the engine refuses the candidate instead of writing it,
and counts the refusal under the check's name, so the dataset card can say how many candidates
each check removed. Every check is a small named function or class with the library it rests on:

=====================  ==================================================================  ==========================
check                  refuses                                                              library
=====================  ==================================================================  ==========================
``article_agreement``  an edit after which *a*/*an* disagrees with the next word's sound    ``inflect`` (``a()``)
``known_word``         a written token that is in neither wordfreq's English list nor       ``wordfreq``, NLTK WordNet
                       WordNet ("honorabler", "dumming")
``frequency_floor``    a word-choice substitute rarer than Zipf 3 ("penury", "soliduses")  ``wordfreq``
``same_tag``           a substitute that the pipeline does not re-tag with the original's   spaCy (the build's
                       fine part-of-speech tag in the perturbed sentence                    pipeline)
``meaning_kept``       a substitute whose sentence, or whose own contextual vector, moves   ``sentence-transformers``
                       away from the original's ("born" -> "brooked", "blue jeans" ->       (all-MiniLM-L6-v2)
                       "depressed jeans")
=====================  ==================================================================  ==========================

ERRANT (:class:`ErrantClassifier`) is not a refusal check but an independent re-derivation of each
edit's type, reported per type on the card.

Why these libraries: ``inflect`` knows the article of spelled-out sounds ("an hour", "a university",
"an FBI"); wordfreq's Zipf scale (log10 of frequency per billion words) pools Wikipedia, subtitles,
news, books and the web, so "is a word" and "is a common word" are one lookup; WordNet adds the
lemma forms wordfreq lacks; ``sentence-transformers`` with all-MiniLM-L6-v2 is the encoder TextAttack's
``SBERT`` constraint style uses (mean-pooled, normalised), here also read per word.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from robust_bench.text.nlp import SECOND_SPACY_MODEL

__all__ = ["CHECKS", "ZIPF_FLOOR", "indefinite_article", "article_errors", "is_known_word", "zipf",
           "is_common_word", "Refusals", "MeaningKept", "MEANING_MODEL_ENV", "ErrantClassifier", "ERRANT_TO_YIN",
           "ERRANT_MODEL_ENV", "errant_agreement", "resolve_meaning_model", "InContextChecks",
           "load_second_tagger", "second_tagger_name", "tag_disagreements"]

#: Every check by name, with what it refuses; the card lists the ones a build ran.
CHECKS = {
    "article_agreement": "a/an must agree with the next word's sound (inflect)",
    "known_word": "every written token is in wordfreq's English list or WordNet",
    "frequency_floor": "a word-choice substitute has Zipf frequency >= 3 (wordfreq)",
    "distinct_word": "a word-choice substitute is not a spelling or derivation of the original "
                     "(offense/offence, hit/hitting)",
    "edit_spread": "no third edit within two tokens of two others, so the sentence stays readable",
    "still_an_error": "edits together still make an error, not correct English with another meaning "
                      "(SVA with the Nn of its subject, Nn with the ArtOrDet of its article)",
    "same_tag": "a word-choice substitute is re-tagged with the original's PTB tag (spaCy, in context); "
                "tag-based edits skip words whose class a second tagger (en_core_web_sm) disputes",
    "meaning_kept": "sentence and in-context word similarity to the original stay above thresholds "
                    "(sentence-transformers, all-MiniLM-L6-v2)",
}

#: Zipf frequency below which a substitute counts as rare: 3 is about once per million words.
ZIPF_FLOOR = 3.0
#: Zipf frequency from which wordfreq's list is trusted to show a word: below it are typos and
#: scraping noise ("metting" 1.1).
KNOWN_ZIPF = 1.5
MEANING_MODEL_ENV = "ROBUST_BENCH_SIMILARITY_MODEL"
ERRANT_MODEL_ENV = "ROBUST_BENCH_ERRANT_MODEL"

_ALPHA = re.compile(r"^[A-Za-z][A-Za-z'-]*$")


@lru_cache(maxsize=1)
def _inflect_engine():
    """``inflect.engine()``, with inflect imported as under ``python -O``: inflect 7.1+ decorates its methods with
    typeguard's ``@typechecked``, which re-parses and recompiles inflect's whole source once per method at import
    (three to four seconds in every process that checks an article; jaraco/inflect#212, agronholm/typeguard#468,
    both open). typeguard documents the decorator as a no-op in optimised mode; this import gets that no-op and
    nothing else changes (robust-bench calls inflect with ``str`` only, the type those checks would assert)."""
    import sys

    if "inflect" not in sys.modules:
        import typeguard

        checked = typeguard.typechecked
        typeguard.typechecked = lambda target=None, **_: target if target is not None else (lambda f: f)
        try:
            import inflect
        finally:
            typeguard.typechecked = checked
    import inflect

    return inflect.engine()


@lru_cache(maxsize=200_000)
def indefinite_article(word: str) -> str:
    """``"a"`` or ``"an"``, whichever the sound of ``word`` takes ("an hour", "a university",
    "an FBI"), from ``inflect``'s ``a()``.

    Parameters
    ----------
    word : str
        A single word, in its written case (all-caps words are read as abbreviations).
    """
    return _inflect_engine().a(word).split(" ", 1)[0].lower()


def article_errors(words: Sequence[str]) -> set[int]:
    """Positions of indefinite articles that disagree with the next word's sound.

    Only an article followed by an alphabetic word is judged (``a 5-year``, ``vitamin A .`` and a
    final ``a`` are not), and an all-caps ``A`` is not an article in a headline sense check.

    Parameters
    ----------
    words : sequence of str of shape (n_tokens,)

    Returns
    -------
    set of int
        Indices ``i`` with ``words[i]`` in {a, an} (any case but ``A`` followed by an all-caps word)
        and :func:`indefinite_article` of ``words[i + 1]`` different.
    """
    bad = set()
    for i in range(len(words) - 1):
        w = words[i]
        low = w.lower()
        if low not in ("a", "an"):
            continue
        nxt = words[i + 1]
        if not _ALPHA.match(nxt):
            continue
        if indefinite_article(nxt) != low:
            bad.add(i)
    return bad


@lru_cache(maxsize=200_000)
def zipf(word: str) -> float:
    """wordfreq's Zipf frequency of ``word`` in English (0 for unknown words; 3 is once per million)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


@lru_cache(maxsize=200_000)
def is_known_word(word: str) -> bool:
    """Whether ``word`` is an English word: in wordfreq's English list with Zipf >= 1.5
    (:data:`KNOWN_ZIPF`), or a WordNet lemma. Tokens without a letter (numbers, punctuation) are accepted.

    Raises
    ------
    LookupError
        If NLTK's WordNet is not installed (``python -m nltk.downloader wordnet`` or ``NLTK_DATA``).
    """
    if not any(c.isalpha() for c in word):
        return True
    if zipf(word) >= KNOWN_ZIPF or zipf(word.lower()) >= KNOWN_ZIPF:
        return True
    from robust_bench.text.wordnet import wordnet as wn

    low = word.lower()
    # a WordNet lemma itself; morphy's rules alone would accept "honorabler" as a form of "honorable"
    return any(lem.name().lower() == low for syn in wn.synsets(low) for lem in syn.lemmas())


def is_common_word(word: str, floor: float = ZIPF_FLOOR) -> bool:
    """Whether ``word`` has a Zipf frequency of at least ``floor`` (default 3: once per million words)."""
    return zipf(word) >= floor or zipf(word.lower()) >= floor


class Refusals(Counter):
    """Refused candidates by check name (a ``Counter``); :meth:`as_rows` gives the typed column form."""

    def as_rows(self) -> list[dict]:
        return [{"check": k, "count": int(v)} for k, v in sorted(self.items()) if v]


def resolve_meaning_model(name: str | None = None) -> str:
    """The encoder of the meaning check: ``name``, else ``$ROBUST_BENCH_SIMILARITY_MODEL``, else
    the Hub id ``sentence-transformers/all-MiniLM-L6-v2``."""
    return name or os.environ.get(MEANING_MODEL_ENV) or "sentence-transformers/all-MiniLM-L6-v2"


@lru_cache(maxsize=2)
def _sentence_transformer(name: str, device: str):
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(name, device=device)
    except (OSError, ValueError) as exc:
        raise OSError(f"sentence encoder {name!r} cannot be loaded ({exc}); set {MEANING_MODEL_ENV} to a local copy "
                      "of sentence-transformers/all-MiniLM-L6-v2") from exc


@dataclass
class MeaningKept:
    """The ``meaning_kept`` check: a single-word substitution keeps the sentence's meaning.

    Two cosine similarities from one forward pass of a sentence encoder (mean-pooled, as
    sentence-transformers pools all-MiniLM-L6-v2): the whole sentences' (as TextAttack's sentence
    encoder constraints) and the substituted word's own contextual vectors (mean of its subwords), which
    separates senses where the sentence score barely moves. Thresholds were set on judged word-choice
    substitutions: hand-judged ones (kept: big -> large 0.96/0.88, make -> do 0.97/0.73; refused: born ->
    brooked 0.63/0.13, blue -> depressed 0.70/0.06, number -> figure 0.64/0.09) and the first blind audits
    of gec_mnli and gec_conll2003 (refused by readers, word cosine: damage -> hurt 0.08, told ->
    recounted 0.26, leading -> guiding 0.32, striking -> impressing 0.61, children -> babies 0.65, become
    -> gotten 0.68, say -> suppose 0.70, seek -> attempt 0.73, keep -> maintain 0.74, minutes -> seconds
    0.80, striking -> hitting 0.80; kept: contest -> competition 0.76, wide -> broad 0.78, said -> told
    0.81, difficult -> hard 0.90). The threshold 0.80 gives up some good substitutes for validity. The
    audits on the card were drawn afterwards, with new seeds.

    Parameters
    ----------
    model : str, optional
        Sentence-transformers model name or folder (:func:`resolve_meaning_model`).
    sentence_threshold, word_threshold : float in [-1, 1]
    device : str
        ``"cpu"``, ``"cuda"``; default the GPU when present.
    batch_size : int
    """

    model: str | None = None
    sentence_threshold: float = 0.90
    word_threshold: float = 0.80
    device: str | None = None
    batch_size: int = 64

    def __post_init__(self):
        self.model = resolve_meaning_model(self.model)

    def _encoder(self):
        import torch

        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        return _sentence_transformer(self.model, device)

    def similarities(self, items: Sequence[tuple[Sequence[str], Sequence[bool], int, str]]) -> list[tuple[float, float]]:
        """Sentence and word cosine similarity for substitutions.

        Parameters
        ----------
        items : sequence of (words, spaces, position, replacement)
            The original sentence (tokens and trailing-space flags), the token index substituted
            and the new token.

        Returns
        -------
        list of (float, float)
            ``(sentence_cosine, word_cosine)`` per item, each in [-1, 1], rounded to 4 decimals
            so that verdicts do not depend on the encoder's thread count or batch.

        Raises
        ------
        OSError
            If the encoder cannot be loaded.
        """
        keys = [(tuple(w), tuple(s), p, r) for w, s, p, r in items]
        # every text of this call is encoded in this call, whatever an earlier call computed: the batches
        # (and so the float rounding of the encoder) then depend on the call's items alone, and a build
        # split over processes (--num-proc) gives the same verdicts, byte for byte, as one process
        todo = sorted(set(keys))
        found: dict[tuple, tuple[float, float]] = {}
        if todo:
            # one encoding per distinct text; the word's vector is read from that text's tokens at the span
            # of the item's own position (one sentence is the original of substitutions at many positions)
            texts: dict[str, int] = {}
            jobs = []
            for words, spaces, pos, repl in todo:
                orig, span_o = _render_with_span(words, spaces, pos, words[pos])
                new, span_n = _render_with_span(words, spaces, pos, repl)
                jobs.append((texts.setdefault(orig, len(texts)), span_o, texts.setdefault(new, len(texts)), span_n))
            encoded = self._encode(list(texts))
            for key, (o, span_o, n, span_n) in zip(todo, jobs):
                (so, wo), (sn, wn_) = encoded[o](span_o), encoded[n](span_n)
                # rounded to 4 decimals: a forked worker (--num-proc) runs the encoder with another thread
                # count, and the last bits of a cosine at a threshold must not decide a verdict
                found[key] = (round(float(so @ sn), 4), round(float(wo @ wn_), 4))
        return [found[k] for k in keys]

    def _encode(self, texts: list[str]):
        """Per text, a function of a character span giving the normalised sentence vector and the
        normalised mean of the span's subword vectors (the sentence vector if no subword overlaps it)."""
        import torch

        enc = self._encoder()
        outs = enc.encode(texts, output_value=None, batch_size=self.batch_size, show_progress_bar=False)
        # the same tokenizer and truncation as the encoder's, once for all texts, for the word spans
        all_offsets = enc.tokenizer(texts, return_offsets_mapping=True, truncation=True,
                                    max_length=enc.max_seq_length)["offset_mapping"]

        def vectors(out, offsets):
            sent = torch.nn.functional.normalize(out["sentence_embedding"].float(), dim=0)
            emb = out["token_embeddings"]

            def at(span):
                a, b = span
                sel = [j for j, (s, e) in enumerate(offsets) if e > s and s < b and e > a and j < len(emb)]
                word = emb[sel].mean(0) if sel else out["sentence_embedding"]
                return sent, torch.nn.functional.normalize(word.float(), dim=0)
            return at
        return [vectors(out, offsets) for out, offsets in zip(outs, all_offsets)]

    def verdicts(self, items) -> list[bool]:
        """Whether each substitution keeps the meaning (both similarities at or above the thresholds)."""
        return [s >= self.sentence_threshold and w >= self.word_threshold for s, w in self.similarities(items)]


def _render_with_span(words: Sequence[str], spaces: Sequence[bool], pos: int, repl: str) -> tuple[str, tuple[int, int]]:
    parts, start = [], 0
    span = (0, 0)
    for i, (w, s) in enumerate(zip(words, spaces)):
        w = repl if i == pos else w
        if i == pos:
            span = (start, start + len(w))
        parts.append(w + (" " if s else ""))
        start += len(parts[-1])
    return "".join(parts).rstrip(" "), span


#: ERRANT edit categories (without the M:/R:/U: operation) mapped to the types of Yin et al. (2020),
#: as ``robust-bench fit-confusions`` maps them.
ERRANT_TO_YIN = {"DET": "ArtOrDet", "PREP": "Prep", "CONJ": "Trans", "NOUN:NUM": "Nn", "VERB:SVA": "SVA",
                 "VERB:FORM": "Vform", "VERB:TENSE": "Vform", "NOUN": "Wchoice", "VERB": "Wchoice",
                 "ADJ": "Wchoice", "ADV": "Wchoice", "WO": "Worder"}


class ErrantClassifier:
    """Re-derive edit types with ERRANT (Bryant et al., 2017), independently of the engine.

    Each recorded edit is applied alone to the original sentence; ERRANT aligns that learner-side
    sentence with the original (the correction) and classifies the difference. The agreement of its
    type (:data:`ERRANT_TO_YIN`) with the recorded type is reported per type on the card.

    Parameters
    ----------
    nlp : str or spacy.Language, optional
        The pipeline ERRANT parses with: a name or folder, default ``$ROBUST_BENCH_ERRANT_MODEL``,
        else ``en_core_web_sm`` (ERRANT's own; its rules read spaCy's English tags and labels).

    Raises
    ------
    OSError
        If errant or the pipeline cannot be loaded.
    """

    def __init__(self, nlp=None):
        import errant
        import spacy

        if nlp is None or isinstance(nlp, str):
            name = nlp or os.environ.get(ERRANT_MODEL_ENV) or SECOND_SPACY_MODEL
            try:
                nlp = spacy.load(name, exclude=["ner"])
            except OSError as exc:
                raise OSError(f"ERRANT needs spaCy's {name!r} (python -m spacy download en_core_web_sm, or set "
                              f"{ERRANT_MODEL_ENV} to its folder): {exc}") from exc
        self.nlp = nlp
        self.annotator = errant.load("en", nlp)

    def classify(self, pairs: Iterable[tuple[Sequence[str], Sequence[str]]], batch_size: int = 256) -> list[list[str]]:
        """ERRANT types of the differences of each (learner tokens, corrected tokens) pair.

        Returns
        -------
        list of list of str
            Per pair, ERRANT's edit types (``"R:PREP"``, ``"M:DET"``, ...), in order.
        """
        from spacy.tokens import Doc

        pairs = [(tuple(a), tuple(b)) for a, b in pairs]
        keys = list(dict.fromkeys(w for p in pairs for w in p))      # each sentence parsed once
        parsed = dict(zip(keys, self.nlp.pipe((Doc(self.nlp.vocab, words=list(k)) for k in keys),
                                              batch_size=batch_size)))
        return [[e.type for e in self.annotator.annotate(parsed[a], parsed[b])] for a, b in pairs]

    @staticmethod
    def yin_type(errant_type: str) -> str | None:
        """The Yin et al. type of an ERRANT type (``"R:NOUN:NUM"`` -> ``"Nn"``), or ``None``."""
        cat = errant_type.split(":", 1)[1] if ":" in errant_type else errant_type
        return ERRANT_TO_YIN.get(cat)


def errant_agreement(recorded: Sequence[str], derived: Sequence[list[str]]) -> dict[str, dict]:
    """Per recorded type, how many edits ERRANT gives the same type (one ERRANT edit, same type).

    Parameters
    ----------
    recorded : sequence of str of shape (n_edits,)
    derived : sequence of list of str of shape (n_edits,)
        ERRANT types of each edit applied alone.

    Returns
    -------
    dict
        ``{type: {"edits": n, "agree": k, "share": k / n, "errant_types": {errant type: count}}}``.
    """
    out: dict[str, dict] = {}
    for rec, types in zip(recorded, derived):
        slot = out.setdefault(rec, {"edits": 0, "agree": 0, "errant_types": Counter()})
        slot["edits"] += 1
        mapped = [ErrantClassifier.yin_type(t) for t in types]
        if mapped and all(m == rec for m in mapped):
            slot["agree"] += 1
        slot["errant_types"][" + ".join(types) or "none"] += 1
    for slot in out.values():
        slot["share"] = round(slot["agree"] / slot["edits"], 4) if slot["edits"] else 0.0
        slot["errant_types"] = dict(slot["errant_types"].most_common(6))
    return dict(sorted(out.items()))


def _coarse(tag: str) -> str:
    return tag[:2] if tag[:2] in ("NN", "VB", "JJ", "RB") else tag


@lru_cache(maxsize=2)
def _second_tagger(name: str):
    import spacy

    try:
        return spacy.load(name, exclude=["parser", "ner", "lemmatizer", "senter"])
    except OSError as exc:
        raise OSError(f"second tagger {name!r} cannot be loaded (python -m spacy download en_core_web_sm, or set "
                      f"{ERRANT_MODEL_ENV} to its folder): {exc}") from exc


def load_second_tagger(name: str | None = None):
    """The second, independent tagger: ``name``, else ``$ROBUST_BENCH_ERRANT_MODEL``, else
    ``en_core_web_sm`` (spaCy's own English pipeline, which ERRANT also uses), tagger only; loaded once
    per process.

    Raises
    ------
    OSError
        If the pipeline cannot be loaded.
    """
    return _second_tagger(second_tagger_name(name))


def second_tagger_name(name: str | None = None) -> str:
    """Which pipeline :func:`load_second_tagger` loads: ``name``, else ``$ROBUST_BENCH_ERRANT_MODEL``, else
    ``en_core_web_sm``."""
    return name or os.environ.get(ERRANT_MODEL_ENV) or SECOND_SPACY_MODEL


def tag_disagreements(nlp2, sentences: Sequence[Sequence[tuple[str, str]]],
                      gold: Sequence[Sequence[str] | None] | None = None) -> list[set[int]]:
    """Tokens whose part of speech is in doubt: a second, independent tagger (and the source's own
    tags, where it has them, as CoNLL-2003 does) gives another word class (noun, verb, adjective,
    adverb) than the build's tagger. Edits that rest on the tag (noun number, agreement, verb form,
    word choice) leave those tokens alone: "on serve" and "percent change" are nouns, whatever one
    tagger says.

    Parameters
    ----------
    nlp2 : spacy.Language
        The second tagger (:func:`load_second_tagger`).
    sentences : sequence of sequence of (word, tag)
        Each sentence's words and the build's PTB tags.
    gold : sequence of (sequence of str or None), optional
        The source's own PTB tags per sentence.

    Returns
    -------
    list of set of int
    """
    from spacy.tokens import Doc

    docs = nlp2.pipe((Doc(nlp2.vocab, words=[w for w, _ in s]) for s in sentences), batch_size=256)
    out = []
    for k, (s, doc) in enumerate(zip(sentences, docs)):
        g = gold[k] if gold is not None else None
        out.append({i for i, (_, tag) in enumerate(s) if _coarse(doc[i].tag_) != _coarse(tag)
                    or (g is not None and g[i] not in ("_", "") and _coarse(g[i]) != _coarse(tag))})
    return out


class InContextChecks:
    """The checks that need the sentence around a substitution: ``same_tag`` (the pipeline re-tags
    the substitute with the original's PTB tag) and ``meaning_kept`` (:class:`MeaningKept`). Both run
    in batches, once per distinct substitution, so a builder or an attack asks them about all its
    candidates at once.

    Parameters
    ----------
    nlp : spacy.Language or None
        The build's pipeline (its tagger is rerun on the perturbed words); ``None`` skips ``same_tag``.
    meaning : MeaningKept or None
        ``None`` skips ``meaning_kept``.
    second : spacy.Language or None
        A second tagger (:func:`load_second_tagger`) for :func:`tag_disagreements`.
    """

    def __init__(self, nlp=None, meaning: MeaningKept | None = None, second=None):
        self.nlp = nlp
        self.meaning = meaning
        self.second = second

    @property
    def names(self) -> list[str]:
        """The checks this instance runs."""
        return [n for n, on in (("same_tag", self.nlp is not None), ("meaning_kept", self.meaning is not None)) if on]

    def refusals(self, items: Sequence[tuple[Sequence[str], Sequence[bool], Sequence[str], int, str]]
                 ) -> list[str | None]:
        """The first check that refuses each substitution, or ``None`` when all pass.

        Parameters
        ----------
        items : sequence of (words, spaces, tags, position, replacement)
            The original sentence's tokens, trailing-space flags and PTB tags, the substituted
            index and the new token.

        Returns
        -------
        list of str or None, of shape (n_items,)
        """
        out: list[str | None] = [None] * len(items)
        if self.nlp is not None and items:
            from spacy.tokens import Doc

            docs = [Doc(self.nlp.vocab, words=[repl if j == pos else w for j, w in enumerate(words)],
                        spaces=list(spaces)) for words, spaces, _, pos, repl in items]
            keep = [p for p in self.nlp.pipe_names if p in ("tok2vec", "tagger", "morphologizer", "attribute_ruler")]
            with self.nlp.select_pipes(enable=keep):
                for k, doc in enumerate(self.nlp.pipe(docs, batch_size=256)):
                    _, _, tags, pos, _ = items[k]
                    if doc[pos].tag_ != tags[pos]:
                        out[k] = "same_tag"
        if self.meaning is not None:
            todo = [k for k in range(len(items)) if out[k] is None]
            verdicts = self.meaning.verdicts([(items[k][0], items[k][1], items[k][3], items[k][4]) for k in todo])
            for k, ok in zip(todo, verdicts):
                if not ok:
                    out[k] = "meaning_kept"
        return out
