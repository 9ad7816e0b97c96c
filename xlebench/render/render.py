"""Render one life log: media -> stitched video + WebVTT clock + mapping (+ frames).

A pure function of the timeline, the media and the settings, shared by the render stage and
by `xlebench.render.rebuild` (regenerating a shared benchmark's videos from the user's own
media). Everything is written into `workdir`; the caller publishes it atomically.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlebench.errors import ConfigError
from xlebench.media.probe import probe
from xlebench.render.frames import FrameSpec, frames_at, segment_frames, uniform_times
from xlebench.render.stitch import EncodeSpec, concat_copy, reencode
from xlebench.render.timeline import build_mapping, locate, webvtt

VIDEO, VTT = "video.mp4", "clock.vtt"
KINDS = ("none", "concat", "reencode")


@dataclass(frozen=True)
class RenderSettings:
    kind: str = "concat"
    encode: EncodeSpec = field(default_factory=EncodeSpec)
    uniform_frames: int = 0
    segment_fps: float = 0.0
    frames: FrameSpec = field(default_factory=FrameSpec)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"render.kind={self.kind!r}: choose one of {list(KINDS)}")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def render_log(segments: Sequence[dict], media: Callable[[str], Path], settings: RenderSettings,
               workdir: Path, frames_root: Path | None = None) -> dict[str, Any]:
    """The render record of one life log (files `video.mp4`, `clock.vtt` in `workdir`)."""
    inputs = [media(s["video_uid"]) for s in segments]
    infos = [probe(p) for p in inputs]
    mapping = build_mapping(segments, [i.duration_s for i in infos])
    vtt = workdir / VTT
    vtt.write_text(webvtt(mapping, len(segments)), "utf-8")
    out = workdir / VIDEO
    if settings.kind == "concat":
        concat_copy(inputs, infos, out, workdir)
    else:
        reencode(inputs, out, settings.encode, workdir, vtt)
    result = probe(out)
    record: dict[str, Any] = {
        "output_time": "contiguous",
        "kind": settings.kind,
        "duration_s": round(mapping[-1].out_end_s, 3) if mapping else 0.0,
        "mapping": [p.to_dict() for p in mapping],
        "video": {"file": VIDEO, "sha256": sha256_file(out), "codec": result.codec,
                  "width": result.width, "height": result.height, "fps": round(result.fps, 3),
                  "duration_s": round(result.duration_s, 3),
                  "video_streams": result.n_video_streams},
        "vtt": {"file": VTT, "sha256": sha256_file(vtt)},
    }
    if frames_root is not None and (settings.uniform_frames or settings.segment_fps):
        record["frames"] = _frames(segments, inputs, mapping, settings, frames_root)
    return record


def _frames(segments, inputs, mapping, settings: RenderSettings, root: Path) -> dict:
    out: dict[str, Any] = {"root": "cache/frames", "spec": settings.frames.key}
    if settings.segment_fps:
        spec = FrameSpec(settings.frames.width, settings.frames.height, settings.segment_fps,
                         settings.frames.segment_s)
        per_segment = []
        for piece, path in zip(mapping, inputs, strict=True):
            for f in segment_frames(path, piece.video_uid, root, spec):
                if f["source_s"] > piece.source_start_s + piece.duration_s:
                    continue
                off = f["source_s"] - piece.source_start_s
                per_segment.append({
                    "segment": piece.segment, "clip": f["segment"], "video_uid": piece.video_uid,
                    "source_s": f["source_s"], "virtual_s": round(piece.virtual_start_s + off, 3),
                    "out_s": round(piece.out_start_s + off, 3),
                    "file": f"{piece.video_uid}/{spec.key}/{f['file']}"})
        out["segment_frames"] = per_segment
    if settings.uniform_frames and mapping:
        times = uniform_times(mapping[-1].out_end_s, settings.uniform_frames)
        positions = [(t, locate(mapping, t)) for t in times]
        by_uid = {p.video_uid: path for p, path in zip(mapping, inputs, strict=True)}
        files: dict[tuple[str, float], str] = {}
        for uid in dict.fromkeys(pos.video_uid for _, pos in positions):
            want = [pos.source_s for _, pos in positions if pos.video_uid == uid]
            for t, name in frames_at(by_uid[uid], uid, want, root, settings.frames).items():
                files[(uid, t)] = name
        out["uniform_frames"] = [
            {"out_s": t, "virtual_s": pos.virtual_s, "segment": pos.segment,
             "video_uid": pos.video_uid, "source_s": pos.source_s,
             "file": files[(pos.video_uid, pos.source_s)]} for t, pos in positions]
    return out
