"""Frames at the decode limit: the end-to-end system's uniform frames, xlebench vs ffmpeg.

The end-to-end system sees N frames spread over a whole life log (paper: 1200); xlebench takes
them by seeking to each needed position of each source video (`xlebench.render.frames.frames_at`:
PyAV, seek to the keyframe before, decode up to the frame, 560x420 JPEG), never decoding a
whole video. This compares, side by side in one run and on the same frames, against ffmpeg's
own ways to extract them:

* ``ffmpeg -ss``: one process per frame with input seeking (ffmpeg's fastest for sparse frames);
* ``ffmpeg select``: one process decoding the whole file and keeping the wanted frames (fastest
  when frames are dense; skipped on files longer than ``--select-max-min`` minutes, where it
  is hopeless and would take most of an hour).

Media: a camera-like 1080p H.264 source (moving test pattern with per-frame noise, keyframe
every ``--gop`` frames) of ``--minutes`` minutes, and a stitched log of ``--log-hours`` hours
(the source stream-copied end to end, as the render stage stitches). Frames/s of each method,
xlebench over the fastest ffmpeg (target >= 0.9), and the mean absolute pixel difference
between xlebench's and ffmpeg's frame at each time (the same frames, not near ones).

Usage: python benchmarks/frame_extraction.py [--minutes 30] [--log-hours 4] [--frames 64]
       [--gop 250] [--threads auto|none]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from xlebench.media.ffmpeg import run_ffmpeg
from xlebench.render.frames import FrameSpec, frames_at, uniform_times

W, H = 560, 420


def camera_like(path: Path, minutes: float, gop: int, work: Path) -> None:
    """`minutes` of 1080p30 H.264 at 8 Mb/s: one noisy minute encoded, then stream-copied end to end."""
    unit = work / "unit.mp4"
    run_ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=60",
                "-vf", "noise=alls=6:allf=t+u", "-c:v", "libx264", "-preset", "veryfast",
                "-b:v", "8M", "-maxrate", "10M", "-bufsize", "16M",  # a camera's 8 Mb/s
                "-pix_fmt", "yuv420p", "-g", str(gop), str(unit)])
    repeat(unit, int(round(minutes)), path)


def repeat(src: Path, times: int, out: Path) -> None:
    listing = out.with_suffix(".txt")
    listing.write_text("".join(f"file '{src}'\n" for _ in range(times)))
    run_ffmpeg(["-f", "concat", "-safe", "0", "-i", str(listing), "-c", "copy", str(out)])


def ffmpeg_seek(video: Path, times: list[float], out: Path) -> float:
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for k, t in enumerate(times):
        run_ffmpeg(["-ss", f"{t:.3f}", "-i", str(video), "-frames:v", "1", "-s", f"{W}x{H}",
                    "-q:v", "3", str(out / f"{k:05d}.jpg")])
    return time.perf_counter() - start


def ffmpeg_select(video: Path, times: list[float], out: Path, fps: float = 30.0) -> float:
    out.mkdir(parents=True, exist_ok=True)
    frames = "+".join(f"eq(n\\,{int(np.ceil(t * fps - 1e-6))})" for t in times)
    start = time.perf_counter()
    run_ffmpeg(["-i", str(video), "-vf", f"select='{frames}',scale={W}:{H}", "-fps_mode", "passthrough",
                "-q:v", "3", str(out / "%05d.jpg")])
    return time.perf_counter() - start


def ours(video: Path, times: list[float], root: Path) -> tuple[float, list[Path]]:
    start = time.perf_counter()
    files = frames_at(video, "bench", times, root, FrameSpec(width=W, height=H))
    seconds = time.perf_counter() - start
    return seconds, [root / files[t] for t in times]


def pixel_gap(a: list[Path], b: list[Path]) -> float:
    """Mean absolute difference (0-255) between paired JPEGs: a few units is JPEG noise,
    tens mean another frame."""
    from PIL import Image

    gaps = [np.abs(np.asarray(Image.open(x), dtype=np.float32)
                   - np.asarray(Image.open(y).resize((W, H)), dtype=np.float32)).mean()
            for x, y in zip(a, b, strict=True)]
    return round(float(np.mean(gaps)), 2)


def compare(video: Path, minutes: float, n: int, work: Path, select_max_min: float) -> dict:
    times = uniform_times(minutes * 60, n)
    row: dict = {"file_minutes": minutes, "frames": n}
    t_ours, our_files = ours(video, times, work / "ours")
    t_seek = ffmpeg_seek(video, times, work / "seek")
    row["frames_per_s"] = {"xlebench": round(n / t_ours, 2), "ffmpeg -ss": round(n / t_seek, 2)}
    fastest = t_seek
    if minutes <= select_max_min:
        t_sel = ffmpeg_select(video, times, work / "select")
        row["frames_per_s"]["ffmpeg select"] = round(n / t_sel, 2)
        fastest = min(fastest, t_sel)
    row["xlebench_over_fastest_ffmpeg"] = round(fastest / t_ours, 2)
    row["pixel_gap_vs_ffmpeg_ss"] = pixel_gap(our_files, sorted((work / "seek").glob("*.jpg")))
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--log-hours", type=float, default=4)
    ap.add_argument("--frames", type=int, default=64)
    ap.add_argument("--gop", type=int, default=250)
    ap.add_argument("--select-max-min", type=float, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "source.mp4"
        made = time.perf_counter()
        camera_like(source, args.minutes, args.gop, work)
        log = work / "log.mp4"
        repeat(source, int(round(args.log_hours * 60 / args.minutes)), log)
        report = {"media_seconds": round(time.perf_counter() - made, 1), "gop": args.gop,
                  "source_1080p": compare(source, args.minutes, args.frames, work / "a",
                                          args.select_max_min),
                  "stitched_log": compare(log, args.log_hours * 60, args.frames * 2,
                                          work / "b", args.select_max_min)}
        shutil.rmtree(work / "a", ignore_errors=True)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
