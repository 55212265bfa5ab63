"""Shared fixtures. End-to-end tests read the real corpora in ../shared (never copied here)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROBUST_BENCH_SHARED", ROOT.parent / "shared")).resolve()
SOURCES = SHARED / "data"

# Defaults for the real data; the README documents the same variables. Relative paths (as in
# the README's `NLTK_DATA=../shared/nltk_data`) are made absolute, because tests run commands
# from other working directories.
os.environ["NLTK_DATA"] = str(Path(os.environ.get("NLTK_DATA", SHARED / "nltk_data")).resolve())
if os.environ.get("ROBUST_BENCH_SOURCES"):
    os.environ["ROBUST_BENCH_SOURCES"] = str(Path(os.environ["ROBUST_BENCH_SOURCES"]).resolve())
os.environ.setdefault("HF_HUB_OFFLINE", "1")
_spacy = os.environ.get("ROBUST_BENCH_SPACY_MODEL") or str(SHARED / "models" / "spacy" / "en_rb_sm")
os.environ["ROBUST_BENCH_SPACY_MODEL"] = str(Path(_spacy).resolve()) if os.path.exists(_spacy) else _spacy
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
# the validity checks' models: the sentence encoder of `meaning_kept` and ERRANT's spaCy pipeline; the
# NER pipeline of names_mrpc
for _var, _path in (("ROBUST_BENCH_SIMILARITY_MODEL", SHARED / "models" / "all-MiniLM-L6-v2"),
                    ("ROBUST_BENCH_ERRANT_MODEL", SHARED / "models" / "spacy" / "en_core_web_sm"),
                    ("ROBUST_BENCH_NER_MODEL", SHARED / "models" / "spacy" / "en_core_web_sm")):
    _val = os.environ.get(_var) or str(_path)
    os.environ[_var] = str(Path(_val).resolve()) if os.path.exists(_val) else _val
# one math-library thread per process, set before torch is imported: with pytest -n N the workers share
# the cores (oversubscribed OpenMP threads spin and slow everything down), and a float reduction split
# over another number of threads rounds differently, so the tiny models the tests train, and the
# outputs tests/test_golden.py compares, would differ between `pytest` and `pytest -n 2`
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")


#: Session fixtures that take a minute or more to build; with ``pytest -n N --dist loadgroup``
#: (``make test``) every test needing one runs in the same worker, so each is built once.
_HEAVY_FIXTURES = ("smoke_runs", "smoke_repo", "built_repo", "built_repo_seed1", "lit_repo", "gec_repo")


@pytest.hookimpl(tryfirst=True)   # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    from robust_bench.data.registry import list_configs
    from tests.test_builders_common import FAMILY_REPOS   # its family's repository, asked for at run time

    family = {e.name: e.family for e in list_configs()}
    for item in items:
        names = getattr(item, "fixturenames", ())
        group = next((f for f in _HEAVY_FIXTURES if f in names), None)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if group is None and "config" in params and item.module.__name__.endswith("test_builders_common"):
            group = FAMILY_REPOS.get(family.get(params["config"]), f"build-{params['config']}")
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


def _require_shared() -> Path:
    if not (SOURCES / "ud_english_ewt" / "en_ewt-ud-test.conllu").is_file():
        # Never skip: a test that cannot see its data must fail, in CI and locally alike.
        pytest.fail(f"the shared corpora are missing at {SHARED}; set ROBUST_BENCH_SHARED")
    return SOURCES


@pytest.fixture(scope="session")
def sources() -> Path:
    """../shared/data, the local mirror of the source corpora."""
    return _require_shared()


@pytest.fixture(scope="session")
def ewt_train(sources):
    from robust_bench.io.conllu_io import read_conllu

    return read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-train.conllu")


@pytest.fixture(scope="session")
def built_repo(tmp_path_factory, sources) -> Path:
    """A dataset repository with jabberwocky_ewt built once (seed 0) for the session.

    It is named ``robust-bench`` inside its own parent, so ``load_dataset("robust-bench", ...)``
    can be called from the parent, as the mission says.
    """
    from robust_bench.data.repository import build_config

    parent = tmp_path_factory.mktemp("repo_seed0")
    build_config("jabberwocky_ewt", out=parent / "robust-bench", source=sources, seed=0)
    return parent / "robust-bench"


@pytest.fixture(scope="session")
def built_repo_seed1(tmp_path_factory, sources) -> Path:
    from robust_bench.data.repository import build_config

    out = tmp_path_factory.mktemp("repo_seed1") / "robust-bench"
    build_config("jabberwocky_ewt", out=out, source=sources, seed=1)
    return out


@pytest.fixture
def repo_copy(built_repo, tmp_path) -> Path:
    """A private copy of the session repository that a test may break."""
    dst = tmp_path / "robust-bench"
    shutil.copytree(built_repo, dst)
    return dst


SST2_SENTENCES = [
    ("a gripping , funny and moving film .", "positive"), ("the plot goes nowhere and the jokes fall flat .", "negative"),
    ("it is a beautiful movie about friendship .", "positive"), ("the actors seem bored in every scene .", "negative"),
    ("a smart script makes the story feel fresh .", "positive"), ("the director wastes a good cast on a dull story .", "negative"),
    ("children will love the colourful animals .", "positive"), ("i walked out before the end .", "negative"),
    ("the music lifts every scene .", "positive"), ("nothing in this film works .", "negative"),
]


GEC_MNLI_ROWS, GEC_QNLI_ROWS, GEC_MSR_ROWS = 400, 800, 600


@pytest.fixture(scope="session")
def gec_sources(tmp_path_factory, sources) -> Path:
    """A source mirror for the gec_* configs: the real GLUE and CoNLL-2003 files from ../shared
    (linked, not copied) plus a small SST-2 file written here, since ../shared has no SST-2."""
    root = tmp_path_factory.mktemp("gec_sources")
    (root / "glue").mkdir()
    (root / "glue" / "mnli").mkdir()
    for name in ("dev_matched_sample.tsv", "dev_mismatched_sample.tsv"):
        lines = (sources / "glue" / "mnli" / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (root / "glue" / "mnli" / name).write_text("".join(lines[:GEC_MNLI_ROWS]), encoding="utf-8")
    # the larger files are cut to their first rows (MNLI 400 pairs per split, QNLI 800, MSR test 600, CoNLL-2003
    # about 800 sentences per split): every build runs the validity checks' encoder and ERRANT, and the suite
    # must stay fast
    for task, name, keep in (("qnli", "dev.tsv", GEC_QNLI_ROWS + 1), ("mrpc", "msr_paraphrase_test.txt", GEC_MSR_ROWS + 1)):
        (root / "glue" / task).mkdir(exist_ok=True)
        lines = (sources / "glue" / task / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (root / "glue" / task / name).write_text("".join(lines[:keep]), encoding="utf-8")
    os.symlink(sources / "glue" / "mrpc" / "dev.tsv", root / "glue" / "mrpc" / "dev.tsv")
    (root / "conll2003").mkdir()
    for name in ("valid.txt", "test.txt"):
        lines = (sources / "conll2003" / name).read_text(encoding="utf-8").splitlines(keepends=True)
        cut = next(i for i in range(12000, len(lines)) if not lines[i].strip())
        (root / "conll2003" / name).write_text("".join(lines[:cut + 1]), encoding="utf-8")
    (root / "glue" / "sst2").mkdir()
    lines = ["sentence\tlabel"] + [f"{s}\t{1 if lab == 'positive' else 0}" for s, lab in SST2_SENTENCES]
    (root / "glue" / "sst2" / "dev.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def gec_repo(tmp_path_factory, gec_sources) -> Path:
    """Every gec_* config built once (seed 0) into one repository."""
    from robust_bench.data.registry import list_configs
    from robust_bench.data.repository import build_config

    out = tmp_path_factory.mktemp("gec_repo") / "robust-bench"
    for entry in list_configs():
        if entry.family == "grammatical_errors":
            build_config(entry.name, out=out, source=gec_sources, seed=0)
    return out


@pytest.fixture(scope="session")
def ewt_test_words(sources):
    from robust_bench.io.conllu_io import read_conllu

    return [list(s.forms) for s in read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-test.conllu")]


@pytest.fixture(scope="session")
def sst2_classifier(tmp_path_factory) -> Path:
    """A tiny sentiment classifier (labels negative, positive) trained on SST2_SENTENCES."""
    from robust_bench.models.tiny import build_tiny_classifier

    texts = [s for s, _ in SST2_SENTENCES]
    labels = [1 if lab == "positive" else 0 for _, lab in SST2_SENTENCES]
    return build_tiny_classifier(tmp_path_factory.mktemp("sst2") / "sst2-tiny", texts * 8, labels * 8,
                                 ["negative", "positive"], hidden=32, epochs=8, lr=2e-3, vocab_size=300)


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, ewt_train):
    """A tiny BERT and a tiny GPT-2 (64 positions) with vocabularies trained on EWT train."""
    from robust_bench.models.tiny import build_tiny_bert, build_tiny_gpt2

    root = tmp_path_factory.mktemp("tiny_models")
    words = [list(s.forms) for s in ewt_train]
    return {"bert": build_tiny_bert(root / "bert", words, max_positions=64),
            "gpt2": build_tiny_gpt2(root / "gpt2", words, max_positions=64)}


@pytest.fixture(scope="session")
def nli_pairs(sources):
    """The real MNLI (matched) and SNLI dev samples from ../shared."""
    from robust_bench.io.task_data import read_nli

    return {"mnli": read_nli(sources / "glue" / "mnli" / "dev_matched_sample.tsv"),
            "snli": read_nli(sources / "snli" / "dev_sample.tsv")}


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory, nli_pairs) -> Path:
    """A tiny causal GPT-2 (random weights, byte-BPE vocabulary trained on the NLI samples)."""
    from robust_bench.models.tiny import build_tiny_gpt2

    texts = [p[f].split() for pairs in nli_pairs.values() for p in pairs for f in ("premise", "hypothesis")]
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny_lm") / "gpt2", texts, lm_head=True)


@pytest.fixture(scope="session")
def tiny_nli_classifier(tmp_path_factory, nli_pairs) -> Path:
    """A tiny BERT NLI classifier trained briefly on the MNLI and SNLI samples."""
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.tiny import build_tiny_classifier

    pairs = nli_pairs["mnli"] + nli_pairs["snli"]
    return build_tiny_classifier(tmp_path_factory.mktemp("tiny_nli") / "clf", [(p["premise"], p["hypothesis"]) for p in pairs],
                                 [p["label"] for p in pairs], NLI_LABELS, epochs=2)


@pytest.fixture(scope="session")
def lit_train_file(tmp_path_factory, nli_pairs) -> Path:
    """A small training file (the first 150 SNLI sample pairs) for the AUG option."""
    path = tmp_path_factory.mktemp("lit_train") / "train.tsv"
    from robust_bench.io.task_data import NLI_LABELS

    path.write_text("".join(f"{NLI_LABELS[p['label']]}\t{p['premise']}\t{p['hypothesis']}\n"
                            for p in nli_pairs["snli"][:150]), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def lit_repo(tmp_path_factory, sources, tiny_lm, lit_train_file) -> Path:
    """lit_mnli (both splits) built with the default options (offline: no LM, the second parser of
    conftest's $ROBUST_BENCH_ERRANT_MODEL), and lit_snli (plus an AUG train split) with the tiny LM
    choosing surfaces, as --lm does."""
    from robust_bench.data.repository import build_config

    out = tmp_path_factory.mktemp("lit_repo") / "robust-bench"
    build_config("lit_mnli", out=out, source=sources)
    build_config("lit_snli", out=out, source=sources, options={"lm": str(tiny_lm), "splits": ("validation",),
                                                               "augment_train": str(lit_train_file)})
    return out


def build_settings(request, config: str) -> tuple[Path, dict]:
    """Source mirror and options with which the tests build ``config`` (by family)."""
    from robust_bench.data.registry import get_config

    family = get_config(config).family
    if family == "grammatical_errors":
        return request.getfixturevalue("gec_sources"), {}
    if family == "lit":
        opts = {}
        if config == "lit_snli":
            opts["lm"] = str(request.getfixturevalue("tiny_lm"))
            opts.update(splits=("validation",), augment_train=str(request.getfixturevalue("lit_train_file")))
        elif config.endswith("_extended"):   # one split keeps the common tests quick
            opts.update(splits=("validation_matched",) if "mnli" in config else ("validation",))
        return request.getfixturevalue("sources"), opts
    if family == "named_entity_swaps":
        return request.getfixturevalue("sources"), {"budget": 3}      # B = 3 keeps the common tests quick
    if family == "adversarial_treebanks":
        # the offline default (what runs here: WordNet synonyms and the frequency, POS, meaning and Link
        # Grammar filters); 25 sentences per split, so that EWT dev's 24th ("remained" -> "stayed") is attacked
        return request.getfixturevalue("sources"), {"limit": 25}
    return request.getfixturevalue("sources"), {}


@pytest.fixture(scope="session")
def build_any(request, tmp_path_factory):
    """``build_any(config, seed=0, num_proc=None, tag="main")``: the repository holding ``config``
    built with the tests' settings, once per arguments for the session."""
    from robust_bench.data.repository import build_config

    cache: dict = {}

    def build(config: str, *, seed: int = 0, num_proc: int | None = None, tag: str = "main") -> Path:
        key = (config, seed, num_proc, tag)
        if key not in cache:
            source, options = build_settings(request, config)
            out = tmp_path_factory.mktemp(f"any_{config}_{tag}") / "robust-bench"
            build_config(config, out=out, source=source, seed=seed, num_proc=num_proc, options=options)
            cache[key] = out
        return cache[key]

    return build


@pytest.fixture(scope="session")
def tiny_tagger(tmp_path_factory, ewt_train):
    """A tiny BERT token classifier with 16 positions and the CoNLL-2003 tags (random weights):
    ``(path, tags)``."""
    import torch
    from transformers import BertConfig, BertForTokenClassification

    from robust_bench.io.task_data import CONLL2003_TAGS
    from robust_bench.models.tiny import _wordpiece

    path = tmp_path_factory.mktemp("tagger")
    tags = list(CONLL2003_TAGS)
    tok = _wordpiece((" ".join(s.forms) for s in ewt_train[:2000]), 1000, lowercase=False, max_positions=16)
    tok.save_pretrained(str(path))
    cfg = BertConfig(vocab_size=len(tok), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=16, num_labels=len(tags),
                     id2label=dict(enumerate(tags)), label2id={t: i for i, t in enumerate(tags)})
    torch.manual_seed(0)
    BertForTokenClassification(cfg).save_pretrained(str(path))
    return path, tags


@pytest.fixture(scope="session")
def treebank_attack_models(tmp_path_factory, ewt_train, tiny_lm) -> dict:
    """What the parser attack needs, built here: a tiny masked LM (random weights, WordPiece
    vocabulary from EWT train), the tiny causal LM, and word2vec vectors trained with gensim on EWT
    train (lower-cased, written as word2vec text)."""
    from gensim.models import Word2Vec

    from robust_bench.models.tiny import build_tiny_bert

    root = tmp_path_factory.mktemp("parser_attack")
    words = [list(s.forms) for s in ewt_train]
    mlm = build_tiny_bert(root / "mlm", words, max_positions=128, mlm_head=True)
    w2v = Word2Vec([[w.lower() for w in s] for s in words], vector_size=32, min_count=3, epochs=3, seed=0, workers=1)
    w2v.wv.save_word2vec_format(str(root / "vectors.txt"))
    return {"mlm": str(mlm), "lm": str(tiny_lm), "vectors": str(root / "vectors.txt")}


SMOKE = ["gec_mnli", "gec_mrpc", "gec_conll2003", "names_mrpc", "names_conll2003", "adv_ewt", "lit_mnli", "jabberwocky_ewt"]


@pytest.fixture(scope="session")
def smoke_repo(build_any, tmp_path_factory):
    """One dataset repository with the smoke configs (built with the tests' settings) and a copy of
    the shipped suites pinned to it."""
    from robust_bench.data.repository import write_card

    root = tmp_path_factory.mktemp("smoke")
    repo = root / "robust-bench"
    (repo / "data").mkdir(parents=True)
    for config in SMOKE:
        shutil.copytree(build_any(config) / "data" / config, repo / "data" / config)
    write_card(repo)
    suites = root / "suites"
    shutil.copytree(ROOT / "benchmarks", suites,
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    from tests.test_cli import run

    out = run(["suite", "pin", str(suites / "default.yaml"), "--repo", str(repo)], root).stdout
    assert "gec_qnli: not built" in out
    pinned = (suites / "default.yaml").read_text()  # pinning rewrites the hash lines only
    shipped = (ROOT / "benchmarks" / "default.yaml").read_text()
    assert re.sub(r"data_sha256: \S+", "", pinned) == re.sub(r"data_sha256: \S+", "", shipped)
    return repo, suites


@pytest.fixture(scope="session")
def models(tiny_nli_classifier, tiny_tagger, tiny_models, tmp_path_factory):
    """Callable wrappers: the tiny NLI classifier as is (``good``) and with a third of its
    predictions moved to the next label (``bad``), chosen by a hash of the input."""
    root = tmp_path_factory.mktemp("callables")
    (root / "wrapped.py").write_text(f'''
import hashlib
import numpy as np
from robust_bench.models.classifiers import Classifier, HFClassifier
from robust_bench.io.task_data import NLI_LABELS

class Flipping(Classifier):
    def __init__(self, share):
        super().__init__(NLI_LABELS)
        self.inner = HFClassifier({str(tiny_nli_classifier)!r}, NLI_LABELS, device="cpu")
        self.share = share
        self.revision = "flip-%s" % share

    def _forward(self, inputs):
        p = self.inner.predict_proba(inputs).copy()
        for k, x in enumerate(inputs):
            h = int(hashlib.sha256(repr(x).encode()).hexdigest()[:8], 16) / 16 ** 8
            if h < self.share:
                p[k] = np.roll(p[k], 1)
        return p

good = Flipping(0.0)
bad = Flipping(0.35)
''')
    return {"nli": str(tiny_nli_classifier), "tagger": str(tiny_tagger[0]), "encoder": str(tiny_models["bert"]),
            "good": "wrapped.py:good", "bad": "wrapped.py:bad", "dir": root}


@pytest.fixture(scope="session")
def smoke_runs(smoke_repo, models, sources, tmp_path_factory) -> dict:
    """``robust-bench run --limit 40`` over the smoke suite with the tiny NLI classifier, the tiny
    tagger, the tiny BERT encoder and the real spaCy pipeline: kind -> (run folder, stdout)."""
    from tests.helpers import run_on_smoke

    root = tmp_path_factory.mktemp("smoke_runs") / "runs"
    out = {}
    for kind, model in (("nli", models["nli"]), ("tagger", models["tagger"]), ("encoder", models["encoder"]),
                        ("spacy", str(sources.parent / "models/spacy/en_rb_sm"))):
        proc = run_on_smoke(model, root, smoke_repo, "--limit", "40")
        out[kind] = (root / Path(model).name.lower().replace("-", "_"), proc.stdout)
    return out
