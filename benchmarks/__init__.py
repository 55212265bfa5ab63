"""Suite definitions: versioned YAML lists of tasks, validated by ``suite.schema.json``.

A task names a built config and split, the model interface it needs, the evaluation that scores it,
which of the evaluation's metrics it reports and its primary metric, and the SHA-256 of its data
file, so that a score is tied to exact data. A metric's formula, direction and range, and the
task's family, are the evaluation's declaration (:mod:`robust_bench.evaluations`), not restated per
task. A suite either lists its tasks (``default``) or extends another suite and selects some of
them, optionally with example limits (``smoke`` and the per-family suites), so that the data hashes
are written once. Mapped to ``robust_bench.benchmarks``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from robust_bench import RobustBenchError
from robust_bench.evaluations import EvaluationError, UnknownEvaluationError, get_evaluation
from robust_bench.models.resolve import INTERFACES
from robust_bench.perturb.setup import ROLES
from robust_bench.scoring.intervals import Formula

__all__ = ["SuiteError", "suite_yaml", "MetricSpec", "Task", "Suite", "list_suites", "load_suite", "pin_suite", "count_examples",
           "eval_yaml"]


class SuiteError(RobustBenchError, ValueError):
    """A suite file is missing, malformed, or inconsistent; the message names the file and field."""


@dataclass(frozen=True)
class MetricSpec:
    """A metric of a task, as its evaluation declares it (:class:`robust_bench.evaluations.Metric`):
    its name, direction, range of values ``(low, high)`` and formula over the log's outcome fields."""

    name: str
    higher_is_better: bool
    range: tuple[float, float]
    formula: Formula


@dataclass(frozen=True)
class Task:
    """One scored unit of a suite (see ``suite.schema.json`` for every field)."""

    name: str
    family: str
    config: str
    split: str
    interface: str
    evaluation: str
    metrics: tuple[MetricSpec, ...]
    primary: str
    data_sha256: str | None
    limit: int | None = None
    options: dict = field(default_factory=dict)
    build: dict = field(default_factory=dict)
    examples: int | None = None
    setup: tuple[str, ...] = ()

    @property
    def whole(self) -> int | None:
        """How many examples a whole run of the task scores: the pinned split's ``examples``, or the
        first ``limit`` of them where the suite limits the task; None while not pinned."""
        if self.examples is None:
            return None
        return min(self.examples, self.limit) if self.limit else self.examples

    def metric(self, name: str) -> MetricSpec:
        """The spec of metric ``name``; KeyError if the task has none."""
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(f"task {self.name!r} has no metric {name!r}")

    def as_dict(self) -> dict:
        """The task as it appears in a resolved suite (JSON-ready)."""
        return {"name": self.name, "family": self.family, "config": self.config, "split": self.split,
                "interface": self.interface, "evaluation": self.evaluation,
                "metrics": [{"name": m.name, "higher_is_better": m.higher_is_better, "range": list(m.range)}
                            for m in self.metrics],
                "primary": self.primary, "limit": self.limit, "options": dict(self.options), "build": dict(self.build),
                "data_sha256": self.data_sha256, "examples": self.examples,
                **({"setup": list(self.setup)} if self.setup else {})}


@dataclass(frozen=True)
class Suite:
    """A resolved suite: name, version and tasks (an extending suite's selection applied)."""

    name: str
    version: int
    description: str
    tasks: tuple[Task, ...]
    source: str = ""
    setup: dict = field(default_factory=dict)
    #: paraphrased prompt templates for ``run --prompts all``, by lm-eval GLUE source task (``mnli``,
    #: ``snli``, ``mrpc``, ``qnli``, ``sst2``): each ``{"name", "template", "choices"}``, beside lm-eval's own
    prompts: dict = field(default_factory=dict)

    def task(self, name: str) -> Task:
        """The task ``name``; KeyError listing the suite's tasks if there is none."""
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(f"suite {self.name!r} v{self.version} has no task {name!r}; tasks: "
                       f"{', '.join(t.name for t in self.tasks)}")

    @property
    def pinned(self) -> bool:
        """Every task is tied to a data hash."""
        return all(t.data_sha256 for t in self.tasks)


def suite_yaml(suite: Suite) -> str:
    """A resolved suite (its tasks listed, hashes included) as YAML that :func:`load_suite` reads back."""
    doc = {"name": suite.name, "version": suite.version, "description": suite.description,
           **({"setup": {r: dict(a) for r, a in suite.setup.items()}} if suite.setup else {}),
           "tasks": [t.as_dict() for t in suite.tasks]}
    return yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True)


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads(resources.files(__name__).joinpath("suite.schema.json").read_text("utf-8"))


def list_suites() -> list[str]:
    """Names of the suites shipped with robust-bench."""
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".yaml"))


def _read(name_or_path: str | os.PathLike) -> tuple[dict, str]:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.is_file():
        if not p.is_file():
            raise SuiteError(f"suite file {p} does not exist")
        text, source = p.read_text("utf-8"), str(p)
    else:
        if str(name_or_path) not in list_suites():
            raise SuiteError(f"unknown suite {str(name_or_path)!r}; known: {', '.join(list_suites())} (or a .yaml path)")
        text = resources.files(__name__).joinpath(f"{name_or_path}.yaml").read_text("utf-8")
        source = f"robust_bench.benchmarks/{name_or_path}.yaml"
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SuiteError(f"{source}: not valid YAML: {exc}") from None
    _validate(doc, source)
    return doc, source


def _validate(doc: Any, source: str) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "<suite>"
        raise SuiteError(f"{source}: field {where!r}: {e.message}")


def _task(d: dict, source: str) -> Task:
    where = f"{source}: task {d['name']!r}"
    try:
        ev = get_evaluation(d["evaluation"])
    except UnknownEvaluationError as exc:
        raise SuiteError(f"{where}: field 'evaluation': {exc}") from None
    family = d.get("family", ev.family)
    if family != ev.family:
        raise SuiteError(f"{where}: field 'family': {family!r}, but evaluation {ev.name!r} scores {ev.family!r}")
    if d["interface"] not in INTERFACES:
        raise SuiteError(f"{where}: field 'interface': {d['interface']!r}; known: {', '.join(INTERFACES)}")
    metrics = []
    for m in d["metrics"]:
        name = m if isinstance(m, str) else m["name"]
        try:
            decl = ev.metric(name)
        except EvaluationError as exc:
            raise SuiteError(f"{where}: field 'metrics': {exc}") from None
        if isinstance(m, dict) and (bool(m["higher_is_better"]) != decl.higher_is_better
                                    or (float(m["range"][0]), float(m["range"][1])) != decl.range):
            raise SuiteError(f"{where}: metric {name!r}: direction or range differs from its evaluation's declaration "
                             f"(higher_is_better {decl.higher_is_better}, range {list(decl.range)})")
        metrics.append(MetricSpec(name, decl.higher_is_better, decl.range, decl.formula))
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise SuiteError(f"{where}: metric names repeat: {names}")
    if d["primary"] not in names:
        raise SuiteError(f"{where}: primary metric {d['primary']!r} is not among its metrics {names}")
    return Task(name=d["name"], family=family, config=d["config"], split=d["split"], interface=d["interface"],
                evaluation=d["evaluation"], metrics=tuple(metrics), primary=d["primary"], data_sha256=d["data_sha256"],
                limit=d.get("limit"), options=dict(d.get("options") or {}), build=dict(d.get("build") or {}),
                examples=d.get("examples"), setup=tuple(d.get("setup") or ()))


def load_suite(name_or_path: str | os.PathLike, *, _seen: tuple = ()) -> Suite:
    """Load, validate and resolve a suite.

    Parameters
    ----------
    name_or_path : str or path-like
        A shipped suite's name (:func:`list_suites`) or a YAML file.

    Returns
    -------
    Suite

    Raises
    ------
    SuiteError
        Unknown suite, invalid YAML, a field that breaks the schema (named), repeated task names, a
        primary metric that is not a metric, a selection naming no task, or an ``extends`` cycle.
    """
    doc, source = _read(name_or_path)
    if "extends" in doc:
        parent_ref = doc["extends"]
        if parent_ref in _seen:
            raise SuiteError(f"{source}: 'extends' cycle through {parent_ref!r}")
        parent_path = Path(source).with_name(f"{parent_ref}.yaml") if Path(source).is_file() else None
        parent = load_suite(parent_path if parent_path is not None and parent_path.is_file() else parent_ref,
                            _seen=(*_seen, doc["name"]))
        tasks = []
        for sel in doc["select"]:
            hit = [t for t in parent.tasks if sel in (t.name, t.family)]
            if not hit:
                raise SuiteError(f"{source}: field 'select': {sel!r} names no task or family of {parent.name!r}")
            tasks += [t for t in hit if t not in tasks]
        over = doc.get("overrides", {})
        unknown = sorted(set(over) - {t.name for t in tasks})
        if unknown:
            raise SuiteError(f"{source}: field 'overrides': {unknown} are not selected tasks")
        from dataclasses import replace

        tasks = [replace(t, limit=over.get(t.name, {}).get("limit", t.limit),
                         options={**t.options, **over.get(t.name, {}).get("options", {})},
                         setup=tuple(over.get(t.name, {}).get("setup", t.setup))) for t in tasks]
    else:
        tasks = [_task(d, source) for d in doc["tasks"]]
    names = [t.name for t in tasks]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SuiteError(f"{source}: task names repeat: {dup}")
    setup = {**(parent.setup if "extends" in doc else {}), **(doc.get("setup") or {})}
    unknown = sorted(set(setup) - set(ROLES))
    if unknown:
        raise SuiteError(f"{source}: field 'setup': unknown roles {unknown}; roles: {', '.join(ROLES)}")
    for t in tasks:
        undeclared = sorted(set(t.setup) - set(setup))
        if undeclared:
            raise SuiteError(f"{source}: task {t.name!r}: field 'setup': {undeclared} are not declared in the suite's setup")
    prompts = {**(parent.prompts if "extends" in doc else {}), **(doc.get("prompts") or {})}
    for src, variants in prompts.items():
        names = [v["name"] for v in variants]
        if len(set(names)) != len(names) or "lm_eval" in names:
            raise SuiteError(f"{source}: field 'prompts.{src}': template names repeat or use 'lm_eval' (lm-eval's own "
                             f"prompt, always the first): {names}")
    return Suite(name=doc["name"], version=int(doc["version"]), description=doc["description"], tasks=tuple(tasks),
                 source=source, setup=setup, prompts=prompts)


def count_examples(repo: str | os.PathLike, meta: dict, split: str, evaluation: str) -> int:
    """How many examples a built split holds for ``evaluation``: its groups where the evaluation scores
    groups of rows (``unit_column``, name swaps), else its rows."""
    import pyarrow.parquet as pq

    column = get_evaluation(evaluation).unit_column
    path = Path(repo) / meta["files"][split]["path"]
    if column is None:
        return pq.read_metadata(path).num_rows
    return len(set(pq.read_table(path, columns=[column]).column(column).to_pylist()))


def pin_suite(path: str | os.PathLike, repo: str | os.PathLike, *, out: str | os.PathLike | None = None) -> dict:
    """Write into a suite file (one that lists its tasks) the SHA-256 of each task's data file as
    built in ``repo``, and how many examples it holds; a maintainer's step before a suite version is
    published.

    Tasks whose config or split is not built in ``repo`` keep their hash (and are reported).

    Returns
    -------
    dict
        Task name -> (old hash, new hash) for the tasks whose hash changed, and ``(old, None)``
        for the tasks left as they were because ``repo`` lacks their data.

    Raises
    ------
    SuiteError
        If the suite extends another (pin the parent).
    """
    from robust_bench.data.repository import read_metadata
    from robust_bench.io.fileio import atomic_write_text

    doc, source = _read(path)
    if "extends" in doc:
        raise SuiteError(f"{source} extends {doc['extends']!r}; pin that suite, whose hashes it shares")
    metas = read_metadata(repo)
    changed = {}
    for d in doc["tasks"]:
        meta = metas.get(d["config"])
        if meta is None or d["split"] not in meta.get("files", {}):
            changed[d["name"]] = (d["data_sha256"], None)
            continue
        new = meta["files"][d["split"]]["sha256"]
        d["examples"] = count_examples(repo, meta, d["split"], d["evaluation"])
        if d["data_sha256"] != new:
            changed[d["name"]] = (d["data_sha256"], new)
            d["data_sha256"] = new
    atomic_write_text(out or path, _with_hashes(Path(source).read_text("utf-8"), doc))
    return changed


def _with_hashes(text: str, doc: dict) -> str:
    """``text`` with each task's ``data_sha256`` and ``examples`` lines set from ``doc`` (an ``examples``
    line is added after ``data_sha256`` where there is none), the rest kept as written; a file laid out
    otherwise (one ``data_sha256`` line per task, after its ``- name:``) is dumped anew."""
    pins = {d["name"]: (d["data_sha256"], d.get("examples")) for d in doc["tasks"]}
    out, task, seen = [], None, []
    for line in text.splitlines(keepends=True):
        m = re.match(r"^- name:\s*(\S+)\s*$", line)
        if m:
            task = m.group(1)
        if re.match(r"^\s+examples:", line) and task in pins:
            continue                        # written again below, after data_sha256
        m = re.match(r"^(\s+)data_sha256:\s*\S*\s*$", line)
        if m and task in pins and task not in seen:
            sha, n = pins[task]
            out += [f"{m.group(1)}data_sha256: {sha or 'null'}\n", f"{m.group(1)}examples: {n if n else 'null'}\n"]
            seen.append(task)
            continue
        out.append(line)
    if sorted(seen) != sorted(pins):
        return yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True)
    return "".join(out)


def eval_yaml(suite: Suite, *, framework: str = "robust-bench") -> str:
    """The Hub's benchmark definition (``eval.yaml`` at a dataset repository's root) for ``suite``.

    One Hub task per suite task (``id`` the task name, with its config and split), so that model
    repositories can report results against it (``.eval_results/``, see
    :mod:`robust_bench.leaderboard.hub_results`). The Hub lists a benchmark only once its
    ``evaluation_framework`` is on the Hub's allow-list (beta, 2026); until then results still
    upload but show as unlinked.
    """
    doc = {"name": f"robust-bench {suite.name} v{suite.version}",
           "description": " ".join(suite.description.split()),
           "evaluation_framework": framework,
           "tasks": [{"id": t.name, "config": t.config, "split": t.split} for t in suite.tasks]}
    return yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True)
