"""A run's scores in the Hub's evaluation-results formats, pushed to the model's repository.

* ``.eval_results/<file>.yaml`` (Hub 2026): a YAML list of entries, one per task, each naming the
  benchmark dataset and its task id (from the dataset's ``eval.yaml``, :func:`robust_bench.benchmarks.eval_yaml`),
  the value, the date and notes. Built with ``huggingface_hub.EvalResultEntry`` and
  ``eval_result_entries_to_yaml``, uploaded with ``HfApi.upload_file``.
* ``model-index`` in the README card's YAML (older hubs and tools): ``huggingface_hub.EvalResult``
  entries written through ``ModelCard``.

The value is each task's primary metric as the record has it (a fraction in [0, 1]); the notes
carry its direction, its 95% interval, the number of examples, the suite version and the data hash.
"""

from __future__ import annotations

import os
from pathlib import Path

from robust_bench.evaluations import declared_ranges, get_evaluation
from robust_bench.results.runs import RunFolderError, read_records

__all__ = ["run_records", "eval_results_entries", "eval_results_yaml", "model_index_card", "push_results",
           "FORMATS", "eval_results_path"]

FORMATS = ("eval-results", "model-index")


def run_records(run_dir: str | os.PathLike) -> list[dict]:
    """The v2 records of a run folder whose primary metric is defined, validated, in task order.

    Raises
    ------
    RunFolderError
        If the folder has no record, or a record does not validate or is a v1 record (naming the file).
    """
    records = read_records(run_dir, ranges_of=declared_ranges)
    if not records:
        raise RunFolderError(str(run_dir), "records", "no records (is it a run folder of `robust-bench run`?)")
    return [rec for rec in records.values() if rec["metrics"].get(rec["primary"]) is not None]


def _notes(rec: dict) -> str:
    lo, hi = rec["intervals"].get(rec["primary"], [None, None])
    ci = f", 95% CI [{lo:.4f}, {hi:.4f}]" if lo is not None and hi is not None else ""
    return (f"{rec['primary']}{ci}, {rec['n_examples']} examples; robust-bench suite {rec['suite']['name']} "
            f"v{rec['suite']['version']}, {rec['config']}/{rec['split']} sha256 {rec['corpus_sha256'][:12]}, seed {rec['seed']}")


def eval_results_entries(records: list[dict], dataset_repo: str):
    """``EvalResultEntry`` objects, one per record: task id = suite task, value = primary metric."""
    from huggingface_hub import EvalResultEntry

    return [EvalResultEntry(dataset_id=dataset_repo, task_id=rec["task"], value=rec["metrics"][rec["primary"]],
                            date=rec["timestamp"][:10], notes=_notes(rec),
                            source_url=f"https://huggingface.co/datasets/{dataset_repo}",
                            source_name=f"robust-bench {rec['suite']['name']} v{rec['suite']['version']}")
            for rec in records]


def eval_results_path(records: list[dict]) -> str:
    """``.eval_results/robust-bench-<suite>-v<version>.yaml``: one file per suite version."""
    s = records[0]["suite"]
    return f".eval_results/robust-bench-{s['name']}-v{s['version']}.yaml"


def eval_results_yaml(records: list[dict], dataset_repo: str) -> str:
    """The ``.eval_results`` file's text."""
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    return yaml.safe_dump(eval_result_entries_to_yaml(eval_results_entries(records, dataset_repo)), sort_keys=False)


def model_index_card(records: list[dict], dataset_repo: str, model_name: str, card_text: str | None = None) -> str:
    """A README card (``card_text``, or a new one) whose ``model-index`` holds the run's results.

    Earlier robust-bench results of the same suite in the model-index are replaced; other results are kept.
    """
    from huggingface_hub import EvalResult, ModelCard

    card = ModelCard(card_text if card_text else "---\n{}\n---\n")
    suite = f"robust-bench {records[0]['suite']['name']} v{records[0]['suite']['version']}"
    kept = [r for r in (card.data.eval_results or []) if not (r.source_name or "").startswith(suite)]
    new = []
    for rec in records:
        lo, hi = rec["intervals"].get(rec["primary"], [None, None])
        task_type = get_evaluation(rec["evaluation"]).task_type(rec)
        new.append(EvalResult(task_type=task_type, task_name=f"{rec['family']}: {rec['evaluation']}",
                              dataset_type=dataset_repo, dataset_name=f"robust-bench {rec['task']}",
                              dataset_config=rec["config"], dataset_split=rec["split"],
                              metric_type=rec["primary"], metric_name=rec["primary"],
                              metric_value=rec["metrics"][rec["primary"]],
                              metric_args={"ci95": [lo, hi], "n_examples": rec["n_examples"]},
                              source_name=suite, source_url=f"https://huggingface.co/datasets/{dataset_repo}"))
    card.data.eval_results = kept + new
    card.data.model_name = card.data.model_name or model_name
    return str(card)


def push_results(run_dir: str | os.PathLike, model_repo: str, *, dataset_repo: str = "robust-bench/robust-bench",
                 fmt: str = "eval-results", create_pr: bool = True, api=None) -> str:
    """Write a run's results into the model repository ``model_repo`` on the Hub.

    Parameters
    ----------
    run_dir : path-like
        A run folder.
    model_repo : str
        The model's Hub id.
    dataset_repo : str
        The benchmark dataset repository the results refer to.
    fmt : {"eval-results", "model-index"}
    create_pr : bool
        Open a pull request (the default; results on someone else's model) or commit to ``main``.
    api : huggingface_hub.HfApi, optional

    Returns
    -------
    str
        The pull request's or commit's URL.

    Raises
    ------
    RunFolderError
        No usable record (naming the file); ValueError for an unknown format or an invalid repository id.
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import EntryNotFoundError
    from huggingface_hub.utils import validate_repo_id

    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {FORMATS}, got {fmt!r}")
    validate_repo_id(model_repo)
    validate_repo_id(dataset_repo)
    records = run_records(run_dir)
    if not records:
        raise RunFolderError(str(run_dir), "records", "no record with a defined primary metric")
    api = api if api is not None else HfApi()
    suite = records[0]["suite"]
    message = f"robust-bench results on suite {suite['name']} v{suite['version']}"
    if fmt == "eval-results":
        path, text = eval_results_path(records), eval_results_yaml(records, dataset_repo)
    else:
        try:
            current = Path(api.hf_hub_download(repo_id=model_repo, filename="README.md")).read_text("utf-8")
        except EntryNotFoundError:
            current = None
        path, text = "README.md", model_index_card(records, dataset_repo, model_repo.split("/")[-1], current)
    info = api.upload_file(path_or_fileobj=text.encode("utf-8"), path_in_repo=path, repo_id=model_repo,
                           repo_type="model", commit_message=message, create_pr=create_pr)
    return getattr(info, "pr_url", None) or getattr(info, "commit_url", None) or str(info)
