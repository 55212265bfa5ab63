"""Articles beside a replaced organisation (Balasubramanian et al., 2020, for MRPC): a company
takes no article ("Boeing"), an institution named with a head noun does ("the Senate"), as the news
writes each; the indefinite article agrees with the new name's sound ("an SEC filing" -> "a Boeing
filing")."""

from __future__ import annotations

from dataclasses import dataclass

from robust_bench.perturb.checks import indefinite_article
from robust_bench.perturb.names.kinds import ORGANISATION_KINDS, UNIVERSITY_KINDS, is_institution, organisation_kind
from robust_bench.perturb.names.spans import ADJUSTED

def needs_the(name: str, article_use: dict | None = None) -> bool | None:
    """Whether an organisation name takes "the" as a noun phrase. Companies do not ("Boeing", "IBM").
    An institution named with a head noun does ("the Alabama Supreme Court"), but a university or a
    school only when named "<head> of <place>" ("the University of Michigan", "Vanderbilt University");
    a hospital keeps the original's article ("taken to Kings County Hospital", "at the Boston Medical Center"). A one-word
    institution does as the corpus writes it: ``article_use`` maps a name to (times after "the",
    times seen) in the text its pool was harvested from, and "the" is needed when at least half of
    two or more occurrences have it ("the FBI", "the Pentagon"), dropped when at most a fifth do
    ("NASA", "Congress"), and otherwise the original's article stays. Without that
    evidence, an institution with a head noun does ("the Senate", "the Bank of Japan") and an
    acronym goes either way: ``None``, the original's article stays.

    Parameters
    ----------
    name : str
        The new organisation's name.
    article_use : dict, optional
        From :func:`article_use`.

    Returns
    -------
    bool or None
        ``True`` (needs "the"), ``False`` (takes none) or ``None`` (the original's article stays).
    """
    words = name.split()
    kind = organisation_kind(name)
    if not is_institution(kind):
        return False
    if kind == "hospital":
        return None                     # "taken to Kings County Hospital", "at the Boston Medical Center"
    if kind in ("broadcaster", "newspaper", "news agency", "television network", "news channel"):
        # as the news writes each ("the Associated Press", "The Washington Post"; "NBC", "Reuters", "Spike TV"),
        # else the original's article stays
        the, seen = (article_use or {}).get(name, (0, 0))
        return (the / seen >= 0.5) if seen >= 2 and (the / seen >= 0.5 or the / seen <= 0.2) else None
    if kind in ("university", "school or institute") and len(words) > 1:
        # "the University of Michigan", but "Vanderbilt University", "Boston College"
        return "of" in words[1:-1] or words[0].lower() in ("university", "college", "school", "institute")
    if len(words) > 1:
        return True                     # a head noun: "the Alabama Supreme Court", "the House of Representatives"
    the, seen = (article_use or {}).get(name, (0, 0))
    if seen >= 2:
        return True if the / seen >= 0.5 else False if the / seen <= 0.2 else None
    return None if words[0].isupper() else True


def article_use(names, texts) -> dict[str, tuple[int, int]]:
    """For each name, (occurrences after "the"/"The", occurrences) in ``texts`` (whole words,
    case-sensitive; up to two capitalised modifiers may stand between: "the U.S. Food and Drug
    Administration"): how the corpus writes it ("the FBI", "NASA").

    Parameters
    ----------
    names : iterable of str
    texts : sequence of str

    Returns
    -------
    dict of str to (int, int)
    """
    import re

    out = {}
    joined = "\n".join(texts)
    # "the FBI", and "the U.S. Food and Drug Administration": the article of a name under a modifier
    before = re.compile(r"\b[Tt]he (?:[A-Z][\w.&'-]* ){0,2}$")
    end = len(joined)

    def word(c: str) -> bool:
        return c.isalnum() or c == "_"

    for name in names:
        # whole words only (not after a word character or a full stop, not before a word character), and a
        # name before another capitalised word modifies it ("U.S. District Court Judge ..."): not counted.
        # str.find scans the text in C; the regular expression per name it replaces took minutes per build.
        hits, i = [], joined.find(name)
        while i >= 0:
            j = i + len(name)
            if (not (i and (word(joined[i - 1]) or joined[i - 1] == "."))
                    and not (j < end and word(joined[j]))
                    and not (j + 1 < end and joined[j] == " " and "A" <= joined[j + 1] <= "Z")):
                hits.append(i)
                i = joined.find(name, j)          # as re.finditer: the next match starts after this one
            else:
                i = joined.find(name, i + 1)
        the = sum(1 for i in hits if before.search(joined[max(0, i - 40):i]))
        out[name] = (the, len(hits))
    return out


def fix_determiners(plan, tokens, token_of, sentence_starts: set[int], article_use: dict | None = None) -> None:
    """Keep the article right for the new organisation: "the NYSE" -> "Boeing" (not "the Boeing"),
    "Congress passed" -> "the Senate passed", "an SEC filing" -> "a Boeing filing". An article is added
    only to a name heading an argument right after a preposition, a verb or punctuation, never after
    a modifier ("the five-member FCC panel") or inside a name ("Agriculture and Forestry Ministry").
    Edits the plan's spans in place.

    Parameters
    ----------
    plan : SwapPlan
        Edited in place.
    tokens : sequence of str
    token_of : callable
        Token index -> :class:`TokenInfo` (or a spaCy token).
    sentence_starts : set of int
        Where the sentences start (no article is read across them).
    article_use : dict, optional
        See :func:`needs_the`.
    """
    for (a, b), (words, entity, typ, role) in sorted(plan.spans.items()):
        if typ != "ORG" or not (role in ORGANISATION_KINDS or role in UNIVERSITY_KINDS or role.startswith("industry:")) \
                or not words:
            continue
        new = " ".join(words)
        prev = tokens[a - 1] if a > 0 and a not in sentence_starts else None
        free = a - 1 >= 0 and not any(x <= a - 1 < y for x, y in plan.spans)
        if prev is not None and prev.lower() in ("a", "an") and free:
            article = indefinite_article(words[0])
            if prev.lower() != article:
                plan.spans[(a - 1, a)] = ((article.capitalize() if prev[0].isupper() else article,), entity,
                                          ADJUSTED, "article")
            continue
        # the name's head: its token whose head lies outside it ("Health" of "Kansas Department of Health
        # and Environment" is inside; "Department" is not)
        head = next((token_of(i) for i in range(a, b) if not a <= token_of(i).head < b), token_of(b - 1))
        needs = needs_the(new, article_use)
        if prev is not None and prev.lower() == "the" and free and needs is False \
                and head.dep_ in _ARGUMENT_DEPS:    # "the Symantec deal": the article is the deal's
            del plan.spans[(a, b)]
            first = words[0] if prev == "the" or words[0][:1].isupper() else words[0].capitalize()
            plan.spans[(a - 1, b)] = ((first,) + tuple(words[1:]), entity, typ, role)
        elif needs and head.dep_ in _ARGUMENT_DEPS and not head.has_det \
                and (prev is None or token_of(a - 1).pos_ in ("ADP", "VERB", "AUX", "PUNCT", "SCONJ")
                and (prev.lower() not in _DETERMINER_WORDS or token_of(a - 1).pos_ == "SCONJ")   # "that the Dail must"
                and prev not in ("'s", "'")):
            plan.spans[(a, b)] = (("The" if prev is None else "the",) + tuple(words), entity, typ, role)


#: A name heading an argument takes an article; one used as a modifier ("10-year Treasury note",
#: "Agriculture and Forestry Ministry") does not (ClearNLP and UD labels).
_ARGUMENT_DEPS = {"nsubj", "nsubjpass", "nsubj:pass", "dobj", "obj", "iobj", "pobj", "obl", "attr", "appos", "ROOT",
                  "root", "dative", "agent", "conj"}     # "from X and the University of ..." -> "and Northwest College"


_DETERMINER_WORDS = {"the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her", "our", "your",
                     "my", "every", "each", "any", "no", "some", "another"}


@dataclass(frozen=True)
class TokenInfo:
    """What :func:`fix_determiners` reads of a parsed token: its dependency label, its part of
    speech and whether a determiner depends on it."""

    dep_: str
    pos_: str
    has_det: bool
    head: int
