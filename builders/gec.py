"""Grammatical-error corpora (Yin et al., 2020): the probabilistic transformation of MNLI, MRPC,
QNLI, SST-2 and CoNLL-2003.

Errors of eight learner types are injected into one segment per example, as in §4: the MNLI
hypothesis, the QNLI sentence (second segment), the first MRPC sentence, the SST-2 sentence,
and the non-entity tokens of CoNLL-2003 (entity tokens are never substituted, deleted or
moved; an inserted token is tagged ``O``). Labels are unchanged. Every edit is recorded against
the original tokens so that :func:`robust_bench.perturb.grammar_errors.apply_edits` reproduces the
perturbed text exactly.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import datasets
import numpy as np

from robust_bench.data.builder_base import RobustBenchBuilder, RobustBenchConfig, SourceInfo
from robust_bench.data.registry import register_builder
from robust_bench.data.citations import YIN_2020
from robust_bench.perturb.grammar_errors import ERROR_TYPES, Confusions, perturb, realign_tags, render, tokens_from_doc
from robust_bench.io.sources import SourceFile, describe_read, resolve_sources, sha256_file
from robust_bench.io.task_data import (CONLL2003_TAGS, MRPC_LABELS, NLI_LABELS, QNLI_LABELS, SST2_LABELS,
                                    read_conll2003, read_mrpc, read_nli, read_qnli, read_sst2)

_CITATION = YIN_2020

_DESCRIPTION = """\
Grammatical-error corpora (Yin et al., 2020, §3.1 "probabilistic transformation"): learner
errors of eight types (ArtOrDet, Prep, Trans, Nn, SVA, Vform, Wchoice, Worder) built from
confusion sets and injected, where the spaCy parse makes them plausible, into one segment of
each example until an error budget of error_rate x tokens is spent. Substitution weights and
the error-type distribution are uniform unless the config names a confusions file fitted on an
M2 corpus (NUCLE, CoNLL-2014, BEA-2019) with `robust-bench fit-confusions`; the paper
estimated them from NUCLE, which is not redistributable.
"""

_LICENSE = "Same as the source corpus (see the source line)."

_HUB = "https://huggingface.co/datasets/nyu-mll/glue/resolve/main"
_CONLL_HUB = "https://huggingface.co/datasets/eriktks/conll2003/resolve/refs%2Fconvert%2Fparquet/conll2003"
_MSR_TEST = "https://dl.fbaipublicfiles.com/senteval/senteval_data/msr_paraphrase_test.txt"


@dataclass
class GecConfig(RobustBenchConfig):
    """Config of a grammatical-error corpus.

    Attributes
    ----------
    task : str
        ``mnli``, ``mrpc``, ``qnli``, ``sst2`` or ``conll2003``.
    segment : str
        The field that receives the errors.
    error_rate : float
        Share of the segment's tokens to modify, default 0.15 (§4).
    confusions : str or None
        Path of a confusions JSON from ``robust-bench fit-confusions``; ``None`` is uniform.
    spacy_model : str or None
        spaCy pipeline (name or path); default ``$ROBUST_BENCH_SPACY_MODEL`` or ``en_core_web_sm``.
    files : dict
        Split name to :class:`SourceFile`.
    """

    task: str = ""
    segment: str = ""
    error_rate: float = 0.15
    confusions: str | None = None
    spacy_model: str | None = None
    files: dict | None = None


def _glue(name: str, version: str = "GLUE 1.0") -> SourceInfo:
    return SourceInfo(name=name, version=version, license="see https://gluebenchmark.com/faq",
                      url="https://gluebenchmark.com")


_TASKS = {
    "gec_mnli": dict(task="mnli", segment="hypothesis", splits=("validation_matched", "validation_mismatched"),
                     source_info=_glue("MultiNLI (GLUE MNLI)"),
                     files={"validation_matched": SourceFile(("glue/mnli/dev_matched.tsv", "glue/mnli/dev_matched_sample.tsv"),
                                                             f"{_HUB}/mnli/validation_matched-00000-of-00001.parquet"),
                            "validation_mismatched": SourceFile(("glue/mnli/dev_mismatched.tsv", "glue/mnli/dev_mismatched_sample.tsv"),
                                                                f"{_HUB}/mnli/validation_mismatched-00000-of-00001.parquet")}),
    "gec_mrpc": dict(task="mrpc", segment="sentence1", splits=("validation", "test"),
                     source_info=SourceInfo("Microsoft Research Paraphrase Corpus (GLUE MRPC)", "GLUE 1.0",
                                            "Microsoft Shared Source", "https://www.microsoft.com/en-us/download/details.aspx?id=52398"),
                     files={"validation": SourceFile("glue/mrpc/dev.tsv", f"{_HUB}/mrpc/validation-00000-of-00001.parquet"),
                            "test": SourceFile("glue/mrpc/msr_paraphrase_test.txt", _MSR_TEST)}),
    "gec_qnli": dict(task="qnli", segment="sentence", splits=("validation",), source_info=_glue("QNLI (GLUE)"),
                     files={"validation": SourceFile("glue/qnli/dev.tsv", f"{_HUB}/qnli/validation-00000-of-00001.parquet")}),
    "gec_sst2": dict(task="sst2", segment="sentence", splits=("validation",), source_info=_glue("SST-2 (GLUE)"),
                     files={"validation": SourceFile(("glue/sst2/dev.tsv", "glue/sst-2/dev.tsv"),
                                                     f"{_HUB}/sst2/validation-00000-of-00001.parquet")}),
    "gec_conll2003": dict(task="conll2003", segment="tokens", splits=("validation", "test"),
                          source_info=SourceInfo("CoNLL-2003 English NER", "2003", "research use (Reuters)",
                                                 "https://www.clips.uantwerpen.be/conll2003/ner/"),
                          files={"validation": SourceFile("conll2003/valid.txt", f"{_CONLL_HUB}/validation/0000.parquet"),
                                 "test": SourceFile("conll2003/test.txt", f"{_CONLL_HUB}/test/0000.parquet")}),
}

_READERS = {"mnli": read_nli, "mrpc": read_mrpc, "qnli": read_qnli, "sst2": read_sst2, "conll2003": read_conll2003}
_FIELDS = {"mnli": (("premise", "hypothesis"), NLI_LABELS), "mrpc": (("sentence1", "sentence2"), MRPC_LABELS),
           "qnli": (("question", "sentence"), QNLI_LABELS), "sst2": (("sentence",), SST2_LABELS)}
_CHUNK = 256
_VERSION = datasets.Version("1.0.0")


def _edit_feature():
    return datasets.List({"type": datasets.Value("string"), "position": datasets.Value("int32"),
                          "operation": datasets.Value("string"), "original": datasets.Value("string"),
                          "replacement": datasets.Value("string")})


@register_builder
class GrammaticalErrors(RobustBenchBuilder):
    """Builder for the ``gec_*`` configs."""

    VERSION = _VERSION
    FAMILY = "grammatical_errors"
    CITATION = _CITATION
    DESCRIPTION = _DESCRIPTION
    LICENSE = _LICENSE
    SOURCE = _TASKS["gec_mnli"]["source_info"]
    BUILDER_CONFIG_CLASS = GecConfig
    BUILDER_CONFIGS = [GecConfig(name=name, version=_VERSION, description=_DESCRIPTION, **spec)
                       for name, spec in _TASKS.items()]

    def _info(self) -> datasets.DatasetInfo:
        cfg = self.config
        common = {
            "segment": datasets.Value("string"),
            "original_tokens": datasets.List(datasets.Value("string")),
            "original_spaces": datasets.List(datasets.Value("bool")),
            "perturbed_tokens": datasets.List(datasets.Value("string")),
            "edits": _edit_feature(),
            "n_tokens": datasets.Value("int32"),
            "n_edits": datasets.Value("int32"),
            "n_modified": datasets.Value("int32"),
            "budget": datasets.Value("int32"),
            "no_error_reason": datasets.Value("string"),
        }
        if cfg.task == "conll2003":
            tag = datasets.ClassLabel(names=list(CONLL2003_TAGS))
            feats = {"idx": datasets.Value("int32"), "tokens": datasets.List(datasets.Value("string")),
                     "pos_tags": datasets.List(datasets.Value("string")), "ner_tags": datasets.List(tag),
                     "perturbed_ner_tags": datasets.List(tag), **common}
        else:
            fields, labels = _FIELDS[cfg.task]
            feats = {"idx": datasets.Value("int32"), **{f: datasets.Value("string") for f in fields},
                     "label": datasets.ClassLabel(names=list(labels)),
                     f"perturbed_{cfg.segment}": datasets.Value("string"), **common}
        return datasets.DatasetInfo(description=_DESCRIPTION, features=datasets.Features(feats), citation=_CITATION,
                                    license=self.config.source_info.license, homepage=self.config.source_info.url)

    def _confusions(self) -> Confusions:
        if not self.config.confusions:
            return Confusions()
        from robust_bench.io.fileio import read_text

        text = read_text(self.config.confusions)
        try:
            return Confusions.from_json(json.loads(text))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{self.config.confusions}: not a confusions file ({exc})") from exc

    def _split_generators(self, dl_manager):
        files = {s: self.config.files[s] for s in self.config.splits}
        paths, origin = resolve_sources(files, source_dir=self.config.source_dir, dl_manager=dl_manager)
        reader = _READERS[self.config.task]
        conf = self._confusions()
        self.provenance.update({"source_origin": origin,
                                "source_sha256": {k: sha256_file(p) for k, p in paths.items()},
                                "source_files": {k: files[k].url for k in paths},
                                "confusions": conf.source, "error_rate": self.config.error_rate,
                                "spacy_model": _spacy_name(self.config.spacy_model)})
        gens = []
        self.provenance["source_read"] = {}
        for split in self.config.splits:
            rows = reader(paths[split])
            self.provenance["source_read"][split] = describe_read(paths[split], origin=origin, url=files[split].url,
                                                                  rows=len(rows))
            chunks = [rows[i:i + _CHUNK] for i in range(0, len(rows), _CHUNK)]
            gens.append(datasets.SplitGenerator(name=split, gen_kwargs={"chunks": chunks, "split": split,
                                                                        "confusions": conf}))
        return gens

    def _generate_examples(self, chunks, split, confusions):
        import random

        from robust_bench.text.nlp import load_spacy

        cfg = self.config
        nlp = load_spacy(cfg.spacy_model)
        for chunk in chunks:
            if cfg.task == "conll2003":
                from spacy.tokens import Doc

                inputs = [Doc(nlp.vocab, words=r["tokens"], spaces=[True] * (len(r["tokens"]) - 1) + [False])
                          for r in chunk]
            else:
                inputs = [r[cfg.segment] for r in chunk]
            docs = nlp.pipe(inputs, disable=[p for p in ("ner",) if p in nlp.pipe_names], batch_size=_CHUNK)
            for row, doc in zip(chunk, docs):
                tokens = tokens_from_doc(doc)
                rng = random.Random(f"robust-bench/{cfg.seed}/{cfg.name}/{split}/{row['idx']}")
                protected: set[int] = set()
                no_insert: set[int] = set()
                if cfg.task == "conll2003":
                    tags = [CONLL2003_TAGS[t] for t in row["ner_tags"]]
                    protected = {i for i, t in enumerate(tags) if t != "O"}
                    no_insert = {i for i, t in enumerate(tags) if t.startswith("I-")}
                res = perturb(tokens, rng, error_rate=cfg.error_rate, confusions=confusions,
                              protected=protected, no_insert_before=no_insert)
                out = {k: v for k, v in row.items() if k != "document"}
                out.update({
                    "segment": cfg.segment,
                    "original_tokens": [t.text for t in tokens],
                    "original_spaces": [t.space for t in tokens],
                    "perturbed_tokens": list(res.tokens),
                    "edits": [dict(e) for e in res.edits],
                    "n_tokens": len(tokens),
                    "n_edits": len(res.edits),
                    "n_modified": res.modified,
                    "budget": res.budget,
                    "no_error_reason": res.reason or "",
                })
                if cfg.task == "conll2003":
                    out["perturbed_ner_tags"] = realign_tags(row["ner_tags"], res.edits, fill=0)
                else:
                    out[f"perturbed_{cfg.segment}"] = render(res.tokens, res.spaces)
                yield f"{split}-{row['idx']:06d}", out

    def statistics(self, dataset: datasets.DatasetDict) -> dict[str, Any]:
        """Examples, modified-token share (mean and histogram), counts per error type and
        examples with no error, recounted from the rows."""
        out = {}
        bins = [0.0, 0.05, 0.10, 0.15, 0.20, 0.30, 1.01]
        for split, ds in dataset.items():
            cols = ds.select_columns(["n_tokens", "n_modified", "edits", "no_error_reason"])
            shares, types, ops, reasons = [], Counter(), Counter(), Counter()
            for r in cols:
                shares.append(r["n_modified"] / r["n_tokens"] if r["n_tokens"] else 0.0)
                types.update(e["type"] for e in r["edits"])
                ops.update(e["operation"] for e in r["edits"])
                if r["no_error_reason"]:
                    reasons[r["no_error_reason"]] += 1
            hist, _ = np.histogram(shares, bins=bins)
            labels = [f"{int(a * 100)}-{int(b * 100) if b <= 1 else 100}%" for a, b in zip(bins, bins[1:])]
            out[split] = {
                "examples": len(ds),
                "tokens": int(sum(cols["n_tokens"])),
                "modified_tokens": int(sum(cols["n_modified"])),
                "modified_share_mean": round(float(np.mean(shares)), 4) if shares else 0.0,
                "modified_share_histogram": dict(zip(labels, (int(h) for h in hist))),
                "edits_per_type": {t: types.get(t, 0) for t in ERROR_TYPES},
                "edits_per_operation": dict(sorted(ops.items())),
                "examples_without_error": dict(sorted(reasons.items())),
            }
        return out

    def coverage_notes(self, stats: dict[str, Any]) -> str:
        lines = ["| split | examples | modified share (mean) | without error | "
                 + " | ".join(ERROR_TYPES) + " |", "|---|---:|---:|---:|" + "---:|" * len(ERROR_TYPES)]
        for split, s in stats.items():
            lines.append(f"| {split} | {s['examples']:,} | {s['modified_share_mean']:.1%} | "
                         f"{sum(s['examples_without_error'].values()):,} | "
                         + " | ".join(f"{s['edits_per_type'][t]:,}" for t in ERROR_TYPES) + " |")
        lines.append("")
        lines.append(f"Segment modified: `{self.config.segment}`; error rate {self.config.error_rate}; budget per "
                     "example = round(error_rate x tokens), at least 1 (a swap modifies two tokens). "
                     "Weights and type distribution: " + ("uniform (NUCLE, which the paper used, is not "
                     "redistributable)." if not self.config.confusions else f"fitted, {self._confusions().source}."))
        lines.append("Examples without error: the parse offers no plausible position ('no applicable operation'), "
                     "or every applicable operation exceeds the budget.")
        return "\n".join(lines)


def _spacy_name(name):
    from robust_bench.text.nlp import spacy_model_name

    return spacy_model_name(name)
