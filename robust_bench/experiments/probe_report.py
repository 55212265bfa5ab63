"""Reports of probing runs: the lead table, and a figure in the style of
Hall Maudslay & Cotterell (2021), Fig. 3."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

__all__ = ["rep_name", "lead_table", "plot_probe_records"]


def rep_name(rep) -> str:
    return f"layer {rep}" if isinstance(rep, int) else str(rep)


def lead_table(run: dict[str, Any]) -> str:
    """Plain-text table: the selected layer's UUAS/DSpr, plain and Jabberwocky, and its lead
    (in points of UUAS or DSpr x 100) over layer 0, Fast+Pos, Path and Majority."""
    lines = []
    variants = sorted({r["variant"] for r in run["results"]}, key=lambda v: (v != "plain", v))
    for kind, sel in run["selected"].items():
        rows = {(r["representation"], r["variant"]): r["metrics"] for r in run["results"] if r["probe"] == kind}
        metrics = ["uuas", "dspr"] if kind == "structural" else ["uuas"]
        lines.append(f"{kind} probe on {run['model']} (selected: layer {sel}; trained on {run['train_on']}; "
                     f"{run['n_test']}/{run['n_test_total']} test sentences aligned)")
        head = f"  {'representation':<16}" + "".join(f"{m.upper() + ' ' + v[:5]:>14}" for m in metrics for v in variants)
        lines.append(head)
        reps = sorted({rep for rep, _ in rows}, key=lambda x: (not isinstance(x, int), x if isinstance(x, int) else 0))
        for rep in reps:
            mark = " *" if rep == sel else ""
            lines.append(f"  {rep_name(rep) + mark:<16}" + "".join(
                f"{rows[(rep, v)][m]:>14.4f}" for m in metrics for v in variants))
        for name, by_v in run["baselines"].items():
            lines.append(f"  {name:<16}" + "".join(f"{by_v[v][m]:>14.4f}" for m in metrics for v in variants))
        lines.append("  lead of the selected layer, in points (x100):")
        comps = [("layer 0", {v: rows[(0, v)] for v in variants})] if sel != 0 else []
        if any(rep == "fast+pos" for rep, _ in rows):
            comps.append(("fast+pos", {v: rows[("fast+pos", v)] for v in variants}))
        comps += [(name, {v: by_v[v] for v in variants}) for name, by_v in run["baselines"].items()]
        for name, by_v in comps:
            lines.append(f"    over {name:<12}" + "".join(
                f"{100 * (rows[(sel, v)][m] - by_v[v][m]):>+14.1f}" for m in metrics for v in variants))
        lines.append("")
    return "\n".join(lines)


def _check_probe_record(n: int, rec: dict, metric: str) -> None:
    d = rec["details"]
    base = d.get("baselines" if metric == "uuas" else "baselines_dspr")
    problems = {
        "details.probe": isinstance(d.get("probe"), str),
        "variant": rec.get("variant") in ("plain", "jabberwocky"),
        "details.layer": d.get("layer") is None or (isinstance(d.get("layer"), int) and not isinstance(d["layer"], bool)),
        "details.selected_layer": isinstance(d.get("selected_layer", False), bool),
        "details.baselines": isinstance(base, dict) and all(isinstance(v, (int, float)) for v in base.values()),
    }
    for field, ok in problems.items():
        if not ok:
            raise ValueError(f"record {n} ({rec['model']['id']}): field {field!r} has the wrong type or value "
                             "for a probe record")


def plot_probe_records(records: Sequence[dict], out_stem: str | os.PathLike, *, metric: str = "uuas") -> list[Path]:
    """Bar chart in the style of Fig. 3 of Hall Maudslay & Cotterell (2021).

    For each (model, probe), two bars: plain and Jabberwocky scores of the selected layer, each
    with the part that layer 0 already reaches drawn hatched inside it. Dashed lines mark the
    Path and Majority baselines. Written as PNG and SVG.

    Parameters
    ----------
    records : sequence of dict
        Result records of probing runs (one or more models).
    out_stem : path-like
        Output path without extension.
    metric : {"uuas", "dspr"}

    Returns
    -------
    list of pathlib.Path
        The PNG and SVG files.

    Raises
    ------
    ValueError
        If no record carries ``metric`` for a selected layer, or a probe record's ``variant`` or
        ``details`` (``probe``, ``layer``, ``selected_layer``, ``baselines``) have the wrong type
        (naming the record and the field).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups: dict[tuple[str, str], dict] = {}
    for n, rec in enumerate(records, start=1):
        d = rec.get("details", {})
        if metric not in rec["metrics"] or "probe" not in d:
            continue
        _check_probe_record(n, rec, metric)
        key = (rec["model"]["id"], d["probe"])
        g = groups.setdefault(key, {"sel": {}, "l0": {}, "base": {}})
        if d.get("selected_layer"):
            g["sel"][rec["variant"]] = rec["metrics"][metric]
            g["base"][rec["variant"]] = d["baselines"] if metric == "uuas" else d["baselines_dspr"]
        if d.get("layer") == 0:
            g["l0"][rec["variant"]] = rec["metrics"][metric]
    groups = {k: v for k, v in groups.items() if v["sel"]}
    if not groups:
        raise ValueError(f"no selected-layer records with {metric!r}")
    keys = sorted(groups)
    colours = {"plain": "#4C72B0", "jabberwocky": "#DD8452"}
    fig, ax = plt.subplots(figsize=(max(4.5, 1.8 + 1.6 * len(keys)), 4))
    width = 0.38
    for gi, key in enumerate(keys):
        g = groups[key]
        for vi, variant in enumerate(("plain", "jabberwocky")):
            if variant not in g["sel"]:
                continue
            x = gi + (vi - 0.5) * width
            ax.bar(x, g["sel"][variant], width, color=colours[variant],
                   label=variant.capitalize() if gi == 0 else None)
            if variant in g["l0"]:
                ax.bar(x, min(g["l0"][variant], g["sel"][variant]), width, color="none", edgecolor="black",
                       hatch="//", linewidth=0.6, label="layer 0" if gi == 0 and vi == 0 else None)
            ax.text(x, g["sel"][variant] + 0.01, f"{g['sel'][variant]:.2f}", ha="center", fontsize=8)
    first = groups[keys[0]]["base"].get("plain") or next(iter(groups[keys[0]]["base"].values()))
    for name, style in (("path", "--"), ("majority", ":")):
        if name in first:
            ax.axhline(first[name], color="grey", linestyle=style, linewidth=1, label=name.capitalize())
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{Path(m).name}\n{p}" for m, p in keys], fontsize=8)
    ax.set_ylabel(metric.upper())
    ax.set_ylim(0, 1)
    ax.set_title(f"{metric.upper()}: plain vs Jabberwocky test", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    from robust_bench.io.fileio import save_figure

    return save_figure(fig, out_stem)
