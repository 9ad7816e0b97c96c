"""Probing media with PyAV (the imageio-ffmpeg binary ships no ffprobe)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from xlebench.errors import DataError

#: What to do with a media file that cannot be read.
REPLACE = ("replace it with a complete copy (download it again), or point render.media_root "
           "at a folder holding readable files")


@contextmanager
def readable(path: Path) -> Iterator[None]:
    """Reading a media file: an empty, truncated or corrupt file is one `DataError` line
    naming it (PyAV's own error is a long traceback from deep inside its decoder)."""
    import av

    if path.is_file() and path.stat().st_size == 0:
        raise DataError(str(path), "$", "an empty file, not a video", REPLACE)
    try:
        yield
    except av.FFmpegError as exc:
        raise DataError(str(path), "$", f"not a readable video ({type(exc).__name__}: "
                        f"{getattr(exc, 'strerror', None) or exc})", REPLACE) from None


@contextmanager
def video_stream(path: Path) -> Iterator[tuple]:
    """``(container, its first video stream)`` of a readable media file, threaded decoding
    on; a file without a video stream is one line naming it, as an unreadable one is."""
    import av

    with readable(path), av.open(str(path)) as container:
        if not container.streams.video:
            raise DataError(str(path), "$", "holds no video stream", REPLACE)
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        yield container, stream


@dataclass(frozen=True)
class MediaInfo:
    duration_s: float
    n_video_streams: int
    n_audio_streams: int
    codec: str
    width: int
    height: int
    fps: float


def probe(path: Path) -> MediaInfo:
    import av

    with readable(path), av.open(str(path)) as container:
        video = container.streams.video
        audio = container.streams.audio
        if container.duration is not None:
            duration = container.duration / 1_000_000
        else:
            s = video[0]
            duration = float(s.duration * s.time_base) if s.duration else 0.0
        v = video[0] if video else None
        rate = v.average_rate if v is not None and v.average_rate else Fraction(0)
        return MediaInfo(
            duration_s=float(duration), n_video_streams=len(video), n_audio_streams=len(audio),
            codec=v.codec_context.name if v is not None else "",
            width=v.codec_context.width if v is not None else 0,
            height=v.codec_context.height if v is not None else 0, fps=float(rate),
        )
