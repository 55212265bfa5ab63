"""Where an edit would be no learner's error: fixed expressions, titles and names, words joined into
a larger written word, headlines and all-caps segments, time phrases, mass nouns, the articles a site
may take, and adverb orders learners get wrong."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from robust_bench.perturb.gec.sets import ARTICLES
from robust_bench.perturb.gec.tokens import Token, _inflect


_TIME_NOUNS = frozenset({"time", "times", "day", "days", "week", "weeks", "month", "months", "year", "years",
                         "moment", "night", "morning", "afternoon", "evening", "season", "weekend", "point"})


@lru_cache(maxsize=50_000)
def _mostly_mass(lemma: str) -> bool:
    """Whether a noun is mostly uncountable: its plural is at least ten times rarer than its singular
    (wordfreq; "information", "opposition", "fire" in "fire broke out") or it has none ("research").
    A mass noun stands without an article ("opposition to the ban"), and takes *a* only as a learner's
    error ("an information")."""
    from robust_bench.perturb.checks import zipf

    plural = _inflect(lemma, "NNS")
    return not plural or plural == lemma or zipf(lemma) - zipf(plural) >= 1.0


def _temporal_object(tokens: Sequence[Token], i: int) -> bool:
    """Whether preposition ``i`` introduces a time phrase ("at this time", "on the last day")."""
    for j in range(i + 1, min(len(tokens), i + 4)):
        if tokens[j].pos in ("NOUN", "PROPN") or tokens[j].lower in _DATES:
            return tokens[j].lower in _TIME_NOUNS or tokens[j].lower in _DATES
    return False


def _article_members(tokens: Sequence[Token], site: tuple[str, str, int]) -> tuple[str, ...]:
    """The articles an ArtOrDet operation may write at a site. An indefinite article takes the form
    the next word's sound needs (:func:`robust_bench.perturb.checks.indefinite_article`: "an hour",
    "a university"), and is not written before a plural head ("the books" -> "a books"); *a* and *an*
    are not confused with each other (that is spelling, not article choice)."""
    from robust_bench.perturb.checks import indefinite_article

    _, where, i = site
    n = len(tokens)
    if where.startswith("gap"):
        nxt = tokens[i].text
        # "the" before a bare noun phrase is standard English with a definite reading ("told the
        # reporters", "after the rebels looted"); only a/an before a bare singular is an error
        return (indefinite_article(nxt),) if where == "gap" and nxt.isalpha() else ()
    # a/an <-> the is a choice of definiteness: both are standard English out of context ("left the
    # meeting" / "left a meeting"), so no article is substituted for another (ninth blind audit)
    return ()


#: Fixed expressions whose words are not free choices: an edit inside "because of", "in front of" or
#: "at least" ("because about", "into front of") is no learner's preposition or word-choice error.
FIXED_BIGRAMS = frozenset({
    ("because", "of"), ("instead", "of"), ("according", "to"), ("due", "to"), ("out", "of"), ("ahead", "of"),
    ("spite", "of"), ("front", "of"), ("in", "front"), ("part", "of"), ("terms", "of"), ("in", "terms"),
    ("addition", "to"), ("in", "addition"), ("regardless", "of"), ("prior", "to"), ("rather", "than"),
    ("such", "as"), ("apart", "from"), ("thanks", "to"), ("next", "to"), ("close", "to"), ("as", "well"),
    ("at", "least"), ("at", "all"), ("in", "order"), ("of", "course"), ("by", "far"), ("at", "once"),
    ("up", "to"), ("in", "case"), ("on", "behalf"), ("in", "spite"), ("at", "last"), ("so", "that"),
    ("even", "if"), ("even", "though"), ("as", "if"), ("as", "though"), ("so", "far"), ("at", "home"),
    ("on", "top"), ("top", "of"), ("at", "first"), ("in", "fact"), ("for", "example"), ("for", "instance"),
    ("at", "times"), ("in", "particular"), ("as", "of"), ("as", "for"), ("per", "cent"), ("on", "time"),
    ("as", "much"), ("much", "as"), ("as", "many"), ("many", "as"), ("as", "long"), ("as", "soon"), ("as", "far"),
    ("back", "and"), ("and", "forth"), ("quoted", "as"), ("as", "saying"), ("n", "/"), ("/", "a"),
    ("far", "as"), ("long", "as"), ("soon", "as"), ("well", "as"), ("sort", "of"), ("kind", "of"), ("do", "with"),
    ("going", "to"), ("used", "to"), ("lot", "of"), ("lots", "of"), ("spur", "of"), ("the", "moment"), ("couple", "of"), ("plenty", "of"),
    # sports results and standings (CoNLL-2003): column heads and set phrases, not free prepositions or verbs
    ("goals", "for"), ("goals", "against"), ("fall", "of"), ("of", "wickets"), ("day", "running"),
    ("week", "running"), ("year", "running"), ("season", "running"), ("game", "running"), ("time", "running"),
})
#: currency signs a number follows in tokenised news ("from $ 1.54 trillion")
_CURRENCY = frozenset({"$", "us$", "c$", "a$", "nz$", "hk$", "£", "€", "¥"})
_DATES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                    "february", "march", "april", "may", "june", "july", "august", "september", "october",
                    "november", "december", "today", "tomorrow", "yesterday", "tonight", "noon", "midnight"})
_APPROX = frozenset({"about", "around", "approximately", "nearly", "almost", "roughly", "some", "over", "under"})
_QUANTIFIERS = frozenset({"not", "no", "many", "much", "few", "more", "most", "several", "enough", "all", "both",
                          "each", "every", "some", "any", "other", "such", "own", "less", "least", "little"})
#: Nouns whose plural or singular is no number error (temporal adverbs parsed as nouns, letters).
_NO_NN = frozenset({"yesterday", "today", "tomorrow", "tonight", "v", "vs", "etc",
                    # sports and other mass nouns whose plural names something else ("crickets", "squashes")
                    "cricket", "squash", "football", "soccer", "tennis", "golf", "rugby", "baseball", "basketball",
                    "hockey", "athletics", "boxing", "cycling", "swimming", "skiing", "sailing", "rowing", "racing",
                    "polo", "mom", "dad", "mum"})


def _in_title(tokens: Sequence[Token], i: int) -> bool:
    """Whether a function word sits inside a capitalised name or title ("The Bell Curve", "A Treasury
    of the World's Great Letters"): capitalised itself past the sentence start, or between capitalised
    words. A learner copies a title as written."""
    def cap(j: int) -> bool:
        return 0 <= j < len(tokens) and tokens[j].text[:1].isupper() and (j > 0 or tokens[j].pos == "PROPN")

    if i > 0 and tokens[i].text[:1].isupper():
        return True
    if i == 0 and tokens[i].text[:1].isupper() and cap(1) and tokens[1].pos == "PROPN" and tokens[i].lower in ARTICLES:
        return True
    return cap(i - 1) and (cap(i + 1) or (i + 2 < len(tokens) and tokens[i + 1].lower in ARTICLES and cap(i + 2)))


def _fixed(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` belongs to a fixed expression (:data:`FIXED_BIGRAMS`, or UD ``fixed``)."""
    low = tokens[i].lower
    if tokens[i].dep in ("fixed", "mwe") or any(tokens[c].dep in ("fixed", "mwe") and tokens[c].head == i
                                                 for c in (i - 1, i + 1) if 0 <= c < len(tokens)):
        return True
    return (i > 0 and (tokens[i - 1].lower, low) in FIXED_BIGRAMS) or \
        (i + 1 < len(tokens) and (low, tokens[i + 1].lower) in FIXED_BIGRAMS)


def _word_part(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` is part of a larger written word: joined by a hyphen or slash with no space
    ("land-owners", "open-air"), or a clitic host ("ca" of "ca n't", "wo n't")."""
    n = len(tokens)
    if i + 1 < n and not tokens[i].space and (tokens[i + 1].text in ("-", "/", "n't") or tokens[i + 1].text[:1] == "'"):
        return True
    if i + 1 < n and tokens[i + 1].lower in ("n't", "'s", "'ll", "'re", "'ve", "'d", "'m"):
        return True
    return i > 0 and not tokens[i - 1].space and tokens[i - 1].text in ("-", "/")


def _named(tokens: Sequence[Token], i: int) -> bool:
    """A capitalised word past the sentence start ("the Commission", "Marshall Plan", "Table 9.1"): part
    of a name or title, whatever its tag; number, form and word choice leave it alone."""
    return i > 0 and tokens[i].text[:1].isupper() and not _all_caps(tokens)


def _misordered(tokens: Sequence[Token], kids: list[list[int]], adv: int, other: int) -> bool:
    """Whether swapping adverb ``adv`` with its neighbour ``other`` gives an order learners write and
    English does not: "enough" before its adjective ("big enough" -> "enough big"), or an adverb moved
    between a participle and its object ("has quickly eaten apples" -> "has eaten quickly apples").
    Other swaps ("temporarily postponed" -> "postponed temporarily", "can always" -> "always can") are
    standard English (ninth blind audit)."""
    t, o = tokens[adv], tokens[other]
    if o.pos == "ADJ":
        return t.lower == "enough" and other < adv
    if o.tag in ("VBN", "VBG") and adv < other:
        return any(tokens[c].dep in ("obj", "dobj") and c > other for c in kids[other])
    return False


def _headline(tokens: Sequence[Token]) -> bool:
    """A headline or a label ("China to open port at Hainan", "Indonesian newspapers"): no closing
    punctuation. Headlines drop articles and use the present for the past, so adding an article or
    switching number or tense there gives another headline, not an error."""
    return bool(tokens) and tokens[-1].text not in (".", "?", "!", '"', "''", "'", ")", ":", ";", "...")


def _all_caps(tokens: Sequence[Token]) -> bool:
    """An all-caps segment (a headline such as "GOLF - LEADING SCORES"): nothing is inserted into it,
    since a lower-case word would stand out and an upper-case one reads as part of the headline."""
    long = [t.text for t in tokens if t.text.isalpha() and len(t.text) > 1]
    return bool(long) and sum(w.isupper() for w in long) * 2 > len(long)
