"""The blind panel computed twice over one benchmark, as a run that compiles and then
evaluates computes it (the validity check at annotate, then the evaluation), three ways side
by side, alternating: the second panel reusing the first one's answers of its learning members
(`blind._ANSWERS`, the default since issue 79: no fit is made again, whatever the number of
fits), reusing only its fitted models (`blind._Fits`: the most recent `FITS_KEPT`, which at ten
times the paper grid holds a tenth of them), or fitting them all again (both emptied between
the two panels). The panels' rows are compared: the same every way.

    python benchmarks/panel_fits.py [--bench DIR] [--repeats 2]

``--bench``: a compiled benchmark folder (its ``annotations/``); without it, the paper grid on
the authors' library is compiled into a temporary folder first (`experiment=paper`).
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


def compile_paper(out: Path, video_info: Path) -> Path:
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", "progress=false",
           "name=paper", "experiment=paper", "library=xlebench_release",
           f"library.path={video_info}", "stages=[library,persona,plan,simulate,annotate]"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
    return out / "benchmarks" / "paper"


def two_panels(items: list[dict], recipes: dict, arm: str) -> tuple[float, float, list]:
    """Seconds of the first and the second panel, and both panels' rows (``arm``: what the
    second keeps of the first: ``answered``, ``shared`` fits only, or ``refitted``)."""
    from collections import OrderedDict

    from xlebench.eval.panel import blind
    from xlebench.eval.scorers import ScoreSettings

    s = ScoreSettings(bertscore=False)
    blind._FITS, blind._ANSWERS = blind._Fits(blind.FITS_KEPT), OrderedDict()
    t0 = time.perf_counter()
    first = blind.panel_rows(items, recipes, s, seed=0, draws=1)
    t1 = time.perf_counter()
    if arm != "answered":
        blind._ANSWERS = OrderedDict()
    if arm == "refitted":
        blind._FITS = blind._Fits(blind.FITS_KEPT)
    second = blind.panel_rows(items, recipes, s, seed=0, draws=1, public=list(items))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, [first.rows, second.rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path)
    ap.add_argument("--video-info", type=Path,
                    default=ROOT.parent / "shared" / "data" / "xlebench_video_info.json")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    from xlebench.tasks.recipe.registry import load_recipe

    with tempfile.TemporaryDirectory() as tmp:
        bench = args.bench or compile_paper(Path(tmp), args.video_info)
        items = [json.loads(line) for f in sorted((bench / "annotations").glob("*.jsonl"))
                 for line in f.read_text().splitlines()]
    recipes = {sub: load_recipe(sub) for sub in {it["subtask"] for it in items}}
    runs: dict[str, list[float]] = {"answered": [], "shared": [], "refitted": []}
    rows: dict[str, list] = {}
    for _ in range(args.repeats):
        for arm in ("refitted", "shared", "answered"):
            _, second, rows[arm] = two_panels(items, recipes, arm)
            runs[arm].append(round(second, 2))
    best = {arm: min(v) for arm, v in runs.items()}
    print(json.dumps({"items": len(items), "second panel s": runs,
                      "refitted / answered (best of each)":
                          round(best["refitted"] / best["answered"], 2),
                      "shared / answered (best of each)":
                          round(best["shared"] / best["answered"], 2),
                      "rows identical": rows["shared"] == rows["refitted"] == rows["answered"]},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
