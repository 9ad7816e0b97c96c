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

import hashlib
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
    """``<root>/<uid>``, holding frames of the media file it was decoded from: its size,
    modification time and a digest of its first and last blocks (`media_stamp`) are kept in
    ``media.json`` beside them, and frames of other media under the same uid
    (``render.media_root`` pointed elsewhere, a file downloaded again, one copied over with
    its size and mtime kept by ``cp -p`` or ``rsync -t``) are removed before any is read, so a
    cache never answers for another file. Frames without a stamp (decoded before stamps
    existed) are rebuilt, never adopted."""
    folder = Path(root) / safe_uid(uid)
    stamp = media_stamp(Path(video))
    held = _held(folder)
    if held is None and any(folder.glob("*/index.json")):
        held = _held(folder) or {}  # a first decode elsewhere stamps before its frames
    if held != stamp:
        if held is not None:
            shutil.rmtree(folder, ignore_errors=True)
        write_text(folder / "media.json", dumps(stamp))
    return folder


#: Bytes read from each end of a media file for its stamp: containers keep their index and
#: first frames at the head and the rest at the tail, so a replaced file differs there.
STAMP_BLOCK = 1 << 20


def media_stamp(video: Path) -> dict[str, object]:
    """What identifies a media file's content cheaply: size, mtime and a sha256 of its first
    and last `STAMP_BLOCK` bytes (size and mtime alone can lie)."""
    stat = video.stat()
    digest = hashlib.sha256()
    with video.open("rb") as f:
        digest.update(f.read(STAMP_BLOCK))
        if stat.st_size > STAMP_BLOCK:
            f.seek(max(STAMP_BLOCK, stat.st_size - STAMP_BLOCK))
            digest.update(f.read(STAMP_BLOCK))
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "head_tail_sha256": digest.hexdigest()}


def _held(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "media.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None


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

