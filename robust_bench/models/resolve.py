"""One model resolver for every spec syntax: what a model string names, which interfaces it
provides, and its adapters.

A model spec is one of

* a ``transformers`` model, a Hub id or a local folder: ``config.json``'s ``architectures`` say
  ``*ForSequenceClassification`` (sequence classification) or ``*ForTokenClassification`` (token
  classification); every transformers model is also an encoder (hidden states for probing);
* a spaCy pipeline, an installed package, a folder with ``meta.json``, or ``spacy:NAME_OR_PATH``
  (``spacy:`` alone is ``$ROBUST_BENCH_SPACY_MODEL``): a parser when it has a ``parser``
  component, a token classifier (NER) when it has ``ner``;
* ``stanza:PATH_OR_LANG``: a stanza pipeline's parser;
* a Python object ``module:attribute``, ``path/to/file.py:attribute`` or ``callable:module:attribute``:
  an object that is already an adapter (a :class:`~robust_bench.models.parsers.Parser`,
  :class:`~robust_bench.models.classifiers.Classifier`, :class:`~robust_bench.models.taggers.TokenClassifier`
  or :class:`~robust_bench.models.coref.CorefPredictor`), a function with a ``robust_bench_interface``
  attribute naming its interface (classifiers and taggers then also need ``robust_bench_labels``),
  or, where the caller asks for one interface, a plain function of that interface (a parser
  function ``make_*`` is called once and must return a :class:`~robust_bench.models.parsers.Parser`);
* a coreference predictor: ``rule-based``, ``fastcoref[:MODEL]``, or a CoNLL-2012 file or folder of
  system output;
* a model-free baseline of the Jabberwocky family, ``baseline:path`` or ``baseline:majority``
  (:mod:`robust_bench.experiments.baselines`): it loads nothing and provides the ``model-free`` interface;
* a causal LM (:mod:`robust_bench.models.llm`): a transformers model whose ``architectures`` say
  ``*ForCausalLM`` or ``*LMHeadModel`` (run with lm-eval's ``hf`` backend), or explicitly ``hf:ID``,
  ``vllm:ID`` or ``openai-compatible:URL:MODEL`` (a server's ``/v1`` URL). It is a sequence classifier
  (labels scored as multiple choice) and, with ``hf``, an encoder (its hidden states);
* a GGUF causal LM (llama.cpp's format, read by transformers' GGUF support and the ``gguf`` package,
  extra ``[llm]``): a local ``PATH.gguf`` or ``hf:PATH.gguf``, or a file of a Hub repository
  ``hf:ORG/REPO/FILE.gguf`` (lm-eval's ``HFLM(gguf_file=...)``; dequantized on load); ``vllm:PATH.gguf``
  passes the file to vLLM. Its revision is the file's SHA-256 (``gguf-<sha256>``) for a local file, the
  Hub commit otherwise. It is a sequence classifier only (no encoder probe).

:func:`resolve_model` reads a spec into a :class:`ModelSpec`; a :class:`ModelHandle` builds its
adapters lazily, once per label set, so a process loads each model once. ``robust-bench run``,
``leaderboard verify`` and every family command resolve models here.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from robust_bench.models.loader import ModelError

__all__ = ["BASELINES", "public_name", "split_gguf", "GGUF_SUFFIX", "ModelSpec", "ModelHandle", "InterfaceError", "resolve_model", "load_model", "spec_name", "INTERFACES"]

#: every interface a model can provide, as suites name them
INTERFACES = ("sequence-classification", "token-classification", "encoder", "parser", "coreference", "model-free")
#: the model-free baselines of Hall Maudslay & Cotterell (2021, §5.1), ``baseline:<name>``
BASELINES = ("path", "majority")
#: llama.cpp's single-file model format
GGUF_SUFFIX = ".gguf"


class InterfaceError(ModelError, ValueError):
    """The model cannot be found or loaded, or does not provide an interface a task needs."""


@dataclass
class ModelSpec:
    """What a model spec names and which interfaces it provides.

    Attributes
    ----------
    id : str
        The spec as given (records name the model by it).
    kind : str
        ``transformers``, ``causal-lm``, ``spacy``, ``stanza``, ``callable``, ``coref`` or ``baseline``.
    interfaces : tuple of str
    target : str
        What is loaded: the folder, Hub id, package, ``module:attribute``, or coreference predictor.
    architectures, labels : tuple of str
        A transformers model's ``architectures`` and ``id2label`` (a spaCy pipeline's NER labels).
    revision : str, optional
        The Hub revision asked for (transformers models); None: the default branch.
    backend : str, optional
        A causal LM's backend: ``hf``, ``vllm`` or ``openai-compatible``.
    base_url : str, optional
        An ``openai-compatible`` server's ``/v1`` URL.
    gguf_file : str, optional
        A GGUF causal LM's file name inside ``target`` (a local folder or a Hub repository).
    """

    id: str
    kind: str
    interfaces: tuple[str, ...]
    target: str = ""
    architectures: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    revision: str | None = None
    backend: str | None = None
    base_url: str | None = None
    gguf_file: str | None = None

    def __post_init__(self):
        self.target = self.target or self.id


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


def _import_object(model: str, target: str) -> Any:
    module, _, attr = target.rpartition(":")
    if not module or not attr:
        raise InterfaceError(f"{model!r}: expected MODULE:ATTRIBUTE or FILE.py:ATTRIBUTE")
    try:
        if module.endswith(".py"):
            path = Path(module)
            if not path.is_file():
                raise InterfaceError(f"model {model!r}: {path} does not exist")
            spec = importlib.util.spec_from_file_location(f"robust_bench_user_{path.stem}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(module)
    except InterfaceError:
        raise
    except Exception as exc:  # noqa: BLE001 - any import failure of user code is reported as such
        raise InterfaceError(f"model {model!r}: cannot import {module!r}: {type(exc).__name__}: {exc}") from None
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise InterfaceError(f"model {model!r}: {module!r} has no attribute {attr!r}") from None


def _object_interfaces(obj: Any, interface: str | None) -> tuple[str, ...]:
    from robust_bench.models.classifiers import Classifier
    from robust_bench.models.coref import CorefPredictor
    from robust_bench.models.parsers import Parser
    from robust_bench.models.taggers import TokenClassifier

    for cls, name in ((Parser, "parser"), (Classifier, "sequence-classification"),
                      (TokenClassifier, "token-classification"), (CorefPredictor, "coreference")):
        if isinstance(obj, cls):
            return (name,)
    declared = getattr(obj, "robust_bench_interface", None)
    if callable(obj) and declared in INTERFACES:
        return (declared,)
    if callable(obj) and interface in ("parser", "coreference"):
        return (interface,)
    return ()


def _is_object_spec(model: str) -> bool:
    return ":" in model and not Path(model).exists() and not model.startswith(("http:", "https:"))


def spec_name(model: str) -> str:
    """What a model spec names, without loading it: a folder or Hub id as given, a ``spacy:``,
    ``stanza:``, ``callable:`` or ``fastcoref:`` spec by what follows the prefix (the bare prefix when
    nothing does), a ``module:attribute`` spec by its module (run folders are named by it)."""
    if Path(model).exists():
        return model
    kind, _, rest = model.partition(":")
    if kind == "baseline":
        return model
    if kind in ("hf", "vllm") and rest:
        return rest
    if kind == "openai-compatible" and rest:
        from robust_bench.models.llm import parse_llm_spec

        try:
            return parse_llm_spec(model)[1]
        except ValueError:
            return model
    name = rest if kind in ("spacy", "stanza", "callable", "fastcoref") and rest else model
    if _is_object_spec(name):
        name = name.rpartition(":")[0]
    return name


def public_name(model: str) -> str:
    """A model spec as published files hold it (run folders, records, leaderboard submissions): a local
    path (a folder, a file, the module file of a ``module:attribute`` spec) reduced to its base name, the
    spec's prefix kept (``hf:taught``, ``spacy:en_rb_sm``, ``wrapped.py:good``); a Hub id, an installed
    pipeline's name or a server spec as given. The local folder's content fingerprint is what pins it (the
    run's revision, ``local-<sha256>``), not where it sat on the submitting machine.

    Examples
    --------
    >>> public_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers/all-MiniLM-L6-v2'
    """
    if Path(model).exists() or _looks_local(model):
        return Path(model).name or model
    kind, sep, rest = model.partition(":")
    if sep and kind in ("hf", "vllm", "spacy", "stanza", "callable", "fastcoref") and rest:
        return f"{kind}:{public_name(rest)}"
    if _is_object_spec(model):
        module, _, attr = model.rpartition(":")
        if Path(module).exists() or _looks_local(module):
            return f"{Path(module).name}:{attr}"
    return model


def _looks_local(name: str) -> bool:
    """A path of some machine, whether or not it exists here: absolute, relative to the home or the working
    folder, or with more folders than a Hub id (``ORG/NAME``, or ``ORG/NAME/FILE.gguf``) has."""
    hub_parts = 3 if name.endswith(GGUF_SUFFIX) else 2
    return name.startswith(("/", "./", "../", "~")) or name.count("/") >= hub_parts or "\\" in name


def resolve_model(model: str, revision: str | None = None, *, interface: str | None = None) -> ModelSpec:
    """Read a model spec (see the module docstring) into what it names and the interfaces it provides.

    Parameters
    ----------
    model : str
    revision : str, optional
        Branch, tag or commit of a Hub model (``from_pretrained(revision=...)``).
    interface : str, optional
        The interface the caller needs (``parser`` for ``--parser``, ``coreference`` for
        ``--predictor``): the spec must provide it, and a plain function is taken as one.

    Returns
    -------
    ModelSpec

    Raises
    ------
    InterfaceError
        If the model cannot be found (a missing folder, an unreachable Hub id), provides no
        interface (or not ``interface``), or a revision is asked of a model that is not a
        transformers model.
    """
    if interface is not None and interface not in INTERFACES:
        raise InterfaceError(f"unknown interface {interface!r}; known: {', '.join(INTERFACES)}")
    spec = _resolve(model, revision, interface)
    if revision is not None and spec.kind not in ("transformers", "causal-lm"):
        raise InterfaceError(f"--revision applies to transformers models from the Hub; {model!r} is not one")
    if interface is not None and interface not in spec.interfaces:
        raise InterfaceError(f"{model!r} is not a {interface} model: it provides {', '.join(spec.interfaces)} "
                             f"({spec.kind})")
    return spec


def _resolve(model: str, revision: str | None, interface: str | None) -> ModelSpec:
    kind, _, rest = model.partition(":")
    if kind == "spacy" and not Path(model).exists():
        from robust_bench.text.nlp import spacy_model_name

        target = rest or spacy_model_name(None)
        meta = _spacy_meta(target)
        if meta is None:
            raise InterfaceError(f"{model!r}: {target!r} is not an installed spaCy package or pipeline folder")
        return _spacy_spec(model, target, meta)
    if kind == "stanza" and not Path(model).exists():
        return ModelSpec(model, "stanza", ("parser",), target=rest or "en")
    if kind == "baseline" and not Path(model).exists():
        if rest not in BASELINES:
            raise InterfaceError(f"{model!r}: the model-free baselines are {', '.join('baseline:' + b for b in BASELINES)}")
        return ModelSpec(model, "baseline", ("model-free",), target=rest)
    if kind == "callable" and not Path(model).exists():
        return _object_spec(model, rest, interface)
    if kind in ("hf", "vllm", "openai-compatible") and not Path(model).exists():
        return _llm_spec(model, revision)
    if model.endswith(GGUF_SUFFIX):
        if not Path(model).expanduser().is_file():
            raise InterfaceError(f"GGUF file {model} does not exist (a Hub repository's file: hf:ORG/REPO/FILE.gguf)")
        return _llm_spec(f"hf:{model}", revision, spec_id=model)
    if model == "rule-based" or kind == "fastcoref":
        return ModelSpec(model, "coref", ("coreference",))
    meta = _spacy_meta(model)
    if meta is not None:
        return _spacy_spec(model, model, meta)
    if _is_object_spec(model):
        return _object_spec(model, model, interface)
    p = Path(model)
    if interface == "coreference":
        if not p.exists():
            raise InterfaceError(f"coreference predictor {model!r}: neither rule-based, fastcoref[:MODEL] nor a CoNLL-2012 "
                                 "file or folder")
        return ModelSpec(model, "coref", ("coreference",))
    if p.is_absolute() or model.startswith((".", "~")) or p.exists():
        if not p.exists():
            raise InterfaceError(f"model folder {model} does not exist")
        if not (p / "config.json").is_file():
            raise InterfaceError(f"{model} is neither a transformers model (no config.json) nor a spaCy pipeline "
                                 "(no meta.json and config.cfg)")
    from robust_bench.models.loader import load_config

    try:
        cfg = load_config(model, revision=revision)
    except ModelError as exc:
        raise InterfaceError(str(exc)) from None
    _refuse_gguf_leftover(model, cfg)
    arch = tuple(getattr(cfg, "architectures", None) or ())
    if _is_causal_lm(arch) and not any(a.endswith(("ForSequenceClassification", "ForTokenClassification")) for a in arch):
        return ModelSpec(model, "causal-lm", ("sequence-classification", "encoder"), model, arch, (), revision, "hf")
    ifaces = []
    if any(a.endswith("ForSequenceClassification") for a in arch):
        ifaces.append("sequence-classification")
    if any(a.endswith("ForTokenClassification") for a in arch):
        ifaces.append("token-classification")
    ifaces.append("encoder")
    labels = tuple(str(v) for _, v in sorted((getattr(cfg, "id2label", None) or {}).items()))
    return ModelSpec(model, "transformers", tuple(ifaces), model, arch, labels, revision)


def _is_causal_lm(architectures: Sequence[str]) -> bool:
    return any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures)


def split_gguf(target: str) -> tuple[str, str | None]:
    """``PATH/FILE.gguf`` or ``ORG/REPO/FILE.gguf`` -> (the folder or Hub repository, the file name);
    any other target -> (target, None)."""
    if not target.endswith(GGUF_SUFFIX):
        return target, None
    p = Path(target).expanduser()
    if p.is_file():
        return str(p.parent), p.name
    repo, _, name = target.rpartition("/")
    if not repo or "/" not in repo or _looks_local(target):
        raise InterfaceError(f"GGUF file {target} does not exist (a Hub repository's file: ORG/REPO/FILE.gguf)")
    return repo, name


def _gguf_architectures(cfg) -> tuple[str, ...]:
    """A GGUF file's config names no ``architectures``; its ``model_type``'s causal-LM class does."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    name = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(getattr(cfg, "model_type", None))
    return (name,) if isinstance(name, str) else ()


def _refuse_gguf_leftover(model: str, cfg) -> None:
    """A folder whose ``config.json`` keeps a GGUF ``quantization_config`` (what saving a model loaded from a
    GGUF file naively leaves) cannot be loaded as a transformers folder: one line, not the loader's traceback."""
    q = getattr(cfg, "quantization_config", None)
    method = q.get("quant_method") if isinstance(q, dict) else getattr(q, "quant_method", None)
    if str(method).lower().endswith("gguf"):
        raise InterfaceError(f"{model}: config.json field 'quantization_config' says quant_method gguf, but the folder "
                             "holds no GGUF file to load; pass the .gguf file itself (--model PATH.gguf), or save the "
                             "dequantized model without that field")


def _llm_spec(model: str, revision: str | None, *, spec_id: str | None = None) -> ModelSpec:
    """``hf:ID``, ``vllm:ID``: the model's config must name a causal LM; ``openai-compatible:URL:MODEL``:
    the server is asked before the run (:func:`robust_bench.models.llm.probe_server`); ``hf:PATH.gguf``,
    ``hf:ORG/REPO/FILE.gguf``, ``vllm:PATH.gguf``: a GGUF file (``spec_id``: the spec as given, a bare
    ``PATH.gguf``)."""
    from robust_bench.models.llm import LLMError, parse_llm_spec

    try:
        backend, target, url = parse_llm_spec(model)
    except LLMError as exc:
        raise InterfaceError(f"--model: {exc}") from None
    if backend == "openai-compatible":
        return ModelSpec(model, "causal-lm", ("sequence-classification",), target, backend=backend, base_url=url)
    from robust_bench.models.loader import load_config

    folder, gguf = split_gguf(target)
    try:
        cfg = load_config(folder, revision=revision, gguf_file=gguf)
    except ModelError as exc:
        raise InterfaceError(f"--model {spec_id or model!r}: {exc}") from None
    if gguf is None:
        _refuse_gguf_leftover(spec_id or model, cfg)
    arch = tuple(getattr(cfg, "architectures", None) or ()) or (_gguf_architectures(cfg) if gguf else ())
    if not _is_causal_lm(arch):
        raise InterfaceError(f"--model {spec_id or model!r}: the {backend} backend scores causal LMs, and {target}'s "
                             f"config field 'architectures' is {list(arch)}, not *ForCausalLM or *LMHeadModel")
    ifaces = ("sequence-classification", "encoder") if backend == "hf" and gguf is None else ("sequence-classification",)
    return ModelSpec(spec_id or model, "causal-lm", ifaces, folder, arch, (), revision, backend, gguf_file=gguf)


def _spacy_spec(model: str, target: str, meta: dict) -> ModelSpec:
    pipes = set(meta.get("pipeline") or meta.get("components") or [])
    ifaces = tuple(n for n, pipe in (("parser", "parser"), ("token-classification", "ner")) if pipe in pipes)
    if not ifaces:
        raise InterfaceError(f"spaCy pipeline {model!r} has neither a parser nor an ner component")
    return ModelSpec(model, "spacy", ifaces, target=target, labels=tuple(meta.get("labels", {}).get("ner", ())))


def _object_spec(model: str, target: str, interface: str | None) -> ModelSpec:
    obj = _import_object(model, target)
    ifaces = _object_interfaces(obj, interface)
    if not ifaces:
        raise InterfaceError(f"model {model!r} is neither an adapter (Parser, Classifier, TokenClassifier, "
                             "CorefPredictor) nor a function with a robust_bench_interface attribute")
    return ModelSpec(model, "callable", ifaces, target=target)


def load_model(model: str, revision: str | None = None, *, interface: str | None = None, **options) -> "ModelHandle":
    """:func:`resolve_model`, then a :class:`ModelHandle` with ``options`` (device, dtype, batch size)."""
    return ModelHandle(resolve_model(model, revision, interface=interface), **options)


@dataclass
class ModelHandle:
    """A resolved model and its adapters, built on first use and kept for the process.

    Parameters
    ----------
    spec : ModelSpec
    device, dtype : str
        Passed to the transformers adapters.
    batch_size : int
    llm : robust_bench.models.llm.LLMSettings, optional
        How a causal LM is asked (shots, chat template, scoring); the defaults where None.
    """

    spec: ModelSpec
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = 64
    llm: Any = None
    _adapters: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.spec.id

    def _object(self):
        if "object" not in self._adapters:
            self._adapters["object"] = _import_object(self.spec.id, self.spec.target)
        return self._adapters["object"]

    def llm_backend(self):
        """The causal LM's :class:`~robust_bench.models.llm.LLMBackend` (loaded, or the server asked, once).

        Raises
        ------
        LLMError
            If the model is not a causal LM, lm-eval is missing, or the server cannot be used.
        """
        from robust_bench.models.llm import LLMBackend, LLMError, LLMSettings

        if self.spec.kind != "causal-lm":
            raise LLMError(f"{self.spec.id!r} is not a causal LM ({self.spec.kind})")
        if "llm" not in self._adapters:
            self._adapters["llm"] = LLMBackend(self.spec.backend, self.spec.target, base_url=self.spec.base_url,
                                               revision=self.spec.revision, gguf_file=self.spec.gguf_file, device=self.device, dtype=self.dtype,
                                               batch_size=self.batch_size, settings=self.llm or LLMSettings())
        return self._adapters["llm"]

    def llm_classifier(self, labels: Sequence[str], task, *, shots=None, tokenised: bool = False):
        """The causal LM as a classifier of ``task``'s rows: its prompt, demonstrations and settings
        (:class:`~robust_bench.models.llm.LLMClassifier`), one per task.

        Parameters
        ----------
        labels : sequence of str
        task
            A suite task or :class:`~robust_bench.evaluations.CommandTask` (its config picks the
            default prompt; ``options["prompt"]`` overrides it).
        shots : sequence of (input, label index), optional
            The k-shot demonstrations (:func:`robust_bench.evaluations.task_classifier` draws them);
            needed when the settings ask for k > 0.
        tokenised : bool
            The config's text is Penn-Treebank-tokenised: the prompt detokenises it
            (:func:`~robust_bench.models.llm.task_prompt`).

        Raises
        ------
        LLMError
            If the prompt, its verbalisers or the demonstrations cannot be used.
        """
        from robust_bench.models.llm import LLMClassifier, LLMSettings, task_prompt

        key = ("llm", task.name, tuple(labels))
        if key not in self._adapters:
            settings = self.llm or LLMSettings()
            prompt = task_prompt(task.config, labels, task.options, tokenised=tokenised)
            self._adapters[key] = LLMClassifier(self.llm_backend(), labels, prompt, settings, list(shots or ()))
        return self._adapters[key]

    def llm_setup(self, task_name: str) -> dict | None:
        """How the causal LM was asked on a task (backend, prompt hash, chat template, shots) and its
        counters, or None where it was not (not a causal LM, or the task was not a classification)."""
        clf = next((v for k, v in self._adapters.items() if k[0] == "llm" and len(k) == 3 and k[1] == task_name), None)
        if clf is None:
            return None
        out = {**clf.describe(), **clf.counters()}
        if isinstance(out.get("model"), str):
            out["model"] = public_name(out["model"])        # a local folder by its base name, never its path
        return out

    def classifier(self, labels: Sequence[str], label_map: dict | None = None, *, task=None, shots=None,
                   tokenised: bool = False):
        """A :class:`~robust_bench.models.classifiers.Classifier` over ``labels``.

        Parameters
        ----------
        labels : sequence of str
            The dataset's label names, in its order.
        label_map : dict, optional
            Model label -> dataset label, where the names differ.
        task, shots, tokenised
            What a causal LM needs (:meth:`llm_classifier`); other models ignore them.

        Raises
        ------
        LabelMappingError
            If the model's labels do not map onto ``labels``.
        LLMError
            If a causal LM is asked without a task, or its prompt cannot be used.
        """
        if self.spec.kind == "causal-lm":
            from robust_bench.models.llm import LLMError

            if task is None:
                raise LLMError(f"{self.spec.id!r} is a causal LM: it classifies a task's rows through the task's prompt")
            return self.llm_classifier(labels, task, shots=shots, tokenised=tokenised)
        key = ("cls", tuple(labels), tuple(sorted((label_map or {}).items())))
        if key not in self._adapters:
            if self.spec.kind == "callable":
                from robust_bench.models.classifiers import CallableClassifier, Classifier

                self._adapters[key] = self._callable_adapter(
                    Classifier, "labels", labels, lambda obj: CallableClassifier(obj, labels, name=self.spec.id))
            else:
                from robust_bench.models.classifiers import HFClassifier

                self._adapters[key] = HFClassifier(self.spec.target, labels, label_map=label_map,
                                                   revision=self.spec.revision, device=self.device, dtype=self.dtype,
                                                   batch_size=self.batch_size)
        return self._adapters[key]

    def _callable_adapter(self, adapter: type, labels_attr: str, want: Sequence[str], wrap: Callable):
        """The callable spec's object as an adapter: itself if it already is one (``adapter``), else
        ``wrap(obj)``; either way its labels (``labels_attr``, or ``robust_bench_labels`` on a bare
        function) must be ``want``."""
        obj = self._object()
        if isinstance(obj, adapter):
            self._check_labels(getattr(obj, labels_attr), want)
            return obj
        self._check_labels(getattr(obj, "robust_bench_labels", ()), want)
        return wrap(obj)

    @staticmethod
    def _check_labels(have: Sequence[str], want: Sequence[str]) -> None:
        from robust_bench.models.classifiers import LabelMappingError

        if tuple(have) != tuple(want):
            raise LabelMappingError(f"the callable's labels {list(have)} are not the task's {list(want)}")

    def encoder(self, *, pooling: str = "first", batch_size: int = 32):
        """The model as an :class:`~robust_bench.models.encoders.EncoderAdapter` (word-level hidden states of
        every layer; ``pooling`` of a word's subwords), on the handle's device and dtype, one per pooling.

        Raises
        ------
        ModelError
            If the model is no transformers encoder (or causal LM) with hidden states.
        """
        if "encoder" not in self.spec.interfaces:
            from robust_bench.models.loader import ModelError

            raise ModelError(f"{public_name(self.spec.id)} is not an encoder ({', '.join(self.spec.interfaces)})")
        key = ("enc", pooling, batch_size)
        if key not in self._adapters:
            from robust_bench.models.encoders import EncoderAdapter

            self._adapters[key] = EncoderAdapter(self.spec.target, revision=self.spec.revision, device=self.device,
                                                 dtype=self.dtype, pooling=pooling, batch_size=batch_size)
        return self._adapters[key]

    def tagger(self, tags: Sequence[str], label_map: dict | None = None):
        """A :class:`~robust_bench.models.taggers.TokenClassifier` over ``tags`` (IOB2).

        Raises
        ------
        LabelMappingError
            If the model's tags do not cover ``tags``.
        """
        key = ("tag", tuple(tags), tuple(sorted((label_map or {}).items())))
        if key not in self._adapters:
            if self.spec.kind == "spacy":
                from robust_bench.models.taggers import SpacyTagger

                self._adapters[key] = SpacyTagger(self.spec.target, tags)
            elif self.spec.kind == "callable":
                from robust_bench.models.taggers import CallableTokenClassifier, TokenClassifier

                self._adapters[key] = self._callable_adapter(
                    TokenClassifier, "tags", tags, lambda obj: CallableTokenClassifier(obj, tags))
            else:
                from robust_bench.models.taggers import HFTokenClassifier

                self._adapters[key] = HFTokenClassifier(self.spec.target, tags, label_map=label_map,
                                                        revision=self.spec.revision, device=self.device,
                                                        dtype=self.dtype, batch_size=self.batch_size)
        return self._adapters[key]

    def parser(self, *, batch_size: int = 256):
        """A :class:`~robust_bench.models.parsers.Parser`.

        Raises
        ------
        ModelError
            If the parser cannot be loaded (a spaCy pipeline without a parser, stanza not
            installed, a ``make_*`` function that returns no Parser).
        """
        if "parser" not in self._adapters:
            from robust_bench.models.parsers import CallableParser, Parser, SpacyParser, StanzaParser

            if self.spec.kind == "spacy":
                from robust_bench.text.nlp import SpacyModelError

                try:
                    self._adapters["parser"] = SpacyParser(self.spec.target, batch_size=batch_size)
                except SpacyModelError as exc:
                    raise ModelError(str(exc)) from exc
            elif self.spec.kind == "stanza":
                self._adapters["parser"] = StanzaParser(self.spec.target)
            else:
                obj = self._object()
                func = self.spec.target.rpartition(":")[2]
                if not isinstance(obj, Parser) and func.startswith("make_"):
                    obj = obj()
                    if not isinstance(obj, Parser):
                        raise ModelError(f"{self.spec.target}() must return a robust_bench Parser, got "
                                         f"{type(obj).__name__}")
                self._adapters["parser"] = obj if isinstance(obj, Parser) else CallableParser(
                    obj, name=func if self.spec.id.startswith("callable:") else self.spec.id)
        return self._adapters["parser"]

    def coref(self):
        """A :class:`~robust_bench.models.coref.CorefPredictor`: the rule-based baseline, fastcoref,
        a CoNLL-2012 file or folder of system output, or a Python object.

        Raises
        ------
        ModelError
            If fastcoref is not installed or its model cannot be loaded, or the files cannot be read.
        """
        if "coref" not in self._adapters:
            from robust_bench.models.coref import CallableCoref, ConllFileCoref, CorefPredictor, FastCorefAdapter, RuleBasedCoref

            target = self.spec.target
            if self.spec.kind == "callable":
                obj = self._object()
                pred = obj if isinstance(obj, CorefPredictor) else CallableCoref(obj, name=self.spec.id)
            elif target == "rule-based":
                pred = RuleBasedCoref()
            elif target.partition(":")[0] == "fastcoref":
                pred = FastCorefAdapter(target.partition(":")[2] or "biu-nlp/f-coref",
                                        device="cpu" if self.device == "auto" else self.device)
            else:
                pred = ConllFileCoref([target])
            self._adapters["coref"] = pred
        return self._adapters["coref"]

    def revision(self) -> str | None:
        """The model's revision or fingerprint, for the records."""
        if self.spec.kind == "causal-lm" and self.spec.backend == "openai-compatible":
            return None
        if self.spec.kind in ("transformers", "causal-lm"):
            from robust_bench.models.loader import gguf_revision, load_config, model_revision

            if self.spec.gguf_file and Path(self.spec.target).expanduser().is_dir():
                return gguf_revision(Path(self.spec.target).expanduser() / self.spec.gguf_file)
            if Path(self.spec.target).expanduser().is_dir():
                return model_revision(self.spec.target)
            # a Hub model: the commit its config came from (never a branch name)
            return model_revision(self.spec.target, self.spec.revision,
                                  load_config(self.spec.target, revision=self.spec.revision,
                                              gguf_file=self.spec.gguf_file))
        if self.spec.kind in ("spacy", "stanza"):
            return self.parser().revision if "parser" in self.spec.interfaces else None
        if self.spec.kind in ("coref", "baseline"):
            return None
        return getattr(self._object(), "revision", None)
