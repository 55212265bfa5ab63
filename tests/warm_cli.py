"""A warm ``robust-bench`` for the test suite: the command line without its start-up cost.

Every ``robust-bench`` process spends 8 to 15 s importing torch, transformers, datasets, spaCy, NLTK,
sentence-transformers and lm-eval before it does anything, and the suite starts about two hundred of them.
This file is run as one server process per pytest worker (:class:`WarmCLI`): it imports those modules
once and runs nothing else; then, for each call, it forks a child that is what a fresh ``robust-bench``
process would be after its imports, sets the call's argv, working directory, environment and standard
streams (files), runs the console script's entry point (``robust_bench.cli:main``) and exits with its
status. Each child starts from the same untouched server, so no call sees what an earlier one left.

A call is run warm only where a fresh process could not differ: its environment must equal the server's
(as launched, or as the server's imports set it: sentence-transformers sets ``KMP_INIT_AT_FORK``) except
for variables read when a command runs (``ROBUST_BENCH_*``, pytest's own) or by modules the server does not
import (Ray's), since torch, huggingface_hub, datasets and NLTK read theirs (``HF_HUB_OFFLINE``,
``NLTK_DATA``, ...) once, at import. Any other call, and every call when ``ROBUST_BENCH_TEST_WARM=0``, is a real subprocess, as are the
tests that kill a command. ``tests/test_cli.py`` checks that both ways give the same streams and status.
Coverage follows the children through coverage.py's ``patch = ["fork", "_exit"]`` (pyproject.toml).

The same holds for ``python -c CODE ARGS`` (the tests that kill a command at a chosen write wrap a
function, then call the command's entry point): a request with ``code`` runs that instead.

Protocol (the server's stdin and stdout, one JSON object per line): a request
``{"args", "cwd", "env", "stdout", "stderr", "code"}`` (``stdout``/``stderr``: files the child writes;
``code``: None for ``robust-bench *args``), a reply ``{"returncode"}`` (negative: killed by that signal,
as :mod:`subprocess` reports it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

#: what ``robust-bench`` commands import: torch through transformers, and the rest (imports only; the
#: server loads no model and reads no data)
PRELOAD = ("torch", "transformers", "transformers.modeling_utils", "transformers.models.bert.modeling_bert",
           "transformers.models.gpt2.modeling_gpt2", "transformers.models.llama.modeling_llama",
           "sentence_transformers", "datasets", "spacy", "nltk", "matplotlib.pyplot", "wordfreq", "scipy.stats",
           "lm_eval", "lm_eval.models.huggingface", "robust_bench.cli", "robust_bench.text.wordnet",
           "robust_bench.models.llm", "robust_bench.attacks.gec", "robust_bench.attacks.treebanks",
           "robust_bench.experiments.jabberwocky")

#: variables a call may set differently from the server's environment: read when a command runs
#: (``PYTHONBREAKPOINT`` at each ``breakpoint()``; Ray's ``ray.init`` sets it in the tests' processes), or
#: only by modules the server does not import (Ray's)
RUN_TIME_VARIABLES = ("ROBUST_BENCH_", "PYTEST_", "RAY_", "PYTHONBREAKPOINT")

EXE = str(Path(sys.executable).with_name("robust-bench"))


def _exit_code(code) -> int:
    """The status Python exits with for ``sys.exit(code)`` (printing a message code to stderr)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _child(request: dict) -> None:
    """In the forked child: become ``robust-bench *args`` (or ``python -c code *args``) and exit with its
    status (never returns)."""
    code = 1
    try:
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                                (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            new = os.open(path, flags, 0o644)
            os.dup2(new, fd)
            os.close(new)
        sys.stdin = open(os.devnull, encoding="utf-8")
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        if request.get("code") is not None:
            sys.argv = ["-c", *request["args"]]
            exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
            code = 0
        else:
            sys.argv = [EXE, *request["args"]]
            from robust_bench.cli import main

            code = _exit_code(main())
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except KeyboardInterrupt:    # the interpreter prints it, then ends by SIGINT (status -2)
        import traceback

        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:       # as the interpreter does with an uncaught exception
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()     # what the interpreter runs at exit (logging, coverage, temp files)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            if code == -signal.SIGINT:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGINT)
            os._exit(code)


def serve() -> None:
    """The server's loop: import :data:`PRELOAD`, then fork one child per request line until stdin closes."""
    import importlib

    sys.path[0] = os.path.dirname(EXE)        # as for the console script: its folder, not tests/
    for name in PRELOAD:
        importlib.import_module(name)
    replies = sys.stdout
    print(json.dumps({"ready": os.getpid(), "environ": dict(os.environ)}), file=replies, flush=True)
    for line in iter(sys.stdin.readline, ""):
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), file=replies, flush=True)


class WarmCLI:
    """The client: starts the server (``python tests/warm_cli.py``) with ``env`` when first asked, and runs
    calls in it.

    Parameters
    ----------
    env : dict
        The server's environment; calls whose environment differs from it outside
        :data:`RUN_TIME_VARIABLES` are named by :meth:`refused`.
    log : Path
        Where the server's own stderr goes (import-time warnings; a crash of the server).
    """

    def __init__(self, env: dict, log: Path):
        self.env = dict(env)
        self._lock = threading.Lock()
        self._log_path, self._log, self.proc = log, None, None
        self._imported_env = None       # the server's environment after its imports (its first reply)

    def _ready(self) -> dict:
        if self.proc is None:
            self._log = open(self._log_path, "a", encoding="utf-8")
            self.proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._log, env=self.env, text=True, cwd=os.path.dirname(EXE))
        if self._imported_env is None:
            self._imported_env = self._reply()["environ"]
        return self._imported_env

    def refused(self, env: dict) -> list[str]:
        """The variables for which a call with environment ``env`` could run otherwise than in a fresh
        process (empty: the call runs warm)."""
        with self._lock:
            imported = self._ready()
        keys = set(env) | set(self.env) | set(imported)
        return sorted(k for k in keys if not k.startswith(RUN_TIME_VARIABLES)
                      and env.get(k) != self.env.get(k) and env.get(k) != imported.get(k))

    def run(self, args, cwd, env: dict, code: str | None = None) -> subprocess.CompletedProcess:
        """``robust-bench *args`` (``code``: ``python -c code *args``) in ``cwd`` with ``env``, as
        ``subprocess.run(..., capture_output=True, text=True)`` returns it. Raises RuntimeError if the
        server has died."""
        args = [str(a) for a in args]
        with self._lock, tempfile.TemporaryDirectory(prefix="warm-cli-") as tmp:
            out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            self._ready()
            request = {"args": args, "cwd": str(cwd), "env": env, "stdout": out, "stderr": err, "code": code}
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            status = self._reply()["returncode"]
            texts = []
            for path in (out, err):     # as subprocess's text mode reads a pipe: locale encoding, \r\n -> \n
                with open(path, encoding=None, newline=None) as f:
                    texts.append(f.read())
        argv = [EXE, *args] if code is None else [sys.executable, "-c", code, *args]
        return subprocess.CompletedProcess(argv, status, *texts)

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the warm robust-bench server died (exit status {self.proc.wait()}); "
                               f"its log: {self._log.name}")
        return json.loads(line)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        if self._log is not None:
            self._log.close()


if __name__ == "__main__":
    serve()
