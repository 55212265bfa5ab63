"""LIT contrast sets (Li et al., 2020): transformations, label rules, builds, LM ranking, evaluation."""

import json
import re
from pathlib import Path

import datasets
import evaluate
import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from robust_bench.cli import app
from robust_bench.perturb.lit.ud import PHENOMENA, Agreement, Refusal, UDTransformer, VerbGroup, realise_verb_group
from robust_bench.evaluations.lit import contrast_set_scores
from robust_bench.perturb.lit.pairs import CODES, EXTENDED_CODES, PAIR_TRANSFORMATIONS, PAPER_CODES, pair_label
from robust_bench.metrics import path as metric_path
from robust_bench.data.repository import read_metadata

CASES = yaml.safe_load((Path(__file__).parent / "data" / "lit_cases.yaml").read_text(encoding="utf-8"))
E, N, C = 0, 1, 2


@pytest.fixture(scope="module")
def ud():
    return UDTransformer()


def test_hand_written_cases(ud, capsys):
    """Every candidate must be one of the hand-written grammatical outputs, and refusals must
    refuse. The pass rate is reported; the failures allowed are parses the small test pipeline
    gets wrong, on which the engine refuses rather than guesses (never a wrong output)."""
    assert len(CASES) >= 80
    ops = {op for c in CASES for op in c["ops"]}
    assert ops >= {op for group in PHENOMENA.values() for op in group}
    passed, wrong_output, failures = 0, [], []
    for case in CASES:
        got = ud.candidates(case["text"], case["ops"])
        if case["expect"] == "refuse":
            ok = not got
            if got:
                wrong_output.append((case, got))
        else:
            ok = bool(got) and all(g in case["expect"] for g in got)
            if got and not ok:
                wrong_output.append((case, got))
        passed += ok
        if not ok:
            failures.append((case["text"], case["ops"], got))
    rate = passed / len(CASES)
    with capsys.disabled():
        print(f"\nLIT hand-written cases: {passed}/{len(CASES)} passed ({rate:.1%}); failures: {failures}")
    assert not wrong_output, wrong_output        # no ungrammatical or unexpected sentence, ever
    assert rate >= 0.95


@pytest.mark.parametrize("vg, agr, question, expected", [
    (VerbGroup("drive", "present", progressive=True, passive=True), Agreement(3, "pl"), False, ["are", "being", "driven"]),
    (VerbGroup("see", "past", negated=True), Agreement(3, "sg"), False, ["did", "not", "see"]),
    (VerbGroup("see", "present"), Agreement(3, "sg"), True, ["does", "see"]),
    (VerbGroup("be", "past", copula=True), Agreement(1, "sg"), True, ["was"]),
    (VerbGroup("be", "past", copula=True), Agreement(2, "pl"), False, ["were"]),
    (VerbGroup("go", "modal", modal="may", perfect=True), Agreement(3, "sg"), False, ["may", "have", "gone"]),
    (VerbGroup("eat", "future", modal="will", perfect=True, passive=True), Agreement(3, "pl"), False,
     ["will", "have", "been", "eaten"]),
    (VerbGroup("have", "present"), Agreement(3, "sg"), False, ["has"]),
])
def test_realise_verb_group(vg, agr, question, expected):
    assert realise_verb_group(vg, agr, question=question) == expected


def test_refusal_reasons(ud):
    for text, reasons in [("Walking in the park.", {"no finite verb", "no subject"}),
                          ("The man sleeps and the woman reads a book.", {"coordinated clauses", "no finite verb"}), ("Is the cat hungry?", {"question"}),
                          ("It rains. It pours.", {"several sentences"}), (" ", {"empty"})]:
        got = ud.analyse_many([text])[0]
        assert isinstance(got, Refusal) and got.reason in reasons, (text, got)
    with pytest.raises(ValueError, match="unknown LIT operation"):
        ud.transform(ud.analyse_many(["John saw Mary."])[0], ["pluperfect"])
    with pytest.raises(ValueError, match="at most one structural"):
        ud.transform(ud.analyse_many(["John saw Mary."])[0], ["passive", "itcleft"])


# The authors' rules, written out row by row: (code, original label, new label in the paper
# configs, new label in the extended configs); None = not built there. Sources: their released
# post-process/process.py (mnli_rules: 1a p;f E->N, 1b f;p C->N, 2a/2b m;o E,C->N, 4 pa;pa and
# 5 i;i any label kept, 7a/7b and 8a/8b the +i/+pa compositions, 9a/9b m+pa;m+pa) and the
# paper's Table 1 (transfer/label_rules.txt: m;m N/E kept, n;n E with sides swapped, i;pa, i;o,
# pa;o kept).
RULE_TABLE = [
    ("p;f", E, N, None), ("p;f", N, None, N), ("p;f", C, None, N),
    ("f;p", E, None, N), ("f;p", N, None, N), ("f;p", C, N, None),
    ("m;o", E, N, None), ("m;o", N, None, N), ("m;o", C, N, None),
    ("m;m", E, E, None), ("m;m", N, N, None), ("m;m", C, None, N),
    ("i;i", E, E, None), ("i;i", N, N, None), ("i;i", C, C, None),
    ("pa;pa", E, E, None), ("pa;pa", N, N, None), ("pa;pa", C, C, None),
    ("i;pa", E, E, None), ("i;pa", N, N, None), ("i;pa", C, C, None),
    ("i;o", E, E, None), ("i;o", N, N, None), ("i;o", C, C, None),
    ("pa;o", E, E, None), ("pa;o", N, N, None), ("pa;o", C, C, None),
    ("n;n", E, E, None), ("n;n", N, None, None), ("n;n", C, None, None),
    ("p;f +i", E, N, None), ("p;f +i", N, None, N), ("p;f +i", C, None, N),
    ("f;p +i", E, None, N), ("f;p +i", N, None, N), ("f;p +i", C, N, None),
    ("p;f +pa", E, N, None), ("p;f +pa", N, None, N), ("p;f +pa", C, None, N),
    ("f;p +pa", E, None, N), ("f;p +pa", N, None, N), ("f;p +pa", C, N, None),
    ("m+pa;m+pa", E, E, None), ("m+pa;m+pa", N, N, None), ("m+pa;m+pa", C, None, N),
    ("o;n", E, None, C), ("o;n", N, None, N), ("o;n", C, None, None),
]


@pytest.mark.parametrize("code, original, paper, extended", RULE_TABLE)
def test_label_rule_table(code, original, paper, extended):
    assert pair_label(code, original, "paper") == paper
    assert pair_label(code, original, "extended") == extended


def test_rule_table_covers_every_code_and_compositions_follow_tense():
    assert {c for c, _, _, _ in RULE_TABLE} == set(CODES)
    for code in CODES:
        if "+" in code and code.startswith(("p;f", "f;p")):
            base = code.split(" +")[0]
            assert PAIR_TRANSFORMATIONS[code].rule == PAIR_TRANSFORMATIONS[base].rule
            assert PAIR_TRANSFORMATIONS[code].paper_labels == PAIR_TRANSFORMATIONS[base].paper_labels
            assert PAIR_TRANSFORMATIONS[code].requires_present
    assert PAIR_TRANSFORMATIONS["m+pa;m+pa"].paper_labels == PAIR_TRANSFORMATIONS["m;m"].paper_labels
    assert set(PAPER_CODES) == set(CODES) - {"o;n"}
    assert set(EXTENDED_CODES) == {"p;f", "f;p", "m;o", "m;m", "p;f +i", "f;p +i", "p;f +pa", "f;p +pa",
                                   "m+pa;m+pa", "o;n"}
    with pytest.raises(ValueError):
        pair_label("m;o", 3)
    with pytest.raises(ValueError, match="unknown tier"):
        pair_label("m;o", 0, "all")


@pytest.mark.parametrize("config", ["lit_mnli", "lit_snli", "lit_mnli_extended", "lit_snli_extended"])
def test_built_rows_follow_the_rules_row_by_row(request, config, ud):
    """Every row of a build from ../shared follows the authors' rules (paper configs) or is one of
    robust-bench's additions (extended configs), checked against RULE_TABLE, written out above."""
    tier = "extended" if config.endswith("_extended") else "paper"
    repo = request.getfixturevalue("build_any")(config) if tier == "extended" else request.getfixturevalue("lit_repo")
    table = {(c, o): (p, x) for c, o, p, x in RULE_TABLE}
    meta = read_metadata(repo)[config]
    assert meta["provenance"]["tier"] == tier
    codes_seen = set()
    for split in meta["files"]:
        ds = datasets.Dataset.from_parquet(str(repo / meta["files"][split]["path"]))
        assert len(ds) > 0
        present = []
        for row in ds:
            spec = PAIR_TRANSFORMATIONS[row["transformation"]]
            codes_seen.add(spec.code)
            want = table[(spec.code, row["original_label"])][0 if tier == "paper" else 1]
            assert want is not None and row["label"] == want, (config, spec.code, row["original_label"])
            assert row["rule"] == spec.rule
            assert row["premise_operations"] == list(spec.premise)
            assert row["hypothesis_operations"] == list(spec.hypothesis)
            # n;n: the new premise is the negated hypothesis, the new hypothesis the negated premise
            sources = {"premise": "original_hypothesis", "hypothesis": "original_premise"} if spec.swap else \
                {"premise": "original_premise", "hypothesis": "original_hypothesis"}
            for side, ops in (("premise", spec.premise), ("hypothesis", spec.hypothesis)):
                if ops:
                    assert row[side] != row[sources[side]]
                else:
                    assert row[side] == row[sources[side]]
            if spec.requires_present:
                present += [row["original_premise"], row["original_hypothesis"]]
        # the tense codes use pairs whose sentences are both originally present tense
        for clause in ud.analyse_many(sorted(set(present))[:200]):
            assert ud.tense_of(clause) == "present"
    assert codes_seen <= set(PAPER_CODES if tier == "paper" else EXTENDED_CODES) and len(codes_seen) >= 4


@pytest.mark.full
@pytest.mark.parametrize("config", ["lit_mnli", "lit_snli"])
def test_whole_builds_give_every_new_code(build_any, config):
    """The whole 1,000-pair samples, as the suite pins them: the codes added in the second audit round
    all build."""
    repo = build_any(config, whole=True)
    meta = read_metadata(repo)[config]
    codes = set()
    for split, f in meta["files"].items():
        assert meta["statistics"][split]["source_pairs"] == 1000
        codes |= set(datasets.Dataset.from_parquet(str(repo / f["path"]))["transformation"])
    assert {"m;m", "n;n", "i;pa", "i;o", "pa;o", "m+pa;m+pa"} <= {PAIR_TRANSFORMATIONS[c].code for c in codes}


def test_card_reports_coverage_per_phenomenon(lit_repo):
    meta = read_metadata(lit_repo)["lit_mnli"]
    stats = meta["statistics"]["validation_matched"]
    from tests.conftest import TEST_LIMITS

    n = TEST_LIMITS["lit_mnli"]
    assert stats["source_pairs"] == n         # the first pairs of the sample (--set limit=N)
    assert sum(stats["rows_per_code"].values()) == stats["examples"]
    assert set(stats["sentence_coverage"]) == set(PHENOMENA)
    assert all(0 < v <= stats["distinct_sentences"] for v in stats["sentence_coverage"].values())
    assert stats["failures_per_code"]["pa;pa"]       # reasons are reported
    # the card's section and the details it links (coverage notes, statistics)
    card = (lit_repo / "README.md").read_text(encoding="utf-8") + (lit_repo / "data" / "lit_mnli" / "details.md").read_text(
        encoding="utf-8")
    # the coverage table is recounted from the rows, not typed in: every cell equals a recount
    from collections import Counter

    splits = list(meta["files"])
    counts, total, pairs = {}, {}, {}
    for s in splits:
        ds = datasets.load_dataset(str(lit_repo), "lit_mnli", split=s)
        counts[s], pairs[s] = Counter(ds["transformation"]), len(set(ds["source_id"]))
        total[s] = meta["statistics"][s]["source_pairs"]
        assert total[s] == meta["provenance"]["source_read"][s]["rows"]
    # the card names the file actually read (the ../shared sample), not the full GLUE file
    assert f"`glue/mnli/dev_matched_sample.tsv` ({n:,} rows, a sample of the official file" in card
    assert meta["provenance"]["source_read"]["validation_matched"]["sample"] is True
    for code in meta["statistics"]["validation_matched"]["rows_per_code"]:
        spec = PAIR_TRANSFORMATIONS[code]
        cells = " | ".join(f"{counts[s][code]:,} ({counts[s][code] / total[s]:.1%})" for s in splits)
        assert f"| `{code}` | {spec.rule} | " in card and f" | {spec.source} | {cells} |" in card, code
    cells = " | ".join(f"{pairs[s]:,} ({pairs[s] / total[s]:.1%})" for s in splits)
    assert f"| any (pairs with at least one contrast pair) | | | | {cells} |" in card
    assert "| `p;f` | to_neutral | E->N | code 1a |" in card and "| `m;m` | possibility | E->E, N->N |" in card
    assert meta["provenance"]["lm"] is None and meta["provenance"]["backend"] == "ud"
    assert meta["provenance"]["surface_choice"].startswith("first candidate")
    assert meta["provenance"]["second_parser"].endswith("en_core_web_sm") and meta["provenance"]["source"] == "sample"
    assert read_metadata(lit_repo)["lit_snli"]["provenance"]["lm"]        # --lm: the LM chooses
    assert set(meta["provenance"]["report"]["validation_matched"]["seconds"]) == {"parsing", "transformation",
                                                                                  "verification", "lm_ranking"}
    # the re-analysis check: rows before >= after, rejections by reason on the card
    for code, n in stats["rows_per_code"].items():
        assert stats["rows_per_code_unverified"][code] >= n
    rej = stats["reanalysis_rejections"]
    assert rej and all(r.startswith("re-analysis: ") for r in rej)
    top = next(iter(rej))
    assert f"{top.removeprefix('re-analysis: ')} ({rej[top]:,})" in card


def test_augmentation_split_and_split_subset(lit_repo, lit_train_file):
    meta = read_metadata(lit_repo)["lit_snli"]
    assert list(meta["files"]) == ["validation", "train"]
    ds = datasets.load_dataset(str(lit_repo), "lit_snli", split="train")
    assert 0 < len(ds) and set(ds["source_id"]) <= set(range(150))
    assert meta["provenance"]["source_files"]["train"] == str(lit_train_file)


def test_same_build_is_byte_identical(lit_repo, build_any):
    """The default build (no LM, the first candidate) gives the same bytes every time (the second build is
    the one the common builder tests make, in two processes)."""
    again = build_any("lit_mnli", num_proc=2, tag="again")
    for split in ("validation_matched", "validation_mismatched"):
        rel = f"data/lit_mnli/{split}.parquet"
        assert (again / rel).read_bytes() == (lit_repo / rel).read_bytes()


def test_unknown_split_is_refused(sources, tmp_path):
    from robust_bench.data.repository import build_config

    with pytest.raises(ValueError, match="has no split"):
        build_config("lit_snli", out=tmp_path / "rb", source=sources, options={"splits": ("dev",)})
    assert not (tmp_path / "rb").exists()


def test_lm_scorer_perplexity_cache_and_choice(tiny_lm):
    from robust_bench.models.lm import CausalLMScorer

    lm = CausalLMScorer(str(tiny_lm), batch_size=3)
    sents = ["A man is sleeping .", "The dogs chase the cat .", "It was the women who were tired .", "Hi"]
    ppl = lm.perplexity(sents)
    assert ppl.shape == (4,) and (ppl >= 1).all()
    # batched (padded) scores equal one-at-a-time scores
    single = CausalLMScorer(str(tiny_lm), batch_size=1)
    assert np.allclose([single.perplexity([s])[0] for s in sents], ppl, rtol=1e-4)
    n = lm.n_forward
    lm.perplexity(sents[::-1])
    assert lm.n_forward == n                                      # cached
    cands = [["It was John who saw Mary .", "It was John that saw Mary ."], ["only one"], []]
    chosen = lm.choose(cands)
    best = cands[0][int(np.argmin(lm.perplexity(cands[0])))]
    assert chosen == [best, "only one", None]
    assert "only one" not in lm._cache                            # a single candidate needs no LM query


def test_contrast_set_scores_hand_computed():
    rows = [{"transformation": "m;o", "rule": "to_neutral", "original_label": E, "label": N},
            {"transformation": "m;o", "rule": "to_neutral", "original_label": C, "label": N},
            {"transformation": "i;i", "rule": "preserve", "original_label": E, "label": E},
            {"transformation": "o;n", "rule": "negation", "original_label": E, "label": C}]
    s = contrast_set_scores(rows, original_predictions=[E, N, E, C], predictions=[N, N, C, E])
    assert s["m;o"] == {"n": 2, "acc_ori": 0.5, "acc_ctr": 1.0, "consistency": 1.0, "contrast_consistency": 0.5,
                      "consistency_excluded": 0}
    assert s["i;i"]["consistency"] == 0.0 and s["i;i"]["acc_ori"] == 1.0
    assert s["o;n"]["consistency_excluded"] == 1 and np.isnan(s["o;n"]["consistency"])
    assert s["all"]["n"] == 4 and s["all"]["acc_ctr"] == 0.5 and s["all"]["consistency"] == pytest.approx(2 / 3)
    # Gardner et al. (2020): original and contrast both right, on the first row only
    assert s["all"]["contrast_consistency"] == 0.25 and s["i;i"]["contrast_consistency"] == 0.0


def test_evaluate_command_prints_table_3_and_writes_a_run(lit_repo, tiny_nli_classifier, tmp_path):
    """`evaluate` on a local build (not the suite's pinned data): a run of a derived suite on the split the
    lit suite scores, whose record's consistency equals the metric module's on the same predictions."""
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.suite.runner import run_folder

    out = tmp_path / "results"
    res = CliRunner().invoke(app, ["evaluate", "--model", str(tiny_nli_classifier), "--config", "lit_mnli",
                                   "--repo", str(lit_repo), "--output-dir", str(out)])
    assert res.exit_code == 0, res.output
    assert "Acc@Ori" in res.output and "Consistency" in res.output and "i;i" in res.output
    (run,) = run_folder(out, str(tiny_nli_classifier)).iterdir()
    records = sorted((run / "records").glob("*.json"))
    assert len(records) == 1 and (run / "suite.yaml").is_file()       # the split the lit suite scores
    rec = json.loads(records[0].read_text())
    assert rec["schema_version"].startswith("2") and rec["suite"]["name"].startswith("lit_mnli_command_")
    assert rec["split"] == "validation_matched"
    # the record's consistency equals the evaluate module's on the same predictions
    ds = datasets.load_dataset(str(lit_repo), "lit_mnli", split=rec["split"])
    clf = HFClassifier(str(tiny_nli_classifier), NLI_LABELS)
    po = clf.predict(list(zip(ds["original_premise"], ds["original_hypothesis"])))
    pc = clf.predict(list(zip(ds["premise"], ds["hypothesis"])))
    got = evaluate.load(metric_path("consistency")).compute(predictions=pc, original_predictions=po, rules=ds["rule"])
    assert rec["metrics"]["consistency"] == pytest.approx(got["consistency"])
    assert rec["metrics"]["acc_ori"] == pytest.approx(float((po == np.asarray(ds["original_label"])).mean()))
    table = (run / "tables" / f"{rec['task']}__table3.txt").read_text()
    assert all(code in CODES or code == "all" for code in re.findall(r"^  (\S+)\s+\d+", table, re.M))
    assert list((run / "figures").glob("*__table3.png"))


def test_evaluate_command_errors(lit_repo, tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--model", str(tmp_path / "none"), "--config", "gec_mnli",
                                   "--repo", str(lit_repo)])
    assert res.exit_code == 2 and "LIT contrast sets" in res.output
    res = CliRunner().invoke(app, ["evaluate", "--model", str(tmp_path / "none"), "--config", "lit_mnli",
                                   "--repo", str(lit_repo)])
    assert res.exit_code == 2 and "does not exist" in res.output


def test_audit_command_draws_lit_rows_with_their_labels(lit_repo, tmp_path):
    import csv

    out = tmp_path / "audit.tsv"
    args = ["audit", "lit_mnli", "--sample", "20", "--seed", "0", "--repo", str(lit_repo), "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "[20]" in res.output and "->" in res.output
    rows = list(csv.DictReader(out.open(encoding="utf-8"), delimiter="\t"))
    assert len(rows) == 20 and all(r["judgement"] == "" for r in rows) and len({r["id"] for r in rows}) == 20
    assert all(r["original"].startswith("P: ") and " || H: " in r["perturbed"] and "; label " in r["edits"]
               for r in rows)
    again = tmp_path / "again.tsv"
    CliRunner().invoke(app, args[:-1] + [str(again)])
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")      # same seed, same rows
    res = CliRunner().invoke(app, ["audit", "lit_mnli", "--sample", "0", "--repo", str(lit_repo)])
    assert res.exit_code == 2 and "at least 1" in res.output


def test_a_parser_without_ud_relations_is_refused_by_name(tmp_path):
    """spaCy's en_core_web_* pipelines label ClearNLP relations (dobj, nsubjpass, no cop): the UD
    backend would misread every clause, so it refuses the pipeline with one error naming it."""
    import spacy
    from spacy.training import Example

    from robust_bench.text.nlp import SpacyModelError

    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    parser = nlp.add_pipe("parser")
    for label in ("nsubj", "dobj", "nsubjpass", "auxpass", "acomp", "punct"):
        parser.add_label(label)
    doc = nlp.make_doc("John sees Mary .")
    example = Example.from_dict(doc, {"tags": ["NNP", "VBZ", "NNP", "."], "heads": [1, 1, 1, 1],
                                      "deps": ["nsubj", "ROOT", "dobj", "punct"]})
    nlp.initialize(lambda: [example])
    nlp.to_disk(tmp_path / "clearnlp")
    with pytest.raises(SpacyModelError, match=r"clearnlp.*Universal Dependencies.*ClearNLP labels \['acomp', 'auxpass', 'dobj', 'nsubjpass'\]"):
        UDTransformer(str(tmp_path / "clearnlp"))


# Issue 31: the refusal classes of the three decisions, on real MNLI dev pairs (TextFooler's samples)
MO_PAIRS = [  # (premise, hypothesis, original label, refusal reason or None)
    ("The day my deadline came , I got a business card .", "I received a business card on the day of my deadline .",
     E, "label rule: premise: hypothesis rests on a clause outside the scope of may"),
    ("The sacred is not mysterious to her .", "The woman is familiar with the sacred .", E,
     "label rule: premise: hypothesis rests on the subject, outside the scope of may"),
    ("Tuppence frowned .", "Tuppence beamed with delight .", C, None),     # the clash is in may's scope
    # SNLI dev (TextFooler's sample): "may ride along a concrete ledge" still says what the ledge is
    ("A man wearing black pants rides along a concrete ledge on rollerblades .",
     "The ledge is made of a hard substance .", E,
     "label rule: premise: hypothesis about an argument or a modifier, which may leaves presupposed"),
]


def test_m_o_is_refused_where_the_hypothesis_rests_outside_the_modal_scope(ud):
    """Decision 1: m;o -> neutral holds only where the evidence for the hypothesis is what *may*
    takes in its scope; otherwise the pair is refused with its reason, counted on the card."""
    from robust_bench.models.lm import FirstCandidate
    from robust_bench.perturb.lit.pairs import make_contrast_sets

    pairs = [{"idx": i, "premise": p, "hypothesis": h, "label": lab} for i, (p, h, lab, _) in enumerate(MO_PAIRS)]
    rows, report = make_contrast_sets(pairs, ud, FirstCandidate(), codes=["m;o"])
    built = {r["source_id"] for r in rows}
    for i, (_, _, _, reason) in enumerate(MO_PAIRS):
        if reason is None:
            assert i in built
        else:
            assert i not in built and report.failures_per_code["m;o"].get(reason), (i, report.failures_per_code)
    assert [r["premise"] for r in rows] == ["Tuppence may have frowned ."] and rows[0]["label"] == N


def test_a_second_parser_that_disagrees_refuses_the_sentence():
    """Decision 2: en_rb_sm reads "retailers" as the verb of this MNLI premise (dev mismatched);
    en_core_web_sm, the second parser, reads "allows": the sentence is refused, not transformed."""
    text = "Use of continuous review allows retailers to achieve a higher service level with a lower amount of inventory ."
    alone = UDTransformer(second_parser="none")
    assert alone.second_parser is None
    clause = alone.analyse_many([text])[0]
    assert not isinstance(clause, Refusal) and [clause.toks[i].text for i in clause.chain] == ["retailers"]
    checked = UDTransformer().analyse_many([text])[0]
    assert isinstance(checked, Refusal) and checked.reason == "parsers disagree on the verb group"
    # SNLI dev: en_rb_sm takes "ties" for a noun, so "smoked ... and ties" would mix tenses
    text = "A shirtless man with cropped hair smokes a cigarette and ties a plastic bag ."
    checked = UDTransformer().analyse_many([text])[0]
    assert isinstance(checked, Refusal) and checked.reason == "parsers disagree on a coordinated verb"


@pytest.mark.parametrize("text, ops, reason", [
    # a lasting classification: "Penrith and Blencathra will also be Celtic names" (MNLI dev matched)
    ("Penrith and Blencathra are also Celtic names , established during this early period of settlement .",
     ["future"], "classifying copula"),
    ("The museum contains paintings from the Renaissance .", ["past"], "stative verb"),
    # an existential presupposition under negation: "a small container is not stuffed" (MNLI dev matched)
    ("A small container is stuffed with bits of leftovers .", ["negation"], "indefinite subject"),
    # "People are not shopping for many things" reads as "for few things" (SNLI dev)
    ("People are shopping for many things .", ["negation"], "quantifier after the verb"),
    # a present relative clause keeps its tense: "was looking at the sign that a woman is holding" (SNLI dev)
    ("A man is looking at the sign that a brunette woman is holding .", ["past"], "finite relative clause"),
    # the second round of blind audits (issue 31, 2026-11-27), each on its real row:
    # "The ledge will be made of a hard substance" (SNLI dev) is no new event
    ("The ledge is made of a hard substance .", ["future"], "lasting property"),
    # "Guitar is played by a woman for tips" (SNLI dev)
    ("A woman plays guitar for tips .", ["passive"], "bare singular object"),
    # "Blue hats are being worn by four children with colored streamers" (SNLI dev)
    ("Four children are wearing blue hats with colored streamers .", ["passive"], "with-phrase after the object"),
    # "I said much" (MNLI dev mismatched)
    ("I did n't say much .", ["negation"], "negative polarity item"),
    # "... was sitting on the floor with her small dog that is wrapped in a blanket" (SNLI dev)
    ("A woman in a gray sweatshirt is sitting on the floor with her small dog that is wrapped in a blanket .",
     ["past"], "present clause under a past verb"),
    # "We will have provided an invoice" (MNLI dev mismatched) reads as a guess about the past
    ("We have provided an invoice for your gift .", ["future"], "future perfect"),
    # "A jumping kick is done by a child" (SNLI dev)
    ("A child does a jumping kick .", ["passive"], "verb without passive"),
])
def test_risky_constructions_are_refused(ud, text, ops, reason):
    """Decision 3: tense changes on stative predicates and negation of indefinite subjects."""
    clause = ud.analyse_many([text])[0]
    assert not isinstance(clause, Refusal), clause
    with pytest.raises(Refusal) as exc:
        ud.transform(clause, ops)
    assert exc.value.reason == reason
    assert ud.candidates(text, ["may"])      # the sentence itself is fine: may still applies


def test_offline_default_chooses_the_first_candidate():
    from robust_bench.models.lm import FirstCandidate

    assert FirstCandidate().choose([["It is John who left .", "It is John that left ."], [], ["x"]]) == [
        "It is John who left .", None, "x"]


def test_unknown_code_and_source_are_refused_naming_them(sources, tmp_path):
    from robust_bench.data.repository import build_config

    with pytest.raises(ValueError, match=r"unknown LIT transformation code\(s\) \['x;y'\]"):
        build_config("lit_mnli", out=tmp_path / "rb", source=sources, options={"codes": ("m;o", "x;y")})
    with pytest.raises(ValueError, match="unknown LIT source 'all'"):
        build_config("lit_mnli", out=tmp_path / "rb", source=sources, options={"source": "all"})
    assert not (tmp_path / "rb" / "data").exists()
    res = CliRunner().invoke(app, ["build", "lit_mnli", "--codes", "m;o,zz", "--out", str(tmp_path / "rb2"),
                                   "--source", str(sources)])
    assert res.exit_code != 0 and "zz" in res.output and not (tmp_path / "rb2" / "data").exists()


def test_an_lm_that_is_not_a_causal_lm_is_refused(sources, tmp_path, tiny_nli_classifier):
    from robust_bench.data.repository import build_config
    from robust_bench.models.loader import ModelError

    with pytest.raises(ModelError, match="causal LM"):
        build_config("lit_mnli", out=tmp_path / "rb", source=sources,
                     options={"lm": str(tiny_nli_classifier), "splits": ("validation_matched",)})
    assert not (tmp_path / "rb" / "data").exists()


def test_a_pipeline_without_a_parser_is_refused_by_name(tmp_path):
    """As the first or the second parser: one error naming the pipeline and the missing component."""
    import spacy

    from robust_bench.text.nlp import SpacyModelError

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(tmp_path / "noparser")
    with pytest.raises(SpacyModelError, match=r"noparser.*has no 'tagger'"):
        UDTransformer(str(tmp_path / "noparser"))
    with pytest.raises(SpacyModelError, match=r"noparser.*has no 'parser'"):
        UDTransformer(second_parser=str(tmp_path / "noparser"))


def test_a_quantifier_keeps_no_capital_when_it_moves():
    """MNLI dev: "Few Americans had noticed it" -> "It had been noticed by few Americans", not "by Few"."""
    assert UDTransformer().candidates("Few Americans had noticed it .", ["passive"]) == [
        "It had been noticed by few Americans ."]


def test_whole_sentence_refusals_of_the_second_audit_round(ud):
    """Sentences refused whole, for classes a blind audit found (issue 31, 2026-11-27)."""
    for text, reason in [
        # "They may be both excited about it" (MNLI dev): a floating quantifier after a copula
        ("They 're both excited about it .", "floating quantifier"),
        # "But fortunately they may have done n't ." (MNLI dev): an elliptical do
        ("But fortunately they did n't .", "elliptical verb phrase"),
    ]:
        clause = ud.analyse_many([text])[0]
        assert isinstance(clause, Refusal) and clause.reason == reason, (text, clause)
    # a specificational subject is no cleft focus: not "It is the whole point that is speed ..."
    assert not ud.candidates("The whole point is speed and clarity of communications .", ["itcleft"])


def test_contractions_and_sentence_boundaries_are_read_as_words():
    """en_rb_sm was trained on UD EWT, which writes "she's" as one multiword token: a separate
    "'s" is read as a subject. The parser reads the spelled-out clitic instead, and the sentence
    keeps its own words; an unchanged auxiliary keeps its contracted negation."""
    from robust_bench.perturb.lit.ud import _parse_words

    assert _parse_words("I ca n't say it 's been easy ; let 's go , we 're here and he 's fine".split()) == \
        "I can not say it has been easy ; let us go , we are here and he is fine".split()
    ud = UDTransformer()
    assert ud.candidates("She 's very tired .", ["future"]) == ["She will be very tired ."]
    assert ud.candidates("Her interviewer did n't bat an eye .", ["itcleft"])[0] == \
        "It was her interviewer that did n't bat an eye ."
    # en_rb_sm splits this single MNLI sentence in two on its own; the rule-based boundaries keep it whole
    text = ("The most comfortable way to see these important Hoysala temples is to visit them on either side of an "
            "overnight stay at Hassan , 120 km -LRB- 75 miles -RRB- northwest of Mysore .")
    assert len(list(ud.nlp(text).sents)) > 1
    clause = ud.analyse_many([text])[0]
    assert not (isinstance(clause, Refusal) and clause.reason == "several sentences")
    two = ud.analyse_many(["The island has a long history . Its marble deposits were coveted around the ancient world ."])
    assert isinstance(two[0], Refusal) and two[0].reason == "several sentences"


E, N, C = 0, 1, 2


@pytest.mark.parametrize("code, premise, hypothesis, label, reason", [
    # MNLI dev mismatched: "Our programs can not save lives in schools" does not entail "Our free
    # educational programs can not save lives"
    ("n;n", "Our free educational programs can save lives .", "Our programs can save lives in schools .", E,
     "hypothesis adds content, which contraposition does not carry"),
    ("n;n", "As a key part of its efforts , Defense created National Guard WMD Civil Support Teams to respond in the "
            "event of a WMD terrorist incident .",
     "Defense created the National Guard WMD Civil Support Teams to deal with a terrorism event on a mass scale .", E,
     "material before the subject under contraposition"),
    # SNLI dev: "Two women may walk down a sidewalk" does not entail "The women may have been walking"
    ("m;m", "Two women walk down a sidewalk along a busy street in a downtown area .",
     "The women were walking downtown", E, "may over different tenses"),
    # SNLI dev: the dogs are still black and white under may
    ("m;o", "A large black and white dog is licking a smaller white and black dog who is growling .",
     "The dog is red", C, "premise: contradiction may rest on a description of the subject, outside the scope of may"),
    ("m;o", "A man in a blue shirt is performing a skateboarding trick near stiars while two other men watch .",
     "Nobody has a shirt", C, "premise: contradiction may rest on a modifier of the subject, outside the scope of may"),
])
def test_pair_rules_of_the_second_audit_round(ud, code, premise, hypothesis, label, reason):
    """Pair-level refusals: the label rule's premise does not hold (Li et al. 2020, §4)."""
    from robust_bench.models.lm import FirstCandidate
    from robust_bench.perturb.lit.pairs import RULE_REFUSAL, make_contrast_sets

    rows, report = make_contrast_sets([{"idx": 0, "premise": premise, "hypothesis": hypothesis, "label": label}],
                                      ud, FirstCandidate(), codes=[code])
    assert not rows and report.failures_per_code[code].get(RULE_REFUSAL + reason) == 1, report.failures_per_code[code]


def _parsed(rows):
    """A spaCy Doc from (word, tag, pos, dep, head index, lemma) rows: a parse fixed by hand, whatever the
    test pipeline would give."""
    import spacy
    from spacy.tokens import Doc

    words, tags, pos, deps, heads, lemmas = zip(*rows)
    return Doc(spacy.blank("en").vocab, words=list(words), tags=list(tags), pos=list(pos), deps=list(deps),
               heads=list(heads), lemmas=list(lemmas))


def test_misparses_of_the_reference_pipeline_found_by_the_v10_audit_are_refused():
    """Blind audit of lit_snli on en_robust_bench_sm (seed 20261303) and lit_mnli (seed 20261302): each row
    on en_robust_bench_sm's own parse of it."""
    from robust_bench.perturb.lit.ud import analyse, transform

    # "wipe" (VB) a conjunct of "kitchen": not "It was two women that stood in a kitchen and wipe down trays"
    doc = _parsed([("Two", "CD", "NUM", "nummod", 1, "two"), ("women", "NNS", "NOUN", "nsubj", 2, "woman"),
                   ("stand", "VBP", "VERB", "ROOT", 2, "stand"), ("in", "IN", "ADP", "case", 5, "in"),
                   ("a", "DT", "DET", "det", 5, "a"), ("kitchen", "NN", "NOUN", "obl", 2, "kitchen"),
                   ("and", "CC", "CCONJ", "cc", 7, "and"), ("wipe", "VB", "VERB", "conj", 5, "wipe"),
                   ("down", "JJ", "ADP", "amod", 9, "down"), ("trays", "NNS", "NOUN", "obl", 2, "tray")])
    with pytest.raises(Refusal) as exc:
        analyse(doc)
    assert exc.value.reason == "coordinated clauses"
    # "white" taken for the object's head, "dog" its conjunct: not "A smaller white and black dog who is
    # growling are being licked by a large black and white dog"
    doc = _parsed([("A", "DT", "DET", "det", 2, "a"), ("large", "JJ", "ADJ", "amod", 2, "large"),
                   ("dog", "NN", "NOUN", "nsubj", 4, "dog"), ("is", "VBZ", "AUX", "aux", 4, "be"),
                   ("licking", "VBG", "VERB", "ROOT", 4, "lick"), ("a", "DT", "DET", "det", 7, "a"),
                   ("smaller", "JJR", "ADJ", "amod", 7, "small"), ("white", "NN", "NOUN", "obj", 4, "white"),
                   ("and", "CC", "CCONJ", "cc", 10, "and"), ("black", "JJ", "ADJ", "amod", 10, "black"),
                   ("dog", "NN", "NOUN", "conj", 7, "dog"), (".", ".", "PUNCT", "punct", 4, ".")])
    clause = analyse(doc)
    assert clause.obj_refusal == "coordinated object"
    with pytest.raises(Refusal, match="coordinated object"):
        transform(clause, ["passive"])
    # a capitalised adjective after the first word: "It is current Chinese leaders that ...", not "Current"
    doc = _parsed([("Current", "JJ", "ADJ", "amod", 2, "current"), ("Chinese", "JJ", "ADJ", "amod", 2, "chinese"),
                   ("leaders", "NNS", "NOUN", "nsubj", 3, "leader"), ("have", "VBP", "VERB", "ROOT", 3, "have"),
                   ("advantages", "NNS", "NOUN", "obj", 3, "advantage"), (".", ".", "PUNCT", "punct", 3, ".")])
    assert "It is current Chinese leaders that have advantages ." in transform(analyse(doc), ["itcleft"])


# Issue 52, item 2: analyse runs named checks in order (robust_bench.perturb.lit.checks), and records per
# operation the first check of robust_bench.perturb.lit.operation_checks that holds. Each check below is
# shown on a real parse by the test pipeline that it refuses (for a sentence check: the first that refuses).
SENTENCE_CHECK_CASES = [
    ('empty', '.'),
    ('several_sentences', 'It rains . It pours .'),
    ('question', 'Does it rain ?'),
    ('no_finite_verb', 'It rains.'),
    ('no_subject', 'Close the door.'),
    ('no_subject_expletive_it', 'It seems that he left .'),
    ('subject_after_verb', 'Never have I seen it .'),
    ('subordinate_clause_taken_for_the_main_clause', 'That he left surprised me .'),
    ('coordinated_clauses', 'Cobuild uses more space to explain items but has fewer entries than CED .'),
    ('coordinated_clauses_parataxis', 'He left ; she stayed .'),
    ('verb_in_a_nominal_relation', 'Employees engaged in textile manufacturing tend to be disgruntled .'),
    ('finite_verb_before_the_subject', 'Harlem was our first permanent office , he said .'),
    ('unattached_noun_phrase_before_the_subject', 'The more pieces in a marker , the more effort required .'),
    ('coordinated_clauses_with_a_noun', 'Opium smoking is allowed in Hong Kong and mainland China .'),
    ('heading_or_fragment', 'What Clustering Looks Like in the Real World'),
    ('headline_casing', 'HE KNOWS ABOUT THE MINES .'),
    ('negation_without_auxiliary', 'Homes or businesses not located on one of these roads must place a mail receptacle along the route traveled .'),
    ('interrupted_verb_group', 'The man , however , left .'),
    ('discourse_be', 'That is , this is the last such request that will be penned from the Cavanaugh Hall address .'),
    ('floating_quantifier', "They 're both excited about it ."),
    ('reduced_relative_clause_taken_for_the_main_verb', 'The main specification tracked is the allowance for the plant .'),
    ('coordinated_clauses_after_the_verb_group', 'He saw the man who sang and danced .'),
    ('unusual_verb_group_copula', 'The girl does not like fish.'),
    ('elliptical_verb_phrase', 'They must have because it rained .'),
    ('elliptical_verb_phrase_alone', "But fortunately they did n't ."),
    ('unusual_verb_group_do_support', 'He do has seen it .'),
    ('no_subject_there', 'There is .'),
    ('agreement_mismatch', 'The dogs barks loudly .'),
    ('past_or_present_form', 'Two men read a book .'),
]
OPERATION_CHECK_CASES = [
    ('tense_first_person_attitude_verb', "' I see . '"),
    ('tense_relative_clause_in_the_subject_of_be', 'The thing he wants is money .'),
    ('tense_reporting_tag', '" Go , " he said .'),
    ('tense_verb_of_liking_with_an_infinitive', 'We like to help .'),
    ('tense_used_to', 'She used to swim .'),
    ('tense_going_to_future', 'He is going to go .'),
    ('tense_only_finite_temporal_clause', 'The man left as the children play .'),
    ('tense_only_finite_relative_clause', 'He saw the man who is tall .'),
    ('past_present_clause_under_a_past_verb', 'He saw the man who is tall .'),
    ('cleft_indefinite_or_numeral_subject', 'A man reads a book .'),
    ('cleft_generic_plural_subject', 'People eat rice.'),
    ('cleft_specificational_copula', "The book is John 's ."),
    ('cleft_relative_clause_in_the_subject_of_be', 'The thing he wants is money .'),
    ('cleft_specificational_noun', 'The point is speed .'),
    ('cleft_adjective_as_subject', 'The sacred is not mysterious to her .'),
    ('cleft_anaphoric_subject', 'Concerns over the safety of other aircraft began to mount .'),
    ('cleft_bare_singular_noun', 'Girl blows bubbles .'),
    ('cleft_additive_adverb', 'He made a face too .'),
    ('cleft_participle_or_as_phrase_before_the_subject', 'Standing , he saw the man .'),
    ('object_no_direct_object', 'I am tired.'),
    ('object_generic_subject_one', 'One can charter a yacht .'),
    ('object_generic_agent', 'People eat rice.'),
    ('object_focus_adverb', 'He only ate the cake .'),
    ('object_participle_or_as_phrase_before_the_subject', 'Standing , he saw the man .'),
    ('object_comparison', 'He spent more time than inventors do .'),
    ('object_by_phrase_already_present', 'Postal Service could increase those same rates by at least 13 .'),
    ('object_punctuation_in_the_subject', 'John , my friend , saw the man .'),
    ('object_double_object_or_complement_clause', 'They gave him a book.'),
    ('object_participle_adjunct', 'At 8:21 , American 11 turned off its transponder , immediately degrading the information available about the aircraft .'),
    ('object_bare_singular_noun', 'Girl blows bubbles .'),
    ('object_bare_singular_object', 'A woman plays guitar .'),
    ('object_with_phrase_after_the_object', 'Four children are wearing blue hats with colored streamers .'),
    ('object_reflexive_or_reciprocal_object', 'He saw himself .'),
    ('object_is_not_a_noun_phrase', "He saw the man 's ."),
    ('object_infinitival_complement_in_the_object', 'He enabled CIOs to work .'),
    ('object_coordinated_object', 'He saw the man and the woman .'),
    ('object_prepositional_phrase_after_the_object', 'A man puts a roof on a house .'),
    ('object_oblique_after_the_object', 'He put the book on the table .'),
    ('object_light_verb_idiom', 'He made a face .'),
    ('object_possessive_bound_by_the_subject', 'Critics lauded their work .'),
    ('object_negative_or_quantified_object', 'He did not see anything .'),
    ('object_is_not_one_noun_phrase', 'He found your mistress busy writing letters .'),
    ('stative_classifying_copula', 'Obese is a word .'),
    ('stative_lasting_property', 'The town is far away .'),
    ('stative_stative_verb', 'I know the man to be honest .'),
    ('stative_made_of', 'The ledge is made of stone .'),
    ('stative_generic_subject', 'People eat rice.'),
]


def test_sentence_checks_run_in_order_with_their_reasons():
    """The order decides which reason is counted on the card; the reasons are the card's strings."""
    from robust_bench.perturb.lit.checks import CHECKS

    assert [(c.__name__, c.reason) for c in CHECKS] == [
        ("empty", "empty"), ("several_sentences", "several sentences"), ("question", "question"),
        ("no_finite_verb", "no finite verb"), ("clausal_subject", "clausal subject"), ("no_subject", "no subject"),
        ("no_subject_expletive_it", "no subject"), ("subject_after_verb", "subject after verb"),
        ("subordinate_clause_taken_for_the_main_clause", "subordinate clause taken for the main clause"),
        ("coordinated_clauses", "coordinated clauses"), ("coordinated_clauses_parataxis", "coordinated clauses"),
        ("unattached_clause", "unattached clause"), ("verb_in_a_nominal_relation", "verb in a nominal relation"),
        ("finite_verb_before_the_subject", "finite verb before the subject"),
        ("unattached_noun_phrase_before_the_subject", "unattached noun phrase before the subject"),
        ("subordinate_clause_taken_for_the_main_clause_wh", "subordinate clause taken for the main clause"),
        ("coordinated_clauses_with_a_noun", "coordinated clauses"), ("heading_or_fragment", "heading or fragment"),
        ("headline_casing", "headline casing"), ("negation_without_auxiliary", "negation without auxiliary"),
        ("interrupted_verb_group", "interrupted verb group"), ("discourse_be", "discourse be"),
        ("floating_quantifier", "floating quantifier"),
        ("reduced_relative_clause_taken_for_the_main_verb", "reduced relative clause taken for the main verb"),
        ("coordinated_clauses_after_the_verb_group", "coordinated clauses"),
        ("unusual_verb_group_copula", "unusual verb group"), ("unusual_verb_group_be", "unusual verb group"),
        ("elliptical_verb_phrase", "elliptical verb phrase"), ("elliptical_verb_phrase_alone", "elliptical verb phrase"),
        ("unusual_verb_group_do_support", "unusual verb group"), ("no_subject_there", "no subject"),
        ("agreement_mismatch", "agreement mismatch"), ("past_or_present_form", "past or present form")]
    for check in CHECKS:
        assert check.__doc__ and check.__name__.startswith(check.reason.split()[0].replace("-", "_")), check


@pytest.fixture(scope="module")
def check_readings(ud):
    """Readings of the sentences of the two tables, parsed in one batch."""
    from robust_bench.perturb.lit.reading import Reading
    from robust_bench.perturb.lit.ud import parse

    texts = sorted({t for _, t in SENTENCE_CHECK_CASES + OPERATION_CHECK_CASES})
    return {t: Reading(d) for t, d in zip(texts, parse(ud.nlp, texts))}


@pytest.mark.parametrize("name, text", SENTENCE_CHECK_CASES)
def test_each_sentence_check_refuses_a_real_parse(check_readings, name, text):
    from robust_bench.perturb.lit.analysis import first_refusal
    from robust_bench.perturb.lit.ud import analyse

    check, detail = first_refusal(check_readings[text])
    assert check.__name__ == name
    with pytest.raises(Refusal) as exc:
        analyse(check_readings[text].doc)
    assert exc.value.reason == check.reason and str(exc.value) == check.reason + (f": {detail}" if detail else "")


@pytest.mark.parametrize("name, text", OPERATION_CHECK_CASES)
def test_each_operation_check_holds_on_a_real_parse(check_readings, name, text):
    """Per operation, the first check of its tuple that holds gives the reason the Clause records."""
    from robust_bench.perturb.lit import operation_checks
    from robust_bench.perturb.lit.analysis import analyse, first_refusal

    reading = check_readings[text]
    assert first_refusal(reading) is None
    field = {"TENSE_CHECKS": "tense_refusal", "TENSE_ONLY_CHECKS": "tense_only_refusal", "PAST_CHECKS": "past_refusal",
             "CLEFT_CHECKS": "cleft_refusal", "OBJECT_CHECKS": "obj_refusal", "STATIVE_CHECKS": "stative_refusal"}
    for group, attr in field.items():
        checks = getattr(operation_checks, group)
        if name in [c.__name__ for c in checks]:
            first = next(c for c in checks if c(reading))
            assert first.__name__ == name and first.__doc__
            assert getattr(analyse(reading.doc), attr) == first.reason
            return
    raise AssertionError(f"{name} is in no tuple of operation_checks")
