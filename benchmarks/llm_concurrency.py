"""LLM planner throughput against a loopback OpenAI-compatible server with injected latency.

For each ``llm.max_concurrency`` the real CLI compiles personas and day plans with
``planner=llm`` (fresh outputs, so every answer is a live request) against the scripted model
answering after a fixed per-request latency. Achieved calls/s is measured on the server (first
request arrival to last answer) and printed next to the ideal ``min(max_concurrency, chains) /
latency``, where chains = personas (each persona's plan calls are sequential by nature).

Usage: python benchmarks/llm_concurrency.py [--latency 0.25] [--concurrency 1 4 8 16]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from xlebench.llm.loopback import LoopbackLLMServer
from xlebench.llm.scripted import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]
LOCATIONS = "[Japan,UK,USA,India]"
MBTI = "[INTJ,ENFP,ISTP,ESFJ]"


class Timed:
    """Responder wrapper recording when each request arrived, per task."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner, self.times, self.lock = inner, [], threading.Lock()

    def __call__(self, body):
        task = "persona" if "Task: persona" in body["messages"][0]["content"] else "plan"
        with self.lock:
            self.times.append((time.perf_counter(), task))
        return self.inner(body)


def run_once(concurrency: int, latency: float) -> dict:
    timed = Timed(ScriptedModel())
    with tempfile.TemporaryDirectory() as tmp, LoopbackLLMServer(timed, latency_s=latency) as srv:
        cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={tmp}", "planner=llm",
               "llm=litellm", "llm.model=openai/scripted", f"llm.api_base={srv.base_url}",
               f"llm.max_concurrency={concurrency}", "library.n_videos=200",
               "matcher/embedder=hashing", f"persona.locations={LOCATIONS}",
               f"persona.mbti={MBTI}", "stages=[library,persona,plan]", "progress=false"]
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
    out = {}
    for task in ("persona", "plan"):
        ts = sorted(t for t, k in timed.times if k == task)
        span = ts[-1] + latency - ts[0]
        chains = 16
        ideal = min(concurrency, chains) / latency
        out[task] = {"calls": len(ts), "seconds": round(span, 2),
                     "calls_per_s": round(len(ts) / span, 2),
                     "ideal_calls_per_s": round(ideal, 2),
                     "achieved_over_ideal": round(len(ts) / span / ideal, 2)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.25)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 16])
    args = ap.parse_args()
    results = {str(c): run_once(c, args.latency) for c in args.concurrency}
    print(json.dumps({"latency_s": args.latency, "personas": 16, "by_max_concurrency": results},
                     indent=1))


if __name__ == "__main__":
    main()
