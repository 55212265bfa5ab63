"""The family commands (``robust-bench evaluate``, ``attack``, ...) as one-task suites (issue 52).

A family command scores one model on one config split with the family's registered evaluation, through
:func:`robust_bench.suite.runner.run_suite`: the same per-example log, the same v2 record
(:func:`robust_bench.results.runs.record_from_log`) and the same report as ``robust-bench run``, so its
output goes to ``check``, ``submit`` and ``report`` like any run. What the command adds, the paper's own
tables and figures, are views computed from the log (and, where a table needs the live search, from the
evaluation's ``extras``), written beside the run's files under ``tables/`` and ``figures/``.

Which suite a command runs:

* the shipped suite of the family (``lit``, ``grammatical_errors``...) restricted to the task of that
  config and split, when the command's options are the task's own: its records are those of
  ``robust-bench run --suite <family> --tasks <task>``, and ``submit`` takes them;
* otherwise (another split, another search or budget, a label map...), a one-task suite derived from it,
  named ``<config>_command`` and written into the run folder as ``suite.yaml``: ``check`` compares two such
  runs (it reads the folder's ``suite.yaml``), ``submit`` refuses them, since they are not the benchmark's
  protocol.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from robust_bench.benchmarks import MetricSpec, Suite, SuiteError, Task, list_suites, load_suite, suite_yaml
from robust_bench.data.registry import get_config
from robust_bench.evaluations import EvalOutput, evaluations
from robust_bench.io.fileio import atomic_write_text
from robust_bench.models.resolve import ModelHandle
from robust_bench.results.runs import RunError, log_columns
from robust_bench.scoring.intervals import metric_value
from robust_bench.suite.runner import run_folder, run_suite

__all__ = ["SUITE_FILE", "command_suite", "run_command", "write_view", "evaluate_contrast_sets", "attack_command",
           "probe_command", "names_command"]

#: the one-task suite a command ran, when it is not a shipped one
SUITE_FILE = "suite.yaml"


def _family_suite(family: str) -> Suite:
    return load_suite(family if family in list_suites() else "default")


def command_suite(config: str, splits: str | list[str], *, repo: str | os.PathLike | None = None,
                  suite: str | os.PathLike | None = None, evaluation: str | None = None,
                  interface: str | None = None, options: dict | None = None) -> tuple[Suite, list[Task]]:
    """The suite and tasks a family command runs for ``config`` on ``splits`` with ``options``.

    Parameters
    ----------
    config : str
    splits : str or list of str
        One task per split.
    repo : path-like, optional
        The dataset repository: a task whose pinned hash is not that of the data built there is not the
        suite's (the command still runs, as a derived suite's, unpinned).
    suite : str or path-like, optional
        The suite whose task the command runs (default: the family's shipped suite, else ``default``).
    evaluation : str, optional
        The registered evaluation (default: that of the family's shipped task, else the family's only one).
    interface : str, optional
        The model interface, for a config no shipped task names (default: the shipped tasks').
    options : dict, optional
        Evaluation options; None values are left out (the evaluation's defaults).

    Returns
    -------
    (Suite, list of Task)
        The (shipped family) suite and its tasks when every split is one of its tasks, the options are the
        tasks' own (a task's options contain the requested ones) and the data built in ``repo`` are the pinned
        ones; else a derived suite ``<config>_command_<hash>`` (named by a hash of its tasks, so that runs with
        other options or data are runs of other suites; version 1; the family suite's setup; a task keeps the
        pinned hash where the data built in ``repo`` are the pinned split's) and its tasks, one per split,
        named ``<config>`` (``<config>_<split>`` when there are several splits and the split is not the
        shipped task's).

    Raises
    ------
    UnknownConfigError
        If no builder owns ``config``.
    SuiteError
        If the family has several evaluations and none is named, or none is ``evaluation``.
    """
    splits = [splits] if isinstance(splits, str) else list(splits)
    family = get_config(config).family
    shipped = load_suite(suite) if suite else _family_suite(family)
    opts = {k: v for k, v in (options or {}).items() if v is not None}

    def fits(t: Task) -> bool:
        return t.config == config and (evaluation is None or t.evaluation == evaluation)

    built = {}
    if repo is not None:
        from robust_bench.data.repository import built_config

        built = {sp: f["sha256"] for sp, f in built_config(repo, config)["files"].items()}
    # the suite's own task: its config and split, options that contain the requested ones, the pinned data
    same = {sp: next((t for t in shipped.tasks if fits(t) and t.split == sp and {**t.options, **opts} == t.options
                      and (not t.data_sha256 or not built or built.get(sp) == t.data_sha256)), None) for sp in splits}
    if all(t is not None for t in same.values()):
        return shipped, list(same.values())
    base = next((t for t in shipped.tasks if fits(t) and {**t.options, **opts} == t.options), None) or next(
        (t for t in shipped.tasks if fits(t)), None) or next(
        (t for t in shipped.tasks if t.family == family and (evaluation is None or t.evaluation == evaluation)), None)
    evaluation = evaluation or (base.evaluation if base is not None else None)
    named = [e for e in evaluations() if e.family == family and (evaluation is None or e.name == evaluation)]
    if len(named) != 1:
        raise SuiteError(f"family {family!r} has evaluations {[e.name for e in evaluations() if e.family == family]}"
                         f"; {'name one' if evaluation is None else f'none is {evaluation!r}'}")
    ev = named[0]
    # a metric that needs an option (Table 3's random row) is reported when the option is set
    wanted = [m for m in ev.metrics if m.option is None or {**(base.options if base else {}), **opts}.get(m.option)]
    if base is not None and base.evaluation == ev.name:
        metrics, primary, base_opts = base.metrics, base.primary, dict(base.options)
        metrics += tuple(MetricSpec(m.name, m.higher_is_better, m.range, m.formula) for m in wanted
                         if m.option is not None and m.name not in {x.name for x in metrics})
    else:
        metrics = tuple(MetricSpec(m.name, m.higher_is_better, m.range, m.formula) for m in wanted)
        primary, base_opts = metrics[0].name, {}
    stem = re.sub(r"[^a-z0-9_]", "_", config.lower())
    tasks = []
    for sp in splits:
        pinned = next((t for t in shipped.tasks if fits(t) and t.split == sp and t.data_sha256
                       and (not built or built.get(sp) == t.data_sha256)), None)
        own = base is not None and base.config == config and base.split == sp
        name = stem if own or len(splits) == 1 else f"{stem}_{re.sub(r'[^a-z0-9_]', '_', sp.lower())}"
        tasks.append(Task(name=name[:64], family=family, config=config, split=sp,
                          interface=interface or (base.interface if base is not None else "sequence-classification"),
                          evaluation=ev.name, metrics=metrics, primary=primary,
                          # the pinned data, else the data built here (so the derived suite's name covers them)
                          data_sha256=pinned.data_sha256 if pinned else built.get(sp),
                          examples=pinned.examples if pinned else None,
                          options={**base_opts, **opts}, setup=base.setup if base is not None else ()))
    how = ", ".join(f"{k}={v!r}" for k, v in sorted(opts.items())) or "its defaults"
    if any(t is None for t in same.values()) and built:
        how += " (or a split the suite does not score, or data other than the suite pins)"
    draft = Suite(name="draft", version=1, description="", tasks=tuple(tasks), setup=shipped.setup)
    # the derived suite is named by its content: two commands with other options or data are other suites
    digest = hashlib.sha256(suite_yaml(draft).encode("utf-8")).hexdigest()[:8]
    derived = Suite(name=f"{stem[:46]}_command_{digest}", version=1,
                    description=f"robust-bench's family command on {config} ({', '.join(splits)}) with {how}: derived "
                                f"from suite {shipped.name} v{shipped.version}; not the benchmark's protocol (not "
                                "ranked).", tasks=tuple(tasks), source="", setup=shipped.setup, prompts=shipped.prompts)
    return derived, tasks


def run_command(model: str, suite: Suite, tasks: list[Task], *, repo: str | os.PathLike, output_dir: str | os.PathLike,
                on_task: Callable[[Path, Task, Any, EvalOutput, ModelHandle], None] | None = None,
                **run_kw) -> tuple[Path, dict]:
    """Run ``tasks`` of ``suite`` for ``model`` (:func:`run_suite`) into the command's run folder,
    ``OUTPUT_DIR/<model>/<suite>__<tasks>`` for a suite's tasks, ``OUTPUT_DIR/<model>/<derived suite>`` otherwise,
    so that commands on other configs or with other options do not meet; a derived suite is written there as
    ``suite.yaml`` once the run has started (``check`` reads it). A folder this call created is removed again
    when the run fails having kept nothing (no log, no partial results that ``--resume`` would read).

    Parameters
    ----------
    model : str
    suite, tasks
        From :func:`command_suite`.
    repo, output_dir : path-like
    on_task : callable, optional
        ``on_task(run_folder, task, rows, result, handle)``: the command's paper tables (:func:`run_suite`).
    **run_kw
        Passed to :func:`run_suite` (seed, limit, resume, device, dtype, batch_size, echo...).

    Returns
    -------
    (Path, dict)
        The run folder and its manifest.

    Raises
    ------
    RunError
        A task that failed or was skipped (with its reason), or as :func:`run_suite`.
    SetupError, LLMError
        As :func:`run_suite`.
    """
    derived = not suite.source          # made by command_suite, not read from a shipped suite or a file
    out = run_folder(output_dir, model) / (suite.name if derived else
                                           f"{suite.name}__{'_'.join(t.name for t in tasks)}"[:120])
    created = not out.exists()
    if created:     # made here and only here: a second command started at the same time stops, deleting nothing
        try:
            out.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise RunError(f"{out} was made by another command meanwhile; choose another --output-dir") from None

    def save_suite() -> None:
        if derived and not (out / SUITE_FILE).exists():
            atomic_write_text(out / SUITE_FILE, suite_yaml(suite))

    def views(task, rows, result, handle):
        save_suite()
        if on_task is not None:
            on_task(out, task, rows, result, handle)

    try:
        manifest = run_suite(model, suite, repo=repo, out=out, tasks=[t.name for t in tasks], on_task=views, **run_kw)
        save_suite()
        for t in tasks:
            state = manifest["tasks"].get(t.name, {})
            if state.get("status") != "done":
                raise RunError(f"{t.name}: {state.get('status', 'not run')}: {state.get('reason', '')}".rstrip(": "))
    except Exception:
        # a folder made by this call that kept nothing (no log, no partial results a --resume would read) goes
        if created and not any(out.glob("logs/*")) and not any(p.is_file() for p in out.glob(".partial/**/*")):
            shutil.rmtree(out, ignore_errors=True)
        raise
    return out, manifest


def write_view(run_dir: str | os.PathLike, name: str, text: str) -> Path:
    """Write a paper table (plain text) of a command's run to ``RUN/tables/<name>.txt``."""
    path = Path(run_dir) / "tables" / f"{name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text.rstrip("\n") + "\n")
    return path


def _splits(repo, config: str, split: str | None, suite=None) -> list[str]:
    """``split``, else the splits the (family) suite scores of ``config``, else every built split."""
    from robust_bench.data.repository import built_config

    files = built_config(repo, config, split)["files"]
    if split:
        return [split]
    scored = [t.split for t in (load_suite(suite) if suite else _family_suite(get_config(config).family)).tasks
              if t.config == config and t.split in files]
    return list(dict.fromkeys(scored)) or list(files)


def evaluate_contrast_sets(model: str, config: str, *, split: str | None = None, label_map: dict | None = None,
                           device: str = "auto", dtype: str = "auto", batch_size: int = 64, seed: int = 0,
                           resume: bool = False, suite: str | os.PathLike | None = None, repo: str | os.PathLike,
                           output_dir: str | os.PathLike, echo: Callable[[str], None] = print) -> tuple[Path, list[Path]]:
    """``robust-bench evaluate --config lit_*``: the ``contrast-set`` evaluation as a suite run, and Table 3
    of Li et al. (2020) per split as a view of its log (:func:`robust_bench.evaluations.lit.table3`).

    Parameters
    ----------
    model : str
        A sequence classifier's or causal LM's model spec (:func:`robust_bench.models.resolve.resolve_model`).
    config : str
        ``lit_mnli``, ``lit_snli`` or an extended LIT config, built in ``repo``.
    split : str, optional
        One split (default: the split the suite scores, else every split of the config, one task each).
    label_map : dict, optional
        Model label -> dataset label, where the names differ (the run is then a derived suite's).
    device, dtype, batch_size, seed, resume
        As ``robust-bench run``.
    suite : str or path-like, optional
        As :func:`command_suite`.
    repo, output_dir : path-like
        The run folder is under ``OUTPUT_DIR/<model>/`` (:func:`run_command`).
    echo : callable

    Returns
    -------
    (Path, list of Path)
        The run folder, and the tables and figures written into it.

    Raises
    ------
    LitEvalError, NotBuiltError, ModelError, RunError
        A config that is not LIT, not built, a model that cannot be loaded, a task that failed.
    """
    from robust_bench.evaluations.lit import LitEvalError, format_table, plot_scores

    if get_config(config).family != "lit":
        raise LitEvalError(f"evaluate scores LIT contrast sets (lit_mnli, lit_snli) and name swaps; got {config!r}")
    suite, tasks = command_suite(config, _splits(repo, config, split, suite), repo=repo, suite=suite,
                                 options={"label_map": label_map})
    written: list[Path] = []

    def table(out, task, rows, result, handle):
        scores = result.extras["table3"]       # the evaluation's own Table 3 of these rows
        text = format_table(scores, title=f"{model} on {config}/{task.split} (LIT, Table 3; percentages)")
        echo(text)
        clf = result.extras.get("classifier")
        if clf is not None:
            echo(f"  forward passes: {clf.n_forward}; distinct pairs scored: {clf.queries}")
        written.append(write_view(out, f"{task.name}__table3", text))
        written.extend(plot_scores(scores, out / "figures" / f"{task.name}__table3",
                                   title=f"{Path(model).name} on {config}/{task.split}"))

    out, _ = run_command(model, suite, tasks, repo=repo, output_dir=output_dir, on_task=table, seed=seed,
                         resume=resume, device=device, dtype=dtype, batch_size=batch_size, echo=echo)
    return out, written


def attack_command(model: str, config: str, *, search: str = "greedy", budget: float = 0.15, split: str | None = None,
                   limit: int | None = None, max_attacked: int | None = None, resume: bool = False,
                   label_map: dict | None = None, agree_with: Sequence[str] = (), curve: bool = True,
                   candidates: str = "stored", device: str = "auto", dtype: str = "auto", seed: int = 0,
                   suite: str | os.PathLike | None = None, repo: str | os.PathLike, output_dir: str | os.PathLike,
                   echo: Callable[[str], None] = print) -> tuple[Path, list[Path]]:
    """``robust-bench attack``: the ``attack`` evaluation (Yin et al., 2020, Alg. 1-3) as a suite run, and
    the paper's report as views: queries, modified share, error types in successful attacks (Table 4), the
    success-versus-budget curve (Fig. 1), and the adversarial examples as the derived config
    ``adv_<model>_<config>_<search>`` of ``repo``.

    Parameters
    ----------
    model : str
        A classifier's (a tagger's, for ``gec_conll2003``) model spec.
    config : str
        ``gec_mnli``, ``gec_mrpc``, ``gec_qnli``, ``gec_sst2`` or ``gec_conll2003``, built in ``repo``.
    search, budget, seed
        As :func:`robust_bench.evaluations.gec.attack_examples` (greedy and 15% are the suites').
    split : str, optional
        Default: the config's first split.
    limit : int, optional
        Only the first N rows.
    max_attacked, agree_with, candidates, label_map
        The evaluation's exploration options (:data:`robust_bench.evaluations.gec.attack`); any of them
        makes the run a derived suite's.
    resume : bool
        Continue a killed run in the same folder (finished attacks are read back from its journal).
    curve : bool
        Also the success rate for budgets 15%-45% (Fig. 1).
    device, dtype
    suite : str or path-like, optional
        As :func:`command_suite`.
    repo, output_dir : path-like
    echo : callable

    Returns
    -------
    (Path, list of Path)
        The run folder, and the tables and figures written into it.

    Raises
    ------
    AttackError, NotBuiltError, ModelError, RunError
        A config that is not a grammatical-error config, not built, a model that cannot be loaded, a task
        that failed.
    """
    import time

    from robust_bench.attacks.gec import TASKS, AttackError, budget_curve, plot_budget_curve
    from robust_bench.data.repository import built_config
    from robust_bench.evaluations.gec import save_adversarial
    from robust_bench.results.records import model_slug

    if config not in TASKS and config != "gec_conll2003":
        raise AttackError(f"attacks run on {', '.join(TASKS)} and gec_conll2003; got {config!r}")
    meta = built_config(repo, config, split)
    split = split or next(iter(meta["files"]))
    options = {"search": search, "budget": budget, "max_attacked": max_attacked, "agree_with": list(agree_with) or None,
               "candidates": None if candidates == "stored" else candidates, "label_map": label_map}
    the_suite, tasks = command_suite(config, split, repo=repo, suite=suite, options=options)
    written: list[Path] = []
    t0 = time.perf_counter()

    def report(out, task, rows, result, handle):
        run, target = result.extras.get("run"), result.extras.get("target")
        ner = "ner_tags" in rows.column_names
        cols = log_columns(result.examples)
        m = {k: metric_value(f.formula, cols) for k, f in ((x.name, x) for x in task.metrics)}
        what = "the non-entity tokens" if ner else f"the {run['segment'] if run else 'segment'}"
        lines = [f"{model} on {config}/{split}, {search} search, budget {budget:.0%} of {what}:"]
        if ner:
            lines.append(f"  entity F1 clean {m['f1_clean']:.4f} -> adversarial {m['f1_adversarial']:.4f} "
                         f"(drop {100 * (m['f1_clean'] - m['f1_adversarial']):.1f} points)")
        else:
            lines.append(f"  clean accuracy            {m['clean_accuracy']:.4f} ({len(rows)} examples)")
            lines.append(f"  adversarial accuracy      {m['adversarial_accuracy']:.4f}")
        if run is None:
            lines.append("  nothing to attack: the model gets no example right")
            echo("\n".join(lines))
            written.append(write_view(out, f"{task.name}__attack", "\n".join(lines)))
            return
        s = run["summary"]
        wall = time.perf_counter() - t0
        lines += [f"  attacked (correct{' for all models' if agree_with else ''})  {s['attacked']}",
                  f"  attack success rate       {m['attack_success_rate']:.4f}   (lower is more robust)",
                  f"  modified share (success)  {s['modified_share_mean']:.4f}",
                  f"  queries per example       mean {s['queries_mean']:.1f}, median {s['queries_median']:.1f}",
                  f"  wall time                 {wall:.1f} s with loading ({wall / max(1, s['attacked']):.2f} s per "
                  f"attacked example; {getattr(target, 'queries', 0) / wall if wall else 0:.0f} model inputs/s, "
                  f"{getattr(target, 'n_forward', 0)} forward calls)",
                  "  error types in successful attacks: " + ", ".join(f"{k} {v}" for k, v in
                                                                       s["error_types_in_successes"].items())]
        if getattr(target, "n_truncated", 0) or getattr(target, "n_windowed", 0):
            lines.append(f"  inputs longer than the model's limit: {getattr(target, 'n_truncated', 0)} truncated, "
                         f"{getattr(target, 'n_windowed', 0)} tagged in windows")
        adv = save_adversarial(run, repo=repo, name=f"adv_{model_slug(model)}_{config}_{search}", model=model,
                               revision=handle.revision(), config=config, split=split, search=search, budget=budget,
                               seed=seed, meta=meta)
        lines.append(f"  adversarial examples: config {adv!r} in {repo}")
        if curve:
            c = budget_curve(run["objective"] if ner else target, run["targets"], search=search, seed=seed)
            lines.append("  success vs budget: " + ", ".join(f"{int(b * 100)}% {v:.3f}" for b, v in c.items()))
            written.extend(plot_budget_curve({f"{Path(model).name} ({search})": c},
                                             out / "figures" / f"{task.name}__budget",
                                             title=f"Attack success rate vs budget, {config}/{split}"))
        echo("\n".join(lines))
        written.append(write_view(out, f"{task.name}__attack", "\n".join(lines)))

    out, _ = run_command(model, the_suite, tasks, repo=repo, output_dir=output_dir, on_task=report, seed=seed,
                         limit=limit, resume=resume, device=device, dtype=dtype, echo=echo)
    return out, written


def probe_command(model: str, *, repo: str | os.PathLike, config: str = "jabberwocky_ewt", settings=None,
                  revision: str | None = None, device: str = "auto", dtype: str = "auto", pooling: str = "first",
                  suite: str | os.PathLike | None = None, output_dir: str | os.PathLike, resume: bool = False,
                  echo: Callable[[str], None] = print) -> tuple[list[Path], list[Path]]:
    """``robust-bench probe``: the ``probe`` evaluation (Hall Maudslay & Cotterell, 2021, §4, App. B) as a suite
    run per probe (the structural probe's is the ``jabberwocky`` suite's task ``<config>`` under App. B's
    settings; the perceptron probe's, ``<config>_perceptron``, a derived suite's), and the per-layer table and
    Fig. 3 as views of the recorded results (:func:`robust_bench.evaluations.jabberwocky.probe_results`).

    Parameters
    ----------
    model : str
        An encoder: any transformers model id or folder.
    repo : path-like
        The dataset repository holding ``config``.
    config : str
    settings : robust_bench.experiments.jabberwocky.ProbeSettings, optional
        App. B's protocol by default; the settings that differ from the suite task's make a derived suite.
    revision, device, dtype, pooling
        Passed to the encoder adapter.
    suite : str or path-like, optional
        As :func:`command_suite`.
    output_dir : path-like
        The run folders are under ``OUTPUT_DIR/<model>/`` (:func:`run_command`); finished probe searches are
        kept in their ``.partial/`` until their task ends.
    resume : bool
        Continue a killed run from them.
    echo : callable

    Returns
    -------
    (list of Path, list of Path)
        The run folders (one per probe), and the tables and figures written into them.

    Raises
    ------
    ProbingError, ModelError, NotBuiltError, RunError
    """
    from dataclasses import asdict

    from robust_bench.evaluations.jabberwocky import lead_table, plot_probe_records, probe_results
    from robust_bench.experiments.jabberwocky import ProbeSettings

    s = settings or ProbeSettings()
    chosen = {k: v for k, v in asdict(s).items() if k not in ("probes", "seed") and v != getattr(ProbeSettings(), k)}
    if "layers" in chosen:
        chosen["layers"] = list(chosen["layers"])
    if pooling != "first":
        chosen["pooling"] = pooling
    written: list[Path] = []

    def views(out, task, rows, result, handle):
        run = result.extras["run"]
        if run.get("resumed"):
            echo(f"resumed: {len(run['resumed'])} finished searches read back from the run folder")
        text = lead_table(run)
        echo(text)
        echo("alignment drops (sentences): " + "; ".join(
            f"{k}: " + ", ".join(f"{r} {n}" for r, n in v.items()) for k, v in run["dropped"].items()))
        echo(f"encoder forward passes: {run['n_forward']} (0 means every representation came from the cache)")
        written.append(write_view(out, f"{task.name}__layers", text))
        rows_ = probe_results(model, result.details)
        for metric in ("uuas", "dspr"):
            if any(metric in r["metrics"] for r in rows_):
                written.extend(plot_probe_records(rows_, out / "figures" / f"{task.name}__{metric}", metric=metric))

    outs = []
    for kind in s.probes:
        # one run per probe: the suite's (structural) task keeps App. B's trials and epochs, so that the default
        # is the jabberwocky suite's task; the perceptron probe, which no suite scores, is a derived suite's
        su, ts = command_suite(config, "test", repo=repo, suite=suite, evaluation="probe",
                               options={"probe": kind, "trials": s.trials, "epochs": s.epochs, **chosen})
        if not su.source and kind != "structural":
            ts = [replace(t, name=f"{t.name}_{kind}"[:64]) for t in ts]
            su = replace(su, tasks=tuple(ts))
        # --max-sentences caps every split; on the test split that is the run's limit (the first N sentences)
        out, _ = run_command(model, su, ts, repo=repo, output_dir=output_dir, on_task=views, seed=s.seed,
                             limit=s.max_sentences, resume=resume, revision=revision, device=device, dtype=dtype,
                             echo=echo)
        outs.append(out)
    return outs, written


def names_command(config: str, *, model: str | None = None, spacy_model: str | None = None,
                  predictor: str | None = None, random: bool = False, resemble: Sequence[int] = (),
                  temperature: float = 2.0, confidence: float = 0.9, label_map: dict | None = None,
                  device: str = "auto", dtype: str = "auto", batch_size: int = 64, seed: int = 0, resume: bool = False,
                  suite: str | os.PathLike | None = None, repo: str | os.PathLike, output_dir: str | os.PathLike,
                  echo: Callable[[str], None] = print) -> tuple[list[Path], list[Path]]:
    """``robust-bench evaluate --config names_*``: the ``name-swaps`` evaluation (``coref-name-swaps`` for
    ``names_coref``) as a suite run, and Table 3 of Balasubramanian et al. (2020) as a view of its log, with the
    worst/best spread per kind of name and Fig. 1; with ``resemble``, one more run per M with the classifier
    wrapped in RESEMBLE (§4, Table 5).

    Parameters
    ----------
    config : str
        ``names_mrpc`` (a sequence classifier, ``model``), ``names_conll2003`` (a token classifier ``model`` or
        a spaCy pipeline's NER, ``spacy_model``; default ``spacy:``, ``$ROBUST_BENCH_SPACY_MODEL``'s) or
        ``names_coref`` (``predictor``, default ``rule-based``), built in ``repo``.
    random : bool
        Also score the random split's 10 copies (Table 3's random row, ``random_mean_f1`` and ``random_sd_f1``):
        the run is then a derived suite's (the suites do not score the random split).
    resemble : sequence of int
        Values of M: RESEMBLE with the M best canonical names (``names_mrpc``), each a derived suite's run.
    temperature, confidence
        RESEMBLE's T and P(z = ẑ | x) for an annotator without probabilities (Eq. 2); ``spacy_model`` is its
        type annotator.
    label_map : dict, optional
    device, dtype, batch_size, seed, resume
        As ``robust-bench run``.
    suite : str or path-like, optional
        As :func:`command_suite`.
    repo, output_dir : path-like
    echo : callable

    Returns
    -------
    (list of Path, list of Path)
        The run folders (the plain run first, then one per M), and the tables and figures written into them.

    Raises
    ------
    NameEvalError, NotBuiltError, ModelError, RunError
        A config that is not a name-swap config or not built, no model, a model that cannot be loaded, a
        task that failed.
    """
    from robust_bench.data.repository import built_config
    from robust_bench.evaluations.names import NameEvalError, format_table, plot_frequency, plot_spread

    if get_config(config).family != "named_entity_swaps":
        raise NameEvalError(f"expected a names_* config (names_mrpc, names_conll2003, names_coref); got {config!r}")
    import datasets

    built_config(repo, config, "test")
    # coreference documents (gold clusters) are scored by their own evaluation, the CoNLL F1
    coref = "clusters" in datasets.load_dataset(str(repo), config, split="test").column_names
    if config == "names_mrpc" and model is None:
        raise NameEvalError("names_mrpc needs --model (a sequence classifier fine-tuned on MRPC)")
    if resemble and config != "names_mrpc":
        raise NameEvalError("RESEMBLE (--resemble) wraps a sentence-pair classifier: names_mrpc only")
    spec = (predictor or "rule-based") if coref else (spacy_model or model or "spacy:") if config != "names_mrpc" else model
    metric = "CoNLL F1" if coref else "F1" if config == "names_mrpc" else "entity F1"
    stem = "_conll_f1" if coref else "_f1"
    base = {"random": True if random else None, "label_map": label_map}
    runs = [("plain", base)] + [(f"RESEMBLE M={m}", {**base, "resemble": m, "temperature": temperature,
                                                     "annotator_confidence": confidence, "annotator": spacy_model})
                                for m in resemble]
    outs: list[Path] = []
    written: list[Path] = []
    for label, options in runs:
        the_suite, tasks = command_suite(
            config, "test", repo=repo, suite=suite, options=options,
            **({"evaluation": "coref-name-swaps", "interface": "coreference"} if coref else {}))

        def table(out, task, rows, result, handle, label=label):
            cols = log_columns(result.examples)
            m = {x.name: metric_value(x.formula, cols) for x in task.metrics}
            scores = {"original": m[f"original{stem}"], "worst": m[f"worst{stem}"], "best": m[f"best{stem}"],
                      "random_mean": m.get(f"random_mean{stem}", float("nan")),
                      "random_std": m.get(f"random_sd{stem}", float("nan")), "stability": m["stability"],
                      "groups": result.details["groups"], "variants": sum(e["outcome"]["variants"] for e in result.examples),
                      **result.extras["table3"]}
            title = f"{spec} on {config}/{task.split}{'' if label == 'plain' else ' with ' + label} (Table 3; percentages)"
            text = format_table(scores, title=title, metric=metric)
            if "resemble" in result.details:
                text += "\n  canonical names: " + ", ".join(result.details["resemble"]["canonical"])
            echo(text)
            written.append(write_view(out, f"{task.name}__table3", text))
            short = Path(spec).name if Path(spec).exists() else spec
            written.extend(plot_spread({label: scores}, out / "figures" / f"{task.name}__spread",
                                       title=f"{short} on {config}", metric=metric))
            if scores["frequency_points"]:
                written.extend(plot_frequency(scores["frequency_points"], out / "figures" / f"{task.name}__frequency",
                                              title=f"{short} on {config} (Fig. 1)",
                                              ylabel="accuracy of the variant" if config == "names_mrpc"
                                              else f"{metric} of the variant"))

        out, _ = run_command(spec, the_suite, tasks, repo=repo, output_dir=output_dir, on_task=table, seed=seed,
                             resume=resume, device=device, dtype=dtype, batch_size=batch_size, echo=echo)
        outs.append(out)
    return outs, written
