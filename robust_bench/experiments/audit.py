"""Audit samples of a built config: random rows, original beside transformed, for human judgement.

``robust-bench audit lit_mnli --sample 200 --seed 0`` prints the rows and writes a TSV with an
empty ``judgement`` column, so that a person (or a second, blind reader) can mark each row and
the share judged fluent and meaning-preserving can be reported per transformation code.
"""

from __future__ import annotations

import csv
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Sequence

__all__ = ["AuditError", "AUDIT_COLUMNS", "audit_sample", "write_audit_tsv", "read_judgements", "judged_shares"]

#: Columns of the audit TSV; ``judgement`` is left empty for the reader (``ok`` or ``bad``,
#: optionally followed by a comment after a colon).
AUDIT_COLUMNS = ("id", "transformation", "original_label", "label", "original_premise", "premise",
                 "original_hypothesis", "hypothesis", "judgement")


class AuditError(ValueError):
    """The config is not built, has no such split, or is not an audited family."""


def audit_sample(repo: str | os.PathLike, config: str, *, n: int = 200, seed: int = 0,
                 split: str | None = None) -> list[dict[str, Any]]:
    """A uniform random sample of ``n`` rows of a built LIT config (all splits pooled, or one).

    Parameters
    ----------
    repo : path-like
        Dataset repository holding ``config``.
    config : str
        A LIT config (``lit_mnli``, ``lit_snli`` or an ``_extended`` one).
    n : int
        Rows to draw (all rows if fewer), without replacement.
    seed : int
        Seed of the draw; the same seed gives the same rows.
    split : str, optional

    Returns
    -------
    list of dict
        Rows with the :data:`AUDIT_COLUMNS` (labels as names), in the order drawn.

    Raises
    ------
    AuditError
        If ``n`` < 1, or the config is not built in ``repo``, is not a LIT config, or has no such
        split.
    """
    import datasets
    import numpy as np

    from robust_bench.data.registry import get_config
    from robust_bench.data.repository import read_metadata

    if n < 1:
        raise AuditError(f"--sample must be at least 1, got {n}")
    if get_config(config).family != "lit":
        raise AuditError(f"audit samples are defined for LIT contrast sets, not {config!r}")
    meta = read_metadata(repo).get(config)
    if meta is None:
        raise AuditError(f"{repo} holds no {config!r}; run `robust-bench build {config} --out {repo}` first")
    splits = [split] if split else list(meta["files"])
    if split and split not in meta["files"]:
        raise AuditError(f"{config!r} has no split {split!r}; splits: {', '.join(meta['files'])}")
    parts = [datasets.Dataset.from_parquet(str(Path(repo) / meta["files"][s]["path"])) for s in splits]
    ds = datasets.concatenate_datasets(parts) if len(parts) > 1 else parts[0]
    names = ds.features["label"].names
    take = np.random.default_rng(seed).permutation(len(ds))[:n]
    out = []
    for k in take.tolist():
        row = ds[k]
        out.append({"id": row["id"], "transformation": row["transformation"],
                    "original_label": names[row["original_label"]], "label": names[row["label"]],
                    "original_premise": row["original_premise"], "premise": row["premise"],
                    "original_hypothesis": row["original_hypothesis"], "hypothesis": row["hypothesis"],
                    "judgement": ""})
    return out


def write_audit_tsv(rows: Sequence[dict[str, Any]], path: str | os.PathLike) -> Path:
    """Write the sample as a TSV with the :data:`AUDIT_COLUMNS` header (written to a temporary
    file, then renamed, so an interrupted write leaves no half file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".part")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=AUDIT_COLUMNS, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in AUDIT_COLUMNS})
    os.replace(tmp, path)
    return path


def read_judgements(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a judged audit TSV.

    Raises
    ------
    AuditError
        If a column is missing or a judgement is neither empty, ``ok`` nor ``bad`` (line named).
    """
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t")
        missing = [c for c in AUDIT_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise AuditError(f"{path}: missing column(s) {missing}")
        rows = []
        for line, r in enumerate(reader, start=2):
            verdict = (r["judgement"] or "").split(":", 1)[0].strip().lower()
            if verdict not in ("", "ok", "bad"):
                raise AuditError(f"{path}, line {line}: judgement must be 'ok' or 'bad', got {r['judgement']!r}")
            r["verdict"] = verdict
            rows.append(r)
    return rows


def judged_shares(rows: Sequence[dict[str, str]]) -> dict[str, dict[str, float | int]]:
    """Share of rows judged ``ok`` per transformation code and overall (unjudged rows skipped).

    Returns
    -------
    dict
        ``result[code] = {"judged": int, "ok": int, "share": float in [0, 1]}``, plus ``"all"``.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        if r["verdict"]:
            for key in (r["transformation"], "all"):
                counts[key][r["verdict"]] += 1
    return {k: {"judged": c["ok"] + c["bad"], "ok": c["ok"], "share": c["ok"] / (c["ok"] + c["bad"])}
            for k, c in counts.items()}
