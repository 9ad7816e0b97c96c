"""The benchmark-wide steps at 1x, 2x, 4x ... 10x the paper grid: do they grow linearly?

The paper's grid is 144 personas x 3 lengths (432 life logs). ``--by cells`` (the default)
grows it the paper's way, more personas per location x MBTI cell (``persona.per_cell=N``:
10x is 1440 personas, 4320 logs); ``--by lengths`` adds lengths per persona instead (2x and
4x: 6 and 12 categories between 4 and 16 chunks, the most a day plan guarantees). Each size runs
the README's paper command through the real CLI (the authors' library, offline, every default
stage: the exports and the report included), the library stage shared through one cache so
that it is built once, and the steps that work over
the whole benchmark at once are read from the run's log (`xlebench.runner.progress.timed`):
settling printed and shown pairs, the set filters, the validity panel, the leak audits, the
evaluation's panel; with each stage's wall time. Per size: seconds, and the ratios to the 1x
size's seconds per life log and per item (1.0 = linear). The sizes add longer days, whose
logs hold more items about several videos (the ones fitted per item), so per log is the
grid's own unit and per item mixes in that change of composition.

    python benchmarks/validity_scaling.py [--video-info ../shared/data/xlebench_video_info.json]
        [--sizes 1,2,4]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The chunk counts of the categories each size adds to the paper's short 4, medium 9, long 15.
EXTRA = {1: [], 2: [6, 12, 16], 4: [6, 12, 16, 5, 7, 10, 11, 13, 14]}
_STEP = re.compile(r"\]\[xlebench\.stages\.\w+\]\[INFO\] (.+?): ([\d.]+) s$")
_STAGE = re.compile(r"stage (\w+) \[\w+\]: .*\(([\d.]+)s\)$")


def size_overrides(size: int, by: str) -> list[str]:
    if by == "lengths":
        return [f"+simulation.lengths.c{n}={n}" for n in EXTRA[size]]
    return [f"persona.per_cell={size}"] if size > 1 else []


#: Runs a command and reports its peak resident memory (the largest process it waited for).
_PEAK = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
         "print(f'PEAK_RSS_KB {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}', "
         "file=sys.stderr); sys.exit(r.returncode)")


def run(out: Path, video_info: Path, size: int, by: str = "cells") -> dict:
    cmd = [sys.executable, "-c", _PEAK, sys.executable, "-m", "xlebench",
           f"paths.outputs={out}", "progress=false",
           f"name=grid{size}", "experiment=paper", "library=xlebench_release",
           f"library.path={video_info}", *size_overrides(size, by)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    peak = re.search(r"PEAK_RSS_KB (\d+)", proc.stderr)
    if proc.returncode:
        sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
    steps, stages = {}, {}
    for line in (proc.stdout + proc.stderr).splitlines():
        if m := _STEP.search(line):
            steps[re.sub(r"evaluate \S+:", "evaluate:", m.group(1))] = float(m.group(2))
        elif m := _STAGE.search(line):
            stages[m.group(1)] = float(m.group(2))
    bench = out / "benchmarks" / f"grid{size}"
    items = sum(len(p.read_text().splitlines()) for p in (bench / "annotations").glob("*.jsonl"))
    logs = len(list((bench / "lifelogs").glob("*.json")))
    return {"size": size, "logs": logs, "items": items, "wall_s": round(wall, 1),
            "peak_rss_mb": round(int(peak.group(1)) / 1024) if peak else None,
            "stages": stages, "steps": steps}


def table(rows: list[dict]) -> list[str]:
    base = rows[0]
    names = list(dict.fromkeys(k for r in rows for k in
                               [*(f"stage {s}" for s in r["stages"]), *r["steps"]]))
    out = ["| step | " + " | ".join(f"{r['size']}x ({r['logs']} logs, {r['items']} items)"
                                   for r in rows) + " |", "|---" * (len(rows) + 1) + "|"]
    for name in names:
        cells = []
        for r in rows:
            v = (r["stages"].get(name[6:]) if name.startswith("stage ")
                 else r["steps"].get(name))
            b = (base["stages"].get(name[6:]) if name.startswith("stage ")
                 else base["steps"].get(name))
            if v is None:
                cells.append("–")
                continue
            if not b or r is base:
                cells.append(f"{v:.1f} s")
                continue
            per_log = (v / r["logs"]) / (b / base["logs"])
            per_item = (v / r["items"]) / (b / base["items"])
            cells.append(f"{v:.1f} s ({per_log:.2f}x per log, {per_item:.2f}x per item)")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out.append("| whole run (wall) | " + " | ".join(
        f"{r['wall_s']:.0f} s ({(r['wall_s'] / r['logs']) / (base['wall_s'] / base['logs']):.2f}x "
        "per log)" for r in rows) + " |")
    out.append("| peak memory | " + " | ".join(f"{r['peak_rss_mb']} MB" for r in rows) + " |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--video-info", type=Path,
                    default=ROOT.parent / "shared" / "data" / "xlebench_video_info.json")
    ap.add_argument("--sizes", default="1,2,4")
    ap.add_argument("--by", choices=("cells", "lengths"), default="cells",
                    help="grow the grid by personas per cell (persona.per_cell) or by lengths")
    args = ap.parse_args()
    if not args.video_info.is_file():
        sys.exit(f"{args.video_info}: no such file (the authors' library; --video-info)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            rows.append(run(Path(tmp), args.video_info, size, args.by))
            print(json.dumps(rows[-1]), file=sys.stderr)
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
