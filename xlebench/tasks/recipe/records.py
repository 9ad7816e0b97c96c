"""Helpers several recipes share: periods, evidence records, seeded sampling."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from xlebench.clock import DAY, parse_clock

#: A period that starts after this (seconds) still belongs to the evening (past midnight).
LATE = 10 ** 9
#: The most a padded period reaches into the free time beside its record (seconds).
MAX_PAD_S = 900.0


def segment_period(seg: dict) -> tuple[float, float]:
    return float(seg["start_s"]), float(seg["end_s"])


def padded_period(log: dict, seg: dict, rng: random.Random) -> tuple[float, float]:
    """The record's period widened into the free time beside it (`padded_span`)."""
    return padded_span(log, seg, seg, rng)


def padded_span(log: dict, first: dict, last: dict, rng: random.Random) -> tuple[float, float]:
    """The span of records ``first`` to ``last`` widened on each side by a seeded share of
    the free time there (at most `MAX_PAD_S`), its ends on whole minutes where that free time
    holds one (so ``HH:MM`` prints them exactly, and an offset into the period counts from
    the printed start). It still holds those records alone, but its length no longer names
    the video: a record's length is its library video's, which every other log using the
    video, and Ego4D's public metadata, print."""
    segs = sorted(log["segments"], key=lambda s: float(s["start_s"]))
    i = next(k for k, s in enumerate(segs) if s["index"] == first["index"])
    j = next(k for k, s in enumerate(segs) if s["index"] == last["index"])
    lo, hi = float(first["start_s"]), float(last["end_s"])
    before = lo - float(segs[i - 1]["end_s"]) if i else lo
    after = float(segs[j + 1]["start_s"]) - hi if j + 1 < len(segs) else MAX_PAD_S
    room_lo, room_hi = min(max(before, 0.0), MAX_PAD_S), min(max(after, 0.0), MAX_PAD_S)
    a = _on_minute(lo - rng.random() * room_lo, lo - room_lo, lo, down=True)
    b = _on_minute(hi + rng.random() * room_hi, hi, hi + room_hi, down=False)
    return a, b


def _on_minute(t: float, lowest: float, highest: float, down: bool) -> float:
    """``t`` moved to a whole minute inside ``[lowest, highest]`` (down first where ``down``,
    else up first), or ``t`` itself where that free time holds no whole minute."""
    floor, ceil = math.floor(t / 60) * 60.0, math.ceil(t / 60) * 60.0
    for m in ((floor, ceil) if down else (ceil, floor)):
        if lowest <= m <= highest:
            return m
    return t


def record_period(log: dict, segs: Sequence[dict], how: str, rng: random.Random
                  ) -> tuple[float, float]:
    """The period an item about the records ``segs`` (in clock order) prints: ``padded``
    (`padded_span`) or ``record``, their own first start and last end (the paper's)."""
    if how == "padded":
        return padded_span(log, segs[0], segs[-1], rng)
    return float(segs[0]["start_s"]), float(segs[-1]["end_s"])


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
    video that the item's period overlaps (a padded period starts before its record)."""
    uid = item["evidence"][0]["video_uid"]
    lo, hi = float(item["period"]["start_s"]), float(item["period"]["end_s"])
    return next(s for s in log["segments"] if s["video_uid"] == uid
                and float(s["start_s"]) <= hi + 1e-6 and lo <= float(s["end_s"]) + 1e-6)
