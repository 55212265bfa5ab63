"""UUAS: undirected unlabelled attachment score (Hewitt & Manning, 2019)."""

import datasets
import evaluate

from robust_bench.scoring import punctuation_masks, uuas_counts
from robust_bench.data.citations import HEWITT_MANNING_2019

_CITATION = HEWITT_MANNING_2019

_DESCRIPTION = """\
UUAS is the fraction of gold undirected dependency edges that a predicted tree recovers,
micro-averaged over all edges of the corpus. The predicted tree is given either as heads or
as a matrix of predicted distances, decoded with a minimum spanning tree. Punctuation words
are excluded: by their PTB XPOS tag ('' , . : `` -LRB- -RRB-) when XPOS tags are given, as in
Hewitt & Manning (2019, reporter.py), else by UPOS PUNCT; the output names the rule used. The
gold edges are the minimum spanning tree of gold tree distances over the remaining words,
exactly as in Hewitt & Manning (2019, §3.1, reporter.py).
Range [0, 1]; higher is better; 1 means every gold edge is found.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of per-sentence predictions): either distance matrices of shape
        (n_words, n_words) (list of lists of floats) or 1-based predicted heads of shape (n_words,).
    references (`list` of `list` of `int`): 1-based gold heads, 0 for the root, shape (n_words,).
    upos (`list` of `list` of `str`): UPOS tags, shape (n_words,).
    xpos (`list` of `list` of `str`, optional): PTB tags, shape (n_words,). When every word has
        one, punctuation is found by XPOS (Hewitt & Manning's rule); otherwise by UPOS PUNCT.
    exclude_punctuation (`bool`, default True): set False to score every word.
Returns:
    uuas (`float`): fraction in [0, 1], higher is better.
    correct (`int`), total (`int`): gold edges recovered and scored.
    n_sentences (`int`): sentences with at least one scored edge; n_skipped (`int`): the others.
    punctuation_rule (`str`): "xpos-ptb", "upos-punct" or "none".
Raises:
    ValueError: on shape mismatches or when no sentence has an edge to score.
Examples:
    >>> import evaluate
    >>> uuas = evaluate.load("metrics/uuas")
    >>> results = uuas.compute(predictions=[[3, 0, 2]], references=[[2, 0, 2]], upos=[["NOUN", "VERB", "NOUN"]])
    >>> results["uuas"]
    0.5
    >>> distances = [[[0.0, 1.0, 3.0, 9.0], [1.0, 0.0, 2.0, 9.0], [3.0, 2.0, 0.0, 9.0], [9.0, 9.0, 9.0, 0.0]]]
    >>> uuas.compute(predictions=distances, references=[[2, 0, 2, 2]], upos=[["NOUN", "VERB", "NOUN", "PUNCT"]])["uuas"]
    1.0
"""

_UPOS = datasets.Sequence(datasets.Value("string"))
_HEADS = datasets.Sequence(datasets.Value("int32"))


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Uuas(evaluate.Metric):
    """UUAS as an `evaluate` metric; the logic is `robust_bench.scoring.uuas_counts`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features({"predictions": datasets.Sequence(datasets.Sequence(datasets.Value("float64"))),
                                   "references": _HEADS, "upos": _UPOS}),
                datasets.Features({"predictions": _HEADS, "references": _HEADS, "upos": _UPOS}),
            ],
            reference_urls=["https://aclanthology.org/N19-1419",
                            "https://github.com/john-hewitt/structural-probes"],
        )

    def _compute(self, predictions, references, upos, xpos=None, exclude_punctuation=True):
        punct, rule = punctuation_masks(upos, xpos) if exclude_punctuation else (None, "none")
        r = uuas_counts(references, predictions, punctuation=punct)
        return {"uuas": r.score, "correct": r.correct, "total": r.total,
                "n_sentences": r.n_sentences, "n_skipped": r.n_skipped, "punctuation_rule": rule}


def _common_test_inputs(rng):
    """Random valid inputs for the common metric tests (tests/test_metrics_common.py)."""
    from robust_bench.text.trees import random_tree, tree_distances

    heads = [random_tree(rng, int(rng.integers(5, 20))) for _ in range(12)]
    preds = [tree_distances(h) + rng.normal(0, 0.7, (len(h), len(h))) for h in heads]
    preds = [(p + p.T) / 2 for p in preds]
    kw = {"predictions": preds, "references": heads}
    kw["upos"] = [["PUNCT" if rng.random() < 0.1 else "NOUN" for _ in h] for h in heads]
    return kw
