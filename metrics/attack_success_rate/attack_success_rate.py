"""Attack success rate (Yin et al., 2020): successful attacks over attacked examples. Lower is more robust."""

import datasets
import evaluate

from robust_bench.scoring import attack_success_rate
from robust_bench.data.citations import YIN_2020

_CITATION = YIN_2020

_DESCRIPTION = """\
Attack success rate is the fraction of attacked examples whose prediction an adversarial attack
changed. Only examples that the model predicted correctly before the attack are attacked (Yin et
al., 2020, §3.3). Range [0, 1]. Unlike most scores, LOWER IS BETTER: 0 means the model resisted
every attack.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `int`): the model's label after the attack, one per attacked example.
    references (`list` of `int`): the gold label (which the model predicted before the attack).
Returns:
    attack_success_rate (`float`): in [0, 1]; lower is more robust.
    attacked (`int`), successes (`int`).
Raises:
    ValueError: when nothing was attacked.
Examples:
    >>> import evaluate
    >>> asr = evaluate.load("metrics/attack_success_rate")
    >>> asr.compute(predictions=[0, 2, 1, 1], references=[0, 1, 1, 2])["attack_success_rate"]
    0.5
    >>> asr.compute(predictions=[1, 1], references=[1, 1])
    {'attack_success_rate': 0.0, 'attacked': 2, 'successes': 0}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class AttackSuccessRate(evaluate.Metric):
    """Attack success rate as an `evaluate` metric; the logic is `robust_bench.scoring.attack_success_rate`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}),
            reference_urls=["https://aclanthology.org/2020.acl-main.310"],
        )

    def _compute(self, predictions, references):
        rate = attack_success_rate(predictions=predictions, references=references)
        return {"attack_success_rate": rate, "attacked": len(references),
                "successes": int(sum(p != r for p, r in zip(predictions, references)))}


def _common_test_inputs(rng):
    """Random valid inputs for the common metric tests (tests/test_metrics_common.py)."""
    import numpy as np

    refs = rng.integers(0, 3, size=40)
    preds = np.where(rng.random(40) < 0.4, (refs + 1) % 3, refs)
    return {"predictions": list(preds), "references": list(refs)}
