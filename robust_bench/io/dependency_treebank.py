"""Penn Treebank dependency trees: NLTK's WSJ sample, or a user's CoNLL-X file.

NLTK's ``dependency_treebank`` corpus (199 WSJ files, 3,914 sentences) has one ``word<TAB>POS<TAB>head``
line per word and no relation labels, so only UAS can be scored on it. A full PTB in Stanford
dependencies (CoNLL-X, as parsers are evaluated on section 23) is read with the ``conllu``
library; its CPOSTAG and POSTAG columns become UPOS and XPOS.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from robust_bench.io.conllu_io import ConlluError, read_conllu, validate_tree

__all__ = ["DepSentence", "read_nltk_dependency_treebank", "read_conllx"]


@dataclass(frozen=True)
class DepSentence:
    """A dependency-annotated sentence.

    Attributes
    ----------
    sent_id : str
    forms, xpos : tuple of str of shape (n_words,)
    heads : tuple of int of shape (n_words,)
        1-based, 0 for the root.
    deprels : tuple of str, or None
        None for an unlabelled treebank.
    upos, lemmas : tuple of str, or None
    """

    sent_id: str
    forms: tuple[str, ...]
    xpos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...] | None = None
    upos: tuple[str, ...] | None = None
    lemmas: tuple[str, ...] | None = None


def read_nltk_dependency_treebank(root: str | os.PathLike | None = None) -> list[DepSentence]:
    """Every sentence of NLTK's WSJ dependency sample, in file order.

    Parameters
    ----------
    root : path-like, optional
        The ``corpora/dependency_treebank`` folder; default the one NLTK finds (``$NLTK_DATA``).

    Returns
    -------
    list of DepSentence
        ``sent_id`` is ``wsj_0001.dp#0`` style; ``deprels`` None.

    Raises
    ------
    ConlluError
        If a tree is not a tree (a cycle or a head out of range), naming the file and sentence.
    LookupError
        If NLTK cannot find the corpus (set ``NLTK_DATA``).
    """
    from nltk.corpus import dependency_treebank
    from nltk.corpus.reader import DependencyCorpusReader

    reader = dependency_treebank if root is None else DependencyCorpusReader(str(root), r".*\.dp")
    out = []
    for fileid in reader.fileids():
        for k, graph in enumerate(reader.parsed_sents(fileid)):
            n = len(graph.nodes) - 1
            nodes = [graph.nodes[i] for i in range(1, n + 1)]
            heads = tuple(int(x["head"]) for x in nodes)
            validate_tree(heads, path=f"{fileid}#{k}")
            out.append(DepSentence(sent_id=f"{fileid}#{k}", forms=tuple(x["word"] for x in nodes),
                                   xpos=tuple(x["tag"] for x in nodes), heads=heads))
    return out


def read_conllx(path: str | os.PathLike) -> list[DepSentence]:
    """A CoNLL-X (or CoNLL-U) treebank, such as PTB section 23 in Stanford dependencies.

    Raises
    ------
    ConlluError
        On a malformed file, naming the file and line.
    """
    sents = read_conllu(Path(path))
    if not sents:
        raise ConlluError(str(path), None, None, "no sentence in the file")
    return [DepSentence(sent_id=s.sent_id, forms=s.forms, xpos=s.xpos, heads=s.heads, deprels=s.deprels,
                        upos=s.upos, lemmas=s.lemmas) for s in sents]
