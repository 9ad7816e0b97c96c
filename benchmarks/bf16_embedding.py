"""Cold sentence embedding by precision and device, side by side and alternating, on the
authors' library summaries (or synthetic ones): fp32 on the CPU (the default, the baseline)
vs ``matcher.embedder.precision=bf16`` (autocast: matrix products in bfloat16, norms and
softmax in float32) and, where torch sees a CUDA device, ``matcher.embedder.device=cuda`` in
fp32 and bf16 at the default batch size and a GPU-sized one. Each vector's cosine to its CPU
fp32 one is reported.

Usage: python benchmarks/bf16_embedding.py [--video-info ../shared/data/xlebench_video_info.json]
       [--n 2000] [--repeats 2] [--model FOLDER] [--gpu-batch 256]
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
        return [r["consolidated_summary"] for r in rows[:n or None]]
    return [f"C {v} the {o} in the {p}." for v in ("cuts", "washes", "carries", "opens")
            for o in ("onion", "cup", "door", "box", "pan") for p in ("kitchen", "garage")] * 50


def variants(model: str | None, gpu_batch: int) -> dict[str, MiniLMEmbedder]:
    import torch

    out = {"cpu_fp32": MiniLMEmbedder(model), "cpu_bf16": MiniLMEmbedder(model,
                                                                          precision="bf16")}
    if torch.cuda.is_available():
        for batch in (64, gpu_batch):
            for precision in ("fp32", "bf16"):
                out[f"cuda_{precision}_b{batch}"] = MiniLMEmbedder(
                    model, batch, precision=precision, device="cuda")
    return out


def timed(embedder: MiniLMEmbedder, sentences: list[str]) -> tuple[float, np.ndarray]:
    import torch

    start = time.perf_counter()
    vectors = embedder.encode(sentences)  # copied back to host memory: synchronised
    if embedder.device != "cpu":
        torch.cuda.synchronize()
    return time.perf_counter() - start, vectors


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", type=Path,
                    default=ROOT.parent / "shared/data/xlebench_video_info.json")
    ap.add_argument("--n", type=int, default=2000, help="summaries (0: all)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--model", default=None, help="a sentence-transformers folder "
                    "(default: the bundled all-MiniLM-L6-v2)")
    ap.add_argument("--gpu-batch", type=int, default=256)
    args = ap.parse_args()
    sentences = texts(args.video_info, args.n)
    runs = variants(args.model, args.gpu_batch)
    for e in runs.values():
        e.encode(sentences[:8])  # load (and on a GPU, warm the kernels) outside the timings
    times: dict[str, list[float]] = {k: [] for k in runs}
    vectors = {}
    for _ in range(args.repeats):
        for name, e in runs.items():
            seconds, vectors[name] = timed(e, sentences)
            times[name].append(seconds)
    best = {k: round(min(v), 3) for k, v in times.items()}
    cos = {k: np.einsum("ij,ij->i", vectors["cpu_fp32"], v) for k, v in vectors.items()}
    report = {"sentences": len(sentences), "seconds": best,
              "speedup_vs_cpu_fp32": {k: round(best["cpu_fp32"] / v, 2) for k, v in best.items()},
              "cosine_to_cpu_fp32_min": {k: round(float(c.min()), 6) for k, c in cos.items()},
              "cosine_to_cpu_fp32_mean": {k: round(float(c.mean()), 6) for k, c in cos.items()}}
    if any(k.startswith("cuda") for k in runs):
        import torch

        report["gpu"] = torch.cuda.get_device_name(0)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
