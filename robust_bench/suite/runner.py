"""``robust-bench run``: score one model on every task of a suite that fits it.

The run folder's files (``run.json``, ``logs/<task>.jsonl``, ``records/<task>.json``) are read and
written by :mod:`robust_bench.results.runs`; each task's examples are scored by its evaluation
(:mod:`robust_bench.evaluations`); ``report.md``, ``report.html`` and ``figures/`` are written by
:mod:`robust_bench.leaderboard.report`.

Every file is written atomically and a task's files only once it has finished, so an interrupted
run is resumed (``resume=True``) by running the tasks that have no log yet. A shard
(``shard=(i, n)``, 0-based) keeps the examples whose id hashes to ``i`` modulo ``n``, and every
example is searched with a seed derived from (seed, its position in the split), so shards merged
with :func:`merge_runs` give the records of an unsharded run, byte for byte apart from timestamps.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from robust_bench.benchmarks import Suite, Task, load_suite
from robust_bench.evaluations import EvalOutput, get_evaluation, task_classifier, unit_ids, with_clusters
from robust_bench.io.fileio import remove_stale_temporaries
from robust_bench.models.resolve import ModelHandle, ModelSpec, public_name, resolve_model, spec_name
from robust_bench.perturb.setup import ANY, check_setup
from robust_bench.results.records import package_versions
from robust_bench.results.runs import (RUN_FILE, RunError, read_log, read_manifest, record_from_log, write_log,
                                       write_manifest, write_task_record)

__all__ = ["RunError", "run_suite", "merge_runs", "run_folder", "shard_of", "parse_shard", "select_rows"]


def run_folder(output_dir: str | os.PathLike, model: str, shard: tuple[int, int] | None = None) -> Path:
    """Where ``robust-bench run`` puts a run: ``OUTPUT_DIR/<model>`` (the file-name-safe name,
    :func:`robust_bench.results.records.model_slug`, of what the spec names,
    :func:`robust_bench.models.resolve.spec_name`), or ``OUTPUT_DIR/<model>.shard-<i>-of-<n>`` for
    shard ``i`` (0-based) of ``n``."""
    from robust_bench.results.records import model_slug

    name = model_slug(spec_name(model))
    return Path(output_dir) / (name if shard is None else f"{name}.shard-{shard[0] + 1}-of-{shard[1]}")


def shard_of(unit_id: str, n_shards: int) -> int:
    """The shard (0-based) of an example id: its SHA-256 modulo ``n_shards``; stable across
    processes and machines (unlike Python's ``hash``)."""
    return int(hashlib.sha256(unit_id.encode("utf-8")).hexdigest()[:16], 16) % n_shards


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/N"`` (1-based, as users count) -> ``(i - 1, N)``.

    Raises
    ------
    ValueError
        If the text is not ``i/N`` with 1 <= i <= N.
    """
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError(f"--shard must be i/N with 1 <= i <= N, e.g. 1/2; got {text!r}")
    return int(m.group(1)) - 1, int(m.group(2))


@dataclass
class _TaskData:
    rows: Any
    positions: list[int]
    corpus_sha256: str
    #: how many examples (units: rows, or groups of rows) were asked for; an evaluation may score fewer
    #: (a probe drops a sentence its tokenizer cannot align)
    n_asked: int = 0


def select_rows(task: Task, repo: Path, limit: int | None, shard: tuple[int, int] | None,
            ids: set[str] | None = None) -> _TaskData:
    """The task's rows of the built config in ``repo`` (its hash checked against the suite's pin):
    the first ``limit`` units, those of ``shard``, or the units named in ``ids``, with their
    positions in the split (attack seeds derive from them)."""
    import datasets

    from robust_bench.data.repository import built_config

    meta = built_config(repo, task.config, task.split)
    sha = meta["files"][task.split]["sha256"]
    if task.data_sha256 and sha != task.data_sha256:
        raise RunError(f"data hash mismatch for {task.config}/{task.split}: built {sha[:12]}…, the suite pins "
                       f"{task.data_sha256[:12]}…; rebuild it as the suite says ({task.build or 'seed 0, defaults'}) "
                       "or pin a suite of your own (`robust-bench suite pin`)")
    rows = datasets.load_dataset(str(repo), task.config, split=task.split)
    units = unit_ids(task.evaluation, rows, task.split)
    order: dict[str, int] = {}
    for u in units:
        order.setdefault(u, len(order))
    lim = min(x for x in (limit, task.limit) if x) if (limit or task.limit) else None
    keep = [k for k, u in enumerate(units) if (lim is None or order[u] < lim)
            and (shard is None or shard_of(u, shard[1]) == shard[0]) and (ids is None or u in ids)]
    asked = {units[k] for k in keep}
    if ids is not None and len(asked) != len(ids):
        missing = sorted(ids - asked)
        raise RunError(f"{task.config}/{task.split} holds no example {missing[0]!r} ({len(missing)} missing)")
    return _TaskData(rows.select(keep), keep, sha, len(asked))


def _fits(task: Task, spec: ModelSpec) -> str | None:
    if task.interface not in spec.interfaces and spec.kind == "causal-lm":
        probed = " and probed as an encoder (hf backend)" if spec.backend == "hf" else ""
        return (f"needs {'an' if task.interface[0] in 'aeiou' else 'a'} {task.interface} model; a causal LM "
                f"({spec.backend}) is scored on sequence-classification tasks as multiple choice{probed}")
    if task.interface not in spec.interfaces:
        return (f"needs {'an' if task.interface[0] in 'aeiou' else 'a'} {task.interface} model; "
                f"{public_name(spec.id)} provides {', '.join(spec.interfaces)} "
                f"({spec.kind}{': ' + ', '.join(spec.architectures) if spec.architectures else ''})")
    return None


def _llm_preflight(handle: ModelHandle, tasks: Sequence[Task], repo: Path, seed: int) -> dict:
    """Load (or reach) the causal LM and build every classification task's prompt, verbalisers and
    shots before the run folder is written, so that a bad option leaves nothing behind; the settings
    the run is identified by.

    Raises
    ------
    LLMError
        The first problem found, naming the option or field.
    """
    from robust_bench.models.llm import LLMError, LLMSettings

    handle.llm_backend()
    for task in tasks:
        if task.interface != "sequence-classification":
            continue
        try:
            labels = list(select_rows(task, repo, 1, None).rows.features["label"].names)
        except Exception:  # noqa: BLE001 - not built, another hash, no labels: the task fails on its own when it runs
            continue
        try:
            task_classifier(handle, labels, task, repo, seed)
        except LLMError as exc:
            raise LLMError(f"task {task.name!r}: {exc}") from None
    return (handle.llm or LLMSettings()).as_dict()


def _runtime(device: str, dtype: str, batch_size: int) -> dict:
    """Where the model ran: the resolved device, the weights' dtype and the batch size, which
    ``leaderboard verify`` repeats (predictions near a tie can differ between bf16 and fp32)."""
    from robust_bench.models.loader import resolve_device, resolve_dtype

    dev = resolve_device(device)
    return {"device": dev, "dtype": str(resolve_dtype(dev, dtype)).removeprefix("torch."), "batch_size": batch_size}


def run_suite(model: str, suite: str | Suite, *, repo: str | os.PathLike, out: str | os.PathLike,
              tasks: Sequence[str] | None = None, limit: int | None = None, resume: bool = False,
              shard: tuple[int, int] | None = None, seed: int = 0, revision: str | None = None,
              device: str = "auto", dtype: str = "auto", batch_size: int = 64, report: bool = True,
              llm=None, setup: str = "suite", prompts: str = "default", on_task: Callable | None = None,
              interface: str | None = None, echo: Callable[[str], None] = print) -> dict:
    """Score ``model`` on every task of ``suite`` that fits it; write the run folder ``out``.

    Parameters
    ----------
    model : str
        A model spec (:func:`robust_bench.models.resolve.resolve_model`).
    suite : str or Suite
        A shipped suite's name, a YAML path, or a loaded suite.
    repo : path-like
        Dataset repository holding the built configs.
    out : path-like
        The run folder.
    tasks : sequence of str, optional
        Only these tasks (names or families).
    limit : int, optional
        At most the first ``limit`` examples (groups for name swaps) of each task, on top of the
        suite's own limits.
    resume : bool
        Continue the run in ``out``: tasks with a log are kept, the others are run.
    shard : (int, int), optional
        ``(i, n)``, 0-based: only the examples of shard ``i`` of ``n``; no records are written
        (merge the shards with :func:`merge_runs`).
    seed : int
        Seed of the attacks, the probes and the bootstrap.
    revision : str, optional
        Branch, tag or commit of a Hub model; the run records the commit it resolved to.
    llm : robust_bench.models.llm.LLMSettings, optional
        How a causal LM is asked (k-shot, chat template, scoring); recorded in the manifest and in
        every record's ``model.llm``.
    setup : {"suite", "any"}
        ``"suite"``: before any work, the artifacts the tasks depend on (the suite's ``setup``: spaCy
        pipelines, the meaning encoder) must be the declared ones (:func:`robust_bench.perturb.setup.check_setup`),
        and ``run.json`` records them; ``"any"``: not checked, recorded as ``"any"``; such a run is not ranked.
    prompts : {"default", "all"}
        ``"all"`` (a causal LM only): after the run, every task the LLM was asked is scored again under each
        paraphrased template of the suite (:func:`robust_bench.models.llm.prompt_variants`), on the same rows;
        each template's log goes to ``prompts/<task>/<template>.jsonl`` and ``run.json`` records, per task,
        the metrics under each template, their spread and the perturbation effect relative to it
        (:func:`robust_bench.scoring.sensitivity.prompt_sensitivity`). The records, which rank, are those of
        lm-eval's own prompt.
    on_task : callable, optional
        ``on_task(task, rows, result, handle)`` once a task's files are written (the rows, the
        :class:`~robust_bench.evaluations.EvalOutput` with ``extras``): a command's tables; an error is a warning.
    interface : str, optional
        As :func:`~robust_bench.models.resolve.resolve_model` (``parser``: a plain function is a parser).

    Returns
    -------
    dict
        The manifest written to ``run.json``.

    Raises
    ------
    RunError
        If ``out`` holds a run and ``resume`` is false, or holds another model's or suite version's run.
    RunFolderError
        If the ``run.json`` being resumed is malformed (naming the field).
    InterfaceError, SuiteError
        If the model cannot be found or the suite is invalid.
    LLMError
        If a causal LM cannot be loaded or reached, or a task's prompt or verbalisers cannot be used:
        refused before the run folder is written.
    SetupError
        If an artifact a task depends on is not the suite's (naming the role and how to get the right one):
        refused before the run folder is written.
    """
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    selected = list(suite.tasks)
    if tasks:
        unknown = [t for t in tasks if not any(t in (x.name, x.family) for x in suite.tasks)]
        if unknown:
            raise RunError(f"--tasks {unknown} name no task or family of suite {suite.name!r}; tasks: "
                           f"{', '.join(t.name for t in suite.tasks)}")
        selected = [t for t in suite.tasks if t.name in tasks or t.family in tasks]
    out, repo = Path(out), Path(repo)
    spec = resolve_model(model, revision, interface=interface)
    handle = ModelHandle(spec, device=device, dtype=dtype, batch_size=batch_size, llm=llm)
    # published files name a local model by its base name; its revision (local-<sha256>) pins its content
    ident = {"model": public_name(model), "suite": {"name": suite.name, "version": suite.version},
             "shard": list(shard) if shard else None, "seed": seed, "limit": limit}
    _check_choices(model, spec, setup, prompts, shard)
    roles = {r for t in selected if not _fits(t, spec) for r in t.setup}
    found = (ANY if setup == ANY else check_setup(suite.setup, roles)) if roles else None
    if spec.kind == "causal-lm":
        ident["llm"] = _llm_preflight(handle, [t for t in selected if not _fits(t, spec)], repo, seed)
        from robust_bench.models.llm import LLMSettings, chat_template_warning

        warning = chat_template_warning(public_name(model), llm or LLMSettings())
        if warning:
            echo(f"warning: {warning}")
    manifest = _opened_manifest(out, ident, spec, handle, resume=resume, found=found, model=model, echo=echo)
    manifest["versions"] = package_versions("datasets", "transformers", "torch", "scipy", "spacy")
    manifest["runtime"] = _runtime(device, dtype, batch_size)
    out.mkdir(parents=True, exist_ok=True)
    write_manifest(out, manifest)
    revision = None
    for task in selected:
        done = manifest["tasks"].get(task.name, {})
        if resume and done.get("status") == "done" and (out / "logs" / f"{task.name}.jsonl").is_file():
            echo(f"  {task.name}: done earlier, kept")
            continue
        reason = _fits(task, spec)
        if reason:
            manifest["tasks"][task.name] = {"status": "skipped", "reason": reason}
            echo(f"  {task.name}: skipped, {reason}")
            write_manifest(out, manifest)
            continue
        start = time.perf_counter()
        try:
            data = select_rows(task, repo, limit, shard)
            # finished units of a long task (attacks, probe searches) are kept here until the task ends,
            # so a killed run resumes inside the task
            work = out / ".partial" / task.name
            evaluation = get_evaluation(task.evaluation)
            evaluation.check_options(task)
            result: EvalOutput = evaluation.run(handle, task, data.rows, data.positions, seed, repo, work=work)
            # each line names its cluster (the source it was drawn from), which the record's intervals resample;
            # a cluster the rows cannot give fails this task, not the run
            result.examples = with_clusters(task.evaluation, data.rows, task.split, result.examples)
        except Exception as exc:  # noqa: BLE001 - reported per task; the other tasks still run
            from robust_bench.models.classifiers import LabelMappingError

            status = "skipped" if isinstance(exc, LabelMappingError) else "failed"
            msg = f"{type(exc).__name__}: {exc}" if status == "failed" else f"labels do not fit: {exc}"
            manifest["tasks"][task.name] = {"status": status, "reason": msg}
            echo(f"  {task.name}: {status}, {msg}")
            write_manifest(out, manifest)
            continue
        revision = revision or handle.revision()
        _write_task(out, suite, task, result, data, handle, manifest, revision=revision, seed=seed, limit=limit,
                    shard=shard, seconds=time.perf_counter() - start, work=work, echo=echo)
        if on_task is not None:  # a command's tables: an error is a warning, the run's files stay whole
            try:
                on_task(task, data.rows, result, handle)
            except Exception as exc:  # noqa: BLE001
                echo(f"  {task.name}: warning: the command's tables were not made: {type(exc).__name__}: {exc}")
    if prompts == "all":
        _score_prompt_templates(handle, suite, selected, manifest, out=out, repo=repo, limit=limit, seed=seed,
                                echo=echo)
    if report and shard is None:
        from robust_bench.leaderboard.report import write_report

        write_report(out)
    return manifest


def _write_task(out: Path, suite: Suite, task: Task, result: EvalOutput, data: _TaskData, handle: ModelHandle,
                manifest: dict, *, revision, seed: int, limit, shard, seconds: float, work: Path,
                echo: Callable[[str], None]) -> None:
    """A finished task's files: its log (then its partial results go), its entry in ``run.json`` and, unsharded,
    its record; one line said."""
    log_sha = write_log(out / "logs" / f"{task.name}.jsonl", result.examples)
    shutil.rmtree(work, ignore_errors=True)
    entry = {"status": "done", "n_examples": len(result.examples), "n_asked": data.n_asked,
             "corpus_sha256": data.corpus_sha256, "log_sha256": log_sha, "details": result.details,
             "wall_seconds": round(seconds, 2)}
    asked = handle.llm_setup(task.name)
    if asked is not None:
        entry["llm"] = asked = {**asked, "wall_seconds": entry["wall_seconds"]}
    manifest["tasks"][task.name] = entry
    manifest["revision"] = revision
    if shard is None:
        rec = record_from_log(task, suite, sorted(result.examples, key=lambda e: e["id"]), log_sha256=log_sha,
                              model_id=manifest["model"], revision=revision, corpus_sha256=data.corpus_sha256,
                              seed=seed, limit=limit, llm=asked)
        write_task_record(out, task.name, rec)
        m = rec["metrics"][task.primary]
        lo, hi = rec["intervals"][task.primary]
        echo(f"  {task.name}: {task.primary} {_fmt(m)} [{_fmt(lo)}, {_fmt(hi)}] on {len(result.examples)} examples "
             f"({entry['wall_seconds']:.1f} s)")
    else:
        echo(f"  {task.name}: shard {shard[0] + 1}/{shard[1]}, {len(result.examples)} examples "
             f"({entry['wall_seconds']:.1f} s)")
    write_manifest(out, manifest)


def _opened_manifest(out: Path, ident: dict, spec: ModelSpec, handle: ModelHandle, *, resume: bool, found,
                     model: str, echo: Callable[[str], None]) -> dict:
    """The manifest a run starts from: a new one, or, with ``resume``, the one in ``out`` once it is checked to
    be this run's (same identity, same weights); its ``setup`` the one found (RunError otherwise)."""
    if (out / RUN_FILE).exists():
        if not resume:
            raise RunError(f"{out} already holds a run; pass --resume to continue it or choose another --output-dir")
        manifest = read_manifest(out)
        theirs = {k: manifest.get(k) for k in ident}
        if theirs != ident:
            raise RunError(f"{out} holds a different run ({theirs}); cannot resume it as {ident}")
        if manifest.get("revision") and handle.revision() != manifest["revision"]:
            raise RunError(f"{out} holds a run of other weights ({manifest['revision']}) than {model} "
                           f"({handle.revision()}); cannot resume it")
        for p in remove_stale_temporaries(out):
            echo(f"  removed {p.relative_to(out)}, left by the interrupted run")
        manifest["setup"] = _resumed_setup(out, manifest.get("setup"), found)
    else:
        manifest = {**ident, "tasks": {}, "interfaces": list(spec.interfaces), "model_kind": spec.kind}
    if "setup" not in manifest and found is not None:
        manifest["setup"] = found
    if manifest.get("setup") is None:
        manifest.pop("setup", None)
    return manifest


def _check_choices(model: str, spec: ModelSpec, setup: str, prompts: str, shard) -> None:
    """``--setup`` and ``--prompts``, before any work; RunError naming the option."""
    if setup not in ("suite", ANY):
        raise RunError(f"--setup {setup!r}: 'suite' (check the suite's declared pipelines) or 'any'")
    if prompts not in ("default", "all"):
        raise RunError(f"--prompts {prompts!r}: 'default' (lm-eval's prompt) or 'all' (every template of the suite)")
    if prompts == "all" and (spec.kind != "causal-lm" or shard is not None):
        raise RunError("--prompts all scores an LLM's prompt templates: "
                       + (f"{model} is not a causal LM" if spec.kind != "causal-lm" else "run it unsharded"))


def _score_prompt_templates(handle: ModelHandle, suite: Suite, selected: Sequence[Task], manifest: dict, *, out: Path,
                            repo: Path, limit: int | None, seed: int, echo: Callable[[str], None]) -> None:
    """``run --prompts all``: every task the LLM was asked, scored again under each of the suite's other
    templates on the same rows (a template's log already in ``prompts/<task>/`` is kept on resume); the
    per-template metrics, the spread and each template's prompt SHA-256 go into ``run.json``
    (``tasks.<task>.prompts``, and ``prompts.templates``: template -> prompt SHA-256 per task, which ``check``
    compares); a task whose templates cannot be scored gets ``prompts_error`` and the others go on."""
    from dataclasses import replace

    from robust_bench.models.llm import prompt_variants
    from robust_bench.results.runs import log_columns
    from robust_bench.scoring.sensitivity import prompt_sensitivity

    for task in selected:
        entry = manifest["tasks"].get(task.name, {})
        variants = prompt_variants(task.config, task.options, suite.prompts)
        if entry.get("status") != "done" or "llm" not in entry or len(variants) < 2:
            continue
        evaluation = get_evaluation(task.evaluation)
        names = {m.name for m in task.metrics}
        pair = next(((c, p) for c, p in evaluation.pairs if c in names and p in names), None)
        if pair is None:
            continue
        entry.pop("prompts_error", None)
        kept = dict((entry.get("prompts") or {}).get("prompt_sha256") or {})
        try:        # a template that cannot be asked (a server gone, a verbaliser that fails) costs its task only
            logs = {variants[0][0]: read_log(out / "logs" / f"{task.name}.jsonl")}
            hashes = {variants[0][0]: entry["llm"].get("prompt_sha256")}
            for name, prompt in variants[1:]:
                path = out / "prompts" / task.name / f"{name}.jsonl"
                vtask = replace(task, name=f"{task.name}__{name}", options={**task.options, "prompt": prompt})
                if not path.is_file():
                    start = time.perf_counter()
                    data = select_rows(task, repo, limit, None)
                    work = out / ".partial" / vtask.name
                    result = evaluation.run(handle, vtask, data.rows, data.positions, seed, repo, work=work)
                    write_log(path, result.examples)
                    shutil.rmtree(work, ignore_errors=True)
                    echo(f"  {task.name} under template {name}: {len(result.examples)} examples "
                         f"({time.perf_counter() - start:.1f} s)")
                    hashes[name] = (handle.llm_setup(vtask.name) or {}).get("prompt_sha256")
                else:       # kept from the interrupted run: its hash as recorded then
                    hashes[name] = kept.get(name)
                logs[name] = read_log(path)
            ids = [e["id"] for e in sorted(logs[variants[0][0]], key=lambda e: e["id"])]
            columns = {}
            for name, examples in logs.items():
                examples = sorted(examples, key=lambda e: e["id"])
                if [e["id"] for e in examples] != ids:
                    raise RunError(f"{out / 'prompts' / task.name / (name + '.jsonl')}: not the rows of "
                                   f"logs/{task.name}.jsonl")
                columns[name] = log_columns(examples)
            clean, perturbed = task.metric(pair[0]), task.metric(pair[1])
            entry["prompts"] = {"metrics": list(pair), "prompt_sha256": hashes, **prompt_sensitivity(
                columns, clean.formula, perturbed.formula, higher_is_better=clean.higher_is_better, seed=seed)}
        except Exception as exc:  # noqa: BLE001 - recorded per task, as a task's own failure is
            entry.pop("prompts", None)
            entry["prompts_error"] = f"{type(exc).__name__}: {exc}"
            echo(f"  {task.name}: prompt templates failed, {entry['prompts_error']}")
            write_manifest(out, manifest)
            continue
        s = entry["prompts"]
        echo(f"  {task.name}: {pair[0]} over {len(variants)} templates {_fmt(s['clean_spread']['min'])} to "
             f"{_fmt(s['clean_spread']['max'])}; perturbation effect {_fmt(s['effect'])}, "
             f"{_fmt(s['effect_over_spread'])} times the spread")
        write_manifest(out, manifest)
    # the templates of every task scored so (a resume over fewer --tasks keeps the others'), with their hashes
    asked = {t: e["prompts"]["prompt_sha256"] for t, e in manifest["tasks"].items() if isinstance(e.get("prompts"), dict)}
    if asked:                   # no task the LLM was asked has paraphrases: the run is a default one
        manifest["prompts"] = {"templates": asked}
        write_manifest(out, manifest)


def _resumed_setup(out: Path, recorded, found):
    """The set-up of a resumed run: the roles checked now must agree with those recorded when it started
    (a resume may add tasks, and with them roles).

    Raises
    ------
    RunError
        If one run would mix ``--setup any`` with a checked set-up, or a role's artifact changed.
    """
    if recorded is None or found is None:
        return recorded if found is None else found
    if ANY in (recorded, found):
        if recorded != found:
            raise RunError(f"{out} was started with --setup {'any' if recorded == ANY else 'suite'}; resume it the same way")
        return recorded
    changed = sorted(r for r in set(recorded) & set(found) if recorded[r].get("sha256") != found[r]["sha256"])
    if changed:
        raise RunError(f"{out} was run with another {', '.join(changed)} ({recorded[changed[0]].get('name')}); "
                       "resume it with the same pipelines")
    return {**recorded, **found}


def _merged_llm(task: str, states: Sequence[dict]) -> dict | None:
    """One task's causal-LM setup across shards (the same in each) with their counts summed."""
    from robust_bench.results.runs import LLM_SETUP

    setups = [s.get("llm") for s in states]
    if not any(setups):
        return None
    if any(not x or {k: x.get(k) for k in LLM_SETUP} != {k: setups[0].get(k) for k in LLM_SETUP} for x in setups):
        raise RunError(f"task {task!r}: the shards asked the LLM differently")
    out = {k: setups[0][k] for k in LLM_SETUP if k in setups[0]}
    for k in ("queries", "requests", "truncated", "parse_failures", "wall_seconds"):
        if k in setups[0]:
            out[k] = sum(x[k] for x in setups)
    if "parse_failures" in out:
        out["parse_failure_rate"] = out["parse_failures"] / out["queries"] if out["queries"] else 0.0
    return out


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def merge_runs(shard_dirs: Sequence[str | os.PathLike], out: str | os.PathLike, *, suite: str | Suite | None = None,
               report: bool = True) -> dict:
    """Join the shard folders of one run into a run folder with records.

    The logs are concatenated and sorted by id and the records computed from them as an unsharded
    run computes them, so they are identical apart from their timestamps.

    Parameters
    ----------
    shard_dirs : sequence of path-like
        Every shard of one run (same model, suite version, seed and limit; shards 1..N once each).
    out : path-like
    suite : str or Suite, optional
        Where the suite file is not a shipped one (default: the name in the shards' manifests).

    Raises
    ------
    RunError
        Missing, repeated or foreign shards; a task done in some shards only; ids in two shards.
    RunFolderError
        A shard's ``run.json`` or log that is malformed (naming the file, line and field).
    """
    manifests = [read_manifest(d) for d in shard_dirs]
    first = manifests[0]
    keys = ("model", "suite", "seed", "limit", "llm", "setup")
    for d, m in zip(shard_dirs, manifests):
        if m.get("shard") is None:
            raise RunError(f"{d} is not a shard (run without --shard)")
        if any(m.get(k) != first.get(k) for k in keys):
            raise RunError(f"{d} is a shard of another run: {({k: m.get(k) for k in keys})} vs "
                           f"{({k: first.get(k) for k in keys})}")
    n = first["shard"][1]
    got = sorted(m["shard"][0] for m in manifests)
    if got != list(range(n)) or any(m["shard"][1] != n for m in manifests):
        raise RunError(f"need shards 1..{n} once each; got {[g + 1 for g in got]}")
    suite = suite if isinstance(suite, Suite) else load_suite(suite or first["suite"]["name"])
    if suite.version != first["suite"]["version"]:
        raise RunError(f"the shards ran suite {suite.name!r} v{first['suite']['version']}, not v{suite.version}")
    out = Path(out)
    if (out / RUN_FILE).exists():
        raise RunError(f"{out} already holds a run; merge into a new folder")
    manifest = {k: first[k] for k in ("model", "suite", "seed", "limit", "interfaces", "model_kind", "versions")}
    for key in ("llm", "setup"):
        if key in first:
            manifest[key] = first[key]
    if "runtime" in first:
        manifest["runtime"] = first["runtime"]
    manifest.update({"shard": None, "tasks": {}, "merged_from": [Path(d).name for d in shard_dirs],
                     "revision": first.get("revision")})
    out.mkdir(parents=True, exist_ok=True)
    for task in suite.tasks:
        states = [m["tasks"].get(task.name) for m in manifests]
        if all(s is None for s in states):
            continue
        if any(s is None or s["status"] != states[0]["status"] for s in states):
            raise RunError(f"task {task.name!r} has different states across shards: "
                           f"{[s and (s['status'] + (': ' + s['reason'] if s.get('reason') else '')) for s in states]}")
        if states[0]["status"] != "done":
            manifest["tasks"][task.name] = states[0]
            continue
        examples = []
        for d in shard_dirs:
            examples += read_log(Path(d) / "logs" / f"{task.name}.jsonl")
        ids = [e["id"] for e in examples]
        if len(set(ids)) != len(ids):
            raise RunError(f"task {task.name!r}: an example appears in two shards")
        shas = {s["corpus_sha256"] for s in states}
        if len(shas) != 1:
            raise RunError(f"task {task.name!r}: the shards scored different data ({sorted(shas)})")
        log_sha = write_log(out / "logs" / f"{task.name}.jsonl", examples)
        llm = _merged_llm(task.name, states)
        rec = record_from_log(task, suite, sorted(examples, key=lambda e: e["id"]), log_sha256=log_sha,
                              model_id=first["model"], revision=first.get("revision"), corpus_sha256=shas.pop(),
                              seed=first["seed"], limit=first["limit"], llm=llm)
        write_task_record(out, task.name, rec)
        manifest["tasks"][task.name] = {"status": "done", "n_examples": len(examples),
                                        "n_asked": sum(s.get("n_asked", s["n_examples"]) for s in states),
                                        "log_sha256": log_sha,
                                        "corpus_sha256": rec["corpus_sha256"],
                                        "wall_seconds": round(sum(s["wall_seconds"] for s in states), 2),
                                        "details": [s.get("details") for s in states]}
        if llm:
            manifest["tasks"][task.name]["llm"] = llm
    write_manifest(out, manifest)
    if report:
        from robust_bench.leaderboard.report import write_report

        write_report(out)
    return manifest
