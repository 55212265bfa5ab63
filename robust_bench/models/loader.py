"""One loader for every model adapter, in the manner of lm-evaluation-harness's single ``HFLM``.

Every Hugging Face head (sequence classifier, token classifier, causal and masked LM) loads
through :func:`load_pretrained`; the encoder adapter (:mod:`robust_bench.models.encoders`) loads a
bare ``AutoModel`` with the same device, dtype and revision helpers and :class:`ModelError`. The
parser adapters (:mod:`robust_bench.models.parsers`: spaCy, stanza, a callable) and the coreference
predictors (:mod:`robust_bench.models.coref`) load their own toolkits. :func:`load_pretrained` owns:

* **device and dtype**: :func:`resolve_device` (``auto`` = cuda, then mps, then cpu) and
  :func:`resolve_dtype` (``auto`` = bf16 where the GPU supports it, else fp16 on GPU, fp32 on CPU);
* **revision pinning**: :func:`model_revision` records the Hub commit hash, or
  ``local-<sha256>`` of a local folder's weight, config and tokenizer files. A run never records an
  unpinned branch name such as ``main``: where no commit can be known, loading fails;
* **tokenizer quirks**: ``add_prefix_space`` for byte-level BPE tokenizers fed pre-split words,
  a pad token for decoder-only models, right padding, and a warning when most subwords of real text
  are the unknown token (a vocabulary that is not the model's, as a transformers 5 tokenizer saved
  from a bare ``vocab_file`` is);
* **one error type**, :class:`ModelError`, whose message names the model and, for a local path that
  does not exist, says so instead of talking about Hub repository ids;
* **length-sorted batching** (:func:`length_sorted_batches`) and the **prediction cache with a query
  counter** (:class:`PredictionCache`) that every adapter shares.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from robust_bench import RobustBenchError

__all__ = ["ModelError", "resolve_device", "resolve_dtype", "model_revision", "load_tokenizer", "load_pretrained",
           "LoadedModel", "length_sorted_batches", "PredictionCache", "warn_if_mostly_unknown", "max_input_length"]

_DTYPES = ("float32", "bfloat16", "float16")
_COMMIT = re.compile(r"[0-9a-f]{40}")


class ModelError(RobustBenchError, RuntimeError):
    """A model, tokenizer or device cannot be used; the message names the model."""


def resolve_device(device: str = "auto") -> str:
    """The torch device to run on.

    Parameters
    ----------
    device : str
        ``"auto"`` (cuda when available, then mps, else cpu) or a torch device string such as
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``.

    Returns
    -------
    str

    Raises
    ------
    ModelError
        If an explicitly requested accelerator is not available, or the string is no device.
    """
    import torch

    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelError(f"device {device!r} requested but CUDA is not available")
    if device == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ModelError("device 'mps' requested but MPS is not available")
    if not re.fullmatch(r"cpu|mps|cuda(:\d+)?", device):
        raise ModelError(f"unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps")
    return device


def resolve_dtype(device: str, dtype: str = "auto"):
    """The torch dtype for weights on ``device``.

    Parameters
    ----------
    device : str
        A resolved device (see :func:`resolve_device`).
    dtype : {"auto", "float32", "bfloat16", "float16"}
        ``"auto"`` is bf16 on CUDA GPUs that support it, else fp16 on CUDA, and fp32 elsewhere.

    Returns
    -------
    torch.dtype

    Raises
    ------
    ModelError
        For a name outside the four above.
    """
    import torch

    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if dtype not in _DTYPES:
        raise ModelError(f"unknown dtype {dtype!r}; use auto, {', '.join(_DTYPES)}")
    return getattr(torch, dtype)


def _looks_like_path(model: str) -> bool:
    return model.startswith((".", "/", "~")) or model.count("/") > 1 or (os.sep != "/" and os.sep in model)


def check_model_id(model: str) -> None:
    """Fail early, and plainly, for a local path that does not exist.

    A string is taken as a local path when it starts with ``.``, ``/`` or ``~`` or has more than one
    ``/`` (a Hub id has at most one).

    Raises
    ------
    ModelError
        ``model folder '<path>' does not exist`` for such a path, or when it is a file.
    """
    if not isinstance(model, str) or not model.strip():
        raise ModelError(f"model must be a Hub id or a local folder, got {model!r}")
    p = Path(model).expanduser()
    if _looks_like_path(model) and not p.exists():
        raise ModelError(f"model folder {model!r} does not exist")
    if p.exists() and not p.is_dir():
        raise ModelError(f"model {model!r} is a file; give the folder that holds config.json and the weights")


_WEIGHT_SUFFIXES = (".json", ".safetensors", ".bin", ".txt", ".model", ".pt")


@lru_cache(maxsize=64)
def _folder_digest(path: str, stamp: tuple) -> str:
    h = hashlib.sha256()
    for f in sorted(Path(path).iterdir()):
        if f.is_file() and f.suffix in _WEIGHT_SUFFIXES:
            h.update(f.name.encode())
            with open(f, "rb") as fh:
                while block := fh.read(1 << 20):
                    h.update(block)
    return h.hexdigest()


def model_revision(model: str, revision: str | None = None, config: Any = None) -> str:
    """The revision to record for ``model``: pinned, never a branch name.

    Parameters
    ----------
    model : str
        Hub id or local folder.
    revision : str, optional
        What the user asked for (branch, tag or commit).
    config : transformers.PretrainedConfig, optional
        The loaded config; ``config._commit_hash`` is the commit the files came from.

    Returns
    -------
    str
        ``local-<sha256>`` (64 hex digits over the folder's weight, config and tokenizer files) for a
        local folder; otherwise the 40-hex Hub commit.

    Raises
    ------
    ModelError
        If the model came from the Hub and no commit is known (an offline run with a branch name and
        no cached commit): recording ``main`` would not pin anything.
    """
    p = Path(model).expanduser()
    if p.is_dir():
        stamp = tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in sorted(p.iterdir()) if f.is_file())
        return "local-" + _folder_digest(str(p.resolve()), stamp)
    commit = getattr(config, "_commit_hash", None) if config is not None else None
    if commit and _COMMIT.fullmatch(commit):
        return commit
    if revision and _COMMIT.fullmatch(revision):
        return revision
    raise ModelError(f"cannot pin the revision of {model!r}: no commit hash is known for "
                     f"{revision or 'the default branch'}; pass --revision with a 40-character commit")


def load_tokenizer(model: str, *, revision: str | None = None, add_prefix_space: bool = False,
                   require_fast: bool = False):
    """``AutoTokenizer`` with the quirks handled.

    Parameters
    ----------
    model, revision : str
    add_prefix_space : bool
        Ask byte-level BPE tokenizers (GPT-2, RoBERTa) for a prefix space, which pre-split words
        need; tokenizers that do not take the option load without it.
    require_fast : bool
        Fail unless a fast tokenizer exists (word alignment needs ``word_ids()``).

    Returns
    -------
    transformers.PreTrainedTokenizerBase
        With a pad token (the EOS or UNK token for decoder-only models) and right padding.

    Raises
    ------
    ModelError
    """
    from transformers import AutoTokenizer

    check_model_id(model)
    kwargs = {"revision": revision, "use_fast": True}
    try:
        if add_prefix_space:
            try:
                tok = AutoTokenizer.from_pretrained(model, add_prefix_space=True, **kwargs)
            except TypeError:
                tok = AutoTokenizer.from_pretrained(model, **kwargs)
        else:
            tok = AutoTokenizer.from_pretrained(model, **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot load the tokenizer of {model!r}: {exc}") from exc
    if require_fast and not getattr(tok, "is_fast", False):
        raise ModelError(f"{model!r} has no fast tokenizer; word alignment needs word_ids()")
    if tok.pad_token is None:
        # decoder-only models (GPT-2) have no pad token; padded positions are masked anyway
        tok.pad_token = tok.eos_token or tok.unk_token
    tok.padding_side = "right"
    return tok


def load_config(model: str, *, revision: str | None = None, gguf_file: str | None = None):
    """``AutoConfig`` of ``model`` (of its GGUF file ``gguf_file``, read by transformers' GGUF support).

    Raises
    ------
    ModelError
        If it cannot be loaded (or, for a GGUF file, the ``gguf`` package is missing).
    """
    from transformers import AutoConfig

    check_model_id(model)
    extra = {} if gguf_file is None else {"gguf_file": gguf_file}
    try:
        return AutoConfig.from_pretrained(model, revision=revision, **extra)
    except ImportError as exc:
        raise ModelError(f"cannot load {gguf_file}: GGUF files need the gguf package: pip install "
                         f"'robust-bench[llm]' ({exc})") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot load model {model!r}{f' file {gguf_file}' if gguf_file else ''}: {exc}") from exc
    except (struct.error, EOFError, KeyError, IndexError) as exc:
        if gguf_file is None:
            raise
        # the gguf reader unpacks the file's header and metadata as it goes: a short or damaged file ends here
        raise ModelError(f"cannot load model {model!r} file {gguf_file}: not a whole GGUF file (truncated or "
                         f"damaged: {type(exc).__name__}: {exc})") from None


def gguf_revision(path: str | Path) -> str:
    """The revision recorded for a local GGUF file: ``gguf-<sha256>``, its bytes' SHA-256 (64 hex digits),
    whatever the folder holds besides it."""
    from robust_bench.io.sources import sha256_file

    return "gguf-" + sha256_file(Path(path))


def max_input_length(config, tokenizer=None) -> int | None:
    """Longest input in subwords, special tokens included: the position table's size (less the
    padding offset of RoBERTa-style models) or the tokenizer's limit, whichever is less; ``None``
    where neither states one."""
    limits = []
    for key in ("max_position_embeddings", "n_positions"):
        v = getattr(config, key, None)
        if isinstance(v, int) and v > 0:
            offset = 2 if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert") else 0
            limits.append(v - offset)
            break
    tok_max = getattr(tokenizer, "model_max_length", None) if tokenizer is not None else None
    if isinstance(tok_max, int) and 0 < tok_max < 1_000_000:
        limits.append(tok_max)
    return min(limits) if limits else None


@dataclass
class LoadedModel:
    """What :func:`load_pretrained` returns.

    Attributes
    ----------
    model_id : str
    model : torch.nn.Module
        In eval mode, on ``device``.
    tokenizer : transformers.PreTrainedTokenizerBase
    device : str
    dtype : torch.dtype
    revision : str
        Pinned (see :func:`model_revision`).
    max_length : int or None
        Longest input in subwords (see :func:`max_input_length`).
    """

    model_id: str
    model: Any
    tokenizer: Any
    device: str
    dtype: Any
    revision: str
    max_length: int | None


def load_pretrained(auto_class, model: str, *, revision: str | None = None, device: str = "auto",
                    dtype: str = "auto", kind: str = "model", add_prefix_space: bool = False,
                    require_fast: bool = False, **config_overrides: Any) -> LoadedModel:
    """Load tokenizer and weights of ``model`` with ``auto_class`` (for example
    ``AutoModelForSequenceClassification``).

    Parameters
    ----------
    auto_class : type
        A transformers ``Auto*`` class.
    model : str
        Hub id or local folder.
    revision : str, optional
    device : str
        See :func:`resolve_device`.
    dtype : str
        See :func:`resolve_dtype`.
    kind : str
        What the model is for, in error messages ("classifier", "tagger", ...).
    add_prefix_space, require_fast : bool
        See :func:`load_tokenizer`.
    **config_overrides
        Passed to ``from_pretrained`` to override config fields (for example ``num_labels``
        and ``id2label`` when a new classification head is put on an encoder).

    Returns
    -------
    LoadedModel

    Raises
    ------
    ModelError
        If the folder does not exist, the files cannot be loaded, the device or dtype is unknown, or
        the revision cannot be pinned.
    """
    dev = resolve_device(device)
    tdtype = resolve_dtype(dev, dtype)
    tok = load_tokenizer(model, revision=revision, add_prefix_space=add_prefix_space, require_fast=require_fast)
    try:
        net = auto_class.from_pretrained(model, revision=revision, dtype=tdtype, **config_overrides)
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot load {kind} {model!r}: {exc}") from exc
    if getattr(net.config, "pad_token_id", None) is None and tok.pad_token_id is not None:
        net.config.pad_token_id = tok.pad_token_id
    net.eval().to(dev)
    return LoadedModel(model_id=model, model=net, tokenizer=tok, device=dev, dtype=tdtype,
                       revision=model_revision(model, revision, net.config),
                       max_length=max_input_length(net.config, tok))


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length, shortest first, for dynamic padding.

    Parameters
    ----------
    lengths : sequence of int of shape (n_inputs,)
    batch_size : int
        At least 1.

    Returns
    -------
    list of list of int
        Every index exactly once; the sort is stable, so equal lengths keep their order.

    Raises
    ------
    ValueError
        If ``batch_size`` < 1.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


class PredictionCache:
    """Answers repeated inputs from memory and counts what the model really saw.

    Attributes
    ----------
    queries : int
        Distinct inputs sent to the model so far.
    """

    def __init__(self):
        self.queries = 0
        self._store: dict[Hashable, Any] = {}

    def __contains__(self, key: Hashable) -> bool:
        return key in self._store

    def __len__(self) -> int:
        return len(self._store)

    def get_many(self, keys: Sequence[Hashable], forward: Callable[[list], Sequence[Any]]) -> list[Any]:
        """The outputs for ``keys``; keys not seen before go to ``forward`` once each, in one call.

        Parameters
        ----------
        keys : sequence of hashable
        forward : callable
            ``list of new keys -> sequence of outputs`` of the same length.

        Returns
        -------
        list
            One output per key, in order.
        """
        todo = list(dict.fromkeys(k for k in keys if k not in self._store))
        if todo:
            self.add(todo, forward(todo))
        return [self._store[k] for k in keys]

    def add(self, keys: Sequence[Hashable], outs: Sequence[Any]) -> None:
        """Store the outputs of ``keys`` (n distinct keys, n outputs) that the model has just
        seen; keys not stored before count in :attr:`queries`.

        Raises
        ------
        ValueError
            If there is not one output per key.
        """
        if len(outs) != len(keys):
            raise ValueError(f"the model returned {len(outs)} outputs for {len(keys)} inputs")
        self.queries += sum(k not in self._store for k in keys)
        self._store.update(zip(keys, outs))

    def clear(self) -> None:
        """Forget every cached output (the query count stays)."""
        self._store.clear()


def warn_if_mostly_unknown(tokenizer, input_ids: Sequence[Sequence[int]], model: str, *,
                           threshold: float = 0.5) -> float:
    """Warn when most subwords of real text are the unknown token: the vocabulary is not the
    model's (a broken or mismatched tokenizer), and scores would measure nothing.

    Returns
    -------
    float
        The unknown share, in [0, 1].
    """
    unk = tokenizer.unk_token_id
    total = sum(len(x) for x in input_ids)
    if unk is None or not total:
        return 0.0
    share = sum(sum(1 for t in x if t == unk) for x in input_ids) / total
    if share > threshold:
        warnings.warn(f"{share:.0%} of the subwords from {model!r} are the unknown token {tokenizer.unk_token!r}; "
                      "its tokenizer does not cover this text", RuntimeWarning, stacklevel=3)
    return share
