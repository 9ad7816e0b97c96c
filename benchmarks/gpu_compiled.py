"""The backend's prefill with ``vlm.compile=blocks`` against eager, on a lent card (issue 71).

A random-weight Qwen2-VL of a published size (bf16), ``--logs`` life logs of ``--frames``
frames: each log's prefix pass — the backend's own `_prefix_pass`, which keeps the cache the
questions decode from — timed eager, then with the cache-free blocks compiled
(`xlebench.vlm.compiled`, dynamic shapes): the first call of each log (a new length: a
shape-specialised graph would recompile here) and again, with its FLOP rate and MFU; then the
shared path (one log's ``--items`` questions, packed) eager and compiled, items/s and whether
the answers agree. Same-call ratios only. Without CUDA it runs the tiny model (not figures).
Usage: python benchmarks/gpu_compiled.py [--size 7b] [--frames 64] [--items 30] [--out F]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gpu_eval import PEAKS, flops_per_request, life_log, requests  # noqa: E402
from gpu_limits import backend, shared  # noqa: E402

from xlebench.testing.tiny_vlm import random_qwen2_vl  # noqa: E402
from xlebench.vlm.compiled import compile_blocks  # noqa: E402


def prefix_pass(probe, request, sync) -> tuple[float, float, float, int]:
    """(first call s, second call s, FLOPs, tokens) of one request's prefix pass."""
    import torch

    processor, model = probe._loaded
    text, paths = probe._prompt(request)
    inputs = processor(text=[text], images=probe._images(paths), return_tensors="pt").to(
        probe.device)
    n = int(inputs["input_ids"].shape[1])
    times = []
    with torch.inference_mode():
        for _ in range(2):
            sync()
            start = time.perf_counter()
            probe._prefix_pass(inputs, n)
            sync()
            times.append(time.perf_counter() - start)
    image_tokens = int((inputs["input_ids"] == model.config.image_token_id).sum())
    return times[0], times[1], flops_per_request(model, n, image_tokens), n


def rows(probe, logs, sync, peak) -> list[dict]:
    """Each log's prefix pass over its k-th question's request (another question, another
    prompt length: what a shape-specialised graph would recompile for)."""
    out = []
    for k, log in enumerate(logs):
        first, again, flops, n = prefix_pass(probe, log[k % len(log)], sync)
        row = {"tokens": n, "first_s": round(first, 4), "again_s": round(again, 4),
               "tflops_per_s": round(flops / again / 1e12, 1)}
        if peak:
            row["mfu"] = round(flops / again / 1e12 / peak, 3)
        out.append(row)
    return out


def main() -> None:
    import torch

    ap = argparse.ArgumentParser()
    cuda = torch.cuda.is_available()
    ap.add_argument("--size", default="7b" if cuda else "tiny")
    ap.add_argument("--frames", type=int, default=64)
    ap.add_argument("--items", type=int, default=30)
    ap.add_argument("--logs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    name = torch.cuda.get_device_name() if cuda else "cpu"
    peak = next((v for k, v in PEAKS.items() if k in name), None)
    report: dict = {"device": name, "torch": torch.__version__, "size": args.size}

    def emit(key: str, value) -> None:
        report[key] = value
        print(json.dumps({key: value}), flush=True)
        if args.out:
            args.out.write_text(json.dumps(report, indent=1))
    loaded = random_qwen2_vl(args.size, device="cuda" if cuda else "cpu")
    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        logs = [requests(*life_log(tmp, k, args.frames), args.items) for k in range(args.logs)]
        probe = backend(loaded, tmp, "probe")
        emit("prefix_eager", rows(probe, logs, sync, peak))
        eager_row, eager_answers = shared(loaded, tmp, logs[-1], sync, True, [])
        emit("shared_eager", eager_row)
        start = time.perf_counter()
        emit("compiled_modules", compile_blocks(loaded[1]))
        emit("prefix_compiled", rows(probe, logs, sync, peak))
        emit("compile_first_log_s", round(time.perf_counter() - start, 1))
        row, answers = shared(loaded, tmp, logs[-1], sync, True, [])
        emit("shared_compiled", {**row, "answers_equal_eager": sum(
            a == b for a, b in zip(answers, eager_answers, strict=True)),
            "of": len(answers)})
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
