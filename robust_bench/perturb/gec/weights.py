"""The error-type distribution and substitution weights w_ij of the probabilistic transformation
(:class:`Confusions`, Yin et al. 2020, §3.1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from robust_bench.perturb.gec.sets import CONFUSION_SETS, DELETE, ERROR_TYPES, INSERT, LEARNER_CONFUSIONS
from robust_bench.perturb.gec.tokens import Operation


@dataclass
class Confusions:
    """Error-type distribution and substitution weights.

    Attributes
    ----------
    type_distribution : dict of str to float, or None
        Probability of each error type; ``None`` is uniform over the applicable types.
    weights : dict of str to dict of str to dict of str to float
        ``weights[type][source][target]`` = w_ij for the confusion-set types; ``""`` is ø.
        Missing entries are uniform.
    source : str
        Where the estimates come from (``"uniform"`` or the M2 file and its SHA-256).
    """

    type_distribution: dict[str, float] | None = None
    weights: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    source: str = "uniform"

    @property
    def uniform_weights(self) -> bool:
        """No substitution weights: every operation of a type is equally likely."""
        return not any(self.weights.values())

    def type_weight(self, kind: str) -> float:
        if self.type_distribution is None:
            return 1.0
        return float(self.type_distribution.get(kind, 0.0))

    def op_weight(self, op: Operation) -> float:
        """w_ij of an operation: the fitted share of its (source, target) pair. A type without
        fitted weights, or a source token with no fitted row (never seen corrected in the M2
        data), falls back to uniform weights (1.0); a fitted row gives unseen targets weight 0."""
        table = self.weights.get(op.type)
        if not table:
            return 1.0
        src = "" if op.operation == INSERT else op.original.lower()
        tgt = "" if op.operation == DELETE else op.replacement.lower()
        row = table.get(src)
        if row is None:
            return 1.0
        return float(row.get(tgt, 0.0))

    @classmethod
    def learner_default(cls) -> "Confusions":
        """The default: uniform type distribution, :data:`LEARNER_CONFUSIONS` for Prep and Trans."""
        import copy

        return cls(type_distribution=None, weights=copy.deepcopy(LEARNER_CONFUSIONS),
                   source="robust-bench learner confusion classes (LEARNER_CONFUSIONS)")

    def to_json(self) -> dict:
        return {"source": self.source, "type_distribution": self.type_distribution, "weights": self.weights}

    @classmethod
    def from_json(cls, data: Mapping) -> "Confusions":
        """Build from the JSON written by ``robust-bench fit-confusions``.

        Raises
        ------
        ValueError
            On unknown error types or negative weights.
        """
        dist = data.get("type_distribution")
        if dist is not None:
            bad = [k for k in dist if k not in ERROR_TYPES]
            if bad or any(v < 0 for v in dist.values()):
                raise ValueError(f"type_distribution: unknown types {bad} or negative probabilities")
        weights = data.get("weights") or {}
        bad = [k for k in weights if k not in CONFUSION_SETS]
        if bad:
            raise ValueError(f"weights: {bad} are not confusion-set types ({', '.join(CONFUSION_SETS)})")
        return cls(type_distribution=dist, weights=weights, source=str(data.get("source", "file")))
