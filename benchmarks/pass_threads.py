"""MiniLM's forward passes on many cores: one pass at a time on every intra-op thread (what
`MiniLMEmbedder` does below 4 threads) against passes side by side on fewer threads each.

Why: on a lent machine's 16-core host the 10x command's evaluate panel spent 54.7 s in its
model metrics, 2.6x faster than on 2 cores for 8x the cores (docs/performance.md, sixteen
cores), and on 2 cores passes side by side gained only 1.09-1.13x (seventh session, not
kept). This puts the two shapes side by side on one machine, on the library's distinct
summaries, in one process, alternating, with the model loaded once. ``intra T``: the
embedder's own ``encode`` with ``OMP_NUM_THREADS=T`` (`xlebench.runner.cores.pass_threads`),
its passes held to one at a time. ``side P x T``: the same equal-length passes
(`same_length_batches`) run P at once at T torch threads each
(`xlebench.library.passes.run_passes`, what the embedder runs from 4 threads). Each variant's
vectors are compared bit for bit with ``intra`` at every core.

Usage: python benchmarks/pass_threads.py [--video-info ../shared/data/xlebench_video_info.json]
       [--n 0] [--repeats 2] [--out result.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from xlebench.library import embed
from xlebench.library.embed import MiniLMEmbedder, same_length_batches
from xlebench.library.passes import run_passes

ROOT = Path(__file__).resolve().parents[1]


def distinct_summaries(video_info: Path, n: int) -> list[str]:
    rows = json.loads(video_info.read_text())
    return list(dict.fromkeys(r["consolidated_summary"] for r in rows))[: n or None]


def intra(embedder: MiniLMEmbedder, texts: list[str], threads: int) -> np.ndarray:
    os.environ["OMP_NUM_THREADS"] = str(threads)
    chosen, embed.side_by_side = embed.side_by_side, lambda _threads: 1
    try:
        return embedder.encode(texts)
    finally:
        embed.side_by_side = chosen


def side_by_side(embedder: MiniLMEmbedder, texts: list[str], passes: int, threads: int
                 ) -> np.ndarray:
    """The embedder's passes, ``passes`` at once, each at ``threads`` torch threads."""
    ids = embedder._token_ids(texts)
    batches = same_length_batches([len(x) for x in ids], embedder.batch_size)
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    rows = [[texts[i] for i in b.rows] for b in batches]
    for b, feats in zip(batches, run_passes(embedder._load(), rows, passes, embedder._precision,
                                            threads), strict=True):
        out[b.real] = feats["sentence_embedding"].numpy()[: len(b.real)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--video-info", type=Path,
                    default=ROOT.parent / "shared/data/xlebench_video_info.json")
    ap.add_argument("--n", type=int, default=0, help="distinct summaries (0: all)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    cpus = len(os.sched_getaffinity(0))
    texts = distinct_summaries(args.video_info, args.n)
    embedder = MiniLMEmbedder()
    intra(embedder, texts[:64], cpus)  # the model loaded and warm
    variants = {f"intra {cpus}": lambda: intra(embedder, texts, cpus)}
    for t in sorted({max(1, cpus // 2), 1} - {cpus}, reverse=True):
        variants[f"intra {t}"] = lambda t=t: intra(embedder, texts, t)
    for p, t in sorted({(cpus, 1), (max(1, cpus // 2), 2), (max(1, cpus // 4), 4)}):
        variants[f"side {p} x {t}"] = lambda p=p, t=t: side_by_side(embedder, texts, p, t)
    times: dict[str, list[float]] = {k: [] for k in variants}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeats):
        for name, run in variants.items():
            start = time.perf_counter()
            vectors[name] = run()
            times[name].append(round(time.perf_counter() - start, 3))
    base = vectors[f"intra {cpus}"]
    result = {"cpus": cpus, "texts": len(texts), "seconds": times,
              "speedup_vs_intra_all": {k: round(min(times[f"intra {cpus}"]) / min(v), 2)
                                       for k, v in times.items()},
              "same_bits_as_intra_all": {k: bool(np.array_equal(v, base))
                                         for k, v in vectors.items()},
              "max_abs_diff": {k: float(np.abs(v - base).max()) for k, v in vectors.items()}}
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
