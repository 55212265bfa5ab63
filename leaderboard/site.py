"""The static leaderboard site: plain HTML, the data embedded as JSON, a small sortable table. No server.

``build_site(store, out)`` writes::

    index.html                                  per suite version: the overall table (robustness
                                                scores with 95% intervals, per family and overall)
    families/<suite>-v<N>/<family>.html          per family: each task's primary metric per model,
                 <family>.png / .svg            with its interval, and the plot
    models/<org--name>/index.html               per model: every row of it (each suite version,
                                                revision and way of asking an LLM)
    models/<org--name>/<suite>-v<N>/<revision>/<asked>/  each submission's report, rendered from
        report.html, report.md, figures/         its validated records (no submitted HTML is served)

Only whole runs are ranked; a partial run (``submit --partial``) is listed below the ranking, marked.

Every link is relative, so the folder can be opened from disk or served by any static host
(GitHub Pages, a Hub Space of type static). Every string from a submission is HTML-escaped, and
the embedded JSON escapes ``<``, ``>`` and ``&``.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import tempfile
from pathlib import Path

from robust_bench.evaluations import family_title
from robust_bench.io.fileio import save_figure
from robust_bench.leaderboard.aggregate import aggregate
from robust_bench.leaderboard.report import render_report
from robust_bench.leaderboard.store import LocalStore, iter_entries
from robust_bench.leaderboard.submission import Submission, model_key
from robust_bench.leaderboard.submission import llm_setup as _llm_setup
from robust_bench.leaderboard.verification import row_status

__all__ = ["build_site"]

SITE_MARKER = ".robust-bench-site"

_E = html.escape

_SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('thead th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('thead th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-value'), y = b.cells[col].getAttribute('data-value');
        if (x === '' && y === '') return 0;
        if (x === '') return 1;
        if (y === '') return -1;
        var nx = Number(x), ny = Number(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""

_CSS = ("body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px}td{white-space:nowrap}th{background:#f4f4f4;cursor:pointer}"
        "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}"
        ".ci{color:#666;font-size:11px}.note{color:#555;font-size:13px}")


def _page(title: str, body: str, *, data: object | None = None) -> str:
    script = ""
    if data is not None:
        blob = json.dumps(data, sort_keys=True, allow_nan=False)
        blob = blob.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        script = f'<script type="application/json" id="leaderboard-data">{blob}</script>'
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_E(title)}</title>'
            f"<style>{_CSS}</style></head><body>{body}{script}<script>{_SORT_JS}</script></body></html>\n")


def _fmt(score: dict | None) -> tuple[str, str]:
    """(cell HTML, data-value) of a score dict."""
    if not score or score.get("value") is None:
        return "n/a", ""
    v = score["value"]
    ci = (f' <span class="ci">[{score["low"]:.3f}, {score["high"]:.3f}]</span>'
          if score.get("low") is not None else "")
    return f"{v:.3f}{ci}", f"{v:.6f}"


def _cell(inner: str, value: str) -> str:
    return f'<td data-value="{_E(value)}">{inner}</td>'


#: Characters of a revision shown in a table; a 40- or 64-character commit hash would push the table past
#: a laptop window (1,300 pixels), so the cell shows its start and the full value on hover.
REVISION_CHARS = 10


def _revision_cell(revision: str | None) -> str:
    rev = revision or ""
    short = rev if len(rev) <= REVISION_CHARS + 1 else rev[:REVISION_CHARS] + "…"
    return f'<td data-value="{_E(rev)}" title="{_E(rev)}"><code>{_E(short)}</code></td>'


#: how a row's verification shows: mark, colour
_CHECK = {"verified": ("✓ verified", "#1a7f37"), "flagged": ("⚠ flagged", "#b42318"),
          "self-reported": ("self-reported", "#666")}


def _check_cell(status: dict) -> str:
    mark, colour = _CHECK[status["status"]]
    return (f'<td data-value="{_E(status["status"])}" title="{_E(status["detail"])}" '
            f'style="color:{colour}">{_E(mark)}</td>')


def _report_href(sub: Submission) -> str:
    return f"models/{model_key(sub.model_id)}/{sub.suite.name}-v{sub.suite.version}/{sub.revision}/{sub.asked}/report.html"


def _model_href(model_id: str) -> str:
    return f"models/{model_key(model_id)}/index.html"


def _families(suite) -> list[str]:
    out: list[str] = []
    for t in suite.tasks:
        if t.family not in out:
            out.append(t.family)
    return out


def _family_figure(rows: list[tuple[Submission, dict]], tasks, out_stem: Path) -> list[Path]:
    """Grouped horizontal bars: per task (its primary metric), one bar per submission with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = [t for t in tasks if any((a["tasks"].get(t.name) or {}).get("raw") is not None for _, a in rows)]
    n = len(rows)
    height = 0.8 / n
    # the legend (one line per row) goes below the axes, so that long model names never squeeze the bars
    fig, ax = plt.subplots(figsize=(9, 0.9 + len(tasks) * (0.35 * n + 0.5) + 0.18 * n))
    colours = plt.get_cmap("tab10")
    labelled: set[str] = set()
    for k, (sub, agg) in enumerate(rows):
        for j, t in enumerate(tasks):
            cell = agg["tasks"].get(t.name)
            if cell is None or cell["raw"] is None:
                continue
            v = cell["raw"]
            lo, hi = cell["raw_interval"] or (None, None)
            err = [[v - lo], [hi - v]] if lo is not None and hi is not None else None
            rev = sub.revision if len(sub.revision) <= 16 else sub.revision[:14] + "…"   # local-<sha256> is long
            label = f"{sub.model_id} @ {rev}" + ("" if sub.asked == "model" else f" ({_asked_text(sub)})")
            ax.barh(j - 0.4 + (k + 0.5) * height, v, height=height * 0.9, color=colours(k % 10), xerr=err, capsize=2,
                    label=None if label in labelled else label)
            labelled.add(label)
    ax.set_yticks(range(len(tasks)), [f"{t.name}\n{t.primary} {'(higher is better)' if t.metric(t.primary).higher_is_better else '(lower is better)'}"
                                      for t in tasks], fontsize=8)
    ax.invert_yaxis()
    lo_r = min(t.metric(t.primary).range[0] for t in tasks)
    hi_r = max(t.metric(t.primary).range[1] for t in tasks)
    ax.set_xlim(lo_r, hi_r)
    ax.set_title("Primary metric per task, 95% intervals (as each record states them)", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08 - 0.25 / max(len(tasks), 1)), frameon=False)
    fig.tight_layout()
    return save_figure(fig, out_stem)


def llm_setup(sub: Submission) -> dict | None:
    """How a causal LM was asked across a submission's records (:func:`robust_bench.leaderboard.submission.
    llm_setup`); None for a model scored as it is."""
    return _llm_setup(sub.records)


def _llm_note(sub: Submission) -> str:
    s = llm_setup(sub)
    if s is None:
        return ""
    text = (f"LLM ({s['backend']}), {s['num_fewshot']}-shot{', chat template' if s['chat_template'] else ''}"
            f"{', system instruction' if s.get('system_instruction') else ''}, {s['scoring']}{', acc_norm' if s['normalization'] == 'length' else ''}; prompts {s['prompts_sha256'][:8]}")
    return f'<br><small>{_E(text)}</small>'


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


#: what the site says of the ranking (the README says the same): each family's primary metric requires
#: being right, so that no constant or partial run can top the table
RANKING_NOTE = (
    "Ranked by a robustness score in [0, 1], higher is more robust: each task's primary metric on its range, "
    "and every primary requires being right, as AdvGLUE and RobustBench rank by robust accuracy: "
    "grammatical errors by adversarial accuracy, the share of all examples still predicted right after the "
    "attack (entity F1 after the attack for CoNLL-2003; Yin et al. 2020 report the attack success rate, kept "
    "in each record); LIT contrast sets by contrast consistency, original and contrast pair both predicted "
    "right (Gardner et al. 2020), beside LIT's own consistency (Li et al. 2020), which a model answering one "
    "label everywhere maximises; name swaps by worst-case F1 over the swapped variants (Balasubramanian et al. "
    "2020); adversarial treebanks by LAS (UAS for PTB) on the attacked sentences (Wang et al. 2021); "
    "Jabberwocky by the probe's UUAS on Jabberwocky sentences (Hall Maudslay & Cotterell 2021). A family "
    "scores the mean of its tasks, overall the mean of the families scored, with 95% intervals (within a task "
    "as its record gives them, normal approximation across tasks). Only whole runs are ranked; partial runs "
    "(--limit) are listed apart, marked. An LLM asked two ways (plain, chat template, shots) is two rows of one "
    "model. Compare overall scores only between rows that cover the same families.")


def _asked_text(sub: Submission) -> str:
    s = llm_setup(sub)
    if s is None:
        return "as is"
    return (f"{s['backend']}, {'chat template' if s['chat_template'] else 'plain prompt'}"
            f"{', system instruction' if s.get('system_instruction') else ''}, {s['num_fewshot']}-shot, "
            f"{s['scoring']}{', acc_norm' if s['normalization'] == 'length' else ''}")


def _row_cells(sub: Submission, agg: dict, fams: list[str], checks: dict, rank: str) -> list[str]:
    cells = [_cell(rank, rank),
             _cell(f'<a href="{_E(_model_href(sub.model_id))}">{_E(sub.model_id)}</a>', sub.model_id),
             _cell(f'<a href="{_E(_report_href(sub))}">{_E(_asked_text(sub))}</a>{_llm_note(sub)}', sub.asked),
             _revision_cell(sub.revision), _check_cell(checks[sub.entry]), _cell(*_fmt(agg["overall"]))]
    cells += [_cell(*_fmt(agg["families"][f])) for f in fams]
    ov = agg["overall"]
    cells += [_cell(f"{ov['covered']}/{ov['of']}", str(ov["covered"])), _cell(_E(sub.submitted_at[:10]), sub.submitted_at)]
    return cells


def _render(suites: dict, subs: list[Submission], out: Path, checks: dict[str, dict]) -> None:
    data = []
    sections = []
    for (name, version), suite in sorted(suites.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        key = f"{name}-v{version}"
        mine = [(s, aggregate(s.records, suite)) for s in subs if (s.suite.name, s.suite.version) == (name, version)]
        mine.sort(key=lambda r: (r[1]["overall"]["value"] is None, -(r[1]["overall"]["value"] or 0), r[0].model_id,
                                 r[0].revision, r[0].asked))
        ranked = [(s, a) for s, a in mine if s.ranked]
        partial = [(s, a) for s, a in mine if not s.ranked]
        fams = _families(suite)
        head = ["Rank", "Model", "Asked", "Revision", "Checked", "Overall"] + [_E(family_title(f)) for f in fams] + [
            "Families", "Submitted"]
        nav = "<p>Family pages: " + " · ".join(f'<a href="families/{key}/{f}.html">{_E(family_title(f))}</a>'
                                               for f in fams) + "</p>"
        tables = []
        for rows, table_id, title in ((ranked, f"board-{key}", ""),
                                      (partial, f"partial-{key}", "<h3>Partial runs (not ranked)</h3>")):
            if not rows:
                continue
            body_rows = []
            for rank, (sub, agg) in enumerate(rows, 1):
                body_rows.append("<tr>" + "".join(_row_cells(sub, agg, fams, checks,
                                                                 str(rank) if sub.ranked else "partial")) + "</tr>")
            tables.append(title + f'<table class="sortable" id="{table_id}"><thead><tr>'
                          + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(body_rows)
                          + "</tbody></table>")
        for rank, (sub, agg) in enumerate(ranked + partial, 1):
            llm = llm_setup(sub)               # only on an LLM's row: how it was asked
            data.append({"model_id": sub.model_id, "revision": sub.revision, "suite": key, "asked": sub.asked,
                         "rank": rank if sub.ranked else None, "partial": dict(sub.partial),
                         "submitted_at": sub.submitted_at, "report": _report_href(sub),
                         "verification": checks[sub.entry], **({"llm": llm} if llm else {}), **agg})
            render_report({**sub.manifest, "tasks": {**sub.manifest["tasks"], **{
                t: {"status": "excluded", "reason": r} for t, r in sub.excluded.items()}}},
                [sub.records[t] for t in sorted(sub.records)], out / Path(_report_href(sub)).parent,
                title=f"{sub.model_id} @ {sub.revision} ({_asked_text(sub)}) on suite {name} v{version}"
                      + (" (partial, not ranked)" if sub.partial else ""),
                back_link=("../../../../../index.html", "← leaderboard"))
        sections.append(f"<h2>Suite {_E(name)} v{version}</h2><p class=\"note\">{_E(suite.description)}</p>"
                        + nav + ("".join(tables) if mine else "<p>No submissions yet.</p>"))
        for fam in fams:
            _family_page(out, key, fam, [t for t in suite.tasks if t.family == fam], ranked)
    _model_pages(out, subs)
    intro = ("<h1>robust-bench leaderboard</h1><p class=\"note\">" + _E(RANKING_NOTE) + " Checked: ✓ verified, the "
             "leaderboard re-ran the model on a sample of each task and its predictions matched the submitted logs "
             "(robust-bench leaderboard verify); ⚠ flagged, they did not; self-reported, not re-run yet. Click a "
             "column to sort.</p>")
    _write(out / "index.html", _page("robust-bench leaderboard", intro + "".join(sections), data=data))


def _model_pages(out: Path, subs: list[Submission]) -> None:
    """One page per model: every row of it (suite version, revision, how it was asked), linked to its reports."""
    by_model: dict[str, list[Submission]] = {}
    for sub in subs:
        by_model.setdefault(sub.model_id, []).append(sub)
    for model_id, rows in by_model.items():
        rows.sort(key=lambda s: (s.suite.name, -s.suite.version, s.revision, s.asked))
        items = "".join(f'<tr><td>{_E(s.suite.name)} v{s.suite.version}</td>{_revision_cell(s.revision)}'
                        f'<td><a href="../../{_E(_report_href(s))}">{_E(_asked_text(s))}</a>{_llm_note(s)}</td>'
                        f'<td>{"partial, not ranked" if s.partial else "ranked"}</td></tr>' for s in rows)
        body = (f'<p><a href="../../index.html">← leaderboard</a></p><h1>{_E(model_id)}</h1>'
                '<p class="note">Every row of this model: each suite version, revision and way of asking it.</p>'
                '<table><thead><tr><th>Suite</th><th>Revision</th><th>Asked</th><th>Ranked</th></tr></thead>'
                f"<tbody>{items}</tbody></table>")
        _write(out / _model_href(model_id), _page(model_id, body))


def _family_page(out: Path, key: str, fam: str, tasks, rows: list[tuple[Submission, dict]]) -> None:
    title = family_title(fam)
    head = ["Model", "Asked", "Revision", "Family score"] + [
        f"{_E(t.name)}: {_E(t.primary)} {'↑' if t.metric(t.primary).higher_is_better else '↓'}" for t in tasks]
    body_rows = []
    for sub, agg in rows:
        cells = [_cell(f'<a href="../../{_E(_report_href(sub))}">{_E(sub.model_id)}</a>', sub.model_id),
                 _cell(_E(_asked_text(sub)), sub.asked), _revision_cell(sub.revision),
                 _cell(*_fmt(agg["families"][fam]))]
        for t in tasks:
            c = agg["tasks"].get(t.name)
            raw = None if c is None else {"value": c["raw"], "low": (c["raw_interval"] or [None])[0],
                                          "high": (c["raw_interval"] or [None, None])[1]}
            cells.append(_cell(*_fmt(raw)))
        body_rows.append("<tr>" + "".join(cells) + "</tr>")
    scored = [(s, a) for s, a in rows if a["families"][fam]["value"] is not None]
    figure = ""
    if scored:
        paths = _family_figure(scored, tasks, out / "families" / key / fam)
        figure = (f'<p><img src="{_E(paths[0].name)}" alt="{_E(title)}: primary metric per model" '
                  f'style="max-width:100%"></p><p><a href="{_E(paths[1].name)}">SVG</a></p>')
    body = (f'<p><a href="../../index.html">← leaderboard</a></p><h1>{_E(title)}</h1>'
            f"<p class=\"note\">Suite {_E(key)}. Each task's primary metric with its 95% interval as its record states "
            "it (↑ higher is better, ↓ lower is better); the family score is the mean robustness score. Whole runs "
            "only.</p>"
            + (f'<table class="sortable" id="family-{_E(fam)}"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
               + "</tr></thead><tbody>" + "".join(body_rows) + "</tbody></table>" if rows else "<p>No submissions yet.</p>")
            + figure)
    _write(out / "families" / key / f"{fam}.html", _page(title, body))


def build_site(store_root: str | os.PathLike, out: str | os.PathLike) -> list[Submission]:
    """Build the static site of a local store (or a downloaded Hub store) into ``out``.

    Every stored submission is validated again first; the site is written to a temporary folder
    and moved into place, so ``out`` is either the old site or the complete new one.

    Returns
    -------
    list of Submission
        The submissions shown.

    Raises
    ------
    SubmissionError, StoreError
        If an entry no longer validates, or ``store_root`` is not a store.
    VerificationError
        If a stored verification is malformed (naming the file and the field).
    FileExistsError
        If ``out`` exists and is not a site this function built.
    """
    store = LocalStore(store_root)
    out = Path(out)
    if out.exists() and not (out / SITE_MARKER).exists():
        raise FileExistsError(f"{out} exists and is not a robust-bench site; choose another --out")
    suites = store.suites()
    subs = list(iter_entries(store.root, suites))
    checks = {sub.entry: row_status(store.root, sub.entry) for sub in subs}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _render(suites, subs, tmp, checks)
        (tmp / SITE_MARKER).write_text("built by robust-bench leaderboard build\n")
        os.chmod(tmp, 0o755)
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return subs
