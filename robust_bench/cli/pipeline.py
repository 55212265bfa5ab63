"""`robust-bench pipeline train|package`: the reference spaCy pipeline from its recipe, and its wheel."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench import RobustBenchError
from robust_bench.cli._app import app
from robust_bench.cli._common import check, check_positive, fail

pipeline_app = typer.Typer(help="robust-bench's reference spaCy pipeline (en_robust_bench_sm): train it from the "
                                "public UD English EWT and CoNLL-2003 files, package it as a wheel.",
                           no_args_is_help=True)
app.add_typer(pipeline_app, name="pipeline")

#: the recipe's source files, by their place in a local mirror (the layout of ../shared/data)
_EWT = {"train": "ud_english_ewt/en_ewt-ud-train.conllu", "dev": "ud_english_ewt/en_ewt-ud-dev.conllu",
        "test": "ud_english_ewt/en_ewt-ud-test.conllu"}
_CONLL = {"train": "conll2003/train.txt", "valid": "conll2003/valid.txt", "test": "conll2003/test.txt"}


@pipeline_app.command("train")
def train_cmd(
    out: Path = typer.Option(..., "--out", help="The new pipeline folder (must not exist)."),
    source: Optional[Path] = typer.Option(None, "--source", help="Folder laid out like ../shared/data holding "
                                                                 "ud_english_ewt/ and conll2003/ (default "
                                                                 "$ROBUST_BENCH_SOURCES)."),
    max_epochs: Optional[int] = typer.Option(None, "--max-epochs", help="Override the recipe's 30 epochs."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N sentences of every file "
                                                              "(a quick look; the released pipeline uses all)."),
    jobs: int = typer.Option(1, "--jobs", help="2: train the two stages (UD, NER) at the same time, one process "
                                               "each (about half the wall time on two cores; the same pipeline)."),
) -> None:
    """Train en_robust_bench_sm (tagger, morphologizer, lemmatizer, UD parser on EWT; NER on CoNLL-2003) on
    the CPU, deterministically, and print its scores on EWT test and CoNLL-2003 test."""
    import os

    from robust_bench.io.sources import SOURCES_ENV

    check_positive("--max-epochs", max_epochs)
    check_positive("--limit", limit)
    check("--jobs", jobs in (1, 2), f"1 or 2 (the recipe has two stages), not {jobs}")
    check("--out", not out.exists(), f"{out} exists; give a new folder")
    root = source or (Path(os.environ[SOURCES_ENV]) if os.environ.get(SOURCES_ENV) else None)
    check("--source", root is not None, f"give the folder of the source files (or set {SOURCES_ENV})")
    missing = [str(root / p) for p in (*_EWT.values(), *_CONLL.values()) if not (root / p).is_file()]
    check("--source", not missing, "missing " + ", ".join(missing) + " (UD English EWT: "
          "https://github.com/UniversalDependencies/UD_English-EWT; CoNLL-2003: https://huggingface.co/datasets/"
          "eriktks/conll2003)")
    from robust_bench.text.reference_pipeline import train_pipeline

    try:
        trained = train_pipeline(out, ewt={k: root / p for k, p in _EWT.items()},
                                 conll2003={k: root / p for k, p in _CONLL.items()}, max_epochs=max_epochs,
                                 limit=limit, jobs=jobs, echo=typer.echo)
    except RobustBenchError as exc:
        fail(exc)
    ewt, conll = trained.scores["ewt_test"], trained.scores["conll2003_test"]
    typer.echo(f"EWT test: UPOS {ewt['pos_acc']:.4f}, PTB tags {ewt['tag_acc']:.4f}, lemmas {ewt['lemma_acc']:.4f}, "
               f"UAS {ewt['dep_uas']:.4f}, LAS {ewt['dep_las']:.4f}")
    typer.echo(f"CoNLL-2003 test: NER F1 {conll['ents_f']:.4f} (P {conll['ents_p']:.4f}, R {conll['ents_r']:.4f})")
    typer.echo(f"wall seconds: {trained.seconds}")
    typer.echo(f"pipeline: {trained.path}")


@pipeline_app.command("package")
def package_cmd(
    pipeline: Path = typer.Argument(..., help="A pipeline folder from `robust-bench pipeline train`."),
    out: Path = typer.Option(Path("dist"), "--out", help="Where spacy package writes the package and its wheel."),
) -> None:
    """`spacy package PIPELINE OUT --build wheel`: the wheel users install with pip."""
    check("PIPELINE", (pipeline / "meta.json").is_file(), f"{pipeline} is not a spaCy pipeline folder (no meta.json)")
    from robust_bench.text.reference_pipeline import package_pipeline

    try:
        wheel = package_pipeline(pipeline, out)
    except RobustBenchError as exc:
        fail(exc)
    typer.echo(f"wheel: {wheel}")
