"""The set-up the perturbation engines depend on, as a suite declares it: the artifacts besides the model under
test that a task's scores depend on.

A task whose evaluation runs a pipeline besides the model under test gives other numbers under other pipelines
(a grammatical-error attack did, when it parsed and checked its candidate edits at run time; it now reads the
search space its data ships, :data:`robust_bench.attacks.gec.STORED_COLUMNS`, and needs none). A suite names
each such artifact once (``setup:`` in its YAML: a *role*, the artifact's name, version
and SHA-256, and where a user gets it) and each task lists the roles its run depends on. ``run`` checks the
environment against the declaration before any work (:func:`check_setup`) and records what it found in
``run.json``; ``submit``, ``check`` and ``verify`` refuse a run whose recorded set-up is not the suite's
(:func:`compare_setup`). ``run --setup any`` skips the check for exploration; such a run says so and is not ranked.

Roles and the environment variable that overrides each (the declared artifact is the default a user installs):

* ``spacy_pipeline``: ``$ROBUST_BENCH_SPACY_MODEL``, the pipeline that parses (:func:`robust_bench.text.nlp.spacy_model_name`);
* ``second_tagger``: ``$ROBUST_BENCH_ERRANT_MODEL``, the independent tagger of the validity checks
  (:func:`robust_bench.perturb.checks.load_second_tagger`);
* ``meaning_encoder``: ``$ROBUST_BENCH_SIMILARITY_MODEL``, the sentence encoder of the meaning check
  (:func:`robust_bench.perturb.checks.resolve_meaning_model`);
* ``grammar_checker``: CMU Link Grammar (its English dictionary, ``$LINK_GRAMMAR_DATA``), the parser attack's
  grammar filter (:func:`robust_bench.perturb.treebanks.link_grammar_checker`).

An artifact's SHA-256 is its content's, the same wherever it is installed: for a spaCy pipeline, the files of
its components, tokenizer and vocabulary and its ``config.cfg`` (not ``meta.json``, which packaging rewrites);
for an encoder, its weight files (``*.safetensors``, else ``pytorch_model.bin``); for Link Grammar, its
English dictionary's files and the library's version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Mapping

from robust_bench import RobustBenchError

__all__ = ["ROLES", "Role", "SetupError", "artifact_sha256", "describe_artifact", "check_setup", "compare_setup",
           "ANY"]

#: what ``run --setup any`` records instead of the artifacts it found
ANY = "any"


class SetupError(RobustBenchError, ValueError):
    """The environment's artifact for a role is not the one the suite declares, or cannot be found."""


@dataclass(frozen=True)
class Role:
    """A kind of artifact a task can depend on: ``kind`` (``spacy`` or ``encoder``), the environment variable
    that overrides it and the function that says which artifact the environment gives (a name or a path)."""

    kind: str
    env: str
    resolve: Callable[[], str]
    what: str


def _spacy_pipeline() -> str:
    from robust_bench.text.nlp import spacy_model_name

    return spacy_model_name()


def _second_tagger() -> str:
    from robust_bench.perturb.checks import second_tagger_name

    return second_tagger_name()


def _meaning_encoder() -> str:
    from robust_bench.perturb.checks import resolve_meaning_model

    return resolve_meaning_model()


def _grammar_checker() -> str:
    return "link-grammar"


def _link_grammar_folder() -> Path:
    """The English dictionary of the installed CMU Link Grammar (its data folder, Debian's
    ``/usr/share/link-grammar`` unless ``LINK_GRAMMAR_DATA`` says otherwise)."""
    import os

    try:
        import linkgrammar  # noqa: F401 - the bindings must be importable where the filter runs
    except ImportError:
        raise SetupError("CMU Link Grammar's Python bindings are not installed (Debian: apt-get install "
                         "link-grammar python3-link-grammar, then `make grammar` links them into the virtualenv)") from None
    folder = Path(os.environ.get("LINK_GRAMMAR_DATA", "/usr/share/link-grammar")) / "en"
    if not (folder / "4.0.dict").is_file():
        raise SetupError(f"CMU Link Grammar's English dictionary is not in {folder} (set LINK_GRAMMAR_DATA)")
    return folder


ROLES: dict[str, Role] = {
    "spacy_pipeline": Role("spacy", "ROBUST_BENCH_SPACY_MODEL", _spacy_pipeline, "the spaCy pipeline that parses"),
    "second_tagger": Role("spacy", "ROBUST_BENCH_ERRANT_MODEL", _second_tagger, "the second, independent tagger"),
    "meaning_encoder": Role("encoder", "ROBUST_BENCH_SIMILARITY_MODEL", _meaning_encoder,
                            "the sentence encoder of the meaning check"),
    "grammar_checker": Role("linkgrammar", "LINK_GRAMMAR_DATA", _grammar_checker,
                            "CMU Link Grammar, the grammar checker of the parser attack's grammar filter"),
}


def _spacy_folder(name: str) -> Path:
    """The data folder of a spaCy pipeline given as a path or an installed package's name."""
    import json

    path = Path(name).expanduser()
    if (path / "config.cfg").is_file():
        return path
    import spacy.util

    if spacy.util.is_package(name):
        root = spacy.util.get_package_path(name)
        try:
            meta = json.loads((root / "meta.json").read_text(encoding="utf-8"))
            folder = root / f"{meta['lang']}_{meta['name']}-{meta['version']}"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SetupError(f"spaCy package {name!r}: no readable meta.json ({exc})") from None
        if (folder / "config.cfg").is_file():
            return folder
    raise SetupError(f"spaCy pipeline {name!r} is neither a pipeline folder nor an installed package")


def _encoder_folder(name: str) -> Path:
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    from huggingface_hub import snapshot_download

    try:        # only the weights are fingerprinted
        return Path(snapshot_download(name, allow_patterns=["*.safetensors"]))
    except Exception as exc:  # noqa: BLE001 - offline, unknown repository: one line naming it
        raise SetupError(f"encoder {name!r} is neither a folder nor reachable on the Hub ({type(exc).__name__})") from None


@lru_cache(maxsize=16)
def _sha256(kind: str, folder: Path, label: str) -> tuple[str, dict]:
    """Content hash of an artifact folder (cached per process: an artifact is not rewritten while a run uses it)."""
    import json

    try:
        if kind == "spacy":
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8")) if (folder / "meta.json").is_file() else {}
            parts = {"config.cfg", "tokenizer", "vocab", *meta.get("components", meta.get("pipeline", []))}
            files = sorted(p for part in parts for p in ([folder / part] if (folder / part).is_file()
                                                       else (folder / part).rglob("*")) if p.is_file())
            info = {"name": f"{meta.get('lang', '?')}_{meta.get('name', '?')}", "version": meta.get("version")}
        elif kind == "linkgrammar":     # the English dictionary's files, and the library's version
            import linkgrammar

            files = sorted(p for p in folder.rglob("*") if p.is_file())
            info = {"name": label, "version": str(getattr(linkgrammar, "__version__", None))}
        else:
            files = sorted(folder.glob("*.safetensors")) or sorted(folder.glob("pytorch_model.bin"))
            info = {"name": label, "version": None}
        if not files:
            raise SetupError(f"{folder}: no {'pipeline' if kind == 'spacy' else 'weight'} files to fingerprint")
        h = hashlib.sha256()
        if kind == "linkgrammar":
            h.update(f"version {info['version']}\0".encode("utf-8"))
        for p in files:
            h.update(p.relative_to(folder).as_posix().encode("utf-8") + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    except (OSError, ValueError) as exc:
        if isinstance(exc, SetupError):
            raise
        raise SetupError(f"{folder}: cannot be read to fingerprint it ({exc})") from None
    return h.hexdigest(), info


def artifact_sha256(kind: str, name: str) -> str:
    """The content SHA-256 of a spaCy pipeline (``kind="spacy"``: a folder or an installed package) or an
    encoder (``kind="encoder"``: a folder or a Hub id, resolved through the Hub cache), as the module
    docstring defines it; 64 hex digits.

    Raises
    ------
    SetupError
        If the artifact cannot be found or has no files to fingerprint.
    """
    return _fingerprint(kind, name)[0]


def _fingerprint(kind: str, name: str) -> tuple[str, dict]:
    if kind == "linkgrammar":
        return _sha256(kind, _link_grammar_folder().resolve(), name)
    folder = _spacy_folder(name) if kind == "spacy" else _encoder_folder(name)
    return _sha256(kind, folder.resolve(), Path(name).name if Path(name).is_dir() else name)


def describe_artifact(role: str) -> dict:
    """What the environment gives for ``role``: ``{"name", "version", "sha256", "source"}`` (``source``: the
    name or path it was found by; not compared).

    Raises
    ------
    SetupError
        For an unknown role or an artifact that cannot be found.
    """
    if role not in ROLES:
        raise SetupError(f"unknown set-up role {role!r}; roles: {', '.join(ROLES)}")
    r = ROLES[role]
    source = r.resolve()
    sha, info = _fingerprint(r.kind, source)
    return {**info, "sha256": sha, "source": source}


def check_setup(declared: Mapping[str, Mapping], roles: Iterable[str]) -> dict[str, dict]:
    """Compare the environment with a suite's declaration for ``roles``; what was found, by role.

    Parameters
    ----------
    declared : mapping
        The suite's ``setup``: role -> ``{"name", "version", "sha256", "get"}``.
    roles : iterable of str
        The roles the tasks to run depend on.

    Raises
    ------
    SetupError
        At the first role whose artifact differs or cannot be found, in one line: the role, what the
        environment has, what the suite declares and how to get it (or ``--setup any`` to explore).
    """
    found = {}
    for role in sorted(set(roles)):
        want = declared[role]
        try:
            have = describe_artifact(role)
        except SetupError as exc:
            raise SetupError(f"{role} ({ROLES[role].what}): {exc}; the suite declares {want['name']} "
                             f"{want.get('version') or ''} ({want.get('get', '')})".replace("  ", " ")) from None
        if have["sha256"] != want["sha256"]:
            raise SetupError(f"{role} ({ROLES[role].what}) is {have['source']} ({have['name']} {have['version']}, "
                             f"sha256 {have['sha256'][:12]}…), not the suite's {want['name']} {want.get('version')} "
                             f"(sha256 {want['sha256'][:12]}…): {want.get('get', 'install it')}, or unset "
                             f"{ROLES[role].env}; --setup any runs anyway, unranked")
        found[role] = {k: have[k] for k in ("name", "version", "sha256")}
    return found


def compare_setup(recorded, declared: Mapping[str, Mapping], roles: Iterable[str]) -> str | None:
    """Why a run's recorded set-up is not the suite's, or None when it is.

    Parameters
    ----------
    recorded : dict, "any" or None
        ``run.json``'s ``setup``: role -> ``{"name", "version", "sha256"}``, ``"any"`` (``run --setup any``) or
        absent.
    declared : mapping
        The suite's ``setup``.
    roles : iterable of str
        The roles of the tasks the run scored; with none, any recorded set-up is accepted.

    Returns
    -------
    str or None
        One line naming the first role that differs (``setup.<role>: ...``), for the caller's error.
    """
    roles = sorted(set(roles))
    if not roles:
        return None
    if recorded == ANY:
        return "the run was made with --setup any (its pipelines were not checked against the suite's)"
    if not isinstance(recorded, dict):
        return "the run records no set-up (made before the suite declared one, or by hand)"
    for role in roles:
        have = recorded.get(role)
        if not isinstance(have, dict) or have.get("sha256") != declared[role]["sha256"]:
            got = have.get("name") if isinstance(have, dict) else None
            return (f"setup.{role}: {got or 'missing'} is not the suite's {declared[role]['name']} "
                    f"{declared[role].get('version')}")
    return None
