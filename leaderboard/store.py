"""The results store: a local folder or a Hub dataset repository holding the leaderboard's submissions.

Layout (the same in both)::

    leaderboard.json                 {"format": 1, "name": ..., "suites": ["default-v1", ...]}
    suites/<name>-v<version>.yaml    the accepted suite versions, resolved, with their data hashes
    submissions/<org--name>/<suite>-v<version>/<revision>/<asked>/
        submission.json              model id, revision, how it was asked, time, tasks, excluded tasks,
                                     partial (a marked, unranked run), file hashes
        run.json  records/<task>.json  logs/<task>.jsonl

``<asked>`` is ``model`` for a model scored as it is, or an LLM's setup
(:func:`robust_bench.leaderboard.submission.asked_key`), so that the same weights asked two ways are
two rows of one model.

A local store commits a submission by renaming a complete staged folder into place, so a rejected
or interrupted submission leaves it unchanged. A Hub store receives each submission as a pull
request (``HfApi.upload_folder(..., create_pr=True)``) that its maintainers merge.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Iterator


from robust_bench.benchmarks import Suite, SuiteError, load_suite, suite_yaml
from robust_bench.io.fileio import atomic_write_text
from robust_bench.leaderboard.submission import (SUBMISSION_FILE, Submission, SubmissionError, rejected,
                                                  stage_submission, validate_submission)
from robust_bench.results.runs import LIMITS, read_json
from robust_bench import RobustBenchError

__all__ = ["StoreError", "LocalStore", "HubStore", "open_store", "init_store", "submit", "suite_yaml", "iter_entries",
           "read_entry", "find_entry"]

STORE_FILE = "leaderboard.json"
_HUB = re.compile(r"^(?:hf://datasets/)?([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)$")


class StoreError(RobustBenchError, ValueError):
    """No store where one was named, or a store that is not laid out as one."""


def _read_suites(folder: Path, names: list[str]) -> dict[tuple[str, int], Suite]:
    out = {}
    for name in names:
        if not re.fullmatch(r"[a-z][a-z0-9_]{0,63}-v[0-9]{1,6}", str(name)):
            raise StoreError(f"{STORE_FILE}: field 'suites': {name!r} is not NAME-vVERSION")
        try:
            s = load_suite(folder / f"{name}.yaml")
        except SuiteError as exc:
            raise StoreError(f"store suite {name}: {exc}") from None
        if f"{s.name}-v{s.version}" != name:
            raise StoreError(f"suites/{name}.yaml defines {s.name} v{s.version}")
        out[(s.name, s.version)] = s
    return out


def _store_info(path: Path) -> dict:
    try:
        info = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{path.parent} is not a leaderboard store (no {STORE_FILE}); create one with "
                         "`robust-bench leaderboard init`") from None
    except json.JSONDecodeError as exc:
        raise StoreError(f"{path}: not JSON ({exc.msg})") from None
    if not isinstance(info, dict) or info.get("format") != 1 or not isinstance(info.get("suites"), list):
        raise StoreError(f"{path}: expected {{'format': 1, 'suites': [...]}}")
    return info


#: A staging folder older than this belongs to a killed submit (a live one finishes in seconds).
_STALE_STAGING_S = 3600


class LocalStore:
    """A store in a local folder (see the module docstring for its layout).

    Raises
    ------
    StoreError
        If ``root`` holds no ``leaderboard.json``.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.info = _store_info(self.root / STORE_FILE)
        self._recover()

    def _recover(self) -> None:
        """Finish what a killed :meth:`put` left: a submission moved aside for ``--overwrite`` whose
        replacement never arrived is put back (the store keeps the whole old submission), one whose
        replacement did arrive is deleted; a staging folder of a killed submit is removed."""
        for trash in self.root.glob("**/.*.replaced-*"):
            target = trash.with_name(trash.name[1:].rsplit(".replaced-", 1)[0])
            if target.exists():
                shutil.rmtree(trash, ignore_errors=True)
            else:
                os.replace(trash, target)
        staging = self.root / ".staging"
        if staging.is_dir():
            for old in staging.iterdir():
                if time.time() - old.stat().st_mtime > _STALE_STAGING_S:
                    shutil.rmtree(old, ignore_errors=True)

    def __str__(self) -> str:
        return str(self.root)

    def suites(self) -> dict[tuple[str, int], Suite]:
        """The accepted suite versions."""
        return _read_suites(self.root / "suites", self.info["suites"])

    def has(self, entry: str) -> bool:
        """Whether a submission is stored at ``entry``."""
        return (self.root / entry).exists()

    def put(self, staged: Path, entry: str, *, overwrite: bool, message: str) -> str:
        """Move the complete folder ``staged`` to ``entry``, replacing an existing one only if ``overwrite``."""
        target = self.root / entry
        target.parent.mkdir(parents=True, exist_ok=True)
        trash = None
        if target.exists():
            if not overwrite:
                raise SubmissionError(str(self.root), "model.revision", f"{entry} is already stored")
            trash = target.with_name(f".{target.name}.replaced-{uuid.uuid4().hex[:8]}")
            os.replace(target, trash)
        os.replace(staged, target)
        if trash is not None:
            shutil.rmtree(trash)
        return str(target)

    def put_file(self, rel: str, text: str, *, message: str) -> str:
        """Write one file of the store (a verification) atomically; returns its path."""
        path = self.root / rel
        atomic_write_text(path, text)
        return str(path)

    def staging(self) -> Path:
        """A fresh folder on the store's file system, so that :meth:`put` is a rename."""
        (self.root / ".staging").mkdir(exist_ok=True)
        return Path(tempfile.mkdtemp(dir=self.root / ".staging"))

    def local_copy(self) -> Path:
        """The folder to build the site from: the store itself."""
        return self.root


class HubStore:
    """A store in a Hub dataset repository; submissions go in as pull requests.

    Parameters
    ----------
    repo_id : str
        ``ORG/NAME`` of the dataset repository.
    api : huggingface_hub.HfApi, optional
        Defaults to ``HfApi()`` (token from the environment or ``hf auth login``).
    revision : str
        Branch read for the accepted suites and the stored submissions.
    """

    def __init__(self, repo_id: str, *, api=None, revision: str = "main"):
        from huggingface_hub import HfApi

        self.repo_id, self.revision = repo_id, revision
        self.api = api if api is not None else HfApi()
        self._files: list[str] | None = None
        self.info = _store_info(Path(self._download(STORE_FILE)))

    def __str__(self) -> str:
        return f"hf://datasets/{self.repo_id}"

    def _download(self, name: str) -> str:
        return self.api.hf_hub_download(repo_id=self.repo_id, filename=name, repo_type="dataset", revision=self.revision)

    def files(self) -> list[str]:
        """Every file of the repository's branch (listed once)."""
        if self._files is None:
            self._files = list(self.api.list_repo_files(self.repo_id, repo_type="dataset", revision=self.revision))
        return self._files

    def suites(self) -> dict[tuple[str, int], Suite]:
        """The accepted suite versions, downloaded (into one snapshot folder of the Hub cache)."""
        paths = [Path(self._download(f"suites/{name}.yaml")) for name in self.info["suites"]]
        return _read_suites(paths[0].parent, list(self.info["suites"])) if paths else {}

    def has(self, entry: str) -> bool:
        """Whether the branch holds a submission at ``entry``."""
        return any(f.startswith(entry + "/") for f in self.files())

    def staging(self) -> Path:
        """A fresh local folder for the files of a pull request."""
        return Path(tempfile.mkdtemp())

    def put(self, staged: Path, entry: str, *, overwrite: bool, message: str) -> str:
        """Open a pull request adding ``staged`` at ``entry``; returns its URL."""
        if self.has(entry) and not overwrite:
            raise SubmissionError(str(self), "model.revision", f"{entry} is already stored")
        info = self.api.upload_folder(repo_id=self.repo_id, repo_type="dataset", folder_path=str(staged),
                                      path_in_repo=entry, commit_message=message, create_pr=True)
        shutil.rmtree(staged, ignore_errors=True)
        return getattr(info, "pr_url", None) or str(info)

    def put_file(self, rel: str, text: str, *, message: str) -> str:
        """Open a pull request adding one file (a verification); returns its URL."""
        info = self.api.upload_file(path_or_fileobj=text.encode("utf-8"), path_in_repo=rel, repo_id=self.repo_id,
                                    repo_type="dataset", commit_message=message, create_pr=True)
        return getattr(info, "pr_url", None) or str(info)

    def local_copy(self) -> Path:
        """The branch downloaded (``snapshot_download``), to build the site from."""
        return Path(self.api.snapshot_download(repo_id=self.repo_id, repo_type="dataset", revision=self.revision))


def open_store(spec: str | os.PathLike, *, api=None) -> LocalStore | HubStore:
    """A store from a local folder or ``[hf://datasets/]ORG/NAME``.

    An existing folder is a local store; otherwise a Hub dataset id names a Hub store.

    Raises
    ------
    StoreError
        If ``spec`` is neither.
    """
    path = Path(spec)
    if path.is_dir():
        return LocalStore(path)
    m = _HUB.fullmatch(str(spec))
    if m:
        return HubStore(m.group(1), api=api)
    raise StoreError(f"no store at {spec}: not a folder, not a Hub dataset id ORG/NAME; create a local store with "
                     "`robust-bench leaderboard init`")


def init_store(root: str | os.PathLike, suites: list[Suite], *, name: str = "robust-bench leaderboard") -> Path:
    """Create a local store accepting ``suites``, or add suite versions to an existing one.

    A suite version already accepted must be identical (same tasks and hashes).

    Raises
    ------
    StoreError
        If an accepted suite version would change.
    """
    root = Path(root)
    info = _store_info(root / STORE_FILE) if (root / STORE_FILE).exists() else {"format": 1, "name": name, "suites": []}
    for suite in suites:
        key = f"{suite.name}-v{suite.version}"
        path = root / "suites" / f"{key}.yaml"
        text = suite_yaml(suite)
        if path.exists() and path.read_text("utf-8") != text:
            raise StoreError(f"{path} already defines {suite.name} v{suite.version} differently; a changed suite "
                             "needs a new version")
        atomic_write_text(path, text)
        if key not in info["suites"]:
            info["suites"].append(key)
    (root / "submissions").mkdir(parents=True, exist_ok=True)
    atomic_write_text(root / STORE_FILE, json.dumps(info, indent=2) + "\n")
    return root


def submit(run_dir: str | os.PathLike, store: LocalStore | HubStore, *, model_id: str | None = None,
           revision: str | None = None, overwrite: bool = False, partial: bool = False) -> tuple[Submission, str]:
    """Validate a run folder and store it.

    Parameters
    ----------
    run_dir : path-like
        The run folder.
    store : LocalStore or HubStore
    model_id, revision : str, optional
        See :func:`validate_submission`.
    overwrite : bool
        Replace a stored submission of the same model, suite version, revision and way of asking.
    partial : bool
        Store a partial run (``--limit``) as a marked row that is not ranked, instead of refusing it.

    Returns
    -------
    (Submission, str)
        The submission and where it went (a folder, or the pull request's URL).

    Raises
    ------
    SubmissionError
        If it is rejected; the store is then unchanged.
    """
    sub = validate_submission(run_dir, store.suites(), model_id=model_id, revision=revision, partial=partial)
    if store.has(sub.entry) and not overwrite:
        asked = "" if sub.asked == "model" else f", asked as {sub.asked},"
        raise SubmissionError(str(store), "model.revision",
                              f"{sub.model_id} at revision {sub.revision}{asked} is already on the leaderboard for "
                              f"suite {sub.suite.name} v{sub.suite.version}; submit a new revision (--revision) or "
                              "pass --overwrite to replace it")
    staged = store.staging()
    try:
        stage_submission(sub, staged / "entry")
        where = store.put(staged / "entry", sub.entry, overwrite=overwrite,
                          message=f"Submit {sub.model_id}@{sub.revision} on {sub.suite.name} v{sub.suite.version}")
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return sub, where


def read_entry(info_path: str | os.PathLike, store_root: str | os.PathLike,
               suites: dict[tuple[str, int], Suite]) -> Submission:
    """The submission whose ``submission.json`` is ``info_path``, validated again as it was at
    submission time.

    Raises
    ------
    SubmissionError
        If its files no longer validate or it sits in the wrong folder.
    """
    info_path, root = Path(info_path), Path(store_root)
    where = str(info_path)
    with rejected():
        info = read_json(info_path, limit=LIMITS["submission.json"], where=where)
    if not isinstance(info, dict) or info.get("format") != 2:
        raise SubmissionError(where, "format", "expected 2 (a store of robust-bench 0.2 or later)")
    try:
        datetime.fromisoformat(str(info.get("submitted_at")))
    except ValueError:
        raise SubmissionError(where, "submitted_at", "not an ISO 8601 time") from None
    sub = validate_submission(info_path.parent, suites, model_id=info.get("model_id"),
                              revision=info.get("revision"), submitted_at=str(info.get("submitted_at", "")),
                              partial=bool(info.get("partial")))
    if root / sub.entry != info_path.parent:
        raise SubmissionError(where, "model_id", f"stored under {info_path.parent.relative_to(root)}, "
                                                 f"not {sub.entry}")
    return sub


def iter_entries(root: str | os.PathLike, suites: dict[tuple[str, int], Suite] | None = None) -> Iterator[Submission]:
    """Every submission stored under ``root``, validated again as it was at submission time.

    Raises
    ------
    SubmissionError
        For an entry whose files no longer validate or sit in the wrong folder.
    StoreError
        If ``root`` is not a store.
    """
    store = LocalStore(root)
    suites = suites if suites is not None else store.suites()
    for info_path in sorted((store.root / "submissions").glob(f"*/*/*/*/{SUBMISSION_FILE}")):
        if not any(part.startswith(".") for part in info_path.relative_to(store.root).parts):
            yield read_entry(info_path, store.root, suites)


def find_entry(root: str | os.PathLike, model_id: str, *, revision: str | None = None,
               suite: str | None = None, asked: str | None = None) -> Path:
    """The ``submission.json`` of the one stored submission of ``model_id`` (at ``revision``, of
    suite version ``suite`` = ``NAME-vVERSION``, asked as ``asked``, where given).

    Raises
    ------
    StoreError
        If none matches, or several do (listing them, so the caller can name one).
    """
    from robust_bench.leaderboard.submission import model_key

    base = Path(root) / "submissions" / model_key(model_id)
    found = [p for p in sorted(base.glob(f"{suite or '*'}/{revision or '*'}/{asked or '*'}/{SUBMISSION_FILE}"))
             if not any(x.name.startswith(".") for x in (p.parent, p.parent.parent))]
    if not found:
        raise StoreError(f"{root} holds no submission of {model_id}"
                         + (f" at revision {revision}" if revision else "") + (f" for suite {suite}" if suite else "")
                         + (f" asked as {asked}" if asked else ""))
    if len(found) > 1:
        listed = ", ".join(f"{p.parent.parent.parent.name}/{p.parent.parent.name}#{p.parent.name}" for p in found)
        raise StoreError(f"{root} holds {len(found)} submissions of {model_id} ({listed}); name one with "
                         "MODEL_ID@REVISION#ASKED and --suite NAME-vVERSION")
    return found[0]
