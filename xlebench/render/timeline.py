"""Output time of a rendered life log, and its exact mapping back to the day and the sources.

**Output time is contiguous**: the rendered video plays the segments back to back, with the
gaps between them removed. Every output second maps to exactly one (segment, source video,
source second), and to the virtual clock (`segment start on the day + offset`), through the
piecewise-linear `mapping` stored with the render record. Piece lengths are the *probed*
durations of the media actually stitched, so the mapping stays exact even when a file is a
frame longer or shorter than the library's duration.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from xlebench.clock import fmt_hhmmss


@dataclass(frozen=True)
class Piece:
    segment: int
    video_uid: str
    out_start_s: float
    out_end_s: float
    source_start_s: float
    virtual_start_s: float

    @property
    def duration_s(self) -> float:
        return self.out_end_s - self.out_start_s

    def to_dict(self) -> dict:
        d = asdict(self)
        d["source_end_s"] = round(self.source_start_s + self.duration_s, 3)
        return d


def build_mapping(segments: Sequence[dict], durations: Sequence[float]) -> list[Piece]:
    """Pieces in play order; `durations` are the stitched media's real lengths (seconds)."""
    out, t = [], 0.0
    for seg, dur in zip(segments, durations, strict=True):
        dur = round(float(dur), 3)
        out.append(Piece(int(seg["index"]), seg["video_uid"], round(t, 3), round(t + dur, 3),
                         float(seg.get("source_start_s", 0.0)), float(seg["start_s"])))
        t += dur
    return out


def log_mapping(log: dict) -> list[Piece]:
    """The pieces of a life log as it is stitched, from the library's durations (each
    segment's source span): where its clock and its video meet before any media is read."""
    segs = log["segments"]
    return build_mapping(segs, [float(s["source_end_s"]) - float(s.get("source_start_s", 0.0))
                                for s in segs])


@dataclass(frozen=True)
class Position:
    segment: int
    video_uid: str
    source_s: float
    virtual_s: float


def locate(mapping: Sequence[Piece], t: float) -> Position:
    """Where output second `t` comes from (the last piece owns its end point)."""
    if not mapping or t < 0 or t > mapping[-1].out_end_s + 1e-6:
        raise ValueError(f"output time {t}s is outside the rendered video")
    for p in mapping:
        if t < p.out_end_s or p is mapping[-1]:
            off = t - p.out_start_s
            return Position(p.segment, p.video_uid, round(p.source_start_s + off, 3),
                            round(p.virtual_start_s + off, 3))
    raise AssertionError("unreachable")


def _ts(seconds: float) -> str:
    ms = int(round(seconds * 1000))
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def webvtt(mapping: Sequence[Piece], n_segments: int | None = None) -> str:
    """One cue per second of output: "07:12:05 · segment 2/9 · <uid>" (virtual clock)."""
    n = n_segments or len(mapping)
    lines = ["WEBVTT", "", "NOTE output time is contiguous (gaps between segments removed); "
             "cue text is the virtual clock of the simulated day", ""]
    k = 0
    for p in mapping:
        start = p.out_start_s
        while start < p.out_end_s - 1e-6:
            # Cue boundaries fall on whole seconds of the virtual clock.
            offset = start - p.out_start_s
            virtual = p.virtual_start_s + offset
            end = min(p.out_end_s, start + (math.floor(virtual) + 1 - virtual))
            k += 1
            lines += [str(k), f"{_ts(start)} --> {_ts(end)}",
                      f"{fmt_hhmmss(virtual)} · segment {p.segment + 1}/{n} · {p.video_uid}", ""]
            start = end
    return "\n".join(lines)
