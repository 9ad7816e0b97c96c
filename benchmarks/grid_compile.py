"""Paper-grid compile benchmark: 144 personas x {4, 9, 15} = 432 life logs on the real library.

Runs the real CLI twice in a fresh outputs folder (cold, then warm) and reports, side by side
in one run: time per stage and per life log, and a lower bound measured in this same process,
the matching arithmetic alone (rule filter + relaxation ladder + FAISS ranking for exactly the
chunks the compiled logs matched, no reflection, no I/O, no process start). The ratio
simulate-stage time / lower bound says how much the stage adds on top of the unavoidable work.

One cold run's simulate stage varies by half its time on these machines (file-system metadata
costs move with what was written and deleted just before), so ``--trials`` more runs of the
simulate stage alone follow, each in a fresh folder holding the cold run's library, persona and
plan stages as hard links, alternating with a measurement of the bound; the median ratio is
the row's figure. Each such run goes through ``simulate_breakdown.py``: the stage's seconds
split into its parts (the last run's are printed), and the stage measured against its own
set-up and matching (loading the library and index, building the rule filter, then the
matching as the stage runs it): what the stage adds on top of the work it cannot skip, target
<= 1.5x (issue 31, restating issue 18); the median over the trials is printed.

Usage: python benchmarks/grid_compile.py [--video-info ../shared/data/xlebench_video_info.json]
       [--embedder minilm|hashing] [--workers 1] [--trials 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def run_cli(out: Path, args: list[str]) -> tuple[float, dict]:
    """Run the CLI; (wall seconds, the run summary's stages by name)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={out}", *args],
                   cwd=ROOT, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    summary = sorted((out / "runs").glob("*/*/run_summary.json"))[-1]
    stages = {s["stage"]: s for s in json.loads(summary.read_text())["stages"]}
    return wall, stages


def matching_lower_bound(cache: Path) -> dict:
    """Time the filter + ladder + FAISS search for every segment of every compiled log."""
    from xlebench.library.index import search
    from xlebench.library.view import LibraryView
    from xlebench.plan.chunks import PlanChunk
    from xlebench.simulate.filter import CandidateFilter, Level
    from xlebench.stages.readers import CHUNK_EMBEDDINGS

    lib_dir = next((cache / "library").glob("*/units/*"))
    view = LibraryView(lib_dir)
    videos, index = view.videos, view.index
    filt = CandidateFilter(videos)
    levels = (Level("strict", 0.33, True, True), Level("iou_0.2", 0.2, True, True),
              Level("any_country", 0.2, False, True), Level("any", 0.0, False, False))
    plan_dir = next((cache / "plan").glob("*"))
    sim_dir = next((cache / "simulate").glob("*"))
    work = []
    for rec_path in sorted(sim_dir.glob("units/*/record.json")):
        log = json.loads(rec_path.read_text())
        vecs = np.load(plan_dir / "units" / log["persona_id"] / CHUNK_EMBEDDINGS)
        plan = json.loads((plan_dir / "units" / log["persona_id"] / "record.json").read_text())
        row = {c["chunk_id"]: k for k, c in enumerate(plan["chunks"])}
        chunks = [PlanChunk.from_dict(s["chunk"]) for s in log["segments"]]
        work.append((log["persona_id"], chunks, [vecs[row[c.chunk_id]] for c in chunks]))
    persona_dir = next((cache / "persona").glob("*"))
    countries = {p.parent.name: json.loads(p.read_text())["location"]
                 for p in persona_dir.glob("units/*/record.json")}
    start = time.perf_counter()
    n = 0
    for pid, chunks, qvecs in work:
        country = countries[pid]
        used = np.zeros(len(videos), dtype=bool)
        for c, q in zip(chunks, qvecs, strict=True):
            _, ids = filt.ladder(scenarios=c.scenarios, scene=c.scene, time_class=c.time_class,
                                 country=country, used=used, levels=levels)
            _, found = search(index, q, 5, allowed=ids.tolist())
            used[int(found[0])] = True
            n += 1
    return {"matches": n, "seconds": time.perf_counter() - start, "logs": len(work)}


def linked_upstream(cache: Path, outputs: Path) -> None:
    """``outputs/cache`` holding the library, persona and plan stages of ``cache`` as hard
    links (every cache write replaces a file by rename, so the originals stay as they are)."""
    for stage in ("library", "persona", "plan"):
        shutil.copytree(cache / stage, outputs / "cache" / stage, copy_function=os.link)


def simulate_trials(out: Path, overrides: list[str], trials: int) -> list[dict]:
    """The simulate stage alone, each time in a fresh folder and through
    ``simulate_breakdown.py`` (its parts timed), alternating with the bound."""
    rows = []
    for k in range(trials):
        parts = breakdown(out, overrides, f"trial{k}")
        bound = matching_lower_bound(out / "cache")["seconds"]
        seconds = parts["stage_seconds"]
        own = parts["parts_seconds"]["setup"] + parts["parts_seconds"]["matching"]
        rows.append({"simulate_s": round(seconds, 3), "bound_s": round(bound, 3),
                     "ratio": round(seconds / bound, 2), "setup_and_matching_s": round(own, 3),
                     "ratio_to_own": round(seconds / own, 2), "parts": parts})
    return rows


def breakdown(out: Path, overrides: list[str], name: str) -> dict:
    """``simulate_breakdown.py`` on a fresh folder holding the upstream stages."""
    folder = out / name
    linked_upstream(out / "cache", folder)
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "simulate_breakdown.py"),
                           f"paths.outputs={folder}", *overrides],
                          cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(proc.stdout)


#: Settings compared against paper Table 2 and the release (plans shared through the cache
#: where the planner settings agree). The grid's base is experiment=paper; each row states
#: every setting it differs in, so a row means the same whatever the experiment's defaults.
#: The authors' ladder (conf/matcher/paper.yaml), which experiment=paper replaces.
AUTHORS_LADDER = ("matcher.ladder=[{name:strict,min_iou:0.33,same_country:true,scene_time:true},"
                  "{name:iou_0.2,min_iou:0.2,same_country:true,scene_time:true},"
                  "{name:any_country,min_iou:0.2,same_country:false,scene_time:true},"
                  "{name:any,min_iou:0.0,same_country:false,scene_time:false}]")
EARLIER = ["matcher=paper", "planner.chunk_text=plan", "planner.chunk_scenarios=window",
           "matcher.diversity.kind=none", "planner.bedtime=ignore", AUTHORS_LADDER]
VARIANTS = {
    "caption plans, window scenarios, matcher=paper, bedtime ignored": EARLIER,
    "agenda text, own scenarios, matcher=authors + popularity penalty, bedtime ignored": [
        "planner.bedtime=ignore", AUTHORS_LADDER, "matcher.diversity.weight=0.02"],
    "agenda text, own scenarios, matcher=paper": [
        "matcher=paper", "matcher.diversity.kind=none", AUTHORS_LADDER],
    "agenda text, own scenarios, matcher=authors": ["matcher.diversity.kind=none",
                                                    AUTHORS_LADDER],
    "agenda text, own scenarios, matcher=authors + popularity penalty 0.02, bedtime fitted "
    "(experiment=paper until issue 46)": [AUTHORS_LADDER, "matcher.diversity.weight=0.02"],
    "experiment=paper (agenda, own, same country first + popularity penalty 0.01, bedtime "
    "fitted)": [],
}


def fidelity(out: Path, overrides: list[str], video_info: Path) -> list[dict]:
    """Table 2 statistics of each matcher variant (plans shared through the cache)."""
    import pyarrow.parquet as pq

    from xlebench.report.reference import PAPER_TABLE2, RELEASE

    rows = []
    for k, (name, extra) in enumerate(VARIANTS.items()):
        run_cli(out, [*overrides, *extra, f"name=v{k}"])
        bench = out / "benchmarks" / f"v{k}"
        stats = json.loads((bench / "stats" / "simulation.json").read_text())
        lib = {r["video_uid"]: r["duration_s"] for r in
               pq.read_table(bench / "library.parquet", columns=["video_uid", "duration_s"])
               .to_pylist()}
        segs = [s for p in (bench / "lifelogs").glob("*.json")
                for s in json.loads(p.read_text())["segments"]]
        rows.append({"variant": name, "duration_minutes": {
            c: [v["max"], v["mean"], v["min"]] for c, v in stats["duration_minutes"].items()},
            "distinct_videos": stats["distinct_videos"], "max_reuse": stats["max_reuse"],
            "same_country_share": stats["same_country_share"],
            "day_ends": stats["day_ends"],
            "reuse_histogram": stats["video_reuse_histogram"],
            "segment_minutes_mean": round(sum(lib[s["video_uid"]] for s in segs)
                                          / len(segs) / 60, 1),
            "library_minutes_mean": round(sum(lib.values()) / len(lib) / 60, 1)})
    print("| setting | short | medium | long | distinct | max reuse | same country | "
          "min/segment | past midnight | day ends p10/p50/p90 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, src in (("paper Table 2", PAPER_TABLE2), ("release", RELEASE)):
        cells = " | ".join("/".join(map(str, src[c])) for c in ("short", "medium", "long"))
        # counted over all 432 release files (issue 46): days longer than 17 h
        late = "49 of 432 span > 17 h (max 20.8 h)" if label == "release" else "—"
        print(f"| {label} | {cells} | 814 | {87 if label == 'release' else '—'} | — | 34.9 | "
              f"{late} | — |")
    for r in rows:
        d = r["duration_minutes"]
        cells = " | ".join("/".join(f"{x:.0f}" for x in d[c]) for c in ("short", "medium",
                                                                         "long"))
        ends = r["day_ends"]
        print(f"| {r['variant']} | {cells} | {r['distinct_videos']} | {r['max_reuse']} | "
              f"{100 * r['same_country_share']:.0f}% | {r['segment_minutes_mean']} | "
              f"{ends['past_midnight']} of {ends['days']} | "
              f"{' / '.join(ends['end'].values())} |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", default=str(ROOT.parent / "shared/data/xlebench_video_info.json"))
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--trials", type=int, default=3,
                    help="simulate-stage runs alternating with the bound (0: the cold run's)")
    ap.add_argument("--fidelity", action="store_true",
                    help="also compile each matcher variant and print the Table 2 comparison")
    args = ap.parse_args()
    if not Path(args.video_info).is_file():
        sys.exit(f"{args.video_info} not found: pass --video-info")
    overrides = ["experiment=paper", "library=xlebench_release",
                 f"library.path={Path(args.video_info).resolve()}",
                 f"matcher/embedder={args.embedder}", f"workers={args.workers}",
                 "progress=false", "stages=[library,persona,plan,simulate]"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        cold_wall, cold = run_cli(out, overrides)
        warm_wall, warm = run_cli(out, overrides)
        bound = matching_lower_bound(out / "cache")
        trials = simulate_trials(out, overrides, args.trials)
        variants = fidelity(out, overrides, Path(args.video_info)) if args.fidelity else None
    logs = cold["simulate"]["total"]
    sim_s = cold["simulate"]["seconds"]
    cold_ratio = round(sim_s / bound["seconds"], 2)
    report = {
        "logs": logs,
        "cold_wall_s": round(cold_wall, 1),
        "warm_wall_s": round(warm_wall, 1),
        "stage_seconds_cold": {k: round(v["seconds"], 2) for k, v in cold.items()},
        "stage_seconds_warm": {k: round(v["seconds"], 3) for k, v in warm.items()},
        "simulate_ms_per_log": round(sim_s / logs * 1000, 2),
        "lower_bound": {"matches": bound["matches"], "seconds": round(bound["seconds"], 3),
                        "ms_per_log": round(bound["seconds"] / bound["logs"] * 1000, 2)},
        "simulate_over_lower_bound_cold_run": cold_ratio,
        "simulate_trials": trials,
        "simulate_over_lower_bound_median": (statistics.median(t["ratio"] for t in trials)
                                             if trials else cold_ratio),
        "simulate_breakdown": trials[-1]["parts"] if trials else None,
        "warm_over_cold_wall": round(warm_wall / cold_wall, 3),
        # the largest of the CLI runs (the cold one: library embedding included)
        "peak_rss_mb_cli": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
    }
    if trials:
        report["simulate_over_setup_and_matching_median"] = statistics.median(
            t["ratio_to_own"] for t in trials)
        for t in trials:
            del t["parts"]
    if variants:
        report["fidelity"] = variants
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
