"""NLTK's WordNet 3.0, loaded without the synset map that NLTK 3.9 and later build for nothing.

Every loader of ``nltk.corpus.wordnet`` calls ``WordNetCorpusReader.map_wn()``, which maps the synsets of the
multilingual OMW data (WordNet 3.0 offsets) onto the loaded WordNet unless the loaded version equals the argument;
but the argument is the corpus *name* ``"wordnet"`` and the version is ``"3.0"``, so WordNet 3.0 is mapped onto
itself by reading and joining both sense indexes: several seconds in every process that loads WordNet, for an
identity map that English lookups never use. :data:`wordnet` is the same lazy corpus loader NLTK defines, with a
reader that skips only that identity map (any other version is mapped as NLTK does). Every robust-bench module
that reads WordNet imports it from here: one reader per process, the same synsets, lemmas and relations.
"""

from __future__ import annotations

from nltk.corpus.reader import CorpusReader
from nltk.corpus.reader.wordnet import WordNetCorpusReader
from nltk.corpus.util import LazyCorpusLoader

__all__ = ["wordnet"]


class _WordNet30Reader(WordNetCorpusReader):
    """:class:`nltk.corpus.reader.wordnet.WordNetCorpusReader` without mapping WordNet 3.0 onto itself."""

    def map_wn(self, version: str = "wordnet"):
        if version == "wordnet" and self.get_version() == "3.0":
            return None          # OMW's offsets are WordNet 3.0's: nothing to map
        return super().map_wn(version)


#: ``nltk.corpus.wordnet`` as NLTK defines it (same corpus, same lazy OMW reader), with the reader above; found
#: through ``NLTK_DATA`` like NLTK's own.
wordnet = LazyCorpusLoader("wordnet", _WordNet30Reader,
                           LazyCorpusLoader("omw-2.0", CorpusReader, r".*/wn-data-.*\.tab", encoding="utf8"))
