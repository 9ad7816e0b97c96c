"""Render speed: stream-copy concatenation vs a plain copy of the same bytes; re-encode speed.

Generates camera-like media (``--videos`` files of ``--minutes`` each at ``--size``/``--fps``,
a moving test pattern with per-frame noise so the bitrate is in the range of real egocentric
video, not the tiny flat-colour files of the synthetic corpus), then measures in one run, side
by side:
* ``concat`` (ffmpeg concat demuxer, ``-c copy``) throughput relative to copying the same
  bytes with shutil (target: >= 0.5);
* ``reencode`` to 560x420 as a multiple of real time (libx264 ultrafast).

Usage: python benchmarks/render_speed.py [--videos 6] [--minutes 2] [--size 640x480] [--fps 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from xlebench.media.ffmpeg import run_ffmpeg
from xlebench.media.probe import probe
from xlebench.render.stitch import EncodeSpec, concat_copy, reencode


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _camera_like(path: Path, seconds: float, w: int, h: int, fps: int, seed: int) -> None:
    run_ffmpeg(["-f", "lavfi", "-i", f"testsrc2=size={w}x{h}:rate={fps}:duration={seconds}",
                "-vf", f"noise=alls=30:allf=t+u:all_seed={seed}", "-c:v", "libx264", "-preset",
                "ultrafast", "-crf", "23", "-pix_fmt", "yuv420p", "-g", str(fps * 2),
                str(path)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--videos", type=int, default=6)
    ap.add_argument("--minutes", type=float, default=2)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--fps", type=int, default=30)
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inputs = [root / f"bench-{i}.mp4" for i in range(args.videos)]
        gen_s = _timed(lambda: [_camera_like(p, args.minutes * 60, w, h, args.fps, i)
                                for i, p in enumerate(inputs)])
        infos = [probe(p) for p in inputs]
        total_bytes = sum(p.stat().st_size for p in inputs)
        real_s = sum(i.duration_s for i in infos)

        def plain_copy() -> None:
            with open(root / "copy.bin", "wb") as out:
                for p in inputs:
                    with open(p, "rb") as src:
                        shutil.copyfileobj(src, out, 1 << 20)

        results = {"copy": [], "concat": []}
        for _ in range(3):  # interleaved repeats: the machine is noisy
            results["copy"].append(_timed(plain_copy))
            results["concat"].append(_timed(lambda: concat_copy(inputs, infos,
                                                                root / "concat.mp4", root)))
        copy_s, concat_s = min(results["copy"]), min(results["concat"])
        enc_s = _timed(lambda: reencode(inputs, root / "reenc.mp4",
                                        EncodeSpec(560, 420, args.fps), root))
        print(json.dumps({
            "inputs": len(inputs), "input_mb": round(total_bytes / 2**20, 1),
            "real_time_s": round(real_s, 1), "generate_s": round(gen_s, 2),
            "plain_copy_s": round(copy_s, 4), "concat_copy_s": round(concat_s, 4),
            "concat_over_copy_throughput": round(copy_s / concat_s, 3),
            "concat_x_real_time": round(real_s / concat_s, 1),
            "reencode_560x420_s": round(enc_s, 2),
            "reencode_x_real_time": round(real_s / enc_s, 2),
        }, indent=1))


if __name__ == "__main__":
    main()
