"""The verb group of the LIT UD backend (Li et al., 2020, §3.4: tense, modality, voice and polarity are
edits of the main clause's verb group): morphology with ``lemminflect``, the verb group read off the
words of a parse, and regenerated from a :class:`~robust_bench.perturb.lit.clause.VerbGroup`."""

from __future__ import annotations

from functools import lru_cache

from robust_bench.perturb.lit.clause import _3SG, Agreement, Refusal, VerbGroup
from robust_bench.perturb.lit.lexicon import _BE, _DO, _HAVE, _MODALS, _VBN_OVERRIDES


def _tag(token) -> str:
    return token.tag_.split("_")[0]


@lru_cache(maxsize=50_000)
def _inflect(lemma: str, tag: str) -> str:
    from lemminflect import getInflection

    if tag == "VBN" and lemma in _VBN_OVERRIDES:
        return _VBN_OVERRIDES[lemma]
    forms = getInflection(lemma, tag=tag)
    if not forms:
        raise Refusal("no inflection", f"{lemma}/{tag}")
    if tag == "VBN":
        # lemminflect merges homographs: "relay" gets the participle of re-lay ("relaid"), which it
        # also lists as a second past form after the regular one. A participle that is only an
        # alternative past form yields to the regular past (relayed); shown, proven stay.
        past = getInflection(lemma, tag="VBD")
        if forms[0] in past[1:] and past[0].endswith("ed"):
            return past[0]
    return forms[0]


def _be(tense: str, agr: Agreement) -> str:
    if tense == "present":
        return "am" if agr == Agreement(1, "sg") else "is" if agr.number == "sg" and agr.person == 3 else "are"
    return "was" if agr.number == "sg" and agr.person != 2 else "were"


def _finite(lemma: str, tense: str, agr: Agreement) -> str:
    if lemma == "be":
        return _be(tense, agr)
    if tense == "past":
        return _inflect(lemma, "VBD")
    return _inflect(lemma, "VBZ" if agr == _3SG else "VB")


def realise_verb_group(vg: VerbGroup, agr: Agreement, *, question: bool = False) -> list[str]:
    """Surface words of a verb group, finite word first.

    Order and forms follow English auxiliary syntax: modal, perfect *have* (+ past participle),
    progressive *be* (+ present participle), passive *be* (+ past participle), main verb.
    Negation and questions without an auxiliary take do-support; *not* follows the first word.

    Parameters
    ----------
    vg : VerbGroup
    agr : Agreement
        The subject's person and number (finite forms agree with it).
    question : bool
        Whether the first word will be inverted (forces do-support on a lone lexical verb).

    Returns
    -------
    list of str

    Raises
    ------
    Refusal
        If ``lemminflect`` has no form for the verb.
    """
    # (lemma, role) of each element, in English auxiliary order
    chain = [(lemma, role) for lemma, role, present in ((vg.modal, "modal", bool(vg.modal)),
                                                         ("have", "perf", vg.perfect),
                                                         ("be", "prog", vg.progressive),
                                                         ("be", "pass", vg.passive)) if present]
    chain.append((vg.lemma, "main"))
    if len(chain) == 1 and vg.lemma != "be" and (vg.negated or question):
        chain.insert(0, ("do", "do"))
    elems, roles = [c[0] for c in chain], [c[1] for c in chain]
    words = []
    prev = None
    for lemma, role in zip(elems, roles):
        if prev is None:
            words.append(lemma if role == "modal" else _finite(lemma, vg.tense, agr))
        else:
            tag = {"modal": "VB", "do": "VB", "perf": "VBN", "prog": "VBG", "pass": "VBN"}[prev]
            words.append(lemma if tag == "VB" else ("been" if lemma == "be" and tag == "VBN" else
                                                    "being" if lemma == "be" and tag == "VBG" else
                                                    _inflect(lemma, tag)))
        if role == "main" and vg.surface and lemma != "be":
            form, tag = vg.surface
            want = ("VBN" if prev in ("perf", "pass") else "VBG" if prev == "prog" else "VB") if prev else (
                "VBD" if vg.tense == "past" else None)
            if want == tag:
                words[-1] = form
        prev = role
    if vg.negated:
        words.insert(1, "not")
    return words


def _parse_chain(words, tags, deps) -> VerbGroup:
    """Read tense, aspect, voice and modality off the verb-group words (last one the main verb)."""
    *auxes, main = words
    low = [w.lower() for w in auxes]
    modal = None
    perfect = progressive = passive = False
    do = False
    expect = None  # the form the next element must have
    for w, t, d in zip(low, tags[:-1], deps[:-1]):
        if expect is None and w in _MODALS:
            modal = _MODALS[w]
            if modal is None:
                raise Refusal("ambiguous contraction", w)
            expect = "VB"
        elif w in _DO and expect is None:
            do = True
            expect = "VB"
        elif w in _HAVE:
            if expect not in (None, "VB") or (expect is None and _HAVE[w] not in ("VBP", "VBZ", "VBD")):
                raise Refusal("unusual verb group", " ".join(words))
            perfect = True
            expect = "VBN"
        elif w in _BE:
            if expect is None and _BE[w] not in ("VBP", "VBZ", "VBD") or expect is not None and _BE[w] != expect:
                raise Refusal("unusual verb group", " ".join(words))
            if d == "aux:pass":
                passive = True
                expect = "VBN"
            else:
                progressive = True
                expect = "VBG"
        else:
            raise Refusal("unusual verb group", " ".join(words))
    return VerbGroup(lemma="", tense="", modal=modal, perfect=perfect, progressive=progressive, passive=passive,
                     copula=False), expect, do


def _tense_of_first(word: str, tag: str) -> str:
    w = word.lower()
    if w in _MODALS:
        m = _MODALS[w]
        return "future" if m in ("will", "shall") else "modal"
    form = _BE.get(w) or _HAVE.get(w) or _DO.get(w) or tag
    if form == "VBD":
        return "past"
    if form in ("VBZ", "VBP"):
        return "present"
    raise Refusal("no finite verb", word)


def _main_lemma(main, expect, tag) -> str:
    """The main verb's lemma, checked by re-inflection: it must give back the word as written."""
    from lemminflect import getAllLemmas

    word = main.text.lower()
    if word in _BE:
        return "be"
    if word in _HAVE:
        return "have"
    if word in _DO:
        return "do"
    # lemminflect's dictionary first: a statistical lemmatiser's guess ("recuperated" -> "recuperat")
    # re-inflects to the word as written and would give "did not recuperat"
    cands = list(getAllLemmas(word, upos="VERB").get("VERB", ()))
    if main.lemma_ and main.lemma_.lower() not in cands:
        cands.append(main.lemma_.lower())
    want = {None: (tag,), "VB": ("VB",), "VBN": ("VBN",), "VBG": ("VBG",)}[expect]
    if expect is None and tag not in ("VBD", "VBZ", "VBP"):
        raise Refusal("no finite verb", main.text)
    from lemminflect import getInflection

    for c in cands:
        if c.isalpha() and any(word in getInflection(c, tag=t) or getInflection(c, tag=t) and word == _inflect(c, t)
                               for t in want):
            return c
    raise Refusal("irregular lemma", main.text)
