import os as _os
import sys as _sys

__version__ = "0.1.0"


def _wordnet_files_per_process() -> None:
    """A forked worker (``--num-proc``) must open WordNet's data files again: NLTK's reader keeps them
    open, and a file object inherited across fork shares its offset with the parent's and the other
    workers', so concurrent lookups read each other's lines (an ``AttributeError`` deep in NLTK, or a
    wrong synset). The reader's ``__dict__`` is read directly, so an unloaded reader stays unloaded."""
    corpus = _sys.modules.get("nltk.corpus")
    wordnet = corpus.__dict__.get("wordnet") if corpus is not None else None
    if wordnet is not None and wordnet.__dict__.get("_data_file_map"):
        wordnet.__dict__["_data_file_map"] = {}


_os.register_at_fork(after_in_child=_wordnet_files_per_process)
