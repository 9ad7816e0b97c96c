"""Life-log statistics next to the paper's Table 2, and the video-reuse histogram."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from xlebench.clock import DAY, fmt_hhmm

#: Paper Table 2, life-log duration in minutes (max / mean / min).
PAPER_TABLE2 = {
    "short": {"max": 580, "mean": 142, "min": 23},
    "medium": {"max": 760, "mean": 319, "min": 118},
    "long": {"max": 984, "mean": 516, "min": 220},
}
REUSE_BINS = ((1, 1), (2, 4), (5, 9), (10, 19), (20, 10**9))


def simulation_stats(logs: list[dict]) -> dict:
    """Life-log durations per length category in minutes (Table 2's max / mean / min, and the
    median, which a skewed category's mean hides), video reuse, relaxation levels, same-country
    share, reflections' replacements and when days end."""
    per_cat: dict[str, list[float]] = {}
    for log in logs:
        per_cat.setdefault(log["category"], []).append(log["total_duration_s"] / 60)
    durations = {
        cat: {"n": len(v), "max": round(max(v), 1), "mean": round(float(np.mean(v)), 1),
              "median": round(float(np.median(v)), 1), "min": round(min(v), 1),
              "paper": PAPER_TABLE2.get(cat)}
        for cat, v in sorted(per_cat.items())
    }
    uses = Counter(s["video_uid"] for log in logs for s in log["segments"])
    hist = {f"{a}" if a == b else (f"{a}+" if b > 10**8 else f"{a}-{b}"):
            sum(1 for n in uses.values() if a <= n <= b) for a, b in REUSE_BINS}
    levels = Counter(s["match"]["relaxation"] for log in logs for s in log["segments"])
    return {
        "lifelogs": len(logs),
        "segments": sum(len(log["segments"]) for log in logs),
        "distinct_videos": len(uses),
        "duration_minutes": durations,
        "video_reuse_histogram": hist,
        "max_reuse": max(uses.values(), default=0),
        "relaxation_levels": dict(sorted(levels.items())),
        "same_country_share": round(
            float(np.mean([s["match"]["same_country"] for log in logs for s in log["segments"]]
                          or [0.0])), 4),
        "replacements": sum(1 for log in logs for r in log["reflections"]
                            for c in r["changes"] if c.startswith("replaced")),
        "day_ends": day_ends(logs),
    }


def day_ends(logs: list[dict]) -> dict:
    """When each simulated day ends (its last segment's end) and how long it lasts (first
    start to last end): the share of days past midnight is the release comparison (about 6
    of 80 sampled release logs); quantiles as clock times (``+1 00:40`` = past midnight)."""
    ends, spans = [], []
    for log in logs:
        days: dict[int, list[dict]] = {}
        for seg in log["segments"]:
            days.setdefault(seg["chunk"].get("day", 0), []).append(seg)
        for d, segs in days.items():
            ends.append(segs[-1]["end_s"] - d * DAY)
            spans.append((segs[-1]["end_s"] - segs[0]["start_s"]) / 3600)
    if not ends:
        return {"days": 0}
    qs, late = (10, 50, 90), sum(e >= DAY for e in ends)
    return {
        "days": len(ends),
        "past_midnight": late,
        "past_midnight_share": round(late / len(ends), 4),
        "end": {f"p{q}": fmt_hhmm(int(np.percentile(ends, q))) for q in qs},
        "span_hours": {f"p{q}": round(float(np.percentile(spans, q)), 2) for q in qs},
    }


def plot_simulation(stats: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=90)
    cats = list(stats["duration_minutes"])
    x = np.arange(len(cats))
    ours = [stats["duration_minutes"][c]["mean"] for c in cats]
    paper = [(stats["duration_minutes"][c]["paper"] or {}).get("mean", np.nan) for c in cats]
    a.bar(x - 0.2, ours, 0.4, label="xlebench (mean)")
    a.bar(x + 0.2, paper, 0.4, label="paper Table 2 (mean)")
    a.set_xticks(x, cats)
    a.set_ylabel("life-log duration (minutes)")
    a.legend()
    hist = stats["video_reuse_histogram"]
    b.bar(list(hist), list(hist.values()), color="#8172b2")
    b.set_xlabel("times a video is used across all logs")
    b.set_ylabel("videos")
    b.set_title(f"{stats['distinct_videos']} distinct videos in {stats['segments']} segments")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
