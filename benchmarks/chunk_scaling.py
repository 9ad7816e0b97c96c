"""Cost of a life log against its chunk count: 4, 15 and 60 chunks per log, same personas.

Each log of n chunks stores n - 1 reflections, each with only the chunks it changed, so its
record grows about linearly (it held full before/after copies until 2026-11-24: 60 chunks
published 15.5x the bytes of 15); the target is cost(60) <= 5 x cost(15), in time and in
published bytes. Measured in one run:
for each n, the simulate stage recomputed (``force=[simulate]``, plans and library cached),
timing the stage itself (run summary) and the whole command (stage + export + start-up).

Usage: python benchmarks/chunk_scaling.py [--video-info ../shared/data/xlebench_video_info.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from grid_compile import run_cli  # the sibling script (benchmarks/ is on sys.path when run)

ROOT = Path(__file__).resolve().parents[1]
SIZES = (4, 15, 60)


def _run(out: Path, args: list[str]) -> tuple[float, float]:
    """(simulate stage seconds, command wall seconds)."""
    wall, stages = run_cli(out, args)
    return stages["simulate"]["seconds"], wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", default=str(ROOT.parent / "shared/data/xlebench_video_info.json"))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if Path(args.video_info).is_file():
        library = ["library=xlebench_release", f"library.path={Path(args.video_info).resolve()}"]
    else:
        library = ["library.n_videos=3000"]
    base = [*library, "matcher/embedder=hashing", "progress=false", "planner.min_chunks=60",
            "stages=[library,persona,plan,simulate]", "persona.locations=[Japan,UK,India,Italy]",
            "persona.mbti=[INTJ,ESFP,INFP,ESTJ]"]
    best: dict[int, list[float]] = {n: [1e9, 1e9] for n in SIZES}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for n in SIZES:  # cold: library, plans; each size publishes under its own name
            _run(out, [*base, f"simulation.n_chunks={n}", f"name=n{n}"])
        for _ in range(args.repeats):  # sizes alternate, so drift hits all of them alike
            for n in SIZES:
                stage, wall = _run(out, [*base, f"simulation.n_chunks={n}", f"name=n{n}",
                                         "force=[simulate]"])
                best[n] = [min(best[n][0], stage), min(best[n][1], wall)]
        sizes = {n: sum(p.stat().st_size for p in (out / "benchmarks" / f"n{n}" / "lifelogs")
                        .glob("*.json")) for n in SIZES}
    print(json.dumps({
        "logs": 16, "library": library[0],
        "simulate_stage_s": {n: round(best[n][0], 3) for n in SIZES},
        "command_wall_s": {n: round(best[n][1], 3) for n in SIZES},
        "published_lifelog_mb": {n: round(sizes[n] / 1e6, 2) for n in SIZES},
        "stage_60_over_15": round(best[60][0] / best[15][0], 2),
        "wall_60_over_15": round(best[60][1] / best[15][1], 2),
        "bytes_60_over_15": round(sizes[60] / sizes[15], 2),
        "target": "stage_60_over_15 <= 5 and bytes_60_over_15 <= 5",
    }, indent=1))


if __name__ == "__main__":
    main()
