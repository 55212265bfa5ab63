"""The probabilistic transformation of Yin et al. (2020, §3.1): the error budget and
:func:`perturb`, which samples an error type, a position and an operation until the budget is spent."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Collection, Iterable, MutableMapping, Sequence

from robust_bench.perturb.gec.candidates import _default_confusions, _site_ops, candidate_operations
from robust_bench.perturb.gec.edits import _articles, apply_edits, articles_after, crowded, undoes_error
from robust_bench.perturb.gec.lexical import _LAZY, _count
from robust_bench.perturb.gec.sets import ERROR_TYPES, INSERT, SWAP
from robust_bench.perturb.gec.tokens import Operation, Token
from robust_bench.perturb.gec.weights import Confusions


def error_budget(n_tokens: int, error_rate: float) -> int:
    """Tokens that may be modified: ``round(error_rate * n_tokens)``, at least 1 for a
    non-empty segment (Yin et al., §4: 15% of the tokens)."""
    if n_tokens <= 0:
        return 0
    return max(1, int(round(error_rate * n_tokens)))


@dataclass(frozen=True)
class PerturbationResult:
    """Output of :func:`perturb`."""

    tokens: tuple[str, ...]
    spaces: tuple[bool, ...]
    edits: tuple[dict, ...]
    budget: int
    modified: int
    reason: str | None = None
    #: Word-choice candidates that passed the engine's checks at each word-choice site resolved
    #: (at most ten each; "ten synonyms", Table 1).
    wchoice_candidates: tuple[int, ...] = ()


def _site_free(site: tuple[str, int], touched: set[int], gaps: set[int]) -> bool:
    where, i = site
    return i not in gaps if where.startswith("gap") else i not in touched


def _conflicts(op: Operation, touched: set[int], gaps: set[int]) -> bool:
    if op.operation == INSERT:
        return op.position in gaps
    if op.operation == SWAP:
        return op.position in touched or op.position + 1 in touched
    return op.position in touched


def perturb(tokens: Sequence[Token], rng: random.Random, *, error_rate: float = 0.15,
            confusions: Confusions | None = None, protected: Iterable[int] = (),
            no_insert_before: Iterable[int] = (), types: Sequence[str] = ERROR_TYPES,
            banned: Collection[tuple[str, int, str]] = (), refusals: MutableMapping[str, int] | None = None,
            unsure: Iterable[int] = ()) -> PerturbationResult:
    """The probabilistic transformation of Yin et al. (2020, §3.1).

    Repeat until the budget (:func:`error_budget`) is spent or nothing applies: sample an error
    type among those applicable (by the type distribution), a position for it (uniformly), and an
    operation there (by the substitution weights). Each token is modified at most once.

    Parameters
    ----------
    tokens : sequence of Token
    rng : random.Random
        Seeded per example.
    error_rate : float
        Share of tokens to modify, in (0, 1]; 0.15 in the paper's settings (§4).
    confusions : Confusions, optional
        Default :meth:`Confusions.learner_default`.
    protected, no_insert_before, types
        See :func:`candidate_operations`.
    banned : collection of (type, position, replacement)
        Operations refused by a check run outside the engine (the builder's in-context checks on
        word-choice substitutes); they are never drawn. The same ``rng`` seed with more bans gives
        the same draws up to the first banned one.
    unsure : iterable of int
        See :func:`candidate_operations`.
    refusals : mutable mapping of str to int, optional
        Counts candidates refused by the engine's checks, by check name
        (:data:`robust_bench.perturb.checks.CHECKS`): ``known_word`` and ``frequency_floor`` when a
        site's operations are made, ``article_agreement`` when a drawn operation would leave a/an
        disagreeing with the next word.

    Returns
    -------
    PerturbationResult
        ``reason`` says why no error could be placed, when none was.

    Raises
    ------
    ValueError
        If ``error_rate`` is outside (0, 1].
    """
    if not 0 < error_rate <= 1:
        raise ValueError(f"error_rate must be in (0, 1], got {error_rate}")
    conf = confusions if confusions is not None else _default_confusions()
    banned = set(banned)
    words = [t.text for t in tokens]
    spaces = [t.space for t in tokens]
    budget = error_budget(len(tokens), error_rate)
    if not tokens:
        return PerturbationResult((), (), (), 0, 0, "empty segment")
    ops, lazy = _operations_and_sites(tokens, set(protected), no_insert_before, types, unsure)
    if not ops and not lazy:
        return PerturbationResult(tuple(words), tuple(spaces), (), budget, 0, "no applicable operation")
    by_type: dict[str, list[Operation]] = {}
    for op in ops:
        by_type.setdefault(op.type, []).append(op)
    touched: set[int] = set()
    gaps: set[int] = set()
    spent = 0
    edits: list[dict] = []
    base_articles = len(_articles(words))
    wchoice_sizes: list[int] = []
    uniform = conf.uniform_weights
    dead: set[str] = set()
    while spent < budget:
        avail = _available(conf, uniform, lazy, by_type, dead, touched, gaps, budget - spent)
        if not avail:
            break
        kinds = list(avail)
        kind = rng.choices(kinds, weights=[conf.type_weight(k) for k in kinds])[0]
        if kind in lazy:
            cands = _drawn_site_ops(tokens, rng, kind, lazy[kind], conf, uniform, banned, touched, gaps, refusals,
                                    wchoice_sizes)
            if cands is None:
                dead.add(kind)
                continue
        else:
            positions = sorted({op.position for op in avail[kind]})
            pos = rng.choice(positions)
            cands = [op for op in avail[kind] if op.position == pos]
        op = rng.choice(cands) if uniform else rng.choices(cands, weights=[conf.op_weight(o) for o in cands])[0]
        refused = _refusal(tokens, words, spaces, edits, op, base_articles)
        if refused is not None:
            _count(refusals, refused)
            cands.remove(op)
            if kind not in lazy:
                by_type[kind].remove(op)
            continue
        edits.append(op.as_edit())
        spent += op.cost
        _mark(op, touched, gaps)
    if not edits and not ops and not any(v for table in lazy.values() for v in table.values()):
        return PerturbationResult(tuple(words), tuple(spaces), (), budget, 0, "no applicable operation")
    new_words, new_spaces = apply_edits(words, spaces, edits)
    reason = None if edits else "no operation fits the budget"
    return PerturbationResult(tuple(new_words), tuple(new_spaces), tuple(edits), budget, spent, reason,
                              tuple(wchoice_sizes))


def _operations_and_sites(tokens: Sequence[Token], prot: set[int], no_insert_before: Iterable[int],
                          types: Sequence[str], unsure: Iterable[int]):
    """The eager operations (Worder's swaps), and per lazily resolved type its sites, each still unresolved
    (``None``); types without sites are left out."""
    # Nn, SVA, Vform and Wchoice need a lemminflect or WordNet look-up per position, the engine's
    # main cost, so their positions are resolved only when drawn: a drawn position without an
    # operation is dropped and another drawn; a type left without positions is dropped and the
    # type drawn again. This rejection sampling picks types and positions with exactly the
    # probabilities of generating all operations upfront.
    # Confusion-set types are resolved per site in the same way (a site always has operations,
    # so nothing is rejected there unless fitted weights rule all of them out).
    lazy: dict[str, dict[tuple[str, int], list[Operation] | None]] = {
        kind: {("tok", i): None for i in _LAZY[kind][0](tokens, prot | set(unsure))} for kind in types if kind in _LAZY}
    eager_types = [t for t in types if t not in _LAZY]
    ops, sites = candidate_operations(tokens, protected=prot, no_insert_before=no_insert_before, types=eager_types,
                                      sites_only=True, unsure=unsure)
    for kind, where, i in sites:
        lazy.setdefault(kind, {})[(where, i)] = None
    lazy = {k: v for k, v in lazy.items() if v}
    return ops, lazy


def _available(conf: Confusions, uniform: bool, lazy: dict, by_type: dict[str, list[Operation]], dead: set[str],
               touched: set[int], gaps: set[int], left: int) -> dict[str, list[Operation] | None]:
    """The types that can still place an edit within ``left`` tokens of budget: for an eager type its
    operations that fit, for a lazy one ``None`` (it has a free site not yet found empty)."""
    avail: dict[str, list[Operation] | None] = {}
    for kind in ERROR_TYPES:
        if conf.type_weight(kind) <= 0 or kind in dead:
            continue
        if kind in lazy:
            # lazily resolved operations are single-token edits (cost 1)
            if any(_site_free(site, touched, gaps) and (v is None or v) for site, v in lazy[kind].items()):
                avail[kind] = None
            continue
        lst = by_type.get(kind)
        if not lst:
            continue
        ok = [op for op in lst if op.cost <= left and not _conflicts(op, touched, gaps)
              and (uniform or conf.op_weight(op) > 0)]
        if ok:
            avail[kind] = ok
    return avail


def _drawn_site_ops(tokens: Sequence[Token], rng: random.Random, kind: str,
                    table: dict[tuple[str, int], list[Operation] | None], conf: Confusions, uniform: bool,
                    banned: set, touched: set[int], gaps: set[int], refusals: MutableMapping[str, int] | None,
                    wchoice_sizes: list[int]) -> list[Operation] | None:
    """A lazy type's operations at a site drawn among its free ones, resolved when first drawn (a site
    without operations is dropped and another drawn); None when no free site has any."""
    cands = None
    while True:
        open_sites = [st for st, v in table.items() if _site_free(st, touched, gaps) and (v is None or v)]
        if not open_sites:
            break
        site = rng.choice(open_sites)
        if table[site] is None:
            where, i = site
            made = (_LAZY[kind][1](tokens[i], i, refusals, tokens) if kind in _LAZY
                    else _site_ops(tokens, (kind, where, i)))
            table[site] = [o for o in made if (uniform or conf.op_weight(o) > 0)
                           and (o.type, o.position, o.replacement) not in banned]
            if kind == "Wchoice":
                wchoice_sizes.append(len(table[site]))
        if table[site]:
            cands = table[site]
            break
    return cands


def _refusal(tokens: Sequence[Token], words: Sequence[str], spaces: Sequence[bool], edits: Sequence[dict],
             op: Operation, base_articles: int) -> str | None:
    """The check that refuses a drawn operation, if one does."""
    if undoes_error(tokens, edits, op):
        # together with an earlier edit it makes correct English with another meaning ("the companies
        # want" -> "the company wants", "a plan" -> "the plans")
        return "still_an_error"
    if crowded(edits, op):
        # a third edit within two tokens of two others ("a spur of the moment" -> "spurs moment")
        return "edit_spread"
    if articles_after(words, spaces, edits, op) > base_articles:
        # the edit would leave a/an before a word of the other sound ("an mechanism", "a effort")
        return "article_agreement"
    return None


def _mark(op: Operation, touched: set[int], gaps: set[int]) -> None:
    """Record the tokens (or the gap) an applied operation modified."""
    if op.operation == INSERT:
        gaps.add(op.position)
    elif op.operation == SWAP:
        touched.update((op.position, op.position + 1))
    else:
        touched.add(op.position)
