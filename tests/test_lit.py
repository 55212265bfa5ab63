"""LIT contrast sets (Li et al., 2020): transformations, label rules, builds, LM ranking, evaluation."""

import json
from pathlib import Path

import datasets
import evaluate
import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from robust_bench.cli import app
from robust_bench.perturb.lit.ud import PHENOMENA, Agreement, Refusal, UDTransformer, VerbGroup, realise_verb_group
from robust_bench.experiments.lit_eval import contrast_set_scores
from robust_bench.perturb.lit.pairs import CODES, PAIR_TRANSFORMATIONS, pair_label
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


# Table 1 / §4.1.1, written out row by row.
RULE_TABLE = [
    ("m;o", E, N), ("m;o", N, N), ("m;o", C, N),
    ("p;f", E, N), ("p;f", N, N), ("p;f", C, N),
    ("f;p", E, N), ("f;p", N, N), ("f;p", C, N),
    ("i;i", E, E), ("i;i", N, N), ("i;i", C, C),
    ("pa;pa", E, E), ("pa;pa", N, N), ("pa;pa", C, C),
    ("p;f +i", E, N), ("p;f +i", N, N), ("p;f +i", C, N),
    ("p;f +pa", E, N), ("p;f +pa", N, N), ("p;f +pa", C, N),
    ("f;p +i", E, N), ("f;p +i", N, N), ("f;p +i", C, N),
    ("f;p +pa", E, N), ("f;p +pa", N, N), ("f;p +pa", C, N),
    ("o;n", E, C), ("o;n", N, N), ("o;n", C, None),
]


@pytest.mark.parametrize("code, original, new", RULE_TABLE)
def test_label_rule_table(code, original, new):
    assert pair_label(code, original) == new


def test_rule_table_covers_every_code_and_compositions_follow_tense():
    assert {c for c, _, _ in RULE_TABLE} == set(CODES)
    for code in CODES:
        if "+" in code:
            base = code.split(" +")[0]
            assert PAIR_TRANSFORMATIONS[code].rule == PAIR_TRANSFORMATIONS[base].rule
            assert PAIR_TRANSFORMATIONS[code].requires_present
    with pytest.raises(ValueError):
        pair_label("m;o", 3)


@pytest.mark.parametrize("config", ["lit_mnli", "lit_snli"])
def test_built_rows_follow_the_rules_row_by_row(lit_repo, config, ud):
    meta = read_metadata(lit_repo)[config]
    for split in meta["files"]:
        ds = datasets.Dataset.from_parquet(str(lit_repo / meta["files"][split]["path"]))
        assert len(ds) > 0
        present = []
        for row in ds:
            spec = PAIR_TRANSFORMATIONS[row["transformation"]]
            assert row["label"] == pair_label(spec.code, row["original_label"])
            assert row["rule"] == spec.rule
            assert row["premise_operations"] == list(spec.premise)
            assert row["hypothesis_operations"] == list(spec.hypothesis)
            for side, ops in (("premise", spec.premise), ("hypothesis", spec.hypothesis)):
                if ops:
                    assert row[side] != row[f"original_{side}"]
                else:
                    assert row[side] == row[f"original_{side}"]
            if spec.requires_present:
                present += [row["original_premise"], row["original_hypothesis"]]
        # the tense codes use pairs whose sentences are both originally present tense
        for clause in ud.analyse_many(sorted(set(present))[:200]):
            assert ud.tense_of(clause) == "present"


def test_card_reports_coverage_per_phenomenon(lit_repo):
    meta = read_metadata(lit_repo)["lit_mnli"]
    stats = meta["statistics"]["validation_matched"]
    assert stats["source_pairs"] == 1000
    assert sum(stats["rows_per_code"].values()) == stats["examples"]
    assert set(stats["sentence_coverage"]) == set(PHENOMENA)
    assert all(0 < v <= stats["distinct_sentences"] for v in stats["sentence_coverage"].values())
    assert stats["failures_per_code"]["pa;pa"]       # reasons are reported
    card = (lit_repo / "README.md").read_text(encoding="utf-8")
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
    assert "`glue/mnli/dev_matched_sample.tsv` (1,000 rows, a sample of the official file" in card
    assert meta["provenance"]["source_read"]["validation_matched"]["sample"] is True
    for code in meta["statistics"]["validation_matched"]["rows_per_code"]:
        cells = " | ".join(f"{counts[s][code]:,} ({counts[s][code] / total[s]:.1%})" for s in splits)
        assert f"| `{code}` | {PAIR_TRANSFORMATIONS[code].rule} | {cells} |" in card, code
    cells = " | ".join(f"{pairs[s]:,} ({pairs[s] / total[s]:.1%})" for s in splits)
    assert f"| any (pairs with at least one contrast pair) | | {cells} |" in card
    assert meta["provenance"]["lm"] and meta["provenance"]["backend"] == "ud"
    assert set(meta["provenance"]["report"]["validation_matched"]["seconds"]) == {"parsing", "transformation",
                                                                                  "lm_ranking"}


def test_augmentation_split_and_split_subset(lit_repo, lit_train_file):
    meta = read_metadata(lit_repo)["lit_snli"]
    assert list(meta["files"]) == ["validation", "train"]
    ds = datasets.load_dataset(str(lit_repo), "lit_snli", split="train")
    assert 0 < len(ds) and set(ds["source_id"]) <= set(range(150))
    assert meta["provenance"]["source_files"]["train"] == str(lit_train_file)


def test_same_build_is_byte_identical(lit_repo, sources, tiny_lm, tmp_path):
    from robust_bench.data.repository import build_config

    again = build_config("lit_mnli", out=tmp_path / "rb", source=sources, options={"lm": str(tiny_lm)})
    for split, p in again.files.items():
        assert p.read_bytes() == (lit_repo / "data" / "lit_mnli" / f"{split}.parquet").read_bytes()


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
    assert s["m;o"] == {"n": 2, "acc_ori": 0.5, "acc_ctr": 1.0, "consistency": 1.0, "consistency_excluded": 0}
    assert s["i;i"]["consistency"] == 0.0 and s["i;i"]["acc_ori"] == 1.0
    assert s["o;n"]["consistency_excluded"] == 1 and np.isnan(s["o;n"]["consistency"])
    assert s["all"]["n"] == 4 and s["all"]["acc_ctr"] == 0.5 and s["all"]["consistency"] == pytest.approx(2 / 3)


def test_evaluate_command_prints_table_3_and_writes_records(lit_repo, tiny_nli_classifier, tmp_path):
    from robust_bench.models.classifiers import HFClassifier
    from robust_bench.leaderboard.records import validate_record
    from robust_bench.io.task_data import NLI_LABELS

    out = tmp_path / "results"
    res = CliRunner().invoke(app, ["evaluate", "--model", str(tiny_nli_classifier), "--config", "lit_mnli",
                                   "--repo", str(lit_repo), "--output-dir", str(out)])
    assert res.exit_code == 0, res.output
    assert "Acc@Ori" in res.output and "Consistency" in res.output and "f;p +pa" in res.output
    records = sorted(out.glob("*.json"))
    assert len(records) == 2
    rec = json.loads(records[0].read_text())
    validate_record(rec)
    # the record's consistency equals the evaluate module's on the same predictions
    ds = datasets.load_dataset(str(lit_repo), "lit_mnli", split=rec["split"])
    clf = HFClassifier(str(tiny_nli_classifier), NLI_LABELS)
    po = clf.predict(list(zip(ds["original_premise"], ds["original_hypothesis"])))
    pc = clf.predict(list(zip(ds["premise"], ds["hypothesis"])))
    got = evaluate.load(metric_path("consistency")).compute(predictions=pc, original_predictions=po, rules=ds["rule"])
    assert rec["metrics"]["consistency"] == pytest.approx(got["consistency"])
    assert rec["metrics"]["acc_ori"] == pytest.approx(float((po == np.asarray(ds["original_label"])).mean()))
    assert set(rec["details"]["per_transformation"]) <= set(CODES)
    assert list(out.glob("*.png"))


def test_evaluate_command_errors(lit_repo, tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--model", str(tmp_path / "none"), "--config", "gec_mnli",
                                   "--repo", str(lit_repo)])
    assert res.exit_code == 2 and "LIT contrast sets" in res.output
    res = CliRunner().invoke(app, ["evaluate", "--model", str(tmp_path / "none"), "--config", "lit_mnli",
                                   "--repo", str(lit_repo)])
    assert res.exit_code == 2 and "does not exist" in res.output
