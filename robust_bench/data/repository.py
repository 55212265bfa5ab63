"""The dataset repository: Parquet files per config and split, plus a README card.

Layout (a folder that ``datasets.load_dataset(folder, config)`` reads, locally or as a Hub
dataset repository)::

    DIR/README.md                       the Hub dataset card (:mod:`robust_bench.data.card`): YAML
                                        ``configs:`` for every config built so far, a section per config
    DIR/data/<config>/<split>.parquet
    DIR/data/<config>/metadata.json     what the card says about <config>, and everything else
    DIR/data/<config>/details.md        its statistics, coverage and provenance, linked from the card
    DIR/data/<config>/audits.md         every judged audit of every build, linked from the card
    DIR/data/<config>/audits/           the judged audit TSVs

Writes are atomic and crash-safe:

* one writer at a time: a build or a derived-config write holds the lock file ``.DIR.lock`` beside
  ``DIR`` for its whole run (``filelock``; released by the OS when a process dies). A second writer
  stops at once with :class:`RepositoryBusyError`;
* everything is written to a staging folder ``.DIR-staging-*`` beside ``DIR``; a failed or
  interrupted build leaves the previous repository as it was, and a repository that did not exist
  is not created;
* the commit is journalled: a journal ``.DIR.journal.json`` beside ``DIR`` is written (and synced)
  before the first rename, and the commit is rolled forward from it. A process killed at any point
  of the commit (``kill -9``) leaves the journal, and the next command that opens the repository
  (:func:`recover`, run by every write and by :func:`read_metadata` when no writer is alive) rolls it
  forward: the old config moves aside, the staged one moves in, the card is rewritten from the
  metadata on disk, the old copy and the journal are removed. Stale staging folders and backups
  of interrupted runs are removed at the same time.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import uuid
from contextlib import contextmanager
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


from robust_bench import __version__
from robust_bench.io.fileio import atomic_write_text
from robust_bench.data.card import CARD_MARKER, config_files, render_card
from robust_bench.data.registry import get_config
from robust_bench.io.sources import sha256_file
from robust_bench import RobustBenchError

__all__ = ["DEFAULT_REPO", "BuildReport", "build_config", "write_derived_config", "read_metadata", "render_card",
           "write_card", "RepositoryBusyError", "repository_lock", "recover", "update_metadata", "built_config",
           "NotBuiltError"]

#: Default repository folder, so that ``load_dataset("robust-bench", CONFIG)`` works from the working directory.
DEFAULT_REPO = "robust-bench"
METADATA = "metadata.json"


@dataclass(frozen=True)
class BuildReport:
    """What a build produced."""

    config: str
    repo: Path
    files: dict[str, Path]
    metadata: dict[str, Any]
    seconds: float


class ForeignReadmeError(RobustBenchError, ValueError):
    """The output folder holds a README.md that is not a robust-bench dataset card."""


def check_card_replaceable(repo: str | os.PathLike) -> None:
    """Refuse to write into a folder whose README.md is not a robust-bench card.

    Raises
    ------
    ForeignReadmeError
        If ``repo/README.md`` exists and lacks :data:`CARD_MARKER` (a project's own README, a
        different dataset's card): building there would replace it.
    """
    card = Path(repo) / "README.md"
    if card.is_file():
        try:
            text = card.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if CARD_MARKER not in text:
            raise ForeignReadmeError(f"{card} is not a robust-bench dataset card (it lacks the line "
                                     f"{CARD_MARKER!r}); refusing to replace it: give --out a folder of its own")


def _versions() -> dict[str, str]:
    import datasets
    import pyarrow

    return {"robust_bench": __version__, "datasets": datasets.__version__, "pyarrow": pyarrow.__version__,
            "python": platform.python_version()}


def build_config(config: str, *, out: str | os.PathLike = DEFAULT_REPO, source: str | os.PathLike | None = None,
                 seed: int = 0, num_proc: int | None = None, options: dict[str, Any] | None = None) -> BuildReport:
    """Materialise ``config`` into the dataset repository ``out``.

    Parameters
    ----------
    config : str
        A registered config name (see ``robust-bench list``).
    out : path-like
        Repository folder; created if needed.
    source : path-like, optional
        Local mirror of the source corpora (laid out like ``../shared/data``).
    seed : int
        Base seed; the same seed gives byte-identical Parquet files.
    num_proc : int, optional
        Worker processes for example generation.
    options : dict, optional
        Extra config settings of the builder (for example ``error_rate``, ``confusions``,
        ``spacy_model`` for the grammatical-error configs).

    Returns
    -------
    BuildReport

    Raises
    ------
    UnknownConfigError
        If no builder owns ``config``.
    ConlluError, SourceNotFoundError, PseudowordError
        From the builder; the repository is left untouched.
    ValueError
        If ``options`` names a setting the config does not have.
    """
    start = time.perf_counter()
    entry = get_config(config)
    options = {k: v for k, v in (options or {}).items() if v is not None}
    cfg_fields = set(entry.builder.BUILDER_CONFIG_CLASS.__dataclass_fields__)
    unknown = sorted(set(options) - cfg_fields)
    if unknown:
        raise ValueError(f"{config!r} has no setting {', '.join(unknown)}")
    if "splits" in options:
        options["splits"] = tuple(options["splits"])
        bad = [s for s in options["splits"] if s not in entry.splits]
        if bad or not options["splits"]:
            raise ValueError(f"{config!r} has no split(s) {bad}; its splits are {list(entry.splits)}")
    out = Path(out).resolve()
    check_card_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with repository_lock(out):
        return _build_locked(entry, config, out, source, seed, num_proc, options, start)


def _build_locked(entry, config, out, source, seed, num_proc, options, start) -> BuildReport:
    import datasets

    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-staging-", dir=out.parent))
    try:
        builder = entry.builder(config_name=config, cache_dir=str(staging / "cache"), seed=seed,
                                source_dir=None if source is None else str(source), **options)
        try:
            builder.download_and_prepare(num_proc=num_proc)
        except datasets.exceptions.DatasetGenerationError as exc:
            # datasets wraps whatever the generator raised ("An error occurred while generating the
            # dataset"); the user needs the cause (a missing spaCy model, a malformed source line)
            if exc.__cause__ is not None:
                raise exc.__cause__ from None
            raise
        dataset = builder.as_dataset()
        stage_cfg = staging / "data" / config
        stage_cfg.mkdir(parents=True)
        files = {}
        splits = builder.output_splits()
        for split in splits:
            path = stage_cfg / f"{split}.parquet"
            dataset[split].to_parquet(str(path))
            files[split] = path
        stats = builder.statistics(dataset)
        metadata = {
            "config": config,
            "family": entry.family,
            "builder": f"{entry.builder.__module__}.{entry.builder.__name__}",
            "builder_version": str(builder.config.version or entry.builder.VERSION),
            "seed": seed,
            "options": {k: str(v) for k, v in options.items()},
            "splits": list(splits),
            "description": entry.builder.DESCRIPTION.strip(),
            "citation": entry.builder.CITATION.strip(),
            "license": entry.builder.LICENSE,
            "source": {"name": builder.source_info.name, "version": builder.source_info.version,
                       "license": builder.source_info.license, "url": builder.source_info.url},
            "provenance": builder.provenance,
            "files": {split: {"path": f"data/{config}/{split}.parquet", "sha256": sha256_file(p),
                              "bytes": p.stat().st_size, "rows": len(dataset[split])}
                      for split, p in files.items()},
            "statistics": stats,
            "coverage_notes": builder.coverage_notes(stats),
            # refusals by reason as the family counts them, summed over the splits: the card reads them from here
            "refusals": type(builder).card_refusals(
                {k: v for k, v in stats.items() if not k.startswith("_") and isinstance(v, dict)}),
            "versions": _versions(),
        }
        del dataset, builder
        shutil.rmtree(staging / "cache", ignore_errors=True)
        _carry_audits(out / "data" / config, stage_cfg, metadata)
        (stage_cfg / METADATA).write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
        _commit(out, config, stage_cfg)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    final = {split: out / "data" / config / f"{split}.parquet" for split in splits}
    return BuildReport(config=config, repo=out, files=final, metadata=metadata,
                       seconds=time.perf_counter() - start)


#: Blind audits that robust-bench's maintainers recorded on their own builds (counts, interval,
#: seed, dates, builder version, data hashes and the judged TSV's SHA-256; the TSV holds corpus text,
#: so it stays in the dataset repository it was recorded in). A build whose data hashes match an
#: entry shows it on its card as current; any other build shows it as stale.
SHIPPED_AUDITS = Path(__file__).with_name("audits.json")


def _carry_audits(old: Path, stage: Path, metadata: dict) -> None:
    """Keep the judged audits of the build being replaced, with their TSVs, and add the shipped ones
    of this config: the card marks those of another builder version or other data as stale instead
    of losing them."""
    audits = []
    old_meta = old / METADATA
    if old_meta.is_file():
        try:
            audits = json.loads(old_meta.read_text(encoding="utf-8")).get("audits") or []
        except ValueError:
            audits = []
        if audits and (old / "audits").is_dir():
            shutil.copytree(old / "audits", stage / "audits", dirs_exist_ok=True)
    if SHIPPED_AUDITS.is_file():
        have = {(a.get("seed"), a.get("sha256")) for a in audits}
        for a in json.loads(SHIPPED_AUDITS.read_text(encoding="utf-8")).get(metadata["config"], []):
            if (a.get("seed"), a.get("sha256")) not in have:
                audits.append({**a, "shipped": True})
    if audits:
        metadata["audits"] = audits


def update_metadata(repo: str | os.PathLike, config: str, change) -> dict:
    """Change one config's metadata in place (for example to record a judged audit) and rewrite the
    card, under the writer's lock; the metadata file is replaced atomically.

    Parameters
    ----------
    repo : path-like
    config : str
    change : callable
        ``change(metadata, folder) -> metadata``; ``folder`` is ``repo/data/<config>``, where it may
        add files of its own.

    Raises
    ------
    KeyError
        If ``repo`` holds no ``config``.
    """
    repo = Path(repo).resolve()
    with repository_lock(repo):
        folder = repo / "data" / config
        if not (folder / METADATA).is_file():
            raise KeyError(f"{repo} holds no {config!r}")
        meta = json.loads((folder / METADATA).read_text(encoding="utf-8"))
        meta = change(meta, folder)
        atomic_write_text(folder / METADATA, json.dumps(meta, indent=2) + "\n")
        write_card(repo)
    return meta


def write_derived_config(out: str | os.PathLike, config: str, dataset, *, family: str, description: str,
                         citation: str, license: str, source: dict, seed: int, statistics: dict,
                         provenance: dict, coverage_notes: str = "") -> dict:
    """Write a dataset that is not made by a registered builder (for example the adversarial
    examples of an attack) into the repository, with the same card, hashes and atomicity.

    Parameters
    ----------
    out : path-like
        Repository folder.
    config : str
        Config name; an existing config of that name is replaced.
    dataset : datasets.DatasetDict
        Splits to write.
    family, description, citation, license, source, seed, statistics, provenance, coverage_notes
        What the card says about it; ``source`` has ``name``, ``version``, ``license`` and ``url``.

    Returns
    -------
    dict
        The config's metadata.
    """
    out = Path(out).resolve()
    check_card_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with repository_lock(out):
        return _write_derived_locked(out, config, dataset, family=family, description=description,
                                     citation=citation, license=license, source=source, seed=seed,
                                     statistics=statistics, provenance=provenance, coverage_notes=coverage_notes)


def _write_derived_locked(out, config, dataset, *, family, description, citation, license, source, seed, statistics,
                          provenance, coverage_notes) -> dict:
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-staging-", dir=out.parent))
    try:
        stage_cfg = staging / "data" / config
        stage_cfg.mkdir(parents=True)
        files = {}
        for split, ds in dataset.items():
            path = stage_cfg / f"{split}.parquet"
            ds.to_parquet(str(path))
            files[split] = {"path": f"data/{config}/{split}.parquet", "sha256": sha256_file(path),
                            "bytes": path.stat().st_size, "rows": len(ds)}
        metadata = {"config": config, "family": family, "builder": "derived", "builder_version": __version__,
                    "seed": seed, "options": {}, "splits": list(dataset), "description": description.strip(),
                    "citation": citation.strip(), "license": license, "source": source, "provenance": provenance,
                    "files": files, "statistics": statistics, "coverage_notes": coverage_notes,
                    "versions": _versions()}
        (stage_cfg / METADATA).write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
        _commit(out, config, stage_cfg)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return metadata


class RepositoryBusyError(RobustBenchError, RuntimeError):
    """Another robust-bench process is writing to the same dataset repository."""


_HELD: set[str] = set()   # repositories whose lock this process holds


def _lock_file(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def _journal_file(out: Path) -> Path:
    return out.parent / f".{out.name}.journal.json"


@contextmanager
def repository_lock(out: str | os.PathLike, *, wait: float = 0):
    """Hold the writer's lock of repository ``out`` and recover it (see :func:`recover`) first.

    Parameters
    ----------
    out : path-like
        Repository folder (need not exist yet).
    wait : float
        Seconds to wait for another writer; 0 stops at once.

    Raises
    ------
    RepositoryBusyError
        If another process holds the lock after ``wait`` seconds.
    """
    from filelock import FileLock, Timeout

    out = Path(out).resolve()
    key = str(out)
    if key in _HELD:            # re-entered by the same process
        yield out
        return
    lock = FileLock(str(_lock_file(out)), timeout=wait)
    try:
        lock.acquire()
    except Timeout:
        raise RepositoryBusyError(f"{out} is being written by another robust-bench command (lock file "
                                  f"{_lock_file(out)}); wait for it to finish, or write to another folder") from None
    _HELD.add(key)
    try:
        recover(out)
        yield out
    finally:
        _HELD.discard(key)
        lock.release()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_journal(out: Path, entry: dict) -> None:
    path = _journal_file(out)
    tmp = path.with_name(path.name + f".{uuid.uuid4().hex}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(entry, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _roll_forward(out: Path, entry: dict) -> None:
    """Finish a journalled commit; every step can be repeated after a crash."""
    staged, final, backup = Path(entry["staged"]), Path(entry["final"]), Path(entry["backup"])
    (out / "data").mkdir(parents=True, exist_ok=True)
    if staged.exists():
        if final.exists():
            if backup.exists():     # cannot happen in one run; keep the newer copy aside, not lost
                shutil.rmtree(final)
            else:
                os.rename(final, backup)
        os.rename(staged, final)
        _fsync_dir(final.parent)
    write_card(out)
    shutil.rmtree(backup, ignore_errors=True)
    _journal_file(out).unlink(missing_ok=True)


def recover(out: str | os.PathLike) -> list[str]:
    """Bring repository ``out`` to a consistent state after an interrupted write.

    Rolls a journalled commit forward, then removes stale staging folders beside ``out``, backups
    inside it and temporary journal files. Call it only while holding the lock (as
    :func:`repository_lock` does) or when no writer is alive.

    Returns
    -------
    list of str
        What was done, one line per action (empty for a clean repository).
    """
    out = Path(out).resolve()
    done = []
    journal = _journal_file(out)
    if journal.exists():
        try:
            entry = json.loads(journal.read_text(encoding="utf-8"))
        except ValueError:        # the journal itself was being written: the commit never began
            journal.unlink()
            done.append(f"removed an incomplete journal {journal}")
        else:
            _roll_forward(out, entry)
            done.append(f"rolled forward the interrupted commit of {entry['config']!r}")
    if out.parent.is_dir():
        for p in out.parent.glob(f".{out.name}-staging-*"):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed stale staging folder {p.name}")
        for p in out.parent.glob(f".{out.name}.journal.json.*.tmp"):
            p.unlink(missing_ok=True)
    if out.is_dir():
        for p in out.glob(".*-old-*"):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed stale backup {p.name}")
        cut = list(out.glob(".README.md.*.tmp")) + list(out.glob("data/*/.*.tmp"))
        for p in cut:      # a card (or linked file, or metadata) write that was cut short
            p.unlink(missing_ok=True)
        card = out / "README.md"
        if cut and card.is_file() and (out / "data").is_dir():
            # the metadata is the source of the card and its linked files: render them again from it
            _recover_card(out)
            done.append("rewrote the card from the metadata after an interrupted write")
    return done


def _recover_card(out: Path) -> None:
    metas = {}
    for cfg in sorted(p for p in (out / "data").iterdir() if (p / METADATA).is_file()):
        metas[cfg.name] = json.loads((cfg / METADATA).read_text(encoding="utf-8"))
    for name, m in metas.items():
        for rel, text in config_files(name, m).items():
            atomic_write_text(out / "data" / name / rel, text)
    atomic_write_text(out / "README.md", render_card(metas, out))


def _commit(out: Path, config: str, stage_cfg: Path) -> None:
    """Move a staged config into the repository and rewrite the card, through the journal."""
    entry = {"config": config, "staged": str(stage_cfg), "final": str(out / "data" / config),
             "backup": str(out / f".{config}-old-{uuid.uuid4().hex[:8]}")}
    _write_journal(out, entry)
    _roll_forward(out, entry)


def _recover_if_idle(repo: Path) -> None:
    """Recover ``repo`` when no process is writing it (used by readers)."""
    from filelock import FileLock, Timeout

    repo = Path(repo).resolve()
    if str(repo) in _HELD or not (_journal_file(repo).exists() or any(repo.parent.glob(f".{repo.name}-staging-*"))
                                  or any(repo.glob(".README.md.*.tmp"))):
        return
    lock = FileLock(str(_lock_file(repo)), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        return          # a live writer: its own commit will finish
    try:
        recover(repo)
    finally:
        lock.release()


class NotBuiltError(RobustBenchError, LookupError):
    """The dataset repository holds no build of the config, or of the split, asked for."""


def built_config(repo: str | os.PathLike, config: str, split: str | None = None) -> dict[str, Any]:
    """The metadata of ``config`` as built in ``repo``, for every reader of a built config (the
    suite runner, the evaluations, the audit, the attacks and the probes).

    Parameters
    ----------
    repo : path
        A dataset repository written by ``robust-bench build``.
    config : str
        A config name, for example ``lit_mnli``.
    split : str, optional
        A split that must be built too.

    Returns
    -------
    dict
        The config's ``metadata.json``.

    Raises
    ------
    NotBuiltError
        If ``repo`` holds no ``config`` (the message gives the build command), or the build has no
        ``split`` (the message lists the splits it has).
    """
    meta = read_metadata(repo).get(config)
    if meta is None:
        raise NotBuiltError(f"{repo} holds no {config!r}; run `robust-bench build {config} --out {repo}` first")
    if split is not None and split not in meta.get("files", {}):
        raise NotBuiltError(f"{repo} holds no split {split!r} of {config!r}; splits built: "
                            f"{', '.join(meta.get('files', {}))}")
    return meta


def read_metadata(repo: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """The metadata of every config materialised in ``repo``, by config name.

    An interrupted write is recovered first when no writer is alive (see :func:`recover`).
    """
    _recover_if_idle(Path(repo))
    data = Path(repo) / "data"
    out = {}
    if data.is_dir():
        for cfg in sorted(p for p in data.iterdir() if (p / METADATA).is_file()):
            out[cfg.name] = json.loads((cfg / METADATA).read_text(encoding="utf-8"))
    return out


def write_card(repo: str | os.PathLike) -> Path:
    """Rewrite ``repo/README.md`` (:func:`robust_bench.data.card.render_card`) and the files each config's
    section links (``data/<config>/details.md``, ``data/<config>/audits.md``) from the metadata of
    every config, each atomically."""
    repo = Path(repo)
    check_card_replaceable(repo)
    metas = read_metadata(repo)
    for name, m in metas.items():
        for rel, text in config_files(name, m).items():
            path = repo / "data" / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
    return atomic_write_text(repo / "README.md", render_card(metas, repo))
