"""Language models as services: causal-LM perplexity and masked-LM word predictions.

LIT (Li et al., 2020, §3.3) generates several surface strings for one transformed meaning and
keeps the one a language model finds most fluent, and the parser attack of Wang et al. (2021,
§2.3) rejects substitutions that raise the perplexity too much: :class:`CausalLMScorer` wraps any
``AutoModelForCausalLM`` (default ``gpt2``). The same attack draws substitutes from a masked LM:
:class:`MaskedLMFiller` wraps any ``AutoModelForMaskedLM`` (default ``bert-base-uncased``). Both
batch and cache their queries and run on the GPU when one is present.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from robust_bench.models.loader import PredictionCache, length_sorted_batches, load_pretrained

__all__ = ["DEFAULT_LM", "DEFAULT_MLM", "CausalLMScorer", "FirstCandidate", "MaskedLMFiller"]

DEFAULT_LM = "gpt2"
DEFAULT_MLM = "bert-base-uncased"


def _require_causal_lm(model: str, architectures) -> None:
    """A model whose config.json names its architectures must name a causal LM (``*ForCausalLM``,
    ``*LMHeadModel``): ``AutoModelForCausalLM`` would otherwise put a fresh, untrained LM head on an
    encoder or a classifier and rank surfaces by noise.

    Raises
    ------
    robust_bench.models.loader.ModelError
        Naming the model, its config.json and the ``architectures`` field.
    """
    from robust_bench.models.loader import ModelError

    from robust_bench.models.resolve import _is_causal_lm

    arch = list(architectures or [])
    if arch and not _is_causal_lm(arch):
        raise ModelError(f"{model!r} is not a causal LM: config.json field 'architectures' is {arch}; the LIT "
                         "surface choice and the perplexity filter need an *ForCausalLM model (for example gpt2)")


class CausalLMScorer:
    """Sentence perplexity under a causal LM.

    Perplexity is ``exp`` of the mean negative log-likelihood (nats) of the sentence's tokens,
    each predicted from the ones before; the BOS token (or EOS, as in GPT-2) is prepended so the
    first token is scored too.

    Parameters
    ----------
    model : str
        ``AutoModelForCausalLM`` Hub id or local path.
    revision : str, optional
    device : str
        ``auto`` (cuda, then mps, then cpu), or a torch device string.
    dtype : str
        ``auto`` is bf16/fp16 on GPU and fp32 on CPU; or a torch dtype name.
    batch_size : int
        Sentences per forward pass (sorted by length to limit padding).
    max_length : int
        Longer sentences are truncated to this many tokens.

    Attributes
    ----------
    n_forward : int
        Forward passes so far (cached sentences cost none).

    Raises
    ------
    robust_bench.models.loader.ModelError
        If the model cannot be loaded.
    """

    def __init__(self, model: str = DEFAULT_LM, *, revision: str | None = None, device: str = "auto",
                 dtype: str = "auto", batch_size: int = 32, max_length: int = 256):
        from transformers import AutoModelForCausalLM

        loaded = load_pretrained(AutoModelForCausalLM, model, revision=revision, device=device, dtype=dtype,
                                 kind="causal LM")
        _require_causal_lm(model, getattr(loaded.model.config, "architectures", None))
        self.model_id = model
        self.model, self.tokenizer, self.device = loaded.model, loaded.tokenizer, loaded.device
        self.bos = self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None \
            else self.tokenizer.eos_token_id
        self.pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else (self.bos or 0)
        self.batch_size = batch_size
        self.max_length = min(max_length, loaded.max_length) if loaded.max_length else max_length
        self.revision = loaded.revision
        self.n_forward = 0
        self._cache = PredictionCache()

    @property
    def queries(self) -> int:
        """Distinct sentences scored so far (cache hits cost none)."""
        return self._cache.queries

    def perplexity(self, sentences: Sequence[str]) -> np.ndarray:
        """Perplexity of each sentence.

        Parameters
        ----------
        sentences : sequence of str

        Returns
        -------
        ndarray of float of shape (n_sentences,)
            Values >= 1; lower is more fluent.
        """
        return np.array(self._cache.get_many(list(sentences), self._forward), dtype=np.float64)

    def _forward(self, todo: list[str]) -> list[float]:
        import torch

        ids = [self.tokenizer(s, add_special_tokens=False)["input_ids"][: self.max_length - 1] for s in todo]
        ids = [([self.bos] if self.bos is not None else []) + x for x in ids]
        out = [0.0] * len(todo)
        # batches of similar length; equal lengths in alphabetical order, so that a sentence's
        # batch (and with it the last bits of its perplexity) does not depend on query order
        alpha = sorted(range(len(todo)), key=lambda i: todo[i])
        with torch.inference_mode():
            for group in length_sorted_batches([len(ids[i]) for i in alpha], self.batch_size):
                idx = [alpha[j] for j in group]
                width = max(len(ids[i]) for i in idx)
                inp = torch.full((len(idx), width), self.pad, dtype=torch.long)
                mask = torch.zeros((len(idx), width), dtype=torch.long)
                for r, i in enumerate(idx):
                    inp[r, :len(ids[i])] = torch.tensor(ids[i])
                    mask[r, :len(ids[i])] = 1
                logits = self.model(input_ids=inp.to(self.device), attention_mask=mask.to(self.device)).logits
                self.n_forward += 1
                logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
                target = inp[:, 1:].to(self.device)
                nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
                m = mask[:, 1:].to(self.device).float()
                mean = (nll * m).sum(1) / m.sum(1).clamp(min=1)
                for r, i in enumerate(idx):
                    out[i] = float(torch.exp(mean[r]).item())
        return out

    def choose(self, candidates: Sequence[Sequence[str]]) -> list[str | None]:
        """The lowest-perplexity candidate of each list (LIT §3.3); ``None`` for an empty list.

        All candidates of all lists are scored in one batched pass; a list with one candidate
        needs no LM query. Ties go to the earlier candidate.

        Parameters
        ----------
        candidates : sequence of sequence of str

        Returns
        -------
        list of (str or None) of length len(candidates)
        """
        need = [c for cands in candidates if len(cands) > 1 for c in cands]
        if need:
            self.perplexity(need)
        out: list[str | None] = []
        for cands in candidates:
            if not cands:
                out.append(None)
            elif len(cands) == 1:
                out.append(cands[0])
            else:
                scores = self.perplexity(cands)
                out.append(cands[int(np.argmin(scores))])
        return out


class FirstCandidate:
    """The deterministic surface preference of a LIT build without a causal LM: each list's first
    candidate, in the backend's documented order (the UD backend gives one surface per
    transformation, except an it-cleft of a person: *that* before *who*, but *who* first after *he*
    and *she*).

    It has :class:`CausalLMScorer`'s ``choose`` and attributes, so a build takes either; the
    paper's GPT-2 post-selection (Li et al. 2020, §3.3) is ``CausalLMScorer("gpt2")``.
    """

    model_id = None
    revision = None
    n_forward = 0
    queries = 0

    @staticmethod
    def choose(candidates: Sequence[Sequence[str]]) -> list[str | None]:
        """The first candidate of each list; ``None`` for an empty list.

        Parameters
        ----------
        candidates : sequence of sequence of str

        Returns
        -------
        list of (str or None) of length len(candidates)
        """
        return [c[0] if c else None for c in candidates]


class MaskedLMFiller:
    """The most probable single subwords for a masked word, under a masked LM.

    The word at the position is replaced by one mask token (Wang et al. 2021, DepAttacker
    ``adversary/lm/bert.py``: ``tmps[idx] = MASK``) and the rest of the sentence is kept.

    Parameters
    ----------
    model : str
        ``AutoModelForMaskedLM`` Hub id or local path.
    revision, device, dtype : str, optional
        As :func:`robust_bench.models.loader.load_pretrained`.
    batch_size : int
        Masked sentences per forward pass.
    top_k : int
        Vocabulary entries returned per query (DepAttacker cuts the logits to the top 100).

    Attributes
    ----------
    n_forward : int
        Forward passes so far.

    Raises
    ------
    robust_bench.models.loader.ModelError
        If the model cannot be loaded or its tokenizer has no mask token.
    """

    def __init__(self, model: str = DEFAULT_MLM, *, revision: str | None = None, device: str = "auto",
                 dtype: str = "auto", batch_size: int = 64, top_k: int = 100):
        from transformers import AutoModelForMaskedLM

        from robust_bench.models.loader import ModelError

        loaded = load_pretrained(AutoModelForMaskedLM, model, revision=revision, device=device, dtype=dtype,
                                 kind="masked LM")
        self.model_id = model
        self.model, self.tokenizer, self.device = loaded.model, loaded.tokenizer, loaded.device
        if self.tokenizer.mask_token is None:
            raise ModelError(f"{model!r} has no mask token; a masked LM is needed")
        self.revision = loaded.revision
        self.batch_size = batch_size
        self.top_k = top_k
        self.max_length = loaded.max_length or 512
        self.n_forward = 0
        self._cache = PredictionCache()
        self._vocab = self.tokenizer.convert_ids_to_tokens(list(range(len(self.tokenizer))))

    @property
    def queries(self) -> int:
        """Distinct masked sentences scored so far."""
        return self._cache.queries

    def predict(self, queries: Sequence[tuple[Sequence[str], int]]) -> list[tuple[list[str], np.ndarray]]:
        """The ``top_k`` vocabulary entries for the masked word of each query.

        Parameters
        ----------
        queries : sequence of (words, position)
            A pre-split sentence and the 0-based index of the word to mask.

        Returns
        -------
        list of (tokens, probabilities)
            Per query, ``top_k`` vocabulary strings (WordPiece continuations keep their ``##``)
            and their probabilities, an ndarray of float of shape (top_k,), in descending order.

        Raises
        ------
        IndexError
            If a position lies outside its sentence.
        """
        keys = []
        for words, pos in queries:
            if not 0 <= pos < len(words):
                raise IndexError(f"position {pos} outside a sentence of {len(words)} words")
            keys.append((tuple(words), int(pos)))
        return self._cache.get_many(keys, self._forward)

    def _forward(self, todo):
        import torch

        mask = self.tokenizer.mask_token
        texts = [" ".join(list(w[:p]) + [mask] + list(w[p + 1:])) for w, p in todo]
        out: list = [None] * len(todo)
        ids = self.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=self.max_length)["input_ids"]
        with torch.inference_mode():
            for group in length_sorted_batches([len(x) for x in ids], self.batch_size):
                width = max(len(ids[i]) for i in group)
                inp = torch.full((len(group), width), self.tokenizer.pad_token_id or 0, dtype=torch.long)
                att = torch.zeros((len(group), width), dtype=torch.long)
                for r, i in enumerate(group):
                    inp[r, :len(ids[i])] = torch.tensor(ids[i])
                    att[r, :len(ids[i])] = 1
                logits = self.model(input_ids=inp.to(self.device), attention_mask=att.to(self.device)).logits
                self.n_forward += 1
                for r, i in enumerate(group):
                    where = (inp[r] == self.tokenizer.mask_token_id).nonzero()
                    if not len(where):      # the mask fell beyond the length limit
                        out[i] = ([], np.zeros(0))
                        continue
                    probs = torch.softmax(logits[r, int(where[0])].float(), dim=-1)
                    p, idx = probs.topk(min(self.top_k, probs.shape[-1]))
                    out[i] = ([self._vocab[j] for j in idx.tolist()], p.cpu().numpy().astype(np.float64))
        return out
