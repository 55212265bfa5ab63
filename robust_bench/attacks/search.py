"""Worst-case grammatical-error attacks (Yin et al., 2020, §3.1 and App. C, Algorithms 1-3).

A black-box search picks, among the operations of the grammatical-error engine
(:func:`robust_bench.perturb.gec.candidate_operations`: every substitution of every
applicable confusion set, insertions and deletions with ø, Worder swaps), the edits that
change a classifier's prediction, within a budget of 15% of the segment's tokens (§4).

* **Greedy** (Alg. 1): a token's importance is the drop in the probability of the original
  prediction when the token is deleted. Tokens are visited in descending importance; at each,
  all its operations are scored in one batch and the one that lowers that probability most is
  applied (if any lowers it). Stop when the prediction changes or the budget is spent.
* **Beam** (Alg. 2): the same walk, keeping the k = 5 operation streams with the lowest
  probability of the original prediction (global degradation); leaving a position untouched
  is one of the expansions.
* **Genetic** (Alg. 3, after Alzantot et al., 2018): a population of 60 perturbed versions,
  at most ceil(0.23 x segment length) generations; each generation keeps the elite, samples
  parents in proportion to fitness (1 - probability of the original prediction), and makes
  children by uniform crossover of the parents' operations and a mutation that adds a random
  operation.

Queries go through :class:`robust_bench.models.classifiers.Classifier`, so every distinct input is
sent once, and all candidates of a step are scored in one batched call.

Search protocol
---------------
``greedy_search``, ``beam_search`` and ``genetic_search`` are generators with one signature,
``search(state, ops, budget, p0, rng)``, so :func:`attack_many` can drive many attacks at once and
batch their queries across examples:

* each ``yield`` hands out a list of m operation sets (each a ``list[Operation]``, possibly empty
  for the unperturbed segment) to be scored;
* the driver sends back the classifier's probabilities for the m realised inputs, an ndarray of
  float of shape (m, n_labels), rows summing to 1, in the order given;
* the generator returns (``StopIteration.value``) the chosen operations, a ``list[Operation]``
  whose total cost (in tokens, :attr:`Operation.cost`) is at most ``budget`` and whose edits do
  not overlap; the list is empty when no operation lowers the original label's probability.

A search never raises for a hard example; it returns its best operations, and the driver
decides success by the final prediction.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from robust_bench.models.classifiers import Classifier, Input
from robust_bench.perturb.gec import (DELETE, articles_after, crowded, undoes_error, INSERT, SWAP, Operation, Token, apply_edits, candidate_operations,
                                      error_budget)
from robust_bench import RobustBenchError

__all__ = ["SEARCHES", "AttackResult", "AttackTarget", "AttackJournal", "SearchState", "attack", "attack_many",
           "AttackJournalError", "greedy_search", "success_at_budget",
           "beam_search", "genetic_search", "validate_targets"]

SEARCHES = ("greedy", "beam", "genetic")
BEAM_SIZE = 5
POPULATION = 60
GENERATION_FACTOR = 0.23


@dataclass
class AttackTarget:
    """One example to attack.

    Attributes
    ----------
    tokens : list of Token
        The parsed segment that may be edited.
    make_input : callable
        ``(words, spaces, edits) -> model input``: the edited segment put back into the example
        (``edits`` lets a tagging task realign its gold tags).
    label : int
        The gold label (the model predicts it on the clean input, or it is not attacked).
    protected, no_insert_before : set of int
        Tokens that must not change (entities) and positions where nothing may be inserted.
    """

    tokens: list[Token]
    make_input: Callable[[list[str], list[bool], list[dict]], Input]
    label: int
    protected: set[int] = field(default_factory=set)
    no_insert_before: set[int] = field(default_factory=set)
    #: the validated candidate operations (:func:`validate_targets`); ``None``: made when attacked,
    #: with the engine's own checks only
    operations: list[Operation] | None = None
    #: candidates refused by check name (:data:`robust_bench.perturb.checks.CHECKS`)
    refusals: dict = field(default_factory=dict)


@dataclass
class AttackResult:
    """Outcome of one attack.

    Attributes
    ----------
    success : bool
        The prediction changed within the budget.
    edits : list of dict
        The applied operations (on original token indices), as in the corpora.
    words, spaces : list
        The final segment.
    modified : int
        Tokens modified (a swap counts 2).
    budget : int
    queries : int
        Distinct inputs sent to the model for this example.
    p_original, p_final : float
        Probability of the original label before and after.
    prediction : int
        Final predicted label.
    trace : list
        Greedy search only; see :func:`success_at_budget`.
    """

    success: bool
    edits: list[dict]
    words: list[str]
    spaces: list[bool]
    modified: int
    budget: int
    queries: int
    p_original: float
    p_final: float
    prediction: int
    #: greedy only: per visited token, (cost before, largest candidate cost, success after); lets
    #: :func:`success_at_budget` read the outcome at a smaller budget off this run
    trace: list = field(default_factory=list, repr=False)


def _cost(ops: Sequence[Operation]) -> int:
    return sum(op.cost for op in ops)


def _compatible(op: Operation, chosen: Sequence[Operation], sc: "SearchState | None" = None) -> bool:
    """Whether ``op`` can join ``chosen``: no token or gap edited twice, no third edit within two tokens
    of two others (``edit_spread``) and, given the example (``sc``), no a/an left disagreeing with the
    next word's sound (``article_agreement``)."""
    def span(o):
        if o.operation == INSERT:
            return {("gap", o.position)}
        if o.operation == SWAP:
            return {("tok", o.position), ("tok", o.position + 1)}
        return {("tok", o.position)}

    used = set().union(*(span(o) for o in chosen)) if chosen else set()
    if span(op) & used:
        return False
    if crowded([o.as_edit() for o in chosen], op):
        return False
    if sc is not None and undoes_error(sc.t.tokens, [o.as_edit() for o in chosen], op):
        return False
    return sc is None or articles_after(sc.words, sc.spaces, [o.as_edit() for o in chosen], op) <= sc.base_articles


class SearchState:
    """The state a search needs for one example: its target, its words, and its query count.

    Turns operation sets into model inputs (:meth:`inputs`) and counts the distinct inputs of
    this example (:attr:`queries`, Yin et al. 2020 §4 report queries per example).

    Parameters
    ----------
    target : AttackTarget

    Attributes
    ----------
    t : AttackTarget
    words : list of str, shape (n_tokens,)
    spaces : list of bool, shape (n_tokens,)
    queries : int
        Distinct inputs of this example scored so far, the clean one included. An input that
        another example already sent is answered from the classifier's cache but still counts
        here, so the count depends on the search alone, not on which examples ran together.
    """

    def __init__(self, target: AttackTarget):
        self.t = target
        self.words = [x.text for x in target.tokens]
        self.spaces = [x.space for x in target.tokens]
        self.queries = 0
        self._seen: set = set()
        self.trace: list = []
        self.base_articles = articles_after(self.words, self.spaces, [], None)

    def realise(self, ops: Sequence[Operation]) -> tuple[list[str], list[bool]]:
        return apply_edits(self.words, self.spaces, [o.as_edit() for o in ops])

    def inputs(self, op_sets: Sequence[Sequence[Operation]]) -> list:
        out = [self.t.make_input(*self.realise(ops), [o.as_edit() for o in ops]) for ops in op_sets]
        for x in out:
            key = tuple(x) if isinstance(x, list) else x
            if key not in self._seen:
                self._seen.add(key)
                self.queries += 1
        return out


def _result(sc: SearchState, ops: Sequence[Operation], budget: int, p0: float, probs: np.ndarray) -> AttackResult:
    words, spaces = sc.realise(ops)
    pred = int(np.argmax(probs))
    ordered = sorted(ops, key=lambda o: (o.position, o.operation != INSERT))
    return AttackResult(success=pred != sc.t.label, edits=[o.as_edit() for o in ordered], words=words, spaces=spaces,
                        modified=_cost(ops), budget=budget, queries=sc.queries, p_original=p0,
                        p_final=float(probs[sc.t.label]), prediction=pred, trace=list(sc.trace))


def _importance_order(sc: SearchState, p0: float) -> list[int]:
    """Tokens by descending importance: the drop in p(original label) when the token is deleted."""
    n = len(sc.words)
    deletions = [[Operation("importance", DELETE, i, sc.words[i], "")] for i in range(n)]
    p = (yield deletions)[:, sc.t.label] if n else np.zeros(0)
    drop = p0 - p
    return sorted(range(n), key=lambda i: (-drop[i], i))


def _ops_by_position(ops: Sequence[Operation]) -> dict[int, list[Operation]]:
    """Operations grouped by the token they edit; an insertion belongs to the token after the gap
    (an insertion at the end belongs to the last token)."""
    out: dict[int, list[Operation]] = {}
    for op in ops:
        out.setdefault(op.position, []).append(op)
    return out


def greedy_search(sc: SearchState, ops: Sequence[Operation], budget: int, p0: float, rng: random.Random) -> list[Operation]:
    """Greedy search, Yin et al. (2020), Alg. 1; a generator following the search protocol in
    the module docstring.

    Parameters
    ----------
    sc : SearchState
        The example being attacked.
    ops : sequence of Operation
        Every candidate operation (from ``candidate_operations``); none applied yet.
    budget : int
        Most tokens that may be modified (``error_budget``: 15% of the segment, at least 1).
    p0 : float in [0, 1]
        Probability of the original (correct) label on the unperturbed segment.
    rng : random.Random
        Unused by greedy search (deterministic); kept for the common signature.

    Yields
    ------
    list of list of Operation
        First the n single-token deletions (importance, length n_tokens), then per visited
        token the current operations plus each compatible candidate at that token.

    Returns
    -------
    list of Operation
        The operations applied, in the order chosen; cost <= ``budget``.
    """
    by_pos = _ops_by_position(ops)
    n = len(sc.words)
    chosen: list[Operation] = []
    current_p = p0
    for i in (yield from _importance_order(sc, p0)):
        if _cost(chosen) >= budget:
            break
        here = by_pos.get(i, []) + (by_pos.get(n, []) if i == n - 1 else [])
        cands = [o for o in here if _cost(chosen) + o.cost <= budget and _compatible(o, chosen, sc)]
        if not cands:
            continue
        probs = yield [chosen + [o] for o in cands]
        k = int(np.argmin(probs[:, sc.t.label]))
        before = _cost(chosen)
        flipped = False
        if probs[k, sc.t.label] < current_p:
            chosen = chosen + [cands[k]]
            current_p = float(probs[k, sc.t.label])
            flipped = int(np.argmax(probs[k])) != sc.t.label
        sc.trace.append((before, max(o.cost for o in cands), flipped))
        if flipped:
            break
    return chosen


def success_at_budget(result: AttackResult, n_tokens: int, budget_rate: float) -> bool | None:
    """Whether a greedy search would succeed at a smaller budget, read off a run at a larger one.

    A budget only stops the walk earlier, or removes candidates too costly to fit (a swap costs
    2). Until the first visited token where some candidate of the larger run would not fit, the
    two walks are the same, so the outcome is known when the walk succeeds or runs out of budget
    before that token.

    Parameters
    ----------
    result : AttackResult
        A greedy search at a budget at least this one (with its ``trace``).
    n_tokens : int
        Tokens of the attacked segment.
    budget_rate : float in (0, 1]

    Returns
    -------
    bool or None
        ``None`` when the smaller-budget walk may differ (run it to know).
    """
    budget = error_budget(n_tokens, budget_rate)
    if budget > result.budget:
        raise ValueError(f"budget {budget} exceeds the run's budget {result.budget}")
    for before, largest, flipped in result.trace:
        if before >= budget:
            return False
        if before + largest > budget:
            return None
        if flipped:
            return True
    return False


def beam_search(sc: SearchState, ops: Sequence[Operation], budget: int, p0: float, rng: random.Random,
                beam_size: int = BEAM_SIZE) -> list[Operation]:
    """Beam search, Yin et al. (2020), Alg. 2 (beam size 5, App. C); a generator following the
    search protocol in the module docstring.

    Parameters are those of :func:`greedy_search` (``rng`` unused), and ``beam_size`` (int >= 1),
    the operation streams kept after each visited token.

    Yields
    ------
    list of list of Operation
        The importance deletions, then per visited token every expansion of every beam (the beam
        itself, untouched, is one of them): at most ``beam_size * (1 + candidates at the token)``.

    Returns
    -------
    list of Operation
        The first expansion that flips the prediction (lowest original-label probability, then
        fewest edits), else the beam with the lowest original-label probability.
    """
    by_pos = _ops_by_position(ops)
    n = len(sc.words)
    beams: list[tuple[float, list[Operation]]] = [(p0, [])]
    for i in (yield from _importance_order(sc, p0)):
        here = by_pos.get(i, []) + (by_pos.get(n, []) if i == n - 1 else [])
        expansions: list[list[Operation]] = []
        for _, chosen in beams:
            expansions.append(chosen)
            expansions += [chosen + [o] for o in here if _cost(chosen) + o.cost <= budget and _compatible(o, chosen, sc)]
        if len(expansions) == len(beams):
            continue
        probs = yield expansions
        flipped = [k for k in range(len(expansions)) if int(np.argmax(probs[k])) != sc.t.label]
        if flipped:
            k = min(flipped, key=lambda k: (probs[k, sc.t.label], _cost(expansions[k])))
            return expansions[k]
        order = np.argsort(probs[:, sc.t.label], kind="stable")
        seen, new = set(), []
        for k in order:
            key = tuple(sorted((o.position, o.operation, o.replacement) for o in expansions[k]))
            if key in seen:
                continue
            seen.add(key)
            new.append((float(probs[k, sc.t.label]), expansions[k]))
            if len(new) == beam_size:
                break
        beams = new
        if all(_cost(c) >= budget for _, c in beams):
            break
    return min(beams, key=lambda b: b[0])[1]


def genetic_search(sc: SearchState, ops: Sequence[Operation], budget: int, p0: float, rng: random.Random,
                   population: int = POPULATION, generation_factor: float = GENERATION_FACTOR) -> list[Operation]:
    """Genetic search, Yin et al. (2020), Alg. 3, after Alzantot et al. (2018); a generator
    following the search protocol in the module docstring.

    Population 60, at most ceil(0.23 x n_tokens) generations (App. C), elitism,
    fitness-proportional parents (fitness = 1 - p(original label)), uniform crossover, mutation by
    one random compatible operation (or, when the budget is full, by replacing one).

    Parameters are those of :func:`greedy_search`, and ``population`` (int >= 1) and
    ``generation_factor`` (float > 0). ``rng`` drives sampling, so one seed gives one result.

    Yields
    ------
    list of list of Operation
        Each generation's population (length ``population``), and last the final population plus
        the best individual seen.

    Returns
    -------
    list of Operation
        The first individual that flips the prediction (lowest original-label probability, then
        fewest edits), else the one with the lowest original-label probability.
    """
    if not ops:
        return []
    generations = max(1, math.ceil(generation_factor * len(sc.words)))

    def mutate(ind: list[Operation]) -> list[Operation]:
        room = [o for o in ops if _cost(ind) + o.cost <= budget and _compatible(o, ind, sc)]
        if not room:
            if not ind:
                return ind
            # full: replace one operation by another
            ind = list(ind)
            ind.pop(rng.randrange(len(ind)))
            room = [o for o in ops if _cost(ind) + o.cost <= budget and _compatible(o, ind, sc)]
            if not room:
                return ind
        return ind + [rng.choice(room)]

    def crossover(a: list[Operation], b: list[Operation]) -> list[Operation]:
        child: list[Operation] = []
        for o in a + b:
            if rng.random() < 0.5 and _cost(child) + o.cost <= budget and _compatible(o, child, sc) and o not in child:
                child.append(o)
        return child

    pop = [mutate([]) for _ in range(population)]
    best: list[Operation] = []
    for _ in range(generations):
        probs = yield pop
        p = probs[:, sc.t.label]
        flipped = [k for k in range(len(pop)) if int(np.argmax(probs[k])) != sc.t.label]
        if flipped:
            return pop[min(flipped, key=lambda k: (p[k], _cost(pop[k])))]
        elite = int(np.argmin(p))
        best = pop[elite]
        fitness = 1.0 - p
        weights = fitness / fitness.sum() if fitness.sum() > 0 else None
        children = [pop[elite]]
        for _ in range(population - 1):
            pa, pb = rng.choices(range(len(pop)), weights=weights, k=2)
            children.append(mutate(crossover(pop[pa], pop[pb])))
        pop = children
    probs = yield pop + [best]
    k = int(np.argmin(probs[:, sc.t.label]))
    return (pop + [best])[k]


_SEARCH = {"greedy": greedy_search, "beam": beam_search, "genetic": genetic_search}


def validate_targets(targets: Sequence[AttackTarget], checker=None,
                     unsure: Sequence[set[int]] | None = None) -> dict[tuple[int, int, str], str | None]:
    """Give each target its validated operation set, so that the searches draw only valid edits.

    The candidate operations of every target are made once with the engine's checks (a/an by sound,
    known words, common word-choice synonyms, the learner confusion classes, no edits in headlines or
    fixed expressions); then every word-choice substitute of every target is checked in context in
    one batch (``same_tag`` and ``meaning_kept``, :class:`robust_bench.perturb.checks.InContextChecks`)
    and the refused ones are dropped. Refusals are counted on each target by check. Combinations are
    checked during the search (:func:`_compatible`: no a/an disagreement).

    Parameters
    ----------
    targets : sequence of AttackTarget
        Changed in place (``operations``, ``refusals``).
    checker : InContextChecks or None
        ``None`` skips the in-context checks.
    unsure : sequence of set of int, optional
        Per target, the tokens whose word class the second tagger doubts, when the caller has them
        already (:func:`robust_bench.perturb.checks.tag_disagreements` without gold tags, as here).

    Returns
    -------
    dict
        ``(target index, position, replacement) -> check that refused it or None``, for every
        word-choice substitute checked in context (empty without in-context checks); a builder
        that checks the same substitutes reuses them.
    """
    from collections import Counter

    ask = []
    doubts = list(unsure) if unsure is not None else [set() for _ in targets]
    if unsure is None and checker is not None and getattr(checker, "second", None) is not None:
        from robust_bench.perturb.checks import tag_disagreements

        doubts = tag_disagreements(checker.second, [[(x.text, x.tag) for x in t.tokens] for t in targets])
    for k, t in enumerate(targets):
        ref: Counter = Counter()
        t.operations = candidate_operations(t.tokens, protected=t.protected, no_insert_before=t.no_insert_before,
                                            refusals=ref, unsure=doubts[k])
        t.refusals = dict(ref)
        words, spaces, tags = [x.text for x in t.tokens], [x.space for x in t.tokens], [x.tag for x in t.tokens]
        ask += [(k, o, (words, spaces, tags, o.position, o.replacement)) for o in t.operations if o.type == "Wchoice"]
    if not ask or checker is None or not checker.names:
        return {}
    verdicts = checker.refusals([q for _, _, q in ask])
    refused: dict[int, set] = {}
    for (k, op, _), why in zip(ask, verdicts):
        if why:
            refused.setdefault(k, set()).add(op)
            targets[k].refusals[why] = targets[k].refusals.get(why, 0) + 1
    for k, ops in refused.items():
        targets[k].operations = [o for o in targets[k].operations if o not in ops]
    return {(k, op.position, op.replacement): why for (k, op, _), why in zip(ask, verdicts)}


def _attack_gen(target: AttackTarget, search: str, budget_rate: float, seed: int, types):
    """One attack as a generator: it yields lists of operation sets to score and receives their
    probabilities, so many attacks can share batched forward passes (:func:`attack_many`)."""
    from robust_bench.perturb.gec import ERROR_TYPES

    sc = SearchState(target)
    budget = error_budget(len(target.tokens), budget_rate)
    p0 = float((yield sc, [[]])[0][target.label])
    ops = target.operations
    if ops is None:
        ops = candidate_operations(target.tokens, protected=target.protected,
                                   no_insert_before=target.no_insert_before, types=tuple(types or ERROR_TYPES))
    elif types:
        ops = [o for o in ops if o.type in types]
    rng = random.Random(seed)
    if ops and budget:
        inner = _SEARCH[search](sc, ops, budget, p0, rng)
        try:
            req = next(inner)
            while True:
                req = inner.send((yield sc, req))
        except StopIteration as stop:
            chosen = stop.value
    else:
        chosen = []
    final = (yield sc, [chosen])[0]
    return _result(sc, chosen, budget, p0, final)


class _Ready:
    """Probabilities already computed, behind the interface of a pending prediction."""

    def __init__(self, probs: np.ndarray):
        self._probs = probs

    def result(self) -> np.ndarray:
        return self._probs

    def discard(self) -> None:
        pass


class AttackJournalError(RobustBenchError, ValueError):
    """A journal belongs to another attack, or cannot be read."""


class AttackJournal:
    """Finished attacks, one JSON line each, appended (and flushed to disk) as they finish, so a
    killed attack resumes where it was: the first line names the attack (``key``), each further
    line is ``{"k": index, "result": AttackResult}``. A torn last line (a kill mid-write) is cut
    off on reopening.

    Parameters
    ----------
    path : path-like
    key : dict
        What makes two attacks the same (model, data, search, budget, seeds, ...); JSON-able.

    Raises
    ------
    AttackJournalError
        When ``path`` holds the journal of another attack (naming the fields that differ).
    """

    def __init__(self, path, key: dict):
        import json
        import os

        self.path = str(path)
        want = json.loads(json.dumps({"robust_bench_attack_journal": 1, **key}, sort_keys=True))
        self.done: dict[int, AttackResult] = {}
        good = 0
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                raw = f.read()
            for n, line in enumerate(raw.split(b"\n")):
                try:
                    obj = json.loads(line)
                except ValueError:
                    break                      # a torn last line: everything before it stands
                if n == 0:
                    if obj != want:
                        diff = sorted(k for k in set(obj) | set(want) if obj.get(k) != want.get(k))
                        raise AttackJournalError(f"{self.path} is the journal of another attack (differs in {diff}); "
                                         "remove it or run without --resume")
                else:
                    self.done[int(obj["k"])] = AttackResult(**obj["result"])
                good += len(line) + 1
            with open(self.path, "r+b") as f:
                f.truncate(min(good, len(raw)))
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        self._f = open(self.path, "a", encoding="utf-8")
        if not self.done and good == 0:
            self._write(want)

    def _write(self, obj) -> None:
        import json
        import os

        self._f.write(json.dumps(obj, sort_keys=True, allow_nan=False) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def add(self, k: int, result: AttackResult) -> None:
        from dataclasses import asdict

        self._write({"k": k, "result": asdict(result)})

    def close(self) -> None:
        self._f.close()


def attack_many(clf: Classifier, targets: Sequence[AttackTarget], *, search: str = "greedy",
                budget_rate: float = 0.15, seeds: Sequence[int] | None = None, types: Sequence[str] | None = None,
                group: int = 64, progress: bool = False, journal: AttackJournal | None = None,
                overlap: bool | None = None) -> list[AttackResult]:
    """Attack many examples, batching their queries across examples.

    Up to ``group`` attacks run in lockstep: at each step, every candidate that any of them
    wants scored goes into one call of the classifier (which sends each distinct input to the
    model once, in length-sorted batches), and a finished attack's place goes to the next
    example at once. With ``overlap``, the attacks run in two lanes: the model scores one lane's
    batch on a worker thread while the other lane's searches run on this one. Results equal
    those of :func:`attack` run one by one.

    Parameters
    ----------
    clf : Classifier
    targets : sequence of AttackTarget
    search, budget_rate, types
        See :func:`attack`.
    seeds : sequence of int, optional
        One per target; default ``0, 1, 2, ...``.
    group : int
        Attacks run together.
    progress : bool
    journal : AttackJournal, optional
        Attacks already in it are not run again; each newly finished one is added as it finishes.
    overlap : bool, optional
        Overlap the searches' Python work with the forward passes. Default: when ``clf.device``
        is a GPU. On CPU the forward passes need every core: overlapping slowed a greedy attack
        of a MiniLM MRPC classifier on two cores by 5-13% (100 pairs, measured both ways in one
        process).

    Returns
    -------
    list of AttackResult

    Raises
    ------
    ValueError
        On an unknown search.
    """
    if search not in _SEARCH:
        raise ValueError(f"unknown search {search!r}; expected one of {SEARCHES}")
    seeds = list(seeds) if seeds is not None else list(range(len(targets)))
    results: list[AttackResult | None] = [None] * len(targets)
    todo = list(range(len(targets)))
    if journal is not None:
        for k, r in journal.done.items():
            if k < len(targets):
                results[k] = r
        todo = [k for k in todo if results[k] is None]
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(targets), initial=len(targets) - len(todo), desc=f"{search} attack", unit="example")
    # With overlap, two lanes of up to group/2 attacks: while the model scores one lane's batch
    # on a worker thread, this thread feeds the other lane's probabilities to its searches and
    # builds its next batch. A finished attack's place goes to the next example at once, so
    # batches stay full (no tail of a few slow attacks).
    if overlap is None:
        overlap = str(getattr(clf, "device", "cpu")).split(":")[0] in ("cuda", "mps")
    pending = iter(todo)
    lanes: list[dict] = [{}, {}] if overlap and len(todo) > 1 and group > 1 else [{}]
    size = max(1, group // len(lanes))

    def refill(lane: dict) -> None:
        for k in itertools.islice(pending, size - len(lane)):
            gen = _attack_gen(targets[k], search, budget_rate, seeds[k], types)
            sc, req = next(gen)
            lane[k] = (gen, sc, req)

    def submit(lane: dict, executor):
        batch, slices = [], {}
        for k, (gen, sc, req) in lane.items():
            inputs = sc.inputs(req)
            slices[k] = (len(batch), len(inputs))
            batch += inputs
        if executor is None:
            return _Ready(clf.predict_proba(batch)), slices
        return clf.predict_proba_later(batch, executor), slices

    def advance(lane: dict, probs: np.ndarray, slices: dict) -> None:
        for k, (gen, sc, req) in list(lane.items()):
            a, n = slices[k]
            try:
                lane[k] = (gen, *gen.send(probs[a:a + n]))
            except StopIteration as stop:
                del lane[k]
                results[k] = stop.value
                if journal is not None:
                    journal.add(k, stop.value)
                if bar is not None:
                    bar.update(1)
        refill(lane)

    with ThreadPoolExecutor(1, "attack-model") if len(lanes) > 1 else contextlib.nullcontext() as executor:
        for lane in lanes:
            refill(lane)
        flight = [submit(lane, executor) if lane else None for lane in lanes]
        try:
            while any(f is not None for f in flight):
                for j, lane in enumerate(lanes):
                    if flight[j] is not None:
                        waiting, slices = flight[j]
                        flight[j] = None
                        advance(lane, waiting.result(), slices)
                        flight[j] = submit(lane, executor) if lane else None
        finally:
            for f in flight:          # an error in one lane: let the other's forward finish first
                if f is not None:
                    f[0].discard()
    if bar is not None:
        bar.close()
    return results  # type: ignore[return-value]


def attack(clf: Classifier, target: AttackTarget, *, search: str = "greedy", budget_rate: float = 0.15,
           seed: int = 0, types: Sequence[str] | None = None) -> AttackResult:
    """Attack one example.

    Parameters
    ----------
    clf : Classifier
    target : AttackTarget
    search : {"greedy", "beam", "genetic"}
    budget_rate : float
        Share of the segment's tokens that may be modified (0.15 in §4).
    seed : int
        For the genetic search and tie-breaking.
    types : sequence of str, optional
        Error types to use (default all eight).

    Returns
    -------
    AttackResult

    Raises
    ------
    ValueError
        On an unknown search.
    """
    return attack_many(clf, [target], search=search, budget_rate=budget_rate, seeds=[seed], types=types)[0]
