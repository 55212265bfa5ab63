"""The words that never change (:func:`protection_reasons`): DepAttacker's ``stop_tags`` and every
other function class, proper nouns, auxiliaries and copulas, light verbs, degree adverbs and the words of
fixed expressions, flat names and phrasal verbs."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Sequence


#: DepAttacker's ``stop_tags``: PTB tags of words that are never substituted (§2.4: pronouns, articles,
#: conjunctions, numerals, interjections, interrogative determiners, punctuation).
STOP_XPOS = frozenset({"PRP", "PRP$", "DT", "CC", "IN", "CD", "UH", "WDT", "WP", "WP$", "-LRB-", "-RRB-",
                       ".", "``", "''", ":", ",", "?", ";"})
#: Further PTB classes that are function words or names, never substituted here: modals, infinitival
#: "to", possessive 's, particles, existential "there", predeterminers, wh-adverbs, proper nouns, and
#: symbols, list markers, foreign words, e-mail addresses and the like.
FUNCTION_XPOS = frozenset({"MD", "TO", "POS", "RP", "EX", "PDT", "WRB", "NNP", "NNPS", "LS", "SYM", "FW", "ADD",
                           "NFP", "GW", "AFX", "HYPH", "$", "#", "XX", "-NONE-"})
FORBIDDEN_XPOS = STOP_XPOS | FUNCTION_XPOS
#: The same classes in UPOS: only nouns, (non-auxiliary) verbs, adjectives and adverbs may change.
FORBIDDEN_UPOS = frozenset({"PRON", "DET", "CCONJ", "SCONJ", "ADP", "NUM", "INTJ", "PUNCT", "AUX", "PART", "PROPN",
                            "SYM", "X"})
#: UD relations whose dependent never changes: auxiliaries, copulas, expletives, and the words of
#: fixed expressions, flat names, phrasal-verb particles and split words.
PROTECTED_DEPRELS = frozenset({"aux", "cop", "expl", "fixed", "flat", "compound:prt", "goeswith"})
#: UD relations whose head never changes either: the first word of a fixed expression or flat name
#: ("of course", "High Wycombe"), the verb of a phrasal verb ("give up"), the verb of an expletive
#: ("there is"), a split word.
PROTECTED_HEAD_OF = frozenset({"fixed", "flat", "compound:prt", "goeswith", "expl"})
#: FEATS that mark a word whose form is not its standard spelling or not a plain word.
PROTECTED_FEATS = ("Typo=Yes", "Abbr=Yes", "Foreign=Yes")
#: Lemmas never substituted whatever their tag: "be", "have" and "do" carry the tense, aspect and
#: copular structure (DepAttacker's synonym list leaves out "be"); the light and support verbs "get",
#: "let", "go", "make", "take" and "give" head constructions that a synonym breaks ("get married",
#: "going to", "make a decision" -> "create a decision"); the semi-modals "want" and "need" have no
#: synonym of the same meaning and valency ("want" -> "need"); and the reporting verbs "say" and
#: "tell" take different complements ("told him" -> "said him", "said that" -> "told that").
#: Quantifier nouns (:data:`PROTECTED_NOUNS`) head fixed phrases ("a lot of" -> "a plenty of").
#: The verbs of the most English idioms and phrasal constructions come last ("keep them in the dark"
#: -> "hold them in the dark", "put you in touch" -> "place you in touch", "come across", "look
#: forward to", "set up", "run out"), as the blind audit of adv_ewt 2.0.0 found.
PROTECTED_LEMMAS = frozenset({"be", "have", "do", "get", "let", "go", "make", "take", "give", "want", "need", "say",
                              "tell", "keep", "put", "hold", "come", "look", "find", "bring", "turn", "set", "run"})
#: Verbs of opinion and hedges: a synonym changes how firmly the speaker holds the claim ("I think
#: it's a good idea" -> "I guess it's a good idea").
OPINION_VERBS = frozenset({"think", "guess", "suppose", "believe", "reckon", "imagine", "feel", "know", "mean",
                           "hope", "wish", "expect", "assume", "presume"})
#: Amplifiers and downtoners (Quirk et al.'s intensifiers), whatever they modify: each marks its own
#: degree ("highly vulnerable" -> "extremely vulnerable", "alter the points somewhat" -> "slightly",
#: "reasonably predicted" -> "fairly predicted"), as the third blind audit found.
DEGREE_ADVERBS = frozenset({"extremely", "highly", "greatly", "hugely", "enormously", "immensely", "vastly", "deeply",
                            "strongly", "badly", "terribly", "awfully", "incredibly", "remarkably", "exceptionally",
                            "considerably", "substantially", "significantly", "totally", "completely", "entirely",
                            "utterly", "absolutely", "fully", "wholly", "thoroughly", "perfectly", "partly",
                            "partially", "somewhat", "slightly", "fairly", "reasonably", "relatively", "moderately",
                            "marginally", "mildly", "increasingly", "sufficiently", "adequately", "excessively",
                            "overly", "unusually", "exceedingly", "tremendously", "seriously", "severely"})
#: Connective and stance adverbs (Quirk et al.'s conjuncts and disjuncts): their synonyms differ in
#: register or in the relation they mark ("must, therefore, closely examine" -> "must, hence, ...",
#: "actually" -> "really").
CONNECTIVE_ADVERBS = frozenset({"therefore", "thus", "hence", "consequently", "accordingly", "moreover",
                                "furthermore", "however", "nevertheless", "nonetheless", "besides", "indeed",
                                "otherwise", "meanwhile", "likewise", "similarly", "additionally", "actually",
                                "really", "basically", "essentially", "anyway", "anyways", "anyhow", "honestly",
                                "seriously", "literally", "obviously", "apparently", "clearly", "certainly",
                                "definitely", "surely", "frankly", "finally", "eventually", "ultimately"})
#: Aspectual verbs that make an idiom under negation: "couldn't even begin to try" means "could not
#: at all", and "couldn't even start to try" does not (the census of adv_ewt 2.1.0).
NEGATED_IDIOM_VERBS = frozenset({"begin", "start"})
#: Words of negation, as ``advmod`` dependents.
NEGATIONS = frozenset({"not", "n't", "never", "nt"})
#: Verbs after which an adjective is a plain predicative complement; after any other verb an
#: adjective complement is an idiom or a secondary predicate ("loom large", "come true", "hold tight").
LINKING_VERBS = frozenset({"be", "seem", "appear", "look", "sound", "feel", "become", "get", "remain", "stay",
                           "keep", "turn", "grow", "prove", "smell", "taste", "go", "come", "make", "find",
                           "consider", "call", "leave"})
#: Relations of function positions: a verb or adjective used as a preposition or conjunction
#: ("questions regarding applications" -> "questions considering applications").
FUNCTION_DEPRELS = frozenset({"case", "mark", "cc", "det"})
#: Quantifying and determiner-like adjectives: "several of the places" -> "various of the places".
PROTECTED_ADJECTIVES = frozenset({"several", "various", "many", "few", "numerous", "certain", "multiple", "enough",
                                  "much", "little", "more", "most", "less", "least", "other", "same", "such", "whole",
                                  "entire", "own", "only", "next", "last", "first", "further"})
#: Hypernyms that make a noun a unit or period of measure or a number ("minutes" -> "seconds", "meter"
#: -> "metre", "millions" -> "billions"), or a ratio ("70 percent" -> "70 percentage", as the census of
#: adv_ewt 2.1.0 found).
MEASURE_HYPERNYMS = ("unit_of_measurement.n.01", "time_unit.n.01", "time_period.n.01", "number.n.02",
                     "magnitude_relation.n.01")
PROTECTED_NOUNS = frozenset({"lot", "lots", "bit", "couple", "kind", "sort", "type", "plenty", "deal", "number",
                             "amount", "bunch", "load", "loads", "ton", "tons", "way", "thing", "things"})
#: Degree, focus and time adverbs, a closed class in all but tag (Quirk et al.'s subjuncts): their
#: WordNet "synonyms" shift scope or register ("just" -> "merely", "pretty" -> "somewhat", "too" ->
#: "also"), as blind readers of the first builds judged; with the approximators and negative adverbs,
#: whose scope a synonym changes ("not nearly as much" -> "not almost as much", "hardly" -> "barely"),
#: and the adverbs of time position, whose synonyms differ in aspect and register ("until recently" ->
#: "until lately", "a visit to India recently" -> "lately"; "presently" is "soon" in British English),
#: as the census of adv_ewt 2.1.0 found.
PROTECTED_ADVERBS = frozenset({"just", "only", "even", "also", "too", "so", "very", "pretty", "quite", "really",
                               "still", "then", "now", "already", "yet", "ever", "never", "almost", "rather",
                               "enough", "much", "well", "as", "more", "most", "less", "least", "again", "else",
                               "here", "there", "back", "away", "up", "down", "out", "off", "on", "in", "over",
                               "about", "around", "instead", "anyway", "though", "not", "n't", "always", "often",
                               "sometimes", "once", "twice", "soon", "later", "today", "tonight", "tomorrow",
                               "yesterday", "all", "both", "either", "neither", "hardly", "barely", "scarcely", "nearly",
                               "almost", "virtually", "practically", "approximately", "roughly", "about",
                               "recently", "lately", "currently", "presently", "previously", "formerly", "shortly",
                               "nowadays"})


def _lemma_at(words, i, xp, up, lemmas) -> str:
    if lemmas and lemmas[i] and lemmas[i] != "_":
        return lemmas[i].lower()
    kind = "VERB" if (xp or "").startswith("VB") or up in ("VERB", "AUX") else \
        "NOUN" if (xp or "").startswith("NN") or up == "NOUN" else None
    if kind:
        from lemminflect import getLemma

        found = getLemma(words[i], upos=kind)
        if found:
            return found[0].lower()
    return words[i].lower()


@lru_cache(maxsize=100_000)
def _used_as_other_pos(lemma: str, pos: str) -> bool:
    """Whether WordNet's sense-tagged counts (SemCor) never attest ``lemma`` in part of speech ``pos``
    but do in another: "veterinary" as a noun."""
    from robust_bench.text.wordnet import wordnet as wn

    counts: dict[str, int] = {}
    for lem in wn.lemmas(lemma):
        p = "a" if lem.synset().pos() == "s" else lem.synset().pos()
        counts[p] = counts.get(p, 0) + lem.count()
    return counts.get(pos, 0) == 0 and sum(counts.values()) > 0


@lru_cache(maxsize=100_000)
def _is_measure(lemma: str) -> bool:
    """Whether the noun's most frequent sense is a unit or period of measure or a number (WordNet hypernyms)."""
    from robust_bench.text.wordnet import wordnet as wn

    senses = wn.synsets(lemma, "n")[:1]
    targets = {wn.synset(x) for x in MEASURE_HYPERNYMS}
    return any(targets & set(x.closure(lambda y: y.hypernyms())) for x in senses)


@lru_cache(maxsize=200_000)
def _is_wordnet_expression(words: tuple[str, ...]) -> bool:
    from robust_bench.text.wordnet import wordnet as wn

    return bool(wn.synsets("_".join(words)))


def _in_wordnet_expression(words, lemmas, i: int) -> bool:
    """Whether word ``i`` is part of a two- or three-word WordNet lemma around it, as written or
    lemmatised ("for instance", "out of sight", "talking about" -> "talk_about", "of course")."""
    n = len(words)
    forms = [w.lower() for w in words]
    lems = [(l or w).lower() for l, w in zip(lemmas, words)] if lemmas else forms
    for size in (2, 3):
        for a in range(max(0, i - size + 1), min(i, n - size) + 1):
            for seq in (forms[a:a + size], lems[a:a + size]):
                if all(x.isalpha() for x in seq) and _is_wordnet_expression(tuple(seq)):
                    return True
    return False


def protection_reasons(words: Sequence[str], *, xpos: Sequence[str] | None = None, upos: Sequence[str] | None = None,
                       deprels: Sequence[str] | None = None, heads: Sequence[int] | None = None,
                       feats: Sequence[str] | None = None, lemmas: Sequence[str] | None = None,
                       multiword: Sequence[bool] | None = None) -> list[str | None]:
    """Why each word of a gold-annotated sentence must not change, or None where it may.

    Reasons, first that applies: ``forbidden class`` (§2.4 and DepAttacker's ``stop_tags``),
    ``proper noun``, ``auxiliary or copula`` (AUX, relations aux, cop), ``function word`` (modal,
    "to", particle, expletive "there", ...), ``fixed expression`` (a word of a fixed, flat,
    compound:prt or goeswith relation, or its head), ``verb of an expletive`` ("there is"), ``light verb``
    (:data:`PROTECTED_LEMMAS`), ``idiom under negation`` (:data:`NEGATED_IDIOM_VERBS` with a negation:
    "can't begin to"), ``function position`` (relations :data:`FUNCTION_DEPRELS`: "regarding" as
    a preposition), ``verb of opinion`` (:data:`OPINION_VERBS`), ``connective or stance adverb``
    (:data:`CONNECTIVE_ADVERBS`), ``noun compound`` (a word of a ``compound`` relation, its head, or a
    modifier of a compound's first word: "tattoo shops", "big box store"), ``repeated word`` (its
    lemma occurs again in the sentence), ``secondary predicate`` (an adjective complement of a verb
    not in :data:`LINKING_VERBS`: "loom large"),
    ``hyphenated compound`` ("rights-related"), ``adverb collocation`` (an adverb of a number, "nearly
    500", or one with its own adverb, "quite possibly"), ``degree adverb`` (:data:`DEGREE_ADVERBS`, and
    any adverb of an adjective, an adverb or a copular predicate: amplifiers and downtoners are
    collocations, "extremely polite" -> "highly polite"), ``noun with a to-infinitive`` ("in its
    attempt to attain" -> "in its try to attain"), ``quantifier noun`` (:data:`PROTECTED_NOUNS`),
    ``quantifier adjective`` (:data:`PROTECTED_ADJECTIVES`), ``unit of measure``
    (:data:`MEASURE_HYPERNYMS`), ``multiword expression`` (a two- or three-word WordNet lemma: "for
    instance", "talk about"),
    ``degree or focus adverb`` (:data:`PROTECTED_ADVERBS`), ``multiword token`` ("don't"), ``non-standard form`` (Typo, Abbr,
    Foreign), ``capitalised inside the sentence`` (a name or title the tags missed: "High
    Wycombe"), ``not a plain word`` (digits, hyphens, apostrophes).

    Parameters
    ----------
    words : sequence of str of shape (n_words,)
    xpos, upos, deprels, feats, lemmas : sequence of str of shape (n_words,), optional
        Gold columns; relation subtypes count as their type (``aux:pass`` is ``aux``).
    heads : sequence of int of shape (n_words,), optional
        1-based gold heads.
    multiword : sequence of bool of shape (n_words,), optional
        Parts of multiword tokens.

    Returns
    -------
    list of (str or None) of shape (n_words,)
    """
    n = len(words)
    base = [d.split(":")[0] if d else "" for d in deprels] if deprels else [""] * n
    full = list(deprels) if deprels else [""] * n
    head_of: dict[int, str] = {}
    children: dict[int, set[str]] = {}
    if heads is not None and deprels:
        for i, (h, d, rel) in enumerate(zip(heads, base, full)):
            if h and (d in PROTECTED_HEAD_OF or rel in PROTECTED_HEAD_OF):
                head_of.setdefault(h - 1, "verb of an expletive" if d == "expl" else "fixed expression")
            if h:
                children.setdefault(h - 1, set()).add(rel)
    head_upos = [upos[h - 1] if upos and h and 0 < h <= n else "" for h in heads] if heads is not None else [""] * n
    all_lemmas = [_lemma_at(words, j, xpos[j] if xpos else None, upos[j] if upos else None, lemmas)
                  for j in range(n)]
    lemma_counts = Counter(all_lemmas)
    # nouns with an infinitival clause ("attempt to attain": acl whose mark is "to")
    to_clauses = {heads[k] - 1 for k in range(n) if heads is not None and heads[k] and base[k] == "mark"
                  and words[k].lower() == "to"}
    to_infinitive_heads = {heads[j] - 1 for j in to_clauses if heads[j] and base[j] == "acl"}
    negated = {heads[k] - 1 for k in range(n) if heads is not None and heads[k] and base[k] == "advmod"
               and words[k].lower() in NEGATIONS}
    out: list[str | None] = []
    for i, w in enumerate(words):
        xp = xpos[i] if xpos else None
        up = upos[i] if upos else None
        rel = full[i]
        lem_i = all_lemmas[i]
        if (xp and xp in STOP_XPOS) or (not xp or xp == "_") and up in {"PRON", "DET", "CCONJ", "SCONJ", "ADP", "NUM",
                                                                         "INTJ", "PUNCT"}:
            out.append("forbidden class")
        elif up in ("PROPN",) or xp in ("NNP", "NNPS"):
            out.append("proper noun")
        elif base[i] in ("aux", "cop") or up == "AUX":
            out.append("auxiliary or copula")
        elif (xp and xp in FUNCTION_XPOS) or up in FORBIDDEN_UPOS:
            out.append("function word")
        elif base[i] in PROTECTED_DEPRELS or rel in PROTECTED_DEPRELS:
            out.append("fixed expression")
        elif i in head_of:
            out.append(head_of[i])
        elif lem_i in ("be", "have", "do"):
            out.append("auxiliary or copula")     # a treebank without UPOS or relations: "was" is VBD
        elif base[i] in FUNCTION_DEPRELS:
            out.append("function position")
        elif lem_i in PROTECTED_LEMMAS:
            out.append("light verb")
        elif lem_i in NEGATED_IDIOM_VERBS and i in negated:
            out.append("idiom under negation")   # "couldn't even begin to try" -> "couldn't even start to try"
        elif (up == "VERB" or (xp or "").startswith("VB")) and lem_i in OPINION_VERBS:
            out.append("verb of opinion")
        elif (up == "ADV" or (xp or "").startswith("RB")) and w.lower() in CONNECTIVE_ADVERBS:
            out.append("connective or stance adverb")
        elif (base[i] == "compound" and rel != "compound:prt") or "compound" in children.get(i, ()) \
                or (heads is not None and heads[i] and base[heads[i] - 1] == "compound"):
            out.append("noun compound")      # "tattoo shops" -> "tattoo stores", "big box store" -> "large box store"
        elif (up == "NOUN" or (xp or "").startswith("NN")) and i in to_infinitive_heads:
            out.append("noun with a to-infinitive")
        elif lemma_counts[lem_i] > 1 and lem_i.isalpha():
            out.append("repeated word")      # "if they told you it was electrical then it's electrical"
        elif (up == "ADJ" or (xp or "").startswith("JJ")) and base[i] == "xcomp" and heads is not None and heads[i] \
                and all_lemmas[heads[i] - 1] not in LINKING_VERBS:
            out.append("secondary predicate")    # "loom large" -> "loom big"
        elif (i > 0 and words[i - 1] == "-") or (i + 1 < n and words[i + 1] == "-"):
            out.append("hyphenated compound")    # "animal rights-related" -> "animal rights-associated"
        elif (up == "ADV" or (xp or "").startswith("RB")) and (head_upos[i] == "NUM" or "advmod" in children.get(i, ())):
            out.append("adverb collocation")     # "nearly 500" -> "virtually 500", "quite possibly" -> "quite perhaps"
        elif (up == "ADV" or (xp or "").startswith("RB")) and (w.lower() in DEGREE_ADVERBS or base[i] == "advmod" and (
                head_upos[i] in ("ADJ", "ADV") or (heads is not None and heads[i] and "cop" in children.get(heads[i] - 1, ())))):
            out.append("degree adverb")          # "extremely polite" -> "highly polite", "hardly awesome" -> "barely awesome"
        elif (up == "NOUN" or (xp or "").startswith("NN")) and w.lower() in PROTECTED_NOUNS:
            out.append("quantifier noun")
        elif (up == "ADJ" or (xp or "").startswith("JJ")) and w.lower() in PROTECTED_ADJECTIVES:
            out.append("quantifier adjective")
        elif (up == "NOUN" or (xp or "").startswith("NN")) and _is_measure(lem_i):
            out.append("unit of measure")
        elif _in_wordnet_expression(words, lemmas, i):
            out.append("multiword expression")
        elif (up == "ADV" or (xp or "").startswith("RB")) and w.lower() in PROTECTED_ADVERBS:
            out.append("degree or focus adverb")
        elif multiword and multiword[i]:
            out.append("multiword token")
        elif feats and any(f in (feats[i] or "") for f in PROTECTED_FEATS):
            out.append("non-standard form")
        elif not w.isalpha():
            out.append("not a plain word")
        elif i > 0 and w[:1].isupper() and not w.isupper() and words[i - 1] not in (".", "!", "?", ":", '"', "``", "-"):
            out.append("capitalised inside the sentence")
        elif w.isupper() and len(w) > 1:
            out.append("capitalised inside the sentence")
        else:
            out.append(None)
    return out
