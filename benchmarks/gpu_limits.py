"""Where the GPU path's time goes, against its limits (issue 60): one call on a lent card.

Four measurements on a random-weight Qwen2-VL of a published size (`random_qwen2_vl`, bf16):

* ``shared``: one log's ``--items`` questions over ``--frames`` frames through the shared
  prefix, its time split by phase (frames decoded, processor, replayed tokens, prefix pass,
  the questions' decoding): packed in the prefix's one row with decoding off cuDNN (the
  backend's way) on a first log and again on another, with cuDNN building its per-shape
  plans and with them cached, and with the prefix's cache repeated per question (the earlier
  way; ``--skip repeated`` leaves it out); answers compared with each other and with
  separate requests for the first ``--check`` questions.
* ``prefill``: one request's forward through each SDPA kernel PyTorch offers (default, cuDNN,
  flash, memory-efficient), the vision tower timed alone, each with its FLOP rate and MFU
  against the card's bf16 peak; with ``--compile``, the language model's decoder layers
  compiled (``torch.compile``) and timed again.
* ``images``: the frames' preprocessing by the PIL processor and, where torchvision is
  installed, by the torchvision one on the CPU and on the GPU.
* ``across_logs``: where batching across logs is meant to pay — decode-heavy requests (few
  frames, long replies, as Socratic captions) — separate requests vs ``--logs`` logs answered
  together (`run_lockstep`), with the tokens each generated.

Prints one JSON line per measurement and a summary; ``--out`` also writes them to a file.
Without CUDA it runs the tiny model (same code; not GPU figures).
Usage: python benchmarks/gpu_limits.py [--size 7b] [--frames 64] [--items 30] [--compile]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gpu_eval import PEAKS, flops_per_request, life_log, requests  # noqa: E402

from xlebench.config.schema import TransformersVLMConfig  # noqa: E402
from xlebench.testing.tiny_vlm import random_qwen2_vl  # noqa: E402
from xlebench.vlm import transformers_backend  # noqa: E402
from xlebench.vlm.lockstep import run_lockstep  # noqa: E402
from xlebench.vlm.transformers_backend import TransformersVLM  # noqa: E402


class Phases:
    """Wall time per phase, the device synchronised around each timed call."""

    def __init__(self, sync) -> None:
        self.sync, self.seconds = sync, {}

    def wrap(self, name: str, fn):
        def timed(*args, **kw):
            self.sync()
            start = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                self.sync()
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
        return timed

    def rounded(self) -> dict:
        return {k: round(v, 3) for k, v in self.seconds.items()}


def backend(loaded, tmp: Path, name: str, **kw) -> TransformersVLM:
    settings = dict(backend="transformers", model=f"random-{name}", max_tokens=16,
                    temperature=0.0, max_images=1 << 12)
    return TransformersVLM(TransformersVLMConfig(**{**settings, **kw}),
                           tmp / f"cache-{name}-{time.perf_counter_ns()}", loaded=loaded)


def shared(loaded, tmp: Path, log: list, sync, packed: bool, monkey,
           profile: Path | None = None) -> tuple[dict, list[str]]:
    """One log's questions through the shared prefix, timed by phase (``profile``: the
    timed call under torch.profiler, its top operators written there and summarised)."""
    vlm = backend(loaded, tmp, "packed" if packed else "repeated", batch_size=len(log))
    if not packed:
        monkey.append((transformers_backend, "packable", transformers_backend.packable))
        transformers_backend.packable = lambda *a: False
    vlm.answer_batch(log[:2])  # warm-up outside the timing: kernels, allocator pools
    vlm.cache = type(vlm.cache)(tmp / f"timed-{time.perf_counter_ns()}")
    phases = Phases(sync)
    processor, model = vlm._loaded
    call = type(processor).__call__
    type(processor).__call__ = phases.wrap("processor (images, first tokens)", call)
    vlm._images = phases.wrap("frames decoded", vlm._images)
    vlm._replay = phases.wrap("other questions' tokens", vlm._replay)
    vlm._prefix_pass = phases.wrap("prefix pass", vlm._prefix_pass)
    greedy, generate = transformers_backend.packed_greedy, model.generate
    transformers_backend.packed_greedy = phases.wrap("questions decoded", greedy)
    model.generate = phases.wrap("questions decoded", generate)
    try:
        sync()
        start = time.perf_counter()
        if profile is None:
            answers = [c.text for c in vlm.answer_batch(log)]
        else:
            answers = profiled(lambda: [c.text for c in vlm.answer_batch(log)], profile)
        sync()
        seconds = time.perf_counter() - start
    finally:
        type(processor).__call__ = call
        transformers_backend.packed_greedy = greedy
        model.generate = generate
        while monkey:
            owner, attr, value = monkey.pop()
            setattr(owner, attr, value)
    phases.seconds["other"] = seconds - sum(phases.seconds.values())
    return {"seconds": round(seconds, 3), "items_per_s": round(len(answers) / seconds, 3),
            "phases": phases.rounded()}, answers


def profiled(fn, path: Path):
    """``fn()`` under torch.profiler; the operators' table by device and by host time."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + (
        [ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    with profile(activities=activities, record_shapes=True) as prof:
        out = fn()
    table = prof.key_averages(group_by_input_shape=True)
    device_key = "self_cuda_time_total" if torch.cuda.is_available() else "self_cpu_time_total"
    path.write_text(table.table(sort_by=device_key, row_limit=40, max_name_column_width=60)
                    + "\n\n" + table.table(sort_by="self_cpu_time_total", row_limit=40,
                                             max_name_column_width=60))
    print(prof.key_averages().table(sort_by=device_key, row_limit=12,
                                    max_name_column_width=50), flush=True)
    return out


def prefill(loaded, requests_: list[list[dict]], sync, peak: float | None,
            compile_: bool) -> dict:
    """One request's forward by SDPA kernel set (cuDNN, PyTorch's default on an H100; the
    backend's plan-free set; flash alone), the vision tower's attention per frame vs in one
    call, the first call at a new length, the vision tower alone, and compiled."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from xlebench.vlm import frames_attention
    from xlebench.vlm.prefix import shape_free_attention

    probe = TransformersVLM(TransformersVLMConfig(backend="transformers", model="probe",
                                                  max_images=1 << 12),
                            Path(tempfile.mkdtemp()), loaded=loaded)
    processor, model = loaded

    def encode(request):
        text, paths = probe._prompt(request)
        return processor(text=[text], images=probe._images(paths), return_tensors="pt").to(
            probe.device)
    inputs = encode(requests_[0])
    n = int(inputs["input_ids"].shape[1])
    image_tokens = int((inputs["input_ids"] == model.config.image_token_id).sum())
    flops = flops_per_request(model, n, image_tokens)

    def timed(fn, repeats: int = 3) -> float:
        with torch.inference_mode():
            fn()
            sync()
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                fn()
                sync()
                times.append(time.perf_counter() - start)
        return sorted(times)[len(times) // 2]

    def once(fn) -> float:
        with torch.inference_mode():
            sync()
            start = time.perf_counter()
            fn()
            sync()
        return time.perf_counter() - start

    def rate(seconds: float, work: float) -> dict:
        out = {"seconds": round(seconds, 4), "tflops_per_s": round(work / seconds / 1e12, 1)}
        if peak:
            out["mfu"] = round(work / seconds / 1e12 / peak, 3)
        return out
    row: dict = {"tokens": n, "image_tokens": image_tokens, "kernels": {}}
    visual_config = model.model.visual.config
    flash = [SDPBackend.FLASH_ATTENTION]
    runs = {"cudnn_default": (None, True), "backend_no_cudnn": ("backend", True),
            "flash_only": (flash, True), "cudnn_per_frame_vision": (None, False),
            "backend_per_frame_vision": ("backend", False)}
    for name, (kernels, one_call) in runs.items():
        visual_config._attn_implementation = frames_attention.NAME if one_call else "sdpa"
        context = (shape_free_attention(probe.device) if kernels == "backend"
                   else sdpa_kernel(kernels) if kernels else contextlib.nullcontext())
        try:
            with context:
                row["kernels"][name] = rate(timed(lambda: model(**inputs)), flops)
        except Exception as exc:
            row["kernels"][name] = {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}
    visual_config._attn_implementation = frames_attention.NAME
    # a new length (another log's prefix): cuDNN's first call builds its plans
    for k, (name, kernels) in enumerate((("cudnn_default", None), ("backend_no_cudnn",
                                                                  "backend"))):
        fresh = encode(requests_[1 + k])
        context = (shape_free_attention(probe.device) if kernels == "backend"
                   else contextlib.nullcontext())
        with context:
            first = once(lambda x=fresh: model(**x))
            again = once(lambda x=fresh: model(**x))
        row[f"first_call_new_length_{name}"] = {"tokens": int(fresh["input_ids"].shape[1]),
                                                "first": round(first, 4),
                                                "second": round(again, 4)}
    vision = [p.numel() for k, p in model.named_parameters() if "visual" in k]
    vis = model.config.vision_config
    patches = 4 * image_tokens
    vision_flops = 2 * sum(vision) * patches + 4 * vis.depth * patches * 1200 * vis.embed_dim
    with shape_free_attention(probe.device):
        seconds = timed(lambda: model.model.visual(inputs["pixel_values"],
                                                   grid_thw=inputs["image_grid_thw"]))
    row["vision_tower"] = rate(seconds, vision_flops)
    whole = row["kernels"]["backend_no_cudnn"].get("seconds")
    if whole:
        row["language_model"] = rate(whole - seconds, flops - vision_flops)
    if compile_:
        import torch._dynamo

        torch._dynamo.config.recompile_limit = 64
        start = time.perf_counter()
        blocks = [*model.model.language_model.layers, *model.model.visual.blocks]
        try:
            for block in blocks:
                block.compile(dynamic=False)
            with torch.inference_mode():
                model(**inputs, use_cache=False)
                sync()
                compile_s = time.perf_counter() - start
                row["compiled_no_cache_cudnn"] = {"compile_seconds": round(compile_s, 1),
                                                  **rate(timed(lambda: model(
                                                      **inputs, use_cache=False)), flops)}
                with shape_free_attention(probe.device):
                    row["compiled_no_cache"] = rate(timed(lambda: model(
                        **inputs, use_cache=False)), flops)
        except Exception as exc:
            row["compiled_no_cache"] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        finally:
            for block in blocks:
                block._compiled_call_impl = None
        row["eager_no_cache_cudnn"] = rate(timed(lambda: model(**inputs, use_cache=False)),
                                           flops)
    return row


def images(processor, paths: list[str], device: str) -> dict:
    """The frames' preprocessing: the PIL processor; torchvision's on the CPU and the GPU."""
    from PIL import Image

    frames = [Image.open(p).convert("RGB") for p in paths]
    out = {}

    def timed(fn) -> float:
        fn()
        start = time.perf_counter()
        fn()
        return round(time.perf_counter() - start, 3)
    out["pil"] = timed(lambda: processor.image_processor(images=frames, return_tensors="pt"))
    try:
        from transformers import Qwen2VLImageProcessor
        fast = Qwen2VLImageProcessor()
        out["torchvision_cpu"] = timed(lambda: fast(images=frames, return_tensors="pt"))
        if device.startswith("cuda"):
            out["torchvision_cuda"] = timed(lambda: fast(images=frames, return_tensors="pt",
                                                         device=device))
            a = processor.image_processor(images=frames, return_tensors="pt")["pixel_values"]
            b = fast(images=frames, return_tensors="pt", device=device)["pixel_values"]
            out["max_pixel_gap"] = round(float((a.float() - b.float().cpu()).abs().max()), 4)
    except Exception as exc:
        out["torchvision"] = f"{type(exc).__name__}: {str(exc)[:160]}"
    return out


def across_logs(loaded, tmp: Path, sync, logs: int, frames: int, tokens: int) -> dict:
    """Decode-heavy requests (few frames, long replies): one at a time vs logs together."""
    work = [requests(*life_log(tmp, 100 + k, frames), 1) for k in range(logs)]
    out, answers = {}, {}
    for name, batch in (("separate", 1), ("across_logs", logs)):
        vlm = backend(loaded, tmp, f"caption-{name}", batch_size=batch, prefix_cache=False,
                      max_tokens=tokens)
        vlm.answer_batch(work[0])  # warm-up
        vlm.cache = type(vlm.cache)(tmp / f"caption-timed-{time.perf_counter_ns()}")
        sync()
        start = time.perf_counter()
        if name == "separate":
            got = [c.text for log in work for c in vlm.answer_batch(log)]
        else:
            replies = run_lockstep([partial(vlm.answer_batch, log) for log in work])
            got = [c.text for log in replies for c in log]
        sync()
        seconds = time.perf_counter() - start
        generated = sum(len(vlm._loaded[0].tokenizer(t)["input_ids"]) for t in got)
        out[name] = {"seconds": round(seconds, 3), "items_per_s": round(len(got) / seconds, 3),
                     "reply_tokens": generated}
        answers[name] = got
    out["across_logs_vs_separate"] = round(out["across_logs"]["items_per_s"]
                                           / out["separate"]["items_per_s"], 2)
    out["identical_answers"] = answers["separate"] == answers["across_logs"]
    out["same_answers"] = sum(a == b for a, b in zip(answers["separate"],
                                                      answers["across_logs"], strict=True))
    return {"logs": logs, "frames": frames, "max_tokens": tokens, **out}


def main() -> None:
    import torch

    ap = argparse.ArgumentParser()
    cuda = torch.cuda.is_available()
    ap.add_argument("--size", default="7b" if cuda else "tiny")
    ap.add_argument("--frames", type=int, default=64)
    ap.add_argument("--items", type=int, default=30)
    ap.add_argument("--check", type=int, default=4, help="questions also asked separately")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--caption-logs", type=int, default=8)
    ap.add_argument("--caption-frames", type=int, default=4)
    ap.add_argument("--caption-tokens", type=int, default=96)
    ap.add_argument("--skip", default="", help="comma-separated sections to leave out")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--profile", type=Path, default=None,
                    help="profile the packed shared path, its operator tables to this file")
    args = ap.parse_args()
    device = "cuda" if cuda else "cpu"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    name = torch.cuda.get_device_name() if cuda else "cpu"
    peak = next((v for k, v in PEAKS.items() if k in name), None)
    import transformers
    report: dict = {"device": name, "torch": torch.__version__,
                    "transformers": transformers.__version__, "size": args.size,
                    "frames": args.frames, "items": args.items}
    skip = set(filter(None, args.skip.split(",")))
    start = time.perf_counter()
    loaded = random_qwen2_vl(args.size, device=device)
    sync()
    report["model_build_seconds"] = round(time.perf_counter() - start, 1)

    def emit(key: str, value) -> None:
        report[key] = value
        print(json.dumps({key: value}), flush=True)
        if args.out:
            args.out.write_text(json.dumps(report, indent=1))
    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        frames = life_log(tmp, 0, args.frames)[1]
        if "shared" not in skip:
            logs = [requests(*life_log(tmp, k, args.frames), args.items) for k in range(4)]
            answers = {}
            plain = transformers_backend.shape_free_attention
            # (name, log, plan-free decoding, packed): cuDNN's plans are first built on log 2
            runs = [("packed_first_shapes", 1, True, True),
                    ("packed_cudnn_first_shapes", 2, False, True),
                    ("packed_cudnn_cached_plans", 3, False, True),
                    ("packed_again", 0, True, True)]
            if "repeated" not in skip:  # the earlier way: the prefix's cache per question
                runs.append(("repeated", 1, True, False))
            for key, k, shape_free, packed in runs:
                if not shape_free:
                    transformers_backend.shape_free_attention = (
                        lambda device: contextlib.nullcontext())
                try:
                    row, answers[key] = shared(loaded, tmp, logs[k], sync, packed, [])
                finally:
                    transformers_backend.shape_free_attention = plain
                emit(f"shared_{key}", row)
            if args.profile:
                row, _ = shared(loaded, tmp, logs[1], sync, True, [], args.profile)
                emit("shared_packed_profiled", row)
            alone = backend(loaded, tmp, "separate", batch_size=1, prefix_cache=False)
            reference = [c.text for c in alone.answer_batch(logs[1][:args.check])]
            emit("answers", {"packed_equals_separate": sum(
                a == b for a, b in zip(answers["packed_first_shapes"], reference,
                                       strict=False)), "checked_separately": len(reference),
                "packed_equals_repeated": sum(a == b for a, b in zip(
                    answers["packed_first_shapes"], answers.get("repeated", []),
                    strict=False)), "of": len(answers.get("repeated", []))})
            log = logs[0]
        else:
            log = requests(*life_log(tmp, 0, args.frames), args.items)
        if "images" not in skip:
            emit("images", images(loaded[0], [str(f.path) for f in frames], device))
        if "across_logs" not in skip:
            emit("across_logs", across_logs(loaded, tmp, sync, args.caption_logs,
                                            args.caption_frames, args.caption_tokens))
        if "prefill" not in skip:
            emit("prefill", prefill(loaded, log[:3], sync, peak, args.compile))
    if cuda:
        report["peak_gpu_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2 ** 30, 1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
