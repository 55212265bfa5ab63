"""DSpr: distance Spearman correlation (Hewitt & Manning, 2019)."""

import datasets
import evaluate

from robust_bench.scoring import dspr_details
from robust_bench.data.citations import HEWITT_MANNING_2019

_CITATION = HEWITT_MANNING_2019

_DESCRIPTION = """\
DSpr scores predicted word-pair distances against gold tree distances. For each word, the
Spearman correlation between its row of predicted distances and its row of gold tree
distances is computed; correlations are averaged over all sentences of the same length, and
the per-length means are averaged over lengths 5-50 (Hewitt & Manning, 2019, §3.1). Every
word takes part, punctuation included, as in their reporter.py. Range [-1, 1]; higher is
better. Sentences outside the length range are excluded and counted; a predicted row with no
variation has no defined correlation and counts as 0 (also counted), so no NaN is returned.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of distance matrices): shape (n_words, n_words) per sentence.
    references (`list` of `list` of `int`): 1-based gold heads, 0 for the root, shape (n_words,).
    min_length (`int`, default 5), max_length (`int`, default 50): inclusive length range scored.
Returns:
    dspr (`float`): in [-1, 1], higher is better.
    n_sentences (`int`): sentences scored; n_excluded (`int`): sentences outside the length range;
    n_constant_rows (`int`): predicted rows without variation (scored as 0).
Raises:
    ValueError: on shape mismatches, NaN distances, or when no sentence has a length in range.
Examples:
    >>> import evaluate
    >>> dspr = evaluate.load("metrics/dspr")
    >>> heads = [0, 1, 2, 3, 4]                                  # a chain: word k+1 depends on word k
    >>> predicted = [[abs(i - j) ** 2 for j in range(5)] for i in range(5)]  # monotone in the tree distance
    >>> dspr.compute(predictions=[predicted], references=[heads])["dspr"]
    1.0
    >>> dspr.compute(predictions=[predicted], references=[[2, 0, 2, 2, 4]])["dspr"] < 1.0
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Dspr(evaluate.Metric):
    """DSpr as an `evaluate` metric; the logic is `robust_bench.scoring.dspr_details`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "predictions": datasets.Sequence(datasets.Sequence(datasets.Value("float64"))),
                "references": datasets.Sequence(datasets.Value("int32")),
            }),
            reference_urls=["https://aclanthology.org/N19-1419",
                            "https://github.com/john-hewitt/structural-probes"],
        )

    def _compute(self, predictions, references, min_length=5, max_length=50):
        r = dspr_details(references, predictions, min_length=min_length, max_length=max_length)
        return {"dspr": r.score, "n_sentences": r.n_sentences, "n_excluded": r.n_excluded,
                "n_constant_rows": r.n_constant_rows}


def _common_test_inputs(rng):
    """Random valid inputs for the common metric tests (tests/test_metrics_common.py)."""
    from robust_bench.text.trees import random_tree, tree_distances

    heads = [random_tree(rng, int(rng.integers(5, 20))) for _ in range(12)]
    preds = [tree_distances(h) + rng.normal(0, 0.7, (len(h), len(h))) for h in heads]
    preds = [(p + p.T) / 2 for p in preds]
    kw = {"predictions": preds, "references": heads}
    return kw
