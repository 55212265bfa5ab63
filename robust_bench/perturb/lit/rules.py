"""LIT label rules (Li et al., 2020, Table 1 and §4.1.1): how a transformation changes an NLI label.

The engine uses them to label contrast pairs; the consistency metric applies them to a model's own
predictions on the original pairs.
"""

from __future__ import annotations

__all__ = ["NLI_LABEL_RULES", "apply_label_rule"]

#: LIT label rules (Li et al., 2020, Table 1 and §4.1.1) over NLI label indices
#: 0 = entailment, 1 = neutral, 2 = contradiction. ``negation`` (a negated hypothesis) is
#: robust-bench's addition: it is defined only where the logic is sound (P |= H implies P
#: contradicts not-H; neutral stays neutral); annotated contradictions are often not logical
#: ones, so contradiction has no image.
NLI_LABEL_RULES: dict[str, dict[int, int]] = {
    "preserve": {0: 0, 1: 1, 2: 2},
    "to_neutral": {0: 1, 1: 1, 2: 1},
    "negation": {0: 2, 1: 1},
}


def apply_label_rule(rule: str, label: int) -> int | None:
    """The new label of a transformed pair under a LIT label rule.

    Parameters
    ----------
    rule : str
        ``preserve``, ``to_neutral`` or ``negation`` (see :data:`NLI_LABEL_RULES`).
    label : int
        Index into (entailment, neutral, contradiction).

    Returns
    -------
    int or None
        The new label index; ``None`` where the rule is undefined (``negation`` of contradiction).

    Raises
    ------
    ValueError
        For an unknown rule or label.

    Examples
    --------
    >>> apply_label_rule("to_neutral", 0), apply_label_rule("preserve", 2), apply_label_rule("negation", 0)
    (1, 2, 2)
    """
    if rule not in NLI_LABEL_RULES:
        raise ValueError(f"unknown label rule {rule!r}; known: {sorted(NLI_LABEL_RULES)}")
    label = int(label)
    if label not in (0, 1, 2):
        raise ValueError(f"label {label} is not an NLI label index (0 entailment, 1 neutral, 2 contradiction)")
    return NLI_LABEL_RULES[rule].get(label)
