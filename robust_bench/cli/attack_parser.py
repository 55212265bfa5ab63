"""`robust-bench attack-parser`: the parser attack of Wang et al. (2021) on a user's parser."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (seed_in_range, check_input_file, check_output_dir, check_output_file, check_positive, fail)
from robust_bench.data.repository import DEFAULT_REPO


@app.command("attack-parser")
def attack_parser(
    parser: str = typer.Option(..., "--parser", help="spacy:NAME_OR_PATH, stanza:PATH_OR_LANG or "
                                                     "callable:MODULE:FUNCTION."),
    config: str = typer.Option("adv_ewt", "--config", help="adv_ewt (EWT test, UAS and LAS) or adv_ptb (WSJ, UAS)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Attack only the first N sentences."),
    mlm: Optional[str] = typer.Option(None, "--mlm", help="Masked LM of the mlm generator (default bert-base-uncased)."),
    lm: Optional[str] = typer.Option(None, "--lm", help="Causal LM of the perplexity filter and Table 2 (default gpt2)."),
    vectors: Optional[Path] = typer.Option(None, "--vectors", help="Word vectors (word2vec/GloVe text or .bin) of the "
                                                                   "embedding generator and filter; the paper uses "
                                                                   "the counter-fitted vectors of Mrkšić et al. (2016)."),
    generators: str = typer.Option("auto", "--generators", help="auto (every one that runs here) or comma-separated "
                                                                 "from sememe, synonym, embedding, mlm."),
    filters: str = typer.Option("auto", "--filters", help="auto (every one that runs here) or comma-separated from "
                                                          "frequency, pos, embedding, meaning, grammar, perplexity."),
    ablation: bool = typer.Option(True, "--ablation/--no-ablation", help="Also rerun with the filters added one by "
                                                                         "one (Table 5)."),
    treebank: Optional[Path] = typer.Option(None, "--treebank", help="adv_ptb: CoNLL-X PTB section 23 instead of "
                                                                      "NLTK's WSJ sample."),
    train_vocab: Optional[Path] = typer.Option(None, "--parser-train", help="CoNLL-U/X training file of the parser, "
                                                                             "for OOT counts (default: EWT train for "
                                                                             "adv_ewt)."),
    export_training: Optional[Path] = typer.Option(None, "--export-training",
                                                   help="Also attack the training treebank (EWT train, or "
                                                        "--parser-train) and write its adversarial sentences here "
                                                        "as CoNLL-U, for adversarial training (§4.4)."),
    spacy_model: Optional[str] = typer.Option(None, "--spacy-model", help="spaCy pipeline of the POS filter."),
    source: Optional[Path] = typer.Option(None, "--source", help="Local mirror of the source corpora."),
    seed: int = typer.Option(0, "--seed", callback=seed_in_range, help="Seeds the masked-LM draws."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--out", help="Dataset repository; adv_<parser>_<config> goes there."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where the run folder goes: "
                                                                          "OUTPUT_DIR/<parser>/<config>_command_<hash> "
                                                                          "(run.json, log, record, tables/, figures/)."),
) -> None:
    """Attack a dependency parser (Wang et al., 2021, Alg. 1) as a run of the parser-attack-live evaluation;
    report Tables 6, 4, 5, 7 and 2."""
    check_positive("--limit", limit)
    for option, path in (("--vectors", vectors), ("--treebank", treebank), ("--parser-train", train_vocab)):
        check_input_file(option, path)
    check_output_file("--export-training", export_training)
    check_output_dir("--output-dir", output_dir)

    from robust_bench.suite.command import attack_parser_command

    try:
        out, _ = attack_parser_command(parser, config, limit=limit, mlm=mlm, lm=lm, vectors=None if vectors is None else str(vectors),
                              generators=generators, filters=filters, ablation=ablation,
                              treebank=None if treebank is None else str(treebank),
                              train_vocab=None if train_vocab is None else str(train_vocab),
                              export_training=export_training, spacy_model=spacy_model,
                              source=None if source is None else str(source), seed=seed, device=device, repo=repo,
                              output_dir=output_dir, echo=typer.echo)
    except (RobustBenchError, ValueError, LookupError) as exc:
        fail(exc)
    typer.echo(f"run folder: {out}")
