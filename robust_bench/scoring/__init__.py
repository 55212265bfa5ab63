"""Pure scoring functions: numpy in, floats out.

The ``evaluate`` modules in ``metrics/`` are thin adapters over these functions.
Naming follows scikit-learn: ``*_score`` is to be maximised; the attack success rate is the exception
(lower is more robust) and says so.

* :mod:`robust_bench.scoring.parsing`: UUAS, DSpr, UAS and LAS, with their punctuation rules.
* :mod:`robust_bench.scoring.robustness`: attack success rate, consistency, stability, worst/best rows.
* :mod:`robust_bench.scoring.entities`: entity counts of IOB2 tags (entity F1).
* :mod:`robust_bench.scoring.coref`: MUC, B³, CEAFe, LEA and CoNLL F1, pooled as the reference scorer does.
"""

from robust_bench.scoring.entities import entity_counts
from robust_bench.scoring.parsing import (ATTACHMENT_RULES, PTB_PUNCTUATION_XPOS, PUNCTUATION_RULES,
                                          AttachmentResult, DSprResult, UUASResult, attachment_errors,
                                          attachment_mask, attachment_scores, dspr_details, dspr_score, dspr_sentence_sums,
                                          punctuation_mask, punctuation_masks, uuas_counts, uuas_score)
from robust_bench.scoring.robustness import (NLI_LABEL_RULES, apply_label_rule, attack_success_rate,
                                             consistency_details, consistency_score, group_stability, stability_details,
                                             stability_score, worst_best_rows)

__all__ = ["UUASResult", "DSprResult", "uuas_counts", "uuas_score", "dspr_details", "dspr_score", "dspr_sentence_sums", "punctuation_mask",
           "punctuation_masks", "PTB_PUNCTUATION_XPOS", "PUNCTUATION_RULES", "AttachmentResult", "attachment_scores",
           "attachment_errors", "attachment_mask", "ATTACHMENT_RULES",
           "attack_success_rate", "NLI_LABEL_RULES", "apply_label_rule", "consistency_details", "consistency_score",
           "group_stability", "stability_details", "stability_score", "worst_best_rows", "entity_counts"]
