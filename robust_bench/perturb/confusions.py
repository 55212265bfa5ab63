"""Estimate error-injection weights from an M2 file (NUCLE, CoNLL-2014, BEA-2019).

Yin et al. (2020, §3.1) estimate, from minimally edited learner sentences, the probability
w_ij that a correct token t_i is replaced by t_j, and the distribution of error types. An M2
edit maps the learner's (erroneous) span to a correction; for *injecting* errors the direction
is reversed: correction -> learner text. Deletion and insertion are the ø member of a set
(``""``): a missing-article edit (``M:DET``, correction "the") counts as "the" -> ø, an
unnecessary-article edit (``U:DET``, learner "the") as ø -> "the".

Both NUCLE tags and ERRANT tags are mapped to the eight types of Yin et al.:

=========== ============================================ ====================================
type        NUCLE                                        ERRANT
=========== ============================================ ====================================
ArtOrDet    ArtOrDet                                     M/R/U:DET
Prep        Prep                                         M/R/U:PREP
Trans       Trans                                        M/R/U:CONJ
Nn          Nn                                           R:NOUN:NUM
SVA         SVA                                          R:VERB:SVA
Vform       Vform, Vt                                    R:VERB:FORM, R:VERB:TENSE
Wchoice     Wci                                          R:NOUN, R:VERB, R:ADJ, R:ADV
Worder      WOinc, WOadv                                 R:WO
=========== ============================================ ====================================
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

from robust_bench.io.fileio import atomic_write_text
from robust_bench.io.m2 import M2Error, read_m2
from robust_bench.io.sources import sha256_file
from robust_bench.perturb.gec import CONFUSION_SETS, ERROR_TYPES, Confusions

__all__ = ["M2Error", "TAG_MAP", "map_tag", "fit_confusions", "write_confusions"]

TAG_MAP = {
    "ArtOrDet": "ArtOrDet", "Prep": "Prep", "Trans": "Trans", "Nn": "Nn", "SVA": "SVA", "Vform": "Vform",
    "Vt": "Vform", "Wci": "Wchoice", "WOinc": "Worder", "WOadv": "Worder",
    "M:DET": "ArtOrDet", "R:DET": "ArtOrDet", "U:DET": "ArtOrDet",
    "M:PREP": "Prep", "R:PREP": "Prep", "U:PREP": "Prep",
    "M:CONJ": "Trans", "R:CONJ": "Trans", "U:CONJ": "Trans",
    "R:NOUN:NUM": "Nn", "R:VERB:SVA": "SVA", "R:VERB:FORM": "Vform", "R:VERB:TENSE": "Vform",
    "R:NOUN": "Wchoice", "R:VERB": "Wchoice", "R:ADJ": "Wchoice", "R:ADV": "Wchoice", "R:WO": "Worder",
}


def map_tag(tag: str) -> str | None:
    """The Yin et al. error type of an M2 tag, or ``None`` if it is none of the eight."""
    return TAG_MAP.get(tag)


def fit_confusions(path: str | os.PathLike, *, annotator: int = 0) -> Confusions:
    """Estimate the type distribution and w_ij from an M2 file.

    Parameters
    ----------
    path : path-like
        M2 file: ``S`` lines with the learner sentence, ``A start end|||tag|||correction|||...|||annotator``
        lines with its edits.
    annotator : int
        Only this annotator's edits are counted (files such as CoNLL-2014 test have several).

    Returns
    -------
    Confusions
        ``type_distribution``: share of each type among the mapped edits; ``weights[type][i][j]``
        for ArtOrDet, Prep and Trans: the share of t_i's injections that produce t_j, counted over
        edits whose both sides are in the type's confusion set (``""`` = ø).

    Raises
    ------
    M2Error
        On malformed M2 (see :func:`robust_bench.io.m2.read_m2`), or a file with no mappable edit.
    """
    types: Counter = Counter()
    counts: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for sent in read_m2(path):
        for edit in sent.edits:
            if edit.annotator != annotator or edit.tag in ("noop", "UNK", "Um"):
                continue
            kind = map_tag(edit.tag)
            if kind is None:
                continue
            types[kind] += 1
            if kind in CONFUSION_SETS:
                learner = " ".join(sent.tokens[edit.start:edit.end]).lower()
                correct = edit.correction.strip().lower()
                if correct == "-none-":
                    correct = ""
                members = CONFUSION_SETS[kind]
                if learner in members and correct in members and learner != correct:
                    counts[kind][correct][learner] += 1
    path = str(path)
    total = sum(types.values())
    if total == 0:
        raise M2Error(f"{path}: no edit of the eight error types for annotator {annotator}")
    dist = {k: types[k] / total for k in ERROR_TYPES if types[k]}
    weights = {kind: {src: {tgt: c / sum(row.values()) for tgt, c in sorted(row.items())}
                      for src, row in sorted(rows.items())}
               for kind, rows in sorted(counts.items())}
    return Confusions(type_distribution=dist, weights=weights,
                      source=f"{Path(path).name} (sha256 {sha256_file(path)}, annotator {annotator})")


def write_confusions(conf: Confusions, out: str | os.PathLike) -> Path:
    """Write confusions as JSON, atomically."""
    return atomic_write_text(out, json.dumps(conf.to_json(), indent=2, sort_keys=True) + "\n")
