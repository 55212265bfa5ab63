"""The site a substitute is sought for (:class:`Site`), the generators and filters by name and the
attack's settings (§3.2 of Wang et al. 2021, DepAttacker's ``pipe.json``), and the error a generator or
filter raises when it cannot be set up."""

from __future__ import annotations

from dataclasses import dataclass

from robust_bench import RobustBenchError


#: Generator names, in the order DepAttacker collects candidates.
GENERATORS = ("sememe", "synonym", "embedding", "mlm")
#: Filter names: the paper's four (§2.3, in the order of its ablation, Table 5) and two checks of
#: ``../shared/VALIDITY.md`` §3 that work without its models (word frequency; sentence meaning).
FILTERS = ("frequency", "pos", "embedding", "meaning", "grammar", "perplexity")
#: The paper's own filters.
PAPER_FILTERS = ("pos", "embedding", "grammar", "perplexity")
#: What a default build of adv_ewt and adv_ptb uses: every generator and filter that needs nothing beyond the
#: declared set-up (WordNet, the spaCy pipeline, the meaning encoder, Link Grammar), so that a machine that
#: reaches the Hub builds the same bytes as one that does not; each must run, or the build stops. BERT (mlm),
#: the counter-fitted vectors (embedding), OpenHowNet (sememe) and GPT-2 (perplexity) are options, recorded
#: in the metadata.
OFFLINE_GENERATORS = ("synonym",)
OFFLINE_FILTERS = ("frequency", "pos", "meaning", "grammar")
MIN_COSINE = 0.7            # §3.2, pipe.json "wsim"
MAX_PPL_INCREASE = 20.0     # §3.2, pipe.json "ppl_diff_thres"
N_NEIGHBOURS = 50           # pipe.json "max_knn"
MLM_TOP_K, MLM_DRAWS, MLM_KEEP = 100, 60, 50
#: Senses of the original word (WordNet order, most frequent first) whose synonyms are offered, and
#: the rank that sense must have among the substitute's own senses: a synonym through a rare sense of
#: either word ("number" -> "figure", "course" -> "class") changes the meaning. Only the original's
#: most frequent sense, and the substitute's, since the second blind audit (adv_ewt 2.1.0 draft):
#: through a second or third sense came "tremendous" -> "terrific" ("tremendous effects"), "respond"
#: -> "reply" ("the camera does not reply"), "think" -> "guess" and "particularly" -> "specially".
MAX_SENSE_RANK = 1
MAX_SUBSTITUTE_SENSE_RANK = 1


class SubstituteError(RobustBenchError, RuntimeError):
    """A generator or filter cannot be set up (a missing vector file, an unusable resource)."""


@dataclass(frozen=True)
class Site:
    """A word that may be substituted.

    Attributes
    ----------
    key : str
        Sentence id, for seeding.
    words : tuple of str of shape (n_words,)
        The original sentence.
    position : int
        0-based index of the word.
    xpos, upos : str or None
        The word's gold tags (``xpos`` None when the corpus has none).
    lemma : str or None
    frame : tuple of str, or None
        For a verb, its core complements in the gold tree (:data:`FRAME_RELATIONS`) and
        ``obl:<preposition>`` for its obliques (:func:`verb_frames`), sorted; None when the
        treebank has no relations.
    """

    key: str
    words: tuple[str, ...]
    position: int
    xpos: str | None = None
    upos: str | None = None
    lemma: str | None = None
    frame: tuple[str, ...] | None = None

    @property
    def word(self) -> str:
        return self.words[self.position]
