"""Substitute words for the parser attack of Wang et al. (2021): four generators, six filters, and the words that never change.

A word of a treebank sentence may be replaced by a substitute that keeps the gold tree valid
(§2.3). Substitutes come from four generators, in the order of the authors' released code
(DepAttacker, ``adversary/attackers/blackbox.py``), de-duplicated case-insensitively, with the
original word dropped and its case copied onto each substitute (``recover_word_case``):

* ``sememe``: words with the same HowNet sememes and part of speech (OpenHowNet; optional, needs
  its data);
* ``synonym``: WordNet synonyms (NLTK) of the word's lemma in its own part of speech, through its
  common senses only, inflected like the word (``lemminflect``); DepAttacker looks up every synset
  of the surface form, which reads "was" as the noun "WA" (:class:`WordNetGenerator`);
* ``embedding``: the 50 nearest neighbours in a word-vector space (the paper uses the
  counter-fitted vectors of Mrkšić et al. 2016; any word2vec or GloVe file works);
* ``mlm``: a masked LM with the word masked; 60 tokens are drawn without replacement from its top
  100, in proportion to their probability (temperature 1), subword continuations (``##``)
  dropped, at most 50 kept (DepAttacker ``gen_mlm_cands``; the draw is seeded per sentence and
  position).

Filters (§2.3, settings of §3.2 and ``adversary/config/pipe.json``, and the checks of
``../shared/VALIDITY.md`` §3) decide in the context of the current adversarial sentence:

* ``frequency``: an English word (wordfreq, WordNet) of Zipf >= 3.0 and at most 1.0 Zipf rarer
  than the original;
* ``pos``: the re-tagged sentence keeps the original word's gold fine tag, UPOS and morphology on
  the substitute and every other word's tag; a verb can take the original's complements
  (:class:`VerbFrames`);
* ``embedding``: cosine similarity of the two words' vectors >= 0.7; a word without a vector is
  rejected (for every generator, as in the code);
* ``meaning``: the sentence encoder's cosines (whole sentence >= 0.90, the word in context >= 0.85);
* ``grammar``: no new a/an error, and no more errors from LanguageTool where it runs, else no more
  null links from CMU Link Grammar;
* ``perplexity``: the causal-LM perplexity rises by at most 20 over the current sentence (Eq. 2).

Words that may not change (:func:`protection_reasons`): DepAttacker's ``stop_tags`` (pronouns,
articles and determiners, conjunctions and prepositions (IN), numerals, interjections, wh-words
and punctuation), or their UPOS equivalents for a corpus without PTB tags, and every other function
class, proper nouns, auxiliaries and copulas, light verbs, degree adverbs and the words of fixed
expressions, flat names and phrasal verbs.

The package's modules: :mod:`.site` (the site, the generators and filters by name, the settings),
:mod:`.protection` (the words that never change), :mod:`.vectors` (word vectors), :mod:`.generators`
(the four generators and the merge of their outputs), :mod:`.frames` (verb subcategorization frames)
and :mod:`.filters` (the six filters and the grammar checkers).
"""

from __future__ import annotations

from robust_bench.perturb.treebanks.filters import (GRAMMAR_CHECKERS, MAX_LINK_GRAMMAR_WORDS, MAX_ZIPF_DROP,
                                                    MEANING_SENTENCE_COSINE, MEANING_WORD_COSINE, MORPH_FEATURES,
                                                    EmbeddingFilter, FilterQuery, FrequencyFilter, GrammarFilter,
                                                    MeaningFilter, PerplexityFilter, PosFilter, language_tool_checker,
                                                    link_grammar_checker)
from robust_bench.perturb.treebanks.frames import (FRAME_RELATIONS, MIN_FRAME_COUNT, REQUIRED_COMPLEMENTS,
                                                   REQUIRED_PREPOSITION_SHARE, VerbFrames, verb_frames)
from robust_bench.perturb.treebanks.generators import (Candidates, EmbeddingGenerator, MaskedLMGenerator,
                                                       SememeGenerator, WordNetGenerator, inflect_like, is_abbreviation,
                                                       merge_candidates, recover_word_case, site_lemma)
from robust_bench.perturb.treebanks.protection import (CONNECTIVE_ADVERBS, DEGREE_ADVERBS, FORBIDDEN_UPOS,
                                                       FORBIDDEN_XPOS, FUNCTION_DEPRELS, FUNCTION_XPOS, LINKING_VERBS,
                                                       MEASURE_HYPERNYMS, NEGATED_IDIOM_VERBS, NEGATIONS, OPINION_VERBS,
                                                       PROTECTED_ADJECTIVES, PROTECTED_ADVERBS, PROTECTED_DEPRELS,
                                                       PROTECTED_FEATS, PROTECTED_HEAD_OF, PROTECTED_LEMMAS,
                                                       PROTECTED_NOUNS, STOP_XPOS, protection_reasons)
from robust_bench.perturb.treebanks.site import (FILTERS, GENERATORS, MAX_PPL_INCREASE, MAX_SENSE_RANK,
                                                 MAX_SUBSTITUTE_SENSE_RANK, MIN_COSINE, MLM_DRAWS, MLM_KEEP, MLM_TOP_K,
                                                 N_NEIGHBOURS, OFFLINE_FILTERS, OFFLINE_GENERATORS, PAPER_FILTERS, Site,
                                                 SubstituteError)
from robust_bench.perturb.treebanks.vectors import WordVectors, load_word_vectors

__all__ = ["FORBIDDEN_XPOS", "FORBIDDEN_UPOS", "STOP_XPOS", "FUNCTION_XPOS", "PROTECTED_DEPRELS", "PROTECTED_HEAD_OF",
           "PROTECTED_LEMMAS", "PROTECTED_ADVERBS", "PROTECTED_NOUNS", "PROTECTED_ADJECTIVES", "MEASURE_HYPERNYMS", "REQUIRED_COMPLEMENTS", "NEGATED_IDIOM_VERBS", "NEGATIONS", "FUNCTION_DEPRELS", "OPINION_VERBS", "CONNECTIVE_ADVERBS", "DEGREE_ADVERBS", "LINKING_VERBS", "VerbFrames", "GENERATORS", "FILTERS", "PAPER_FILTERS", "Site", "protection_reasons", "recover_word_case",
           "WordVectors", "load_word_vectors", "MaskedLMGenerator", "EmbeddingGenerator", "WordNetGenerator",
           "SememeGenerator", "site_lemma", "inflect_like", "is_abbreviation", "PosFilter", "EmbeddingFilter", "GrammarFilter", "PerplexityFilter",
           "language_tool_checker", "link_grammar_checker", "GRAMMAR_CHECKERS", "FrequencyFilter",
           "MeaningFilter", "MORPH_FEATURES", "MAX_ZIPF_DROP", "MEANING_SENTENCE_COSINE", "MEANING_WORD_COSINE", "SubstituteError", "MIN_COSINE", "REQUIRED_PREPOSITION_SHARE", "MAX_PPL_INCREASE", "N_NEIGHBOURS", "MAX_LINK_GRAMMAR_WORDS",
           "FilterQuery", "Candidates", "merge_candidates",
           # public names the attacks, the builders and the tests import from here
           "FRAME_RELATIONS", "MAX_SENSE_RANK", "MAX_SUBSTITUTE_SENSE_RANK", "MIN_FRAME_COUNT", "MLM_DRAWS", "MLM_KEEP",
           "MLM_TOP_K", "OFFLINE_FILTERS", "OFFLINE_GENERATORS", "PROTECTED_FEATS", "verb_frames"]
