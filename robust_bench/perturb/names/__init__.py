"""Named-entity swaps (Balasubramanian et al., 2020, "What's in a Name?"): every mention of a
name is replaced by another name of the same type, consistently across the whole example or
document.

One mechanism for every config:

* **Mentions** are token spans with a coarse type (``PER``, ``ORG``, ``LOC``) and an entity id.
  They come from gold annotation (coreference clusters, NER tags) or from a spaCy NER pipeline,
  whose labels are mapped with :func:`robust_bench.text.nlp.map_entity_label`.
* **Persons** are replaced word by word (§2.3 of the paper for coreference): first names by first
  names of the same gender, last names by last names, so "Chris Hill", "Chris", "Hill" and
  "Hill 's" become "Sam Rusnock", "Sam", "Rusnock" and "Rusnock 's". Every distinct name word has
  one role and one replacement in the whole document: a word that full names use first is a first
  name; a word seen only alone or in the middle is a first name when only the first-name lists know
  it; otherwise, "in case of ambiguity, the last name". Middle names follow the same rule, initials
  stay initials ("John F. Kennedy" -> "Sam K. Rusnock"), honorifics (*Mr.*, *Lady*) stay. Gender
  comes from the coreference cluster's pronouns where they exist, else an honorific, else the
  first-name lists; otherwise it is drawn and recorded as ``unknown``.
* **Organisations** are replaced whole, keeping a corporate suffix (*Microsoft Corp.* ->
  *Intel Corp.*); **locations** only when the lexicon knows them as a country or a city, by a
  country or a city.
* **No collision**: a replacement never occurs anywhere in the example or document (as a token
  sequence, case-insensitively), and distinct originals never receive the same replacement, so two
  entities never merge. An original name part keeps one replacement everywhere: two persons who
  share a surname still share the new one.
* **Alignment**: :func:`apply_swaps` returns the new tokens, one :class:`Edit` per replaced span
  (entity id, type, role, original, replacement, original and new spans) and a :class:`SpanMap`
  that realigns NER tags and coreference spans when a name has more or fewer tokens.

Every draw comes from the ``random.Random`` the caller passes, seeded per example, so the same seed
gives the same variants.

The package's modules, in the order of the data flow: :mod:`.mentions` (mention spans and their
entities), :mod:`.kinds` (organisation names and kinds), :mod:`.lexicon` (the replacement names),
:mod:`.roles` (person names word by word), :mod:`.swaps` (the plan, step by step), :mod:`.spans`
(applying a plan, realigning spans); and the builders' steps: :mod:`.org_spans` and :mod:`.org_pairs`
(MRPC's organisations), :mod:`.determiners` (articles beside a new organisation), :mod:`.coref`
(the persons of a coreference document), :mod:`.rows`, :mod:`.checks` and :mod:`.card` (what rows and cards
record).
"""

from __future__ import annotations

from robust_bench.perturb.names.card import coverage_notes, split_statistics
from robust_bench.perturb.names.checks import automatic_checks
from robust_bench.perturb.names.coref import (choose_target, coref_variant, coref_persons, gold_person_names, is_person_cluster,
                                              pronoun_gender, target_refusal)
from robust_bench.perturb.names.determiners import TokenInfo, article_use, fix_determiners, needs_the
from robust_bench.perturb.names.kinds import (INSTITUTION_KINDS, ORGANISATION_KINDS, harvest_organisations,
                                              is_institution, is_sports_headline, organisation_core, organisation_kind,
                                              same_organisation, university_name)
from robust_bench.perturb.names.lexicon import (MIN_INDUSTRY_POOL, MIN_ORGANISATION_POOL, POOL_FIRST_NAMES,
                                                POOL_SURNAMES, NameLexicon, NameLexiconError)
from robust_bench.perturb.names.mentions import (ENTITY_TYPES, Mention, document_mentions, link_document_persons,
                                                 link_person_mentions, mentions_from_tags)
from robust_bench.perturb.names.org_pairs import (industries_by_company, link_organisations, mrpc_pair,
                                                  organisation_mentions)
from robust_bench.perturb.names.org_spans import business_companies, institution_counts, suffixed_companies
from robust_bench.perturb.names.roles import name_word_roles, nickname_pairs, person_name_tokens
from robust_bench.perturb.names.rows import (SentenceSpanMap, char_offsets, mention_counts, pair_variant, plan_refusals,
                                             render, row_refusals, sentence_variant, spaces_after)
from robust_bench.perturb.names.spans import Edit, SpanMap, SwapPlan, apply_swaps, realign_tags, span_map_from_edits
from robust_bench.perturb.names.swaps import plan_swaps
from robust_bench.perturb.names.places import GOLD_TAG_DOUBT, known_place, place_doubts, place_position, placed_name
from robust_bench.perturb.names.variants import distinct_variants, variant_counts
from robust_bench.text.names import HONORIFIC_GENDER, NOT_NAME_WORDS

#: full random-replacement copies of each test example in a config's ``random`` split (Table 3's random row)
RANDOM_COPIES = 10

__all__ = ["RANDOM_COPIES", "ENTITY_TYPES", "Mention", "Edit", "SpanMap", "SwapPlan", "NameLexicon", "NameLexiconError",
           "plan_swaps", "apply_swaps", "person_name_tokens", "NOT_NAME_WORDS", "organisation_core", "organisation_kind",
           "ORGANISATION_KINDS", "INSTITUTION_KINDS", "is_institution", "same_organisation", "nickname_pairs",
           "name_word_roles",
           "is_sports_headline", "harvest_organisations",
           "mentions_from_tags", "realign_tags", "span_map_from_edits", "HONORIFIC_GENDER",
           # named in the lists' and pools' sizes
           "MIN_ORGANISATION_POOL", "MIN_INDUSTRY_POOL", "POOL_FIRST_NAMES", "POOL_SURNAMES", "university_name",
           # the builders' steps (builders/names.py): mentions, organisations, determiners, coreference persons, rows
           "document_mentions", "link_document_persons", "link_person_mentions", "mrpc_pair", "institution_counts",
           "organisation_mentions", "link_organisations", "industries_by_company",
           "business_companies", "suffixed_companies", "article_use", "needs_the", "fix_determiners", "TokenInfo",
           "gold_person_names", "coref_persons", "is_person_cluster", "pronoun_gender", "target_refusal", "choose_target",
           "SentenceSpanMap", "row_refusals", "plan_refusals", "mention_counts", "spaces_after", "render",
           "char_offsets", "pair_variant", "sentence_variant", "automatic_checks", "split_statistics",
           "coverage_notes", "GOLD_TAG_DOUBT", "known_place", "place_doubts", "place_position", "distinct_variants",
           "variant_counts", "coref_variant", "placed_name"]
