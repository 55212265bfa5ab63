"""Consistency on LIT contrast sets (Li et al., 2020, §4.1.3)."""

import datasets
import evaluate

from robust_bench.data.citations import LI_2020
from robust_bench.scoring import consistency_details

_CITATION = LI_2020

_DESCRIPTION = """\
Consistency is the fraction of dual instances (an original NLI pair and its transformed contrast
pair) on which the model's prediction for the transformed pair equals the LIT label rule applied to
the model's own prediction for the original pair (Li et al., 2020, §4.1.3). For label-preserving
rules (it-cleft, passive) that is the same prediction; for `to_neutral` rules (modality, tense
mismatch) an entailment or contradiction prediction must become neutral; for `possibility` (may on
both sides) entailment stays and contradiction becomes neutral; for `contraposition` (both negated
and swapped) entailment stays. Range [0, 1], higher is better. Instances whose original prediction
the rule leaves undefined (`negation` of contradiction, `contraposition` of anything but
entailment) are excluded and counted.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `int`): predictions on the transformed pairs, indices into
        (entailment, neutral, contradiction).
    original_predictions (`list` of `int`): predictions on the original pairs, same indices.
    rules (`list` of `str`): the label rule of each dual instance: `preserve`, `to_neutral`, `possibility`,
        `contraposition` or `negation`.
Returns:
    consistency (`float`): in [0, 1], higher is better (NaN if no instance counts).
    instances (`int`): dual instances counted; excluded (`int`): instances the rule leaves undefined.
Raises:
    ValueError: for unequal lengths, an unknown rule or a label index outside 0-2.
Examples:
    >>> import evaluate
    >>> consistency = evaluate.load("metrics/consistency")
    >>> consistency.compute(predictions=[1, 0, 1, 1], original_predictions=[0, 0, 1, 2],
    ...                     rules=["to_neutral", "to_neutral", "preserve", "preserve"])["consistency"]
    0.5
    >>> consistency.compute(predictions=[2, 1], original_predictions=[0, 2], rules=["negation", "negation"])
    {'consistency': 1.0, 'instances': 1, 'excluded': 1}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Consistency(evaluate.Metric):
    """Consistency as an `evaluate` metric; the logic is `robust_bench.scoring.consistency_details`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("int64"),
                                        "original_predictions": datasets.Value("int64"),
                                        "rules": datasets.Value("string")}),
            reference_urls=["https://aclanthology.org/2020.blackboxnlp-1.12"],
        )

    def _compute(self, predictions, original_predictions, rules):
        return consistency_details(original_predictions, predictions, rules)


def _common_test_inputs(rng):
    """Random valid inputs for the common metric tests (tests/test_metrics_common.py)."""
    import numpy as np

    orig = rng.integers(0, 3, size=40)
    rules = rng.choice(["preserve", "to_neutral", "possibility", "contraposition", "negation"], size=40)
    preds = np.where(rng.random(40) < 0.6, orig, rng.integers(0, 3, size=40))
    return {"predictions": list(preds), "original_predictions": list(orig), "rules": list(rules)}
