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
  named ``<config>_command_<hash of its tasks>`` and written into the run folder as ``suite.yaml``: ``check``
  compares two such runs (it reads the folder's ``suite.yaml``); a leaderboard of the shipped suites refuses
  them, since they are not the benchmark's protocol (a leaderboard set up for the derived suite stores them:
  the records are of the one format).
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
from robust_bench.evaluations import EvalOutput, evaluations, get_evaluation
from robust_bench.io.fileio import atomic_write_text
from robust_bench.models.resolve import ModelHandle
from robust_bench.results.runs import RunError, log_columns, read_records
from robust_bench.scoring.intervals import metric_value
from robust_bench.suite.runner import run_folder, run_suite

__all__ = ["SUITE_FILE", "command_suite", "run_command", "write_view", "evaluate_contrast_sets", "attack_command",
           "probe_command", "names_command", "attack_parser_command", "baselines_command"]

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
        # the evaluation's first robustness measure (a worst case, the Jabberwocky score), else its first metric
        names = [m.name for m in metrics]
        primary = next((r for r in ev.robustness if r in names), None) or next(
            (b for _, b in ev.pairs if b in names), names[0])
        base_opts = {}
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
        declared = {x.name: x for x in get_evaluation(task.evaluation).metrics}
        what = "the non-entity tokens" if ner else f"the {run['segment'] if run else 'segment'}"
        lines = [f"{model} on {config}/{split}, {search} search, budget {budget:.0%} of {what}:"]
        if ner:
            drop = metric_value(declared["f1_drop"].formula, cols)       # the declared f1_drop
            lines.append(f"  entity F1 clean {m['f1_clean']:.4f} -> adversarial {m['f1_adversarial']:.4f} "
                         f"(f1_drop {100 * drop:.1f} points)")
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


def _metrics_of(task, labelled: bool, has_xpos: bool):
    """The live task's metrics for its data: LAS where the treebank is labelled, the other punctuation
    rule's scores (Table 6's second row) where it applies; the primary is the adversarial LAS (UAS)."""
    other = "ptb" if task.options.get("rule", "ud") == "ud" else "ud"
    keep = ["uas_original", "uas_adversarial", "success_rate"] + (["las_original", "las_adversarial"] if labelled else [])
    if other == "ud" or has_xpos:
        keep += [f"{m}_{other}" for m in keep if m != "success_rate"]
    metrics = tuple(m for m in task.metrics if m.name in keep)
    return replace(task, metrics=metrics, primary="las_adversarial" if labelled else "uas_adversarial")


def _table6_scores(task, examples: list[dict], labelled: bool) -> dict:
    """Table 6 from the log: per punctuation rule, the declared attachment scores as percentages (UAS only
    where the parser or the treebank is unlabelled)."""
    from robust_bench.evaluations.treebanks import RULES

    cols = log_columns(examples)
    m = {x.name: metric_value(x.formula, cols) for x in task.metrics}
    rule = task.options.get("rule", "ud")
    scores = {}
    for r in RULES:
        suffix = "" if r == rule else f"_{r}"
        row = {k: round(100 * m[k + suffix], 2) for k in ("uas_original", "las_original", "uas_adversarial",
                                                          "las_adversarial")
               if k + suffix in m and (labelled or k.startswith("uas"))}
        if row:
            scores[r] = row
    return {"scores": scores, "success_rate": m["success_rate"]}


def attack_parser_command(parser_spec: str, config: str = "adv_ewt", *, limit: int | None = None,
                          mlm: str | None = None, lm: str | None = None, vectors: str | None = None,
                          generators: str = "auto", filters: str = "auto", ablation: bool = True,
                          treebank: str | None = None, train_vocab: str | None = None,
                          export_training: str | Path | None = None, spacy_model: str | None = None,
                          source: str | None = None, seed: int = 0, device: str = "auto", repo: str | Path,
                          output_dir: str | Path, echo: Callable[[str], None] = print) -> tuple[Path, list[Path]]:
    """``robust-bench attack-parser``: the parser attack of Wang et al. (2021, Alg. 1, §4) on a user's parser,
    as a one-task suite run of the ``parser-attack-live`` evaluation, with Tables 6, 4, 7, 2 and 5 and the
    figures as views.

    Where the rows come from: the attack needs the source treebank's sentences, not an ``adv_*`` build (that
    is an attack against the reference parser, hours for EWT). The command reads ``config``'s source
    sentences with the builder's own reader (EWT test, or the WSJ sample or ``treebank``), writes them
    unattacked as config ``config`` (:func:`source_rows`) into a private, temporary dataset repository, and
    runs a derived suite on it (:func:`robust_bench.suite.command.command_suite`), whose task pins that
    copy's SHA-256; the live evaluation attacks each row's original words. ``--out`` is left untouched but
    for the derived config ``adv_<parser>_<config>`` (the attacked sentences, usable as a transfer set). The
    run folder, ``OUTPUT_DIR/<parser>/<config>_command_<hash>``, holds ``run.json``, the per-sentence log,
    the v2 record (``check`` compares two of them; a leaderboard of the shipped suites refuses them: not a shipped task), its
    ``suite.yaml``, ``tables/`` (Tables 6, 4, 7, 2, 5, Markdown) and ``figures/``.

    Parameters
    ----------
    parser_spec : str
        A parser's model spec: ``spacy:NAME_OR_PATH``, ``stanza:PATH_OR_LANG``,
        ``callable:MODULE:FUNCTION`` (:func:`robust_bench.models.resolve.resolve_model`).
    config : {"adv_ewt", "adv_ptb"}
        ``adv_ewt``: EWT test, labelled (UAS and LAS), the attack's rule ``ud``; ``adv_ptb``: WSJ, the
        rule ``ptb``. Table 6 has a row per rule either way (``ptb`` where the words carry PTB tags).
    limit : int, optional
        Attack only the first N sentences (the run's limit; also of the exported training treebank).
    mlm, lm, vectors, generators, filters, spacy_model, device
        The attack's set-up (:func:`robust_bench.attacks.treebanks.make_attack`), the task's options.
    ablation : bool
        Also rerun with the filters added one by one (Table 5).
    treebank : str, optional
        ``adv_ptb``: a CoNLL-X PTB instead of NLTK's sample.
    train_vocab : str, optional
        The parser's training treebank, for OOT counts (default: EWT train for ``adv_ewt``) and the POS
        filter's verb frames.
    export_training : path-like, optional
        Also attack the training treebank and write its adversarial sentences there as CoNLL-U (§4.4).
    source : str, optional
        Local mirror of the source corpora.
    seed : int
        The run's seed (the masked-LM draws).
    repo, output_dir : path-like
        ``--out`` (the derived config goes there) and the folder of run folders.
    echo : callable

    Returns
    -------
    (Path, list of Path)
        The run folder, and the tables, figures and exported treebank written.

    Raises
    ------
    EvaluationError
        An unknown config, generator or filter (naming the option), or ``export_training`` without a
        training treebank.
    ModelError, ConlluError, SourceNotFoundError
        A parser or LM that cannot be loaded, a malformed or missing treebank.
    RunError
        The run failed (its reason), or a table could not be made.
    """
    import tempfile

    import datasets

    from robust_bench.attacks.treebanks import FILTERS, GENERATORS, _names
    from robust_bench.builders.treebanks import AdversarialTreebank    # a datasets builder: datasets is heavy
    from robust_bench.data.repository import write_derived_config
    from robust_bench.evaluations import EvaluationError
    from robust_bench.evaluations.treebanks import CONFIGS, source_rows
    from robust_bench.models.resolve import resolve_model

    if config not in CONFIGS:
        raise EvaluationError(f"--config must be one of {', '.join(CONFIGS)}, got {config!r}")
    for option, value, known, what in (("--generators", generators, GENERATORS, "generator"),
                                       ("--filters", filters, FILTERS, "filter")):
        try:
            _names(value, known, what)
        except ValueError as exc:
            raise EvaluationError(f"{option}: {exc}") from None
    resolve_model(parser_spec, interface="parser")          # a parser that cannot be found stops here
    builder = AdversarialTreebank(config_name=config, source_dir=source, treebank=treebank)
    examples = builder.examples(datasets.DownloadManager(dataset_name="robust-bench"))
    train_path = train_vocab or builder.train_path
    if export_training and not train_path:
        raise EvaluationError("--export-training needs a training treebank: give --parser-train FILE")
    rule = "ud" if config == "adv_ewt" else "ptb"
    options = {"rule": rule, "mlm": mlm, "lm": lm, "vectors": vectors, "generators": generators, "filters": filters,
               "spacy_model": spacy_model, "frames": str(train_vocab or builder.frames_path() or "") or None}
    labelled = all(ex.deprels is not None for ex in examples)
    has_xpos = all(ex.xpos and all(x not in ("", "_") for x in ex.xpos) for ex in examples)
    written: list[Path] = []
    failed: list[Exception] = []
    view = _attack_views(parser_spec, config, builder, examples=examples, train_path=train_path, lm=lm,
                         device=device, ablation=ablation, seed=seed, limit=limit, export_training=export_training,
                         repo=repo, written=written, echo=echo)

    def views(out, task, rows, result, handle):
        try:
            view(out, task, rows, result, handle)
        except Exception as exc:  # noqa: BLE001 - the run's files stay; the command still fails
            failed.append(exc)
            raise

    with tempfile.TemporaryDirectory(prefix="robust-bench-attack-parser-") as scratch:
        sources = Path(scratch) / "robust-bench"
        src = builder.source_info
        write_derived_config(
            sources, config, datasets.DatasetDict({"test": source_rows(examples)}), family="adversarial_treebanks",
            description=f"The source sentences of {config}, unattacked: what robust-bench attack-parser attacks live.",
            citation=builder.CITATION, license=builder.LICENSE,
            source={"name": src.name, "version": src.version, "license": src.license, "url": src.url}, seed=0,
            statistics={}, provenance={"source_config": config, **builder.provenance})
        suite, tasks = command_suite(config, "test", repo=sources, evaluation="parser-attack-live", interface="parser",
                                     options=options)
        tasks = [_metrics_of(t, labelled, has_xpos) for t in tasks]
        suite = replace(suite, tasks=tuple(tasks))
        out, _ = run_command(parser_spec, suite, tasks, repo=sources, output_dir=output_dir, on_task=views, seed=seed,
                             limit=limit, device=device, interface="parser", echo=echo)
    if failed:
        raise RunError(f"{out}: the run is written, but its tables were not: {type(failed[0]).__name__}: {failed[0]}")
    return out, written


def _attack_views(parser_spec, config, builder, *, examples, train_path, lm, device, ablation, seed, limit,
                  export_training, repo, written, echo) -> Callable:
    """The command's views of a finished live-attack task: Tables 6 (from the log), 4, 7, 2 and 5, the figures,
    the derived config ``adv_<parser>_<config>`` in ``repo`` and, with ``export_training``, §4.4's treebank."""
    import datasets

    from robust_bench.attacks.treebanks import result_rows, row_features, summarise
    from robust_bench.data.repository import write_derived_config
    from robust_bench.evaluations.treebanks import (filter_ablation, mean_perplexity, plot_candidates, plot_scores,
                                                    table2, table4, table5, table6, table7)
    from robust_bench.io.conllu_io import word_forms
    from robust_bench.models.lm import DEFAULT_LM, CausalLMScorer
    from robust_bench.models.loader import ModelError
    from robust_bench.results.records import model_slug

    def view(out, task, rows, result, handle):
        attack, exs, results, parser = (result.extras[k] for k in ("attack", "examples", "results", "parser"))
        setup = result.details["setup"]
        for what, why in setup["unavailable"].items():
            echo(f"note: {what} not used: {why}")
        echo(f"generators: {', '.join(setup['generators'])}; filters: {', '.join(setup['filters'])}")
        summary = summarise(results, exs, train_vocabulary=word_forms(train_path) if train_path else None)
        table6_scores = _table6_scores(task, result.examples, result.details["labelled"])
        scorer = next((f.lm for f in attack.filters if f.name == "perplexity"), None)
        if scorer is None:
            try:
                scorer = CausalLMScorer(lm or DEFAULT_LM, device=device)
            except ModelError as exc:
                if lm:
                    raise
                echo(f"note: Table 2 (perplexity) left out: {str(exc).splitlines()[0]}")
        tables = {"table6": ("Table 6: attachment scores before and after the attack", table6(table6_scores, parser.name)),
                  "table4": ("Table 4: candidates per generator", table4(summary)),
                  "table7": ("Table 7: out-of-vocabulary (parser embeddings) and out-of-training words", table7(summary))}
        if scorer is not None:
            ppl = (mean_perplexity(scorer, [e.words for e in exs]), mean_perplexity(scorer, [r.words for r in results]))
            tables["table2"] = ("Table 2 (automatic): perplexity under " + scorer.model_id, table2(*ppl))
        if ablation:
            tables["table5"] = ("Table 5: filter ablation", table5(filter_ablation(attack, exs, lm=scorer)))
        echo(f"\n{parser.name} on {config} ({len(exs)} sentences), parser queries {parser.queries:,} "
             f"in {parser.calls:,} calls\n")
        for name, (title, text) in tables.items():
            echo(f"{title}\n{text}\n")
            written.append(write_view(out, f"{task.name}__{name}", f"{title}\n\n{text}"))
        name = f"adv_{model_slug(parser.name)}_{config.removeprefix('adv_')}"
        src = builder.source_info
        write_derived_config(
            repo, name, datasets.DatasetDict({"test": datasets.Dataset.from_list(result_rows(results, exs),
                                                                               features=row_features())}),
            family="adversarial_treebanks",
            description=f"{config} attacked live against {parser.name} ({parser.revision}) with the attack of Wang "
                        "et al. (2021); gold trees kept, usable as a transfer set.",
            citation=builder.CITATION, license=builder.LICENSE,
            source={"name": src.name, "version": src.version, "license": src.license, "url": src.url}, seed=seed,
            statistics={"test": summary}, provenance={"attack": setup, "source_config": config, "run": str(out),
                                                      **builder.provenance})
        echo(f"adversarial treebank: config {name!r} in {repo}")
        stem = out / "figures" / f"{task.name}"
        figs = plot_candidates(summary, f"{stem}__candidates", title=f"Candidates per generator, {config}")
        figs += plot_scores({parser.name: table6_scores}, f"{stem}__scores", title=f"{config}: before and after the attack")
        echo("figures: " + ", ".join(str(p) for p in figs))
        written.extend(figs)
        if export_training:
            written.append(_export(attack, train_path, limit, export_training, echo))

    return view


def _export(attack, train_path, limit, out, echo) -> Path:
    """§4.4: attack the training treebank too and write its adversarial sentences as CoNLL-U."""
    from robust_bench.attacks.treebanks import TreeExample
    from robust_bench.evaluations import EvaluationError
    from robust_bench.io.conllu_io import read_conllu, write_conllu

    if not train_path:
        raise EvaluationError("--export-training needs a training treebank: give --parser-train FILE")
    sents = read_conllu(train_path)[:limit] if limit else read_conllu(train_path)
    exs = [TreeExample.from_sentence(s) for s in sents]
    results = attack.attack(exs, progress=True)
    adv = [s.with_forms(r.words) for s, r in zip(sents, results) if r.edits]
    write_conllu(adv, out)
    echo(f"adversarial training sentences: {len(adv):,} of {len(sents):,} written to {out}")
    return Path(out)


def baselines_command(config: str = "jabberwocky_ewt", *, repo: str | os.PathLike, source: str | os.PathLike | None = None,
                      split: str = "test", output_dir: str | os.PathLike,
                      echo: Callable[[str], None] = print) -> list[Path]:
    """``robust-bench baselines``: the Path and Majority baselines (Hall Maudslay & Cotterell, 2021, §5.1) as
    runs of the ``baseline`` evaluation, one run folder per baseline (models ``baseline:path`` and
    ``baseline:majority``: ``OUTPUT_DIR/baseline_<name>/<config>_command_<hash>``, both runs of one derived
    suite, so ``check`` compares them), with the probe's metrics (``uuas_plain``, ``uuas_jabberwocky``,
    ``dspr_plain``, ``dspr_jabberwocky``) in their v2 records, and the check that plain and Jabberwocky
    scores are identical (the baselines ignore the words; a difference means a Jabberwocky tree is not its
    source's).

    Parameters
    ----------
    config : str
        A Jabberwocky config built in ``repo``.
    repo : path-like
    source : path-like, optional
        Local mirror of the source treebank (the plain sentences; Majority's training trees); the task's
        option ``source`` when given.
    split : str
    output_dir : path-like
    echo : callable

    Returns
    -------
    list of Path
        The run folders, Path's then Majority's.

    Raises
    ------
    BaselineCheckError
        Plain and Jabberwocky scores differ, or the config is not a Jabberwocky config.
    NotBuiltError, RunError
        The config or split is not built; a run failed (its reason: a sentence missing from the source...).
    """
    from robust_bench.experiments.baselines import BASELINES, BaselineCheckError
    from robust_bench.results.runs import read_manifest
    from robust_bench.scoring import PUNCTUATION_RULES

    if get_config(config).family != "jabberwocky":
        raise BaselineCheckError(f"the Path and Majority baselines are defined for Jabberwocky configs, not {config!r}")
    suite, tasks = command_suite(config, split, repo=repo, evaluation="baseline", interface="model-free",
                                 options={"source": None if source is None else str(source)})
    echo(f"{config} / {split}: model-free baselines (Hall Maudslay & Cotterell, 2021, §5.1)")
    outs, scores = [], {}
    for name in BASELINES:
        # deterministic and model-free: a second call takes the finished run (make demo twice) instead of refusing it
        out, _ = run_command(f"baseline:{name}", suite, tasks, repo=repo, output_dir=output_dir, resume=True, echo=echo)
        outs.append(out)
        scores[name] = read_records(out)[tasks[0].name]["metrics"]
    details = read_manifest(outs[0])["tasks"][tasks[0].name]["details"]
    echo(f"UUAS excludes punctuation by: {PUNCTUATION_RULES[details['punctuation_rule']]}")
    lines = [f"{'baseline':<10} {'variant':<12} {'UUAS':>7} {'DSpr':>7}"]
    for name, m in scores.items():
        for variant in ("plain", "jabberwocky"):
            cells = [m[f"{k}_{variant}"] for k in ("uuas", "dspr")]       # None: undefined (no sentence of 5-50 words)
            lines.append(f"{name:<10} {variant:<12} " + " ".join("    n/a" if v is None else f"{v:>7.4f}" for v in cells))
    text = "\n".join(lines)
    echo(text)
    for out in outs:
        write_view(out, f"{tasks[0].name}__baselines", f"{config} / {split}: Path and Majority (§5.1)\n\n{text}")
    for name, m in scores.items():
        if (m["uuas_plain"], m["dspr_plain"]) != (m["uuas_jabberwocky"], m["dspr_jabberwocky"]):
            raise BaselineCheckError(f"{name}: plain and Jabberwocky scores differ ({m['uuas_plain']}, {m['dspr_plain']}) "
                                     f"vs ({m['uuas_jabberwocky']}, {m['dspr_jabberwocky']}); the Jabberwocky trees do "
                                     "not equal the source")
    echo("check passed: plain and Jabberwocky scores are identical for both baselines")
    for out in outs:
        echo(f"  wrote {out}")
    return outs
