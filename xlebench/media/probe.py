"""Probing media with PyAV (the imageio-ffmpeg binary ships no ffprobe)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path


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

    with av.open(str(path)) as container:
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
