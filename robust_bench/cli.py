"""The ``robust-bench`` command line.

Commands follow the Hugging Face CLI style: a verb, a positional config where one is
needed, long options with defaults shown in ``--help``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Optional

import typer

from robust_bench.repository import DEFAULT_REPO

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="robust-bench: perturbed corpora and robustness scores for NLP models.")


def _fail(exc: BaseException) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def _known_errors() -> tuple[type[BaseException], ...]:
    from robust_bench.conllu_io import ConlluError
    from robust_bench.leaderboard.records import RecordError
    from robust_bench.nlp import SpacyModelError
    from robust_bench.task_data import TaskDataError
    from robust_bench.pseudowords import PseudowordError
    from robust_bench.registry import UnknownConfigError
    from robust_bench.sources import SourceNotFoundError
    from robust_bench.encoders import EncoderError
    from robust_bench.lit_erg import ErgUnavailableError

    return (ConlluError, SourceNotFoundError, PseudowordError, UnknownConfigError, RecordError,
            BaselineCheckError, TaskDataError, SpacyModelError, EncoderError, ErgUnavailableError)


class BaselineCheckError(RuntimeError):
    """Plain and Jabberwocky baselines differ: the Jabberwocky trees do not equal their source."""


@app.command("list")
def list_cmd() -> None:
    """Show every config with its family, source corpus and splits."""
    from robust_bench.registry import list_configs

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
    seed: int = typer.Option(0, "--seed", help="Base seed; the same seed gives identical Parquet files."),
    num_proc: Optional[int] = typer.Option(None, "--num-proc", help="Worker processes for generation."),
    error_rate: Optional[float] = typer.Option(None, "--error-rate",
                                               help="gec_*: share of the segment's tokens to modify (default 0.15)."),
    confusions: Optional[Path] = typer.Option(None, "--confusions",
                                              help="gec_*: weights from `robust-bench fit-confusions` (default uniform)."),
    spacy_model: Optional[str] = typer.Option(None, "--spacy-model",
                                              help="gec_*, lit_*: spaCy pipeline (default $ROBUST_BENCH_SPACY_MODEL "
                                                   "or en_core_web_sm)."),
    splits: Optional[str] = typer.Option(None, "--splits", help="Comma-separated subset of the config's splits."),
    backend: Optional[str] = typer.Option(None, "--backend", help="lit_*: ud (spaCy, default) or erg (ACE + ERG)."),
    grammar: Optional[Path] = typer.Option(None, "--grammar", help="lit_*: compiled ERG image for --backend erg."),
    lm: Optional[str] = typer.Option(None, "--lm", help="lit_*: causal LM that ranks candidate surfaces (default gpt2)."),
    augment_train: Optional[str] = typer.Option(None, "--augment-train",
                                                help="lit_*: training file (or 'hub') for an extra train split of "
                                                     "contrast pairs (AUG, Li et al. §4.3)."),
) -> None:
    """Build CONFIG into OUT/data/CONFIG/<split>.parquet and rewrite OUT/README.md."""
    from robust_bench.repository import build_config

    options = {"error_rate": error_rate, "confusions": None if confusions is None else str(confusions),
               "spacy_model": spacy_model, "splits": None if splits is None else tuple(splits.split(",")),
               "backend": backend, "grammar": None if grammar is None else str(grammar), "lm": lm,
               "augment_train": augment_train}
    try:
        report = build_config(config, out=out, source=source, seed=seed, num_proc=num_proc, options=options)
    except (*_known_errors(), ValueError, OSError) as exc:
        _fail(exc)
    typer.echo(f"built {config} into {report.repo} in {report.seconds:.1f} s")
    for split, f in report.metadata["files"].items():
        typer.echo(f"  {split:<12} {f['rows']:>7,} rows  sha256 {f['sha256'][:16]}…  {f['path']}")


@app.command()
def baselines(
    config: str = typer.Option("jabberwocky_ewt", "--config", help="A Jabberwocky config."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    source: Optional[Path] = typer.Option(None, "--source", help="Local mirror of the source treebank."),
    split: str = typer.Option("test", "--split", help="Split to score."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where result records are written."),
) -> None:
    """Score the Path and Majority baselines (UUAS, DSpr) on plain and Jabberwocky text.

    Both baselines ignore the words, so the plain and Jabberwocky scores must be identical;
    the command fails if they are not.
    """
    try:
        _baselines(config, repo, source, split, output_dir)
    except _known_errors() as exc:
        _fail(exc)


def _baselines(config: str, repo: Path, source: Optional[Path], split: str, output_dir: Path) -> None:
    import tempfile

    import datasets

    from robust_bench.baselines import score_baselines
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.registry import get_config
    from robust_bench.repository import read_metadata
    from robust_bench.sources import sha256_file

    entry = get_config(config)
    if entry.family != "jabberwocky":
        raise BaselineCheckError(f"the Path and Majority baselines are defined for Jabberwocky configs, not {config!r}")
    meta = read_metadata(repo).get(config)
    if meta is None:
        raise BaselineCheckError(f"{repo} holds no {config!r}; run `robust-bench build {config} --out {repo}` first")
    if split not in meta["files"]:
        raise BaselineCheckError(f"{config!r} has no split {split!r}; splits: {', '.join(meta['files'])}")
    data_file = repo / meta["files"][split]["path"]
    digest = sha256_file(data_file)
    if digest != meta["files"][split]["sha256"]:
        raise BaselineCheckError(f"{data_file} does not match the SHA-256 on the card; rebuild {config!r}")

    with tempfile.TemporaryDirectory() as cache:
        builder = entry.builder(config_name=config, cache_dir=cache,
                                source_dir=None if source is None else str(source))
        dl = datasets.DownloadManager(dataset_name=config, download_config=datasets.DownloadConfig())
        treebank, paths = builder.read_treebank(dl)
    plain = treebank[split]
    jab = datasets.load_dataset(str(repo), config, split=split)
    names = jab.features["upos"].feature.names
    eval_sets = {
        "plain": ([s.heads for s in plain], [s.upos for s in plain]),
        "jabberwocky": (jab["head"], [[names[t] for t in row] for row in jab["upos"]]),
    }
    results = score_baselines([s.heads for s in treebank["train"]], eval_sets)
    hashes = {"plain": sha256_file(paths[split]), "jabberwocky": digest}

    typer.echo(f"{config} / {split}: model-free baselines (Hall Maudslay & Cotterell, 2021, §5.1)")
    typer.echo(f"{'baseline':<10} {'variant':<12} {'UUAS':>7} {'DSpr':>7}")
    written = []
    for name, by_variant in results.items():
        for variant, r in by_variant.items():
            typer.echo(f"{name:<10} {variant:<12} {r['uuas']:>7.4f} {r['dspr']:>7.4f}")
            rec = make_record(model_id=f"baseline:{name}", revision=None, config=config, split=split,
                              corpus_sha256=hashes[variant], metrics={"uuas": r["uuas"], "dspr": r["dspr"]},
                              seed=meta["seed"], variant=variant, details=r["details"])
            written.append(write_record(rec, output_dir))
        p, j = by_variant["plain"], by_variant["jabberwocky"]
        if (p["uuas"], p["dspr"]) != (j["uuas"], j["dspr"]):
            raise BaselineCheckError(f"{name}: plain and Jabberwocky scores differ ({p['uuas']}, {p['dspr']}) vs "
                                     f"({j['uuas']}, {j['dspr']}); the Jabberwocky trees do not equal the source")
    typer.echo("check passed: plain and Jabberwocky scores are identical for both baselines")
    for path in written:
        typer.echo(f"  wrote {path}")


@app.command("fit-confusions")
def fit_confusions_cmd(
    m2_file: Path = typer.Argument(..., help="M2 file (NUCLE, CoNLL-2014, BEA-2019)."),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the confusions JSON."),
    annotator: int = typer.Option(0, "--annotator", help="Annotator whose edits are counted."),
) -> None:
    """Estimate substitution weights and the error-type distribution from an M2 file (Yin et al., 2020, §3.1)."""
    from robust_bench.m2 import M2Error, fit_confusions, write_confusions

    try:
        conf = fit_confusions(m2_file, annotator=annotator)
    except (M2Error, OSError) as exc:
        _fail(exc)
    write_confusions(conf, output)
    typer.echo(f"wrote {output}: " + ", ".join(f"{k} {v:.3f}" for k, v in (conf.type_distribution or {}).items()))


def _model_slug(model: str) -> str:
    """A file-name-safe name for a Hub id or a local model folder."""
    import re

    return re.sub(r"[^A-Za-z0-9]+", "_", Path(model).name if Path(model).exists() else model).strip("_").lower()


def _parse_label_map(text: Optional[str]) -> Optional[dict]:
    if not text:
        return None
    out = {}
    for item in text.split(","):
        if "=" not in item:
            raise typer.BadParameter(f"--label-map takes MODEL_LABEL=DATASET_LABEL pairs, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


@app.command()
def attack(
    model: str = typer.Option(..., "--model", help="AutoModelForSequenceClassification id or local path."),
    config: str = typer.Option(..., "--config", help="gec_mnli, gec_mrpc, gec_qnli or gec_sst2 (built first)."),
    search: str = typer.Option("greedy", "--search", help="greedy, beam or genetic (Yin et al., Alg. 1-3)."),
    budget: float = typer.Option(0.15, "--budget", help="Share of the segment's tokens that may change (§4: 0.15)."),
    split: Optional[str] = typer.Option(None, "--split", help="Split to attack (default: the config's first)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Attack at most the first N examples."),
    label_map: Optional[str] = typer.Option(None, "--label-map", help="MODEL_LABEL=DATASET_LABEL,... when names differ."),
    agree_with: Optional[str] = typer.Option(None, "--agree-with",
                                             help="Comma-separated models; attack only examples all of them predict correctly."),
    curve: bool = typer.Option(True, "--curve/--no-curve", help="Also plot success rate for budgets 15%-45% (Fig. 1)."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    seed: int = typer.Option(0, "--seed"),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository; adversarial examples go there too."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where the record and the plot go."),
) -> None:
    """Worst-case grammatical-error attack on a classifier; reports the attack success rate."""
    from robust_bench.attack_runner import AttackError
    from robust_bench.classifiers import LabelMappingError
    from robust_bench.encoders import EncoderError

    try:
        _attack(model, config, search, budget, split, limit, _parse_label_map(label_map),
                [m for m in (agree_with or "").split(",") if m], curve, device, dtype, seed, repo, output_dir)
    except (*_known_errors(), AttackError, LabelMappingError, EncoderError) as exc:
        _fail(exc)


@app.command("evaluate")
def evaluate_cmd(
    model: str = typer.Option(..., "--model", help="AutoModelForSequenceClassification id or local path (NLI)."),
    config: str = typer.Option(..., "--config", help="lit_mnli or lit_snli (built first)."),
    split: Optional[str] = typer.Option(None, "--split", help="One split (default: every split of the config)."),
    label_map: Optional[str] = typer.Option(None, "--label-map", help="MODEL_LABEL=DATASET_LABEL,... when names differ."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype"),
    batch_size: int = typer.Option(64, "--batch-size"),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the built config."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where records and the figure go."),
) -> None:
    """Acc@Ori, Acc@Ctr and consistency per transformation on a LIT contrast set (Table 3)."""
    from robust_bench.classifiers import LabelMappingError
    from robust_bench.lit_eval import LitEvalError

    try:
        _evaluate(model, config, split, _parse_label_map(label_map), device, dtype, batch_size, repo, output_dir)
    except (*_known_errors(), LitEvalError, LabelMappingError) as exc:
        _fail(exc)


def _evaluate(model, config, split, label_map, device, dtype, batch_size, repo, output_dir):
    from robust_bench.classifiers import HFClassifier
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.lit_eval import contrast_set_scores, format_table, load_contrast_sets, plot_scores
    from robust_bench.task_data import NLI_LABELS

    sets, meta = load_contrast_sets(repo, config, split)      # checks the config before the model loads
    clf = HFClassifier(model, NLI_LABELS, label_map=label_map, device=device, dtype=dtype, batch_size=batch_size)
    slug = _model_slug(model)
    for sp, rows in sets.items():
        po = clf.predict(list(zip(rows["original_premise"], rows["original_hypothesis"])))
        pc = clf.predict(list(zip(rows["premise"], rows["hypothesis"])))
        scores = contrast_set_scores(rows, po, pc)
        typer.echo(format_table(scores, title=f"{model} on {config}/{sp} (LIT, Table 3; percentages)"))
        typer.echo(f"  forward passes: {clf.n_forward}; distinct pairs scored: {clf.queries}")
        overall = scores["all"]
        rec = make_record(model_id=model, revision=clf.revision, config=config, split=sp,
                          corpus_sha256=meta["files"][sp]["sha256"],
                          metrics={"acc_ori": overall["acc_ori"], "acc_ctr": overall["acc_ctr"],
                                   "consistency": overall["consistency"]},
                          seed=int(meta.get("seed", 0)),
                          details={"per_transformation": {k: v for k, v in scores.items() if k != "all"},
                                   "consistency_excluded": overall["consistency_excluded"],
                                   "label_map": label_map, "backend": meta["provenance"].get("backend"),
                                   "lm": meta["provenance"].get("lm")})
        path = write_record(rec, output_dir, tag="lit")
        figs = plot_scores(scores, output_dir / f"{slug}__{config}__{sp}__lit",
                           title=f"{Path(model).name} on {config}/{sp}")
        typer.echo(f"  record: {path}")
        typer.echo(f"  figure: {', '.join(str(p) for p in figs)}")


def _attack(model, config, search, budget, split, limit, label_map, agree_with, curve, device, dtype, seed, repo,
            output_dir):
    import datasets

    from robust_bench.attack_runner import budget_curve, load_examples, plot_budget_curve, run_attack
    from robust_bench.classifiers import HFClassifier
    from robust_bench.grammar_errors import render
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.repository import write_derived_config

    rows, split, meta = load_examples(repo, config, split, limit)
    if config == "gec_conll2003":
        return _attack_ner(model, rows, split, meta, search, budget, label_map, curve, device, seed, repo, output_dir)
    labels = rows.features["label"].names
    clf = HFClassifier(model, labels, label_map=label_map, device=device, dtype=dtype)
    others = [HFClassifier(m, labels, label_map=label_map, device=device, dtype=dtype) for m in agree_with]
    run = run_attack(clf, rows, config, search=search, budget_rate=budget, seed=seed, agree_with=others)
    s = run["summary"]
    typer.echo(f"{model} on {config}/{split}, {search} search, budget {budget:.0%} of the {run['segment']}:")
    typer.echo(f"  clean accuracy            {s['clean_accuracy']:.4f} ({s['examples']} examples)")
    typer.echo(f"  attacked (correct{' for all models' if others else ''})  {s['attacked']}")
    typer.echo(f"  attack success rate       {s['attack_success_rate']:.4f}   (lower is more robust)")
    typer.echo(f"  modified share (success)  {s['modified_share_mean']:.4f}")
    typer.echo(f"  queries per example       mean {s['queries_mean']:.1f}, median {s['queries_median']:.1f}")
    typer.echo("  error types in successful attacks: " + ", ".join(f"{k} {v}" for k, v in s["error_types_in_successes"].items()))
    slug = _model_slug(model)
    adv_name = f"adv_{slug}_{config}_{search}"
    fields, segment = run["fields"], run["segment"]
    sub = run["rows"]
    adv_rows = []
    for row, ex in zip(sub, run["examples"]):
        r = ex.result
        adv_rows.append({**{f: row[f] for f in fields}, "idx": int(row["idx"]), "label": int(row["label"]),
                         f"adversarial_{segment}": render(r.words, r.spaces),
                         "edits": r.edits, "success": r.success, "prediction": r.prediction, "queries": r.queries,
                         "n_modified": r.modified, "budget": r.budget, "p_original": r.p_original, "p_final": r.p_final})
    feats = datasets.Features({**{f: datasets.Value("string") for f in fields}, "idx": datasets.Value("int32"),
                               "label": rows.features["label"], f"adversarial_{segment}": datasets.Value("string"),
                               "edits": rows.features["edits"], "success": datasets.Value("bool"),
                               "prediction": rows.features["label"], "queries": datasets.Value("int32"),
                               "n_modified": datasets.Value("int32"), "budget": datasets.Value("int32"),
                               "p_original": datasets.Value("float32"), "p_final": datasets.Value("float32")})
    adv = datasets.DatasetDict({split: datasets.Dataset.from_list(adv_rows, features=feats)})
    write_derived_config(repo, adv_name, adv, family="grammatical_errors_adversarial",
                         description=f"Adversarial examples found by the {search} grammatical-error attack of Yin et al. "
                                     f"(2020) against {model} on {config}/{split} (budget {budget:.0%}); reusable as a "
                                     "transfer set. Rows with success=False kept the model's prediction.",
                         citation=meta["citation"], license=meta["license"], source=meta["source"], seed=seed,
                         statistics={split: s}, provenance={"model": model, "model_revision": clf.revision,
                                                            "source_config": config,
                                                            "source_sha256": meta["files"][split]["sha256"]})
    typer.echo(f"  adversarial examples: config {adv_name!r} in {repo}")
    details = {k: v for k, v in s.items() if k != "attack_success_rate"}
    details.update({"agree_with": agree_with, "adversarial_config": adv_name})
    rec = make_record(model_id=model, revision=clf.revision, config=config, split=split,
                      corpus_sha256=meta["files"][split]["sha256"],
                      metrics={"attack_success_rate": s["attack_success_rate"], "clean_accuracy": s["clean_accuracy"]},
                      seed=seed, details=details)
    path = write_record(rec, output_dir, tag=f"attack-{search}")
    typer.echo(f"  record: {path}")
    if curve:
        c = budget_curve(clf, run["targets"], search=search, seed=seed)
        typer.echo("  success vs budget: " + ", ".join(f"{int(b * 100)}% {v:.3f}" for b, v in c.items()))
        paths = plot_budget_curve({f"{Path(model).name} ({search})": c}, output_dir / f"{slug}__{config}__{search}__budget",
                                  title=f"Attack success rate vs budget, {config}/{split}")
        typer.echo(f"  figure: {', '.join(str(p) for p in paths)}")


def _attack_ner(model, rows, split, meta, search, budget, label_map, curve, device, seed, repo, output_dir):
    import datasets

    from robust_bench.attack_runner import budget_curve, plot_budget_curve, run_ner_attack
    from robust_bench.classifiers import HFTokenClassifier
    from robust_bench.grammar_errors import realign_tags
    from robust_bench.leaderboard.records import make_record, write_record
    from robust_bench.repository import write_derived_config

    names = rows.features["ner_tags"].feature.names
    tagger = HFTokenClassifier(model, names, label_map=label_map, device=device)
    run = run_ner_attack(tagger, rows, search=search, budget_rate=budget, seed=seed)
    s = run["summary"]
    typer.echo(f"{model} on gec_conll2003/{split}, {search} search, budget {budget:.0%} of the non-entity tokens:")
    typer.echo(f"  entity F1 clean {s['f1_clean']:.4f} -> adversarial {s['f1_adversarial']:.4f} "
               f"(drop {100 * s['f1_drop']:.1f} points)")
    typer.echo(f"  attacked sentences (entities all correct)  {s['attacked']}")
    typer.echo(f"  attack success rate       {s['attack_success_rate']:.4f}   (lower is more robust)")
    typer.echo(f"  queries per sentence      mean {s['queries_mean']:.1f}, median {s['queries_median']:.1f}")
    slug = _model_slug(model)
    adv_name = f"adv_{slug}_gec_conll2003_{search}"
    tag = rows.features["ner_tags"]
    adv_rows = []
    for row, ex in zip(run["rows"], run["examples"]):
        r = ex.result
        adv_rows.append({"idx": int(row["idx"]), "tokens": row["tokens"], "ner_tags": row["ner_tags"],
                         "adversarial_tokens": r.words,
                         "adversarial_ner_tags": realign_tags(row["ner_tags"], r.edits, fill=0), "edits": r.edits,
                         "success": r.success, "queries": r.queries, "n_modified": r.modified, "budget": r.budget})
    feats = datasets.Features({"idx": datasets.Value("int32"), "tokens": rows.features["tokens"], "ner_tags": tag,
                               "adversarial_tokens": rows.features["tokens"], "adversarial_ner_tags": tag,
                               "edits": rows.features["edits"], "success": datasets.Value("bool"),
                               "queries": datasets.Value("int32"), "n_modified": datasets.Value("int32"),
                               "budget": datasets.Value("int32")})
    write_derived_config(repo, adv_name, datasets.DatasetDict({split: datasets.Dataset.from_list(adv_rows, features=feats)}),
                         family="grammatical_errors_adversarial",
                         description=f"Adversarial CoNLL-2003 sentences found by the {search} grammatical-error attack of "
                                     f"Yin et al. (2020) against the tagger {model} (budget {budget:.0%}).",
                         citation=meta["citation"], license=meta["license"], source=meta["source"], seed=seed,
                         statistics={split: s}, provenance={"model": model, "model_revision": tagger.revision,
                                                            "source_sha256": meta["files"][split]["sha256"]})
    details = {k: v for k, v in s.items() if k not in ("attack_success_rate",)}
    details["adversarial_config"] = adv_name
    rec = make_record(model_id=model, revision=tagger.revision, config="gec_conll2003", split=split,
                      corpus_sha256=meta["files"][split]["sha256"],
                      metrics={"attack_success_rate": s["attack_success_rate"], "f1_clean": s["f1_clean"],
                               "f1_adversarial": s["f1_adversarial"], "f1_drop": s["f1_drop"]}, seed=seed, details=details)
    typer.echo(f"  record: {write_record(rec, output_dir, tag=f'attack-{search}')}")
    if curve:
        c = budget_curve(run["objective"], run["targets"], search=search, seed=seed)
        paths = plot_budget_curve({f"{Path(model).name} ({search})": c}, output_dir / f"{slug}__gec_conll2003__{search}__budget",
                                  title=f"Attack success rate vs budget, gec_conll2003/{split}")
        typer.echo(f"  figure: {', '.join(str(p) for p in paths)}")


def _parse_layers(text: Optional[str]) -> Optional[tuple[int, ...]]:
    if not text:
        return None
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise typer.BadParameter(f"--layers takes comma-separated integers, got {text!r}") from None


@app.command()
def probe(
    model: str = typer.Option(..., "--model", help="AutoModel id or local path (BERT, RoBERTa, ELECTRA, GPT-2, ...)."),
    config: str = typer.Option("jabberwocky_ewt", "--config", help="A Jabberwocky config."),
    probe_kind: str = typer.Option("both", "--probe", help="structural, perceptron or both."),
    layers: Optional[str] = typer.Option(None, "--layers", help="Comma-separated layers; default 0 and every fourth."),
    trials: int = typer.Option(10, "--trials", help="Random-search trials per probe and layer (App. B: 10)."),
    epochs: int = typer.Option(20, "--epochs", help="Maximum epochs (App. B: 20)."),
    batch_size: int = typer.Option(64, "--batch-size", help="Sentences per probe training step (App. B: 64)."),
    train_on: str = typer.Option("plain", "--train-on", help="plain (the paper) or jabberwocky (train and test on Jabberwocky)."),
    static_vectors: Optional[Path] = typer.Option(None, "--static-vectors",
                                                  help="word2vec/GloVe text file for the Fast+Pos baseline."),
    revision: Optional[str] = typer.Option(None, "--revision", help="Model revision on the Hub."),
    device: str = typer.Option("auto", "--device", help="auto, cpu, cuda, cuda:N or mps."),
    dtype: str = typer.Option("auto", "--dtype", help="auto (bf16/fp16 on GPU, fp32 on CPU), float32, bfloat16, float16."),
    pooling: str = typer.Option("first", "--pooling", help="first subword (the paper) or mean."),
    seed: int = typer.Option(0, "--seed"),
    max_sentences: Optional[int] = typer.Option(None, "--max-sentences", help="Use only the first N sentences per split (quick runs)."),
    repo: Path = typer.Option(Path(DEFAULT_REPO), "--repo", help="Dataset repository holding the config."),
    output_dir: Path = typer.Option(Path("results"), "--output-dir", help="Where records and figures go."),
) -> None:
    """Train structural and perceptron probes on a model and score them on plain and Jabberwocky EWT."""
    from robust_bench.encoders import EncoderError
    from robust_bench.probing import ProbeSettings, ProbingError

    kinds = ("structural", "perceptron") if probe_kind == "both" else (probe_kind,)
    settings = ProbeSettings(probes=kinds, layers=_parse_layers(layers), trials=trials, epochs=epochs,
                             batch_size=batch_size, seed=seed, train_on=train_on, max_sentences=max_sentences,
                             static_vectors=None if static_vectors is None else str(static_vectors))
    try:
        _probe(model, repo, config, settings, revision, device, dtype, pooling, output_dir)
    except (*_known_errors(), ProbingError, EncoderError) as exc:
        _fail(exc)


def _probe(model, repo, config, settings, revision, device, dtype, pooling, output_dir):
    import re

    from robust_bench.leaderboard.records import write_record
    from robust_bench.probe_report import lead_table, plot_probe_records, run_records
    from robust_bench.probing import run_probing

    run = run_probing(model, repo=repo, config=config, settings=settings, revision=revision, device=device,
                      dtype=dtype, pooling=pooling)
    typer.echo(lead_table(run))
    typer.echo("alignment drops (sentences): " + "; ".join(
        f"{k}: " + ", ".join(f"{r} {n}" for r, n in v.items()) for k, v in run["dropped"].items()))
    records = run_records(run)
    for rec, tag in records:
        write_record(rec, output_dir, tag=tag)
    typer.echo(f"encoder forward passes: {run['n_forward']} (0 means every representation came from the cache)")
    typer.echo(f"wrote {len(records)} result records to {output_dir}")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")
    for metric in ("uuas", "dspr"):
        try:
            paths = plot_probe_records([r for r, _ in records], output_dir / f"{stem}__{config}__{metric}")
        except ValueError:
            continue
        typer.echo(f"figure: {', '.join(str(p) for p in paths)}")


@app.command("probe-figure")
def probe_figure(
    records: list[Path] = typer.Argument(..., help="Result records of probe runs (one or more models)."),
    out: Path = typer.Option(Path("results/probes"), "--out", help="Output path without extension."),
    metric: str = typer.Option("uuas", "--metric", help="uuas or dspr."),
) -> None:
    """Plot several models' probe records side by side (Hall Maudslay & Cotterell, 2021, Fig. 3)."""
    import json

    from robust_bench.leaderboard.records import validate_record
    from robust_bench.probe_report import plot_probe_records

    loaded = []
    for path in records:
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
            validate_record(rec)
        except (OSError, ValueError) as exc:
            _fail(ValueError(f"{path}: {exc}"))
        loaded.append(rec)
    try:
        paths = plot_probe_records(loaded, out, metric=metric)
    except ValueError as exc:
        _fail(exc)
    typer.echo(f"figure: {', '.join(str(p) for p in paths)}")


def main() -> None:  # pragma: no cover - console entry point
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
