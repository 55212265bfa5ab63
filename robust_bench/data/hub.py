"""Publishing the dataset repository on the Hugging Face Hub.

The local repository (``robust-bench build``) already has the Hub layout: a README card whose YAML
``configs:`` list serves ``load_dataset``, and ``data/<config>/<split>.parquet`` with each config's
``metadata.json``. :func:`push_repository` checks that the folder is complete and current (every
file's SHA-256 equal to its metadata, the card rendered from the metadata) and uploads it with
``huggingface_hub.HfApi.upload_folder``, optionally as a pull request.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from robust_bench.data.card import AUDIT_HISTORY, DETAILS, config_files, render_card
from robust_bench.data.repository import METADATA, read_metadata
from robust_bench.io.fileio import atomic_write_text
from robust_bench.io.sources import sha256_file
from robust_bench import RobustBenchError

__all__ = ["PushError", "repository_files", "push_repository", "UPLOAD_PATTERNS"]

#: what goes to the Hub; locks, journals and staging folders stay local
UPLOAD_PATTERNS = ["README.md", "eval.yaml", "data/*/*.parquet", f"data/*/{METADATA}", f"data/*/{DETAILS}",
                   f"data/*/{AUDIT_HISTORY}", "data/*/audits/*"]


class PushError(RobustBenchError, ValueError):
    """The repository is not ready to publish; the message names the file."""



def repository_files(repo: str | os.PathLike) -> list[str]:
    """The files of ``repo`` to publish, relative to it, after checking them.

    Raises
    ------
    PushError
        No config built, a data file missing or differing from its metadata's SHA-256, or a
        README that is not the card of the current metadata (run ``robust-bench build`` again).
    """
    repo = Path(repo)
    metas = read_metadata(repo)
    if not metas:
        raise PushError(f"{repo} holds no built config; run `robust-bench build CONFIG --out {repo}` first")
    files = ["README.md"]
    for name, meta in metas.items():
        for split, f in meta["files"].items():
            path = repo / f["path"]
            if not path.is_file():
                raise PushError(f"{path}: missing (config {name}, split {split})")
            if sha256_file(path) != f["sha256"]:
                raise PushError(f"{path}: its SHA-256 differs from data/{name}/{METADATA}; rebuild {name}")
            files.append(f["path"])
        files.append(f"data/{name}/{METADATA}")
        for rel, text in config_files(name, meta).items():        # the files the card links, as rendered now
            path = repo / "data" / name / rel
            if not path.is_file() or path.read_text("utf-8") != text:
                raise PushError(f"{path}: not the one the card links for the built config; `robust-bench build` "
                                "rewrites it")
            files.append(f"data/{name}/{rel}")
        audits = repo / "data" / name / "audits"
        files += [str(p.relative_to(repo)) for p in sorted(audits.glob("*.tsv")) if p.is_file() and not p.is_symlink()]
        files += [str(p.relative_to(repo)) for p in sorted((repo / "data" / name / "audits").glob("*")) if p.is_file()]
    card = repo / "README.md"
    if not card.is_file() or card.read_text("utf-8") != render_card(metas, repo):
        raise PushError(f"{card}: not the card of the built configs; `robust-bench build` rewrites it")
    return files


def push_repository(repo: str | os.PathLike, repo_id: str, *, create_pr: bool = False, api=None,
                    extra_files: Mapping[str, str] | None = None, commit_message: str | None = None) -> str:
    """Upload the dataset repository ``repo`` to the Hub dataset repository ``repo_id``.

    Parameters
    ----------
    repo : path-like
        The local dataset repository.
    repo_id : str
        ``ORG/NAME`` on the Hub; created (as a dataset repository) if absent, unless ``create_pr``.
    create_pr : bool
        Open a pull request instead of committing to ``main``.
    api : huggingface_hub.HfApi, optional
        Defaults to ``HfApi()`` (token from the environment or ``hf auth login``).
    extra_files : mapping of str to str, optional
        Further files for the repository root (name -> text), written into ``repo`` and published;
        only names in :data:`UPLOAD_PATTERNS` (``eval.yaml``).
    commit_message : str, optional

    Returns
    -------
    str
        The commit's or the pull request's URL.

    Raises
    ------
    PushError
        See :func:`repository_files`; or an invalid ``repo_id``.
    """
    from huggingface_hub import HfApi
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise PushError(f"--repo {repo_id!r}: {exc}") from None
    if "/" not in repo_id:
        raise PushError(f"--repo {repo_id!r}: give ORG/NAME")
    repo = Path(repo)
    files = repository_files(repo)
    unknown = sorted(set(extra_files or {}) - {"eval.yaml"})
    if unknown:
        raise PushError(f"extra files {unknown}: only eval.yaml is published beside the card")
    api = api if api is not None else HfApi()
    if not create_pr:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True)
    message = commit_message or f"robust-bench: {len(files) - 1} data files"
    for name, text in (extra_files or {}).items():
        atomic_write_text(repo / name, text)
    # exactly the files checked above (and eval.yaml): no temporary file or folder of an unbuilt config goes up
    info = api.upload_folder(repo_id=repo_id, repo_type="dataset", folder_path=str(repo),
                             allow_patterns=sorted(set(files) | set(extra_files or {})),
                             commit_message=message, create_pr=create_pr)
    return getattr(info, "pr_url", None) or getattr(info, "commit_url", None) or str(info)
