"""The automatic checks of a built name-swap config (issue 29), recounted from its rows: the errors a
swap of names (Balasubramanian et al., 2020) must not introduce, counted on the dataset card."""

from __future__ import annotations

import re

from robust_bench.io.task_data import CONLL2003_TAGS
from robust_bench.perturb.names.mentions import ENTITY_TYPES
from robust_bench.perturb.names.org_pairs import _NAME_GLUE


def automatic_checks(ds, task: str, lexicon, originals: dict[str, list[str]]) -> dict[str, int]:
    """The whole config's automatic checks (issue 29), recounted from the rows:

    * ``article_errors_gained``: swapped variants with more a/an errors than their original
      (:func:`robust_bench.perturb.checks.article_errors`, inflect);
    * ``cross_gender_swaps``: first-name edits between names whose genders are both known
      (:meth:`NameLexicon.gender_of`: male or female, not a name of either gender) and differ;
    * ``surnames_left``: swapped variants where a replaced surname (or its plural or possessive
      form) still occurs as a capitalised word beside its replacement (in CoNLL-2003, as a PER token);
    * ``organisation_names_left``: swapped variants where a distinctive word of a replaced
      organisation's name (capitalised, not "of", "&", a corporate word or a common English word such
      as "Stores") still occurs beside its replacement;
    * ``groups_never_swapped_unexplained``: groups none of whose variants swaps anything, with no
      refusal recorded;
    * ``place_swaps`` (issue 53): person edits of a name a gazetteer knows as a place, standing where a place
      stands (:func:`~robust_bench.perturb.names.places.known_place`,
      :func:`~robust_bench.perturb.names.places.place_position`);
    * ``east_asian_partial_swaps`` (issue 53): gold PER names of two or more words with an East Asian word
      (:func:`~robust_bench.perturb.names.swaps.east_asian_word`) of which some words but not all were replaced
      (``names_conll2003``, whose rows keep the gold tags);
    * ``non_entity_edits`` (issue 53): edits recorded as a swap of an entity (PER, ORG, LOC) whose original
      is an article or a possessive, or empty.

    Parameters
    ----------
    ds : datasets.Dataset
        One split of a built ``names_*`` config (its rows, any object with ``select_columns``).
    task : str
        ``mrpc``, ``conll2003`` or ``coref``: which columns hold the text.
    lexicon : NameLexicon or None
        The lexicon the config was built with (for the genders); ``None`` counts no cross-gender swap.
    originals : dict of str to list of str
        ``coref``: the original tokens by group (variant 0 of the test split).

    Returns
    -------
    dict of str to int
        The eight counts above.
    """
    from wordfreq import zipf_frequency

    from robust_bench.perturb.checks import article_errors

    lex = lexicon
    text_cols = {"mrpc": ["sentence1", "sentence2", "original_sentence1", "original_sentence2"],
                 "conll2003": ["tokens", "original_tokens", "ner_tags", "original_ner_tags"], "coref": ["tokens"]}[task]
    cols = ds.select_columns(["group_id", "variant", "edits", "refusals", "n_swapped"] + text_cols)
    words = re.compile(r"[\w'’.-]+|[^\w\s]")
    gained = cross = left = orgs_left = places = partial = non_entity = 0
    swapped_groups: set[str] = set()
    explained: set[str] = set()
    groups: set[str] = set()
    for r in cols:
        g = r["group_id"]
        groups.add(g)
        if r["refusals"]:
            explained.add(g)
        if r["variant"] == 0 or not r["edits"]:
            continue
        swapped_groups.add(g)
        if task == "mrpc":
            new = words.findall(r["sentence1"]) + ["."] + words.findall(r["sentence2"])
            old = words.findall(r["original_sentence1"]) + ["."] + words.findall(r["original_sentence2"])
        elif task == "conll2003":
            new, old = r["tokens"], r["original_tokens"]
        else:
            new, old = r["tokens"], originals.get(g, [])
        gained += len(article_errors(new)) > len(article_errors(old))
        non_entity += sum(e["type"] in ENTITY_TYPES and e["original"].lower() in _NON_ENTITY for e in r["edits"])
        if task != "mrpc":
            places += _place_swaps(r["edits"], old, lex)
        if task == "conll2003" and lex is not None:
            partial += _east_asian_partial(r["edits"], old, r["original_ner_tags"], lex)
        surnames = set()
        for e in r["edits"]:
            if e["type"] == "PER" and e["role"] == "first" and lex is not None:
                a, b = lex.gender_of(e["original"].title()), lex.gender_of(e["replacement"].title())
                cross += {a, b} == {"male", "female"}
            if e["type"] == "PER" and e["role"] == "last" and e["original"] != e["replacement"]:
                surnames.add(e["original"].split()[-1])        # "Van Tassel": Tassel
        # an organisation's own words left beside its replacement ("Kleiner Perkins" and "Disney
        # Perkins Caufield")
        orgs = {w for e in r["edits"] if e["type"] == "ORG" and e["role"] not in ("possessive", "article")
                for w in e["original"].split() if w[:1].isupper() and w.lower() not in _NAME_GLUE
                and zipf_frequency(w.lower(), "en") < 3.5}         # "Stores" is anyone's
        orgs -= {w for e in r["edits"] for w in e["replacement"].split()}
        orgs_left += bool(orgs & set(new))
        if surnames:
            replaced = {w for e in r["edits"] for w in e["replacement"].split()}
            forms = {f for s in surnames for f in (s, s + "s", s + "es", s + "'s", s + "’s")} - replaced
            if task == "conll2003":
                tags = [CONLL2003_TAGS[t] for t in r["ner_tags"]]
                left += any(w in forms and t.endswith("PER") for w, t in zip(new, tags))
            else:
                left += any(w in forms for w in new)
    never = groups - swapped_groups - explained
    return {"article_errors_gained": gained, "cross_gender_swaps": cross, "surnames_left": left,
            "organisation_names_left": orgs_left, "groups_never_swapped_unexplained": len(never),
            "place_swaps": places, "east_asian_partial_swaps": partial, "non_entity_edits": non_entity}


#: Originals that are no entity: an article or a possessive adjusted beside a new name.
_NON_ENTITY = frozenset({"", "a", "an", "the", "'s", "’s", "'", "’"})


def _place_swaps(edits, old, lexicon) -> int:
    """Person edits of a known place in a place position (token offsets into ``old``)."""
    from robust_bench.perturb.names.places import known_place, place_position

    return sum(e["type"] == "PER" and place_position(old, e["start"], e["end"]) and known_place(e["original"], lexicon)
               for e in edits)


def _east_asian_partial(edits, old, ner_tags, lexicon) -> int:
    """Gold PER names with an East Asian word, some of whose words an edit replaced and some not."""
    from robust_bench.perturb.names.mentions import mentions_from_tags
    from robust_bench.perturb.names.swaps import east_asian_word

    hit = {i for e in edits for i in range(e["start"], e["end"])}
    n = 0
    for m in mentions_from_tags([CONLL2003_TAGS[t] for t in ner_tags]):
        words = [i for i in range(m.start, m.end) if old[i][:1].isalpha()]
        if m.type != "PER" or len(words) < 2 or not any(east_asian_word(old[i], lexicon) for i in words):
            continue
        n += 0 < sum(i in hit for i in words) < len(words)
    return n
