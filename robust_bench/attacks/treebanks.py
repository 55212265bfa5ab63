"""The black-box attack on dependency parsers of Wang et al. (2021), Alg. 1, against any :class:`Parser`.

For each sentence (§2.2–2.4, settings of §3.2 and the authors' ``adversary/config/pipe.json``):

1. **Word importance** (Eq. 1): each attackable word is replaced by the parser's unknown token and
   the sentence re-parsed; importance = (1 − λ)·Δ arc errors + λ·Δ label errors against the gold
   tree, with λ = 0.5 (a label error is a word whose head *or* relation is wrong). Words are visited
   once each, in descending importance (DepAttacker ``calc_importance``).
2. **Candidates** come from the four generators of :mod:`robust_bench.perturb.treebanks`,
   computed on the original sentence, for the words that may change (not the paper's forbidden
   classes, §2.4, nor any other function word, auxiliary, copula, proper noun or word of a fixed
   expression: :func:`~robust_bench.perturb.treebanks.protection_reasons`); **filters**
   (the paper's four and the frequency and meaning checks) judge them in the current adversarial
   sentence.
3. **Greedy substitution** (Eq. 3): the surviving candidates of the visited word are parsed in one
   batch; the one with the largest positive score, (1 − λ)·Δ arc errors + λ·Δ label errors over the
   current sentence, replaces the word. The search stops when γ = 15% of the words have changed:
   at most max(1, ⌊0.15·(n + 1)⌋) substitutions for n words (DepAttacker counts the root token),
   or when the words run out. It does not stop at the first success (``get_best_cand``).
4. **Success**: the sentence's LAS is lower than the original's, or its UAS when the corpus or
   parser is unlabelled (DepAttacker ``succ_rate.py``: ``u1 > u2 or l1 > l2``).

The gold tree is kept: an adversarial example is the original heads and relations over new words.

Speed: sentences are attacked in lockstep, one visited word per sentence per round, so every
round tags, scores with the LM and parses the candidates of all sentences in one batch each; the
parser's cache parses no word sequence twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from robust_bench.models.parsers import Parse, Parser
from robust_bench.perturb.treebanks import (FILTERS, GENERATORS, Candidates, FilterQuery, Site,
                                            merge_candidates, protection_reasons)
from robust_bench.scoring.parsing import attachment_errors, attachment_mask

__all__ = ["TreeExample", "ParserAttackResult", "ParserAttack", "edit_budget", "summarise", "LAMBDA_ARC",
           "BUDGET_RATE", "UNK_TOKEN", "FILTER_COST", "row_features", "result_rows", "results_from_rows",
           "make_attack", "substitution_checks"]

LAMBDA_ARC = 0.5          # §3.2, pipe.json "rel_ratio"
BUDGET_RATE = 0.15        # γ, pipe.json "max_mod_percent"
UNK_TOKEN = "<unk>"       # a word no parser has seen; models with an UNK entry map it there
#: cost rank of each filter: dictionary lookups, vectors, a tagger, a sentence encoder (batched), a grammar
#: checker (one sentence at a time), a language model
FILTER_COST = {"frequency": 0, "embedding": 1, "pos": 2, "meaning": 3, "grammar": 4, "perplexity": 5}


def edit_budget(n_words: int, rate: float = BUDGET_RATE) -> int:
    """Substitutions allowed in a sentence of ``n_words`` words: max(1, ⌊rate·(n_words + 1)⌋),
    counting the root token as DepAttacker does (``max_mod_token``)."""
    return max(1, int((n_words + 1) * rate))


@dataclass(frozen=True)
class TreeExample:
    """A gold-annotated sentence to attack.

    Attributes
    ----------
    id : str
    words : tuple of str of shape (n_words,)
    heads : tuple of int of shape (n_words,)
        1-based gold heads, 0 for the root.
    deprels : tuple of str, or None
        Gold relations; None for an unlabelled treebank (UAS only).
    xpos, upos, lemmas, feats : tuple of str, or None
    protected : frozenset of int
        0-based words that must not change (for example parts of a multiword token).
    """

    id: str
    words: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...] | None = None
    xpos: tuple[str, ...] | None = None
    upos: tuple[str, ...] | None = None
    lemmas: tuple[str, ...] | None = None
    protected: frozenset = frozenset()
    feats: tuple[str, ...] | None = None

    @classmethod
    def from_sentence(cls, sentence) -> "TreeExample":
        """From a treebank sentence (:class:`~robust_bench.io.conllu_io.Sentence` or
        :class:`~robust_bench.io.dependency_treebank.DepSentence`); parts of multiword tokens are protected."""
        mwt = getattr(sentence, "in_multiword_token", ())
        return cls(id=sentence.sent_id, words=tuple(sentence.forms), heads=tuple(sentence.heads),
                   deprels=sentence.deprels, xpos=sentence.xpos, upos=sentence.upos, lemmas=sentence.lemmas,
                   protected=frozenset(i for i, f in enumerate(mwt) if f), feats=getattr(sentence, "feats", None))

    def protection(self) -> list[str | None]:
        """Per word, why it must not change, or None where it may
        (:func:`~robust_bench.perturb.treebanks.protection_reasons`)."""
        return protection_reasons(self.words, xpos=self.xpos, upos=self.upos, deprels=self.deprels, heads=self.heads,
                                  feats=self.feats, lemmas=self.lemmas,
                                  multiword=[i in self.protected for i in range(len(self.words))])

    def sites(self) -> list[Site]:
        """The attackable words (no reason in :meth:`protection`), in sentence order."""
        from robust_bench.perturb.treebanks import verb_frames

        frames = verb_frames(self.heads, self.deprels, self.words) if self.deprels else None
        out = []
        for i, why in enumerate(self.protection()):
            if why is not None:
                continue
            out.append(Site(key=self.id, words=self.words, position=i, xpos=self.xpos[i] if self.xpos else None,
                            upos=self.upos[i] if self.upos else None, lemma=self.lemmas[i] if self.lemmas else None,
                            frame=frames[i] if frames else None))
        return out


@dataclass
class ParserAttackResult:
    """Outcome of the attack on one sentence.

    Attributes
    ----------
    id : str
    original_words, words : tuple of str of shape (n_words,)
        Before and after; the gold tree is unchanged.
    edits : list of dict
        ``{"type": generator(s), "position", "original", "replacement"}`` in the order applied.
    budget : int
        Substitutions allowed (:func:`edit_budget`).
    n_scored : int
        Words scored by the punctuation rule.
    original_errors, adversarial_errors : (int, int)
        (arc errors, label errors) of the parser before and after.
    labelled : bool
    queries : int
        Distinct sentences of this example sent to the parser.
    importance : dict of int to float
        Eq. 1 score of each attackable word.
    candidates : dict of str to list of int
        Per generator, [proposed, kept by every filter] over the visited words.
    stages : list of int
        Candidates of the visited words before filtering and after each filter in turn
        (:attr:`ParserAttack.filter_order`).
    original_parse, adversarial_parse : Parse or None
        The parser's trees of the original and the final sentence.
    """

    id: str
    original_words: tuple[str, ...]
    words: tuple[str, ...]
    edits: list[dict]
    budget: int
    n_scored: int
    original_errors: tuple[int, int]
    adversarial_errors: tuple[int, int]
    labelled: bool
    queries: int = 0
    importance: dict[int, float] = field(default_factory=dict)
    candidates: dict[str, list[int]] = field(default_factory=dict)
    stages: list[int] = field(default_factory=list)
    original_parse: Parse | None = None
    adversarial_parse: Parse | None = None

    @property
    def success(self) -> bool:
        """The attacked sentence scores lower: LAS (UAS when unlabelled) or, as in the code, UAS."""
        arc0, lab0 = self.original_errors
        arc1, lab1 = self.adversarial_errors
        return arc1 > arc0 or (self.labelled and lab1 > lab0)


@dataclass
class _State:
    ex: TreeExample
    mask: np.ndarray
    order: list[Site]
    cands: dict[int, Candidates]
    current: list[str]
    errors: tuple[int, int]
    result: ParserAttackResult
    seen: set = field(default_factory=set)
    next: int = 0

    @property
    def done(self) -> bool:
        return len(self.result.edits) >= self.result.budget or self.next >= len(self.order)


class ParserAttack:
    """Alg. 1 of Wang et al. (2021) against one parser, with the given generators and filters.

    Parameters
    ----------
    parser : Parser
    generators : sequence
        Objects with ``name`` (one of :data:`GENERATORS`) and ``generate(sites) -> list of list of str``.
    filters : sequence
        Objects with ``name`` (one of :data:`FILTERS`), ``available`` and ``keep(queries) -> list of bool``.
        A substitute must pass all of them, so the order cannot change the result; they are applied
        cheapest first (:data:`FILTER_COST`), so that the costly ones see fewer candidates.
    rule : {"ud", "ptb"}
        Punctuation rule of the scores that drive the search (``ptb`` needs gold PTB tags).
    lambda_arc : float
        λ of Eq. 1 and Eq. 3, in [0, 1].
    budget_rate : float
        γ, share of the words that may change.
    unk_token : str
        What replaces a word for its importance (Eq. 1).

    Raises
    ------
    ValueError
        For a generator or filter of an unknown name, or λ or γ out of range.
    """

    def __init__(self, parser: Parser, generators: Sequence, filters: Sequence, *, rule: str = "ud",
                 lambda_arc: float = LAMBDA_ARC, budget_rate: float = BUDGET_RATE, unk_token: str = UNK_TOKEN):
        for g in generators:
            if g.name not in GENERATORS:
                raise ValueError(f"unknown generator {g.name!r}; known: {', '.join(GENERATORS)}")
        for f in filters:
            if f.name not in FILTERS:
                raise ValueError(f"unknown filter {f.name!r}; known: {', '.join(FILTERS)}")
        if not 0 <= lambda_arc <= 1 or not 0 < budget_rate <= 1:
            raise ValueError(f"lambda_arc must lie in [0, 1] and budget_rate in (0, 1], got {lambda_arc}, {budget_rate}")
        self.parser = parser
        self.generators = list(generators)
        self.filters = sorted(filters, key=lambda f: FILTER_COST[f.name])
        #: filter names in the order applied (the order of :attr:`ParserAttackResult.stages` after the first)
        self.filter_order = [f.name for f in self.filters]
        self.rule = rule
        self.lam = lambda_arc
        self.budget_rate = budget_rate
        self.unk = unk_token

    # -- helpers ---------------------------------------------------------------------------------

    def _errors(self, st: _State, parse) -> tuple[int, int]:
        ex = st.ex
        labelled = ex.deprels is not None and parse.deprels is not None and self.parser.labelled
        _, arc, lab = attachment_errors(ex.heads, parse.heads, gold_deprels=ex.deprels if labelled else None,
                                        pred_deprels=parse.deprels if labelled else None, scored=st.mask)
        return arc, lab

    def _score(self, before: tuple[int, int], after: tuple[int, int]) -> float:
        return (1 - self.lam) * (after[0] - before[0]) + self.lam * (after[1] - before[1])

    def _parse(self, pairs: list[tuple[_State, tuple[str, ...]]]):
        # an example's queries are its own distinct inputs, whether or not the parser's cache already held
        # them from another example (a sentence that recurs in EWT's train and test splits): the count
        # must not depend on which splits or examples a build attacks besides it
        for st, words in pairs:
            if words not in st.seen:
                st.seen.add(words)
                st.result.queries += 1
        return self.parser.parse([w for _, w in pairs])

    # -- the attack ------------------------------------------------------------------------------

    def attack(self, examples: Sequence[TreeExample], *, progress: bool = False) -> list[ParserAttackResult]:
        """Attack every example.

        Parameters
        ----------
        examples : sequence of TreeExample
        progress : bool
            Show a progress bar over the rounds.

        Returns
        -------
        list of ParserAttackResult, one per example, in order

        Raises
        ------
        ValueError
            If an example is empty, or its heads, relations or tags do not match its words.
        """
        from tqdm.auto import tqdm

        states = [self._start(ex) for ex in examples]
        # importance (Eq. 1): the original and one UNK variant per attackable word, in one batch
        pairs = []
        for st in states:
            pairs.append((st, tuple(st.ex.words)))
            for s in st.order:
                pairs.append((st, tuple(self.unk if i == s.position else w for i, w in enumerate(st.ex.words))))
        parses = self._parse(pairs)
        k = 0
        for st in states:
            base = self._errors(st, parses[k])
            st.result.original_parse = st.result.adversarial_parse = parses[k]
            st.errors = st.result.original_errors = st.result.adversarial_errors = base
            k += 1
            imp = {}
            for s in st.order:
                imp[s.position] = self._score(base, self._errors(st, parses[k]))
                k += 1
            st.result.importance = imp
            st.order.sort(key=lambda s: (-imp[s.position], s.position))
        # candidates, from the original sentences, all generators batched over all sites
        sites = [s for st in states for s in st.order]
        generated = {g.name: g.generate(sites) for g in self.generators}
        k = 0
        for st in states:
            for s in st.order:
                st.cands[s.position] = merge_candidates(s, {name: out[k] for name, out in generated.items()})
                k += 1
        rounds = max((len(st.order) for st in states), default=0)
        bar = tqdm(total=rounds, desc="parser attack", unit="round", disable=not progress)
        active = [st for st in states if not st.done]
        while active:
            self._round(active)
            active = [st for st in active if not st.done]
            bar.update(1)
        bar.close()
        return [st.result for st in states]

    def _start(self, ex: TreeExample) -> _State:
        n = len(ex.words)
        if n == 0:
            raise ValueError(f"example {ex.id}: empty sentence")
        for name in ("heads", "deprels", "xpos", "upos", "lemmas"):
            val = getattr(ex, name)
            if val is not None and len(val) != n:
                raise ValueError(f"example {ex.id}: {name} has {len(val)} entries for {n} words")
        mask = attachment_mask(n, self.rule, ex.xpos if self.rule == "ptb" else None)
        labelled = ex.deprels is not None and self.parser.labelled
        res = ParserAttackResult(id=ex.id, original_words=tuple(ex.words), words=tuple(ex.words), edits=[],
                                 budget=edit_budget(n, self.budget_rate), n_scored=int(mask.sum()),
                                 original_errors=(0, 0), adversarial_errors=(0, 0), labelled=labelled,
                                 candidates={g.name: [0, 0] for g in self.generators},
                                 stages=[0] * (len(self.filters) + 1))
        return _State(ex=ex, mask=mask, order=ex.sites(), cands={}, current=list(ex.words), errors=(0, 0), result=res)

    def _round(self, active: list[_State]) -> None:
        # one visited word per sentence
        visits = []
        for st in active:
            site = st.order[st.next]
            st.next += 1
            c = st.cands[site.position]
            for gen, n in c.raw.items():
                st.result.candidates[gen][0] += n
            st.result.stages[0] += len(c.words)
            visits.append((st, site, c))
        queries = [(st, c.sources[j], FilterQuery(site, w, tuple(st.current)))
                   for st, site, c in visits for j, w in enumerate(c.words)]
        for stage, flt in enumerate(self.filters, start=1):
            if queries:
                keep = flt.keep([q for _, _, q in queries])
                queries = [q for q, ok in zip(queries, keep) if ok]
            for st, _, _ in queries:
                st.result.stages[stage] += 1
        for st, sources, _ in queries:
            for gen in sources:
                if gen in st.result.candidates:
                    st.result.candidates[gen][1] += 1
        if not queries:
            return
        parses = self._parse([(st, q.substituted) for st, _, q in queries])
        best: dict[int, tuple[float, int]] = {}
        for j, ((st, _, q), parse) in enumerate(zip(queries, parses)):
            score = self._score(st.errors, self._errors(st, parse))
            if score > 0 and (id(st) not in best or score > best[id(st)][0]):
                best[id(st)] = (score, j)
        for st, site, c in visits:
            if id(st) not in best:
                continue
            _, j = best[id(st)]
            _, sources, q = queries[j]
            after = self._errors(st, parses[j])
            st.current[site.position] = q.candidate
            st.errors = after
            st.result.words = tuple(st.current)
            st.result.adversarial_errors = after
            st.result.adversarial_parse = parses[j]
            st.result.edits.append({"type": "+".join(sources), "position": site.position, "original": site.word,
                                    "replacement": q.candidate})


def summarise(results: Sequence[ParserAttackResult], examples: Sequence[TreeExample], *,
              train_vocabulary: set[str] | None = None, embedding_vocabulary: set[str] | None = None) -> dict:
    """The paper's automatic figures for a set of attacked sentences.

    Parameters
    ----------
    results : sequence of ParserAttackResult
    examples : sequence of TreeExample
        The attacked examples, in the same order (for the gold tags and relations).
    train_vocabulary : set of str, optional
        Words of the parser's training data, for OOT counts (Table 7); None when unknown.
    embedding_vocabulary : set of str, optional
        Words of the parser's pretrained embeddings, for OOV counts (Table 7); None when unknown.

    Returns
    -------
    dict
        ``sentences``; ``labelled``; per punctuation rule that applies (``ud``, and ``ptb`` when the
        corpus has PTB tags), ``uas``/``las`` original and adversarial as percentages (Table 6);
        ``success_rate`` in [0, 1] (lower is more robust); ``edits_mean``; ``queries_mean``;
        ``candidates`` per generator, proposed and kept (Table 4); ``oov``/``oot`` of the replaced
        and the substituted words (Table 7, None when the vocabulary is unknown).

    Raises
    ------
    ValueError
        If ``results`` is empty or does not match ``examples``.
    """
    from robust_bench.scoring.parsing import attachment_scores

    if not results or len(results) != len(examples):
        raise ValueError(f"{len(results)} results for {len(examples)} examples")
    labelled = all(r.labelled for r in results)
    rules = ["ud"] + (["ptb"] if all(ex.xpos and all(x not in ("", "_") for x in ex.xpos) for ex in examples) else [])
    gold_heads = [ex.heads for ex in examples]
    gold_rels = [ex.deprels for ex in examples] if labelled else None
    out: dict = {"sentences": len(results), "labelled": labelled, "scores": {}}
    for rule in rules:
        row = {}
        for when, attr in (("original", "original_parse"), ("adversarial", "adversarial_parse")):
            parses = [getattr(r, attr) for r in results]
            res = attachment_scores(gold_heads, [p.heads for p in parses], gold_deprels=gold_rels,
                                    pred_deprels=[p.deprels for p in parses] if labelled else None,
                                    xpos=[ex.xpos for ex in examples] if rule == "ptb" else None, rule=rule)
            row[f"uas_{when}"] = round(100 * res.uas, 2)
            if labelled:
                row[f"las_{when}"] = round(100 * res.las, 2)
        out["scores"][rule] = row
    successes = sum(r.success for r in results)
    out["successes"] = successes
    out["success_rate"] = successes / len(results)
    out["edits_mean"] = float(np.mean([len(r.edits) for r in results]))
    out["queries_mean"] = float(np.mean([r.queries for r in results]))
    gens = sorted({g for r in results for g in r.candidates}, key=GENERATORS.index)
    out["candidates"] = {g: {"proposed": sum(r.candidates.get(g, [0, 0])[0] for r in results),
                             "kept": sum(r.candidates.get(g, [0, 0])[1] for r in results)} for g in gens}
    replaced = [e["original"] for r in results for e in r.edits]
    substitutes = [e["replacement"] for r in results for e in r.edits]

    def count(words, vocab):
        return None if vocab is None else sum(w not in vocab and w.lower() not in vocab for w in words)

    out["substitutions"] = len(substitutes)
    out["oov"] = {"before": count(replaced, embedding_vocabulary), "after": count(substitutes, embedding_vocabulary)}
    out["oot"] = {"before": count(replaced, train_vocabulary), "after": count(substitutes, train_vocabulary)}
    return out


def substitution_checks(results: Sequence[ParserAttackResult], examples: Sequence[TreeExample], *,
                        tagger=None) -> dict:
    """The automatic validity checks of a whole adversarial treebank (``../shared/VALIDITY.md`` §3),
    recomputed from the gold columns and the final sentences, independently of the attack's filters.

    Parameters
    ----------
    results, examples : sequence
        As :func:`summarise`.
    tagger : robust_bench.models.taggers.SpacyPosTagger, optional
        Re-tags the attacked sentences; without it the re-tagging check is None.

    Returns
    -------
    dict
        ``substitutions``; ``protected_words`` (words that may not change, by reason, over all
        sentences); ``on_protected`` (substitutions on such words, by reason; 0 in a valid build);
        ``non_words`` (substitutes that are not English words: wordfreq Zipf < 1.5 and not in
        WordNet) and ``non_word_rate``; ``retagged`` (substitutes whose tag, when the attacked
        sentence is re-tagged, differs from the original's gold PTB tag) and ``retag_rate``;
        ``context_retagged`` (other words whose tag differs from the original sentence's tagging)
        and ``context_retag_rate`` over the words of attacked sentences.
    """
    from collections import Counter

    from robust_bench.perturb.checks import is_known_word

    protected, on_protected = Counter(), Counter()
    edits = [(r, ex, e) for r, ex in zip(results, examples) for e in r.edits]
    for r, ex in zip(results, examples):
        why = ex.protection()
        protected.update(w for w in why if w)
        for e in r.edits:
            if why[e["position"]]:
                on_protected[why[e["position"]]] += 1
    n = len(edits)
    non_words = sum(not is_known_word(e["replacement"]) for _, _, e in edits)
    out = {"substitutions": n, "protected_words": dict(sorted(protected.items())),
           "on_protected": dict(sorted(on_protected.items())), "non_words": non_words,
           "non_word_rate": non_words / n if n else 0.0, "retagged": None, "retag_rate": None,
           "context_retagged": None, "context_retag_rate": None}
    if tagger is not None:
        attacked = [(r, ex) for r, ex in zip(results, examples) if r.edits]
        tags = tagger.tag([r.words for r, _ in attacked] + [ex.words for _, ex in attacked])
        m = len(attacked)
        retagged = context = words = 0
        for k, (r, ex) in enumerate(attacked):
            new, old = tags[k][0], tags[m + k][0]
            changed = {e["position"] for e in r.edits}
            gold = ex.xpos or tags[m + k][0]
            retagged += sum(new[i] != gold[i] for i in changed)
            context += sum(new[i] != old[i] for i in range(len(new)) if i not in changed)
            words += len(new) - len(changed)
        out.update(retagged=retagged, retag_rate=retagged / n if n else 0.0, context_retagged=context,
                   context_retag_rate=context / words if words else 0.0)
    return out


def row_features():
    """The ``datasets.Features`` of an adversarial-treebank row (:func:`result_rows`)."""
    import datasets

    strings = datasets.List(datasets.Value("string"))
    ints = datasets.List(datasets.Value("int32"))
    int32 = datasets.Value("int32")
    edit = {"type": datasets.Value("string"), "position": int32, "original": datasets.Value("string"),
            "replacement": datasets.Value("string")}
    return datasets.Features({
        "id": datasets.Value("string"), "sent_id": datasets.Value("string"),
        "tokens": strings, "original_tokens": strings, "lemmas": strings, "upos": strings, "xpos": strings,
        "feats": strings,
        "head": ints, "deprel": strings, "edits": datasets.List(edit), "success": datasets.Value("bool"),
        "budget": int32, "queries": int32, "n_scored": int32,
        "original_head_errors": int32, "original_label_errors": int32,
        "adversarial_head_errors": int32, "adversarial_label_errors": int32,
        "original_pred_head": ints, "original_pred_deprel": strings, "pred_head": ints, "pred_deprel": strings,
        "candidates_proposed": ints, "candidates_kept": ints, "candidates_after_filters": ints,
    })


def result_rows(results: Sequence[ParserAttackResult], examples: Sequence[TreeExample], *, split: str = "test",
                start: int = 0) -> list[dict]:
    """One row per attacked sentence: the adversarial words over the gold tree, the edits, the
    parser's trees before and after, the error counts, and per generator (:data:`GENERATORS` order)
    the candidates proposed and kept. Unlabelled trees carry ``"_"`` relations. Row ids are
    ``<split>-<index>`` from ``start`` (sortable); ``sent_id`` is the treebank's id.
    ``candidates_after_filters`` counts the visited words' candidates before filtering and after
    each filter in turn (:attr:`ParserAttack.filter_order`)."""
    rows = []
    for k, (r, ex) in enumerate(zip(results, examples)):
        n = len(ex.words)
        blank = ["_"] * n
        rows.append({
            "id": f"{split}-{start + k:05d}", "sent_id": ex.id, "tokens": list(r.words), "original_tokens": list(ex.words),
            "lemmas": list(ex.lemmas or blank), "upos": list(ex.upos or blank), "xpos": list(ex.xpos or blank),
            "feats": list(ex.feats or blank), "head": list(ex.heads),
            "deprel": list(ex.deprels or blank), "edits": [dict(e) for e in r.edits], "success": r.success,
            "budget": r.budget, "queries": r.queries, "n_scored": r.n_scored,
            "original_head_errors": r.original_errors[0], "original_label_errors": r.original_errors[1],
            "adversarial_head_errors": r.adversarial_errors[0], "adversarial_label_errors": r.adversarial_errors[1],
            "original_pred_head": list(r.original_parse.heads), "original_pred_deprel": list(r.original_parse.deprels or blank),
            "pred_head": list(r.adversarial_parse.heads), "pred_deprel": list(r.adversarial_parse.deprels or blank),
            "candidates_proposed": [r.candidates.get(g, [0, 0])[0] for g in GENERATORS],
            "candidates_kept": [r.candidates.get(g, [0, 0])[1] for g in GENERATORS],
            "candidates_after_filters": list(r.stages),
        })
    return rows


def results_from_rows(rows) -> tuple[list[ParserAttackResult], list[TreeExample]]:
    """Rebuild results and examples from stored rows (:func:`result_rows`), so that the tables
    (:func:`summarise`) can be recounted from a built corpus."""
    results, examples = [], []
    for row in rows:
        labelled = any(d != "_" for d in row["deprel"])
        has_xpos = any(x != "_" for x in row["xpos"])
        ex = TreeExample(id=row["sent_id"], words=tuple(row["original_tokens"]), heads=tuple(row["head"]),
                         deprels=tuple(row["deprel"]) if labelled else None,
                         xpos=tuple(row["xpos"]) if has_xpos else None,
                         upos=tuple(row["upos"]) if any(u != "_" for u in row["upos"]) else None,
                         lemmas=tuple(row["lemmas"]) if any(x != "_" for x in row.get("lemmas") or ()) else None,
                         feats=tuple(row["feats"]) if row.get("feats") else None)
        lab = labelled and any(d != "_" for d in row["pred_deprel"])
        results.append(ParserAttackResult(
            id=row["sent_id"], original_words=ex.words, words=tuple(row["tokens"]), edits=list(row["edits"]),
            budget=row["budget"], n_scored=row["n_scored"],
            original_errors=(row["original_head_errors"], row["original_label_errors"]),
            adversarial_errors=(row["adversarial_head_errors"], row["adversarial_label_errors"]), labelled=lab,
            queries=row["queries"], stages=list(row.get("candidates_after_filters") or []),
            candidates={g: [p, k] for g, p, k in zip(GENERATORS, row["candidates_proposed"], row["candidates_kept"])
                        if p or k},
            original_parse=Parse(tuple(row["original_pred_head"]), tuple(row["original_pred_deprel"]) if lab else None),
            adversarial_parse=Parse(tuple(row["pred_head"]), tuple(row["pred_deprel"]) if lab else None)))
        examples.append(ex)
    return results, examples


def _names(value, known: Sequence[str], what: str) -> tuple[list[str], bool]:
    """(names, explicit) from ``"auto"``/None (every known name, each optional) or a list or comma string."""
    if value is None or value == "auto":
        return list(known), False
    names = [v.strip() for v in (value.split(",") if isinstance(value, str) else value) if v and v.strip()]
    if not names:
        raise ValueError(f"no {what} given; known: {', '.join(known)} (or auto)")
    for name in names:
        if name not in known:
            raise ValueError(f"unknown {what} {name!r}; known: {', '.join(known)} (or auto)")
    return names, True


def make_attack(parser: Parser, *, vectors: str | None = None, mlm: str | None = None, lm: str | None = None,
                tagger_model: str | None = None, generators: Sequence[str] | str = "auto",
                filters: Sequence[str] | str = "auto", seed: int = 0, device: str = "auto", rule: str = "ud",
                grammar_checker=None, hownet=None, meaning=None, vectors_unavailable: str | None = None,
                frames: str | None = None) -> tuple[ParserAttack, dict]:
    """Set up the attack of Wang et al. (2021) with the paper's generators and filters and the checks
    of ``../shared/VALIDITY.md``.

    With ``"auto"`` (the default) every generator and filter that can run here is used, and each that
    cannot is left out with the reason in ``setup["unavailable"]``: offline, without the counter-fitted
    vectors, BERT, GPT-2, OpenHowNet's data and LanguageTool, that is the synonym generator with the
    frequency, POS, meaning and grammar (Link Grammar) filters. Names given explicitly must all run.

    Parameters
    ----------
    parser : Parser
        The victim.
    vectors : str, optional
        Word-vector file (word2vec or GloVe text, or word2vec binary): the embedding generator and
        the cosine filter.
    mlm, lm : str, optional
        Masked LM for the ``mlm`` generator (default ``bert-base-uncased``) and causal LM for the
        perplexity filter (default ``gpt2``): Hub ids or local folders.
    tagger_model : str, optional
        spaCy pipeline for the POS filter (default ``$ROBUST_BENCH_SPACY_MODEL``).
    generators, filters : "auto", comma-separated str or sequence of str
        Subsets of :data:`GENERATORS` and :data:`FILTERS`.
    seed : int
        Seeds the masked-LM draws.
    grammar_checker : callable or str, optional
        ``text -> number of errors``, or ``languagetool`` / ``link-grammar``; default the first that runs.
    hownet : object, optional
        An ``OpenHowNet.HowNetDict`` for the sememe generator; default built when its data exists.
    meaning : robust_bench.perturb.checks.MeaningKept, optional
        The meaning filter's encoder; default ``$ROBUST_BENCH_SIMILARITY_MODEL``.
    vectors_unavailable : str, optional
        Why there are no vectors (a failed download), for the record.
    frames : str, optional
        A gold CoNLL-U treebank (UD English EWT train) whose verbs' complements the POS filter asks
        a substitute verb to be able to take (:class:`~robust_bench.perturb.treebanks.VerbFrames`).

    Returns
    -------
    (ParserAttack, dict)
        The attack, and what a record or card says about its setup: the models and their
        revisions, the vectors' file hash, the generators and filters that ran (``generators``,
        ``filters``), the grammar checker, the thresholds, and those left out with the reason
        (``unavailable``).

    Raises
    ------
    ValueError
        For an unknown generator or filter name.
    robust_bench.perturb.treebanks.SubstituteError
        If a generator or filter asked for by name cannot run (no vectors, no grammar checker, no
        OpenHowNet data), or the vectors cannot be read, or WordNet is missing.
    robust_bench.models.loader.ModelError
        If a language model asked for by name cannot be loaded.
    """
    from robust_bench.io.sources import sha256_file
    from robust_bench.perturb.treebanks import SubstituteError, load_word_vectors

    gen_names, gen_explicit = _names(generators, GENERATORS, "generator")
    flt_names, flt_explicit = _names(filters, FILTERS, "filter")
    setup: dict = {"parser": parser.name, "parser_revision": parser.revision, "rule": rule,
                   "lambda_arc": LAMBDA_ARC, "budget_rate": BUDGET_RATE, "unavailable": {},
                   "requested": {"generators": "auto" if not gen_explicit else gen_names,
                                 "filters": "auto" if not flt_explicit else flt_names}}
    vec = None
    needs_vectors = "embedding" in gen_names or "embedding" in flt_names
    if needs_vectors and vectors:
        vec = load_word_vectors(vectors)
        setup["vectors"] = {"file": vec.name, "sha256": sha256_file(vectors), "words": len(vec)}
    no_vectors = vectors_unavailable or "no word-vector file given (--vectors)"
    gens = _attack_generators(gen_names, gen_explicit, setup, vec, no_vectors, hownet=hownet, mlm=mlm, device=device,
                              seed=seed)
    if not gens:
        raise SubstituteError("no candidate generator can run: " + "; ".join(f"{k}: {v}" for k, v in setup["unavailable"].items()))
    flts, thresholds = _attack_filters(flt_names, flt_explicit, setup, vec, no_vectors, tagger_model=tagger_model,
                                       frames=frames, meaning=meaning, grammar_checker=grammar_checker, lm=lm,
                                       device=device)
    setup["generators"] = [g.name for g in gens]
    setup["filters"] = [f.name for f in flts]
    setup["thresholds"] = thresholds
    return ParserAttack(parser, gens, flts, rule=rule), setup


def _unavailable(setup: dict, what: str, why: str, explicit: bool):
    """Record why a generator or filter left out of an ``"auto"`` attack cannot run; one asked for by name
    must run."""
    from robust_bench.perturb.treebanks import SubstituteError

    if explicit:
        raise SubstituteError(f"{what} was asked for but cannot run: {why}")
    setup["unavailable"][what] = why


def _attack_generators(gen_names: list[str], gen_explicit: bool, setup: dict, vec, no_vectors: str, *, hownet, mlm,
                       device: str, seed: int) -> list:
    """The generators of :func:`make_attack` that run, in :data:`GENERATORS` order, their models recorded
    in ``setup``."""
    from robust_bench.models.lm import DEFAULT_MLM, MaskedLMFiller
    from robust_bench.models.loader import ModelError
    from robust_bench.perturb.treebanks import (MAX_SENSE_RANK, MAX_SUBSTITUTE_SENSE_RANK, MLM_TOP_K, EmbeddingGenerator,
                                                MaskedLMGenerator, SememeGenerator, SubstituteError, WordNetGenerator)

    gens = []
    for name in gen_names:
        if name == "sememe":
            try:
                gens.append(SememeGenerator(hownet))
            except SubstituteError as exc:
                _unavailable(setup, "generator sememe", str(exc), gen_explicit)
        elif name == "synonym":
            gens.append(WordNetGenerator())
            setup["synonym"] = {"max_sense_rank": MAX_SENSE_RANK, "max_substitute_sense_rank": MAX_SUBSTITUTE_SENSE_RANK}
        elif name == "embedding":
            if vec is None:
                _unavailable(setup, "generator embedding", no_vectors, gen_explicit)
            else:
                gens.append(EmbeddingGenerator(vec))
        else:
            try:
                filler = MaskedLMFiller(mlm or DEFAULT_MLM, device=device, top_k=MLM_TOP_K)
            except ModelError as exc:
                if gen_explicit or mlm:
                    raise
                _unavailable(setup, "generator mlm", str(exc).splitlines()[0], False)
                continue
            setup["mlm"] = {"model": filler.model_id, "revision": filler.revision}
            gens.append(MaskedLMGenerator(filler, seed=seed))
    return gens


def _attack_filters(flt_names: list[str], flt_explicit: bool, setup: dict, vec, no_vectors: str, *, tagger_model,
                    frames, meaning, grammar_checker, lm, device: str) -> tuple[list, dict]:
    """The filters of :func:`make_attack` that run, in :data:`FILTERS` order, and their thresholds; their
    models recorded in ``setup``."""
    from robust_bench.io.sources import sha256_file
    from robust_bench.models.lm import DEFAULT_LM, CausalLMScorer
    from robust_bench.models.loader import ModelError
    from robust_bench.models.taggers import SpacyPosTagger
    from robust_bench.perturb.checks import ZIPF_FLOOR
    from robust_bench.perturb.treebanks import (MAX_PPL_INCREASE, MAX_ZIPF_DROP, MIN_COSINE, EmbeddingFilter,
                                                FrequencyFilter, GrammarFilter, MeaningFilter, PerplexityFilter,
                                                PosFilter, VerbFrames)

    flts = []
    thresholds: dict = {}
    for name in flt_names:
        if name == "frequency":
            flts.append(FrequencyFilter())
            thresholds["frequency"] = {"zipf_floor": ZIPF_FLOOR, "max_zipf_drop": MAX_ZIPF_DROP}
        elif name == "pos":
            tagger = SpacyPosTagger(tagger_model)
            setup["tagger"] = tagger.model_id
            vf = VerbFrames(frames) if frames else None
            if vf is None:
                setup["unavailable"]["filter pos (verb frames)"] = "no frame treebank given; verbs' complements not checked"
            else:
                setup["frames"] = {"file": Path(frames).name, "sha256": sha256_file(frames), "verbs": len(vf.counts)}
            flts.append(PosFilter(tagger, frames=vf))
        elif name == "embedding":
            if vec is None:
                _unavailable(setup, "filter embedding", no_vectors, flt_explicit)
            else:
                flts.append(EmbeddingFilter(vec))
                thresholds["embedding"] = {"min_cosine": MIN_COSINE}
        elif name == "meaning":
            try:
                f = MeaningFilter(meaning)
                f.meaning._encoder()
            except OSError as exc:
                _unavailable(setup, "filter meaning", str(exc), flt_explicit)
                continue
            flts.append(f)
            thresholds["meaning"] = {"model": f.meaning.model, "sentence_cosine": f.meaning.sentence_threshold,
                                     "word_cosine": f.meaning.word_threshold}
        elif name == "grammar":
            g = GrammarFilter(grammar_checker, require=flt_explicit)
            if not g.available:
                setup["unavailable"]["filter grammar (checker)"] = g.reason + "; only the a/an article check ran"
            flts.append(g)
            setup["grammar_checker"] = g.checker_name
        else:
            try:
                scorer = CausalLMScorer(lm or DEFAULT_LM, device=device)
            except ModelError as exc:
                if flt_explicit or lm:
                    raise
                _unavailable(setup, "filter perplexity", str(exc).splitlines()[0], False)
                continue
            setup["lm"] = {"model": scorer.model_id, "revision": scorer.revision}
            thresholds["perplexity"] = {"max_increase": MAX_PPL_INCREASE}
            flts.append(PerplexityFilter(scorer))
    return flts, thresholds
