"""Helpers several recipes share: periods, evidence records, seeded sampling."""

from __future__ import annotations

import random
from collections.abc import Sequence

from xlebench.clock import DAY
from xlebench.plan.answers import parse_clock

#: A period that starts after this (seconds) still belongs to the evening (past midnight).
LATE = 10 ** 9


def segment_period(seg: dict) -> tuple[float, float]:
    return float(seg["start_s"]), float(seg["end_s"])


def evidence(seg: dict, a: float, b: float) -> dict:
    """A source-time span of one segment's video."""
    return {"video_uid": seg["video_uid"], "source_start_s": round(a, 3),
            "source_end_s": round(b, 3)}


def whole(seg: dict) -> dict:
    """The segment's whole source span as evidence."""
    return evidence(seg, seg.get("source_start_s", 0.0), seg["source_end_s"])


def sample(rng: random.Random, items: list, k: int | None) -> list:
    """At most k items, kept in order (seeded)."""
    if k is None or len(items) <= k:
        return items
    keep = sorted(rng.sample(range(len(items)), k))
    return [items[i] for i in keep]


def day_periods(boundaries: Sequence[str]) -> list[tuple[str, str, float, float]]:
    """(name, phrase, start, end) of morning / afternoon / evening for the given boundaries."""
    noon, evening = (parse_clock(t) for t in boundaries)
    return [("morning", f"in the morning (before {boundaries[0]})", 0, noon),
            ("afternoon", f"in the afternoon ({boundaries[0]}-{boundaries[1]})", noon, evening),
            ("evening", f"in the evening (after {boundaries[1]})", evening, LATE)]


def seg_day(seg: dict) -> int:
    """The 0-based day of a segment in a multi-day log (its chunk's day)."""
    return int(seg.get("chunk", {}).get("day", 0))


def in_period(seg: dict, lo: float, hi: float, day: int = 0) -> bool:
    """A segment belongs to the period of its day its start falls in; after midnight is
    still that day's evening."""
    return seg_day(seg) == day and lo <= float(seg["start_s"]) - day * DAY < hi


def day_phrase(phrase: str, day: int, days: int) -> str:
    """``in the morning (before 12:00)`` or, in a multi-day log, ``on day 2 in the morning
    (before 12:00)``."""
    return phrase if days == 1 else f"on day {day + 1} {phrase}"


def summary_of(videos: dict, seg: dict) -> str:
    return videos[seg["video_uid"]].summary


def segment_of(log: dict, item: dict) -> dict:
    """The segment an item of one record was built on: the record of its first evidence's
    video whose span holds the item's period start."""
    uid, start = item["evidence"][0]["video_uid"], float(item["period"]["start_s"])
    return next(s for s in log["segments"] if s["video_uid"] == uid
                and float(s["start_s"]) <= start + 1e-6 and start <= float(s["end_s"]) + 1e-6)
