"""NLTK's WordNet 3.0, loaded without the synset map that NLTK 3.9 and later build for nothing.

Every loader of ``nltk.corpus.wordnet`` calls ``WordNetCorpusReader.map_wn()``, which maps the synsets of the
multilingual OMW data (WordNet 3.0 offsets) onto the loaded WordNet unless the loaded version equals the argument;
but the argument is the corpus *name* ``"wordnet"`` and the version is ``"3.0"``, so WordNet 3.0 is mapped onto
itself by reading and joining both sense indexes: several seconds in every process that loads WordNet, for an
identity map that English lookups never use. :data:`wordnet` is the same lazy corpus loader NLTK defines, with a
reader that skips only that identity map (any other version is mapped as NLTK does). Every robust-bench module
that reads WordNet imports it from here: one reader per process, the same synsets, lemmas and relations.

The reader's two start-up scans (the lemma index of ``index.noun``, ``index.verb``, ``index.adj``, ``index.adv``,
and the adjective satellites of ``data.adj``: 180,000 lines through NLTK's pure-Python stream reader, about three
seconds) are NLTK's own code run once, then read back from :func:`robust_bench.io.fileio.cached`, keyed by those
files' bytes, this module's source and NLTK's version.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import lru_cache
from importlib.metadata import version as package_version
from pathlib import Path

from nltk.corpus.reader import CorpusReader
from nltk.corpus.reader.wordnet import WordNetCorpusReader
from nltk.corpus.util import LazyCorpusLoader

__all__ = ["wordnet", "first_noun_sense"]


class _WordNet30Reader(WordNetCorpusReader):
    """:class:`nltk.corpus.reader.wordnet.WordNetCorpusReader` without mapping WordNet 3.0 onto itself."""

    def map_wn(self, version: str = "wordnet"):
        if version == "wordnet" and self.get_version() == "3.0":
            return None          # OMW's offsets are WordNet 3.0's: nothing to map
        return super().map_wn(version)

    def _cached(self, kind: str, files: tuple[str, ...], compute, encode, decode):
        from robust_bench.io.fileio import cached

        def read(name: str) -> bytes:
            with self.abspath(name).open() as f:    # the raw bytes, from a folder or a zip file alike
                return f.read()
        key = (*(read(f) for f in files), Path(__file__).read_bytes(), package_version("nltk").encode())
        return cached(kind, key, compute, encode=lambda v: json.dumps(encode(v)).encode("utf-8"),
                      decode=lambda b: decode(json.loads(b)), suffix="json")

    def _scan_satellites(self):
        def compute() -> set:
            super(_WordNet30Reader, self)._scan_satellites()
            return self.satellite_offsets
        self.satellite_offsets = self._cached("wordnet-satellites", ("data.adj",), compute, sorted, set)

    def _load_lemma_pos_offset_map(self):
        def compute() -> dict:
            super(_WordNet30Reader, self)._load_lemma_pos_offset_map()
            return self._lemma_pos_offset_map
        self._lemma_pos_offset_map = self._cached(
            "wordnet-index", tuple(f"index.{s}" for s in self._FILEMAP.values()), compute,
            lambda m: m, lambda raw: defaultdict(dict, raw))


#: ``nltk.corpus.wordnet`` as NLTK defines it (same corpus, same lazy OMW reader), with the reader above; found
#: through ``NLTK_DATA`` like NLTK's own.
wordnet = LazyCorpusLoader("wordnet", _WordNet30Reader,
                           LazyCorpusLoader("omw-2.0", CorpusReader, r".*/wn-data-.*\.tab", encoding="utf8"))


@lru_cache(maxsize=8192)
def first_noun_sense(noun: str) -> str | None:
    """The WordNet lexicographer file of the first noun sense of ``noun`` ("noun.person" for "bowler",
    "noun.animal" for "pony"), or ``None`` when WordNet has no noun sense.

    Parameters
    ----------
    noun : str
        Lower case.

    Returns
    -------
    str or None
    """
    senses = wordnet.synsets(noun, pos="n")
    return senses[0].lexname() if senses else None
