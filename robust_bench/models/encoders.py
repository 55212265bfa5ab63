"""Encoder adapter: word-level hidden states of any Hugging Face ``AutoModel``.

For probing (Hall Maudslay & Cotterell, 2021, App. B; Hewitt & Manning, 2019), each word of a
pre-tokenised sentence needs one vector per layer. This adapter

* loads any ``AutoModel`` id or local path, encoder-only (BERT, RoBERTa, ELECTRA) or
  decoder-only (GPT-2), with its fast tokenizer;
* aligns words to subwords with ``word_ids()`` from ``is_split_into_words=True``; a
  sentence with a word that gets no subword, or that exceeds the model's length, is dropped
  and counted (the paper's Table 1 reports what remains);
* pools each word's subwords: the first subword (the paper's choice) or their mean;
* runs length-sorted batches with dynamic padding, on the GPU when there is one (in bf16
  where supported, else fp16), else on the CPU in fp32;
* returns hidden states of the selected layers, layer 0 being the embedding output;
* caches representations on disk as memory-mapped ``.npy`` files keyed by model, revision,
  layer, pooling and the corpus content hash, so that a second run does no forward pass.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from robust_bench.io.fileio import default_cache_dir
from robust_bench.models.loader import (ModelError, load_config, load_tokenizer, max_input_length, model_revision,
                                        resolve_device, resolve_dtype, warn_if_mostly_unknown)

__all__ = ["Representations", "EncoderAdapter", "corpus_hash", "default_cache_dir"]

DROP_TOO_LONG = "longer than the model's maximum length"
DROP_UNALIGNED = "a word has no subword"


def corpus_hash(sentences: Sequence[Sequence[str]]) -> str:
    """SHA-256 of a tokenised corpus (the word sequences, in order)."""
    h = hashlib.sha256()
    for words in sentences:
        h.update(json.dumps(list(words), ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


@dataclass
class Representations:
    """Word vectors of one layer for a corpus.

    Attributes
    ----------
    layer : int
        0 is the embedding output.
    vectors : ndarray of float32 of shape (n_words_total, hidden_size)
        All kept sentences' words, concatenated (memory-mapped when read from the cache).
    offsets : ndarray of int64 of shape (n_kept + 1,)
        Sentence ``k`` of the kept sentences is ``vectors[offsets[k]:offsets[k + 1]]``.
    kept : ndarray of int64 of shape (n_kept,)
        Indices of the kept sentences in the input corpus.
    dropped : dict of str to int
        Dropped sentences by reason.
    """

    layer: int
    vectors: np.ndarray
    offsets: np.ndarray
    kept: np.ndarray
    dropped: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.kept)

    def sentence(self, k: int) -> np.ndarray:
        """Word vectors of the ``k``-th kept sentence, shape (n_words, hidden_size)."""
        return self.vectors[self.offsets[k]:self.offsets[k + 1]]

    def sentences(self) -> list[np.ndarray]:
        """All kept sentences as views, each of shape (n_words, hidden_size)."""
        return [self.sentence(k) for k in range(len(self.kept))]


class EncoderAdapter:
    """Word-level hidden states from any ``AutoModel``; see the module docstring.

    Parameters
    ----------
    model : str
        Hub id or local path.
    revision : str, optional
        Hub revision (branch, tag or commit).
    device : str
        ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``.
    dtype : {"auto", "float32", "bfloat16", "float16"}
        ``"auto"`` is bf16 on GPUs that support it, else fp16 on GPU, fp32 on CPU. Vectors are
        returned in float32 either way.
    pooling : {"first", "mean"}
        How a word's subwords become one vector.
    batch_size : int
        Sentences per forward pass.
    cache_dir : path-like, optional
        Representation cache; default :func:`default_cache_dir`. ``None`` with
        ``use_cache=False`` disables caching.
    use_cache : bool

    Raises
    ------
    ModelError
        If the model or a fast tokenizer cannot be loaded.

    Attributes
    ----------
    n_forward : int
        Forward passes run so far (0 when everything came from the cache).
    """

    def __init__(self, model: str, *, revision: str | None = None, device: str = "auto", dtype: str = "auto",
                 pooling: str = "first", batch_size: int = 32, cache_dir: str | os.PathLike | None = None,
                 use_cache: bool = True):
        if pooling not in ("first", "mean"):
            raise ValueError(f"pooling must be 'first' or 'mean', got {pooling!r}")
        self.model_id = model
        self.revision = revision
        self.device = resolve_device(device)
        resolve_dtype(self.device, dtype)  # fail early on an unknown dtype
        self.dtype_name = dtype
        self.pooling = pooling
        self.batch_size = batch_size
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.use_cache = use_cache
        self.n_forward = 0
        self._model = None
        self._tokenizer = None
        self._fingerprint: str | None = None
        self._config = None

    # -- loading (through robust_bench.models.loader) -----------------------------------------
    @property
    def tokenizer(self):
        """The fast tokenizer, with a prefix space for byte-level BPE and a pad token."""
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self.model_id, revision=self.revision, add_prefix_space=True,
                                             require_fast=True)
        return self._tokenizer

    @property
    def model(self):
        """The ``AutoModel``, in eval mode on :attr:`device` (loaded on first use)."""
        if self._model is None:
            from transformers import AutoModel

            try:
                model = AutoModel.from_pretrained(self.model_id, revision=self.revision,
                                                  dtype=resolve_dtype(self.device, self.dtype_name))
            except (OSError, ValueError) as exc:
                raise ModelError(f"cannot load model {self.model_id!r}: {exc}") from exc
            self._model = model.eval().to(self.device)
        return self._model

    @property
    def config(self):
        """The model's ``AutoConfig``.

        Raises
        ------
        ModelError
            If no model can be found at the id or path.
        """
        if self._config is None:
            self._config = load_config(self.model_id, revision=self.revision)
        return self._config

    @property
    def num_layers(self) -> int:
        """Number of hidden-state layers including layer 0 (the embeddings)."""
        cfg = self.config
        return int(getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "n_layer")) + 1

    @property
    def hidden_size(self) -> int:
        """Width of the hidden states."""
        cfg = self.config
        return int(getattr(cfg, "hidden_size", None) or getattr(cfg, "n_embd"))

    def max_length(self) -> int:
        """Longest input in subwords, special tokens included (see
        :func:`robust_bench.models.loader.max_input_length`).

        Raises
        ------
        ModelError
            If neither the config nor the tokenizer states a limit.
        """
        limit = max_input_length(self.config, self.tokenizer)
        if limit is None:
            raise ModelError(f"cannot tell the maximum input length of {self.model_id!r}")
        return limit

    def fingerprint(self) -> str:
        """The pinned revision of the weights: the Hub commit, or ``local-<sha256>`` of a local
        folder (see :func:`robust_bench.models.loader.model_revision`).

        Raises
        ------
        ModelError
            If the model came from the Hub and no commit is known.
        """
        if self._fingerprint is None:
            self._fingerprint = model_revision(self.model_id, self.revision, self.config)
        return self._fingerprint

    # -- alignment ---------------------------------------------------------------------------
    def align(self, sentences: Sequence[Sequence[str]]) -> tuple[list[dict], dict[str, int]]:
        """Tokenise pre-split sentences and map subwords to words.

        Returns
        -------
        encodings : list of dict
            For each kept sentence: ``index`` (in the input), ``input_ids`` and ``word_index``
            (per subword, the word it belongs to or -1).
        dropped : dict of str to int
            Dropped sentences by reason.
        """
        tok = self.tokenizer
        limit = self.max_length()
        enc = tok([list(s) for s in sentences], is_split_into_words=True, truncation=False,
                  add_special_tokens=True, verbose=False)
        kept, dropped = [], {DROP_TOO_LONG: 0, DROP_UNALIGNED: 0}
        for k, words in enumerate(sentences):
            ids = enc["input_ids"][k]
            wids = enc.word_ids(k)
            if len(ids) > limit:
                dropped[DROP_TOO_LONG] += 1
                continue
            present = {w for w in wids if w is not None}
            if len(present) != len(words) or not words:
                dropped[DROP_UNALIGNED] += 1
                continue
            kept.append({"index": k, "input_ids": ids,
                         "word_index": np.array([-1 if w is None else w for w in wids], dtype=np.int64),
                         "n_words": len(words)})
        self._check_unknown(kept)
        return kept, dropped

    def _check_unknown(self, kept: list[dict]) -> None:
        words = [[i for i, w in zip(e["input_ids"], e["word_index"]) if w >= 0] for e in kept]
        warn_if_mostly_unknown(self.tokenizer, words, self.model_id)

    # -- extraction --------------------------------------------------------------------------
    def _cache_key(self, chash: str, layer: int) -> Path:
        name = hashlib.sha256(json.dumps([self.model_id, self.fingerprint(), self.pooling, chash],
                                         sort_keys=True).encode()).hexdigest()[:24]
        return self.cache_dir / "representations" / name / f"layer{layer}"

    def _read_cache(self, chash: str, layers: Sequence[int]) -> dict[int, Representations] | None:
        out = {}
        for layer in layers:
            d = self._cache_key(chash, layer)
            if not (d / "meta.json").is_file():
                return None
            meta = json.loads((d / "meta.json").read_text())
            out[layer] = Representations(layer=layer, vectors=np.load(d / "vectors.npy", mmap_mode="r"),
                                         offsets=np.load(d / "offsets.npy"), kept=np.load(d / "kept.npy"),
                                         dropped=meta["dropped"])
        return out

    def _write_cache(self, chash: str, reps: dict[int, Representations]) -> None:
        for layer, r in reps.items():
            final = self._cache_key(chash, layer)
            final.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
            np.save(tmp / "vectors.npy", r.vectors)
            np.save(tmp / "offsets.npy", r.offsets)
            np.save(tmp / "kept.npy", r.kept)
            (tmp / "meta.json").write_text(json.dumps({"model": self.model_id, "fingerprint": self.fingerprint(),
                                                       "pooling": self.pooling, "corpus_sha256": chash,
                                                       "layer": layer, "dropped": r.dropped}))
            if final.exists():  # a concurrent writer got there first; theirs is identical
                for f in tmp.iterdir():
                    f.unlink()
                tmp.rmdir()
            else:
                os.rename(tmp, final)

    def embed(self, sentences: Sequence[Sequence[str]], layers: Sequence[int], *,
              progress: bool = True) -> dict[int, Representations]:
        """Word vectors of the given layers for a tokenised corpus.

        Parameters
        ----------
        sentences : sequence of sequence of str
            Pre-tokenised sentences (for example a treebank's words).
        layers : sequence of int
            Hidden-state indices, 0 = embedding output, up to ``num_layers - 1``.
        progress : bool
            Show a progress bar over batches.

        Returns
        -------
        dict of int to Representations

        Raises
        ------
        ModelError
            If a layer is out of range, or the model cannot be loaded.
        """
        layers = sorted(set(int(x) for x in layers))
        n_layers = self.num_layers
        bad = [x for x in layers if not 0 <= x < n_layers]
        if bad:
            raise ModelError(f"layers {bad} out of range: {self.model_id!r} has layers 0..{n_layers - 1}")
        chash = corpus_hash(sentences)
        if self.use_cache:
            cached = self._read_cache(chash, layers)
            if cached is not None:
                return cached
        reps = self._extract(sentences, layers, progress=progress)
        if self.use_cache:
            self._write_cache(chash, reps)
            return self._read_cache(chash, layers)
        return reps

    def _extract(self, sentences, layers, *, progress):
        import torch

        encs, dropped = self.align(sentences)
        order = sorted(range(len(encs)), key=lambda k: len(encs[k]["input_ids"]))
        hidden = self.hidden_size
        offsets = np.zeros(len(encs) + 1, dtype=np.int64)
        np.cumsum([e["n_words"] for e in encs], out=offsets[1:])
        out = {layer: np.zeros((int(offsets[-1]), hidden), dtype=np.float32) for layer in layers}
        model, tok = self.model, self.tokenizer
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        it = batches
        if progress:
            from tqdm.auto import tqdm
            it = tqdm(batches, desc=f"Encoding with {self.model_id}", unit="batch")
        with torch.inference_mode():
            for batch in it:
                width = max(len(encs[k]["input_ids"]) for k in batch)
                input_ids = np.full((len(batch), width), tok.pad_token_id, dtype=np.int64)
                mask = np.zeros((len(batch), width), dtype=np.int64)
                # destination row of every subword in `out` (-1: special token or padding)
                dest = np.full((len(batch), width), -1, dtype=np.int64)
                for b, k in enumerate(batch):
                    e = encs[k]
                    n = len(e["input_ids"])
                    input_ids[b, :n] = e["input_ids"]
                    mask[b, :n] = 1
                    w = e["word_index"]
                    dest[b, :n] = np.where(w >= 0, offsets[k] + w, -1)
                res = model(input_ids=torch.from_numpy(input_ids).to(self.device),
                            attention_mask=torch.from_numpy(mask).to(self.device), output_hidden_states=True)
                self.n_forward += 1
                rows, vecs = self._pool(dest, [res.hidden_states[layer] for layer in layers])
                for layer, v in zip(layers, vecs):
                    out[layer][rows] = v
        kept = np.array([e["index"] for e in encs], dtype=np.int64)
        return {layer: Representations(layer=layer, vectors=out[layer], offsets=offsets, kept=kept,
                                       dropped=dict(dropped)) for layer in layers}

    def _pool(self, dest: np.ndarray, states: list) -> tuple[np.ndarray, list[np.ndarray]]:
        """Pool subword states into word vectors for a whole batch at once.

        ``dest`` (batch, width) gives each subword's word row (-1 for none); ``states`` are
        the selected layers' hidden states, each (batch, width, hidden). Returns the word rows
        and, per layer, their vectors (n_rows, hidden) in float32.
        """
        import torch

        flat = dest.reshape(-1)
        valid = np.flatnonzero(flat >= 0)
        word_rows = flat[valid]
        stacked = torch.stack([s.reshape(-1, s.shape[-1]) for s in states])  # (L, B*W, d)
        if self.pooling == "first":
            # the first subword of a word is the first occurrence of its row in reading order
            rows, first = np.unique(word_rows, return_index=True)
            picked = stacked[:, torch.from_numpy(valid[first]).to(stacked.device)]
            return rows, list(picked.float().cpu().numpy())
        rows, inverse = np.unique(word_rows, return_inverse=True)
        inv = torch.from_numpy(inverse).to(stacked.device)
        src = stacked[:, torch.from_numpy(valid).to(stacked.device)].float()
        sums = torch.zeros((stacked.shape[0], len(rows), stacked.shape[-1]), device=stacked.device)
        sums.index_add_(1, inv, src)
        counts = torch.bincount(inv, minlength=len(rows)).clamp(min=1).to(sums.dtype)
        return rows, list((sums / counts[None, :, None]).cpu().numpy())

    def position_embeddings(self, n: int) -> np.ndarray:
        """The model's absolute position embeddings for positions ``0..n-1``, shape (n, d).

        Used by the Fast+Pos baseline (Hall Maudslay & Cotterell, 2021, §5.1).

        Raises
        ------
        ModelError
            If the model has no absolute position embedding table.
        """
        model = self.model
        table = None
        for path in ("embeddings.position_embeddings", "wpe", "embed_positions"):
            obj = model
            for part in path.split("."):
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            if obj is not None and hasattr(obj, "weight"):
                table = obj.weight
                break
        if table is None:
            raise ModelError(f"{self.model_id!r} has no absolute position embeddings for Fast+Pos")
        if n > table.shape[0]:
            raise ModelError(f"{self.model_id!r} has {table.shape[0]} positions, {n} needed")
        return table[:n].detach().float().cpu().numpy()
