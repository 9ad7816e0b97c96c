"""A cache-hit rerun of a compiled benchmark (same command, everything cached): exports of
unchanged stages skipped (the default) vs every stage exported again, side by side, alternating.

Usage: python benchmarks/rerun.py [--repeats 3]
(compiles the embedded defaults first, BERTScore off and nothing rendered, in a temp folder)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALWAYS = ("import sys, xlebench.pipeline as p; p.unchanged = lambda *a: False; "
          "from xlebench.cli import main; sys.argv = ['xlebench', *sys.argv[1:]]; main()")


def _run(code: list[str], args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *code, *args], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cli = [f"paths.outputs={tmp}", "progress=false", "eval.bertscore=false", "render=none"]
        _run(["-m", "xlebench"], cli)
        times: dict[str, list[float]] = {"skip unchanged": [], "export everything": []}
        for _ in range(args.repeats):
            times["skip unchanged"].append(_run(["-m", "xlebench"], cli))
            times["export everything"].append(_run(["-c", ALWAYS], cli))
    best = {k: round(min(v), 2) for k, v in times.items()}
    print(json.dumps({"seconds": best, "speedup": round(best["export everything"]
                                                        / best["skip unchanged"], 2)}, indent=1))


if __name__ == "__main__":
    main()
