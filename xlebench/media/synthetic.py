"""Media on demand for the synthetic corpus: one small mp4 per video, made only when needed.

Each video gets its real duration, a small resolution and a low frame rate; the background
colour follows its scenario (so scenarios are visibly different), the top left shows the video
uid and scenario, the bottom the running source time (``HH:MM:SS.mmm``, drawn by ffmpeg from
the frame timestamp), so a stitched life log can be checked by eye and by frame sampling.
Files are cached under ``<cache>/media/synthetic/<WxH@fps>/<uid>.mp4``, written to a temporary
name and renamed, so an interrupted generation never leaves a file that looks complete.
"""

from __future__ import annotations

import colorsys
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from xlebench.library.records import LibraryVideo
from xlebench.media.ffmpeg import filter_path, font_file, run_ffmpeg, safe_uid


@dataclass(frozen=True)
class MediaSpec:
    width: int = 160
    height: int = 120
    fps: int = 2

    @property
    def key(self) -> str:
        return f"{self.width}x{self.height}@{self.fps}"


def scenario_colour(scenarios: tuple[str, ...] | list[str]) -> str:
    """A stable, mid-dark colour per scenario set (white text stays readable on it)."""
    digest = hashlib.sha256("|".join(sorted(scenarios)).encode()).digest()
    r, g, b = colorsys.hsv_to_rgb(digest[0] / 255, 0.55 + digest[1] / 1275, 0.45)
    return f"0x{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def synthetic_media_args(video: LibraryVideo, spec: MediaSpec, label: Path, out: Path
                         ) -> list[str]:
    font = filter_path(font_file())
    small, big = max(8, spec.height // 12), max(10, spec.height // 8)
    draw = (
        f"drawtext=fontfile={font}:textfile={filter_path(label)}:x=4:y=4:"
        f"fontsize={small}:fontcolor=white,"
        f"drawtext=fontfile={font}:text='%{{pts\\:hms}}':x=4:y=h-{big + 6}:"
        f"fontsize={big}:fontcolor=yellow"
    )
    source = (f"color=c={scenario_colour(video.scenarios)}:s={spec.width}x{spec.height}:"
              f"r={spec.fps}:d={video.duration_s:.3f}")
    return ["-f", "lavfi", "-i", source, "-vf", draw, "-c:v", "libx264", "-preset",
            "ultrafast", "-pix_fmt", "yuv420p", "-g", str(spec.fps * 10),
            "-movflags", "+faststart", "-f", "mp4", str(out)]


class SyntheticMediaStore:
    """``ensure(video)`` returns the path of the video's mp4, generating it the first time."""

    def __init__(self, root: Path, spec: MediaSpec) -> None:
        self.root = Path(root) / spec.key
        self.spec = spec

    def path(self, uid: str) -> Path:
        return self.root / f"{safe_uid(uid)}.mp4"

    def ensure(self, video: LibraryVideo) -> Path:
        final = self.path(video.video_uid)
        if final.is_file():
            return final
        final.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=final.parent, prefix=".gen-") as tmp:
            label = Path(tmp) / "label.txt"
            label.write_text(f"{video.video_uid}\n{', '.join(video.scenarios)}", "utf-8")
            partial = Path(tmp) / "video.mp4"
            run_ffmpeg(synthetic_media_args(video, self.spec, label, partial))
            os.replace(partial, final)
        return final
