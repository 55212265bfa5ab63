"""Hub push of the dataset repository and of a run's results. No network here: a fake ``HfApi``
records each call; the tests check its arguments and the exact files and YAML it would send."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

pytestmark = pytest.mark.shared


class FakeApi:
    """Records calls; ``upload_folder`` keeps the files its ``allow_patterns`` select, as
    huggingface_hub selects them."""

    readme: str | None = None

    def __init__(self, *a, **k):
        self.calls = []
        FakeApi.last = self

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))

    def upload_folder(self, **kwargs):
        from huggingface_hub.utils import filter_repo_objects

        root = Path(kwargs["folder_path"])
        rel = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
        files = {f: (root / f).read_bytes() for f in filter_repo_objects(
            rel, allow_patterns=kwargs.get("allow_patterns"), ignore_patterns=kwargs.get("ignore_patterns"))}
        self.calls.append(("upload_folder", kwargs, files))
        return type("Info", (), {"pr_url": "https://hf.co/pr/1" if kwargs.get("create_pr") else None,
                                 "commit_url": "https://hf.co/commit/1"})()

    def upload_file(self, **kwargs):
        self.calls.append(("upload_file", kwargs))
        return type("Info", (), {"pr_url": "https://hf.co/pr/2", "commit_url": None})()

    def hf_hub_download(self, repo_id, filename, **kwargs):
        from huggingface_hub.errors import EntryNotFoundError

        if self.readme is None:
            raise EntryNotFoundError(f"{repo_id} has no {filename}")
        path = Path(self.tmp) / "README.md"
        path.write_text(self.readme)
        return str(path)


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    FakeApi.readme, FakeApi.tmp = None, str(tmp_path)
    return FakeApi


def _cli(*args):
    from robust_bench.cli import app

    return CliRunner().invoke(app, list(args))


def test_push_uploads_the_checked_repository_with_its_benchmark_definition(built_repo, tmp_path, fake_hub):
    from robust_bench.data.repository import read_metadata

    repo = tmp_path / "robust-bench"
    shutil.copytree(built_repo, repo)
    (repo / ".lock").write_text("")  # local bookkeeping never goes up
    (repo / "data" / "jabberwocky_ewt" / ".details.md.x.tmp").write_text("")  # nor an interrupted write
    res = _cli("push", "--repo", "org/robust-bench", "--local", str(repo), "--benchmark", "jabberwocky")
    assert res.exit_code == 0, res.output
    (_, repo_id, kw), (_, up, files) = fake_hub.last.calls
    assert (repo_id, kw) == ("org/robust-bench", {"repo_type": "dataset", "exist_ok": True})
    meta = read_metadata(repo)["jabberwocky_ewt"]
    expected = sorted(["README.md", "eval.yaml", "data/jabberwocky_ewt/metadata.json", "data/jabberwocky_ewt/details.md",
                       "data/jabberwocky_ewt/audits.md", *(f["path"] for f in meta["files"].values())])
    # exactly the checked files go up (a stray file beside them does not)
    assert {k: v for k, v in up.items() if k != "folder_path"} == {
        "repo_id": "org/robust-bench", "repo_type": "dataset", "create_pr": False, "allow_patterns": expected,
        "commit_message": "robust-bench: 6 data files"}
    assert sorted(files) == expected
    bench = yaml.safe_load(files["eval.yaml"])
    assert bench["tasks"] == [{"id": "jabberwocky_ewt", "config": "jabberwocky_ewt", "split": "test"}]
    assert set(bench) == {"name", "description", "evaluation_framework", "tasks"}
    # as a pull request: no repository is created
    res = _cli("push", "--repo", "org/robust-bench", "--local", str(repo), "--create-pr")
    assert res.exit_code == 0 and "https://hf.co/pr/1" in res.output
    assert [c[0] for c in fake_hub.last.calls] == ["upload_folder"]
    # a data file that no longer matches its metadata stops the push before any call
    parquet = repo / meta["files"]["test"]["path"]
    parquet.write_bytes(parquet.read_bytes() + b"x")
    fake_hub.last = None
    res = _cli("push", "--repo", "org/robust-bench", "--local", str(repo))
    assert res.exit_code == 2 and "differs from data/jabberwocky_ewt/metadata.json" in res.output
    assert fake_hub.last is None


def test_push_results_as_eval_results_and_as_model_index(smoke_runs, fake_hub):
    from huggingface_hub import ModelCard, parse_eval_result_entries

    from robust_bench.leaderboard.hub_results import run_records

    run_dir = smoke_runs["spacy"][0]
    records = {r["task"]: r for r in run_records(run_dir)}
    res = _cli("push-results", str(run_dir), "--model-repo", "org/parser")
    assert res.exit_code == 0, res.output
    (_, kw), = fake_hub.last.calls
    assert {k: v for k, v in kw.items() if k != "path_or_fileobj"} == {
        "path_in_repo": ".eval_results/robust-bench-smoke-v5.yaml", "repo_id": "org/parser", "repo_type": "model",
        "commit_message": "robust-bench results on suite smoke v5", "create_pr": True}
    entries = parse_eval_result_entries(yaml.safe_load(kw["path_or_fileobj"]))
    assert {e.task_id: e.value for e in entries} == {t: r["metrics"][r["primary"]] for t, r in records.items()}
    assert all(e.dataset_id == "robust-bench/robust-bench" and e.source_url for e in entries)

    fake_hub.readme = "---\nlicense: mit\n---\n# A parser\n\nIts own text.\n"
    res = _cli("push-results", str(run_dir), "--model-repo", "org/parser", "--format", "model-index",
               "--no-create-pr")
    assert res.exit_code == 0, res.output
    (_, kw), = fake_hub.last.calls
    assert kw["path_in_repo"] == "README.md" and kw["create_pr"] is False
    card = ModelCard(kw["path_or_fileobj"].decode())
    assert card.text.strip() == "# A parser\n\nIts own text." and card.data.license == "mit"
    assert {r.dataset_config: r.metric_value for r in card.data.eval_results} == {
        r["config"]: r["metrics"][r["primary"]] for r in records.values()}
    # pushing again replaces robust-bench's entries instead of adding duplicates
    fake_hub.readme = kw["path_or_fileobj"].decode()
    _cli("push-results", str(run_dir), "--model-repo", "org/parser", "--format", "model-index")
    (_, kw2), = fake_hub.last.calls
    assert len(ModelCard(kw2["path_or_fileobj"].decode()).data.eval_results) == len(records)

    fake_hub.last = None
    res = _cli("push-results", str(run_dir), "--model-repo", "../etc")
    assert res.exit_code == 2 and fake_hub.last is None


def test_push_refuses_linked_card_files_that_are_not_the_built_ones(built_repo, tmp_path, fake_hub):
    """The card links data/<config>/details.md and audits.md: a stale or edited one stops the push before any call."""
    repo = tmp_path / "robust-bench"
    shutil.copytree(built_repo, repo)
    (repo / "data" / "jabberwocky_ewt" / "details.md").write_text("edited by hand\n")
    fake_hub.last = None
    res = _cli("push", "--repo", "org/robust-bench", "--local", str(repo))
    assert res.exit_code == 2 and "details.md: not the one the card links" in res.output
    assert fake_hub.last is None
