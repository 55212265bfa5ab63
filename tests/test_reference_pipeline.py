"""The reference spaCy pipeline's recipe (issue 50): trained from the real EWT and CoNLL-2003 files in
../shared (a slice, one epoch, so that the recipe cannot rot), deterministic, packaged as a wheel that
pip installs and spaCy loads by its package name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import run

pytestmark = pytest.mark.shared

SLICE = ["--limit", "60", "--max-epochs", "1"]


def _weights(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_recipe_trains_the_same_pipeline_twice_and_its_wheel_installs_and_loads_by_name(sources, tmp_path):
    """`robust-bench pipeline train` on a slice; the same recipe run again writes the same bytes; `robust-bench
    pipeline package` (spacy package --build wheel) makes a wheel that pip installs into a folder of its own,
    from which spaCy loads the pipeline by its package name, as a user's would."""
    from robust_bench.text.reference_pipeline import NAME, PACKAGE, VERSION, train_pipeline

    proc = run(["pipeline", "train", "--out", str(tmp_path / "a"), "--source", str(sources), *SLICE], tmp_path)
    assert "EWT test: UPOS " in proc.stdout and "CoNLL-2003 test: NER F1 " in proc.stdout, proc.stdout
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert (meta["name"], meta["version"]) == (NAME, VERSION)
    assert meta["pipeline"] == ["tok2vec", "tagger", "morphologizer", "trainable_lemmatizer", "parser", "ner"]
    assert sorted(meta["labels"]["ner"]) == ["LOC", "MISC", "ORG", "PER"]
    assert "nsubj" in meta["labels"]["parser"] and "NNP" in meta["labels"]["tagger"]
    scores = meta["performance_heldout"]
    assert 0 <= scores["ewt_test"]["dep_las"] <= scores["ewt_test"]["dep_uas"] <= 1
    assert 0 <= scores["conll2003_test"]["ents_f"] <= 1
    assert "train = null" in (tmp_path / "a" / "config.cfg").read_text()     # no path of this machine
    # deterministic on the CPU: the same recipe, run again with its two stages in processes of their own
    # (--jobs 2), writes the same bytes
    ewt = {k: sources / "ud_english_ewt" / f"en_ewt-ud-{k}.conllu" for k in ("train", "dev", "test")}
    conll = {k: sources / "conll2003" / f"{k}.txt" for k in ("train", "valid", "test")}
    again = train_pipeline(tmp_path / "b", ewt=ewt, conll2003=conll, limit=60, max_epochs=1, jobs=2,
                           echo=lambda _: None)
    assert _weights(again.path) == _weights(tmp_path / "a")
    assert (tmp_path / "b.work" / "ner.log").read_text(encoding="utf-8").count("E    #") == 1
    proc = run(["pipeline", "package", str(tmp_path / "a"), "--out", str(tmp_path / "dist")], tmp_path)
    wheel = Path(proc.stdout.strip().splitlines()[-1].removeprefix("wheel: "))
    assert wheel.name == f"{PACKAGE}-{VERSION}-py3-none-any.whl" and wheel.is_file()
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(tmp_path / "site"), str(wheel)], check=True)
    code = (f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); import spacy; "
            f"nlp = spacy.load({PACKAGE!r}); print(nlp.meta['name'], len(nlp('It works .')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == [NAME, "3"]


def test_the_recipe_refuses_bad_sources_in_one_line(sources, tmp_path):
    bad = tmp_path / "src"
    (bad / "ud_english_ewt").mkdir(parents=True)
    (bad / "conll2003").mkdir()
    for name in ("train", "dev", "test"):
        (bad / "ud_english_ewt" / f"en_ewt-ud-{name}.conllu").write_text("1\tHello\n", encoding="utf-8")
    proc = run(["pipeline", "train", "--out", str(tmp_path / "p"), "--source", str(bad), *SLICE], tmp_path, check=False)
    assert proc.returncode == 2 and "missing" in proc.stderr and "conll2003/train.txt" in proc.stderr
    for name in ("train", "valid", "test"):
        (bad / "conll2003" / f"{name}.txt").write_text("EU NNP B-NP B-ORG\n", encoding="utf-8")
    proc = run(["pipeline", "train", "--out", str(tmp_path / "p"), "--source", str(bad), *SLICE], tmp_path, check=False)
    assert proc.returncode == 2 and "en_ewt-ud-train.conllu" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "p").exists()
