"""The dataset repository: atomic builds, clear errors, no stale caches."""

import json
import os
import shutil

import datasets
import pytest

from robust_bench.io.conllu_io import ConlluError
from robust_bench.data.registry import UnknownConfigError
from robust_bench.data.repository import _commit, build_config, read_metadata
from robust_bench.io.sources import SourceNotFoundError


def _tree_bytes(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _malformed_source(tmp_path, sources, train_text):
    """A source mirror whose train file is malformed (read first, so the build fails fast)."""
    src = tmp_path / "src"
    (src / "ud_english_ewt").mkdir(parents=True)
    (src / "ud_english_ewt" / "en_ewt-ud-train.conllu").write_text(train_text, encoding="utf-8")
    for name in ("dev", "test"):
        os.symlink(sources / "ud_english_ewt" / f"en_ewt-ud-{name}.conllu", src / "ud_english_ewt" / f"en_ewt-ud-{name}.conllu")
    os.symlink(sources / "wuggy", src / "wuggy")
    return src


ROW = "{i}\tw\tw\tNOUN\tNN\tNumber=Sing\t{h}\tdep\t_\t_"
MALFORMED = {
    "wrong column count": ("# sent_id = a\n1\tw\tw\tNOUN\n\n", "columns"),
    "non-integer head": ("# sent_id = a\n" + ROW.format(i=1, h="x") + "\n\n", "non-integer head"),
    "out-of-range head": ("# sent_id = a\n" + ROW.format(i=1, h=0) + "\n" + ROW.format(i=2, h=9) + "\n\n", "out of range"),
    "head cycle": ("# sent_id = a\n" + "\n".join([ROW.format(i=1, h=0), ROW.format(i=2, h=3), ROW.format(i=3, h=2)]) + "\n\n", "cycle"),
    "missing root": ("# sent_id = a\n" + "\n".join([ROW.format(i=1, h=2), ROW.format(i=2, h=1)]) + "\n\n", "missing root"),
    "empty sentence": ("# sent_id = a\n# text = nothing\n\n", "empty sentence"),
    "unknown UPOS": ("# sent_id = a\n1\tw\tw\tNOUNISH\tNN\t_\t0\troot\t_\t_\n\n", "unknown UPOS tag 'NOUNISH'"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_source_fails_clearly_and_leaves_the_repository_intact(case, repo_copy, sources, tmp_path):
    text, needle = MALFORMED[case]
    src = _malformed_source(tmp_path, sources, text)
    before = _tree_bytes(repo_copy)
    with pytest.raises(ConlluError, match=needle) as info:
        build_config("jabberwocky_ewt", out=repo_copy, source=src)
    assert str(info.value).startswith(str(src / "ud_english_ewt" / "en_ewt-ud-train.conllu") + ":")
    assert _tree_bytes(repo_copy) == before
    assert not [p for p in repo_copy.parent.iterdir() if "staging" in p.name]


def test_failed_first_build_creates_no_repository(sources, tmp_path):
    src = _malformed_source(tmp_path, sources, MALFORMED["head cycle"][0])
    out = tmp_path / "fresh" / "robust-bench"
    with pytest.raises(ConlluError):
        build_config("jabberwocky_ewt", out=out, source=src)
    assert not out.exists()
    assert [p for p in (tmp_path / "fresh").iterdir() if not p.name.endswith(".lock")] == []   # the lock file stays


def test_missing_source_and_unknown_config(tmp_path):
    with pytest.raises(SourceNotFoundError, match="lacks"):
        build_config("jabberwocky_ewt", out=tmp_path / "r", source=tmp_path)
    with pytest.raises(UnknownConfigError, match="known configs: .*jabberwocky_ewt"):
        build_config("lit_nope", out=tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_interrupted_commit_is_rolled_forward_by_the_next_command(repo_copy, tmp_path, monkeypatch):
    stage = tmp_path / "stage" / "jabberwocky_ewt"
    stage.mkdir(parents=True)
    (stage / "train.parquet").write_bytes(b"new")

    def interrupted(repo):
        raise KeyboardInterrupt

    monkeypatch.setattr("robust_bench.data.repository.write_card", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _commit(repo_copy, "jabberwocky_ewt", stage)
    monkeypatch.undo()
    from robust_bench.data.repository import read_metadata

    read_metadata(repo_copy)          # the next command finishes the journalled commit
    assert (repo_copy / "data" / "jabberwocky_ewt" / "train.parquet").read_bytes() == b"new"
    assert not [p for p in repo_copy.iterdir() if p.name.startswith(".")]
    assert not (repo_copy.parent / f".{repo_copy.name}.journal.json").exists()


def test_rebuild_with_another_seed_is_not_served_from_the_datasets_cache(built_repo, built_repo_seed1, tmp_path):
    repo = tmp_path / "robust-bench"
    shutil.copytree(built_repo, repo)
    a = datasets.load_dataset(str(repo), "jabberwocky_ewt", split="test")["tokens"]
    shutil.rmtree(repo)
    shutil.copytree(built_repo_seed1, repo)
    b = datasets.load_dataset(str(repo), "jabberwocky_ewt", split="test")["tokens"]
    assert a != b
    assert read_metadata(repo)["jabberwocky_ewt"]["seed"] == 1


def test_a_config_not_built_is_one_error_everywhere(tmp_path):
    """Issue 32: "load a built config or say `robust-bench build`" is written once
    (``built_config``); every reader (suite run, evaluate, audit, attack, probe, baselines) raises it."""
    from typer.testing import CliRunner

    from robust_bench.cli import app
    from robust_bench.data.repository import NotBuiltError, built_config
    from robust_bench import RobustBenchError

    with pytest.raises(NotBuiltError, match=r"holds no 'lit_mnli'; run `robust-bench build lit_mnli --out"):
        built_config(tmp_path, "lit_mnli")
    assert issubclass(NotBuiltError, RobustBenchError)
    runner = CliRunner()
    for args in (["audit", "lit_mnli", "--repo", str(tmp_path), "--out", str(tmp_path / "a.tsv")],
                 ["baselines", "--config", "jabberwocky_ewt", "--repo", str(tmp_path)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)          # `fail`: one line, status 2
        assert "holds no" in res.output and "robust-bench build" in res.output and "Traceback" not in res.output


def test_the_card_is_a_hub_dataset_card_a_person_can_read(smoke_repo):
    """Issue 55, item 3: the card of the smoke configs (8 of the default suite's 12) is a Hub dataset card that
    huggingface_hub parses and whose metadata is DatasetCardData's; each config's section is at most 150 lines and
    5 KB (so the 12 default configs stay under 60 KB), and what left the card is in the files it links."""
    import re

    from huggingface_hub import DatasetCard, DatasetCardData

    repo, _ = smoke_repo
    path = repo / "README.md"
    text = path.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 60_000
    card = DatasetCard.load(path)
    data = card.data.to_dict()
    assert DatasetCardData(**data).to_dict() == data and data["language"] == ["en"]
    for heading in ("## Dataset summary", "## Supported tasks and leaderboards", "## Languages", "## Dataset structure",
                    "## Dataset creation", "## Considerations for using the data", "## Licensing information",
                    "## Citation information"):
        assert heading in text, heading
    metas = read_metadata(repo)
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    assert sorted(s.split("\n", 1)[0] for s in sections) == sorted(metas)
    for s in sections:
        s = s.split("\n## ", 1)[0]
        assert s.count("\n") <= 150 and len(s.encode("utf-8")) <= 5_000, s.split("\n", 1)[0]
    for name, m in metas.items():
        # the builder counted its refusals at build time: rendering the card never imports the builders
        assert isinstance(m["refusals"], dict)
        details = (repo / "data" / name / "details.md").read_text(encoding="utf-8")
        assert f"data/{name}/details.md" in text and f"data/{name}/audits.md" in text
        assert json.dumps(m["statistics"], indent=2, sort_keys=True) in details    # moved, not lost
        assert not m.get("coverage_notes") or m["coverage_notes"].strip() in details
        assert all(split in datasets.load_dataset(str(repo), name) for split in m["files"])
