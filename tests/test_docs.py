"""The documentation (issue 55): a README a newcomer reads in ten minutes whose runnable commands run, a
site that builds with warnings as errors and opens in a real browser, and a metric card for every
declared metric.

* the README is at most 200 lines, and each fenced shell block marked ``<!-- runnable -->`` runs as
  written in a fresh clone beside ``../shared``;
* every ``robust-bench`` command line in the README's and the site's shell blocks names a command and
  options the command line has, so the docs cannot drift from ``--help``;
* every metric an evaluation declares has a meaning and a source written for the metric cards, and no
  meaning is written for a metric nobody declares;
* ``mkdocs build --strict`` (broken links, missing pages, unreadable API pages are errors) builds the site,
  and headless Chromium opens its home page and a family page and finds their titles and headings.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

pytestmark = pytest.mark.docs

README = ROOT / "README.md"
DOCS = ROOT / "docs"
RUNNABLE = "<!-- runnable -->"
#: fenced blocks: (the line before the fence, language, code)
FENCE = re.compile(r"(?:^|\n)([^\n]*)\n```(\w*)\n(.*?)\n```", re.S)
#: the language tags of shell blocks
SHELL = {"bash", "sh", "shell", "console"}


def _blocks(text: str) -> list[tuple[str, str, str]]:
    """Every fenced block of a Markdown text as (the line before it, language, code)."""
    return [(m.group(1).strip(), m.group(2), m.group(3)) for m in FENCE.finditer(text)]


def _hook():
    """docs/_hooks/metric_cards.py, the MkDocs hook that generates the metric cards."""
    spec = importlib.util.spec_from_file_location("metric_cards", DOCS / "_hooks" / "metric_cards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_at_most_200_lines():
    text = README.read_text(encoding="utf-8")
    assert text.count("\n") <= 200, f"README.md has {text.count(chr(10))} lines; move material into docs/"
    # what it must still say: the two commands, the five things a user does, and where the rest went
    for needed in ("make demo", "make test", "robust-bench run", "report.html", "robust-bench submit",
                   "robust-bench check", "load_dataset", "docs/getting-started.md", "docs/contributing.md"):
        assert needed in text, needed


def test_the_readmes_runnable_blocks_run_on_a_fresh_clone(tmp_path):
    """Each ``<!-- runnable -->`` shell block of the README, in a fresh clone of this checkout beside
    ../shared (linked), with nothing built: exit status 0 and some output. The command line is the one
    installed in this environment (a fresh clone installs the same code)."""
    runnable = [code for before, lang, code in _blocks(README.read_text(encoding="utf-8"))
                if before == RUNNABLE and lang in SHELL]
    assert runnable, f"README.md marks no shell block {RUNNABLE}"
    clone = tmp_path / "robust-bench"
    if (ROOT / ".git").exists():
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True,
                       capture_output=True, text=True, timeout=120)
    else:                                   # a source tree without git: its tracked-looking files
        shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(".venv", "robust-bench", "results", "site",
                                                                  "runs", "__pycache__", "*.egg-info"))
    (tmp_path / "shared").symlink_to(SHARED, target_is_directory=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "ROBUST_BENCH_TEST_WARM": "0"}
    for code in runnable:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (code, proc.stdout[-2000:], proc.stderr[-2000:])
        assert proc.stdout.strip(), code
    assert not (clone / "robust-bench").exists(), "a runnable README block wrote a dataset repository"


# ---- the documented command lines against the command line itself --------------------------------------


def _cli():
    import typer

    from robust_bench.cli import app

    return typer.main.get_command(app)


def _command_lines(text: str) -> list[list[str]]:
    """Every ``robust-bench ...`` command in the shell blocks of a Markdown text, as shell words
    (continuations joined, comments dropped, several commands on a line split at ``&&``, ``;`` and ``|``;
    the brackets of optional parts are words of their own)."""
    out = []
    for _, lang, code in _blocks(text):
        if lang not in SHELL:
            continue
        for line in code.replace("\\\n", " ").splitlines():
            words: list[str] = []
            for w in [*shlex.shlex(line, posix=True, punctuation_chars=";&|"), ";"]:
                if w in (";", "&&", "|", "||", "&"):
                    if words[:1] == ["robust-bench"]:
                        out.append(words)
                    words = []
                else:
                    words.append(w)
    return out


def _check_line(root, words: list[str]) -> list[str]:
    """What in one documented command line (shell words) the command line does not have (empty: all of
    it exists)."""
    line = " ".join(words)
    words = [w for w in words[1:] if w not in ("[", "]", ",")]
    cmd, path = root, ["robust-bench"]
    while words and hasattr(cmd, "commands") and not words[0].startswith("-"):
        if words[0] not in cmd.commands:
            return [f"{line!r}: no command {' '.join(path)} {words[0]}"]
        cmd, path = cmd.commands[words[0]], path + [words[0]]
        words = words[1:]
    opts = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    return [f"{line!r}: {' '.join(path)} has no option {w.split('=', 1)[0]}"
            for w in words if w.startswith("-") and w.split("=", 1)[0] not in opts]


def test_every_documented_command_and_option_exists():
    root = _cli()
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    lines = [(p, l) for p in pages for l in _command_lines(p.read_text(encoding="utf-8"))]
    assert len(lines) > 50, len(lines)                     # the docs name every command; the parse found them
    bad = [f"{p.relative_to(ROOT)}: {b}" for p, l in lines for b in _check_line(root, l)]
    assert not bad, "\n".join(bad)
    assert _check_line(root, ["robust-bench", "run", "--no-such-option", "1"])     # the check itself can fail
    assert _check_line(root, ["robust-bench", "no-such-command"])


# ---- metric cards ------------------------------------------------------------------------------------


def test_every_declared_metric_has_a_meaning_and_a_source():
    hook = _hook()
    assert hook.missing_meanings() == []
    declared = {m.name for e in hook.declared() for m in e.metrics}
    assert set(hook.meanings()) == declared, "meanings written for metrics no evaluation declares: " \
        f"{sorted(set(hook.meanings()) - declared)}"
    # the five evaluate modules keep their cards, and each becomes a page of the site
    modules = sorted(p.name for p in (ROOT / "metrics").iterdir() if (p / f"{p.name}.py").is_file())
    assert hook.evaluate_cards() == modules and len(modules) == 5
    # the generated page has a row per declared metric of each evaluation, with its range and direction
    page = hook.cards_markdown()
    for e in hook.declared():
        for m in e.metrics:
            assert re.search(rf"^\| `{m.name}` \| .+ \| \[{m.range[0]:g}, {m.range[1]:g}\] \| "
                             rf"(higher|\*\*lower\*\*) \|", page, re.M), m.name


# ---- the site: a strict build, then a real browser --------------------------------------------------------


def _driver():
    from tests.helpers import chromium_driver

    return chromium_driver()


def test_the_site_builds_strictly_and_opens_in_a_browser(tmp_path):
    """``mkdocs build --strict`` as CI runs it (``make docs``), then the home page and the LIT page in
    headless Chromium. ``ROBUST_BENCH_DOCS_SCREENSHOT=PATH`` keeps a screenshot of the home page."""
    from selenium.webdriver.common.by import By

    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-4000:]
    for page in ("index.html", "getting-started.html", "contributing.html", "metrics/index.html",
                 "metrics/uuas.html", "api/evaluations.html", *(f"families/{f}.html" for f in
                                                                 ("jabberwocky", "gec", "names", "treebanks", "lit"))):
        assert (site / page).is_file(), page
    # the API pages hold the docstrings (read by griffe, nothing imported)
    api = (site / "api" / "evaluations.html").read_text(encoding="utf-8")
    assert "register_evaluation" in api and "higher_is_better" in api

    d = _driver()
    try:
        d.get((site / "index.html").as_uri())
        assert d.title.startswith("robust-bench"), d.title
        assert d.find_element(By.CSS_SELECTOR, "article h1").text.strip() == "robust-bench"
        rows = d.find_elements(By.CSS_SELECTOR, "article table tbody tr")
        assert len(rows) == 5, [r.text for r in rows]
        if os.environ.get("ROBUST_BENCH_DOCS_SCREENSHOT"):
            d.save_screenshot(os.environ["ROBUST_BENCH_DOCS_SCREENSHOT"])
        # follow the home page's link to a family page, as a reader does
        d.find_element(By.CSS_SELECTOR, "article table a[href$='families/lit.html']").click()
        assert d.current_url.endswith("families/lit.html"), d.current_url
        assert d.title.startswith("LIT contrast sets"), d.title
        assert d.find_element(By.CSS_SELECTOR, "article h1").text.startswith("LIT contrast sets")
        heads = [h.text.strip() for h in d.find_elements(By.CSS_SELECTOR, "article h2")]
        for needed in ("The method as published", "Configs and fields", "Validity evidence", "Known limits",
                       "Commands", "Fidelity to the paper"):
            assert needed in heads, (needed, heads)
        # the navigation lists every family
        nav = d.find_element(By.CSS_SELECTOR, "nav.md-nav--primary").get_attribute("textContent")
        for fam in ("Jabberwocky EWT", "Grammatical errors", "Named-entity swaps", "Adversarial treebanks",
                    "LIT contrast sets"):
            assert fam in nav, fam
    finally:
        d.quit()
