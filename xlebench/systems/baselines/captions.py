"""Caption sources: time-stamped text describing a life log, for text-based baselines.

``OracleNarrations`` turns the Ego4D narrations of each segment's video (first pass) into
captions on the virtual clock ("oracle captions", paper section 4). Model captioners (frames ->
text) plug in through the same `CaptionSource` interface, cached per (video, 30-s segment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from xlebench.library.annotations import AnnotationIndex, clean_narration
from xlebench.tasks.recipe.items import to_day


@dataclass(frozen=True)
class Caption:
    virtual_s: float
    video_uid: str
    source_s: float
    text: str


class CaptionSource(Protocol):
    name: str

    def captions(self, log: dict) -> list[Caption]: ...


class OracleNarrations:
    name = "oracle_narrations"
    #: What a system reading these captions reads: ground truth (it makes the system an oracle).
    reads = "the Ego4D narrations as captions"

    def __init__(self, ann: AnnotationIndex) -> None:
        self.ann = ann

    def captions(self, log: dict) -> list[Caption]:
        out = []
        for seg in log["segments"]:
            passes = self.ann.narrations.get(seg["video_uid"]) or []
            if not passes:
                continue
            for n in passes[0]:
                if seg.get("source_start_s", 0.0) <= n.t <= seg["source_end_s"]:
                    out.append(Caption(to_day(seg, n.t), seg["video_uid"], n.t,
                                       clean_narration(n.text)))
        return sorted(out, key=lambda c: c.virtual_s)
