"""MiniLM's forward passes one after another (each at every CPU as intra-op threads: how
xlebench ran them before) against side by side (`xlebench.library.threads.passes_in_threads`:
one pass per CPU, one torch thread each), alternating, in one process, on the same texts:
the authors' distinct library summaries, or synthetic sentences without the shared data.
Both legs run the same pass function over the same `same_length_batches`; the vectors must
be the same bytes.

Usage: python benchmarks/parallel_passes.py [--video-info ../shared/data/xlebench_video_info.json]
       [--n 3000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from xlebench.library.embed import MiniLMEmbedder, same_length_batches
from xlebench.library.threads import intra_op_threads, pass_threads

ROOT = Path(__file__).resolve().parents[1]


def texts(video_info: Path, n: int) -> list[str]:
    if video_info.is_file():
        rows = json.loads(video_info.read_text())
        found = sorted({r["consolidated_summary"] for r in rows if r.get("consolidated_summary")})
    else:
        found = [f"C {v} the {o} {k} times in the {p}." for v in ("cuts", "washes", "opens")
                 for o in ("onion", "cup", "door", "box") for p in ("kitchen", "garage")
                 for k in range(200)]
    return found[:n or None]


def one_at_a_time(embedder: MiniLMEmbedder, sentences: list[str]) -> np.ndarray:
    """The passes in this thread, each at `pass_threads` intra-op threads."""
    model = embedder._load()
    ids = embedder._token_ids(sentences)
    out = np.zeros((len(sentences), embedder.dim), dtype=np.float32)
    with intra_op_threads():
        for b in same_length_batches([len(x) for x in ids], embedder.batch_size):
            batch, vectors, _ = embedder._pass(
                (b, *embedder._features(model, [sentences[i] for i in b.rows])))
            out[batch.real] = vectors[: len(batch.real)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--video-info", type=Path,
                    default=ROOT.parent / "shared" / "data" / "xlebench_video_info.json")
    ap.add_argument("--n", type=int, default=3000, help="distinct summaries (0: all)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sentences = texts(args.video_info, args.n)
    embedder = MiniLMEmbedder()
    embedder.encode(sentences[:8])  # the model loaded outside the timings
    legs = {"one at a time": lambda: one_at_a_time(embedder, sentences),
            "side by side": lambda: embedder.encode(sentences)}
    seconds: dict[str, list[float]] = {k: [] for k in legs}
    vectors: dict[str, bytes] = {}
    for _ in range(args.repeats):
        for name, run in legs.items():
            start = time.perf_counter()
            vectors[name] = run().tobytes()
            seconds[name].append(time.perf_counter() - start)
    best = {k: min(v) for k, v in seconds.items()}
    print(f"{len(sentences)} texts, {pass_threads()} CPUs for passes, best of {args.repeats}")
    for name, runs in seconds.items():
        print(f"  {name:>14}: {best[name]:6.2f} s  (runs: {', '.join(f'{s:.2f}' for s in runs)})")
    print(f"  ratio {best['one at a time'] / best['side by side']:.2f}x; the same bytes: "
          f"{len(set(vectors.values())) == 1}")


if __name__ == "__main__":
    main()
