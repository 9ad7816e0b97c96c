"""Filtered query latency on a 100k-video library: rule filter + relaxation ladder + FAISS.

The library: the authors' 7852 videos resampled to 100,000 (their countries, scenes, time
periods and scenario sets, so the filter passes the shares it passes on the real library),
each with a random unit vector (384-d, MiniLM's size; the cost does not depend on what the
vectors mean). The queries: every chunk of the offline plans of the paper's 144 personas,
matched in order per persona with the used-video mask growing as in a life log.

Side by side, per query, alternating: the path of the issue's measurement (IoU from a dense
library x scenario mat-vec, allowed ids as a sorted Python list in FAISS's hashed
`IDSelectorBatch`) and xlebench's (the chunk's scenario columns summed, the id bitmap),
checked to give the same candidates, ids and scores. Prints p50 / p95 of each, the rule
filter's share of xlebench's path, and peak RSS.

Usage: python benchmarks/filtered_query.py [--video-info ../shared/data/xlebench_video_info.json]
       [--videos 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LEVELS = [("strict", 0.33, True, True), ("iou_0.2", 0.2, True, True),
          ("any_country", 0.2, False, True), ("any", 0.0, False, False)]


def previous_ladder(filt, dense: np.ndarray, c: dict, country: str, used: np.ndarray,
                    levels) -> np.ndarray:
    """The ladder before the column sums: IoU from a dense library x scenario mat-vec."""
    from xlebench.library.taxonomy import normalize_scenario

    keys = {normalize_scenario(s) for s in c["scenarios"]}
    vec = np.zeros(dense.shape[1], dtype=np.float32)
    for k in keys:
        if k in filt.col:
            vec[filt.col[k]] = 1.0
    inter = dense @ vec
    union = filt.sizes + len(keys) - inter
    iou = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    for level in levels:
        ids = np.flatnonzero(filt.mask(scenarios=c["scenarios"], scene=c["scene"],
                                       time_class=c["time_class"], country=country,
                                       used=used, level=level, iou=iou))
        if len(ids):
            return ids
    return np.zeros(0, dtype=np.int64)


def previous_search(index, query: np.ndarray, k: int, allowed: list[int]):
    """The search before the bitmap: a sorted id list in a hashed id set."""
    import faiss

    ids = np.asarray(sorted(allowed), dtype=np.int64)
    sel = faiss.IDSelectorBatch(ids)
    scores, found = index.search(query.reshape(1, -1), min(k, len(ids)),
                                 params=faiss.SearchParameters(sel=sel))
    keep = found[0] >= 0
    return scores[0][keep], found[0][keep]


def _plans(video_info: Path) -> list[tuple[str, list[dict]]]:
    """(country, chunks) of every persona's offline plan, compiled by the real CLI."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={tmp}",
                        "experiment=paper", "library=xlebench_release",
                        f"library.path={video_info}", "matcher/embedder=hashing",
                        "progress=false", "stages=[library,persona,plan]"],
                       cwd=ROOT, check=True, capture_output=True)
        cache = Path(tmp) / "cache"
        persona = {p.parent.name: json.loads(p.read_text())["location"]
                   for p in (cache / "persona").glob("*/units/*/record.json")}
        return [(persona[p.parent.name], json.loads(p.read_text())["chunks"])
                for p in sorted((cache / "plan").glob("*/units/*/record.json"))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", default=str(ROOT.parent / "shared/data/xlebench_video_info.json"))
    ap.add_argument("--videos", type=int, default=100_000)
    args = ap.parse_args()
    video_info = Path(args.video_info).resolve()
    if not video_info.is_file():
        sys.exit(f"{video_info} not found: pass --video-info")
    from xlebench.library.index import build_index, search
    from xlebench.library.release import load_release
    from xlebench.simulate.filter import CandidateFilter, Level

    plans = _plans(video_info)
    real = load_release(video_info, Counter())
    rng = random.Random(0)
    videos = [replace(rng.choice(real), video_uid=f"v{i:06d}") for i in range(args.videos)]
    vectors = np.random.default_rng(0).standard_normal((args.videos, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    t = time.perf_counter()
    filt = CandidateFilter(videos)
    index = build_index(vectors)
    setup_s = time.perf_counter() - t
    levels = [Level(*x) for x in LEVELS]
    dense = np.ascontiguousarray(filt.columns)
    queries = np.random.default_rng(1).standard_normal((sum(len(c) for _, c in plans), 384),
                                                        dtype=np.float32)
    times: dict[str, list[float]] = {"filter": [], "previous": [], "bitmap": []}
    sizes, q = [], 0
    for country, chunks in plans:
        used = np.zeros(len(videos), dtype=bool)
        for c in chunks:
            t0 = time.perf_counter()
            _, ids = filt.ladder(scenarios=c["scenarios"], scene=c["scene"],
                                 time_class=c["time_class"], country=country, used=used,
                                 levels=levels)
            t1 = time.perf_counter()

            def previous(c=c, used=used, q=q, country=country, ids=ids):
                old = previous_ladder(filt, dense, c, country, used, levels)
                assert np.array_equal(old, ids), "candidates differ"
                return previous_search(index, queries[q], 5, old.tolist())

            order = (("previous", previous, 0.0),
                     ("bitmap", lambda q=q, ids=ids: search(index, queries[q], 5, allowed=ids),
                      t1 - t0))
            got = {}
            for name, run, before in (order if q % 2 else order[::-1]):
                t2 = time.perf_counter()
                got[name] = run()
                times[name].append(before + time.perf_counter() - t2)
            times["filter"].append(t1 - t0)
            assert all((a == b).all() for a, b in zip(got["previous"], got["bitmap"],
                                                      strict=True)), "results differ"
            used[int(got["bitmap"][1][0])] = True
            sizes.append(len(ids))
            q += 1

    def pct(xs: list[float], p: float) -> float:
        return round(float(np.percentile(xs, p)) * 1000, 3)

    print(json.dumps({
        "videos": len(videos), "queries": q, "setup_s": round(setup_s, 2),
        "candidates_p50": int(np.percentile(sizes, 50)),
        "candidates_p95": int(np.percentile(sizes, 95)),
        "rule_filter_ms": {"p50": pct(times["filter"], 50), "p95": pct(times["filter"], 95)},
        "previous_ms": {"p50": pct(times["previous"], 50), "p95": pct(times["previous"], 95)},
        "bitmap_ms": {"p50": pct(times["bitmap"], 50), "p95": pct(times["bitmap"], 95)},
        "p50_previous_over_bitmap": round(np.percentile(times["previous"], 50)
                                          / np.percentile(times["bitmap"], 50), 2),
        "results_identical": True,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "target": "bitmap p50 < 5 ms, peak RSS < 2048 MB",
    }, indent=1))


if __name__ == "__main__":
    main()
