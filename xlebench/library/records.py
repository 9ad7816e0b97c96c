"""The normalised library video record (DESIGN.md section 5, "Library video")."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class ClipSummary:
    start_s: float
    end_s: float
    text: str


@dataclass(frozen=True)
class LibraryVideo:
    video_uid: str
    duration_s: float
    country: str
    university: str | None
    scenarios: tuple[str, ...]
    time_period: str
    scene: str
    summary: str
    clip_summaries: tuple[ClipSummary, ...] = ()
    has_nlq: bool = False
    has_moments: bool = False
    has_narrations: bool = False
    media_path: str | None = None
    extra: dict = field(default_factory=dict)

    def to_row(self) -> dict:
        """A flat row for the Parquet table (nested parts as JSON text)."""
        row = asdict(self)
        row["scenarios"] = list(self.scenarios)
        row["clip_summaries"] = json.dumps([asdict(c) for c in self.clip_summaries])
        row["extra"] = json.dumps(self.extra, sort_keys=True)
        return row

    @classmethod
    def from_row(cls, row: dict) -> LibraryVideo:
        row = dict(row)
        row["scenarios"] = tuple(row["scenarios"])
        row["clip_summaries"] = tuple(ClipSummary(**c) for c in json.loads(row["clip_summaries"]))
        row["extra"] = json.loads(row.get("extra") or "{}")
        return cls(**row)
