"""Causal and instruction-tuned LMs as classifiers: label scoring with lm-evaluation-harness's backends.

An LLM classifies a row as lm-evaluation-harness scores a ``multiple_choice`` task (Gao et al.,
*lm-evaluation-harness*, ``api/task.py`` and ``api/metrics.py``):

* the row is rendered by a Jinja prompt (``doc_to_text``) into a context; each label has a
  verbaliser (``doc_to_choice``), scored as the continuation ``target_delimiter + verbaliser``;
* the label probabilities are the softmax over the verbalisers' summed log-likelihoods (``acc``),
  or over the log-likelihoods divided by the verbalisers' lengths in characters (``acc_norm``);
* the default prompts and verbalisers are lm-eval's own GLUE tasks (``tasks/glue/{mnli,mrpc,qnli,
  sst2}``), so the scores of the original rows are comparable with an ``lm_eval`` run; SNLI takes
  MNLI's. A suite task overrides them with ``options: {prompt: {template, choices}}``;
* k-shot demonstrations are drawn once per task with the run's seed from the config's ``train``
  split, and every query of the task sees the same ones (an attack's perturbed input then differs
  from its clean input in nothing else);
* ``chat_template``: the context is the user turn of the model's chat template with the generation
  prompt added, and the target delimiter is empty, as lm-eval does (``--apply-chat-template``);
* ``scoring="generate"``, for endpoints that return no log-probabilities: the model generates an
  answer greedily (at most 16 tokens, up to a newline) and the first verbaliser it begins with, case
  folded, is the label; an answer that begins with none is a parse failure, counted in
  :attr:`LLMClassifier.n_parse_failures` and scored as a uniform distribution.

The models are lm-eval's: :class:`lm_eval.models.huggingface.HFLM` (``hf``),
:class:`lm_eval.models.vllm_causallms.VLLM` (``vllm``) and
:class:`lm_eval.models.openai_completions.LocalCompletionsAPI` / ``LocalChatCompletion``
(``openai-compatible``), which load the weights, reach the server and generate. Log-likelihoods
come from lm-eval's ``loglikelihood`` on ``vllm`` and servers; on ``hf`` they come from
:func:`hf_loglikelihoods`, which scores the same token sequences as ``HFLM`` (lm-eval's
context/continuation split and truncation; a test holds it to an ``lm_eval`` run within 1e-4) with
less work per request: batched tokenisation, one forward pass per distinct input, and logits only
at the positions scored. :class:`LLMClassifier` is a
:class:`~robust_bench.models.classifiers.Classifier`: every distinct input goes to the model once,
and the attacks and name swaps query it as any classifier.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from robust_bench.models.classifiers import Classifier, Input
from robust_bench.models.loader import ModelError

__all__ = ["BACKENDS", "LLMError", "Prompt", "GLUE_PROMPTS", "task_prompt", "LLMSettings", "LLMBackend",
           "LLMClassifier", "hf_loglikelihoods", "parse_llm_spec", "probe_server", "draw_shots", "source_task",
           "prompt_hash", "chat_template_warning", "DEFAULT_TEMPLATE", "prompt_variants", "dequantize_gguf"]

#: backend name -> what it runs
BACKENDS = {"hf": "transformers, in this process (lm-eval HFLM)",
            "vllm": "vLLM, in this process (lm-eval VLLM; pip install 'robust-bench[vllm]')",
            "openai-compatible": "an OpenAI-compatible server's /v1/completions or /v1/chat/completions "
                                 "(lm-eval local-completions / local-chat-completions; pip install 'robust-bench[api]')"}

#: seconds to wait for a server before the run is refused
SERVER_TIMEOUT = 10


class LLMError(ModelError, ValueError):
    """An LLM spec, prompt, verbaliser or server cannot be used; the message names the option or field."""


_MNLI = ("{{premise}}\nQuestion: {{hypothesis.strip() ~ ('' if hypothesis.strip().endswith('.') else '.')}}"
         " True, False or Neither?\nAnswer:")

#: lm-eval's GLUE prompts (tasks/glue/*/default.yaml; MNLI's utils.doc_to_text written in Jinja):
#: source task -> (fields, doc_to_text, verbaliser per label name)
GLUE_PROMPTS: dict[str, tuple[tuple[str, ...], str, dict[str, str]]] = {
    "mnli": (("premise", "hypothesis"), _MNLI, {"entailment": "True", "neutral": "Neither", "contradiction": "False"}),
    "snli": (("premise", "hypothesis"), _MNLI, {"entailment": "True", "neutral": "Neither", "contradiction": "False"}),
    "mrpc": (("sentence1", "sentence2"),
             "Sentence 1: {{sentence1}}\nSentence 2: {{sentence2}}\nQuestion: Do both sentences mean the same thing?"
             "\nAnswer:", {"not_equivalent": "no", "equivalent": "yes"}),
    "qnli": (("question", "sentence"),
             "{{question}}\n{{sentence}}\nQuestion: Does this response answer the question?\nAnswer:",
             {"entailment": "yes", "not_entailment": "no"}),
    "sst2": (("sentence",), "{{sentence}}\nQuestion: Is this sentence positive or negative?\nAnswer:",
             {"negative": "negative", "positive": "positive"}),
}


@functools.lru_cache(maxsize=64)
def _compiled(template: str):
    """The Jinja template, compiled once per process (StrictUndefined: an unknown variable is an error)."""
    import jinja2

    return jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True).from_string(template)


@dataclass(frozen=True)
class Prompt:
    """How a row becomes a context and each label a continuation (lm-eval ``multiple_choice``).

    Attributes
    ----------
    source : str
        Where it comes from: ``lm-eval:glue/mnli`` or ``suite``.
    fields : tuple of str
        The row's text fields, in the order the classifier's inputs hold them.
    template : str
        Jinja ``doc_to_text`` over ``fields``.
    verbalisers : tuple of str
        One per label, in the dataset's label order (``doc_to_choice``).
    target_delimiter, fewshot_delimiter : str
        lm-eval's defaults, ``" "`` and ``"\\n\\n"``.
    detokenize : bool
        The row's texts are Penn-Treebank-tokenised and the template sees them detokenised
        (:func:`robust_bench.text.detokenize.detokenize`): "Later, Tom may have testified before the chair."
        for "Later , Tom may have testified before the chair .".
    """

    source: str
    fields: tuple[str, ...]
    template: str
    verbalisers: tuple[str, ...]
    target_delimiter: str = " "
    fewshot_delimiter: str = "\n\n"
    detokenize: bool = False

    @property
    def sha256(self) -> str:
        """SHA-256 of the prompt's template, verbalisers, fields and delimiters, and of its detokenisation where
        it detokenises (records name the prompt by it)."""
        parts = [self.fields, self.template, self.verbalisers, self.target_delimiter, self.fewshot_delimiter]
        if self.detokenize:
            parts.append("detokenize")
        blob = json.dumps(parts, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def doc(self, x: Input) -> dict[str, str]:
        """The row's fields as the template sees them.

        Raises
        ------
        LLMError
            If the input has another number of texts than the prompt has fields.
        """
        texts = (x,) if isinstance(x, str) else tuple(x)
        if len(texts) != len(self.fields):
            raise LLMError(f"prompt {self.source}: the input has {len(texts)} texts, the prompt's fields are "
                           f"{list(self.fields)}")
        if self.detokenize:
            from robust_bench.text.detokenize import detokenize

            texts = tuple(detokenize(t) for t in texts)
        return dict(zip(self.fields, texts))

    def render(self, doc: Mapping[str, Any]) -> str:
        """``doc_to_text``.

        Raises
        ------
        LLMError
            Naming the template variable the row does not have.
        """
        import jinja2

        try:
            return _compiled(self.template).render(**doc)
        except jinja2.UndefinedError as exc:
            raise LLMError(f"prompt {self.source}: option 'prompt.template' uses a variable the rows do not have "
                           f"({exc.message}); the variables are {sorted(doc)}") from None
        except jinja2.TemplateError as exc:
            raise LLMError(f"prompt {self.source}: option 'prompt.template' is not a valid Jinja template: {exc}") from None


#: what in a model's name marks an instruct or chat variant (lm-eval's ``_NEEDS_CHAT_TEMPLATE``)
_CHAT_MARKS = ("inst", "chat")


def dequantize_gguf(path: str | Path, out: str | Path) -> Path:
    """Save a GGUF causal LM (llama.cpp's format) as the transformers folder ``out``, dequantized as
    transformers loads it (``from_pretrained(gguf_file=...)``), with its tokenizer and chat template: a folder
    that loads in seconds, where the GGUF file takes a minute to dequantize on every load.

    Raises
    ------
    OSError, ValueError
        From transformers, for a file that is not a GGUF causal LM.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path, out = Path(path), Path(out)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name)
    model.hf_quantizer, model.is_quantized = None, False        # the weights are plain tensors now
    model.config.__dict__.pop("quantization_config", None)     # else transformers refuses to save, and loads it as GGUF
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name).save_pretrained(out)
    return out


def chat_template_warning(model: str, settings: LLMSettings) -> str | None:
    """The warning lm-eval gives when a model whose name marks an instruct or chat variant is asked
    without its chat template (such a model was tuned on its template; a plain prompt scores something
    else), or None."""
    if settings.apply_chat_template or not any(m in model.lower() for m in _CHAT_MARKS):
        return None
    return (f"{model} appears to be an instruct or chat variant but is asked without its chat template; "
            "pass --apply-chat-template (optionally --system-instruction) to ask it as it was tuned")


def prompt_hash(context: Any) -> str:
    """SHA-256 of a rendered context as lm-eval's ``--log_samples`` hashes its prompt (``hash_string``: the
    UTF-8 text; for a chat endpoint, the JSON of its messages that lm-eval's ``JsonChatStr`` holds), or the
    canonical JSON of any other context."""
    text = context if isinstance(context, str) else getattr(context, "prompt", None)   # lm-eval's JsonChatStr
    if not isinstance(text, str):
        text = json.dumps(context, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source_task(config: str) -> str | None:
    """The GLUE-style task a config's rows come from (``gec_mnli`` -> ``mnli``), or None."""
    tail = config.rsplit("_", 1)[-1]
    return tail if tail in GLUE_PROMPTS else None


def task_prompt(config: str, labels: Sequence[str], options: Mapping[str, Any] | None = None, *,
                tokenised: bool = False) -> Prompt:
    """The prompt of a task: lm-eval's GLUE prompt of its source, or the suite's override.

    Parameters
    ----------
    config : str
        The built config (``gec_mnli``, ``names_mrpc``, ``lit_snli`` ...).
    labels : sequence of str
        The dataset's label names, in ClassLabel order.
    options : mapping, optional
        The task's options; ``prompt: {template: JINJA, choices: {LABEL: VERBALISER} or [..], fields: [...],
        detokenize: BOOL}`` replaces any part of the default (``fields`` is needed only for a config without
        a default).
    tokenised : bool
        The config's source text is Penn-Treebank-tokenised
        (:func:`robust_bench.data.registry.text_is_tokenised`): the prompt detokenises it unless the options
        say ``detokenize: false``.

    Raises
    ------
    LLMError
        If the config has no default prompt and the options give none, the choices do not cover the
        labels, or a verbaliser is empty.
    """
    src = source_task(config)
    over = dict((options or {}).get("prompt") or {})
    unknown = sorted(set(over) - {"template", "choices", "fields", "target_delimiter", "fewshot_delimiter", "detokenize"})
    if unknown:
        raise LLMError(f"task option 'prompt' has unknown keys {unknown}; known: template, choices, fields, "
                       "target_delimiter, fewshot_delimiter, detokenize")
    detok = over.get("detokenize", tokenised)
    if not isinstance(detok, bool):
        raise LLMError(f"option 'prompt.detokenize' is true or false, not {detok!r}")
    fields, template, choices = GLUE_PROMPTS[src] if src else ((), None, {})
    fields = tuple(over.get("fields", fields))
    template = over.get("template", template)
    choices = over.get("choices", choices)
    if not template or not fields:
        raise LLMError(f"config {config!r} has no default LLM prompt (defaults: {', '.join(GLUE_PROMPTS)}); give "
                       "options: {prompt: {template: ..., choices: ..., fields: [...]}} in the suite")
    if isinstance(choices, (list, tuple)):
        if len(choices) != len(labels):
            raise LLMError(f"option 'prompt.choices' has {len(choices)} verbalisers for {len(labels)} labels {list(labels)}")
        choices = dict(zip(labels, choices))
    missing = [l for l in labels if l not in choices]
    if missing:
        raise LLMError(f"option 'prompt.choices' has no verbaliser for labels {missing}")
    verbalisers = tuple(str(choices[l]) for l in labels)
    empty = [l for l, v in zip(labels, verbalisers) if not v.strip()]
    if empty:
        raise LLMError(f"option 'prompt.choices': the verbaliser of {empty} is empty")
    if len(set(verbalisers)) != len(verbalisers):
        raise LLMError(f"option 'prompt.choices': two labels share a verbaliser ({list(verbalisers)})")
    return Prompt("suite" if set(over) - {"detokenize"} else f"lm-eval:glue/{src}", fields, template, verbalisers,
                  over.get("target_delimiter", " "), over.get("fewshot_delimiter", "\n\n"), detok)


#: the name of lm-eval's own prompt among a task's templates (``run --prompts all``): always the first
DEFAULT_TEMPLATE = "lm_eval"


def prompt_variants(config: str, options: Mapping[str, Any] | None, suite_prompts: Mapping[str, Sequence[Mapping]]
                    ) -> list[tuple[str, dict]]:
    """The prompt templates ``run --prompts all`` scores a task under: lm-eval's (or the task's own
    override, named :data:`DEFAULT_TEMPLATE`), then the suite's paraphrases of its source task
    (``Suite.prompts``; SNLI takes MNLI's where the suite gives none), each as the task's ``prompt`` option.

    Written once per source task and kept in the suite, so that runs of one suite version are asked the
    same templates and the gate compares like with like. The anchors: Sclar et al. (2024), "Quantifying
    Language Models' Sensitivity to Spurious Features in Prompt Design" (FormatSpread: the spread of a
    metric over plausible prompt formats); NVIDIA's SCORE (prompt paraphrases inside lm-eval).

    Returns
    -------
    list of (str, dict)
        ``(name, prompt option)``; one item when the suite has no paraphrase for the task's source.
    """
    base = dict((options or {}).get("prompt") or {})
    src = source_task(config)
    variants = suite_prompts.get(src) or (suite_prompts.get("mnli") if src == "snli" else None) or ()
    out = [(DEFAULT_TEMPLATE, base)]
    for v in variants:
        out.append((v["name"], {**base, "template": v["template"], "choices": list(v["choices"])}))
    return out


@dataclass(frozen=True)
class LLMSettings:
    """How an LLM is asked (``robust-bench run`` options).

    Attributes
    ----------
    num_fewshot : int, >= 0
        Demonstrations per query (``--num-fewshot``), from the config's ``train`` split.
    apply_chat_template : bool
        ``--apply-chat-template``.
    scoring : {"loglikelihood", "generate"}
        ``--scoring``: label log-likelihoods, or generation plus answer parsing.
    normalization : {"none", "length"}
        ``acc`` or ``acc_norm`` (lm-eval): log-likelihoods as they are, or per character of the verbaliser.
    system_instruction : str, optional
        ``--system-instruction`` (lm-eval's ``--system_instruction``): with the chat template, the system
        message (replacing the template's default system prompt, which it inserts when none is given); in a
        plain prompt, text put before everything else, demonstrations included, as lm-eval puts it. None:
        no system message of ours.
    """

    num_fewshot: int = 0
    apply_chat_template: bool = False
    scoring: str = "loglikelihood"
    normalization: str = "none"
    system_instruction: str | None = None

    def __post_init__(self):
        if self.num_fewshot < 0:
            raise LLMError(f"--num-fewshot must be >= 0, got {self.num_fewshot}")
        if self.scoring not in ("loglikelihood", "generate"):
            raise LLMError(f"--scoring must be loglikelihood or generate, got {self.scoring!r}")
        if self.normalization not in ("none", "length"):
            raise LLMError(f"normalization must be none (acc) or length (acc_norm), got {self.normalization!r}")
        if self.system_instruction is not None and not self.system_instruction.strip():
            raise LLMError("--system-instruction is empty; give the text, or leave the option out")

    def as_dict(self) -> dict:
        """The settings as ``run.json`` records them (``system_instruction`` only where one is given)."""
        out = {"num_fewshot": self.num_fewshot, "apply_chat_template": self.apply_chat_template,
               "scoring": self.scoring, "normalization": self.normalization}
        if self.system_instruction is not None:
            out["system_instruction"] = self.system_instruction
        return out


_SERVER = re.compile(r"^(https?://[^/:\s]+(?::\d+)?(?:/[^:\s]*)?):(.+)$")


def parse_llm_spec(spec: str) -> tuple[str, str, str | None]:
    """``hf:ID``, ``vllm:ID`` or ``openai-compatible:URL:MODEL`` -> (backend, model, base URL or None).

    Raises
    ------
    LLMError
        If the backend is unknown, or a server spec has no http(s) URL and model name.
    """
    backend, _, rest = spec.partition(":")
    if backend not in BACKENDS:
        raise LLMError(f"unknown LLM backend {backend!r} in {spec!r}; known: {', '.join(BACKENDS)}")
    if not rest:
        raise LLMError(f"{spec!r}: say which model, {backend}:MODEL")
    if backend != "openai-compatible":
        return backend, rest, None
    m = _SERVER.match(rest)
    if not m:
        raise LLMError(f"{spec!r}: expected openai-compatible:URL:MODEL, e.g. "
                       "openai-compatible:http://127.0.0.1:8000/v1:Qwen/Qwen2.5-0.5B-Instruct")
    return backend, m.group(2), m.group(1).rstrip("/")


def _post(url: str, payload: dict, timeout: float) -> dict:
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read().decode("utf-8"))


def probe_server(base_url: str, model: str, *, logprobs: bool, timeout: float = SERVER_TIMEOUT) -> None:
    """Ask the server one tiny completion before a run starts.

    Parameters
    ----------
    base_url : str
        ``http://HOST:PORT/v1``.
    model : str
    logprobs : bool
        Whether the run needs ``echo`` with ``logprobs`` from ``/completions`` (log-likelihood scoring).
    timeout : float, seconds

    Raises
    ------
    LLMError
        If the server does not answer within ``timeout`` seconds, answers with an error, or returns no
        prompt log-probabilities when they are needed.
    """
    url = f"{base_url}/completions"
    payload = {"model": model, "prompt": "Hello world", "max_tokens": 1, "temperature": 0}
    if logprobs:
        payload.update(echo=True, logprobs=1)
    try:
        out = _post(url, payload, timeout)
    except urllib.error.HTTPError as exc:
        body = exc.read().decode("utf-8", "replace")[:300]
        raise LLMError(f"--model: the server at {url} answered HTTP {exc.code}: {body}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise LLMError(f"--model: no answer from {url} within {timeout:g} s ({reason}); is the server running?") from None
    except ValueError:
        raise LLMError(f"--model: {url} did not answer with JSON; is it an OpenAI-compatible server?") from None
    if not logprobs:
        return
    try:
        lp = out["choices"][0]["logprobs"]["token_logprobs"]
        ok = isinstance(lp, list) and len(lp) > 1
    except (KeyError, IndexError, TypeError):
        ok = False
    if not ok:
        raise LLMError(f"--model: the server at {url} returned no prompt log-probabilities (echo=true, logprobs=1), "
                       "which log-likelihood scoring needs; use --scoring generate (answer parsing), or a server "
                       "that returns them (vLLM, SGLang)")


def hf_loglikelihoods(lm, requests: Sequence[tuple[str, str]], batch_size: int,
                      truncated: list[int] | None = None) -> list[float]:
    """Summed log-likelihoods (nats) of ``requests`` under an lm-eval ``HFLM``'s causal model, the
    numbers ``HFLM.loglikelihood`` gives, computed with less work per request.

    The token sequences are lm-eval's own (``api/model.py``, ``loglikelihood`` and ``_encode_pair``;
    ``models/huggingface.py``, ``_loglikelihood_tokens``): the context's trailing spaces move to the
    continuation; the context is encoded alone and ``context + continuation`` whole, and the
    continuation's tokens are the whole encoding past the context's length; an empty context is the
    prefix token; the input is ``(context + continuation)[-(max_length + 1):][:-1]``, right-padded,
    length-sorted in batches of ``batch_size``, with no attention mask. What differs is how the work
    is done:

    * the strings are encoded in batches by the fast tokenizer, each distinct context once (lm-eval
      calls the tokenizer twice per request);
    * identical inputs (the one-token verbalisers of one context) go through the model once;
    * the model computes logits only from the batch's first scored position on (``logits_to_keep``,
      where the model's ``forward`` takes it), and the log-softmax is taken at the scored positions only;
    * the indices are built before the first forward pass and the sums stay on the device, so that a
      GPU is not waited for between batches (one transfer at the end).

    Two numbers differ from lm-eval's defaults, both towards the exact value: the log-softmax is taken
    in float32 (lm-eval takes it in the model's dtype unless ``softmax_dtype=float32``; with bf16
    weights the two differ by up to a few hundredths of a nat), and requests that share an input but
    not a continuation length are each scored at their own positions (lm-eval's one-token logits cache,
    ``logits_cache=True``, scores the shorter one at the longer one's first positions; with
    ``logits_cache=False`` the two agree). Neither occurs with fp32 weights and one-token or
    equal-length verbalisers.

    Parameters
    ----------
    lm : lm_eval.models.huggingface.HFLM
        With ``backend="causal"``.
    requests : sequence of (context, continuation)
        Continuations must not be empty.
    batch_size : int
        Sequences per forward pass.
    truncated : list, optional
        Receives the indices of the requests whose context was cut from the left to fit the model's
        ``max_length`` (lm-eval cuts them too, with a warning).

    Returns
    -------
    list of float
        One per request, in order; each <= 0.

    Raises
    ------
    LLMError
        If a request encodes to no tokens of context or of continuation, or its continuation alone is
        longer than the model's ``max_length``.
    """
    import inspect

    import torch

    tok, model = lm.tokenizer, lm.model
    distinct, plan = _encoded_requests(lm, tok, requests, truncated)
    device = lm.device
    batches = _scored_batches(distinct, plan, batch_size, device)

    keep = "logits_to_keep" in inspect.signature(model.forward).parameters
    sums = torch.zeros(len(requests), dtype=torch.float32, device=device)
    with torch.inference_mode():
        for start, width, ids, index in batches:
            ids, index = ids.to(device, non_blocking=True), index.to(device, non_blocking=True)
            logits = model(ids, **({"logits_to_keep": width - start} if keep else {})).logits
            logits = logits[:, -(width - start):]
            if logits.shape[1] != width - start:
                raise LLMError(f"{type(model).__name__} gave logits for {logits.shape[1]} positions, "
                               f"not the {width - start} asked for")
            picked = logits[index[0], index[1]].float()                  # (tokens scored, vocab)
            lp = picked.gather(1, index[2, :, None])[:, 0] - torch.logsumexp(picked, dim=1)
            sums.index_add_(0, index[3], lp)
    return sums.cpu().tolist()


def _encoded_requests(lm, tok, requests: Sequence[tuple[str, str]], truncated: list[int] | None):
    """The requests as lm-eval encodes them (:func:`hf_loglikelihoods`): the distinct model inputs, and per
    request the index of its input and its continuation's tokens."""
    from lm_eval.models.utils import has_bos_prefix

    bos = tok.decode(lm.prefix_token_id)
    kwargs = {} if lm.add_bos_token is None else {"add_special_tokens": lm.add_bos_token}

    def encode(texts, bare: bool = False) -> dict[str, list[int]]:
        # HFLM.tok_encode, batched: special tokens as the model's settings say, none before a BOS already there
        out: dict[str, list[int]] = {}
        texts = list(dict.fromkeys(texts))
        plain = [] if bare else [t for t in texts if not has_bos_prefix(t, bos)]
        marked = texts if bare else [t for t in texts if has_bos_prefix(t, bos)]
        for group, kw in ((plain, kwargs), (marked, {"add_special_tokens": False})):
            if group:
                out.update(zip(group, tok(group, **kw)["input_ids"]))
        return out

    pairs = []
    for ctx, cont in requests:
        n_spaces = len(ctx) - len(ctx.rstrip())
        if ctx and n_spaces:
            ctx, cont = ctx[:-n_spaces], ctx[-n_spaces:] + cont
        pairs.append((ctx, cont))
    # lm-eval's TemplateLM.loglikelihood: an empty context is the prefix token, the continuation
    # encoded without special tokens (and its first token the context if that is the prefix token)
    lone = encode((k for c, k in requests if not c), bare=True)
    enc = encode(t for (c, k), (c0, _) in zip(pairs, requests) if c0 for t in (c, c + k))
    max_length = lm.max_length
    # each request: (distinct input's index, its continuation's tokens)
    inputs: dict[tuple[int, ...], int] = {}
    plan = []
    for (ctx, cont), (c0, k0) in zip(pairs, requests):
        if c0:
            ctx_enc = enc[ctx]
            cont_enc = enc[ctx + cont][len(ctx_enc):]
        else:
            cont_enc = lone[k0]
            ctx_enc, cont_enc = (([lm.prefix_token_id], cont_enc) if cont_enc[:1] != [lm.prefix_token_id]
                                 else (cont_enc[:1], cont_enc[1:]))
        if not cont_enc or not ctx_enc:
            raise LLMError(f"the request ({c0!r}, {k0!r}) encodes to no tokens of "
                           f"{'continuation' if not cont_enc else 'context'}")
        if len(cont_enc) > max_length:
            raise LLMError(f"the continuation {k0!r} is {len(cont_enc)} tokens, longer than the model's "
                           f"max_length ({max_length})")
        if truncated is not None and len(ctx_enc) + len(cont_enc) > max_length + 1:
            truncated.append(len(plan))
        seq = tuple((ctx_enc + cont_enc)[-(max_length + 1):][:-1])
        plan.append((inputs.setdefault(seq, len(inputs)), cont_enc))
    distinct = list(inputs)
    return distinct, plan


def _scored_batches(distinct: list[tuple[int, ...]], plan: list, batch_size: int, device) -> list:
    """The batches of :func:`hf_loglikelihoods`, built before the first forward pass: per batch the first
    position scored, the width, the padded ids and the index of each token scored."""
    import torch

    # the positions each input must score: as many as its longest continuation
    need = [0] * len(distinct)
    by_input: dict[int, list[int]] = {}
    for r, (i, cont_enc) in enumerate(plan):
        need[i] = max(need[i], len(cont_enc))
        by_input.setdefault(i, []).append(r)
    order = sorted(range(len(distinct)), key=lambda i: (-len(distinct[i]), distinct[i]))

    # every batch's tensors before the first forward pass: padded ids, the first position scored,
    # and (row, column from that position, target token, request) of each token scored
    gpu = torch.device(device).type == "cuda"
    batches = []
    for b in range(0, len(order), batch_size):
        chunk = order[b:b + batch_size]
        width = len(distinct[chunk[0]])
        start = min(len(distinct[i]) - need[i] for i in chunk)
        ids = np.zeros((len(chunk), width), dtype=np.int64)
        index: list[list[int]] = [[], [], [], []]
        for row, i in enumerate(chunk):
            ids[row, :len(distinct[i])] = distinct[i]
            end = len(distinct[i]) - start
            for r in by_input[i]:
                cont_enc = plan[r][1]
                n = len(cont_enc)
                index[0] += [row] * n
                index[1] += range(end - n, end)
                index[2] += cont_enc
                index[3] += [r] * n
        pair = (torch.from_numpy(ids), torch.tensor(index, dtype=torch.long))
        batches.append((start, width, *(t.pin_memory() if gpu else t for t in pair)))
    return batches


class LLMBackend:
    """One lm-eval model object and what robust-bench asks of it.

    Parameters
    ----------
    backend : {"hf", "vllm", "openai-compatible"}
    model : str
        Hub id or local folder (the server's model name for ``openai-compatible``; it also names the
        tokenizer lm-eval loads to split context from continuation).
    base_url : str, optional
        The server's ``/v1`` URL.
    revision, device, dtype : str
        ``hf`` and ``vllm`` only.
    gguf_file : str, optional
        A GGUF file in the folder or Hub repository ``model`` (``hf``: lm-eval's ``HFLM(gguf_file=...)``,
        dequantized by transformers; ``vllm``: the file is passed to vLLM).
    batch_size : int
    settings : LLMSettings

    Raises
    ------
    LLMError
        If lm-eval (or the backend's extra) is not installed, the model is not a causal LM, or the
        server cannot be reached or returns no log-probabilities.
    """

    def __init__(self, backend: str, model: str, *, base_url: str | None = None, revision: str | None = None,
                 device: str = "auto", dtype: str = "auto", batch_size: int = 16,
                 settings: LLMSettings = LLMSettings(), gguf_file: str | None = None):
        self.backend, self.model_id, self.base_url, self.settings = backend, model, base_url, settings
        self.gguf_file = gguf_file
        self.revision, self.batch_size = revision, batch_size
        #: whether prompts go to a server's /chat/completions (which applies the chat template itself)
        self.chat_endpoint = (backend == "openai-compatible" and settings.apply_chat_template
                              and settings.scoring == "generate")
        if backend == "openai-compatible":
            probe_server(base_url, model, logprobs=settings.scoring == "loglikelihood")
        self.lm = self._load(device, dtype, batch_size)
        #: what records name the weights by: the local folder's fingerprint, else the revision asked for
        self.fingerprint = revision
        if backend != "openai-compatible":
            from pathlib import Path

            from robust_bench.models.loader import model_revision

            from robust_bench.models.loader import gguf_revision

            if gguf_file and Path(model).expanduser().is_dir():
                self.fingerprint = gguf_revision(Path(model).expanduser() / gguf_file)
            elif Path(model).expanduser().is_dir():
                self.fingerprint = model_revision(model)

    def _load(self, device: str, dtype: str, batch_size: int):
        extra = {"hf": "llm", "vllm": "vllm", "openai-compatible": "api"}[self.backend]
        try:
            if self.backend == "hf":
                from lm_eval.models.huggingface import HFLM
            elif self.backend == "vllm":
                from lm_eval.models.vllm_causallms import VLLM
            else:
                from lm_eval.models.openai_completions import LocalChatCompletion, LocalCompletionsAPI
        except ImportError as exc:
            raise LLMError(f"the {self.backend} backend needs lm-eval and its {self.backend} extra: "
                           f"pip install 'robust-bench[{extra}]' ({exc})") from None
        if self.backend == "hf":
            from robust_bench.models.loader import resolve_device, resolve_dtype

            dev = resolve_device(device)
            if self.gguf_file:
                try:
                    import gguf  # noqa: F401 - transformers reads GGUF files through it
                except ImportError:
                    raise LLMError(f"{self.gguf_file}: GGUF files need the gguf package: pip install "
                                   "'robust-bench[llm]'") from None
            return HFLM(pretrained=self.model_id, backend="causal", revision=self.revision or "main", device=dev,
                        dtype=str(resolve_dtype(dev, dtype)).removeprefix("torch."), batch_size=batch_size,
                        max_batch_size=batch_size, gguf_file=self.gguf_file)
        if self.backend == "vllm":
            # vLLM loads a GGUF file given as the model itself
            model = f"{self.model_id}/{self.gguf_file}" if self.gguf_file else self.model_id
            return VLLM(pretrained=model, revision=self.revision, dtype=dtype, batch_size="auto")
        generate = self.settings.scoring == "generate"
        # log-likelihoods come from /completions only (the chat template is then applied here, with the
        # model's tokenizer); generation with the chat template goes to /chat/completions
        chat = self.chat_endpoint
        cls = LocalChatCompletion if chat else LocalCompletionsAPI
        url = f"{self.base_url}/{'chat/completions' if chat else 'completions'}"
        # prompts as text (every server takes a string; not all take token ids), one per request when
        # generating (servers such as `transformers serve` take no list of prompts)
        args = dict(base_url=url, model=self.model_id, num_concurrent=1, max_retries=2, timeout=60,
                    batch_size=1 if generate else batch_size, tokenized_requests=False)
        if not chat:
            args.update(tokenizer_backend="huggingface", tokenizer=self.model_id)
        return cls(**args)

    def chat(self, text: str, system: str | None = None) -> str | Any:
        """``text`` as the user turn of the chat template (after a system message ``system``, if given),
        with the generation prompt: rendered by the backend (a chat endpoint takes the messages), or, for
        a server's /completions, by the model's own tokenizer here.

        Raises
        ------
        LLMError
            If the tokenizer has no chat template.
        """
        turn = ([{"role": "system", "content": system}] if system is not None else []) + [{"role": "user", "content": text}]
        if self.chat_endpoint:
            return self.lm.apply_chat_template(turn, add_generation_prompt=True)
        tok = self.lm.tokenizer
        if not getattr(tok, "chat_template", None):
            raise LLMError(f"--apply-chat-template: the tokenizer of {self.model_id} has no chat template")
        if self.backend == "openai-compatible":
            import jinja2

            try:
                return tok.apply_chat_template(turn, tokenize=False, add_generation_prompt=True)
            except jinja2.TemplateError as exc:
                raise LLMError(f"--apply-chat-template: the chat template of {self.model_id} cannot render these "
                               f"messages ({exc})") from None
        return self.lm.apply_chat_template(turn, add_generation_prompt=True)

    def loglikelihood(self, requests: Sequence[tuple[str, str]], truncated: list[int] | None = None) -> list[float]:
        """Summed log-likelihood (nats) of each continuation given its context, one per request
        (:func:`hf_loglikelihoods` on ``hf``, lm-eval's ``loglikelihood`` otherwise). ``truncated``
        receives the indices of requests cut to the model's length (``hf`` only)."""
        if self.backend == "hf":
            return hf_loglikelihoods(self.lm, requests, self.batch_size, truncated)
        from lm_eval.api.instance import Instance

        inst = [Instance(request_type="loglikelihood", doc={}, arguments=(c, k), idx=i)
                for i, (c, k) in enumerate(requests)]
        try:
            out = self.lm.loglikelihood(inst, disable_tqdm=True)
        except (KeyError, TypeError) as exc:
            if self.backend == "openai-compatible":
                raise LLMError(f"--model: the server at {self.base_url} returned no prompt log-probabilities "
                               f"({type(exc).__name__}: {exc}); use --scoring generate") from None
            raise
        return [float(ll) for ll, _ in out]

    def generate(self, contexts: Sequence[Any], max_gen_toks: int = 16) -> list[str]:
        """Greedy answers, cut at the first newline."""
        from lm_eval.api.instance import Instance

        gen = {"until": ["\n"], "max_gen_toks": max_gen_toks, "do_sample": False, "temperature": 0}
        inst = [Instance(request_type="generate_until", doc={}, arguments=(c, dict(gen)), idx=i)
                for i, c in enumerate(contexts)]
        return [str(x) for x in self.lm.generate_until(inst, disable_tqdm=True)]

    def n_tokens(self, text: str) -> int | None:
        """Tokens of ``text`` (None where the backend has no tokenizer here)."""
        try:
            return len(self.lm.tok_encode(text))
        except Exception:  # noqa: BLE001 - a chat endpoint without a local tokenizer
            return None

    def describe(self) -> dict:
        """What records say of the backend."""
        return {"backend": self.backend, "model": self.model_id, **({"base_url": self.base_url} if self.base_url else {})}


class LLMClassifier(Classifier):
    """A causal LM as a :class:`~robust_bench.models.classifiers.Classifier` (see the module docstring).

    Parameters
    ----------
    backend : LLMBackend
    labels : sequence of str
        The dataset's label names, in ClassLabel order.
    prompt : Prompt
    settings : LLMSettings
    shots : sequence of (input, label index), optional
        The k-shot demonstrations (``settings.num_fewshot`` of them), the same for every query.

    Attributes
    ----------
    n_parse_failures : int
        Distinct inputs whose generated answer began with no verbaliser (``scoring="generate"``).
    n_truncated : int
        Distinct inputs whose context was cut from the left to fit the model (``hf`` backend).

    Raises
    ------
    LLMError
        If a verbaliser tokenises to nothing, the template uses a variable the rows lack, or the
        number of shots is not ``settings.num_fewshot``.
    """

    keeps_traces = True

    def __init__(self, backend: LLMBackend, labels: Sequence[str], prompt: Prompt, settings: LLMSettings,
                 shots: Sequence[tuple[Input, int]] = ()):
        super().__init__(labels)
        if len(prompt.verbalisers) != len(self.labels):
            raise LLMError(f"prompt {prompt.source}: {len(prompt.verbalisers)} verbalisers for {len(self.labels)} labels")
        if len(shots) != settings.num_fewshot:
            raise LLMError(f"--num-fewshot {settings.num_fewshot}: {len(shots)} demonstrations given")
        self.backend, self.prompt, self.settings = backend, prompt, settings
        self.revision = backend.fingerprint
        self.n_requests = 0
        self.delimiter = "" if settings.apply_chat_template else prompt.target_delimiter
        probe = prompt.render(dict.fromkeys(prompt.fields, "text"))   # an unknown variable fails here, before any query
        if settings.apply_chat_template:                       # and a missing chat template
            rendered = backend.chat(probe, settings.system_instruction)
            system = settings.system_instruction
            # lm-eval's hf backend drops a system message its template refuses (with a warning): refuse instead
            if system is not None and isinstance(rendered, str) and system not in rendered:
                raise LLMError(f"--system-instruction: the chat template of {backend.model_id} takes no system "
                               "message (it was dropped); ask without one")
        for label, verb in zip(self.labels, prompt.verbalisers):
            if backend.n_tokens(self.delimiter + verb) == 0 or not verb.strip():
                raise LLMError(f"prompt {prompt.source}: option 'prompt.choices': the verbaliser {verb!r} of label "
                               f"{label!r} tokenises to nothing")
        self.prefix = "".join(prompt.render(prompt.doc(x)) + prompt.target_delimiter + prompt.verbalisers[y]
                              + prompt.fewshot_delimiter for x, y in shots)
        self.n_parse_failures = 0
        self.n_forward = 0
        self._traces: dict = {}

    def context(self, x: Input) -> Any:
        """The context the model sees for input ``x`` (chat-formatted where asked)."""
        text = self.prefix + self.prompt.render(self.prompt.doc(x))
        system = self.settings.system_instruction
        if self.settings.apply_chat_template:
            return self.backend.chat(text, system)
        return (system or "") + text          # lm-eval's plain rendering: the system message, no delimiter

    def loglikelihoods(self, inputs: Sequence[Input]) -> np.ndarray:
        """Log-likelihood (nats) of each label's verbaliser, shape (n_inputs, n_labels); not cached (each
        input's :meth:`trace` is kept)."""
        ctx = [self.context(x) for x in inputs]
        reqs = [(c, self.delimiter + v) for c in ctx for v in self.prompt.verbalisers]
        self.n_forward += 1
        self.n_requests += len(reqs)
        cut: list[int] = []
        out = np.asarray(self.backend.loglikelihood(reqs, cut), dtype=np.float64).reshape(len(inputs), len(self.labels))
        self.n_truncated += len({i // len(self.labels) for i in cut})
        for x, c, row in zip(inputs, ctx, out):
            self._traces[self._key(x)] = {"prompt_sha256": prompt_hash(c), "loglikelihoods": [float(v) for v in row]}
        return out

    def trace(self, x: Input) -> dict | None:
        """How the model answered ``x`` (asked already): ``prompt_sha256``, the SHA-256 of the rendered context
        (lm-eval's ``prompt_hash`` in ``--log_samples``: the UTF-8 text; a chat endpoint's messages as
        canonical JSON), and ``loglikelihoods``, one per label in label order (nats, summed over the
        verbaliser's tokens, before any length normalisation; lm-eval's ``resps``), or ``answer``, the
        generated text (``scoring="generate"``). None for an input not asked."""
        return self._traces.get(self._key(x))

    def _forward(self, inputs: list[Input]) -> np.ndarray:
        if self.settings.scoring == "generate":
            return self._generate(inputs)
        ll = self.loglikelihoods(inputs)
        if self.settings.normalization == "length":
            ll = ll / np.array([len(v) for v in self.prompt.verbalisers], dtype=np.float64)
        e = np.exp(ll - ll.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def _generate(self, inputs: list[Input]) -> np.ndarray:
        ctx = [self.context(x) for x in inputs]
        answers = self.backend.generate(ctx)
        self.n_forward += 1
        self.n_requests += len(inputs)
        for x, c, a in zip(inputs, ctx, answers):
            self._traces[self._key(x)] = {"prompt_sha256": prompt_hash(c), "answer": a}
        out = np.full((len(inputs), len(self.labels)), 1.0 / len(self.labels))
        folded = [v.strip().casefold() for v in self.prompt.verbalisers]
        # longest first, so that "not_entailment"-style verbalisers are not read as their prefixes
        order = sorted(range(len(folded)), key=lambda j: -len(folded[j]))
        for i, a in enumerate(answers):
            a = a.strip().casefold()
            hit = next((j for j in order if a.startswith(folded[j])
                        and (len(a) == len(folded[j]) or not a[len(folded[j])].isalnum())), None)
            if hit is None:
                self.n_parse_failures += 1
            else:
                out[i] = 0.0
                out[i, hit] = 1.0
        return out

    def describe(self) -> dict:
        """What a record says of how the model was asked: backend, prompt hash and settings."""
        system = self.settings.system_instruction
        # a system instruction is part of what the model reads: the prompt's hash covers it, so runs asked
        # with another one are told apart wherever prompts are (check, the leaderboard's rows)
        sha = self.prompt.sha256 if system is None else hashlib.sha256(
            f"{self.prompt.sha256}\x1fsystem\x1f{system}".encode("utf-8")).hexdigest()
        d = {**self.backend.describe(), "prompt_sha256": sha, "prompt_source": self.prompt.source,
             "chat_template": self.settings.apply_chat_template, "num_fewshot": self.settings.num_fewshot,
             "scoring": self.settings.scoring, "normalization": self.settings.normalization}
        if system is not None:
            d["system_instruction"] = system
        return d

    def counters(self) -> dict:
        """Counts for the task's details: distinct inputs, requests sent, parse failures, and (``hf``,
        log-likelihood scoring) the distinct inputs whose context was cut to the model's length."""
        out = {"queries": self.queries, "requests": self.n_requests}
        if self.backend.backend == "hf" and self.settings.scoring == "loglikelihood":
            out["truncated"] = self.n_truncated
        if self.settings.scoring == "generate":
            out["parse_failures"] = self.n_parse_failures
            out["parse_failure_rate"] = self.n_parse_failures / self.queries if self.queries else 0.0
        return out


def draw_shots(rows, prompt: Prompt, k: int, seed: int, *, where: str = "the demonstrations' split") -> list[tuple[Input, int]]:
    """``k`` demonstrations drawn with ``seed`` from ``rows`` (another split of the task's config: its
    ``train`` split, else another, never the split scored; :func:`robust_bench.evaluations.task_classifier`
    picks it), each a row's clean text (``original_*`` columns, as LIT rows have) where it has one.

    Parameters
    ----------
    rows : datasets.Dataset
    prompt : Prompt
    k : int, >= 1
    seed : int
    where : str
        Names the split in errors.

    Returns
    -------
    list of (input, label index) of length ``k``, in the rows' order

    Raises
    ------
    LLMError
        If ``rows`` has fewer than ``k`` rows or lacks the prompt's fields.
    """
    if len(rows) < k:
        raise LLMError(f"--num-fewshot {k}: {where} has {len(rows)} rows")
    cols = rows.column_names
    fields = [f"original_{f}" if f"original_{f}" in cols else f for f in prompt.fields]
    gold = "original_label" if "original_label" in cols else "label"
    missing = [f for f in fields + [gold] if f not in cols]
    if missing:
        raise LLMError(f"--num-fewshot {k}: {where} has no columns {missing} for the prompt's fields")
    out = []
    for i in sorted(np.random.default_rng(seed).choice(len(rows), size=k, replace=False).tolist()):
        r = rows[int(i)]
        texts = tuple(r[f] for f in fields)
        out.append((texts[0] if len(texts) == 1 else texts, int(r[gold])))
    return out
