"""Word vectors (:class:`WordVectors`): the nearest neighbours of the ``embedding`` generator and the
cosines of the ``embedding`` filter."""

from __future__ import annotations

from pathlib import Path

from robust_bench.perturb.treebanks.site import N_NEIGHBOURS, SubstituteError


class WordVectors:
    """Nearest neighbours and cosine similarity in a word-vector space (``gensim`` KeyedVectors).

    Lookups try the word as written, then lower-cased (counter-fitted vectors are lower case).

    Parameters
    ----------
    keyed_vectors : gensim.models.KeyedVectors
    name : str
        What reports call the space (the file name).
    """

    def __init__(self, keyed_vectors, *, name: str = "vectors"):
        self.kv = keyed_vectors
        self.name = name
        self._nn: dict[str, list[str]] = {}

    def _key(self, word: str) -> str | None:
        if word in self.kv.key_to_index:
            return word
        low = word.lower()
        return low if low in self.kv.key_to_index else None

    def __contains__(self, word: str) -> bool:
        return self._key(word) is not None

    def __len__(self) -> int:
        return len(self.kv.key_to_index)

    def neighbours(self, word: str, k: int = N_NEIGHBOURS) -> list[str]:
        """The ``k`` nearest words by cosine similarity, nearest first; [] for a word without a vector."""
        key = self._key(word)
        if key is None:
            return []
        if key not in self._nn:
            self._nn[key] = [w for w, _ in self.kv.most_similar(key, topn=k)]
        return self._nn[key][:k]

    def cosine(self, a: str, b: str) -> float | None:
        """Cosine similarity in [-1, 1], or None when either word has no vector."""
        ka, kb = self._key(a), self._key(b)
        if ka is None or kb is None:
            return None
        return float(self.kv.similarity(ka, kb))


def load_word_vectors(path: str | Path) -> WordVectors:
    """Read a word-vector file: word2vec text (with its ``count dim`` header), GloVe text (no
    header), or word2vec binary (``.bin``); ``.gz`` and ``.bz2`` are read compressed.

    Raises
    ------
    SubstituteError
        If the file does not exist or cannot be parsed; the message names the file.
    """
    from gensim.models import KeyedVectors

    path = Path(path)
    if not path.is_file():
        raise SubstituteError(f"word-vector file {path} does not exist")
    binary = ".bin" in path.suffixes
    try:
        if binary:
            kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
        else:
            from gensim.utils import open as gopen

            with gopen(str(path), "rb") as fh:
                first = fh.readline().decode("utf-8", "replace").split()
            header = len(first) == 2 and all(x.isdigit() for x in first)
            kv = KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=not header)
    except (ValueError, UnicodeDecodeError, EOFError) as exc:
        where = None if binary else _first_bad_vector_line(path)
        raise SubstituteError(f"cannot read word vectors from {path}: " + (where or str(exc))) from exc
    return WordVectors(kv, name=path.name)


def _first_bad_vector_line(path: Path) -> str | None:
    """Where a text vector file breaks: the first line whose number of values differs from the
    header's dimension (or the first vector's), or whose values are not numbers; None if none does."""
    from gensim.utils import open as gopen

    dim = None
    with gopen(str(path), "rb") as fh:
        for no, raw in enumerate(fh, start=1):
            parts = raw.decode("utf-8", "replace").rstrip().split(" ")
            if no == 1 and len(parts) == 2 and all(x.isdigit() for x in parts):
                dim = int(parts[1])
                continue
            if not parts or parts == [""]:
                continue
            values = parts[1:]
            if dim is None:
                dim = len(values)
            if len(values) != dim:
                return f"line {no} (word {parts[0]!r}) has {len(values)} values, expected dimension {dim}"
            try:
                [float(v) for v in values]
            except ValueError:
                return f"line {no} (word {parts[0]!r}) has a value that is not a number"
    return None
