"""The benchmark-wide steps at one core and at two, side by side, on the same inputs.

Compiles the README's paper command (432 logs on the authors' library) and ``summary_mcq`` on
a 4000-video synthetic library once (caches warm), then recompiles both with
``force=[annotate,evaluate]`` (the published folder removed first, so that every export
runs) on one CPU and on two and reads each step's time from the run's log: the validity check (oracle and blind panel), AFLite and the panel filter
(``summary_mcq``), and the evaluate stage's blind panel. Also checks that both counts publish
the same bytes. Run on quiet cores: ``python benchmarks/cores.py [--cores 2]``.

Each leg runs pinned to its CPUs (``sched_setaffinity``), as on a machine that has only those:
``cores`` (0, every CPU) then spreads over them and torch's passes (the model metrics) run on
as many threads. Setting ``cores=1`` alone would leave those passes on every CPU, and the
evaluate panel, whose remaining cost is those passes, would look the same at both counts.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INFO = ROOT.parent / "shared" / "data" / "xlebench_video_info.json"
STEPS = {"validity check": r"annotate: validity \(oracle and blind panel\): ([\d.]+) s",
         "AFLite": r"annotate: the aflite filter: ([\d.]+) s",
         "panel filter": r"annotate: the panel filter: ([\d.]+) s",
         "filters' option vectors": r"annotate: the \w+ filter's option vectors: ([\d.]+) s",
         "evaluate panel": r"the blind panel: ([\d.]+) s"}
BENCHES = {"paper (1x, 432 logs)": ["experiment=paper", "library=xlebench_release",
                                    f"library.path={INFO}", "name=paper"],
           "summary_mcq (4000 videos)": ["tasks=[summary_mcq]", "library.n_videos=4000",
                                         "render=none", "eval.bertscore=false",
                                         "name=summary_mcq"]}


def run(out: Path, *args: str, cpus: int = 0) -> tuple[str, float]:
    """One xlebench command, on the first ``cpus`` CPUs this process may use (0: all)."""
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", "progress=false", *args]
    mine = sorted(os.sched_getaffinity(0))
    pin = (lambda: os.sched_setaffinity(0, mine[:cpus])) if cpus else None
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, preexec_fn=pin)
    if proc.returncode:
        sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
    return proc.stdout + proc.stderr, time.perf_counter() - t


def steps(text: str) -> dict[str, float]:
    return {name: sum(map(float, re.findall(pattern, text))) for name, pattern in STEPS.items()
            if re.search(pattern, text)}


def digest(bench: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in bench.rglob("*") if p.is_file() and p.name != "manifest.json"):
        h.update(str(path.relative_to(bench)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", type=int, default=2, help="the count set beside one")
    ap.add_argument("--only", choices=[t.split()[0] for t in BENCHES],
                    help="one benchmark (default: both)")
    args = ap.parse_args()
    if len(os.sched_getaffinity(0)) < args.cores:
        sys.exit(f"--cores {args.cores}: this process may run on "
                 f"{len(os.sched_getaffinity(0))} CPUs")
    lines = [f"| benchmark | step | 1 CPU (s) | {args.cores} CPUs (s) | ratio |",
             "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for title, bench_args in BENCHES.items():
            if args.only and title.split()[0] != args.only:
                continue
            out = Path(tmp) / title.split()[0]
            run(out, *bench_args)
            timed, digests, totals = {}, {}, {}
            bench = out / "benchmarks" / bench_args[-1].split("=")[1]
            for n in (1, args.cores):
                shutil.rmtree(bench)  # else an unchanged annotate export (its check) is skipped
                text, totals[n] = run(out, *bench_args, "force=[annotate,evaluate]",
                                      cpus=n)
                timed[n] = steps(text)
                digests[n] = digest(bench)
            for step in timed[1]:
                a, b = timed[1][step], timed[args.cores].get(step, 0.0)
                if a >= 1.0:
                    lines.append(f"| {title} | {step} | {a:.1f} | {b:.1f} | "
                                 f"{a / b if b else float('inf'):.2f}x |")
            lines.append(f"| {title} | whole rerun | {totals[1]:.1f} | "
                         f"{totals[args.cores]:.1f} | {totals[1] / totals[args.cores]:.2f}x |")
            same = "the same bytes" if digests[1] == digests[args.cores] else "DIFFERENT bytes"
            lines.append(f"| {title} | published files | {digests[1]} | "
                         f"{digests[args.cores]} | {same} |")
            print("\n".join(lines), flush=True)
            lines = []
    return 0


if __name__ == "__main__":
    sys.exit(main())
