# robust-bench: the two commands a newcomer needs.
#   make demo   create .venv if absent, install the CPU build of torch and the project, build
#               jabberwocky_ewt and score the Path and Majority baselines, offline on ../shared
#   make test   the same install (and Debian's chromium for the browser test and link-grammar for the
#               parser attack's grammar filter), then the fast tier of the test suite (what CI runs,
#               under 15 minutes on 2 cores) in TEST_WORKERS processes (pytest-xdist; 2 by default)
#   make test-full  the same, then every test: whole-corpus builds, every kill point (about an hour)
#   make docs   the same install, then the documentation site (docs/, mkdocs.yml) into site/, with
#               warnings as errors (broken links, missing pages, API pages that cannot be read)
# Every path below can be overridden: make demo SHARED=/data/shared PYTHON=python3.12

SHARED ?= ../shared
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
TEST_WORKERS ?= 2
export ROBUST_BENCH_SOURCES ?= $(SHARED)/data
export NLTK_DATA ?= $(SHARED)/nltk_data
export ROBUST_BENCH_SPACY_MODEL ?= $(SHARED)/models/spacy/en_rb_sm
export ROBUST_BENCH_SIMILARITY_MODEL ?= $(SHARED)/models/all-MiniLM-L6-v2
export ROBUST_BENCH_ERRANT_MODEL ?= $(SHARED)/models/spacy/en_core_web_sm
export ROBUST_BENCH_NER_MODEL ?= $(SHARED)/models/spacy/en_core_web_sm
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1

BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed

.PHONY: demo test test-full coverage docs install browser grammar check-sources clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first, so that pip keeps the CPU build instead of pulling the CUDA one
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e ".[test,docs]"
	touch $(STAMP)

install: $(STAMP)

check-sources:
	@for f in ud_english_ewt/en_ewt-ud-train.conllu ud_english_ewt/en_ewt-ud-dev.conllu \
	          ud_english_ewt/en_ewt-ud-test.conllu wuggy/orthographic_english.txt; do \
	  if [ ! -f "$(ROBUST_BENCH_SOURCES)/$$f" ]; then \
	    echo "missing source corpus: $(ROBUST_BENCH_SOURCES)/$$f"; \
	    echo "  set SHARED=... (or ROBUST_BENCH_SOURCES=...) to a folder laid out like ../shared/data;"; \
	    echo "  UD English EWT r2.16: https://github.com/UniversalDependencies/UD_English-EWT"; \
	    echo "  Wuggy English lexicon: https://github.com/WuggyCode/wuggy_language_plugin_data"; \
	    exit 1; fi; done
	@if [ ! -d "$(NLTK_DATA)/corpora/wordnet" ] && [ ! -f "$(NLTK_DATA)/corpora/wordnet.zip" ]; then \
	  echo "missing WordNet under NLTK_DATA=$(NLTK_DATA): python -m nltk.downloader wordnet"; exit 1; fi

demo: $(STAMP) check-sources
	$(BIN)/robust-bench build jabberwocky_ewt
	$(BIN)/robust-bench baselines --config jabberwocky_ewt

# the leaderboard's browser test drives Debian's chromium headless through selenium
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  echo "installing Debian's chromium and chromium-driver for the leaderboard's browser test"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; fi

# the parser attack's grammar filter runs CMU Link Grammar where LanguageTool cannot (no Java, no
# network): Debian's link-grammar and its Python bindings, linked into the virtualenv (PyPI has none)
grammar: $(STAMP)
	@if ! /usr/bin/python3 -c "import linkgrammar" 2>/dev/null; then \
	  echo "installing Debian's link-grammar and python3-link-grammar for the parser attack's grammar filter"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq link-grammar python3-link-grammar; fi
	@ln -sfn "$$(/usr/bin/python3 -c 'import linkgrammar, os; print(os.path.dirname(linkgrammar.__file__))')" \
	  "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/linkgrammar"
	@$(BIN)/python -c "import linkgrammar" && echo "Link Grammar: linked into $(VENV)"

PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=30

test: $(STAMP) browser grammar
	$(PYTEST)

test-full: $(STAMP) browser grammar
	$(PYTEST) --full

# line coverage of robust_bench/, builders/, leaderboard/ and metrics/ (TIER=--full for the full tier)
coverage: $(STAMP) browser grammar
	$(PYTEST) $(TIER) --cov --cov-report=term --cov-report=json:coverage.json

# the site CI builds too (tests/test_docs.py): strict, so a broken link or API page fails the build
# (NO_MKDOCS_2_WARNING: Material's banner about MkDocs 2.0, which the pinned mkdocs 1.6.1 is not)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

clean:
	rm -rf robust-bench results site
