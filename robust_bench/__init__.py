import os as _os
import sys as _sys

__version__ = "0.1.0"


class RobustBenchError(Exception):
    """Base of every error robust-bench raises for bad input or a missing resource (a malformed file,
    an unknown config or label, a missing model, a config not built yet, a hostile submission); its
    message names the file, line, field or option at fault.

    Each error class also keeps the built-in class it has always had (``ValueError``,
    ``RuntimeError``, ``KeyError``, ``FileNotFoundError``, ``LookupError``), so callers may catch
    either. The command line prints a ``RobustBenchError`` as one line and exits with status 2
    (a duplicate config or metric name included: its message says which two files clash); any
    other exception is a bug and keeps its traceback. Control flow inside an engine is not an error:
    the LIT engine's ``Refusal`` (a sentence it will not transform) is caught where it is raised
    and counted on the card.
    """


_IMPORTED: dict[str, list[str]] = {}


def import_submodules(package) -> list[str]:
    """Import every public module of ``package`` (those whose names do not start with ``_``), in name
    order, once per process: the discovery by which builders (:mod:`robust_bench.data.registry`) and
    evaluations (:mod:`robust_bench.evaluations`) register themselves, so that adding one is adding a
    module.

    Returns
    -------
    list of str
        The modules' full names.
    """
    import importlib
    import pkgutil

    if package.__name__ not in _IMPORTED:
        names = [f"{package.__name__}.{m.name}"
                 for m in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name)
                 if not m.name.startswith("_")]
        for name in names:
            importlib.import_module(name)
        _IMPORTED[package.__name__] = names   # only once all imported: a failed import is tried again
    return list(_IMPORTED[package.__name__])


def _wordnet_files_per_process() -> None:
    """A forked worker (``--num-proc``) must open WordNet's data files again: NLTK's reader keeps them
    open, and a file object inherited across fork shares its offset with the parent's and the other
    workers', so concurrent lookups read each other's lines (an ``AttributeError`` deep in NLTK, or a
    wrong synset). The readers' ``__dict__`` is read directly, so an unloaded reader stays unloaded: NLTK's
    ``nltk.corpus.wordnet`` and robust-bench's own (:mod:`robust_bench.text.wordnet`)."""
    for module in ("nltk.corpus", "robust_bench.text.wordnet"):
        loaded = _sys.modules.get(module)
        wordnet = loaded.__dict__.get("wordnet") if loaded is not None else None
        if wordnet is not None and wordnet.__dict__.get("_data_file_map"):
            wordnet.__dict__["_data_file_map"] = {}


_os.register_at_fork(after_in_child=_wordnet_files_per_process)
