"""Blind validity audits of any built config (``../shared/VALIDITY.md``, section 2).

``robust-bench audit CONFIG --sample N --seed S`` draws N changed rows at random (for grouped
configs, one random non-original variant per group; rows the builder left unchanged are not drawn,
their share is reported) and writes a blind TSV: ``id``, ``original``, ``perturbed``, ``edits`` (in
words) and empty ``judgement``, ``defect`` and ``reason`` columns, plus a sidecar
``<file>.meta.json`` that ties the sample to the build (builder version, data hashes, seed, date).
A reader who sees only the TSV and the criteria marks each row ``ok`` or ``bad`` (with a defect
class and a short reason). ``robust-bench audit CONFIG --judged FILE`` checks the judged file against
the build and records it in the dataset repository: the TSV is kept beside the data, hashed, and the
card's **Validity** section gives ok/N with a 95% Wilson interval, N, the seed, the date, the builder
version and the defect classes. A later build with another builder version marks the audit stale.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from robust_bench import RobustBenchError

__all__ = ["AuditError", "AUDIT_COLUMNS", "VERDICTS", "FLUENCY_COLUMN", "FLUENCY_VERDICTS", "asks_fluency", "audit_sample", "write_audit_tsv", "read_judgements",
           "wilson_interval", "audit_group", "summarise_judged", "record_audit", "describe_row"]

#: Columns of the blind TSV; the reader fills ``judgement`` (``ok`` or ``bad``), and for ``bad`` rows
#: ``defect`` (a short class name) and ``reason``.
AUDIT_COLUMNS = ("id", "original", "perturbed", "edits", "judgement", "defect", "reason")
VERDICTS = ("ok", "bad")
#: A second, separate verdict the reader gives where a family's figure needs it: ``fluent`` (``yes`` or
#: ``no``: the perturbed sentence reads as fluent English) for the adversarial treebanks, whose paper
#: reports fluency apart from syntax preservation (Wang et al. 2021, Table 2).
FLUENCY_COLUMN = "fluent"
FLUENCY_VERDICTS = ("yes", "no")


class AuditError(RobustBenchError, ValueError):
    """A bad request or a bad judged file; the message names the file, line and field."""


# ---- drawing -------------------------------------------------------------------------------------

def _text(value) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _edits_in_words(edits: Sequence[dict]) -> str:
    parts = []
    for e in edits or ():
        op = e.get("operation") or ""
        orig, repl = e.get("original", ""), e.get("replacement", "")
        where = f" at {e['position']}" if e.get("position") is not None else ""
        kind = e.get("type") or e.get("kind") or ""
        if e.get("role"):                      # names: "PER first", "ORG court"
            kind = f"{kind} {e['role']}".strip()
        if op == "insert" or (not orig and repl):
            body = f"insert '{repl}'"
        elif op == "delete" or (orig and not repl):
            body = f"delete '{orig}'"
        elif op == "swap":
            body = f"swap '{orig}' -> '{repl}'"
        else:
            body = f"'{orig}' -> '{repl}'"
        extra = "".join(f", {k} {e[k]}" for k in ("entity_type", "name_part") if e.get(k))
        parts.append(f"{kind}{':' if kind else ''} {body}{where}{extra}".strip())
    return "; ".join(parts)


def _pairs(row: dict) -> tuple[str, str]:
    """The original and perturbed text of a row, for any family's columns."""
    if "original_premise" in row:          # LIT: both sides of the pair
        return (f"P: {row['original_premise']} || H: {row['original_hypothesis']}",
                f"P: {row['premise']} || H: {row['hypothesis']}")
    if "original_sentence1" in row:        # names_mrpc
        return (f"{row['original_sentence1']} || {row['original_sentence2']}",
                f"{row['sentence1']} || {row['sentence2']}")
    seg = row.get("segment")
    if seg and f"perturbed_{seg}" in row:  # gec_* (the CoNLL segment is a token list)
        if isinstance(row[seg], list):
            return _text(row["original_tokens"]), _text(row["perturbed_tokens"])
        return row[seg], row[f"perturbed_{seg}"]
    if "perturbed_tokens" in row:          # gec_conll2003
        return _text(row["original_tokens"]), _text(row["perturbed_tokens"])
    adv = [k for k in row if k.startswith("adversarial_") and not k.endswith(("_tags", "errors"))]
    if adv:                                # adversarial examples of an attack (adv_<model>_<config>_<search>)
        k = adv[0]
        return _text(row[k[len("adversarial_"):]]), _text(row[k])
    if "original_tokens" in row:           # jabberwocky, adv treebanks, names_conll2003
        return _text(row["original_tokens"]), _text(row["tokens"])
    raise AuditError(f"cannot tell the original from the perturbed text in columns {sorted(row)}")


def _sentence_window(tokens, starts, position: int, context: int = 1) -> str:
    bounds = list(starts) + [len(tokens)]
    k = max(i for i, b in enumerate(bounds[:-1]) if b <= position)
    a, b = bounds[max(0, k - context)], bounds[min(len(bounds) - 1, k + context + 1)]
    return _text(tokens[a:b])


def _passage(row: dict, original: dict | None, pick: int) -> dict:
    """A coreference document's variant as an audit row: the sentence around one of its edits (with a
    sentence either side) before and after, and every name mapping of the variant, since a reader
    cannot judge two thousand tokens at once but must see that each person keeps one replacement."""
    if original is None:
        raise AuditError(f"document {row.get('document')!r} has no original (variant 0) to compare with")
    edit = sorted(row["edits"], key=lambda e: e["start"])[pick]
    mapping = list(dict.fromkeys(f"{e['type']} {e.get('role', '')}: '{e['original']}' -> '{e['replacement']}'"
                                 for e in sorted(row["edits"], key=lambda e: e["start"])))
    shown = [e for e in row["edits"] if e["start"] >= edit["start"]][:1]
    return {"id": f"{row['id']}@{edit['start']}",
            "original_tokens": _sentence_window(original["tokens"], original["sentence_starts"], edit["start"]),
            "tokens": _sentence_window(row["tokens"], row["sentence_starts"], edit["new_start"]),
            "edits": [], "_edits_text": (f"passage around '{edit['original']}' -> '{edit['replacement']}' (token "
                                         f"{edit['start']}); the variant's {len(mapping)} name mappings: "
                                         + "; ".join(mapping[:12]) + (" ..." if len(mapping) > 12 else ""))}


def _changed(row: dict) -> bool:
    """Whether a row changed its original: edits recorded (where the family records them) and a text that
    differs (VALIDITY §2: rows left unchanged are not sampled; a variant whose edits give back its
    original's text, issue 53, is one). A coreference document's variant holds no original: its edits say."""
    if "edits" in row and not row["edits"]:
        return False
    try:
        a, b = _pairs(row)
    except AuditError:
        return bool(row.get("edits"))
    return a != b


def describe_row(row: dict, *, label_names: Sequence[str] | None = None, split: str | None = None) -> dict[str, str]:
    """A built row as the blind TSV shows it: ``id``, ``original``, ``perturbed``, ``edits`` in words.

    Raises
    ------
    AuditError
        If the row's columns are of no known family.
    """
    original, perturbed = _pairs(row)
    if "transformation" in row:            # LIT: the edit is the transformation and its label rule
        lab = (lambda v: label_names[v] if label_names and isinstance(v, int) else v)
        edits = (f"{row['transformation']} ({row.get('rule', '')}); label {lab(row['original_label'])} -> "
                 f"{lab(row['label'])}")
    elif "_edits_text" in row:
        edits = row["_edits_text"]
    else:
        edits = _edits_in_words(row.get("edits") or [])
    return {"id": str(_row_id(row, split)), "original": original, "perturbed": perturbed, "edits": edits,
            "judgement": "", "defect": "", "reason": ""}


def _row_id(row: dict, split: str | None = None):
    if row.get("id") in (None, "") and row.get("idx") is not None and split:
        return f"{split}-{row['idx']}"       # gec_* rows: idx repeats across splits
    for key in ("id", "idx", "sent_id", "document"):
        if row.get(key) is not None and row.get(key) != "":
            return row[key]
    raise AuditError(f"row has no id column ({sorted(row)})")


def _load(repo, config: str, split: str | None):
    import datasets

    from robust_bench.data.repository import built_config

    meta = built_config(repo, config, split or None)
    splits = [split] if split else list(meta["files"])
    parts = {s: datasets.Dataset.from_parquet(str(Path(repo) / meta["files"][s]["path"])) for s in splits}
    return meta, parts


def audit_sample(repo: str | os.PathLike, config: str, *, n: int = 100, seed: int = 0,
                 split: str | None = None) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """Draw a blind audit sample of a built config, of any family.

    Rows the builder left unchanged are not drawn. In grouped configs (a ``group_id`` and a
    ``variant``, variant 0 the original) one random non-original variant per group is drawn first,
    then ``n`` of those groups.

    Parameters
    ----------
    repo : path-like
        Dataset repository holding ``config``.
    config : str
    n : int
        Rows to draw (all if fewer), without replacement; at least 100 for a figure on a card.
    seed : int
        Seed of the draw; the same seed gives the same rows.
    split : str, optional
        One split; default all splits pooled.

    Returns
    -------
    rows : list of dict
        :data:`AUDIT_COLUMNS`, in the order drawn.
    meta : dict
        What ties the sample to the build: config, family, builder version, data hashes, seed, N,
        date, and the share of rows left unchanged.

    Raises
    ------
    AuditError
        If ``n`` < 1.
    robust_bench.data.repository.NotBuiltError
        If the config is not built in ``repo``, or has no such split.
    """
    import numpy as np

    if n < 1:
        raise AuditError(f"--sample must be at least 1, got {n}")
    meta, parts = _load(repo, config, split)
    rng = np.random.default_rng(seed)
    pool, total = [], 0
    originals = {r["group_id"]: r for ds in parts.values() if "sentence_starts" in ds.column_names
                 for r in ds if r["variant"] == 0}      # a random-copies split holds no original
    for s, ds in parts.items():
        names = ds.features["label"].names if "label" in ds.features and hasattr(ds.features["label"], "names") else None
        rows = list(ds)
        if "group_id" in ds.column_names and "variant" in ds.column_names:
            groups: dict = {}
            for r in rows:
                groups.setdefault(r["group_id"], []).append(r)
            total += len(groups)
            for gid in sorted(groups):
                variants = [r for r in groups[gid] if r["variant"] != 0 and _changed(r)]
                if variants:
                    row = variants[int(rng.integers(len(variants)))]
                    if "sentence_starts" in row:   # a coreference document: a passage around one edit
                        original = next((r for r in groups[gid] if r["variant"] == 0), None) or originals.get(gid)
                        row = _passage(row, original, int(rng.integers(len(row["edits"]))))
                    pool.append((s, row, names))
        else:
            total += len(rows)
            pool.extend((s, r, names) for r in rows if _changed(r))
    take = rng.permutation(len(pool))[:n]
    out = [describe_row(pool[k][1], label_names=pool[k][2], split=pool[k][0]) for k in take.tolist()]
    info = {"config": config, "family": meta["family"], "builder_version": meta["builder_version"],
            "build_seed": meta["seed"], "data_sha256": {s: f["sha256"] for s, f in meta["files"].items()},
            "splits": list(parts), "seed": seed, "n": len(out), "drawn": _dt.date.today().isoformat(),
            "changed": len(pool), "units": total,
            "unchanged_share": round(1 - len(pool) / total, 4) if total else 0.0}
    return out, info


def _builder_of(config: str, family: str | None = None):
    """The builder class that owns ``config``, else the one of ``family`` (a config derived from a family's
    data, named by its user), else None."""
    from robust_bench.data.registry import UnknownConfigError, builder_classes, get_config

    try:
        return get_config(config).builder
    except UnknownConfigError:
        return next((b for b in builder_classes() if family and b.FAMILY == family), None)


def asks_fluency(config: str, family: str | None = None) -> bool:
    """Whether the audit of ``config`` (of ``family``, for a config no builder owns) asks the reader for a
    separate fluency verdict (:data:`FLUENCY_COLUMN`), as its builder declares (``AUDIT_FLUENCY``: the
    adversarial treebanks)."""
    builder = _builder_of(config, family)
    return bool(builder and builder.AUDIT_FLUENCY)


def write_audit_tsv(rows: Sequence[dict[str, Any]], path: str | os.PathLike, meta: dict | None = None, *,
                    fluency: bool = False) -> Path:
    """Write the blind TSV (header :data:`AUDIT_COLUMNS`, then :data:`FLUENCY_COLUMN` with
    ``fluency``) and, with ``meta``, its sidecar ``<path>.meta.json``; each through a temporary file
    and a rename."""
    from robust_bench.io.fileio import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".part")
    columns = AUDIT_COLUMNS + ((FLUENCY_COLUMN,) if fluency else ())
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, delimiter="\t", quoting=csv.QUOTE_MINIMAL,
                           extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in columns})
    os.replace(tmp, path)
    if meta is not None:
        atomic_write_text(_meta_path(path), json.dumps(meta, indent=2) + "\n")
    return path


def _meta_path(path: Path) -> Path:
    return path.with_name(path.name + ".meta.json")


# ---- judging -------------------------------------------------------------------------------------

def read_judgements(path: str | os.PathLike, *, require_all: bool = False) -> list[dict[str, str]]:
    """Read a judged audit TSV.

    Parameters
    ----------
    path : path-like
    require_all : bool
        Every row must carry a verdict.

    Returns
    -------
    list of dict
        The rows, each with ``verdict`` (``ok``, ``bad`` or empty) added, and ``fluent_verdict``
        (``yes``, ``no`` or empty) where the file has a :data:`FLUENCY_COLUMN`.

    Raises
    ------
    AuditError
        If the file cannot be read, a column is missing, an id repeats, a judgement is neither
        ``ok`` nor ``bad`` (``bad: reason`` is accepted), a fluency verdict is neither ``yes`` nor
        ``no``, or (``require_all``) a row is unjudged or, in a file with a fluency column, has no
        fluency verdict; the message names the file, line and field.
    """
    try:
        f = open(path, encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise AuditError(f"{path}: cannot read ({exc.strerror})") from None
    with f:
        reader = csv.DictReader(f, delimiter="\t")
        fields = reader.fieldnames or []
        missing = [c for c in ("id", "original", "perturbed", "edits", "judgement") if c not in fields]
        if missing:
            raise AuditError(f"{path}, line 1: missing column(s) {', '.join(missing)} (expected {', '.join(AUDIT_COLUMNS)})")
        rows, seen = [], set()
        for line, r in enumerate(reader, start=2):
            if None in r or any(v is None for v in r.values()):
                raise AuditError(f"{path}, line {line}: wrong number of fields")
            raw = (r["judgement"] or "").strip()
            verdict, _, note = raw.partition(":")
            verdict = verdict.strip().lower()
            if verdict not in ("",) + VERDICTS:
                raise AuditError(f"{path}, line {line}: field judgement must be 'ok' or 'bad', got {r['judgement']!r}")
            if require_all and not verdict:
                raise AuditError(f"{path}, line {line}: field judgement is empty (id {r['id']!r})")
            if r["id"] in seen:
                raise AuditError(f"{path}, line {line}: field id {r['id']!r} repeats")
            seen.add(r["id"])
            r["verdict"] = verdict
            if FLUENCY_COLUMN in fields:
                fluent = (r[FLUENCY_COLUMN] or "").strip().lower()
                if fluent not in ("",) + FLUENCY_VERDICTS:
                    raise AuditError(f"{path}, line {line}: field {FLUENCY_COLUMN} must be 'yes' or 'no', "
                                     f"got {r[FLUENCY_COLUMN]!r}")
                if require_all and not fluent:
                    raise AuditError(f"{path}, line {line}: field {FLUENCY_COLUMN} is empty (id {r['id']!r})")
                r["fluent_verdict"] = fluent
            if verdict == "bad" and not (r.get("defect") or "").strip():
                r["defect"] = note.strip() or "unspecified"
            r["line"] = line
            rows.append(r)
    return rows


def wilson_interval(ok: int, n: int, *, alpha: float = 0.05) -> tuple[float, float]:
    """The Wilson score interval of an audit's share ``ok / n``: :func:`robust_bench.scoring.intervals.wilson_interval`
    (Wilson, 1927; statsmodels' ``proportion_confint``), with no judged row meaning nothing is known.

    Returns
    -------
    (float, float)
        Lower and upper bound, in [0, 1]; ``(0.0, 1.0)`` for ``n == 0``.
    """
    from robust_bench.scoring.intervals import wilson_interval as wilson

    return (0.0, 1.0) if n == 0 else wilson(ok, n, confidence=1 - alpha)


def audit_group(config: str, row: dict[str, str], family: str | None = None) -> str | None:
    """The group a judged row is counted in apart, or None, as ``config``'s builder declares it
    (``audit_group``: for the LIT contrast sets, the transformation code; issue 31); for a config no
    builder owns, as ``family``'s builder does."""
    builder = _builder_of(config, family)
    return builder.audit_group(row) if builder else None


def summarise_judged(rows: Sequence[dict[str, str]], config: str = "", family: str | None = None) -> dict[str, Any]:
    """ok/N, the 95% Wilson interval and the defect classes with counts; with fluency verdicts
    (:data:`FLUENCY_COLUMN`), also ``fluent``: ``{"n", "ok", "share", "wilson_95"}`` over the rows
    that have one; for a config with groups (:func:`audit_group`), also ``by_group``: per group
    ``{"n", "ok", "wilson_95"}``."""
    judged = [r for r in rows if r["verdict"]]
    ok = sum(r["verdict"] == "ok" for r in judged)
    lo, hi = wilson_interval(ok, len(judged))
    defects = Counter((r.get("defect") or "unspecified").strip() for r in judged if r["verdict"] == "bad")
    out = {"n": len(judged), "ok": ok, "share": round(ok / len(judged), 4) if judged else 0.0,
           "wilson_95": [round(lo, 4), round(hi, 4)], "defects": dict(defects.most_common())}
    fl = [r["fluent_verdict"] for r in judged if r.get("fluent_verdict")]
    if fl:
        k = fl.count("yes")
        flo, fhi = wilson_interval(k, len(fl))
        out["fluent"] = {"n": len(fl), "ok": k, "share": round(k / len(fl), 4), "wilson_95": [round(flo, 4), round(fhi, 4)]}
    groups: dict[str, list[bool]] = {}
    for r in judged:
        g = audit_group(config, r, family)
        if g is not None:
            groups.setdefault(g, []).append(r["verdict"] == "ok")
    if groups:
        out["by_group"] = {}
        for g in sorted(groups):
            v = groups[g]
            glo, ghi = wilson_interval(sum(v), len(v))
            out["by_group"][g] = {"n": len(v), "ok": sum(v), "wilson_95": [round(glo, 4), round(ghi, 4)]}
    return out


def record_audit(repo: str | os.PathLike, config: str, judged: str | os.PathLike, *, reader: str = "") -> dict:
    """Check a judged audit against the build and record it in the dataset repository.

    The judged TSV is copied to ``data/<config>/audits/``, hashed, and an entry added to the config's
    metadata, then the card is rewritten; all under the repository's writer lock, atomically.

    Parameters
    ----------
    repo : path-like
    config : str
    judged : path-like
        A TSV written by :func:`write_audit_tsv` and judged, with its ``.meta.json`` sidecar beside it.
    reader : str
        Who judged (recorded on the card).

    Returns
    -------
    dict
        The recorded entry (see :func:`summarise_judged`, plus seed, date, builder version, file, SHA-256).

    Raises
    ------
    AuditError
        If the sidecar is missing or names another config, the judged file was drawn from another
        build (builder version or data hashes differ), a row is unjudged or malformed, or an id is
        not in the sample drawn.
    """
    from robust_bench.data.repository import built_config, repository_lock, update_metadata
    from robust_bench.io.sources import sha256_file

    judged = Path(judged)
    meta_file = _meta_path(judged)
    if not meta_file.is_file():
        raise AuditError(f"{judged}: no {meta_file.name} beside it; judge a file drawn by `robust-bench audit "
                         f"{config} --sample N --seed S` (it writes the sidecar that ties the sample to the build)")
    try:
        drawn = json.loads(meta_file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise AuditError(f"{meta_file}: not JSON ({exc})") from None
    if drawn.get("config") != config:
        raise AuditError(f"{meta_file}: field config is {drawn.get('config')!r}, not {config!r}")
    rows = read_judgements(judged, require_all=True)
    with repository_lock(repo):
        meta = built_config(repo, config)
        if drawn.get("builder_version") != meta["builder_version"] or \
                drawn.get("data_sha256") != {s: f["sha256"] for s, f in meta["files"].items() if s in drawn.get("data_sha256", {})}:
            raise AuditError(f"{judged}: drawn from another build of {config!r} (builder version "
                             f"{drawn.get('builder_version')}, this build {meta['builder_version']}; or its data "
                             "hashes differ): draw a new sample from this build")
        sample, _ = audit_sample(repo, config, n=drawn["n"], seed=drawn["seed"],
                                 split=drawn["splits"][0] if len(drawn.get("splits", [])) == 1 else None)
        drawn_ids = {r["id"]: r for r in sample}
        for r in rows:
            if r["id"] not in drawn_ids:
                raise AuditError(f"{judged}, line {r['line']}: field id {r['id']!r} is not in the sample drawn "
                                 f"with seed {drawn['seed']} from {config!r}")
            if r["perturbed"] != drawn_ids[r["id"]]["perturbed"]:
                raise AuditError(f"{judged}, line {r['line']}: field perturbed differs from row {r['id']!r} of the build")
        entry = {**summarise_judged(rows, config, drawn.get("family")), "seed": drawn["seed"], "drawn": drawn["drawn"],
                 "judged": _dt.date.today().isoformat(), "builder_version": meta["builder_version"],
                 "data_sha256": drawn["data_sha256"], "unchanged_share": drawn["unchanged_share"],
                 "reader": reader}
        # the judged file's own hash in the name: a second reader's verdicts on the same sample sit beside
        # the first reader's instead of replacing them; recording the same file again replaces itself
        name = f"audit_seed{drawn['seed']}_{entry['judged']}_{sha256_file(judged)[:8]}.tsv"
        entry["file"] = f"data/{config}/audits/{name}"

        def change(m: dict, folder: Path) -> dict:
            import shutil

            (folder / "audits").mkdir(exist_ok=True)
            part = folder / "audits" / f".{name}.part"      # copied whole, then renamed: never half a file
            shutil.copyfile(judged, part)
            os.replace(part, folder / "audits" / name)
            entry["sha256"] = sha256_file(folder / "audits" / name)
            m["audits"] = [a for a in m.get("audits", []) if a.get("file") != entry["file"]] + [entry]
            return m

        update_metadata(repo, config, change)
    return entry
