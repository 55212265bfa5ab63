"""LIT label rules (Li et al., 2020, Table 1 and §4.1.1): how a transformation changes an NLI label.

The engine uses them to label contrast pairs; the consistency metric applies them to a model's own
predictions on the original pairs.
"""

from __future__ import annotations

__all__ = ["NLI_LABEL_RULES", "apply_label_rule"]

#: LIT label rules (Li et al., 2020, Table 1 and §4.1.1) over NLI label indices
#: 0 = entailment, 1 = neutral, 2 = contradiction: the new label of a transformed pair for each
#: original label where the rule is sound. Which original labels a config actually builds is
#: decided per code (:data:`robust_bench.perturb.lit.pairs.PAIR_TRANSFORMATIONS`): the
#: paper-comparable configs build only the labels the authors built.
#:
#: * ``preserve``: clefts and passives keep truth conditions (i;i, pa;pa, i;pa, i;o, pa;o).
#: * ``to_neutral``: *may* weakens the premise so it no longer settles the hypothesis (m;o);
#:   events at different times are not the same event (p;f, f;p and their compositions).
#: * ``possibility``: *may* on both sides (m;m, m+pa;m+pa). If P entails H then "may P" entails
#:   "may H" (possibility is monotone: from necessarily (P -> H) follows possibly P -> possibly H,
#:   the K theorem of modal logic); a neutral pair stays neutral; two contradictory sentences can
#:   both be possible, so contradiction becomes neutral.
#: * ``contraposition``: both sentences negated and swapped (n;n): if P entails H, not-H entails
#:   not-P. Defined for entailment only.
#: * ``negation``: robust-bench's o;n (a negated hypothesis): P entails H implies P contradicts
#:   not-H; neutral stays neutral; annotated contradictions are often not logical ones (SNLI
#:   assumes both sentences describe one scene), so contradiction has no image.
NLI_LABEL_RULES: dict[str, dict[int, int]] = {
    "preserve": {0: 0, 1: 1, 2: 2},
    "to_neutral": {0: 1, 1: 1, 2: 1},
    "possibility": {0: 0, 1: 1, 2: 1},
    "contraposition": {0: 0},
    "negation": {0: 2, 1: 1},
}


def apply_label_rule(rule: str, label: int) -> int | None:
    """The new label of a transformed pair under a LIT label rule.

    Parameters
    ----------
    rule : str
        A key of :data:`NLI_LABEL_RULES`: ``preserve``, ``to_neutral``, ``possibility``,
        ``contraposition`` or ``negation``.
    label : int
        Index into (entailment, neutral, contradiction).

    Returns
    -------
    int or None
        The new label index; ``None`` where the rule is undefined (``negation`` of
        contradiction, ``contraposition`` of anything but entailment).

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
