"""`robust-bench list` and `robust-bench build`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (seed_in_range, check_fraction, check_input_file, check_output_dir, check_positive, fail)
from robust_bench.data.repository import DEFAULT_REPO


@app.command("list")
def list_cmd() -> None:
    """Show every config with its family, source corpus and splits."""
    from robust_bench.data.registry import list_configs

    rows = [("config", "family", "source", "splits")]
    rows += [(e.name, e.family, e.source, ", ".join(e.splits)) for e in list_configs()]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        typer.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


@app.command()
def build(
    config: str = typer.Argument(..., help="Config to materialise (see `robust-bench list`)."),
    out: Path = typer.Option(Path(DEFAULT_REPO), "--out", help="Dataset repository folder."),
    source: Optional[Path] = typer.Option(None, "--source",
                                          help="Local mirror of the source corpora (like ../shared/data). "
                                               "Default: $ROBUST_BENCH_SOURCES, else download."),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range, help="Base seed; the same seed gives identical Parquet files."),
    num_proc: Optional[int] = typer.Option(None, "--num-proc", help="Worker processes for generation."),
    error_rate: Optional[float] = typer.Option(None, "--error-rate",
                                               help="gec_*: share of the segment's tokens to modify (default 0.15)."),
    confusions: Optional[Path] = typer.Option(None, "--confusions",
                                              help="gec_*: weights from `robust-bench fit-confusions`, or 'uniform' for "
                                                   "Table 1's whole sets (default: learner confusion classes)."),
    checks: Optional[str] = typer.Option(None, "--checks", help="gec_*: validity checks, all (default: with the "
                                                               "sentence encoder $ROBUST_BENCH_SIMILARITY_MODEL and "
                                                               "the second tagger) or static (no models)."),
    spacy_model: Optional[str] = typer.Option(None, "--spacy-model",
                                              help="gec_*, lit_*, names_*, adv_* (POS filter): spaCy pipeline (default $ROBUST_BENCH_SPACY_MODEL "
                                                   "or en_robust_bench_sm, the reference pipeline)."),
    splits: Optional[str] = typer.Option(None, "--splits", help="Comma-separated subset of the config's splits."),
    backend: Optional[str] = typer.Option(None, "--backend", help="lit_*: ud (spaCy, default) or erg (ACE + ERG)."),
    grammar: Optional[Path] = typer.Option(None, "--grammar", help="lit_*: compiled ERG image for --backend erg."),
    lm: Optional[str] = typer.Option(None, "--lm", help="lit_*: causal LM that ranks candidate surfaces by "
                                                       "perplexity, as the paper's GPT-2 (default: none, the backend's "
                                                       "first candidate); adv_*: the perplexity filter's LM (default gpt2)."),
    parser: Optional[str] = typer.Option(None, "--parser", help="adv_*: reference parser, spacy:PATH, stanza:PATH or "
                                                               "callable:MODULE:FUNCTION (default spacy:, i.e. "
                                                               "$ROBUST_BENCH_SPACY_MODEL)."),
    vectors: Optional[Path] = typer.Option(None, "--vectors", help="adv_*: word vectors (default: the counter-fitted "
                                                                  "vectors, downloaded)."),
    mlm: Optional[str] = typer.Option(None, "--mlm", help="adv_*: masked LM of the mlm generator (default "
                                                         "bert-base-uncased)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="adv_*: attack only the first N sentences."),
    generators: Optional[str] = typer.Option(None, "--generators",
                                             help="adv_*: comma-separated from sememe, synonym, embedding, mlm "
                                                  "(default synonym, which needs nothing from the Hub), or auto "
                                                  "(every generator that runs here)."),
    filters: Optional[str] = typer.Option(None, "--filters",
                                          help="adv_*: comma-separated from frequency, pos, embedding, meaning, "
                                               "grammar, perplexity (default frequency,pos,meaning,grammar), or auto "
                                               "(every filter that runs here)."),
    treebank: Optional[Path] = typer.Option(None, "--treebank", help="adv_ptb: a CoNLL-X PTB (section 23) instead of "
                                                                    "NLTK's WSJ sample."),
    budget: Optional[int] = typer.Option(None, "--budget", help="names_*: B, swapped variants per group (default 50)."),
    names: Optional[Path] = typer.Option(None, "--names", help="names_*: extra name list (one per line, or "
                                                                 "TYPE<TAB>name), e.g. the Fortune 500."),
    exclude_seen: Optional[bool] = typer.Option(None, "--exclude-seen/--keep-seen",
                                                help="names_*: leave out names that occur in the task's training data."),
    coref_path: Optional[Path] = typer.Option(None, "--coref-path", help="names_coref: CoNLL-2012 file or folder "
                                                                         "(OntoNotes); default LitBank."),
    codes: Optional[str] = typer.Option(None, "--codes", help="lit_*: comma-separated pair transformations, e.g. "
                                                             "'m;o,i;i' (default: every code of the config's tier)."),
    second_parser: Optional[str] = typer.Option(None, "--second-parser",
                                                help="lit_*: second spaCy parser that must agree on the verb group, "
                                                     "subject and object (default $ROBUST_BENCH_SECOND_PARSER, else "
                                                     "$ROBUST_BENCH_ERRANT_MODEL, else en_core_web_sm; 'none' for none)."),
    full_dev: bool = typer.Option(False, "--full-dev", help="lit_*: build from the whole dev split (downloaded from "
                                                           "the Hub) instead of TextFooler's 1,000-pair samples."),
    augment_train: Optional[str] = typer.Option(None, "--augment-train",
                                                help="lit_*: training file (or 'hub') for an extra train split of "
                                                     "contrast pairs (AUG, Li et al. §4.3)."),
    settings: Optional[list[str]] = typer.Option(None, "--set", help="KEY=VALUE, repeatable: any setting of the config "
                                                                     "(a field of its builder's config class; an unknown "
                                                                     "key lists them)."),
) -> None:
    """Build CONFIG into OUT/data/CONFIG/<split>.parquet and rewrite OUT/README.md."""
    check_positive("--num-proc", num_proc)
    check_positive("--limit", limit)
    check_positive("--budget", budget)
    check_fraction("--error-rate", error_rate)
    for option, path in (("--confusions", None if str(confusions) == "uniform" else confusions), ("--grammar", grammar), ("--vectors", vectors),
                         ("--treebank", treebank), ("--names", names)):
        check_input_file(option, path)
    check_output_dir("--out", out)
    from robust_bench.data.repository import build_config

    options = {"error_rate": error_rate, "confusions": None if confusions is None else str(confusions), "checks": checks,
               "spacy_model": spacy_model, "splits": None if splits is None else tuple(splits.split(",")),
               "backend": backend, "grammar": None if grammar is None else str(grammar), "lm": lm,
               "augment_train": augment_train, "budget": budget, "names": None if names is None else str(names),
               "exclude_seen": exclude_seen, "coref_path": None if coref_path is None else str(coref_path),
               "parser": parser, "vectors": None if vectors is None else str(vectors), "mlm": mlm, "limit": limit,
               "generators": generators, "filters": filters, "second_parser": second_parser,
               "codes": None if codes is None else tuple(c.strip() for c in codes.split(",")),
               "source": "full" if full_dev else None,
               "treebank": None if treebank is None else str(treebank)}
    try:
        from robust_bench.data.registry import get_config

        extra = get_config(config).builder.BUILDER_CONFIG_CLASS.parse_settings(settings or [])
        twice = sorted(k for k in extra if options.get(k) is not None)
        if twice:
            raise ValueError(f"--set {twice[0]}: also given as its own option; give it once")
        options.update(extra)
        report = build_config(config, out=out, source=source, seed=seed, num_proc=num_proc, options=options)
    except (RobustBenchError, ValueError, OSError) as exc:
        fail(exc)
    typer.echo(f"built {config} into {report.repo} in {report.seconds:.1f} s")
    for split, f in report.metadata["files"].items():
        typer.echo(f"  {split:<12} {f['rows']:>7,} rows  sha256 {f['sha256'][:16]}…  {f['path']}")

