"""The static corpora as lm-evaluation-harness tasks: ``robust-bench export lm-eval CONFIG...``.

For each classification config (``gec_mnli``, ``gec_mrpc``, ``gec_qnli``, ``gec_sst2``, ``names_mrpc``,
``lit_mnli``, ``lit_snli``) it writes, into one folder that ``lm_eval --include_path`` reads:

* ``robust_bench_<config>.yaml`` over the perturbed rows, and ``robust_bench_<config>_original.yaml``
  over the rows they were made from (each distinct original once), so lm-eval users score both and
  compare;
* their data as local Parquet files (``data/<task>.parquet``: the prompt's fields, ``label`` and
  ``id``), named by absolute path in ``dataset_kwargs.data_files``;
* in each task's ``metadata.robust_bench``: the config, split and builder version, the SHA-256 of the
  built split it was cut from and of the Parquet file written, and the prompt's SHA-256.

The task is lm-eval ``multiple_choice`` with robust-bench's prompt for the config
(:func:`robust_bench.models.llm.task_prompt`: lm-eval's own GLUE prompt by default), metrics ``acc`` and
``acc_norm``: the same contexts and continuations ``robust-bench run`` scores, so the two agree
(tests/test_llm.py checks it to 1e-4).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping, Sequence

from robust_bench import RobustBenchError
from robust_bench.io.fileio import atomic_write_text

__all__ = ["ExportError", "export_lm_eval", "TAG"]

#: the lm-eval tag every exported task carries (``lm_eval --tasks robust_bench`` runs them all)
TAG = "robust_bench"


class ExportError(RobustBenchError, ValueError):
    """A config cannot be exported (not built, not a classification config, no such split)."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _columns(cols: Sequence[str], fields: Sequence[str], original: bool) -> list[str]:
    if original:
        return [f"original_{f}" if f"original_{f}" in cols else f for f in fields]
    return [f"perturbed_{f}" if f"perturbed_{f}" in cols else f for f in fields]


def export_lm_eval(configs: Sequence[str], *, repo: str | os.PathLike, out: str | os.PathLike,
                   splits: Mapping[str, str] | None = None, limit: int | None = None) -> list[Path]:
    """Write lm-eval task YAMLs and their Parquet data for ``configs`` (see the module docstring).

    Parameters
    ----------
    configs : sequence of str
    repo : path-like
        The dataset repository holding the built configs.
    out : path-like
        The folder to write (created; files of the same names are replaced).
    splits : mapping of str to str, optional
        Config -> the split to export (default: its first built split; ``robust-bench export`` gives the
        one the default suite scores).
    limit : int, optional
        Only the first ``limit`` rows (perturbed) and their originals, as ``run --limit`` selects them.

    Returns
    -------
    list of Path
        The YAML files written, two per config.

    Raises
    ------
    ExportError
        If a config is not a classification config with a default prompt, or the split is not built.
    NotBuiltError
        If a config is not built in ``repo``.
    """
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq
    import yaml

    from robust_bench.data.repository import built_config
    from robust_bench.data.registry import text_is_tokenised
    from robust_bench.models.llm import LLMError, task_prompt

    plans = []
    for config in configs:                 # every config checked before anything is written
        meta = built_config(repo, config)
        sp = (splits or {}).get(config) or list(meta["files"])[0]
        if sp not in meta["files"]:
            raise ExportError(f"{config}: no split {sp!r}; built: {', '.join(meta['files'])}")
        rows = datasets.load_dataset(str(repo), config, split=sp)
        if "label" not in rows.column_names:
            raise ExportError(f"{config} is not a sentence classification config (no 'label' column); lm-eval "
                              "multiple-choice tasks are written for gec_mnli, gec_mrpc, gec_qnli, gec_sst2, names_mrpc, "
                              "lit_mnli and lit_snli")
        labels = list(rows.features["label"].names)
        try:
            prompt = task_prompt(config, labels, tokenised=text_is_tokenised(config))
        except LLMError as exc:
            raise ExportError(f"{config}: {exc}") from None
        if limit is not None:
            rows = rows.select(range(min(limit, len(rows))))
        plans.append((config, sp, meta, rows, prompt))
    out = Path(out).resolve()
    (out / "data").mkdir(parents=True, exist_ok=True)
    written = []
    for config, sp, meta, rows, prompt in plans:
        cols = rows.column_names
        ids = [str(i) for i in (rows["id"] if "id" in cols else rows["idx"])]
        needed = {c for o in (False, True) for c in _columns(cols, prompt.fields, o)} | ({"label", "original_label"} & set(cols))
        columns = {c: rows[c] for c in needed}      # each column read once, not once per row
        for original in (False, True):
            src = _columns(cols, prompt.fields, original)
            gold = "original_label" if original and "original_label" in cols else "label"
            table: dict[str, list] = {f: [] for f in prompt.fields}
            table["label"], table["id"] = [], []
            seen = set()
            for k in range(len(rows)):
                texts = tuple(columns[c][k] for c in src)
                if original and texts in seen:
                    continue
                seen.add(texts)
                for f, t in prompt.doc(texts).items():      # as the prompt renders it (detokenised where it is)
                    table[f].append(t)
                table["label"].append(int(columns[gold][k]))
                table["id"].append(ids[k])
            name = f"robust_bench_{config}{'_original' if original else ''}"
            data = out / "data" / f"{name}.parquet"
            pq.write_table(pa.table(table), data)
            task = {
                "task": name, "tag": [TAG],
                "dataset_path": "parquet", "dataset_kwargs": {"data_files": {"test": str(data)}},
                "test_split": "test", "output_type": "multiple_choice",
                "doc_to_text": prompt.template, "doc_to_choice": list(prompt.verbalisers), "doc_to_target": "label",
                "target_delimiter": prompt.target_delimiter, "fewshot_delimiter": prompt.fewshot_delimiter,
                "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True},
                                {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True}],
                "metadata": {"version": 1.0, "robust_bench": {
                    "config": config, "split": sp, "rows": "original" if original else "perturbed",
                    "builder_version": meta.get("builder_version"), "corpus_sha256": meta["files"][sp]["sha256"],
                    "data_sha256": _sha256(data), "n_rows": len(table["id"]), "limit": limit,
                    "prompt_sha256": prompt.sha256, "prompt_source": prompt.source}},
            }
            path = atomic_write_text(out / f"{name}.yaml", yaml.safe_dump(task, sort_keys=False, allow_unicode=True))
            written.append(path)
    return written
