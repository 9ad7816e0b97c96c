"""LLM planner throughput against a loopback OpenAI-compatible server with injected latency.

For each ``llm.max_concurrency`` the real CLI compiles personas and day plans with
``planner=llm`` (fresh outputs, so every answer is a live request) against the scripted model
answering after a fixed per-request latency. Achieved calls/s is measured on the server (first
request arrival to last answer) and printed next to the ideal ``min(max_concurrency, chains) /
latency``, where chains = personas (each persona's plan calls are sequential by nature).

One run's ratio moves by a tenth at high concurrency on these machines, so ``--repeats``
rounds run every concurrency in turn and each ratio is printed as the median with its range.

Where the client's time goes, measured in the same runs: the server reads the CLI process's
CPU time (``/proc/<pid>/stat``, every thread) as each plan request arrives. With one request
in flight the client handles exactly one answer between two requests, so the c = 1 runs give
the client's CPU per plan answer (litellm and its logging thread, the OpenAI SDK, xlebench's
parsing, prompt rendering and response cache, all under one GIL). At concurrency c a wave's
answers arrive nearly together and queue for that GIL, which is what the plan stage's ratio
at c = 8 and 16 loses.

Usage: python benchmarks/llm_concurrency.py [--latency 0.25] [--concurrency 1 4 8 16]
       [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from xlebench.testing.loopback import LoopbackLLMServer
from xlebench.testing.scripted_llm import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]
LOCATIONS = "[Japan,UK,USA,India]"
MBTI = "[INTJ,ENFP,ISTP,ESFJ]"


def process_cpu_s(pid: int | None) -> float | None:
    """User + system CPU seconds of process `pid` so far (Linux), None where unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Timed:
    """Responder wrapper recording when each request arrived, per task, with the client
    process's CPU time at that moment."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner, self.times, self.lock = inner, [], threading.Lock()
        self.client_pid: int | None = None

    def __call__(self, body):
        task = "persona" if "Task: persona" in body["messages"][0]["content"] else "plan"
        cpu = process_cpu_s(self.client_pid)  # a file read: outside the handlers' lock
        with self.lock:
            self.times.append((time.perf_counter(), task, cpu))
        return self.inner(body)


def run_once(concurrency: int, latency: float) -> dict:
    timed = Timed(ScriptedModel())
    with tempfile.TemporaryDirectory() as tmp, LoopbackLLMServer(timed, latency_s=latency) as srv:
        cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={tmp}", "planner=llm",
               "llm=litellm", "llm.model=openai/scripted", f"llm.api_base={srv.base_url}",
               f"llm.max_concurrency={concurrency}", "library.n_videos=200",
               "matcher/embedder=hashing", f"persona.locations={LOCATIONS}",
               f"persona.mbti={MBTI}", "stages=[library,persona,plan]", "progress=false"]
        with subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) as proc:
            timed.client_pid = proc.pid
            _, err = proc.communicate()
        if proc.returncode:
            raise SystemExit(f"xlebench failed ({proc.returncode}):\n{err[-2000:]}")
    out = {}
    for task in ("persona", "plan"):
        ts = sorted(t for t, k, _ in timed.times if k == task)
        span = ts[-1] + latency - ts[0]
        chains = 16
        ideal = min(concurrency, chains) / latency
        out[task] = {"calls": len(ts), "seconds": round(span, 2),
                     "calls_per_s": round(len(ts) / span, 2),
                     "ideal_calls_per_s": round(ideal, 2),
                     "achieved_over_ideal": round(len(ts) / span / ideal, 2)}
    plan_cpu = [cpu for t, k, cpu in sorted(timed.times) if k == "plan"]
    if concurrency == 1 and None not in plan_cpu and len(plan_cpu) > 1:
        # one request at a time: between two arrivals the client handled exactly one answer
        out["plan"]["client_cpu_ms_per_answer"] = round(
            1000 * (plan_cpu[-1] - plan_cpu[0]) / (len(plan_cpu) - 1), 2)
    return out


def summarise(runs: list[dict]) -> dict:
    """Per stage: calls, ideal calls/s, and achieved / ideal as median and range over runs."""
    out = {}
    for task in ("persona", "plan"):
        ratios = [r[task]["achieved_over_ideal"] for r in runs]
        out[task] = {"calls": runs[0][task]["calls"],
                     "ideal_calls_per_s": runs[0][task]["ideal_calls_per_s"],
                     "achieved_over_ideal_median": round(statistics.median(ratios), 2),
                     "achieved_over_ideal_range": [min(ratios), max(ratios)]}
    cpu = [r["plan"]["client_cpu_ms_per_answer"] for r in runs
           if "client_cpu_ms_per_answer" in r["plan"]]
    if cpu:
        out["plan"]["client_cpu_ms_per_answer_median"] = round(statistics.median(cpu), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.25)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 16])
    ap.add_argument("--repeats", type=int, default=3, help="rounds over every concurrency")
    args = ap.parse_args()
    runs: dict[int, list[dict]] = {c: [] for c in args.concurrency}
    for _ in range(args.repeats):
        for c in args.concurrency:
            runs[c].append(run_once(c, args.latency))
    print(json.dumps({"latency_s": args.latency, "personas": 16, "repeats": args.repeats,
                      "by_max_concurrency": {str(c): summarise(r) for c, r in runs.items()}},
                     indent=1))


if __name__ == "__main__":
    main()
