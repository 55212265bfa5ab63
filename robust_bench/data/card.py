"""The dataset card: ``README.md`` in the Hub's dataset-card shape, and the files it links.

The card is written with :class:`huggingface_hub.DatasetCard` and :class:`huggingface_hub.DatasetCardData`
(the YAML header: ``configs:`` that ``load_dataset`` reads, languages, licence, task categories, sizes) and
follows the sections of the Hub's dataset-card template: summary, supported tasks, languages, dataset
structure, creation (source data, annotations, personal information), considerations (biases,
limitations), licensing and citation. Each config has one section a reader takes in at a glance: what it
is, its fields, its splits and sizes, how it was built (one paragraph with the set-up and versions), the
*current* validity audit with its interval and defect classes, the refusals by reason as one table, its
licence and citation.

What is too long for that moves beside the data, linked from the card, nothing lost:

* ``data/<config>/details.md``: the coverage notes, the full statistics and the provenance;
* ``data/<config>/audits.md``: every judged audit of every build, current or stale, with its file.

``metadata.json`` stays the one source of all of it: every file here is rendered from the metadata.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from robust_bench import RobustBenchError

__all__ = ["CARD_MARKER", "render_card", "config_files", "card_refusals", "DETAILS", "AUDIT_HISTORY"]

#: The line every dataset card carries: a README.md without it is someone else's, and is never replaced.
CARD_MARKER = "Written by `robust-bench build`; do not edit by hand."
#: the files beside a config's data that its card section links (relative to ``data/<config>/``)
DETAILS = "details.md"
AUDIT_HISTORY = "audits.md"
#: a refusal table longer than this shows its largest reasons and links the rest
MAX_REASONS = 20

_TASKS = {"grammatical_errors": (["text-classification", "token-classification"], ["natural-language-inference",
                                                                                    "named-entity-recognition"]),
          "named_entity_swaps": (["text-classification", "token-classification"], ["named-entity-recognition"]),
          "lit": (["text-classification"], ["natural-language-inference"]),
          "adversarial_treebanks": (["token-classification"], ["parsing"]),
          "jabberwocky": (["token-classification"], ["parsing"])}


class CardError(RobustBenchError, ValueError):
    """A config's metadata lacks what the card states (the message names the config and the field)."""


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def card_data(metas: dict[str, dict[str, Any]]):
    """The card's YAML header as :class:`huggingface_hub.DatasetCardData`."""
    from huggingface_hub import DatasetCardData

    families = {m["family"] for m in metas.values()}
    rows = sum(f["rows"] for m in metas.values() for f in m["files"].values())
    return DatasetCardData(
        pretty_name="robust-bench", language=["en"], license="other", multilinguality="monolingual",
        size_categories=[_size_category(rows)], source_datasets=sorted({m["source"]["name"] for m in metas.values()}),
        task_categories=sorted({t for f in families for t in _TASKS.get(f, ([], []))[0]}),
        task_ids=sorted({t for f in families for t in _TASKS.get(f, ([], []))[1]}),
        tags=["robustness", "perturbation", "contrast-sets", "probing"],
        configs=[{"config_name": name, "data_files": [{"split": s, "path": f["path"]} for s, f in m["files"].items()]}
                 for name, m in metas.items()],
        # `datasets` keys its cache of a local or Hub folder on the card's YAML, not on the files' bytes: the
        # content hashes in each config's dataset_info change the key whenever a rebuild changes the data, so
        # `load_dataset` never serves rows from an earlier build
        dataset_info=[{"config_name": name,
                       "description": f"robust-bench {m['versions']['robust_bench']} build of {name}, seed {m['seed']}; "
                                      + "; ".join(f"{s} sha256 {f['sha256']}" for s, f in m["files"].items())}
                      for name, m in metas.items()])


def card_refusals(meta: dict[str, Any]) -> dict[str, int]:
    """Refusals by reason of a built config, largest first: those its builder counted at build time
    (``refusals`` of its metadata, :meth:`robust_bench.data.builder_base.RobustBenchBuilder.card_refusals`), else
    (a derived config, metadata of an older build) the ``refusals`` of each split's statistics, summed. The card
    reads the metadata only: rendering it never imports the builders."""
    out = meta.get("refusals")
    if out is None:
        out = {}
        for name, stats in (meta.get("statistics") or {}).items():
            if name.startswith("_") or not isinstance(stats, dict):
                continue
            for reason, n in (stats.get("refusals") or {}).items():
                if isinstance(n, (int, float)):
                    out[reason] = out.get(reason, 0) + int(n)
    return dict(sorted(((k, int(v)) for k, v in out.items() if v), key=lambda kv: (-kv[1], kv[0])))


def _current_audits(m: dict[str, Any]) -> list[dict]:
    current = {s: f["sha256"] for s, f in m["files"].items()}
    return [a for a in m.get("audits") or [] if a.get("builder_version") == m["builder_version"]
            and all(current.get(s) == h for s, h in (a.get("data_sha256") or {}).items())]


def _audit_line(a: dict) -> str:
    lo, hi = a["wilson_95"]
    defects = ", ".join(f"{k} ({v})" for k, v in a.get("defects", {}).items()) or "none"
    return (f"| {a['ok']}/{a['n']} ({a['share']:.1%}) | [{lo:.1%}, {hi:.1%}] | {a['seed']} | "
            f"{a.get('judged', '')} | {a.get('builder_version', '')} | {defects} | "
            f"{' '.join((a.get('reader') or '').replace('|', '/').split())} | `{a['file']}` |")


def _validity(name: str, m: dict[str, Any]) -> list[str]:
    audits, current = m.get("audits") or [], _current_audits(m)
    lines = ["**Validity** (blind audits, `VALIDITY.md`: a reader who saw only the original, the perturbed text and "
             f"the edits judged each row): "]
    if not current:
        lines[0] += ("no audit of this build yet" + (f"; {len(audits)} of earlier builds" if audits else "")
                     + f" ([history]({_rel(name, AUDIT_HISTORY)})).")
        return lines + [""]
    lines[0] += f"the current build's; every audit of every build in the [history]({_rel(name, AUDIT_HISTORY)})."
    lines += ["", "| judged ok | 95% Wilson interval | seed | judged | builder | defect classes (count) | reader | file |",
              "|---:|---|---:|---|---|---|---|---|", *(_audit_line(a) for a in current)]
    for a in current:
        if a.get("fluent"):
            f = a["fluent"]
            lines.append(f"\nFluency judged apart (seed {a['seed']}): {f['ok']}/{f['n']} judged fluent ({f['share']:.1%}, "
                         f"95% Wilson [{f['wilson_95'][0]:.1%}, {f['wilson_95'][1]:.1%}]).")
    return lines + [""]


def _summary(description: str, limit: int = 500) -> str:
    """The description's first sentence (at most ``limit`` characters); the whole is in the details."""
    text = " ".join(description.split())
    first = re.split(r"(?<=[a-z0-9)\]])\. (?=[A-Z])", text, maxsplit=1)[0].rstrip(".") + "."
    return first if len(first) <= limit else first[:limit - 1].rsplit(" ", 1)[0] + " …"


def _rel(name: str, path: str) -> str:
    return f"data/{name}/{path}"


def _fields(repo: Path | None, m: dict[str, Any]) -> list[str]:
    """The fields of the config's first split and their Arrow types (from the Parquet schema)."""
    if repo is None:
        return []
    import pyarrow.parquet as pq

    first = next(iter(m["files"].values()))
    path = repo / first["path"]
    if not path.is_file():
        return []
    schema = pq.read_schema(path)
    lines = ["| field | type |", "|---|---|"]
    for f in schema:
        t = str(f.type).replace("|", "/")
        lines.append(f"| `{f.name}` | {t if len(t) <= 70 else t[:67] + '...'} |")
    return lines + [""]


def _built(m: dict[str, Any]) -> str:
    src = m["source"]
    read = (m.get("provenance") or {}).get("source_read") or {}
    files = "; ".join(f"{s}: `{r['file']}` ({r['rows']:,} rows" + (", a sample of the official file, not the full set"
                                                                    if r.get("sample") else "") + ")"
                      for s, r in read.items())
    options = ", ".join(f"{k}={v}" for k, v in sorted((m.get("options") or {}).items()) if v not in (None, "", [], {}))
    return (f"Built by `{m['builder']}` version {m['builder_version']} with seed {m['seed']}"
            + (f" and options {options}" if options else "") + f" from {src['name']} {src['version']} ({src['license']}, "
            f"{src['url']})" + (f"; files read: {files}" if files else "") + ". Built with "
            + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ". Statistics, coverage and provenance: "
            f"[details]({_rel(m['config'], DETAILS)}).")


def _refusals(name: str, m: dict[str, Any]) -> list[str]:
    reasons = card_refusals(m)
    if not reasons:
        return ["**Refusals by reason:** none counted for this build.", ""]
    shown = list(reasons.items())[:MAX_REASONS]
    lines = [f"**Refusals by reason** ({sum(reasons.values()):,} in all, summed over the splits; a candidate the "
             "builder refuses is not written):", "", "| reason | refused |", "|---|---:|"]
    lines += [f"| {r.replace('|', '/')} | {n:,} |" for r, n in shown]
    if len(reasons) > MAX_REASONS:
        lines.append(f"| ... {len(reasons) - MAX_REASONS} more reasons ([details]({_rel(name, DETAILS)})) | "
                     f"{sum(n for _, n in list(reasons.items())[MAX_REASONS:]):,} |")
    return lines + [""]


def _config_section(name: str, m: dict[str, Any], repo: Path | None) -> list[str]:
    for key in ("description", "files", "source", "builder", "builder_version", "seed", "versions", "citation", "license"):
        if key not in m:
            raise CardError(f"config {name!r}: metadata field {key!r} is missing")
    first = _summary(m["description"])
    lines = [f"### {name}", "", first, "",
             f"- **Family:** {m['family']}; **licence:** {m['license']}",
             f"- **Load:** `load_dataset(\"robust-bench/robust-bench\", \"{name}\")`", "",
             "| split | rows | file | SHA-256 |", "|---|---:|---|---|"]
    lines += [f"| {s} | {f['rows']:,} | `{f['path']}` | `{f['sha256']}` |" for s, f in m["files"].items()]
    lines += ["", *_fields(repo, m), _built(m), "", *_validity(name, m), *_refusals(name, m),
              "<details><summary>Citation</summary>", "", "```bibtex", m["citation"].strip(), "```", "", "</details>", ""]
    return lines


def render_card(metas: dict[str, dict[str, Any]], repo: str | Path | None = None) -> str:
    """The repository README: the Hub dataset card of every built config.

    Parameters
    ----------
    metas : dict of str to dict
        Each config's ``metadata.json``.
    repo : path-like, optional
        The repository, for the fields of each config (read from its Parquet schema); without it the
        card lists no fields.

    Returns
    -------
    str
        The card, YAML header included (``huggingface_hub.DatasetCard`` parses it).

    Raises
    ------
    CardError
        A config whose metadata lacks a field the card states.
    """
    from huggingface_hub import DatasetCard

    repo = Path(repo) if repo is not None else None
    families = sorted({m["family"] for m in metas.values()})
    body = ["# Dataset card for robust-bench", "",
            "Perturbed corpora for testing how robust NLP models are to natural, linguistically controlled "
            "perturbations. " + CARD_MARKER, "",
            "## Dataset summary", "",
            "Each config perturbs a public corpus by one published method (grammatical errors, Yin et al. 2020; "
            "named-entity swaps, Balasubramanian et al. 2020; adversarial treebanks, Wang et al. 2021; LIT contrast "
            "sets, Li et al. 2020; Jabberwocky, Hall Maudslay & Cotterell 2021), keeping the gold labels the method "
            f"says it keeps. This repository holds {len(metas)} config(s) of the families {', '.join(families)}.", "",
            "```python", "from datasets import load_dataset",
            *[f'ds = load_dataset("robust-bench/robust-bench", "{name}")' for name in metas], "```", "",
            "## Supported tasks and leaderboards", "",
            "Robustness evaluation of classifiers, taggers, parsers, encoders and LLMs: `robust-bench run --suite "
            "default` scores a model on the benchmark's pinned tasks and `robust-bench submit` sends the run to the "
            "leaderboard.", "",
            "## Languages", "", "English (`en`).", "",
            "## Dataset structure", "",
            "One section per config below: its fields, splits and sizes, how it was built, its current validity "
            "audit and its refusals by reason. Variants of one source example share a `group_id` where a family "
            "groups them.", ""]
    for name, m in metas.items():
        body += _config_section(name, m, repo)
    body += ["## Dataset creation", "",
             "Every config is built by `robust-bench build CONFIG` from its source corpus (named per config, with its "
             "version, licence and the files read), deterministically: the same seed and set-up give the same bytes, "
             "and each file's SHA-256 is listed above. Candidates the builder cannot show to be valid are refused and "
             "counted by reason; blind audits measure the rest (`VALIDITY.md`).", "",
             "**Personal and sensitive information.** The sources are published corpora of news, web text, fiction "
             "and reviews; they name real people and organisations, and the name-swap configs replace those names by "
             "names from public lists. No new personal data is collected.", "",
             "## Considerations for using the data", "",
             "**Biases and limitations.** Perturbations inherit the source corpora's domains and the lists and "
             "parsers they are built with (each config's set-up is stated); a config measures robustness to its "
             "perturbation only, on the share of the source it could perturb validly (coverage in each config's "
             "details).", "",
             "## Licensing information", "",
             "Each config keeps its source corpus's licence, stated in its section; `license: other` in the header "
             "stands for that mix.", "",
             "## Citation information", "",
             "Cite the paper of each family you use (in its config's section) and robust-bench.", ""]
    card = DatasetCard("---\n" + card_data(metas).to_yaml() + "\n---\n\n" + "\n".join(body))
    return str(card).rstrip("\n") + "\n"


def _audit_history(name: str, m: dict[str, Any]) -> str:
    audits = m.get("audits") or []
    current = {s: f["sha256"] for s, f in m["files"].items()}
    lines = [f"# Validity audits of {name}", "",
             "Every judged audit of every build (`../shared/VALIDITY.md` in the robust-bench repository): a reader who saw "
             "only the original, the perturbed text and the edits judged each row ok or bad.", ""]
    if not audits:
        return "\n".join(lines + [f"No blind audit recorded yet (`robust-bench audit {name} --sample 100 --seed S`, then "
                                  "`--judged FILE`).", ""])
    lines += ["| judged ok | N | 95% Wilson interval | seed | drawn / judged | builder version | rows left unchanged "
              "| defect classes (count) | reader | file | status |", "|---:|---:|---|---:|---|---|---:|---|---|---|---|"]
    for a in audits:
        same = a.get("builder_version") == m["builder_version"] and all(
            current.get(s) == h for s, h in (a.get("data_sha256") or {}).items())
        lo, hi = a["wilson_95"]
        defects = ", ".join(f"{k} ({v})" for k, v in a.get("defects", {}).items()) or "none"
        lines.append(f"| {a['ok']}/{a['n']} ({a['share']:.1%}) | {a['n']} | [{lo:.1%}, {hi:.1%}] | {a['seed']} | "
                     f"{a.get('drawn', '')} / {a.get('judged', '')} | {a.get('builder_version', '')} | "
                     f"{a.get('unchanged_share', 0):.1%} | {defects} | "
                     f"{' '.join((a.get('reader') or '').replace('|', '/').split())} | `{a['file']}`"
                     f"{' (recorded by the maintainers; shipped in robust_bench/data/audits.json)' if a.get('shipped') else ''}"
                     f" (sha256 {a.get('sha256', '')[:16]}…) | {'current' if same else 'stale: judged on another build'} |")
    grouped = [a for a in audits if a.get("by_group")]
    if grouped:
        lines += ["", "By transformation code (ok/N, 95% Wilson interval):", ""]
        for a in grouped:
            lines.append(f"- seed {a['seed']} (builder {a.get('builder_version', '')}): " + "; ".join(
                f"`{g}` {v['ok']}/{v['n']} [{v['wilson_95'][0]:.0%}, {v['wilson_95'][1]:.0%}]"
                for g, v in a["by_group"].items()))
    fluency = [a for a in audits if a.get("fluent")]
    if fluency:
        lines += ["", "Fluency, judged apart (the perturbed sentence reads as fluent English):", ""]
        for a in fluency:
            f = a["fluent"]
            lines.append(f"- seed {a['seed']} (builder {a.get('builder_version', '')}): {f['ok']}/{f['n']} judged fluent "
                         f"({f['share']:.1%}, 95% Wilson [{f['wilson_95'][0]:.1%}, {f['wilson_95'][1]:.1%}])")
    return "\n".join(lines) + "\n"


def _details(name: str, m: dict[str, Any]) -> str:
    parts = [f"# {name}: statistics, coverage and provenance", "", m["description"].strip(), "",
             f"Builder `{m['builder']}` version {m['builder_version']}, seed {m['seed']}. The card's section of "
             f"{name} is in the repository's README.md; every figure here is rendered from `metadata.json`.", ""]
    reasons = card_refusals(m)
    if reasons:
        parts += ["## Refusals by reason", "", "| reason | refused |", "|---|---:|",
                  *(f"| {r.replace('|', '/')} | {n:,} |" for r, n in reasons.items()), ""]
    if m.get("coverage_notes"):
        parts += ["## Coverage", "", m["coverage_notes"].strip(), ""]
    parts += ["## Statistics", "", "```json", json.dumps(m["statistics"], indent=2, sort_keys=True), "```", ""]
    if m.get("provenance"):
        parts += ["## Provenance", "", "```json", json.dumps(m["provenance"], indent=2, sort_keys=True), "```", ""]
    return "\n".join(parts)


def config_files(name: str, m: dict[str, Any]) -> dict[str, str]:
    """The files a config's card section links, relative to ``data/<config>/``: :data:`DETAILS` and
    :data:`AUDIT_HISTORY`, rendered from its metadata."""
    return {DETAILS: _details(name, m), AUDIT_HISTORY: _audit_history(name, m)}
