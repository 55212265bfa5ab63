"""Distinct variants of a group (issue 53): Balasubramanian et al. (2020, Algorithm 1) take D_worst and
D_best over B *different* swaps of each example; a group whose variants repeat one text measures fewer
draws than B says. The builder draws candidate plans one after another (each from its own seed stream)
and keeps a candidate only when its text is new; where fewer than B distinct texts exist, the group has
fewer variants, and the card counts them (mean and minimum per group)."""

from __future__ import annotations

from typing import Any, Callable, Hashable

#: Candidate draws per wanted variant: a group stops after ``ATTEMPTS_PER_VARIANT * B`` draws.
ATTEMPTS_PER_VARIANT = 3


def distinct_variants(attempt: Callable[[int], tuple[Hashable, Any]], budget: int, original: Hashable, *,
                      max_attempts: int | None = None, patience: int | None = None) -> list[Any]:
    """Up to ``budget`` candidates whose texts differ from each other and from the original.

    Parameters
    ----------
    attempt : callable
        ``attempt(k)`` for k = 1, 2, ... returns ``(text_key, payload)``: the candidate's text (any
        hashable: a pair of sentences, a token tuple) and what the caller writes for it. Deterministic
        in ``k`` (seeded from the group and ``k``), so the same seed keeps the same variants.
    budget : int
        B, the variants wanted (at least 1).
    original : hashable
        The original's text key: a candidate equal to it changed nothing.
    max_attempts : int, optional
        Draws at most (default :data:`ATTEMPTS_PER_VARIANT` times ``budget``).
    patience : int, optional
        Stop after this many draws in a row without a new text (default ``budget``): the group has no
        more distinct swaps to give.

    Returns
    -------
    list
        The payloads of the distinct candidates, in the order drawn. When no candidate differs from the
        original, the first candidate alone (an identical variant, which records why nothing was
        swapped); empty only when ``max_attempts`` is 0.

    Raises
    ------
    ValueError
        If ``budget`` < 1.
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    max_attempts = ATTEMPTS_PER_VARIANT * budget if max_attempts is None else max_attempts
    patience = budget if patience is None else patience
    seen = {original}
    out: list[Any] = []
    first = None
    stale = 0
    for k in range(1, max_attempts + 1):
        key, payload = attempt(k)
        if first is None:
            first = (payload,)
        if key in seen:
            stale += 1
            if stale >= patience:
                break
            continue
        seen.add(key)
        out.append(payload)
        stale = 0
        if len(out) >= budget:
            break
    if not out and first is not None:
        out.append(first[0])
    return out


def variant_counts(rows) -> dict[str, float | int]:
    """How many swapped variants each group has, and how many variants are identical to their original,
    for the card (issue 53).

    Parameters
    ----------
    rows : iterable of (str, int, bool)
        Per row: group id, variant number (0 is the original) and whether its text equals the original's.

    Returns
    -------
    dict
        ``variants_per_group_mean``, ``variants_per_group_min``, ``variants_per_group_max`` (over groups
        with a variant; 0 without any) and ``identical_variants`` (non-original rows equal to their
        original).
    """
    per_group: dict[str, int] = {}
    identical = 0
    for group, variant, same in rows:
        per_group.setdefault(group, 0)
        if variant == 0:
            continue
        per_group[group] += 1
        identical += bool(same)
    counts = [c for c in per_group.values() if c]
    return {"variants_per_group_mean": round(sum(counts) / len(counts), 2) if counts else 0,
            "variants_per_group_min": min(counts) if counts else 0,
            "variants_per_group_max": max(counts) if counts else 0,
            "identical_variants": identical}
