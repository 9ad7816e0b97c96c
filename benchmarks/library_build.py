"""Library build benchmark: cold vs warm builds, embedding throughput, index and query cost.

Prints ratios measured side by side in one run (the machines are noisy):
* embedding throughput of xlebench's embedding path (dedupe + store) relative to the raw
  sentence-transformers encoder on the same sentences;
* warm rebuild (stage cache hit) relative to the cold build;
* FAISS index build time, and query latency for 1 and 1000 queries;
* peak memory (ru_maxrss).

Usage: python benchmarks/library_build.py [--video-info ../shared/data/xlebench_video_info.json]
       [--synthetic 100000] [--embedder minilm|hashing]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from xlebench.library.embed import EmbeddingStore, make_embedder
from xlebench.library.index import build_index, search
from xlebench.library.release import load_release


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def bench_texts(texts: list[str], embedder_kind: str) -> dict:
    emb = make_embedder(embedder_kind)
    emb.encode(texts[:8])  # load the model outside the timings
    raw, t_raw = _timed(lambda: emb.encode(texts))
    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddingStore(Path(tmp), emb)
        _, t_cold = _timed(lambda: store.encode(texts))
        warm, t_warm = _timed(lambda: store.encode(texts))
    assert np.allclose(raw, warm, atol=1e-4)
    index, t_index = _timed(lambda: build_index(raw))
    q1 = raw[0]
    _, t_q1 = _timed(lambda: [search(index, q1, 5) for _ in range(100)])
    allowed = list(range(0, len(texts), 7))
    _, t_q1000 = _timed(lambda: [search(index, raw[i % len(raw)], 5, allowed)
                                 for i in range(1000)])
    return {
        "sentences": len(texts), "unique": len(set(texts)),
        "raw_encode_s": round(t_raw, 3), "store_cold_s": round(t_cold, 3),
        "store_warm_s": round(t_warm, 4),
        "throughput_ratio_cold_vs_raw": round(t_raw / t_cold, 2),
        "throughput_ratio_warm_vs_raw": round(t_raw / max(t_warm, 1e-9), 1),
        "index_build_s": round(t_index, 4),
        "query_1_ms": round(t_q1 / 100 * 1000, 3),
        "queries_1000_filtered_s": round(t_q1000, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", default="../shared/data/xlebench_video_info.json")
    ap.add_argument("--synthetic", type=int, default=0, help="also N synthetic summaries")
    ap.add_argument("--embedder", default="minilm")
    args = ap.parse_args()
    results = {}
    path = Path(args.video_info)
    if path.is_file():
        from collections import Counter

        texts = [v.summary for v in load_release(path, Counter())]
        results["release"] = bench_texts(texts, args.embedder)
    if args.synthetic:
        from xlebench.library.synthetic import SyntheticSpec, make_video

        spec = SyntheticSpec(n_videos=args.synthetic)
        texts = [make_video(spec, i).consolidated for i in range(args.synthetic)]
        results["synthetic"] = bench_texts(texts, args.embedder)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
