"""LIT contrast sets for MNLI and SNLI (Li et al., 2020): ``lit_mnli`` and ``lit_snli`` hold the
rows the authors built; ``lit_mnli_extended`` and ``lit_snli_extended`` the rows robust-bench adds
where the label logic is sound (``o;n``, tense and modal codes from the other original labels).

Every source pair is transformed by each pair transformation that applies to it
(:mod:`robust_bench.perturb.lit.pairs`); the new gold label follows the transformation's label rule.
A row keeps the original pair and label next to the transformed ones, so one split gives Acc@Ori,
Acc@Ctr and consistency (§4.1.3). Surface strings are the backend's first candidate, or, with
``lm``, the one a causal LM finds most fluent (§3.3). The
optional ``train`` split (``augment_train``) is the paper's training augmentation (AUG, §4.3):
contrast pairs built the same way from a training file, to be concatenated with the original
training data.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import datasets

from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.registry import register_builder
from robust_bench.data.citations import LI_2020
from robust_bench.perturb.lit.pairs import (CODES, EXTENDED_CODES, PAIR_TRANSFORMATIONS, PAPER_CODES, RULE_REFUSAL,
                                            TIERS)
from robust_bench.io.sources import (TEXTFOOLER_SAMPLES, TEXTFOOLER_URL, SourceFile, describe_read,
                                     resolve_sources, sha256_file)
from robust_bench.io.task_data import NLI_LABELS, read_nli
from robust_bench.perturb.lit.rules import NLI_LABEL_RULES

_CITATION = LI_2020

_DESCRIPTION = """\
LIT contrast sets (Li et al., 2020, "Linguistically-Informed Transformations"): NLI pairs
transformed for one linguistic phenomenon at a time or a composition of them (Table 1 notation,
premise;hypothesis: m = may, p = past, f = future, i = it-cleft, pa = passive, o = original,
n = negation), with the gold label inferred by the authors' rules (their released
post-process/process.py and the paper's Table 1): p;f and its +i / +pa compositions from
entailment pairs, f;p and its compositions from contradiction pairs (both sentences originally
present), m;o from entailment and contradiction pairs, all -> neutral; m;m and m+pa;m+pa from
entailment and neutral pairs, label kept; i;i, pa;pa, i;pa, i;o, pa;o keep the label; n;n
(both negated, premise and hypothesis swapped) keeps entailment. The *_extended configs hold
robust-bench's additional rows: o;n (entailment -> contradiction, neutral kept) and the tense and
modal codes from the other original labels where the rule is sound. Each row holds the original pair and label, the transformed pair, the new label, the rule
and the source id. Transformations come from a UD dependency parse (default backend `ud`, spaCy
+ lemminflect, with a second, independent parser that must agree on the verb group, the subject
and the object) or from the English Resource Grammar (`erg`, ACE + pydelphin); the surface string
is the backend's first candidate (one per transformation, but *that* before *who* in the it-cleft
of a person, *who* first after *he* and *she*), or, with `--lm`, the candidate with the lowest
causal-LM perplexity (§3.3). By default the config is built from the fixed, public 1,000-pair samples of TextFooler (Jin et al.,
2020), not from the whole dev split (`--full-dev` builds that).
"""

_LICENSE = "Same as the source corpus (see the source line)."

_RULE_NOTES = """\
Why the labels hold: *may* on the premise alone weakens it, so it no longer settles the
hypothesis (to_neutral); events at different times are not the same event (to_neutral); clefts
and passives keep truth conditions (preserve); *may* on both sides keeps an entailment (if P
entails H, "may P" entails "may H"), keeps neutral, and turns a contradiction neutral, since two
incompatible things can both be possible (possibility); negating both sentences and swapping
them keeps an entailment (contraposition: if P entails H, not-H entails not-P). For m;m the
paper's Table 1 (E -> E, N -> N) and the released code (E -> N, C -> N) disagree: the table is
followed, because the code's E -> N labels a valid inference neutral; C -> N is sound and goes
to the extended config. o;n is robust-bench's: P entails H implies P contradicts not-H, and
neutral stays neutral; annotated contradictions are often not logical ones, so none is built."""

_GLUE = "https://huggingface.co/datasets/nyu-mll/glue/resolve/main/mnli"
_SNLI = "https://huggingface.co/datasets/stanfordnlp/snli/resolve/main/plain_text"
#: 2.0.0 (issue 31): built from TextFooler's fixed 1,000-pair samples by default; a second parser
#: must agree on the verb group, subject and object; no causal LM needed (a documented surface
#: preference); risky constructions refused.
#: 2.1.0 (issue 31, second round): sentence boundaries from spaCy's rule-based Sentencizer, which
#: the parsers respect; PTB clitics spelled out for the UD parser ("'s" -> "is", "n't" -> "not");
#: a second parser's finite verb the first read as a noun refuses the sentence; refusals for the
#: classes the second round of blind audits found (floating quantifiers, elliptical do, future
#: perfect, first-person may on mental states, passives of do/enjoy, bare count-noun objects,
#: with-phrases after the object, generic agents, discourse markers before a cleft, present clauses
#: under a past verb, made of; n;n with fronted material or a hypothesis that adds content, m;m
#: over two tenses, m;o contradictions about the subject's description, existential hypotheses).
#: 2.2.0 (issue 50, the reference pipeline en_robust_bench_sm's misparses, from the v10 blind audits):
#: a bare verb coordinated with a noun refuses the sentence; a coordinated object has no passive; a
#: first word keeps its capital as part of a name only before a word that is not an adjective.
_VERSION = datasets.Version("2.2.0")
#: Where the config's pairs come from: ``sample`` (TextFooler's 1,000-pair samples, the default,
#: pinned in the default suite) or ``full`` (all of the dev/test split, from the Hub).
SOURCES = ("sample", "full")


@dataclass
class LitConfig(RobustBenchConfig):
    """Config of a LIT contrast set.

    Attributes
    ----------
    task : str
        ``mnli`` or ``snli``.
    files : dict
        Split name to :class:`SourceFile`: TextFooler's 1,000-pair samples (Jin et al., 2020).
    full_files : dict
        Split name to :class:`SourceFile`: the whole dev split, for ``source="full"``.
    source : str
        ``sample`` (default: ``files``) or ``full`` (``full_files``).
    train_url : str
        Hub file of the training set, used when ``augment_train="hub"``.
    backend : str
        ``ud`` (default; spaCy + lemminflect) or ``erg`` (ACE + the ERG, needs ``grammar``).
    grammar : str or None
        Compiled ERG image for the ``erg`` backend.
    lm : str or None
        Causal LM (Hub id or path) that ranks candidate surfaces by perplexity, as the paper does
        with GPT-2 (§3.3); default None: the backend's first candidate
        (:class:`robust_bench.models.lm.FirstCandidate`), so that the build runs offline and gives
        the same bytes every time.
    spacy_model : str or None
        spaCy pipeline of the ``ud`` backend (default ``$ROBUST_BENCH_SPACY_MODEL`` or ``en_robust_bench_sm``).
    second_parser : str or None
        Second, independent spaCy parser of the ``ud`` backend, whose disagreement refuses a
        transformation (default :func:`robust_bench.text.nlp.second_parser_name`; ``none`` for none).
    augment_train : str or None
        A training file (GLUE/SNLI TSV, the ``label<TAB>premise<TAB>hypothesis`` format, or Hub
        parquet), or ``hub`` to download the task's training set: adds a ``train`` split of contrast
        pairs for augmentation (AUG, §4.3).
    tier : str
        ``paper`` (the rows the authors built) or ``extended`` (robust-bench's additions).
    codes : tuple of str or None
        Pair transformations to build (default: every code with rows in ``tier``).
    device : str
        Device of the LM (``auto`` picks a GPU when present).
    """

    task: str = ""
    files: dict | None = None
    full_files: dict | None = None
    source: str = "sample"
    train_url: str = ""
    backend: str = "ud"
    grammar: str | None = None
    lm: str | None = None
    spacy_model: str | None = None
    second_parser: str | None = None
    augment_train: str | None = None
    tier: str = "paper"
    codes: tuple | None = None
    device: str = "auto"


_SOURCES = {
    "lit_mnli": dict(task="mnli", splits=("validation_matched", "validation_mismatched"),
                     source_info=SourceInfo("MultiNLI dev, the 1,000-pair samples of TextFooler (Jin et al., 2020)",
                                            "TextFooler d47e724", "MultiNLI (OANC and CC licences); sample: MIT",
                                            TEXTFOOLER_URL, tokenised=True),
                     files=TEXTFOOLER_SAMPLES["mnli"],
                     full_files={"validation_matched": SourceFile("glue/mnli/dev_matched.tsv",
                                                                  f"{_GLUE}/validation_matched-00000-of-00001.parquet"),
                                 "validation_mismatched": SourceFile("glue/mnli/dev_mismatched.tsv",
                                                                     f"{_GLUE}/validation_mismatched-00000-of-00001.parquet")},
                     train_url=f"{_GLUE}/train-00000-of-00001.parquet"),
    "lit_snli": dict(task="snli", splits=("validation",),
                     source_info=SourceInfo("SNLI, the 1,000-pair sample of TextFooler (Jin et al., 2020)",
                                            "TextFooler d47e724", "CC BY-SA 4.0; sample: MIT", TEXTFOOLER_URL, tokenised=True),
                     files=TEXTFOOLER_SAMPLES["snli"],
                     full_files={"validation": SourceFile("snli/dev.tsv", f"{_SNLI}/validation-00000-of-00001.parquet")},
                     train_url=f"{_SNLI}/train-00000-of-00001.parquet"),
}


_TASKS = {f"lit_{task}{suffix}": dict(spec, tier=tier) for task, spec in
          (("mnli", _SOURCES["lit_mnli"]), ("snli", _SOURCES["lit_snli"]))
          for suffix, tier in (("", "paper"), ("_extended", "extended"))}


def _features() -> datasets.Features:
    label = datasets.ClassLabel(names=list(NLI_LABELS))
    s = datasets.Value("string")
    return datasets.Features({
        "id": s, "source_id": datasets.Value("int32"), "transformation": s,
        "premise": s, "hypothesis": s, "original_premise": s, "original_hypothesis": s,
        "original_label": label, "label": label, "rule": s,
        "premise_operations": datasets.List(s), "hypothesis_operations": datasets.List(s),
        "premise_candidates": datasets.Value("int32"), "hypothesis_candidates": datasets.Value("int32"),
    })


@register_builder
class LitContrastSets(RobustBenchBuilder):
    """Builder for ``lit_mnli`` and ``lit_snli``."""

    VERSION = _VERSION
    FAMILY = "lit"

    @staticmethod
    def audit_group(row: dict[str, str]) -> str | None:
        """The transformation code, the first word of the audit's edits column ("i;o (preserve); label ..."
        -> ``i;o``; "p;f +i (to_neutral); ..." -> ``p;f +i``): validity differs by code (issue 31)."""
        return (row.get("edits") or "").split(" (")[0].strip() or None

    @classmethod
    def card_refusals(cls, statistics: dict[str, Any]) -> dict[str, int]:
        """A contrast pair refused by the label rules (``rule_refusals``) or by the re-analysis of the new
        sentence (``reanalysis_rejections``), per reason, summed over the splits."""
        out: dict[str, int] = {}
        for stats in statistics.values():
            for key in ("rule_refusals", "reanalysis_rejections"):
                for reason, n in (stats.get(key) or {}).items():
                    out[reason] = out.get(reason, 0) + int(n)
        return out
    CITATION = _CITATION
    DESCRIPTION = _DESCRIPTION
    LICENSE = _LICENSE
    SOURCE = _TASKS["lit_mnli"]["source_info"]
    BUILDER_CONFIG_CLASS = LitConfig
    BUILDER_CONFIGS = [LitConfig(name=name, version=_VERSION, description=_DESCRIPTION, **spec)
                       for name, spec in _TASKS.items()]

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes this config builds: ``codes`` if given, else every code with rows in the tier."""
        if self.config.codes:
            return tuple(self.config.codes)
        return PAPER_CODES if self.config.tier == "paper" else EXTENDED_CODES

    def output_splits(self) -> tuple[str, ...]:
        return tuple(self.config.splits) + (("train",) if self.config.augment_train else ())

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=_DESCRIPTION, features=_features(), citation=_CITATION,
                                    license=self.source_info.license, homepage=self.source_info.url)

    def _backend(self):
        cfg = self.config
        if cfg.backend == "ud":
            from robust_bench.perturb.lit.ud import UDTransformer

            return UDTransformer(cfg.spacy_model, second_parser=cfg.second_parser)
        if cfg.backend == "erg":
            from robust_bench.perturb.lit.erg import ErgTransformer

            if not cfg.grammar:
                raise ValueError("the erg backend needs --grammar PATH (a compiled ERG image)")
            return ErgTransformer(cfg.grammar)
        raise ValueError(f"unknown LIT backend {cfg.backend!r}; use 'ud' or 'erg'")

    def _split_generators(self, dl_manager):
        from robust_bench.perturb.lit.pairs import make_contrast_sets
        from robust_bench.models.lm import CausalLMScorer, FirstCandidate
        from robust_bench.text.nlp import spacy_model_name

        cfg = self.config
        unknown = [c for c in self.codes if c not in PAIR_TRANSFORMATIONS]
        if unknown:
            raise ValueError(f"unknown LIT transformation code(s) {unknown}; known: {list(CODES)}")
        if cfg.tier not in TIERS:
            raise ValueError(f"unknown LIT tier {cfg.tier!r}; use one of {TIERS}")
        if cfg.source not in SOURCES:
            raise ValueError(f"unknown LIT source {cfg.source!r}; use one of {SOURCES}")
        available = cfg.full_files if cfg.source == "full" else cfg.files
        missing = [s for s in cfg.splits if s not in available]
        if missing:
            raise ValueError(f"{cfg.name} has no split(s) {missing} with source {cfg.source!r}; "
                             f"it has {sorted(available)}")
        files = {s: available[s] for s in cfg.splits}
        paths, origin = resolve_sources(files, source_dir=cfg.source_dir, dl_manager=dl_manager)
        if cfg.augment_train:
            paths["train"] = (dl_manager.download(cfg.train_url) if cfg.augment_train == "hub"
                              else cfg.augment_train)
        backend = self._backend()
        scorer = CausalLMScorer(cfg.lm, device=cfg.device) if cfg.lm else FirstCandidate()
        self.provenance.update({
            "source_origin": origin, "source_sha256": {k: sha256_file(p) for k, p in paths.items()},
            "source_files": {k: files[k].url if k in files else str(paths[k]) for k in paths},
            "backend": backend.name, "spacy_model": spacy_model_name(cfg.spacy_model) if cfg.backend == "ud" else None,
            "second_parser": getattr(backend, "second_parser", None), "source": cfg.source,
            "surface_choice": f"lowest perplexity under {cfg.lm}" if cfg.lm else "first candidate (FirstCandidate)",
            "grammar": cfg.grammar, "lm": cfg.lm, "lm_revision": scorer.revision, "codes": list(self.codes),
            "tier": cfg.tier,
            "report": {},
        })
        gens = []
        self.provenance["source_read"] = {}
        for split in self.output_splits():
            pairs = list(self.first(read_nli(paths[split])))
            self.provenance["source_read"][split] = describe_read(
                paths[split], origin="file" if split not in files else origin,
                url=files[split].url if split in files else str(paths[split]), rows=len(pairs))
            rows, report = make_contrast_sets(pairs, backend, scorer, codes=self.codes, tier=cfg.tier,
                                              id_prefix=split, progress=True)
            self.provenance["report"][split] = report.to_dict()
            gens.append(datasets.SplitGenerator(name=split, gen_kwargs={"rows": rows}))
        return gens

    def _generate_examples(self, rows):
        for row in rows:
            yield row["id"], row

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Rows per code and per new label, and pairs with at least one contrast pair, recounted
        from the rows; the source-pair count, failure reasons and sentence-level coverage come from
        the build report."""
        out = {}
        for split, ds in dataset.items():
            cols = ds.select_columns(["source_id", "transformation", "label"])
            codes = Counter(cols["transformation"])
            labels = Counter(NLI_LABELS[i] for i in cols["label"])
            report = self.provenance.get("report", {}).get(split, {})
            rule_refusals = Counter()       # summed over the codes
            for f in report.get("failures_per_code", {}).values():
                rule_refusals.update({r.removeprefix(RULE_REFUSAL): k for r, k in f.items() if r.startswith(RULE_REFUSAL)})
            out[split] = {
                "examples": len(ds),
                "source_pairs": report.get("pairs"),
                "pairs_with_contrast": len(set(cols["source_id"])),
                "rows_per_code": {c: codes.get(c, 0) for c in self.codes},
                "rows_per_code_unverified": report.get("rows_per_code_unverified", {}),
                "reanalysis_rejections": report.get("reanalysis_rejections", {}),
                "labels": {lab: labels.get(lab, 0) for lab in NLI_LABELS},
                "distinct_sentences": report.get("sentences"),
                "sentence_coverage": report.get("sentence_coverage", {}),
                "failures_per_code": {c: dict(list(f.items())[:5]) for c, f in report.get("failures_per_code", {}).items()},
                "sentence_failures": {p: dict(list(f.items())[:5]) for p, f in report.get("sentence_failures", {}).items()},
                "rule_refusals": dict(rule_refusals.most_common()),
            }
        return out

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        splits = list(stats)
        head = "| transformation | rule | built from | source | " + " | ".join(splits) + " |"
        lines = [head, "|---|---|---|---|" + "---:|" * len(splits)]

        def cell(n, s):
            total = stats[s]["source_pairs"] or 0
            return f"{n:,} ({n / total:.1%})" if total else f"{n:,}"

        for code in self.codes:
            spec = PAIR_TRANSFORMATIONS[code]
            built = ", ".join(f"{NLI_LABELS[k][0].upper()}->{NLI_LABELS[NLI_LABEL_RULES[spec.rule][k]][0].upper()}"
                              for k in sorted(spec.labels(self.config.tier)))
            lines.append(f"| `{code}` | {spec.rule} | {built} | {spec.source} | "
                         + " | ".join(cell(stats[s]["rows_per_code"][code], s) for s in splits) + " |")
        lines.append("| any (pairs with at least one contrast pair) | | | | "
                     + " | ".join(cell(stats[s]["pairs_with_contrast"], s) for s in splits) + " |")
        lines.append("")
        lines.append("Percentages are of the source pairs. \"built from\" lists original -> new label (E entailment, "
                     "N neutral, C contradiction); \"source\" is the rule's origin: the authors' released "
                     "post-process/process.py (rule id) or the paper's Table 1. The paper's ERG pipeline covered "
                     "21.0% of MNLI and 19.7% of SNLI pairs (Li et al., 2020, Table 2).")
        lines.append("")
        lines.append(_RULE_NOTES)
        lines.append("")
        lines.append("The rules are applied only where their premise holds (Li et al., 2020, §4: \"exceptions to such "
                     "rules may occur\"): a pair that both sentences could be transformed for is refused when the "
                     "hypothesis rests on what the operator (may, a tense change, negation) leaves outside its scope, "
                     "when a cleft would assert an exclusiveness the hypothesis is about, or when a contraposition "
                     "has an approximation. Refused rows, by reason:")
        lines.append("")
        for s in splits:
            rr = stats[s].get("rule_refusals") or {}
            lines.append(f"- {s}: " + (", ".join(f"{r} ({k:,})" for r, k in rr.items()) if rr else "none"))
        lines.append("")
        prov = self.provenance
        lines.append(f"Built from {'all of the dev split' if prov.get('source') == 'full' else 'the fixed 1,000-pair samples of TextFooler (Jin et al., 2020), not from all of the dev split'}; "
                     f"second parser: {prov.get('second_parser') or 'none'} (a sentence whose verb group or subject it "
                     "parses otherwise is refused); surface choice: " + str(prov.get("surface_choice")) + ".")
        if self.config.tier == "extended":
            lines.append("")
            lines.append(f"This config holds robust-bench's additions only ({', '.join(f'`{c}`' for c in self.codes)}); "
                         "its validity is what the blind audits listed on this card measured, and none is listed if none was "
                         "recorded for it.")
        lines.append("")
        lines.append("Every candidate surface is parsed again and must re-analyse to what was intended (tense, "
                     "modality, aspect, voice and polarity of the main verb group; the subject, or the old object "
                     "after passivisation; no changed word after the verb group; an it-cleft of the original "
                     "subject). Rows per code without that check -> with it:")
        lines.append("")
        for s in splits:
            before = stats[s].get("rows_per_code_unverified") or {}
            lines.append(f"- {s}: " + ", ".join(f"`{c}` {before.get(c, 0):,} -> {stats[s]['rows_per_code'][c]:,}"
                                                for c in self.codes))
            rej = stats[s].get("reanalysis_rejections") or {}
            if rej:
                lines.append("  - candidates rejected by re-analysis: " + ", ".join(f"{r.removeprefix('re-analysis: ')} "
                                                                               f"({k:,})" for r, k in rej.items()))
        lines.append("")
        lines.append("Sentence-level coverage per phenomenon (distinct premises and hypotheses the backend "
                     "transforms), with the most frequent reasons for refusal:")
        lines.append("")
        for s in splits:
            n = stats[s]["distinct_sentences"] or 0
            lines.append(f"- {s} ({n:,} sentences): " + "; ".join(
                f"{p} {c / n:.1%}" if n else f"{p} {c}" for p, c in stats[s]["sentence_coverage"].items()))
            top = Counter()
            for f in stats[s]["sentence_failures"].values():
                top.update(f)
            if top:
                lines.append("  - refusals (counted once per phenomenon): " + ", ".join(f"{r} ({k:,})" for r, k in top.most_common(6)))
        return "\n".join(lines)
