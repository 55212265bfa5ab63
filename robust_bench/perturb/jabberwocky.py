"""Jabberwocky substitution: replace open-class words by inflected pseudowords, keep the tree.

Hall Maudslay & Cotterell (2021, "Do Syntactic Probes Probe Syntax? Experiments with
Jabberwocky Probing", §3 and footnote 4) replace nouns, verbs, adjectives and adverbs by
random pseudowords inflected to the same form, so that the sentence keeps its syntax and
loses its lexical semantics. Footnote 4 lists the forms that are replaced:

* nouns: ``Number=Sing`` or ``Number=Plur``;
* verbs: ``VerbForm=Inf``; ``VerbForm=Fin|Mood=Ind|Number=Sing|Person=3|Tense=Pres``;
  ``VerbForm=Fin|Mood=Ind|Tense=Pres`` (any other person or number);
  ``VerbForm=Part|Tense=Pres``;
* adjectives and adverbs: ``Degree=Cmp``, ``Degree=Sup`` or unmarked (no features, or
  ``Degree=Pos``).

A word is replaced only if its FEATS are exactly one of these bundles (UD English EWT also
marks person and number on finite verbs, which the non-3sg bundle allows). Words with any
other feature (``Typo``, ``Abbr``, ``NumType``, ``ExtPos``, ``Foreign``, ...), words that are
not purely alphabetic, and words inside a multiword token (whose surface form the range
line carries) are kept and counted with their reason.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from robust_bench.io.conllu_io import Sentence
from robust_bench.text.inflection import inflect

__all__ = ["OPEN_CLASSES", "SubstitutionResult", "substitution_form", "jabberwockify", "sentence_rng"]

#: The word classes Hall Maudslay & Cotterell (2021) replace.
OPEN_CLASSES = ("NOUN", "VERB", "ADJ", "ADV")

#: Skip reasons, as reported on the dataset card.
SKIP_FEATURES = "features outside footnote 4"
SKIP_NON_ALPHA = "non-alphabetic form"
SKIP_MULTIWORD = "inside a multiword token"


def _parse_feats(feats: str) -> dict[str, str]:
    if not feats or feats == "_":
        return {}
    out = {}
    for item in feats.split("|"):
        k, _, v = item.partition("=")
        out[k] = v
    return out


def substitution_form(upos: str, feats: str) -> str | None:
    """The inflectional form a pseudoword must take for this word, or ``None`` if the word
    is not replaced under footnote 4.

    Parameters
    ----------
    upos : str
        UPOS tag.
    feats : str
        CoNLL-U FEATS string (``"_"`` when empty).

    Returns
    -------
    {"base", "plural", "3sg", "ing", "cmp", "sup"} or None

    Examples
    --------
    >>> substitution_form("NOUN", "Number=Plur")
    'plural'
    >>> substitution_form("VERB", "Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin")
    'base'
    >>> substitution_form("VERB", "Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin") is None
    True
    """
    f = _parse_feats(feats)
    if upos == "NOUN":
        if f == {"Number": "Sing"}:
            return "base"
        if f == {"Number": "Plur"}:
            return "plural"
        return None
    if upos == "VERB":
        if f == {"VerbForm": "Inf"}:
            return "base"
        if f == {"VerbForm": "Part", "Tense": "Pres"}:
            return "ing"
        core = {k: v for k, v in f.items() if k not in ("Number", "Person")}
        if core == {"VerbForm": "Fin", "Mood": "Ind", "Tense": "Pres"}:
            if f.get("Number") == "Sing" and f.get("Person") == "3":
                return "3sg"
            if "Number" in f and "Person" in f and f["Number"] in ("Sing", "Plur") \
                    and f["Person"] in ("1", "2", "3"):
                return "base"
            if not ({"Number", "Person"} & set(f)):
                return "base"
        return None
    if upos in ("ADJ", "ADV"):
        if f in ({}, {"Degree": "Pos"}):
            return "base"
        if f == {"Degree": "Cmp"}:
            return "cmp"
        if f == {"Degree": "Sup"}:
            return "sup"
        return None
    return None


def _match_case(original: str, word: str) -> str:
    if len(original) > 1 and original.isupper():
        return word.upper()
    if original[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def sentence_rng(seed: int, sent_id: str) -> random.Random:
    """A random generator seeded from (seed, sentence id), as HELM seeds per instance, so
    that any subset or shard order gives the same rows. String seeds are hashed with
    SHA-512 by :class:`random.Random`, independent of ``PYTHONHASHSEED``."""
    return random.Random(f"robust-bench/{seed}/{sent_id}")


@dataclass(frozen=True)
class SubstitutionResult:
    """A Jabberwocky sentence.

    Attributes
    ----------
    tokens : tuple of str of shape (n_words,)
        The words after substitution.
    substituted : tuple of bool of shape (n_words,)
    edits : tuple of dict
        One per replaced word: ``type`` (``"pseudoword:<UPOS>:<form>"``), ``position``
        (0-based word index), ``original`` and ``replacement``.
    skipped : tuple of (int, str)
        Open-class words left unchanged, with the reason.
    """

    tokens: tuple[str, ...]
    substituted: tuple[bool, ...]
    edits: tuple[dict, ...]
    skipped: tuple[tuple[int, str], ...]


def skip_reasons(sentence: Sentence) -> dict[int, str]:
    """The open-class words that :func:`jabberwockify` leaves unchanged, with the reason, checked in
    the engine's order: features outside footnote 4, then multiword-token parts, then non-alphabetic
    forms.

    Returns
    -------
    dict of int to str
        0-based word index -> one of :data:`SKIP_FEATURES`, :data:`SKIP_MULTIWORD`, :data:`SKIP_NON_ALPHA`.
    """
    out = {}
    in_mwt = sentence.in_multiword_token
    for i, (form, upos, feats) in enumerate(zip(sentence.forms, sentence.upos, sentence.feats)):
        if upos not in OPEN_CLASSES:
            continue
        if substitution_form(upos, feats) is None:
            out[i] = SKIP_FEATURES
        elif in_mwt[i]:
            out[i] = SKIP_MULTIWORD
        elif not form.isalpha():
            out[i] = SKIP_NON_ALPHA
    return out


def jabberwockify(sentence: Sentence, pseudowords: Sequence[str], rng: random.Random) -> SubstitutionResult:
    """Replace every eligible open-class word by a random inflected pseudoword.

    Parameters
    ----------
    sentence : Sentence
    pseudowords : sequence of str
        Lower-case pseudoword bases; each replaced word draws one uniformly.
    rng : random.Random
        Per-sentence generator, see :func:`sentence_rng`.

    Returns
    -------
    SubstitutionResult
        The tree (heads, relations, tags) is untouched by construction.

    Raises
    ------
    ValueError
        If ``pseudowords`` is empty.
    """
    if not pseudowords:
        raise ValueError("no pseudowords to substitute")
    tokens = list(sentence.forms)
    flags = [False] * len(tokens)
    edits = []
    skipped = []
    reasons = skip_reasons(sentence)
    for i, (form, upos, feats) in enumerate(zip(sentence.forms, sentence.upos, sentence.feats)):
        if upos not in OPEN_CLASSES:
            continue
        if i in reasons:
            skipped.append((i, reasons[i]))
            continue
        target = substitution_form(upos, feats)
        base = pseudowords[rng.randrange(len(pseudowords))]
        new = _match_case(form, inflect(base, target))
        tokens[i] = new
        flags[i] = True
        edits.append({"type": f"pseudoword:{upos}:{target}", "position": i,
                      "original": form, "replacement": new})
    return SubstitutionResult(tuple(tokens), tuple(flags), tuple(edits), tuple(skipped))
