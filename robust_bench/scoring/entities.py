"""Entity-level counts of IOB2 tag sequences, from which entity F1 is 2Σtp / (2Σtp + Σfp + Σfn)
(the grammatical-error attacks on CoNLL-2003, Yin et al., 2020, Table 3; name swaps on CoNLL-2003,
Balasubramanian et al., 2020, Table 3). Entities are found as seqeval finds them."""

from __future__ import annotations

from typing import Sequence

__all__ = ["entity_counts"]


def entity_counts(gold: Sequence[str], pred: Sequence[str]) -> tuple[int, int, int]:
    """True positive, false positive and false negative entities of one sentence.

    Parameters
    ----------
    gold, pred : sequence of str of shape (n_tokens,)
        IOB2 tags; entities as :func:`seqeval.metrics.sequence_labeling.get_entities` reads them
        (type, start, end), so a pooled 2Σtp / (2Σtp + Σfp + Σfn) is seqeval's micro F1.

    Returns
    -------
    (int, int, int)
        Entities in both, in ``pred`` only, in ``gold`` only.

    Examples
    --------
    >>> entity_counts(["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "I-PER", "O", "B-ORG"])
    (1, 1, 1)
    """
    from seqeval.metrics.sequence_labeling import get_entities

    g, p = set(get_entities(list(gold))), set(get_entities(list(pred)))
    return len(g & p), len(p - g), len(g - p)
