"""The leaderboard: submissions validated before they are stored (hostile ones rejected with the
store unchanged), the Hub store's pull request, aggregation, and the static site in a real browser."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.helpers import run, run_cli

pytestmark = pytest.mark.shared


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


@pytest.fixture(scope="module")
def board(smoke_runs, smoke_repo, tmp_path_factory):
    """A local store accepting the pinned smoke suite, three valid submissions (the tiny NLI
    classifier, the tiny tagger, the spaCy pipeline), and its built site."""
    root = tmp_path_factory.mktemp("board")
    repo, suites = smoke_repo
    run(["leaderboard", "init", "--store", str(root / "store"), "--suite", str(suites / "smoke.yaml")], root)
    accepted = {}
    for kind, model_id in (("nli", "tiny/nli-clf"), ("tagger", "tiny/tagger"), ("spacy", "spacy/en_rb_sm")):
        out = run(["submit", str(smoke_runs[kind][0]), "--to", str(root / "store"), "--model-id", model_id], root).stdout
        assert f"accepted {model_id}@" in out, out
        accepted[kind] = out
    built = run(["leaderboard", "build", "--store", str(root / "store"), "--out", str(root / "site")], root).stdout
    assert "3 submissions" in built
    return {"store": root / "store", "site": root / "site", "accepted": accepted, "root": root}


def _edit(path: Path, fn) -> None:
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc, indent=2))


def _rehash_log(run_dir: Path, task: str, n_examples: int | None = None) -> None:
    sha = hashlib.sha256((run_dir / "logs" / f"{task}.jsonl").read_bytes()).hexdigest()

    def rec(d):
        d["log_sha256"] = sha
        if n_examples is not None:
            d["n_examples"] = n_examples
    _edit(run_dir / "records" / f"{task}.json", rec)
    _edit(run_dir / "run.json", lambda d: d["tasks"][task].update(log_sha256=sha))


def _set_metric(name, value, interval):
    def fn(d):
        d["metrics"][name] = value
        d["intervals"][name] = interval
    return fn


def _dup_line(r: Path):
    log = r / "logs" / "lit_mnli.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines + lines[:1]))
    _rehash_log(r, "lit_mnli", len(lines) + 1)


def _deep(r: Path):
    (r / "run.json").write_text("[" * 100_000 + "]" * 100_000)


def _tamper_log(r: Path, *, consistent: bool) -> None:
    """Edit one example of the lit_mnli log to count as correct on the contrast side, then re-hash the
    log into the record and run.json, as a cheat would. ``consistent``: also change its prediction,
    so that only the recomputed metric gives it away."""
    log = r / "logs" / "lit_mnli.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    k = next(i for i, e in enumerate(lines) if e["outcome"]["ctr_correct"] == 0)
    lines[k]["outcome"]["ctr_correct"] = 1
    if consistent:
        lines[k]["prediction"]["contrast"] = lines[k]["gold"]["contrast"]
        lines[k]["outcome"]["both_correct"] = lines[k]["outcome"]["ori_correct"]
    log.write_text("".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in lines))
    _rehash_log(r, "lit_mnli")


REC = "records/lit_mnli.json"


def _edit_metric_text(path: Path, metric: str, value: str) -> None:
    """Write ``value`` as the text of ``metrics.<metric>`` (past the record's ``counts``, which name the
    metrics too), as a hand edit would."""
    text = path.read_text()
    at = text.index('"metrics"')
    path.write_text(text[:at] + re.sub(rf'"{metric}": [-0-9.e]+', f'"{metric}": {value}', text[at:], count=1))


def _strip_clusters(run_dir: Path) -> None:
    """Remove every line's cluster from the log and rehash it, as a submitter who wants narrower intervals would."""
    log = run_dir / "logs" / "lit_mnli.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    log.write_text("".join(json.dumps({k: v for k, v in e.items() if k != "cluster"}) + "\n" for e in lines))
    _rehash_log(run_dir, "lit_mnli")


#: name -> (how to spoil a copy of a valid run, submit keyword arguments, what the rejection must say)
HOSTILE = {
    "path traversal in --model-id": (None, {"model_id": "../../../etc/passwd"}, "'--model-id'"),
    "control character in --model-id": (None, {"model_id": "tiny/na\x1bme"}, "control characters"),
    "over-long model id": (None, {"model_id": "a" * 97}, "not a valid Hub id"),
    "local path as the model id": (None, {"model_id": None}, "pass --model-id"),
    "path traversal in --revision": (None, {"revision": "../../x"}, "'--revision'"),
    "NaN metric": (lambda r: _edit_metric_text(r / REC, "consistency", "NaN"), {}, "NaN is not a number"),
    "infinite metric": (lambda r: _edit_metric_text(r / REC, "acc_ori", "1e999"), {}, "not a finite number"),
    "metric out of range": (lambda r: _edit(r / REC, _set_metric("consistency", 1.5, [1.4, 1.6])), {},
                            "'metrics/consistency': 1.5 is outside [0, 1]"),
    "interval not around its value": (lambda r: _edit(r / REC, _set_metric("consistency", 0.2, [0.5, 0.9])), {},
                                      "does not contain the value"),
    "wrong data hash": (lambda r: (_edit(r / REC, lambda d: d.update(corpus_sha256="ab" * 32)),
                                   _edit(r / "run.json", lambda d: d["tasks"]["lit_mnli"].update(corpus_sha256="ab" * 32))),
                        {}, "field 'corpus_sha256'"),
    "log edited after the run": (lambda r: (r / "logs/lit_mnli.jsonl").open("a").write('{"id": "x"}\n'), {},
                                 "differs from the record's log_sha256"),
    "forged log with a repeated example": (_dup_line, {}, "repeats"),
    "oversize record": (lambda r: (r / REC).write_text((r / REC).read_text() + " " * (1_100_000)), {},
                        "over the limit of 1048576"),
    "wrong schema version": (lambda r: _edit(r / REC, lambda d: d.update(schema_version="1")), {}, "field 'schema'"),
    "design effect edited": (lambda r: _edit(r / REC, lambda d: d["design_effect"].update(acc_ori=1.0)), {},
                             "design_effect.acc_ori"),
    "clusters dropped from a 2.2 record": (lambda r: _edit(r / REC, lambda d: d.pop("n_clusters")), {}, "n_clusters"),
    "clusters stripped from a 2.2 log (narrower intervals)": (lambda r: _strip_clusters(r), {}, "cluster"),
    "unknown record field": (lambda r: _edit(r / REC, lambda d: d.update(evil="<script>")), {},
                             "Additional properties"),
    "symbolic link": (lambda r: ((r / "records/gec_mnli.json").unlink(),
                                 (r / "records/gec_mnli.json").symlink_to("/etc/hostname")), {}, "symbolic link"),
    "stray file among the records": (lambda r: shutil.copy(r / REC, r / "records/evil.json"), {},
                                     "not a task of suite smoke v5"),
    "suite version the store does not accept": (lambda r: _edit(r / "run.json", lambda d: d["suite"].update(version=99)),
                                                {}, "not a suite version this leaderboard accepts"),
    "a shard, not a run": (lambda r: _edit(r / "run.json", lambda d: d.update(shard=[0, 2])), {}, "field 'shard'"),
    "JSON nested too deeply": (_deep, {}, "nested too deeply"),
    "not UTF-8": (lambda r: (r / REC).write_bytes(b"\xff\xfe" + (r / REC).read_bytes()), {}, "not UTF-8"),
    "record of another task": (lambda r: _edit(r / REC, lambda d: d.update(task="gec_mnli")), {}, "field 'task'"),
    "duplicate of a stored submission": (None, {"model_id": "tiny/nli-clf", "revision": None},
                                         "already on the leaderboard"),
    # issue 28: a log edited and re-hashed; the metrics are recomputed from the log
    "log outcome edited, hash recomputed": (lambda r: _tamper_log(r, consistent=False), {},
                                            "disagrees with its own prediction and gold label"),
    "log outcome and prediction edited, hash recomputed": (lambda r: _tamper_log(r, consistent=True), {},
                                                           "the value its log lit_mnli.jsonl gives"),
    "record claims another score": (lambda r: _edit(r / REC, _set_metric("consistency", 0.0, [0.0, 0.0])), {},
                                    "field 'metrics.consistency'"),
    "run.json not JSON": (lambda r: (r / "run.json").write_text("{not json"), {}, "not JSON"),
    "log is a symbolic link": (lambda r: ((r / "logs/lit_mnli.jsonl").rename(r / "elsewhere.jsonl"),
                                          (r / "logs/lit_mnli.jsonl").symlink_to(r / "elsewhere.jsonl")), {},
                               "symbolic link"),
}


def test_hostile_submissions_are_rejected_and_leave_the_store_unchanged(board, smoke_runs, tmp_path):
    from robust_bench.leaderboard.store import LocalStore, submit
    from robust_bench.leaderboard.submission import SubmissionError

    assert len(HOSTILE) >= 20
    store = LocalStore(board["store"])
    before = _snapshot(board["store"])
    for name, (spoil, kwargs, expected) in HOSTILE.items():
        run_dir = tmp_path / re.sub(r"\W+", "_", name)
        shutil.copytree(smoke_runs["nli"][0], run_dir, symlinks=True)
        if spoil is not None:
            spoil(run_dir)
        kw = {"model_id": "tiny/hostile", "revision": "r1", **kwargs}
        with pytest.raises(SubmissionError) as err:
            submit(run_dir, store, **kw)
            pytest.fail(f"accepted: {name}")
        assert expected in str(err.value), (name, str(err.value))
        assert _snapshot(board["store"]) == before, name
    # the command line says the same in one line and exits 2
    cli = run(["submit", str(smoke_runs["nli"][0]), "--to", str(board["store"])], tmp_path, check=False)
    assert cli.returncode == 2 and cli.stderr.startswith("rejected: ") and "pass --model-id" in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1
    assert _snapshot(board["store"]) == before


def test_overwrite_needs_the_flag_and_replaces_atomically(board, smoke_runs, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(board["store"], store)
    entry = next(store.glob("submissions/tiny--tagger/smoke-v5/*/model"))
    args = ["submit", str(smoke_runs["tagger"][0]), "--to", str(store), "--model-id", "tiny/tagger"]
    assert run(args, tmp_path, check=False).returncode == 2
    first = json.loads((entry / "submission.json").read_text())["submitted_at"]
    run([*args, "--overwrite"], tmp_path)
    assert sorted(p.name for p in entry.parent.parent.iterdir()) == [entry.parent.name]
    assert [p.name for p in entry.parent.iterdir()] == ["model"]     # how it was asked: as it is
    assert json.loads((entry / "submission.json").read_text())["submitted_at"] >= first
    run([*args, "--revision", "v2"], tmp_path)
    assert sorted(p.name for p in entry.parent.parent.iterdir()) == sorted([entry.parent.name, "v2"])


def test_aggregation_and_the_built_site(board):
    """Three valid submissions appear with their family and overall scores; the scores follow from
    the records (robustness score per task, mean per family)."""
    from robust_bench.benchmarks import load_suite
    from robust_bench.leaderboard.aggregate import aggregate, task_score

    page = (board["site"] / "index.html").read_text()
    blob = re.search(r'<script type="application/json" id="leaderboard-data">(.*?)</script>', page, re.S).group(1)
    rows = json.loads(blob)
    assert sorted(r["model_id"] for r in rows) == ["spacy/en_rb_sm", "tiny/nli-clf", "tiny/tagger"]
    suite = load_suite(board["store"] / "suites" / "smoke-v5.yaml")
    for row in rows:
        entry = board["store"] / "submissions" / row["model_id"].replace("/", "--") / "smoke-v5" / row["revision"] / "model"
        records = {p.stem: json.loads(p.read_text()) for p in (entry / "records").glob("*.json")}
        assert row == {**{k: row[k] for k in ("model_id", "revision", "suite", "submitted_at", "report",
                                                                  "asked", "partial", "rank")},
                       "verification": {"status": "self-reported", "detail": "not re-run by the leaderboard"},
                       **aggregate(records, suite)}
        for name, rec in records.items():
            task = suite.task(name)
            s = task_score(rec, task)
            raw = rec["metrics"][task.primary]
            if raw is None:  # e.g. an attack success rate with no clean-correct example
                assert s.value is None and row["tasks"][name]["value"] is None
                continue
            expect = raw if task.metric(task.primary).higher_is_better else 1 - raw
            assert s.value == pytest.approx(expect) and s.low <= s.value <= s.high
        fams = {}
        for name in records:
            if row["tasks"][name]["value"] is not None:
                fams.setdefault(suite.task(name).family, []).append(row["tasks"][name]["value"])
        for fam, values in fams.items():
            assert row["families"][fam]["value"] == pytest.approx(sum(values) / len(values))
        assert row["overall"]["covered"] == len(fams)
        assert (board["site"] / row["report"]).is_file()
    assert page.count("<tr>") == 1 + 3
    for fam in ("grammatical_errors", "named_entity_swaps", "adversarial_treebanks", "lit", "jabberwocky"):
        assert (board["site"] / "families" / "smoke-v5" / f"{fam}.html").is_file()


def _driver():
    from tests.helpers import chromium_driver

    return chromium_driver()


def test_site_in_a_real_browser(board):
    """Headless Chromium: the table renders, clicking a header sorts it both ways, every link and
    image on every page resolves, and no page logs a JavaScript error."""
    from selenium.webdriver.common.by import By

    site = board["site"]
    d = _driver()
    try:
        d.get((site / "index.html").as_uri())
        table = d.find_element(By.CSS_SELECTOR, "table.sortable")
        heads = [h.text for h in table.find_elements(By.CSS_SELECTOR, "thead th")]
        assert heads[:6] == ["Rank", "Model", "Asked", "Revision", "Checked", "Overall"]
        body = lambda: [[c.get_attribute("data-value") for c in r.find_elements(By.TAG_NAME, "td")]
                        for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert len(body()) == 3
        # the table fits a 1,300-pixel window: revisions (here 70-character local hashes) are cut, the full
        # value is on hover (title) and in the sort key
        d.set_window_size(1300, 900)
        d.get((site / "index.html").as_uri())
        table = d.find_element(By.CSS_SELECTOR, "table.sortable")
        width = d.execute_script("return document.documentElement.clientWidth")
        assert d.execute_script("return document.documentElement.scrollWidth") <= width <= 1300
        assert d.execute_script("return arguments[0].getBoundingClientRect().right", table) <= width
        import struct

        png = d.get_screenshot_as_png()
        assert struct.unpack(">I", png[16:20])[0] <= 1300          # the PNG header's width
        rev = heads.index("Revision")
        cells = [r.find_elements(By.TAG_NAME, "td")[rev] for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert all(c.get_attribute("title") == c.get_attribute("data-value") for c in cells)
        assert any(len(c.get_attribute("title")) > 40 and len(c.text) <= 11 for c in cells), [c.text for c in cells]
        model = heads.index("Model")
        table.find_elements(By.CSS_SELECTOR, "thead th")[model].click()
        assert [r[model] for r in body()] == sorted(r[model] for r in body())
        table.find_elements(By.CSS_SELECTOR, "thead th")[model].click()
        assert [r[model] for r in body()] == sorted((r[model] for r in body()), reverse=True)
        overall = heads.index("Overall")
        table.find_elements(By.CSS_SELECTOR, "thead th")[overall].click()
        values = [float(r[overall]) for r in body() if r[overall]]
        assert values == sorted(values) and len(values) == 3
        # every page reachable from the index: links and images resolve to files
        seen, queue = set(), [(site / "index.html").as_uri()]
        while queue:
            url = queue.pop()
            if url in seen:
                continue
            seen.add(url)
            d.get(url)
            errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, (url, errors)
            for a in d.find_elements(By.TAG_NAME, "a"):
                target = Path(unquote(urlparse(a.get_attribute("href")).path))
                assert target.is_file(), (url, a.get_attribute("href"))
                if target.suffix == ".html":
                    queue.append(target.as_uri())
            for img in d.find_elements(By.TAG_NAME, "img"):
                assert d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img), \
                    (url, img.get_attribute("src"))
        assert len(seen) == 1 + 5 + 3 + 3  # index, five family pages, three reports, three model pages
    finally:
        d.quit()


class FakeHub:
    """Stands in for ``huggingface_hub.HfApi``: serves a local store as the remote repository and
    records every upload (its arguments and the files it would send)."""

    def __init__(self, remote: Path):
        self.remote, self.uploads = remote, []

    def hf_hub_download(self, repo_id, filename, repo_type, revision):
        assert repo_type == "dataset" and repo_id == "org/board"
        return str(self.remote / filename)

    def list_repo_files(self, repo_id, repo_type, revision):
        return [str(p.relative_to(self.remote)) for p in self.remote.rglob("*") if p.is_file()]

    def upload_folder(self, **kwargs):
        files = {str(p.relative_to(kwargs["folder_path"])): p.read_bytes()
                 for p in Path(kwargs["folder_path"]).rglob("*") if p.is_file()}
        self.uploads.append((kwargs, files))

        class Info:
            pr_url = "https://huggingface.co/datasets/org/board/discussions/1"
        return Info()


def test_submission_to_a_hub_store_opens_a_pull_request(board, smoke_runs):
    """The network call cannot run here: the exact arguments and files of ``upload_folder`` are checked."""
    from robust_bench.leaderboard.store import HubStore, open_store, submit
    from robust_bench.leaderboard.submission import SubmissionError

    api = FakeHub(board["store"])
    store = HubStore("org/board", api=api)
    assert isinstance(open_store("hf://datasets/org/board", api=api), HubStore)
    sub, where = submit(smoke_runs["encoder"][0], store, model_id="tiny/bert", revision="abc123")
    assert where.endswith("/discussions/1")
    (kwargs, files), = api.uploads
    assert kwargs == {"repo_id": "org/board", "repo_type": "dataset", "folder_path": kwargs["folder_path"],
                      "path_in_repo": "submissions/tiny--bert/smoke-v5/abc123/model", "create_pr": True,
                      "commit_message": "Submit tiny/bert@abc123 on smoke v5"}
    info = json.loads(files["submission.json"])
    assert sorted(files) == sorted(["submission.json", *info["files"]])
    for rel, sha in info["files"].items():
        assert hashlib.sha256(files[rel]).hexdigest() == sha
        assert files[rel] == (smoke_runs["encoder"][0] / rel).read_bytes()
    with pytest.raises(SubmissionError, match="already on the leaderboard"):
        submit(smoke_runs["nli"][0], store, model_id="tiny/nli-clf")
    assert len(api.uploads) == 1


def test_check_refuses_every_run_that_submit_rejects(board, smoke_runs, smoke_repo, tmp_path):
    """The CI gate validates both runs with submit's own code: every spoiled run of HOSTILE that submit
    rejects makes `check` unusable (exit 2, naming the file and field), never a pass."""
    from robust_bench.leaderboard.store import LocalStore, submit
    from robust_bench.leaderboard.submission import SubmissionError
    from robust_bench.suite.gate import GateError, check_runs

    repo, suites = smoke_repo
    good = smoke_runs["nli"][0]
    store = LocalStore(board["store"])
    outcomes = []
    for name, (spoil, kwargs, expected) in HOSTILE.items():
        if spoil is None:
            continue            # model ids and duplicates belong to the leaderboard, not to the runs
        run_dir = tmp_path / re.sub(r"\W+", "_", name)
        shutil.copytree(good, run_dir, symlinks=True)
        spoil(run_dir)
        with pytest.raises(SubmissionError):
            submit(run_dir, store, model_id="tiny/hostile", revision="r1")
        with pytest.raises(GateError) as err:
            check_runs(good, run_dir, suite=str(suites / "smoke.yaml"))
        outcomes.append((name, str(err.value)))
    assert len(outcomes) >= 20
    # the three cases of the issue, on the command line: exit 2 with the file and field, not "pass"
    for name in ("NaN metric", "run.json not JSON", "log is a symbolic link"):
        bad = tmp_path / re.sub(r"\W+", "_", name)
        cli = run(["check", "--baseline", str(good), "--candidate", str(bad), "--suite", str(suites / "smoke.yaml")],
                  tmp_path, check=False)
        assert cli.returncode == 2 and "pass" not in cli.stdout and str(bad) in cli.stderr, (name, cli.stderr)
    tampered = dict(outcomes)["log outcome and prediction edited, hash recomputed"]
    assert "metrics." in tampered and "lit_mnli.jsonl" in tampered
    example = dict(outcomes)["log outcome edited, hash recomputed"]
    assert "outcome.ctr_correct" in example and "example " in example and "line " in example


#: submit in a child that SIGKILLs itself at its k-th file-system write of the submission (a copy or a rename)
_KILLER = """
import os, shutil, signal, sys
from robust_bench.leaderboard.store import LocalStore, submit
run_dir, store, kill_at, overwrite = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
calls = {"n": 0}
def killing(fn):
    def wrapped(*a, **k):
        calls["n"] += 1
        if calls["n"] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return fn(*a, **k)
    return wrapped
st = LocalStore(store)                      # opened (and recovered) before the writes are counted
shutil.copyfile, os.replace = killing(shutil.copyfile), killing(os.replace)
submit(run_dir, st, model_id="tiny/killed", revision="r1", overwrite=overwrite)
"""


def _visible(root: Path) -> dict:
    """The store's files as readers see them (hidden staging and empty folders aside)."""
    return {k: v for k, v in _snapshot(root).items()
            if v != "dir" and not any(part.startswith(".") for part in Path(k).parts)}


def test_kill_9_inside_submit_leaves_the_store_whole(board, smoke_runs, tmp_path, full):
    """`kill -9` at every write of a submission (each file copied into staging, the rename into place,
    and for --overwrite the move of the old submission aside): the store keeps what it had, or gains the
    whole new submission; an old submission is never lost. The full tier kills at every write; the fast
    tier at four of them per mode, drawn with a fixed seed, and at the last (the rename into place)."""
    import random
    import signal

    from robust_bench.leaderboard.store import LocalStore, iter_entries

    store = tmp_path / "store"
    shutil.copytree(board["store"], store)
    before = _visible(store)

    def entries():
        LocalStore(store)                   # what the next command does first: finish a killed put
        return {(s.model_id, s.revision): s for s in iter_entries(store)}

    kills = 0
    rng = random.Random(0)
    for overwrite in ("0", "1"):
        points = range(1, 20) if full else sorted(rng.sample(range(1, 15), 4)) + list(range(15, 20))
        for kill_at in points:
            proc = run_cli([str(smoke_runs["nli"][0]), str(store), str(kill_at), overwrite], code=_KILLER)
            got = entries()
            if proc.returncode == -signal.SIGKILL:
                kills += 1
                if overwrite == "0":
                    assert ("tiny/killed", "r1") not in got and _visible(store) == before, kill_at
                else:       # the stored submission survives the kill whole (and validated by iter_entries)
                    assert ("tiny/killed", "r1") in got, kill_at
            else:
                assert proc.returncode == 0, proc.stderr[-2000:]
                assert ("tiny/killed", "r1") in got
                break       # no write left to kill in
        if overwrite == "0":
            assert ("tiny/killed", "r1") in entries()     # the last, unkilled submit stored it whole
    assert kills >= (6 if full else 4)
    assert {k: v for k, v in _visible(store).items() if "tiny" not in k or "killed" not in k} == before


def _forge_predictions(run_dir: Path, suite, task: str = "lit_mnli", n: int = 3) -> list[str]:
    """A cheat that passes submit: make ``n`` wrong contrast predictions right in the log (prediction and
    outcome agree), recompute the record from the forged log exactly as `run` does, and re-hash it."""
    from robust_bench.results.runs import record_from_log

    log = run_dir / "logs" / f"{task}.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    forged = []
    for e in lines:
        if e["outcome"]["ctr_correct"] == 0 and len(forged) < n:
            e["prediction"]["contrast"] = e["gold"]["contrast"]
            e["outcome"]["ctr_correct"] = 1
            e["outcome"]["both_correct"] = e["outcome"]["ori_correct"]
            forged.append(e["id"])
    text = "".join(json.dumps(e, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n" for e in lines)
    log.write_text(text)
    sha = hashlib.sha256(text.encode()).hexdigest()
    old = json.loads((run_dir / "records" / f"{task}.json").read_text())
    rec = record_from_log(suite.task(task), suite, lines, log_sha256=sha, model_id=old["model"]["id"],
                          revision=old["model"]["revision"], corpus_sha256=old["corpus_sha256"], seed=old["seed"],
                          limit=old["details"]["limit"], versions=old["versions"], timestamp=old["timestamp"])
    (run_dir / "records" / f"{task}.json").write_text(json.dumps(rec, indent=2, sort_keys=True))
    _edit(run_dir / "run.json", lambda d: d["tasks"][task].update(log_sha256=sha))
    return forged


def test_verify_marks_a_genuine_submission_verified_and_flags_forged_predictions(board, smoke_runs, smoke_repo,
                                                                                 models, tmp_path):
    """`leaderboard verify` re-runs the local model folder: the genuine submission's predictions match
    on a seeded sample of every task (verified); a submission whose log was forged consistently, so that
    submit accepts it, is flagged at the forged examples; the site shows both; the wrong weights, a
    malformed verification file and a replaced submission are handled."""
    from robust_bench.leaderboard.store import LocalStore

    repo, suites = smoke_repo
    store = tmp_path / "store"
    shutil.copytree(board["store"], store)
    suite = LocalStore(store).suites()[("smoke", 5)]
    cmd = ["leaderboard", "verify", "--store", str(store), "--repo", str(repo), "--model", models["nli"]]

    genuine = run([*cmd, "tiny/nli-clf", "--sample", "12", "--seed", "3"], tmp_path, check=False)
    assert genuine.returncode == 0, genuine.stdout + genuine.stderr
    assert "lit_mnli: match, 0 of 12 examples differ" in genuine.stdout and "verified: tiny/nli-clf@" in genuine.stdout
    doc = json.loads(next((store / "verifications" / "tiny--nli-clf").rglob("*.json")).read_text())
    # the tiny classifier is also an encoder: its probe was re-trained and compared by metric
    assert doc["status"] == "verified" and set(doc["tasks"]) == {"lit_mnli", "gec_mnli", "jabberwocky_ewt"}, \
        genuine.stdout
    assert all(t["differing"] == 0 and t["compared"] == 12 for t in doc["tasks"].values()), genuine.stdout

    forged_run = tmp_path / "forged"
    shutil.copytree(smoke_runs["nli"][0], forged_run)
    forged = _forge_predictions(forged_run, suite)
    run(["submit", str(forged_run), "--to", str(store), "--model-id", "tiny/nli-clf", "--revision", "forged"], tmp_path)
    flagged = run([*cmd, "tiny/nli-clf@forged", "--full", "--tasks", "lit_mnli"], tmp_path, check=False)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    scored = len((forged_run / "logs" / "lit_mnli.jsonl").read_text().splitlines())
    assert f"lit_mnli: mismatch, {len(forged)} of {scored} examples differ" in flagged.stdout
    assert all(f"{i}: prediction differs" in flagged.stdout for i in forged)
    assert "flagged: tiny/nli-clf@forged" in flagged.stdout

    # the wrong weights: refused before anything is compared, nothing written
    wrong = run([*cmd[:-1], models["encoder"], "tiny/nli-clf@forged"], tmp_path, check=False)
    assert wrong.returncode == 2 and "not the model the run scored" in wrong.stderr, wrong.stderr

    site = tmp_path / "site"
    run(["leaderboard", "build", "--store", str(store), "--out", str(site)], tmp_path)
    data = json.loads(re.search(r'id="leaderboard-data">(.*?)</script>', (site / "index.html").read_text()).group(1))
    status = {(d["model_id"], d["revision"]): d["verification"]["status"] for d in data}
    assert status[("tiny/nli-clf", "forged")] == "flagged"
    assert [s for (m, r), s in status.items() if m == "tiny/nli-clf" and r != "forged"] == ["verified"]
    assert status[("tiny/tagger", next(r for m, r in status if m == "tiny/tagger"))] == "self-reported"
    assert "✓ verified" in (site / "index.html").read_text() and "⚠ flagged" in (site / "index.html").read_text()

    # a verification of a submission replaced since counts as none; a malformed one stops the build
    run(["submit", str(forged_run), "--to", str(store), "--model-id", "tiny/nli-clf", "--revision", "forged",
         "--overwrite"], tmp_path)
    run(["leaderboard", "build", "--store", str(store), "--out", str(site)], tmp_path)
    data = json.loads(re.search(r'id="leaderboard-data">(.*?)</script>', (site / "index.html").read_text()).group(1))
    assert {d["revision"]: d["verification"]["status"] for d in data if d["model_id"] == "tiny/nli-clf"}["forged"] \
        == "self-reported"
    bad = next(p for p in (store / "verifications").rglob("forged/*.json"))
    bad.write_text('{"format": 1, "status": "verified"}')
    broken = run(["leaderboard", "build", "--store", str(store), "--out", str(site)], tmp_path, check=False)
    assert broken.returncode == 2 and str(bad) in broken.stderr and "field 'entry'" in broken.stderr, broken.stderr


DEGENERATE = '''
import hashlib
import numpy as np
from robust_bench.models.classifiers import Classifier
from robust_bench.io.task_data import NLI_LABELS


class Constant(Classifier):
    """Answers one label whatever it reads."""

    def __init__(self, k):
        super().__init__(NLI_LABELS)
        self.k, self.revision = k, f"constant-{k}"

    def _forward(self, inputs):
        p = np.zeros((len(inputs), len(NLI_LABELS)))
        p[:, self.k] = 1.0
        return p


class Uniform(Classifier):
    """A label drawn uniformly at random, seeded by the input (the same input, the same answer)."""

    revision = "uniform"

    def __init__(self):
        super().__init__(NLI_LABELS)

    def _forward(self, inputs):
        p = np.zeros((len(inputs), len(NLI_LABELS)))
        for row, x in zip(p, inputs):
            row[int(hashlib.sha256(repr(x).encode()).hexdigest(), 16) % len(NLI_LABELS)] = 1.0
        return p


constant_0, constant_1, constant_2, uniform = Constant(0), Constant(1), Constant(2), Uniform()
'''


def test_constant_and_random_models_cannot_top_the_board(smoke_repo, taught_nli, tmp_path):
    """Beside a real tiny classifier, a constant predictor for every label and a uniform random one run on
    the smoke suite's NLI tasks, are submitted and ranked (issue 49): none ranks above the real model on
    any task or overall, and each constant model's primary is at or below its chance level (the accuracy
    of answering its label everywhere)."""
    from robust_bench.leaderboard.site import build_site
    from robust_bench.leaderboard.store import init_store, open_store, submit
    from robust_bench.benchmarks import load_suite
    from robust_bench.suite.runner import run_suite

    repo, suites = smoke_repo
    suite = load_suite(suites / "smoke.yaml")
    (tmp_path / "degenerate.py").write_text(DEGENERATE, encoding="utf-8")
    store = init_store(tmp_path / "store", [suite])
    models = {"tiny/real": str(taught_nli), **{f"tiny/{n.replace('_', '-')}": f"{tmp_path / 'degenerate.py'}:{n}"
                                              for n in ("constant_0", "constant_1", "constant_2", "uniform")}}
    records = {}
    for model_id, spec in models.items():
        out = tmp_path / "runs" / model_id.split("/")[1]
        run_suite(spec, suite, repo=repo, out=out, tasks=["gec_mnli", "lit_mnli"], device="cpu", report=False,
                  echo=lambda m: None)
        sub, _ = submit(out, open_store(store), model_id=model_id)
        records[model_id] = sub.records
    for task in ("gec_mnli", "lit_mnli"):
        primary = suite.task(task).primary
        real = records["tiny/real"][task]["metrics"][primary]
        for model_id, recs in records.items():
            assert recs[task]["metrics"][primary] <= real, (task, model_id, recs[task]["metrics"][primary], real)
            if "constant" in model_id:      # chance: the accuracy of answering one label everywhere
                chance = recs[task]["metrics"]["clean_accuracy" if task == "gec_mnli" else "acc_ori"]
                assert recs[task]["metrics"][primary] <= chance + 1e-9, (task, model_id)
    # the old primaries would have ranked them first: LIT's consistency of a constant model is perfect
    assert max(records[m]["lit_mnli"]["metrics"]["consistency"] for m in records if "constant" in m) == 1.0
    build_site(store, tmp_path / "site")
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="leaderboard-data">(.*?)</script>', html).group(1))
    ranks = {d["model_id"]: d["rank"] for d in data}
    assert ranks["tiny/real"] == 1, ranks
    assert all(d["overall"]["value"] <= data[0]["overall"]["value"] for d in data)
    assert "contrast consistency" in html and "Gardner et al. 2020" in html


def test_published_files_hold_no_local_path_of_the_submitting_machine(board, smoke_runs):
    """The runs scored local folders (the tiny models, the shared spaCy pipeline); the store and the site
    name each by its base name and content fingerprint, never by where it sat on this machine."""
    from tests.conftest import SHARED

    local = {str(SHARED), str(Path(smoke_runs["nli"][0]).parents[3]), str(Path.home()), os.getcwd()}
    local = {p for p in local if len(p) > 4}
    for root in (board["store"], board["site"]):
        for path in root.rglob("*"):
            if path.is_file() and path.suffix in (".json", ".jsonl", ".html", ".md", ".yaml", ".svg"):
                text = path.read_text(encoding="utf-8", errors="replace")
                found = [p for p in local if p in text]
                assert not found, (path, found)
    info = json.loads(next(board["store"].rglob("submission.json")).read_text())
    assert info["format"] == 2 and "/" not in info["run_model"]


def test_an_older_run_that_recorded_a_local_path_has_it_dropped_on_submit(board, smoke_runs, tmp_path):
    from robust_bench.leaderboard.store import open_store, submit

    old = tmp_path / "old"
    shutil.copytree(smoke_runs["nli"][0], old)
    path = str(tmp_path / "models" / "my-clf")            # where an older robust-bench left the model's path
    _edit(old / "run.json", lambda d: d.update(model=path))
    for rec in (old / "records").glob("*.json"):
        _edit(rec, lambda d: d["model"].update(id=path))
    store = tmp_path / "store"
    shutil.copytree(board["store"], store)
    sub, where = submit(old, open_store(store), model_id="tiny/older")
    stored = Path(where)
    for f in stored.rglob("*.json"):
        assert path not in f.read_text(), f
    assert json.loads((stored / "run.json").read_text())["model"] == "my-clf"
    assert {json.loads(f.read_text())["model"]["id"] for f in (stored / "records").glob("*.json")} == {"my-clf"}
    from robust_bench.leaderboard.store import iter_entries

    assert ("tiny/older", sub.revision) in {(e.model_id, e.revision) for e in iter_entries(store)}
