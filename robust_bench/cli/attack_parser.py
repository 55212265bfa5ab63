"""`robust-bench attack-parser`: the parser attack of Wang et al. (2021) on a user's parser."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from robust_bench.cli._app import app
from robust_bench import RobustBenchError
from robust_bench.cli._common import (seed_in_range, check_input_file, check_output_dir, check_output_file, check_positive, fail, model_slug)
from robust_bench.data.repository import DEFAULT_REPO

_CONFIGS = ("adv_ewt", "adv_ptb")


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
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where the record, tables and plots go."),
) -> None:
    """Attack a dependency parser (Wang et al., 2021, Alg. 1); report Tables 6, 4, 5, 7 and 2."""
    check_positive("--limit", limit)
    for option, path in (("--vectors", vectors), ("--treebank", treebank), ("--parser-train", train_vocab)):
        check_input_file(option, path)
    check_output_file("--export-training", export_training)
    check_output_dir("--output-dir", output_dir)

    if config not in _CONFIGS:
        fail(ValueError(f"--config must be one of {', '.join(_CONFIGS)}, got {config!r}"))
    if limit is not None and limit < 1:
        fail(ValueError("--limit must be at least 1"))
    try:
        _run(parser, config, limit, mlm, lm, vectors, generators, filters, ablation, treebank, train_vocab,
             export_training, spacy_model, source, seed, device, repo, output_dir)
    except (RobustBenchError, ValueError, LookupError) as exc:
        fail(exc)


def _examples(config, source, limit, treebank):
    import datasets

    from robust_bench.builders.treebanks import AdversarialTreebank

    builder = AdversarialTreebank(config_name=config, source_dir=None if source is None else str(source),
                                  limit=limit, treebank=None if treebank is None else str(treebank))
    exs = builder.examples(datasets.DownloadManager(dataset_name="robust-bench"))
    return exs, builder


def _run(parser_spec, config, limit, mlm, lm, vectors, generators, filters, ablation, treebank, train_vocab,
         export_training, spacy_model, source, seed, device, repo, output_dir):
    import datasets

    from robust_bench.attacks.parser_attack import make_attack, result_rows, row_features, summarise
    from robust_bench.data.repository import write_derived_config
    from robust_bench.experiments import parser_report as rep
    from robust_bench.io.conllu_io import read_conllu
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.models.lm import DEFAULT_LM, CausalLMScorer
    from robust_bench.models.loader import ModelError
    from robust_bench.models.parsers import load_parser

    examples, builder = _examples(config, source, limit, treebank)
    parser = load_parser(parser_spec)
    attack, setup = make_attack(parser, vectors=None if vectors is None else str(vectors), mlm=mlm, lm=lm,
                                tagger_model=spacy_model, generators=generators, filters=filters, seed=seed,
                                device=device, rule="ud" if config == "adv_ewt" else "ptb",
                                frames=str(train_vocab) if train_vocab else builder._frames_path())
    for what, why in setup["unavailable"].items():
        typer.echo(f"note: {what} not used: {why}")
    typer.echo(f"generators: {', '.join(setup['generators'])}; filters: {', '.join(setup['filters'])}")
    results = attack.attack(examples, progress=True)
    train_path = str(train_vocab) if train_vocab else getattr(builder, "_train_path", None)
    train_words = {w for s in read_conllu(train_path) for w in s.forms} if train_path else None
    summary = summarise(results, examples, train_vocabulary=train_words)
    scorer = next((f.lm for f in attack.filters if f.name == "perplexity"), None)
    if scorer is None:
        try:
            scorer = CausalLMScorer(lm or DEFAULT_LM, device=device)
        except ModelError as exc:
            if lm:
                raise
            typer.echo(f"note: Table 2 (perplexity) left out: {str(exc).splitlines()[0]}")
    ppl = ((rep.mean_perplexity(scorer, [e.words for e in examples]),
            rep.mean_perplexity(scorer, [r.words for r in results])) if scorer is not None else None)
    pname = model_slug(parser.name)
    typer.echo(f"\n{parser.name} on {config} ({len(examples)} sentences), parser queries {parser.queries:,} "
               f"in {parser.calls:,} calls\n")
    typer.echo("Table 6: attachment scores before and after the attack\n" + rep.table6(summary, parser.name) + "\n")
    typer.echo("Table 4: candidates per generator\n" + rep.table4(summary) + "\n")
    typer.echo("Table 7: out-of-vocabulary (parser embeddings) and out-of-training words\n" + rep.table7(summary) + "\n")
    if ppl is not None:
        typer.echo("Table 2 (automatic): perplexity under " + scorer.model_id + "\n" + rep.table2(*ppl) + "\n")
    abl = []
    if ablation:
        abl = rep.filter_ablation(attack, examples, lm=scorer, progress=True)
        typer.echo("Table 5: filter ablation\n" + rep.table5(abl) + "\n")
    name = f"adv_{pname}_{config.removeprefix('adv_')}"
    rows = result_rows(results, examples)
    dataset = datasets.DatasetDict({"test": datasets.Dataset.from_list(rows, features=row_features())})
    src = builder.source_info
    meta = write_derived_config(
        repo, name, dataset, family="adversarial_treebanks",
        description=f"{config} attacked live against {parser.name} ({parser.revision}) with the attack of Wang et al. "
                    "(2021); gold trees kept, usable as a transfer set.",
        citation=builder.CITATION, license=builder.LICENSE,
        source={"name": src.name, "version": src.version, "license": src.license, "url": src.url}, seed=seed,
        statistics={"test": summary}, provenance={"attack": setup, "source_config": config, **builder.provenance})
    typer.echo(f"adversarial treebank: config {name!r} in {repo}")
    metrics = {"attack_success_rate": summary["success_rate"]}
    for rule, sc in summary["scores"].items():
        for k, v in sc.items():
            metrics[f"{k}_{rule}"] = v / 100
    corpus = meta["files"]["test"]["sha256"]
    details = {"setup": setup, "table4": summary["candidates"], "table7": {"oov": summary["oov"], "oot": summary["oot"]},
               "table2": None if ppl is None else {"original": ppl[0], "adversarial": ppl[1]}, "table5": abl,
               "parser_queries": parser.queries, "parser_calls": parser.calls, "adversarial_config": name}
    rec = make_record(model_id=parser_spec, revision=parser.revision, config=config, split="test",
                      corpus_sha256=corpus, metrics=metrics, seed=seed, details=details)
    typer.echo(f"record: {write_record(rec, output_dir, tag='attack-parser')}")
    stem = output_dir / f"{pname}__{config}"
    figs = rep.plot_candidates(summary, f"{stem}__candidates", title=f"Candidates per generator, {config}")
    figs += rep.plot_scores({parser.name: summary}, f"{stem}__scores", title=f"{config}: before and after the attack")
    typer.echo("figures: " + ", ".join(str(p) for p in figs))
    if export_training:
        _export(attack, config, builder, train_path, limit, export_training)


def _export(attack, config, builder, train_path, limit, out):
    from robust_bench.attacks.parser_attack import TreeExample
    from robust_bench.io.conllu_io import read_conllu, write_conllu

    if not train_path:
        raise ValueError("--export-training needs a training treebank: give --parser-train FILE")
    sents = read_conllu(train_path)[:limit] if limit else read_conllu(train_path)
    exs = [TreeExample.from_sentence(s) for s in sents]
    results = attack.attack(exs, progress=True)
    adv = [s.with_forms(r.words) for s, r in zip(sents, results) if r.edits]
    write_conllu(adv, out)
    typer.echo(f"adversarial training sentences: {len(adv):,} of {len(sents):,} written to {out}")

