"""A cache-hit rerun of a compiled benchmark (same command, everything cached), three ways
side by side, alternating: xlebench (exports of unchanged stages skipped, Hydra's mode probe
skipped); with Hydra's mode probe (the config composed a second time only to read
``hydra.mode``); and with the probe and every stage exported again (before both changes).

Usage: python benchmarks/rerun.py [--repeats 5]
(compiles the embedded defaults first, BERTScore off and nothing rendered, in a temp folder)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from startup import byte_compile  # the sibling script (benchmarks/ is on sys.path when run)

ROOT = Path(__file__).resolve().parents[1]
MAIN = "from xlebench.commands.cli import main; sys.argv = ['xlebench', *sys.argv[1:]]; main()"
PROBE = "import sys, xlebench.commands.cli as c; c._skip_mode_probe = lambda: None; " + MAIN
ALWAYS = "import xlebench.pipeline as p; p.unchanged = lambda *a: False; " + PROBE


def _run(code: list[str], args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *code, *args], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    byte_compile()
    with tempfile.TemporaryDirectory() as tmp:
        cli = [f"paths.outputs={tmp}", "progress=false", "eval.bertscore=false", "render=none"]
        _run(["-m", "xlebench"], cli)
        ways = {"xlebench": ["-m", "xlebench"], "with the mode probe": ["-c", PROBE],
                "with the probe, exporting everything": ["-c", ALWAYS]}
        times: dict[str, list[float]] = {k: [] for k in ways}
        for _ in range(args.repeats):
            for name, code in ways.items():
                times[name].append(_run(code, cli))
    best = {k: min(v) for k, v in times.items()}
    print(json.dumps({"best_s": {k: round(v, 2) for k, v in best.items()},
                      "median_s": {k: round(statistics.median(v), 2) for k, v in times.items()},
                      "speedup_of_best": {k: round(v / best["xlebench"], 2)
                                          for k, v in best.items()},
                      "target": "best < 1.5 s"}, indent=1))


if __name__ == "__main__":
    main()
