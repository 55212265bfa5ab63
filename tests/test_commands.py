"""Issue 52, item 1: every family command writes what `robust-bench run` writes. Each command runs its
family's registered evaluation as a one-task suite (robust_bench.suite.command): a run folder with
run.json, the per-example log and a v2 record from `record_from_log`, which `submit` stores and `check`
compares; the paper's tables are views of the log under tables/ and figures/. On the smoke repository the
shipped family suites (pinned to it) are the commands' suites, so the records equal `run`'s; on data that are
not the suite's pins, the command runs a derived, unranked one-task suite kept in the run folder."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from robust_bench.cli import app
from robust_bench.suite.runner import run_folder

pytestmark = pytest.mark.shared


def _invoke(args):
    res = CliRunner().invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res.output


def _folder(out, model):
    """The one run folder a command wrote under ``out`` (OUTPUT_DIR/<model>/<tasks or derived suite>)."""
    (folder,) = run_folder(out, model).iterdir()
    return folder


def _records(run) -> dict:
    return {p.stem: json.loads(p.read_text()) for p in sorted((run / "records").glob("*.json"))}


def _submitted(run, suite_path, tmp_path, model_id):
    """Store the run in a fresh local leaderboard that accepts ``suite_path``; the stored entry."""
    from robust_bench.benchmarks import load_suite
    from robust_bench.leaderboard.store import init_store, open_store, submit

    store = init_store(tmp_path / "store", [load_suite(suite_path)])
    sub, where = submit(run, open_store(store), model_id=model_id, partial=True)
    return sub, where


def test_the_lit_command_is_a_run_that_submit_and_check_take(smoke_repo, models, tmp_path):
    """`evaluate --config lit_mnli` on the pinned smoke data: the lit suite's task, the record `run --suite lit
    --tasks lit_mnli` writes (same metrics and log hash), Table 3 as a view; submit stores it, check passes it."""
    repo, suites = smoke_repo
    out = _invoke(["evaluate", "--model", models["nli"], "--config", "lit_mnli", "--split", "validation_matched",
                   "--suite", suites / "lit.yaml", "--repo", repo, "--output-dir", tmp_path / "cmd"])
    assert "Acc@Ori" in out and "Consistency" in out
    cmd = _folder(tmp_path / "cmd", models["nli"])
    rec = _records(cmd)["lit_mnli"]
    assert rec["schema_version"].startswith("2") and rec["suite"] == {"name": "lit", "version": 2}
    assert not (cmd / "suite.yaml").exists() and list((cmd / "tables").glob("lit_mnli__table3.txt"))
    assert list((cmd / "figures").glob("lit_mnli__table3.png"))
    _invoke(["run", "--model", models["nli"], "--suite", suites / "lit.yaml", "--tasks", "lit_mnli", "--repo", repo,
             "--output-dir", tmp_path / "run"])
    ran = _records(run_folder(tmp_path / "run", models["nli"]))["lit_mnli"]
    assert rec["metrics"] == ran["metrics"] and rec["log_sha256"] == ran["log_sha256"]
    sub, _ = _submitted(cmd, suites / "lit.yaml", tmp_path, "tiny/nli")
    assert set(sub.records) == {"lit_mnli"}
    _invoke(["check", "--baseline", cmd, "--candidate", run_folder(tmp_path / "run", models["nli"]),
             "--suite", suites / "lit.yaml"])


def test_a_command_on_other_options_runs_a_derived_unranked_suite(smoke_repo, models, tmp_path):
    """A label map (or a split, search or data the suite does not pin) makes the command's suite a derived
    one-task suite, written into the run folder: check compares two such runs (reading the folder's suite),
    a leaderboard of the shipped suites refuses them."""
    from robust_bench.leaderboard.submission import SubmissionError

    repo, suites = smoke_repo
    args = ["evaluate", "--model", models["nli"], "--config", "lit_mnli", "--split", "validation_matched",
            "--suite", suites / "lit.yaml", "--repo", repo, "--label-map",
            "entailment=entailment,neutral=neutral,contradiction=contradiction"]
    _invoke([*args, "--output-dir", tmp_path / "a"])
    _invoke([*args, "--output-dir", tmp_path / "b", "--batch-size", "7"])
    a, b = _folder(tmp_path / "a", models["nli"]), _folder(tmp_path / "b", models["nli"])
    assert (a / "suite.yaml").is_file() and _records(a)["lit_mnli"]["suite"]["name"].startswith("lit_mnli_command_")
    _invoke(["check", "--baseline", a, "--candidate", b])
    # other options are another derived suite: check refuses to compare them
    _invoke(["evaluate", "--model", models["nli"], "--config", "lit_mnli", "--split", "validation_mismatched",
             "--suite", suites / "lit.yaml", "--repo", repo, "--output-dir", tmp_path / "c"])
    res = CliRunner().invoke(app, ["check", "--baseline", str(a), "--candidate", str(_folder(tmp_path / "c", models["nli"]))])
    assert res.exit_code == 2 and "lit_mnli_command_" in res.output, res.output
    with pytest.raises(SubmissionError, match="lit_mnli_command"):      # the leaderboard takes the lit suite only
        _submitted(a, suites / "lit.yaml", tmp_path, "tiny/nli")


def test_the_attack_command_is_a_run_that_submit_and_check_take(smoke_repo, smoke_runs, models, tmp_path):
    """`attack --config gec_mnli --limit 40` on the pinned smoke data: the grammatical_errors suite's task, the
    log the smoke run of the same task writes (same rows, options and seed), the paper's report as a view and
    the adversarial examples as a derived config; submit stores it (a marked partial run), check passes it."""
    import shutil

    repo, suites = smoke_repo
    copy = tmp_path / "robust-bench"          # the command writes the adversarial config into the repository
    shutil.copytree(repo, copy)
    out = _invoke(["attack", "--model", models["nli"], "--config", "gec_mnli", "--split", "validation_matched",
                   "--limit", 40, "--no-curve", "--suite", suites / "grammatical_errors.yaml", "--repo", copy,
                   "--output-dir", tmp_path / "cmd"])
    assert "attack success rate" in out and "adversarial examples: config" in out
    cmd = _folder(tmp_path / "cmd", models["nli"])
    rec = _records(cmd)["gec_mnli"]
    assert rec["schema_version"].startswith("2") and rec["suite"]["name"] == "grammatical_errors"
    smoke = _records(smoke_runs["nli"][0])["gec_mnli"]
    assert rec["log_sha256"] == smoke["log_sha256"] and rec["metrics"] == smoke["metrics"]
    assert (cmd / "tables" / "gec_mnli__attack.txt").is_file()
    state = json.loads((cmd / "run.json").read_text())["tasks"]["gec_mnli"]
    assert state["details"]["summary"]["attacked"] == sum(json.loads(x)["outcome"]["attacked"]
                                                          for x in (cmd / "logs" / "gec_mnli.jsonl").open())
    sub, _ = _submitted(cmd, suites / "grammatical_errors.yaml", tmp_path, "tiny/nli")
    assert set(sub.records) == {"gec_mnli"}
    _invoke(["check", "--baseline", cmd, "--candidate", cmd, "--suite", suites / "grammatical_errors.yaml"])


def name_reader(pairs):
    """A paraphrase 'classifier' that reads the names (as tests/test_names.py's): equivalent when the first
    capitalised word after the first of sentence 1 has an even length, so a swap can flip it."""
    import numpy as np

    out = []
    for s1, _ in pairs:
        caps = [w for w in s1.split()[1:] if w[:1].isupper()]
        out.append([0.2, 0.8] if not caps or len(caps[0]) % 2 == 0 else [0.7, 0.3])
    return np.asarray(out)


name_reader.robust_bench_interface = "sequence-classification"
name_reader.robust_bench_labels = ["not_equivalent", "equivalent"]


def test_the_names_command_is_a_run_that_submit_and_check_take(smoke_repo, models, build_any, tmp_path):
    """`evaluate --config names_*`: on names_conll2003 the named_entity_swaps suite's task (submit stores it, check
    passes it); `--random` adds Table 3's random row as declared metrics (random_mean_f1, random_sd_f1) of a
    derived suite (check compares two runs of it); RESEMBLE on names_mrpc is a run of its own; names_coref is scored by the CoNLL F1 of its own evaluation, the original over the clusters its
    variants swap."""
    repo, suites = smoke_repo
    ner = suites / "named_entity_swaps.yaml"
    out = _invoke(["evaluate", "--model", models["tagger"], "--config", "names_conll2003", "--suite", ner,
                   "--repo", repo, "--output-dir", tmp_path / "cmd"])
    assert "D_worst" in out and "random " not in out
    cmd = _folder(tmp_path / "cmd", models["tagger"])
    rec = _records(cmd)["names_conll2003"]
    assert rec["suite"]["name"] == "named_entity_swaps" and set(rec["metrics"]) == {
        "original_f1", "worst_f1", "best_f1", "stability"}
    assert (cmd / "tables" / "names_conll2003__table3.txt").is_file()
    sub, _ = _submitted(cmd, ner, tmp_path, "tiny/tagger")
    assert set(sub.records) == {"names_conll2003"}
    _invoke(["check", "--baseline", cmd, "--candidate", cmd, "--suite", ner])

    out = _invoke(["evaluate", "--model", models["tagger"], "--config", "names_conll2003", "--suite", ner, "--random",
                   "--repo", repo, "--output-dir", tmp_path / "random"])
    assert "random " in out
    rnd = _folder(tmp_path / "random", models["tagger"])
    rec = _records(rnd)["names_conll2003"]
    assert rec["suite"]["name"].startswith("names_conll2003_command_") and 0 <= rec["metrics"]["random_sd_f1"] <= 0.5
    assert rec["metrics"]["original_f1"] == _records(cmd)["names_conll2003"]["metrics"]["original_f1"]
    line = json.loads(next((rnd / "logs" / "names_conll2003.jsonl").open()))
    assert {f"tp_random_{c}" for c in range(1, 11)} <= set(line["outcome"])
    _invoke(["check", "--baseline", rnd, "--candidate", rnd])

    runs = _invoke(["evaluate", "--model", f"callable:{__name__}:name_reader", "--config", "names_mrpc", "--suite", ner,
                    "--resemble", "1", "--repo", repo, "--output-dir", tmp_path / "mrpc"])
    assert "canonical names:" in runs
    folders = sorted(run_folder(tmp_path / "mrpc", f"callable:{__name__}:name_reader").iterdir())
    assert len(folders) == 2
    resembled = next(f for f in folders if (f / "suite.yaml").exists())
    state = json.loads((resembled / "run.json").read_text())["tasks"]["names_mrpc"]
    assert state["details"]["resemble"]["m"] == 1 and len(state["details"]["resemble"]["canonical"]) == 1

    coref = build_any("names_coref")
    _invoke(["evaluate", "--config", "names_coref", "--random", "--repo", coref, "--output-dir", tmp_path / "coref"])
    run = _folder(tmp_path / "coref", "rule-based")
    rec = _records(run)["names_coref"]
    assert set(rec["metrics"]) >= {"original_conll_f1", "worst_conll_f1", "random_mean_conll_f1", "stability"}
    assert rec["metrics"]["original_conll_f1"] > 0        # scored over the clusters its variants swap
    _invoke(["check", "--baseline", run, "--candidate", run])
