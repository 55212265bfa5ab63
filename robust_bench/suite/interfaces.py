"""Which suite tasks a model can take: interface detection and one adapter per interface.

A model is one of

* a ``transformers`` model (Hub id or local folder): ``config.json``'s ``architectures`` say
  ``*ForSequenceClassification`` (sequence classification) or ``*ForTokenClassification`` (token
  classification); every transformers model is also an encoder (hidden states for probing);
* a spaCy pipeline (installed package or folder with ``meta.json``): a parser when it has a
  ``parser`` component, a token classifier (NER) when it has ``ner``;
* a Python callable ``module:attribute`` (or ``path/to/file.py:attribute``), for anything else: an
  object that is already an adapter (a :class:`~robust_bench.models.parsers.Parser`,
  :class:`~robust_bench.models.classifiers.Classifier` or
  :class:`~robust_bench.models.taggers.TokenClassifier`), or a function with a
  ``robust_bench_interface`` attribute naming its interface (wrapped as the matching callable adapter;
  classifiers and taggers then also need ``robust_bench_labels``).

Adapters are built lazily and once per label set, so a run loads each model once per process.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from robust_bench import RobustBenchError

__all__ = ["ModelSpec", "ModelHandle", "InterfaceError", "detect_model"]


class InterfaceError(RobustBenchError, ValueError):
    """The model cannot be found or loaded, or does not provide an interface a task needs."""


@dataclass
class ModelSpec:
    """What a model is and which interfaces it provides."""

    id: str
    kind: str                      # "transformers", "spacy" or "callable"
    interfaces: tuple[str, ...]
    architectures: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    revision: str | None = None    # the Hub revision asked for (transformers models); None: the default branch


def _spacy_meta(model: str) -> dict | None:
    p = Path(model)
    if (p / "meta.json").is_file() and (p / "config.cfg").is_file():
        return json.loads((p / "meta.json").read_text("utf-8"))
    if "/" not in model and ":" not in model:
        try:
            import spacy.util

            if spacy.util.is_package(model):
                return spacy.util.get_model_meta(spacy.util.get_package_path(model))
        except ImportError:
            return None
    return None


def _load_callable(model: str) -> Any:
    target, _, attr = model.rpartition(":")
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise InterfaceError(f"--model {model!r}: {path} does not exist")
            spec = importlib.util.spec_from_file_location(f"robust_bench_user_{path.stem}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(target)
    except InterfaceError:
        raise
    except Exception as exc:  # noqa: BLE001 - any import failure of user code is reported as such
        raise InterfaceError(f"--model {model!r}: cannot import {target!r}: {type(exc).__name__}: {exc}") from None
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise InterfaceError(f"--model {model!r}: {target!r} has no attribute {attr!r}") from None


def _callable_interfaces(obj: Any) -> tuple[str, ...]:
    from robust_bench.models.classifiers import Classifier
    from robust_bench.models.parsers import Parser
    from robust_bench.models.taggers import TokenClassifier

    for cls, name in ((Parser, "parser"), (Classifier, "sequence-classification"),
                      (TokenClassifier, "token-classification")):
        if isinstance(obj, cls):
            return (name,)
    declared = getattr(obj, "robust_bench_interface", None)
    if callable(obj) and declared in ("parser", "sequence-classification", "token-classification"):
        return (declared,)
    return ()


def detect_model(model: str, revision: str | None = None) -> ModelSpec:
    """Find what ``model`` is and the interfaces it provides.

    Parameters
    ----------
    model : str
        Hub id or local folder of a transformers model, a spaCy package or folder, or
        ``module:attribute`` / ``file.py:attribute``.
    revision : str, optional
        Branch, tag or commit of a Hub model (``from_pretrained(revision=...)``).

    Returns
    -------
    ModelSpec

    Raises
    ------
    InterfaceError
        If the model cannot be found (a missing folder, an unreachable Hub id) or provides no interface,
        or a revision is asked of a model that is not a transformers model.
    """
    from robust_bench.models.loader import ModelError, load_config

    if revision is not None and (_spacy_meta(model) is not None or (":" in model and not Path(model).exists())):
        raise InterfaceError(f"--revision applies to transformers models from the Hub; {model!r} is not one")

    meta = _spacy_meta(model)
    if meta is not None:
        pipes = set(meta.get("pipeline") or meta.get("components") or [])
        ifaces = tuple(n for n, pipe in (("parser", "parser"), ("token-classification", "ner")) if pipe in pipes)
        if not ifaces:
            raise InterfaceError(f"spaCy pipeline {model!r} has neither a parser nor an ner component")
        return ModelSpec(model, "spacy", ifaces, labels=tuple(meta.get("labels", {}).get("ner", ())))
    p = Path(model)
    if ":" in model and not p.exists() and not model.startswith(("http:", "https:")):
        obj = _load_callable(model)
        ifaces = _callable_interfaces(obj)
        if not ifaces:
            raise InterfaceError(f"--model {model!r} is neither an adapter (Parser, Classifier, TokenClassifier) nor a "
                                 "function with a robust_bench_interface attribute")
        return ModelSpec(model, "callable", ifaces)
    if p.is_absolute() or model.startswith((".", "~")) or p.exists():
        if not p.exists():
            raise InterfaceError(f"model folder {model} does not exist")
        if not (p / "config.json").is_file():
            raise InterfaceError(f"{model} is neither a transformers model (no config.json) nor a spaCy pipeline "
                                 "(no meta.json and config.cfg)")
    try:
        cfg = load_config(model, revision=revision)
    except ModelError as exc:
        raise InterfaceError(str(exc)) from None
    arch = tuple(getattr(cfg, "architectures", None) or ())
    ifaces = []
    if any(a.endswith("ForSequenceClassification") for a in arch):
        ifaces.append("sequence-classification")
    if any(a.endswith("ForTokenClassification") for a in arch):
        ifaces.append("token-classification")
    ifaces.append("encoder")
    labels = tuple(str(v) for _, v in sorted((getattr(cfg, "id2label", None) or {}).items()))
    return ModelSpec(model, "transformers", tuple(ifaces), arch, labels, revision)


@dataclass
class ModelHandle:
    """A detected model and its adapters, built on first use and kept for the run.

    Parameters
    ----------
    spec : ModelSpec
    device, dtype : str
        Passed to the transformers adapters.
    batch_size : int
    """

    spec: ModelSpec
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = 64
    _adapters: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.spec.id

    def _callable(self):
        if "callable" not in self._adapters:
            self._adapters["callable"] = _load_callable(self.spec.id)
        return self._adapters["callable"]

    def classifier(self, labels: Sequence[str]):
        """A :class:`~robust_bench.models.classifiers.Classifier` over ``labels``.

        Raises
        ------
        LabelMappingError
            If the model's labels do not map onto ``labels``.
        """
        key = ("cls", tuple(labels))
        if key not in self._adapters:
            if self.spec.kind == "callable":
                from robust_bench.models.classifiers import CallableClassifier, Classifier

                obj = self._callable()
                if isinstance(obj, Classifier):
                    self._check_labels(obj.labels, labels)
                    self._adapters[key] = obj
                else:
                    self._check_labels(getattr(obj, "robust_bench_labels", ()), labels)
                    self._adapters[key] = CallableClassifier(obj, labels, name=self.spec.id)
            else:
                from robust_bench.models.classifiers import HFClassifier

                self._adapters[key] = HFClassifier(self.spec.id, labels, revision=self.spec.revision,
                                                   device=self.device, dtype=self.dtype, batch_size=self.batch_size)
        return self._adapters[key]

    @staticmethod
    def _check_labels(have: Sequence[str], want: Sequence[str]) -> None:
        from robust_bench.models.classifiers import LabelMappingError

        if tuple(have) != tuple(want):
            raise LabelMappingError(f"the callable's labels {list(have)} are not the task's {list(want)}")

    def tagger(self, tags: Sequence[str]):
        """A :class:`~robust_bench.models.taggers.TokenClassifier` over ``tags`` (IOB2).

        Raises
        ------
        LabelMappingError
            If the model's tags do not cover ``tags``.
        """
        key = ("tag", tuple(tags))
        if key not in self._adapters:
            if self.spec.kind == "spacy":
                from robust_bench.models.taggers import SpacyTagger

                self._adapters[key] = SpacyTagger(self.spec.id, tags)
            elif self.spec.kind == "callable":
                from robust_bench.models.taggers import CallableTokenClassifier, TokenClassifier

                obj = self._callable()
                if isinstance(obj, TokenClassifier):
                    self._check_labels(obj.tags, tags)
                    self._adapters[key] = obj
                else:
                    self._check_labels(getattr(obj, "robust_bench_labels", ()), tags)
                    self._adapters[key] = CallableTokenClassifier(obj, tags)
            else:
                from robust_bench.models.taggers import HFTokenClassifier

                self._adapters[key] = HFTokenClassifier(self.spec.id, tags, revision=self.spec.revision,
                                                        device=self.device, dtype=self.dtype,
                                                        batch_size=self.batch_size)
        return self._adapters[key]

    def parser(self):
        """A :class:`~robust_bench.models.parsers.Parser`."""
        if "parser" not in self._adapters:
            if self.spec.kind == "spacy":
                from robust_bench.models.parsers import SpacyParser

                self._adapters["parser"] = SpacyParser(self.spec.id)
            else:
                from robust_bench.models.parsers import CallableParser, Parser

                obj = self._callable()
                self._adapters["parser"] = obj if isinstance(obj, Parser) else CallableParser(obj, name=self.spec.id)
        return self._adapters["parser"]

    def revision(self) -> str | None:
        """The model's revision or fingerprint, for the records."""
        if self.spec.kind == "transformers":
            from robust_bench.models.loader import model_revision

            if Path(self.spec.id).expanduser().is_dir():
                return model_revision(self.spec.id)
            from robust_bench.models.loader import load_config

            # a Hub model: the commit its config came from (never a branch name)
            return model_revision(self.spec.id, self.spec.revision, load_config(self.spec.id, revision=self.spec.revision))
        if self.spec.kind == "spacy":
            return self.parser().revision if "parser" in self.spec.interfaces else None
        return getattr(self._callable(), "revision", None)
