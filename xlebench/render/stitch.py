"""Stitching segment media into one life-log video with ffmpeg (argument lists, no shell).

* ``concat``: the concat demuxer with stream copy — fast (no decoding), but only valid when
  every input shares codec, resolution and frame rate; otherwise a clear error suggests
  ``render=reencode``.
* ``reencode``: every input scaled and padded to one size, one frame rate, H.264; optionally the
  WebVTT virtual clock burned in. The filter graph is built with ffmpeg-python.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xlebench.errors import ConfigError
from xlebench.media.ffmpeg import ffmpeg_exe, run_ffmpeg
from xlebench.media.probe import MediaInfo


@dataclass(frozen=True)
class EncodeSpec:
    width: int = 640
    height: int = 480
    fps: int = 10
    crf: int = 28
    preset: str = "ultrafast"
    burn_clock: bool = False


def _quote_concat(path: Path) -> str:
    return "'" + str(path).replace("'", "'\\''") + "'"


def concat_copy(inputs: Sequence[Path], infos: Sequence[MediaInfo], out: Path,
                workdir: Path) -> None:
    params = {(i.codec, i.width, i.height, round(i.fps, 3)) for i in infos}
    if len(params) > 1:
        raise ConfigError(
            "render=concat needs inputs with identical codec, size and frame rate, these have "
            f"{sorted(params)}; use render=reencode to normalise them")
    listing = workdir / "concat.txt"
    listing.write_text("ffconcat version 1.0\n" + "".join(
        f"file {_quote_concat(Path(p).resolve())}\n" for p in inputs), "utf-8")
    # No +faststart here: it rewrites the whole file a second time (half the copy speed).
    run_ffmpeg(["-f", "concat", "-safe", "0", "-i", str(listing), "-map", "0:v:0", "-c",
                "copy", "-f", "mp4", str(out)])


def reencode(inputs: Sequence[Path], out: Path, spec: EncodeSpec, workdir: Path,
             vtt: Path | None = None) -> None:
    import ffmpeg

    w, h = spec.width, spec.height
    streams = [
        ffmpeg.input(str(Path(p).resolve())).video
        .filter("scale", w, h, force_original_aspect_ratio="decrease")
        .filter("pad", w, h, "(ow-iw)/2", "(oh-ih)/2")
        .filter("fps", fps=spec.fps).filter("setsar", 1)
        for p in inputs
    ]
    joined = ffmpeg.concat(*streams, v=1, a=0) if len(streams) > 1 else streams[0]
    if spec.burn_clock and vtt is not None:
        # Relative name, run in `workdir`: no user path ever needs filter escaping.
        joined = joined.filter("subtitles", vtt.name,
                               force_style=f"FontSize={max(10, h // 24)},Alignment=2")
    args = (joined.output(str(Path(out).resolve()), vcodec="libx264", preset=spec.preset,
                          crf=spec.crf, pix_fmt="yuv420p", movflags="+faststart", f="mp4")
            .compile(cmd=ffmpeg_exe()))
    run_ffmpeg(args[1:], cwd=workdir)
