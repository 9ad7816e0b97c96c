"""Run every benchmark in turn (`make bench`), printing each one's JSON report.

Benchmarks that need the authors' library file skip themselves when it is absent. Expect
tens of minutes on 2 cores: the 100k-video library run is opt-in (``--with-100k``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VIDEO_INFO = HERE.parent.parent / "shared" / "data" / "xlebench_video_info.json"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--with-100k", action="store_true", help="also the 100k synthetic library")
    args = ap.parse_args()
    runs: list[list[str]] = [["render_speed.py"], ["llm_concurrency.py"], ["vlm_throughput.py"],
                             ["bertscore_dedup.py"], ["runner_overhead.py"],
                             ["rerun.py"], ["startup.py"],
                             ["chunk_scaling.py"], ["unit_writes.py"], ["evaluate_stage.py"],
                             ["frame_extraction.py"], ["gpu_eval.py"], ["srl_windows.py"],
                             ["option_features.py"]]
    if VIDEO_INFO.is_file():
        # the whole library: a cold build embeds its duplicates too (issue 18's row)
        runs += [["bf16_embedding.py", "--video-info", str(VIDEO_INFO), "--n", "0"],
                 ["library_build.py", "--video-info", str(VIDEO_INFO)],
                 ["deterministic_embedding.py", "--video-info", str(VIDEO_INFO)],
                 ["pass_threads.py", "--video-info", str(VIDEO_INFO), "--n", "2000"],
                 ["grid_compile.py", "--video-info", str(VIDEO_INFO)],
                 ["filtered_query.py", "--video-info", str(VIDEO_INFO)],
                 ["panel_fits.py", "--video-info", str(VIDEO_INFO)]]
    else:
        runs.append(["bf16_embedding.py"])  # synthetic sentences
        print(f"skipping library_build.py, deterministic_embedding.py, grid_compile.py, "
              f"filtered_query.py and panel_fits.py: {VIDEO_INFO} not found")
    if args.with_100k:
        runs.append(["library_build.py", "--video-info", "/nonexistent", "--synthetic",
                     "100000"])
    failed = 0
    for script, *rest in runs:
        print(f"== {script} {' '.join(rest)}", flush=True)
        failed += subprocess.run([sys.executable, str(HERE / script), *rest]).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
