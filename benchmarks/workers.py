"""A stage's units at ``workers=1`` (every unit in this process) and ``workers=0`` (the
default: the rest handed to forked processes once that pays), side by side on the same inputs.

Compiles the README's ten-times paper command up to ``--stage`` (default ``simulate``) once,
so the library, the personas and the plans' vectors are cached, then recomputes the stages
``--force`` (default plan and simulate) ``--rounds`` times at each setting, alternating, and
reads each stage's seconds from the run's log. The units each setting computed are compared
byte for byte. Run on quiet cores: ``python benchmarks/workers.py [--per-cell 10]``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cores import digest  # the sibling script (benchmarks/ is on sys.path when run)

ROOT = Path(__file__).resolve().parents[1]
INFO = ROOT.parent / "shared" / "data" / "xlebench_video_info.json"


def run(out: Path, *args: str) -> tuple[str, float]:
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", "progress=false",
           "experiment=paper", "library=xlebench_release", f"library.path={INFO}", *args]
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
    return proc.stdout + proc.stderr, time.perf_counter() - t


def stage_seconds(text: str, stage: str) -> float:
    found = re.findall(rf"stage {stage} \[\w+\]: .*\(([\d.]+)s\)", text)
    return float(found[-1]) if found else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-cell", type=int, default=10, help="personas per location x MBTI cell")
    ap.add_argument("--stage", default="simulate", help="the last stage run")
    ap.add_argument("--force", default="plan,simulate", help="the stages recomputed")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    if not INFO.is_file():
        sys.exit(f"{INFO} not found: this benchmark compiles the authors' library")
    forced = args.force.split(",")
    base = [f"persona.per_cell={args.per_cell}", f"stages=[{args.stage}]", "name=workers"]
    seconds: dict[tuple[int, str], list[float]] = {}
    walls: dict[int, list[float]] = {0: [], 1: []}
    digests: dict[int, set[str]] = {0: set(), 1: set()}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        run(out, *base)
        for _ in range(args.rounds):
            for workers in (1, 0):
                text, wall = run(out, *base, f"force=[{args.force}]", f"workers={workers}",
                                 "overwrite=true")
                walls[workers].append(wall)
                for stage in forced:
                    seconds.setdefault((workers, stage), []).append(stage_seconds(text, stage))
                # every file of the stages' cache folders: units, markers, records
                digests[workers].add("/".join(digest(out / "cache" / s) for s in forced))
    print("| stage | workers=1 (s) | workers=0 (s) | ratio |\n|---|---|---|---|")
    rows = [(s, seconds[1, s], seconds[0, s]) for s in forced] + [("whole run", walls[1],
                                                                     walls[0])]
    for name, one, auto in rows:
        a, b = statistics.median(one), statistics.median(auto)
        print(f"| {name} | {' / '.join(f'{x:.1f}' for x in one)} | "
              f"{' / '.join(f'{x:.1f}' for x in auto)} | {a / b:.2f}x |")
    same = len(digests[0] | digests[1]) == 1
    print(f"units: {'the same bytes' if same else 'DIFFERENT bytes'} ({sorted(digests[1])} / "
          f"{sorted(digests[0])})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
