"""LIT pair transformations and label rules (Li et al., 2020, Table 1 and §4.1.1).

A pair transformation code names what happens to the premise and to the hypothesis, separated
by ``;`` (Table 1 notation): ``m;o`` adds *may* to the premise and leaves the hypothesis as it
is; ``p;f`` puts the premise in the past and the hypothesis in the future; ``+i`` / ``+pa``
compose an it-cleft / a passive onto both sentences (``f;p +i``: premise future + it-cleft,
hypothesis past + it-cleft); ``n;n`` negates both sentences and swaps them.

Each code has a label rule (:data:`robust_bench.perturb.lit.rules.NLI_LABEL_RULES`, where the
reasoning of each is written out) and the set of original labels the authors built it from. The
paper-comparable configs (``lit_mnli``, ``lit_snli``) build exactly those; the rows robust-bench
adds where the logic is sound go to ``lit_mnli_extended`` / ``lit_snli_extended``:

================ =============== ========================= ======================= ==============
code             rule            paper rows (orig -> new)  extended rows           source
================ =============== ========================= ======================= ==============
``p;f``          to_neutral      E -> N                    N -> N, C -> N          code 1a
``f;p``          to_neutral      C -> N                    E -> N, N -> N          code 1b
``m;o``          to_neutral      E -> N, C -> N            N -> N                  code 2a, 2b
``m;m``          possibility     E -> E, N -> N            C -> N                  Table 1 (*)
``i;i``          preserve        all                                               code 5
``pa;pa``        preserve        all                                               code 4
``i;pa``         preserve        all                                               Table 1
``i;o``          preserve        all                                               Table 1
``pa;o``         preserve        all                                               Table 1
``n;n``          contraposition  E -> E (sides swapped)                            Table 1
``p;f +i``       to_neutral      E -> N                    N -> N, C -> N          code 7a
``f;p +i``       to_neutral      C -> N                    E -> N, N -> N          code 7b
``p;f +pa``      to_neutral      E -> N                    N -> N, C -> N          code 8a
``f;p +pa``      to_neutral      C -> N                    E -> N, N -> N          code 8b
``m+pa;m+pa``    possibility     E -> E, N -> N            C -> N                  code 9a, 9b (*)
``o;n``          negation                                  E -> C, N -> N          robust-bench
================ =============== ========================= ======================= ==============

"code" is the authors' released post-processing (``post-process/process.py`` of
github.com/leo-liuzy/LIT_auto-gen-contrast-set, ``mnli_rules`` / ``snli_rules``); "Table 1" is
the paper's table of rules, also in the repository's ``transfer/label_rules.txt``. The tense
codes and their compositions need both sentences originally in the present tense (§4.1.1; the
released code checks this for 1a/1b, robust-bench for every tense code, since a past sentence
"put in the past" is no change).

(*) ``m;m``: the table builds it from neutral and entailment pairs and keeps the label; the code
builds it from entailment and contradiction pairs and makes both neutral. robust-bench follows
the table, because entailment is preserved under *may* on both sides (if P entails H, "may P"
entails "may H"), so the code's entailment -> neutral labels a valid inference neutral. The
code's contradiction -> neutral is sound (two incompatible things can both be possible) but not
in the table, so it goes to the extended config. ``m+pa;m+pa`` (code 9a/9b, not in the table)
follows ``m;m``: a passive keeps truth conditions.

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
from robust_bench.io.task_data import NLI_LABELS
from robust_bench.perturb.lit.rules import NLI_LABEL_RULES, apply_label_rule

__all__ = ["RULE_REFUSAL", "EXCLUSIVE_WORDS", "APPROXIMATORS", "PairTransformation", "PAIR_TRANSFORMATIONS", "CODES", "PAPER_CODES", "EXTENDED_CODES", "TIERS",
           "pair_label", "Backend", "ContrastSetReport", "make_contrast_sets"]


E, N, C = 0, 1, 2
#: Prefix of the failure reasons of pairs whose label rule's premise does not hold (counted on the card).
RULE_REFUSAL = "label rule: "
#: Words about exclusiveness, which an it-cleft asserts (a pair whose hypothesis has one gets no
#: cleft code).
EXCLUSIVE_WORDS = frozenset({"only", "alone", "solely", "exclusively", "sole"})
#: Approximators: the negation of a sentence with one is not its contradictory.
APPROXIMATORS = frozenset({"about", "around", "approximately", "roughly", "nearly", "almost", "some", "circa"})
ALL_LABELS = frozenset((E, N, C))
TIERS = ("paper", "extended")


@dataclass(frozen=True)
class PairTransformation:
    """One pair transformation code (Table 1 notation).

    Attributes
    ----------
    code : str
    premise, hypothesis : tuple of str
        Operations on each side (:data:`robust_bench.perturb.lit.ud.OPERATIONS`); empty = unchanged.
    rule : str
        Label rule, a key of :data:`robust_bench.perturb.lit.rules.NLI_LABEL_RULES`.
    paper_labels : frozenset of int
        Original labels (0 E, 1 N, 2 C) the authors built this code from; the other labels in
        the rule's domain are built only in the extended configs.
    requires_present : bool
        Both sentences must be originally present tense (the tense codes, §4.1.1).
    swap : bool
        The transformed hypothesis becomes the premise and vice versa (``n;n``).
    source : str
        Where the rule comes from: the authors' code (rule id) or the paper's Table 1.
    """

    code: str
    premise: tuple[str, ...]
    hypothesis: tuple[str, ...]
    rule: str
    paper_labels: frozenset = ALL_LABELS
    requires_present: bool = False
    swap: bool = False
    source: str = ""

    def labels(self, tier: str) -> frozenset:
        """Original labels built in ``tier`` (``"paper"`` or ``"extended"``)."""
        if tier == "paper":
            return self.paper_labels
        if tier == "extended":
            return frozenset(NLI_LABEL_RULES[self.rule]) - self.paper_labels
        raise ValueError(f"unknown tier {tier!r}; use one of {TIERS}")


_T = PairTransformation
PAIR_TRANSFORMATIONS: dict[str, PairTransformation] = {t.code: t for t in (
    _T("p;f", ("past",), ("future",), "to_neutral", frozenset({E}), True, source="code 1a"),
    _T("f;p", ("future",), ("past",), "to_neutral", frozenset({C}), True, source="code 1b"),
    _T("m;o", ("may",), (), "to_neutral", frozenset({E, C}), source="code 2a, 2b"),
    _T("m;m", ("may",), ("may",), "possibility", frozenset({E, N}), source="Table 1 (code 3a, 3b differ)"),
    _T("i;i", ("itcleft",), ("itcleft",), "preserve", source="code 5"),
    _T("pa;pa", ("passive",), ("passive",), "preserve", source="code 4"),
    _T("i;pa", ("itcleft",), ("passive",), "preserve", source="Table 1"),
    _T("i;o", ("itcleft",), (), "preserve", source="Table 1"),
    _T("pa;o", ("passive",), (), "preserve", source="Table 1"),
    _T("n;n", ("negation",), ("negation",), "contraposition", frozenset({E}), swap=True, source="Table 1"),
    _T("p;f +i", ("past", "itcleft"), ("future", "itcleft"), "to_neutral", frozenset({E}), True, source="code 7a"),
    _T("f;p +i", ("future", "itcleft"), ("past", "itcleft"), "to_neutral", frozenset({C}), True, source="code 7b"),
    _T("p;f +pa", ("past", "passive"), ("future", "passive"), "to_neutral", frozenset({E}), True, source="code 8a"),
    _T("f;p +pa", ("future", "passive"), ("past", "passive"), "to_neutral", frozenset({C}), True, source="code 8b"),
    _T("m+pa;m+pa", ("may", "passive"), ("may", "passive"), "possibility", frozenset({E, N}),
       source="code 9a, 9b, as m;m"),
    _T("o;n", (), ("negation",), "negation", frozenset(), source="robust-bench"),
)}
CODES = tuple(PAIR_TRANSFORMATIONS)
#: Codes with rows in the paper-comparable configs, and in the extended configs.
PAPER_CODES = tuple(c for c, t in PAIR_TRANSFORMATIONS.items() if t.labels("paper"))
EXTENDED_CODES = tuple(c for c, t in PAIR_TRANSFORMATIONS.items() if t.labels("extended"))


def pair_label(code: str, label: int, tier: str = "paper") -> int | None:
    """The gold label of a transformed pair, or ``None`` when ``tier`` does not build the code
    from this original label.

    Parameters
    ----------
    code : str
        A key of :data:`PAIR_TRANSFORMATIONS`.
    label : int
        The original label, index into (entailment, neutral, contradiction).
    tier : str
        ``"paper"`` (the rows the authors built) or ``"extended"`` (robust-bench's additions).

    Returns
    -------
    int or None

    Raises
    ------
    KeyError
        For an unknown code.
    ValueError
        For a label outside 0-2 or an unknown tier.
    """
    spec = PAIR_TRANSFORMATIONS[code]
    new = apply_label_rule(spec.rule, label)
    if int(label) not in spec.labels(tier):
        return None
    return new


def _pair_refusal(pair: dict, spec: PairTransformation, analyses: dict, backend) -> str | None:
    """Why the label rule of ``spec`` does not hold for this pair although both sentences can be
    transformed (issue 31, decision 1: Li et al. 2020, §4, "exceptions to such rules may occur"), or
    None."""
    hypothesis_words = {w.lower() for w in pair["hypothesis"].split()}
    words = hypothesis_words | {w.lower() for w in pair["premise"].split()}
    # an it-cleft asserts exclusiveness: "It is my mom that believes me" settles "she is the only one
    # who believes me", which the original did not
    if "itcleft" in spec.premise + spec.hypothesis and hypothesis_words & EXCLUSIVE_WORDS:
        return "exclusiveness, which the it-cleft asserts"
    # contraposition fails on approximations: "not made 100 years ago" does not give "not about 100
    # years old"
    if spec.rule == "contraposition" and words & APPROXIMATORS:
        return "approximation under negation"
    premise, hypothesis = analyses[pair["premise"]], analyses[pair["hypothesis"]]
    both = not isinstance(premise, Refusal) and not isinstance(hypothesis, Refusal)
    if spec.rule == "contraposition" and both:
        # "As a key part of its efforts , Defense did not create ...": a fronted adverbial or
        # purpose clause stays outside the negation and reads as its reason
        if any(getattr(a, "subject", (0, 0))[0] > 0 for a in (premise, hypothesis)):
            return "material before the subject under contraposition"
        # "Our programs can not save lives in schools" does not entail "Our free educational programs
        # can not save lives": not-H entails not-P only where H asks nothing that P does not say
        content = getattr(backend, "content_of", None)
        if content is not None and content(pair["hypothesis"]) - content(pair["premise"]):
            return "hypothesis adds content, which contraposition does not carry"
    # "Two women may walk down a sidewalk" does not entail "The women may have been walking":
    # may over two different tenses
    if spec.rule == "possibility" and both and backend.tense_of(premise) != backend.tense_of(hypothesis):
        return "may over different tenses"
    # may, a tense change or negation on the premise gives the rule's label only where the
    # hypothesis rests on what the operator takes in its scope
    scope = getattr(backend, "scope_refusal", None)
    if scope is not None and not isinstance(premise, Refusal) and spec.premise and \
            spec.rule in ("to_neutral", "contraposition"):
        operator = ("negation" if spec.rule == "contraposition" else "may" if "may" in spec.premise
                    else "the tense change")
        reason = scope(premise, pair["hypothesis"], pair["label"], operator, subject=operator != "the tense change")
        if reason:
            return f"premise: {reason}"
    return None


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

    def verify_many(self, items: Sequence[tuple[Any, Sequence[str], str]]) -> list[str | None]:
        """Optional: check candidates by re-analysis (item 3 of the LIT fluency work).

        Parameters
        ----------
        items : sequence of (analysis, ops, candidate), length m

        Returns
        -------
        list of (str or None), length m
            ``None`` where the candidate, parsed again, re-analyses to what ``ops`` intended;
            otherwise the refusal reason, counted on the card. A backend without this method
            has its candidates taken unverified (the ERG backend generates from the edited MRS).
        """
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
    for failure, the candidates the re-analysis check rejected (by reason), the rows each code
    would have had without that check, and the time spent in each stage (seconds)."""

    pairs: int
    rows_per_code: dict[str, int]
    rows_per_code_unverified: dict[str, int]
    reanalysis_rejections: dict[str, int]
    failures_per_code: dict[str, dict[str, int]]
    sentences: int
    sentence_coverage: dict[str, int]
    sentence_failures: dict[str, dict[str, int]]
    seconds: dict[str, float]
    candidates: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def make_contrast_sets(pairs: Sequence[dict], backend: Backend, scorer, *, codes: Sequence[str] | None = None,
                       tier: str = "paper", id_prefix: str = "",
                       progress: bool = False) -> tuple[list[dict], ContrastSetReport]:
    """Transform NLI pairs into LIT contrast pairs.

    Parameters
    ----------
    pairs : sequence of dict
        ``idx``, ``premise``, ``hypothesis``, ``label`` (index into entailment, neutral, contradiction).
    backend : Backend
        Parses and transforms sentences.
    scorer : robust_bench.models.lm.CausalLMScorer
        Picks the lowest-perplexity candidate (§3.3).
    codes : sequence of str, optional
        Pair transformations to build (default: every code with rows in ``tier``).
    tier : str
        ``"paper"``: only the rows the authors built (original labels in
        :attr:`PairTransformation.paper_labels`); ``"extended"``: only robust-bench's additions.
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
    ValueError
        For an unknown tier.
    """
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; use one of {TIERS}")
    if codes is None:
        codes = PAPER_CODES if tier == "paper" else EXTENDED_CODES
    specs = sorted((PAIR_TRANSFORMATIONS[c] for c in codes), key=lambda t: CODES.index(t.code))
    seconds = {}
    t0 = time.perf_counter()
    texts = sorted({p["premise"] for p in pairs} | {p["hypothesis"] for p in pairs})
    analyses = dict(zip(texts, backend.analyse_many(texts)))
    seconds["parsing"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    raw: dict[tuple[str, tuple[str, ...]], list[str] | Refusal] = {}
    failures: dict[str, Counter] = defaultdict(Counter)
    plans = _plan(pairs, specs, tier, analyses, backend, raw, failures, progress)
    for text in texts:                      # sentence-level coverage needs every phenomenon
        for ops in PHENOMENA.values():
            for op in ops:
                _raw_candidates(raw, analyses, backend, text, (op,))
    seconds["transformation"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    cache, rejected = _verify(raw, analyses, backend)
    seconds["verification"] = time.perf_counter() - t0

    pending, unverified = _pending(plans, raw, cache, failures)

    t0 = time.perf_counter()
    lists = [c for _, _, _, p, h in pending for c in (p, h) if c is not None]
    chosen = iter(scorer.choose(lists))
    seconds["lm_ranking"] = time.perf_counter() - t0

    rows = []
    counts = Counter()
    n_cands = Counter()
    for pair, spec, new_label, p, h in pending:
        first, second = ("hypothesis", "premise") if spec.swap else ("premise", "hypothesis")
        prem = next(chosen) if p is not None else pair[first]
        hyp = next(chosen) if h is not None else pair[second]
        counts[spec.code] += 1
        n_cands["premise"] += len(p or [])
        n_cands["hypothesis"] += len(h or [])
        rows.append(_row(pair, spec, new_label, prem, hyp, p, h, id_prefix))
    sent_cov, sent_fail = _sentence_coverage(texts, cache)
    report = ContrastSetReport(
        pairs=len(pairs), rows_per_code={c: counts.get(c, 0) for c in codes},
        rows_per_code_unverified={c: unverified.get(c, 0) for c in codes},
        reanalysis_rejections=dict(rejected.most_common()),
        failures_per_code={c: dict(failures[c].most_common()) for c in codes}, sentences=len(texts),
        sentence_coverage=sent_cov, sentence_failures=sent_fail, seconds=seconds,
        candidates=dict(n_cands))
    return rows, report


def _raw_candidates(raw: dict, analyses: dict, backend: Backend, text: str, ops: tuple[str, ...]):
    """The candidates of ``text`` under ``ops`` before verification (or the Refusal), computed once into
    ``raw``."""
    key = (text, ops)
    if key not in raw:
        a = analyses[text]
        if isinstance(a, Refusal):
            raw[key] = a
        else:
            try:
                # a surface identical to the original (past of "set", "put") would carry a new
                # label on unchanged text
                out = [c for c in backend.transform(a, ops) if c != text]
                raw[key] = out if out else Refusal("no visible change")
            except Refusal as exc:
                raw[key] = exc
    return raw[key]


def _plan(pairs: Sequence[dict], specs: list, tier: str, analyses: dict, backend: Backend, raw: dict,
          failures: dict, progress: bool) -> list:
    """Step 1: which (sentence, operations) each pair and code needs; transforms each once into ``raw``
    and counts the pairs refused before any transformation in ``failures``.

    Returns
    -------
    list of (pair, spec, new label, fields, keys, pair refusal)
        ``keys``: ``(text, ops)`` or None, for the new premise and the new hypothesis.
    """
    from tqdm.auto import tqdm

    plans = []
    for pair in tqdm(pairs, desc="LIT transformations", disable=not progress):
        for spec in specs:
            new_label = pair_label(spec.code, pair["label"], tier)
            if new_label is None:
                failures[spec.code][f"not built from {NLI_LABELS[int(pair['label'])]} pairs in this tier"] += 1
                continue
            if spec.requires_present:
                tenses = [backend.tense_of(analyses[pair[f]]) if not isinstance(analyses[pair[f]], Refusal) else None
                          for f in ("premise", "hypothesis")]
                bad = [f for f, t in zip(("premise", "hypothesis"), tenses) if t != "present"]
                if bad:
                    a = analyses[pair[bad[0]]]
                    failures[spec.code][f"{bad[0]}: " + (a.reason if isinstance(a, Refusal) else "not present tense")] += 1
                    continue
            pair_reason = _pair_refusal(pair, spec, analyses, backend)
            # n;n: the new premise comes from the hypothesis and the new hypothesis from the premise
            fields = ("hypothesis", "premise") if spec.swap else ("premise", "hypothesis")
            keys = tuple((pair[f], tuple(ops)) if ops else None for f, ops in zip(fields, (spec.premise, spec.hypothesis)))
            for k in keys:
                if k is not None:
                    _raw_candidates(raw, analyses, backend, *k)
            plans.append((pair, spec, new_label, fields, keys, pair_reason))
    return plans


def _verify(raw: dict, analyses: dict, backend: Backend) -> tuple[dict, Counter]:
    """Step 2: every candidate verified by re-analysis (one batched parse of all of them).

    Returns
    -------
    cache : dict
        ``(text, ops)`` -> the verified candidates, or the Refusal (the first re-analysis reason when
        none is kept).
    rejected : Counter
        Re-analysis reasons of the rejected candidates.
    """
    items = [(key, c) for key in sorted(raw) if not isinstance(raw[key], Refusal) for c in raw[key]]
    verify = getattr(backend, "verify_many", None)
    reasons = verify([(analyses[k[0]], k[1], c) for k, c in items]) if verify else [None] * len(items)
    kept: dict[tuple, list[str]] = defaultdict(list)
    why: dict[tuple, str] = {}
    rejected: Counter = Counter()
    for (key, c), reason in zip(items, reasons):
        if reason is None:
            kept[key].append(c)
        else:
            rejected[reason] += 1
            why.setdefault(key, reason)
    cache: dict[tuple[str, tuple[str, ...]], list[str] | Refusal] = {}
    for key, r in raw.items():
        cache[key] = r if isinstance(r, Refusal) else (kept[key] if kept.get(key) else Refusal(why[key]))
    return cache, rejected


def _pending(plans: list, raw: dict, cache: dict, failures: dict) -> tuple[list, Counter]:
    """Step 3: the planned pairs whose sides all have verified candidates and whose label rule holds;
    the others are counted in ``failures``.

    Returns
    -------
    pending : list of (pair, spec, new label, premise candidates or None, hypothesis candidates or None)
    unverified : Counter
        Per code, the pairs that could be built before verification.
    """
    pending = []
    unverified = Counter()
    for pair, spec, new_label, fields, keys, pair_reason in plans:
        if pair_reason is None and all(k is None or not isinstance(raw[k], Refusal) for k in keys):
            unverified[spec.code] += 1
        sides = []
        for field, k in zip(fields, keys):
            if k is None:
                sides.append(None)
                continue
            c = cache[k]
            if isinstance(c, Refusal):
                failures[spec.code][f"{field}: {c.reason}"] += 1
                break
            sides.append(c)
        else:
            # the label rule's premise, checked on pairs that could otherwise be built, so that the
            # card counts the rows it refused
            if pair_reason:
                failures[spec.code][f"{RULE_REFUSAL}{pair_reason}"] += 1
            else:
                pending.append((pair, spec, new_label, sides[0], sides[1]))
    return pending, unverified


def _row(pair: dict, spec, new_label: int, prem: str, hyp: str, p: list | None, h: list | None,
         id_prefix: str) -> dict:
    """One contrast-set row: the chosen premise and hypothesis, the originals and the rule."""
    return {
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
    }


def _sentence_coverage(texts: Sequence[str], cache: dict) -> tuple[dict[str, int], dict[str, dict]]:
    """Sentence-level coverage per phenomenon (one operation each): the sentences with a verified
    candidate, and the reasons of the others (the last operation's, most common first)."""
    sent_cov: dict[str, int] = {}
    sent_fail: dict[str, Counter] = {}
    for phen, ops in PHENOMENA.items():
        ok, fail = 0, Counter()
        for text in texts:
            reason = None
            for op in ops:
                c = cache[(text, (op,))]
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
    return sent_cov, sent_fail

