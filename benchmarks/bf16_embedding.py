"""Cold sentence embedding by precision and device, side by side and alternating, on the
authors' library summaries (or synthetic ones): fp32 on the CPU (the default, the baseline)
vs ``matcher.embedder.precision=bf16`` (autocast: matrix products in bfloat16, norms and
softmax in float32) and, where torch sees a CUDA device, ``matcher.embedder.device=cuda`` in
fp32 and bf16 at the default batch size and a GPU-sized one. Each vector's cosine to its CPU
fp32 one is reported.

Issue 18's row compares a cold library embedding with the raw fp32 encoder: that baseline is
sentence-transformers' own ``encode`` on every summary, duplicates included (padded batches,
fp32); ``store_fp32`` and ``store_bf16`` are xlebench's cold path, an empty embedding store
(each distinct summary once, equal-length batches) over the fp32 and bf16 embedders. Run with
``--n 0`` so the library's duplicates count as they do in a build.

Usage: python benchmarks/bf16_embedding.py [--video-info ../shared/data/xlebench_video_info.json]
       [--n 2000] [--repeats 2] [--model FOLDER] [--gpu-batch 256]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from xlebench.library.embed import EmbeddingStore, MiniLMEmbedder, cpu_capability, cpu_has_bf16

ROOT = Path(__file__).resolve().parents[1]


def texts(video_info: Path, n: int) -> list[str]:
    if video_info.is_file():
        rows = json.loads(video_info.read_text())
        return [r["consolidated_summary"] for r in rows[:n or None]]
    return [f"C {v} the {o} in the {p}." for v in ("cuts", "washes", "carries", "opens")
            for o in ("onion", "cup", "door", "box", "pan") for p in ("kitchen", "garage")] * 50


def variants(model: str | None, gpu_batch: int) -> dict:
    import torch

    out = {"cpu_fp32": MiniLMEmbedder(model), "cpu_bf16": MiniLMEmbedder(model,
                                                                          precision="bf16")}
    out |= {"raw_st_fp32": RawSentenceTransformer(out["cpu_fp32"]),
            "store_fp32": ColdStore(out["cpu_fp32"]), "store_bf16": ColdStore(out["cpu_bf16"])}
    if torch.cuda.is_available():
        for batch in (64, gpu_batch):
            for precision in ("fp32", "bf16"):
                out[f"cuda_{precision}_b{batch}"] = MiniLMEmbedder(
                    model, batch, precision=precision, device="cuda")
    return out


class RawSentenceTransformer:
    """The baseline of issue 18's row: sentence-transformers' ``encode`` as a user would call
    it (every text, padded batches of 64, fp32, unit vectors)."""

    device = "cpu"

    def __init__(self, embedder: MiniLMEmbedder) -> None:
        self.embedder = embedder

    def encode(self, sentences: list[str]) -> np.ndarray:
        return self.embedder._load().encode(sentences, batch_size=64, convert_to_numpy=True,
                                            normalize_embeddings=True)


class ColdStore:
    """xlebench's cold path: a fresh embedding store, each distinct text encoded once."""

    device = "cpu"

    def __init__(self, embedder: MiniLMEmbedder) -> None:
        self.embedder = embedder

    def encode(self, sentences: list[str]) -> np.ndarray:
        with tempfile.TemporaryDirectory() as tmp:
            return EmbeddingStore(Path(tmp), self.embedder).encode(sentences)


def timed(embedder, sentences: list[str]) -> tuple[float, np.ndarray]:
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
    ap.add_argument("--skip", nargs="*", default=None,
                    help="variants left out (default: the CPU bf16 ones where the CPU has no "
                    "bfloat16 instructions: emulated, 6x slower, minutes on --n 2000)")
    args = ap.parse_args()
    if args.skip is None:
        args.skip = [] if cpu_has_bf16() else ["cpu_bf16", "store_bf16"]
    sentences = texts(args.video_info, args.n)
    runs = {k: v for k, v in variants(args.model, args.gpu_batch).items()
            if k not in args.skip}
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
    skipped = {k: "skipped (--skip)" for k in args.skip}
    report = {"sentences": len(sentences), "cpu": cpu_capability(),
              "cpu_bf16_instructions": cpu_has_bf16(), "seconds": best | skipped,
              "speedup_vs_cpu_fp32": {k: round(best["cpu_fp32"] / v, 2) for k, v in best.items()},
              "cold_store_vs_raw_st_fp32": {k: round(best["raw_st_fp32"] / best[k], 2)
                                            for k in ("store_fp32", "store_bf16")
                                            if k in best and "raw_st_fp32" in best},
              "distinct": len(set(sentences)),
              "cosine_to_cpu_fp32_min": {k: round(float(c.min()), 6) for k, c in cos.items()},
              "cosine_to_cpu_fp32_mean": {k: round(float(c.mean()), 6) for k, c in cos.items()}}
    if any(k.startswith("cuda") for k in runs):
        import torch

        report["gpu"] = torch.cuda.get_device_name(0)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
