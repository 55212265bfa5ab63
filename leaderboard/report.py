"""The robustness report of a run folder: Markdown and HTML with the figures.

For every family, clean against perturbed scores side by side (Acc@Ori / Acc@Ctr, clean /
adversarial accuracy or entity F1, original / worst-case F1, plain / Jabberwocky UUAS and DSpr,
original / attacked LAS), then the robustness measures (attack success rate, worst and best case,
stability, consistency), each with its 95% bootstrap interval; the skipped tasks with their reasons.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from robust_bench.evaluations import declared_ranges, get_evaluation
from robust_bench.io.fileio import atomic_write_text, save_figure
from robust_bench.results.runs import read_manifest, read_records

__all__ = ["write_report", "render_report"]


def _robustness(rec: dict) -> tuple[str, ...]:
    """The evaluation's robustness measures (worst case, stability, consistency, success rates)."""
    return get_evaluation(rec["evaluation"]).robustness


def _ci(rec: dict, name: str) -> str:
    v = rec["metrics"].get(name)
    lo, hi = rec["intervals"].get(name, [None, None])
    if v is None:
        return "n/a"
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if lo is not None and hi is not None else f"{v:.3f}"


def _pairs(rec: dict) -> list[tuple[str, str]]:
    """The evaluation's (clean, perturbed) metric pairs that the record reports."""
    return [(a, b) for a, b in get_evaluation(rec["evaluation"]).pairs if a in rec["metrics"] and b in rec["metrics"]]


def _figure(records: list[dict], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = [(rec, a, b) for rec in records for a, b in _pairs(rec)
            if rec["metrics"][a] is not None and rec["metrics"][b] is not None]
    rob = [(rec, m) for rec in records for m in _robustness(rec)
           if rec["metrics"].get(m) is not None]
    if not bars and not rob:
        return []
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.5 * max(len(bars), len(rob), 4) + 1.5))

    def err(rec, m):
        v = rec["metrics"][m]
        lo, hi = rec["intervals"][m]
        return [[v - lo if lo is not None else 0], [hi - v if hi is not None else 0]]

    ax = axes[0]
    for k, (rec, a, b) in enumerate(bars):
        for off, m, colour, lab in ((-0.2, a, "tab:blue", "clean"), (0.2, b, "tab:red", "perturbed")):
            ax.barh(k + off, rec["metrics"][m], height=0.38, color=colour, xerr=err(rec, m), capsize=2,
                    label=lab if k == 0 else None)
    ax.set_yticks(range(len(bars)), [f"{r['task']}\n{a} / {b}" for r, a, b in bars], fontsize=7)
    ax.invert_yaxis()
    ax.set_title("Clean vs perturbed (95% CI)")
    ax.legend(loc="lower right", fontsize=7)
    ax = axes[1]
    for k, (rec, m) in enumerate(rob):
        ax.barh(k, rec["metrics"][m], height=0.6, color="tab:purple", xerr=err(rec, m), capsize=2)
    ax.set_yticks(range(len(rob)), [f"{r['task']}: {m}" for r, m in rob], fontsize=7)
    ax.invert_yaxis()
    ax.set_title("Robustness measures (95% CI)")
    fig.tight_layout()
    return save_figure(fig, out / "figures" / "robustness")


def _prompt_figure(sensitivity: dict[str, dict], out: Path) -> list[Path]:
    """Per task, the (clean, perturbed) metric pair under each prompt template (``run --prompts all``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = sorted(sensitivity)
    fig, axes = plt.subplots(len(tasks), 1, figsize=(8, 2.2 * len(tasks) + 0.5), squeeze=False)
    for ax, task in zip(axes[:, 0], tasks):
        s = sensitivity[task]
        names = s["templates"]
        for off, key, colour, lab in ((-0.2, "clean", "tab:blue", s["metrics"][0]),
                                      (0.2, "perturbed", "tab:red", s["metrics"][1])):
            ax.barh([k + off for k in range(len(names))], [np.nan if s[key][n] is None else s[key][n] for n in names],
                    height=0.38,
                    color=colour, label=lab)
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{task}: effect {_num(s['effect'])}, {_num(s['effect_over_spread'])} times the template "
                     "spread", fontsize=9)
        ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return save_figure(fig, out / "figures" / "prompts")


def _num(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def write_report(run_dir: str | Path) -> list[Path]:
    """Write ``report.md``, ``report.html`` and ``figures/robustness.{png,svg}`` for a run folder (and, for a
    ``run --prompts all``, its prompt sensitivity with ``figures/prompts.{png,svg}``).

    Returns
    -------
    list of Path
        The written files.
    """
    records = read_records(run_dir, ranges_of=declared_ranges)
    manifest = read_manifest(run_dir)
    sensitivity = {t: s["prompts"] for t, s in manifest["tasks"].items() if isinstance(s.get("prompts"), dict)}
    return render_report(manifest, list(records.values()), run_dir, sensitivity=sensitivity)


def render_report(manifest: dict, records: list[dict], out: str | Path, *, title: str | None = None,
                  back_link: tuple[str, str] | None = None, sensitivity: dict[str, dict] | None = None) -> list[Path]:
    """Write the report of a run (its ``run.json`` manifest and v2 records) into folder ``out``.

    Every value taken from the manifest and the records is HTML-escaped, so a submitted run can be
    rendered on the leaderboard site.

    Parameters
    ----------
    manifest : dict
        The run's ``run.json``: model, suite, seed, limit, revision, tasks with status and reason.
    records : list of dict
        Its v2 records.
    out : path-like
        Folder for ``report.md``, ``report.html`` and ``figures/``.
    title : str, optional
        Heading (default: model and suite).
    back_link : (href, text), optional
        A link placed at the top of the HTML page (the leaderboard's index).
    sensitivity : dict, optional
        Task -> its prompt sensitivity (``run --prompts all``, :func:`robust_bench.scoring.sensitivity.
        prompt_sensitivity`): a section and a figure. The leaderboard site gives none: the templates' logs
        are not submitted.

    Returns
    -------
    list of Path
        The written files.
    """
    run_dir = Path(out)
    figs = _figure(records, run_dir)
    head = title or f"{manifest['model']} on suite {manifest['suite']['name']} v{manifest['suite']['version']}"
    rows = []
    for rec in records:
        pairs = _pairs(rec)
        clean = "; ".join(f"{a} {_ci(rec, a)}" for a, _ in pairs) or "-"
        pert = "; ".join(f"{b} {_ci(rec, b)}" for _, b in pairs) or "-"
        rob = "; ".join(f"{m} {_ci(rec, m)}" for m in _robustness(rec) if m in rec["metrics"]) or "-"
        rows.append([rec["task"], rec["family"], str(rec["n_examples"]), clean, pert, rob,
                     f"{rec['primary']} {_ci(rec, rec['primary'])}", "yes" if rec["data_pinned"] else "NO"])
    header = ["task", "family", "examples", "clean", "perturbed", "robustness", "primary", "data pinned"]
    skipped = [(t, s) for t, s in manifest["tasks"].items() if s["status"] != "done"]
    md = [f"# Robustness report: {head}", "",
          f"Revision recorded by the run `{manifest.get('revision')}`, seed {manifest['seed']}, limit {manifest['limit']}. "
          "Intervals are 95% percentile-bootstrap intervals over examples.", "",
          "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    if figs:
        md += ["", f"![clean vs perturbed](figures/{figs[0].name})"]
    prompt_rows, prompt_figs = [], []
    if sensitivity:
        prompt_figs = _prompt_figure(sensitivity, run_dir)
        for task, s in sorted(sensitivity.items()):
            ci = (s.get("intervals") or {}).get("effect_over_spread")
            prompt_rows.append([task, str(len(s["templates"])), f"{_num(s['clean_spread']['min'])} to "
                                f"{_num(s['clean_spread']['max'])}", _num(s["effect"]),
                                _num(s["effect_over_spread"]) + (f" [{_num(ci[0])}, {_num(ci[1])}]" if ci else "")])
        prompt_header = ["task", "templates", "clean metric over the templates", "perturbation effect",
                         "effect / template spread (95% CI)"]
        md += ["", "## Prompt sensitivity", "", "Each task scored under every prompt template of the suite on the "
               "same rows: is the perturbation's effect bigger than the spread of the clean metric over the templates "
               "(Sclar et al. 2024)?", "", "| " + " | ".join(prompt_header) + " |", "|" + "---|" * len(prompt_header)]
        md += ["| " + " | ".join(r) + " |" for r in prompt_rows]
        md += ["", f"![prompt templates](figures/{prompt_figs[0].name})"]
    if skipped:
        md += ["", "## Not scored", ""] + [f"- **{t}** ({s['status']}): {s['reason']}" for t, s in skipped]
    paths = [atomic_write_text(run_dir / "report.md", "\n".join(md) + "\n")]
    e = html.escape
    table = "<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr></thead><tbody>" + "".join(
        "<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows) + "</tbody></table>"
    body = [f'<p><a href="{e(back_link[0])}">{e(back_link[1])}</a></p>'] if back_link else []
    body += [f"<h1>Robustness report: {e(head)}</h1>",
             f"<p>Revision recorded by the run <code>{e(str(manifest.get('revision')))}</code>, seed {e(str(manifest['seed']))}. "
             "Intervals are 95% percentile-bootstrap intervals over examples.</p>", table]
    if figs:
        body.append(f'<p><img src="figures/{e(figs[0].name)}" alt="clean vs perturbed scores" style="max-width:100%"></p>')
    if prompt_rows:
        body.append("<h2>Prompt sensitivity</h2><table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in prompt_header)
                    + "</tr></thead><tbody>" + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                                                       for r in prompt_rows) + "</tbody></table>")
        body.append(f'<p><img src="figures/{e(prompt_figs[0].name)}" alt="metrics under each prompt template" '
                    'style="max-width:100%"></p>')
    if skipped:
        body.append("<h2>Not scored</h2><ul>" + "".join(f"<li><b>{e(t)}</b> ({e(s['status'])}): {e(s['reason'])}</li>"
                                                          for t, s in skipped) + "</ul>")
    page = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + e(head) + "</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
            "padding:4px 8px;font-size:13px}th{background:#f4f4f4}</style></head><body>" + "".join(body) + "</body></html>\n")
    paths.append(atomic_write_text(run_dir / "report.html", page))
    return paths + figs + prompt_figs
