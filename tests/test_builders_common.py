"""Common tests over every registered builder, on the real corpora in ../shared.

The session fixtures build each config once per seed; these tests read what was built.
"""


import os

import datasets
import pyarrow.parquet as pq
import pytest

from robust_bench.data.registry import builder_classes, list_configs
from robust_bench.data.repository import read_metadata
from robust_bench.io.sources import sha256_file

CONFIGS = [e.name for e in list_configs()]
#: repositories that other tests already build, by family; any other family is built here
#: (conftest.py groups these tests with their family's repository for pytest -n)
FAMILY_REPOS = {"jabberwocky": "built_repo", "grammatical_errors": "gec_repo", "lit": "lit_repo"}


def _entry(config):
    return [e for e in list_configs() if e.name == config][0]


def _repo(request, config):
    family = _entry(config).family
    if family in FAMILY_REPOS:
        repo = request.getfixturevalue(FAMILY_REPOS[family])
        if config in read_metadata(repo):
            return repo
    return request.getfixturevalue("build_any")(config)


def test_every_builder_is_registered_with_its_configs():
    classes = builder_classes()
    assert classes and len(CONFIGS) == len(set(CONFIGS))
    assert {"jabberwocky_ewt", "gec_mnli", "gec_mrpc", "gec_qnli", "gec_sst2", "gec_conll2003", "lit_mnli",
            "lit_snli", "lit_mnli_extended", "lit_snli_extended"} <= set(CONFIGS)
    for cls in classes:
        assert cls.FAMILY and cls.SOURCE.version and cls.CITATION and cls.DESCRIPTION and cls.LICENSE
        for cfg in cls.BUILDER_CONFIGS:
            assert cfg.splits


@pytest.mark.parametrize("config", CONFIGS)
def test_keys_unique_and_features_match_info(request, config):
    built_repo = _repo(request, config)
    entry = [e for e in list_configs() if e.name == config][0]
    info_features = entry.builder(config_name=config).info.features
    for split in read_metadata(built_repo)[config]["files"]:
        path = built_repo / "data" / config / f"{split}.parquet"
        ds = datasets.Dataset.from_parquet(str(path))
        assert ds.features == info_features
        ids = ds["id"] if "id" in ds.column_names else ds["idx"]
        assert len(set(ids)) == len(ids)
        assert ids == sorted(ids)


#: Configs that share another config's generator, rebuilt in the full tier only: gec_mrpc, gec_qnli and
#: gec_sst2 share gec_mnli's (pairs), adv_ptb adv_ewt's, the extended LIT tiers the paper tiers'; names_mrpc
#: and names_conll2003 share the name-swap engine (robust_bench.perturb.names: the plan, its per-example
#: seeds) with names_coref, whose rebuild stays in the fast tier (theirs take a minute each: MRPC's NER
#: lexicon, CoNLL-2003's harvest). Every other config (and any config added later) is rebuilt in the fast tier too.
SHARES_A_GENERATOR = {"gec_mrpc", "gec_qnli", "gec_sst2", "adv_ptb", "lit_mnli_extended", "lit_snli_extended",
                      "names_mrpc", "names_conll2003"}


@pytest.mark.parametrize("config", [pytest.param(c, marks=pytest.mark.full) if c in SHARES_A_GENERATOR else c
                                    for c in CONFIGS])
def test_same_seed_gives_byte_identical_parquet(request, config, build_any):
    # the second build uses num_proc=2: per-example seeding makes sharding irrelevant
    built = _repo(request, config)
    again = build_any(config, num_proc=2, tag="again")
    for split, f in read_metadata(built)[config]["files"].items():
        assert (built / f["path"]).read_bytes() == (again / f["path"]).read_bytes(), split


@pytest.mark.parametrize("config", CONFIGS)
def test_card_hashes_and_statistics_match_the_files(request, config):
    built_repo = _repo(request, config)
    meta = read_metadata(built_repo)[config]
    card = (built_repo / "README.md").read_text(encoding="utf-8")
    assert f"config_name: {config}" in card
    for split, f in meta["files"].items():
        path = built_repo / f["path"]
        assert sha256_file(path) == f["sha256"] and f["sha256"] in card
        stats = meta["statistics"][split]
        assert pq.read_metadata(path).num_rows == f["rows"] == stats.get("sentences", stats.get("examples"))
    for key in ("description", "citation", "source", "builder_version", "seed", "statistics"):
        assert meta[key] not in (None, "", {})
    assert meta["source"]["version"] in card and meta["source"]["license"] in card


@pytest.mark.parametrize("config", CONFIGS)
def test_load_dataset_from_the_parent_directory(request, config, monkeypatch):
    built_repo = _repo(request, config)
    monkeypatch.chdir(built_repo.parent)
    ds = datasets.load_dataset("robust-bench", config)
    meta = read_metadata(built_repo)[config]
    assert {s: len(ds[s]) for s in ds} == {s: f["rows"] for s, f in meta["files"].items()}


def test_forked_workers_read_wordnet_without_sharing_file_offsets(sources):
    """--num-proc forks workers after WordNet is loaded; NLTK keeps its data files open, and a file
    inherited across fork shares its offset, so two workers' lookups read each other's lines
    (``'NoneType' object has no attribute '_lemmas'``). robust_bench reopens them in every child."""
    import robust_bench  # noqa: F401  (registers the at-fork hook)
    from robust_bench.text.wordnet import wordnet as wn

    from robust_bench.io.conllu_io import read_conllu

    pos = {"ADJ": "a", "NOUN": "n", "VERB": "v"}
    words = [(l.lower(), pos[u]) for s in read_conllu(sources / "ud_english_ewt" / "en_ewt-ud-dev.conllu")
             for l, u in zip(s.lemmas, s.upos) if u in pos]
    wn.synsets("dog")                               # loaded, files open, before the fork
    children = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:                                # pragma: no cover - runs in the child
            try:
                for w, p in words:
                    for syn in wn.synsets(w, p) + (wn.synsets(w, "s") if p == "a" else []):
                        syn.lemmas()
            except Exception:
                os._exit(1)
            os._exit(0)
        children.append(pid)
    assert [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children] == [0, 0]


@pytest.mark.filterwarnings("ignore:The multilingual functions")
def test_wordnet_reads_its_start_up_index_back_from_the_cache(sources, tmp_path, monkeypatch):
    """robust_bench.text.wordnet caches the lemma index and adjective satellites that NLTK's reader scans at start
    (keyed by the files): a cold reader runs NLTK's scans and writes them, a warm one reads the same back without
    scanning, and both give the lazily loaded reader's synsets."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from robust_bench.text import wordnet as module

    monkeypatch.setenv("ROBUST_BENCH_CACHE", str(tmp_path))
    root = nltk.data.find("corpora/wordnet")
    cold = module._WordNet30Reader(root, None)
    assert {p.parent.name for p in tmp_path.rglob("*.json")} == {"wordnet-index", "wordnet-satellites"}
    monkeypatch.setattr(WordNetCorpusReader, "_load_lemma_pos_offset_map", lambda self: pytest.fail("rescanned"))
    monkeypatch.setattr(WordNetCorpusReader, "_scan_satellites", lambda self: pytest.fail("rescanned"))
    warm = module._WordNet30Reader(root, None)
    assert warm._lemma_pos_offset_map == cold._lemma_pos_offset_map and len(cold._lemma_pos_offset_map) == 147_306
    assert warm.satellite_offsets == cold.satellite_offsets and len(cold.satellite_offsets) == 10_693
    for word, pos in (("bank", None), ("happy", "s"), ("run", "v"), ("nonexistentword", None)):
        assert warm.synsets(word, pos) == cold.synsets(word, pos) == module.wordnet.synsets(word, pos)
    assert isinstance(warm._lemma_pos_offset_map["nonexistentword"], dict)      # still a defaultdict(dict)
