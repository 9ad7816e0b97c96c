"""GPU evaluation at the paper's scale: real-size random Qwen2-VL models answer life-log questions.

Throughput does not depend on weight values, so a model built from Qwen2-VL-2B's or -7B's
configuration with random weights (`xlebench.testing.tiny_vlm.random_qwen2_vl`, bfloat16, SDPA) costs
the FLOPs and memory of the trained one. For each size and frame count, ``--logs`` life logs of
``--items`` questions each (the end-to-end prompt, ``eval/end_to_end.v1``, over 560x420 frames
in the paper's time-stamped blocks) are answered through the transformers backend, side by
side in one run:

* ``separate``: one request per question (batch 1, no shared prefix) — every question encodes
  the day's frames again;
* ``across_logs``: no shared prefix, but the logs answered together (``vlm.logs_per_batch``)
  in padded batches of ``--batch-size`` requests (what batching alone gives);
* ``shared``: a log's questions together (``vlm.prefix_cache``): the frames' prefix runs once
  and its key/value cache serves every question, decoded together after it (packed in the
  prefix's row under greedy decoding; `benchmarks/gpu_limits.py` splits its time by phase).

Also EgoSchema's likelihood scoring of one question's 5 options: the prompt run once with the
options batched on its cache vs a full pass per option (time and the largest score gap).

Reported per configuration: items/s of both and their ratio (target >= 3x with >= 8 items a log
on the GPU), whether the answers are identical (greedy), prefill tokens/s of one whole request
and its model FLOPs utilisation against the GPU's bfloat16 peak (``--peak-tflops``, else by
name: H100/H200 989, A100 312), peak GPU memory, and the GPU-hours the paper grid (432 logs,
``--items-per-log``, or counted in ``--benchmark``'s annotations) would take at these settings.

Without CUDA it runs the tiny Qwen2-VL on the CPU (the same code path; its figures are not GPU
figures). Usage: python benchmarks/gpu_eval.py [--sizes 2b,7b] [--frames 32,64] [--items 8]
       [--logs 2] [--benchmark outputs/benchmarks/demo]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from functools import partial
from pathlib import Path

from PIL import Image

from xlebench.config.schema import TransformersVLMConfig
from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.testing.tiny_vlm import random_qwen2_vl
from xlebench.vlm.lockstep import run_lockstep
from xlebench.vlm.messages import Frame
from xlebench.vlm.transformers_backend import TransformersVLM

#: Question shapes of the recipes (subtask, question), one log's worth cycling through them.
QUESTIONS = [
    ("object_retrieval", "Where did I put the scissors in the record provided for the "
                         "{a} - {b} time period?"),
    ("people_retrieval", "Who did I talk to in the kitchen in the record provided for the "
                         "{a} - {b} time period?"),
    ("moment_retrieval", "When did I (wash dishes) in the record provided for the "
                         "{a} - {b} time period?"),
    ("action_counting", "How many times did I cut vegetables in the record provided for the "
                        "{a} - {b} time period?"),
    ("single_summary", "Summarise what I did in the record provided for the {a} - {b} "
                       "time period."),
    ("summary_ordering", "Order these summaries of my day by when they happened: (A) I cooked "
                         "dinner. (B) I rode a bus. (C) I played cards."),
    ("holistic_summary", "Summarise my whole day."),
    ("multi_summary", "Summarise what I did in the morning."),
]
PEAKS = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L40S": 362.0, "A10": 125.0}
PAPER_LOGS = 432


def life_log(tmp: Path, index: int, n_frames: int) -> tuple[dict, list[Frame]]:
    """A 10-hour log of 5 segments and n distinct 560x420 frames spread over it."""
    segs = [{"index": k, "video_uid": f"v{index}{k}", "start_s": 25200 + k * 7200,
             "end_s": 25200 + k * 7200 + 3600} for k in range(5)]
    frames, per_seg = [], max(1, n_frames // len(segs))
    for k in range(n_frames):
        seg = segs[k * len(segs) // n_frames]
        t = seg["start_s"] + (k % per_seg) * 3600 // per_seg
        path = tmp / f"log{index}-{k:04d}.jpg"
        Image.effect_noise((560, 420), 40 + k % 50).convert("RGB").save(path, format="JPEG")
        frames.append(Frame(path, f"{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}", t))
    return {"lifelog_id": f"log{index}", "segments": segs}, frames


def requests(log: dict, frames: list[Frame], n_items: int) -> list[list[dict]]:
    out = []
    for q in range(n_items):
        subtask, text = QUESTIONS[q % len(QUESTIONS)]
        query = text.format(a=f"{7 + q % 8:02d}:00", b=f"{8 + q % 8:02d}:30")
        out.append(_with_frames(PROMPT, blocks(frames, log), question=query,
                                answer_format=load_recipe(subtask).answer_format))
    return out


def flops_per_request(model, n_tokens: int, image_tokens: int) -> float:
    """Forward FLOPs of one request: 2 x parameters per token through the language model
    (embeddings excluded, the output head counted once per position), causal attention
    (2 x layers x T^2 x width), and the vision tower on the 4 patches behind each image
    token (its attention within each 1200-patch frame)."""
    text, vis = model.config.text_config, model.config.vision_config
    lm = sum(p.numel() for n, p in model.named_parameters()
             if "visual" not in n and "embed_tokens" not in n)
    vision = sum(p.numel() for n, p in model.named_parameters() if "visual" in n)
    patches = 4 * image_tokens
    per_frame = 1200  # a 560x420 frame: 30 x 40 patches of 14 pixels
    return (2 * lm * n_tokens + 2 * text.num_hidden_layers * n_tokens ** 2 * text.hidden_size
            + 2 * vision * patches + 4 * vis.depth * patches * per_frame * vis.embed_dim)


def measure_prefill(vlm: TransformersVLM, request: list[dict], sync) -> dict:
    import torch

    processor, model = vlm._loaded
    text, paths = vlm._prompt(request)
    inputs = processor(text=[text], images=vlm._images(paths), return_tensors="pt").to(vlm.device)
    n = int(inputs["input_ids"].shape[1])
    image_tokens = int((inputs["input_ids"] == model.config.image_token_id).sum())
    with torch.inference_mode():
        model(**inputs)  # warm-up: kernels chosen, memory pools filled
        sync()
        start = time.perf_counter()
        model(**inputs)
        sync()
    seconds = time.perf_counter() - start
    return {"tokens": n, "image_tokens": image_tokens, "seconds": round(seconds, 3),
            "tokens_per_s": round(n / seconds, 1),
            "tflops_per_s": round(flops_per_request(model, n, image_tokens) / seconds / 1e12, 2)}


MODES = {"separate": dict(prefix_cache=False), "across_logs": dict(prefix_cache=False),
         "shared": dict(prefix_cache=True)}


def run_mode(loaded, tmp: Path, name: str, logs: list[list[list[dict]]], sync,
             batch_size: int) -> tuple[dict, list[str]]:
    batch = {"separate": 1, "across_logs": batch_size, "shared": sum(map(len, logs))}[name]
    vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model=f"random-{name}",
                                    max_tokens=16, temperature=0.0, max_images=1 << 12,
                                    batch_size=batch, **MODES[name]),
                          tmp / f"cache-{name}-{time.perf_counter_ns()}", loaded=loaded)
    vlm.answer_batch(logs[0][:1])  # warm-up outside the timing
    vlm.cache = type(vlm.cache)(tmp / f"cache-{name}-timed-{time.perf_counter_ns()}")
    prefixes: list[int] = []
    vlm.report = lambda counter, n: prefixes.append(n) if counter == "shared prefixes" else None
    sync()
    start = time.perf_counter()
    if name == "across_logs":
        replies = run_lockstep([partial(vlm.answer_batch, log) for log in logs])
        failed = [r for r in replies if isinstance(r, BaseException)]
        if failed:
            raise failed[0]
        answers = [c.text for log in replies for c in log]
    else:
        answers = [c.text for log in logs for c in vlm.answer_batch(log)]
    sync()
    seconds = time.perf_counter() - start
    return {"seconds": round(seconds, 2), "items_per_s": round(len(answers) / seconds, 3),
            "batch_size": batch, "prefix_runs": sum(prefixes)}, answers


OPTIONS = ["C cooks dinner and then washes the dishes.", "C rides a bus to the city centre.",
           "C plays cards with friends.", "C repairs a bicycle in the garage.",
           "C reads a book in the park."]


def measure_likelihood(vlm: TransformersVLM, request: list[dict], sync) -> dict:
    """EgoSchema's per-option scoring of one question with 5 options: the prompt (frames and
    question) run once with the options batched on its cache vs a full pass per option."""
    prompt, frames = vlm._prompt(request)
    vlm.option_logprobs(request, OPTIONS[:1])  # warm-up
    times, scores = {}, {}
    for name, run in (("per_option", lambda: vlm._option_logprobs_each(
            prompt, vlm._images(frames), OPTIONS)),
                      ("shared", lambda: vlm.option_logprobs(request, OPTIONS))):
        sync()
        start = time.perf_counter()
        scores[name] = run()
        sync()
        times[name] = round(time.perf_counter() - start, 3)
    gap = max(abs(a - b) for a, b in zip(scores["shared"], scores["per_option"], strict=True))
    return {"seconds": times, "speedup": round(times["per_option"] / times["shared"], 2),
            "max_score_gap": round(gap, 6)}


def configuration(size: str, n_frames: int, args, tmp: Path, device: str, peak: float | None
                  ) -> dict:
    import torch

    cuda = device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    loaded = random_qwen2_vl(size, device=device)
    logs = [requests(*life_log(tmp, k, n_frames), args.items) for k in range(args.logs)]
    row: dict = {"size": size, "frames": n_frames, "items_per_log": args.items,
                 "logs": args.logs}
    probe = TransformersVLM(TransformersVLMConfig(backend="transformers", model="probe",
                                      max_images=1 << 12), tmp / "probe", loaded=loaded)
    row["prefill"] = measure_prefill(probe, logs[0][0], sync)
    row["likelihood_5_options"] = measure_likelihood(probe, logs[0][0], sync)
    if peak:
        row["prefill"]["mfu"] = round(row["prefill"]["tflops_per_s"] / peak, 3)
    answers = {}
    for mode in MODES:
        row[mode], answers[mode] = run_mode(loaded, tmp, mode, logs, sync, args.batch_size)
    for mode in ("across_logs", "shared"):
        row[f"{mode}_vs_separate"] = round(row[mode]["items_per_s"]
                                           / row["separate"]["items_per_s"], 2)
    row["identical_answers"] = all(a == answers["separate"] for a in answers.values())
    if cuda:
        row["peak_gpu_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2 ** 30, 1)
    per_log = args.items_per_log
    row["paper_grid_hours"] = {
        mode: round(PAPER_LOGS * per_log / row[mode]["items_per_s"] / 3600, 1)
        for mode in MODES}
    return row


def items_per_log(benchmark: Path | None, default: int) -> int:
    """Items per life log in a compiled benchmark's annotations (else `default`)."""
    if benchmark is None:
        return default
    counts: dict[str, int] = {}
    for path in (benchmark / "annotations").glob("*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            lid = json.loads(line)["lifelog_id"]
            counts[lid] = counts.get(lid, 0) + 1
    return round(sum(counts.values()) / max(1, len(counts)))


def main() -> None:
    import torch

    ap = argparse.ArgumentParser()
    cuda = torch.cuda.is_available()
    ap.add_argument("--sizes", default="2b,7b" if cuda else "tiny")
    ap.add_argument("--frames", default="32,64")
    ap.add_argument("--items", type=int, default=8)
    ap.add_argument("--logs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=8 if cuda else 2,
                    help="across_logs' padded batch (a CPU's attention holds T^2 per row)")
    ap.add_argument("--items-per-log", type=int, default=30,
                    help="for the paper-grid projection (or counted with --benchmark)")
    ap.add_argument("--benchmark", type=Path, default=None)
    ap.add_argument("--peak-tflops", type=float, default=None)
    args = ap.parse_args()
    args.items_per_log = items_per_log(args.benchmark, args.items_per_log)
    device = "cuda" if cuda else "cpu"
    name = torch.cuda.get_device_name() if cuda else "cpu"
    peak = args.peak_tflops or next((v for k, v in PEAKS.items() if k in name), None)
    report = {"device": name, "bf16_peak_tflops": peak, "torch": torch.__version__,
              "paper_items_per_log": args.items_per_log, "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            for n in (int(f) for f in args.frames.split(",")):
                report["rows"].append(configuration(size, n, args, Path(tmp), device, peak))
                print(json.dumps(report["rows"][-1]), flush=True)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
