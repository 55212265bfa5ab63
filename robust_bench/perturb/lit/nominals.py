"""Noun phrases in the LIT UD backend (Li et al., 2020): a subject's agreement, whether it names a
person (for *who* in an it-cleft), quantification, the casing of names, and content words."""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from robust_bench.perturb.lit.clause import _3SG, Agreement, LitSetupError
from robust_bench.perturb.lit.lexicon import (_COMMON_NOUN_SUFFIXES, _CONTENT_POS, _LIGHT_LEMMAS, _PERSON_COLLECTIVES,
                                              _PERSON_PRONOUNS, _PRONOUN_AGR, _QUANTIFIER_WORDS)
from robust_bench.perturb.lit.verbgroup import _tag


def _agreement(head) -> Agreement:
    low = head.text.lower()
    if low in _PRONOUN_AGR:
        return Agreement(*_PRONOUN_AGR[low])
    if any(c.dep_ == "conj" for c in head.children) and any(c.lower_ == "and" for c in head.subtree):
        return Agreement(3, "pl")
    if "Plur" in head.morph.get("Number") or _tag(head) in ("NNS", "NNPS"):
        return Agreement(3, "pl")
    if head.pos_ == "NOUN":
        # a tagger that calls "monarchs" singular: the word is the plural form of another lemma
        from lemminflect import getAllLemmas, getInflection

        if any(lem != low and low in getInflection(lem, tag="NNS") and low not in getInflection(lem, tag="NN")
               for lem in getAllLemmas(low, upos="NOUN").get("NOUN", ())):
            return Agreement(3, "pl")
    return _3SG


def _is_person(head) -> bool:
    if any(c.dep_ == "conj" and not _is_person(c) for c in head.children):
        return False                  # "these people and their successes" takes "that"
    low = head.text.lower()
    if head.pos_ == "PRON":
        return low in _PERSON_PRONOUNS
    if head.pos_ == "PROPN":
        # a PER entity whose name part is a known first name ("Jon", "Mr. Hastings"); a small NER
        # calls venues and titles PER ("the Grill"), and "that" is always a correct cleft relative
        from robust_bench.text.nlp import map_entity_label

        span = [t for t in head.subtree if t.pos_ == "PROPN"]
        return map_entity_label(head.ent_type_) == "PER" and any(
            t.text in _first_names() or t.text.rstrip(".") in ("Mr", "Mrs", "Ms", "Dr", "Miss", "Sir") for t in span)
    lemma = head.lemma_.lower()
    if head.i > 1 and head.doc[head.i - 1].text == "-" and head.doc[head.i - 2].head.i == head.i:
        lemma = head.doc[head.i - 2].lower_ + "-" + lemma      # "die-cutters": a machine, not a cutter
    return lemma in _PERSON_COLLECTIVES or _noun_is_person(lemma)


@lru_cache(maxsize=1)
def _first_names() -> frozenset:
    """First names of NLTK's names corpus (male and female)."""
    from nltk.corpus import names

    try:
        return frozenset(names.words("male.txt")) | frozenset(names.words("female.txt"))
    except LookupError as exc:
        raise LitSetupError("the LIT UD backend needs the NLTK names corpus to tell people from other names; "
                            "set NLTK_DATA or run `python -m nltk.downloader names`") from exc


@lru_cache(maxsize=20_000)
def _noun_is_person(lemma: str) -> bool:
    """WordNet: the first noun sense of ``lemma`` is a hyponym of person.n.01."""
    return _first_noun_sense_under(lemma, "person.n.01")


@lru_cache(maxsize=20_000)
def _first_noun_sense_under(lemma: str, synset: str) -> bool:
    """WordNet: the first noun sense of ``lemma`` is a hyponym of ``synset``."""
    from robust_bench.text.wordnet import wordnet as wn

    syns = wn.synsets(lemma, pos="n")
    if not syns:
        return False
    target = wn.synset(synset)
    return any(target in path for path in syns[0].hypernym_paths())


def _bare_singular_being(tok) -> bool:
    """A singular person or animal noun without a determiner: the headline style of SNLI captions
    ("man with an orange bandanna plays"), which a cleft or a passive cannot carry ("It is man
    that ..."). Mass and abstract nouns ("Economic growth will continue") are not refused."""
    if tok.pos_ == "PROPN" and tok.i == 0 and tok.text not in _first_names() and not any(
            c.dep_ in ("compound", "flat", "flat:name") for c in tok.children) and not tok.lower_.endswith("s") \
            and _wordnet_case(tok.lower_) == "common" and (_noun_is_person(tok.lower_) or
                                                            _first_noun_sense_under(tok.lower_, "animal.n.01")):
        return True                   # "Dog yawns": a common noun at the start, tagged as a name
    if tok.pos_ != "NOUN" or "Sing" not in tok.morph.get("Number") or tok.i > 0 and tok.text[:1].isupper() or any(
            c.dep_ in ("det", "nmod:poss", "nummod", "det:poss") for c in tok.children):
        return False
    return _is_person(tok) or _first_noun_sense_under(tok.lemma_.lower(), "animal.n.01")


def _quantified(span_tokens) -> bool:
    return any(t.lower_ in _QUANTIFIER_WORDS for t in span_tokens if t.dep_ in ("det", "nsubj", "nsubj:pass",
                                                                                  "obj", "advmod", "ROOT", "amod")
               or t.pos_ in ("PRON", "DET"))


class Casing:
    """Whether a sentence-initial capitalised word is a name, so that it keeps its capital when it
    is no longer first (*It is managers that ...* but *It is John who ...*).

    Evidence, in order: (1) the corpus being transformed: a word seen capitalised after the
    first position more often than lower-cased there is a name, and the reverse a common word;
    (2) the tagger: a PROPN tagged as a person, place or geopolitical entity is a name; (3)
    WordNet: a lower-case lemma (after morphy) makes a common word, only a capitalised one
    (*Carnegie*) a name; (4) otherwise a name only if tagged PROPN and recognised as an entity
    (*Voluntariness of risks ...* is neither).

    Parameters
    ----------
    docs : iterable of spacy.tokens.Doc, optional
        The corpus, for the counts of (1).
    """

    _NAME_ENTS = {"PER", "PERSON", "LOC", "GPE", "NORP"}

    def __init__(self, docs: Iterable = ()):
        from collections import Counter

        self.capitalised: Counter = Counter()
        self.lowered: Counter = Counter()
        for doc in docs:
            self.add(doc)

    def add(self, doc) -> None:
        """Count the casing of the words of ``doc`` after its first token."""
        for t in list(doc)[1:]:
            if t.text[:1].isupper():
                self.capitalised[t.text.lower()] += 1
            elif t.text[:1].islower():
                self.lowered[t.text] += 1

    def is_name(self, tok) -> bool:
        """Whether the sentence-initial token ``tok`` (a spaCy token) is a name."""
        if not tok.text[:1].isupper():
            return False
        low = tok.text.lower()
        cap, lower = self.capitalised.get(low, 0), self.lowered.get(low, 0)
        if cap != lower:
            return cap > lower
        if tok.pos_ == "PROPN" and tok.ent_type_ in self._NAME_ENTS:
            return True
        known = _wordnet_case(low)
        if known in ("common", "name"):
            return known == "name"
        if known == "both":                 # "Democrats" / "democrats": the tagger decides
            return tok.pos_ == "PROPN"
        # unknown to WordNet: a name if tagged PROPN (misspelt and rare names: "Carneagie"),
        # unless it carries a common-noun suffix ("Voluntariness")
        return tok.pos_ == "PROPN" and not low.endswith(_COMMON_NOUN_SUFFIXES)


@lru_cache(maxsize=None)
def _wordnet_case(word: str) -> str | None:
    """``"common"`` if WordNet has ``word`` (or its morphy base form) only as a lower-case lemma,
    ``"name"`` if only as a capitalised one (*Carnegie*), ``"both"`` (*democrat*, *Democrat*), or
    ``None`` if not at all."""
    try:
        from robust_bench.text.wordnet import wordnet as wn

        lower = upper = False
        for pos in ("n", "v", "a", "r"):
            base = wn.morphy(word, pos) or word
            for syn in wn.synsets(base, pos):
                for lem in syn.lemmas():
                    if lem.name() == base:
                        lower = True
                    elif lem.name().lower() == base:
                        upper = True
        return "both" if lower and upper else "common" if lower else "name" if upper else None
    except LookupError as exc:
        raise LitSetupError("the LIT UD backend needs NLTK WordNet to tell names from common words; set "
                            "NLTK_DATA to a folder holding corpora/wordnet or run "
                            "`python -m nltk.downloader wordnet`") from exc


def content_lemmas(tokens) -> list[str]:
    """Lower-cased lemmas of the content words (nouns, verbs, adjectives, adverbs, numbers) among
    ``tokens`` (spaCy tokens), without *be*, *have*, *do* and the degree and focus adverbs."""
    return [t.lemma_.lower() for t in tokens if t.pos_ in _CONTENT_POS and t.is_alpha
            and t.lemma_.lower() not in _LIGHT_LEMMAS]
