"""VLM evaluation throughput, side by side in one run:

* frames: xlebench's segment sampler (1 fps, 560x420 JPEG, cached per source video) against
  plain ffmpeg extracting the same frames from the same camera-like video;
* captions: the tiny random LLaVA (`xlebench.testing.tiny_vlm`) through the transformers backend,
  captioning 30-second segments at batch 1 and at batch 16, on the CPU and, when torch sees
  one, on the GPU (bfloat16);
* prefix: end-to-end questions of 2 life logs (8 each, the same frames within a log) as
  separate requests vs sharing the frames' prefix (`vlm.prefix_cache`), greedy, answers
  compared.

Usage: python benchmarks/vlm_throughput.py [--seconds 300] [--captions 32]
       [--parts frames,captions,prefix]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from xlebench.config.schema import TransformersVLMConfig
from xlebench.media.ffmpeg import run_ffmpeg
from xlebench.render.frames import FrameSpec, segment_frames
from xlebench.testing.tiny_vlm import build_tiny_vlm
from xlebench.vlm.client import make_vlm
from xlebench.vlm.messages import Frame, message


def _camera_video(path: Path, seconds: int) -> Path:
    run_ffmpeg(["-f", "lavfi", "-i", f"testsrc2=size=640x480:rate=30:duration={seconds}",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)])
    return path


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def frames(tmp: Path, seconds: int) -> dict:
    video = _camera_video(tmp / "cam.mp4", seconds)
    ours = _timed(lambda: segment_frames(video, "cam", tmp / "ours", FrameSpec(560, 420, 1.0)))
    (tmp / "ffmpeg").mkdir()
    plain = _timed(lambda: run_ffmpeg(["-i", str(video), "-vf", "fps=1,scale=560:420",
                                       "-q:v", "3", str(tmp / "ffmpeg" / "f%05d.jpg")]))
    n = len(list((tmp / "ffmpeg").glob("*.jpg")))
    cached = _timed(lambda: segment_frames(video, "cam", tmp / "ours", FrameSpec(560, 420, 1.0)))
    return {"frames": n, "xlebench_fps": round(n / ours, 1), "ffmpeg_fps": round(n / plain, 1),
            "xlebench_vs_ffmpeg": round(plain / ours, 2),
            "cached_rerun_s": round(cached, 3)}


def captions(tmp: Path, count: int) -> dict:
    import torch

    model = build_tiny_vlm(tmp / "tiny")
    shots = []
    for k in range(30):
        path = tmp / f"shot{k}.jpg"
        from PIL import Image

        Image.new("RGB", (560, 420), (k * 8, 100, 50)).save(path, format="JPEG")
        shots.append(Frame(path, f"07:00:{k:02d}"))
    requests = [[message("user", f"Caption segment {i}.", *shots[:8])] for i in range(count)]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    out = {device: _captions_per_s(model, requests, tmp, device) for device in devices}
    if "cuda" in out:
        out["gpu"] = torch.cuda.get_device_name(0)
    return out


def _captions_per_s(model: Path, requests: list, tmp: Path, device: str) -> dict:
    out = {}
    for batch in (1, 16):
        vlm = make_vlm(TransformersVLMConfig(backend="transformers", model="tiny", path=str(model),
                                 max_tokens=16, batch_size=batch, device=device),
                       tmp / f"cache-{device}-{batch}")
        vlm.answer_batch(requests[:1])  # load the model outside the timing
        seconds = _timed(lambda vlm=vlm: vlm.answer_batch(requests[1:]))
        out[f"batch{batch}_captions_per_s"] = round((len(requests) - 1) / seconds, 2)
    out["batch16_vs_batch1"] = round(out["batch16_captions_per_s"]
                                     / out["batch1_captions_per_s"], 2)
    return out


def prefix(tmp: Path, n_frames: int = 20, per_log: int = 8) -> dict:
    """Separate requests vs one shared prefix per log (the tiny model's 512-token limit caps
    the frames at about 24)."""
    from PIL import Image

    model = build_tiny_vlm(tmp / "tiny")
    logs = []
    for log in range(2):
        shots = []
        for k in range(n_frames):
            path = tmp / f"log{log}-{k}.jpg"
            Image.new("RGB", (560, 420), (k * 9, 40 * log, 90)).save(path, format="JPEG")
            shots.append(Frame(path, f"07:{k:02d}:00"))
        logs.append([[message("system", "You answer from the frames."),
                      message("user", "Frames of the day:", *shots,
                              f"Question {q}: what did I do around step {q}?")]
                     for q in range(per_log)])
    out = {}
    for name, kw in (("separate", {"batch_size": 1, "prefix_cache": False}),
                     ("shared", {"batch_size": per_log, "prefix_cache": True})):
        vlm = make_vlm(TransformersVLMConfig(backend="transformers", model="tiny", path=str(model),
                                 max_tokens=8, temperature=0.0, device="cpu", **kw),
                       tmp / f"cache-{name}")
        vlm._loaded  # noqa: B018 - load the model outside the timing
        answers = []
        seconds = _timed(lambda vlm=vlm, answers=answers: answers.extend(
            c.text for requests in logs for c in vlm.answer_batch(requests)))
        out[name] = {"items_per_s": round(len(answers) / seconds, 2), "answers": answers}
    same = out["separate"].pop("answers") == out["shared"].pop("answers")
    return {**out, "frames": n_frames, "items_per_log": per_log, "identical_answers": same,
            "shared_vs_separate": round(out["shared"]["items_per_s"]
                                        / out["separate"]["items_per_s"], 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=300)
    ap.add_argument("--captions", type=int, default=33)
    ap.add_argument("--parts", default="frames,captions,prefix",
                    help="which measurements (captions alone needs no ffmpeg)")
    args = ap.parse_args()
    parts = {"frames": lambda tmp: frames(tmp, args.seconds),
             "captions": lambda tmp: captions(tmp, args.captions),
             "prefix": prefix}
    report = {}
    for name in args.parts.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            report[name] = parts[name](Path(tmp))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
