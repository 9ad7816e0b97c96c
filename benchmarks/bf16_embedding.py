"""Cold sentence embedding, fp32 vs bf16 autocast (``matcher.embedder.precision=bf16``), side by
side and alternating, on the authors' library summaries (or synthetic ones), with the cosine of
each bf16 vector to its fp32 one.

Usage: python benchmarks/bf16_embedding.py [--video-info ../shared/data/xlebench_video_info.json]
       [--n 2000] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from xlebench.library.embed import MiniLMEmbedder

ROOT = Path(__file__).resolve().parents[1]


def texts(video_info: Path, n: int) -> list[str]:
    if video_info.is_file():
        rows = json.loads(video_info.read_text())
        return [r["consolidated_summary"] for r in rows[:n]]
    return [f"C {v} the {o} in the {p}." for v in ("cuts", "washes", "carries", "opens")
            for o in ("onion", "cup", "door", "box", "pan") for p in ("kitchen", "garage")] * 50


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", type=Path,
                    default=ROOT.parent / "shared/data/xlebench_video_info.json")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    sentences = texts(args.video_info, args.n)
    runs = {"fp32": MiniLMEmbedder(), "bf16": MiniLMEmbedder(precision="bf16")}
    for e in runs.values():
        e.encode(sentences[:8])  # load outside the timings
    times: dict[str, list[float]] = {k: [] for k in runs}
    vectors = {}
    for _ in range(args.repeats):
        for name, e in runs.items():
            start = time.perf_counter()
            vectors[name] = e.encode(sentences)
            times[name].append(time.perf_counter() - start)
    cos = np.einsum("ij,ij->i", vectors["fp32"], vectors["bf16"])
    best = {k: round(min(v), 2) for k, v in times.items()}
    print(json.dumps({"sentences": len(sentences), "seconds": best,
                      "speedup": round(best["fp32"] / best["bf16"], 2),
                      "cosine_min": round(float(cos.min()), 6),
                      "cosine_mean": round(float(cos.mean()), 6)}, indent=1))


if __name__ == "__main__":
    main()
