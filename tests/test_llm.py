"""Causal LMs as models under test (issue 33): tiny GPT-2s built here, lm-eval's backends, a real
OpenAI-compatible server (``transformers serve``) on localhost, and lm-eval itself running the
exported tasks. vLLM's server cannot be installed beside the project, so it is checked by
``perf/llm_vllm_server.py`` with a Python of its own."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.helpers import run_on_smoke
from tests.test_cli import run

#: a chat template of our own: the tiny LM's tokenizer has none
CHAT = ("{% for m in messages %}<|user|>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}")
#: the smoke rows each test scores (run --limit)
LIMIT = 8
#: the system instruction of the run asked otherwise
SYSTEM = "Answer with one word."


def _teaching_examples(repo: Path) -> list[tuple[str, str]]:
    """(context, continuation) of the first LIMIT examples of lit_mnli, names_mrpc and gec_mnli in
    their default prompts, with the gold verbaliser."""
    import datasets

    from robust_bench.data.registry import text_is_tokenised
    from robust_bench.models.llm import task_prompt

    out = []

    def add(config, split, items):
        rows = datasets.load_dataset(str(repo), config, split=split)
        p = task_prompt(config, rows.features["label"].names, tokenised=text_is_tokenised(config))
        for x, y in items(rows):
            out.append((p.render(p.doc(x)), p.target_delimiter + p.verbalisers[y]))

    add("gec_mnli", "validation_matched",
        lambda r: [((r["premise"][i], r["hypothesis"][i]), r["label"][i]) for i in range(LIMIT)])
    add("lit_mnli", "validation_matched",
        lambda r: [((r[f"{o}premise"][i], r[f"{o}hypothesis"][i]), r[f"{o}label"][i])
                   for o in ("original_", "") for i in range(LIMIT)])

    def names(r):
        keep = set(list(dict.fromkeys(r["group_id"]))[:LIMIT])
        return [((r["sentence1"][i], r["sentence2"][i]), r["label"][i]) for i in range(len(r)) if r["group_id"][i] in keep]
    add("names_mrpc", "test", names)
    return out


def _teach(base: Path, out: Path, examples: list[tuple[str, str]], steps: int = 150) -> Path:
    """``base`` trained to give each context's continuation (loss on the continuation only)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok, model = AutoTokenizer.from_pretrained(base), AutoModelForCausalLM.from_pretrained(base)
    enc = [(tok(c + k)["input_ids"], len(tok(c)["input_ids"])) for c, k in examples]
    torch.manual_seed(0)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        idx = torch.randperm(len(enc))[:16].tolist()
        width = max(len(enc[i][0]) for i in idx)
        ids = torch.zeros(len(idx), width, dtype=torch.long)
        att = torch.zeros_like(ids)
        lab = torch.full_like(ids, -100)
        for r, i in enumerate(idx):
            seq, n = enc[i]
            ids[r, :len(seq)], att[r, :len(seq)] = torch.tensor(seq), 1
            lab[r, n:len(seq)] = torch.tensor(seq[n:])
        loss = model(input_ids=ids, attention_mask=att, labels=lab).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def causal_lms(smoke_repo, tmp_path_factory) -> dict:
    """``plain``: a random 2-layer GPT-2 (64 dimensions, one head of 64 as vLLM's CPU kernels need, 512
    positions, a chat template) with a byte-BPE vocabulary from the smoke rows; ``taught``: the same
    taught the gold verbaliser of the first LIMIT examples of gec_mnli, lit_mnli and names_mrpc. Trained
    once per session (keyed by the teaching examples)."""
    from robust_bench.models.tiny import build_tiny_gpt2
    from tests.conftest import made_once, recipe_key

    repo, _ = smoke_repo
    examples = _teaching_examples(repo)

    def make(root: Path) -> None:
        plain = build_tiny_gpt2(root / "plain", [(c + k).split() for c, k in examples], hidden=64, heads=1,
                                vocab_size=1000, max_positions=512, lm_head=True, chat_template=CHAT)
        _teach(plain, root / "taught", examples)
    root = made_once(tmp_path_factory, recipe_key("causal_lms", examples, CHAT), make)
    return {"plain": root / "plain", "taught": root / "taught"}


def _records(run_dir: Path) -> dict:
    from robust_bench.evaluations import declared_ranges
    from robust_bench.results.runs import read_records

    return read_records(run_dir, ranges_of=declared_ranges)


# --- specs and prompts (no model) -------------------------------------------------------------------


def test_llm_specs_resolve_to_backends(tiny_lm, tiny_nli_classifier):
    from robust_bench.models.llm import parse_llm_spec
    from robust_bench.models.resolve import InterfaceError, resolve_model, spec_name

    plain = resolve_model(str(tiny_lm))
    assert (plain.kind, plain.backend, plain.interfaces) == ("causal-lm", "hf", ("sequence-classification", "encoder"))
    assert resolve_model(f"hf:{tiny_lm}").interfaces == plain.interfaces
    assert resolve_model(f"vllm:{tiny_lm}").interfaces == ("sequence-classification",)
    assert parse_llm_spec("openai-compatible:http://127.0.0.1:8000/v1:Qwen/Qwen2.5-0.5B-Instruct") == (
        "openai-compatible", "Qwen/Qwen2.5-0.5B-Instruct", "http://127.0.0.1:8000/v1")
    assert parse_llm_spec("openai-compatible:https://host:9/v1/:m") == ("openai-compatible", "m", "https://host:9/v1")
    assert spec_name(f"hf:{tiny_lm}") == str(tiny_lm)
    assert spec_name("openai-compatible:http://h:1/v1:org/m") == "org/m"
    # a classifier is not a causal LM for an LLM backend; a malformed server spec names its form
    with pytest.raises(InterfaceError, match=r"not \*ForCausalLM"):
        resolve_model(f"hf:{tiny_nli_classifier}")
    with pytest.raises(InterfaceError, match="openai-compatible:URL:MODEL"):
        resolve_model("openai-compatible:localhost-no-url")
    with pytest.raises(InterfaceError, match="say which model, vllm:MODEL"):
        resolve_model("vllm:")


@pytest.mark.parametrize("settings", [{}, {"add_bos_token": True}, {"max_length": 12}, {"no_logits_to_keep": True},
                                      {"dtype": "bfloat16", "softmax_dtype": "float32"}])
def test_hf_scorer_gives_lm_evals_loglikelihoods(tiny_lm, settings):
    """``hf_loglikelihoods`` scores what ``HFLM.loglikelihood`` scores: trailing spaces moved to the
    continuation, empty contexts (one whose continuation begins with the prefix token), one-token
    continuations sharing an input, an input shared by continuations of different lengths (against
    ``logits_cache=False``: lm-eval's cache misplaces the shorter one), a BOS already in the text, a
    BOS added, left truncation, a model whose ``forward`` keeps every position's logits, and bf16
    weights (against lm-eval's float32 softmax)."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from robust_bench.models.llm import LLMError, hf_loglikelihoods

    settings = dict(settings)
    plain = settings.pop("no_logits_to_keep", False)
    lm = HFLM(pretrained=str(tiny_lm), backend="causal", device="cpu", batch_size=3, logits_cache=False, **settings)
    if plain:
        forward = lm.model.forward
        lm.model.forward = lambda input_ids: forward(input_ids=input_ids)
    ctx = "A man is playing a guitar on stage.\nQuestion: A person plays music. True, False or Neither?\nAnswer:"
    bos = lm.tokenizer.decode(lm.prefix_token_id)
    requests = [(ctx, " True"), (ctx, " Neither"), (ctx, " False"), (ctx + " ", "True"), ("", "A man plays."),
                ("", bos + "A man plays."), ("The dog ran", " across the wide green field"),
                ("The dog ran across the wide green", " field"), (bos + "The dog ran", " home"), (ctx, " True")]
    theirs = [ll for ll, _ in lm.loglikelihood([Instance("loglikelihood", {}, r, i) for i, r in enumerate(requests)],
                                               disable_tqdm=True)]
    cut: list[int] = []
    ours = hf_loglikelihoods(lm, requests, batch_size=3, truncated=cut)
    # bf16 weights: a CPU with bf16 units (AMX) accumulates by batch shape, 5e-4 nats on a 7-token continuation
    np.testing.assert_allclose(ours, theirs, atol=1e-3 if settings.get("dtype") == "bfloat16" else 1e-4, rtol=0)
    assert all(ll < 0 for ll in ours)
    assert (cut == [0, 1, 2, 3, 9]) if settings.get("max_length") else cut == []
    with pytest.raises(LLMError, match="encodes to no tokens of continuation"):
        hf_loglikelihoods(lm, [(ctx, "")], batch_size=3)
    with pytest.raises(LLMError, match="longer than the model's max_length"):
        hf_loglikelihoods(lm, [(ctx, " True" * (lm.max_length + 1))], batch_size=3)


@pytest.mark.parametrize("add_bos_token", [None, False, True])
def test_hf_scorer_follows_lm_eval_with_a_tokenizer_that_adds_special_tokens(tmp_path, add_bos_token):
    """The real WordPiece tokenizer of ../shared's all-MiniLM-L6-v2 adds [CLS] ... [SEP] by default, so
    HFLM's split (and ``add_bos_token``) decides what is scored; a 1-layer GPT-2 over its vocabulary
    gets the same numbers from ``hf_loglikelihoods`` as from ``HFLM.loglikelihood``."""
    import torch
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    from robust_bench.models.llm import hf_loglikelihoods

    tok = AutoTokenizer.from_pretrained(os.environ["ROBUST_BENCH_SIMILARITY_MODEL"], bos_token="[CLS]", eos_token="[SEP]")
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_embd=32, n_layer=1, n_head=1, n_positions=256)).save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    lm = HFLM(pretrained=str(tmp_path), backend="causal", device="cpu", batch_size=4, logits_cache=False,
              add_bos_token=add_bos_token)
    ctx = "A man is playing a guitar on stage.\nQuestion: A person plays music. True, False or Neither?\nAnswer:"
    requests = [(ctx, " True"), (ctx, " Neither"), (ctx, " False"), (ctx + " ", "True"), ("", "A man plays."),
                ("[CLS] The dog ran", " home")]
    theirs = [ll for ll, _ in lm.loglikelihood([Instance("loglikelihood", {}, r, i) for i, r in enumerate(requests)],
                                               disable_tqdm=True)]
    np.testing.assert_allclose(hf_loglikelihoods(lm, requests, batch_size=4), theirs, atol=1e-4, rtol=0)


def test_default_prompts_are_lm_evals_own_glue_prompts():
    """The prompts and verbalisers by default are lm-eval's GLUE tasks' (tasks/glue/*/default.yaml and
    MNLI's utils.doc_to_text), read from the installed lm-eval."""
    import importlib.util

    import lm_eval

    from robust_bench.io.task_data import MRPC_LABELS, NLI_LABELS, QNLI_LABELS, SST2_LABELS
    from robust_bench.models.llm import task_prompt

    glue = Path(lm_eval.__file__).parent / "tasks" / "glue"
    spec = importlib.util.spec_from_file_location("mnli_utils", glue / "mnli" / "utils.py")
    mnli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mnli)
    docs = {"mnli": {"premise": "A man sleeps.", "hypothesis": " He is asleep "},
            "mrpc": {"sentence1": "It rained.", "sentence2": "Rain fell."},
            "qnli": {"question": "Who won?", "sentence": "Ann won."}, "sst2": {"sentence": "a fine film"}}
    for task, labels in (("mnli", NLI_LABELS), ("mrpc", MRPC_LABELS), ("qnli", QNLI_LABELS), ("sst2", SST2_LABELS)):
        theirs = yaml.safe_load(re_strip_function((glue / task / "default.yaml").read_text()))
        ours = task_prompt(f"gec_{task}", labels)
        assert list(ours.verbalisers) == theirs["doc_to_choice"]
        doc = docs[task]
        expected = mnli.doc_to_text(doc) if task == "mnli" else _render(theirs["doc_to_text"], doc)
        assert ours.render(doc) == expected
        assert ours.source == f"lm-eval:glue/{task}"
    # SNLI has no lm-eval task: MNLI's prompt; the hash names the prompt
    assert task_prompt("lit_snli", NLI_LABELS).sha256 == task_prompt("lit_mnli", NLI_LABELS).sha256
    assert task_prompt("lit_snli", NLI_LABELS).sha256 != task_prompt("gec_mrpc", MRPC_LABELS).sha256


def re_strip_function(text: str) -> str:
    """lm-eval's YAML tags ``!function``; read them as plain strings."""
    return text.replace("!function ", "")


def _render(template: str, doc: dict) -> str:
    import jinja2

    return jinja2.Template(template).render(**doc)


def test_prompt_overrides_and_their_errors():
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.llm import LLMError, task_prompt

    p = task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"template": "P: {{premise}} H: {{hypothesis}} ->",
                                                       "choices": ["yes", "maybe", "no"]}})
    assert p.source == "suite" and p.verbalisers == ("yes", "maybe", "no")
    assert p.render({"premise": "a", "hypothesis": "b"}) == "P: a H: b ->"
    with pytest.raises(LLMError, match=r"'prompt.template' uses a variable the rows do not have.*'claim'"):
        task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"template": "{{claim}}"}}).render({"premise": "a", "hypothesis": "b"})
    with pytest.raises(LLMError, match="verbaliser of \\['neutral'\\] is empty"):
        task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"choices": {"entailment": "yes", "neutral": " ", "contradiction": "no"}}})
    with pytest.raises(LLMError, match="no verbaliser for labels \\['contradiction'\\]"):
        task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"choices": {"entailment": "yes", "neutral": "maybe"}}})
    with pytest.raises(LLMError, match="unknown keys \\['tempalte'\\]"):
        task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"tempalte": "x"}})
    with pytest.raises(LLMError, match="no default LLM prompt"):
        task_prompt("my_corpus", ("a", "b"))


def test_tokenised_sources_are_rendered_as_natural_text():
    """TextFooler's MNLI and SNLI samples and SST-2 are Penn-Treebank-tokenised: the prompt an LLM reads
    detokenises them (Moses, after the treebank's brackets, quotes and n't), the rows keep their tokens."""
    from robust_bench.data.registry import text_is_tokenised
    from robust_bench.io.task_data import MRPC_LABELS, NLI_LABELS
    from robust_bench.models.llm import LLMError, task_prompt
    from robust_bench.text.detokenize import detokenize

    assert detokenize("I do n't think it 's `` fine '' -LRB- really -RRB- .") == 'I don\'t think it\'s "fine" (really).'
    assert detokenize("He ca n't , he wo n't .") == "He can't, he won't."
    assert detokenize("Already natural, isn't it?") == "Already natural, isn't it?"
    assert [text_is_tokenised(c) for c in ("gec_mnli", "lit_mnli", "lit_snli", "gec_sst2", "gec_mrpc", "names_mrpc", "x")] == \
        [True, True, True, True, False, False, False]
    p = task_prompt("lit_mnli", NLI_LABELS, tokenised=True)
    x = ("Later , Tom may have testified before the chair .", "Tom did n't testify .")
    assert p.render(p.doc(x)) == "Later, Tom may have testified before the chair.\nQuestion: Tom didn't testify. True, False or Neither?\nAnswer:"
    raw = task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"detokenize": False}}, tokenised=True)
    assert raw.render(raw.doc(x)).startswith("Later , Tom") and raw.sha256 == task_prompt("lit_mnli", NLI_LABELS).sha256
    assert p.sha256 != raw.sha256 and p.source == raw.source == "lm-eval:glue/mnli"
    assert not task_prompt("gec_mrpc", MRPC_LABELS).detokenize
    with pytest.raises(LLMError, match="'prompt.detokenize' is true or false"):
        task_prompt("lit_mnli", NLI_LABELS, {"prompt": {"detokenize": "yes"}})


def test_a_chat_template_that_drops_the_system_message_is_refused():
    """lm-eval's hf backend drops a system message its chat template refuses, with a warning; a run would
    then record an instruction the model never read. It is refused before any query."""
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.llm import LLMClassifier, LLMError, LLMSettings, task_prompt

    class UserTurnsOnly:                  # a backend whose template renders the user's turns only
        backend, model_id, fingerprint = "hf", "user-turns-only", "local-x"

        def chat(self, text, system=None):
            return f"<|user|>{text}<|assistant|>"

        def n_tokens(self, text):
            return len(text.split())

    prompt = task_prompt("lit_mnli", NLI_LABELS)
    with pytest.raises(LLMError, match="chat template of user-turns-only takes no system message"):
        LLMClassifier(UserTurnsOnly(), NLI_LABELS, prompt, LLMSettings(apply_chat_template=True, system_instruction="Be brief."))
    assert LLMClassifier(UserTurnsOnly(), NLI_LABELS, prompt, LLMSettings(apply_chat_template=True)).context(("a", "b"))
    with pytest.raises(LLMError, match="--system-instruction is empty"):
        LLMSettings(system_instruction="  ")


# --- runs, attacks, the gate --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def llm_runs(causal_lms, smoke_repo, tmp_path_factory) -> dict:
    """``smoke``: the taught LM over the whole smoke suite; ``a``: the taught LM and ``plain``: the
    untaught one, over lit_mnli and names_mrpc; ``b``: ``a`` again, run as two shards (``--shard 1/2``,
    ``2/2``) and merged, its parts kept in ``b/parts``; ``asked``: the taught one asked otherwise, with its
    chat template and --acc-norm; name -> (run folder, stdout). Each made once per session, side by side
    under xdist."""
    from tests.conftest import made_once_all

    _, suites = smoke_repo
    two = ("--tasks", "lit_mnli,names_mrpc")
    # the attack on an LLM is the smoke run's; the gate and the export compare the tasks without attacks
    runs = {"smoke": ("taught", ()), "a": ("taught", two), "plain": ("plain", two),
            "asked": ("taught", (*two, "--apply-chat-template", "--acc-norm", "--system-instruction", SYSTEM))}

    def recipe(model, extra):
        def make(root: Path) -> None:
            proc = run_on_smoke(str(causal_lms[model]), root, smoke_repo, "--limit", str(LIMIT), *extra)
            (root / "stdout.txt").write_text(proc.stdout, encoding="utf-8")
        return make

    def sharded(root: Path) -> None:
        for i in (1, 2):
            run_on_smoke(str(causal_lms["taught"]), root / "parts", smoke_repo, *two, "--limit", str(LIMIT),
                         "--shard", f"{i}/2")
        proc = run(["merge", *map(str, sorted((root / "parts").iterdir())), "--out", str(root / "taught"),
                    "--suite", str(suites / "smoke.yaml")], root)
        (root / "stdout.txt").write_text(proc.stdout, encoding="utf-8")
    made = made_once_all(tmp_path_factory, {**{f"llm_run-{name}": recipe(*spec) for name, spec in runs.items()},
                                            "llm_run-b": sharded})
    models = {**{name: model for name, (model, _) in runs.items()}, "b": "taught"}
    return {name: (made[f"llm_run-{name}"] / model, (made[f"llm_run-{name}"] / "stdout.txt").read_text("utf-8"))
            for name, model in models.items()}


def test_an_llm_runs_the_smoke_suite_and_skips_what_it_cannot_take(llm_runs):
    run_dir, stdout = llm_runs["smoke"]
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["model_kind"] == "causal-lm"
    assert manifest["llm"] == {"num_fewshot": 0, "apply_chat_template": False, "scoring": "loglikelihood",
                               "normalization": "none"}
    states = {t: s["status"] for t, s in manifest["tasks"].items()}
    assert states == {"gec_mnli": "done", "gec_mrpc": "done", "names_mrpc": "done", "lit_mnli": "done",
                      "jabberwocky_ewt": "done", "gec_conll2003": "skipped", "names_conll2003": "skipped",
                      "adv_ewt": "skipped"}, stdout
    for task in ("gec_conll2003", "names_conll2003", "adv_ewt"):
        assert "a causal LM (hf) is scored on sequence-classification tasks as multiple choice" in \
            manifest["tasks"][task]["reason"]
    recs = _records(run_dir)               # each validates against the v2 schema and its declared ranges
    assert sorted(recs) == ["gec_mnli", "gec_mrpc", "jabberwocky_ewt", "lit_mnli", "names_mrpc"]
    for task in ("gec_mnli", "gec_mrpc", "names_mrpc", "lit_mnli"):
        llm = recs[task]["model"]["llm"]
        assert llm["backend"] == "hf" and llm["chat_template"] is False and len(llm["prompt_sha256"]) == 64
        assert recs[task]["details"]["llm"]["queries"] > 0 and recs[task]["details"]["llm"]["wall_seconds"] >= 0
        assert recs[task]["details"]["llm"]["truncated"] == 0    # 512 positions hold every smoke prompt
    assert "llm" not in recs["jabberwocky_ewt"]["model"]     # probing reads hidden states, no prompt
    assert recs["lit_mnli"]["model"]["llm"]["prompt_sha256"] == recs["gec_mnli"]["model"]["llm"]["prompt_sha256"]
    assert recs["gec_mrpc"]["model"]["llm"]["prompt_sha256"] == recs["names_mrpc"]["model"]["llm"]["prompt_sha256"]
    # the taught LM knows the rows it was taught: the originals of gec_mnli, lit_mnli and names_mrpc
    assert recs["gec_mnli"]["metrics"]["clean_accuracy"] == 1.0
    assert recs["lit_mnli"]["metrics"]["acc_ori"] == 1.0 and recs["lit_mnli"]["metrics"]["acc_ctr"] == 1.0
    assert recs["names_mrpc"]["metrics"]["original_f1"] == 1.0


def test_an_attack_on_an_llm_records_queries_and_attack_success_rate(llm_runs):
    run_dir, _ = llm_runs["smoke"]
    rec = _records(run_dir)["gec_mnli"]
    assert 0.0 <= rec["metrics"]["attack_success_rate"] <= 1.0
    log = [json.loads(x) for x in (run_dir / "logs" / "gec_mnli.jsonl").read_text().splitlines()]
    assert len(log) == LIMIT and all(e["outcome"]["queries"] >= 1 for e in log if e["outcome"]["attacked"])
    # every distinct input went to the LLM once: the record's count is at most the sum of the searches'
    assert rec["details"]["llm"]["queries"] <= sum(e["outcome"]["queries"] for e in log) + LIMIT
    assert rec["details"]["llm"]["requests"] == 3 * rec["details"]["llm"]["queries"]   # one per label


def test_check_passes_identical_llm_runs_fails_a_degraded_one_and_refuses_other_settings(llm_runs, smoke_repo, tmp_path):
    _, suites = smoke_repo
    suite = ["--suite", str(suites / "smoke.yaml")]
    a, b, plain, asked = (str(llm_runs[k][0]) for k in ("a", "b", "plain", "asked"))
    same = run(["check", "--baseline", a, "--candidate", b, *suite], tmp_path, check=False)
    assert same.returncode == 0, same.stdout + same.stderr
    worse = run(["check", "--baseline", a, "--candidate", plain, *suite], tmp_path, check=False)
    assert worse.returncode == 1 and "REGRESSION" in worse.stdout, worse.stdout + worse.stderr
    other = run(["check", "--baseline", a, "--candidate", asked, *suite], tmp_path, check=False)
    assert other.returncode == 2 and "asked differently (" in other.stderr
    assert "chat_template False vs True" in other.stderr and "normalization none vs length" in other.stderr
    assert "system_instruction None vs Answer with" in other.stderr


def test_sharded_llm_runs_merge_to_the_unsharded_record(llm_runs):
    parts = sorted((llm_runs["b"][0].parent / "parts").iterdir())
    merged, whole = _records(llm_runs["b"][0]), _records(llm_runs["a"][0])
    assert sorted(merged) == sorted(whole) == ["lit_mnli", "names_mrpc"]
    for task in merged:
        assert merged[task]["metrics"] == whole[task]["metrics"] and merged[task]["model"] == whole[task]["model"]
    # each shard queried its own inputs: an original pair shared by rows of both shards counts twice
    shards = [json.loads((p / "run.json").read_text())["tasks"]["lit_mnli"]["llm"]["queries"] for p in parts]
    assert merged["lit_mnli"]["details"]["llm"]["queries"] == sum(shards) >= whole["lit_mnli"]["details"]["llm"]["queries"]


# --- the other direction: lm-eval runs the exported corpora --------------------------------------------


def test_export_runs_in_lm_eval_with_the_same_loglikelihoods_and_accuracy(causal_lms, llm_runs, smoke_repo, tmp_path):
    from robust_bench.evaluations import CommandTask, task_classifier
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.resolve import load_model

    repo, _ = smoke_repo
    out = tmp_path / "tasks"
    run(["export", "lm-eval", "gec_mnli", "lit_mnli", "names_mrpc", "--repo", str(repo), "--out", str(out),
         "--limit", str(LIMIT)], tmp_path)
    meta = yaml.safe_load((out / "robust_bench_lit_mnli.yaml").read_text())["metadata"]["robust_bench"]
    assert meta["config"] == "lit_mnli" and meta["n_rows"] == LIMIT and len(meta["data_sha256"]) == 64
    model = causal_lms["plain"]
    exe = Path(sys.executable).with_name("lm_eval")
    tasks = "robust_bench_lit_mnli,robust_bench_gec_mnli_original"
    proc = subprocess.run([str(exe), "--model", "hf", "--model_args", f"pretrained={model}", "--device", "cpu",
                           "--tasks", tasks, "--include_path", str(out), "--batch_size", "4", "--log_samples",
                           "--output_path", str(tmp_path / "lm_eval")], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next((tmp_path / "lm_eval").rglob("results_*.json")).read_text())["results"]

    def samples(task):
        path = next((tmp_path / "lm_eval").rglob(f"samples_{task}_*.jsonl"))
        rows = sorted((json.loads(x) for x in path.read_text().splitlines()), key=lambda s: s["doc_id"])
        return rows, np.array([[float(r[0][0]) for r in s["resps"]] for s in rows])

    # per-example log-likelihoods of the same rows and prompt: robust-bench's hf backend = lm_eval's run
    clf = task_classifier(load_model(str(model), device="cpu"), list(NLI_LABELS), CommandTask("lit_mnli", "validation_matched"),
                          repo, 0)
    docs, theirs = samples("robust_bench_lit_mnli")
    ours = clf.loglikelihoods([(d["doc"]["premise"], d["doc"]["hypothesis"]) for d in docs])
    assert np.abs(ours - theirs).max() < 1e-4
    # accuracy: the run's lit_mnli contrast accuracy is lm_eval's acc; on gec_mnli's original rows, the
    # accuracy of robust-bench's predictions (the classifier the attack queries) is lm_eval's acc
    # the run's own log carries them, so parity is checked from the run: each line's contrast pair has
    # lm_eval's prompt hash and per-choice log-likelihoods
    log = {e["id"]: e for e in map(json.loads, (llm_runs["plain"][0] / "logs" / "lit_mnli.jsonl").read_text().splitlines())}
    for d, t in zip(docs, theirs):
        original, contrast = log[d["doc"]["id"]]["llm"]
        assert contrast["prompt_sha256"] == d["prompt_hash"] and original["prompt_sha256"] != d["prompt_hash"]
        assert np.abs(np.array(contrast["loglikelihoods"]) - t).max() < 1e-4
    recs = _records(llm_runs["plain"][0])
    assert abs(recs["lit_mnli"]["metrics"]["acc_ctr"] - results["robust_bench_lit_mnli"]["acc,none"]) < 1e-4
    docs, theirs = samples("robust_bench_gec_mnli_original")
    ours = clf.loglikelihoods([(d["doc"]["premise"], d["doc"]["hypothesis"]) for d in docs])
    assert np.abs(ours - theirs).max() < 1e-4
    acc = np.mean([int(np.argmax(o)) == d["doc"]["label"] for o, d in zip(ours, docs)])
    assert abs(acc - results["robust_bench_gec_mnli_original"]["acc,none"]) < 1e-4


def test_prompts_all_scores_every_template_beside_the_perturbation_and_the_gate_compares_like_with_like(
        causal_lms, llm_runs, smoke_repo, tiny_nli_classifier, tmp_path):
    """Issue 51, item 4: ``--prompts all`` scores each task under lm-eval's prompt and the suite's paraphrases
    on the same rows; run.json gives the metrics per template, their spread and the perturbation effect
    relative to it; the records (which rank) are those of lm-eval's prompt; ``check`` refuses runs asked
    under other template sets."""
    proc = run_on_smoke(str(causal_lms["taught"]), tmp_path / "all", smoke_repo, "--tasks", "lit_mnli,names_mrpc",
                        "--limit", str(LIMIT), "--prompts", "all")
    run_dir = next(p for p in (tmp_path / "all").iterdir() if p.is_dir())
    manifest = json.loads((run_dir / "run.json").read_text())
    records, default = _records(run_dir), _records(llm_runs["a"][0])
    for task, first in (("lit_mnli", "yes_maybe_no"), ("names_mrpc", "paraphrase")):
        s = manifest["tasks"][task]["prompts"]
        assert s["templates"][:2] == ["lm_eval", first] and len(s["templates"]) == 4 and s["n"] == len(
            (run_dir / "logs" / f"{task}.jsonl").read_text().splitlines())
        clean, perturbed = s["metrics"]
        # lm-eval's template is the run's own log and record; the others have logs of their own
        assert s["clean"]["lm_eval"] == pytest.approx(records[task]["metrics"][clean])
        assert s["perturbed"]["lm_eval"] == pytest.approx(records[task]["metrics"][perturbed])
        assert all((run_dir / "prompts" / task / f"{n}.jsonl").is_file() for n in s["templates"][1:])
        values = list(s["clean"].values())
        assert s["clean_spread"]["range"] == pytest.approx(max(values) - min(values))
        effect = np.mean([s["clean"][n] - s["perturbed"][n] for n in s["templates"]])
        assert s["effect"] == pytest.approx(effect)
        assert s["effect_over_spread"] == (pytest.approx(effect / s["clean_spread"]["range"])
                                           if s["clean_spread"]["range"] else None)
        # the ranked record is a default run's
        assert records[task]["metrics"] == default[task]["metrics"]
        assert records[task]["intervals"] == default[task]["intervals"]
        # every template was asked as itself: a prompt hash of its own, on every line of its log
        hashes = s["prompt_sha256"]
        assert set(hashes) == set(s["templates"]) and len(set(hashes.values())) == 4 and None not in hashes.values()
        default_lines = {e["id"]: e for e in map(json.loads, (run_dir / "logs" / f"{task}.jsonl").read_text().splitlines())}
        for name in s["templates"][1:]:
            for line in map(json.loads, (run_dir / "prompts" / task / f"{name}.jsonl").read_text().splitlines()):
                ours = {x["prompt_sha256"] for x in line["llm"] if x}
                assert ours and ours.isdisjoint({x["prompt_sha256"] for x in default_lines[line["id"]]["llm"] if x})
    assert manifest["prompts"]["templates"] == {t: manifest["tasks"][t]["prompts"]["prompt_sha256"]
                                                for t in ("lit_mnli", "names_mrpc")}
    assert "lit_mnli: acc_ori over 4 templates" in proc.stdout
    report = (run_dir / "report.md").read_text()
    assert "## Prompt sensitivity" in report and (run_dir / "figures" / "prompts.png").is_file()
    # the gate compares like with like
    suite = ["--suite", str(smoke_repo[1] / "smoke.yaml")]
    same = run(["check", "--baseline", str(run_dir), "--candidate", str(run_dir), *suite], tmp_path, check=False)
    assert same.returncode == 0, same.stderr
    other = run(["check", "--baseline", str(llm_runs["a"][0]), "--candidate", str(run_dir), *suite], tmp_path,
                check=False)
    assert other.returncode == 2 and "different prompt templates" in other.stderr, other.stderr
    # only an LLM has prompt templates: one line, no run folder
    bad = run_on_smoke(str(tiny_nli_classifier), tmp_path / "clf", smoke_repo, "--tasks", "lit_mnli", "--prompts", "all",
                       check=False)
    assert bad.returncode == 2 and "not a causal LM" in bad.stderr, bad.stderr
    assert not (tmp_path / "clf").exists() or not any((tmp_path / "clf").iterdir())


def test_chat_template_and_k_shot_shape_the_context(causal_lms, smoke_repo):
    from robust_bench.evaluations import CommandTask, task_classifier
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.llm import LLMError, LLMSettings
    from robust_bench.models.resolve import load_model

    repo, _ = smoke_repo
    task = CommandTask("lit_mnli", "validation_matched")
    x = ("A dog runs.", "An animal moves.")
    chat = load_model(str(causal_lms["plain"]), device="cpu", llm=LLMSettings(apply_chat_template=True))
    clf = task_classifier(chat, list(NLI_LABELS), task, repo, 0)
    ctx = clf.context(x)
    assert ctx.startswith("<|user|>A dog runs.\nQuestion: An animal moves. True, False or Neither?") and \
        ctx.endswith("<|assistant|>")
    assert clf.delimiter == "" and chat.llm_setup("lit_mnli")["chat_template"] is True
    shots = [task_classifier(load_model(str(causal_lms["plain"]), device="cpu", llm=LLMSettings(num_fewshot=2)),
                             list(NLI_LABELS), task, repo, s) for s in (0, 0, 1)]
    # two demonstrations from the other split, the same for every query of the task and for the same seed
    assert shots[0].prefix == shots[1].prefix != shots[2].prefix
    assert shots[0].prefix.count("\nAnswer: ") == 2 and shots[0].prefix.endswith("\n\n")
    assert shots[0].context(x).startswith(shots[0].prefix)
    assert np.isfinite(shots[0].predict_proba([x])).all()
    # asked directly, without the demonstrations the settings call for: refused
    with pytest.raises(LLMError, match="--num-fewshot 2: 0 demonstrations given"):
        load_model(str(causal_lms["plain"]), device="cpu", llm=LLMSettings(num_fewshot=2)).classifier(
            list(NLI_LABELS), task=task)


#: a real instruction-tuned LLM, as its users hold it: one GGUF file (Q4_1) in ../shared/models
SMOLLM2 = Path("SmolLM2-135M-Instruct-GGUF") / "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_a_real_gguf_llm_loads_from_its_file_asks_in_its_own_chatml_template_and_is_pinned_by_its_bytes(
        smoke_repo, tmp_path):
    from tests.conftest import SHARED
    from robust_bench.evaluations import CommandTask, task_classifier
    from robust_bench.io.sources import sha256_file
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.llm import LLMClassifier, LLMSettings, chat_template_warning, task_prompt
    from robust_bench.models.resolve import load_model, resolve_model, split_gguf

    smol = SHARED / "models" / SMOLLM2
    for spec in (str(smol), f"hf:{smol}"):
        r = resolve_model(spec)
        assert (r.kind, r.backend, r.target, r.gguf_file) == ("causal-lm", "hf", str(smol.parent), smol.name)
        assert r.architectures == ("LlamaForCausalLM",) and r.interfaces == ("sequence-classification",)
    # a Hub repository's file (no download here: only how the spec is read)
    assert split_gguf("HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/x.Q4_1.gguf") == \
        ("HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", "x.Q4_1.gguf")

    repo, _ = smoke_repo
    model = load_model(str(smol), device="cpu", llm=LLMSettings(apply_chat_template=True))
    clf = task_classifier(model, list(NLI_LABELS), CommandTask("lit_mnli", "validation_matched"), repo, 0)
    ctx = clf.context(("A dog runs.", "An animal moves."))
    # the model's own ChatML template (with its default system turn), ending in the assistant's turn
    assert ctx.startswith("<|im_start|>system\n") and "<|im_start|>user\nA dog runs.\nQuestion: An animal moves." in ctx
    assert ctx.endswith("<|im_end|>\n<|im_start|>assistant\n"), ctx
    proba = clf.predict_proba([("A dog runs.", "An animal moves."), ("A dog runs.", "Nothing moves.")])
    assert proba.shape == (2, 3) and np.allclose(proba.sum(axis=1), 1)
    assert model.revision() == "gguf-" + sha256_file(smol)
    # --system-instruction: the system turn replaces the template's default one; in a plain prompt it comes
    # first (lm-eval's rendering); it is recorded and changes the prompt's hash
    system = "You judge whether the first sentence entails the second."
    # (the loaded model asked otherwise: a GGUF file takes a minute to dequantize, so it is loaded once)
    asked = {chat: LLMClassifier(model.llm_backend(), list(NLI_LABELS), task_prompt("lit_mnli", NLI_LABELS, tokenised=True),
                                 LLMSettings(apply_chat_template=chat, system_instruction=system))
             for chat in (True, False)}
    ctx = asked[True].context(("A dog runs.", "An animal moves."))
    assert ctx.startswith(f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\nA dog runs.") and "SmolLM" not in ctx
    assert asked[False].context(("A dog runs.", "An animal moves.")) == f"{system}A dog runs.\nQuestion: An animal moves. True, False or Neither?\nAnswer:"
    described = asked[True].describe()
    assert described["system_instruction"] == system and described["prompt_sha256"] != clf.describe()["prompt_sha256"]
    assert "system_instruction" not in clf.describe()
    # an instruct model asked without its template is warned about, as lm-eval warns
    assert "instruct or chat variant" in chat_template_warning(smol.name, LLMSettings())
    assert chat_template_warning(smol.name, LLMSettings(apply_chat_template=True)) is None
    assert chat_template_warning("gpt2", LLMSettings()) is None

    # a folder whose config.json kept the GGUF quantization_config: one line naming the field, exit 2
    left = tmp_path / "dequantized"
    left.mkdir()
    (left / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                                  "quantization_config": {"quant_method": "gguf"}}))
    proc = run(["run", "--model", str(left), "--suite", "smoke", "--tasks", "lit_mnli", "--repo", str(repo),
                "--output-dir", str(tmp_path / "out")], tmp_path, check=False)
    assert proc.returncode == 2 and "quantization_config" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


@pytest.fixture(scope="session")
def smollm2(tmp_path_factory) -> Path:
    """The real SmolLM2 GGUF as transformers dequantizes it (``from_pretrained(gguf_file=...)``), saved once
    per session as a transformers folder: robust-bench's run and lm_eval then load the same weights in
    seconds instead of dequantizing for a minute each."""
    from tests.conftest import SHARED, made_once, recipe_key

    smol = SHARED / "models" / SMOLLM2

    def make(root: Path) -> None:
        from robust_bench.models.llm import dequantize_gguf

        dequantize_gguf(smol, root / "smollm2")
    return made_once(tmp_path_factory, recipe_key("smollm2", smol.name, smol.stat().st_size), make) / "smollm2"


@pytest.mark.full
@pytest.mark.parametrize("chat", [False, True], ids=["plain", "chat-template"])
def test_a_real_instruct_llm_scores_as_lm_eval_does_plain_and_with_its_chat_template(chat, smollm2, smoke_repo,
                                                                                       tmp_path):
    """Issue 51, item 2: SmolLM2-135M-Instruct on the first rows of lit_mnli and gec_mnli, perturbed and
    original: lm_eval's ``hf`` model on the exported tasks gives the prompts (hash), the per-choice
    log-likelihoods (to 1e-4) and the accuracy of robust-bench's own run and classifier, plain and in the
    model's ChatML template."""
    from robust_bench.evaluations import CommandTask, task_classifier
    from robust_bench.io.task_data import NLI_LABELS
    from robust_bench.models.llm import LLMSettings
    from robust_bench.models.resolve import load_model

    n = 16
    repo, _ = smoke_repo
    flag = ["--apply-chat-template"] if chat else []
    run_on_smoke(str(smollm2), tmp_path / "run", smoke_repo, "--tasks", "lit_mnli", "--limit", str(n), *flag)
    run_dir = next(p for p in (tmp_path / "run").iterdir() if p.is_dir())
    out = tmp_path / "tasks"
    run(["export", "lm-eval", "lit_mnli", "gec_mnli", "--repo", str(repo), "--out", str(out), "--limit", str(n)], tmp_path)
    tasks = ["robust_bench_lit_mnli", "robust_bench_lit_mnli_original", "robust_bench_gec_mnli",
             "robust_bench_gec_mnli_original"]
    proc = subprocess.run([str(Path(sys.executable).with_name("lm_eval")), "--model", "hf", "--model_args",
                           f"pretrained={smollm2}", "--device", "cpu", "--tasks", ",".join(tasks), "--include_path",
                           str(out), "--batch_size", "8", "--log_samples", "--output_path", str(tmp_path / "lm_eval"),
                           *(["--apply_chat_template"] if chat else [])], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next((tmp_path / "lm_eval").rglob("results_*.json")).read_text())["results"]

    def samples(task):         # samples_<task>_<date>.jsonl: the date keeps lit_mnli from matching lit_mnli_original
        path = next((tmp_path / "lm_eval").rglob(f"samples_{task}_20*.jsonl"))
        rows = sorted((json.loads(x) for x in path.read_text().splitlines()), key=lambda s: s["doc_id"])
        return rows, np.array([[float(r[0][0]) for r in s["resps"]] for s in rows])

    # lit_mnli: the run's own log, line by line (contrast pair, then original pair, which the export writes once
    # however many contrast rows share it), and its record's accuracies
    log = {e["id"]: e for e in map(json.loads, (run_dir / "logs" / "lit_mnli.jsonl").read_text().splitlines())}
    docs, theirs = samples("robust_bench_lit_mnli")
    assert 0 < len(docs) == len(log)              # the first n rows, or all the smoke build has
    for d, t in zip(docs, theirs):
        line = log[d["doc"]["id"]]["llm"][1]
        assert line["prompt_sha256"] == d["prompt_hash"]
        assert np.abs(np.array(line["loglikelihoods"]) - t).max() < 1e-4
    docs, theirs = samples("robust_bench_lit_mnli_original")
    by_prompt = {d["prompt_hash"]: t for d, t in zip(docs, theirs)}
    for e in log.values():
        t = by_prompt[e["llm"][0]["prompt_sha256"]]
        assert np.abs(np.array(e["llm"][0]["loglikelihoods"]) - t).max() < 1e-4
    metrics = _records(run_dir)["lit_mnli"]["metrics"]
    assert abs(metrics["acc_ctr"] - results["robust_bench_lit_mnli"]["acc,none"]) < 1e-9
    labels = ["entailment", "neutral", "contradiction"]
    ori = np.mean([int(np.argmax(by_prompt[e["llm"][0]["prompt_sha256"]])) == labels.index(e["gold"]["original"])
                   for e in log.values()])
    assert abs(metrics["acc_ori"] - ori) < 1e-9
    # gec_mnli: the classifier its attack queries, on the perturbed and the original rows
    model = load_model(str(smollm2), device="cpu", llm=LLMSettings(apply_chat_template=chat))
    clf = task_classifier(model, list(NLI_LABELS), CommandTask("gec_mnli", "validation_matched"), repo, 0)
    for task in ("robust_bench_gec_mnli", "robust_bench_gec_mnli_original"):
        docs, theirs = samples(task)
        ours = clf.loglikelihoods([(d["doc"]["premise"], d["doc"]["hypothesis"]) for d in docs])
        assert np.abs(ours - theirs).max() < 1e-4
        acc = np.mean([int(np.argmax(o)) == d["doc"]["label"] for o, d in zip(ours, docs)])
        assert abs(acc - results[task]["acc,none"]) < 1e-9


# --- bad input: one clear error, no run folder ----------------------------------------------------------


def _suite_with_prompt(suites: Path, name: str, prompt: dict) -> Path:
    path = suites / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "version": 1, "description": "an LLM prompt override",
                                    "extends": "default", "select": ["lit_mnli"],
                                    "overrides": {"lit_mnli": {"options": {"prompt": prompt}}}}))
    return path


@pytest.mark.parametrize("model, prompt, message", [
    ("nli", None, r"the hf backend scores causal LMs, and .* field 'architectures' is \['BertForSequenceClassification'\]"),
    ("no-chat", None, r"task 'gec_mnli': --apply-chat-template: the tokenizer of .* has no chat template"),
    ("plain", {"template": "{{premise}} {{claim}}"}, r"task 'lit_mnli': prompt suite: option 'prompt.template' uses a "
                                                     r"variable the rows do not have \('claim' is undefined\)"),
    ("plain", {"choices": ["True", "", "False"]}, r"option 'prompt.choices': the verbaliser of \['neutral'\] is empty"),
])
def test_bad_llm_input_is_one_error_and_no_run_folder(model, prompt, message, causal_lms, tiny_nli_classifier,
                                                      tiny_lm, smoke_repo, tmp_path):
    repo, suites = smoke_repo
    spec = {"nli": f"hf:{tiny_nli_classifier}", "no-chat": str(tiny_lm)}.get(model) or str(causal_lms[model])
    suite = _suite_with_prompt(suites, f"llm_bad_{len(message)}", prompt) if prompt else suites / "smoke.yaml"
    extra = ["--apply-chat-template"] if model == "no-chat" else []
    proc = run(["run", "--model", spec, "--suite", str(suite), "--repo", str(repo), "--output-dir",
                str(tmp_path / "runs"), "--device", "cpu", "--limit", "2", *extra], tmp_path, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    import re

    assert re.search(message, proc.stderr), proc.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("kind, message", [
    ("truncated", r"not a whole GGUF file \(truncated or damaged"),
    ("not-a-causal-lm", "GGUF model with architecture bert is not supported"),
    ("missing", "GGUF file .*missing.gguf does not exist"),
])
def test_a_bad_gguf_file_is_one_line_and_no_run_folder(kind, message, tmp_path):
    """A GGUF file cut short (the first 200 kB of the real SmolLM2 file), a GGUF of an encoder (written with
    the gguf package: architecture bert, one tensor) and a file that is not there."""
    import re

    import gguf

    from tests.conftest import SHARED

    path = tmp_path / f"{kind}.gguf"
    if kind == "truncated":
        with open(SHARED / "models" / SMOLLM2, "rb") as f:
            path.write_bytes(f.read(200_000))
    elif kind == "not-a-causal-lm":
        w = gguf.GGUFWriter(str(path), "bert")
        w.add_block_count(1)
        w.add_context_length(8)
        w.add_embedding_length(4)
        w.add_head_count(1)
        w.add_tensor("token_embd.weight", np.zeros((4, 4), dtype=np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
    proc = run(["run", "--model", str(path), "--suite", "smoke", "--tasks", "lit_mnli", "--repo", str(tmp_path / "repo"),
                "--output-dir", str(tmp_path / "runs")], tmp_path, check=False)
    errors = [x for x in proc.stderr.splitlines() if x.strip()]
    assert proc.returncode == 2 and len(errors) == 1 and re.search(message, errors[0]), proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "runs").exists()


# --- a real OpenAI-compatible server on localhost -------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(cmd: list[str], port: int, log: Path, timeout: float = 300):
    proc = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {log.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
            return proc
        except OSError:
            time.sleep(1)
    proc.kill()
    raise AssertionError(f"the server did not start in {timeout} s: {log.read_text()[-3000:]}")


def _stop(proc) -> None:
    import signal

    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def test_transformers_serve_scores_by_generation_and_is_refused_for_loglikelihood(causal_lms, smoke_repo, tmp_path):
    """`transformers serve` (transformers[serving]) is a real OpenAI-compatible server that returns no
    prompt log-probabilities: log-likelihood scoring is refused before anything is written, and
    generation with answer parsing runs, with its parse-failure rate in the record."""
    model = causal_lms["plain"]
    port = _free_port()
    exe = Path(sys.executable).with_name("transformers")
    server = _serve([str(exe), "serve", str(model), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"],
                    port, tmp_path / "serve.log")
    try:
        spec = f"openai-compatible:http://127.0.0.1:{port}/v1:{model}"
        refused = run_on_smoke(spec, tmp_path / "refused", smoke_repo, "--tasks", "lit_mnli", "--limit", "4", check=False)
        assert refused.returncode == 2 and "returned no prompt log-probabilities" in refused.stderr, refused.stderr
        assert not (tmp_path / "refused").exists()
        done = run_on_smoke(spec, tmp_path / "gen", smoke_repo, "--tasks", "lit_mnli", "--limit", "4",
                            "--scoring", "generate")
        # with the chat template, generation goes to /v1/chat/completions, where the server applies it
        run_on_smoke(spec, tmp_path / "chat", smoke_repo, "--tasks", "lit_mnli", "--limit", "4", "--scoring", "generate",
                     "--apply-chat-template")
    finally:
        _stop(server)
    chat = _records(tmp_path / "chat" / Path(model).name)["lit_mnli"]
    assert chat["model"]["llm"]["chat_template"] is True and chat["details"]["llm"]["queries"] > 0
    rec = _records(tmp_path / "gen" / Path(model).name)["lit_mnli"]
    assert rec["model"]["llm"]["backend"] == "openai-compatible" and rec["model"]["llm"]["scoring"] == "generate"
    d = rec["details"]["llm"]
    assert d["requests"] == d["queries"] > 0 and 0.0 <= d["parse_failure_rate"] <= 1.0
    assert d["parse_failures"] == round(d["parse_failure_rate"] * d["queries"]), done.stdout


def test_an_unreachable_server_is_a_timeout_not_a_hang(smoke_repo, tmp_path):
    port = _free_port()                       # nothing listens there
    start = time.monotonic()
    proc = run_on_smoke(f"openai-compatible:http://127.0.0.1:{port}/v1:some/model", tmp_path / "runs", smoke_repo,
                        "--tasks", "lit_mnli", check=False)
    assert proc.returncode == 2 and f"no answer from http://127.0.0.1:{port}/v1/completions within" in proc.stderr
    assert time.monotonic() - start < 60 and not (tmp_path / "runs").exists()


def test_leaderboard_rows_say_how_an_llm_was_asked(llm_runs):
    from types import SimpleNamespace

    from leaderboard.site import _llm_note, llm_setup

    a, asked = (SimpleNamespace(records=_records(llm_runs[k][0])) for k in ("a", "asked"))
    assert llm_setup(a)["num_fewshot"] == 0 and llm_setup(a)["backend"] == "hf"
    assert "LLM (hf), 0-shot, loglikelihood; prompts " in _llm_note(a)
    assert "LLM (hf), 0-shot, chat template, system instruction, loglikelihood, acc_norm; prompts " in _llm_note(asked)
    # the system instruction is recorded (the record validates with it) and part of the prompt's hash
    for task in ("lit_mnli", "names_mrpc"):
        theirs, ours = asked.records[task]["model"]["llm"], a.records[task]["model"]["llm"]
        assert theirs["system_instruction"] == SYSTEM and "system_instruction" not in ours
        assert theirs["prompt_sha256"] != ours["prompt_sha256"]


def test_one_model_asked_two_ways_is_two_rows_of_the_store(llm_runs, smoke_repo, tmp_path):
    """The same weights asked plainly and through their chat template go to one store as two rows of one
    model, under the same revision (no --revision trick): the store key holds how an LLM was asked. These
    runs were made with --limit, so they are listed as partial rows, and refused without --partial."""
    from robust_bench.leaderboard.store import init_store, iter_entries, open_store, submit
    from robust_bench.leaderboard.submission import SubmissionError
    from robust_bench.benchmarks import load_suite

    _, suites = smoke_repo
    store = init_store(tmp_path / "store", [load_suite(suites / "smoke.yaml")])
    with pytest.raises(SubmissionError, match=r"a partial run: task \w+ ran 8 of the \d+ examples"):
        submit(llm_runs["a"][0], open_store(store), model_id="tiny/taught")
    plain, _ = submit(llm_runs["a"][0], open_store(store), model_id="tiny/taught", partial=True)
    chat, _ = submit(llm_runs["asked"][0], open_store(store), model_id="tiny/taught", partial=True)
    assert plain.revision == chat.revision and plain.asked != chat.asked
    assert plain.asked.startswith("hf-plain-0shot-loglikelihood-") and chat.asked.startswith("hf-chat-0shot-loglikelihood-accnorm-")
    rows = {(e.model_id, e.revision, e.asked) for e in iter_entries(store)}
    assert rows == {("tiny/taught", plain.revision, plain.asked), ("tiny/taught", plain.revision, chat.asked)}
    with pytest.raises(SubmissionError, match="already on the leaderboard"):
        submit(llm_runs["asked"][0], open_store(store), model_id="tiny/taught", partial=True)
