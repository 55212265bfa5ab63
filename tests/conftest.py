"""Shared fixtures. End-to-end tests read the real corpora in ../shared (never copied here)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Callable

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


# ---- tiers ----------------------------------------------------------------------------------------
#: ``make test`` runs the fast tier (what CI runs); ``make test-full`` adds ``--full``: every
#: whole-corpus build, every kill point and every browser check. A test that belongs to the full tier
#: only is marked ``@pytest.mark.full``; in the fast tier it is deselected (never skipped).


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="the full tier: whole-corpus builds, every kill point (make test-full)")


def full_tier(config) -> bool:
    """Whether this session runs the full tier (``--full``)."""
    return bool(config.getoption("--full"))


def pytest_collection_modifyitems(config, items):
    if full_tier(config):
        return
    keep, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker("full") else keep).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(scope="session")
def full(request) -> bool:
    """True in the full tier (``--full``)."""
    return full_tier(request.config)


# ---- things made once per test session --------------------------------------------------------------


def _session_root(tmp_path_factory) -> Path:
    """A folder that every pytest-xdist worker of this session shares: the workers' common temporary
    root (each worker's own base folder sits in it), or the base folder without xdist."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-once"
    root.mkdir(exist_ok=True)
    return root


def recipe_key(name: str, *parts) -> str:
    """``name`` and a short hash of a recipe's arguments: the folder a made-once thing lives in."""
    text = json.dumps([str(p) if isinstance(p, Path) else p for p in parts], sort_keys=True, default=str)
    return f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


#: what each made-once thing cost (seconds, key, worker), one line each, in the session's shared folder
MADE_ONCE_TIMES = "made-once-times.tsv"


def pytest_terminal_summary(terminalreporter, config):
    """The slowest things made once (their time is charged to whichever test asked first, so --durations alone
    cannot show it), and how the tests' ``robust-bench`` calls ran (:func:`tests.helpers.run_cli`)."""
    base = getattr(config, "_tmp_path_factory", None)
    path = base.getbasetemp() / "made-once" / MADE_ONCE_TIMES if base is not None else None
    if path is None or not path.is_file():
        return
    rows = sorted((line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()),
                  key=lambda r: -float(r[0]))
    terminalreporter.write_sep("=", f"made once: {len(rows)} things, {sum(float(r[0]) for r in rows):.0f} s in all")
    for seconds, key, worker in rows[:25]:
        terminalreporter.write_line(f"{float(seconds):8.1f}s  {key}  ({worker})")
    calls: Counter = Counter()
    for p in path.parent.glob("warm-cli-*.calls.json"):
        calls.update(json.loads(p.read_text(encoding="utf-8")))
    terminalreporter.write_sep("=", f"robust-bench calls: {sum(calls.values())} "
                                    "(warm: forked from tests/warm_cli.py; fresh: a new process, and why)")
    for how, n in calls.most_common():
        terminalreporter.write_line(f"{n:6d}  {how}")


def made_once(tmp_path_factory, key: str, make: Callable[[Path], None]) -> Path:
    """The folder ``key``, made by ``make(folder)`` once per test session, whichever worker asks first.

    Under a file lock in the folder the workers share (:func:`_session_root`), so that under pytest-xdist
    a second worker waits for the first one's build and reuses it instead of building it again. ``make``
    writes into a staging folder that is renamed into place only when it returns, so a failed build
    leaves nothing and the next test that asks tries again. What is made is read-only afterwards: a test
    that must change it copies it first.
    """
    from filelock import FileLock

    root = _session_root(tmp_path_factory)
    done = root / key
    with FileLock(str(root / f".{key}.lock")):
        if not done.is_dir():
            stage = root / f".{key}.staging"
            shutil.rmtree(stage, ignore_errors=True)
            stage.mkdir()
            start = time.monotonic()
            try:
                make(stage)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
            os.replace(stage, done)
            with open(root / MADE_ONCE_TIMES, "a", encoding="utf-8") as log:
                log.write(f"{time.monotonic() - start:.1f}\t{key}\t{os.environ.get('PYTEST_XDIST_WORKER', '-')}\n")
    return done


def made_once_all(tmp_path_factory, recipes: dict[str, Callable[[Path], None]]) -> dict[str, Path]:
    """:func:`made_once` for several things that can be made side by side: each worker starts on a
    different one (gw0 from the first, gw1 from the last), makes those nobody else is making, then
    waits for the rest; so two workers that need the same set build it together."""
    from filelock import FileLock, Timeout

    root = _session_root(tmp_path_factory)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    keys = list(recipes)
    if int(re.sub(r"\D", "", worker) or 0) % 2:
        keys.reverse()
    for key in keys:
        if (root / key).is_dir():
            continue
        try:
            with FileLock(str(root / f".{key}.lock"), timeout=0):
                pass
        except Timeout:
            continue            # another worker is making it
        made_once(tmp_path_factory, key, recipes[key])
    return {key: made_once(tmp_path_factory, key, recipes[key]) for key in recipes}


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory) -> Path:
    """``$ROBUST_BENCH_CACHE`` for the session (encoder representations, pseudoword inventories): one
    folder the workers share, new each session, so that nothing cached by an earlier session or by the
    user is read."""
    path = _session_root(tmp_path_factory) / "cache"
    path.mkdir(exist_ok=True)
    os.environ["ROBUST_BENCH_CACHE"] = str(path)
    return path


@pytest.fixture(scope="session", autouse=True)
def warm_cli(tmp_path_factory, session_cache):
    """The session's warm command line (tests/warm_cli.py), one server per worker, started by the first
    ``robust-bench`` call through :func:`tests.helpers.run_cli`."""
    from tests import helpers
    from tests.warm_cli import WarmCLI

    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    root = _session_root(tmp_path_factory)
    helpers.WARM = WarmCLI(dict(os.environ), root / f"warm-cli-{worker}.log")
    yield helpers.WARM
    helpers.WARM.close()
    helpers.WARM = None
    (root / f"warm-cli-{worker}.calls.json").write_text(json.dumps(helpers.CALLS), encoding="utf-8")


def _require_shared() -> Path:
    if not (SOURCES / "ud_english_ewt" / "en_ewt-ud-test.conllu").is_file():
        # Never skip: a test that cannot see its data must fail, in CI and locally alike.
        pytest.fail(f"the shared corpora are missing at {SHARED}; set ROBUST_BENCH_SHARED")
    return SOURCES


@pytest.fixture(scope="session")
def sources() -> Path:
    """../shared/data, the local mirror of the source corpora."""
    return _require_shared()


#: The tests' builds: the real corpora of ../shared, the first examples of each split (``--set limit=N``,
#: an option users have too). The whole-corpus builds are in the full tier (``--full``).
TEST_LIMITS = {"jabberwocky_ewt": 400, "gec_mnli": 150, "gec_mrpc": 100, "gec_qnli": 100, "gec_conll2003": 150,
               "names_mrpc": 300, "names_conll2003": 400, "names_coref": 8, "adv_ewt": 25, "adv_ptb": 25,
               "lit_mnli": 300, "lit_snli": 300, "lit_mnli_extended": 150, "lit_snli_extended": 150}


@pytest.fixture(scope="session")
def built_repo(build_any) -> Path:
    """A dataset repository with jabberwocky_ewt built once (seed 0) for the session.

    It is named ``robust-bench`` inside its own parent, so ``load_dataset("robust-bench", ...)``
    can be called from the parent, as the mission says.
    """
    return build_any("jabberwocky_ewt")


@pytest.fixture(scope="session")
def built_repo_seed1(build_any) -> Path:
    return build_any("jabberwocky_ewt", seed=1)


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


@pytest.fixture(scope="session")
def gec_sources(tmp_path_factory, sources) -> Path:
    """A source mirror for the gec_* configs: the real GLUE and CoNLL-2003 files from ../shared
    (linked, not copied) plus a small SST-2 file written here, since ../shared has no SST-2."""
    def make(root: Path) -> None:
        for rel in ("glue/mnli/dev_matched_sample.tsv", "glue/mnli/dev_mismatched_sample.tsv", "glue/qnli/dev.tsv",
                    "glue/mrpc/dev.tsv", "glue/mrpc/msr_paraphrase_test.txt", "conll2003/valid.txt",
                    "conll2003/test.txt"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(sources / rel, root / rel)
        (root / "glue" / "sst2").mkdir()
        lines = ["sentence\tlabel"] + [f"{s}\t{1 if lab == 'positive' else 0}" for s, lab in SST2_SENTENCES]
        (root / "glue" / "sst2" / "dev.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return made_once(tmp_path_factory, "gec_sources", make)


def _repo_of(tmp_path_factory, key: str, parts: dict[str, Path]) -> Path:
    """One repository holding the configs of several made-once builds (copied, card rewritten)."""
    from robust_bench.data.repository import write_card

    def make(root: Path) -> None:
        repo = root / "robust-bench"
        (repo / "data").mkdir(parents=True)
        for config, built in parts.items():
            shutil.copytree(built / "data" / config, repo / "data" / config)
        write_card(repo)
    return made_once(tmp_path_factory, key, make) / "robust-bench"


@pytest.fixture(scope="session")
def gec_repo(tmp_path_factory, build_any) -> Path:
    """Every gec_* config built once (seed 0, the tests' limits) into one repository."""
    from robust_bench.data.registry import list_configs

    configs = [e.name for e in list_configs() if e.family == "grammatical_errors"]
    return _repo_of(tmp_path_factory, "gec_repo", build_any.all(configs))


@pytest.fixture(scope="session")
def ewt_test_words(sources):
    from robust_bench.io.conllu_io import read_conllu

    return [list(s.forms) for s in read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-test.conllu")]


def _model_once(tmp_path_factory, name: str, recipe: tuple, build: Callable[[Path], Path]) -> Path:
    """A tiny model trained once per session, in a folder keyed by a hash of its recipe."""
    made = made_once(tmp_path_factory, recipe_key(name, *recipe), lambda root: build(root / name))
    return made / name


@pytest.fixture(scope="session")
def sst2_classifier(tmp_path_factory) -> Path:
    """A tiny sentiment classifier (labels negative, positive) trained on SST2_SENTENCES."""
    from robust_bench.models.tiny import build_tiny_classifier

    texts = [s for s, _ in SST2_SENTENCES]
    labels = [1 if lab == "positive" else 0 for _, lab in SST2_SENTENCES]
    kw = dict(hidden=32, epochs=8, lr=2e-3, vocab_size=300)
    return _model_once(tmp_path_factory, "sst2-tiny", (SST2_SENTENCES, kw), lambda out: build_tiny_classifier(
        out, texts * 8, labels * 8, ["negative", "positive"], **kw))


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, sources):
    """A tiny BERT and a tiny GPT-2 (64 positions) with vocabularies trained on EWT train."""
    from robust_bench.models.tiny import build_tiny_bert, build_tiny_gpt2

    def make(root: Path) -> None:
        words = [list(s.forms) for s in _ewt_train(sources)]
        build_tiny_bert(root / "bert", words, max_positions=64)
        build_tiny_gpt2(root / "gpt2", words, max_positions=64)
    made = made_once(tmp_path_factory, recipe_key("tiny_models", "ewt-train", 64), make)
    return {"bert": made / "bert", "gpt2": made / "gpt2"}


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
    return _model_once(tmp_path_factory, "gpt2", ("tiny_lm", texts),
                       lambda out: build_tiny_gpt2(out, texts, lm_head=True))


@pytest.fixture(scope="session")
def tiny_nli_classifier(tmp_path_factory, nli_pairs) -> Path:
    """A tiny BERT NLI classifier trained briefly on the MNLI and SNLI samples."""
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.tiny import build_tiny_classifier

    pairs = nli_pairs["mnli"] + nli_pairs["snli"]
    return _model_once(tmp_path_factory, "clf", ("tiny_nli", pairs), lambda out: build_tiny_classifier(
        out, [(p["premise"], p["hypothesis"]) for p in pairs], [p["label"] for p in pairs], NLI_LABELS, epochs=2))


@pytest.fixture(scope="session")
def lit_train_file(tmp_path_factory, nli_pairs) -> Path:
    """A small training file (the first 150 SNLI sample pairs) for the AUG option."""
    from robust_bench.io.task_data import NLI_LABELS

    def make(root: Path) -> None:
        (root / "train.tsv").write_text("".join(f"{NLI_LABELS[p['label']]}\t{p['premise']}\t{p['hypothesis']}\n"
                                                for p in nli_pairs["snli"][:150]), encoding="utf-8")
    return made_once(tmp_path_factory, "lit_train", make) / "train.tsv"


@pytest.fixture(scope="session")
def lit_repo(tmp_path_factory, build_any) -> Path:
    """lit_mnli (both splits) built with the default options (offline: no LM, the second parser of
    conftest's $ROBUST_BENCH_ERRANT_MODEL), and lit_snli (plus an AUG train split) with the tiny LM
    choosing surfaces, as --lm does; the tests' limits."""
    return _repo_of(tmp_path_factory, "lit_repo", build_any.all(["lit_mnli", "lit_snli"]))


def build_settings(request, config: str, *, limit: bool = True) -> tuple[Path, dict]:
    """Source mirror and options with which the tests build ``config`` (by family); ``limit``: the
    first examples only (:data:`TEST_LIMITS`), as the fast tier's builds are."""
    from robust_bench.data.registry import get_config

    family = get_config(config).family
    source, opts = request.getfixturevalue("sources"), {}
    if family == "grammatical_errors":
        source = request.getfixturevalue("gec_sources")
    elif family == "lit":
        if config == "lit_snli" and limit:   # a whole build is the pinned one: default options
            opts["lm"] = str(request.getfixturevalue("tiny_lm"))
            opts.update(splits=("validation",), augment_train=str(request.getfixturevalue("lit_train_file")))
        elif config.endswith("_extended"):   # one split keeps the common tests quick
            opts.update(splits=("validation_matched",) if "mnli" in config else ("validation",))
    elif family == "named_entity_swaps":
        opts["budget"] = 3                   # B = 3 keeps the common tests quick
    elif family == "adversarial_treebanks":
        # the offline default (what runs here: WordNet synonyms and the frequency, POS, meaning and Link
        # Grammar filters); 25 sentences per split, so that EWT dev's 24th ("remained" -> "stayed") is attacked
        opts["limit"] = TEST_LIMITS[config]
    if limit and config in TEST_LIMITS:
        opts["limit"] = TEST_LIMITS[config]
    return source, opts


class _Builds:
    """``build_any(config, seed=0, num_proc=None, tag="main", whole=False)``: the repository holding
    ``config`` built with the tests' settings, once per arguments for the session (:func:`made_once`), whichever
    worker asks first; ``build_any.all(configs)`` builds several side by side (:func:`made_once_all`)."""

    def __init__(self, request, tmp_path_factory):
        self.request, self.factory = request, tmp_path_factory

    def _recipe(self, config, seed=0, num_proc=None, tag="main", whole=False):
        from robust_bench.data.repository import build_config

        source, options = build_settings(self.request, config, limit=not whole)
        key = recipe_key(f"build-{config}-{tag}", seed, num_proc, options)

        def make(root: Path) -> None:
            build_config(config, out=root / "robust-bench", source=source, seed=seed, num_proc=num_proc,
                         options=options)
        return key, make

    def __call__(self, config: str, *, seed: int = 0, num_proc: int | None = None, tag: str = "main",
                 whole: bool = False) -> Path:
        """``whole``: every example of the source (the full tier's whole-corpus builds)."""
        key, make = self._recipe(config, seed, num_proc, tag, whole)
        return made_once(self.factory, key, make) / "robust-bench"

    def all(self, configs) -> dict[str, Path]:
        recipes = dict(self._recipe(c) for c in configs)
        made = made_once_all(self.factory, recipes)
        return {c: made[k] / "robust-bench" for c, k in zip(configs, recipes)}


@pytest.fixture(scope="session")
def build_any(request, tmp_path_factory) -> _Builds:
    return _Builds(request, tmp_path_factory)


def _ewt_train(sources):
    from robust_bench.io.conllu_io import read_conllu

    return read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-train.conllu")


@pytest.fixture(scope="session")
def ewt_train(sources):
    return _ewt_train(sources)


@pytest.fixture(scope="session")
def tiny_tagger(tmp_path_factory, sources):
    """A tiny BERT token classifier with 16 positions and the CoNLL-2003 tags (random weights):
    ``(path, tags)``."""
    from robust_bench.io.task_data import CONLL2003_TAGS

    tags = list(CONLL2003_TAGS)

    def build(path: Path) -> Path:
        import torch
        from transformers import BertConfig, BertForTokenClassification

        from robust_bench.models.tiny import _wordpiece

        tok = _wordpiece((" ".join(s.forms) for s in _ewt_train(sources)[:2000]), 1000, lowercase=False,
                         max_positions=16)
        tok.save_pretrained(str(path))
        cfg = BertConfig(vocab_size=len(tok), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, max_position_embeddings=16, num_labels=len(tags),
                         id2label=dict(enumerate(tags)), label2id={t: i for i, t in enumerate(tags)})
        torch.manual_seed(0)
        BertForTokenClassification(cfg).save_pretrained(str(path))
        return path
    return _model_once(tmp_path_factory, "tagger", ("tagger", tags, 16), build), tags


@pytest.fixture(scope="session")
def treebank_attack_models(tmp_path_factory, sources, tiny_lm) -> dict:
    """What the parser attack needs, built here: a tiny masked LM (random weights, WordPiece
    vocabulary from EWT train), the tiny causal LM, and word2vec vectors trained with gensim on EWT
    train (lower-cased, written as word2vec text)."""
    def make(root: Path) -> None:
        from gensim.models import Word2Vec

        from robust_bench.models.tiny import build_tiny_bert

        words = [list(s.forms) for s in _ewt_train(sources)]
        build_tiny_bert(root / "mlm", words, max_positions=128, mlm_head=True)
        w2v = Word2Vec([[w.lower() for w in s] for s in words], vector_size=32, min_count=3, epochs=3, seed=0,
                       workers=1)
        w2v.wv.save_word2vec_format(str(root / "vectors.txt"))
    root = made_once(tmp_path_factory, recipe_key("parser_attack", "ewt-train", 128, 32), make)
    return {"mlm": str(root / "mlm"), "lm": str(tiny_lm), "vectors": str(root / "vectors.txt")}


SMOKE = ["gec_mnli", "gec_mrpc", "gec_conll2003", "names_mrpc", "names_conll2003", "adv_ewt", "lit_mnli", "jabberwocky_ewt"]


@pytest.fixture(scope="session")
def smoke_repo(build_any, tmp_path_factory):
    """One dataset repository with the smoke configs (built with the tests' settings) and a copy of
    the shipped suites pinned to it."""
    repo = _repo_of(tmp_path_factory, "smoke_data", build_any.all(SMOKE))

    def make(root: Path) -> None:
        suites = root / "suites"
        shutil.copytree(ROOT / "benchmarks", suites, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
        from tests.test_cli import run

        out = run(["suite", "pin", str(suites / "default.yaml"), "--repo", str(repo)], root).stdout
        assert "gec_qnli: not built" in out
        pinned = (suites / "default.yaml").read_text()  # pinning rewrites the hash and count lines only
        shipped = (ROOT / "benchmarks" / "default.yaml").read_text()
        assert re.sub(r"(data_sha256|examples): \S+", "", pinned) == re.sub(r"(data_sha256|examples): \S+", "", shipped)
    return repo, made_once(tmp_path_factory, "smoke_suites", make) / "suites"


@pytest.fixture(scope="session")
def taught_nli(smoke_repo, tmp_path_factory):
    """A real tiny BERT classifier taught the smoke suite's NLI rows (gec_mnli's originals and perturbed
    hypotheses, lit_mnli's original and contrast pairs), so that it is right where a constant is not."""
    import datasets

    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.tiny import build_tiny_classifier

    repo, _ = smoke_repo
    gec = datasets.load_dataset(str(repo), "gec_mnli", split="validation_matched")
    lit = datasets.load_dataset(str(repo), "lit_mnli", split="validation_matched")
    pairs, labels = [], []
    for r in gec:
        for h in (r["hypothesis"], r["perturbed_hypothesis"]):
            pairs.append((r["premise"], h))
            labels.append(r["label"])
    for r in lit:
        pairs += [(r["original_premise"], r["original_hypothesis"]), (r["premise"], r["hypothesis"])]
        labels += [r["original_label"], r["label"]]
    root = made_once(tmp_path_factory, recipe_key("taught_nli", pairs, labels), lambda out: build_tiny_classifier(
        out / "clf", pairs * 3, labels * 3, NLI_LABELS, epochs=12, lr=2e-3))
    return root / "clf"


@pytest.fixture(scope="session")
def models(tiny_nli_classifier, taught_nli, tiny_tagger, tiny_models, tmp_path_factory):
    """Callable wrappers: the NLI classifier taught the smoke rows as is (``good``) and with a third of
    its predictions moved to the next label (``bad``), chosen by a hash of the input. (The gate ranks by
    contrast consistency, both predictions of a pair right; the untaught tiny classifier is right too
    rarely for a change of a third to be significant on the smoke suite's 80 pairs.)"""
    def make(root: Path) -> None:
        (root / "wrapped.py").write_text(f'''
import hashlib
import numpy as np
from robust_bench.models.classifiers import Classifier, HFClassifier
from robust_bench.io.task_data import NLI_LABELS

class Flipping(Classifier):
    def __init__(self, share):
        super().__init__(NLI_LABELS)
        self.inner = HFClassifier({str(taught_nli)!r}, NLI_LABELS, device="cpu")
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
    root = made_once(tmp_path_factory, "callables", make)
    return {"nli": str(tiny_nli_classifier), "tagger": str(tiny_tagger[0]), "encoder": str(tiny_models["bert"]),
            "good": "wrapped.py:good", "bad": "wrapped.py:bad", "dir": root}


@pytest.fixture(scope="session")
def smoke_runs(smoke_repo, models, sources, tmp_path_factory) -> dict:
    """``robust-bench run`` over the smoke suite (whole: its own limits) with the tiny NLI classifier, the tiny
    tagger, the tiny BERT encoder and the real spaCy pipeline: kind -> (run folder, stdout); each run
    made once per session (side by side under pytest-xdist)."""
    from tests.helpers import run_on_smoke

    kinds = {"nli": models["nli"], "tagger": models["tagger"], "encoder": models["encoder"],
             "spacy": str(sources.parent / "models/spacy/en_rb_sm")}

    def recipe(model):
        def make(root: Path) -> None:
            proc = run_on_smoke(model, root / "runs", smoke_repo)
            (root / "stdout.txt").write_text(proc.stdout, encoding="utf-8")
        return make
    made = made_once_all(tmp_path_factory, {f"smoke_run-{kind}": recipe(m) for kind, m in kinds.items()})
    return {kind: (made[f"smoke_run-{kind}"] / "runs" / Path(m).name.lower().replace("-", "_"),
                   (made[f"smoke_run-{kind}"] / "stdout.txt").read_text(encoding="utf-8"))
            for kind, m in kinds.items()}
