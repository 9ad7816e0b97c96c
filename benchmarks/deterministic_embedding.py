"""What byte-identical sentence embeddings cost: four ways to make a sentence's vector
independent of the sentences batched with it, timed side by side on the same sentences.

* ``padded``: sentence-transformers' own batching (the baseline; NOT deterministic: a
  sentence's vector changes in the 7th digit with its batch's longest neighbour);
* ``same_length``: batches of equal token length, no padding, filled with repeats to at
  least 64 token rows per pass (what xlebench does; `same_length_batches`);
* ``batch_1``: one sentence per call;
* ``float64``: padded batches computed in float64, rounded to float32.

Also reports, for each, on how many of 200 sentences the vector encoded alone differs from
the vector encoded within the whole batch (0 = independent of the neighbours).

Usage: python benchmarks/deterministic_embedding.py [--video-info PATH] [--n 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from xlebench.library.embed import MiniLMEmbedder, same_length_batches

HERE = Path(__file__).resolve().parent
VIDEO_INFO = HERE.parent.parent / "shared" / "data" / "xlebench_video_info.json"


def _texts(path: Path, n: int) -> list[str]:
    if not path.is_file():
        raise SystemExit(f"{path} not found: pass --video-info (the authors' video_info.json)")
    rows = json.loads(path.read_text())
    return list(dict.fromkeys(r["consolidated_summary"] for r in rows))[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--video-info", type=Path, default=VIDEO_INFO)
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts = _texts(args.video_info, args.n)
    emb = MiniLMEmbedder()
    model = emb._load()
    model.encode(texts[:16])

    def padded(ts):
        return model.encode(ts, batch_size=64, convert_to_numpy=True,
                            normalize_embeddings=True, show_progress_bar=False)

    def batch_1(ts):
        return np.stack([padded([t])[0] for t in ts])

    def float64(ts):
        model.double()
        try:
            return padded(ts).astype(np.float32)
        finally:
            model.float()

    ways = {"padded": padded, "same_length": emb.encode, "batch_1": batch_1,
            "float64": float64}
    report: dict = {"sentences": len(texts), "passes_same_length": len(same_length_batches(
        [len(x) for x in model.tokenizer(texts)["input_ids"]], 64))}
    probe = 200
    for name, fn in ways.items():
        subset = texts if name != "batch_1" else texts[: len(texts) // 4]
        t = time.perf_counter()
        together = fn(subset)
        seconds = (time.perf_counter() - t) * len(texts) / len(subset)
        alone = np.stack([fn([s])[0] for s in subset[:probe]])
        differ = int((np.abs(together[:probe] - alone).max(axis=1) > 0).sum())
        report[name] = {"seconds": round(seconds, 2), "alone_differs": f"{differ}/{probe}"}
    base = report["padded"]["seconds"]
    for name in ways:
        report[name]["cost_vs_padded"] = round(report[name]["seconds"] / base, 2)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
