"""End to end: the gec_* corpora built from the real GLUE and CoNLL-2003 files in ../shared."""

import json

import datasets
import pytest

from robust_bench.perturb.gec import apply_edits, render
from robust_bench.data.registry import list_configs
from robust_bench.data.repository import build_config, read_metadata
from robust_bench.io.task_data import read_conll2003, read_mrpc, read_nli, read_qnli, read_sst2

GEC = [e.name for e in list_configs() if e.family == "grammatical_errors"]
SEGMENT = {"gec_mnli": "hypothesis", "gec_mrpc": "sentence1", "gec_qnli": "sentence", "gec_sst2": "sentence"}
UNTOUCHED = {"gec_mnli": ["premise"], "gec_mrpc": ["sentence2"], "gec_qnli": ["question"], "gec_sst2": []}


@pytest.fixture(scope="module")
def gec(gec_repo):
    return {c: datasets.load_dataset(str(gec_repo), c) for c in GEC}


def test_all_configs_build_with_the_expected_splits(gec):
    assert {c: sorted(d) for c, d in gec.items()} == {
        "gec_conll2003": ["test", "validation"], "gec_mnli": ["validation_matched", "validation_mismatched"],
        "gec_mrpc": ["test", "validation"], "gec_qnli": ["validation"], "gec_sst2": ["validation"]}
    from tests.conftest import TEST_LIMITS

    # the tests build the first examples of each split (--set limit=N)
    assert {c: {s: len(ds) for s, ds in d.items()} for c, d in gec.items() if c != "gec_sst2"} == {
        c: {s: TEST_LIMITS[c] for s in d} for c, d in gec.items() if c != "gec_sst2"}
    assert len(gec["gec_sst2"]["validation"]) == 10


def test_labels_and_other_segments_are_unchanged(gec, gec_sources):
    sources = {("gec_mnli", "validation_matched"): read_nli(gec_sources / "glue/mnli/dev_matched_sample.tsv"),
               ("gec_mrpc", "validation"): read_mrpc(gec_sources / "glue/mrpc/dev.tsv"),
               ("gec_mrpc", "test"): read_mrpc(gec_sources / "glue/mrpc/msr_paraphrase_test.txt"),
               ("gec_qnli", "validation"): read_qnli(gec_sources / "glue/qnli/dev.tsv"),
               ("gec_sst2", "validation"): read_sst2(gec_sources / "glue/sst2/dev.tsv")}
    from tests.conftest import TEST_LIMITS

    for (config, split), rows in sources.items():
        ds = gec[config][split]
        rows = rows[:TEST_LIMITS.get(config)]
        assert ds["label"] == [r["label"] for r in rows]
        for field in UNTOUCHED[config] + [SEGMENT[config]]:
            assert ds[field] == [r[field] for r in rows]
    conll = read_conll2003(gec_sources / "conll2003/valid.txt")[:TEST_LIMITS["gec_conll2003"]]
    assert gec["gec_conll2003"]["validation"]["ner_tags"] == [r["ner_tags"] for r in conll]


@pytest.mark.parametrize("config", GEC)
def test_edit_round_trip_and_budget_on_every_row(gec, config):
    for split, ds in gec[config].items():
        for r in ds:
            words, spaces = apply_edits(r["original_tokens"], r["original_spaces"], r["edits"])
            assert words == r["perturbed_tokens"]
            if config != "gec_conll2003":
                assert render(words, spaces) == r[f"perturbed_{SEGMENT[config]}"]
            assert r["n_modified"] <= r["budget"]
            assert r["n_edits"] == len(r["edits"]) and r["n_tokens"] == len(r["original_tokens"])
            assert r["n_modified"] == sum(2 if e["operation"] == "swap" else 1 for e in r["edits"])
            assert bool(r["edits"]) != bool(r["no_error_reason"])


def test_conll2003_entities_are_never_touched(gec):
    for split, ds in gec["gec_conll2003"].items():
        names = ds.features["ner_tags"].feature.names
        for r in ds:
            assert r["tokens"] == r["original_tokens"]
            tags = [names[t] for t in r["ner_tags"]]
            new_tags = [names[t] for t in r["perturbed_ner_tags"]]
            assert len(new_tags) == len(r["perturbed_tokens"])
            entities = [(w, t) for w, t in zip(r["tokens"], tags) if t != "O"]
            assert [(w, t) for w, t in zip(r["perturbed_tokens"], new_tags) if t != "O"] == entities
            for e in r["edits"]:
                span = (e["position"], e["position"] + 1) if e["operation"] == "swap" else (e["position"],)
                if e["operation"] != "insert":
                    assert all(tags[p] == "O" for p in span)
                elif e["position"] < len(tags):
                    assert not tags[e["position"]].startswith("I-")


def test_card_statistics_recount(gec, gec_repo):
    for config, dd in gec.items():
        stats = read_metadata(gec_repo)[config]["statistics"]
        for split, ds in dd.items():
            s = stats[split]
            assert s["examples"] == len(ds)
            assert s["modified_tokens"] == sum(ds["n_modified"])
            counts = {}
            for edits in ds["edits"]:
                for e in edits:
                    counts[e["type"]] = counts.get(e["type"], 0) + 1
            assert {k: v for k, v in s["edits_per_type"].items() if v} == counts
            assert sum(s["examples_without_error"].values()) == sum(1 for x in ds["no_error_reason"] if x)
            # the attack's search space: counted from the rows, every stored operation within its segment
            space = ds["attack_operations"]
            assert s["attack_space"]["operations_mean"] == round(sum(map(len, space)) / len(ds), 2) > 1
            assert sum(s["attack_space"]["operations_per_type"].values()) == sum(map(len, space))
            assert all(0 <= op["position"] <= n for ops, n in zip(space, ds["n_tokens"]) for op in ops)
            assert all(len(h) == len(d) == n for h, d, n in zip(ds["original_heads"], ds["original_deps"], ds["n_tokens"]))
    # the card names the file actually read and its rows (before: "GLUE 1.0" and the full file's URL)
    meta = read_metadata(gec_repo)["gec_mnli"]
    read = meta["provenance"]["source_read"]["validation_matched"]
    assert read["sample"] is True and read["rows"] == len(gec["gec_mnli"]["validation_matched"])
    card = (gec_repo / "README.md").read_text(encoding="utf-8")
    assert (f"validation_matched: `glue/mnli/dev_matched_sample.tsv` ({read['rows']:,} rows, a sample of the "
            "official file, not the full set)") in card
    mnli = read_metadata(gec_repo)["gec_mnli"]["statistics"]["validation_matched"]
    assert 0.12 <= mnli["modified_share_mean"] <= 0.18


@pytest.mark.full
def test_whole_gec_mnli_has_every_error_type_at_the_papers_rate(sources, tmp_path):
    """The whole config (both 1,000-pair samples), as the suite pins it: about 15% of the hypothesis
    tokens modified (Yin et al. 2020, §4) and every one of the eight error types injected somewhere."""
    build_config("gec_mnli", out=tmp_path / "robust-bench", source=sources)
    for split, s in read_metadata(tmp_path / "robust-bench")["gec_mnli"]["statistics"].items():
        assert s["examples"] == 1000 and 0.12 <= s["modified_share_mean"] <= 0.18, split
        assert all(n > 0 for n in s["edits_per_type"].values()), (split, s["edits_per_type"])


def test_build_with_confusions_fitted_on_an_m2_file(gec_sources, tmp_path):
    """fit-confusions on an M2 file written here, then a build that obeys the fitted weights."""
    from robust_bench.perturb.confusions import fit_confusions, write_confusions

    m2 = tmp_path / "learners.m2"
    m2.write_text("S the girl go to a garden .\n"
                  "A 0 1|||R:DET|||The|||REQUIRED|||-NONE-|||0\n"
                  "A 2 3|||R:NOUN:NUM|||goes|||REQUIRED|||-NONE-|||0\n\n"
                  "S a boy like an apples .\n"
                  "A 0 1|||R:DET|||the|||REQUIRED|||-NONE-|||0\n"
                  "A 4 5|||R:NOUN:NUM|||apple|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    conf = tmp_path / "confusions.json"
    write_confusions(fit_confusions(m2), conf)
    fitted = json.loads(conf.read_text())
    # injections reverse the corrections: the -> the (ignored, equal) and the -> a
    assert fitted["type_distribution"] == {"ArtOrDet": 0.5, "Nn": 0.5}
    assert fitted["weights"] == {"ArtOrDet": {"the": {"a": 1.0}}}
    report = build_config("gec_sst2", out=tmp_path / "robust-bench", source=gec_sources, options={"confusions": str(conf)})
    ds = datasets.load_dataset(str(tmp_path / "robust-bench"), "gec_sst2", split="validation")
    edits = [e for es in ds["edits"] for e in es]
    assert edits and {e["type"] for e in edits} <= {"ArtOrDet", "Nn"}
    for e in edits:
        if e["type"] == "ArtOrDet" and e["original"].lower() == "the":
            assert e["operation"] == "substitute" and e["replacement"].lower() == "a"
    assert report.metadata["options"]["confusions"] == str(conf)
    assert "learners.m2" in report.metadata["provenance"]["confusions"]
    with pytest.raises(ValueError, match="has no setting error_rate"):
        build_config("jabberwocky_ewt", out=tmp_path / "x", options={"error_rate": 0.2})
