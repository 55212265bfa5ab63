"""Grammatical-error engine of Yin et al. (2020), "On the Robustness of Language Encoders
against Grammatical Errors".

Eight learner-error types (Table 1), each a set of operations on a parsed sentence:

============ ==================================================================================
ArtOrDet     {a, an, the, ø}: substitute or delete an article; insert one before a bare noun phrase
Prep         29 prepositions + ø: substitute or delete a preposition; insert one before a direct object
Trans        18 transition words + ø: substitute or delete a connective; insert one at a clause start
Nn           singular <-> plural of a common noun (lemminflect)
SVA          3SG <-> non-3SG of a present-tense verb or auxiliary (lemminflect)
Vform        present / past / progressive / perfect form of a verb (§3.1; lemminflect)
Wchoice      one of up to ten WordNet synonyms, inflected like the word (NLTK WordNet)
Worder       swap an adverb with its neighbouring adjective, participle or modal
============ ==================================================================================

An operation is only proposed where the parse supports it, as the paper does with its parse
trees: an article must be a determiner, a preposition an adposition, a bare noun phrase a noun
without determiner or possessor, and so on. Protected tokens (named-entity tokens in NER data)
are never touched, moved or split.

Every operation must also pass the validity checks of :mod:`robust_bench.perturb.checks` (the
rows must be what the paper means, ``../shared/VALIDITY.md``): an indefinite article takes the form the
next word's sound needs and no edit leaves a/an disagreeing with its next word; every written token is
an English word; word-choice substitutes are common words (Zipf >= 3) from the word's most frequent
WordNet senses, and the builder and the attacks confirm each one in context (same PTB tag on
re-tagging, sentence and word meaning kept); nothing is inserted into an all-caps headline. Refused
candidates are counted by check.

The probabilistic transformation (§3.1) samples an error type from the type distribution
(over the types applicable to the sentence), then a random plausible position for that type,
then the replacement by the substitution weights w_ij, and repeats until the error budget is
spent. Yin et al. estimate w_ij and the type distribution from NUCLE; NUCLE is licensed, so the
type distribution defaults to uniform and the substitution weights to :data:`LEARNER_CONFUSIONS`
(see :meth:`Confusions.learner_default`); ``fit-confusions`` estimates both from any M2 file, and
``Confusions()`` is the literal uniform weighting over every member of Table 1's sets.

Every applied operation is an edit ``{type, position, operation, original, replacement}`` on
the original token indices, and :func:`apply_edits` reproduces the perturbed sentence from the
original exactly.

The package's modules, in the order of the data flow: :mod:`.sets` (Table 1's confusion sets, the
learner weights), :mod:`.tokens` (the parsed sentence and the candidate edit), :mod:`.sites` (where an
edit would be no learner's error), :mod:`.lexical` (the single-token types Nn, SVA, Vform and Wchoice),
:mod:`.weights` (:class:`Confusions`), :mod:`.candidates` (:func:`candidate_operations`),
:mod:`.edits` (the checks on a drawn edit, :func:`apply_edits`) and :mod:`.transform`
(:func:`perturb`).
"""

from __future__ import annotations

from robust_bench.perturb.gec.candidates import candidate_operations
from robust_bench.perturb.gec.edits import apply_edits, articles_after, crowded, realign_tags, render, undoes_error
from robust_bench.perturb.gec.sets import (ARTICLES, CONFUSION_SETS, DELETE, DROPPABLE_PREPOSITIONS, ERROR_TYPES,
                                           EXTRANEOUS_PREPOSITIONS, INSERT, LEARNER_CONFUSIONS, PREPOSITIONS, SUBSTITUTE,
                                           SWAP, TRANSITIONS, WCHOICE_MAX, WCHOICE_SENSES)
from robust_bench.perturb.gec.sites import FIXED_BIGRAMS
from robust_bench.perturb.gec.tokens import Operation, Token, tokens_from_doc
from robust_bench.perturb.gec.transform import PerturbationResult, error_budget, perturb
from robust_bench.perturb.gec.weights import Confusions

__all__ = [
    "ERROR_TYPES", "ARTICLES", "PREPOSITIONS", "TRANSITIONS", "CONFUSION_SETS", "Token", "Operation",
    "Confusions", "candidate_operations", "error_budget", "perturb", "apply_edits", "render", "tokens_from_doc",
    "PerturbationResult", "realign_tags", "articles_after", "crowded", "undoes_error", "LEARNER_CONFUSIONS", "EXTRANEOUS_PREPOSITIONS",
    # the operation kinds and the other public constants, imported from here by the attacks and the builders
    "SUBSTITUTE", "INSERT", "DELETE", "SWAP", "WCHOICE_MAX", "WCHOICE_SENSES", "DROPPABLE_PREPOSITIONS", "FIXED_BIGRAMS",
]
