"""Frame sampling for the evaluation baselines (paper section 4), cached per source video.

* `segment_frames`: the Socratic baselines' input — every source video cut into 30-second
  segments, ``fps`` frames per second at 560x420. A video is decoded once, sequentially, and
  its frames stored under ``<root>/<uid>/<W>x<H>@<fps>/``; a library video reused by many life
  logs is never decoded again.
* `uniform_frames`: the end-to-end baseline's input — N frames spread uniformly over a whole
  life log's output time (paper: 1200), each cached per (video, millisecond).

Every frame is tagged with its source position; callers add the virtual timestamp through the
life log's mapping (`xlebench.render.timeline`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from xlebench.errors import DataError
from xlebench.media.ffmpeg import safe_uid
from xlebench.media.probe import REPLACE, video_stream
from xlebench.runner.atomic import dumps, write_text


@dataclass(frozen=True)
class FrameSpec:
    width: int = 560
    height: int = 420
    fps: float = 1.0
    segment_s: float = 30.0

    @property
    def key(self) -> str:
        return f"{self.width}x{self.height}@{self.fps:g}"


def _save(frame, path: Path, spec: FrameSpec) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    frame.reformat(width=spec.width, height=spec.height).to_image().save(tmp, format="JPEG",
                                                                        quality=85)
    os.replace(tmp, path)


def media_folder(root: Path, uid: str, video: Path) -> Path:
    """``<root>/<uid>``, holding frames of the media file it was decoded from: its size and
    modification time are kept in ``media.json`` beside them, and frames of other media
    under the same uid (``render.media_root`` pointed elsewhere, a file downloaded again)
    are removed before any is read, so a cache never answers for another file."""
    folder = Path(root) / safe_uid(uid)
    stat = Path(video).stat()
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    try:
        held = json.loads((folder / "media.json").read_text("utf-8"))
    except (OSError, ValueError):
        held = None
    if held != stamp:
        if held is not None:  # frames of another file (an unstamped folder is kept: a
            shutil.rmtree(folder, ignore_errors=True)  # concurrent first decode fills it)
        write_text(folder / "media.json", dumps(stamp))
    return folder


def segment_frames(video: Path, uid: str, root: Path, spec: FrameSpec) -> list[dict]:
    """[{segment, source_s, file}] for the whole video; decoded once, then read from cache."""
    folder = media_folder(root, uid, video) / spec.key
    index = folder / "index.json"
    if index.is_file():
        return json.loads(index.read_text("utf-8"))["frames"]
    out, step, k = [], 1.0 / spec.fps, 0
    # Decoding (every frame must be) overlaps with scaling and JPEG encoding of the sampled
    # ones in worker threads (both release the GIL).
    with video_stream(video) as (container, stream), ThreadPoolExecutor(max_workers=2) as pool:
        saves = []
        for frame in container.decode(stream):
            t = float(frame.time or 0.0)
            while t + 1e-6 >= k * step:
                if t - k * step < step:  # the first frame at or after the sample time
                    seg = int(k * step // spec.segment_s)
                    name = f"seg_{seg:05d}/{k:06d}.jpg"
                    saves.append(pool.submit(_save, frame, folder / name, spec))
                    out.append({"segment": seg, "source_s": round(k * step, 3), "file": name})
                k += 1
        for done in saves:
            done.result()
    write_text(index, dumps({"video_uid": uid, "spec": spec.key, "frames": out}))
    return out


def uniform_times(total_s: float, n: int) -> list[float]:
    """N output times, one in the middle of each of N equal slices of the video."""
    if n <= 0 or total_s <= 0:
        return []
    return [round((i + 0.5) * total_s / n, 3) for i in range(n)]


def frames_at(video: Path, uid: str, times: Sequence[float], root: Path, spec: FrameSpec
              ) -> dict[float, str]:
    """One frame at (or just after) each source time, cached per (video, millisecond)."""
    folder = media_folder(root, uid, video) / f"{spec.width}x{spec.height}" / "at"
    want = {t: f"{int(round(t * 1000)):09d}.jpg" for t in sorted(set(times))}
    todo = [t for t, name in want.items() if not (folder / name).is_file()]
    if todo:
        with video_stream(video) as (container, stream):
            for t in todo:
                container.seek(int(t / stream.time_base), stream=stream, backward=True)
                chosen = None
                for frame in container.decode(stream):
                    chosen = frame
                    if float(frame.time or 0.0) + 1e-6 >= t:
                        break
                if chosen is None:
                    raise DataError(str(video), f"{t}s", "no decodable frame there", REPLACE)
                # Past the last frame (t within the final frame's duration): keep the last one.
                _save(chosen, folder / want[t], spec)
    return {t: f"{uid}/{spec.width}x{spec.height}/at/{name}" for t, name in want.items()}

