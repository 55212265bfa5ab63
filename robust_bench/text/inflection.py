"""Regular English inflection by hand-written rules, for pseudowords.

Hall Maudslay & Cotterell (2021, §3) inflect their pseudowords with the regular rules of
English morphology and spelling. A dictionary-based inflector such as ``lemminflect`` cannot
do this: pseudowords are not in its lexicon. These rules cover the regular suffixes and the
spelling changes that go with them:

* ``-s`` / ``-es`` for noun plurals and the verb third person singular (``-es`` after a
  sibilant ``s x z ch sh`` and, for verbs, after consonant + ``o``; ``y -> ies`` after a
  consonant);
* ``-ed`` with ``e``-drop (``bake -> baked``), ``y -> ied`` and consonant doubling;
* ``-ing`` with ``e``-drop (``make -> making``, but ``see -> seeing``), ``ie -> ying`` and
  consonant doubling;
* ``-er`` / ``-est`` with the same changes (``big -> bigger``, ``happy -> happiest``).

Consonant doubling applies to a final consonant-vowel-consonant sequence of a
one-syllable word (``stop -> stopped``), never after ``w``, ``x`` or ``y``. Stress decides
doubling in longer words (``commit -> committed`` but ``visit -> visited``), which spelling
cannot show, so longer words are not doubled; the pseudowords used here are one syllable.
"""

from __future__ import annotations

import re

__all__ = ["FORMS", "inflect", "is_regular_base"]

#: The inflectional forms this module produces.
FORMS = ("base", "plural", "3sg", "past", "ing", "cmp", "sup")

_VOWELS = set("aeiou")
_SIBILANT = re.compile(r"(s|x|z|ch|sh)$")


def _is_vowel(word: str, i: int) -> bool:
    c = word[i]
    if c in _VOWELS:
        # "u" after "q" is part of the consonant cluster "qu"
        return not (c == "u" and i > 0 and word[i - 1] == "q")
    if c == "y":
        # "y" is a vowel after a consonant ("gym", "fly"), a consonant at the start or after a vowel
        return i > 0 and not _is_vowel(word, i - 1)
    return False


def _syllables(word: str) -> int:
    groups, prev = 0, False
    for i in range(len(word)):
        v = _is_vowel(word, i)
        if v and not prev:
            groups += 1
        prev = v
    # a final silent "e" after a consonant does not make a syllable ("make", "stone")
    if len(word) > 2 and word.endswith("e") and not _is_vowel(word, len(word) - 2) and groups > 1 \
            and not word.endswith("le"):
        groups -= 1
    return max(groups, 1)


def _doubles(word: str) -> bool:
    """Final consonant-(single vowel)-consonant in a one-syllable word."""
    if len(word) < 3 or word[-1] in "wxy":
        return False
    c1, v, c2 = len(word) - 3, len(word) - 2, len(word) - 1
    if _is_vowel(word, c2) or not _is_vowel(word, v) or _is_vowel(word, c1):
        return False
    if word[v] == "y":
        return False
    return _syllables(word) == 1


def _consonant_y(word: str) -> bool:
    return len(word) >= 2 and word.endswith("y") and word[-2] not in _VOWELS


def _s_form(word: str, verb: bool = False) -> str:
    if _consonant_y(word):
        return word[:-1] + "ies"
    if _SIBILANT.search(word):
        return word + "es"
    if verb and len(word) >= 2 and word.endswith("o") and word[-2] not in _VOWELS:
        return word + "es"  # goes, echoes, vetoes (nouns vary: potatoes but photos)
    return word + "s"


def _ed_form(word: str) -> str:
    if word.endswith("e"):
        return word + "d"
    if _consonant_y(word):
        return word[:-1] + "ied"
    if _doubles(word):
        return word + word[-1] + "ed"
    return word + "ed"


def _ing_form(word: str) -> str:
    if word.endswith("ie"):
        return word[:-2] + "ying"
    if word.endswith("e") and not word.endswith(("ee", "ye", "oe")) and len(word) > 2:
        return word[:-1] + "ing"
    if _doubles(word):
        return word + word[-1] + "ing"
    return word + "ing"


def _degree_form(word: str, suffix: str) -> str:
    if word.endswith("e"):
        return word + suffix[1:]
    if _consonant_y(word):
        return word[:-1] + "i" + suffix
    if _doubles(word):
        return word + word[-1] + suffix
    return word + suffix


def inflect(base: str, form: str) -> str:
    """Inflect a lower-case base with the regular rules of English.

    Parameters
    ----------
    base : str
        A lower-case alphabetic lemma or pseudoword, such as ``"blick"``.
    form : {"base", "plural", "3sg", "past", "ing", "cmp", "sup"}
        Noun plural; verb third person singular present, past (also the past participle)
        and present participle; adjective or adverb comparative and superlative.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``form`` is unknown or ``base`` is empty.

    Examples
    --------
    >>> [inflect("blick", f) for f in ("plural", "past", "ing", "cmp")]
    ['blicks', 'blicked', 'blicking', 'blicker']
    >>> inflect("grop", "past"), inflect("frane", "ing"), inflect("smy", "3sg")
    ('gropped', 'franing', 'smies')
    """
    if not base:
        raise ValueError("cannot inflect an empty base")
    if form == "base":
        return base
    if form == "plural":
        return _s_form(base)
    if form == "3sg":
        return _s_form(base, verb=True)
    if form == "past":
        return _ed_form(base)
    if form == "ing":
        return _ing_form(base)
    if form == "cmp":
        return _degree_form(base, "er")
    if form == "sup":
        return _degree_form(base, "est")
    raise ValueError(f"unknown form {form!r}; expected one of {FORMS}")


def is_regular_base(word: str) -> bool:
    """Whether ``word`` can serve as a pseudoword base: lower-case letters only, with a
    vowel, and no ending that reads as an inflection (``-s``, ``-ed``, ``-ing``, ``-er``,
    ``-est``, ``-ly``)."""
    if not re.fullmatch(r"[a-z]{2,}", word):
        return False
    if not any(_is_vowel(word, i) for i in range(len(word))):
        return False
    return not word.endswith(("s", "ed", "ing", "er", "est", "ly"))
