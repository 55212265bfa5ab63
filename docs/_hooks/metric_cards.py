"""MkDocs hook: the metric cards, generated from the declarations.

* ``docs/metrics/index.md`` holds the marker ``<!-- metric-cards -->``; it is replaced by one table per
  evaluation (:func:`robust_bench.evaluations.evaluations`): each declared :class:`Metric`'s name, meaning,
  range, direction, formula over the per-example log and source, and where the default suite ranks by it.
  The meanings and sources are written in ``metric_meanings.yaml`` beside this file; a declared metric
  without one stops the build (and ``tests/test_docs.py``).
* Each ``evaluate`` module's own card (``metrics/<name>/README.md``) becomes the page
  ``metrics/<name>.md`` and is listed under "Metrics" in the navigation, so the cards are not copied.

Only the declarations are imported (robust_bench.evaluations imports no torch); nothing else runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
MEANINGS = Path(__file__).with_name("metric_meanings.yaml")
MARKER = "<!-- metric-cards -->"
INDEX = "metrics/index.md"

if str(ROOT) not in sys.path:             # the hook runs from a checkout; the package may be installed or not
    sys.path.insert(0, str(ROOT))


def meanings() -> dict[str, dict]:
    """The written meanings, by metric name: ``{"meaning": str, "source": str}``."""
    return yaml.safe_load(MEANINGS.read_text(encoding="utf-8")) or {}


def declared() -> list:
    """Every registered evaluation (robust_bench.evaluations), sorted by name."""
    from robust_bench.evaluations import evaluations

    return evaluations()


def missing_meanings() -> list[str]:
    """Declared metric names that have no meaning or no source written in ``metric_meanings.yaml``."""
    written = meanings()
    names = sorted({m.name for e in declared() for m in e.metrics})
    return [n for n in names if not (written.get(n) or {}).get("meaning") or not (written.get(n) or {}).get("source")]


def evaluate_cards() -> list[str]:
    """The names of the ``evaluate`` modules that keep a card (``metrics/<name>/README.md``)."""
    return sorted(p.parent.name for p in (ROOT / "metrics").glob("*/README.md"))


def formula_text(formula) -> str:
    """A formula over the per-example log fields, in words (:class:`robust_bench.scoring.intervals.Formula`)."""
    one = formula.copies()[0]
    f = one.fields
    if one.kind == "ratio":
        text = f"mean of `{f[0]}`" if f[1] == "one" else f"Σ`{f[0]}` / Σ`{f[1]}`"
    elif one.kind == "f1":
        text = f"2Σ`{f[0]}` / (2Σ`{f[0]}` + Σ`{f[1]}` + Σ`{f[2]}`)"
    elif one.kind == "dspr":
        text = f"per sentence length: Σ`{f[0]}` / Σ`{f[1]}`, then the mean over lengths (`{f[2]}`)"
    elif one.kind == "conll_f1":
        suffix = f[0].split("_", 2)[-1]
        text = f"mean of MUC, B³ and CEAFe F1 from pooled counts (`*_{suffix}`)"
    else:                                  # a formula kind added later: name it rather than guess
        text = f"{one.kind}({', '.join(f'`{x}`' for x in f)})"
    if formula.over:
        n = len(formula.copies())
        stat = "mean" if formula.over == "mean" else "standard deviation"
        text = f"{stat} over {n} copies of: {text}"
    return text


def _ranked_by() -> tuple[dict[tuple[str, str], list[str]], str]:
    """(evaluation, metric) -> the default suite's tasks that rank by it (their primary metric); and the
    suite's name and version."""
    from robust_bench.benchmarks import load_suite

    suite = load_suite("default")
    out: dict[tuple[str, str], list[str]] = {}
    for t in suite.tasks:
        out.setdefault((t.evaluation, t.primary), []).append(t.name)
    return out, f"{suite.name} v{suite.version}"


def _range(r) -> str:
    lo, hi = (f"{x:g}" for x in r)
    return f"[{lo}, {hi}]"


def cards_markdown() -> str:
    """The generated part of the metric cards page."""
    missing = missing_meanings()
    if missing:
        raise ValueError(f"{MEANINGS}: no meaning or source written for declared metric(s) {', '.join(missing)}")
    written = meanings()
    ranked, suite = _ranked_by()
    out = []
    for e in declared():
        out += [f"## {e.title or e.name}", "",
                f"Evaluation `{e.name}`, family `{e.family}`. Ranked by the default suite ({suite}): "
                + (", ".join(f"`{m.name}` ({', '.join(ranked[(e.name, m.name)])})"
                             for m in e.metrics if (e.name, m.name) in ranked) or "none") + ".", "",
                "| metric | meaning | range | better | formula over the log | source |",
                "|---|---|---|---|---|---|"]
        for m in e.metrics:
            w = written[m.name]
            meaning = " ".join(str(w["meaning"]).split())
            if m.option:
                meaning += f" (task option `{m.option}`)"
            out.append(f"| `{m.name}` | {meaning} | {_range(m.range)} | {'higher' if m.higher_is_better else '**lower**'} "
                       f"| {formula_text(m.formula)} | {' '.join(str(w['source']).split())} |")
        out.append("")
    return "\n".join(out)


# ---- MkDocs events --------------------------------------------------------------------------------


def on_config(config, **kwargs):
    """List each evaluate module's card under "Metrics" in the navigation."""
    for section in config["nav"] or []:
        if isinstance(section, dict) and "Metrics" in section:
            section["Metrics"] = list(section["Metrics"]) + [{f"{name} (evaluate card)": f"metrics/{name}.md"} for name in evaluate_cards()]
    return config


def on_files(files, config, **kwargs):
    """Add each ``metrics/<name>/README.md`` as the page ``metrics/<name>.md``."""
    from mkdocs.structure.files import File

    for name in evaluate_cards():
        text = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
        files.append(File.generated(config, f"metrics/{name}.md", content=text))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    """Replace the marker on the metric cards page with the generated tables."""
    if page.file.src_uri == INDEX:
        if MARKER not in markdown:
            raise ValueError(f"{INDEX} lost its marker {MARKER}")
        return markdown.replace(MARKER, cards_markdown())
    return markdown
