"""LIT pair transformations and label rules (Li et al., 2020, Table 1, Table 2 and §4.1.1).

A pair transformation code names what happens to the premise and to the hypothesis, separated
by ``;`` (Table 1 notation): ``m;o`` adds *may* to the premise and leaves the hypothesis as it
is; ``p;f`` puts the premise in the past and the hypothesis in the future; ``+i`` / ``+pa``
compose an it-cleft / a passive onto both sentences (``f;p +i``: premise future + it-cleft,
hypothesis past + it-cleft). Each code has a label rule:

=========================================== ============ ==========================================
code                                        rule         new label
=========================================== ============ ==========================================
``m;o``                                     to_neutral   entailment, contradiction -> neutral
``p;f``, ``f;p`` (both originally present)  to_neutral   entailment, contradiction -> neutral
``i;i``, ``pa;pa``                          preserve     unchanged
``p;f +i``, ``p;f +pa``, ``f;p +i``,        to_neutral   as their tense part
``f;p +pa`` (both originally present)
``o;n`` (robust-bench)                      negation     entailment -> contradiction, neutral stays;
                                                         contradiction pairs are not built
=========================================== ============ ==========================================

Why the rules hold: *may* weakens the premise, so it no longer settles the hypothesis; events at
different times are not the same event; clefts and passives keep truth conditions. For ``o;n``:
if P entails H, P contradicts not-H, and if P neither entails nor contradicts H, the same holds
for not-H. Annotated contradictions are often not logical ones (SNLI assumes both sentences
describe one scene), so "contradiction -> entailment" is not sound and those pairs are skipped.
Polar questions and subject-object swaps are built and tested as sentence transformations
(:mod:`robust_bench.perturb.lit.ud`) but get no NLI rule: a question has no truth value, and a swap keeps
the meaning of symmetric predicates (*met*, *married*) and changes that of the others.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from robust_bench.perturb.lit.ud import PHENOMENA, Refusal
from robust_bench.perturb.lit.rules import apply_label_rule

__all__ = ["PairTransformation", "PAIR_TRANSFORMATIONS", "CODES", "pair_label", "Backend", "ContrastSetReport",
           "make_contrast_sets"]


@dataclass(frozen=True)
class PairTransformation:
    """One Table-1 code: the operations on each side, the label rule, and whether both sentences
    must be originally present tense (the tense codes, §4.1.1)."""

    code: str
    premise: tuple[str, ...]
    hypothesis: tuple[str, ...]
    rule: str
    requires_present: bool = False


_T = PairTransformation
PAIR_TRANSFORMATIONS: dict[str, PairTransformation] = {t.code: t for t in (
    _T("m;o", ("may",), (), "to_neutral"),
    _T("p;f", ("past",), ("future",), "to_neutral", True),
    _T("f;p", ("future",), ("past",), "to_neutral", True),
    _T("i;i", ("itcleft",), ("itcleft",), "preserve"),
    _T("pa;pa", ("passive",), ("passive",), "preserve"),
    _T("p;f +i", ("past", "itcleft"), ("future", "itcleft"), "to_neutral", True),
    _T("p;f +pa", ("past", "passive"), ("future", "passive"), "to_neutral", True),
    _T("f;p +i", ("future", "itcleft"), ("past", "itcleft"), "to_neutral", True),
    _T("f;p +pa", ("future", "passive"), ("past", "passive"), "to_neutral", True),
    _T("o;n", (), ("negation",), "negation"),
)}
CODES = tuple(PAIR_TRANSFORMATIONS)


def pair_label(code: str, label: int) -> int | None:
    """The gold label of a transformed pair.

    Parameters
    ----------
    code : str
        A key of :data:`PAIR_TRANSFORMATIONS`.
    label : int
        The original label, index into (entailment, neutral, contradiction).

    Returns
    -------
    int or None
        ``None`` where the rule is undefined (``o;n`` on contradiction): no row is built.

    Raises
    ------
    KeyError
        For an unknown code.
    ValueError
        For a label outside 0-2.
    """
    return apply_label_rule(PAIR_TRANSFORMATIONS[code].rule, label)


class Backend(Protocol):
    """What a LIT backend provides: sentence analysis and the transformations of Li et al. (2020, §3).

    Two implementations: the UD backend, :class:`robust_bench.perturb.lit.ud.UDTransformer`
    (spaCy dependency parse and rule-based realisation), and the ERG backend,
    :class:`robust_bench.perturb.lit.erg.ErgTransformer` (ACE parse and generation with the English
    Resource Grammar, as in the paper, §3.2). A backend is stateless between calls apart from
    caches; :func:`make_contrast_sets` calls :meth:`analyse_many` once on every distinct sentence,
    then :meth:`transform` per (sentence, code).

    Attributes
    ----------
    name : str
        Short backend name recorded on every row (``"ud"`` or ``"erg"``).
    """

    name: str

    def analyse_many(self, texts: Sequence[str]) -> list[Any]:
        """Analyse sentences in one batched call.

        Parameters
        ----------
        texts : sequence of str, length n
            Raw sentences (one NLI premise or hypothesis each).

        Returns
        -------
        list, length n
            Per sentence, an opaque analysis for :meth:`tense_of` and :meth:`transform`, or the
            :class:`robust_bench.perturb.lit.ud.Refusal` that says why the sentence cannot be
            transformed (its ``reason`` is counted in the coverage report). Never raises for one
            bad sentence.
        """
        ...

    def tense_of(self, analysis: Any) -> str:
        """Tense of the analysed main clause: ``"past"``, ``"present"``, ``"future"`` or ``"modal"``;
        it decides which tense codes apply (§3.1, Table 1)."""
        ...

    def transform(self, analysis: Any, ops: Sequence[str]) -> list[str]:
        """Surface candidates of the analysed sentence after the operations ``ops``.

        Parameters
        ----------
        analysis : object
            One non-refused item from :meth:`analyse_many`.
        ops : sequence of str
            Operation names (for example ``["past", "passive"]``), verb-group operations first and
            at most one structural operation.

        Returns
        -------
        list of str
            Distinct candidates, at least one; the LM picks the most fluent (§3.3).

        Raises
        ------
        robust_bench.perturb.lit.ud.Refusal
            When an operation does not apply to this sentence.
        ValueError
            For an unknown operation.
        """
        ...


@dataclass
class ContrastSetReport:
    """What :func:`make_contrast_sets` did: coverage per code and per phenomenon, the reasons
    for failure, and the time spent in each stage (seconds)."""

    pairs: int
    rows_per_code: dict[str, int]
    failures_per_code: dict[str, dict[str, int]]
    sentences: int
    sentence_coverage: dict[str, int]
    sentence_failures: dict[str, dict[str, int]]
    seconds: dict[str, float]
    candidates: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def make_contrast_sets(pairs: Sequence[dict], backend: Backend, scorer, *, codes: Sequence[str] = CODES,
                       id_prefix: str = "", progress: bool = False) -> tuple[list[dict], ContrastSetReport]:
    """Transform NLI pairs into LIT contrast pairs.

    Parameters
    ----------
    pairs : sequence of dict
        ``idx``, ``premise``, ``hypothesis``, ``label`` (index into entailment, neutral, contradiction).
    backend : Backend
        Parses and transforms sentences.
    scorer : robust_bench.models.lm.CausalLMScorer
        Picks the lowest-perplexity candidate (§3.3).
    codes : sequence of str
        Pair transformations to build (default all of :data:`CODES`).
    id_prefix : str
        Prefix of the row ids (the split name).
    progress : bool
        Show progress bars.

    Returns
    -------
    rows : list of dict
        One row per (pair, code) that could be built, ordered by pair then code.
    report : ContrastSetReport

    Raises
    ------
    KeyError
        For an unknown code.
    """
    from tqdm.auto import tqdm

    specs = sorted((PAIR_TRANSFORMATIONS[c] for c in codes), key=lambda t: CODES.index(t.code))
    seconds = {}
    t0 = time.perf_counter()
    texts = sorted({p["premise"] for p in pairs} | {p["hypothesis"] for p in pairs})
    analyses = dict(zip(texts, backend.analyse_many(texts)))
    seconds["parsing"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    cache: dict[tuple[str, tuple[str, ...]], list[str] | Refusal] = {}

    def cands(text: str, ops: tuple[str, ...]):
        key = (text, ops)
        if key not in cache:
            a = analyses[text]
            if isinstance(a, Refusal):
                cache[key] = a
            else:
                try:
                    # a surface identical to the original (past of "set", "put") would carry a new
                    # label on unchanged text
                    out = [c for c in backend.transform(a, ops) if c != text]
                    cache[key] = out if out else Refusal("no visible change")
                except Refusal as exc:
                    cache[key] = exc
        return cache[key]

    pending = []  # (pair, spec, premise candidates or None, hypothesis candidates or None)
    failures: dict[str, Counter] = defaultdict(Counter)
    for pair in tqdm(pairs, desc="LIT transformations", disable=not progress):
        for spec in specs:
            new_label = pair_label(spec.code, pair["label"])
            if new_label is None:
                failures[spec.code]["label rule undefined (contradiction)"] += 1
                continue
            if spec.requires_present:
                tenses = [backend.tense_of(analyses[pair[f]]) if not isinstance(analyses[pair[f]], Refusal) else None
                          for f in ("premise", "hypothesis")]
                bad = [f for f, t in zip(("premise", "hypothesis"), tenses) if t != "present"]
                if bad:
                    a = analyses[pair[bad[0]]]
                    failures[spec.code][f"{bad[0]}: " + (a.reason if isinstance(a, Refusal) else "not present tense")] += 1
                    continue
            sides = []
            for field, ops in (("premise", spec.premise), ("hypothesis", spec.hypothesis)):
                if not ops:
                    sides.append(None)
                    continue
                c = cands(pair[field], ops)
                if isinstance(c, Refusal):
                    failures[spec.code][f"{field}: {c.reason}"] += 1
                    break
                sides.append(c)
            else:
                pending.append((pair, spec, new_label, sides[0], sides[1]))
    seconds["transformation"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    lists = [c for _, _, _, p, h in pending for c in (p, h) if c is not None]
    chosen = iter(scorer.choose(lists))
    seconds["lm_ranking"] = time.perf_counter() - t0

    rows = []
    counts = Counter()
    n_cands = Counter()
    for pair, spec, new_label, p, h in pending:
        prem = next(chosen) if p is not None else pair["premise"]
        hyp = next(chosen) if h is not None else pair["hypothesis"]
        counts[spec.code] += 1
        n_cands["premise"] += len(p or [])
        n_cands["hypothesis"] += len(h or [])
        rows.append({
            "id": f"{id_prefix}-{pair['idx']:06d}-{CODES.index(spec.code):02d}-"
                  f"{spec.code.replace(';', '_').replace(' +', '+')}",
            "source_id": int(pair["idx"]),
            "transformation": spec.code,
            "premise": prem,
            "hypothesis": hyp,
            "original_premise": pair["premise"],
            "original_hypothesis": pair["hypothesis"],
            "original_label": int(pair["label"]),
            "label": int(new_label),
            "rule": spec.rule,
            "premise_operations": list(spec.premise),
            "hypothesis_operations": list(spec.hypothesis),
            "premise_candidates": len(p) if p is not None else 0,
            "hypothesis_candidates": len(h) if h is not None else 0,
        })
    # sentence-level coverage per phenomenon (one operation each)
    sent_cov: dict[str, int] = {}
    sent_fail: dict[str, Counter] = {}
    for phen, ops in PHENOMENA.items():
        ok, fail = 0, Counter()
        for text in texts:
            reason = None
            for op in ops:
                c = cands(text, (op,))
                if not isinstance(c, Refusal):
                    reason = None
                    break
                reason = c.reason
            if reason is None:
                ok += 1
            else:
                fail[reason] += 1
        sent_cov[phen] = ok
        sent_fail[phen] = dict(fail.most_common())
    report = ContrastSetReport(
        pairs=len(pairs), rows_per_code={c: counts.get(c, 0) for c in codes},
        failures_per_code={c: dict(failures[c].most_common()) for c in codes}, sentences=len(texts),
        sentence_coverage=sent_cov, sentence_failures=sent_fail, seconds=seconds,
        candidates=dict(n_cands))
    return rows, report

