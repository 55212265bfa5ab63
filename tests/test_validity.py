"""Validity checks (robust_bench.perturb.checks) and blind audits of every family."""

import csv
import json
import random
import shutil

import pytest

from robust_bench.perturb.checks import (ErrantClassifier, MeaningKept, article_errors, errant_agreement,
                                         indefinite_article, is_common_word, is_known_word)
from robust_bench.perturb.gec import Token, perturb


def test_articles_follow_the_next_words_sound():
    assert [indefinite_article(w) for w in ("hour", "university", "apple", "mechanism", "FBI", "such")] == \
        ["an", "a", "an", "a", "an", "a"]
    assert article_errors("It was an mechanism and a effort .".split()) == {2, 5}
    assert article_errors("an hour , a university , a 5-year plan , vitamin a .".split()) == set()


def test_known_and_common_words():
    assert is_known_word("house") and is_known_word("5,000") and is_known_word("Houses")
    assert not is_known_word("honorabler") and not is_known_word("dumming")
    assert is_common_word("poverty") and not is_common_word("penury") and not is_common_word("soliduses")


def _sent(words, tags, pos, lemmas):
    return [Token(w, t, p, "dep", 0, lem, space=k < len(words) - 1)
            for k, (w, t, p, lem) in enumerate(zip(words, tags, pos, lemmas))]


def test_perturb_never_adds_an_article_error_and_counts_refusals():
    words = "He ate an apple and saw a house near an old inn .".split()
    toks = _sent(words, ["PRP", "VBD", "DT", "NN", "CC", "VBD", "DT", "NN", "IN", "DT", "JJ", "NN", "."],
                 ["PRON", "VERB", "DET", "NOUN", "CCONJ", "VERB", "DET", "NOUN", "ADP", "DET", "ADJ", "NOUN", "PUNCT"],
                 ["he", "eat", "an", "apple", "and", "see", "a", "house", "near", "an", "old", "inn", "."])
    for i, head in [(2, 3), (6, 7), (9, 11)]:
        toks[i] = Token(toks[i].text, "DT", "DET", "det", head, toks[i].lemma)
    from collections import Counter

    total = Counter()
    for seed in range(200):
        ref = Counter()
        res = perturb(toks, random.Random(seed), error_rate=0.3, refusals=ref, types=("ArtOrDet", "Nn"))
        assert len(article_errors(list(res.tokens))) == 0, res.tokens
        total.update(ref)
    assert set(total) <= {"article_agreement", "known_word", "frequency_floor", "edit_spread", "still_an_error"}
    # the check itself: "a house" -> "a apartment" leaves one disagreement, "the house" -> "the apartment" none
    from robust_bench.perturb.gec import Operation, articles_after

    op = Operation("Wchoice", "substitute", 1, "house", "apartment")
    assert articles_after(["a", "house"], [True, False], [], op) == 1
    assert articles_after(["the", "house"], [True, False], [], op) == 0


def test_meaning_kept_separates_senses_on_the_real_encoder(sources):
    m = MeaningKept()
    s = "You were born in the city .".split()
    sp = [True] * (len(s) - 1) + [False]
    b = "He wore blue jeans .".split()
    bp = [True] * (len(b) - 1) + [False]
    big = "It was a big house .".split()
    gp = [True] * (len(big) - 1) + [False]
    verdicts = m.verdicts([(s, sp, 2, "brooked"), (b, bp, 2, "depressed"), (big, gp, 3, "large")])
    assert verdicts == [False, False, True]
    (sent_sim, word_sim), = m.similarities([(big, gp, 3, "large")])
    assert 0.9 < sent_sim <= 1.0 and 0.72 < word_sim <= 1.0
    # asked beside substitutions at other positions of the same sentence (an attack's search space asks
    # every word of a sentence in one call), an item's word is still its own: the original's word vector
    # once came from the first position asked in that sentence ("big" -> "large" was compared with "It")
    many = m.similarities([(big, gp, 0, "This"), (big, gp, 1, "is"), (big, gp, 3, "large"), (s, sp, 2, "brooked")])
    assert many[2] == (sent_sim, word_sim) and many[3] == m.similarities([(s, sp, 2, "brooked")])[0]


def test_errant_rederives_edit_types(sources):
    errant = ErrantClassifier()
    orig = "He goes to school every day .".split()
    pairs = [("He go to school every day .".split(), orig), ("He goes at school every day .".split(), orig),
             ("He goes to schools every day .".split(), orig)]
    types = errant.classify(pairs)
    assert [ErrantClassifier.yin_type(t[0]) for t in types] == ["SVA", "Prep", "Nn"]
    agree = errant_agreement(["SVA", "Prep", "Wchoice"], types)
    assert agree["SVA"]["share"] == 1.0 and agree["Wchoice"]["agree"] == 0


# ---- audits of every family ----------------------------------------------------------------------

FAMILY_CONFIGS = [("jabberwocky_ewt", "built_repo"), ("gec_mnli", "gec_repo"), ("gec_conll2003", "gec_repo"),
                  ("lit_mnli", "lit_repo"), ("names_mrpc", None), ("names_coref", None), ("adv_ewt", None)]


def _repo(request, config, fixture):
    if fixture:
        return request.getfixturevalue(fixture)
    return request.getfixturevalue("build_any")(config)


@pytest.mark.parametrize("config,fixture", FAMILY_CONFIGS)
def test_audit_draws_blind_rows_of_every_family(request, config, fixture, tmp_path):
    from robust_bench.experiments.audit import AUDIT_COLUMNS, audit_sample, write_audit_tsv

    repo = _repo(request, config, fixture)
    rows, meta = audit_sample(repo, config, n=15, seed=3)
    assert rows and len({r["id"] for r in rows}) == len(rows)
    assert all(r["original"] != r["perturbed"] or r["edits"] for r in rows)
    assert meta["config"] == config and 0 <= meta["unchanged_share"] < 1 and meta["n"] == len(rows)
    again, _ = audit_sample(repo, config, n=15, seed=3)
    assert again == rows
    if config == "names_coref":       # a passage around one swap, and every name mapping of the variant
        assert all("@" in r["id"] and "name mappings:" in r["edits"] and len(r["original"].split()) < 400
                   for r in rows)
    path = write_audit_tsv(rows, tmp_path / "a.tsv", meta)
    with open(path, encoding="utf-8", newline="") as f:
        assert tuple(next(csv.reader(f, delimiter="\t"))) == AUDIT_COLUMNS
    assert json.loads((tmp_path / "a.tsv.meta.json").read_text())["builder_version"] == meta["builder_version"]


def _judged(tmp_path, repo, config, *, n=12, seed=5):
    from robust_bench.experiments.audit import audit_sample, write_audit_tsv

    rows, meta = audit_sample(repo, config, n=n, seed=seed)
    for k, r in enumerate(rows):
        r["judgement"] = "bad" if k == 0 else "ok"
        if k == 0:
            r["defect"], r["reason"] = "wchoice-sense", "rare sense"
    return rows, meta, write_audit_tsv(rows, tmp_path / "judged.tsv", meta)


@pytest.mark.parametrize("config,fixture", [("gec_mnli", "gec_repo"), ("names_mrpc", None)])
def test_judged_audit_goes_on_the_card_and_goes_stale(request, config, fixture, tmp_path):
    from robust_bench.data.repository import read_metadata, write_card
    from robust_bench.experiments.audit import record_audit

    repo = tmp_path / "robust-bench"
    shutil.copytree(_repo(request, config, fixture), repo)
    rows, meta, path = _judged(tmp_path, repo, config)
    entry = record_audit(repo, config, path, reader="test reader")
    n = len(rows)
    assert entry["ok"] == n - 1 and entry["n"] == n and entry["defects"] == {"wchoice-sense": 1}
    lo, hi = entry["wilson_95"]
    assert 0 < lo < (n - 1) / n < hi <= 1
    card = (repo / "README.md").read_text(encoding="utf-8")
    assert "**Validity**" in card and f"{n - 1}/{n}" in card and "the current build's" in card
    history = (repo / "data" / config / "audits.md").read_text(encoding="utf-8")
    assert f"{n - 1}/{n}" in history and "| current |" in history
    stored = repo / entry["file"]
    assert stored.is_file() and stored.read_bytes() == path.read_bytes()
    # a second reader of the same sample: both verdicts stay on the card, neither replaces the other
    from robust_bench.experiments.audit import write_audit_tsv

    rows[1]["judgement"], rows[1]["defect"], rows[1]["reason"] = "bad", "not-an-error", "standard English"
    second = record_audit(repo, config, write_audit_tsv(rows, tmp_path / "judged_b.tsv", meta), reader="reader B")
    assert second["file"] != entry["file"] and second["ok"] == n - 2
    recorded = [a for a in read_metadata(repo)[config]["audits"] if not a.get("shipped")]
    assert sorted(a["ok"] for a in recorded) == [n - 2, n - 1]
    assert record_audit(repo, config, path, reader="test reader")["file"] == entry["file"]    # same file: replaced
    assert len([a for a in read_metadata(repo)[config]["audits"] if not a.get("shipped")]) == 2
    # a build of another builder version: the audit stays in the card's linked history, marked stale, and the
    # card says no audit of this build is recorded
    m = read_metadata(repo)[config]
    m["builder_version"] = "0.0.1"
    (repo / "data" / config / "metadata.json").write_text(json.dumps(m), encoding="utf-8")
    write_card(repo)
    assert "stale: judged on another build" in (repo / "data" / config / "audits.md").read_text("utf-8")
    assert "no audit of this build yet" in (repo / "README.md").read_text(encoding="utf-8")


def test_a_fluency_verdict_apart_is_counted_and_shown_on_the_card(gec_repo, tmp_path):
    # the adversarial treebanks' audits ask for fluency apart (Wang et al. 2021, Table 2); the mechanism is
    # the same for any config, so it is tried on the smallest repository
    from robust_bench.experiments.audit import AuditError, FLUENCY_COLUMN, asks_fluency, record_audit, write_audit_tsv

    assert asks_fluency("adv_ewt") and asks_fluency("adv_ptb") and not asks_fluency("gec_mnli")
    repo = tmp_path / "robust-bench"
    shutil.copytree(gec_repo, repo)
    rows, meta, _ = _judged(tmp_path, repo, "gec_mnli")
    for k, r in enumerate(rows):
        r[FLUENCY_COLUMN] = "no" if k < 2 else "yes"
    path = write_audit_tsv(rows, tmp_path / "fluent.tsv", meta, fluency=True)
    with open(path, encoding="utf-8", newline="") as f:
        assert next(csv.reader(f, delimiter="\t"))[-1] == FLUENCY_COLUMN
    n = len(rows)
    entry = record_audit(repo, "gec_mnli", path)
    assert entry["fluent"]["ok"] == n - 2 and entry["fluent"]["n"] == n
    assert f"{n - 2}/{n} judged fluent" in (repo / "README.md").read_text(encoding="utf-8")
    rows[3][FLUENCY_COLUMN] = "mostly"
    write_audit_tsv(rows, path, meta, fluency=True)
    with pytest.raises(AuditError, match=r"line 5: field fluent must be 'yes' or 'no'"):
        record_audit(repo, "gec_mnli", path)
    rows[3][FLUENCY_COLUMN] = ""
    write_audit_tsv(rows, path, meta, fluency=True)
    with pytest.raises(AuditError, match=r"line 5: field fluent is empty"):
        record_audit(repo, "gec_mnli", path)

def test_bad_judged_files_get_one_clear_error_and_nothing_is_written(gec_repo, tmp_path):
    from robust_bench.experiments.audit import AuditError, record_audit, write_audit_tsv

    repo = tmp_path / "robust-bench"
    shutil.copytree(gec_repo, repo)
    before = (repo / "data" / "gec_mnli" / "metadata.json").read_bytes(), (repo / "README.md").read_bytes()
    rows, meta, path = _judged(tmp_path, repo, "gec_mnli")

    def expect(rows_, meta_, match):
        write_audit_tsv(rows_, path, meta_)
        with pytest.raises(AuditError, match=match):
            record_audit(repo, "gec_mnli", path)
        assert ((repo / "data" / "gec_mnli" / "metadata.json").read_bytes(), (repo / "README.md").read_bytes()) == before
        assert not (repo / "data" / "gec_mnli" / "audits").exists()

    expect([{**r, "judgement": "maybe"} if k == 2 else r for k, r in enumerate(rows)], meta,
           r"judged.tsv, line 4: field judgement must be 'ok' or 'bad', got 'maybe'")
    expect([{**r, "id": "validation_matched-999999"} if k == 1 else r for k, r in enumerate(rows)], meta,
           r"line 3: field id 'validation_matched-999999' is not in the sample")
    expect(rows, {**meta, "builder_version": "1.0.0"}, r"drawn from another build of 'gec_mnli'")
    expect(rows, {**meta, "config": "gec_mrpc"}, r"field config is 'gec_mrpc'")
    # a missing column
    write_audit_tsv(rows, path, meta)
    text = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(line.rsplit("\t", 3)[0] for line in text) + "\n", encoding="utf-8")
    with pytest.raises(AuditError, match=r"line 1: missing column\(s\) judgement"):
        record_audit(repo, "gec_mnli", path)


def test_audit_command_draws_and_records(gec_repo, tmp_path):
    from typer.testing import CliRunner

    from robust_bench.cli import app

    repo = tmp_path / "robust-bench"
    shutil.copytree(gec_repo, repo)
    out = tmp_path / "s.tsv"
    res = CliRunner().invoke(app, ["audit", "gec_sst2", "--repo", str(repo), "--sample", "5", "--seed", "1",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "left unchanged" in res.output and (tmp_path / "s.tsv.meta.json").is_file()
    rows = list(csv.DictReader(out.open(encoding="utf-8"), delimiter="\t"))
    for r in rows:
        r["judgement"] = "ok"
    from robust_bench.experiments.audit import write_audit_tsv

    write_audit_tsv(rows, out, json.loads((tmp_path / "s.tsv.meta.json").read_text()))
    res = CliRunner().invoke(app, ["audit", "gec_sst2", "--repo", str(repo), "--judged", str(out)])
    assert res.exit_code == 0 and f"{len(rows)}/{len(rows)} judged ok" in res.output, res.output
    res = CliRunner().invoke(app, ["audit", "gec_mnli", "--repo", str(repo), "--judged", str(out)])
    assert res.exit_code == 2 and "field config is 'gec_sst2'" in res.output


def test_shipped_audits_show_on_the_card_of_a_matching_build(gec_sources, tmp_path, monkeypatch):
    from robust_bench.data import repository
    from robust_bench.data.repository import build_config

    report = build_config("gec_sst2", out=tmp_path / "a" / "robust-bench", source=gec_sources)
    hashes = {s: f["sha256"] for s, f in report.metadata["files"].items()}
    entry = {"n": 100, "ok": 97, "share": 0.97, "wilson_95": [0.915, 0.9897], "defects": {"article": 3}, "seed": 11,
             "drawn": "2026-11-24", "judged": "2026-11-24", "builder_version": report.metadata["builder_version"],
             "data_sha256": hashes, "unchanged_share": 0.01, "reader": "blind", "file": "data/gec_sst2/audits/x.tsv",
             "sha256": "ab" * 32}
    shipped = tmp_path / "audits.json"
    shipped.write_text(json.dumps({"gec_sst2": [entry]}), encoding="utf-8")
    monkeypatch.setattr(repository, "SHIPPED_AUDITS", shipped)
    build_config("gec_sst2", out=tmp_path / "b" / "robust-bench", source=gec_sources)
    card = (tmp_path / "b" / "robust-bench" / "README.md").read_text(encoding="utf-8")
    history = (tmp_path / "b" / "robust-bench" / "data" / "gec_sst2" / "audits.md").read_text("utf-8")
    assert "97/100 (97.0%)" in card and "| current |" in history and "shipped in robust_bench/data/audits.json" in history
    # the same audit on a build with other data is stale
    entry["data_sha256"] = {s: "cd" * 32 for s in hashes}
    shipped.write_text(json.dumps({"gec_sst2": [entry]}), encoding="utf-8")
    build_config("gec_sst2", out=tmp_path / "c" / "robust-bench", source=gec_sources)
    assert "stale: judged on another build" in (tmp_path / "c" / "robust-bench" / "data" / "gec_sst2"
                                                / "audits.md").read_text(encoding="utf-8")


def test_edits_that_together_make_correct_english_are_refused():
    from robust_bench.perturb.gec import Operation, crowded, undoes_error

    # "the companies want": SVA on "want" after Nn on "companies" gives "the company wants" (no error)
    toks = [Token("the", "DT", "DET", "det", 1, "the"), Token("companies", "NNS", "NOUN", "nsubj", 2, "company"),
            Token("want", "VBP", "VERB", "root", 2, "want"), Token("it", "PRP", "PRON", "obj", 2, "it", space=False)]
    nn = {"type": "Nn", "position": 1, "operation": "substitute", "original": "companies", "replacement": "company"}
    assert undoes_error(toks, [nn], Operation("SVA", "substitute", 2, "want", "wants"))
    assert not undoes_error(toks, [], Operation("SVA", "substitute", 2, "want", "wants"))
    # "the outlook remains bright" parsed with "outlook" as the subject of a later verb: the noun right before
    # the verb is still its subject ("the outlooks remain" is no error)
    parsed = [Token("the", "DT", "DET", "det", 1, "the"), Token("outlook", "NN", "NOUN", "nsubj", 5, "outlook"),
              Token("remains", "VBZ", "VERB", "advmod", 5, "remain"), Token("bright", "JJ", "ADJ", "ccomp", 5, "bright"),
              Token("he", "PRP", "PRON", "nsubj", 5, "he"), Token("says", "VBZ", "VERB", "root", 5, "say")]
    outlooks = {"type": "Nn", "position": 1, "operation": "substitute", "original": "outlook", "replacement": "outlooks"}
    assert undoes_error(parsed, [outlooks], Operation("SVA", "substitute", 2, "remains", "remain"))
    assert not undoes_error(parsed, [], Operation("SVA", "substitute", 2, "remains", "remain"))
    # "the companies": a number change beside its article's change ("a plan" -> "the plans")
    art = {"type": "ArtOrDet", "position": 0, "operation": "substitute", "original": "the", "replacement": "a"}
    assert undoes_error(toks, [art], Operation("Nn", "substitute", 1, "companies", "company"))
    # a third edit within two tokens of two others is refused
    e = [{"position": 1}, {"position": 2}]
    assert crowded(e, Operation("Nn", "substitute", 3, "x", "y")) and not crowded(e[:1], Operation("Nn", "substitute", 3, "x", "y"))


def test_lit_audits_are_counted_by_transformation_code():
    """Issue 31: a judged LIT audit gives ok/N with its Wilson interval per transformation code."""
    from robust_bench.experiments.audit import audit_group, summarise_judged

    rows = [{"edits": "i;o (preserve); label entailment -> entailment", "verdict": "ok"},
            {"edits": "i;o (preserve); label neutral -> neutral", "verdict": "bad", "defect": "unnatural"},
            {"edits": "p;f +i (to_neutral); label entailment -> neutral", "verdict": "ok"}]
    assert audit_group("lit_mnli", rows[2]) == "p;f +i" and audit_group("gec_mnli", rows[0]) is None
    out = summarise_judged(rows, "lit_mnli")
    assert out["ok"] == 2 and out["by_group"]["i;o"]["n"] == 2 and out["by_group"]["i;o"]["ok"] == 1
    assert out["by_group"]["p;f +i"] == {"n": 1, "ok": 1, "wilson_95": out["by_group"]["p;f +i"]["wilson_95"]}
    assert 0 < out["by_group"]["i;o"]["wilson_95"][0] < 0.5 < out["by_group"]["i;o"]["wilson_95"][1] < 1
    assert "by_group" not in summarise_judged(rows, "gec_mnli")
