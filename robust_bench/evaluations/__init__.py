"""One evaluation per family, each declared once.

Every module of this room (``gec``, ``names``, ``treebanks``, ``lit``, ``jabberwocky``) is one
family's evaluation: the function that turns a model and a task's rows into per-example log entries,
which ``robust-bench run`` calls, and the views of the paper's tables computed from its log. The
family commands (``evaluate``, ``attack``, ``attack-parser``, ``probe``, ``baselines``) are runs of it too
(:mod:`robust_bench.suite.command`: a one-task suite, the same log and v2 record).
Its :class:`Evaluation` declares, in one place,

* its name, as suites and records call it, and the family it scores;
* its metrics: each metric's formula over the log's outcome fields, direction and range
  (:class:`Metric`), from which records, intervals, the gate and the suites' metric specs are derived;
* what a report sets side by side (clean vs perturbed pairs) and its robustness measures;
* the Hub's task type of the model it scores, how ``leaderboard verify`` compares a re-run
  (:class:`Tolerance`), and a check of a log line's outcome against its own prediction and gold label.

Evaluations register themselves with :func:`register_evaluation` and are found by discovery, as
builders are (:mod:`robust_bench.data.registry`): adding an evaluation is adding one module here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from robust_bench import RobustBenchError, import_submodules
from robust_bench.scoring.intervals import Formula
from robust_bench.data.registry import text_is_tokenised
from robust_bench.data.repository import built_config
from robust_bench.models.llm import LLMError, LLMSettings, draw_shots, task_prompt

__all__ = ["Metric", "Tolerance", "Evaluation", "EvalOutput", "CommandTask", "EvaluationError", "UnknownEvaluationError",
           "register_evaluation", "get_evaluation", "evaluations", "declared_ranges", "family_title", "pair_or_tagger_task_type",
           "input_sha256", "log_entry", "llm_traces", "unit_ids", "cluster_ids", "with_clusters", "task_classifier",
           "ratio", "f1"]


class EvaluationError(RobustBenchError, ValueError):
    """A task's rows or options do not fit its evaluation, or an evaluation is declared twice."""


class UnknownEvaluationError(RobustBenchError, KeyError):
    """No registered evaluation has this name; the message lists the known ones."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0])


def ratio(num: str, den: str = "one") -> Formula:
    """Σnum / Σden over the examples (``one`` is 1 per example: a mean)."""
    return Formula("ratio", (num, den))


def f1(prefix: str) -> Formula:
    """2Σtp / (2Σtp + Σfp + Σfn) over the fields ``tp_<prefix>``, ``fp_<prefix>``, ``fn_<prefix>``."""
    return Formula("f1", (f"tp_{prefix}", f"fp_{prefix}", f"fn_{prefix}"))


@dataclass(frozen=True)
class Metric:
    """A metric an evaluation reports.

    Attributes
    ----------
    name : str
        As records and suites name it (``acc_ori``, ``attack_success_rate``...).
    formula : Formula
        How it is computed from the per-example outcome fields (sum-decomposable, so shards merge
        and bootstrap intervals resample examples).
    higher_is_better : bool
        Its direction; the attack success rate is the exception that says so (lower is more robust).
    range : (float, float)
        The values it can take: fractions in [0, 1], rank correlations in [-1, 1].
    option : str, optional
        The task option without which the evaluation does not log its fields (``random``: the random
        copies of name swaps); a task that lists the metric must set it.
    """
    name: str
    formula: Formula
    higher_is_better: bool = True
    range: tuple[float, float] = (0.0, 1.0)
    option: str | None = None


@dataclass(frozen=True)
class Tolerance:
    """How ``leaderboard verify`` compares a re-run with a submitted log.

    Attributes
    ----------
    compare : {"lines", "metrics"}
        ``lines``: each sampled log line must equal the re-run's, and at most ``max_share`` of them
        may differ. ``metrics``: every task metric on the sampled examples must be within
        ``max_metric_diff`` (absolute, on the metric's own scale).
    max_share : float, in [0, 1]
    max_metric_diff : float, >= 0
    """
    compare: str
    max_share: float = 0.0
    max_metric_diff: float = 0.0

    def describe(self) -> str:
        if self.compare == "lines":
            return f"log lines equal; at most {self.max_share:.0%} of the sampled examples may differ"
        return f"every metric on the sample within {self.max_metric_diff} (absolute)"


@dataclass(frozen=True)
class CommandTask:
    """What a family's own command asks of an evaluation function in place of a suite task: the config,
    its split and the evaluation's options (a suite task also has these)."""
    config: str
    split: str
    options: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config


@dataclass
class EvalOutput:
    """Per-example log entries (in the rows' order; the runner sorts them by id), deterministic details
    (recorded in ``run.json``) and ``extras``: live objects a family command's paper tables need (an
    attack's search results, the classifier that was queried), never written."""
    examples: list[dict]
    details: dict = field(default_factory=dict)
    extras: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Evaluation:
    """One family's evaluation, declared once (see the module docstring).

    Attributes
    ----------
    name : str
        As suites and records name it (``contrast-set``).
    family : str
        The family it scores, as suites, records and builders name it (``lit``).
    run : callable
        ``run(model, task, rows, positions, seed, repo, work=None) -> EvalOutput``: ``model`` is a
        :class:`robust_bench.models.resolve.ModelHandle`, ``rows`` the task's rows, ``positions``
        their indices in the split (seeds derive from them), ``work`` a folder for partial results
        that a killed run resumes from.
    metrics : tuple of Metric
    pairs : tuple of (str, str)
        (clean, perturbed) metric pairs that reports set side by side.
    robustness : tuple of str
        Its robustness measures (worst case, stability, consistency, success rates).
    tolerance : Tolerance
    hub_task_type : str or callable
        The Hub pipeline type of the model it scores (``model-index``), or a function of the v2
        record that gives it.
    unit_column : str, optional
        A column whose value groups rows into one example (``group_id``: the variants of one source
        example are scored together); by default each row is one example.
    cluster : str, or callable, optional
        What the examples drawn from one source share, so that intervals and the gate resample sources
        rather than rows (:mod:`robust_bench.scoring.intervals`): a column (``source_id``: the contrast rows
        of one premise pair) or ``cluster(rows) -> list of str``, one label per row. Every row of one
        example must have the same cluster. By default each example is its own cluster.
    check_outcome : callable, optional
        ``check_outcome(entry) -> [(outcome field, expected value), ...]``: what a log line's outcome
        must say given its own prediction and gold label, so that an edited log is caught.
    setup : callable, optional
        ``setup() -> dict``: what the evaluation's results depend on besides the model, the data and
        the seed on this machine (an attack's spaCy pipelines), which a run records in its task details
        and ``leaderboard verify`` must find the same before it compares predictions.
    title : str
        The family's heading, with the paper it follows (leaderboard pages).
    """
    name: str
    family: str
    run: Callable[..., EvalOutput]
    metrics: tuple[Metric, ...]
    pairs: tuple[tuple[str, str], ...] = ()
    robustness: tuple[str, ...] = ()
    tolerance: Tolerance = Tolerance("lines", max_share=0.01)
    hub_task_type: str | Callable[[dict], str] = "text-classification"
    unit_column: str | None = None
    cluster: str | Callable[[Any], list] | None = None
    check_outcome: Callable[[dict], list[tuple[str, int]]] | None = None
    setup: Callable[[], dict] | None = None
    title: str = ""

    def __post_init__(self):
        names = [m.name for m in self.metrics]
        if len(set(names)) != len(names):
            raise EvaluationError(f"evaluation {self.name!r}: metric names repeat: {names}")
        for a in [x for p in self.pairs for x in p] + list(self.robustness):
            if a not in names:
                raise EvaluationError(f"evaluation {self.name!r}: {a!r} is not one of its metrics {names}")

    def __call__(self, *args, **kwargs) -> EvalOutput:
        return self.run(*args, **kwargs)

    def check_options(self, task) -> None:
        """Refuse a task that lists a metric whose fields the evaluation logs only under an option the task
        does not set (:attr:`Metric.option`: Table 3's random row needs ``random``).

        Raises
        ------
        EvaluationError
            Naming the metrics and the option.
        """
        declared = {m.name: m.option for m in self.metrics}
        missing = sorted(f"{m.name} ({declared[m.name]})" for m in task.metrics
                         if declared.get(m.name) and not task.options.get(declared[m.name]))
        if missing:
            raise EvaluationError(f"task {task.name!r}: metrics {', '.join(missing)} need the task option in "
                                  "parentheses set")

    def metric(self, name: str) -> Metric:
        """The declared metric ``name``.

        Raises
        ------
        EvaluationError
            Listing the evaluation's metrics.
        """
        for m in self.metrics:
            if m.name == name:
                return m
        raise EvaluationError(f"evaluation {self.name!r} has no metric {name!r}; it has "
                              f"{', '.join(m.name for m in self.metrics)}")

    def task_type(self, record: dict) -> str:
        """The Hub pipeline type of the model a v2 record scored."""
        return self.hub_task_type(record) if callable(self.hub_task_type) else self.hub_task_type

    @property
    def ranges(self) -> dict[str, tuple[float, float]]:
        """Metric name -> declared range."""
        return {m.name: m.range for m in self.metrics}


_REGISTRY: dict[str, Evaluation] = {}


def register_evaluation(*, name: str, family: str, metrics: Sequence[Metric], **declared) -> Callable:
    """Decorator: declare and register the evaluation whose ``run`` function it decorates.

    The keyword arguments are the fields of :class:`Evaluation`; the decorated name becomes the
    :class:`Evaluation` (callable as its function).

    Raises
    ------
    EvaluationError
        If another evaluation already has the name, or the declaration is inconsistent.
    """
    def wrap(fn: Callable[..., EvalOutput]) -> Evaluation:
        ev = Evaluation(name=name, family=family, run=fn, metrics=tuple(metrics), **declared)
        old = _REGISTRY.get(name)
        if old is not None and (old.run.__module__, old.run.__qualname__) != (fn.__module__, fn.__qualname__):
            raise EvaluationError(f"evaluation {name!r} of {fn.__module__} is already declared by {old.run.__module__}")
        _REGISTRY[name] = ev
        return ev
    return wrap


def _discover() -> None:
    import robust_bench.evaluations as pkg

    import_submodules(pkg)


def evaluations() -> list[Evaluation]:
    """Every registered evaluation, discovered from this room (by name)."""
    _discover()
    return sorted(_REGISTRY.values(), key=lambda e: e.name)


def get_evaluation(name: str) -> Evaluation:
    """The evaluation ``name``.

    Raises
    ------
    UnknownEvaluationError
        Listing the known evaluations.
    """
    _discover()
    if name not in _REGISTRY:
        raise UnknownEvaluationError(f"unknown evaluation {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def declared_ranges(record: dict) -> dict[str, tuple[float, float]]:
    """The metric ranges a v2 record's evaluation declares (``read_records(..., ranges_of=...)``).

    Raises
    ------
    UnknownEvaluationError
        If the record names no known evaluation.
    """
    return get_evaluation(record["evaluation"]).ranges


def family_title(family: str) -> str:
    """The heading of a family (its evaluation's :attr:`Evaluation.title`), or the family id."""
    return next((e.title for e in evaluations() if e.family == family and e.title), family)


def pair_or_tagger_task_type(record: dict) -> str:
    """The Hub pipeline type of the model a record of a family that scores both sentence pairs and
    NER scored: ``token-classification`` on a CoNLL-2003 config, else ``text-classification``."""
    return "token-classification" if record["config"].endswith("conll2003") else "text-classification"


def input_sha256(*parts: Any) -> str:
    """SHA-256 of the JSON of what the model saw (canonical: sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def log_entry(uid: str, sha: str, prediction, gold, outcome: dict, llm: list | None = None) -> dict:
    """One line of a per-example log: ``id``, ``input_sha256``, ``prediction``, ``gold`` and
    ``outcome`` (booleans and integers as int, other numbers as float); for a causal LM, ``llm``: the
    :meth:`~robust_bench.models.classifiers.Classifier.trace` of each input the line scored, in the
    order its evaluation names them (:func:`llm_traces`)."""
    entry = {"id": uid, "input_sha256": sha, "prediction": prediction, "gold": gold,
             "outcome": {k: (int(v) if isinstance(v, (bool, int, np.bool_, np.integer)) else float(v))
                         for k, v in outcome.items()}}
    if llm is not None:
        entry["llm"] = llm
    return entry


def llm_traces(clf, inputs: Sequence) -> list | None:
    """The traces of ``inputs`` (rendered-prompt hash and per-choice log-likelihoods, or the generated
    answer) where ``clf`` keeps them (a causal LM), else None: what a log line's ``llm`` holds, so that a
    run can be audited against lm-eval's ``--log_samples`` and re-checked by ``verify``."""
    if not getattr(clf, "keeps_traces", False):       # classifiers with their own head, taggers
        return None
    return [clf.trace(x) for x in inputs]


def task_classifier(model, labels: Sequence[str], task, repo, seed: int, label_map: dict | None = None):
    """The classifier a task's evaluation queries: the model's own over ``labels``, or, for a causal LM,
    the model asked through the task's prompt with k-shot demonstrations drawn with ``seed`` from
    another split of the task's config (``train`` first, never the split scored).

    Parameters
    ----------
    model : robust_bench.models.resolve.ModelHandle
    labels : sequence of str
    task
        A suite task or :class:`CommandTask`.
    repo : path-like
        The dataset repository (demonstrations are read from it).
    seed : int
    label_map : dict, optional

    Raises
    ------
    LLMError
        If the config has no other split to draw demonstrations from, or the prompt cannot be used.
    """
    if model.spec.kind != "causal-lm":
        return model.classifier(labels, label_map)

    tokenised = text_is_tokenised(task.config)
    k = (model.llm or LLMSettings()).num_fewshot
    shots = []
    if k:
        import datasets

        splits = list(built_config(repo, task.config)["files"])
        others = sorted((s for s in splits if s != task.split), key=lambda s: (s != "train", "test" in s, s))
        if not others:
            raise LLMError(f"--num-fewshot {k}: config {task.config!r} has no split besides {task.split!r} to draw "
                           f"demonstrations from")
        rows = datasets.load_dataset(str(repo), task.config, split=others[0])
        shots = draw_shots(rows, task_prompt(task.config, labels, task.options, tokenised=tokenised), k, seed,
                           where=f"{task.config}/{others[0]}")
    return model.classifier(labels, label_map, task=task, shots=shots, tokenised=tokenised)


def unit_ids(evaluation: str, rows, split: str) -> list[str]:
    """The example (unit) each row belongs to: the value of the evaluation's ``unit_column`` (the
    group for name swaps: variants of one source example are scored together), else the row's
    ``id`` (``<split>-<idx>`` for rows that have only an ``idx``)."""
    column = get_evaluation(evaluation).unit_column
    if column:
        return [str(g) for g in rows[column]]
    if "id" in rows.column_names:
        return [str(i) for i in rows["id"]]
    return [f"{split}-{int(i):06d}" for i in rows["idx"]]


def cluster_ids(evaluation: str, rows, split: str) -> list[str]:
    """The cluster of each row: the evaluation's declared :attr:`Evaluation.cluster` (a column, or a
    function of the rows), else the row's example (:func:`unit_ids`).

    Returns
    -------
    list of str
        One label per row.

    Raises
    ------
    EvaluationError
        If the declared column is missing, or the function gives another number of labels than rows.
    """
    declared = get_evaluation(evaluation).cluster
    if declared is None:
        return unit_ids(evaluation, rows, split)
    if callable(declared):
        labels = [str(c) for c in declared(rows)]
    elif declared in rows.column_names:
        labels = [str(c) for c in rows[declared]]
    else:
        raise EvaluationError(f"evaluation {evaluation!r} declares its clusters by column {declared!r}, which the "
                              f"rows lack (columns: {', '.join(rows.column_names)})")
    if len(labels) != len(rows):
        raise EvaluationError(f"evaluation {evaluation!r}: {len(labels)} cluster labels for {len(rows)} rows")
    return labels


def with_clusters(evaluation: str, rows, split: str, examples: Sequence[dict]) -> list[dict]:
    """The log entries with each one's ``cluster`` (:func:`cluster_ids` of its rows): what ``run`` writes
    and ``leaderboard verify`` compares. An entry whose id is no example of ``rows`` (an evaluation that
    names its lines otherwise) is its own cluster.

    Parameters
    ----------
    evaluation : str
    rows : datasets.Dataset
        The rows the entries were scored on.
    split : str
    examples : sequence of dict
        Log entries (:func:`log_entry`).

    Returns
    -------
    list of dict
        New entries, in the same order.

    Raises
    ------
    EvaluationError
        If the rows of one example are declared in different clusters.
    """
    of: dict[str, str] = {}
    for unit, cluster in zip(unit_ids(evaluation, rows, split), cluster_ids(evaluation, rows, split)):
        if of.setdefault(unit, cluster) != cluster:
            raise EvaluationError(f"evaluation {evaluation!r}: example {unit!r} has rows in clusters {of[unit]!r} "
                                  f"and {cluster!r}; an example lies in one cluster")
    return [{**e, "cluster": of.get(e["id"], e["id"])} for e in examples]
